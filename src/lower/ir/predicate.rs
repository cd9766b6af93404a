//! The comparisons of [`Op::Compare`](super::Op::Compare): every `arith.cmpi` and `arith.cmpf`
//! predicate, and whether it holds of two numbers.

use crate::lower::error::LowerError;

/// A comparison of [`Op::Compare`](super::Op::Compare), spelled as `arith.cmpi` / `arith.cmpf` (and LLVM's
/// `icmp` / `fcmp`) spell it. `ult`, `ule`, `ugt` and `uge` are unsigned on integers and
/// "unordered or …" on floats, as in LLVM; `o…` predicates are false when an operand is NaN,
/// `u…` ones true.
///
/// ```
/// use linear_layout::lower::Predicate;
/// let p = Predicate::parse("slt")?;
/// assert!(p.holds_int(-1i64 as u64, 0, 32));
/// assert!(!Predicate::parse("ult")?.holds_int(-1i64 as u64, 0, 32));
/// assert!(Predicate::parse("une")?.holds_float(f64::NAN, 1.0));
/// assert!(!Predicate::parse("oeq")?.holds_float(f64::NAN, f64::NAN));
/// # Ok::<(), linear_layout::lower::LowerError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Predicate {
    /// Integers: equal.
    Eq,
    /// Integers: not equal.
    Ne,
    /// Integers: signed less than.
    Slt,
    /// Integers: signed at most.
    Sle,
    /// Integers: signed greater than.
    Sgt,
    /// Integers: signed at least.
    Sge,
    /// Integers: unsigned less than; floats: unordered or less than.
    Ult,
    /// Integers: unsigned at most; floats: unordered or at most.
    Ule,
    /// Integers: unsigned greater than; floats: unordered or greater than.
    Ugt,
    /// Integers: unsigned at least; floats: unordered or at least.
    Uge,
    /// Floats: never.
    False,
    /// Floats: ordered and equal.
    Oeq,
    /// Floats: ordered and greater than.
    Ogt,
    /// Floats: ordered and at least.
    Oge,
    /// Floats: ordered and less than.
    Olt,
    /// Floats: ordered and at most.
    Ole,
    /// Floats: ordered and not equal.
    One,
    /// Floats: neither is NaN.
    Ord,
    /// Floats: unordered or equal.
    Ueq,
    /// Floats: unordered or not equal.
    Une,
    /// Floats: either is NaN.
    Uno,
    /// Floats: always.
    True,
}

impl Predicate {
    /// Every predicate with its spelling.
    const SPELLINGS: [(Predicate, &'static str); 22] = [
        (Predicate::Eq, "eq"),
        (Predicate::Ne, "ne"),
        (Predicate::Slt, "slt"),
        (Predicate::Sle, "sle"),
        (Predicate::Sgt, "sgt"),
        (Predicate::Sge, "sge"),
        (Predicate::Ult, "ult"),
        (Predicate::Ule, "ule"),
        (Predicate::Ugt, "ugt"),
        (Predicate::Uge, "uge"),
        (Predicate::False, "false"),
        (Predicate::Oeq, "oeq"),
        (Predicate::Ogt, "ogt"),
        (Predicate::Oge, "oge"),
        (Predicate::Olt, "olt"),
        (Predicate::Ole, "ole"),
        (Predicate::One, "one"),
        (Predicate::Ord, "ord"),
        (Predicate::Ueq, "ueq"),
        (Predicate::Une, "une"),
        (Predicate::Uno, "uno"),
        (Predicate::True, "true"),
    ];

    /// The predicate spelled `name`.
    ///
    /// ```
    /// use linear_layout::lower::Predicate;
    /// assert_eq!(Predicate::parse("oge")?, Predicate::Oge);
    /// assert!(Predicate::parse("lt").is_err());
    /// # Ok::<(), linear_layout::lower::LowerError>(())
    /// ```
    pub fn parse(name: &str) -> Result<Predicate, LowerError> {
        Self::SPELLINGS
            .iter()
            .find(|(_, s)| *s == name)
            .map(|(p, _)| *p)
            .ok_or_else(|| LowerError::new(format!("unknown comparison predicate '{name}'")))
    }

    /// Its spelling (`icmp` / `fcmp` take the same).
    ///
    /// ```
    /// use linear_layout::lower::Predicate;
    /// assert_eq!(Predicate::Une.spelling(), "une");
    /// ```
    pub fn spelling(self) -> &'static str {
        Self::SPELLINGS
            .iter()
            .find(|(p, _)| *p == self)
            .map_or("", |(_, s)| s)
    }

    /// Whether it compares integers (`Eq` … `Uge`).
    ///
    /// ```
    /// use linear_layout::lower::Predicate;
    /// assert!(Predicate::Ugt.on_integers() && Predicate::Ugt.on_floats());
    /// assert!(!Predicate::Oeq.on_integers());
    /// ```
    pub fn on_integers(self) -> bool {
        matches!(self as u8, 0..=9)
    }

    /// Whether it compares floats (`Ult` … `True`).
    ///
    /// ```
    /// use linear_layout::lower::Predicate;
    /// assert!(!Predicate::Slt.on_floats());
    /// ```
    pub fn on_floats(self) -> bool {
        (self as u8) >= Predicate::Ult as u8
    }

    /// The comparison of two `bits`-wide integers.
    ///
    /// ```
    /// use linear_layout::lower::Predicate;
    /// assert!(Predicate::Uge.holds_int(0xff, 1, 8));
    /// assert!(!Predicate::Sge.holds_int(0xff, 1, 8)); // -1 < 1
    /// ```
    pub fn holds_int(self, a: u64, b: u64, bits: u32) -> bool {
        let bits = bits.clamp(1, 64);
        let m = if bits == 64 { u64::MAX } else { (1 << bits) - 1 };
        let (ua, ub) = (a & m, b & m);
        let sext = |x: u64| ((x << (64 - bits)) as i64) >> (64 - bits);
        let (sa, sb) = (sext(a), sext(b));
        match self {
            Predicate::Eq => ua == ub,
            Predicate::Ne => ua != ub,
            Predicate::Slt => sa < sb,
            Predicate::Sle => sa <= sb,
            Predicate::Sgt => sa > sb,
            Predicate::Sge => sa >= sb,
            Predicate::Ult => ua < ub,
            Predicate::Ule => ua <= ub,
            Predicate::Ugt => ua > ub,
            Predicate::Uge => ua >= ub,
            _ => false,
        }
    }

    /// The comparison of two floats.
    ///
    /// ```
    /// use linear_layout::lower::Predicate;
    /// assert!(Predicate::Ult.holds_float(f64::NAN, 0.0));
    /// assert!(!Predicate::Olt.holds_float(f64::NAN, 0.0));
    /// ```
    pub fn holds_float(self, a: f64, b: f64) -> bool {
        let unordered = a.is_nan() || b.is_nan();
        match self {
            Predicate::False => false,
            Predicate::True => true,
            Predicate::Ord => !unordered,
            Predicate::Uno => unordered,
            Predicate::Oeq => !unordered && a == b,
            Predicate::Ogt => !unordered && a > b,
            Predicate::Oge => !unordered && a >= b,
            Predicate::Olt => !unordered && a < b,
            Predicate::Ole => !unordered && a <= b,
            Predicate::One => !unordered && a != b,
            Predicate::Ueq => unordered || a == b,
            Predicate::Une => unordered || a != b,
            Predicate::Ult => unordered || a < b,
            Predicate::Ule => unordered || a <= b,
            Predicate::Ugt => unordered || a > b,
            Predicate::Uge => unordered || a >= b,
            _ => false,
        }
    }
}
