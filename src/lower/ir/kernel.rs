//! A generated kernel: a [`Program`] and the target row it was generated for — what every plan
//! and the TTGIR front produce, and what the back ends take.

use super::Program;
use crate::target::Target;

/// A generated kernel: the program and the target it is for. Its LLVM IR is
/// [`Kernel::llvm_ir`](crate::lower::Kernel::llvm_ir), added by the emitter.
///
/// ```
/// use linear_layout::linear::LinearLayout;
/// use linear_layout::lower::{copy_kernel, Dtype};
/// use linear_layout::target::Target;
/// let l = LinearLayout::identity_1d(32, "lane", "dim0")?;
/// let k = copy_kernel(&l, &[32], Dtype::I32, Target::by_name("gfx1100")?)?;
/// assert_eq!(k.program.name, "copy");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Kernel {
    /// The wave-level program.
    pub program: Program,
    /// The target row it was generated for.
    pub target: &'static Target,
}
