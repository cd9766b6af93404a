//! Per-thread values that are linear over GF(2) in the thread id: addresses and lane indices.
//!
//! A layout maps (register, lane, warp) bits linearly to tensor bits, and a swizzled LDS layout
//! maps tensor bits linearly to offset bits, so every address a thread computes is
//!
//! ```text
//! address(tid) = constant  ⊕  ⨁_{k : bit k of tid is set} column_k
//! ```
//!
//! with `tid = warp · wave_size + lane` (lane bits low, warp bits above) and the register index
//! folded into `constant` (registers are unrolled, so their part is known when the code is
//! generated). An [`XorMap`] stores exactly that: one column per thread-id bit and a constant.
//!
//! # Worked example
//!
//! Lane bits 0 and 1 move the address by 16 and 32 bytes, lane bit 2 by 4 ⊕ 64 (a swizzle), and
//! register 3 of the thread adds the constant 8:
//!
//! ```
//! use linear_layout::lower::XorMap;
//! let a = XorMap { cols: vec![16, 32, 4 | 64], constant: 8 };
//! assert_eq!(a.eval(0b101), 8 ^ 16 ^ 4 ^ 64);
//! // Grouped by shift: tid bit 2 lands both on bit 2 (shift 0) and on bit 6 (shift 4, with
//! // bits 0 and 1).
//! let terms = a.terms();
//! assert_eq!(terms.iter().map(|t| (t.mask, t.shift)).collect::<Vec<_>>(),
//!            vec![(0b100, 0), (0b111, 4)]);
//! // The constant touches no bit the thread part can reach: it is added (folded into the
//! // instruction's immediate offset by LLVM), not XOR-ed.
//! assert!(a.constant_is_disjoint());
//! ```
//!
//! # How it becomes instructions
//!
//! [`terms`](XorMap::terms) groups the (thread bit `k` → address bit `j`) pairs by their shift
//! `j − k`; one term is `(tid & mask) << shift` (or `>>`). Terms whose bit ranges do not
//! overlap are combined with `or disjoint`, the others with `xor`, and the constant last (`or
//! disjoint` when it is [disjoint](XorMap::constant_is_disjoint), which LLVM folds into the
//! immediate `offset:` field of buffer and DS instructions). On AMDGPU an `and` followed by a
//! shift and an `or` is one `v_and_or_b32` or `v_lshl_or_b32`, an XOR of three terms one
//! `v_xor3_b32`: a swizzled address costs about one VALU instruction per shift group.

/// A per-thread value `constant ⊕ ⨁ cols[k]·tid_k` (see the module docs).
///
/// ```
/// use linear_layout::lower::XorMap;
/// let lane_times_4 = XorMap { cols: vec![4, 8, 16], constant: 0 };
/// assert_eq!(lane_times_4.eval(5), 20);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct XorMap {
    /// Column of each thread-id bit (lane bits first, then warp bits).
    pub cols: Vec<u64>,
    /// The part known at code-generation time.
    pub constant: u64,
}

/// One shift group of an [`XorMap`]: `(tid & mask) << shift` (a negative shift shifts right).
///
/// ```
/// use linear_layout::lower::ShiftTerm;
/// let t = ShiftTerm { mask: 0b110, shift: -1 };
/// assert_eq!(t.eval(0b111), 0b11);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ShiftTerm {
    /// Thread-id bits taking part.
    pub mask: u64,
    /// Left shift (negative: right shift).
    pub shift: i32,
}

impl ShiftTerm {
    /// The term's value for thread `tid`.
    ///
    /// ```
    /// use linear_layout::lower::ShiftTerm;
    /// assert_eq!(ShiftTerm { mask: 1, shift: 3 }.eval(1), 8);
    /// ```
    pub fn eval(&self, tid: u64) -> u64 {
        let x = tid & self.mask;
        let by = self.shift.unsigned_abs();
        if self.shift >= 0 {
            x.checked_shl(by).unwrap_or(0)
        } else {
            x.checked_shr(by).unwrap_or(0)
        }
    }

    /// The bits the term can set.
    ///
    /// ```
    /// use linear_layout::lower::ShiftTerm;
    /// assert_eq!(ShiftTerm { mask: 0b11, shift: 2 }.bits(), 0b1100);
    /// ```
    pub fn bits(&self) -> u64 {
        self.eval(self.mask)
    }
}

impl XorMap {
    /// A map that is the constant `c` for every thread.
    ///
    /// ```
    /// use linear_layout::lower::XorMap;
    /// assert_eq!(XorMap::constant(7, 6).eval(63), 7);
    /// ```
    pub fn constant(c: u64, thread_bits: usize) -> XorMap {
        XorMap {
            cols: vec![0; thread_bits],
            constant: c,
        }
    }

    /// The value for thread `tid`.
    ///
    /// ```
    /// use linear_layout::lower::XorMap;
    /// assert_eq!(XorMap { cols: vec![1, 2], constant: 4 }.eval(3), 7);
    /// ```
    pub fn eval(&self, tid: u64) -> u64 {
        self.cols
            .iter()
            .enumerate()
            .filter(|&(k, _)| k < 64 && tid >> k & 1 == 1)
            .fold(self.constant, |acc, (_, &c)| acc ^ c)
    }

    /// The values for threads `0..threads` (one XOR per thread, in Gray-code fashion).
    ///
    /// ```
    /// use linear_layout::lower::XorMap;
    /// let m = XorMap { cols: vec![3, 4], constant: 1 };
    /// assert_eq!(m.eval_all(4), vec![1, 2, 5, 6]);
    /// ```
    pub fn eval_all(&self, threads: usize) -> Vec<u64> {
        let mut out = Vec::with_capacity(threads);
        for t in 0..threads {
            let v = if t == 0 {
                self.constant
            } else {
                let low = t.trailing_zeros() as usize;
                out[t & (t - 1)] ^ self.cols.get(low).copied().unwrap_or(0)
            };
            out.push(v);
        }
        out
    }

    /// The bits the thread part can set (the OR of the columns).
    ///
    /// ```
    /// use linear_layout::lower::XorMap;
    /// assert_eq!(XorMap { cols: vec![1, 6], constant: 0 }.thread_bits(), 7);
    /// ```
    pub fn thread_bits(&self) -> u64 {
        self.cols.iter().fold(0, |a, &c| a | c)
    }

    /// Whether the constant shares no bit with the thread part (then XOR equals addition).
    ///
    /// ```
    /// use linear_layout::lower::XorMap;
    /// assert!(!XorMap { cols: vec![1], constant: 3 }.constant_is_disjoint());
    /// ```
    pub fn constant_is_disjoint(&self) -> bool {
        self.constant & self.thread_bits() == 0
    }

    /// The same map with every column and the constant shifted left by `bits` (a multiplication
    /// by `2^bits`, e.g. element offsets to byte offsets).
    ///
    /// ```
    /// use linear_layout::lower::XorMap;
    /// assert_eq!(XorMap { cols: vec![1], constant: 2 }.shifted(2), XorMap { cols: vec![4], constant: 8 });
    /// ```
    pub fn shifted(&self, bits: u32) -> XorMap {
        XorMap {
            cols: self
                .cols
                .iter()
                .map(|&c| c.checked_shl(bits).unwrap_or(0))
                .collect(),
            constant: self.constant.checked_shl(bits).unwrap_or(0),
        }
    }

    /// The thread part as shift groups, ordered by shift then mask (see the module docs).
    ///
    /// Law: `eval(tid) == constant ⊕ ⨁ terms[i].eval(tid)` for every `tid`.
    ///
    /// ```
    /// use linear_layout::lower::XorMap;
    /// let m = XorMap { cols: vec![2, 4, 1], constant: 0 };
    /// let t = m.terms();
    /// assert_eq!(t.len(), 2); // bits 0,1 shift up by 1; bit 2 shifts down by 2
    /// for tid in 0..8 {
    ///     assert_eq!(t.iter().fold(0, |a, t| a ^ t.eval(tid)), m.eval(tid));
    /// }
    /// ```
    pub fn terms(&self) -> Vec<ShiftTerm> {
        let mut groups: Vec<ShiftTerm> = Vec::new();
        for (k, &c) in self.cols.iter().enumerate().take(64) {
            let mut bits = c;
            while bits != 0 {
                let j = bits.trailing_zeros() as i32;
                bits &= bits - 1;
                let shift = j - k as i32;
                match groups.iter_mut().find(|g| g.shift == shift) {
                    Some(g) => g.mask |= 1u64 << k,
                    None => groups.push(ShiftTerm {
                        mask: 1u64 << k,
                        shift,
                    }),
                }
            }
        }
        groups.sort_by_key(|g| (g.shift, g.mask));
        groups
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::quickcheck;

    quickcheck! {
        /// Law: the shift groups XOR to the thread part.
        fn terms_reproduce_eval(cols: Vec<u16>, constant: u16, tid: u16) -> bool {
            let m = XorMap { cols: cols.iter().take(10).map(|&c| u64::from(c)).collect(), constant: u64::from(constant) };
            let tid = u64::from(tid) & 0x3ff;
            m.terms().iter().fold(m.constant, |a, t| a ^ t.eval(tid)) == m.eval(tid)
        }
    }
}
