//! Logical lines: TTGIR as people write it, brought to the one-op-per-line shape the reader
//! walks.
//!
//! `triton-opt` accepts any layout of the text: an attribute dictionary or a function's
//! argument list split over lines, comments anywhere, `loc(…)` after any op, several modules
//! separated by `// -----`. The reader works on *logical lines* instead: one op, one region
//! opening (`… {`) or one region closing (`}`, `} else {`, `}) : …`) per line. This pass makes
//! them without moving a single byte:
//!
//! * comments and `loc(…)` become spaces;
//! * a line break inside brackets — `(…)`, `[…]`, `<…>` or an attribute dictionary `{…}` —
//!   becomes a space, joining the physical lines of one op;
//! * so does a line break outside brackets where the op cannot end or the next line cannot
//!   start one: after `,`, `=`, `->` or `:` (but the `:` of a block label `^bb0(…):`), and
//!   before `->`, `:`, `=`, `,`, a bracket, a `{`, a location or a keyword of an op's syntax
//!   (`to`, `step`, `iter_args`, `attributes`, `fastmath`) — result types on a line of their
//!   own, `}) : (…) -> …` on the line after a region's closing;
//! * after a region's `{` and before its `}` a space becomes a line break where the op's text
//!   goes on on the same physical line (`scf.if %c { tt.return }`).
//!
//! Because every byte keeps its offset, an error found in the logical text is reported at the
//! same line and column of the original.
//!
//! Whether a `{` opens a region or an attribute dictionary is decided by what follows it, as
//! MLIR's grammar does: a dictionary starts with a key and `=` (or a unit key followed by `,` or
//! `}`), a region with an op, a value `%…`, a block label `^…` or its closing `}`.
//!
//! ```
//! use linear_layout::ttgir::Module;
//! let m = Module::parse(r#"
//! // RUN: triton-opt %s   (a comment, as in Triton's test files)
//! module attributes {"ttg.num-warps" = 4 : i32,
//!                    "ttg.threads-per-warp" = 64 : i32} {
//!   tt.func @k(%a: !tt.ptr<f16> {tt.divisibility = 16 : i32},
//!              %n: i32) {
//!     %r = tt.make_range {end = 64 : i32,
//!                         start = 0 : i32} : tensor<64xi32> loc(#loc3)
//!     %c0 = arith.constant 0 : i32
//!     %s = scf.for %i = %c0 to %n step %n iter_args(%x = %c0)
//!         -> (i32)  : i32 {
//!       scf.yield %x : i32
//!     }
//!     tt.return
//!   }
//! }"#)?;
//! assert_eq!(m.funcs[0].args.len(), 2);
//! assert_eq!(m.ops[0].name, "tt.make_range");
//! assert_eq!(m.values[m.ops[2].results[0]].ty.element, "i32");
//! # Ok::<(), linear_layout::ttgir::TtgirError>(())
//! ```

/// What an open bracket is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Open {
    /// `(` or `[`.
    Paren,
    /// `<`.
    Angle,
    /// `{` of an attribute dictionary.
    Dict,
    /// `{` of a region.
    Region,
}

/// How far the region/dictionary look-ahead reads past a `{` (whitespace and comments
/// included) before deciding it is a region.
const LOOKAHEAD: usize = 4096;

/// The logical text of `text`: the same length, byte for byte at the same offsets, with
/// comments and `loc(…)` blanked and line breaks placed one op per line.
pub(super) fn logical_text(text: &str) -> String {
    let b = text.as_bytes();
    let mut out: Vec<u8> = b.to_vec();
    let mut stack: Vec<Open> = Vec::new();
    let mut tail = Tail::default();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'"' => {
                let end = skip_string(b, i);
                tail.significant(b'"', end - 1);
                i = end;
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
                continue;
            }
            b'l' if b[i..].starts_with(b"loc(") && (i == 0 || !is_ident(b[i - 1])) => {
                let end = matching_paren(b, i + 3).unwrap_or(b.len() - 1);
                for o in &mut out[i..=end] {
                    if *o != b'\n' {
                        *o = b' ';
                    }
                }
                i = end + 1;
                continue;
            }
            // Inside brackets opened since the innermost region: one op goes on.
            b'\n' if stack.last().is_some_and(|&o| o != Open::Region) => out[i] = b' ',
            // Between ops: the op goes on if its line is unfinished or the next line cannot
            // start one.
            b'\n' => {
                if tail.unfinished(&out) || tail.continued_by(b, i + 1) {
                    out[i] = b' ';
                } else {
                    tail.line_start = true;
                }
            }
            b'\r' => out[i] = b' ',
            b'(' | b'[' => stack.push(Open::Paren),
            b')' | b']' => pop(&mut stack, Open::Paren),
            b'<' => stack.push(Open::Angle),
            b'>' if i > 0 && b[i - 1] == b'-' => {} // the `->` of a function type
            b'>' => pop(&mut stack, Open::Angle),
            b'{' => {
                let inside_dict = matches!(stack.last(), Some(Open::Dict | Open::Angle));
                if !inside_dict && opens_region(b, i + 1) {
                    stack.push(Open::Region);
                    break_after(b, &mut out, i);
                    tail.significant(c, i);
                    // What follows the brace is the region's first line.
                    tail.line_start = true;
                    i += 1;
                    continue;
                } else {
                    stack.push(Open::Dict);
                }
            }
            b'}' => {
                if stack.last() == Some(&Open::Region) {
                    break_before(&mut out, i);
                    // The brace starts a line of its own.
                    tail.line_start = true;
                }
                stack.pop();
            }
            _ => {}
        }
        if !c.is_ascii_whitespace() {
            tail.significant(c, i);
        }
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

/// What the logical text holds so far, as far as joining lines needs: the last byte kept (not
/// blanked, not white) and the first of its line.
#[derive(Default)]
struct Tail {
    /// Offset of the last significant byte.
    last: Option<usize>,
    /// The first significant byte of the line that holds `last`.
    first: u8,
    /// No significant byte since the last line break kept.
    line_start: bool,
    /// Where the last look past a line break ended: a later break before it sees the same.
    ahead: Option<(usize, bool)>,
}

impl Tail {
    fn significant(&mut self, c: u8, at: usize) {
        if self.line_start || self.last.is_none() {
            self.first = c;
            self.line_start = false;
        }
        self.last = Some(at);
    }

    /// Whether the line so far cannot end an op: it ends with `,`, `=`, `->` or `:` (which ends
    /// a block label `^bb0(…):` though). Attribute alias lines (`#loc3 = loc(…)`, whose
    /// location is blanked) never go on.
    fn unfinished(&self, out: &[u8]) -> bool {
        let Some(last) = self.last else {
            return false;
        };
        if self.first == b'#' {
            return false;
        }
        match out[last] {
            b',' | b'=' => true,
            b':' => self.first != b'^',
            b'>' => last > 0 && out[last - 1] == b'-',
            _ => false,
        }
    }

    /// Whether the text after the line break before `from` goes on with the op: its next
    /// significant text (past blank lines and comments) is something no op starts with — `->`,
    /// `:`, `=`, `,`, a bracket, `{`, a location, or a keyword of an op's syntax (`to`, `step`,
    /// `iter_args`, `attributes`, `fastmath`).
    fn continued_by(&mut self, b: &[u8], from: usize) -> bool {
        if self.first == b'#' || self.last.is_none() {
            return false;
        }
        if let Some((end, answer)) = self.ahead
            && from <= end
        {
            return answer;
        }
        let mut k = from;
        while k < b.len() {
            match b[k] {
                b' ' | b'\t' | b'\r' | b'\n' => k += 1,
                b'/' if b.get(k + 1) == Some(&b'/') => {
                    while k < b.len() && b[k] != b'\n' {
                        k += 1;
                    }
                }
                _ => break,
            }
        }
        let rest = &b[k.min(b.len())..];
        let word =
            |w: &[u8]| rest.starts_with(w) && rest.get(w.len()).is_none_or(|&c| !is_ident(c) && c != b'-');
        let answer = matches!(rest.first(), Some(b':' | b'=' | b',' | b'(' | b'[' | b'<' | b'{'))
            || rest.starts_with(b"->")
            || rest.starts_with(b"loc(")
            || [&b"to"[..], b"step", b"iter_args", b"attributes", b"fastmath"]
                .iter()
                .any(|w| word(w));
        self.ahead = Some((k, answer));
        answer
    }
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'$' | b'#' | b'%' | b'@')
}

/// The index just past the string literal starting at `i` (escapes honoured).
fn skip_string(b: &[u8], i: usize) -> usize {
    let mut k = i + 1;
    while k < b.len() {
        match b[k] {
            b'\\' => k += 2,
            b'"' => return k + 1,
            _ => k += 1,
        }
    }
    b.len()
}

/// The `)` matching the `(` at `open`, strings skipped.
fn matching_paren(b: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut k = open;
    while k < b.len() {
        match b[k] {
            b'"' => {
                k = skip_string(b, k);
                continue;
            }
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
        k += 1;
    }
    None
}

/// Pops `want` if it is on top; a stray closer leaves the stack alone (the reader reports it).
fn pop(stack: &mut Vec<Open>, want: Open) {
    if stack.last() == Some(&want) {
        stack.pop();
    }
}

/// Whether the `{` just before `from` opens a region (MLIR: a region holds ops, values,
/// block labels or nothing; a dictionary starts with `key =`, `key,` or `key}`).
fn opens_region(b: &[u8], from: usize) -> bool {
    let end = b.len().min(from.saturating_add(LOOKAHEAD));
    let mut k = from;
    let mut crossed_line = false;
    // Skip whitespace and comments.
    while k < end {
        match b[k] {
            b' ' | b'\t' | b'\r' => k += 1,
            b'\n' => {
                crossed_line = true;
                k += 1;
            }
            b'/' if b.get(k + 1) == Some(&b'/') => {
                while k < end && b[k] != b'\n' {
                    k += 1;
                }
            }
            _ => break,
        }
    }
    if k >= end {
        return true;
    }
    match b[k] {
        b'%' | b'^' => true,
        // `{}` on one line is an empty dictionary; a `}` on a later line closes an empty region.
        b'}' => crossed_line,
        b'"' => {
            // `"key" = …` (a dictionary) or `"dialect.op"(…)` (an op in generic form).
            let after = skip_string(b, k);
            next_significant(b, after, end) != Some(b'=')
        }
        c if c.is_ascii_alphabetic() || c == b'_' => {
            let mut e = k;
            while e < end && (b[e].is_ascii_alphanumeric() || matches!(b[e], b'_' | b'.' | b'$' | b'-')) {
                e += 1;
            }
            match next_significant(b, e, end) {
                Some(b'=' | b',') => false,
                // `{unitAttr}` or a bare terminator `{ scf.yield }`.
                Some(b'}') => crossed_line || is_terminator(&b[k..e]),
                _ => true,
            }
        }
        _ => true,
    }
}

/// Ops that end a block and may stand alone before its `}`: `tt.return`, `scf.yield`, ….
fn is_terminator(word: &[u8]) -> bool {
    word.ends_with(b".return") || word.ends_with(b".yield")
}

/// The next byte at or after `k` that is not a space or tab (on the same line).
fn next_significant(b: &[u8], mut k: usize, end: usize) -> Option<u8> {
    while k < end && matches!(b[k], b' ' | b'\t') {
        k += 1;
    }
    b.get(k).copied().filter(|_| k < end)
}

/// After a region's `{` at `open`: if an op follows on the same physical line, the first space
/// after the brace becomes the line break.
fn break_after(b: &[u8], out: &mut [u8], open: usize) {
    let mut k = open + 1;
    while k < b.len() && matches!(out[k], b' ' | b'\t') {
        k += 1;
    }
    if k < b.len() && out[k] != b'\n' && k > open + 1 {
        out[open + 1] = b'\n';
    }
}

/// Before a region's `}` at `close`: if text precedes it on its logical line, the last space
/// before the brace becomes the line break.
fn break_before(out: &mut [u8], close: usize) {
    let mut k = close;
    while k > 0 && matches!(out[k - 1], b' ' | b'\t') {
        k -= 1;
    }
    if k > 0 && out[k - 1] != b'\n' && k < close {
        out[close - 1] = b'\n';
    }
}

/// The byte ranges of the modules of a file whose modules are separated by lines holding only
/// `// -----` (the `-split-input-file` convention of MLIR's test files); one range if there is
/// no separator.
pub(super) fn split_modules(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if line.trim() == "// -----" {
            out.push(start..offset);
            start = offset + line.len();
        }
        offset += line.len();
    }
    out.push(start..text.len());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_every_offset() {
        let text = "module {\n  tt.func @f(%a: i32,\n  %b: i32) { // c\n tt.return }\n}\n";
        let l = logical_text(text);
        assert_eq!(l.len(), text.len());
        assert_eq!(
            l.lines()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>(),
            [
                "module {",
                "tt.func @f(%a: i32,   %b: i32) {",
                "tt.return",
                "}",
                "}"
            ]
        );
    }

    #[test]
    fn tells_dictionaries_from_regions() {
        let text = "%0 = tt.load %p {\n  isVolatile = false\n} : f16\nscf.if %c {\n  %x = a.b\n} else { scf.yield }\n%1 = x.y {u} : f16\n";
        let l = logical_text(text);
        let lines: Vec<&str> = l.lines().map(str::trim).filter(|s| !s.is_empty()).collect();
        assert_eq!(
            lines,
            [
                "%0 = tt.load %p {   isVolatile = false } : f16",
                "scf.if %c {",
                "%x = a.b",
                "} else {",
                "scf.yield",
                "}",
                "%1 = x.y {u} : f16"
            ]
        );
    }

    #[test]
    fn joins_an_op_going_on_outside_brackets() {
        let text = "#loc1 = loc(\"f.py\":1:2)\n#b = #x<{a = 1}>\n%r = scf.for %i = %a to %b step %c iter_args(%x = %y)\n   -> (i32) : i32 {\n^bb0(%p: i32):\n  %z =\n    a.b %p,\n // c\n %p\n    : i32\n  x.y %z : i32 loc(#l)\n}) {axis = 1 : i32}\n  : (i32) -> i32\n}\n{u = 1}\n";
        let l = logical_text(text);
        let lines: Vec<String> = l
            .lines()
            .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|s| !s.is_empty())
            .collect();
        assert_eq!(
            lines,
            [
                "#loc1 =",
                "#b = #x<{a = 1}>",
                "%r = scf.for %i = %a to %b step %c iter_args(%x = %y) -> (i32) : i32 {",
                "^bb0(%p: i32):",
                "%z = a.b %p, %p : i32",
                "x.y %z : i32",
                "}) {axis = 1 : i32} : (i32) -> i32",
                "} {u = 1}"
            ]
        );
    }

    #[test]
    fn blanks_locations_and_splits_modules() {
        let text = "#loc = loc(\"f.py\":1:2)\nmodule {\n} loc(#loc)\n// -----\nmodule {\n}\n";
        let l = logical_text(text);
        assert!(!l.contains("loc("));
        assert_eq!(split_modules(text).len(), 2);
        assert_eq!(&text[split_modules(text)[1].clone()], "module {\n}\n");
    }
}
