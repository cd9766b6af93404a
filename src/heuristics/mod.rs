//! The compiler's layout decisions as algebra, per AMD architecture.
//!
//! * [`target`]: the architectures as data — wave size, LDS banks and phases, vector widths,
//!   which instructions exist.
