//! The LAYOUT arguments of the subcommands: Triton attribute text, a tensor type, a JSON
//! encoding or layout, or `@FILE[:NAME]`, turned into a layout.

use std::path::Path;

use linear_layout::encodings::{Encoding, TensorType, parse_aliases};
use linear_layout::linear::LinearLayout;

/// How LAYOUT may be written (also the `--help` text of the argument).
pub const LAYOUT_HELP: &str = "The layout: Triton attribute text ('#ttg.blocked<{…}>'), a tensor type \
('tensor<128x64xf16, #ttg.blocked<{…}>>', which carries the shape), a JSON encoding ('{\"kind\": \"blocked\", …}'), \
a JSON layout ('{\"in_dims\": {…}, \"out_dims\": {…}}', which carries its sizes), or @FILE[:NAME]: \
an encoding alias NAME (with or without '#') defined by a '#NAME = #ttg.…' line of FILE (a TTGIR file, as \
triton-tensor-layout -i FILE -l NAME reads), or a tensor type using FILE's aliases \
('@kernel.mlir:tensor<128x64xf16, #mma>'). Without :NAME, FILE holds one layout in any of the forms above, \
or exactly one encoding alias. '@-' reads standard input.";

/// What LAYOUT named: a layout, its description, and the padding of a padded_shared encoding.
pub struct Loaded {
    /// The layout.
    pub layout: LinearLayout,
    /// What it is, in words (the encoding and shape).
    pub title: String,
    /// The (interval, padding) pairs of a padded_shared encoding.
    pub padding: Vec<(u64, u64)>,
}

/// A shape written `128x64` (or `128,64`).
pub fn parse_shape(s: &str) -> Result<Vec<u64>, String> {
    let parts: Vec<&str> = s.split(['x', 'X', ',']).map(str::trim).collect();
    let mut shape = Vec::new();
    for p in parts {
        match p.parse::<u64>() {
            Ok(v) if v > 0 => shape.push(v),
            _ => {
                return Err(format!(
                    "--shape {s}: expected sizes like 128x64 (positive integers)"
                ));
            }
        }
    }
    Ok(shape)
}

fn one_line(s: impl ToString) -> String {
    s.to_string().split_whitespace().collect::<Vec<_>>().join(" ")
}

fn from_encoding(e: &Encoding, shape: Option<&[u64]>, what: &str) -> Result<Loaded, String> {
    let shape = shape.ok_or_else(|| {
        format!("{what} is an encoding: give the tensor shape with --shape (e.g. --shape 128x64)")
    })?;
    let layout = e
        .to_linear_layout(shape)
        .map_err(|err| format!("{what}: {}", one_line(err)))?;
    let padding = match e {
        Encoding::PaddedShared(p) => p
            .intervals
            .iter()
            .zip(&p.paddings)
            .map(|(&i, &p)| (i as u64, p as u64))
            .collect(),
        _ => Vec::new(),
    };
    let dims: Vec<String> = shape.iter().map(u64::to_string).collect();
    Ok(Loaded {
        layout,
        title: format!("{e} on {}", dims.join("x")),
        padding,
    })
}

fn from_tensor_type(t: &TensorType, shape: Option<&[u64]>, what: &str) -> Result<Loaded, String> {
    if let Some(s) = shape
        && s != t.shape.as_slice()
    {
        return Err(format!("{what} has shape {:?}; --shape {s:?} disagrees", t.shape));
    }
    let e = t
        .encoding
        .as_ref()
        .ok_or_else(|| format!("{what}: the tensor type has no encoding"))?;
    from_encoding(e, Some(&t.shape), what)
}

fn from_text(text: &str, shape: Option<&[u64]>, what: &str) -> Result<Loaded, String> {
    let t = text.trim();
    if t.starts_with('{') {
        let v: serde_json::Value =
            serde_json::from_str(t).map_err(|e| format!("{what}: not valid JSON: {}", one_line(e)))?;
        if v.get("kind").is_some() {
            let e = Encoding::from_json(&v).map_err(|e| format!("{what}: {}", one_line(e)))?;
            return from_encoding(&e, shape, what);
        }
        if v.get("in_dims").is_some() {
            let layout: LinearLayout =
                serde_json::from_value(v).map_err(|e| format!("{what}: {}", one_line(e)))?;
            let sizes: Vec<u64> = layout.out_dims().map(|(_, s)| s).collect();
            if let Some(s) = shape
                && s != sizes.as_slice()
            {
                return Err(format!(
                    "{what}: the JSON layout has out-dim sizes {sizes:?}; --shape {s:?} disagrees"
                ));
            }
            return Ok(Loaded {
                layout,
                title: "JSON layout".into(),
                padding: Vec::new(),
            });
        }
        return Err(format!(
            "{what}: a JSON layout needs \"in_dims\" and \"out_dims\", a JSON encoding a \"kind\""
        ));
    }
    if t.starts_with("tensor<") || t.starts_with("!ttg.memdesc<") {
        let ty: TensorType = t.parse().map_err(|e| format!("{what}: {}", one_line(e)))?;
        return from_tensor_type(&ty, shape, what);
    }
    let e: Encoding = t.parse().map_err(|e| format!("{what}: {}", one_line(e)))?;
    from_encoding(&e, shape, what)
}

fn from_file(spec: &str, shape: Option<&[u64]>) -> Result<Loaded, String> {
    let (path, name) = if spec == "-" || Path::new(spec).is_file() {
        (spec, None)
    } else {
        match spec.rfind(':') {
            Some(i) => (&spec[..i], Some(spec[i + 1..].trim())),
            None => (spec, None),
        }
    };
    let content = super::read_ttgir(path)?;
    let what = if path == "-" { "standard input" } else { path };
    from_module(&content, name, shape, what, &format!("@{path}:NAME"))
}

/// The layout `name` names in a TTGIR module's text `content` (an encoding alias, with or
/// without `#`, or a tensor type using the aliases); without a name, the one layout or encoding
/// alias the text holds. `what` names the text in errors; `pick` says how to name one of
/// several aliases.
pub fn from_module(
    content: &str,
    name: Option<&str>,
    shape: Option<&[u64]>,
    what: &str,
    pick: &str,
) -> Result<Loaded, String> {
    match name {
        Some(n) if n.starts_with("tensor<") || n.starts_with("!ttg.memdesc<") => {
            let aliases = parse_aliases(content).map_err(|e| format!("{what}: {}", one_line(e)))?;
            let ty =
                TensorType::parse_with_aliases(n, &aliases).map_err(|e| format!("{n}: {}", one_line(e)))?;
            from_tensor_type(&ty, shape, n)
        }
        Some(n) => {
            let key = n.trim_start_matches('#');
            let aliases = parse_aliases(content).map_err(|e| format!("{what}: {}", one_line(e)))?;
            let e = aliases.get(key).ok_or_else(|| {
                let mut names: Vec<&String> = aliases.keys().collect();
                names.sort();
                let list: Vec<String> = names.iter().map(|n| format!("#{n}")).collect();
                format!(
                    "{what}: no encoding alias #{key} (defined: {})",
                    if list.is_empty() {
                        "none".to_string()
                    } else {
                        list.join(", ")
                    }
                )
            })?;
            from_encoding(e, shape, &format!("#{key}"))
        }
        None => {
            let t = content.trim();
            if t.starts_with('{')
                || t.starts_with("#ttg.")
                || t.starts_with("tensor<")
                || t.starts_with("!ttg.")
            {
                return from_text(t, shape, what);
            }
            let aliases = parse_aliases(content).map_err(|e| format!("{what}: {}", one_line(e)))?;
            let mut names: Vec<(&String, &Encoding)> = aliases.iter().map(|(n, e)| (n, &**e)).collect();
            names.sort_by(|a, b| a.0.cmp(b.0));
            match names.as_slice() {
                [(n, e)] => from_encoding(e, shape, &format!("#{n}")),
                [] => Err(format!(
                    "{what}: no layout and no '#name = #ttg.…' encoding alias found"
                )),
                many => Err(format!(
                    "{what} defines several encodings; pick one with {pick} ({})",
                    many.iter()
                        .map(|(n, _)| format!("#{n}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            }
        }
    }
}

/// Loads a LAYOUT argument; `shape` is required for an encoding. `what` names the argument in
/// error messages.
pub fn load(arg: &str, shape: Option<&[u64]>, what: &str) -> Result<Loaded, String> {
    match arg.strip_prefix('@') {
        Some(spec) => from_file(spec, shape),
        None => from_text(arg, shape, what),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        assert_eq!(parse_shape("128x64"), Ok(vec![128, 64]));
        assert_eq!(parse_shape("8,4,2"), Ok(vec![8, 4, 2]));
        assert!(parse_shape("12x").is_err());
        assert!(parse_shape("0").is_err());
    }
}
