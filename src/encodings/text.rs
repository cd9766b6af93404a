//! Triton 3.6's attribute text: parsing and printing (`#ttg.blocked<{…}>`, tensor types,
//! alias definitions).

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use super::convert::{padded_component_fixed, padded_identity};
use super::error::EncodingError;
use super::types::*;
use crate::limits::LimitExceeded;

type R<T> = Result<T, EncodingError>;

// ---------------------------------------------------------------------------------------------
// Printing
// ---------------------------------------------------------------------------------------------

struct List<'a, T>(&'a [T]);

impl<T: fmt::Display> fmt::Display for List<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, v) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{v}")?;
        }
        f.write_str("]")
    }
}

struct Bases<'a>(&'a [Vec<u32>]);

impl fmt::Display for Bases<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, v) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}", List(v))?;
        }
        f.write_str("]")
    }
}

/// The error for an encoding whose deepest parent sits `level` parents below the top.
fn nesting_limit(level: usize) -> R<()> {
    LimitExceeded::check(
        "encodings::MAX_NESTING",
        "slice/dot_op parents nested in an encoding",
        MAX_NESTING as u64,
        level as u64,
    )
    .map_err(EncodingError::Limit)
}

/// Whether `tilesPerWarp` is the default one tile per warp along each of `rank` dims.
fn is_default_tiles(tiles: &[u32], rank: usize) -> bool {
    tiles.len() == rank && tiles.iter().all(|&t| t == 1)
}

fn cga(f: &mut fmt::Formatter<'_>, c: &[Vec<u32>]) -> fmt::Result {
    if c.is_empty() {
        Ok(())
    } else {
        write!(f, ", CGALayout = {}", Bases(c))
    }
}

/// `orderPerDim` of the `offset` bases, completed by `[rank-1, …, 0]`.
fn offset_order(offset: &[Vec<u32>], rank: usize) -> Vec<u32> {
    let mut order: Vec<u32> = Vec::new();
    for b in offset {
        if let Some(i) = b.iter().position(|&v| v != 0)
            && !order.contains(&(i as u32))
        {
            order.push(i as u32);
        }
    }
    for i in (0..rank as u32).rev() {
        if !order.contains(&i) {
            order.push(i);
        }
    }
    order
}

fn identity_bases(order: &[u32], sizes: &[u64]) -> Vec<Vec<u32>> {
    let rank = sizes.len();
    let mut out = Vec::new();
    for &d in order {
        let d = d as usize;
        let Some(&s) = sizes.get(d) else { continue };
        let mut v = 1u64;
        while v < s {
            let mut b = vec![0u32; rank];
            b[d] = v as u32;
            out.push(b);
            v *= 2;
        }
    }
    out
}

fn write_padded(f: &mut fmt::Formatter<'_>, p: &PaddedShared) -> fmt::Result {
    f.write_str("#ttg.padded_shared<[")?;
    for (i, (a, b)) in p.intervals.iter().zip(&p.paddings).enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{a}:+{b}")?;
    }
    f.write_str("] {")?;
    match (&p.linear, padded_component_fixed(p)) {
        (PaddedLinear::Identity { order, shape: None }, _) => write!(f, "order = {}", List(order))?,
        (_, Some(ll)) => {
            let sizes: Vec<u64> = ll.out_dims().map(|(_, s)| s).collect();
            let offset: Vec<Vec<u32>> = ll
                .bases("offset")
                .unwrap_or_default()
                .into_iter()
                .map(|b| b.into_iter().map(|v| v as u32).collect())
                .collect();
            let block: Vec<Vec<u32>> = ll
                .bases("block")
                .unwrap_or_default()
                .into_iter()
                .map(|b| b.into_iter().map(|v| v as u32).collect())
                .collect();
            let order = offset_order(&offset, sizes.len());
            if block.is_empty() && identity_bases(&order, &sizes) == offset {
                write!(f, "order = {}, shape = {}", List(&order), List(&sizes))?;
            } else {
                write!(f, "offset = {}, block = {}", Bases(&offset), Bases(&block))?;
            }
        }
        (PaddedLinear::Bases { offset, block }, None) => {
            write!(f, "offset = {}, block = {}", Bases(offset), Bases(block))?;
        }
        (
            PaddedLinear::Identity {
                order,
                shape: Some(s),
            },
            None,
        ) => {
            write!(f, "order = {}, shape = {}", List(order), List(s))?;
        }
    }
    f.write_str("}>")
}

/// Prints Triton 3.6's attribute syntax, exactly as Triton prints it (defaults omitted).
///
/// ```
/// use linear_layout::encodings::Encoding;
/// let e = Encoding::from_json(&serde_json::json!({"kind": "dot_operand", "opIdx": 1, "kWidth": 8,
///     "parent": {"kind": "amd_wmma", "version": 2, "warpsPerCTA": [2, 2], "instrShape": [16, 16, 32]}}))?;
/// assert_eq!(e.to_string(), "#ttg.dot_op<{opIdx = 1, parent = #ttg.amd_wmma<{version = 2, isTranspose = false, warpsPerCTA = [2, 2], instrShape = [16, 16, 32]}>, kWidth = 8}>");
/// # Ok::<(), linear_layout::encodings::EncodingError>(())
/// ```
impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Encoding::Blocked(b) => {
                write!(
                    f,
                    "#ttg.blocked<{{sizePerThread = {}, threadsPerWarp = {}, warpsPerCTA = {}, order = {}",
                    List(&b.size_per_thread),
                    List(&b.threads_per_warp),
                    List(&b.warps_per_cta),
                    List(&b.order)
                )?;
                cga(f, &b.cga_layout)?;
                f.write_str("}>")
            }
            Encoding::Slice(s) => {
                write!(f, "#ttg.slice<{{dim = {}, parent = {}}}>", s.dim, s.parent)
            }
            Encoding::AmdMfma(m) => {
                write!(
                    f,
                    "#ttg.amd_mfma<{{version = {}, warpsPerCTA = {}, instrShape = {}, isTransposed = {}",
                    m.version,
                    List(&m.warps_per_cta),
                    List(&m.instr_shape),
                    m.is_transposed
                )?;
                cga(f, &m.cga_layout)?;
                // Defaults are omitted; a list of another length than the rank is kept.
                if !is_default_tiles(m.tiles_per_warp.as_slice(), m.warps_per_cta.len()) {
                    write!(f, ", tilesPerWarp = {}", List(&m.tiles_per_warp))?;
                }
                if m.element_bit_width != 32 {
                    write!(f, ", elementBitWidth = {}", m.element_bit_width)?;
                }
                f.write_str("}>")
            }
            Encoding::AmdWmma(w) => {
                write!(
                    f,
                    "#ttg.amd_wmma<{{version = {}, isTranspose = {}, warpsPerCTA = {}",
                    w.version,
                    w.is_transposed,
                    List(&w.warps_per_cta)
                )?;
                cga(f, &w.cga_layout)?;
                // Defaults are omitted; a list of another length than the rank is kept.
                if !is_default_tiles(w.tiles_per_warp.as_slice(), w.warps_per_cta.len()) {
                    write!(f, ", tilesPerWarp = {}", List(&w.tiles_per_warp))?;
                }
                if w.instr_shape != [16, 16, 16] {
                    write!(f, ", instrShape = {}", List(&w.instr_shape))?;
                }
                f.write_str("}>")
            }
            Encoding::NvidiaMma(m) => {
                write!(
                    f,
                    "#ttg.nvidia_mma<{{versionMajor = {}, versionMinor = {}, warpsPerCTA = {}",
                    m.version_major,
                    m.version_minor,
                    List(&m.warps_per_cta)
                )?;
                cga(f, &m.cga_layout)?;
                write!(f, ", instrShape = {}}}>", List(&m.instr_shape))
            }
            Encoding::DotOperand(d) => {
                write!(f, "#ttg.dot_op<{{opIdx = {}, parent = {}", d.op_idx, d.parent)?;
                if d.k_width != 0 {
                    write!(f, ", kWidth = {}", d.k_width)?;
                }
                f.write_str("}>")
            }
            Encoding::Linear(l) => write!(
                f,
                "#ttg.linear<{{register = {}, lane = {}, warp = {}, block = {}}}>",
                Bases(&l.register),
                Bases(&l.lane),
                Bases(&l.warp),
                Bases(&l.block)
            ),
            Encoding::SwizzledShared(s) | Encoding::AmdRotatingShared(s) => {
                write!(
                    f,
                    "#ttg.{}<{{vec = {}, perPhase = {}, maxPhase = {}, order = {}",
                    self.kind(),
                    s.vec,
                    s.per_phase,
                    s.max_phase,
                    List(&s.order)
                )?;
                cga(f, &s.cga_layout)?;
                f.write_str("}>")
            }
            Encoding::NvmmaShared(n) => {
                write!(
                    f,
                    "#ttg.nvmma_shared<{{swizzlingByteWidth = {}, transposed = {}, elementBitWidth = {}",
                    n.swizzling_byte_width, n.transposed, n.element_bit_width
                )?;
                if n.fp4_padded {
                    f.write_str(", fp4Padded = true")?;
                }
                if n.cga_layout.is_empty() {
                    if let Some(r) = n.rank.filter(|&r| r != 2) {
                        write!(f, ", rank = {r}")?;
                    }
                } else {
                    cga(f, &n.cga_layout)?;
                }
                f.write_str("}>")
            }
            Encoding::PaddedShared(p) => write_padded(f, p),
            Encoding::SharedLinear(s) => {
                write!(f, "#ttg.shared_linear<{{offset = {}", Bases(&s.offset))?;
                if !s.block.is_empty() {
                    write!(f, ", block = {}", Bases(&s.block))?;
                }
                write!(f, "}}, alignment = {}>", s.alignment)
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

/// The attribute names (after `#ttg.`) this parser knows.
const KNOWN_KINDS: [&str; 12] = [
    "blocked",
    "slice",
    "amd_mfma",
    "amd_wmma",
    "nvidia_mma",
    "dot_op",
    "linear",
    "swizzled_shared",
    "amd_rotating_shared",
    "nvmma_shared",
    "padded_shared",
    "shared_linear",
];

/// Encodings defined by alias lines (`#blocked = #ttg.blocked<…>`), by name without `#`.
///
/// ```
/// use std::sync::Arc;
/// use linear_layout::encodings::{Aliases, Encoding};
/// let mut a = Aliases::new();
/// a.insert("shared".into(), Arc::new("#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>".parse()?));
/// let e = Encoding::parse_with_aliases("#shared", &a)?;
/// assert_eq!(e.kind(), "swizzled_shared");
/// # Ok::<(), linear_layout::encodings::EncodingError>(())
/// ```
pub type Aliases = HashMap<String, Arc<Encoding>>;

#[derive(Debug)]
enum Val {
    Int(i64),
    Bool(bool),
    List(Vec<(Val, usize)>),
    Attr(Arc<Encoding>),
}

struct Entry {
    key: String,
    key_pos: usize,
    val: Val,
    val_pos: usize,
}

/// The most entries of one list in attribute text (`[1, 2, …]`). Every list of an encoding
/// has one entry per tensor dim ([`MAX_RANK`]) or per basis (at most
/// [`MAX_BITS`](crate::linear::MAX_BITS) of them).
///
/// ```
/// use linear_layout::encodings::{Encoding, EncodingError, MAX_LIST_LEN};
/// let lane = |n: usize| format!("#ttg.linear<{{register = [], lane = [{}], warp = [], block = []}}>", vec!["[0]"; n].join(", "));
/// assert!(lane(MAX_LIST_LEN).parse::<Encoding>().is_ok());
/// let err = lane(MAX_LIST_LEN + 1).parse::<Encoding>().unwrap_err();
/// assert!(matches!(err, EncodingError::Limit(l) if l.limit == "encodings::MAX_LIST_LEN"));
/// ```
pub const MAX_LIST_LEN: usize = 64;

/// The deepest nesting of lists in attribute text: bases are lists of lists (depth 2); none
/// of Triton's attributes goes deeper.
///
/// ```
/// use linear_layout::encodings::{Encoding, EncodingError, MAX_LIST_DEPTH};
/// let order = |depth: usize| format!("#ttg.blocked<{{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = {}0{}}}>", "[".repeat(depth), "]".repeat(depth));
/// // Too deep for the limit, or only for blocked's order:
/// assert!(!matches!(order(MAX_LIST_DEPTH).parse::<Encoding>(), Err(EncodingError::Limit(_))));
/// let err = order(MAX_LIST_DEPTH + 1).parse::<Encoding>().unwrap_err();
/// assert!(matches!(err, EncodingError::Limit(l) if l.limit == "encodings::MAX_LIST_DEPTH"));
/// ```
pub const MAX_LIST_DEPTH: usize = 4;

struct Parser<'a> {
    src: &'a str,
    pos: usize,
    aliases: Option<&'a Aliases>,
    /// The `#ttg.` attributes open around the position: the nesting level of an attribute
    /// that starts here.
    attr_depth: usize,
    /// The lists open around the position.
    list_depth: usize,
}

impl<'a> Parser<'a> {
    fn new(src: &'a str, aliases: Option<&'a Aliases>) -> Self {
        Parser {
            src,
            pos: 0,
            aliases,
            attr_depth: 0,
            list_depth: 0,
        }
    }

    fn err_at(&self, pos: usize, message: impl Into<String>) -> EncodingError {
        let pos = pos.min(self.src.len());
        let before = &self.src[..pos];
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        EncodingError::Parse {
            line,
            column: col,
            message: message.into(),
        }
    }

    fn err(&self, message: impl Into<String>) -> EncodingError {
        self.err_at(self.pos, message)
    }

    fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }

    fn ws(&mut self) {
        let r = self.rest();
        let t = r.trim_start();
        self.pos += r.len() - t.len();
    }

    fn peek(&mut self) -> Option<char> {
        self.ws();
        self.rest().chars().next()
    }

    fn eat(&mut self, s: &str) -> bool {
        self.ws();
        if self.rest().starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, s: &str) -> R<()> {
        if self.eat(s) {
            Ok(())
        } else {
            let found = self
                .rest()
                .chars()
                .next()
                .map_or("end of input".to_string(), |c| format!("'{c}'"));
            Err(self.err(format!("expected '{s}', found {found}")))
        }
    }

    fn ident(&mut self) -> R<String> {
        self.ws();
        let r = self.rest();
        let n = r
            .char_indices()
            .find(|&(i, c)| !(c.is_ascii_alphanumeric() || c == '_' || c == '.' || (c == '$' && i > 0)))
            .map_or(r.len(), |(i, _)| i);
        if n == 0 || r.starts_with(|c: char| c.is_ascii_digit()) {
            return Err(self.err("expected an identifier"));
        }
        self.pos += n;
        Ok(r[..n].to_string())
    }

    fn int(&mut self) -> R<i64> {
        self.ws();
        let start = self.pos;
        let r = self.rest();
        let neg = r.starts_with('-');
        let digits = r[neg as usize..]
            .chars()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if digits == 0 {
            return Err(self.err("expected an integer"));
        }
        let end = neg as usize + digits;
        let v: i64 = r[..end]
            .parse()
            .map_err(|_| self.err_at(start, "integer out of range"))?;
        self.pos += end;
        // An optional MLIR type suffix (`1 : i32`).
        let save = self.pos;
        if self.eat(":") {
            self.ws();
            if self.rest().starts_with('i') || self.rest().starts_with("si") || self.rest().starts_with("ui")
            {
                self.ident()?;
            } else {
                self.pos = save;
            }
        }
        Ok(v)
    }

    fn value(&mut self) -> R<(Val, usize)> {
        self.ws();
        let pos = self.pos;
        let v = match self.peek() {
            Some('[') => {
                self.pos += 1;
                self.list_depth += 1;
                if self.list_depth > MAX_LIST_DEPTH {
                    return Err(EncodingError::Limit(LimitExceeded::new(
                        "encodings::MAX_LIST_DEPTH",
                        "lists nested in attribute text",
                        MAX_LIST_DEPTH as u64,
                        self.list_depth as u64,
                    )));
                }
                let mut items = Vec::new();
                if !self.eat("]") {
                    loop {
                        if items.len() == MAX_LIST_LEN {
                            return Err(EncodingError::Limit(LimitExceeded::new(
                                "encodings::MAX_LIST_LEN",
                                "entries of a list in attribute text",
                                MAX_LIST_LEN as u64,
                                MAX_LIST_LEN as u64 + 1,
                            )));
                        }
                        items.push(self.value()?);
                        if self.eat("]") {
                            break;
                        }
                        self.expect(",")?;
                    }
                }
                self.list_depth -= 1;
                Val::List(items)
            }
            Some('#') => Val::Attr(self.attribute()?),
            Some(c) if c == '-' || c.is_ascii_digit() => Val::Int(self.int()?),
            Some(_) => {
                let id = self.ident()?;
                match id.as_str() {
                    "true" => Val::Bool(true),
                    "false" => Val::Bool(false),
                    _ => return Err(self.err_at(pos, format!("unexpected '{id}'"))),
                }
            }
            None => return Err(self.err("expected a value, found end of input")),
        };
        Ok((v, pos))
    }

    fn dict(&mut self) -> R<Vec<Entry>> {
        self.expect("{")?;
        let mut out: Vec<Entry> = Vec::new();
        if self.eat("}") {
            return Ok(out);
        }
        loop {
            self.ws();
            let key_pos = self.pos;
            let key = self.ident()?;
            if out.iter().any(|e| e.key == key) {
                return Err(self.err_at(key_pos, format!("duplicate key '{key}' in dictionary attribute")));
            }
            self.expect("=")?;
            let (val, val_pos) = self.value()?;
            out.push(Entry {
                key,
                key_pos,
                val,
                val_pos,
            });
            if self.eat("}") {
                return Ok(out);
            }
            self.expect(",")?;
        }
    }

    /// `#ttg.kind<…>` or `#alias`. An alias is shared, not copied: a file's types and parents
    /// that name one alias hold one value, so memory grows with the text, not with the uses.
    fn attribute(&mut self) -> R<Arc<Encoding>> {
        self.ws();
        let start = self.pos;
        self.expect("#")?;
        let name = self.ident()?;
        if let Some(kind) = name.strip_prefix("ttg.") {
            nesting_limit(self.attr_depth)?;
            self.attr_depth += 1;
            let e = self.body(kind, start)?;
            self.attr_depth -= 1;
            Ok(Arc::new(e))
        } else {
            match self.aliases.and_then(|a| a.get(&name)) {
                // An alias brings its own parents: they count as if written out here.
                Some(e) => {
                    nesting_limit(self.attr_depth + e.nesting())?;
                    Ok(Arc::clone(e))
                }
                None => Err(self.err_at(start, format!("undefined attribute alias '#{name}'"))),
            }
        }
    }

    fn body(&mut self, kind: &str, start: usize) -> R<Encoding> {
        if !KNOWN_KINDS.contains(&kind) {
            return Err(self.err_at(start, format!("unknown attribute '#ttg.{kind}'")));
        }
        self.expect("<")?;
        let e = match kind {
            "padded_shared" => self.padded()?,
            "shared_linear" => {
                let d = self.dict()?;
                self.expect(",")?;
                let kp = self.pos;
                let kw = self.ident()?;
                if kw != "alignment" {
                    return Err(self.err_at(kp, "expected 'alignment'"));
                }
                self.expect("=")?;
                let ap = self.pos;
                let a = self.int()?;
                let mut f = Fields::new(self, "shared_linear", d)?;
                let offset = f.bases("offset")?.unwrap_or_default();
                let block = f.bases("block")?.unwrap_or_default();
                f.finish()?;
                if offset.is_empty() && block.is_empty() {
                    return Err(self.err_at(start, "Empty Layout not supported"));
                }
                Encoding::SharedLinear(SharedLinear {
                    offset,
                    block,
                    alignment: u32::try_from(a)
                        .map_err(|_| self.err_at(ap, "alignment must be a 32-bit unsigned int"))?,
                })
            }
            _ => {
                let d = self.dict()?;
                self.simple(kind, d, start)?
            }
        };
        self.expect(">")?;
        Ok(e)
    }

    fn padded(&mut self) -> R<Encoding> {
        self.expect("[")?;
        let mut intervals = Vec::new();
        let mut paddings = Vec::new();
        if !self.eat("]") {
            loop {
                let p = self.pos;
                let i = self.int()?;
                self.expect(":")?;
                self.expect("+")?;
                let q = self.pos;
                let pd = self.int()?;
                intervals.push(
                    u32::try_from(i).map_err(|_| self.err_at(p, "interval must be a 32-bit unsigned int"))?,
                );
                paddings.push(
                    u32::try_from(pd).map_err(|_| self.err_at(q, "padding must be a 32-bit unsigned int"))?,
                );
                if intervals.len() > 64 {
                    return Err(self.err("too many interval-padding pairs"));
                }
                if self.eat("]") {
                    break;
                }
                self.expect(",")?;
            }
        }
        let dpos = self.pos;
        let d = self.dict()?;
        let has_bases = d.iter().any(|e| e.key == "offset" || e.key == "block");
        let mut f = Fields::new(self, "padded_shared", d)?;
        let linear = if has_bases {
            let offset = f.bases("offset")?;
            let block = f.bases("block")?;
            f.finish()?;
            let Some(offset) = offset else {
                return Err(self.err_at(dpos, "Expected basis of 'offset' not found"));
            };
            let Some(block) = block else {
                return Err(self.err_at(dpos, "Expected basis of 'block' not found"));
            };
            if offset.is_empty() && block.is_empty() {
                return Err(self.err_at(dpos, "Empty Layout not supported"));
            }
            PaddedLinear::Bases { offset, block }
        } else {
            let order = f.ints("order")?.unwrap_or_default();
            let shape = f.ints("shape")?.unwrap_or_default();
            f.finish()?;
            if order.len() != shape.len() {
                return Err(self.err_at(dpos, "Mismatch of shape and order ranks in padded layout"));
            }
            // Triton stores the computed component; so do we. The intervals are checked
            // when the encoding is used, as they are for the form with bases.
            let shape64: Vec<u64> = shape.iter().map(|&s| s as u64).collect();
            let ll = padded_identity(&order, &shape64).map_err(|x| self.err_at(dpos, x.to_string()))?;
            let get = |n: &str| -> Vec<Vec<u32>> {
                ll.bases(n)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|b| b.into_iter().map(|v| v as u32).collect())
                    .collect()
            };
            let (offset, block) = (get("offset"), get("block"));
            if offset.is_empty() && block.is_empty() {
                // A component of one element has no bases to carry its rank: keep the form.
                PaddedLinear::Identity {
                    order,
                    shape: Some(shape64),
                }
            } else {
                PaddedLinear::Bases { offset, block }
            }
        };
        Ok(Encoding::PaddedShared(PaddedShared {
            intervals,
            paddings,
            linear,
        }))
    }

    fn simple(&mut self, kind: &str, d: Vec<Entry>, start: usize) -> R<Encoding> {
        let kname: &'static str = match kind {
            "blocked" => "blocked",
            "slice" => "slice",
            "amd_mfma" => "amd_mfma",
            "amd_wmma" => "amd_wmma",
            "nvidia_mma" => "nvidia_mma",
            "dot_op" => "dot_operand",
            "linear" => "linear",
            "swizzled_shared" => "swizzled_shared",
            "amd_rotating_shared" => "amd_rotating_shared",
            _ => "nvmma_shared",
        };
        let mut f = Fields::new(self, kname, d)?;
        let e = match kind {
            "blocked" => {
                let spt = f.req_ints("sizePerThread", start)?;
                let b = Blocked {
                    threads_per_warp: f.req_ints("threadsPerWarp", start)?,
                    warps_per_cta: f.req_ints("warpsPerCTA", start)?,
                    order: f.req_ints("order", start)?,
                    cga_layout: f.bases("CGALayout")?.unwrap_or_default(),
                    size_per_thread: spt,
                };
                Encoding::Blocked(b)
            }
            "slice" => Encoding::Slice(Slice {
                dim: f.req_uint("dim", start)?,
                parent: f.req_attr("parent", start)?,
            }),
            "amd_mfma" => {
                let w = f.req_ints("warpsPerCTA", start)?;
                Encoding::AmdMfma(AmdMfma {
                    version: f.req_uint("version", start)?,
                    instr_shape: f.req_ints("instrShape", start)?,
                    is_transposed: f.bool("isTransposed")?.unwrap_or(false),
                    // An empty list, like an absent one, is one tile per warp along every dim
                    // (Triton 3.6 converts and prints `tilesPerWarp = []` as the default).
                    tiles_per_warp: f
                        .ints("tilesPerWarp")?
                        .filter(|t| !t.is_empty())
                        .unwrap_or_else(|| vec![1; w.len()]),
                    element_bit_width: f.uint("elementBitWidth")?.unwrap_or(32),
                    cga_layout: f.bases("CGALayout")?.unwrap_or_default(),
                    warps_per_cta: w,
                })
            }
            "amd_wmma" => {
                let w = f.req_ints("warpsPerCTA", start)?;
                Encoding::AmdWmma(AmdWmma {
                    version: f.req_uint("version", start)?,
                    is_transposed: f.bool("isTranspose")?.unwrap_or(false),
                    // An empty list, like an absent one, is one tile per warp along every dim
                    // (Triton 3.6 converts and prints `tilesPerWarp = []` as the default).
                    tiles_per_warp: f
                        .ints("tilesPerWarp")?
                        .filter(|t| !t.is_empty())
                        .unwrap_or_else(|| vec![1; w.len()]),
                    instr_shape: f.ints("instrShape")?.unwrap_or_else(|| vec![16, 16, 16]),
                    cga_layout: f.bases("CGALayout")?.unwrap_or_default(),
                    warps_per_cta: w,
                })
            }
            "nvidia_mma" => Encoding::NvidiaMma(NvidiaMma {
                version_major: f.uint("versionMajor")?.unwrap_or(0),
                version_minor: f.uint("versionMinor")?.unwrap_or(0),
                warps_per_cta: f.ints("warpsPerCTA")?.unwrap_or_default(),
                cga_layout: f.bases("CGALayout")?.unwrap_or_default(),
                instr_shape: f.ints("instrShape")?.unwrap_or_default(),
            }),
            "dot_op" => Encoding::DotOperand(DotOperand {
                op_idx: f.req_uint("opIdx", start)?,
                parent: f.req_attr("parent", start)?,
                k_width: f.uint("kWidth")?.unwrap_or(0),
            }),
            "linear" => {
                let mut l = Linear {
                    register: f.req_bases("register", start)?,
                    lane: f.req_bases("lane", start)?,
                    warp: f.req_bases("warp", start)?,
                    block: f.req_bases("block", start)?,
                    shape: None,
                };
                let all = [&l.register, &l.lane, &l.warp, &l.block];
                let Some(rank) = all.iter().find_map(|b| b.first().map(|x| x.len())) else {
                    return Err(f.p.err_at(start, "Empty Layout not supported"));
                };
                // The out-dim sizes are inferred from the bases, as Triton does.
                let sizes = (0..rank)
                    .map(|d| {
                        let max = all.iter().flat_map(|bs| bs.iter()).filter_map(|b| b.get(d)).max();
                        (*max.unwrap_or(&0) as u64 + 1).next_power_of_two()
                    })
                    .collect();
                l.shape = Some(sizes);
                Encoding::Linear(l)
            }
            "swizzled_shared" | "amd_rotating_shared" => {
                let s = Swizzled {
                    vec: f.uint("vec")?.unwrap_or(0),
                    per_phase: f.uint("perPhase")?.unwrap_or(0),
                    max_phase: f.uint("maxPhase")?.unwrap_or(0),
                    order: f.ints("order")?.unwrap_or_default(),
                    cga_layout: f.bases("CGALayout")?.unwrap_or_default(),
                };
                if kind == "swizzled_shared" {
                    Encoding::SwizzledShared(s)
                } else {
                    Encoding::AmdRotatingShared(s)
                }
            }
            _ => {
                let cga = f.bases("CGALayout")?.unwrap_or_default();
                let rank = f.uint("rank")?;
                Encoding::NvmmaShared(NvmmaShared {
                    swizzling_byte_width: f.req_uint("swizzlingByteWidth", start)?,
                    transposed: f.bool("transposed")?.unwrap_or(false),
                    element_bit_width: f.req_uint("elementBitWidth", start)?,
                    fp4_padded: f.bool("fp4Padded")?.unwrap_or(false),
                    rank: Some(rank.unwrap_or_else(|| cga.first().map_or(2, |b| b.len() as u32))),
                    cga_layout: cga,
                })
            }
        };
        f.finish()?;
        Ok(e)
    }
}

/// The entries of one dictionary, consumed by name; leftovers are "unexpected key" errors.
struct Fields<'p, 'a> {
    p: &'p Parser<'a>,
    kind: &'static str,
    entries: Vec<Option<Entry>>,
}

impl<'p, 'a> Fields<'p, 'a> {
    fn new(p: &'p Parser<'a>, kind: &'static str, d: Vec<Entry>) -> R<Self> {
        Ok(Fields {
            p,
            kind,
            entries: d.into_iter().map(Some).collect(),
        })
    }

    fn take(&mut self, key: &str) -> Option<Entry> {
        self.entries
            .iter_mut()
            .find(|e| e.as_ref().is_some_and(|e| e.key == key))
            .and_then(Option::take)
    }

    fn to_u32(&self, v: &Val, pos: usize, key: &str) -> R<u32> {
        match v {
            Val::Int(i) => u32::try_from(*i).map_err(|_| {
                self.p.err_at(
                    pos,
                    format!("{}: expected an unsigned integer value in '{key}'", self.kind),
                )
            }),
            _ => Err(self
                .p
                .err_at(pos, format!("{}: expected an integer in '{key}'", self.kind))),
        }
    }

    fn uint(&mut self, key: &str) -> R<Option<u32>> {
        match self.take(key) {
            None => Ok(None),
            Some(e) => self.to_u32(&e.val, e.val_pos, key).map(Some),
        }
    }

    fn req_uint(&mut self, key: &str, start: usize) -> R<u32> {
        self.uint(key)?.ok_or_else(|| {
            self.p
                .err_at(start, format!("{}: missing parameter '{key}'", self.kind))
        })
    }

    fn bool(&mut self, key: &str) -> R<Option<bool>> {
        match self.take(key) {
            None => Ok(None),
            Some(Entry {
                val: Val::Bool(b), ..
            }) => Ok(Some(b)),
            Some(e) => Err(self.p.err_at(
                e.val_pos,
                format!("{}: expected a bool type in '{key}'", self.kind),
            )),
        }
    }

    fn list_u32(&self, v: &Val, pos: usize, key: &str) -> R<Vec<u32>> {
        match v {
            Val::List(items) => {
                if items.len() > 64 {
                    return Err(self
                        .p
                        .err_at(pos, format!("{}: '{key}' has too many entries", self.kind)));
                }
                items.iter().map(|(x, p)| self.to_u32(x, *p, key)).collect()
            }
            _ => Err(self
                .p
                .err_at(pos, format!("{}: expected an array for '{key}'", self.kind))),
        }
    }

    fn ints(&mut self, key: &str) -> R<Option<Vec<u32>>> {
        match self.take(key) {
            None => Ok(None),
            Some(e) => self.list_u32(&e.val, e.val_pos, key).map(Some),
        }
    }

    fn req_ints(&mut self, key: &str, start: usize) -> R<Vec<u32>> {
        self.ints(key)?.ok_or_else(|| {
            self.p
                .err_at(start, format!("{}: missing parameter '{key}'", self.kind))
        })
    }

    fn bases(&mut self, key: &str) -> R<Option<Vec<Vec<u32>>>> {
        match self.take(key) {
            None => Ok(None),
            Some(Entry {
                val: Val::List(items),
                val_pos,
                ..
            }) => {
                if items.len() > 64 {
                    return Err(self
                        .p
                        .err_at(val_pos, format!("{}: '{key}' has too many bases", self.kind)));
                }
                items
                    .iter()
                    .map(|(x, p)| self.list_u32(x, *p, key))
                    .collect::<R<Vec<_>>>()
                    .map(Some)
            }
            Some(e) => Err(self.p.err_at(
                e.val_pos,
                format!("{}: expected array of arrays for '{key}'", self.kind),
            )),
        }
    }

    fn req_bases(&mut self, key: &str, start: usize) -> R<Vec<Vec<u32>>> {
        self.bases(key)?.ok_or_else(|| {
            self.p
                .err_at(start, format!("Expected basis of '{key}' not found"))
        })
    }

    fn req_attr(&mut self, key: &str, start: usize) -> R<Arc<Encoding>> {
        match self.take(key) {
            None => Err(self
                .p
                .err_at(start, format!("{}: missing parameter '{key}'", self.kind))),
            Some(Entry {
                val: Val::Attr(e), ..
            }) => Ok(e),
            Some(e) => Err(self.p.err_at(
                e.val_pos,
                format!("{}: expected an attribute for '{key}'", self.kind),
            )),
        }
    }

    fn finish(self) -> R<()> {
        if let Some(e) = self.entries.into_iter().flatten().next() {
            return Err(self
                .p
                .err_at(e.key_pos, format!("{}: unexpected key: {}", self.kind, e.key)));
        }
        Ok(())
    }
}

fn parse_complete<T>(src: &str, aliases: Option<&Aliases>, f: impl FnOnce(&mut Parser<'_>) -> R<T>) -> R<T> {
    let mut p = Parser::new(src, aliases);
    let v = f(&mut p)?;
    p.ws();
    if p.pos != src.len() {
        return Err(p.err("unexpected trailing characters"));
    }
    Ok(v)
}

impl Encoding {
    /// Parses attribute text that may refer to previously defined aliases (`#blocked`).
    ///
    /// ```
    /// use linear_layout::encodings::{parse_aliases, Encoding};
    /// let aliases = parse_aliases("#mma = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>")?;
    /// let e = Encoding::parse_with_aliases("#ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 8}>", &aliases)?;
    /// assert_eq!(e.kind(), "dot_operand");
    /// # Ok::<(), linear_layout::encodings::EncodingError>(())
    /// ```
    pub fn parse_with_aliases(text: &str, aliases: &Aliases) -> Result<Encoding, EncodingError> {
        parse_complete(text, Some(aliases), |p| p.attribute().map(Arc::unwrap_or_clone))
    }
}

/// Parses Triton 3.6 attribute text (`#ttg.blocked<{…}>`); errors carry line and column.
///
/// ```
/// use linear_layout::encodings::{Encoding, EncodingError};
/// let err = "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0], foo = 1}>"
///     .parse::<Encoding>().unwrap_err();
/// assert!(matches!(err, EncodingError::Parse { line: 1, column: 91, .. }), "{err}");
/// ```
impl FromStr for Encoding {
    type Err = EncodingError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_complete(s, None, |p| p.attribute().map(Arc::unwrap_or_clone))
    }
}

/// Parses the alias definitions of a TTGIR file (`#name = #ttg.<encoding><…>` lines; other
/// lines, and aliases of other attributes such as `#ttg.shared_memory`, are ignored). Later
/// definitions may use earlier aliases. A malformed encoding is an error with its line and
/// column.
///
/// ```
/// use linear_layout::encodings::parse_aliases;
/// let text = "#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>\n\
///             #slice = #ttg.slice<{dim = 1, parent = #blocked}>\n\
///             module { }";
/// let a = parse_aliases(text)?;
/// assert_eq!(a["slice"].kind(), "slice");
/// # Ok::<(), linear_layout::encodings::EncodingError>(())
/// ```
pub fn parse_aliases(text: &str) -> Result<Aliases, EncodingError> {
    let mut aliases = Aliases::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed.starts_with('#')
            && let Some(eq) = trimmed.find('=')
        {
            let name = trimmed[1..eq].trim();
            if !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$')
            {
                let value_start = offset + (line.len() - trimmed.len()) + eq + 1;
                let value_end = offset + line.trim_end().len();
                // Only encodings are read; other attributes (`#ttg.shared_memory`, `#loc = …`,
                // other dialects) are skipped.
                let value = text[value_start..value_end].trim_start();
                let is_encoding = value
                    .strip_prefix("#ttg.")
                    .map(|v| {
                        v.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                            .next()
                            .unwrap_or("")
                    })
                    .is_some_and(|k| KNOWN_KINDS.contains(&k));
                if !is_encoding {
                    offset += line.len();
                    continue;
                }
                let mut p = Parser::new(text, Some(&aliases));
                p.pos = value_start;
                let e = p.attribute()?;
                p.ws_inline();
                if p.pos < value_end {
                    return Err(p.err("unexpected trailing characters"));
                }
                aliases.insert(name.to_string(), e);
            }
        }
        offset += line.len();
    }
    Ok(aliases)
}

impl Parser<'_> {
    fn ws_inline(&mut self) {
        let r = self.rest();
        let t = r.trim_start_matches([' ', '\t', '\r']);
        self.pos += r.len() - t.len();
    }
}

/// An alias definition line, `#name = <encoding>`, printed as in TTGIR files.
///
/// ```
/// use linear_layout::encodings::AliasDef;
/// let d: AliasDef = "#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>".parse()?;
/// assert_eq!(d.name, "shared");
/// assert_eq!(d.to_string(), "#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>");
/// # Ok::<(), linear_layout::encodings::EncodingError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AliasDef {
    /// The alias name without `#`.
    pub name: String,
    /// Its encoding.
    pub encoding: Encoding,
}

impl FromStr for AliasDef {
    type Err = EncodingError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_complete(s, None, |p| {
            p.expect("#")?;
            let name = p.ident()?;
            p.expect("=")?;
            let encoding = Arc::unwrap_or_clone(p.attribute()?);
            Ok(AliasDef { name, encoding })
        })
    }
}

impl fmt::Display for AliasDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{} = {}", self.name, self.encoding)
    }
}

/// A ranked tensor type, `tensor<128x64xf16, #blocked>` (or a shared-memory descriptor,
/// `!ttg.memdesc<64x64xf16, #shared, #smem, mutable>`).
///
/// ```
/// use linear_layout::encodings::{parse_aliases, TensorType};
/// let a = parse_aliases("#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>")?;
/// let t = TensorType::parse_with_aliases("tensor<128x64xf16, #blocked>", &a)?;
/// assert_eq!(t.shape, [128, 64]);
/// assert_eq!(t.element_type, "f16");
/// let l = t.to_linear_layout()?;
/// assert_eq!(l.out_dim_size("dim0")?, 128);
/// assert!(t.to_string().starts_with("tensor<128x64xf16, #ttg.blocked<{sizePerThread = [1, 8]"));
/// # Ok::<(), linear_layout::encodings::EncodingError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorType {
    /// The dimensions.
    pub shape: Vec<u64>,
    /// The element type as written (`f16`, `bf16`, `i32`, `!tt.ptr<f16>`, …).
    pub element_type: String,
    /// The encoding, if any (shared with the alias it names, if it names one).
    pub encoding: Option<Arc<Encoding>>,
    /// `Some(extra items)` for `!ttg.memdesc` (memory space, `mutable`, …, kept verbatim).
    pub memdesc: Option<Vec<String>>,
}

impl TensorType {
    /// Parses a tensor (or memdesc) type whose encoding may be an alias.
    ///
    /// ```
    /// use linear_layout::encodings::{Aliases, TensorType};
    /// let t = TensorType::parse_with_aliases("tensor<4xi32>", &Aliases::new())?;
    /// assert_eq!((t.shape.as_slice(), t.encoding.is_none()), (&[4u64][..], true));
    /// # Ok::<(), linear_layout::encodings::EncodingError>(())
    /// ```
    pub fn parse_with_aliases(text: &str, aliases: &Aliases) -> Result<TensorType, EncodingError> {
        parse_complete(text, Some(aliases), |p| p.tensor_type())
    }

    /// The layout of this tensor: its encoding applied to its shape.
    ///
    /// ```
    /// use linear_layout::encodings::TensorType;
    /// let t: TensorType = "tensor<16xf32, #ttg.linear<{register = [], lane = [[1], [2], [4], [8], [0]], warp = [], block = []}>>".parse()?;
    /// assert_eq!(t.to_linear_layout()?.bases("lane")?[4], vec![0]);
    /// # Ok::<(), linear_layout::encodings::EncodingError>(())
    /// ```
    pub fn to_linear_layout(&self) -> Result<crate::linear::LinearLayout, EncodingError> {
        match &self.encoding {
            Some(e) => e.to_linear_layout(&self.shape),
            None => Err(EncodingError::shape("tensor", "the type has no encoding")),
        }
    }
}

impl Parser<'_> {
    fn tensor_type(&mut self) -> R<TensorType> {
        let memdesc = if self.eat("tensor") {
            false
        } else if self.eat("!ttg.memdesc") {
            true
        } else {
            return Err(self.err("expected 'tensor<' or '!ttg.memdesc<'"));
        };
        self.expect("<")?;
        let mut shape = Vec::new();
        loop {
            self.ws();
            let r = self.rest();
            let digits = r.chars().take_while(|c| c.is_ascii_digit()).count();
            if digits > 0 && r[digits..].starts_with('x') {
                let v: u64 = r[..digits]
                    .parse()
                    .map_err(|_| self.err("dimension out of range"))?;
                if shape.len() == MAX_RANK {
                    return Err(EncodingError::Limit(LimitExceeded::new(
                        "encodings::MAX_RANK",
                        "dims of a tensor type",
                        MAX_RANK as u64,
                        MAX_RANK as u64 + 1,
                    )));
                }
                shape.push(v);
                self.pos += digits + 1;
            } else {
                break;
            }
        }
        // The element type: up to a top-level ',' or '>'.
        let start = self.pos;
        let mut depth = 0usize;
        for (i, c) in self.rest().char_indices() {
            match c {
                '<' => depth += 1,
                '>' if depth == 0 => {
                    self.pos = start + i;
                    break;
                }
                '>' => depth -= 1,
                ',' if depth == 0 => {
                    self.pos = start + i;
                    break;
                }
                _ => {}
            }
        }
        let element_type = self.src[start..self.pos].trim().to_string();
        if element_type.is_empty() || self.pos == start {
            return Err(self.err_at(start, "expected an element type"));
        }
        let mut encoding = None;
        let mut extra = Vec::new();
        if self.eat(",") {
            encoding = Some(self.attribute()?);
            if memdesc {
                while self.eat(",") {
                    self.ws();
                    let s = self.pos;
                    let mut depth = 0usize;
                    let mut end = self.src.len();
                    for (i, c) in self.rest().char_indices() {
                        match c {
                            '<' | '[' | '{' => depth += 1,
                            '>' | ']' | '}' if depth > 0 => depth -= 1,
                            ',' | '>' if depth == 0 => {
                                end = s + i;
                                break;
                            }
                            _ => {}
                        }
                    }
                    self.pos = end;
                    extra.push(self.src[s..end].trim().to_string());
                }
            }
        }
        self.expect(">")?;
        Ok(TensorType {
            shape,
            element_type,
            encoding,
            memdesc: memdesc.then_some(extra),
        })
    }
}

impl FromStr for TensorType {
    type Err = EncodingError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_complete(s, None, |p| p.tensor_type())
    }
}

impl fmt::Display for TensorType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.memdesc.is_some() {
            "!ttg.memdesc<"
        } else {
            "tensor<"
        })?;
        for d in &self.shape {
            write!(f, "{d}x")?;
        }
        f.write_str(&self.element_type)?;
        if let Some(e) = &self.encoding {
            write!(f, ", {e}")?;
        }
        for x in self.memdesc.iter().flatten() {
            write!(f, ", {x}")?;
        }
        f.write_str(">")
    }
}
