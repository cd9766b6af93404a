//! Triton's tensor encodings as [`LinearLayout`](crate::linear::LinearLayout)s, bit-exact with
//! Triton 3.6.0.
//!
//! An *encoding* is the attribute Triton attaches to a tensor type (`tensor<128x64xf16,
//! #blocked>`) to say where each element lives. Given the tensor's shape, every encoding is a
//! linear map over GF(2): for distributed (register) encodings from `register, lane, warp,
//! block` to the tensor dims `dim0, dim1, …`; for shared-memory encodings from `offset, block`.
//! [`Encoding::to_linear_layout`] computes that map exactly as Triton 3.6's `toLinearLayout`
//! does — the same bases, in the same order, with the same broadcasting (zero bases) when the
//! tensor is smaller than the encoding's tile and the same repetition (extra `register` /
//! `offset` bases) when it is larger.
//!
//! Encodings can be written three ways: as Rust values ([`Blocked`], [`AmdMfma`], …), as the
//! JSON of the differential oracle ([`Encoding::from_json`]: `{"kind": "blocked", …}`), and as
//! Triton's own attribute text (`str::parse` / `Display`, plus [`TensorType`], [`AliasDef`] and
//! [`parse_aliases`] for TTGIR files). Invalid parameters give an [`EncodingError`] naming the
//! parameter; nothing panics.
//!
//! # The encodings, by example
//!
//! Bases below are written `[dim0, dim1]`: basis `i` of an in-dim is where input value `2^i`
//! lands, and any input is the XOR of the bases of its set bits.
//!
//! ## blocked
//!
//! `sizePerThread`, `threadsPerWarp`, `warpsPerCTA` tile the tensor, fastest dim (`order[0]`)
//! first. With 1×4 elements per thread, 8×4 lanes and 2×2 warps, a 64×64 tensor needs the
//! 16×32 tile twice along each dim; the repetitions become extra registers, `order[0]` first:
//!
//! ```
//! use linear_layout::encodings::Encoding;
//! let e: Encoding = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>".parse()?;
//! let l = e.to_linear_layout(&[64, 64])?;
//! assert_eq!(l.bases("register")?, vec![vec![0, 1], vec![0, 2], vec![0, 32], vec![16, 0], vec![32, 0]]);
//! assert_eq!(l.bases("lane")?, vec![vec![0, 4], vec![0, 8], vec![1, 0], vec![2, 0], vec![4, 0]]);
//! // A tensor smaller than the tile is broadcast: the bases beyond it become zero.
//! let small = e.to_linear_layout(&[8, 8])?;
//! assert_eq!(small.bases("warp")?, vec![vec![0, 0], vec![0, 0]]);
//! # Ok::<(), linear_layout::encodings::EncodingError>(())
//! ```
//!
//! ## slice
//!
//! The parent's layout for the shape with a 1 inserted at `dim`, with that dim dropped (and
//! register bases that became zero removed):
//!
//! ```
//! use linear_layout::encodings::Encoding;
//! let e: Encoding = "#ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>}>".parse()?;
//! let l = e.to_linear_layout(&[64])?;
//! assert_eq!(l.bases("lane")?, vec![vec![4], vec![8], vec![0], vec![0], vec![0]]);
//! # Ok::<(), linear_layout::encodings::EncodingError>(())
//! ```
//!
//! ## amd_mfma, amd_wmma, nvidia_mma
//!
//! Matrix-instruction result layouts. A 32×32 MFMA tile has each of the 64 lanes hold 4
//! consecutive rows of one column; the other 16 rows come from more registers. Tiles repeat
//! along N across the whole tensor before M (the MFMA lowering's order):
//!
//! ```
//! use linear_layout::encodings::Encoding;
//! let e: Encoding = "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 4], instrShape = [32, 32, 8], isTransposed = false, tilesPerWarp = [2, 2]}>".parse()?;
//! let l = e.to_linear_layout(&[128, 128])?;
//! assert_eq!(l.bases("register")?, vec![vec![1, 0], vec![2, 0], vec![8, 0], vec![16, 0], vec![0, 32], vec![32, 0]]);
//! assert_eq!(l.bases("warp")?, vec![vec![0, 64], vec![0, 0], vec![64, 0]]);
//! // WMMA (RDNA4): lanes 16..31 hold rows 8..15.
//! let w: Encoding = "#ttg.amd_wmma<{version = 2, isTranspose = false, warpsPerCTA = [1, 1]}>".parse()?;
//! assert_eq!(w.to_linear_layout(&[16, 16])?.bases("register")?, vec![vec![1, 0], vec![2, 0], vec![4, 0]]);
//! # Ok::<(), linear_layout::encodings::EncodingError>(())
//! ```
//!
//! ## dot_op
//!
//! Operand A (`opIdx = 0`, M×K) or B (`opIdx = 1`, K×N) of a dot with the parent result
//! layout. `kWidth` consecutive K elements sit in one thread's registers:
//!
//! ```
//! use linear_layout::encodings::Encoding;
//! let e: Encoding = "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>".parse()?;
//! let l = e.to_linear_layout(&[64, 64])?;
//! assert_eq!(l.bases("register")?[0], vec![0, 1]); // 2 consecutive K elements
//! assert_eq!(l.bases("warp")?, vec![vec![0, 0], vec![16, 0]]); // warps along N broadcast
//! # Ok::<(), linear_layout::encodings::EncodingError>(())
//! ```
//!
//! An AMD operand takes its parent's tiles per warp only along its own non-K dim: the K entry
//! is projected away and the batch entry places no tiles. So on a batch extent of 1 the
//! operand B below has the same layout with `tilesPerWarp = [4, 2, 1]` as with `[1, 2, 1]`.
//! Its 7 registers are 16 consecutive K elements (4), two more K tiles of the 128-deep
//! instruction that the 32-deep tensor broadcasts (`[0, 0, 0]`), and one N repetition:
//!
//! ```
//! use linear_layout::encodings::Encoding;
//! let b = |tpw: &str| -> Encoding {
//!     format!("#ttg.dot_op<{{opIdx = 1, parent = #ttg.amd_wmma<{{version = 3, isTranspose = false, warpsPerCTA = [1, 2, 4], tilesPerWarp = {tpw}, instrShape = [16, 16, 128]}}>, kWidth = 16}}>").parse().unwrap()
//! };
//! let l = b("[4, 2, 1]").to_linear_layout(&[1, 32, 128])?;
//! assert_eq!(
//!     l.bases("register")?,
//!     vec![vec![0, 1, 0], vec![0, 2, 0], vec![0, 4, 0], vec![0, 8, 0], vec![0, 0, 0], vec![0, 0, 0], vec![0, 0, 64]]
//! );
//! assert_eq!(b("[1, 2, 1]").to_linear_layout(&[1, 32, 128])?, l);
//! # Ok::<(), linear_layout::encodings::EncodingError>(())
//! ```
//!
//! ## linear
//!
//! The bases given explicitly. A tensor of another shape repeats (or broadcasts) them, like
//! any other distributed layout:
//!
//! ```
//! use linear_layout::encodings::Encoding;
//! let e: Encoding = "#ttg.linear<{register = [[1]], lane = [[2], [4]], warp = [], block = []}>".parse()?;
//! assert_eq!(e.to_linear_layout(&[16])?.bases("register")?, vec![vec![1], vec![8]]);
//! assert_eq!(e.to_linear_layout(&[4])?.bases("lane")?, vec![vec![2], vec![0]]);
//! # Ok::<(), linear_layout::encodings::EncodingError>(())
//! ```
//!
//! ## Shared memory: swizzled_shared, amd_rotating_shared, nvmma_shared, padded_shared, shared_linear
//!
//! These map a memory `offset` to an element. A swizzled layout stores row `r` XOR-permuted
//! by `vec · ((r / perPhase) mod maxPhase)`, so row bases carry a column component:
//!
//! ```
//! use linear_layout::encodings::Encoding;
//! let e: Encoding = "#ttg.swizzled_shared<{vec = 4, perPhase = 2, maxPhase = 4, order = [1, 0]}>".parse()?;
//! let l = e.to_linear_layout(&[32, 32])?;
//! assert_eq!(l.bases("offset")?[5..].to_vec(), vec![vec![1, 0], vec![2, 4], vec![4, 8], vec![8, 0], vec![16, 0]]);
//! assert!(l.is_invertible());
//! // nvmma_shared: 128-byte swizzle of 16-bit elements; rows of 64 elements (128 bytes) are
//! // XOR-permuted in 8-element (16-byte) groups.
//! let n: Encoding = "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>".parse()?;
//! assert_eq!(n.to_linear_layout(&[64, 64])?.bases("offset")?[6..9].to_vec(), vec![vec![1, 8], vec![2, 16], vec![4, 32]]);
//! // padded_shared: the linear component, plus padding slots every `interval` elements.
//! let p: Encoding = "#ttg.padded_shared<[4:+1] {order = [0], shape = [16]}>".parse()?;
//! let linear_layout::encodings::Encoding::PaddedShared(ps) = &p else { unreachable!() };
//! assert_eq!(ps.physical_offset(9), 11);
//! # Ok::<(), linear_layout::encodings::EncodingError>(())
//! ```
//!
//! ## Several CTAs
//!
//! A `CGALayout` lists `block` bases in units of the per-CTA extent; zero bases replicate:
//!
//! ```
//! use linear_layout::encodings::Encoding;
//! let e: Encoding = "#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0], CGALayout = [[1]]}>".parse()?;
//! assert_eq!(e.to_linear_layout(&[64])?.bases("block")?, vec![vec![32]]);
//! # Ok::<(), linear_layout::encodings::EncodingError>(())
//! ```

mod convert;
mod direct;
mod error;
mod json;
mod text;
mod types;

pub use error::EncodingError;
pub use text::{AliasDef, Aliases, MAX_LIST_DEPTH, MAX_LIST_LEN, TensorType, parse_aliases};
pub use types::{
    AmdMfma, AmdWmma, Blocked, CgaBases, DotOperand, Encoding, Linear, MAX_ELEMENTS_LOG2, MAX_NESTING,
    MAX_RANK, NvidiaMma, NvmmaShared, PaddedLinear, PaddedShared, SharedLinear, Slice, Swizzled,
};
