//! The JSON-lines batch protocol (`linear-layout batch`).
//!
//! One request per input line, one response per output line, in order — the protocol that
//! Triton 3.6.0's side of the differential tests answers too, so the two can be compared line
//! by line. Every response has `"ok"`; a failure is `{"ok": false, "error": "…"}`. A
//! request's `"id"` is echoed. A malformed line is answered, never fatal.
//!
//! | op | members | answer |
//! |---|---|---|
//! | `to_linear_layout` | `encoding` (JSON schema, or `{"kind": "mlir", "text": …}`), `shape` | `layout` |
//! | `compose` | `layout`, `outer` | `layout` = outer ∘ layout |
//! | `invert_and_compose` | `layout`, `outer` | `layout` |
//! | `invert`, `pseudoinvert` | `layout` | `layout` |
//! | `product` | `layout`, `other` | `layout` = layout * other |
//! | `apply` | `layout`, `inputs` (in-dim → int) | `outputs` (out-dim → int) |
//! | `num_consecutive_in_out` | `layout` | `value` |
//! | `is_injective`, `is_surjective`, `is_invertible` | `layout` | `value` |
//! | `bank_conflicts` | `distributed`, `shared` (layouts or encodings), `shape`, `element_bits`, `target` | `value` (excess wavefronts per LDS instruction) |
//! | `convert_cost` | `src`, `dst`, `shape`, `element_bits`, `target` | `kind`, `instructions`, `lds_bytes`, `bank_conflicts`, `cycles`, `shared_layout`, `explanation` |
//!
//! ```
//! use linear_layout::batch::answer_line;
//! let reply = answer_line(r#"{"id": 7, "op": "invert", "layout": {"in_dims": {"x": [[2], [1]]}, "out_dims": {"y": 4}}}"#);
//! assert_eq!(reply.to_string(), r#"{"id":7,"ok":true,"layout":{"in_dims":{"y":[[2],[1]]},"out_dims":{"x":4}}}"#);
//! assert_eq!(answer_line("{not json")["ok"], false);
//! ```

use std::io::{BufRead, Write};

use serde_json::{Map, Value, json};

use crate::limits::LimitExceeded;
use crate::linear::LinearLayout;

/// The ops this implementation answers.
pub const OPS: &[&str] = &[
    "to_linear_layout",
    "compose",
    "invert_and_compose",
    "invert",
    "pseudoinvert",
    "product",
    "apply",
    "num_consecutive_in_out",
    "is_injective",
    "is_surjective",
    "is_invertible",
    "bank_conflicts",
    "convert_cost",
];

fn member<'a>(req: &'a Map<String, Value>, key: &str) -> Result<&'a Value, String> {
    req.get(key).ok_or_else(|| {
        format!(
            "op '{}' needs member '{key}'",
            req.get("op").and_then(Value::as_str).unwrap_or("?")
        )
    })
}

fn layout(req: &Map<String, Value>, key: &str) -> Result<LinearLayout, String> {
    <LinearLayout as serde::Deserialize>::deserialize(member(req, key)?).map_err(|e| format!("{key}: {e}"))
}

fn layout_answer(l: Result<LinearLayout, crate::linear::LayoutError>) -> Result<Value, String> {
    let l = l.map_err(|e| e.to_string())?;
    Ok(json!({ "layout": l }))
}

fn compute(req: &Map<String, Value>) -> Result<Value, String> {
    let op = req
        .get("op")
        .ok_or_else(|| format!("missing 'op' (known: {})", OPS.join(", ")))?;
    let op = op.as_str().ok_or("'op' must be a string")?;
    match op {
        "compose" => layout_answer(layout(req, "layout")?.compose(&layout(req, "outer")?)),
        "invert_and_compose" => {
            layout_answer(layout(req, "layout")?.invert_and_compose(&layout(req, "outer")?))
        }
        "invert" => layout_answer(layout(req, "layout")?.invert()),
        "pseudoinvert" => layout_answer(layout(req, "layout")?.pseudoinvert()),
        "product" => layout_answer(layout(req, "layout")?.product(&layout(req, "other")?)),
        "apply" => {
            let l = layout(req, "layout")?;
            let inputs = member(req, "inputs")?
                .as_object()
                .ok_or("inputs must be an object of in-dim name -> int")?;
            let mut args: Vec<(&str, u64)> = Vec::with_capacity(inputs.len());
            for (name, v) in inputs {
                let v = v
                    .as_i64()
                    .and_then(|v| i32::try_from(v).ok())
                    .ok_or("inputs must be an object of in-dim name -> 32-bit int")?;
                // Two's complement, as Triton reads an int32: only the dim's low bits count.
                args.push((name, v as i64 as u64));
            }
            let out = l.apply(&args).map_err(|e| e.to_string())?;
            let outputs: Map<String, Value> = l
                .out_dim_names()
                .zip(out)
                .map(|(n, v)| (n.to_string(), json!(v)))
                .collect();
            Ok(json!({ "outputs": outputs }))
        }
        "num_consecutive_in_out" => Ok(json!({ "value": layout(req, "layout")?.num_consecutive_in_out() })),
        "is_injective" => Ok(json!({ "value": layout(req, "layout")?.is_injective() })),
        "is_surjective" => Ok(json!({ "value": layout(req, "layout")?.is_surjective() })),
        "is_invertible" => Ok(json!({ "value": layout(req, "layout")?.is_invertible() })),
        "to_linear_layout" => {
            let enc =
                crate::encodings::Encoding::from_json(member(req, "encoding")?).map_err(|e| e.to_string())?;
            let shape = member(req, "shape")?
                .as_array()
                .and_then(|a| a.iter().map(Value::as_u64).collect::<Option<Vec<u64>>>())
                .ok_or("shape must be a list of non-negative ints")?;
            let l = enc.to_linear_layout(&shape).map_err(|e| e.to_string())?;
            Ok(json!({ "layout": l }))
        }
        "bank_conflicts" => bank_conflicts_op(req),
        "convert_cost" => convert_cost_op(req),
        other => Err(format!("unknown op '{other}' (known: {})", OPS.join(", "))),
    }
}

/// The `shape` member: a non-empty list of powers of two.
fn shape_member(req: &Map<String, Value>) -> Result<Vec<u64>, String> {
    let shape = member(req, "shape")?
        .as_array()
        .and_then(|a| a.iter().map(Value::as_u64).collect::<Option<Vec<u64>>>())
        .ok_or("shape must be a list of non-negative ints")?;
    check_cost_shape(&shape)?;
    Ok(shape)
}

/// Checks the `shape` of a cost op (`bank_conflicts`, `convert_cost`): a non-empty list of
/// powers of two.
///
/// ```
/// use linear_layout::batch::check_cost_shape;
/// assert!(check_cost_shape(&[64, 32]).is_ok());
/// assert_eq!(check_cost_shape(&[48]).unwrap_err(), "shape [48] must be a non-empty list of powers of two");
/// ```
pub fn check_cost_shape(shape: &[u64]) -> Result<(), String> {
    if shape.is_empty() || shape.iter().any(|&d| d == 0 || !d.is_power_of_two()) {
        return Err(format!(
            "shape {shape:?} must be a non-empty list of powers of two"
        ));
    }
    Ok(())
}

/// A cost-op member (`bank_conflicts`' `distributed` and `shared`, `convert_cost`'s `src`
/// and `dst`) read as a layout, with the protocol's checks — the ones Triton 3.6's Gluon
/// binding makes:
///
/// * an encoding (`{"kind": …}`, `{"kind": "mlir", "text": …}` included) is converted at
///   `shape`; a padded shared encoding is refused (Triton 3.6 has no bank model for it);
/// * a layout (`{"in_dims": …, "out_dims": …}`) must have out-dims `dim0…` with the sizes of
///   `shape`; a distributed one must be surjective and move each basis in at most one
///   dimension;
/// * a distributed layout has in-dims among register/lane/warp/block, a shared one
///   (`shared`) among offset/block.
///
/// `key` names the member in the error messages.
///
/// ```
/// use linear_layout::batch::cost_operand;
/// let blocked = serde_json::json!({"kind": "blocked", "sizePerThread": [4], "threadsPerWarp": [64],
///                                  "warpsPerCTA": [1], "order": [0]});
/// let l = cost_operand(&blocked, "src", &[256], false)?;
/// assert_eq!(l.in_dim_size("lane")?, 64);
/// let err = cost_operand(&blocked, "shared", &[256], true).unwrap_err();
/// assert_eq!(err, "shared: a shared layout has in-dims offset/block only (got 'register')");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn cost_operand(m: &Value, key: &str, shape: &[u64], shared: bool) -> Result<LinearLayout, String> {
    let obj = m.as_object().ok_or_else(|| {
        format!("{key} must be an object (an encoding with 'kind' or a layout with 'in_dims')")
    })?;
    let allowed: &[&str] = if shared {
        &["offset", "block"]
    } else {
        &["register", "lane", "warp", "block"]
    };
    let l = if obj.contains_key("kind") {
        let enc = crate::encodings::Encoding::from_json(m).map_err(|e| format!("{key}: {e}"))?;
        if enc.kind() == "padded_shared" {
            return Err(format!(
                "{key}: padded shared layouts have no bank-conflict model in Triton 3.6"
            ));
        }
        enc.to_linear_layout(shape).map_err(|e| format!("{key}: {e}"))?
    } else if obj.contains_key("in_dims") {
        let l = <LinearLayout as serde::Deserialize>::deserialize(m).map_err(|e| format!("{key}: {e}"))?;
        let want: Vec<(String, u64)> = shape
            .iter()
            .enumerate()
            .map(|(i, &s)| (format!("dim{i}"), s))
            .collect();
        let got: Vec<(String, u64)> = l.out_dims().map(|(n, s)| (n.to_string(), s)).collect();
        if got != want {
            return Err(format!(
                "{key}: layout out_dims {got:?} must be dim0..dim{} with the sizes of shape {shape:?}",
                shape.len() - 1
            ));
        }
        if !shared
            && let Some((n, i)) = l.in_dim_names().find_map(|n| {
                let bases = l.bases(n).ok()?;
                bases
                    .iter()
                    .position(|b| b.iter().filter(|&&x| x != 0).count() > 1)
                    .map(|i| (n.to_string(), i))
            })
        {
            return Err(format!(
                "{key}: in a distributed layout each base moves in at most one dimension ({n} basis {i} does not)"
            ));
        }
        if !shared && !l.is_surjective() {
            return Err(format!(
                "{key}: a distributed layout must cover every element (be surjective)"
            ));
        }
        l
    } else {
        return Err(format!("{key} needs 'kind' (encoding) or 'in_dims' (layout)"));
    };
    if let Some(n) = l.in_dim_names().find(|n| !allowed.contains(&n.as_str())) {
        return Err(format!(
            "{key}: a {} layout has in-dims {} only (got '{n}')",
            if shared { "shared" } else { "distributed" },
            allowed.join("/")
        ));
    }
    Ok(l)
}

fn cost_common(req: &Map<String, Value>) -> Result<(Vec<u64>, u32, &'static crate::target::Target), String> {
    let shape = shape_member(req)?;
    let bits = member(req, "element_bits")?
        .as_u64()
        .and_then(|b| u32::try_from(b).ok())
        .ok_or("element_bits must be a positive int")?;
    let target = member(req, "target")?.as_str().ok_or("target must be a string")?;
    let target = crate::target::Target::by_name(target)?;
    Ok((shape, bits, target))
}

fn bank_conflicts_op(req: &Map<String, Value>) -> Result<Value, String> {
    let (shape, bits, target) = cost_common(req)?;
    let dist = cost_operand(member(req, "distributed")?, "distributed", &shape, false)?;
    let shared = cost_operand(member(req, "shared")?, "shared", &shape, true)?;
    let b = crate::heuristics::convert::bank_conflicts(&dist, &shared, bits, target)
        .map_err(|e| e.to_string())?;
    Ok(b.to_json())
}

fn convert_cost_op(req: &Map<String, Value>) -> Result<Value, String> {
    let (shape, bits, target) = cost_common(req)?;
    let src = cost_operand(member(req, "src")?, "src", &shape, false)?;
    let dst = cost_operand(member(req, "dst")?, "dst", &shape, false)?;
    let c = crate::heuristics::convert::convert_cost(&src, &dst, bits, target).map_err(|e| e.to_string())?;
    Ok(c.to_json())
}

/// Answers one request line. Never panics; a malformed line gets `ok: false`. The `id` is
/// echoed as the value it was read as: a number beyond 64-bit integers or with a fraction is
/// the nearest double here, while [`run`] writes it back as the request wrote it.
///
/// ```
/// use linear_layout::batch::{answer_line, run};
/// let line = r#"{"id": 100000000000000000000000000000, "op": "nope"}"#;
/// assert_eq!(answer_line(line)["id"].as_f64(), Some(1e29));
/// let mut out = Vec::new();
/// run(line.as_bytes(), &mut out)?;
/// assert!(String::from_utf8(out).unwrap().starts_with(r#"{"id":100000000000000000000000000000,"ok":false"#));
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn answer_line(line: &str) -> Value {
    let request: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return json!({"ok": false, "error": format!("bad request: invalid JSON: {e}")}),
    };
    let Some(req) = request.as_object() else {
        return json!({"ok": false, "error": "request must be a JSON object"});
    };
    let mut out = Map::new();
    if let Some(id) = req.get("id") {
        out.insert("id".into(), id.clone());
    }
    match compute(req) {
        Ok(Value::Object(result)) => {
            out.insert("ok".into(), Value::Bool(true));
            out.extend(result);
        }
        Ok(other) => {
            out.insert("ok".into(), Value::Bool(true));
            out.insert("value".into(), other);
        }
        Err(e) => {
            out.insert("ok".into(), Value::Bool(false));
            out.insert("error".into(), Value::String(e));
        }
    }
    Value::Object(out)
}

/// The longest request line answered (1 MiB): a longer line is answered with an error naming
/// this limit (and no `id`, which is not read), without being kept in memory.
///
/// ```
/// use linear_layout::batch::{run, MAX_LINE_BYTES};
/// let mut input = vec![b' '; MAX_LINE_BYTES];
/// input[0] = b'x';
/// input.extend_from_slice(b"x\n{\"id\": 2}\n");
/// let mut out = Vec::new();
/// run(&input[..], &mut out)?;
/// let answers: Vec<&str> = std::str::from_utf8(&out).unwrap().lines().collect();
/// assert!(answers[0].contains("batch::MAX_LINE_BYTES"));
/// assert!(answers[1].starts_with("{\"id\":2,\"ok\":false"));
/// # Ok::<(), std::io::Error>(())
/// ```
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// One line of input, read without keeping more than [`MAX_LINE_BYTES`] of it.
enum Line {
    /// The line (without its `\n`).
    Text,
    /// A line longer than the limit, of this many bytes; whether it was blank.
    TooLong { bytes: usize, blank: bool },
    /// The end of the input.
    End,
}

/// Reads the next line into `buf` (cleared first).
fn read_line<R: BufRead>(input: &mut R, buf: &mut Vec<u8>) -> std::io::Result<Line> {
    buf.clear();
    let mut bytes = 0usize;
    let mut too_long = false;
    let mut blank = true;
    loop {
        let available = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(match (bytes, too_long) {
                (0, _) => Line::End,
                (_, false) => Line::Text,
                (_, true) => Line::TooLong { bytes, blank },
            });
        }
        let end = available.iter().position(|&c| c == b'\n');
        let part = &available[..end.unwrap_or(available.len())];
        bytes += part.len();
        if !too_long && bytes > MAX_LINE_BYTES {
            too_long = true;
            blank = buf.iter().all(u8::is_ascii_whitespace);
            buf.clear();
        }
        if too_long {
            blank &= part.iter().all(u8::is_ascii_whitespace);
        } else {
            buf.extend_from_slice(part);
        }
        let used = end.map_or(available.len(), |e| e + 1);
        input.consume(used);
        if end.is_some() {
            return Ok(if too_long {
                Line::TooLong { bytes, blank }
            } else {
                Line::Text
            });
        }
    }
}

/// The answer's text with the request's id as the request wrote it, where a number would not
/// survive being read and printed again: an integer beyond 64 bits or a fraction is read as the
/// nearest double, which prints as other digits (`1` followed by 30 zeros comes back as
/// `1e30`). `None` where the id's value prints as written.
fn with_written_id(line: &str, answer: &Value) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct WrittenId<'a> {
        #[serde(borrow)]
        id: &'a serde_json::value::RawValue,
    }
    let Some(Value::Number(n)) = answer.get("id") else {
        return None;
    };
    if !n.is_f64() {
        return None;
    }
    // A request with its id twice is not read here; its answer keeps the id it was read with.
    let written = serde_json::from_str::<WrittenId>(line).ok()?;
    let mut rest = answer.as_object()?.clone();
    rest.shift_remove("id");
    let rest = Value::Object(rest).to_string();
    Some(format!(
        "{{\"id\":{},{}",
        written.id.get(),
        rest.strip_prefix('{')?
    ))
}

/// Answers every non-blank line of `input` on `output`, in order. Lines are read one at a
/// time (at most [`MAX_LINE_BYTES`] of one is kept), so memory stays flat however long the
/// stream. A request's `id` is echoed as written (see [`answer_line`] for the value).
///
/// ```
/// let input = b"{\"op\": \"is_injective\", \"layout\": {\"in_dims\": {\"x\": [[1]]}, \"out_dims\": {\"y\": 2}}}\n\n";
/// let mut out = Vec::new();
/// linear_layout::batch::run(&input[..], &mut out).unwrap();
/// assert_eq!(String::from_utf8(out).unwrap(), "{\"ok\":true,\"value\":true}\n");
/// ```
pub fn run<R: BufRead, W: Write>(mut input: R, mut output: W) -> std::io::Result<()> {
    let mut buf = Vec::new();
    loop {
        let answer = match read_line(&mut input, &mut buf)? {
            Line::End => return Ok(()),
            Line::TooLong { blank: true, .. } => continue,
            Line::TooLong { bytes, .. } => json!({
                "ok": false,
                "error": LimitExceeded::new(
                    "batch::MAX_LINE_BYTES",
                    "bytes of a request line",
                    MAX_LINE_BYTES as u64,
                    bytes as u64,
                )
                .to_string(),
            }),
            Line::Text => {
                // Invalid UTF-8 becomes replacement characters, and so an invalid-JSON answer.
                let line = String::from_utf8_lossy(&buf);
                if line.trim().is_empty() {
                    continue;
                }
                let answer = answer_line(&line);
                if let Some(text) = with_written_id(&line, &answer) {
                    writeln!(output, "{text}")?;
                    output.flush()?;
                    continue;
                }
                answer
            }
        };
        writeln!(output, "{answer}")?;
        output.flush()?;
    }
}
