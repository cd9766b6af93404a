//! AMD GPU targets as data: one [`Target`] row per architecture.
//!
//! Everything the cost model and the heuristics need to know about a GPU is a field of a
//! [`Target`], never an `if` on its name: gfx942 and gfx950 differ only in their table rows.
//!
//! # The LDS bank/phase model
//!
//! LDS is split into `lds_banks` banks of `bank_bytes` (4) bytes; the dword at byte address `a`
//! lives in bank `(a / 4) mod lds_banks`. A DS instruction is served in *phases*: groups of lanes
//! that access LDS in the same cycle. Two lanes of one phase that touch *different* dwords of the
//! *same* bank serialise (one extra wavefront each); lanes touching the same dword are served by
//! a broadcast.
//!
//! Over GF(2) the lanes of one phase are a coset of a linear subspace `V0` of the lane-id bits.
//! [`PhaseRule::same_phase`] lists a basis of `V0` as lane-id masks: lanes `l` and `l'` share a
//! phase iff `l ^ l'` lies in the span. For example gfx942's `ds_read_b128` serves 8 lanes per
//! phase, `{0-3, 20-23}`, `{4-7, 16-19}`, …: `V0 = span(l0, l1, l2 ^ l4)` = masks `[1, 2, 20]`.
//!
//! ```
//! use linear_layout::target::{LdsOp, Target};
//! let gfx942 = Target::by_name("gfx942")?;
//! let rule = gfx942.phase_rule(LdsOp::Read, 128)?;
//! assert_eq!(rule.same_phase, &[1, 2, 20]);
//! // Lanes 0 and 21 share a phase; lanes 0 and 4 do not.
//! assert!(rule.same_phase_lanes(0, 21, 64));
//! assert!(!rule.same_phase_lanes(0, 4, 64));
//! # Ok::<(), String>(())
//! ```
//!
//! Sources (tags as in `amdgpu-lowering.md`): wave sizes, LDS sizes and instruction availability
//! are verified by compiling with LLVM 22 (\[V\]); bank counts and phase groupings are empirical
//! third-party measurements (\[E\]: nod-ai/amd-shark-ai `docs/empirical-lds`, HipKittens, Triton
//! PR #11365 / #9662); rows marked *assumed* in their `notes` are extrapolations.

use std::fmt;

pub mod lds;
pub mod lowering;
pub mod matrix;
pub mod mma;
mod table;

pub use lds::{LdsOp, PhaseModel, PhaseRule};
pub use lowering::{DirectToLds, DirectToLdsAddress, LoweringFacts};
pub use matrix::MatrixFacts;
pub use table::TARGETS;

/// Which data-movement instructions a target has (verified with LLVM 22, `amdgpu-lowering.md` §0).
///
/// ```
/// use linear_layout::target::Target;
/// assert!(Target::by_name("gfx950")?.instructions.ds_read_tr_b64);
/// assert!(!Target::by_name("gfx942")?.instructions.ds_read_tr_b64);
/// # Ok::<(), String>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Instructions {
    /// `ds_read_b64_tr_b{4,8,16}` (transposing LDS read across 16-lane groups; gfx950).
    pub ds_read_tr_b64: bool,
    /// `ds_load_tr16_b128` / `ds_load_tr8_b64` (gfx1250).
    pub ds_load_tr_b128: bool,
    /// `ds_bpermute_b32` / `ds_permute_b32` (every target).
    pub ds_bpermute: bool,
    /// `v_permlane16_swap_b32` / `v_permlane32_swap_b32` (gfx950).
    pub permlane_swap: bool,
    /// `v_permlane16_b32` / `v_permlanex16_b32` / DPP8 (RDNA and gfx1250).
    pub permlane16: bool,
    /// `v_permlane64_b32` (wave64 on gfx11+).
    pub permlane64: bool,
    /// DPP row controls (`quad_perm`, `row_shl`, …; every target).
    pub dpp: bool,
    /// DPP `row_bcast:15` / `row_bcast:31` (a row's last lane to the next row, lane 31 to the
    /// upper half of a wave of 64; GFX9 only — RDNA dropped them).
    pub dpp_row_broadcast: bool,
    /// DPP `wave_shr:1` / `wave_shl:1` (every lane reads its neighbour across rows; GFX9 only —
    /// LLVM 22 rejects them from GFX10 on \[V\]).
    pub dpp_wave_shift: bool,
    /// Bytes per lane of direct global→LDS loads (`buffer_load … lds`, `global_load_lds_*`,
    /// gfx1250 `global_load_async_to_lds_*`); empty if none.
    pub direct_to_lds_bytes: &'static [u32],
    /// Direct-to-LDS takes a per-lane LDS address (gfx1250) rather than M0 + lane·size (gfx9).
    pub direct_to_lds_per_lane_address: bool,
}

/// Per-target constants for the cycle estimate of a conversion.
///
/// These are coarse, documented estimates, not a timing model: the figure is meant to rank
/// alternatives, not to predict a kernel's run time.
///
/// ```
/// use linear_layout::target::Target;
/// let t = Target::by_name("gfx942")?;
/// assert_eq!(t.costs.valu_issue_cycles, 4); // a wave64 VALU op on a 16-wide SIMD
/// # Ok::<(), String>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CostConstants {
    /// Cycles to issue one VALU instruction for a whole wave (CDNA: 64 lanes on a 16-lane SIMD
    /// = 4; RDNA wave32: 1). Source: CDNA3 / RDNA3 ISA guides (SIMD widths).
    pub valu_issue_cycles: u32,
    /// Cycles the LDS pipeline spends per wavefront (phase pass) of a DS instruction: one pass
    /// of every bank per clock, i.e. `lds_banks × 4` bytes per clock — 128 B/clk on gfx942 and
    /// 256 B/clk on gfx950, the figures of anchors.md §6 (Chips and Cheese, CDNA4 "LDS read
    /// bandwidth doubled"); \[E\] nod-ai `lds_summary.md` for the phase groupings.
    pub lds_cycles_per_wavefront: u32,
    /// Latency of a DS read until its data can be used (estimate, \[E\] nod-ai `lds_summary.md`
    /// measures ~64–128 cycles across these GPUs).
    pub lds_latency_cycles: u32,
    /// Cycles of a workgroup barrier with the LDS fences around it (estimate).
    pub barrier_cycles: u32,
    /// Cycles of one `ds_bpermute_b32` (goes through the LDS crossbar: one 32-bit pass per
    /// phase, like `ds_read_b32`; estimate).
    pub bpermute_cycles: u32,
    /// Cycles of one DPP / permlane move (a VALU op).
    pub permlane_cycles: u32,
    /// Bytes of the cache line a vector memory access is served in (CDNA3 and RDNA3: 128-byte
    /// vector L1 / L0 lines; CDNA3 and RDNA3 ISA and white papers).
    pub global_line_bytes: u32,
    /// Cycles the vector memory path spends per cache line a wave's access touches (CDNA: the
    /// L1 returns 64 B per clock, 2 per line; RDNA3: the L0 returns 128 B per clock, 1 per line;
    /// estimates from the white papers' bandwidths). A wave whose lanes touch more lines — a
    /// strided, uncoalesced access — costs more: what makes a coalesced layout worth a
    /// conversion.
    pub global_line_cycles: u32,
}

/// One GPU architecture as data.
///
/// ```
/// use linear_layout::target::{Target, TARGETS};
/// let gfx950 = Target::by_name("gfx950")?;
/// assert_eq!((gfx950.wave_size, gfx950.lds_banks, gfx950.lds_bytes), (64, 64, 160 * 1024));
/// assert_eq!(gfx950.matrix.mfma_version, Some(4));
/// # Ok::<(), String>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Target {
    /// LLVM processor name (`gfx942`) or `generic32`.
    pub name: &'static str,
    /// Product family, for messages.
    pub family: &'static str,
    /// LLVM 22 knows the processor (`llc -mcpu=<name>`): the lowering emits code only for such
    /// rows. Not `generic32` (a model, not a GPU), nor gfx940/gfx941, which LLVM no longer has
    /// (Triton 3.6's heuristics still name them).
    pub llvm_processor: bool,
    /// Lanes per wave (for `generic32`, the default when the layout does not say). Source: LLVM
    /// `AMDGPU.td` feature `FeatureWavefrontSize64/32` per processor, verified by compiling
    /// (`amdgpu-lowering.md` §1).
    pub wave_size: u32,
    /// Whether the wave size is taken from the layout (`generic32`) rather than `wave_size`.
    pub wave_from_layout: bool,
    /// Number of LDS banks. Source: CDNA3/CDNA4 and RDNA ISA guides (LDS chapter); gfx950's
    /// 64 banks per AMD's CDNA4 white paper; `amdgpu-lowering.md` §5.2.
    pub lds_banks: u32,
    /// Bytes per LDS bank.
    pub bank_bytes: u32,
    /// LDS bytes per workgroup. Source: LLVM `AMDGPUSubtarget` (`getMaxLocalMemSizeWithWaveCount`
    /// / `FeatureAddressableLocalMemorySize*`), verified by llc rejecting a larger allocation.
    pub lds_bytes: u64,
    /// Phase grouping per access width. Source: measurements cited in the row's `notes`
    /// (`amdgpu-lowering.md` §5.2).
    pub phases: PhaseModel,
    /// LDS vector widths (bits per lane) with a single-instruction form (`ds_read_b32/64/128`).
    /// Source: the ISA guides' DS instruction lists, verified with llc (`amdgpu-lowering.md` §5.1).
    pub lds_vector_bits: &'static [u32],
    /// Global (buffer/global) vector widths in bits per lane. Source: the ISA guides' MUBUF /
    /// FLAT instruction lists (`dwordx4` = 128), verified with llc (`amdgpu-lowering.md` §4.1).
    pub global_vector_bits: &'static [u32],
    /// Instruction availability; each field names its source.
    pub instructions: Instructions,
    /// DS mnemonic prefixes: (`ds_read`, `ds_write`) on gfx9, (`ds_load`, `ds_store`) on gfx11+.
    /// Source: llc-22's assembly for each processor (`amdgpu-samples/04_lds_read_write.*.s`).
    pub ds_mnemonics: (&'static str, &'static str),
    /// Cycle-estimate constants (estimates; each field says what it rests on).
    pub costs: CostConstants,
    /// Matrix units: MFMA / WMMA generation, `v_dot`.
    pub matrix: MatrixFacts,
    /// Direct-to-LDS load widths (bits per lane) Triton 3.6's `tritonamdgpu-coalesce-async-copy`
    /// accepts; empty: the pass leaves the target alone. Narrower than the hardware's
    /// [`Instructions::direct_to_lds_bytes`]: 3.6 does not use the 8/16/64/96-bit forms
    /// (`TargetInfo::supportsDirectToLdsLoadBitWidth` in Triton's AMD backend).
    pub triton_direct_to_lds_bits: &'static [u32],
    /// Triton 3.6's AMD pipeline runs `tritonamdgpu-in-thread-transpose` (and a layout
    /// propagation after it) for this target (`is_in_thread_transpose_enabled` in
    /// `backends/amd/compiler.py`: gfx942 only).
    pub triton_in_thread_transpose: bool,
    /// What code generation needs (descriptor words, intrinsic spellings, ABI).
    pub lowering: LoweringFacts,
    /// Another row this one repeats fact for fact (an LLVM processor name of the same silicon
    /// family, such as gfx1101 for gfx1100). Listings of the table show such rows once, under
    /// the row they repeat.
    pub same_as: Option<&'static str>,
    /// Provenance and assumptions of this row.
    pub notes: &'static str,
}

impl Target {
    /// Looks a target up by name.
    ///
    /// ```
    /// use linear_layout::target::Target;
    /// assert_eq!(Target::by_name("gfx1201")?.wave_size, 32);
    /// assert!(Target::by_name("gfx1030").is_err());
    /// # Ok::<(), String>(())
    /// ```
    pub fn by_name(name: &str) -> Result<&'static Target, String> {
        TARGETS.iter().find(|t| t.name == name).ok_or_else(|| {
            format!(
                "unknown target '{name}' (known: {})",
                TARGETS.iter().map(|t| t.name).collect::<Vec<_>>().join(", ")
            )
        })
    }

    /// Bits of one bank row (`lds_banks * bank_bytes * 8`).
    ///
    /// ```
    /// use linear_layout::target::Target;
    /// assert_eq!(Target::by_name("gfx950")?.bank_row_bits(), 2048);
    /// # Ok::<(), String>(())
    /// ```
    pub fn bank_row_bits(&self) -> u64 {
        u64::from(self.lds_banks) * u64::from(self.bank_bytes) * 8
    }

    /// The phase rule for an `access_bits`-wide access in direction `op` (table targets only;
    /// for [`PhaseModel::LayoutLanes`] a rule over `wave_size` lanes is synthesised).
    ///
    /// ```
    /// use linear_layout::target::{LdsOp, Target};
    /// let t = Target::by_name("gfx942")?;
    /// assert_eq!(t.phase_rule(LdsOp::Write, 128)?.same_phase, &[1, 2, 4]);
    /// assert_eq!(t.phase_rule(LdsOp::Read, 64)?.same_phase, &[1, 2, 4, 8]);
    /// // Sub-dword accesses follow the 32-bit rule.
    /// assert_eq!(t.phase_rule(LdsOp::Read, 16)?.access_bits, 32);
    /// # Ok::<(), String>(())
    /// ```
    pub fn phase_rule(&self, op: LdsOp, access_bits: u32) -> Result<PhaseRule, String> {
        let bits = access_bits.max(32);
        match self.phases {
            PhaseModel::Table(rules) => rules
                .iter()
                .find(|r| r.access_bits == bits && r.op.is_none_or(|o| o == op))
                .copied()
                .ok_or_else(|| format!("{}: no LDS phase rule for {bits}-bit accesses", self.name)),
            PhaseModel::LayoutLanes => {
                const ALL: [u32; 6] = [1, 2, 4, 8, 16, 32];
                let lane_bits = self.wave_size.trailing_zeros();
                let drop = (bits / 32).trailing_zeros();
                let keep = lane_bits.saturating_sub(drop) as usize;
                Ok(PhaseRule {
                    op: None,
                    access_bits: bits,
                    same_phase: &ALL[..keep.min(6)],
                })
            }
        }
    }

    /// The DS mnemonic for an access of `bits` bits per lane (`ds_read_b128`, `ds_store_b64`).
    ///
    /// ```
    /// use linear_layout::target::{LdsOp, Target};
    /// assert_eq!(Target::by_name("gfx942")?.ds_mnemonic(LdsOp::Write, 128), "ds_write_b128");
    /// assert_eq!(Target::by_name("gfx1201")?.ds_mnemonic(LdsOp::Read, 16), "ds_load_u16");
    /// # Ok::<(), String>(())
    /// ```
    pub fn ds_mnemonic(&self, op: LdsOp, bits: u32) -> String {
        let prefix = match op {
            LdsOp::Read => self.ds_mnemonics.0,
            LdsOp::Write => self.ds_mnemonics.1,
        };
        if bits < 32 && op == LdsOp::Read {
            format!("{prefix}_u{bits}")
        } else {
            format!("{prefix}_b{bits}")
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}): wave{}, {} LDS banks x {} B, {} KiB LDS",
            self.name,
            self.family,
            self.wave_size,
            self.lds_banks,
            self.bank_bytes,
            self.lds_bytes / 1024
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Law: every table rule's phase count times lanes per phase equals the wave size.
    #[test]
    fn phases_partition_the_wave() {
        for t in TARGETS {
            for op in [LdsOp::Read, LdsOp::Write] {
                for bits in [32, 64, 128] {
                    let r = t.phase_rule(op, bits).unwrap();
                    let dim = r.basis_within(t.wave_size).len() as u32;
                    assert_eq!(r.num_phases(t.wave_size) << dim, t.wave_size, "{} {bits}", t.name);
                    // A phase never needs more than one pass of all banks for conflict-free data.
                    assert!(
                        (1u64 << dim) * u64::from(bits) <= t.bank_row_bits(),
                        "{} {bits}",
                        t.name
                    );
                }
            }
        }
    }

    /// The measured gfx942/gfx950 b128 groups from amdgpu-lowering §5.2, brute force.
    #[test]
    fn b128_groups_match_measurements() {
        let gfx942 = Target::by_name("gfx942")
            .unwrap()
            .phase_rule(LdsOp::Read, 128)
            .unwrap();
        let g: Vec<u32> = (0..64).filter(|&l| gfx942.same_phase_lanes(0, l, 64)).collect();
        assert_eq!(g, vec![0, 1, 2, 3, 20, 21, 22, 23]);
        let gfx950 = Target::by_name("gfx950")
            .unwrap()
            .phase_rule(LdsOp::Read, 128)
            .unwrap();
        let g: Vec<u32> = (0..64).filter(|&l| gfx950.same_phase_lanes(4, l, 64)).collect();
        assert_eq!(g, vec![4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18, 19, 28, 29, 30, 31]);
    }
}
