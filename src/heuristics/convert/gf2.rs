//! Small GF(2) subspaces of `u64` vectors, for the bank and swizzle algebra.

/// A subspace, kept as an echelon basis indexed by pivot (highest set bit).
#[derive(Clone, Debug)]
pub(crate) struct Span {
    /// `rows[p]` is the basis vector with pivot `p`, or 0.
    rows: [u64; 64],
    dim: u32,
}

impl Span {
    pub(crate) fn new() -> Span {
        Span {
            rows: [0; 64],
            dim: 0,
        }
    }

    pub(crate) fn of(vs: impl IntoIterator<Item = u64>) -> Span {
        let mut s = Span::new();
        for v in vs {
            s.insert(v);
        }
        s
    }

    /// `v` reduced against the basis (0 iff `v` is in the span).
    #[inline]
    pub(crate) fn reduce(&self, mut v: u64) -> u64 {
        while v != 0 {
            let p = 63 - v.leading_zeros() as usize;
            let r = self.rows[p];
            if r == 0 {
                return v;
            }
            v ^= r;
        }
        0
    }

    /// The canonical representative of `v`'s coset (fully reduced).
    pub(crate) fn canonical(&self, mut v: u64) -> u64 {
        let mut bits = v;
        while bits != 0 {
            let p = 63 - bits.leading_zeros() as usize;
            bits &= !(1u64 << p);
            if v >> p & 1 == 1 && self.rows[p] != 0 {
                v ^= self.rows[p];
                bits = v & ((1u64 << p) - 1);
            }
        }
        v
    }

    #[inline]
    pub(crate) fn contains(&self, v: u64) -> bool {
        self.reduce(v) == 0
    }

    /// Adds `v`; returns whether the dimension grew.
    #[inline]
    pub(crate) fn insert(&mut self, v: u64) -> bool {
        let r = self.reduce(v);
        if r == 0 {
            return false;
        }
        self.rows[63 - r.leading_zeros() as usize] = r;
        self.dim += 1;
        true
    }

    pub(crate) fn dim(&self) -> u32 {
        self.dim
    }

    pub(crate) fn basis(&self) -> impl Iterator<Item = u64> + '_ {
        self.rows.iter().copied().filter(|&r| r != 0)
    }
}

/// `dim(span(a) ∩ span(b))`.
pub(crate) fn intersection_dim(a: &[u64], b: &[u64]) -> u32 {
    let sa = Span::of(a.iter().copied());
    let sb = Span::of(b.iter().copied());
    let mut sum = sa.clone();
    for v in sb.basis() {
        sum.insert(v);
    }
    sa.dim() + sb.dim() - sum.dim()
}

/// `dim(A) - rank(A restricted to the bits in mask)`: the dimension of `A ∩ {x : x & mask == 0}`.
pub(crate) fn kernel_dim_under_mask(a: &[u64], mask: u64) -> u32 {
    let full = Span::of(a.iter().copied());
    let proj = Span::of(full.basis().map(|v| v & mask));
    full.dim() - proj.dim()
}

/// Combines the vectors of `basis` selected by the bits of `x`.
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
