//! The linear-layout core: [`LinearLayout`] and its algebra over GF(2).
//!
//! Everything in this crate stands on one object: a linear map over GF(2) from named hardware
//! dimensions (registers, lanes, warps, blocks, shared-memory offsets) to named tensor
//! dimensions. This module knows nothing of encodings or hardware; it is the algebra alone,
//! exactly as Triton 3.6.0's `LinearLayout` computes it.

mod algebra;
#[cfg(feature = "quickcheck")]
pub mod arbitrary;
mod column_action;
mod dims;
mod error;
mod fields;
pub(crate) mod gf2;
mod layout;
mod name;
mod serde_impl;
mod structure;
mod utils;

pub use algebra::{divide_left, divide_right, supremum};
pub use column_action::ColumnAction;
pub(crate) use dims::DimList;
pub use error::LayoutError;
pub use layout::{LinearLayout, MAX_BITS, MAX_DIMS, Result};
pub use name::DimName;
pub use utils::{
    action_remove_broadcasted_regs, basis_mask, basis_permutation_layout, ensure_layout_not_larger_than,
    ensure_layout_not_smaller_than, factor_maximal_identity_prefix, factor_through, get_reps,
    identity_standard_nd, input_basis_mask, integer_strides, invert_and_compose_block_local,
    is_linear_layout_image_subset, largest_vectorisation, reg_perm_for_divide, remove_standard_dim,
    rename_dims, reshape_layout, standard_out_dim_names, transpose_linear_layout, zeros_like,
};

/// Runs a law on thousands of generated cases.
#[cfg(all(test, feature = "quickcheck"))]
pub(crate) fn check_law<A: quickcheck::Testable>(law: A) {
    quickcheck::QuickCheck::new()
        .tests(3000)
        .max_tests(60_000)
        .rng(quickcheck::Gen::new(16))
        .quickcheck(law)
}
