//! `linear-layout show LAYOUT --shape …`: a layout for people — Triton's tensor and hardware
//! views, the bases ready to paste, and a picture (SVG / HTML).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use clap::builder::TypedValueParser as _;
use linear_layout::encodings::{Encoding, TensorType, parse_aliases};
use linear_layout::linear::LinearLayout;
use linear_layout::view::{self, PictureOptions};

/// How LAYOUT may be written (also the `--help` text of the argument).
pub const LAYOUT_HELP: &str = "The layout: Triton attribute text ('#ttg.blocked<{…}>'), a tensor type \
('tensor<128x64xf16, #ttg.blocked<{…}>>', which carries the shape), a JSON encoding ('{\"kind\": \"blocked\", …}'), \
a JSON layout ('{\"in_dims\": {…}, \"out_dims\": {…}}', which carries its sizes), or @FILE[:NAME]: \
an encoding alias NAME (with or without '#') defined by a '#NAME = #ttg.…' line of FILE (a TTGIR file, as \
triton-tensor-layout -i FILE -l NAME reads), or a tensor type using FILE's aliases \
('@kernel.mlir:tensor<128x64xf16, #mma>'). Without :NAME, FILE holds one layout in any of the forms above, \
or exactly one encoding alias. '@-' reads standard input.";

/// Arguments of the `show` subcommand.
#[derive(clap::Args)]
pub struct Args {
    #[arg(help = LAYOUT_HELP, value_name = "LAYOUT")]
    pub layout: String,
    /// The tensor shape, e.g. 128x64 (required for an encoding; a JSON layout or a tensor type
    /// carries its own).
    #[arg(long, value_name = "DxD…")]
    pub shape: Option<String>,
    /// Print the hardware view (instead of the tensor view): per warp and register, the
    /// element each lane holds (shared layouts: the element at each offset), exactly as
    /// Triton's get_distributed_view(True) / get_shared_view(True).
    #[arg(long)]
    pub hw: bool,
    /// Print the bases (instead of the tensor view; before the hardware view with --hw):
    /// Triton's printing, then as a #ttg.linear / #ttg.shared_linear attribute and as Gluon
    /// DistributedLinearLayout / SharedLinearLayout arguments.
    #[arg(long)]
    pub bases: bool,
    /// Write a picture as an SVG file ('-': standard output): cells coloured by warp and
    /// shaded by lane, labelled lane:register; for shared layouts the offset and bank of each
    /// element. With --svg / --html and neither --hw nor --bases, the tensor view is not
    /// printed.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Write the same picture as a self-contained HTML page ('-': standard output).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Element width in bits, for the banks of a shared layout's picture.
    #[arg(long, default_value_t = 16, value_name = "N")]
    pub bits: u32,
    /// Number of 4-byte shared-memory (LDS) banks, for a shared layout's picture.
    #[arg(long, default_value_t = 32, value_parser = clap::builder::PossibleValuesParser::new(["32", "64"]).map(|s| s.parse::<u32>().unwrap_or(32)))]
    pub banks: u32,
}

/// What LAYOUT named: a layout, its description, and the padding of a padded_shared encoding.
struct Loaded {
    layout: LinearLayout,
    title: String,
    padding: Vec<(u64, u64)>,
}

fn parse_shape(s: &str) -> Result<Vec<u64>, String> {
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
    let content = if path == "-" {
        std::io::read_to_string(std::io::stdin()).map_err(|e| format!("standard input: {e}"))?
    } else {
        std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?
    };
    let what = if path == "-" { "standard input" } else { path };
    match name {
        Some(n) if n.starts_with("tensor<") || n.starts_with("!ttg.memdesc<") => {
            let aliases = parse_aliases(&content).map_err(|e| format!("{what}: {}", one_line(e)))?;
            let ty =
                TensorType::parse_with_aliases(n, &aliases).map_err(|e| format!("{n}: {}", one_line(e)))?;
            from_tensor_type(&ty, shape, n)
        }
        Some(n) => {
            let key = n.trim_start_matches('#');
            let aliases = parse_aliases(&content).map_err(|e| format!("{what}: {}", one_line(e)))?;
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
            let aliases = parse_aliases(&content).map_err(|e| format!("{what}: {}", one_line(e)))?;
            let mut names: Vec<(&String, &Encoding)> = aliases.iter().collect();
            names.sort_by(|a, b| a.0.cmp(b.0));
            match names.as_slice() {
                [(n, e)] => from_encoding(e, shape, &format!("#{n}")),
                [] => Err(format!(
                    "{what}: no layout and no '#name = #ttg.…' encoding alias found"
                )),
                many => Err(format!(
                    "{what} defines several encodings; pick one with @{path}:NAME ({})",
                    many.iter()
                        .map(|(n, _)| format!("#{n}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            }
        }
    }
}

/// Runs the subcommand and returns its standard output.
pub fn run(args: &Args) -> Result<String, String> {
    let shape = args.shape.as_deref().map(parse_shape).transpose()?;
    let loaded = match args.layout.strip_prefix('@') {
        Some(spec) => from_file(spec, shape.as_deref())?,
        None => from_text(&args.layout, shape.as_deref(), "LAYOUT")?,
    };
    let l = &loaded.layout;
    let mut out = String::new();
    if args.bases {
        out.push_str("Triton's LinearLayout:");
        out.push_str(&l.to_string());
        out.push_str("\n\nAs an attribute, and as Gluon arguments:\n");
        out.push_str(&view::pasteable_bases(l));
        if !l.is_surjective() && !view::is_shared(l) {
            out.push_str(
                "note: some elements are held by no thread, so Triton rejects this #ttg.linear \
                 (its layouts must be surjective)\n",
            );
        }
    }
    if args.hw {
        if args.bases {
            out.push('\n');
        }
        out.push_str(&view::hardware_view(l).map_err(|e| e.to_string())?);
    }
    let files = args.svg.is_some() || args.html.is_some();
    if !args.bases && !args.hw && !files {
        out.push_str(&view::tensor_view(l).map_err(|e| e.to_string())?);
    }
    let opts = PictureOptions {
        title: loaded.title.clone(),
        bits: args.bits,
        banks: args.banks,
        padding: loaded.padding.clone(),
    };
    let mut files = Vec::new();
    if let Some(p) = &args.svg {
        files.push((p, view::svg(l, &opts).map_err(|e| format!("--svg: {e}"))?));
    }
    if let Some(p) = &args.html {
        files.push((p, view::html(l, &opts).map_err(|e| format!("--html: {e}"))?));
    }
    for (p, doc) in files {
        if p.as_os_str() == "-" {
            out.push_str(&doc);
        } else {
            std::fs::write(p, doc).map_err(|e| format!("{}: {e}", p.display()))?;
            let _ = writeln!(std::io::stderr(), "wrote {}", p.display());
        }
    }
    Ok(out)
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
