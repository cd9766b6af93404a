//! Matrix instructions as data: every MFMA / WMMA form the lowering may emit, with the LLVM
//! intrinsic that spells it, the generations that have it, and which matrix element each lane
//! and register holds.
//!
//! # Lane layouts as GF(2) bases
//!
//! An instruction computes `D = A·B + C` on a tile of `M × N` (K deep) held by one wave: lane
//! `l`'s operand element `e` is `A[i][k]` for one `(i, k)`, its result register `r` is
//! `D[i][j]` for one `(i, j)`. Over GF(2) these are linear maps, given here by bases: "element
//! bit 0 → k0" means that element 1 of a lane is one step further along K than element 0. For
//! `v_mfma_f32_32x32x8f16` (amdgpu-lowering.md §9.2, the AMD matrix instruction calculator):
//!
//! | map | bases |
//! |---|---|
//! | A: element | e0 → k0, e1 → k1 |
//! | A: lane | l0..l4 → i0..i4, l5 → k2 |
//! | D: register | r0 → i0, r1 → i1, r2 → i3, r3 → i4 |
//! | D: lane | l0..l4 → j0..j4, l5 → i2 |
//!
//! B is A with `j` for `i`. The bases follow from a handful of patterns ([`OperandPattern`],
//! [`AccPattern`]); [`MmaInstruction::operand_bases`] and [`MmaInstruction::acc_bases`] spell
//! them out.
//!
//! ```
//! use linear_layout::target::mma::{MmaInstruction, MMA_INSTRUCTIONS};
//! let i = MMA_INSTRUCTIONS.iter().find(|i| i.intrinsic == "llvm.amdgcn.mfma.f32.32x32x8f16").unwrap();
//! let (elements, lanes) = i.operand_bases(64);
//! assert_eq!(elements, vec![[0, 1], [0, 2]]); // (row, k): e0 → k0, e1 → k1
//! assert_eq!(lanes[5], [0, 4]); // l5 → k2
//! let (regs, lanes) = i.acc_bases(64);
//! assert_eq!(regs, vec![[1, 0], [2, 0], [8, 0], [16, 0]]); // (row i, column j)
//! assert_eq!(lanes[5], [4, 0]); // l5 → i2
//! ```
//!
//! Only A and B sharing one assignment of K matters for the product ("K-permutation freedom",
//! §9.2), so where the hardware's own K interleave differs (gfx12 16-bit operands) the table
//! keeps the simpler one, as IREE and Triton do.

/// Which generations have an instruction: MFMA versions (CDNA1–4) or WMMA versions (gfx11,
/// gfx12, gfx1250), the [`MatrixFacts`](super::MatrixFacts) of a target row.
///
/// ```
/// use linear_layout::target::mma::Unit;
/// assert_ne!(Unit::Mfma(&[3]), Unit::Wmma(&[3]));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// MFMA, in these versions.
    Mfma(&'static [u32]),
    /// WMMA, in these versions.
    Wmma(&'static [u32]),
}

/// How an operand's elements and lanes cover a tile row (`i`) and K.
///
/// ```
/// use linear_layout::target::mma::OperandPattern;
/// let p = OperandPattern { elements_log2: 2, row_lanes_log2: 5, replicated_lanes_log2: 0 };
/// assert_eq!(p.elements_log2 + p.row_lanes_log2, 7);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperandPattern {
    /// log2 of the elements per lane (`e` bits → the lowest K bits).
    pub elements_log2: u32,
    /// log2 of the lanes along the tile's rows (the lowest lane bits → `i`).
    pub row_lanes_log2: u32,
    /// log2 of the copies of each row group the lanes above hold (gfx11 WMMA: both half-waves
    /// carry the same operand). The lane bits above rows and copies go along K.
    pub replicated_lanes_log2: u32,
}

/// How the accumulator's registers and lanes cover the tile.
///
/// ```
/// use linear_layout::target::mma::AccPattern;
/// assert_ne!(AccPattern::Mfma, AccPattern::WmmaGfx12);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccPattern {
    /// MFMA with 32-bit results: lanes along `j` (N lanes), registers `r0, r1` → `i0, i1`,
    /// the lanes above → the next row bits, the remaining registers → the rest.
    Mfma,
    /// MFMA with 64-bit results (`16x16x4f64`): lanes above N → `i0, i1`, registers → `i2, i3`.
    MfmaF64,
    /// gfx11 WMMA: lanes along `j`, lane 16 → `i0`, registers → `i1..`.
    WmmaGfx11,
    /// gfx12 / gfx1250 WMMA: lanes along `j`, registers → `i0..i2`, lane 16 → `i3`.
    WmmaGfx12,
}

/// One matrix instruction.
///
/// ```
/// use linear_layout::target::mma::MMA_INSTRUCTIONS;
/// assert!(MMA_INSTRUCTIONS.iter().all(|i| i.m * i.n * i.k > 0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MmaInstruction {
    /// The LLVM intrinsic (`llvm.amdgcn.mfma.f32.32x32x8f16`).
    pub intrinsic: &'static str,
    /// Which generations have it.
    pub unit: Unit,
    /// Rows of the tile.
    pub m: u32,
    /// Columns of the tile.
    pub n: u32,
    /// Depth of one instruction.
    pub k: u32,
    /// Element type of A and B (Triton's spelling: `f16`, `bf16`, `f32`, `i8`, `f64`,
    /// `f8E4M3FNUZ`, …; `tf32`: f32 values the instruction reads at TF32 precision).
    pub ab: &'static str,
    /// Element type of C and D (`f32`, `i32`, `f64`, `f16`).
    pub acc: &'static str,
    /// The LLVM type of one lane's A (and B) operand.
    pub ab_llvm: &'static str,
    /// The LLVM type of one lane's C (and D).
    pub acc_llvm: &'static str,
    /// Lanes the instruction is defined for (64 on CDNA, 32 on RDNA and gfx1250).
    pub wave: u32,
    /// A's (and B's) elements and lanes.
    pub operand: OperandPattern,
    /// D's registers and lanes.
    pub acc_pattern: AccPattern,
    /// How the call is written (operand order and immediates).
    pub call: CallForm,
}

/// The argument list of an instruction's intrinsic, in order.
///
/// ```
/// use linear_layout::target::mma::CallForm;
/// assert_eq!(CallForm::Mfma.arguments("%a", "%b", "%c"), "%a, %b, %c, i32 0, i32 0, i32 0");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallForm {
    /// `(a, b, c, i32 cbsz, i32 abid, i32 blgp)`, the immediates 0.
    Mfma,
    /// gfx11/gfx12 float WMMA: `(a, b, c)`.
    Wmma,
    /// gfx11/gfx12 integer WMMA: `(i1 a_signed, a, i1 b_signed, b, c, i1 clamp)`.
    WmmaInt,
    /// gfx1250 16-bit WMMA: `(i1 neg_a, a, i1 neg_b, b, i16 c_mod, c, i1 reuse_a, i1 reuse_b)`.
    WmmaGfx1250,
    /// gfx1250 8-bit float WMMA: `(a, b, i16 c_mod, c, i1 reuse_a, i1 reuse_b)`.
    WmmaGfx1250Fp8,
    /// gfx950 scaled MFMA of 8-bit floats with unit scales: `(a, b, c, i32 cbsz, i32 blgp,
    /// i32 opsel_a, i32 scale_a, i32 opsel_b, i32 scale_b)`, both formats the given code (0:
    /// E4M3, 1: E5M2) and the scales 0 — llc selects the unscaled `v_mfma_f32_*_f8f6f4`.
    MfmaScaled(u8),
}

impl CallForm {
    /// The argument list for operand texts `a`, `b`, `c` (each already `type value`).
    ///
    /// ```
    /// use linear_layout::target::mma::CallForm;
    /// assert_eq!(CallForm::WmmaInt.arguments("<4 x i32> %a", "<4 x i32> %b", "<8 x i32> %c"),
    ///     "i1 1, <4 x i32> %a, i1 1, <4 x i32> %b, <8 x i32> %c, i1 0");
    /// ```
    pub fn arguments(self, a: &str, b: &str, c: &str) -> String {
        match self {
            CallForm::Mfma => format!("{a}, {b}, {c}, i32 0, i32 0, i32 0"),
            CallForm::Wmma => format!("{a}, {b}, {c}"),
            CallForm::WmmaInt => format!("i1 1, {a}, i1 1, {b}, {c}, i1 0"),
            CallForm::WmmaGfx1250 => format!("i1 0, {a}, i1 0, {b}, i16 0, {c}, i1 0, i1 0"),
            CallForm::WmmaGfx1250Fp8 => format!("{a}, {b}, i16 0, {c}, i1 0, i1 0"),
            CallForm::MfmaScaled(f) => format!("{a}, {b}, {c}, i32 {f}, i32 {f}, i32 0, i32 0, i32 0, i32 0"),
        }
    }
}

/// `(row, k)` or `(row, column)` coordinates of one basis vector.
pub type Basis = [u32; 2];

impl MmaInstruction {
    /// The operand's bases for a wave of `wave` lanes: per element bit and per lane bit, the
    /// `(row, k)` step it makes (B reads `row` as its column `j`).
    ///
    /// ```
    /// use linear_layout::target::mma::MMA_INSTRUCTIONS;
    /// let gfx11 = MMA_INSTRUCTIONS.iter().find(|i| i.intrinsic.ends_with("16x16x16.f16.v8f32.v16f16")).unwrap();
    /// let (e, l) = gfx11.operand_bases(32);
    /// assert_eq!(e.len(), 4);
    /// assert_eq!(l[4], [0, 0]); // lane 16 holds a copy of lane 0
    /// ```
    pub fn operand_bases(&self, wave: u32) -> (Vec<Basis>, Vec<Basis>) {
        let p = self.operand;
        let elements: Vec<Basis> = (0..p.elements_log2).map(|b| [0, 1 << b]).collect();
        let mut lanes = Vec::new();
        let mut k_bit = p.elements_log2;
        for b in 0..wave.trailing_zeros() {
            if b < p.row_lanes_log2 {
                lanes.push([1 << b, 0]);
            } else if b < p.row_lanes_log2 + p.replicated_lanes_log2 {
                lanes.push([0, 0]);
            } else {
                lanes.push([0, 1 << k_bit]);
                k_bit += 1;
            }
        }
        (elements, lanes)
    }

    /// The accumulator's bases: per result register bit and per lane bit, the `(i, j)` step.
    ///
    /// ```
    /// use linear_layout::target::mma::MMA_INSTRUCTIONS;
    /// let i = MMA_INSTRUCTIONS.iter().find(|i| i.intrinsic == "llvm.amdgcn.mfma.f32.16x16x16f16").unwrap();
    /// let (r, l) = i.acc_bases(64);
    /// assert_eq!(r, vec![[1, 0], [2, 0]]);
    /// assert_eq!(&l[4..], &[[4, 0], [8, 0]]);
    /// ```
    pub fn acc_bases(&self, wave: u32) -> (Vec<Basis>, Vec<Basis>) {
        let lane_bits = wave.trailing_zeros();
        let col_bits = self.n.trailing_zeros();
        let row_bits = self.m.trailing_zeros();
        let upper_lanes = lane_bits.saturating_sub(col_bits);
        let reg_bits = (row_bits + col_bits).saturating_sub(lane_bits);
        let lanes_col: Vec<Basis> = (0..col_bits.min(lane_bits)).map(|b| [0, 1 << b]).collect();
        let (regs, upper): (Vec<Basis>, Vec<Basis>) = match self.acc_pattern {
            AccPattern::Mfma => {
                let low = reg_bits.min(2);
                let regs_low = (0..low).map(|b| [1 << b, 0]);
                let upper: Vec<Basis> = (0..upper_lanes).map(|b| [1 << (low + b), 0]).collect();
                let regs_high = (low..reg_bits).map(|b| [1 << (b + upper_lanes), 0]);
                (regs_low.chain(regs_high).collect(), upper)
            }
            AccPattern::MfmaF64 => {
                let upper: Vec<Basis> = (0..upper_lanes).map(|b| [1 << b, 0]).collect();
                (
                    (0..reg_bits).map(|b| [1 << (b + upper_lanes), 0]).collect(),
                    upper,
                )
            }
            AccPattern::WmmaGfx11 => {
                let upper: Vec<Basis> = (0..upper_lanes).map(|b| [1 << b, 0]).collect();
                (
                    (0..reg_bits).map(|b| [1 << (b + upper_lanes), 0]).collect(),
                    upper,
                )
            }
            AccPattern::WmmaGfx12 => (
                (0..reg_bits).map(|b| [1 << b, 0]).collect(),
                (0..upper_lanes).map(|b| [1 << (b + reg_bits), 0]).collect(),
            ),
        };
        (regs, lanes_col.into_iter().chain(upper).collect())
    }

    /// Whether a target with these matrix facts has the instruction.
    ///
    /// ```
    /// use linear_layout::target::mma::MMA_INSTRUCTIONS;
    /// let i8_old = MMA_INSTRUCTIONS.iter().find(|i| i.intrinsic == "llvm.amdgcn.mfma.i32.32x32x8i8").unwrap();
    /// assert!(i8_old.available(Some(2), None)); // gfx90a (MFMA v2)
    /// assert!(!i8_old.available(Some(3), None)); // not on gfx942
    /// ```
    pub fn available(&self, mfma_version: Option<u32>, wmma_version: Option<u32>) -> bool {
        match self.unit {
            Unit::Mfma(v) => mfma_version.is_some_and(|x| v.contains(&x)),
            Unit::Wmma(v) => wmma_version.is_some_and(|x| v.contains(&x)),
        }
    }

    /// Bits of one lane's A (or B) operand.
    ///
    /// ```
    /// use linear_layout::target::mma::MMA_INSTRUCTIONS;
    /// let i = MMA_INSTRUCTIONS.iter().find(|i| i.intrinsic == "llvm.amdgcn.mfma.f32.32x32x8f16").unwrap();
    /// assert_eq!(i.operand_bits(), 64); // 4 × f16
    /// ```
    pub fn operand_bits(&self) -> u32 {
        (1u32 << self.operand.elements_log2) * element_bits(self.ab)
    }
}

/// Bits of a Triton element type name (0 for a name the table does not use).
///
/// ```
/// use linear_layout::target::mma::element_bits;
/// assert_eq!((element_bits("bf16"), element_bits("f8E4M3FNUZ"), element_bits("f64")), (16, 8, 64));
/// ```
pub fn element_bits(name: &str) -> u32 {
    match name {
        "f64" | "i64" => 64,
        "f32" | "tf32" | "i32" => 32,
        "f16" | "bf16" | "i16" => 16,
        "i8" | "f8E4M3FNUZ" | "f8E5M2FNUZ" | "f8E4M3FN" | "f8E5M2" => 8,
        _ => 0,
    }
}

const fn op(elements_log2: u32, row_lanes_log2: u32, replicated_lanes_log2: u32) -> OperandPattern {
    OperandPattern {
        elements_log2,
        row_lanes_log2,
        replicated_lanes_log2,
    }
}

#[allow(clippy::too_many_arguments)]
const fn mfma(
    intrinsic: &'static str,
    versions: &'static [u32],
    shape: (u32, u32, u32),
    ab: &'static str,
    acc: &'static str,
    ab_llvm: &'static str,
    acc_llvm: &'static str,
    elements_log2: u32,
) -> MmaInstruction {
    MmaInstruction {
        intrinsic,
        unit: Unit::Mfma(versions),
        m: shape.0,
        n: shape.1,
        k: shape.2,
        ab,
        acc,
        ab_llvm,
        acc_llvm,
        wave: 64,
        operand: op(elements_log2, shape.0.trailing_zeros(), 0),
        acc_pattern: AccPattern::Mfma,
        call: CallForm::Mfma,
    }
}

/// A gfx950 scaled f8f6f4 MFMA of 8-bit floats of format `format` with unit scales.
const fn scaled_fp8(
    intrinsic: &'static str,
    shape: (u32, u32, u32),
    ab: &'static str,
    acc_llvm: &'static str,
    format: u8,
) -> MmaInstruction {
    MmaInstruction {
        call: CallForm::MfmaScaled(format),
        ..mfma(intrinsic, CDNA4, shape, ab, "f32", "<8 x i32>", acc_llvm, 5)
    }
}

#[allow(clippy::too_many_arguments)]
const fn wmma(
    intrinsic: &'static str,
    versions: &'static [u32],
    k: u32,
    ab: &'static str,
    acc: &'static str,
    ab_llvm: &'static str,
    acc_llvm: &'static str,
    operand: OperandPattern,
    acc_pattern: AccPattern,
    call: CallForm,
) -> MmaInstruction {
    MmaInstruction {
        intrinsic,
        unit: Unit::Wmma(versions),
        m: 16,
        n: 16,
        k,
        ab,
        acc,
        ab_llvm,
        acc_llvm,
        wave: 32,
        operand,
        acc_pattern,
        call,
    }
}

const CDNA_ALL: &[u32] = &[1, 2, 3, 4];
const CDNA2_UP: &[u32] = &[2, 3, 4];
const CDNA12: &[u32] = &[1, 2];
const CDNA34: &[u32] = &[3, 4];
const CDNA3: &[u32] = &[3];
const CDNA4: &[u32] = &[4];

/// Every matrix instruction the lowering may emit, preferred first within a (type, shape)
/// (amdgpu-lowering.md §0, §9, §10; each verified with llc-22 on the targets that have it).
///
/// ```
/// use linear_layout::target::mma::MMA_INSTRUCTIONS;
/// let gfx950_f16: Vec<&str> = MMA_INSTRUCTIONS.iter()
///     .filter(|i| i.ab == "f16" && i.acc == "f32" && i.available(Some(4), None))
///     .map(|i| i.intrinsic).collect();
/// assert!(gfx950_f16.contains(&"llvm.amdgcn.mfma.f32.32x32x16.f16"));
/// ```
pub const MMA_INSTRUCTIONS: &[MmaInstruction] = &[
    // gfx950's doubled-K 16-bit forms first: half the instructions for the same K.
    mfma(
        "llvm.amdgcn.mfma.f32.32x32x16.f16",
        CDNA4,
        (32, 32, 16),
        "f16",
        "f32",
        "<8 x half>",
        "<16 x float>",
        3,
    ),
    mfma(
        "llvm.amdgcn.mfma.f32.16x16x32.f16",
        CDNA4,
        (16, 16, 32),
        "f16",
        "f32",
        "<8 x half>",
        "<4 x float>",
        3,
    ),
    mfma(
        "llvm.amdgcn.mfma.f32.32x32x16.bf16",
        CDNA4,
        (32, 32, 16),
        "bf16",
        "f32",
        "<8 x bfloat>",
        "<16 x float>",
        3,
    ),
    mfma(
        "llvm.amdgcn.mfma.f32.16x16x32.bf16",
        CDNA4,
        (16, 16, 32),
        "bf16",
        "f32",
        "<8 x bfloat>",
        "<4 x float>",
        3,
    ),
    mfma(
        "llvm.amdgcn.mfma.f32.32x32x8f16",
        CDNA_ALL,
        (32, 32, 8),
        "f16",
        "f32",
        "<4 x half>",
        "<16 x float>",
        2,
    ),
    mfma(
        "llvm.amdgcn.mfma.f32.16x16x16f16",
        CDNA_ALL,
        (16, 16, 16),
        "f16",
        "f32",
        "<4 x half>",
        "<4 x float>",
        2,
    ),
    mfma(
        "llvm.amdgcn.mfma.f32.32x32x8bf16.1k",
        CDNA2_UP,
        (32, 32, 8),
        "bf16",
        "f32",
        "<4 x i16>",
        "<16 x float>",
        2,
    ),
    mfma(
        "llvm.amdgcn.mfma.f32.16x16x16bf16.1k",
        CDNA2_UP,
        (16, 16, 16),
        "bf16",
        "f32",
        "<4 x i16>",
        "<4 x float>",
        2,
    ),
    mfma(
        "llvm.amdgcn.mfma.f32.32x32x2f32",
        CDNA_ALL,
        (32, 32, 2),
        "f32",
        "f32",
        "float",
        "<16 x float>",
        0,
    ),
    mfma(
        "llvm.amdgcn.mfma.f32.16x16x4f32",
        CDNA_ALL,
        (16, 16, 4),
        "f32",
        "f32",
        "float",
        "<4 x float>",
        0,
    ),
    // CDNA3's XF32: f32 operands read at TF32 precision (10 mantissa bits), two per lane
    // along K — what Triton maps a `tf32` dot of f32 to on gfx942.
    mfma(
        "llvm.amdgcn.mfma.f32.32x32x4.xf32",
        CDNA3,
        (32, 32, 4),
        "tf32",
        "f32",
        "<2 x float>",
        "<16 x float>",
        1,
    ),
    mfma(
        "llvm.amdgcn.mfma.f32.16x16x8.xf32",
        CDNA3,
        (16, 16, 8),
        "tf32",
        "f32",
        "<2 x float>",
        "<4 x float>",
        1,
    ),
    MmaInstruction {
        acc_pattern: AccPattern::MfmaF64,
        ..mfma(
            "llvm.amdgcn.mfma.f64.16x16x4f64",
            CDNA2_UP,
            (16, 16, 4),
            "f64",
            "f64",
            "double",
            "<4 x double>",
            0,
        )
    },
    mfma(
        "llvm.amdgcn.mfma.i32.32x32x32.i8",
        CDNA4,
        (32, 32, 32),
        "i8",
        "i32",
        "<4 x i32>",
        "<16 x i32>",
        4,
    ),
    mfma(
        "llvm.amdgcn.mfma.i32.16x16x64.i8",
        CDNA4,
        (16, 16, 64),
        "i8",
        "i32",
        "<4 x i32>",
        "<4 x i32>",
        4,
    ),
    mfma(
        "llvm.amdgcn.mfma.i32.32x32x16.i8",
        CDNA34,
        (32, 32, 16),
        "i8",
        "i32",
        "i64",
        "<16 x i32>",
        3,
    ),
    mfma(
        "llvm.amdgcn.mfma.i32.16x16x32.i8",
        CDNA34,
        (16, 16, 32),
        "i8",
        "i32",
        "i64",
        "<4 x i32>",
        3,
    ),
    mfma(
        "llvm.amdgcn.mfma.i32.32x32x8i8",
        CDNA12,
        (32, 32, 8),
        "i8",
        "i32",
        "i32",
        "<16 x i32>",
        2,
    ),
    mfma(
        "llvm.amdgcn.mfma.i32.16x16x16i8",
        CDNA12,
        (16, 16, 16),
        "i8",
        "i32",
        "i32",
        "<4 x i32>",
        2,
    ),
    mfma(
        "llvm.amdgcn.mfma.f32.32x32x16.fp8.fp8",
        CDNA3,
        (32, 32, 16),
        "f8E4M3FNUZ",
        "f32",
        "i64",
        "<16 x float>",
        3,
    ),
    mfma(
        "llvm.amdgcn.mfma.f32.16x16x32.fp8.fp8",
        CDNA3,
        (16, 16, 32),
        "f8E4M3FNUZ",
        "f32",
        "i64",
        "<4 x float>",
        3,
    ),
    mfma(
        "llvm.amdgcn.mfma.f32.32x32x16.bf8.bf8",
        CDNA3,
        (32, 32, 16),
        "f8E5M2FNUZ",
        "f32",
        "i64",
        "<16 x float>",
        3,
    ),
    mfma(
        "llvm.amdgcn.mfma.f32.16x16x32.bf8.bf8",
        CDNA3,
        (16, 16, 32),
        "f8E5M2FNUZ",
        "f32",
        "i64",
        "<4 x float>",
        3,
    ),
    mfma(
        "llvm.amdgcn.mfma.f32.32x32x16.fp8.fp8",
        CDNA4,
        (32, 32, 16),
        "f8E4M3FN",
        "f32",
        "i64",
        "<16 x float>",
        3,
    ),
    mfma(
        "llvm.amdgcn.mfma.f32.16x16x32.fp8.fp8",
        CDNA4,
        (16, 16, 32),
        "f8E4M3FN",
        "f32",
        "i64",
        "<4 x float>",
        3,
    ),
    mfma(
        "llvm.amdgcn.mfma.f32.32x32x16.bf8.bf8",
        CDNA4,
        (32, 32, 16),
        "f8E5M2",
        "f32",
        "i64",
        "<16 x float>",
        3,
    ),
    mfma(
        "llvm.amdgcn.mfma.f32.16x16x32.bf8.bf8",
        CDNA4,
        (16, 16, 32),
        "f8E5M2",
        "f32",
        "i64",
        "<4 x float>",
        3,
    ),
    // gfx950's f8f6f4 instructions with unit scales: 32 fp8 per lane.
    scaled_fp8(
        "llvm.amdgcn.mfma.scale.f32.32x32x64.f8f6f4.v8i32.v8i32",
        (32, 32, 64),
        "f8E4M3FN",
        "<16 x float>",
        0,
    ),
    scaled_fp8(
        "llvm.amdgcn.mfma.scale.f32.16x16x128.f8f6f4.v8i32.v8i32",
        (16, 16, 128),
        "f8E4M3FN",
        "<4 x float>",
        0,
    ),
    scaled_fp8(
        "llvm.amdgcn.mfma.scale.f32.32x32x64.f8f6f4.v8i32.v8i32",
        (32, 32, 64),
        "f8E5M2",
        "<16 x float>",
        1,
    ),
    scaled_fp8(
        "llvm.amdgcn.mfma.scale.f32.16x16x128.f8f6f4.v8i32.v8i32",
        (16, 16, 128),
        "f8E5M2",
        "<4 x float>",
        1,
    ),
    // gfx11: 16 elements per lane, both half-waves carry the same operand.
    wmma(
        "llvm.amdgcn.wmma.f32.16x16x16.f16.v8f32.v16f16",
        &[1],
        16,
        "f16",
        "f32",
        "<16 x half>",
        "<8 x float>",
        op(4, 4, 1),
        AccPattern::WmmaGfx11,
        CallForm::Wmma,
    ),
    wmma(
        "llvm.amdgcn.wmma.f32.16x16x16.bf16.v8f32.v16i16",
        &[1],
        16,
        "bf16",
        "f32",
        "<16 x i16>",
        "<8 x float>",
        op(4, 4, 1),
        AccPattern::WmmaGfx11,
        CallForm::Wmma,
    ),
    wmma(
        "llvm.amdgcn.wmma.i32.16x16x16.iu8.v8i32.v4i32",
        &[1],
        16,
        "i8",
        "i32",
        "<4 x i32>",
        "<8 x i32>",
        op(4, 4, 1),
        AccPattern::WmmaGfx11,
        CallForm::WmmaInt,
    ),
    // gfx12: 8 elements per lane, the half-waves split K.
    wmma(
        "llvm.amdgcn.wmma.f32.16x16x16.f16.v8f32.v8f16",
        &[2],
        16,
        "f16",
        "f32",
        "<8 x half>",
        "<8 x float>",
        op(3, 4, 0),
        AccPattern::WmmaGfx12,
        CallForm::Wmma,
    ),
    wmma(
        "llvm.amdgcn.wmma.f32.16x16x16.bf16.v8f32.v8i16",
        &[2],
        16,
        "bf16",
        "f32",
        "<8 x i16>",
        "<8 x float>",
        op(3, 4, 0),
        AccPattern::WmmaGfx12,
        CallForm::Wmma,
    ),
    wmma(
        "llvm.amdgcn.wmma.i32.16x16x16.iu8.v8i32.v2i32",
        &[2],
        16,
        "i8",
        "i32",
        "<2 x i32>",
        "<8 x i32>",
        op(3, 4, 0),
        AccPattern::WmmaGfx12,
        CallForm::WmmaInt,
    ),
    wmma(
        "llvm.amdgcn.wmma.f32.16x16x16.fp8.fp8.v8f32.v2i32",
        &[2],
        16,
        "f8E4M3FN",
        "f32",
        "<2 x i32>",
        "<8 x float>",
        op(3, 4, 0),
        AccPattern::WmmaGfx12,
        CallForm::Wmma,
    ),
    // gfx1250: K doubled, with operand modifiers.
    wmma(
        "llvm.amdgcn.wmma.f32.16x16x32.f16.v8f32.v16f16",
        &[3],
        32,
        "f16",
        "f32",
        "<16 x half>",
        "<8 x float>",
        op(4, 4, 0),
        AccPattern::WmmaGfx12,
        CallForm::WmmaGfx1250,
    ),
    wmma(
        "llvm.amdgcn.wmma.f32.16x16x64.fp8.fp8.v8f32.v8i32",
        &[3],
        64,
        "f8E4M3FN",
        "f32",
        "<8 x i32>",
        "<8 x float>",
        op(5, 4, 0),
        AccPattern::WmmaGfx12,
        CallForm::WmmaGfx1250Fp8,
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Law: an instruction's bases cover its tile exactly once — the operand's (element, lane)
    /// bits span every (row, k) of `M × K` (copies aside), the accumulator's every (i, j).
    #[test]
    fn bases_cover_the_tile() {
        for i in MMA_INSTRUCTIONS {
            let (e, l) = i.operand_bases(i.wave);
            let mut seen = std::collections::HashSet::new();
            let all: Vec<Basis> = e.iter().chain(&l).copied().filter(|b| *b != [0, 0]).collect();
            for x in 0u32..1 << all.len() {
                let mut v = [0u32; 2];
                for (b, basis) in all.iter().enumerate() {
                    if x >> b & 1 == 1 {
                        v = [v[0] ^ basis[0], v[1] ^ basis[1]];
                    }
                }
                assert!(v[0] < i.m && v[1] < i.k, "{}: {v:?}", i.intrinsic);
                assert!(seen.insert(v), "{}", i.intrinsic);
            }
            assert_eq!(seen.len() as u32, i.m * i.k, "{}", i.intrinsic);
            let (r, l) = i.acc_bases(i.wave);
            let all: Vec<Basis> = r.iter().chain(&l).copied().collect();
            let mut seen = std::collections::HashSet::new();
            for x in 0u32..1 << all.len() {
                let mut v = [0u32; 2];
                for (b, basis) in all.iter().enumerate() {
                    if x >> b & 1 == 1 {
                        v = [v[0] ^ basis[0], v[1] ^ basis[1]];
                    }
                }
                assert!(seen.insert(v), "{}", i.intrinsic);
            }
            assert_eq!(seen.len() as u32, i.m * i.n, "{}", i.intrinsic);
            assert_eq!(i.operand_bits(), llvm_bits(i.ab_llvm), "{}", i.intrinsic);
        }
    }

    fn llvm_bits(t: &str) -> u32 {
        let (n, elem) = match t.strip_prefix('<').and_then(|x| x.strip_suffix('>')) {
            Some(v) => {
                let (n, e) = v.split_once(" x ").unwrap();
                (n.parse::<u32>().unwrap(), e)
            }
            None => (1, t),
        };
        let b = match elem {
            "half" | "bfloat" | "i16" => 16,
            "float" | "i32" => 32,
            "double" | "i64" => 64,
            _ => 0,
        };
        n * b
    }
}
