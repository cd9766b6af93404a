//! Workgroup-uniform integers: what every thread of a workgroup agrees on.
//!
//! A [`Uniform`] is a polynomial in [`UniformInput`]s — scalar arguments, the workgroup's id and
//! the grid, the slots of enclosing loops, and [`Derived`] uniforms (a quotient, a shift, a select, …) — such
//! as `pid · 64 · stride + k`. Offsets add one to every thread's address (the buffer
//! instructions' `soffset`), loops count with them, and a [`Condition`] compares two of them, so
//! branches and masks the whole workgroup agrees on cost scalar instructions only. A [`Launch`]
//! gives the inputs their values for one workgroup.

/// A count of elements fixed for the whole kernel: a constant, or a constant times a scalar
/// argument. It is what a global offset's strides (a row stride passed at run time) and bounds
/// (a tensor's size passed at run time) are.
///
/// ```
/// use linear_layout::lower::Extent;
/// assert_eq!(Extent::Elements(4).value(&[]), Some(4));
/// assert_eq!(Extent::Scalar { index: 0, times: 2 }.value(&[96]), Some(192));
/// assert_eq!(Extent::Scalar { index: 1, times: 1 }.value(&[96]), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extent {
    /// A constant.
    Elements(u64),
    /// `times ·` scalar argument `index` ([`Program::scalars`](super::Program::scalars)).
    Scalar {
        /// Index into [`Program::scalars`](super::Program::scalars).
        index: usize,
        /// The constant factor.
        times: u64,
    },
}

impl Extent {
    /// The count, given the scalar arguments' values (`None`: an argument is missing).
    ///
    /// ```
    /// use linear_layout::lower::Extent;
    /// assert_eq!(Extent::Elements(1).value(&[7]), Some(1));
    /// ```
    pub fn value(self, scalars: &[u64]) -> Option<u64> {
        match self {
            Extent::Elements(s) => Some(s),
            Extent::Scalar { index, times } => scalars.get(index).map(|&v| v.wrapping_mul(times)),
        }
    }

    /// The extent as a [`Uniform`] (`times ·` the argument, or the constant).
    ///
    /// ```
    /// use linear_layout::lower::{Extent, Uniform, UniformInput};
    /// let u = Extent::Scalar { index: 0, times: 4 }.uniform();
    /// assert_eq!(u, Uniform::input(UniformInput::Argument(0)).mul(&Uniform::constant(4)));
    /// assert_eq!(Extent::Elements(3).uniform().as_constant(), Some(3));
    /// ```
    pub fn uniform(self) -> Uniform {
        match self {
            Extent::Elements(k) => Uniform::constant(k as i64),
            Extent::Scalar { index, times } => {
                Uniform::input(UniformInput::Argument(index)).mul(&Uniform::constant(times as i64))
            }
        }
    }
}

/// What a workgroup-uniform integer is made of: a scalar argument, the workgroup's id or the
/// number of workgroups along an axis.
///
/// ```
/// use linear_layout::lower::{Launch, UniformInput};
/// let l = Launch { scalars: vec![96], workgroup: [3, 0, 0], grid: [8, 1, 1] };
/// assert_eq!(UniformInput::ProgramId(0).value(&l), Some(3));
/// assert_eq!(UniformInput::Argument(0).value(&l), Some(96));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UniformInput {
    /// Scalar argument `i` ([`Program::scalars`](super::Program::scalars)).
    Argument(usize),
    /// The workgroup's id along axis 0, 1 or 2 (`tt.get_program_id`).
    ProgramId(u8),
    /// Workgroups along axis 0, 1 or 2 (`tt.get_num_programs`).
    NumPrograms(u8),
    /// A uniform slot a loop carries ([`Op::Loop`](super::Op::Loop), [`Op::While`](super::Op::While)): its
    /// value in the current iteration (after the loop: its last value).
    Carried(u32),
    /// A uniform computed from others ([`Program::derived`](super::Program::derived)): a quotient, a select, ….
    Derived(u32),
}

impl UniformInput {
    /// Its value in `launch` (`None`: an argument or axis that does not exist).
    ///
    /// ```
    /// use linear_layout::lower::{Launch, UniformInput};
    /// assert_eq!(UniformInput::NumPrograms(1).value(&Launch::single(vec![])), Some(1));
    /// assert_eq!(UniformInput::ProgramId(3).value(&Launch::single(vec![])), None);
    /// ```
    pub fn value(self, launch: &Launch) -> Option<u64> {
        self.value_in(&Env::new(launch))
    }

    /// Its value in `env` (loop slots and derived uniforms too).
    pub(crate) fn value_in(self, env: &Env) -> Option<u64> {
        let launch = env.launch;
        match self {
            UniformInput::Argument(i) => launch.scalars.get(i).copied(),
            UniformInput::ProgramId(a) => launch.workgroup.get(a as usize).map(|&x| u64::from(x)),
            UniformInput::NumPrograms(a) => launch.grid.get(a as usize).map(|&x| u64::from(x)),
            UniformInput::Carried(k) => env.carried.get(k as usize).map(|&x| x as u64),
            UniformInput::Derived(k) => env.derived.get(k as usize)?.value_in(env).map(|x| x as u64),
        }
    }
}

/// What uniforms evaluate in: the launch, the loops' slots, the program's derived uniforms.
pub(crate) struct Env<'a> {
    pub(crate) launch: &'a Launch,
    pub(crate) carried: Vec<i64>,
    pub(crate) derived: &'a [Derived],
}

impl<'a> Env<'a> {
    pub(crate) fn new(launch: &'a Launch) -> Env<'a> {
        Env {
            launch,
            carried: Vec::new(),
            derived: &[],
        }
    }
}

/// A signed comparison of two uniforms.
///
/// ```
/// use linear_layout::lower::Cmp;
/// assert!(Cmp::Ge.holds(3, 3));
/// assert!(!Cmp::Lt.holds(3, 3));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cmp {
    /// `<`
    Lt,
    /// `≤`
    Le,
    /// `>`
    Gt,
    /// `≥`
    Ge,
    /// `=`
    Eq,
    /// `≠`
    Ne,
}

impl Cmp {
    /// Whether `a cmp b`.
    ///
    /// ```
    /// use linear_layout::lower::Cmp;
    /// assert!(Cmp::Ne.holds(1, 2));
    /// ```
    pub fn holds(self, a: i64, b: i64) -> bool {
        match self {
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
        }
    }

    /// The predicate of LLVM's `icmp` (signed).
    ///
    /// ```
    /// use linear_layout::lower::Cmp;
    /// assert_eq!(Cmp::Ge.llvm(), "sge");
    /// ```
    pub fn llvm(self) -> &'static str {
        match self {
            Cmp::Lt => "slt",
            Cmp::Le => "sle",
            Cmp::Gt => "sgt",
            Cmp::Ge => "sge",
            Cmp::Eq => "eq",
            Cmp::Ne => "ne",
        }
    }

    /// The comparison that holds exactly where this one fails (`¬(a < b)` is `a ≥ b`).
    ///
    /// ```
    /// use linear_layout::lower::Cmp;
    /// for cmp in [Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge, Cmp::Eq, Cmp::Ne] {
    ///     assert!((-2..3).all(|b| cmp.negated().holds(0, b) != cmp.holds(0, b)));
    /// }
    /// ```
    pub fn negated(self) -> Cmp {
        match self {
            Cmp::Lt => Cmp::Ge,
            Cmp::Le => Cmp::Gt,
            Cmp::Gt => Cmp::Le,
            Cmp::Ge => Cmp::Lt,
            Cmp::Eq => Cmp::Ne,
            Cmp::Ne => Cmp::Eq,
        }
    }
}

/// A condition the whole workgroup agrees on: `lhs cmp rhs`, in 32-bit signed arithmetic.
///
/// ```
/// use linear_layout::lower::{Cmp, Condition, Launch, Uniform, UniformInput};
/// let k_positive = Condition { lhs: Uniform::input(UniformInput::Argument(0)), cmp: Cmp::Gt, rhs: Uniform::constant(0) };
/// assert_eq!(k_positive.value(&Launch::single(vec![64])), Some(true));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Condition {
    /// Left side.
    pub lhs: Uniform,
    /// The comparison.
    pub cmp: Cmp,
    /// Right side.
    pub rhs: Uniform,
}

impl Condition {
    /// Whether it holds in `launch` (outside any loop).
    ///
    /// ```
    /// use linear_layout::lower::{Cmp, Condition, Launch, Uniform};
    /// let c = Condition { lhs: Uniform::constant(1), cmp: Cmp::Lt, rhs: Uniform::constant(0) };
    /// assert_eq!(c.value(&Launch::single(vec![])), Some(false));
    /// ```
    pub fn value(&self, launch: &Launch) -> Option<bool> {
        self.value_in(&Env::new(launch))
    }

    pub(crate) fn value_in(&self, env: &Env) -> Option<bool> {
        let (a, b) = (self.lhs.value_in(env)?, self.rhs.value_in(env)?);
        Some(self.cmp.holds(a as i32 as i64, b as i32 as i64))
    }

    /// The condition that holds exactly where this one fails.
    ///
    /// ```
    /// use linear_layout::lower::{Cmp, Condition, Launch, Uniform};
    /// let c = Condition { lhs: Uniform::constant(1), cmp: Cmp::Lt, rhs: Uniform::constant(0) };
    /// assert_eq!(c.negated().value(&Launch::single(vec![])), Some(true));
    /// ```
    pub fn negated(&self) -> Condition {
        Condition {
            cmp: self.cmp.negated(),
            ..self.clone()
        }
    }

    /// Every input it reads.
    pub(crate) fn inputs(&self) -> impl Iterator<Item = UniformInput> + '_ {
        self.lhs.inputs().chain(self.rhs.inputs())
    }
}

/// A binary operation on two 32-bit uniforms ([`Derived::Binary`]): what `arith` does to
/// scalars beyond the polynomial's sums and products. Signed forms read two's complement;
/// division and remainder round toward zero (`-7 / 2 = -3`, `-7 % 2 = -1`).
///
/// ```
/// use linear_layout::lower::UniformOp;
/// assert_eq!(UniformOp::DivS.apply(-7, 2), Some(-3));
/// assert_eq!(UniformOp::RemS.apply(-7, 2), Some(-1));
/// assert_eq!(UniformOp::DivU.apply(-1, 2), Some(0x7fff_ffff));
/// assert_eq!(UniformOp::DivS.apply(1, 0), None); // undefined
/// assert_eq!(UniformOp::parse("arith.maxui"), Some(UniformOp::MaxU));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UniformOp {
    /// `arith.divsi`: signed quotient.
    DivS,
    /// `arith.remsi`: signed remainder (the dividend's sign).
    RemS,
    /// `arith.ceildivsi`: signed quotient rounded up (`tl.cdiv`).
    CeilDivS,
    /// `arith.floordivsi`: signed quotient rounded down.
    FloorDivS,
    /// `arith.ceildivui`: unsigned quotient rounded up.
    CeilDivU,
    /// `arith.divui`: unsigned quotient.
    DivU,
    /// `arith.remui`: unsigned remainder.
    RemU,
    /// `arith.minsi`.
    MinS,
    /// `arith.maxsi`.
    MaxS,
    /// `arith.minui`.
    MinU,
    /// `arith.maxui`.
    MaxU,
    /// `arith.shli` (a shift by 32 or more is undefined).
    Shl,
    /// `arith.shrsi`: arithmetic right shift.
    ShrS,
    /// `arith.shrui`: logical right shift.
    ShrU,
    /// `arith.andi`.
    And,
    /// `arith.ori`.
    Or,
    /// `arith.xori`.
    Xor,
}

impl UniformOp {
    /// The operation an `arith` op name spells, if it is one of these.
    ///
    /// ```
    /// use linear_layout::lower::UniformOp;
    /// assert_eq!(UniformOp::parse("arith.remsi"), Some(UniformOp::RemS));
    /// assert_eq!(UniformOp::parse("arith.addi"), None); // a polynomial's sum
    /// ```
    pub fn parse(name: &str) -> Option<UniformOp> {
        Some(match name {
            "arith.divsi" => UniformOp::DivS,
            "arith.remsi" => UniformOp::RemS,
            "arith.ceildivsi" => UniformOp::CeilDivS,
            "arith.floordivsi" => UniformOp::FloorDivS,
            "arith.ceildivui" => UniformOp::CeilDivU,
            "arith.divui" => UniformOp::DivU,
            "arith.remui" => UniformOp::RemU,
            "arith.minsi" => UniformOp::MinS,
            "arith.maxsi" => UniformOp::MaxS,
            "arith.minui" => UniformOp::MinU,
            "arith.maxui" => UniformOp::MaxU,
            "arith.shli" => UniformOp::Shl,
            "arith.shrsi" => UniformOp::ShrS,
            "arith.shrui" => UniformOp::ShrU,
            "arith.andi" => UniformOp::And,
            "arith.ori" => UniformOp::Or,
            "arith.xori" => UniformOp::Xor,
            _ => return None,
        })
    }

    /// `a op b` in 32 bits, sign-extended (`None` where the result is undefined: a division
    /// by zero, `i32::MIN / -1`, a shift by 32 or more).
    ///
    /// ```
    /// use linear_layout::lower::UniformOp;
    /// assert_eq!(UniformOp::ShrS.apply(-8, 1), Some(-4));
    /// assert_eq!(UniformOp::ShrU.apply(-8, 28), Some(15));
    /// assert_eq!(UniformOp::Shl.apply(1, 32), None);
    /// assert_eq!(UniformOp::CeilDivS.apply(7, 2), Some(4));
    /// assert_eq!(UniformOp::CeilDivS.apply(-7, 2), Some(-3));
    /// assert_eq!(UniformOp::FloorDivS.apply(-7, 2), Some(-4));
    /// assert_eq!(UniformOp::CeilDivU.apply(7, 2), Some(4));
    /// ```
    pub fn apply(self, a: i64, b: i64) -> Option<i64> {
        let (x, y) = (a as i32, b as i32);
        let (ux, uy) = (x as u32, y as u32);
        let r: i32 = match self {
            UniformOp::DivS => x.checked_div(y)?,
            UniformOp::RemS => x.checked_rem(y)?,
            UniformOp::CeilDivS | UniformOp::FloorDivS => {
                let (q, r) = (x.checked_div(y)?, x.checked_rem(y)?);
                // The truncated quotient moves by one when the remainder is not zero and the
                // exact quotient lies on the side being rounded to.
                let positive = (r > 0) == (y > 0);
                match self {
                    UniformOp::CeilDivS if r != 0 && positive => q + 1,
                    UniformOp::FloorDivS if r != 0 && !positive => q - 1,
                    _ => q,
                }
            }
            UniformOp::CeilDivU => ux.checked_div(uy)?.wrapping_add(u32::from(ux % uy != 0)) as i32,
            UniformOp::DivU => ux.checked_div(uy)? as i32,
            UniformOp::RemU => ux.checked_rem(uy)? as i32,
            UniformOp::MinS => x.min(y),
            UniformOp::MaxS => x.max(y),
            UniformOp::MinU => ux.min(uy) as i32,
            UniformOp::MaxU => ux.max(uy) as i32,
            UniformOp::Shl => x.checked_shl(uy).filter(|_| uy < 32)?,
            UniformOp::ShrS => x.checked_shr(uy).filter(|_| uy < 32)?,
            UniformOp::ShrU => ux.checked_shr(uy).filter(|_| uy < 32)? as i32,
            UniformOp::And => x & y,
            UniformOp::Or => x | y,
            UniformOp::Xor => x ^ y,
        };
        Some(i64::from(r))
    }

    /// The LLVM instruction or intrinsic on `i32` (`sdiv`, `llvm.smin.i32`, …); `None` for
    /// the rounded divisions, which take several.
    pub(crate) fn llvm(self) -> Option<&'static str> {
        Some(match self {
            UniformOp::DivS => "sdiv",
            UniformOp::RemS => "srem",
            UniformOp::CeilDivS | UniformOp::FloorDivS | UniformOp::CeilDivU => return None,
            UniformOp::DivU => "udiv",
            UniformOp::RemU => "urem",
            UniformOp::MinS => "llvm.smin.i32",
            UniformOp::MaxS => "llvm.smax.i32",
            UniformOp::MinU => "llvm.umin.i32",
            UniformOp::MaxU => "llvm.umax.i32",
            UniformOp::Shl => "shl",
            UniformOp::ShrS => "ashr",
            UniformOp::ShrU => "lshr",
            UniformOp::And => "and",
            UniformOp::Or => "or",
            UniformOp::Xor => "xor",
        })
    }
}

/// A uniform computed from others ([`UniformInput::Derived`]).
///
/// ```
/// use linear_layout::lower::{Derived, Uniform, UniformOp};
/// let q = Derived::Binary { op: UniformOp::DivS, a: Uniform::constant(-7), b: Uniform::constant(2) };
/// assert!(matches!(q, Derived::Binary { op: UniformOp::DivS, .. }));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Derived {
    /// `a op b` in 32 bits (`arith.divsi`, `remsi`, `minui`, shifts, bitwise logic, …).
    Binary {
        /// The operation.
        op: UniformOp,
        /// Left operand.
        a: Uniform,
        /// Right operand.
        b: Uniform,
    },
    /// `cond ? then : otherwise` (`arith.select` of uniforms).
    Select {
        /// The condition.
        cond: Condition,
        /// Taken when it holds.
        then: Uniform,
        /// Taken otherwise.
        otherwise: Uniform,
    },
}

impl Derived {
    pub(crate) fn value_in(&self, env: &Env) -> Option<i64> {
        match self {
            Derived::Binary { op, a, b } => op.apply(a.value_in(env)?, b.value_in(env)?),
            Derived::Select {
                cond,
                then,
                otherwise,
            } => {
                if cond.value_in(env)? {
                    then.value_in(env)
                } else {
                    otherwise.value_in(env)
                }
            }
        }
    }

    /// Every input it reads.
    pub(crate) fn inputs(&self) -> Vec<UniformInput> {
        match self {
            Derived::Binary { a, b, .. } => a.inputs().chain(b.inputs()).collect(),
            Derived::Select {
                cond,
                then,
                otherwise,
            } => cond
                .inputs()
                .chain(then.inputs())
                .chain(otherwise.inputs())
                .collect(),
        }
    }
}

/// One workgroup's view of a launch: the scalar arguments, its id and the grid (workgroups per
/// axis).
///
/// ```
/// use linear_layout::lower::Launch;
/// let l = Launch::single(vec![7]);
/// assert_eq!((l.workgroup, l.grid), ([0; 3], [1; 3]));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// The scalar arguments' values ([`Program::scalars`](super::Program::scalars), in order).
    pub scalars: Vec<u64>,
    /// The workgroup's id per axis.
    pub workgroup: [u32; 3],
    /// Workgroups per axis.
    pub grid: [u32; 3],
}

impl Launch {
    /// Workgroup 0 of a grid of one.
    ///
    /// ```
    /// use linear_layout::lower::Launch;
    /// assert_eq!(Launch::single(vec![1, 2]).scalars, vec![1, 2]);
    /// ```
    pub fn single(scalars: Vec<u64>) -> Launch {
        Launch {
            scalars,
            workgroup: [0; 3],
            grid: [1; 3],
        }
    }
}

/// A workgroup-uniform integer: `Σ factor · Π inputs`, a polynomial in the [`UniformInput`]s
/// with wrapping 64-bit coefficients (the hardware computes it in 32 bits). Each term's inputs
/// are sorted, no two terms have the same inputs, and no factor is zero, so equal polynomials
/// compare equal.
///
/// ```
/// use linear_layout::lower::{Launch, Uniform, UniformInput};
/// // pid · 64 · stride + 5
/// let pid = Uniform::input(UniformInput::ProgramId(0));
/// let stride = Uniform::input(UniformInput::Argument(0));
/// let u = pid.mul(&Uniform::constant(64)).mul(&stride).add(&Uniform::constant(5), 1);
/// let l = Launch { scalars: vec![100], workgroup: [2, 0, 0], grid: [4, 1, 1] };
/// assert_eq!(u.value(&l), Some(2 * 64 * 100 + 5));
/// assert_eq!(u.add(&u, -1), Uniform::default());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Uniform {
    /// `(factor, inputs)` per term; a term without inputs is the constant.
    pub terms: Vec<(i64, Vec<UniformInput>)>,
}

impl Uniform {
    /// The constant `c`.
    ///
    /// ```
    /// use linear_layout::lower::Uniform;
    /// assert_eq!(Uniform::constant(3).as_constant(), Some(3));
    /// ```
    pub fn constant(c: i64) -> Uniform {
        Uniform::default().add_term(c, Vec::new())
    }

    /// One input.
    ///
    /// ```
    /// use linear_layout::lower::{Uniform, UniformInput};
    /// assert_eq!(Uniform::input(UniformInput::ProgramId(0)).as_constant(), None);
    /// ```
    pub fn input(x: UniformInput) -> Uniform {
        Uniform::default().add_term(1, vec![x])
    }

    fn add_term(mut self, factor: i64, mut inputs: Vec<UniformInput>) -> Uniform {
        inputs.sort();
        match self.terms.iter_mut().find(|(_, i)| *i == inputs) {
            Some(t) => t.0 = t.0.wrapping_add(factor),
            None => self.terms.push((factor, inputs)),
        }
        self.terms.retain(|t| t.0 != 0);
        self.terms.sort_by(|a, b| a.1.cmp(&b.1));
        self
    }

    /// `self + sign · o`.
    ///
    /// ```
    /// use linear_layout::lower::Uniform;
    /// assert_eq!(Uniform::constant(3).add(&Uniform::constant(1), -1), Uniform::constant(2));
    /// ```
    pub fn add(&self, o: &Uniform, sign: i64) -> Uniform {
        o.terms.iter().fold(self.clone(), |acc, (f, i)| {
            acc.add_term(f.wrapping_mul(sign), i.clone())
        })
    }

    /// The product.
    ///
    /// ```
    /// use linear_layout::lower::Uniform;
    /// assert_eq!(Uniform::constant(3).mul(&Uniform::constant(4)), Uniform::constant(12));
    /// ```
    pub fn mul(&self, o: &Uniform) -> Uniform {
        let mut out = Uniform::default();
        for (f, i) in &self.terms {
            for (g, j) in &o.terms {
                out = out.add_term(f.wrapping_mul(*g), i.iter().chain(j).copied().collect());
            }
        }
        out
    }

    /// Whether it is 0.
    ///
    /// ```
    /// use linear_layout::lower::Uniform;
    /// assert!(Uniform::constant(0).is_zero());
    /// ```
    pub fn is_zero(&self) -> bool {
        self.terms.is_empty()
    }

    /// Whether a term subtracts (a negative factor or constant): the sum may be negative
    /// though every input is a size, an index or a count.
    ///
    /// ```
    /// use linear_layout::lower::{Uniform, UniformInput};
    /// let stride = Uniform::input(UniformInput::Argument(0));
    /// assert!(!stride.mul(&Uniform::constant(3)).subtracts());
    /// assert!(stride.mul(&Uniform::constant(-3)).subtracts());
    /// ```
    pub fn subtracts(&self) -> bool {
        self.terms.iter().any(|&(factor, _)| factor < 0)
    }

    /// Its value when it reads no input.
    ///
    /// ```
    /// use linear_layout::lower::{Uniform, UniformInput};
    /// assert_eq!(Uniform::default().as_constant(), Some(0));
    /// assert_eq!(Uniform::input(UniformInput::Argument(0)).as_constant(), None);
    /// ```
    pub fn as_constant(&self) -> Option<i64> {
        match self.terms.as_slice() {
            [] => Some(0),
            [(c, i)] if i.is_empty() => Some(*c),
            _ => None,
        }
    }

    /// As an [`Extent`]: a non-negative constant, or a positive constant times one argument.
    ///
    /// ```
    /// use linear_layout::lower::{Extent, Uniform, UniformInput};
    /// let s = Uniform::input(UniformInput::Argument(1)).mul(&Uniform::constant(2));
    /// assert_eq!(s.extent(), Some(Extent::Scalar { index: 1, times: 2 }));
    /// assert_eq!(Uniform::constant(-1).extent(), None);
    /// ```
    pub fn extent(&self) -> Option<Extent> {
        if let Some(c) = self.as_constant() {
            return u64::try_from(c).ok().map(Extent::Elements);
        }
        match self.terms.as_slice() {
            [(f, i)] if *f > 0 => match i.as_slice() {
                [UniformInput::Argument(index)] => Some(Extent::Scalar {
                    index: *index,
                    times: *f as u64,
                }),
                _ => None,
            },
            _ => None,
        }
    }

    /// Its value in `launch`, wrapping (`None`: an input does not exist).
    ///
    /// ```
    /// use linear_layout::lower::{Launch, Uniform, UniformInput};
    /// let u = Uniform::input(UniformInput::Argument(0)).add(&Uniform::constant(-1), 1);
    /// assert_eq!(u.value(&Launch::single(vec![10])), Some(9));
    /// ```
    pub fn value(&self, launch: &Launch) -> Option<i64> {
        self.value_in(&Env::new(launch))
    }

    pub(crate) fn value_in(&self, env: &Env) -> Option<i64> {
        let mut sum = 0i64;
        for (f, inputs) in &self.terms {
            let mut t = *f;
            for x in inputs {
                t = t.wrapping_mul(x.value_in(env)? as i64);
            }
            sum = sum.wrapping_add(t);
        }
        Some(sum)
    }

    /// Every input it reads.
    pub(crate) fn inputs(&self) -> impl Iterator<Item = UniformInput> + '_ {
        self.terms.iter().flat_map(|(_, i)| i.iter().copied())
    }
}
