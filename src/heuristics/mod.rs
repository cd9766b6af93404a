//! The compiler's layout decisions as algebra, per AMD architecture.
//!
//! * [`target`]: the architectures as data — wave size, LDS banks and phases, vector widths,
//!   which instructions exist.
//! * [`convert`]: what a `convert_layout` costs — classification, optimal LDS swizzle, bank
//!   conflicts.
//! * [`ttgir`]: a reader for the TTGIR subset the heuristics need (one op per line, aliases,
//!   module attributes, function argument hints).
//! * [`axisinfo`]: Triton 3.6's contiguity / divisibility / constancy lattice and its rules.
//! * [`coalesce`], [`matmul`], [`async_copy`]: Triton 3.6's AMD layout decisions
//!   (`tritongpu-coalesce`, `tritonamdgpu-accelerate-matmul`,
//!   `tritonamdgpu-coalesce-async-copy`), each with its reason; [`passes`] runs them on a module.
//! * [`propagation`]: `tritongpu-remove-layout-conversions`, rewriting the module.

/// `tritonamdgpu-coalesce-async-copy`: direct-to-LDS source layouts on gfx942 / gfx950.
pub mod async_copy;
/// AxisInfo, re-exported from the TTGIR front end ([`crate::ttgir::axisinfo`]).
pub use crate::ttgir::axisinfo;
/// `tritongpu-coalesce`: the blocked layout of each global memory access.
pub mod coalesce;
/// Pricing a layout conversion: classification, bank conflicts, swizzle search, cost.
pub mod convert;
/// The error type the passes share.
pub mod error;
/// `tritonamdgpu-accelerate-matmul`: MFMA / WMMA / FMA choice and the dot layouts.
pub mod matmul;
/// Running the layout passes on a TTGIR module; oracle-shaped JSON and text reports.
pub mod passes;
/// `tritongpu-remove-layout-conversions`: anchors' layouts through the whole kernel, on an
/// editable module.
pub mod propagation;
/// The target table, re-exported from [`crate::target`].
pub use crate::target;
/// The TTGIR reader, re-exported from [`crate::ttgir`].
pub use crate::ttgir;
