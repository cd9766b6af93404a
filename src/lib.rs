#![warn(missing_docs)]
//! # linear-layout
//!
//! GPU tensor layouts as linear maps over GF(2), exact with Triton 3.6.0.
//!
//! A GPU compiler spreads a tensor over registers, lanes, warps and shared memory. Every such
//! *encoding* is a linear map over GF(2) from hardware-index bits to tensor-index bits — a
//! [`LinearLayout`](linear::LinearLayout). This crate makes that algebra exact, fast and usable
//! outside any compiler.
//!
//! ```
//! use linear_layout::linear::LinearLayout;
//! // 2 registers x 32 lanes x 2 warps over a 128-element vector.
//! let blocked = LinearLayout::identity_1d(2, "register", "dim0")?
//!     .product(&LinearLayout::identity_1d(32, "lane", "dim0")?)?
//!     .product(&LinearLayout::identity_1d(2, "warp", "dim0")?)?;
//! assert_eq!(blocked.apply(&[("register", 1), ("lane", 3), ("warp", 1)])?[0], 71);
//! // Which (register, lane, warp) holds tensor element 71?
//! let owner = blocked.invert()?.apply(&[("dim0", 71)])?;
//! assert_eq!(owner.as_slice(), &[1, 3, 1]); // register, lane, warp
//! # Ok::<(), linear_layout::linear::LayoutError>(())
//! ```
//!
//! Layers, each depending only on those before it: [`linear`] (the algebra), `encodings`
//! (Triton's encodings as layouts), `heuristics` (the compiler's layout decisions and
//! conversion costs), `lower` (AMDGPU code from layouts), and the [`batch`] protocol and
//! command-line tool on top.

pub mod batch;
pub mod encodings;
pub mod heuristics;
pub mod limits;
pub mod linear;
pub mod lower;
pub mod target;
pub mod ttgir;
pub mod view;

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
