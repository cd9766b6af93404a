//! The copy kernel: every element loaded through a layout's registers and stored back through
//! them — the smallest plan, and the template of the others.

use super::dist;
use super::{Dtype, check_shape, check_target};
use crate::linear::LinearLayout;
use crate::lower::error::LowerError;
use crate::lower::ir::{Buffer, Kernel, Program};
use crate::target::Target;

/// The `copy` kernel: `out = in`, every element moved through the registers `layout` gives it.
///
/// `shape` is the tensor (dense, row-major, `dim0` slowest); the layout covers it rounded up to
/// powers of two, and elements beyond `shape` are masked (their loads read 0, their stores are
/// dropped). A layout that leaves an element of its tensor in no register (not surjective) is
/// refused: the element would never be copied.
///
/// ```
/// use linear_layout::linear::LinearLayout;
/// use linear_layout::lower::{copy_kernel, run, Dtype};
/// use linear_layout::target::Target;
/// // A 48-element tensor in a 64-lane layout: lanes 48..63 are masked.
/// let l = LinearLayout::identity_1d(64, "lane", "dim0")?;
/// let k = copy_kernel(&l, &[48], Dtype::I8, Target::by_name("gfx942")?)?;
/// let mut buffers = vec![(0..48).collect::<Vec<u8>>(), vec![0; 48]];
/// run(&k.program, &mut buffers)?;
/// assert_eq!(buffers[0], buffers[1]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn copy_kernel(
    layout: &LinearLayout,
    shape: &[u64],
    dtype: Dtype,
    target: &'static Target,
) -> Result<Kernel, LowerError> {
    check_target(target)?;
    check_shape(layout, shape)?;
    let dist = dist::Dist::of(layout, target.wave_size)?;
    let mut p = Program::new("copy", target.wave_size, dist.threads().max(target.wave_size));
    let elements: u64 = shape.iter().product();
    for name in ["in", "out"] {
        p.buffers.push(Buffer {
            name: name.into(),
            elements: Some(elements),
            element_bits: dtype.bits(),
            address: None,
        });
    }
    let values = dist::load_through(&mut p, &dist, shape, 0, dtype.bits())?;
    dist::store_through(&mut p, &dist, shape, 1, dtype.bits(), &values)?;
    Ok(Kernel { program: p, target })
}
