//! `tt.dot` without a matrix instruction: multiply-adds in each thread's registers.
//!
//! Where no MFMA / WMMA instruction fits (f32 operands on RDNA, shapes below an instruction's
//! tile), Triton keeps the result in a blocked layout and the operands in `#ttg.dot_op`
//! layouts whose parent is that blocked layout. Such an operand layout gives each thread the
//! whole K extent of the rows (A) or columns (B) its result elements need, so every element
//! of `C = A·B + C₀` is a chain of fused multiply-adds over K, in the thread:
//! `c ← fma(a[m][k], b[k][n], c)` for `k = 0, 1, …` — the order Triton's FMA lowering uses, so
//! float results agree bit for bit.
//!
//! Which register of A holds `a[m][k]`? Every layout here is linear: register `r` of thread
//! `t` holds the element at `R(r) ⊕ T(t)` (register part, thread part). The thread parts must
//! agree — the thread that holds `c[m][n]` holds `a[m][·]` and `b[·][n]`: A's thread columns
//! move `m` as C's do and never `k`, B's move `n` as C's do — and then the register holding
//! `a[m][k]` is the one whose register part is `(m, k)` with `m` taken from thread 0's view of
//! C. Layouts that do not agree so are refused (the data would have to move between threads
//! first).
//!
//! # Worked example
//!
//! A 32×32 f32 result in `blocked<{sizePerThread = [2, 2], threadsPerWarp = [2, 16],
//! warpsPerCTA = [4, 1]}>` with K = 16: each of the 128 threads holds 4 results, 2 rows of A
//! (32 registers) and 2 columns of B (32 registers), and makes 4 · 16 = 64 `v_fma_f32`.

use crate::linear::LinearLayout;
use crate::lower::error::LowerError;
use crate::lower::ir::{ArithOp, Op, Program, Value};
use crate::lower::plan::dist::Dist;
use std::collections::HashMap;

/// The registers of `C = A·B + C₀` (`c0`: the accumulator's registers, or zero) for operands
/// `a`, `b` in registers of layouts `la`, `lb` (`[M, K]`, `[K, N]`) and the result layout
/// `lc` (`[M, N]`), all of element type `ty`.
pub(crate) fn fma_dot(
    p: &mut Program,
    (la, a): (&LinearLayout, &[Value]),
    (lb, b): (&LinearLayout, &[Value]),
    lc: &LinearLayout,
    c0: Option<&[Value]>,
    ty: &'static str,
    wave_size: u32,
) -> Result<Vec<Value>, LowerError> {
    let (da, db, dc) = (
        Dist::of(la, wave_size)?,
        Dist::of(lb, wave_size)?,
        Dist::of(lc, wave_size)?,
    );
    if [&da, &db, &dc].iter().any(|d| d.dim_bits.len() != 2) {
        return Err(LowerError::new(
            "a dot without matrix instructions is of rank-2 tensors",
        ));
    }
    let (m_bits, k_bits, n_bits) = (dc.dim_bits[0], da.dim_bits[1], dc.dim_bits[1]);
    if da.dim_bits[0] != m_bits || db.dim_bits != [k_bits, n_bits] {
        return Err(LowerError::new(
            "the operands' shapes do not multiply to the result's",
        ));
    }
    if a.len() != da.registers() || b.len() != db.registers() || c0.is_some_and(|c| c.len() != dc.registers())
    {
        return Err(LowerError::new(
            "the operands' registers do not match their layouts",
        ));
    }
    // Positions are flat: dim0 in the low bits.
    let (m_mask, n_of) = ((1u64 << m_bits) - 1, |flat: u64| flat >> m_bits);
    let threads_agree = da.thread.len() == dc.thread.len()
        && db.thread.len() == dc.thread.len()
        && dc
            .thread
            .iter()
            .zip(&da.thread)
            .zip(&db.thread)
            .all(|((&c, &ta), &tb)| ta == (c & m_mask) && tb == n_of(c) << k_bits);
    if !threads_agree {
        return Err(LowerError::new(
            "the operands' layouts do not give each thread the rows and columns of its results: \
             not lowered without a matrix instruction",
        ));
    }
    let index = |d: &Dist| -> HashMap<u64, usize> {
        let mut map = HashMap::new();
        for r in 0..d.registers() {
            map.entry(d.reg_position(r)).or_insert(r);
        }
        map
    };
    let (in_a, in_b) = (index(&da), index(&db));
    let bits = p.value_bits(a[0]);
    let mut out = Vec::with_capacity(dc.registers());
    let zero = if c0.is_none() {
        let z = p.value(bits);
        p.ops.push(Op::Constant { dst: z, bits: 0 });
        Some(z)
    } else {
        None
    };
    for r in 0..dc.registers() {
        let position = dc.reg_position(r);
        let (m, n) = (position & m_mask, n_of(position));
        let mut acc = match (c0, zero) {
            (Some(c), _) => c[r],
            (None, Some(z)) => z,
            (None, None) => return Err(LowerError::new("no accumulator")),
        };
        for k in 0..1u64 << k_bits {
            let missing =
                || LowerError::new("an operand's layout does not hold a needed element in registers");
            let ra = *in_a.get(&(m | k << m_bits)).ok_or_else(missing)?;
            let rb = *in_b.get(&(k | n << k_bits)).ok_or_else(missing)?;
            acc = multiply_add(p, ty, (a[ra], b[rb], acc), bits);
        }
        out.push(acc);
    }
    Ok(out)
}

/// `x·y + z`: one fused multiply-add of floats, a multiply and an add of integers.
fn multiply_add(p: &mut Program, ty: &'static str, (x, y, z): (Value, Value, Value), bits: u32) -> Value {
    let dst = p.value(bits);
    if ty.starts_with('i') {
        let product = p.value(bits);
        p.ops.push(Op::Arith {
            op: ArithOp::Mul,
            ty,
            dst: product,
            src: vec![x, y],
        });
        p.ops.push(Op::Arith {
            op: ArithOp::Add,
            ty,
            dst,
            src: vec![product, z],
        });
    } else {
        p.ops.push(Op::Arith {
            op: ArithOp::Fma,
            ty,
            dst,
            src: vec![x, y, z],
        });
    }
    dst
}
