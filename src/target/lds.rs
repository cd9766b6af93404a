//! The LDS bank/phase model of a target: which lanes of a DS instruction are served together.
//!
//! A DS instruction is served in *phases*: groups of lanes that access LDS in the same cycle.
//! Over GF(2) the lanes of one phase are a coset of a linear subspace `V0` of the lane-id bits;
//! a [`PhaseRule`] lists a basis of `V0` as lane-id masks.

/// Direction of an LDS access.
///
/// ```
/// use linear_layout::target::LdsOp;
/// assert_ne!(LdsOp::Read, LdsOp::Write);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum LdsOp {
    /// `ds_read_*` / `ds_load_*`.
    Read,
    /// `ds_write_*` / `ds_store_*`.
    Write,
}

/// Which lanes of a DS instruction are served together, for one access width.
///
/// ```
/// use linear_layout::target::PhaseRule;
/// let r = PhaseRule { op: None, access_bits: 64, same_phase: &[1, 2, 4, 8] };
/// assert!(r.same_phase_lanes(3, 12, 64));
/// assert!(!r.same_phase_lanes(3, 19, 64));
/// assert_eq!(r.num_phases(64), 4);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct PhaseRule {
    /// `None`: reads and writes; otherwise only that direction.
    pub op: Option<LdsOp>,
    /// Bits per lane of the access (32, 64 or 128).
    pub access_bits: u32,
    /// Basis of the phase subspace `V0`, as lane-id masks.
    pub same_phase: &'static [u32],
}

impl PhaseRule {
    /// The span of `same_phase` restricted to lane ids below `lanes` (a power of two), as a
    /// reduced basis of lane-id masks.
    ///
    /// ```
    /// use linear_layout::target::PhaseRule;
    /// let r = PhaseRule { op: None, access_bits: 128, same_phase: &[1, 2, 20] };
    /// // In a 16-lane group, l2 ^ l4 does not exist: only lanes {0..3} share a phase.
    /// assert_eq!(r.basis_within(16), vec![1, 2]);
    /// ```
    pub fn basis_within(&self, lanes: u32) -> Vec<u32> {
        let mask = lanes.saturating_sub(1);
        // Gaussian elimination, eliminating the bits outside `mask` first (highest first).
        let mut rows: Vec<u32> = self.same_phase.to_vec();
        let mut out = Vec::new();
        let outside = !mask;
        // Reduce rows so that at most one row has each outside pivot; drop the pivot rows.
        let mut bit = 31i32;
        while bit >= 0 {
            let b = 1u32 << bit;
            if outside & b != 0
                && let Some(p) = rows.iter().position(|r| r & b != 0)
            {
                let pivot = rows.swap_remove(p);
                for r in rows.iter_mut() {
                    if *r & b != 0 {
                        *r ^= pivot;
                    }
                }
            }
            bit -= 1;
        }
        for r in rows {
            if r != 0 && r & outside == 0 {
                out.push(r);
            }
        }
        reduce_basis(&mut out);
        out
    }

    /// Whether lanes `a` and `b` of a `lanes`-wide group are served in the same phase.
    ///
    /// ```
    /// use linear_layout::target::PhaseRule;
    /// let r = PhaseRule { op: None, access_bits: 32, same_phase: &[1, 2, 4, 8, 16] };
    /// assert!(r.same_phase_lanes(0, 31, 64));
    /// assert!(!r.same_phase_lanes(0, 32, 64));
    /// ```
    pub fn same_phase_lanes(&self, a: u32, b: u32, lanes: u32) -> bool {
        in_span(&self.basis_within(lanes), a ^ b)
    }

    /// Number of phases of one instruction over `lanes` lanes.
    ///
    /// ```
    /// use linear_layout::target::PhaseRule;
    /// let r = PhaseRule { op: None, access_bits: 128, same_phase: &[1, 2, 20] };
    /// assert_eq!(r.num_phases(64), 8);
    /// ```
    pub fn num_phases(&self, lanes: u32) -> u32 {
        let dim = self.basis_within(lanes).len() as u32;
        (lanes.max(1).trailing_zeros())
            .saturating_sub(dim)
            .min(31)
            .pipe(|e| 1u32 << e)
    }
}

trait Pipe: Sized {
    fn pipe<R>(self, f: impl FnOnce(Self) -> R) -> R {
        f(self)
    }
}
impl Pipe for u32 {}

/// Reduces a list of GF(2) vectors to a reduced row-echelon basis (zeros dropped).
fn reduce_basis(v: &mut Vec<u32>) {
    let mut basis: Vec<u32> = Vec::new();
    for &x in v.iter() {
        let mut x = x;
        for &b in &basis {
            x = x.min(x ^ b);
        }
        if x != 0 {
            for b in basis.iter_mut() {
                if (*b ^ x) < *b {
                    *b ^= x;
                }
            }
            basis.push(x);
            basis.sort_unstable_by(|a, b| b.cmp(a));
        }
    }
    basis.sort_unstable();
    *v = basis;
}

fn in_span(basis: &[u32], x: u32) -> bool {
    let mut b = basis.to_vec();
    b.sort_unstable_by(|a, b| b.cmp(a));
    let mut x = x;
    for v in b {
        x = x.min(x ^ v);
    }
    x == 0
}

/// How the lanes of a DS instruction are grouped into phases.
///
/// ```
/// use linear_layout::target::{PhaseModel, Target};
/// assert!(matches!(Target::by_name("generic32")?.phases, PhaseModel::LayoutLanes));
/// assert!(matches!(Target::by_name("gfx950")?.phases, PhaseModel::Table(_)));
/// # Ok::<(), String>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum PhaseModel {
    /// Triton 3.6's generic model (Gluon's `bank_conflicts`): every lane of the layout, minus
    /// the top `log2(max(1, access_bits / 32))` lane bits, forms one phase.
    LayoutLanes,
    /// Measured per-width rules; the first rule matching (op, width) applies.
    Table(&'static [PhaseRule]),
}
