//! Batched dots: `[B, M, K] · [B, K, N] → [B, M, N]` as one 2-D plan per batch slice.
//!
//! Triton's 3-D MFMA / WMMA layouts put the batch dimension on warps (`warpsPerCTA = [4, 1,
//! 1]`) and, when there are more batches than warps, on register repetitions; lanes never move
//! along it. So every layout splits into a batch part and a 2-D part: register bits that move
//! only the batch select a *slice* of the registers, warp bits that move only the batch make
//! the 2-D layout broadcast over those warps (each computes its own batch with the same
//! instructions), and what is left is a 2-D dot layout [`plan_dot`](super::mma::plan_dot)
//! maps onto instruction calls. The 2-D plan is the same for every slice; a slice's calls are
//! its calls with each register index placed among the slice's registers. The three operands
//! must agree on the batch: the same warp bits move it by the same amounts, and the slices of
//! A and B a slice of C multiplies hold its batch.
//!
//! # Worked example
//!
//! `tl.dot` of `2×32×32` f16 tensors with 4 warps in `amd_mfma<{warpsPerCTA = [4, 1, 1],
//! instrShape = [32, 32, 8]}>`: warp bit 0 moves the batch by 1, warp bit 1 not at all, no
//! register bit moves it — one slice, and the 2-D plan of a 32×32×32 dot on every warp (the
//! warps of one batch compute it twice, as in Triton's code).
//!
//! ```
//! use linear_layout::encodings::Encoding;
//! use linear_layout::lower::mma::plan_dot;
//! use linear_layout::target::mma::MMA_INSTRUCTIONS;
//! let mfma: Encoding = "#ttg.amd_mfma<{version = 3, warpsPerCTA = [4, 1, 1], instrShape = [32, 32, 8], isTransposed = true}>".parse()?;
//! let a: Encoding = format!("#ttg.dot_op<{{opIdx = 0, parent = {mfma}, kWidth = 4}}>").parse()?;
//! let b: Encoding = format!("#ttg.dot_op<{{opIdx = 1, parent = {mfma}, kWidth = 4}}>").parse()?;
//! let instr = MMA_INSTRUCTIONS.iter().find(|i| i.intrinsic == "llvm.amdgcn.mfma.f32.32x32x8f16").unwrap();
//! let plan = plan_dot(&a.to_linear_layout(&[2, 32, 32])?, &b.to_linear_layout(&[2, 32, 32])?,
//!                     &mfma.to_linear_layout(&[2, 32, 32])?, instr, 64)?;
//! assert_eq!(plan.calls.len(), 4); // four steps of K = 8
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::mma::{DotPlan, MmaCall, plan_dot};
use crate::linear::LinearLayout;
use crate::lower::error::LowerError;
use crate::target::mma::MmaInstruction;

/// A 3-D layout split into its batch part and a 2-D layout.
struct BatchSplit {
    /// The layout without the batch: out-dims `dim0`, `dim1` (the last two).
    plane: LinearLayout,
    /// Register bit positions that move only the batch, with how far.
    batch_bits: Vec<(u32, u64)>,
    /// Register bit positions that do not move the batch, in order (the plane's registers).
    plane_bits: Vec<u32>,
    /// Per warp bit, how far it moves the batch.
    warp_batch: Vec<u64>,
}

fn bad(what: &str) -> LowerError {
    LowerError::new(format!("a batched dot: {what}"))
}

impl BatchSplit {
    fn of(l: &LinearLayout) -> Result<BatchSplit, LowerError> {
        let out: Vec<(String, u64)> = l.out_dims().map(|(n, s)| (n.as_str().to_string(), s)).collect();
        if out.len() != 3 {
            return Err(bad(&format!(
                "{} out-dims where 3 are the batch and a matrix",
                out.len()
            )));
        }
        let mut split = BatchSplit {
            plane: LinearLayout::empty(),
            batch_bits: Vec::new(),
            plane_bits: Vec::new(),
            warp_batch: Vec::new(),
        };
        let mut bases = Vec::new();
        for (name, _) in l.in_dims() {
            let name = name.as_str().to_string();
            let mut kept = Vec::new();
            for (bit, v) in l.bases(&name)?.into_iter().enumerate() {
                let (batch, plane) = (v[0], [v[1] as i64, v[2] as i64]);
                let pure = plane == [0, 0];
                match name.as_str() {
                    "register" if batch != 0 && pure => split.batch_bits.push((bit as u32, batch)),
                    "register" if batch == 0 => {
                        split.plane_bits.push(bit as u32);
                        kept.push(plane.to_vec());
                    }
                    "warp" if batch == 0 || pure => {
                        split.warp_batch.push(batch);
                        kept.push(plane.to_vec());
                    }
                    _ if batch == 0 => kept.push(plane.to_vec()),
                    _ => {
                        return Err(bad(&format!(
                            "a {name} bit moves the batch and the matrix together"
                        )));
                    }
                }
            }
            bases.push((name, kept));
        }
        // Registers are indexed in 32 bits, and every slice is a plan's worth of calls.
        let highest = split
            .batch_bits
            .iter()
            .map(|&(bit, _)| bit)
            .chain(split.plane_bits.iter().copied())
            .max();
        if split.batch_bits.len() > 16 || highest.is_some_and(|bit| bit >= 31) {
            return Err(bad("more register slices of the batch than a kernel holds"));
        }
        split.plane = LinearLayout::from_bases(
            bases,
            [("dim0", out[1].1 as i64), ("dim1", out[2].1 as i64)],
            false,
        )?;
        Ok(split)
    }

    /// The slices: per assignment of the batch register bits, the batch it holds and its
    /// registers' base index.
    fn slices(&self) -> Vec<(u64, u32)> {
        (0..1u32 << self.batch_bits.len())
            .map(|s| {
                self.batch_bits
                    .iter()
                    .enumerate()
                    .filter(|&(j, _)| s >> j & 1 == 1)
                    .fold((0, 0), |(batch, reg), (_, &(bit, by))| {
                        (batch ^ by, reg | 1 << bit)
                    })
            })
            .collect()
    }

    /// Register `i` of the plane in the slice whose registers start at `base`.
    fn register(&self, base: u32, i: u32) -> u32 {
        self.plane_bits
            .iter()
            .enumerate()
            .filter(|&(k, _)| i >> k & 1 == 1)
            .fold(base, |r, (_, &bit)| r | 1 << bit)
    }
}

/// [`plan_dot`] of 3-D layouts: the 2-D plan of the planes, once per batch slice of C.
pub(super) fn plan_batched(
    a: &LinearLayout,
    b: &LinearLayout,
    c: &LinearLayout,
    instr: &'static MmaInstruction,
    wave: u32,
) -> Result<DotPlan, LowerError> {
    let (sa, sb, sc) = (BatchSplit::of(a)?, BatchSplit::of(b)?, BatchSplit::of(c)?);
    if sa.warp_batch != sc.warp_batch || sb.warp_batch != sc.warp_batch {
        return Err(bad("the operands put the batch on different warps"));
    }
    let plane = plan_dot(&sa.plane, &sb.plane, &sc.plane, instr, wave)?;
    let slice_of = |s: &BatchSplit, batch: u64| {
        s.slices()
            .into_iter()
            .find(|&(b, _)| b == batch)
            .map(|(_, base)| base)
            .ok_or_else(|| bad(&format!("an operand holds no registers of batch {batch}")))
    };
    let mut calls = Vec::new();
    for (batch, c_base) in sc.slices() {
        let (a_base, b_base) = (slice_of(&sa, batch)?, slice_of(&sb, batch)?);
        for call in &plane.calls {
            calls.push(MmaCall {
                a: call.a.iter().map(|&i| sa.register(a_base, i)).collect(),
                b: call.b.iter().map(|&i| sb.register(b_base, i)).collect(),
                c: call.c.iter().map(|&i| sc.register(c_base, i)).collect(),
            });
        }
    }
    Ok(DotPlan { calls, ..plane })
}
