//! Gaussian elimination over GF(2) for at most 64 rows.
//!
//! A layout's matrix has one column per input bit and one row per output bit, both at most 64,
//! so a column is one `u64` and a set of columns is one `u64` mask. [`Echelon`] inserts columns
//! one at a time, in the canonical column order, and keeps for every pivot (indexed by its
//! highest set row bit) the combination of inserted columns that produced it.
//!
//! That single structure answers every question the core asks of a matrix:
//! * the rank (number of pivots);
//! * the *pivot columns*: column `j` is a pivot iff it is not in the span of columns `0..j`;
//!   the others are free variables ([`free_variable_masks`](crate::linear::LinearLayout::free_variable_masks));
//! * the solution of `A·x = t` that uses pivot columns only — the unique such solution, and the
//!   numerically smallest preimage of `t` when the input bits are read as one integer. This is
//!   exactly the solution Triton's `invertAndCompose` picks (free variables set to zero).
//!
//! Worked example: columns `c0 = 0b01`, `c1 = 0b01`, `c2 = 0b10`. Inserting them in order gives
//! pivots `c0` and `c2`; `c1` is free (it equals `c0`). Solving for `t = 0b11` gives the
//! combination `{c0, c2}` = `0b101`.
//!
//! The combination masks are indexed by column number, so nothing here needs the `[A | B]`
//! packing into one 64-bit row that limits Triton 3.6 to 64 combined columns.

/// An incremental row-echelon basis of GF(2) column vectors of up to 64 bits.
#[derive(Clone)]
pub(crate) struct Echelon {
    /// `vectors[b]` has highest set bit `b` (valid when bit `b` of `present` is set).
    vectors: [u64; 64],
    /// `combos[b]`: the inserted columns (bit `j` = column `j`) whose XOR is `vectors[b]`.
    combos: [u64; 64],
    present: u64,
}

impl Echelon {
    pub(crate) fn new() -> Self {
        Echelon {
            vectors: [0; 64],
            combos: [0; 64],
            present: 0,
        }
    }

    /// The span of `vectors`, without recording which of them combine to what (for subspace
    /// questions: membership, dimension, canonical representatives).
    pub(crate) fn spanning(vectors: impl IntoIterator<Item = u64>) -> Self {
        let mut e = Echelon::new();
        for v in vectors {
            e.extend_span(v);
        }
        e
    }

    /// Adds `v` to the span; returns whether the dimension grew.
    pub(crate) fn extend_span(&mut self, v: u64) -> bool {
        self.insert_with(v, 0)
    }

    /// Whether `v` lies in the span.
    pub(crate) fn contains(&self, v: u64) -> bool {
        self.project(v).1 == 0
    }

    /// The canonical representative of `v`'s coset: `v` fully reduced against the span
    /// (equal for two vectors exactly when they differ by a vector of the span).
    pub(crate) fn canonical(&self, v: u64) -> u64 {
        self.project(v).1
    }

    /// A basis of the span.
    pub(crate) fn basis(&self) -> impl Iterator<Item = u64> + '_ {
        (0..64)
            .filter(|&b| self.present >> b & 1 == 1)
            .map(|b| self.vectors[b])
    }

    /// Inserts `column` as column number `index` (< 64). Returns whether it was independent of
    /// every column inserted before it (i.e. whether it is a pivot column).
    pub(crate) fn insert(&mut self, column: u64, index: u32) -> bool {
        self.insert_with(column, 1u64.checked_shl(index).unwrap_or(0))
    }

    fn insert_with(&mut self, column: u64, combo: u64) -> bool {
        let mut v = column;
        let mut combo = combo;
        while v != 0 {
            let b = 63 - v.leading_zeros();
            if self.present >> b & 1 == 0 {
                self.vectors[b as usize] = v;
                self.combos[b as usize] = combo;
                self.present |= 1 << b;
                return true;
            }
            v ^= self.vectors[b as usize];
            combo ^= self.combos[b as usize];
        }
        false
    }

    /// The rank of the inserted columns.
    pub(crate) fn rank(&self) -> u32 {
        self.present.count_ones()
    }

    /// The pivot-column combination whose XOR is `target`, or `None` if `target` is not in the
    /// span of the inserted columns.
    pub(crate) fn solve(&self, target: u64) -> Option<u64> {
        let (combo, residual) = self.project(target);
        (residual == 0).then_some(combo)
    }

    /// Splits `target` into a part in the span and a part in the complement spanned by the unit
    /// vectors of the rows that lead no pivot. Returns the combination solving the span part,
    /// and the complement part. This is a linear map of `target`.
    pub(crate) fn project(&self, target: u64) -> (u64, u64) {
        let mut v = target;
        let mut combo = 0u64;
        let mut residual = 0u64;
        while v != 0 {
            let b = 63 - v.leading_zeros();
            if self.present >> b & 1 == 0 {
                residual |= 1 << b;
                v ^= 1 << b;
            } else {
                v ^= self.vectors[b as usize];
                combo ^= self.combos[b as usize];
            }
        }
        (combo, residual)
    }
}

/// `dim(span(a) ∩ span(b)) = dim A + dim B − dim(A + B)`.
pub(crate) fn intersection_dim(a: &[u64], b: &[u64]) -> u32 {
    let sa = Echelon::spanning(a.iter().copied());
    let sb = Echelon::spanning(b.iter().copied());
    let mut sum = sa.clone();
    for v in sb.basis() {
        sum.extend_span(v);
    }
    sa.rank() + sb.rank() - sum.rank()
}

/// The dimension of `span(a) ∩ {x : x & mask == 0}`: `dim A` minus the rank of `A` restricted
/// to the bits of `mask`.
pub(crate) fn kernel_dim_under_mask(a: &[u64], mask: u64) -> u32 {
    let full = Echelon::spanning(a.iter().copied());
    let restricted = Echelon::spanning(full.basis().map(|v| v & mask));
    full.rank() - restricted.rank()
}

/// The XOR of the vectors of `basis` selected by the bits of `x`.
#[inline]
pub(crate) fn combine(basis: &[u64], mut x: u64) -> u64 {
    let mut acc = 0;
    while x != 0 {
        let i = x.trailing_zeros() as usize;
        if let Some(b) = basis.get(i) {
            acc ^= b;
        }
        x &= x - 1;
    }
    acc
}

/// The rank of a set of columns.
pub(crate) fn rank(columns: &[u64]) -> u32 {
    let mut e = Echelon::new();
    for (j, &c) in columns.iter().enumerate() {
        e.insert(c, j as u32);
    }
    e.rank()
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::quickcheck;

    #[test]
    fn worked_example_from_module_docs() {
        let mut e = Echelon::new();
        assert!(e.insert(0b01, 0));
        assert!(!e.insert(0b01, 1));
        assert!(e.insert(0b10, 2));
        assert_eq!(e.rank(), 2);
        assert_eq!(e.solve(0b11), Some(0b101));
        assert_eq!(e.solve(0b100), None);
    }

    fn apply(columns: &[u64], combo: u64) -> u64 {
        columns
            .iter()
            .enumerate()
            .filter(|(j, _)| combo >> j & 1 == 1)
            .fold(0, |acc, (_, c)| acc ^ c)
    }

    /// Law: dim(A ∩ B) = dim A + dim B − dim(A + B), checked against enumeration.
    #[test]
    fn intersection_matches_enumeration() {
        let a = [0b0011u64, 0b0101, 0b1000];
        let b = [0b0110u64, 0b1001];
        let set = |v: &[u64]| -> Vec<u64> {
            let mut out: Vec<u64> = (0..1u64 << v.len()).map(|x| combine(v, x)).collect();
            out.sort_unstable();
            out.dedup();
            out
        };
        let sa = set(&a);
        let common = set(&b).into_iter().filter(|x| sa.contains(x)).count();
        assert_eq!(1usize << intersection_dim(&a, &b), common);
    }

    quickcheck! {
        /// Law: a solution maps back to its target, and every target in the span is solved.
        fn solve_inverts_apply(cols: Vec<u64>, pick: u64) -> bool {
            let cols: Vec<u64> = cols.into_iter().take(64).collect();
            let mut e = Echelon::new();
            for (j, &c) in cols.iter().enumerate() { e.insert(c, j as u32); }
            let mask = if cols.len() == 64 { u64::MAX } else { (1u64 << cols.len()) - 1 };
            let target = apply(&cols, pick & mask);
            match e.solve(target) {
                Some(combo) => apply(&cols, combo) == target,
                None => false,
            }
        }

        /// Law: the solution is the numerically smallest preimage.
        fn solution_is_smallest_preimage(cols: Vec<u8>, pick: u16) -> bool {
            let cols: Vec<u64> = cols.into_iter().take(10).map(|c| c as u64 & 0x1f).collect();
            let mut e = Echelon::new();
            for (j, &c) in cols.iter().enumerate() { e.insert(c, j as u32); }
            let n = cols.len();
            let target = apply(&cols, pick as u64 & ((1 << n) - 1));
            let smallest = (0u64..1 << n).find(|&x| apply(&cols, x) == target);
            e.solve(target) == smallest
        }

        /// Law: project is linear and its residual is zero exactly on the span.
        fn project_is_linear(cols: Vec<u64>, a: u64, b: u64) -> bool {
            let cols: Vec<u64> = cols.into_iter().take(64).map(|c| c & 0xffff).collect();
            let mut e = Echelon::new();
            for (j, &c) in cols.iter().enumerate() { e.insert(c, j as u32); }
            let (ca, ra) = e.project(a);
            let (cb, rb) = e.project(b);
            let (cab, rab) = e.project(a ^ b);
            cab == ca ^ cb && rab == ra ^ rb && apply(&cols, ca) ^ ra == a
        }
    }
}
