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

use crate::ttgir::{Constant, Module, TypeKind, attr};

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

    /// `arith.select` with condition `cond` (a scalar condition takes per-dim minima).
    ///
    /// ```
    /// use linear_layout::ttgir::axisinfo::{AxisInfo, CmpPred};
    /// let r = AxisInfo::range(0, 1024);
    /// let m = r.cmp(CmpPred::Lt, &AxisInfo::dense_constant(512, &[1024]), &[1024])?;
    /// let s = AxisInfo::select(&m, &r, &AxisInfo::range(1024, 2048))?;
    /// assert_eq!((s.contiguity[0], s.divisibility[0]), (512, 512));
    /// # Ok::<(), linear_layout::ttgir::axisinfo::AxisError>(())
    /// ```
    pub fn select(cond: &AxisInfo, a: &AxisInfo, b: &AxisInfo) -> Result<AxisInfo, AxisError> {
        let rank = a.check_rank(b)?;
        if let Some(c) = cond.constant {
            return Ok(if c == 0 { b.clone() } else { a.clone() });
        }
        let constant = if a.constant == b.constant {
            a.constant
        } else {
            None
        };
        if cond.rank() != rank {
            // Scalar condition.
            return Ok(AxisInfo {
                contiguity: (0..rank).map(|d| a.contiguity[d].min(b.contiguity[d])).collect(),
                divisibility: (0..rank)
                    .map(|d| a.divisibility[d].min(b.divisibility[d]))
                    .collect(),
                constancy: (0..rank).map(|d| a.constancy[d].min(b.constancy[d])).collect(),
                constant,
            });
        }
        let mut out = AxisInfo::pessimistic(rank);
        out.constant = constant;
        for i in 0..rank {
            let ck = cond.constancy[i];
            let k = gcd(a.constancy[i], ck).min(gcd(b.constancy[i], ck));
            let c = gcd(a.contiguity[i], ck).min(gcd(b.contiguity[i], ck));
            let d = if c == a.contiguity[i] && c == b.contiguity[i] {
                gcd(a.divisibility[i], b.divisibility[i])
            } else {
                gcd(a.divisibility[i], c).min(gcd(b.divisibility[i], c))
            };
            out.contiguity[i] = c;
            out.divisibility[i] = d;
            out.constancy[i] = k;
        }
        Ok(out)
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

/// A pointer/index expression a caller builds from its own IR; [`Expr::axis_info`] runs
/// Triton's rules over it.
///
/// ```
/// use linear_layout::ttgir::axisinfo::{BinOp, Expr, Hints};
/// // Row-major 64×64 f32 tile: base + row * 64 + col.
/// let base = Expr::arg(&[], Hints { divisibility: Some(vec![16]), ..Hints::default() });
/// let rows = Expr::broadcast(Expr::binary(BinOp::Mul, Expr::expand_dims(Expr::range(0, 64), 1),
///                            Expr::constant(64, &[64, 1])), &[64, 64]);
/// let cols = Expr::broadcast(Expr::expand_dims(Expr::range(0, 64), 0), &[64, 64]);
/// let p = Expr::addptr(Expr::splat(base, &[64, 64]), Expr::binary(BinOp::Add, rows, cols), 4);
/// let ai = p.axis_info()?;
/// assert_eq!(ai.contiguity, vec![1, 64]);
/// // dim 0: rows start at multiples of 64 × 4 B, but the column offset's first value along
/// // dim 0 is only known to be divisible by 1 element: 4 B.
/// assert_eq!(ai.divisibility, vec![4, 16]);
/// # Ok::<(), linear_layout::ttgir::axisinfo::AxisError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    /// A function argument of `shape` (empty = scalar) with hints.
    Arg {
        /// Shape (empty for a scalar).
        shape: Vec<u64>,
        /// `tt.divisibility` etc.
        hints: Hints,
    },
    /// An integer constant (scalar if `shape` is empty, else a splat `dense<value>`).
    Const {
        /// The value.
        value: i64,
        /// Shape (empty for a scalar).
        shape: Vec<u64>,
    },
    /// `tt.make_range {start, end}`.
    Range {
        /// First value.
        start: i64,
        /// One past the last value.
        end: i64,
    },
    /// `tt.splat`.
    Splat(Box<Expr>, Vec<u64>),
    /// `tt.expand_dims` at an axis.
    ExpandDims(Box<Expr>, usize),
    /// `tt.broadcast` to a shape.
    Broadcast(Box<Expr>, Vec<u64>),
    /// `tt.reshape` to a shape (Triton 3.6 has no rule: conservative).
    Reshape(Box<Expr>, Vec<u64>),
    /// An integer binary op.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `tt.addptr` with the pointee size in bytes.
    AddPtr(Box<Expr>, Box<Expr>, u64),
    /// `arith.cmpi`.
    Cmp(CmpPred, Box<Expr>, Box<Expr>),
    /// `arith.select` (condition, true value, false value).
    Select(Box<Expr>, Box<Expr>, Box<Expr>),
    /// Value-preserving casts: `extsi`, `trunci`, `bitcast`, `convert_layout`.
    Cast(Box<Expr>),
    /// A value with no rule (loads' data, `get_program_id`, floats) of a shape.
    Opaque(Vec<u64>),
}

impl Expr {
    /// A function argument.
    ///
    /// ```
    /// use linear_layout::ttgir::axisinfo::{Expr, Hints};
    /// assert_eq!(Expr::arg(&[], Hints::default()).axis_info()?.divisibility, vec![1]);
    /// # Ok::<(), linear_layout::ttgir::axisinfo::AxisError>(())
    /// ```
    pub fn arg(shape: &[u64], hints: Hints) -> Expr {
        Expr::Arg {
            shape: shape.to_vec(),
            hints,
        }
    }

    /// An integer constant (`shape` empty = scalar).
    ///
    /// ```
    /// use linear_layout::ttgir::axisinfo::Expr;
    /// assert_eq!(Expr::constant(48, &[]).axis_info()?.divisibility, vec![16]);
    /// # Ok::<(), linear_layout::ttgir::axisinfo::AxisError>(())
    /// ```
    pub fn constant(value: i64, shape: &[u64]) -> Expr {
        Expr::Const {
            value,
            shape: shape.to_vec(),
        }
    }

    /// `tt.make_range`.
    ///
    /// ```
    /// use linear_layout::ttgir::axisinfo::Expr;
    /// assert_eq!(Expr::range(0, 128).shape(), vec![128]);
    /// ```
    pub fn range(start: i64, end: i64) -> Expr {
        Expr::Range { start, end }
    }

    /// `tt.splat`.
    ///
    /// ```
    /// use linear_layout::ttgir::axisinfo::Expr;
    /// assert_eq!(Expr::splat(Expr::constant(1, &[]), &[4, 4]).shape(), vec![4, 4]);
    /// ```
    pub fn splat(value: Expr, shape: &[u64]) -> Expr {
        Expr::Splat(Box::new(value), shape.to_vec())
    }

    /// `tt.expand_dims`.
    ///
    /// ```
    /// use linear_layout::ttgir::axisinfo::Expr;
    /// assert_eq!(Expr::expand_dims(Expr::range(0, 8), 0).shape(), vec![1, 8]);
    /// ```
    pub fn expand_dims(value: Expr, axis: usize) -> Expr {
        Expr::ExpandDims(Box::new(value), axis)
    }

    /// `tt.broadcast`.
    ///
    /// ```
    /// use linear_layout::ttgir::axisinfo::Expr;
    /// let b = Expr::broadcast(Expr::expand_dims(Expr::range(0, 8), 0), &[4, 8]);
    /// assert_eq!(b.axis_info()?.constancy, vec![4, 1]);
    /// # Ok::<(), linear_layout::ttgir::axisinfo::AxisError>(())
    /// ```
    pub fn broadcast(value: Expr, shape: &[u64]) -> Expr {
        Expr::Broadcast(Box::new(value), shape.to_vec())
    }

    /// An integer binary op.
    ///
    /// ```
    /// use linear_layout::ttgir::axisinfo::{BinOp, Expr};
    /// let e = Expr::binary(BinOp::Shl, Expr::range(0, 64), Expr::constant(2, &[64]));
    /// assert_eq!(e.axis_info()?.divisibility, vec![4]);
    /// # Ok::<(), linear_layout::ttgir::axisinfo::AxisError>(())
    /// ```
    pub fn binary(op: BinOp, lhs: Expr, rhs: Expr) -> Expr {
        Expr::Binary(op, Box::new(lhs), Box::new(rhs))
    }

    /// `tt.addptr` with the pointee size in bytes.
    ///
    /// ```
    /// use linear_layout::ttgir::axisinfo::{Expr, Hints};
    /// let p = Expr::addptr(Expr::splat(Expr::arg(&[], Hints::default()), &[8]), Expr::range(0, 8), 2);
    /// assert_eq!(p.axis_info()?.contiguity, vec![8]);
    /// # Ok::<(), linear_layout::ttgir::axisinfo::AxisError>(())
    /// ```
    pub fn addptr(ptr: Expr, offset: Expr, elem_bytes: u64) -> Expr {
        Expr::AddPtr(Box::new(ptr), Box::new(offset), elem_bytes)
    }

    /// The shape of the value (empty for scalars).
    ///
    /// ```
    /// use linear_layout::ttgir::axisinfo::{BinOp, Expr};
    /// assert_eq!(Expr::binary(BinOp::Add, Expr::range(0, 4), Expr::range(0, 4)).shape(), vec![4]);
    /// ```
    pub fn shape(&self) -> Vec<u64> {
        match self {
            Expr::Arg { shape, .. } | Expr::Const { shape, .. } | Expr::Opaque(shape) => shape.clone(),
            Expr::Range { start, end } => vec![end.saturating_sub(*start).max(0) as u64],
            Expr::Splat(_, s) | Expr::Broadcast(_, s) | Expr::Reshape(_, s) => s.clone(),
            Expr::ExpandDims(x, axis) => {
                let mut s = x.shape();
                if *axis <= s.len() {
                    s.insert(*axis, 1);
                }
                s
            }
            Expr::Binary(_, l, _) | Expr::AddPtr(l, _, _) | Expr::Cmp(_, l, _) => l.shape(),
            Expr::Select(_, a, _) => a.shape(),
            Expr::Cast(x) => x.shape(),
        }
    }

    /// Runs Triton 3.6's AxisInfo rules over the expression.
    ///
    /// ```
    /// use linear_layout::ttgir::axisinfo::{CmpPred, Expr};
    /// let m = Expr::Cmp(CmpPred::Lt, Box::new(Expr::range(0, 64)), Box::new(Expr::constant(16, &[64])));
    /// assert_eq!(m.axis_info()?.constancy, vec![16]);
    /// # Ok::<(), linear_layout::ttgir::axisinfo::AxisError>(())
    /// ```
    pub fn axis_info(&self) -> Result<AxisInfo, AxisError> {
        let shape = self.shape();
        Ok(match self {
            Expr::Arg { shape, hints } => AxisInfo::argument(shape.len().max(1), hints),
            Expr::Const { value, shape } => AxisInfo::dense_constant(*value, shape),
            Expr::Range { start, end } => AxisInfo::range(*start, *end),
            Expr::Splat(x, s) => x.axis_info()?.splat(s),
            Expr::ExpandDims(x, axis) => x.axis_info()?.expand_dims(*axis)?,
            Expr::Broadcast(x, s) => x.axis_info()?.broadcast(&x.shape(), s)?,
            Expr::Reshape(_, s) => AxisInfo::pessimistic(s.len().max(1)),
            Expr::Binary(op, l, r) => l.axis_info()?.binary(*op, &r.axis_info()?, &shape)?,
            Expr::AddPtr(p, o, b) => p.axis_info()?.addptr(&o.axis_info()?, *b, &shape)?,
            Expr::Cmp(p, l, r) => l.axis_info()?.cmp(*p, &r.axis_info()?, &shape)?,
            Expr::Select(c, a, b) => AxisInfo::select(&c.axis_info()?, &a.axis_info()?, &b.axis_info()?)?,
            Expr::Cast(x) => x.axis_info()?,
            Expr::Opaque(s) => AxisInfo::pessimistic(s.len().max(1)),
        })
    }
}

/// The argument hints of a parsed function argument.
fn arg_hints(attrs: &crate::ttgir::Attrs, rank: usize) -> Hints {
    let get = |n: &str| {
        attr(attrs, n)
            .and_then(|v| v.ints(rank))
            .map(|v| v.into_iter().map(|x| x.max(1) as u64).collect())
    };
    Hints {
        divisibility: get("tt.divisibility"),
        contiguity: get("tt.contiguity"),
        constancy: get("tt.constancy"),
    }
}

/// Runs AxisInfo over a whole parsed module: one entry per value (`None` for values without
/// an integer/pointer meaning, e.g. memdescs and tokens).
///
/// ```
/// use linear_layout::heuristics::{axisinfo, ttgir::Module};
/// let m = Module::parse("module {\n tt.func @f() {\n %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>\n tt.return\n }\n}")?;
/// let ai = axisinfo::analyze(&m);
/// assert_eq!(ai[0].as_ref().unwrap().contiguity, vec![64]);
/// # Ok::<(), linear_layout::ttgir::TtgirError>(())
/// ```
pub fn analyze(m: &Module) -> Vec<Option<AxisInfo>> {
    let mut out: Vec<Option<AxisInfo>> = vec![None; m.values.len()];
    for f in &m.funcs {
        for (k, &v) in f.args.iter().enumerate() {
            let ty = &m.values[v].ty;
            if matches!(ty.kind, TypeKind::Tensor | TypeKind::Scalar) {
                let rank = ty.rank();
                let hints = f.arg_attrs.get(k).map(|a| arg_hints(a, rank)).unwrap_or_default();
                out[v] = Some(AxisInfo::argument(rank, &hints));
            }
        }
        for &op in &f.body {
            eval_op(m, op, &mut out);
        }
    }
    out
}

fn get(out: &[Option<AxisInfo>], m: &Module, v: usize) -> AxisInfo {
    out.get(v)
        .cloned()
        .flatten()
        .unwrap_or_else(|| AxisInfo::pessimistic(m.values.get(v).map_or(1, |x| x.ty.rank())))
}

fn eval_op(m: &Module, oi: usize, out: &mut Vec<Option<AxisInfo>>) {
    let op = &m.ops[oi];
    if op.name == "scf.for" {
        eval_for(m, oi, out);
        return;
    }
    if !op.body.is_empty() {
        // Other region ops (`scf.if`, unknown ones): evaluate the bodies; `scf.if` results
        // join what its branches yield, anything else is conservative.
        for &b in &op.body {
            eval_op(m, b, out);
        }
        for (k, &r) in op.results.iter().enumerate() {
            let t = &m.values[r].ty;
            if !matches!(t.kind, TypeKind::Tensor | TypeKind::Scalar) {
                continue;
            }
            let mut acc: Option<AxisInfo> = None;
            if op.name == "scf.if" {
                for &b in &op.body {
                    let y = &m.ops[b];
                    if y.name == "scf.yield"
                        && let Some(&v) = y.operands.get(k)
                    {
                        let yv = get(out, m, v);
                        acc = Some(match acc {
                            Some(a) if a.rank() == yv.rank() => a.join(&yv),
                            Some(a) => a,
                            None => yv,
                        });
                    }
                }
            }
            out[r] = Some(
                acc.filter(|a| a.rank() == t.rank())
                    .unwrap_or_else(|| AxisInfo::pessimistic(t.rank())),
            );
        }
        return;
    }
    let Some(&res) = op.results.first() else {
        return;
    };
    let rty = &m.values[res].ty;
    if !matches!(rty.kind, TypeKind::Tensor | TypeKind::Scalar) {
        return;
    }
    let shape = rty.shape.clone();
    let rank = rty.rank();
    let o = |k: usize| op.operands.get(k).map(|&v| get(out, m, v));
    let pess = AxisInfo::pessimistic(rank);
    let is_int_like = |t: &str| t.starts_with('i') || t.starts_with("!tt.ptr") || t == "index";
    let r: Option<AxisInfo> = match op.name.as_str() {
        "arith.constant" => Some(match (&op.constant, is_int_like(&rty.element)) {
            (Some(Constant::Int(v)), true) => AxisInfo::dense_constant(*v, &shape),
            _ => pess.clone(),
        }),
        "tt.make_range" => {
            let s = attr(&op.attrs, "start")
                .and_then(|v| v.ints(1))
                .map_or(0, |v| v[0]);
            let e = attr(&op.attrs, "end").and_then(|v| v.ints(1)).map_or(1, |v| v[0]);
            Some(AxisInfo::range(s, e))
        }
        "tt.splat" => o(0).map(|a| a.splat(&shape)),
        "tt.expand_dims" => {
            let axis = attr(&op.attrs, "axis")
                .and_then(|v| v.ints(1))
                .map_or(0, |v| v[0].max(0) as usize);
            o(0).and_then(|a| a.expand_dims(axis).ok())
        }
        "tt.broadcast" => {
            let in_shape = op
                .operands
                .first()
                .map(|&v| m.values[v].ty.shape.clone())
                .unwrap_or_default();
            o(0).and_then(|a| a.broadcast(&in_shape, &shape).ok())
        }
        "arith.extsi" | "arith.extui" | "arith.trunci" | "arith.bitcast" | "arith.index_cast"
        | "arith.index_castui" | "ttg.convert_layout" | "tt.bitcast" => o(0).filter(|a| a.rank() == rank),
        "tt.addptr" => {
            let eb = u64::from(rty.pointee_bits().unwrap_or(8) / 8).max(1);
            match (o(0), o(1)) {
                (Some(a), Some(b)) => a.addptr(&b, eb, &shape).ok(),
                _ => None,
            }
        }
        "arith.cmpi" => {
            let pred = op.keyword.as_deref().and_then(CmpPred::parse);
            match (pred, o(0), o(1)) {
                (Some(p), Some(a), Some(b)) => a.cmp(p, &b, &shape).ok(),
                _ => None,
            }
        }
        "arith.select" => match (o(0), o(1), o(2)) {
            (Some(c), Some(a), Some(b)) => AxisInfo::select(&c, &a, &b).ok(),
            _ => None,
        },
        "tt.load" => o(0).map(|p| AxisInfo::load(&p, op.mask.and_then(o).as_ref())),
        name => match BinOp::from_arith(name) {
            Some(b) if is_int_like(&rty.element) => match (o(0), o(1)) {
                (Some(x), Some(y)) => x.binary(b, &y, &shape).ok(),
                _ => None,
            },
            _ => None,
        },
    };
    let mut r = r.unwrap_or(pess);
    // Discardable attributes on the op override the rule.
    let hints = arg_hints(&op.attrs, rank);
    r.apply_hints(&hints);
    if let Some(slot) = out.get_mut(res) {
        *slot = Some(r);
    }
    // Further results of multi-result ops: conservative.
    for &v in op.results.iter().skip(1) {
        let t = &m.values[v].ty;
        if matches!(t.kind, TypeKind::Tensor | TypeKind::Scalar) {
            out[v] = Some(AxisInfo::pessimistic(t.rank()));
        }
    }
}

fn eval_for(m: &Module, oi: usize, out: &mut Vec<Option<AxisInfo>>) {
    let op = &m.ops[oi];
    // Operands: lb, ub, step, inits…
    let lb = op.operands.first().map(|&v| get(out, m, v));
    let st = op.operands.get(2).map(|&v| get(out, m, v));
    if let Some(&iv) = op.block_args.first() {
        let d = match (lb, st) {
            (Some(a), Some(b)) => gcd(a.divisibility[0], b.divisibility[0]),
            _ => 1,
        };
        out[iv] = Some(AxisInfo {
            contiguity: vec![1],
            divisibility: vec![d],
            constancy: vec![1],
            constant: None,
        });
    }
    let inits: Vec<usize> = op.operands.iter().skip(3).copied().collect();
    let carried: Vec<usize> = op.block_args.iter().skip(1).copied().collect();
    let mut cur: Vec<AxisInfo> = inits.iter().map(|&v| get(out, m, v)).collect();
    let yield_op = op.body.iter().copied().find(|&b| m.ops[b].name == "scf.yield");
    for _ in 0..64 {
        for (k, &ba) in carried.iter().enumerate() {
            if let Some(c) = cur.get(k) {
                out[ba] = Some(c.clone());
            }
        }
        for &b in &op.body {
            eval_op(m, b, out);
        }
        let Some(y) = yield_op else { break };
        let next: Vec<AxisInfo> = cur
            .iter()
            .enumerate()
            .map(|(k, c)| match m.ops[y].operands.get(k) {
                Some(&v) => {
                    let yv = get(out, m, v);
                    if yv.rank() == c.rank() {
                        c.join(&yv)
                    } else {
                        c.clone()
                    }
                }
                None => c.clone(),
            })
            .collect();
        if next == cur {
            break;
        }
        cur = next;
    }
    for (k, &r) in op.results.iter().enumerate() {
        if let Some(c) = cur.get(k) {
            out[r] = Some(c.clone());
        }
    }
}
