//! The matrix instructions' semantics: what one MFMA / WMMA call computes on one wave, element
//! by element, from the instruction's own lane layouts. The interpreter executes
//! [`Op::Mma`](super::Op::Mma) with it; planning which registers feed each call is
//! [`plan_dot`](crate::lower::mma::plan_dot)'s job, a later stage.
//!
//! # Worked example
//!
//! `v_mfma_f32_16x16x4f32` on a wave of 64 lanes: each lane holds one element of A (16×4) and
//! one of B (4×16), and four registers of C (16×16). With A all ones and B all twos, every
//! element of `D = C + A·B` is the sum over K = 4 of 1·2, that is 8 (see [`execute`]).

use crate::target::mma::{Basis, MmaInstruction};

/// The coordinate of a combination `x` of `bases`.
fn combine(bases: &[Basis], x: usize) -> [usize; 2] {
    bases
        .iter()
        .enumerate()
        .filter(|(b, _)| x >> b & 1 == 1)
        .fold([0, 0], |v, (_, s)| [v[0] ^ s[0] as usize, v[1] ^ s[1] as usize])
}

/// One call of `instr` on one wave, on values: `a[lane][element]`, `b[lane][element]` and
/// `c[lane][register]` as the instruction's lane layouts place them; returns `d[lane][register]`
/// = `C + A·B`. This is the reference the interpreter executes: each element's place comes
/// from the same bases the plan is made from ([`MmaInstruction::operand_bases`],
/// [`MmaInstruction::acc_bases`]), summed exactly (in `f64`; the tests use small integers).
///
/// ```
/// use linear_layout::lower::mma::execute;
/// use linear_layout::target::mma::MMA_INSTRUCTIONS;
/// let i = MMA_INSTRUCTIONS.iter().find(|i| i.intrinsic == "llvm.amdgcn.mfma.f32.16x16x4f32").unwrap();
/// // A = all ones (16×4), B = all twos (4×16), C = 0: every D element is 4 · 1 · 2.
/// let a = vec![vec![1.0]; 64];
/// let b = vec![vec![2.0]; 64];
/// let c = vec![vec![0.0; 4]; 64];
/// assert!(execute(i, &a, &b, &c).iter().flatten().all(|&d| d == 8.0));
/// ```
pub fn execute(instr: &MmaInstruction, a: &[Vec<f64>], b: &[Vec<f64>], c: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let (m, n, k) = (instr.m as usize, instr.n as usize, instr.k as usize);
    let (elems, lanes) = instr.operand_bases(instr.wave);
    let (regs, acc_lanes) = instr.acc_bases(instr.wave);
    let mut am = vec![vec![0.0; k]; m];
    let mut bm = vec![vec![0.0; n]; k];
    for (lane, (va, vb)) in a.iter().zip(b).enumerate() {
        let l = combine(&lanes, lane);
        for (e, (&x, &y)) in va.iter().zip(vb).enumerate() {
            let el = combine(&elems, e);
            let [row, kk] = [l[0] ^ el[0], l[1] ^ el[1]];
            if row < m && kk < k {
                am[row][kk] = x;
                bm[kk][row.min(n - 1)] = y;
            }
        }
    }
    c.iter()
        .enumerate()
        .map(|(lane, vc)| {
            let l = combine(&acc_lanes, lane);
            vc.iter()
                .enumerate()
                .map(|(r, &acc)| {
                    let rr = combine(&regs, r);
                    let [i, j] = [l[0] ^ rr[0], l[1] ^ rr[1]];
                    acc + (0..k).map(|kk| am[i % m][kk] * bm[kk][j % n]).sum::<f64>()
                })
                .collect()
        })
        .collect()
}
