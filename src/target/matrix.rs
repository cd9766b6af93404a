//! Matrix units as data: which MFMA / WMMA generation a target has, whether `v_dot` exists, and
//! the MFMA instruction database Triton 3.6's accelerate-matmul selects from.

/// The matrix-instruction facts of one target (Triton 3.6's `isaFamily` view, LLVM 22 spellings).
///
/// Sources: `amdgpu-lowering.md` §9–§10 (MFMA/WMMA per target, verified with LLVM 22);
/// Triton 3.6 `third_party/amd/lib/TritonAMDGPUTransforms/AccelerateAMDMatmul.cpp` (which
/// version it uses for `tt.dot`, and when `v_dot` keeps an FMA dot in its types).
///
/// ```
/// use linear_layout::target::Target;
/// let m = Target::by_name("gfx950")?.matrix;
/// assert_eq!((m.mfma_version, m.wmma_version, m.v_dot2_bf16), (Some(4), None, true));
/// # Ok::<(), String>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct MatrixFacts {
    /// MFMA version (1 = CDNA1 … 4 = CDNA4) that `tt.dot` maps to, if any.
    pub mfma_version: Option<u32>,
    /// WMMA version (1 = gfx11, 2 = gfx12) that `tt.dot` maps to, if any (gfx1250: none in 3.6).
    pub wmma_version: Option<u32>,
    /// WMMA version the hardware has, whether or not Triton 3.6 maps `tt.dot` to it (gfx1250:
    /// 3, the K-doubled forms of amdgpu-lowering.md §10 \[V\]).
    pub wmma_hardware: Option<u32>,
    /// `v_dot2_f32_f16` / `v_dot4_i32_i8` exist: an FMA dot f16·f16→f32 or i8·i8→i32 stays in
    /// its types.
    pub v_dot: bool,
    /// `v_dot2_f32_bf16` exists: an FMA dot bf16·bf16→f32 stays in bf16.
    pub v_dot2_bf16: bool,
}

/// Type classes of the MFMA table.
///
/// ```
/// use linear_layout::target::matrix::MfmaType;
/// assert_eq!(MfmaType::classify("f8E5M2FNUZ", "f8E4M3FNUZ"), Some(MfmaType::Fp8Fnuz));
/// assert_eq!(MfmaType::classify("f16", "bf16"), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum MfmaType {
    /// f32.
    F32,
    /// f32 with `inputPrecision = tf32`.
    Tf32,
    /// f64.
    F64,
    /// f16.
    F16,
    /// bf16.
    Bf16,
    /// i8.
    I8,
    /// Any mix of f8E4M3FNUZ / f8E5M2FNUZ.
    Fp8Fnuz,
    /// Any mix of f8E4M3FN / f8E5M2 (OCP).
    Fp8Ocp,
    /// The scaled f8f6f4 family.
    F8F6F4,
}

pub(crate) fn is_ocp(t: &str) -> bool {
    matches!(t, "f8E4M3FN" | "f8E5M2")
}
fn is_fnuz(t: &str) -> bool {
    matches!(t, "f8E4M3FNUZ" | "f8E5M2FNUZ")
}

impl MfmaType {
    /// The class of an operand type pair, if the table has one.
    ///
    /// ```
    /// use linear_layout::target::matrix::MfmaType;
    /// assert_eq!(MfmaType::classify("i8", "i8"), Some(MfmaType::I8));
    /// ```
    pub fn classify(a: &str, b: &str) -> Option<MfmaType> {
        if is_ocp(a) && is_ocp(b) {
            return Some(MfmaType::Fp8Ocp);
        }
        if is_fnuz(a) && is_fnuz(b) {
            return Some(MfmaType::Fp8Fnuz);
        }
        if a != b {
            return None;
        }
        Some(match a {
            "f32" => MfmaType::F32,
            "tf32" => MfmaType::Tf32,
            "f64" => MfmaType::F64,
            "f16" => MfmaType::F16,
            "bf16" => MfmaType::Bf16,
            "i8" => MfmaType::I8,
            _ => return None,
        })
    }
}

/// One row of the MFMA instruction table: versions, tile, type class, and the `(kDim, kBase)`
/// candidates in preference order. For 4×64 / 64×4 tiles `kDim` is the K covered by the 16
/// blocks of the 4×4 instruction, as Triton prints it.
///
/// ```
/// use linear_layout::target::matrix::{mfma_candidates, MfmaType};
/// assert_eq!(mfma_candidates(4, 32, 32, MfmaType::F16), Some(&[(16, 8), (8, 4)][..]));
/// assert_eq!(mfma_candidates(3, 16, 16, MfmaType::Fp8Fnuz), Some(&[(32, 8)][..]));
/// assert_eq!(mfma_candidates(2, 16, 16, MfmaType::Fp8Fnuz), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct MfmaRow {
    /// MFMA versions having this row.
    pub versions: &'static [u32],
    /// M of the tile.
    pub m: u32,
    /// N of the tile.
    pub n: u32,
    /// Operand type class.
    pub ty: MfmaType,
    /// `(kDim, kBase)` candidates, preferred first.
    pub cands: &'static [(u32, u32)],
}

macro_rules! row {
    ($v:expr, $m:expr, $n:expr, $t:ident, $c:expr) => {
        MfmaRow {
            versions: $v,
            m: $m,
            n: $n,
            ty: MfmaType::$t,
            cands: $c,
        }
    };
}

const ALL: &[u32] = &[1, 2, 3, 4];

/// The MFMA instruction database (Triton 3.6 `MfmaGroup`, as observed).
///
/// ```
/// use linear_layout::target::matrix::{MfmaType, MFMA_TABLE};
/// let tf32 = MFMA_TABLE.iter().find(|r| r.ty == MfmaType::Tf32 && r.m == 32).unwrap();
/// assert_eq!((tf32.versions, tf32.cands), (&[3][..], &[(4, 2)][..]));
/// ```
pub const MFMA_TABLE: &[MfmaRow] = &[
    row!(ALL, 32, 32, F32, &[(2, 1)]),
    row!(ALL, 16, 16, F32, &[(4, 1)]),
    row!(ALL, 4, 4, F32, &[(16, 1)]),
    row!(ALL, 4, 64, F32, &[(16, 1)]),
    row!(ALL, 64, 4, F32, &[(16, 1)]),
    row!(&[3], 32, 32, Tf32, &[(4, 2)]),
    row!(&[3], 16, 16, Tf32, &[(8, 2)]),
    row!(&[2, 3, 4], 16, 16, F64, &[(4, 1)]),
    row!(&[1, 2, 3], 32, 32, F16, &[(8, 4)]),
    row!(&[1, 2, 3], 16, 16, F16, &[(16, 4)]),
    row!(&[4], 32, 32, F16, &[(16, 8), (8, 4)]),
    row!(&[4], 16, 16, F16, &[(32, 8), (16, 4)]),
    row!(ALL, 4, 4, F16, &[(64, 4)]),
    row!(ALL, 4, 64, F16, &[(64, 4)]),
    row!(ALL, 64, 4, F16, &[(64, 4)]),
    row!(&[1], 32, 32, Bf16, &[(4, 2)]),
    row!(&[1], 16, 16, Bf16, &[(8, 2)]),
    row!(&[1], 4, 4, Bf16, &[(32, 2)]),
    row!(&[1], 4, 64, Bf16, &[(32, 2)]),
    row!(&[1], 64, 4, Bf16, &[(32, 2)]),
    row!(&[2], 32, 32, Bf16, &[(8, 4), (4, 2)]),
    row!(&[2], 16, 16, Bf16, &[(16, 4), (8, 2)]),
    row!(&[3], 32, 32, Bf16, &[(8, 4)]),
    row!(&[3], 16, 16, Bf16, &[(16, 4)]),
    row!(&[4], 32, 32, Bf16, &[(16, 8), (8, 4)]),
    row!(&[4], 16, 16, Bf16, &[(32, 8), (16, 4)]),
    row!(&[2, 3, 4], 4, 4, Bf16, &[(64, 4)]),
    row!(&[2, 3, 4], 4, 64, Bf16, &[(64, 4)]),
    row!(&[2, 3, 4], 64, 4, Bf16, &[(64, 4)]),
    row!(ALL, 4, 4, I8, &[(64, 4)]),
    row!(ALL, 4, 64, I8, &[(64, 4)]),
    row!(ALL, 64, 4, I8, &[(64, 4)]),
    row!(&[1, 2], 32, 32, I8, &[(8, 4)]),
    row!(&[1, 2], 16, 16, I8, &[(16, 4)]),
    row!(&[3], 32, 32, I8, &[(16, 8)]),
    row!(&[3], 16, 16, I8, &[(32, 8)]),
    row!(&[4], 32, 32, I8, &[(32, 16), (16, 8)]),
    row!(&[4], 16, 16, I8, &[(64, 16), (32, 8)]),
    row!(&[3], 32, 32, Fp8Fnuz, &[(16, 8)]),
    row!(&[3], 16, 16, Fp8Fnuz, &[(32, 8)]),
    row!(&[4], 32, 32, Fp8Ocp, &[(16, 8)]),
    row!(&[4], 16, 16, Fp8Ocp, &[(32, 8)]),
    row!(&[4], 32, 32, F8F6F4, &[(64, 32)]),
    row!(&[4], 16, 16, F8F6F4, &[(128, 32)]),
];

/// The `(kDim, kBase)` candidates for a version, tile and type class.
///
/// ```
/// use linear_layout::target::matrix::{mfma_candidates, MfmaType};
/// assert_eq!(mfma_candidates(3, 4, 64, MfmaType::F16), Some(&[(64, 4)][..]));
/// ```
pub fn mfma_candidates(version: u32, m: u32, n: u32, ty: MfmaType) -> Option<&'static [(u32, u32)]> {
    MFMA_TABLE
        .iter()
        .find(|r| r.m == m && r.n == n && r.ty == ty && r.versions.contains(&version))
        .map(|r| r.cands)
}
