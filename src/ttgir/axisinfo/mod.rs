//! Triton 3.6's AxisInfo lattice: contiguity, divisibility and constancy per dimension.
//!
//! For every integer or pointer value and every dimension Triton tracks three powers of two:
//!
//! * **contiguity** — the length of the runs of consecutive values (`+1` steps);
//! * **divisibility** — the largest power of two dividing the first value of every such run
//!   (in **bytes** for pointers);
//! * **constancy** — the length of the runs of equal values;
//!
//! plus the value itself when it is a known constant. `2^62` stands for "unknown, as large as
//! you like" (Triton's `highestPowOf2Divisor(0)`). The coalescing pass reads them off the
//! pointer of each load or store: `contiguity` decides the order, `divisibility` how many
//! elements one thread may load in one instruction.
//!
//! # A worked example
//!
//! `ptr + range(0, 256)` with `ptr` 16-byte aligned (`tt.divisibility = 16`) and f16
//! elements: the range is contiguous over 256 elements and starts at 0 (divisibility
//! `2^62`); `addptr` multiplies the offset's divisibility by the element size and takes the
//! gcd with the pointer's, so the pointer is contiguous over 256 elements and 16-byte
//! aligned — 8 × f16 per thread.
//!
//! ```
//! use linear_layout::ttgir::axisinfo::{Expr, Hints};
//! let ptr = Expr::arg(&[], Hints { divisibility: Some(vec![16]), ..Hints::default() });
//! let p = Expr::addptr(Expr::splat(ptr, &[256]), Expr::range(0, 256), 2);
//! let ai = p.axis_info()?;
//! assert_eq!((ai.contiguity[0], ai.divisibility[0], ai.constancy[0]), (256, 16, 1));
//! # Ok::<(), linear_layout::ttgir::axisinfo::AxisError>(())
//! ```
//!
//! # The rules, briefly
//!
//! * `make_range [s, e)`: contiguity `e − s`, divisibility `hp2(s)`; `splat`: constancy the
//!   whole shape; constants: divisibility `hp2(v)`.
//! * `add`: contiguity `max(gcd(l.const, r.contig), gcd(l.contig, r.const))`, divisibility
//!   and constancy gcd. `sub` only keeps the left side's contiguity.
//! * `mul`: contiguity survives a multiplication by 1 only; divisibility is the product,
//!   counting a contiguous operand as 1 (`16 · range` is divisible by 16, not by `16 · 2^62`).
//! * `div`/`rem` by a constant: `range % 64` stays contiguous over 64, `range / 4` constant
//!   over 4.
//! * `cmp`: constancy of a mask like `range < n` is `gcd(contig, gcd(divs))` — runs of equal
//!   mask bits.
//! * `select`, `max`, `min`, `shl`, `shr`, `and`/`or`/`xor`, `expand_dims`, `broadcast`: see
//!   [`AxisInfo::binary`](crate::ttgir::axisinfo::AxisInfo::binary) and friends.
//!
//! ```
//! use linear_layout::ttgir::axisinfo::{BinOp, Expr};
//! // (range(0, 1024) / 4) * 4 + range % 4: contiguity 4 (runs of 4), divisibility 4.
//! let r = || Expr::range(0, 1024);
//! let c4 = || Expr::constant(4, &[1024]);
//! let e = Expr::binary(BinOp::Add,
//!     Expr::binary(BinOp::Mul, Expr::binary(BinOp::Div, r(), c4()), c4()),
//!     Expr::binary(BinOp::Rem, r(), c4()));
//! let ai = e.axis_info()?;
//! assert_eq!((ai.contiguity[0], ai.divisibility[0]), (4, 4));
//! # Ok::<(), linear_layout::ttgir::axisinfo::AxisError>(())
//! ```

use num_integer::Integer;
use std::fmt;

mod expr;
mod module;

pub use expr::Expr;
pub use module::{MAX_EVALUATIONS, analyze};

/// "Unknown / as large as you like": `highestPowOf2Divisor(0)` = 2^62.
///
/// ```
/// use linear_layout::ttgir::axisinfo::{hp2, MAX_DIVISIBILITY};
/// assert_eq!(hp2(0), MAX_DIVISIBILITY);
/// ```
pub const MAX_DIVISIBILITY: u64 = 1 << 62;

/// The largest power of two dividing `v` (2^62 for 0).
///
/// ```
/// use linear_layout::ttgir::axisinfo::hp2;
/// assert_eq!((hp2(12), hp2(-8), hp2(1)), (4, 8, 1));
/// ```
pub fn hp2(v: i64) -> u64 {
    if v == 0 {
        return MAX_DIVISIBILITY;
    }
    let u = v as u64;
    (u & u.wrapping_neg()).min(MAX_DIVISIBILITY)
}

fn mul_sat(a: u64, b: u64) -> u64 {
    if b != 0 && a > MAX_DIVISIBILITY / b {
        MAX_DIVISIBILITY
    } else {
        (a * b).min(MAX_DIVISIBILITY)
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    a.gcd(&b)
}

/// An AxisInfo error: operands of mismatched rank, bad axis, …
///
/// ```
/// use linear_layout::ttgir::axisinfo::{BinOp, Expr};
/// let e = Expr::binary(BinOp::Add, Expr::range(0, 4), Expr::constant(1, &[4, 4]));
/// assert!(e.axis_info().is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AxisError(pub String);

impl fmt::Display for AxisError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "axis info: {}", self.0)
    }
}

impl std::error::Error for AxisError {}

/// The AxisInfo of one value: per-dimension contiguity, divisibility, constancy, and the
/// constant value if known. Scalars have rank 1.
///
/// ```
/// use linear_layout::ttgir::axisinfo::AxisInfo;
/// let a = AxisInfo::range(0, 64);
/// assert_eq!(a.to_string(), "contiguity = [64], divisibility = [4611686018427387904], constancy = [1]");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AxisInfo {
    /// Runs of consecutive values, per dim.
    pub contiguity: Vec<u64>,
    /// Power-of-two divisibility of each run's first value (bytes for pointers), per dim.
    pub divisibility: Vec<u64>,
    /// Runs of equal values, per dim.
    pub constancy: Vec<u64>,
    /// The value, if it is a known constant.
    pub constant: Option<i64>,
}

impl fmt::Display for AxisInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "contiguity = {:?}, divisibility = {:?}, constancy = {:?}",
            self.contiguity, self.divisibility, self.constancy
        )
    }
}

/// The integer binary operations AxisInfo has rules for.
///
/// ```
/// use linear_layout::ttgir::axisinfo::BinOp;
/// assert_eq!(BinOp::from_arith("arith.remsi"), Some(BinOp::Rem));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `arith.addi`.
    Add,
    /// `arith.subi`.
    Sub,
    /// `arith.muli`.
    Mul,
    /// `arith.divsi` / `divui`.
    Div,
    /// `arith.remsi` / `remui`.
    Rem,
    /// `arith.andi`.
    And,
    /// `arith.ori`.
    Or,
    /// `arith.xori`.
    Xor,
    /// `arith.shli`.
    Shl,
    /// `arith.shrsi` / `shrui`.
    Shr,
    /// `arith.maxsi` / `maxui`.
    Max,
    /// `arith.minsi` / `minui`.
    Min,
}

impl BinOp {
    /// The rule for an `arith` op name.
    ///
    /// ```
    /// use linear_layout::ttgir::axisinfo::BinOp;
    /// assert_eq!(BinOp::from_arith("arith.addf"), None);
    /// ```
    pub fn from_arith(name: &str) -> Option<BinOp> {
        Some(match name.strip_prefix("arith.")? {
            "addi" => BinOp::Add,
            "subi" => BinOp::Sub,
            "muli" => BinOp::Mul,
            "divsi" | "divui" | "ceildivsi" | "floordivsi" | "ceildivui" => BinOp::Div,
            "remsi" | "remui" => BinOp::Rem,
            "andi" => BinOp::And,
            "ori" => BinOp::Or,
            "xori" => BinOp::Xor,
            "shli" => BinOp::Shl,
            "shrsi" | "shrui" => BinOp::Shr,
            "maxsi" | "maxui" => BinOp::Max,
            "minsi" | "minui" => BinOp::Min,
            _ => return None,
        })
    }

    fn fold(self, a: i64, b: i64) -> Option<i64> {
        Some(match self {
            BinOp::Add => a.wrapping_add(b),
            BinOp::Sub => a.wrapping_sub(b),
            BinOp::Mul => a.wrapping_mul(b),
            BinOp::Div => a.checked_div(b)?,
            BinOp::Rem => a.checked_rem(b)?,
            BinOp::And => a & b,
            BinOp::Or => a | b,
            BinOp::Xor => a ^ b,
            BinOp::Shl => a.checked_shl(u32::try_from(b).ok()?)?,
            BinOp::Shr => a.checked_shr(u32::try_from(b).ok()?)?,
            BinOp::Max => a.max(b),
            BinOp::Min => a.min(b),
        })
    }
}

/// Comparison predicates of `arith.cmpi`.
///
/// ```
/// use linear_layout::ttgir::axisinfo::CmpPred;
/// assert_eq!(CmpPred::parse("slt"), Some(CmpPred::Lt));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpPred {
    /// `eq`.
    Eq,
    /// `ne`.
    Ne,
    /// `slt` / `ult`.
    Lt,
    /// `sle` / `ule`.
    Le,
    /// `sgt` / `ugt`.
    Gt,
    /// `sge` / `uge`.
    Ge,
}

impl CmpPred {
    /// Parses an `arith.cmpi` predicate keyword.
    ///
    /// ```
    /// use linear_layout::ttgir::axisinfo::CmpPred;
    /// assert_eq!(CmpPred::parse("uge"), Some(CmpPred::Ge));
    /// ```
    pub fn parse(s: &str) -> Option<CmpPred> {
        Some(match s {
            "eq" => CmpPred::Eq,
            "ne" => CmpPred::Ne,
            "slt" | "ult" => CmpPred::Lt,
            "sle" | "ule" => CmpPred::Le,
            "sgt" | "ugt" => CmpPred::Gt,
            "sge" | "uge" => CmpPred::Ge,
            _ => return None,
        })
    }
}

/// Compiler hints on a function argument (`tt.divisibility`, `tt.contiguity`,
/// `tt.constancy`), per dimension; `None` keeps the default 1.
///
/// ```
/// use linear_layout::ttgir::axisinfo::{AxisInfo, Hints};
/// let h = Hints { divisibility: Some(vec![16, 16]), contiguity: Some(vec![1, 64]), constancy: None };
/// assert_eq!(AxisInfo::argument(2, &h).contiguity, vec![1, 64]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Hints {
    /// `tt.divisibility`.
    pub divisibility: Option<Vec<u64>>,
    /// `tt.contiguity`.
    pub contiguity: Option<Vec<u64>>,
    /// `tt.constancy`.
    pub constancy: Option<Vec<u64>>,
}

fn dim(shape: &[u64], i: usize) -> u64 {
    shape.get(i).copied().unwrap_or(1)
}

impl AxisInfo {
    /// All ones: what Triton assumes of a value it knows nothing about.
    ///
    /// ```
    /// use linear_layout::ttgir::axisinfo::AxisInfo;
    /// assert_eq!(AxisInfo::pessimistic(2).divisibility, vec![1, 1]);
    /// ```
    pub fn pessimistic(rank: usize) -> AxisInfo {
        AxisInfo {
            contiguity: vec![1; rank],
            divisibility: vec![1; rank],
            constancy: vec![1; rank],
            constant: None,
        }
    }

    /// The rank (number of dims; 1 for scalars).
    ///
    /// ```
    /// use linear_layout::ttgir::axisinfo::AxisInfo;
    /// assert_eq!(AxisInfo::scalar_constant(3).rank(), 1);
    /// ```
    pub fn rank(&self) -> usize {
        self.contiguity.len()
    }

    /// A function argument of `rank` dims with its hints.
    ///
    /// ```
    /// use linear_layout::ttgir::axisinfo::{AxisInfo, Hints};
    /// let h = Hints { divisibility: Some(vec![16]), ..Hints::default() };
    /// assert_eq!(AxisInfo::argument(1, &h).divisibility, vec![16]);
    /// ```
    pub fn argument(rank: usize, hints: &Hints) -> AxisInfo {
        let mut a = AxisInfo::pessimistic(rank);
        a.apply_hints(hints);
        a
    }

    fn apply_hints(&mut self, h: &Hints) {
        let r = self.rank();
        for (dst, src) in [
            (&mut self.contiguity, &h.contiguity),
            (&mut self.divisibility, &h.divisibility),
            (&mut self.constancy, &h.constancy),
        ] {
            if let Some(v) = src
                && v.len() == r
            {
                dst.clone_from(v);
            }
        }
    }

    /// A scalar integer constant: `(1, hp2(v), 1)` with the value.
    ///
    /// ```
    /// use linear_layout::ttgir::axisinfo::AxisInfo;
    /// assert_eq!(AxisInfo::scalar_constant(24).divisibility, vec![8]);
    /// ```
    pub fn scalar_constant(v: i64) -> AxisInfo {
        AxisInfo {
            contiguity: vec![1],
            divisibility: vec![hp2(v)],
            constancy: vec![1],
            constant: Some(v),
        }
    }

    /// A splat integer constant `dense<v>` of `shape`: constancy the whole shape.
    ///
    /// ```
    /// use linear_layout::ttgir::axisinfo::AxisInfo;
    /// assert_eq!(AxisInfo::dense_constant(64, &[64, 1]).constancy, vec![64, 1]);
    /// ```
    pub fn dense_constant(v: i64, shape: &[u64]) -> AxisInfo {
        if shape.is_empty() {
            return AxisInfo::scalar_constant(v);
        }
        AxisInfo {
            contiguity: vec![1; shape.len()],
            divisibility: vec![hp2(v); shape.len()],
            constancy: shape.to_vec(),
            constant: Some(v),
        }
    }

    /// `tt.make_range {start, end}`.
    ///
    /// ```
    /// use linear_layout::ttgir::axisinfo::AxisInfo;
    /// assert_eq!(AxisInfo::range(64, 128).divisibility, vec![64]);
    /// ```
    pub fn range(start: i64, end: i64) -> AxisInfo {
        AxisInfo {
            contiguity: vec![end.saturating_sub(start).max(1) as u64],
            divisibility: vec![hp2(start)],
            constancy: vec![1],
            constant: None,
        }
    }

    /// `tt.splat` of a scalar to `shape`.
    ///
    /// ```
    /// use linear_layout::ttgir::axisinfo::AxisInfo;
    /// let s = AxisInfo::scalar_constant(16).splat(&[8, 8]);
    /// assert_eq!((s.divisibility.clone(), s.constancy.clone()), (vec![16, 16], vec![8, 8]));
    /// ```
    pub fn splat(&self, shape: &[u64]) -> AxisInfo {
        let r = shape.len().max(1);
        AxisInfo {
            contiguity: vec![1; r],
            divisibility: vec![self.divisibility.first().copied().unwrap_or(1); r],
            constancy: if shape.is_empty() { vec![1] } else { shape.to_vec() },
            constant: self.constant,
        }
    }

    /// `tt.expand_dims` at `axis`.
    ///
    /// ```
    /// use linear_layout::ttgir::axisinfo::AxisInfo;
    /// let e = AxisInfo::range(0, 64).expand_dims(1)?;
    /// assert_eq!((e.contiguity.clone(), e.divisibility.clone()), (vec![64, 1], vec![1u64 << 62, 1]));
    /// # Ok::<(), linear_layout::ttgir::axisinfo::AxisError>(())
    /// ```
    pub fn expand_dims(&self, axis: usize) -> Result<AxisInfo, AxisError> {
        if axis > self.rank() {
            return Err(AxisError(format!(
                "expand_dims axis {axis} > rank {}",
                self.rank()
            )));
        }
        let nd = match self.constant {
            Some(v) => hp2(v),
            None => (0..self.rank())
                .map(|d| {
                    if self.contiguity[d] > 1 {
                        1
                    } else {
                        self.divisibility[d]
                    }
                })
                .reduce(gcd)
                .unwrap_or(1),
        };
        let mut out = self.clone();
        out.contiguity.insert(axis, 1);
        out.divisibility.insert(axis, nd);
        out.constancy.insert(axis, 1);
        Ok(out)
    }

    /// `tt.broadcast` from `in_shape` to `shape`: size-1 dims become constant.
    ///
    /// ```
    /// use linear_layout::ttgir::axisinfo::AxisInfo;
    /// let e = AxisInfo::range(0, 64).expand_dims(0)?.broadcast(&[1, 64], &[32, 64])?;
    /// assert_eq!((e.contiguity.clone(), e.constancy.clone()), (vec![1, 64], vec![32, 1]));
    /// # Ok::<(), linear_layout::ttgir::axisinfo::AxisError>(())
    /// ```
    pub fn broadcast(&self, in_shape: &[u64], shape: &[u64]) -> Result<AxisInfo, AxisError> {
        if in_shape.len() != shape.len() || shape.len() != self.rank() {
            return Err(AxisError("broadcast: rank mismatch".into()));
        }
        let mut out = self.clone();
        for d in 0..shape.len() {
            if in_shape[d] == 1 {
                out.contiguity[d] = 1;
                out.constancy[d] = shape[d];
            }
        }
        Ok(out)
    }

    /// The lattice join (values meeting at a loop header): per-dim gcd.
    ///
    /// ```
    /// use linear_layout::ttgir::axisinfo::AxisInfo;
    /// let j = AxisInfo::range(0, 64).join(&AxisInfo::range(64, 96));
    /// assert_eq!((j.contiguity[0], j.divisibility[0]), (32, 64));
    /// ```
    pub fn join(&self, other: &AxisInfo) -> AxisInfo {
        let z = |a: &[u64], b: &[u64]| a.iter().zip(b).map(|(&x, &y)| gcd(x, y)).collect();
        AxisInfo {
            contiguity: z(&self.contiguity, &other.contiguity),
            divisibility: z(&self.divisibility, &other.divisibility),
            constancy: z(&self.constancy, &other.constancy),
            constant: if self.constant == other.constant {
                self.constant
            } else {
                None
            },
        }
    }

    fn check_rank(&self, other: &AxisInfo) -> Result<usize, AxisError> {
        if self.rank() != other.rank() {
            return Err(AxisError(format!(
                "operand ranks differ ({} vs {})",
                self.rank(),
                other.rank()
            )));
        }
        Ok(self.rank())
    }

    /// `tt.addptr`: like `add`, the offset's divisibility scaled by the element size.
    ///
    /// ```
    /// use linear_layout::ttgir::axisinfo::AxisInfo;
    /// let p = AxisInfo::scalar_constant(0).splat(&[64]);
    /// let mut p = p; p.constant = None; p.divisibility = vec![16];
    /// let q = p.addptr(&AxisInfo::range(0, 64), 4, &[64])?;
    /// assert_eq!((q.contiguity[0], q.divisibility[0]), (64, 16));
    /// # Ok::<(), linear_layout::ttgir::axisinfo::AxisError>(())
    /// ```
    pub fn addptr(&self, offset: &AxisInfo, elem_bytes: u64, shape: &[u64]) -> Result<AxisInfo, AxisError> {
        self.binary_impl(BinOp::Add, offset, shape, elem_bytes.max(1))
    }

    /// An integer binary operation on values of `shape` (see the module docs for the rules).
    ///
    /// ```
    /// use linear_layout::ttgir::axisinfo::{AxisInfo, BinOp};
    /// let r = AxisInfo::range(0, 1024);
    /// let m = r.binary(BinOp::Rem, &AxisInfo::dense_constant(64, &[1024]), &[1024])?;
    /// assert_eq!(m.contiguity[0], 64);
    /// # Ok::<(), linear_layout::ttgir::axisinfo::AxisError>(())
    /// ```
    pub fn binary(&self, op: BinOp, rhs: &AxisInfo, shape: &[u64]) -> Result<AxisInfo, AxisError> {
        self.binary_impl(op, rhs, shape, 0)
    }

    /// `ptr_scale` = 0 for integer ops, element bytes for `addptr`.
    fn binary_impl(
        &self,
        op: BinOp,
        b: &AxisInfo,
        shape: &[u64],
        ptr_scale: u64,
    ) -> Result<AxisInfo, AxisError> {
        let a = self;
        let rank = a.check_rank(b)?;
        let is_ptr = ptr_scale > 0;
        let mut cv = match (a.constant, b.constant) {
            (Some(x), Some(y)) if is_ptr => Some(x.wrapping_add(y.wrapping_mul(ptr_scale as i64))),
            (Some(x), Some(y)) => op.fold(x, y),
            _ => None,
        };
        if op == BinOp::Rem && cv.is_none() && b.constant == Some(1) {
            cv = Some(0);
        }
        if matches!(op, BinOp::Max | BinOp::Min) && !is_ptr {
            if let (Some(_), Some(_)) = (a.constant, b.constant) {
                let mut p = AxisInfo::pessimistic(rank);
                p.constant = cv;
                return Ok(p);
            }
            let eff = |x: &AxisInfo, d: usize| if x.contiguity[d] > 1 { 1 } else { x.divisibility[d] };
            return Ok(AxisInfo {
                contiguity: (0..rank).map(|d| a.contiguity[d].min(b.contiguity[d])).collect(),
                divisibility: (0..rank).map(|d| eff(a, d).min(eff(b, d))).collect(),
                constancy: (0..rank).map(|d| a.constancy[d].min(b.constancy[d])).collect(),
                constant: None,
            });
        }
        let mut out = AxisInfo::pessimistic(rank);
        out.constant = cv;
        for i in 0..rank {
            let (ac, ad, ak) = (a.contiguity[i], a.divisibility[i], a.constancy[i]);
            let (bc, bd, bk) = (b.contiguity[i], b.divisibility[i], b.constancy[i]);
            let sd = dim(shape, i);
            if let Some(v) = cv {
                out.contiguity[i] = 1;
                out.constancy[i] = ak.max(bk);
                out.divisibility[i] = hp2(v);
                continue;
            }
            let (c, d, k) = match op {
                _ if is_ptr => (
                    gcd(ak, bc).max(gcd(ac, bk)),
                    gcd(ad, mul_sat(bd, ptr_scale)),
                    gcd(ak, bk),
                ),
                BinOp::Add => (gcd(ak, bc).max(gcd(ac, bk)), gcd(ad, bd), gcd(ak, bk)),
                BinOp::Sub => (gcd(ac, bk), gcd(ad, bd), gcd(ak, bk)),
                BinOp::Mul => {
                    let lc = if b.constant == Some(1) { ac } else { 1 };
                    let rc = if a.constant == Some(1) { bc } else { 1 };
                    let ld = if ac > 1 && b.constant != Some(1) { 1 } else { ad };
                    let rd = if bc > 1 && a.constant != Some(1) { 1 } else { bd };
                    (lc.max(rc), mul_sat(ld, rd), gcd(ak, bk))
                }
                BinOp::Div => {
                    let c = if b.constant == Some(1) { ac } else { 1 };
                    let mut k = gcd(ak, bk);
                    if ac == sd && bk == sd {
                        k = k.max(gcd(ac, gcd(ad, bd)));
                    }
                    let d = if a.constant == Some(0) || b.constant == Some(1) {
                        ad
                    } else {
                        1
                    };
                    (c, d, k)
                }
                BinOp::Rem => {
                    let mut c = 1;
                    if ac == sd && bk == sd {
                        c = c.max(gcd(ac, gcd(ad, bd)));
                    }
                    let k = if b.constant == Some(1) { sd } else { gcd(ak, bk) };
                    (c, gcd(ad, bd), k)
                }
                BinOp::And | BinOp::Or | BinOp::Xor => (1, 1, gcd(ak, bk)),
                BinOp::Shl => {
                    let sh = b.constant.unwrap_or(0);
                    let c = if b.constant == Some(0) { ac } else { 1 };
                    let ld = if ac > 1 && sh != 0 { 1 } else { ad };
                    let d = if (0..62).contains(&sh) {
                        mul_sat(ld, 1u64 << sh)
                    } else {
                        MAX_DIVISIBILITY
                    };
                    (c, d, gcd(ak, bk))
                }
                BinOp::Shr => {
                    let c = if b.constant == Some(0) { ac } else { 1 };
                    let d = match b.constant {
                        Some(s) if (0..63).contains(&s) => {
                            let ld = if ac > 1 && s != 0 { 1 } else { ad };
                            (ld >> s).max(1)
                        }
                        _ => 1,
                    };
                    (c, d, gcd(ak, bk))
                }
                BinOp::Max | BinOp::Min => (1, 1, 1),
            };
            out.contiguity[i] = c;
            out.divisibility[i] = d;
            out.constancy[i] = k;
        }
        Ok(out)
    }

    /// `arith.cmpi`: the mask's constancy (runs of equal bits).
    ///
    /// ```
    /// use linear_layout::ttgir::axisinfo::{AxisInfo, CmpPred};
    /// let n = AxisInfo::dense_constant(512, &[1024]);
    /// let m = AxisInfo::range(0, 1024).cmp(CmpPred::Lt, &n, &[1024])?;
    /// assert_eq!(m.constancy[0], 512);
    /// # Ok::<(), linear_layout::ttgir::axisinfo::AxisError>(())
    /// ```
    pub fn cmp(&self, pred: CmpPred, b: &AxisInfo, shape: &[u64]) -> Result<AxisInfo, AxisError> {
        let a = self;
        let rank = a.check_rank(b)?;
        let mut out = AxisInfo::pessimistic(rank);
        if let (Some(x), Some(y)) = (a.constant, b.constant) {
            out.constancy.clone_from(&a.constancy);
            let r = match pred {
                CmpPred::Eq => x == y,
                CmpPred::Ne => x != y,
                CmpPred::Lt => x < y,
                CmpPred::Le => x <= y,
                CmpPred::Gt => x > y,
                CmpPred::Ge => x >= y,
            };
            out.constant = Some(i64::from(r));
            return Ok(out);
        }
        for i in 0..rank {
            let sd = dim(shape, i);
            let mut k = gcd(a.constancy[i], b.constancy[i]);
            let dd = gcd(a.divisibility[i], b.divisibility[i]);
            match pred {
                CmpPred::Gt | CmpPred::Le if a.constancy[i] == sd => k = k.max(gcd(b.contiguity[i], dd)),
                CmpPred::Lt | CmpPred::Ge if b.constancy[i] == sd => k = k.max(gcd(a.contiguity[i], dd)),
                _ => {}
            }
            out.constancy[i] = k;
        }
        Ok(out)
    }

    /// `arith.select` with condition `cond`, which is a scalar `i1` (`scalar_cond`: the whole
    /// tensor comes from one side) or a tensor of `i1` (element by element). A constant
    /// condition picks its side. Otherwise contiguity and constancy are the per-dim minima of
    /// the sides, each first cut to the condition's constancy when it is a tensor; divisibility
    /// is the minimum of the sides' (Triton 3.6's rule, as the oracle shows it).
    ///
    /// ```
    /// use linear_layout::ttgir::axisinfo::{AxisInfo, CmpPred};
    /// let r = AxisInfo::range(0, 1024);
    /// let m = r.cmp(CmpPred::Lt, &AxisInfo::dense_constant(512, &[1024]), &[1024])?;
    /// let s = AxisInfo::select(&m, false, &r, &AxisInfo::range(1024, 2048))?;
    /// assert_eq!((s.contiguity[0], s.constancy[0]), (512, 1));
    /// // A scalar condition keeps whole runs: the common contiguity of both sides.
    /// let c = AxisInfo::pessimistic(1);
    /// assert_eq!(AxisInfo::select(&c, true, &r, &AxisInfo::range(1024, 2048))?.contiguity[0], 1024);
    /// # Ok::<(), linear_layout::ttgir::axisinfo::AxisError>(())
    /// ```
    pub fn select(
        cond: &AxisInfo,
        scalar_cond: bool,
        a: &AxisInfo,
        b: &AxisInfo,
    ) -> Result<AxisInfo, AxisError> {
        let rank = a.check_rank(b)?;
        if let Some(c) = cond.constant {
            return Ok(if c == 0 { b.clone() } else { a.clone() });
        }
        let constant = if a.constant == b.constant {
            a.constant
        } else {
            None
        };
        let cut = |x: u64, d: usize| {
            if scalar_cond {
                x
            } else {
                gcd(x, cond.constancy.get(d).copied().unwrap_or(1))
            }
        };
        Ok(AxisInfo {
            contiguity: (0..rank)
                .map(|d| cut(a.contiguity[d], d).min(cut(b.contiguity[d], d)))
                .collect(),
            divisibility: (0..rank)
                .map(|d| a.divisibility[d].min(b.divisibility[d]))
                .collect(),
            constancy: (0..rank)
                .map(|d| cut(a.constancy[d], d).min(cut(b.constancy[d], d)))
                .collect(),
            constant,
        })
    }

    /// The data loaded through `ptr` (with optional `mask`): constancy only.
    ///
    /// ```
    /// use linear_layout::ttgir::axisinfo::AxisInfo;
    /// let p = AxisInfo::scalar_constant(0).splat(&[64]);
    /// assert_eq!(AxisInfo::load(&p, None).constancy, vec![64]);
    /// ```
    pub fn load(ptr: &AxisInfo, mask: Option<&AxisInfo>) -> AxisInfo {
        let mut out = AxisInfo::pessimistic(ptr.rank());
        for i in 0..ptr.rank() {
            let mk = mask.and_then(|m| m.constancy.get(i).copied()).unwrap_or(0);
            out.constancy[i] = gcd(ptr.constancy[i], mk);
        }
        out
    }

    /// Alignment in elements along `dim` for `elem_bytes`-byte elements:
    /// `min(max(div / elem_bytes, 1), contiguity)`.
    ///
    /// ```
    /// use linear_layout::ttgir::axisinfo::AxisInfo;
    /// let mut a = AxisInfo::range(0, 64);
    /// a.divisibility = vec![4];
    /// assert_eq!(a.alignment(0, 2), 2);
    /// ```
    pub fn alignment(&self, dim: usize, elem_bytes: u64) -> u64 {
        let d = self.divisibility.get(dim).copied().unwrap_or(1);
        let c = self.contiguity.get(dim).copied().unwrap_or(1);
        (d / elem_bytes.max(1)).max(1).min(c)
    }
}
