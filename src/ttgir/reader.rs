//! The reader: TTGIR text to a [`Module`].

use std::collections::HashMap;

use crate::encodings::{Aliases, Encoding, EncodingError, TensorType, parse_aliases};
use crate::limits::LimitExceeded;

use super::lines::{logical_text, split_modules};
use super::model::*;

/// Lanes per warp of a module without `"ttg.threads-per-warp"` (Triton 3.6's
/// `TritonGPUDialect::getThreadsPerWarp` default).
const DEFAULT_THREADS_PER_WARP: u32 = 32;
/// Warps of a module without `"ttg.num-warps"` (Triton's `num_warps` default).
const DEFAULT_NUM_WARPS: u32 = 4;

/// The largest TTGIR text read at once (16 MiB): the reader's time and memory, and those of
/// the passes over what it read, grow with the text.
///
/// ```
/// use linear_layout::ttgir::{Module, MAX_INPUT_BYTES};
/// let text = format!("module {{\n}}\n{}", " ".repeat(MAX_INPUT_BYTES));
/// let err = Module::parse(&text).unwrap_err();
/// assert_eq!(err.limit.map(|l| l.limit), Some("ttgir::MAX_INPUT_BYTES"));
/// ```
pub const MAX_INPUT_BYTES: usize = 16 << 20;

/// The most modules one text may hold (separated by `// -----`).
///
/// ```
/// use linear_layout::ttgir::{Module, MAX_MODULES};
/// let text = vec!["module {\n}\n"; MAX_MODULES + 1].join("// -----\n");
/// let err = Module::parse_all(&text).unwrap_err();
/// assert_eq!(err.limit.map(|l| l.limit), Some("ttgir::MAX_MODULES"));
/// ```
pub const MAX_MODULES: usize = 1024;

/// The deepest nesting of regions inside a function: `scf.for` in `scf.if` in `scf.for` …
/// (the function's own body is depth 0). The analyses walk regions recursively.
///
/// ```
/// use linear_layout::ttgir::{Module, MAX_REGION_DEPTH};
/// let nested = |depth: usize| format!(
///     "module {{\n tt.func @f(%c: i1) {{\n{}{}  tt.return\n }}\n}}",
///     " scf.if %c {\n".repeat(depth), " }\n".repeat(depth));
/// assert!(Module::parse(&nested(MAX_REGION_DEPTH)).is_ok());
/// let err = Module::parse(&nested(MAX_REGION_DEPTH + 1)).unwrap_err();
/// assert_eq!(err.limit.map(|l| l.limit), Some("ttgir::MAX_REGION_DEPTH"));
/// ```
pub const MAX_REGION_DEPTH: usize = 32;

/// The most results one op may declare (`%r:4096 = …`, or a list of that many names).
///
/// ```
/// use linear_layout::ttgir::{Module, MAX_OP_RESULTS};
/// let text = |n: usize| format!("module {{\n tt.func @f() {{\n  %r:{n} = foo.bar : i32\n  tt.return\n }}\n}}");
/// assert!(Module::parse(&text(MAX_OP_RESULTS)).is_ok());
/// let err = Module::parse(&text(MAX_OP_RESULTS + 1)).unwrap_err();
/// assert_eq!((err.line, err.limit.map(|l| l.limit)), (3, Some("ttgir::MAX_OP_RESULTS")));
/// ```
pub const MAX_OP_RESULTS: usize = 4096;

/// The most values (function and block arguments, op results) one module may declare
/// (2^20): [`MAX_OP_RESULTS`] lets a few bytes of text declare thousands, so the text's size
/// alone does not bound them.
///
/// ```
/// use linear_layout::ttgir::{Module, MAX_OP_RESULTS, MAX_VALUES};
/// let ops = MAX_VALUES / MAX_OP_RESULTS + 1;
/// let body = format!("  %r:{MAX_OP_RESULTS} = foo.bar : i32\n").repeat(ops);
/// let err = Module::parse(&format!("module {{\n tt.func @f() {{\n{body}  tt.return\n }}\n}}")).unwrap_err();
/// assert_eq!((err.line, err.limit.map(|l| l.limit)), (2 + ops, Some("ttgir::MAX_VALUES")));
/// ```
pub const MAX_VALUES: usize = 1 << 20;

/// Ops whose operands and results the reader understands.
const KNOWN_OPS: &[&str] = &[
    "tt.make_range",
    "tt.splat",
    "tt.addptr",
    "tt.load",
    "tt.store",
    "tt.expand_dims",
    "tt.broadcast",
    "tt.reshape",
    "tt.dot",
    "tt.dot_scaled",
    "tt.fp_to_fp",
    "tt.get_program_id",
    "tt.get_num_programs",
    "tt.return",
    "tt.atomic_rmw",
    "tt.atomic_cas",
    "tt.trans",
    "tt.int_to_ptr",
    "tt.ptr_to_int",
    "tt.bitcast",
    "tt.reduce",
    "tt.reduce.return",
    "tt.scan",
    "tt.scan.return",
    "tt.split",
    "tt.join",
    "tt.cat",
    "tt.gather",
    "tt.histogram",
    "tt.extern_elementwise",
    "tt.precise_sqrt",
    "tt.precise_divf",
    "tt.mulhiui",
    "tt.clampf",
    "ttg.convert_layout",
    "ttg.async_copy_global_to_local",
    "ttg.async_commit_group",
    "ttg.async_wait",
    "ttg.local_alloc",
    "ttg.local_load",
    "ttg.local_store",
    "ttg.local_dealloc",
    "scf.for",
    "scf.if",
    "scf.while",
    "scf.condition",
    "scf.yield",
];

struct Scope {
    names: Vec<HashMap<String, usize>>,
}

impl Scope {
    fn get(&self, n: &str) -> Option<usize> {
        self.names.iter().rev().find_map(|m| m.get(n).copied())
    }
    fn put(&mut self, n: String, v: usize) {
        if let Some(top) = self.names.last_mut() {
            top.insert(n, v);
        }
    }
}

struct Reader<'a> {
    /// The logical text of one module (see [`super::lines`]): one op per line, byte `i` at
    /// byte `offset + i` of the original.
    text: &'a str,
    /// Line starts of the logical text.
    line_starts: Vec<usize>,
    /// Where the module's text starts in the original.
    offset: usize,
    /// The original text, for error positions.
    original: &'a str,
    /// Line starts of the original text.
    original_line_starts: &'a [usize],
    m: Module,
}

/// The 1-based line and column (in characters) of byte `byte` of `text`.
fn position(text: &str, line_starts: &[usize], byte: usize) -> (usize, usize) {
    let line = match line_starts.binary_search(&byte) {
        Ok(i) => i,
        Err(i) => i.saturating_sub(1),
    };
    let start = line_starts.get(line).copied().unwrap_or(0);
    let col = text
        .get(start..byte.min(text.len()))
        .map_or(0, |s| s.chars().count());
    (line + 1, col + 1)
}

fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(
        text.bytes()
            .enumerate()
            .filter(|&(_, b)| b == b'\n')
            .map(|(i, _)| i + 1),
    );
    starts
}

/// Splits `s` at top-level occurrences of `sep` (outside `<>`, `()`, `[]`, `{}`, quotes;
/// `->` is not a bracket).
pub(super) fn split_top<'s>(s: &'s str, sep: &str) -> Vec<(usize, &'s str)> {
    let mut out = Vec::new();
    let mut start = 0;
    while let Some(at) = top_level(s, start, sep) {
        out.push((start, &s[start..at]));
        start = at + sep.len();
    }
    out.push((start, s.get(start..).unwrap_or("")));
    out
}

/// The first top-level occurrence of `sep` in `s` at or after byte `from` (outside brackets and
/// string literals; the `>` of an arrow closes nothing).
fn top_level(s: &str, from: usize, sep: &str) -> Option<usize> {
    // Most lines do not hold the separator at all: a plain search says so without the scan.
    if !s.get(from..)?.contains(sep) {
        return None;
    }
    let b = s.as_bytes();
    let first = *sep.as_bytes().first()?;
    let mut depth: i64 = 0;
    let mut i = from;
    let mut in_str = false;
    while i < b.len() {
        let c = b[i];
        if in_str {
            if c == b'\\' {
                i += 1;
            } else if c == b'"' {
                in_str = false;
            }
            i += 1;
            continue;
        }
        if depth == 0 && c == first && b[i..].starts_with(sep.as_bytes()) && s.is_char_boundary(i) {
            return Some(i);
        }
        match c {
            b'"' => in_str = true,
            b'<' | b'(' | b'[' | b'{' => depth += 1,
            b'>' if i > 0 && b[i - 1] == b'-' => {}
            b'>' | b')' | b']' | b'}' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    None
}

/// The symbol `s` starts with (`@name` or `@"a quoted name"`, as MLIR prints a name that is
/// not an identifier — Triton's non-inlined helpers: `@"m._f__(4,)cconstexpr_64_"`), without
/// `@` and quotes, and the bytes it takes; `None` where `s` does not start with `@` or a quote
/// is not closed.
fn symbol(s: &str) -> Option<(String, usize)> {
    let rest = s.strip_prefix('@')?;
    if let Some(quoted) = rest.strip_prefix('"') {
        let close = quoted.find('"')?;
        return Some((quoted[..close].to_string(), close + 3));
    }
    let len = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$' | '-')))
        .unwrap_or(rest.len());
    Some((rest[..len].to_string(), len + 1))
}

/// The inside of the string literal `s` starts with (after blanks), escapes as written.
fn leading_string(s: &str) -> Option<&str> {
    let inside = s.trim_start().strip_prefix('"')?;
    let b = inside.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => return Some(&inside[..i]),
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    None
}

/// Position of the first top-level occurrence of `sep`.
fn find_top(s: &str, sep: &str) -> Option<usize> {
    top_level(s, 0, sep)
}

/// The matching closing bracket of the opener at byte `open` (which must be ASCII).
pub(super) fn matching(s: &str, open: usize) -> Option<usize> {
    let b = s.as_bytes();
    let (o, c) = match b.get(open)? {
        b'(' => (b'(', b')'),
        b'{' => (b'{', b'}'),
        b'[' => (b'[', b']'),
        b'<' => (b'<', b'>'),
        _ => return None,
    };
    let mut depth = 0i64;
    let mut in_str = false;
    let mut i = open;
    while i < b.len() {
        let ch = b[i];
        if in_str {
            if ch == b'\\' {
                i += 1;
            } else if ch == b'"' {
                in_str = false;
            }
        } else if ch == b'"' {
            in_str = true;
        } else if ch == o && !(ch == b'>' && i > 0 && b[i - 1] == b'-') {
            depth += 1;
        } else if ch == c && !(c == b'>' && i > 0 && b[i - 1] == b'-') {
            depth -= 1;
            if depth == 0 {
                return Some(i);
            }
        }
        i += 1;
    }
    None
}

fn parse_int(s: &str) -> Option<i64> {
    let s = s.trim();
    if s == "true" {
        return Some(1);
    }
    if s == "false" {
        return Some(0);
    }
    if let Some(h) = s.strip_prefix("0x") {
        return i64::from_str_radix(h, 16).ok();
    }
    s.parse().ok()
}

/// Parses one attribute value (text between `=` and the next top-level `,`).
pub(super) fn parse_attr_value(v: &str) -> AttrValue {
    let v = v.trim();
    // Drop a trailing `: type`.
    let head = match find_top(v, " : ") {
        Some(p) => &v[..p],
        None => v,
    }
    .trim();
    if let Some(i) = parse_int(head) {
        return AttrValue::Int(i);
    }
    if head.starts_with('"') && head.ends_with('"') && head.len() >= 2 {
        return AttrValue::Str(head[1..head.len() - 1].to_string());
    }
    let list = |inner: &str| -> Option<Vec<i64>> {
        let inner = inner.trim();
        if inner.is_empty() {
            return Some(Vec::new());
        }
        inner.split(',').map(parse_int).collect()
    };
    if let Some(r) = head.strip_prefix("dense<").and_then(|r| r.strip_suffix('>')) {
        let r = r.trim();
        if let Some(inner) = r.strip_prefix('[').and_then(|x| x.strip_suffix(']'))
            && let Some(l) = list(inner)
        {
            return AttrValue::Ints(l);
        }
        if let Some(i) = parse_int(r) {
            return AttrValue::Int(i);
        }
    }
    if let Some(r) = head.strip_prefix("array<").and_then(|r| r.strip_suffix('>'))
        && let Some(c) = r.find(':')
        && let Some(l) = list(&r[c + 1..])
    {
        return AttrValue::Ints(l);
    }
    if let Some(inner) = head.strip_prefix('[').and_then(|x| x.strip_suffix(']'))
        && let Some(l) = list(inner)
    {
        return AttrValue::Ints(l);
    }
    AttrValue::Raw(head.to_string())
}

/// The predicates of `arith.cmpi` and `arith.cmpf`, by their number in MLIR's enums (the generic
/// form's `<{predicate = 2 : i64}>`).
const CMPI_PREDICATES: [&str; 10] = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"];
const CMPF_PREDICATES: [&str; 16] = [
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule", "une",
    "uno", "true",
];

/// One attribute form whatever form the op was written in: a comparison's predicate is its
/// keyword and its `predicate` attribute, by name (`slt`), whether written as the keyword
/// (`arith.cmpi slt, …`) or as a number (`<{predicate = 2 : i64}>`); `fastmath` holds the
/// flags (`nnan,ninf`), without `#arith.fastmath<…>`.
fn settle_attrs(op: &mut Op) {
    let names: &[&str] = match op.name.as_str() {
        "arith.cmpi" => &CMPI_PREDICATES,
        "arith.cmpf" => &CMPF_PREDICATES,
        _ => &[],
    };
    if !names.is_empty() {
        let written = attr(&op.attrs, "predicate").cloned();
        let name = match (&op.keyword, written) {
            (Some(k), _) => Some(k.clone()),
            (None, Some(AttrValue::Int(n))) => usize::try_from(n)
                .ok()
                .and_then(|n| names.get(n))
                .map(|s| s.to_string()),
            (None, Some(AttrValue::Raw(s) | AttrValue::Str(s))) => Some(s),
            _ => None,
        };
        if let Some(name) = name {
            op.attrs.retain(|(k, _)| k != "predicate");
            op.attrs
                .push(("predicate".to_string(), AttrValue::Raw(name.clone())));
            op.keyword = Some(name);
        }
    }
    for (k, v) in &mut op.attrs {
        if k == "fastmath"
            && let AttrValue::Raw(s) = v
            && let Some(inner) = s
                .strip_prefix("#arith.fastmath<")
                .and_then(|r| r.strip_suffix('>'))
        {
            *s = inner.to_string();
        }
    }
}

/// The constant an `arith.constant` writes (`dense<v>` or `v`) for its element type. A float
/// written in hex (`0xFF800000`, MLIR's form of infinities and NaNs) is its bit pattern, as
/// [`Constant::Int`] (exact, NaN payloads included; 64-bit patterns wrap to negative); a list of
/// values is [`Constant::Other`].
fn parse_constant(text: &str, element: &str) -> Constant {
    let v = text.trim();
    let splat = v
        .strip_prefix("dense<")
        .and_then(|r| r.strip_suffix('>'))
        .unwrap_or(v)
        .trim();
    let float = matches!(element, "f16" | "bf16" | "f32" | "f64" | "tf32")
        || element.starts_with("f8")
        || element.starts_with("f4")
        || element.starts_with("f6");
    if float {
        if let Some(hex) = splat.strip_prefix("0x").or_else(|| splat.strip_prefix("0X")) {
            let bits = element_bits(element).unwrap_or(64);
            return match u64::from_str_radix(hex, 16) {
                Ok(b) if bits >= 64 || b >> bits == 0 => Constant::Int(b as i64),
                _ => Constant::Other,
            };
        }
        return splat.parse::<f64>().map_or(Constant::Other, Constant::Float);
    }
    match (parse_int(splat), splat.parse::<f64>()) {
        (Some(i), _) => Constant::Int(i),
        (None, Ok(f)) => Constant::Float(f),
        _ => Constant::Other,
    }
}

/// The `key = value` pairs written among an op's operands, outside brackets and strings
/// (`%a, %b, inputPrecision = tf32`, `%p, %m cacheModifier = cg evictionPolicy = evict_last`,
/// `lhs = e5m2`): the key is the word before the `=`, the value what follows it up to a space
/// or `,` outside brackets.
fn inline_attrs(text: &str) -> Attrs {
    let b = text.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'.';
    let mut out = Vec::new();
    let mut depth = 0i64;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'(' | b'[' | b'{' | b'<' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b'>' if i > 0 && b[i - 1] != b'-' => depth -= 1,
            b'=' if depth == 0 => {
                let mut ke = i;
                while ke > 0 && b[ke - 1] == b' ' {
                    ke -= 1;
                }
                let mut ks = ke;
                while ks > 0 && word(b[ks - 1]) {
                    ks -= 1;
                }
                let mut vs = i + 1;
                while vs < b.len() && b[vs] == b' ' {
                    vs += 1;
                }
                let mut ve = vs;
                let mut d = 0i64;
                while ve < b.len() && (d > 0 || !matches!(b[ve], b' ' | b',')) {
                    match b[ve] {
                        b'(' | b'[' | b'{' | b'<' => d += 1,
                        b')' | b']' | b'}' | b'>' => d -= 1,
                        _ => {}
                    }
                    ve += 1;
                }
                let prefixed = ks > 0 && matches!(b[ks - 1], b'%' | b'#' | b'@' | b'^' | b'"');
                if ks < ke && b[ks].is_ascii_alphabetic() && !prefixed && vs < ve {
                    out.push((text[ks..ke].to_string(), parse_attr_value(&text[vs..ve])));
                }
                i = ve;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The text of attribute `key` in the inside of a dictionary, without its `: type`.
fn raw_attr<'t>(inner: &'t str, key: &str) -> Option<&'t str> {
    split_top(inner, ",").into_iter().find_map(|(_, item)| {
        let eq = find_top(item, "=")?;
        if item[..eq].trim().trim_matches('"') != key {
            return None;
        }
        let v = &item[eq + 1..];
        Some(find_top(v, " : ").map_or(v, |p| &v[..p]).trim())
    })
}

/// Parses the inside of an attribute dictionary `k = v, k2 = v2, flag`.
fn parse_attr_dict(inner: &str) -> Attrs {
    let mut out = Vec::new();
    for (_, item) in split_top(inner, ",") {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        match find_top(item, "=") {
            Some(eq) => {
                let k = item[..eq].trim().trim_matches('"').to_string();
                out.push((k, parse_attr_value(&item[eq + 1..])));
            }
            None => out.push((item.trim_matches('"').to_string(), AttrValue::Int(1))),
        }
    }
    out
}

impl<'a> Reader<'a> {
    /// The 1-based line and column in the original text of byte `byte`.
    /// The line and column in the original text of byte `byte` of the logical text.
    fn pos(&self, byte: usize) -> (usize, usize) {
        position(self.original, self.original_line_starts, self.offset + byte)
    }

    fn err(&self, byte: usize, msg: impl Into<String>) -> TtgirError {
        let (line, column) = self.pos(byte);
        TtgirError {
            line,
            column,
            message: msg.into(),
            limit: None,
        }
    }

    /// Parses a type at byte `base` of the text.
    fn ty(&self, s: &str, base: usize) -> Result<ValueType, TtgirError> {
        let s = match find_top(s, " loc(") {
            Some(p) => &s[..p],
            None => s,
        };
        let t = s.trim();
        let lead = s.len() - s.trim_start().len();
        let base = base + lead;
        // `<32x128xf16, #shared, #smem>` is a memdesc written short (after `->` of an async
        // copy); `<f16>[tensor<…>]` (a buffer op's base and offsets) is not one.
        let short_memdesc = t.starts_with('<') && angle_close(t) == Some(t.len() - 1);
        if t.starts_with("tensor<") || t.starts_with("!ttg.memdesc<") || short_memdesc {
            let owned;
            let (txt, shift) = if t.starts_with('<') {
                owned = format!("!ttg.memdesc{t}");
                (owned.as_str(), 12usize)
            } else {
                (t, 0)
            };
            let tt = TensorType::parse_with_aliases(txt, &self.m.aliases).map_err(|e| match e {
                EncodingError::Parse { column, message, .. } => {
                    let (l, c) = self.pos(base);
                    TtgirError {
                        line: l,
                        column: (c + column).saturating_sub(1 + shift).max(1),
                        message,
                        limit: None,
                    }
                }
                EncodingError::Limit(l) => self.err(base, "").with_limit(l),
                other => self.err(base, other.to_string()),
            })?;
            let kind = if tt.memdesc.is_some() {
                TypeKind::MemDesc
            } else {
                TypeKind::Tensor
            };
            return Ok(ValueType {
                kind,
                shape: tt.shape,
                element: tt.element_type,
                encoding: tt.encoding,
                memory: tt.memdesc.unwrap_or_default(),
            });
        }
        if t.is_empty() {
            return Err(self.err(base, "expected a type"));
        }
        if t.starts_with("!tt.ptr<") || element_bits(t).is_some() || t == "index" {
            return Ok(ValueType::scalar(t));
        }
        Ok(ValueType::other(t))
    }

    /// Parses a comma-separated type list (optionally parenthesised).
    fn types(&self, s: &str, base: usize) -> Result<Vec<ValueType>, TtgirError> {
        let lead = s.len() - s.trim_start().len();
        let t = s.trim();
        let (t, base) = if t.starts_with('(') && matching(t, 0) == Some(t.len() - 1) {
            (&t[1..t.len() - 1], base + lead + 1)
        } else {
            (t, base + lead)
        };
        if t.trim().is_empty() {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        for (off, part) in split_top(t, ",") {
            for (o2, p2) in split_top(part, " * ") {
                out.push(self.ty(p2, base + off + o2)?);
            }
        }
        Ok(out)
    }

    /// Past [`MAX_VALUES`], the error at the line starting at byte `base`.
    fn check_values(&self, base: usize) -> Result<(), TtgirError> {
        LimitExceeded::check(
            "ttgir::MAX_VALUES",
            "values of a module",
            MAX_VALUES as u64,
            self.m.values.len() as u64,
        )
        .map_err(|l| self.err(base, "").with_limit(l))
    }

    fn new_value(&mut self, name: String, ty: ValueType, def: ValueDef) -> usize {
        self.m.values.push(Value { name, ty, def });
        self.m.values.len() - 1
    }

    /// The value named `name` (`%x#0` is also the single result `%x`).
    fn lookup(&self, scope: &Scope, name: &str, byte: usize) -> Result<usize, TtgirError> {
        scope
            .get(name)
            .or_else(|| name.strip_suffix("#0").and_then(|n| scope.get(n)))
            .ok_or_else(|| self.err(byte, format!("use of undefined value {name}")))
    }

    /// All `%name` tokens in `s` (with their byte offsets), outside string literals (the
    /// format of `tt.print`, the assembly of `tt.elementwise_inline_asm`).
    fn value_refs(s: &str) -> Vec<(usize, &str)> {
        let b = s.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < b.len() {
            if b[i] == b'"' {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            } else if b[i] == b'%' {
                let st = i;
                i += 1;
                while i < b.len()
                    && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'_' | b'#' | b'.' | b'$' | b'-'))
                {
                    i += 1;
                }
                if i > st + 1 {
                    out.push((st, &s[st..i]));
                }
            } else {
                i += 1;
            }
        }
        out
    }
}

/// Result names on the left of `=`: `%a`, `%a, %b`, `%for:2`.
/// The result names of an op (`%a, %b` or `%r:3`, which names `%r#0` … `%r#2`); `Err(None)`
/// for a malformed list, `Err(Some(…))` for more than [`MAX_OP_RESULTS`].
fn result_names(lhs: &str) -> Result<Vec<String>, Option<LimitExceeded>> {
    let mut out = Vec::new();
    for part in lhs.split(',') {
        let p = part.trim();
        if !p.starts_with('%') || p.len() < 2 {
            return Err(None);
        }
        let (n, k) = match p.split_once(':') {
            Some((n, k)) => (n, k.trim().parse::<u64>().map_err(|_| None)?),
            None => (p, 1),
        };
        LimitExceeded::check(
            "ttgir::MAX_OP_RESULTS",
            "results of one op",
            MAX_OP_RESULTS as u64,
            (out.len() as u64).saturating_add(k),
        )
        .map_err(Some)?;
        if p.contains(':') {
            out.extend((0..k).map(|i| format!("{n}#{i}")));
        } else {
            out.push(p.to_string());
        }
    }
    Ok(out)
}

impl Module {
    /// Parses TTGIR text.
    ///
    /// ```
    /// use linear_layout::ttgir::Module;
    /// let m = Module::parse("module {\n  tt.func @f() {\n    %x = foo.bar : i32\n    tt.return\n  }\n}")?;
    /// assert!(m.notes[0].contains("foo.bar"));
    /// assert!(m.ops[0].opaque);
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn parse(text: &str) -> Result<Module, TtgirError> {
        let mut modules = Module::parse_all(text)?;
        if modules.len() > 1 {
            return Err(TtgirError {
                line: 1,
                column: 1,
                message: format!(
                    "the text holds {} modules separated by '// -----': read them with Module::parse_all",
                    modules.len()
                ),
                limit: None,
            });
        }
        Ok(modules.remove(0))
    }

    /// Parses every module of a text whose modules are separated by lines holding only
    /// `// -----` (MLIR's `-split-input-file` convention); positions in errors and in
    /// [`Module::first_line`] are those of the whole text. Sections holding no module (only
    /// comments) are skipped.
    ///
    /// ```
    /// use linear_layout::ttgir::Module;
    /// let text = "module {\n}\n// -----\n// a comment\nmodule attributes {\"ttg.num-warps\" = 8 : i32} {\n}\n";
    /// let modules = Module::parse_all(text)?;
    /// assert_eq!(modules.len(), 2);
    /// assert_eq!((modules[1].num_warps, modules[1].first_line), (8, 5));
    /// // Triton's defaults fill what a module does not say: 32 lanes per warp, 4 warps, 1 CTA.
    /// assert_eq!((modules[0].threads_per_warp, modules[0].num_warps, modules[0].num_ctas), (32, 4, 1));
    /// # Ok::<(), linear_layout::ttgir::TtgirError>(())
    /// ```
    pub fn parse_all(text: &str) -> Result<Vec<Module>, TtgirError> {
        LimitExceeded::check(
            "ttgir::MAX_INPUT_BYTES",
            "bytes of TTGIR text",
            MAX_INPUT_BYTES as u64,
            text.len() as u64,
        )
        .map_err(TtgirError::from)?;
        let original_line_starts = line_starts(text);
        let sections = split_modules(text);
        let mut modules = Vec::new();
        for range in &sections {
            // Each section is read on its own; positions are shifted back into `text`.
            let logical = logical_text(&text[range.clone()]);
            if sections.len() > 1 && logical.trim().is_empty() {
                continue;
            }
            if modules.len() == MAX_MODULES {
                let (line, _) = position(text, &original_line_starts, range.start);
                return Err(TtgirError {
                    line,
                    column: 1,
                    ..TtgirError::from(LimitExceeded::new(
                        "ttgir::MAX_MODULES",
                        "modules in a TTGIR text",
                        MAX_MODULES as u64,
                        MAX_MODULES as u64 + 1,
                    ))
                });
            }
            modules.push(Self::parse_logical(
                &logical,
                range.start,
                text,
                &original_line_starts,
            )?);
        }
        if modules.is_empty() {
            modules.push(Self::parse_logical(
                &logical_text(text),
                0,
                text,
                &original_line_starts,
            )?);
        }
        Ok(modules)
    }

    /// Parses one module from its logical text (see [`super::lines`]), which starts at byte
    /// `offset` of `original`; `original` and its line starts give error positions.
    fn parse_logical(
        logical: &str,
        offset: usize,
        original: &str,
        original_line_starts: &[usize],
    ) -> Result<Module, TtgirError> {
        let mut r = Reader {
            text: logical,
            line_starts: line_starts(logical),
            offset,
            original,
            original_line_starts,
            m: Module {
                num_warps: DEFAULT_NUM_WARPS,
                threads_per_warp: DEFAULT_THREADS_PER_WARP,
                num_ctas: 1,
                target: None,
                first_line: 0,
                attrs: Vec::new(),
                aliases: Aliases::new(),
                values: Vec::new(),
                ops: Vec::new(),
                funcs: Vec::new(),
                notes: Vec::new(),
            },
        };
        r.m.aliases = parse_aliases(logical).map_err(|e| match e {
            EncodingError::Parse {
                line,
                column,
                message,
            } => {
                // Positions in the logical text's lines: back to a byte, then to the original.
                let byte = r.line_starts.get(line.saturating_sub(1)).copied().unwrap_or(0)
                    + column.saturating_sub(1);
                r.err(byte, message)
            }
            EncodingError::Limit(l) => r.err(0, "").with_limit(l),
            other => r.err(0, other.to_string()),
        })?;
        r.run()?;
        r.verify_layouts()?;
        Ok(r.m)
    }
}

impl<'a> Reader<'a> {
    fn line_text(&self, i: usize) -> (usize, &'a str) {
        let text: &'a str = self.text;
        let s = self.line_starts[i];
        let e = self.line_starts.get(i + 1).copied().unwrap_or(self.text.len());
        let l = text.get(s..e).unwrap_or("");
        (s, l.trim_end_matches(['\n', '\r']))
    }

    fn run(&mut self) -> Result<(), TtgirError> {
        let n = self.line_starts.len();
        let mut i = 0;
        let mut in_module = false;
        // The ops are not inside a `module { … }`.
        let mut implicit = false;
        // The module is written in generic form: `"builtin.module"() ({ … }) {attrs} : () -> ()`.
        let mut generic_module = false;
        // Stack of open regions: (op index or usize::MAX for func, scope depth).
        let mut stack: Vec<Option<usize>> = Vec::new();
        let mut func: Option<usize> = None;
        let mut scope = Scope { names: Vec::new() };
        // Where the last line that could declare values starts: the values past the limit
        // are its.
        let mut last_base = 0;
        while i < n {
            self.check_values(last_base)?;
            let (start, line) = self.line_text(i);
            i += 1;
            let lead = line.len() - line.trim_start().len();
            let t = line.trim();
            let base = start + lead;
            if t.is_empty() || t.starts_with("//") || t.starts_with('#') {
                continue;
            }
            last_base = base;
            if !in_module {
                if let Some(rest) = t.strip_prefix("module") {
                    if self.m.first_line != 0 {
                        return Err(
                            self.err(base, "a second module: separate modules with a line '// -----'")
                        );
                    }
                    self.m.first_line = self.pos(base).0;
                    let rest_base = base + 6;
                    self.module_header(rest, rest_base)?;
                    in_module = true;
                    if t.ends_with('}') && t.trim_end_matches('}').trim_end().ends_with('{') {
                        // `module { }` on one line.
                        in_module = false;
                        continue;
                    }
                    continue;
                }
                if t.starts_with("\"builtin.module\"") && t.ends_with('{') && self.m.first_line == 0 {
                    self.m.first_line = self.pos(base).0;
                    in_module = true;
                    generic_module = true;
                    continue;
                }
                let func = t.starts_with("tt.func ") || t.starts_with("func.func ");
                if self.m.first_line != 0 || !func {
                    return Err(self.err(base, format!("expected 'module', found '{}'", first_word(t))));
                }
                // Functions without a `module` around them: MLIR's parser puts them in one.
                self.m.first_line = self.pos(base).0;
                in_module = true;
                implicit = true;
            }
            // A closing `}`, possibly followed by the op's trailing attribute dictionary
            // (`} {tt.num_stages = 2 : i32}`); a `}` followed by `else {` / `do {` / `{` at the
            // end of the line opens the op's next region instead.
            let closes_with_attrs = t.strip_prefix("} {").is_some_and(|rest| !rest.trim().is_empty());
            if t == "}" || closes_with_attrs {
                match stack.pop() {
                    Some(op) => {
                        if let (true, Some(op)) = (closes_with_attrs, op) {
                            let dict = &t[2..];
                            let c = matching(dict, 0)
                                .ok_or_else(|| self.err(base + 2, "unclosed attribute dictionary"))?;
                            let attrs = parse_attr_dict(&dict[1..c]);
                            self.m.ops[op].attrs.extend(attrs);
                        }
                        scope.names.pop();
                        if stack.is_empty() {
                            func = None;
                        }
                    }
                    None if implicit => return Err(self.err(base, "a '}' that closes nothing")),
                    None => in_module = false,
                }
                continue;
            }
            // `}) : (T, …) -> R` closes a region of an op written in generic form
            // (`%r = "tt.reduce"(%x) <{axis = 1 : i32}> ({`) and gives its types.
            if let Some(rest) = t.strip_prefix("})") {
                match stack.pop() {
                    Some(Some(op)) => {
                        scope.names.pop();
                        self.generic_types(op, rest, base + 2)?;
                    }
                    // A function in generic form.
                    Some(None) => {
                        scope.names.pop();
                        if stack.is_empty() {
                            func = None;
                        }
                    }
                    // The module in generic form: its attributes follow.
                    None if generic_module => {
                        let r = rest.trim_start();
                        if r.starts_with('{') {
                            let off = base + 2 + (rest.len() - r.len());
                            let c = matching(r, 0)
                                .ok_or_else(|| self.err(off, "unclosed module attribute dictionary"))?;
                            self.module_attrs(&r[1..c], off)?;
                        }
                        in_module = false;
                        generic_module = false;
                    }
                    None => return Err(self.err(base, "'})' closes no region of a generic-form op")),
                }
                continue;
            }
            if t == "} else {" || t == "} do {" || t == "} {" || t == "}, {" {
                // The next region of the same op (`}, {` in generic form).
                scope.names.pop();
                scope.names.push(HashMap::new());
                if let Some(Some(op)) = stack.last() {
                    let o = &mut self.m.ops[*op];
                    o.regions.push(o.body.len());
                }
                continue;
            }
            if func.is_none() {
                if (t.starts_with("\"tt.func\"") || t.starts_with("\"func.func\"")) && t.ends_with('{') {
                    func = Some(self.generic_func_header(t, base, &mut scope)?);
                    stack.push(None);
                    continue;
                }
                if t.starts_with("tt.func") || t.starts_with("func.func") {
                    let f = self.func_header(t, base, &mut scope)?;
                    func = Some(f);
                    if t.ends_with('{') {
                        stack.push(None);
                    } else {
                        scope.names.pop();
                        func = None;
                    }
                    continue;
                }
                // Other module-level ops (global variables, …) are skipped.
                if t.ends_with('{') {
                    return Err(self.err(
                        base,
                        format!("unsupported module-level region op '{}'", first_word(t)),
                    ));
                }
                continue;
            }
            let f = func.unwrap_or(0);
            let parent = stack.last().copied().flatten();
            if t.starts_with('^') {
                // The entry block of a function in generic form: its arguments are the
                // function's.
                if stack.len() == 1
                    && parent.is_none()
                    && let Some(fun) = self.m.funcs.get(f)
                    && fun.args.is_empty()
                    && fun.body.is_empty()
                {
                    self.entry_block(t, base, f, &mut scope)?;
                } else if stack.len() == 1 && parent.is_none() && func.is_some() {
                    self.func_block(t, base, f, &mut scope)?;
                } else {
                    self.block_label(t, base, parent, &mut scope)?;
                }
                continue;
            }
            let op = self.op_line(t, base, f, parent, &mut scope)?;
            match parent {
                Some(p) => self.m.ops[p].body.push(op),
                None => {
                    if let Some(fun) = self.m.funcs.get_mut(f) {
                        fun.body.push(op)
                    }
                }
            }
            if t.ends_with('{') {
                stack.push(Some(op));
                self.m.ops[op].regions.push(0);
                // block args were put in a fresh scope by op_line
                // The function's body is the first entry: regions nested in it are the rest.
                let depth = stack.len() - 1;
                if depth > MAX_REGION_DEPTH {
                    return Err(self.err(base, "").with_limit(LimitExceeded::new(
                        "ttgir::MAX_REGION_DEPTH",
                        "regions nested in a function",
                        MAX_REGION_DEPTH as u64,
                        depth as u64,
                    )));
                }
            }
        }
        self.check_values(last_base)?;
        if !stack.is_empty() || in_module && !implicit {
            let end = self.text.len();
            return Err(self.err(end, "unexpected end of input: unclosed region"));
        }
        Ok(())
    }

    fn module_header(&mut self, rest: &str, base: usize) -> Result<(), TtgirError> {
        let r = rest.trim_start();
        let b = base + (rest.len() - r.len());
        let r2 = r.strip_prefix("attributes").map(str::trim_start);
        if let Some(r2) = r2 {
            let off = b + (r.len() - r2.len());
            if !r2.starts_with('{') {
                return Err(self.err(off, "expected '{' after 'module attributes'"));
            }
            let close =
                matching(r2, 0).ok_or_else(|| self.err(off, "unclosed module attribute dictionary"))?;
            self.module_attrs(&r2[1..close], off)?;
            let after = r2[close + 1..].trim();
            if !after.starts_with('{') {
                return Err(self.err(off + close + 1, "expected '{' to open the module body"));
            }
        } else if !r.starts_with('{') && !r.starts_with('@') {
            return Err(self.err(b, "expected '{' or 'attributes' after 'module'"));
        }
        Ok(())
    }

    /// The module attributes (the inside of their dictionary, which starts at byte `off`).
    fn module_attrs(&mut self, inner: &str, off: usize) -> Result<(), TtgirError> {
        let attrs = parse_attr_dict(inner);
        for (k, v) in &attrs {
            let int = |v: &AttrValue| match v {
                AttrValue::Int(x) if *x > 0 && *x <= 1 << 16 => Some(*x as u32),
                _ => None,
            };
            match k.as_str() {
                "ttg.num-warps" => {
                    self.m.num_warps = int(v).ok_or_else(|| self.err(off, "bad ttg.num-warps"))?
                }
                "ttg.threads-per-warp" => {
                    self.m.threads_per_warp =
                        int(v).ok_or_else(|| self.err(off, "bad ttg.threads-per-warp"))?
                }
                "ttg.num-ctas" => {
                    self.m.num_ctas = int(v).ok_or_else(|| self.err(off, "bad ttg.num-ctas"))?
                }
                "ttg.target" => {
                    if let AttrValue::Str(s) = v {
                        self.m.target = Some(s.strip_prefix("hip:").unwrap_or(s).to_string());
                    }
                }
                _ => {}
            }
        }
        self.m.attrs = attrs;
        Ok(())
    }

    /// `"tt.func"() <{arg_attrs = [{…}, {}], function_type = …, sym_name = "k"}> ({`: the
    /// function without its arguments, which its entry block gives (see
    /// [`Reader::entry_block`]).
    fn generic_func_header(&mut self, t: &str, base: usize, scope: &mut Scope) -> Result<usize, TtgirError> {
        let mut name = String::new();
        let mut arg_attrs = Vec::new();
        if let Some(p) = t.find("<{") {
            let c = matching(t, p).ok_or_else(|| self.err(base + p, "unclosed function properties"))?;
            let inner = t.get(p + 2..c.saturating_sub(1)).unwrap_or("");
            if let Some(n) = raw_attr(inner, "sym_name") {
                name = n.trim_matches('"').to_string();
            }
            if let Some(list) = raw_attr(inner, "arg_attrs")
                && let Some(list) = list.strip_prefix('[').and_then(|l| l.strip_suffix(']'))
            {
                for (_, d) in split_top(list, ",") {
                    let d = d.trim();
                    let inside = d
                        .strip_prefix('{')
                        .and_then(|d| d.strip_suffix('}'))
                        .unwrap_or("");
                    arg_attrs.push(parse_attr_dict(inside));
                }
            }
        }
        if name.is_empty() {
            return Err(self.err(base, "expected the function's sym_name"));
        }
        self.m.funcs.push(Func {
            name,
            args: Vec::new(),
            arg_attrs,
            body: Vec::new(),
            blocks: Vec::new(),
        });
        scope.names.push(HashMap::new());
        Ok(self.m.funcs.len() - 1)
    }

    /// The entry block `^bb0(%arg0: T, …):` of function `f` in generic form: its arguments.
    fn entry_block(&mut self, t: &str, base: usize, f: usize, scope: &mut Scope) -> Result<(), TtgirError> {
        let Some(open) = t.find('(') else {
            return Ok(());
        };
        let close = matching(t, open).ok_or_else(|| self.err(base + open, "unclosed block arguments"))?;
        let mut args = Vec::new();
        for (o, a) in split_top(&t[open + 1..close], ",") {
            if a.trim().is_empty() {
                continue;
            }
            let at = base + open + 1 + o;
            let colon = find_top(a, ":").ok_or_else(|| self.err(at, "expected '%name: type'"))?;
            let name = a[..colon].trim().to_string();
            if !name.starts_with('%') {
                return Err(self.err(at, "expected a block argument name '%…'"));
            }
            let ty = self.ty(&a[colon + 1..], at + colon + 1)?;
            let index = args.len();
            let v = self.new_value(name.clone(), ty, ValueDef::FuncArg { func: f, index });
            scope.put(name, v);
            args.push(v);
        }
        let fun = &mut self.m.funcs[f];
        fun.arg_attrs
            .resize(args.len().max(fun.arg_attrs.len()), Vec::new());
        fun.arg_attrs.truncate(args.len());
        fun.args = args;
        Ok(())
    }

    fn func_header(&mut self, t: &str, base: usize, scope: &mut Scope) -> Result<usize, TtgirError> {
        let at = t
            .find('@')
            .ok_or_else(|| self.err(base, "expected '@name' in function header"))?;
        let (name, len) =
            symbol(&t[at..]).ok_or_else(|| self.err(base + at, "unclosed quoted function name"))?;
        let open = t[at + len..]
            .find('(')
            .map(|p| p + at + len)
            .ok_or_else(|| self.err(base + at, "expected '(' after the function name"))?;
        let close = matching(t, open).ok_or_else(|| self.err(base + open, "unclosed argument list"))?;
        let fidx = self.m.funcs.len();
        let mut func = Func {
            name,
            args: Vec::new(),
            arg_attrs: Vec::new(),
            body: Vec::new(),
            blocks: Vec::new(),
        };
        scope.names.push(HashMap::new());
        let inner = &t[open + 1..close];
        if !inner.trim().is_empty() {
            for (k, (off, a)) in split_top(inner, ",").into_iter().enumerate() {
                let abase = base + open + 1 + off;
                let a_trim = a.trim_start();
                let abase = abase + (a.len() - a_trim.len());
                let colon =
                    find_top(a_trim, ":").ok_or_else(|| self.err(abase, "expected ':' in argument"))?;
                let name = a_trim[..colon].trim();
                if !name.starts_with('%') {
                    return Err(self.err(abase, "expected an argument name '%…'"));
                }
                let rest = &a_trim[colon + 1..];
                let (ty_text, attrs) = match find_top(rest, "{") {
                    Some(p) => {
                        let brace = &rest[p..];
                        let c = matching(brace, 0)
                            .ok_or_else(|| self.err(abase + colon + 1 + p, "unclosed argument attributes"))?;
                        (&rest[..p], parse_attr_dict(&brace[1..c]))
                    }
                    None => (rest, Vec::new()),
                };
                let ty = self.ty(ty_text, abase + colon + 1)?;
                let v = self.new_value(name.to_string(), ty, ValueDef::FuncArg { func: fidx, index: k });
                scope.put(name.to_string(), v);
                func.args.push(v);
                func.arg_attrs.push(attrs);
            }
        }
        self.m.funcs.push(func);
        Ok(fidx)
    }

    #[allow(clippy::too_many_lines)]
    fn op_line(
        &mut self,
        t: &str,
        base: usize,
        func: usize,
        parent: Option<usize>,
        scope: &mut Scope,
    ) -> Result<usize, TtgirError> {
        // Strip a trailing location and region opener.
        let mut body = t;
        if let Some(p) = find_top(body, " loc(") {
            body = &body[..p];
        }
        let opens = body.trim_end().ends_with('{');
        if opens {
            body = body.trim_end().trim_end_matches('{').trim_end();
        }
        let (names, rest, rest_off) = match find_top(body, " = ") {
            Some(eq) if body.starts_with('%') => {
                let names = result_names(&body[..eq]).map_err(|limit| match limit {
                    Some(l) => self.err(base, "").with_limit(l),
                    None => self.err(base, "malformed result list"),
                })?;
                (names, &body[eq + 3..], eq + 3)
            }
            _ => (Vec::new(), body, 0),
        };
        let rest_t = rest.trim_start();
        let rest_off = rest_off + (rest.len() - rest_t.len());
        let name_len = rest_t
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '"'))
            .unwrap_or(rest_t.len());
        let opname = rest_t[..name_len].trim_matches('"').to_string();
        if opname.is_empty() || !opname.contains('.') && opname != "return" {
            return Err(self.err(
                base + rest_off,
                format!("expected an operation name, found '{}'", first_word(rest_t)),
            ));
        }
        let args = &rest_t[name_len..];
        let args_off = base + rest_off + name_len;
        let op_idx = self.m.ops.len();
        let line = self.pos(base).0;
        let mut op = Op {
            name: opname.clone(),
            operands: Vec::new(),
            results: Vec::new(),
            attrs: Vec::new(),
            keyword: None,
            constant: None,
            mask: None,
            other: None,
            scales: Vec::new(),
            block_args: Vec::new(),
            body: Vec::new(),
            regions: Vec::new(),
            parent,
            func,
            line,
            opaque: false,
            successors: Vec::new(),
            blocks: Vec::new(),
        };
        // In generic form (`"scf.for"(%lb, %ub, %step, %init) ({ ^bb0(%iv, %acc): …`) their
        // operands and block arguments are those of any op.
        let generic = rest_t.starts_with('"');
        if opname == "scf.for" && !generic {
            return self.scf_for(op, args, args_off, &names, scope, opens);
        }
        if opname == "scf.while" && !generic {
            return self.scf_while(op, args, args_off, &names, scope, opens);
        }
        // Split into operand part and type part at the first top-level " : "; a region op
        // without one gives its result types as `-> (…)` before the region (`scf.if %c -> (…) {`).
        let (opnd_part, ty_part, ty_off) = match find_top(args, " : ") {
            // Operands after the first `:` (`tt.print "x" : %a, %b : f32, i32`).
            Some(p) if args[p + 3..].trim_start().starts_with('%') => match find_top(&args[p + 3..], " : ") {
                Some(q) => (&args[..p + 3 + q], &args[p + 6 + q..], args_off + p + 6 + q),
                None => (args, "", args_off + args.len()),
            },
            Some(p) => (&args[..p], &args[p + 3..], args_off + p + 3),
            None => match find_top(args, "->") {
                Some(p) if opens => (&args[..p], &args[p..], args_off + p),
                _ => (args, "", args_off + args.len()),
            },
        };
        // Inline attribute dictionary (last top-level `{…}` of the operand part); in generic
        // form, the properties `<{…}>`.
        let mut opnd_text = opnd_part.to_string();
        let mut properties = "";
        if generic
            && let Some(p) = opnd_part.find("<{")
            && let Some(c) = matching(opnd_part, p)
            && c > p + 2
            // `<{…}>`: the byte before the `>` closes the dictionary (not a character of text).
            && opnd_part.as_bytes()[c - 1] == b'}'
        {
            properties = &opnd_part[p + 2..c - 1];
            op.attrs = parse_attr_dict(properties);
            opnd_text.replace_range(p..=c, &" ".repeat(c + 1 - p));
        }
        if let Some(p) = find_top(opnd_part, "{")
            && let Some(c) = matching(opnd_part, p)
        {
            op.attrs.extend(parse_attr_dict(&opnd_part[p + 1..c]));
            opnd_text.replace_range(p..=c, &" ".repeat(c + 1 - p));
        }
        // `fastmath<nnan,ninf>` after the operands of arith and math ops.
        if let Some(p) = find_top(&opnd_text, "fastmath<")
            && let Some(c) = matching(&opnd_text, p + 8)
        {
            let flags = opnd_text[p + 9..c].trim().to_string();
            op.attrs.push(("fastmath".to_string(), AttrValue::Raw(flags)));
            opnd_text.replace_range(p..=c, &" ".repeat(c + 1 - p));
        }
        // `inputPrecision = tf32`, `rounding = rtne`, `cacheModifier = cg evictionPolicy = …`
        // written inline.
        op.attrs.extend(inline_attrs(&opnd_text));
        // Unit attributes written as keywords after the operands (`tt.reshape %x allow_reorder
        // efficient_layout : …`).
        if opname == "tt.reshape" {
            for unit in ["allow_reorder", "efficient_layout"] {
                if opnd_text
                    .split_whitespace()
                    .any(|w| w.trim_end_matches(',') == unit)
                {
                    op.attrs.push((unit.to_string(), AttrValue::Int(1)));
                }
            }
        }
        // Operands.
        let refs = Reader::value_refs(&opnd_text);
        for (off, r) in &refs {
            let v = self.lookup(scope, r, args_off + off)?;
            op.operands.push(v);
        }
        // A branch's target blocks (`cf.cond_br %c, ^bb1, ^bb2(%a : i32)`).
        op.successors = successors(&opnd_text);
        // The function a `tt.call` calls.
        if opname == "tt.call"
            && let Some((callee, _)) = symbol(opnd_text.trim_start())
        {
            op.attrs.push(("callee".to_string(), AttrValue::Str(callee)));
        }
        // The assembly of `tt.elementwise_inline_asm "…" {…} %x : …` (its escapes kept, as
        // every string attribute's).
        if opname == "tt.elementwise_inline_asm"
            && let Some(text) = leading_string(&opnd_text)
        {
            op.attrs
                .push(("asm_string".to_string(), AttrValue::Str(text.to_string())));
        }
        // Keyword (predicate of cmpi, first bare word).
        let first = opnd_text.trim_start();
        if !first.starts_with('%') && !first.is_empty() {
            let w = first_word(first).trim_end_matches(',');
            if !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                op.keyword = Some(w.to_string());
            }
        }
        // The leading keywords of the atomics: `tt.atomic_rmw fadd, acq_rel, gpu, %p, …`,
        // `tt.atomic_cas acq_rel, gpu, %p, …`, under the names of Triton's attributes.
        let keys: &[&str] = match opname.as_str() {
            "tt.atomic_rmw" | "amdg.buffer_atomic_rmw" => &["atomic_rmw_op", "sem", "scope"],
            "tt.atomic_cas" | "amdg.buffer_atomic_cas" => &["sem", "scope"],
            _ => &[],
        };
        let words = split_top(&opnd_text, ",")
            .into_iter()
            .map(|(_, w)| w.trim())
            .take_while(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
        for (key, w) in keys.iter().zip(words) {
            op.attrs.push((key.to_string(), AttrValue::Raw(w.to_string())));
        }
        // Masks and others.
        match opname.as_str() {
            "tt.load" => {
                if refs.len() >= 2 {
                    op.mask = Some(1);
                }
                if refs.len() >= 3 {
                    op.other = Some(2);
                }
            }
            "tt.store" | "tt.atomic_rmw" if refs.len() >= 3 => op.mask = Some(2),
            // `amdg.buffer_load %base[%offsets], %mask, %other` and `amdg.buffer_store %value,
            // %base[%offsets], %mask`: what follows the offsets, in order (a `stride = %s`
            // operand is neither).
            "amdg.buffer_load" | "amdg.buffer_store" | "amdg.buffer_atomic_rmw" => {
                let after = opnd_text.find(']').unwrap_or(opnd_text.len());
                let tail: Vec<usize> = refs
                    .iter()
                    .enumerate()
                    .filter(|(_, (off, _))| *off > after && !opnd_text[..*off].trim_end().ends_with('='))
                    .map(|(k, _)| k)
                    .collect();
                op.mask = tail.first().copied();
                if opname == "amdg.buffer_load" {
                    op.other = tail.get(1).copied();
                }
            }
            "tt.dot_scaled" => {
                for (k, (off, _)) in refs.iter().enumerate() {
                    if opnd_text[..*off].trim_end().ends_with("scale") {
                        op.scales.push(k);
                    }
                }
            }
            "ttg.async_copy_global_to_local" => {
                for (k, (off, _)) in refs.iter().enumerate() {
                    let before = opnd_text[..*off].trim_end();
                    if before.ends_with("mask") {
                        op.mask = Some(k);
                    } else if before.ends_with("other") {
                        op.other = Some(k);
                    }
                }
            }
            _ => {}
        }
        // Types.
        let tys = if ty_part.trim().is_empty() {
            Vec::new()
        } else {
            let (tp, tp_off) = (ty_part, ty_off);
            match find_top(tp, "->") {
                Some(a) => {
                    let ins = self.types(&tp[..a], tp_off)?;
                    let outs = self.types(&tp[a + 2..], tp_off + a + 2)?;
                    [ins, vec![ValueType::other("->")], outs].concat()
                }
                None => match find_top(tp, " to ") {
                    Some(a) => {
                        let ins = self.types(&tp[..a], tp_off)?;
                        let outs = self.types(&tp[a + 4..], tp_off + a + 4)?;
                        [ins, vec![ValueType::other("->")], outs].concat()
                    }
                    None => match find_top(tp, " * ") {
                        Some(_) => split_top(tp, " * ")
                            .into_iter()
                            .map(|(o, s)| self.types(s, tp_off + o))
                            .collect::<Result<Vec<_>, _>>()?
                            .concat(),
                        None => self.types(tp, tp_off)?,
                    },
                },
            }
        };
        let arrow = tys
            .iter()
            .position(|t| t.kind == TypeKind::Other && t.element == "->");
        let (in_tys, out_tys): (Vec<ValueType>, Vec<ValueType>) = match arrow {
            Some(p) => (tys[..p].to_vec(), tys[p + 1..].to_vec()),
            None => (tys.clone(), Vec::new()),
        };
        let known = KNOWN_OPS.contains(&opname.as_str())
            || opname.starts_with("arith.")
            || opname.starts_with("math.");
        let result_tys: Vec<ValueType> = match opname.as_str() {
            _ if names.is_empty() => Vec::new(),
            // `arith.constant true` (an `i1` needs no type).
            "arith.constant" if in_tys.is_empty() && matches!(opnd_text.trim(), "true" | "false") => {
                vec![ValueType::scalar("i1")]
            }
            "tt.load" => match in_tys.first() {
                Some(p) => vec![p.with_element(p.pointee().unwrap_or("?"))],
                None => vec![],
            },
            "arith.cmpi" | "arith.cmpf" => in_tys
                .first()
                .map(|t| vec![t.with_element("i1")])
                .unwrap_or_default(),
            "arith.select" => in_tys.last().cloned().into_iter().collect(),
            "ttg.async_copy_global_to_local" | "ttg.async_commit_group" | "ttg.async_wait" => {
                vec![ValueType::other("!ttg.async.token")]
            }
            _ if !out_tys.is_empty() => out_tys.clone(),
            _ => in_tys.first().cloned().into_iter().collect(),
        };
        if opname == "arith.constant" {
            let element = result_tys.first().map_or("", |t| t.element.as_str());
            // `"arith.constant"() <{value = 1.000000e+00 : f32}>` in generic form.
            let written = match raw_attr(properties, "value") {
                Some(v) if generic => v,
                _ => &opnd_text,
            };
            op.constant = Some(parse_constant(written, element));
        }
        settle_attrs(&mut op);
        if !known {
            op.opaque = true;
            self.m.notes.push(format!(
                "line {line}: unknown op '{opname}': its results get a conservative AxisInfo"
            ));
        }
        for (k, n) in names.iter().enumerate() {
            let ty = result_tys
                .get(k)
                .cloned()
                .or_else(|| {
                    if result_tys.len() == 1 {
                        result_tys.first().cloned()
                    } else {
                        None
                    }
                })
                .unwrap_or_else(|| ValueType::other("?"));
            let v = self.new_value(n.clone(), ty, ValueDef::Op { op: op_idx, index: k });
            scope.put(n.clone(), v);
            op.results.push(v);
        }
        self.m.ops.push(op);
        if opens {
            scope.names.push(HashMap::new());
        }
        Ok(op_idx)
    }

    /// What a generic-form op writes after its regions: an attribute dictionary
    /// (`{axis = 1 : i32}`, as older printers put the attributes) and its types
    /// (`: (T, …) -> R`): its results get `R`.
    fn generic_types(&mut self, op: usize, rest: &str, off: usize) -> Result<(), TtgirError> {
        let mut text = rest;
        let mut off = off;
        if let Some(p) = find_top(text, " loc(") {
            text = &text[..p];
        }
        let lead = text.len() - text.trim_start().len();
        if text[lead..].starts_with('{') {
            let c =
                matching(text, lead).ok_or_else(|| self.err(off + lead, "unclosed attribute dictionary"))?;
            let attrs = parse_attr_dict(&text[lead + 1..c]);
            self.m.ops[op].attrs.extend(attrs);
            settle_attrs(&mut self.m.ops[op]);
            text = &text[c + 1..];
            off += c + 1;
        }
        let Some(colon) = find_top(text, ":") else {
            return Ok(());
        };
        let tys = &text[colon + 1..];
        let Some(arrow) = find_top(tys, "->") else {
            return Err(self.err(off + colon, "expected '(operand types) -> result types'"));
        };
        let outs = self.types(&tys[arrow + 2..], off + colon + 1 + arrow + 2)?;
        let results = self.m.ops.get(op).map(|o| o.results.clone()).unwrap_or_default();
        if outs.len() != results.len() {
            return Err(self.err(
                off + colon,
                format!("{} result types for {} results", outs.len(), results.len()),
            ));
        }
        for (v, ty) in results.into_iter().zip(outs) {
            self.m.values[v].ty = ty;
        }
        Ok(())
    }

    fn scf_for(
        &mut self,
        mut op: Op,
        args: &str,
        off: usize,
        names: &[String],
        scope: &mut Scope,
        opens: bool,
    ) -> Result<usize, TtgirError> {
        let op_idx = self.m.ops.len();
        // %iv = %lb to %ub step %st [iter_args(%a = %x, …) -> (T, …)] [: i32]
        let a = args.trim_start();
        let aoff = off + (args.len() - a.len());
        let eq = a
            .find(" = ")
            .ok_or_else(|| self.err(aoff, "expected '%iv = …' in scf.for"))?;
        let iv_name = a[..eq].trim().to_string();
        let rest = &a[eq + 3..];
        let roff = aoff + eq + 3;
        let to = rest
            .find(" to ")
            .ok_or_else(|| self.err(roff, "expected 'to' in scf.for"))?;
        let step = rest
            .find(" step ")
            .ok_or_else(|| self.err(roff, "expected 'step' in scf.for"))?;
        if step < to + 4 {
            return Err(self.err(roff + step, "expected 'to' before 'step'"));
        }
        let lb = rest[..to].trim();
        let ub = rest[to + 4..step].trim();
        let after_step = &rest[step + 6..];
        let st_end = after_step.find([' ', ':']).unwrap_or(after_step.len());
        let st = after_step[..st_end].trim();
        for (name, o) in [(lb, roff), (ub, roff + to + 4), (st, roff + step + 6)] {
            let v = self.lookup(scope, name, o)?;
            op.operands.push(v);
        }
        let mut iter_pairs: Vec<(String, usize)> = Vec::new();
        let mut res_tys: Vec<ValueType> = Vec::new();
        let tail = &after_step[st_end..];
        let toff = roff + step + 6 + st_end;
        if let Some(p) = tail.find("iter_args(") {
            let open = p + 9;
            let close = matching(tail, open).ok_or_else(|| self.err(toff + open, "unclosed iter_args"))?;
            for (o, pair) in split_top(&tail[open + 1..close], ",") {
                let (n, v) = pair
                    .split_once('=')
                    .ok_or_else(|| self.err(toff + open + 1 + o, "expected '%arg = %init' in iter_args"))?;
                let vid = self.lookup(scope, v.trim(), toff + open + 1 + o)?;
                op.operands.push(vid);
                iter_pairs.push((n.trim().to_string(), vid));
            }
            let after = &tail[close + 1..];
            if let Some(ar) = after.find("->") {
                let tys_txt = &after[ar + 2..];
                let end = match find_top(tys_txt, " : ") {
                    Some(e) => e,
                    None => tys_txt.len(),
                };
                res_tys = self.types(&tys_txt[..end], toff + close + 1 + ar + 2)?;
            }
        }
        let iv_ty = match find_top(tail, " : ") {
            Some(p) => self.ty(&tail[p + 3..], toff + p + 3)?,
            None => ValueType::scalar("index"),
        };
        for (k, n) in names.iter().enumerate() {
            let ty = res_tys
                .get(k)
                .cloned()
                .or_else(|| iter_pairs.get(k).map(|(_, v)| self.m.values[*v].ty.clone()))
                .unwrap_or_else(|| ValueType::other("?"));
            let v = self.new_value(n.clone(), ty, ValueDef::Op { op: op_idx, index: k });
            scope.put(n.clone(), v);
            op.results.push(v);
        }
        self.m.ops.push(op);
        scope.names.push(HashMap::new());
        let iv = self.new_value(
            iv_name.clone(),
            iv_ty,
            ValueDef::BlockArg { op: op_idx, index: 0 },
        );
        scope.put(iv_name, iv);
        let mut bargs = vec![iv];
        for (k, (n, init)) in iter_pairs.iter().enumerate() {
            let ty = self.m.values[*init].ty.clone();
            let v = self.new_value(
                n.clone(),
                ty,
                ValueDef::BlockArg {
                    op: op_idx,
                    index: k + 1,
                },
            );
            scope.put(n.clone(), v);
            bargs.push(v);
        }
        self.m.ops[op_idx].block_args = bargs;
        if !opens {
            scope.names.pop();
            return Err(self.err(off, "expected '{' to open the scf.for body"));
        }
        Ok(op_idx)
    }
}

impl Reader<'_> {
    /// Triton's verifier: a distributed layout of a tensor must have the module's lanes per
    /// warp and warps (`Layout has 64 threads per warp, but the module specifies 32 threads per
    /// warp`).
    fn verify_layouts(&self) -> Result<(), TtgirError> {
        // A distributed layout's lanes and warps do not depend on the shape: each encoding is
        // checked once (values naming one alias share it).
        let mut checked = std::collections::HashSet::new();
        for (k, v) in self.m.values.iter().enumerate() {
            let (TypeKind::Tensor, Some(enc)) = (v.ty.kind, &v.ty.encoding) else {
                continue;
            };
            if !checked.insert(std::sync::Arc::as_ptr(enc)) {
                continue;
            }
            let (lanes, warps) = match &**enc {
                // The common case, straight from the attribute.
                Encoding::Blocked(b) => (
                    b.threads_per_warp.iter().map(|&x| u64::from(x)).product::<u64>(),
                    b.warps_per_cta.iter().map(|&x| u64::from(x)).product::<u64>(),
                ),
                _ => {
                    // Encodings that do not map to a layout are reported where they are used.
                    let Ok(l) = enc.to_linear_layout(&v.ty.shape) else {
                        continue;
                    };
                    let (Ok(lanes), Ok(warps)) = (l.in_dim_size("lane"), l.in_dim_size("warp")) else {
                        continue;
                    };
                    (lanes, warps)
                }
            };
            let (want_lanes, want_warps) = (u64::from(self.m.threads_per_warp), u64::from(self.m.num_warps));
            if lanes != want_lanes || warps != want_warps {
                let (what, has, want) = if lanes != want_lanes {
                    ("threads per warp", lanes, want_lanes)
                } else {
                    ("warps", warps, want_warps)
                };
                let line = self.value_line(k);
                return Err(TtgirError {
                    line,
                    column: 1,
                    message: format!(
                        "{} has an invalid layout: {enc}. Layout has {has} {what}, but the module specifies {want} {what}.",
                        v.name
                    ),
                    limit: None,
                });
            }
        }
        Ok(())
    }

    /// The line of the op or function that defines value `k`.
    fn value_line(&self, k: usize) -> usize {
        match self.m.values[k].def {
            ValueDef::Op { op, .. } | ValueDef::BlockArg { op, .. } => {
                self.m.ops.get(op).map_or(1, |o| o.line)
            }
            ValueDef::FuncArg { .. } => self.m.first_line,
            // The block's first op, or the function's last (a block of no ops).
            ValueDef::FuncBlockArg { func, block, .. } => self.m.funcs.get(func).map_or(1, |f| {
                let start = f.blocks.get(block).map_or(0, |b| b.start);
                f.body
                    .get(start)
                    .or(f.body.last())
                    .and_then(|&o| self.m.ops.get(o))
                    .map_or(self.m.first_line, |o| o.line)
            }),
        }
    }

    /// `scf.while (%a = %init, …) : (T, …) -> (U, …) {`: the inits are its operands, `%a …`
    /// the arguments of its first region; the second region's arguments come with its block
    /// label (`^bb0(%b: U, …):`). A loop that carries nothing is `scf.while : () -> () {`.
    fn scf_while(
        &mut self,
        mut op: Op,
        args: &str,
        off: usize,
        names: &[String],
        scope: &mut Scope,
        opens: bool,
    ) -> Result<usize, TtgirError> {
        let op_idx = self.m.ops.len();
        let a = args.trim_start();
        let aoff = off + (args.len() - a.len());
        let close = if a.starts_with('(') {
            matching(a, 0).ok_or_else(|| self.err(aoff, "unclosed scf.while arguments"))?
        } else if a.is_empty() || a.starts_with(':') {
            0 // nothing carried
        } else {
            return Err(self.err(aoff, "expected '(%arg = %init, …)' or ':' after scf.while"));
        };
        let mut arg_names = Vec::new();
        for (o, pair) in split_top(a.get(1..close).unwrap_or(""), ",") {
            if pair.trim().is_empty() {
                continue;
            }
            let (n, v) = pair
                .split_once('=')
                .ok_or_else(|| self.err(aoff + 1 + o, "expected '%arg = %init' in scf.while"))?;
            let vid = self.lookup(scope, v.trim(), aoff + 1 + o)?;
            op.operands.push(vid);
            arg_names.push(n.trim().to_string());
        }
        let skip = usize::from(a.starts_with('('));
        let tail = &a[close + skip..];
        let toff = aoff + close + skip;
        let (mut in_tys, mut out_tys) = (Vec::new(), Vec::new());
        if let Some(c) = find_top(tail, ":") {
            let tys = &tail[c + 1..];
            match find_top(tys, "->") {
                Some(ar) => {
                    in_tys = self.types(&tys[..ar], toff + c + 1)?;
                    out_tys = self.types(&tys[ar + 2..], toff + c + 1 + ar + 2)?;
                }
                None => in_tys = self.types(tys, toff + c + 1)?,
            }
        }
        for (k, n) in names.iter().enumerate() {
            let ty = out_tys.get(k).cloned().unwrap_or_else(|| ValueType::other("?"));
            let v = self.new_value(n.clone(), ty, ValueDef::Op { op: op_idx, index: k });
            scope.put(n.clone(), v);
            op.results.push(v);
        }
        self.m.ops.push(op);
        if !opens {
            return Err(self.err(off, "expected '{' to open the scf.while condition region"));
        }
        scope.names.push(HashMap::new());
        let mut bargs = Vec::new();
        for (k, n) in arg_names.into_iter().enumerate() {
            let ty = in_tys.get(k).cloned().unwrap_or_else(|| {
                let init = self.m.ops[op_idx].operands[k];
                self.m.values[init].ty.clone()
            });
            let v = self.new_value(n.clone(), ty, ValueDef::BlockArg { op: op_idx, index: k });
            scope.put(n, v);
            bargs.push(v);
        }
        self.m.ops[op_idx].block_args = bargs;
        Ok(op_idx)
    }

    /// The `(%name, type)` pairs of a block label's argument list opening at `open`.
    fn block_arg_list(
        &self,
        t: &str,
        base: usize,
        open: usize,
    ) -> Result<Vec<(String, ValueType)>, TtgirError> {
        let close = matching(t, open).ok_or_else(|| self.err(base + open, "unclosed block arguments"))?;
        let mut out = Vec::new();
        for (o, a) in split_top(&t[open + 1..close], ",") {
            if a.trim().is_empty() {
                continue;
            }
            let at = base + open + 1 + o;
            let colon = find_top(a, ":").ok_or_else(|| self.err(at, "expected '%name: type'"))?;
            let name = a[..colon].trim().to_string();
            if !name.starts_with('%') {
                return Err(self.err(at, "expected a block argument name '%…'"));
            }
            out.push((name, self.ty(&a[colon + 1..], at + colon + 1)?));
        }
        Ok(out)
    }

    /// A block label `^bb1(%a: T, …):` in a function's body (after an early `return`, Triton
    /// branches between blocks): a new block of the function, its arguments new values.
    fn func_block(&mut self, t: &str, base: usize, f: usize, scope: &mut Scope) -> Result<(), TtgirError> {
        let open = t.find('(');
        let label_end = open.or_else(|| t.find(':')).unwrap_or(t.len());
        let label = t[..label_end].trim().to_string();
        let Some(fun) = self.m.funcs.get_mut(f) else {
            return Err(self.err(base, "a block label outside a function"));
        };
        if fun.blocks.is_empty() {
            fun.blocks.push(FuncBlock {
                label: "^bb0".to_string(),
                start: 0,
                args: Vec::new(),
            });
        }
        let block = fun.blocks.len();
        fun.blocks.push(FuncBlock {
            label,
            start: fun.body.len(),
            args: Vec::new(),
        });
        let Some(open) = open else {
            return Ok(());
        };
        for (name, ty) in self.block_arg_list(t, base, open)? {
            let index = self.m.funcs[f].blocks[block].args.len();
            let v = self.new_value(
                name.clone(),
                ty,
                ValueDef::FuncBlockArg {
                    func: f,
                    block,
                    index,
                },
            );
            scope.put(name, v);
            self.m.funcs[f].blocks[block].args.push(v);
        }
        Ok(())
    }

    /// A block label `^bb0(%a: T, …):` opening a region's block: a block of the region's op
    /// ([`Op::blocks`]), its arguments block arguments of the op, after those it already has.
    fn block_label(
        &mut self,
        t: &str,
        base: usize,
        parent: Option<usize>,
        scope: &mut Scope,
    ) -> Result<(), TtgirError> {
        let Some(op_idx) = parent else {
            return Err(self.err(base, "a block label outside a region op"));
        };
        let open = t.find('(');
        let label = t[..open.or_else(|| t.find(':')).unwrap_or(t.len())]
            .trim()
            .to_string();
        let start = self.m.ops[op_idx].body.len();
        self.m.ops[op_idx].blocks.push(FuncBlock {
            label,
            start,
            args: Vec::new(),
        });
        let Some(open) = open else {
            return Ok(()); // `^bb1:` without arguments
        };
        for (name, ty) in self.block_arg_list(t, base, open)? {
            let index = self.m.ops[op_idx].block_args.len();
            let v = self.new_value(name.clone(), ty, ValueDef::BlockArg { op: op_idx, index });
            scope.put(name, v);
            self.m.ops[op_idx].block_args.push(v);
            if let Some(block) = self.m.ops[op_idx].blocks.last_mut() {
                block.args.push(v);
            }
        }
        Ok(())
    }
}

/// The successors of a branch's operand text: each `^label`, with the number of values in the
/// parentheses after it.
fn successors(text: &str) -> Vec<Successor> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'^' {
            i += 1;
            continue;
        }
        let st = i;
        i += 1;
        while i < b.len() && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'_' | b'.' | b'$' | b'-')) {
            i += 1;
        }
        let block = text[st..i].to_string();
        let rest = &text[i..];
        let operands = match (rest.trim_start().starts_with('('), rest.find('(')) {
            (true, Some(p)) => match matching(rest, p) {
                Some(c) => {
                    let inner = &rest[p + 1..c];
                    let values = &inner[..find_top(inner, ":").unwrap_or(inner.len())];
                    Reader::value_refs(values).len()
                }
                None => 0,
            },
            _ => 0,
        };
        out.push(Successor { block, operands });
    }
    out
}

fn first_word(s: &str) -> &str {
    s.split_whitespace().next().unwrap_or("")
}

/// The byte of the `>` closing the `<` that `t` starts with (an arrow's `>` does not count).
fn angle_close(t: &str) -> Option<usize> {
    let b = t.as_bytes();
    let mut depth = 0i32;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'<' => depth += 1,
            b'>' if i == 0 || b[i - 1] != b'-' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn for_loop_and_masks() {
        let text = "#bl = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>\nmodule attributes {\"ttg.num-warps\" = 4 : i32, \"ttg.threads-per-warp\" = 64 : i32} {\n  tt.func @f(%p: tensor<64x!tt.ptr<f16>, #bl>, %m: tensor<64xi1, #bl>) {\n    %c0 = arith.constant 0 : i32\n    %c1 = arith.constant 1 : i32\n    %r:1 = scf.for %iv = %c0 to %c1 step %c1 iter_args(%q = %p) -> (tensor<64x!tt.ptr<f16>, #bl>) : i32 {\n      %l = tt.load %q, %m : tensor<64x!tt.ptr<f16>, #bl>\n      scf.yield %q : tensor<64x!tt.ptr<f16>, #bl>\n    }\n    tt.store %r#0, %l2, %m : tensor<64x!tt.ptr<f16>, #bl>\n    tt.return\n  }\n}";
        let e = Module::parse(text).unwrap_err();
        assert_eq!((e.line, e.column), (10, 20), "{e}");
        let ok = text.replace("%l2", "%r#0");
        let m = Module::parse(&ok).unwrap();
        let f = m.ops.iter().position(|o| o.name == "scf.for").unwrap();
        assert_eq!(m.ops[f].block_args.len(), 2);
        assert_eq!(m.ops[f].body.len(), 2);
        let l = m.ops.iter().find(|o| o.name == "tt.load").unwrap();
        assert_eq!(l.mask, Some(1));
    }
}
