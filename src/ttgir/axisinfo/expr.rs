//! Expressions a caller builds from its own IR, and Triton's rules run over them.

use super::{AxisError, AxisInfo, BinOp, CmpPred, Hints};

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
            Expr::Select(c, a, b) => AxisInfo::select(
                &c.axis_info()?,
                c.shape().is_empty(),
                &a.axis_info()?,
                &b.axis_info()?,
            )?,
            Expr::Cast(x) => x.axis_info()?,
            Expr::Opaque(s) => AxisInfo::pessimistic(s.len().max(1)),
        })
    }
}
