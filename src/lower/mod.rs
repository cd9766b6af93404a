//! AMDGPU code generated from layouts.
//!
//! A distributed layout says, bit by bit, where each (register, lane, warp) element of a tensor
//! lives; a shared layout does the same for LDS offsets. Everything a kernel needs to move data
//! follows from those maps: the global offset of a thread's register `r` is the layout applied
//! to `(r, lane, warp)` — a constant for `r` XOR a linear function of the thread id
//! ([`XorMap`]) — and so are LDS addresses (the shared layout's inverse composed with the
//! distributed one) and the source lanes of a shuffle (the destination layout's inverse
//! composed with the source).
//!
//! The lowering builds a small wave-level [`Program`] (typed per-thread values, buffer loads and
//! stores with a vector width, LDS writes and reads at an address, barriers, `ds_bpermute`,
//! permlane swaps, selects and packing) and derives two things from it:
//!
//! * [`emit_llvm`]: LLVM IR text for `amdgcn-amd-amdhsa` that `llc-22` compiles;
//! * [`run`]: an interpreter executing one workgroup on the CPU, lane by lane, with a race
//!   check — the reference semantics the tests hold the code to.
//!
//! Hardware facts come from the [`Target`] row (wave size, instruction availability, LDS
//! banks) and its [`LoweringFacts`](crate::target::LoweringFacts) (descriptor flags, intrinsic
//! spellings, kernel attributes); the conversion plan is the one
//! [`convert_cost`](crate::heuristics::convert::convert_cost) prices, so the code and the price
//! agree instruction for instruction on LDS and cross-lane traffic.
//!
//! # Worked example: a copy kernel
//!
//! 64 lanes, each holding 4 consecutive f32 of a 256-element vector: one 128-bit buffer load
//! and one 128-bit store per thread, at byte offset `16·lane`.
//!
//! ```
//! use linear_layout::linear::LinearLayout;
//! use linear_layout::lower::{copy_kernel, run, Dtype, Op};
//! use linear_layout::target::Target;
//! let layout = LinearLayout::identity_1d(4, "register", "dim0")?
//!     .product(&LinearLayout::identity_1d(64, "lane", "dim0")?)?;
//! let k = copy_kernel(&layout, &[256], Dtype::F32, Target::by_name("gfx942")?)?;
//! // The program: one vector load, one vector store.
//! assert_eq!(k.program.ops.len(), 2);
//! let Op::GlobalLoad { dst, offset, .. } = &k.program.ops[0] else { unreachable!() };
//! assert_eq!(dst.len(), 4);
//! assert_eq!(offset.coords[0].cols, vec![4, 8, 16, 32, 64, 128]); // element offset 4·lane
//! // Its LLVM IR: the lane bits shifted by 4 give the byte offset.
//! let ir = k.llvm_ir()?;
//! assert!(ir.contains("shl i32 %tid, 4"));
//! assert!(ir.contains("@llvm.amdgcn.raw.ptr.buffer.load.v4i32"));
//! // Its execution: out = in.
//! let input: Vec<u8> = (0..1024).map(|i| (i * 7 % 251) as u8).collect();
//! let mut buffers = vec![input.clone(), vec![0; 1024]];
//! run(&k.program, &mut buffers)?;
//! assert_eq!(buffers[1], input);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A conversion is the same with a middle part: [`convert_kernel`] loads through the source
//! layout, converts with the plan `cost` reports (register moves, a lane shuffle, permlane
//! swaps or a round trip through LDS), and stores through the destination layout.
//! [`lds_copy_kernel`] loads global memory straight into a shared layout (direct-to-LDS loads)
//! and reads it back in a distributed one.
//!
//! A matmul tile adds the matrix instructions: [`matmul::matmul_kernel`] loads A and B, converts
//! them into their dot-operand layouts through LDS, issues the MFMA / WMMA calls
//! [`mma::plan_dot`] derives from the three layouts ([`Op::Mma`], executed by the interpreter
//! from the instructions' own lane layouts) and stores C from the accumulator layout.

mod convert;
mod direct;
mod dist;
mod emit;
mod interp;
mod lds;
pub mod matmul;
pub mod mma;
pub mod numeric;
mod program;
mod shuffle;
mod ttgir;
mod uniform;
mod xor_map;

use std::fmt;

pub use convert::convert_kernel;
pub use direct::lds_copy_kernel;
pub use emit::emit_llvm;
pub use interp::{run, run_launch, run_with};
pub use program::{
    ArithOp, Buffer, CarriedUniform, CarriedValue, DppCtrl, Extent, GlobalOffset, Op, Program, Scalar,
    SwapKind, Value,
};
pub use ttgir::ttgir_kernel;
pub use uniform::{Cmp, Condition, Derived, Launch, Uniform, UniformInput};
pub use xor_map::{ShiftTerm, XorMap};

use crate::linear::{LayoutError, LinearLayout};
use crate::target::Target;

/// Why a kernel could not be generated or run.
///
/// ```
/// use linear_layout::lower::LowerError;
/// assert_eq!(LowerError::new("too big").to_string(), "too big");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LowerError {
    message: String,
}

impl LowerError {
    /// An error with this message.
    ///
    /// ```
    /// use linear_layout::lower::LowerError;
    /// assert_eq!(LowerError::new("x").message(), "x");
    /// ```
    pub fn new(message: impl Into<String>) -> Self {
        LowerError {
            message: message.into(),
        }
    }

    /// The message.
    ///
    /// ```
    /// use linear_layout::lower::LowerError;
    /// assert!(LowerError::new("no").message().starts_with('n'));
    /// ```
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for LowerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LowerError {}

impl From<LayoutError> for LowerError {
    fn from(e: LayoutError) -> Self {
        LowerError::new(e.to_string())
    }
}

impl From<crate::heuristics::convert::ConvertError> for LowerError {
    fn from(e: crate::heuristics::convert::ConvertError) -> Self {
        LowerError::new(e.message())
    }
}

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

/// A generated kernel: the program and the target it is for.
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

impl Kernel {
    /// The LLVM IR module ([`emit_llvm`]).
    ///
    /// ```
    /// use linear_layout::linear::LinearLayout;
    /// use linear_layout::lower::{copy_kernel, Dtype};
    /// use linear_layout::target::Target;
    /// let l = LinearLayout::identity_1d(64, "lane", "dim0")?;
    /// let ir = copy_kernel(&l, &[64], Dtype::F16, Target::by_name("gfx950")?)?.llvm_ir()?;
    /// assert!(ir.contains("define amdgpu_kernel void @copy(ptr addrspace(1) %in, ptr addrspace(1) %out)"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn llvm_ir(&self) -> Result<String, LowerError> {
        emit_llvm(&self.program, self.target)
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
        });
    }
    let values = dist::load_through(&mut p, &dist, shape, 0, dtype.bits())?;
    dist::store_through(&mut p, &dist, shape, 1, dtype.bits(), &values)?;
    Ok(Kernel { program: p, target })
}

/// The lowering emits code only for processors LLVM knows.
fn check_target(target: &Target) -> Result<(), LowerError> {
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
