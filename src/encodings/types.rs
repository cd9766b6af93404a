//! The typed encoding values and their validation (Triton's attribute verifiers).

use std::sync::Arc;

use super::error::EncodingError;
use crate::limits::LimitExceeded;

/// Block bases of the CTA tiling (`CGALayout = [[…]]` in 3.6 text); empty means one CTA.
///
/// Each basis has one entry per tensor dimension: the position (in units of the per-CTA
/// extent) of the CTA selected by that bit of the block id. A zero basis replicates the data
/// over CTAs (multicast).
///
/// ```
/// use linear_layout::encodings::{CgaBases, Encoding};
/// // Two CTAs split dim 1, two more replicate: 4 CTAs in all.
/// let cga: CgaBases = vec![vec![0, 1], vec![0, 0]];
/// let e: Encoding = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0], CGALayout = [[0, 1], [0, 0]]}>".parse()?;
/// let Encoding::SwizzledShared(s) = &e else { unreachable!() };
/// assert_eq!(s.cga_layout, cga);
/// assert_eq!(e.to_linear_layout(&[4, 16])?.bases("block")?, vec![vec![0, 8], vec![0, 0]]);
/// # Ok::<(), linear_layout::encodings::EncodingError>(())
/// ```
pub type CgaBases = Vec<Vec<u32>>;

/// Largest tensor rank accepted (Triton has no fixed limit; layouts are 64-bit anyway).
///
/// ```
/// use linear_layout::encodings::{Encoding, MAX_RANK};
/// let e: Encoding = "#ttg.linear<{register = [], lane = [[1]], warp = [], block = []}>".parse()?;
/// assert!(e.to_linear_layout(&vec![1; MAX_RANK + 1]).is_err());
/// # Ok::<(), linear_layout::encodings::EncodingError>(())
/// ```
pub const MAX_RANK: usize = 16;

/// Largest number of tensor elements accepted, as a power of two (2^30): larger shapes are
/// rejected rather than converted.
///
/// ```
/// use linear_layout::encodings::{Encoding, MAX_ELEMENTS_LOG2};
/// let e: Encoding = "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>".parse()?;
/// assert!(e.to_linear_layout(&[1 << MAX_ELEMENTS_LOG2]).is_ok());
/// assert!(e.to_linear_layout(&[1 << (MAX_ELEMENTS_LOG2 + 1)]).is_err());
/// # Ok::<(), linear_layout::encodings::EncodingError>(())
/// ```
pub const MAX_ELEMENTS_LOG2: u32 = 30;

/// Deepest nesting of `slice` / `dot_op` parents accepted (in JSON, text and values).
///
/// ```
/// use linear_layout::encodings::{Encoding, MAX_NESTING};
/// let mut text = "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>".to_string();
/// for _ in 0..=MAX_NESTING {
///     text = format!("#ttg.slice<{{dim = 0, parent = {text}}}>");
/// }
/// assert!(text.parse::<Encoding>().is_err());
/// ```
pub const MAX_NESTING: usize = 16;

/// `#ttg.blocked`: each thread holds `sizePerThread` contiguous elements, lanes and warps tile
/// the rest, all walked in `order` (fastest dimension first).
///
/// ```
/// use linear_layout::encodings::{Blocked, Encoding};
/// let b = Blocked { size_per_thread: vec![1, 4], threads_per_warp: vec![8, 4], warps_per_cta: vec![2, 2],
///                   order: vec![1, 0], cga_layout: vec![] };
/// let l = Encoding::Blocked(b).to_linear_layout(&[64, 64])?;
/// assert_eq!(l.bases("warp")?, vec![vec![0, 16], vec![8, 0]]);
/// # Ok::<(), linear_layout::encodings::EncodingError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Blocked {
    /// Contiguous elements per thread, per dimension.
    pub size_per_thread: Vec<u32>,
    /// Lanes per dimension (their product is the warp size).
    pub threads_per_warp: Vec<u32>,
    /// Warps per dimension.
    pub warps_per_cta: Vec<u32>,
    /// Dimensions from fastest to slowest varying.
    pub order: Vec<u32>,
    /// CTA tiling bases.
    pub cga_layout: CgaBases,
}

/// `#ttg.slice`: the parent's layout with dimension `dim` removed (the tensor has one
/// dimension fewer than the parent).
///
/// ```
/// use linear_layout::encodings::Encoding;
/// let e: Encoding = "#ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>}>".parse()?;
/// let l = e.to_linear_layout(&[64])?;
/// assert_eq!(l.bases("register")?, vec![vec![1], vec![2], vec![32]]);
/// # Ok::<(), linear_layout::encodings::EncodingError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Slice {
    /// The parent dimension that is removed.
    pub dim: u32,
    /// Any distributed encoding.
    pub parent: Arc<Encoding>,
}

/// `#ttg.amd_mfma`: the result (C/D) layout of AMD CDNA matrix-core instructions.
///
/// ```
/// use linear_layout::encodings::{AmdMfma, Encoding};
/// let m = AmdMfma { version: 3, warps_per_cta: vec![1, 1], instr_shape: vec![32, 32, 8],
///                   is_transposed: false, tiles_per_warp: vec![1, 1], element_bit_width: 32, cga_layout: vec![] };
/// let l = Encoding::AmdMfma(m).to_linear_layout(&[32, 32])?;
/// assert_eq!(l.bases("register")?, vec![vec![1, 0], vec![2, 0], vec![8, 0], vec![16, 0]]);
/// # Ok::<(), linear_layout::encodings::EncodingError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AmdMfma {
    /// 1 = gfx908, 2 = gfx90a, 3 = gfx942, 4 = gfx950 (does not affect the layout).
    pub version: u32,
    /// Warps per dimension (rank 2, or 3 with a leading batch dimension).
    pub warps_per_cta: Vec<u32>,
    /// `[M, N, K]` of the instruction.
    pub instr_shape: Vec<u32>,
    /// Whether each thread holds a row segment instead of a column segment.
    pub is_transposed: bool,
    /// Instruction tiles per warp, per dimension (all 1 by default).
    pub tiles_per_warp: Vec<u32>,
    /// Bit width of the result elements: 32 (default) or 64.
    pub element_bit_width: u32,
    /// CTA tiling bases.
    pub cga_layout: CgaBases,
}

/// `#ttg.amd_wmma`: the result layout of AMD RDNA / gfx1250 WMMA instructions.
///
/// ```
/// use linear_layout::encodings::Encoding;
/// let e: Encoding = "#ttg.amd_wmma<{version = 2, isTranspose = false, warpsPerCTA = [1, 1]}>".parse()?;
/// let l = e.to_linear_layout(&[16, 16])?;
/// assert_eq!(l.bases("lane")?[4], vec![8, 0]);
/// # Ok::<(), linear_layout::encodings::EncodingError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AmdWmma {
    /// 1 = RDNA3, 2 = RDNA4, 3 = gfx1250.
    pub version: u32,
    /// `isTranspose` in the MLIR text.
    pub is_transposed: bool,
    /// Warps per dimension (rank 2 or 3).
    pub warps_per_cta: Vec<u32>,
    /// Instruction tiles per warp (all 1 by default).
    pub tiles_per_warp: Vec<u32>,
    /// `[M, N, K]` (default `[16, 16, 16]`).
    pub instr_shape: Vec<u32>,
    /// CTA tiling bases.
    pub cga_layout: CgaBases,
}

/// `#ttg.nvidia_mma`: NVIDIA Ampere (`versionMajor = 2`) and Hopper (3) accumulator layouts.
///
/// ```
/// use linear_layout::encodings::Encoding;
/// let e: Encoding = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>".parse()?;
/// let l = e.to_linear_layout(&[64, 64])?;
/// assert_eq!(l.bases("warp")?, vec![vec![0, 8], vec![16, 0]]);
/// # Ok::<(), linear_layout::encodings::EncodingError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NvidiaMma {
    /// 2 = Ampere `mma.sync`, 3 = Hopper `wgmma`.
    pub version_major: u32,
    /// Minor version (1 = Turing for major 2).
    pub version_minor: u32,
    /// Warps per dimension.
    pub warps_per_cta: Vec<u32>,
    /// CTA tiling bases.
    pub cga_layout: CgaBases,
    /// v2: `[16, 8]` (`[1, 16, 8]` in 3-D); v3: `[16, N, K]`.
    pub instr_shape: Vec<u32>,
}

/// `#ttg.dot_op`: the layout of operand A (`opIdx = 0`, `M×K`) or B (`opIdx = 1`, `K×N`) of a
/// dot whose result has the `parent` layout.
///
/// ```
/// use linear_layout::encodings::Encoding;
/// let e: Encoding = "#ttg.dot_op<{opIdx = 0, parent = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 4], instrShape = [32, 32, 8], isTransposed = false}>, kWidth = 4}>".parse()?;
/// let l = e.to_linear_layout(&[128, 128])?;
/// assert_eq!(l.bases("lane")?[5], vec![0, 4]);
/// # Ok::<(), linear_layout::encodings::EncodingError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DotOperand {
    /// 0 = A, 1 = B.
    pub op_idx: u32,
    /// `blocked`, `nvidia_mma`, `amd_mfma` or `amd_wmma`.
    pub parent: Arc<Encoding>,
    /// Consecutive K elements per thread (0 for a blocked parent).
    pub k_width: u32,
}

/// `#ttg.linear`: a distributed layout given by its bases.
///
/// ```
/// use linear_layout::encodings::Encoding;
/// let e: Encoding = "#ttg.linear<{register = [[1]], lane = [[2], [4]], warp = [], block = []}>".parse()?;
/// assert_eq!(e.to_linear_layout(&[8])?.bases("lane")?, vec![vec![2], vec![4]]);
/// # Ok::<(), linear_layout::encodings::EncodingError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Linear {
    /// Register bases.
    pub register: Vec<Vec<u32>>,
    /// Lane bases.
    pub lane: Vec<Vec<u32>>,
    /// Warp bases.
    pub warp: Vec<Vec<u32>>,
    /// Block bases.
    pub block: Vec<Vec<u32>>,
    /// The layout's own shape (out-dim sizes). The MLIR text has none: parsing infers it
    /// from the bases (the smallest powers of two above them). `None` (the JSON schema's
    /// default) builds the layout on the shape of the tensor it is converted for.
    pub shape: Option<Vec<u64>>,
}

/// The parameters of `#ttg.swizzled_shared` ([`Encoding::SwizzledShared`]) and
/// `#ttg.amd_rotating_shared` ([`Encoding::AmdRotatingShared`]): rows of the two fastest dims
/// XOR-swizzled in groups of `vec` elements (the rotating variant also XORs in the block of
/// rows, so the pattern rotates every `perPhase · maxPhase` rows).
///
/// ```
/// use linear_layout::encodings::Encoding;
/// let e: Encoding = "#ttg.swizzled_shared<{vec = 4, perPhase = 2, maxPhase = 4, order = [1, 0]}>".parse()?;
/// let l = e.to_linear_layout(&[32, 32])?;
/// assert_eq!(l.bases("offset")?[6], vec![2, 4]);
/// # Ok::<(), linear_layout::encodings::EncodingError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Swizzled {
    /// Elements per swizzle group.
    pub vec: u32,
    /// Rows sharing one phase.
    pub per_phase: u32,
    /// Number of distinct phases.
    pub max_phase: u32,
    /// Dimensions from fastest to slowest varying.
    pub order: Vec<u32>,
    /// CTA tiling bases.
    pub cga_layout: CgaBases,
}

/// `#ttg.nvmma_shared`: the shared layout read by NVIDIA wgmma / written by TMA.
///
/// ```
/// use linear_layout::encodings::Encoding;
/// let e: Encoding = "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>".parse()?;
/// let l = e.to_linear_layout(&[64, 64])?;
/// assert_eq!(l.bases("offset")?[6], vec![1, 8]);
/// # Ok::<(), linear_layout::encodings::EncodingError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NvmmaShared {
    /// Swizzle width in bytes: 0, 32, 64 or 128.
    pub swizzling_byte_width: u32,
    /// Whether the contiguous dimension is the first rather than the last.
    pub transposed: bool,
    /// Element width in bits.
    pub element_bit_width: u32,
    /// fp4 data padded to 8 bits per element.
    pub fp4_padded: bool,
    /// CTA tiling bases.
    pub cga_layout: CgaBases,
    /// Rank of the CTA tiling (printed as `rank = N` when the tiling is trivial and N ≠ 2);
    /// `None` takes the rank of the tensor it is used with.
    pub rank: Option<u32>,
}

/// The linear component of a [`PaddedShared`] encoding.
///
/// ```
/// use linear_layout::encodings::PaddedLinear;
/// let p = PaddedLinear::Identity { order: vec![1, 0], shape: Some(vec![8, 32]) };
/// assert!(matches!(p, PaddedLinear::Identity { .. }));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PaddedLinear {
    /// Explicit `offset` and `block` bases.
    Bases {
        /// Offset bases.
        offset: Vec<Vec<u32>>,
        /// Block bases.
        block: Vec<Vec<u32>>,
    },
    /// The identity walking the dims in `order`; `shape = None` takes the request's shape.
    Identity {
        /// Dimensions from fastest to slowest.
        order: Vec<u32>,
        /// The shape, if fixed.
        shape: Option<Vec<u64>>,
    },
}

/// `#ttg.padded_shared`: a linear component (logical offset → element) plus padding:
/// after every `intervals[k]` elements, `paddings[k]` unused slots are inserted.
///
/// ```
/// use linear_layout::encodings::Encoding;
/// let e: Encoding = "#ttg.padded_shared<[32:+4] {order = [1, 0], shape = [8, 32]}>".parse()?;
/// let Encoding::PaddedShared(p) = &e else { unreachable!() };
/// assert_eq!(p.physical_offset(33), 37);
/// assert_eq!(e.to_linear_layout(&[8, 32])?.bases("offset")?[5], vec![1, 0]);
/// # Ok::<(), linear_layout::encodings::EncodingError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PaddedShared {
    /// Padding intervals (powers of two, distinct).
    pub intervals: Vec<u32>,
    /// Padding amounts (powers of two).
    pub paddings: Vec<u32>,
    /// The linear component.
    pub linear: PaddedLinear,
}

impl PaddedShared {
    /// The physical offset of logical offset `x`: `x + Σ_k floor(x / I_k) · P_k`.
    ///
    /// ```
    /// use linear_layout::encodings::{PaddedLinear, PaddedShared};
    /// let p = PaddedShared { intervals: vec![2, 4], paddings: vec![1, 2],
    ///                        linear: PaddedLinear::Identity { order: vec![0], shape: None } };
    /// assert_eq!((0..5).map(|x| p.physical_offset(x)).collect::<Vec<_>>(), [0, 1, 3, 4, 8]);
    /// ```
    pub fn physical_offset(&self, x: u64) -> u64 {
        let mut out = x;
        for (&i, &p) in self.intervals.iter().zip(&self.paddings) {
            if i > 0 {
                out = out.saturating_add((x / i as u64).saturating_mul(p as u64));
            }
        }
        out
    }
}

impl PaddedShared {
    /// The allocation size, in elements, of `elements` logical elements: the elements plus
    /// every padding slot that precedes one of them (no padding after the last element), as
    /// Triton's `getPaddedSize`.
    ///
    /// ```
    /// use linear_layout::encodings::{PaddedLinear, PaddedShared};
    /// let p = PaddedShared { intervals: vec![32], paddings: vec![4],
    ///                        linear: PaddedLinear::Identity { order: vec![1, 0], shape: None } };
    /// assert_eq!(p.padded_size(256), 256 + 7 * 4);
    /// assert_eq!(p.padded_size(256), p.physical_offset(255) + 1);
    /// ```
    pub fn padded_size(&self, elements: u64) -> u64 {
        let mut extra = 0u64;
        for (&i, &p) in self.intervals.iter().zip(&self.paddings) {
            if i == 0 {
                continue;
            }
            let mut pad = (elements / i as u64).saturating_mul(p as u64);
            if elements.is_multiple_of(i as u64) {
                pad = pad.saturating_sub(p as u64);
            }
            extra = extra.saturating_add(pad);
        }
        elements.saturating_add(extra)
    }
}

/// `#ttg.shared_linear`: a shared layout given by its bases, with an alignment.
///
/// ```
/// use linear_layout::encodings::Encoding;
/// let e: Encoding = "#ttg.shared_linear<{offset = [[1], [2]]}, alignment = 16>".parse()?;
/// assert_eq!(e.to_linear_layout(&[4])?.bases("offset")?, vec![vec![1], vec![2]]);
/// # Ok::<(), linear_layout::encodings::EncodingError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SharedLinear {
    /// Offset bases.
    pub offset: Vec<Vec<u32>>,
    /// Block bases.
    pub block: Vec<Vec<u32>>,
    /// Alignment in bytes (power of two).
    pub alignment: u32,
}

/// Any Triton 3.6 tensor encoding.
///
/// Build one from JSON ([`Encoding::from_json`]), from Triton's attribute text (`str::parse`)
/// or directly; print it with `Display` (Triton's syntax); convert it with
/// [`to_linear_layout`](Encoding::to_linear_layout).
///
/// ```
/// use linear_layout::encodings::Encoding;
/// let text = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>";
/// let e: Encoding = text.parse()?;
/// assert_eq!(e.to_string(), text);
/// assert_eq!(e.kind(), "blocked");
/// # Ok::<(), linear_layout::encodings::EncodingError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// `#ttg.blocked`.
    Blocked(Blocked),
    /// `#ttg.slice`.
    Slice(Slice),
    /// `#ttg.amd_mfma`.
    AmdMfma(AmdMfma),
    /// `#ttg.amd_wmma`.
    AmdWmma(AmdWmma),
    /// `#ttg.nvidia_mma`.
    NvidiaMma(NvidiaMma),
    /// `#ttg.dot_op`.
    DotOperand(DotOperand),
    /// `#ttg.linear`.
    Linear(Linear),
    /// `#ttg.swizzled_shared`.
    SwizzledShared(Swizzled),
    /// `#ttg.amd_rotating_shared`.
    AmdRotatingShared(Swizzled),
    /// `#ttg.nvmma_shared`.
    NvmmaShared(NvmmaShared),
    /// `#ttg.padded_shared`.
    PaddedShared(PaddedShared),
    /// `#ttg.shared_linear`.
    SharedLinear(SharedLinear),
}

impl Encoding {
    /// The kind name used in the JSON schema (`blocked`, `dot_operand`, …).
    ///
    /// ```
    /// use linear_layout::encodings::Encoding;
    /// let e: Encoding = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>".parse()?;
    /// assert_eq!(e.kind(), "swizzled_shared");
    /// # Ok::<(), linear_layout::encodings::EncodingError>(())
    /// ```
    pub fn kind(&self) -> &'static str {
        match self {
            Encoding::Blocked(_) => "blocked",
            Encoding::Slice(_) => "slice",
            Encoding::AmdMfma(_) => "amd_mfma",
            Encoding::AmdWmma(_) => "amd_wmma",
            Encoding::NvidiaMma(_) => "nvidia_mma",
            Encoding::DotOperand(_) => "dot_operand",
            Encoding::Linear(_) => "linear",
            Encoding::SwizzledShared(_) => "swizzled_shared",
            Encoding::AmdRotatingShared(_) => "amd_rotating_shared",
            Encoding::NvmmaShared(_) => "nvmma_shared",
            Encoding::PaddedShared(_) => "padded_shared",
            Encoding::SharedLinear(_) => "shared_linear",
        }
    }

    /// Whether this is a distributed (register) encoding rather than a shared-memory one.
    ///
    /// ```
    /// use linear_layout::encodings::Encoding;
    /// let e: Encoding = "#ttg.amd_wmma<{version = 1, isTranspose = false, warpsPerCTA = [1, 1]}>".parse()?;
    /// assert!(e.is_distributed());
    /// # Ok::<(), linear_layout::encodings::EncodingError>(())
    /// ```
    pub fn is_distributed(&self) -> bool {
        matches!(
            self,
            Encoding::Blocked(_)
                | Encoding::Slice(_)
                | Encoding::AmdMfma(_)
                | Encoding::AmdWmma(_)
                | Encoding::NvidiaMma(_)
                | Encoding::DotOperand(_)
                | Encoding::Linear(_)
        )
    }

    /// The tensor rank the encoding is written for, when it fixes one.
    ///
    /// ```
    /// use linear_layout::encodings::Encoding;
    /// let e: Encoding = "#ttg.slice<{dim = 1, parent = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2, 1], instrShape = [32, 32, 8], isTransposed = false}>}>".parse()?;
    /// assert_eq!(e.rank(), Some(2));
    /// # Ok::<(), linear_layout::encodings::EncodingError>(())
    /// ```
    pub fn rank(&self) -> Option<usize> {
        match self {
            Encoding::Blocked(b) => Some(b.order.len()),
            Encoding::Slice(s) => s.parent.rank().map(|r| r.saturating_sub(1)),
            Encoding::AmdMfma(m) => Some(m.warps_per_cta.len()),
            Encoding::AmdWmma(w) => Some(w.warps_per_cta.len()),
            Encoding::NvidiaMma(m) => Some(m.warps_per_cta.len()),
            Encoding::DotOperand(d) => d.parent.rank(),
            Encoding::Linear(l) => l
                .shape
                .as_ref()
                .map(|s| s.len())
                .or_else(|| first_len(&[&l.register, &l.lane, &l.warp, &l.block])),
            Encoding::SwizzledShared(s) | Encoding::AmdRotatingShared(s) => Some(s.order.len()),
            Encoding::NvmmaShared(n) => n
                .rank
                .map(|r| r as usize)
                .or_else(|| n.cga_layout.first().map(|b| b.len())),
            Encoding::PaddedShared(p) => match &p.linear {
                PaddedLinear::Bases { offset, block } => first_len(&[offset, block]),
                PaddedLinear::Identity { order, .. } => Some(order.len()),
            },
            Encoding::SharedLinear(s) => first_len(&[&s.offset, &s.block]),
        }
    }

    /// How many `slice` / `dot_op` parents are nested below this encoding (0 for one without
    /// a parent); at most [`MAX_NESTING`] in any encoding that was parsed.
    pub(crate) fn nesting(&self) -> usize {
        match self {
            Encoding::Slice(s) => 1 + s.parent.nesting(),
            Encoding::DotOperand(d) => 1 + d.parent.nesting(),
            _ => 0,
        }
    }

    /// Fills in the defaults that the JSON schema takes from the tensor shape (the rank of an
    /// `nvmma_shared` CTA tiling, the shape of a `padded_shared` identity component or of a
    /// `linear` layout), so that
    /// the value prints exactly as Triton prints the attribute built for that shape.
    ///
    /// ```
    /// use linear_layout::encodings::Encoding;
    /// let e = Encoding::from_json_str(r#"{"kind": "nvmma_shared", "swizzlingByteWidth": 64, "elementBitWidth": 16}"#)?;
    /// assert_eq!(e.with_shape_defaults(&[2, 64, 64]).to_string(),
    ///            "#ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16, rank = 3}>");
    /// # Ok::<(), linear_layout::encodings::EncodingError>(())
    /// ```
    pub fn with_shape_defaults(&self, shape: &[u64]) -> Encoding {
        let mut e = self.clone();
        match &mut e {
            Encoding::NvmmaShared(n) if n.rank.is_none() && n.cga_layout.is_empty() => {
                n.rank = Some(shape.len() as u32);
            }
            Encoding::PaddedShared(PaddedShared {
                linear: PaddedLinear::Identity { shape: s @ None, .. },
                ..
            }) => *s = Some(shape.to_vec()),
            Encoding::Linear(l) if l.shape.is_none() => l.shape = Some(shape.to_vec()),
            _ => {}
        }
        e
    }

    /// Checks the parameters as Triton's verifiers (and the assertions of its conversion that
    /// do not depend on the shape) do. Errors name the offending parameter.
    ///
    /// ```
    /// use linear_layout::encodings::Encoding;
    /// let e: Encoding = "#ttg.amd_mfma<{version = 3, warpsPerCTA = [1, 1], instrShape = [4, 4, 4], isTransposed = false}>".parse()?;
    /// assert!(e.validate().unwrap_err().to_string().contains("instrShape"));
    /// # Ok::<(), linear_layout::encodings::EncodingError>(())
    /// ```
    pub fn validate(&self) -> Result<(), EncodingError> {
        self.validate_depth(0)
    }

    pub(crate) fn validate_depth(&self, depth: usize) -> Result<(), EncodingError> {
        LimitExceeded::check(
            "encodings::MAX_NESTING",
            "slice/dot_op parents nested in an encoding",
            MAX_NESTING as u64,
            depth as u64,
        )?;
        match self {
            Encoding::Blocked(b) => {
                const K: &str = "blocked";
                let r = b.order.len();
                check_rank(K, "order", r, 1)?;
                for (p, v) in [
                    ("sizePerThread", &b.size_per_thread),
                    ("threadsPerWarp", &b.threads_per_warp),
                    ("warpsPerCTA", &b.warps_per_cta),
                ] {
                    if v.len() != r {
                        return Err(EncodingError::param(
                            K,
                            p,
                            format!(
                                "sizePerThread, threadsPerWarp, warpsPerCTA and order must have the same rank ({} vs {r})",
                                v.len()
                            ),
                        ));
                    }
                }
                for (p, v) in [
                    ("sizePerThread", &b.size_per_thread),
                    ("threadsPerWarp", &b.threads_per_warp),
                    ("warpsPerCTA", &b.warps_per_cta),
                ] {
                    check_pow2_list(K, p, v)?;
                }
                check_order(K, "order", &b.order)?;
                check_cga(K, &b.cga_layout, r)
            }
            Encoding::Slice(s) => {
                const K: &str = "slice";
                if !s.parent.is_distributed() {
                    return Err(EncodingError::param(
                        K,
                        "parent",
                        "expected a distributed encoding",
                    ));
                }
                s.parent.validate_depth(depth + 1)?;
                let pr = s.parent.rank().unwrap_or(0);
                if pr <= 1 {
                    return Err(EncodingError::param(
                        K,
                        "parent",
                        "parent layout must have at least rank >= 2",
                    ));
                }
                if s.dim as usize >= pr {
                    return Err(EncodingError::param(
                        K,
                        "dim",
                        format!("slice dim={} must be less than the parent rank={pr}", s.dim),
                    ));
                }
                Ok(())
            }
            Encoding::AmdMfma(m) => {
                const K: &str = "amd_mfma";
                if m.version > 4 {
                    return Err(EncodingError::param(
                        K,
                        "version",
                        format!("must be in [0, 4], got {}", m.version),
                    ));
                }
                let r = m.warps_per_cta.len();
                if r != 2 && r != 3 {
                    return Err(EncodingError::param(
                        K,
                        "warpsPerCTA",
                        format!("rank must be 2 or 3, got {r}"),
                    ));
                }
                check_pow2_list(K, "warpsPerCTA", &m.warps_per_cta)?;
                if m.instr_shape.len() != 3 {
                    return Err(EncodingError::param(
                        K,
                        "instrShape",
                        format!("must be [M, N, K], got {:?}", m.instr_shape),
                    ));
                }
                let (mm, nn) = (m.instr_shape[0], m.instr_shape[1]);
                if !matches!((mm, nn), (32, 32) | (16, 16) | (64, 4) | (4, 64)) {
                    return Err(EncodingError::param(
                        K,
                        "instrShape",
                        format!(
                            "(M, N) must be one of (32, 32), (16, 16), (64, 4), (4, 64), got ({mm}, {nn})"
                        ),
                    ));
                }
                if m.element_bit_width != 32 && m.element_bit_width != 64 {
                    return Err(EncodingError::param(
                        K,
                        "elementBitWidth",
                        format!("must be 32 or 64, got {}", m.element_bit_width),
                    ));
                }
                check_len(K, "tilesPerWarp", &m.tiles_per_warp, r)?;
                check_pow2_list(K, "tilesPerWarp", &m.tiles_per_warp)?;
                check_cga(K, &m.cga_layout, r)
            }
            Encoding::AmdWmma(w) => {
                const K: &str = "amd_wmma";
                if !(1..=3).contains(&w.version) {
                    return Err(EncodingError::param(
                        K,
                        "version",
                        format!("must be in [1, 3], got {}", w.version),
                    ));
                }
                let r = w.warps_per_cta.len();
                if r != 2 && r != 3 {
                    return Err(EncodingError::param(
                        K,
                        "warpsPerCTA",
                        format!("rank must be 2 or 3, got {r}"),
                    ));
                }
                check_pow2_list(K, "warpsPerCTA", &w.warps_per_cta)?;
                let ok = match w.version {
                    1 => w.instr_shape == [16, 16, 16],
                    2 => w.instr_shape == [16, 16, 16] || w.instr_shape == [16, 16, 32],
                    _ => matches!(
                        w.instr_shape.as_slice(),
                        [16, 16, 4] | [16, 16, 32] | [16, 16, 64] | [16, 16, 128]
                    ),
                };
                if !ok {
                    return Err(EncodingError::param(
                        K,
                        "instrShape",
                        format!(
                            "invalid WMMA v{} instruction shape {:?}",
                            w.version, w.instr_shape
                        ),
                    ));
                }
                check_len(K, "tilesPerWarp", &w.tiles_per_warp, r)?;
                check_pow2_list(K, "tilesPerWarp", &w.tiles_per_warp)?;
                check_cga(K, &w.cga_layout, r)
            }
            Encoding::NvidiaMma(m) => {
                const K: &str = "nvidia_mma";
                let r = m.warps_per_cta.len();
                check_rank(K, "warpsPerCTA", r, 2)?;
                check_pow2_list(K, "warpsPerCTA", &m.warps_per_cta)?;
                check_cga(K, &m.cga_layout, r)
            }
            Encoding::DotOperand(d) => {
                const K: &str = "dot_operand";
                if d.op_idx > 1 {
                    return Err(EncodingError::param(
                        K,
                        "opIdx",
                        format!("must be 0 or 1, got {}", d.op_idx),
                    ));
                }
                d.parent.validate_depth(depth + 1)?;
                // Operand B's K dim is the second-to-last one (a rank-1 operand A is accepted:
                // its only dim is K).
                if d.parent.rank().unwrap_or(0) < 1 + d.op_idx as usize {
                    return Err(EncodingError::param(
                        K,
                        "parent",
                        "operand B needs a parent of rank 2 or more",
                    ));
                }
                match d.parent.as_ref() {
                    Encoding::Blocked(_) => {
                        if d.k_width != 0 {
                            return Err(EncodingError::param(
                                K,
                                "kWidth",
                                format!("must be 0 for a blocked parent, got {}", d.k_width),
                            ));
                        }
                    }
                    Encoding::NvidiaMma(m) => {
                        if d.k_width == 0 {
                            return Err(EncodingError::param(
                                K,
                                "kWidth",
                                "must be positive for an mma parent",
                            ));
                        }
                        if m.version_major == 3 && d.op_idx != 0 {
                            return Err(EncodingError::param(
                                K,
                                "opIdx",
                                "Hopper (wgmma) takes only operand A in registers",
                            ));
                        }
                    }
                    Encoding::AmdMfma(_) => {
                        if d.k_width == 0 {
                            return Err(EncodingError::param(
                                K,
                                "kWidth",
                                "must be positive for an mfma parent",
                            ));
                        }
                    }
                    Encoding::AmdWmma(w) => {
                        let allowed: &[u32] = match w.version {
                            1 => &[8, 16],
                            2 => &[4, 8, 16],
                            _ => &[2, 8, 16],
                        };
                        if !allowed.contains(&d.k_width) {
                            return Err(EncodingError::param(
                                K,
                                "kWidth",
                                format!(
                                    "must be one of {allowed:?} for a WMMA v{} parent, got {}",
                                    w.version, d.k_width
                                ),
                            ));
                        }
                    }
                    other => {
                        return Err(EncodingError::param(
                            K,
                            "parent",
                            format!(
                                "must be blocked, nvidia_mma, amd_mfma or amd_wmma, got {}",
                                other.kind()
                            ),
                        ));
                    }
                }
                if d.k_width != 0 && !d.k_width.is_power_of_two() {
                    return Err(EncodingError::param(
                        K,
                        "kWidth",
                        format!("must be a power of two, got {}", d.k_width),
                    ));
                }
                Ok(())
            }
            Encoding::Linear(l) => {
                const K: &str = "linear";
                // No bases and no shape: the tensor's shape decides the rank.
                let Some(rank) = self.rank() else { return Ok(()) };
                if rank == 0 {
                    return Err(EncodingError::param(
                        K,
                        "registerBases",
                        "Empty Layout not supported",
                    ));
                }
                for (p, bs) in [
                    ("registerBases", &l.register),
                    ("laneBases", &l.lane),
                    ("warpBases", &l.warp),
                    ("blockBases", &l.block),
                ] {
                    check_bases(K, p, bs, rank)?;
                    if bs.iter().any(|b| b.iter().filter(|&&v| v != 0).count() > 1) {
                        return Err(EncodingError::param(
                            K,
                            p,
                            "In a distributed layout, each base must move in at most one dimension.",
                        ));
                    }
                }
                if let Some(s) = &l.shape {
                    check_shape_values(K, s)?;
                }
                Ok(())
            }
            Encoding::SwizzledShared(s) | Encoding::AmdRotatingShared(s) => {
                let k = self.kind();
                check_rank(k, "order", s.order.len(), 1)?;
                check_order(k, "order", &s.order)?;
                for (p, v) in [
                    ("vec", s.vec),
                    ("perPhase", s.per_phase),
                    ("maxPhase", s.max_phase),
                ] {
                    if v == 0 {
                        return Err(EncodingError::param(
                            k,
                            p,
                            "must be positive (Triton divides by it)",
                        ));
                    }
                }
                check_cga(k, &s.cga_layout, s.order.len())
            }
            Encoding::NvmmaShared(n) => {
                const K: &str = "nvmma_shared";
                if let Some(r) = self.rank() {
                    check_rank(K, "rank", r, 1)?;
                }
                if n.element_bit_width == 0 || n.element_bit_width > 128 {
                    return Err(EncodingError::param(
                        K,
                        "elementBitWidth",
                        format!("must be a positive bit width, got {}", n.element_bit_width),
                    ));
                }
                if n.swizzling_byte_width > 1024 {
                    return Err(EncodingError::param(
                        K,
                        "swizzlingByteWidth",
                        format!("unsupported swizzle width {}", n.swizzling_byte_width),
                    ));
                }
                match self.rank() {
                    Some(r) => check_cga(K, &n.cga_layout, r),
                    None => Ok(()),
                }
            }
            Encoding::PaddedShared(p) => {
                const K: &str = "padded_shared";
                if p.intervals.len() != p.paddings.len() {
                    return Err(EncodingError::param(
                        K,
                        "paddings",
                        format!(
                            "intervals size ({}) must match paddings size ({})",
                            p.intervals.len(),
                            p.paddings.len()
                        ),
                    ));
                }
                if p.intervals.is_empty() {
                    return Err(EncodingError::param(
                        K,
                        "intervals",
                        "must have at least one interval-padding pair",
                    ));
                }
                if p.intervals.len() > 64 {
                    return Err(EncodingError::param(
                        K,
                        "intervals",
                        "too many interval-padding pairs",
                    ));
                }
                if !p.intervals.iter().all(|v| v.is_power_of_two()) {
                    return Err(EncodingError::param(
                        K,
                        "intervals",
                        "interval values must all be power of two",
                    ));
                }
                if !p.paddings.iter().all(|v| v.is_power_of_two()) {
                    return Err(EncodingError::param(
                        K,
                        "paddings",
                        "padding values must all be power of two",
                    ));
                }
                let mut sorted = p.intervals.clone();
                sorted.sort_unstable();
                sorted.dedup();
                if sorted.len() != p.intervals.len() {
                    return Err(EncodingError::param(
                        K,
                        "intervals",
                        "interval values cannot have duplicates",
                    ));
                }
                match &p.linear {
                    PaddedLinear::Bases { offset, block } => {
                        let rank = self.rank().unwrap_or(0);
                        if rank == 0 {
                            return Err(EncodingError::param(
                                K,
                                "offsetBases",
                                "linearComponent cannot be empty",
                            ));
                        }
                        check_bases(K, "offsetBases", offset, rank)?;
                        check_bases(K, "blockBases", block, rank)?;
                        for (name, bs) in [("offsetBases", offset), ("blockBases", block)] {
                            if bs.iter().any(|b| b.iter().filter(|&&v| v != 0).count() > 1) {
                                return Err(EncodingError::param(
                                    K,
                                    name,
                                    "Each offset basis must move in at most one dimension.",
                                ));
                            }
                            if bs.iter().flatten().any(|&v| v != 0 && !v.is_power_of_two()) {
                                return Err(EncodingError::param(
                                    K,
                                    name,
                                    "Each offset basis must be 0 or a power of two.",
                                ));
                            }
                        }
                        Ok(())
                    }
                    PaddedLinear::Identity { order, shape } => {
                        check_rank(K, "order", order.len(), 1)?;
                        check_order(K, "order", order)?;
                        if let Some(s) = shape {
                            if s.len() != order.len() {
                                return Err(EncodingError::param(
                                    K,
                                    "shape",
                                    "Mismatch of shape and order ranks in padded layout",
                                ));
                            }
                            check_shape_values(K, s)?;
                        }
                        Ok(())
                    }
                }
            }
            Encoding::SharedLinear(s) => {
                const K: &str = "shared_linear";
                if s.alignment == 0 || !s.alignment.is_power_of_two() {
                    return Err(EncodingError::param(
                        K,
                        "alignment",
                        "alignment must be a positive power of two",
                    ));
                }
                let rank = self.rank().unwrap_or(0);
                if rank == 0 {
                    return Err(EncodingError::param(
                        K,
                        "offsetBases",
                        "Empty Layout not supported",
                    ));
                }
                check_bases(K, "offsetBases", &s.offset, rank)?;
                check_bases(K, "blockBases", &s.block, rank)
            }
        }
    }
}

fn first_len(lists: &[&Vec<Vec<u32>>]) -> Option<usize> {
    lists.iter().find_map(|l| l.first().map(|b| b.len()))
}

pub(crate) fn check_rank(
    kind: &'static str,
    param: &'static str,
    rank: usize,
    min: usize,
) -> Result<(), EncodingError> {
    LimitExceeded::check(
        "encodings::MAX_RANK",
        "dims of an encoding",
        MAX_RANK as u64,
        rank as u64,
    )?;
    if rank < min {
        return Err(EncodingError::param(
            kind,
            param,
            format!("rank {rank} is outside the supported range {min}..={MAX_RANK}"),
        ));
    }
    Ok(())
}

fn check_len(kind: &'static str, param: &'static str, v: &[u32], rank: usize) -> Result<(), EncodingError> {
    if v.len() != rank {
        return Err(EncodingError::param(
            kind,
            param,
            format!("must have {rank} entries (the rank), got {}", v.len()),
        ));
    }
    Ok(())
}

fn check_pow2_list(kind: &'static str, param: &'static str, v: &[u32]) -> Result<(), EncodingError> {
    if v.iter().any(|x| !x.is_power_of_two()) {
        return Err(EncodingError::param(
            kind,
            param,
            format!("every element must be a power of two, got {v:?}"),
        ));
    }
    Ok(())
}

fn check_order(kind: &'static str, param: &'static str, order: &[u32]) -> Result<(), EncodingError> {
    // One bit a dim seen: callers bound the rank by `MAX_RANK`, below 64.
    let mut seen = 0u64;
    for &o in order {
        if o as usize >= order.len() || o >= 64 || seen >> o & 1 == 1 {
            return Err(not_a_permutation(kind, param, order));
        }
        seen |= 1 << o;
    }
    Ok(())
}

#[cold]
fn not_a_permutation(kind: &'static str, param: &'static str, order: &[u32]) -> EncodingError {
    EncodingError::param(
        kind,
        param,
        format!("order must be a permutation of 0..(rank-1), but was {order:?}"),
    )
}

fn check_bases(
    kind: &'static str,
    param: &'static str,
    bases: &[Vec<u32>],
    rank: usize,
) -> Result<(), EncodingError> {
    if bases.len() > 64 {
        return Err(EncodingError::param(
            kind,
            param,
            format!("{} bases exceed 64 bits", bases.len()),
        ));
    }
    for b in bases {
        if b.len() != rank {
            return Err(EncodingError::param(
                kind,
                param,
                format!("basis {b:?} has {} entries, expected {rank}", b.len()),
            ));
        }
        if b.iter().any(|&v| v > i32::MAX as u32) {
            return Err(EncodingError::param(
                kind,
                param,
                format!("basis {b:?} does not fit 32 bits"),
            ));
        }
    }
    Ok(())
}

pub(crate) fn check_cga(kind: &'static str, cga: &[Vec<u32>], rank: usize) -> Result<(), EncodingError> {
    if cga.len() > 32 {
        return Err(EncodingError::param(
            kind,
            "CGALayout",
            format!("{} block bases are too many", cga.len()),
        ));
    }
    for b in cga {
        if b.len() != rank {
            return Err(EncodingError::param(
                kind,
                "CGALayout",
                format!("'CGALayout' entry length does not match rank {rank}"),
            ));
        }
        if b.iter().any(|&v| v > (1 << 30)) {
            return Err(EncodingError::param(
                kind,
                "CGALayout",
                format!("entry {b:?} is too large"),
            ));
        }
    }
    Ok(())
}

pub(crate) fn check_shape_values(kind: &'static str, shape: &[u64]) -> Result<(), EncodingError> {
    LimitExceeded::check(
        "encodings::MAX_RANK",
        "dims of a tensor shape",
        MAX_RANK as u64,
        shape.len() as u64,
    )?;
    if shape.is_empty() {
        return Err(EncodingError::shape(kind, "a tensor has at least one dim"));
    }
    let mut bits = 0u32;
    for &s in shape {
        if !s.is_power_of_two() {
            return Err(EncodingError::shape(
                kind,
                format!("shape must be a positive power of 2, got {shape:?}"),
            ));
        }
        bits += s.trailing_zeros();
    }
    LimitExceeded::check(
        "encodings::MAX_ELEMENTS_LOG2",
        "log2 of the elements of a tensor shape",
        u64::from(MAX_ELEMENTS_LOG2),
        u64::from(bits),
    )?;
    Ok(())
}
