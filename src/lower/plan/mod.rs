//! Plans: programs built from layouts.
//!
//! A distributed layout says where each (register, lane, warp) element of a tensor lives, so the
//! global offset of a thread's register `r` is the layout applied to `(r, lane, warp)` — a
//! constant for `r` XOR a linear function of the thread id. The plans turn that algebra into
//! [`Program`](crate::lower::Program)s: distributed accesses ([`dist`]), round trips through
//! LDS ([`lds`]), lane shuffles ([`shuffle`]), matrix-instruction chains ([`mma`]), and the
//! kernels made of them ([`copy`], [`convert`], [`direct`], [`matmul`]). A plan reads the
//! layouts, the target row and the cost model; it builds IR and never emits or runs it.
//!
//! # Worked example: the copy plan
//!
//! 64 lanes, each holding 4 consecutive f32 of a 256-element vector: the layout's register bits
//! move the offset by 1 and 2 elements, its lane bits by 4 to 128 — so each thread makes one
//! vector load of 4 elements at element offset `4·lane`, and one store.
//!
//! ```
//! use linear_layout::linear::LinearLayout;
//! use linear_layout::lower::{copy_kernel, Dtype, Op};
//! use linear_layout::target::Target;
//! let layout = LinearLayout::identity_1d(4, "register", "dim0")?
//!     .product(&LinearLayout::identity_1d(64, "lane", "dim0")?)?;
//! let k = copy_kernel(&layout, &[256], Dtype::F32, Target::by_name("gfx942")?)?;
//! assert_eq!(k.program.ops.len(), 2);
//! let Op::GlobalLoad { dst, offset, .. } = &k.program.ops[0] else { unreachable!() };
//! assert_eq!(dst.len(), 4);
//! assert_eq!(offset.coords[0].cols, vec![4, 8, 16, 32, 64, 128]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub(crate) mod batched;
pub(crate) mod convert;
pub(crate) mod copy;
pub(crate) mod direct;
pub(crate) mod dist;
pub(crate) mod fma;
pub(crate) mod lds;
pub mod matmul;
pub mod mma;
pub(crate) mod shuffle;

use crate::linear::LinearLayout;
use crate::lower::error::LowerError;
use crate::target::Target;

/// Element types of the tensors (stored as integers of their width: the kernels only move
/// data).
///
/// ```
/// use linear_layout::lower::Dtype;
/// assert_eq!(Dtype::parse("bf16")?.bits(), 16);
/// assert!(Dtype::parse("f8").is_err());
/// # Ok::<(), linear_layout::lower::LowerError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dtype {
    /// 8-bit integer.
    I8,
    /// IEEE half.
    F16,
    /// bfloat16.
    Bf16,
    /// IEEE single.
    F32,
    /// 32-bit integer.
    I32,
    /// IEEE double.
    F64,
}

impl Dtype {
    /// Every dtype, in the order of the CLI help.
    ///
    /// ```
    /// use linear_layout::lower::Dtype;
    /// assert_eq!(Dtype::ALL.len(), 6);
    /// ```
    pub const ALL: [Dtype; 6] = [
        Dtype::I8,
        Dtype::F16,
        Dtype::Bf16,
        Dtype::F32,
        Dtype::I32,
        Dtype::F64,
    ];

    /// Bits per element.
    ///
    /// ```
    /// use linear_layout::lower::Dtype;
    /// assert_eq!(Dtype::F64.bits(), 64);
    /// ```
    pub fn bits(self) -> u32 {
        match self {
            Dtype::I8 => 8,
            Dtype::F16 | Dtype::Bf16 => 16,
            Dtype::F32 | Dtype::I32 => 32,
            Dtype::F64 => 64,
        }
    }

    /// The name (`f16`, …).
    ///
    /// ```
    /// use linear_layout::lower::Dtype;
    /// assert_eq!(Dtype::I8.name(), "i8");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Dtype::I8 => "i8",
            Dtype::F16 => "f16",
            Dtype::Bf16 => "bf16",
            Dtype::F32 => "f32",
            Dtype::I32 => "i32",
            Dtype::F64 => "f64",
        }
    }

    /// Parses a name.
    ///
    /// ```
    /// use linear_layout::lower::Dtype;
    /// assert_eq!(Dtype::parse("f32")?, Dtype::F32);
    /// # Ok::<(), linear_layout::lower::LowerError>(())
    /// ```
    pub fn parse(s: &str) -> Result<Dtype, LowerError> {
        Dtype::ALL.into_iter().find(|d| d.name() == s).ok_or_else(|| {
            LowerError::new(format!(
                "unknown dtype '{s}' (known: i8, f16, bf16, f32, i32, f64)"
            ))
        })
    }
}

/// Checks `shape` against the layout's (power-of-two) tensor: same rank, every size at most the
/// layout's and more than half of it (a smaller size would leave whole layout bits out of the
/// tensor).
pub(crate) fn check_shape(layout: &LinearLayout, shape: &[u64]) -> Result<(), LowerError> {
    let sizes: Vec<u64> = layout.out_dims().map(|(_, s)| s).collect();
    if sizes.len() != shape.len() {
        return Err(LowerError::new(format!(
            "the shape has {} dimensions, the layout {}",
            shape.len(),
            sizes.len()
        )));
    }
    for (d, (&s, &p)) in shape.iter().zip(&sizes).enumerate() {
        if s == 0 || s > p || s * 2 <= p {
            return Err(LowerError::new(format!(
                "dimension {d} of the shape is {s}; the layout covers {p} (the shape must round up to it)"
            )));
        }
    }
    Ok(())
}

/// The lowering emits code only for processors LLVM knows.
pub(crate) fn check_target(target: &Target) -> Result<(), LowerError> {
    if target.llvm_processor {
        Ok(())
    } else {
        Err(LowerError::new(format!(
            "{}: not a processor LLVM 22 knows{}",
            target.name,
            target
                .same_as
                .map_or(String::new(), |b| format!(" (lower for {b})"))
        )))
    }
}
