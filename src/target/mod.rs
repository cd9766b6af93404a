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
//! are verified by compiling with LLVM 22 ([V]); bank counts and phase groupings are empirical
//! third-party measurements ([E]: nod-ai/amd-shark-ai `docs/empirical-lds`, HipKittens, Triton
//! PR #11365 / #9662); rows marked *assumed* in their `notes` are extrapolations.

use std::fmt;

pub mod lowering;
pub mod mma;
pub use lowering::LoweringFacts;

/// Direction of an LDS access.
///
/// ```
/// use linear_layout::target::LdsOp;
/// assert_ne!(LdsOp::Read, LdsOp::Write);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PhaseModel {
    /// Triton 3.6's generic model (Gluon's `bank_conflicts`): every lane of the layout, minus
    /// the top `log2(max(1, access_bits / 32))` lane bits, forms one phase.
    LayoutLanes,
    /// Measured per-width rules; the first rule matching (op, width) applies.
    Table(&'static [PhaseRule]),
}

/// Which data-movement instructions a target has (verified with LLVM 22, `amdgpu-lowering.md` §0).
///
/// ```
/// use linear_layout::target::Target;
/// assert!(Target::by_name("gfx950")?.instructions.ds_read_tr_b64);
/// assert!(!Target::by_name("gfx942")?.instructions.ds_read_tr_b64);
/// # Ok::<(), String>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instructions {
    /// `ds_read_b64_tr_b{4,8,16}` (transposing LDS read across 16-lane groups; gfx950).
    pub ds_read_tr_b64: bool,
    /// `ds_load_tr16_b128` / `ds_load_tr8_b64` (gfx1250).
    pub ds_load_tr_b128: bool,
    /// `ds_bpermute_b32` / `ds_permute_b32` (every target).
    pub ds_bpermute: bool,
    /// `v_permlane16_swap_b32` / `v_permlane32_swap_b32` (gfx950).
    pub permlane_swap: bool,
    /// `v_permlane16_b32` / `v_permlanex16_b32` / DPP8 / `row_xmask` (RDNA and gfx1250).
    pub permlane16: bool,
    /// `v_permlane64_b32` (wave64 on gfx11+).
    pub permlane64: bool,
    /// DPP row controls (`quad_perm`, `row_shl`, …; every target).
    pub dpp: bool,
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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CostConstants {
    /// Cycles to issue one VALU instruction for a whole wave (CDNA: 64 lanes on a 16-lane SIMD
    /// = 4; RDNA wave32: 1). Source: CDNA3 / RDNA3 ISA guides (SIMD widths).
    pub valu_issue_cycles: u32,
    /// Cycles the LDS pipeline spends per wavefront (phase pass) of a DS instruction: one pass
    /// of every bank per clock, i.e. `lds_banks × 4` bytes per clock — 128 B/clk on gfx942 and
    /// 256 B/clk on gfx950, the figures of anchors.md §6 (Chips and Cheese, CDNA4 "LDS read
    /// bandwidth doubled"); [E] nod-ai `lds_summary.md` for the phase groupings.
    pub lds_cycles_per_wavefront: u32,
    /// Latency of a DS read until its data can be used (estimate, [E] nod-ai `lds_summary.md`
    /// measures ~64–128 cycles across these GPUs).
    pub lds_latency_cycles: u32,
    /// Cycles of a workgroup barrier with the LDS fences around it (estimate).
    pub barrier_cycles: u32,
    /// Cycles of one `ds_bpermute_b32` (goes through the LDS crossbar: one 32-bit pass per
    /// phase, like `ds_read_b32`; estimate).
    pub bpermute_cycles: u32,
    /// Cycles of one DPP / permlane move (a VALU op).
    pub permlane_cycles: u32,
}

/// One GPU architecture as data.
///
/// ```
/// use linear_layout::target::{Target, TARGETS};
/// let gfx950 = Target::by_name("gfx950")?;
/// assert_eq!((gfx950.wave_size, gfx950.lds_banks, gfx950.lds_bytes), (64, 64, 160 * 1024));
/// assert_eq!(TARGETS.len(), 7);
/// # Ok::<(), String>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    /// LLVM processor name (`gfx942`) or `generic32`.
    pub name: &'static str,
    /// Product family, for messages.
    pub family: &'static str,
    /// Lanes per wave (for `generic32`, the default when the layout does not say).
    pub wave_size: u32,
    /// Whether the wave size is taken from the layout (`generic32`) rather than `wave_size`.
    pub wave_from_layout: bool,
    /// Number of LDS banks.
    pub lds_banks: u32,
    /// Bytes per LDS bank.
    pub bank_bytes: u32,
    /// LDS bytes per workgroup.
    pub lds_bytes: u64,
    /// Phase grouping per access width.
    pub phases: PhaseModel,
    /// LDS vector widths (bits per lane) with a single-instruction form (`ds_read_b32/64/128`).
    pub lds_vector_bits: &'static [u32],
    /// Global (buffer/global) vector widths in bits per lane.
    pub global_vector_bits: &'static [u32],
    /// Instruction availability.
    pub instructions: Instructions,
    /// DS mnemonic prefixes: (`ds_read`, `ds_write`) on gfx9, (`ds_load`, `ds_store`) on gfx11+.
    pub ds_mnemonics: (&'static str, &'static str),
    /// Cycle-estimate constants.
    pub costs: CostConstants,
    /// What code generation needs (descriptor words, intrinsic spellings, ABI).
    pub lowering: LoweringFacts,
    /// Provenance and assumptions of this row.
    pub notes: &'static str,
}

/// The phase rules shared by CDNA3 (gfx942) and, by assumption, CDNA2 (gfx90a).
const CDNA3_PHASES: &[PhaseRule] = &[
    PhaseRule {
        op: Some(LdsOp::Write),
        access_bits: 128,
        same_phase: &[1, 2, 4],
    },
    PhaseRule {
        op: None,
        access_bits: 128,
        same_phase: &[1, 2, 20],
    },
    PhaseRule {
        op: None,
        access_bits: 64,
        same_phase: &[1, 2, 4, 8],
    },
    PhaseRule {
        op: None,
        access_bits: 32,
        same_phase: &[1, 2, 4, 8, 16],
    },
];
const CDNA4_PHASES: &[PhaseRule] = &[
    PhaseRule {
        op: None,
        access_bits: 128,
        same_phase: &[1, 2, 12, 20],
    },
    PhaseRule {
        op: None,
        access_bits: 64,
        same_phase: &[1, 2, 4, 8, 16],
    },
    PhaseRule {
        op: None,
        access_bits: 32,
        same_phase: &[1, 2, 4, 8, 16, 32],
    },
];
const RDNA3_PHASES: &[PhaseRule] = &[
    PhaseRule {
        op: None,
        access_bits: 128,
        same_phase: &[1, 2, 20],
    },
    PhaseRule {
        op: None,
        access_bits: 64,
        same_phase: &[1, 2, 4, 8],
    },
    PhaseRule {
        op: None,
        access_bits: 32,
        same_phase: &[1, 2, 4, 8, 16],
    },
];
const RDNA4_PHASES: &[PhaseRule] = &[
    PhaseRule {
        op: None,
        access_bits: 128,
        same_phase: &[1, 2, 4],
    },
    PhaseRule {
        op: None,
        access_bits: 64,
        same_phase: &[1, 2, 4, 8],
    },
    PhaseRule {
        op: None,
        access_bits: 32,
        same_phase: &[1, 2, 4, 8, 16],
    },
];
const GFX1250_PHASES: &[PhaseRule] = &[
    PhaseRule {
        op: None,
        access_bits: 128,
        same_phase: &[1, 2, 4, 8],
    },
    PhaseRule {
        op: None,
        access_bits: 64,
        same_phase: &[1, 2, 4, 8, 16],
    },
    PhaseRule {
        op: None,
        access_bits: 32,
        same_phase: &[1, 2, 4, 8, 16],
    },
];

const GFX9_INSTR: Instructions = Instructions {
    ds_read_tr_b64: false,
    ds_load_tr_b128: false,
    ds_bpermute: true,
    permlane_swap: false,
    permlane16: false,
    permlane64: false,
    dpp: true,
    direct_to_lds_bytes: &[],
    direct_to_lds_per_lane_address: false,
};

const CDNA_COSTS: CostConstants = CostConstants {
    valu_issue_cycles: 4,
    lds_cycles_per_wavefront: 1,
    lds_latency_cycles: 64,
    barrier_cycles: 40,
    bpermute_cycles: 8,
    permlane_cycles: 4,
};
const RDNA_COSTS: CostConstants = CostConstants {
    valu_issue_cycles: 1,
    lds_cycles_per_wavefront: 1,
    lds_latency_cycles: 64,
    barrier_cycles: 40,
    bpermute_cycles: 4,
    permlane_cycles: 1,
};

/// Every known target, one row each.
///
/// ```
/// use linear_layout::target::TARGETS;
/// let names: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
/// assert_eq!(names, ["generic32", "gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201", "gfx1250"]);
/// // gfx942 and gfx950 differ only in data: banks, LDS size, instructions.
/// assert_eq!((TARGETS[2].lds_banks, TARGETS[3].lds_banks), (32, 64));
/// ```
pub const TARGETS: &[Target] = &[
    Target {
        name: "generic32",
        family: "Triton generic model",
        wave_size: 32,
        wave_from_layout: true,
        lds_banks: 32,
        bank_bytes: 4,
        lds_bytes: 64 * 1024,
        phases: PhaseModel::LayoutLanes,
        lds_vector_bits: &[8, 16, 32, 64, 128],
        global_vector_bits: &[8, 16, 32, 64, 128],
        instructions: GFX9_INSTR,
        ds_mnemonics: ("ds_read", "ds_write"),
        costs: CDNA_COSTS,
        lowering: lowering::CDNA3,
        notes: "Triton 3.6 bankConflictsMemDesc: 32 banks x 4 B, every lane of the layout in one \
                phase minus the top log2(bits/32) lane bits",
    },
    Target {
        name: "gfx90a",
        family: "CDNA2 (MI200)",
        wave_size: 64,
        wave_from_layout: false,
        lds_banks: 32,
        bank_bytes: 4,
        lds_bytes: 64 * 1024,
        phases: PhaseModel::Table(CDNA3_PHASES),
        lds_vector_bits: &[8, 16, 32, 64, 128],
        global_vector_bits: &[8, 16, 32, 64, 128],
        instructions: GFX9_INSTR,
        ds_mnemonics: ("ds_read", "ds_write"),
        costs: CDNA_COSTS,
        lowering: lowering::CDNA2,
        notes: "phase rules assumed equal to gfx942 (no measurement found); 64 KiB LDS [V]",
    },
    Target {
        name: "gfx942",
        family: "CDNA3 (MI300)",
        wave_size: 64,
        wave_from_layout: false,
        lds_banks: 32,
        bank_bytes: 4,
        lds_bytes: 64 * 1024,
        phases: PhaseModel::Table(CDNA3_PHASES),
        lds_vector_bits: &[8, 16, 32, 64, 128],
        global_vector_bits: &[8, 16, 32, 64, 128],
        instructions: Instructions {
            direct_to_lds_bytes: &[1, 2, 4],
            ..GFX9_INSTR
        },
        ds_mnemonics: ("ds_read", "ds_write"),
        costs: CDNA_COSTS,
        lowering: lowering::CDNA3,
        notes: "32 banks, read phases [E]; ds_write_b128 8 consecutive lanes per phase [E]; other \
                write widths assumed equal to reads",
    },
    Target {
        name: "gfx950",
        family: "CDNA4 (MI350)",
        wave_size: 64,
        wave_from_layout: false,
        lds_banks: 64,
        bank_bytes: 4,
        lds_bytes: 160 * 1024,
        phases: PhaseModel::Table(CDNA4_PHASES),
        lds_vector_bits: &[8, 16, 32, 64, 128],
        global_vector_bits: &[8, 16, 32, 64, 128],
        instructions: Instructions {
            ds_read_tr_b64: true,
            permlane_swap: true,
            direct_to_lds_bytes: &[1, 2, 4, 12, 16],
            ..GFX9_INSTR
        },
        ds_mnemonics: ("ds_read", "ds_write"),
        costs: CostConstants {
            lds_cycles_per_wavefront: 1,
            ..CDNA_COSTS
        },
        lowering: lowering::CDNA4,
        notes: "64 banks, read phases [E]; writes assumed equal to reads; 160 KiB LDS [V]",
    },
    Target {
        name: "gfx1100",
        family: "RDNA3",
        wave_size: 32,
        wave_from_layout: false,
        lds_banks: 32,
        bank_bytes: 4,
        lds_bytes: 64 * 1024,
        phases: PhaseModel::Table(RDNA3_PHASES),
        lds_vector_bits: &[8, 16, 32, 64, 128],
        global_vector_bits: &[8, 16, 32, 64, 128],
        instructions: Instructions {
            permlane16: true,
            permlane64: true,
            ..GFX9_INSTR
        },
        ds_mnemonics: ("ds_load", "ds_store"),
        costs: RDNA_COSTS,
        lowering: lowering::RDNA3,
        notes: "wave32; 32 banks, read phases [E]; writes assumed equal to reads",
    },
    Target {
        name: "gfx1201",
        family: "RDNA4",
        wave_size: 32,
        wave_from_layout: false,
        lds_banks: 32,
        bank_bytes: 4,
        lds_bytes: 64 * 1024,
        phases: PhaseModel::Table(RDNA4_PHASES),
        lds_vector_bits: &[8, 16, 32, 64, 128],
        global_vector_bits: &[8, 16, 32, 64, 128],
        instructions: Instructions {
            permlane16: true,
            ..GFX9_INSTR
        },
        ds_mnemonics: ("ds_load", "ds_store"),
        costs: RDNA_COSTS,
        lowering: lowering::RDNA4,
        notes: "wave32; 32 banks, read phases [E]; writes assumed equal to reads",
    },
    Target {
        name: "gfx1250",
        family: "GFX12.5",
        wave_size: 32,
        wave_from_layout: false,
        lds_banks: 64,
        bank_bytes: 4,
        lds_bytes: 320 * 1024,
        phases: PhaseModel::Table(GFX1250_PHASES),
        lds_vector_bits: &[8, 16, 32, 64, 128],
        global_vector_bits: &[8, 16, 32, 64, 128],
        instructions: Instructions {
            ds_load_tr_b128: true,
            permlane16: true,
            direct_to_lds_bytes: &[1, 4, 8, 16],
            direct_to_lds_per_lane_address: true,
            ..GFX9_INSTR
        },
        ds_mnemonics: ("ds_load", "ds_store"),
        costs: RDNA_COSTS,
        lowering: lowering::GFX1250,
        notes: "wave32 only, 320 KiB LDS [V]; 64 banks and the phase rules are assumed (no \
                measurement found); 128-bit accesses served 16 lanes per phase",
    },
];

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
