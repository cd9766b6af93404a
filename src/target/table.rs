//! The rows: every target the crate knows, one [`Target`] each.

use super::lowering;
use super::{CostConstants, Instructions, LdsOp, MatrixFacts, PhaseModel, PhaseRule, Target};

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
    dpp_row_broadcast: true,
    dpp_wave_shift: true,
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
    global_line_bytes: 128,
    global_line_cycles: 2,
};
const RDNA_COSTS: CostConstants = CostConstants {
    valu_issue_cycles: 1,
    lds_cycles_per_wavefront: 1,
    lds_latency_cycles: 64,
    barrier_cycles: 40,
    bpermute_cycles: 4,
    permlane_cycles: 1,
    global_line_bytes: 128,
    global_line_cycles: 1,
};

/// Triton 3.6's generic bank model (Gluon's `bank_conflicts`): not a GPU; the wave size comes from the layout.
const GENERIC32: Target = Target {
    name: "generic32",
    family: "Triton generic model",
    llvm_processor: false,
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
    matrix: MatrixFacts {
        mfma_version: None,
        wmma_version: None,
        wmma_hardware: None,
        v_dot: false,
        v_dot2_bf16: false,
    },
    triton_direct_to_lds_bits: &[],
    triton_in_thread_transpose: false,
    lowering: lowering::CDNA3,
    same_as: None,
    notes: "Triton 3.6 bankConflictsMemDesc: 32 banks x 4 B, every lane of the layout in one \
            phase minus the top log2(bits/32) lane bits",
};

/// CDNA2 (MI200).
const GFX90A: Target = Target {
    name: "gfx90a",
    family: "CDNA2 (MI200)",
    llvm_processor: true,
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
    matrix: MatrixFacts {
        mfma_version: Some(2),
        wmma_version: None,
        wmma_hardware: None,
        v_dot: true,
        v_dot2_bf16: false,
    },
    triton_direct_to_lds_bits: &[],
    triton_in_thread_transpose: false,
    lowering: lowering::CDNA2,
    same_as: None,
    notes: "phase rules assumed equal to gfx942 (no measurement found); 64 KiB LDS [V]",
};

/// CDNA3 (MI300).
const GFX942: Target = Target {
    name: "gfx942",
    family: "CDNA3 (MI300)",
    llvm_processor: true,
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
    matrix: MatrixFacts {
        mfma_version: Some(3),
        wmma_version: None,
        wmma_hardware: None,
        v_dot: true,
        v_dot2_bf16: false,
    },
    triton_direct_to_lds_bits: &[32],
    triton_in_thread_transpose: true,
    lowering: lowering::CDNA3,
    same_as: None,
    notes: "32 banks, read phases [E]; ds_write_b128 8 consecutive lanes per phase [E]; other \
            write widths assumed equal to reads",
};

/// CDNA4 (MI350).
const GFX950: Target = Target {
    name: "gfx950",
    family: "CDNA4 (MI350)",
    llvm_processor: true,
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
    matrix: MatrixFacts {
        mfma_version: Some(4),
        wmma_version: None,
        wmma_hardware: None,
        v_dot: true,
        v_dot2_bf16: true,
    },
    triton_direct_to_lds_bits: &[128, 32],
    triton_in_thread_transpose: false,
    lowering: lowering::CDNA4,
    same_as: None,
    notes: "64 banks, read phases [E]; writes assumed equal to reads; 160 KiB LDS [V]",
};

/// RDNA3.
const GFX1100: Target = Target {
    name: "gfx1100",
    family: "RDNA3",
    llvm_processor: true,
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
        dpp_row_broadcast: false,
        dpp_wave_shift: false,
        permlane64: true,
        ..GFX9_INSTR
    },
    ds_mnemonics: ("ds_load", "ds_store"),
    costs: RDNA_COSTS,
    matrix: MatrixFacts {
        mfma_version: None,
        wmma_version: Some(1),
        wmma_hardware: Some(1),
        v_dot: true,
        v_dot2_bf16: false,
    },
    triton_direct_to_lds_bits: &[],
    triton_in_thread_transpose: false,
    lowering: lowering::RDNA3,
    same_as: None,
    notes: "wave32; 32 banks, read phases [E]; writes assumed equal to reads",
};

/// RDNA4.
const GFX1201: Target = Target {
    name: "gfx1201",
    family: "RDNA4",
    llvm_processor: true,
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
        dpp_row_broadcast: false,
        dpp_wave_shift: false,
        ..GFX9_INSTR
    },
    ds_mnemonics: ("ds_load", "ds_store"),
    costs: RDNA_COSTS,
    matrix: MatrixFacts {
        mfma_version: None,
        wmma_version: Some(2),
        wmma_hardware: Some(2),
        v_dot: true,
        v_dot2_bf16: false,
    },
    triton_direct_to_lds_bits: &[],
    triton_in_thread_transpose: false,
    lowering: lowering::RDNA4,
    same_as: None,
    notes: "wave32; 32 banks, read phases [E]; writes assumed equal to reads",
};

/// GFX12.5.
const GFX1250: Target = Target {
    name: "gfx1250",
    family: "GFX12.5",
    llvm_processor: true,
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
        dpp_row_broadcast: false,
        dpp_wave_shift: false,
        direct_to_lds_bytes: &[1, 4, 8, 16],
        direct_to_lds_per_lane_address: true,
        ..GFX9_INSTR
    },
    ds_mnemonics: ("ds_load", "ds_store"),
    costs: RDNA_COSTS,
    matrix: MatrixFacts {
        mfma_version: None,
        wmma_version: None,
        wmma_hardware: Some(3),
        v_dot: false,
        v_dot2_bf16: false,
    },
    triton_direct_to_lds_bits: &[],
    triton_in_thread_transpose: false,
    lowering: lowering::GFX1250,
    same_as: None,
    notes: "wave32 only, 320 KiB LDS [V]; 64 banks and the phase rules are assumed (no \
            measurement found); 128-bit accesses served 16 lanes per phase",
};

/// CDNA1 (MI100): MFMA v1; LDS and phases assumed equal to gfx90a.
const GFX908: Target = Target {
    name: "gfx908",
    family: "CDNA1 (MI100)",
    matrix: MatrixFacts {
        mfma_version: Some(1),
        ..GFX90A.matrix
    },
    lowering: lowering::CDNA1,
    notes: "MFMA v1 (Triton 3.6 accelerate-matmul); LDS size, banks and phase rules assumed \
            equal to gfx90a (no measurement found)",
    ..GFX90A
};

/// A row repeating `base` fact for fact under another LLVM processor name.
const fn same_as(name: &'static str, base: &Target) -> Target {
    Target {
        name,
        same_as: Some(base.name),
        ..*base
    }
}

/// A row LLVM 22 no longer knows by this name.
const fn not_in_llvm(row: Target) -> Target {
    Target {
        llvm_processor: false,
        ..row
    }
}

/// Every known target, one row each. Adding a target is adding a row: a new RDNA3 part that
/// behaves as gfx1100 is `same_as("gfx1103", &GFX1100)`; one that differs is a `Target` with
/// its own fields (`..GFX1100` for the rest).
///
/// ```
/// use linear_layout::target::{Target, TARGETS};
/// let names: Vec<&str> = TARGETS.iter().filter(|t| t.same_as.is_none()).map(|t| t.name).collect();
/// assert_eq!(names, ["generic32", "gfx908", "gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201", "gfx1250"]);
/// // gfx942 and gfx950 differ only in data: banks, LDS size, instructions.
/// let (gfx942, gfx950) = (Target::by_name("gfx942")?, Target::by_name("gfx950")?);
/// assert_eq!((gfx942.lds_banks, gfx950.lds_banks), (32, 64));
/// // gfx1101 is gfx1100 under another name.
/// assert_eq!(Target::by_name("gfx1101")?.same_as, Some("gfx1100"));
/// # Ok::<(), String>(())
/// ```
pub const TARGETS: &[Target] = &[
    GENERIC32,
    GFX908,
    GFX90A,
    not_in_llvm(same_as("gfx940", &GFX942)),
    not_in_llvm(same_as("gfx941", &GFX942)),
    GFX942,
    GFX950,
    GFX1100,
    same_as("gfx1101", &GFX1100),
    same_as("gfx1102", &GFX1100),
    same_as("gfx1200", &GFX1201),
    GFX1201,
    GFX1250,
];
