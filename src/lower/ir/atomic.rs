//! Atomic read-modify-writes ([`Op::GlobalAtomic`](super::Op::GlobalAtomic)): what each kind
//! stores, as `tt.atomic_rmw` / `tt.atomic_cas` define it, and the ordering and scope the
//! access promises.
//!
//! ```
//! use linear_layout::lower::AtomicKind;
//! let f = |x: f32| u64::from(x.to_bits());
//! assert_eq!(AtomicKind::FAdd.apply("f32", 32, f(1.5), f(2.0), 0), Some(f(3.5)));
//! assert_eq!(AtomicKind::Max.apply("i32", 32, 5, (-1i32) as u32 as u64, 0), Some(5));
//! assert_eq!(AtomicKind::UMax.apply("i32", 32, 5, (-1i32) as u32 as u64, 0), Some(0xffff_ffff));
//! assert_eq!(AtomicKind::Cas.apply("i32", 32, 7, 9, 7), Some(9)); // old == cmp: swapped
//! assert_eq!(AtomicKind::Cas.apply("i32", 32, 8, 9, 7), Some(8));
//! ```

use super::ArithOp;

/// What an atomic does to the element: `new = kind(old, value)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicKind {
    /// Integer add (`add`).
    Add,
    /// Float add (`fadd`).
    FAdd,
    /// Signed maximum (`max`).
    Max,
    /// Signed minimum (`min`).
    Min,
    /// Unsigned maximum (`umax`).
    UMax,
    /// Unsigned minimum (`umin`).
    UMin,
    /// Bitwise and (`and`).
    And,
    /// Bitwise or (`or`).
    Or,
    /// Bitwise xor (`xor`).
    Xor,
    /// Exchange (`exch`, `xchg`): the value replaces the element.
    Xchg,
    /// Compare and swap (`tt.atomic_cas`): the value replaces the element where it equals
    /// the comparand.
    Cas,
}

impl AtomicKind {
    /// The kind `tt.atomic_rmw` spells (`fadd`, `max`, `exch`, …).
    ///
    /// ```
    /// use linear_layout::lower::AtomicKind;
    /// assert_eq!(AtomicKind::parse("fadd"), Some(AtomicKind::FAdd));
    /// assert_eq!(AtomicKind::parse("exch"), Some(AtomicKind::Xchg));
    /// ```
    pub fn parse(name: &str) -> Option<AtomicKind> {
        Some(match name {
            "add" => AtomicKind::Add,
            "fadd" => AtomicKind::FAdd,
            "max" => AtomicKind::Max,
            "min" => AtomicKind::Min,
            "umax" => AtomicKind::UMax,
            "umin" => AtomicKind::UMin,
            "and" => AtomicKind::And,
            "or" => AtomicKind::Or,
            "xor" => AtomicKind::Xor,
            "exch" | "xchg" => AtomicKind::Xchg,
            _ => return None,
        })
    }

    /// Whether it applies to elements of type `ty` when addressed through `path` (a float add
    /// of 16-bit floats only globally: the buffer atomics have none).
    ///
    /// ```
    /// use linear_layout::lower::{AtomicKind, AtomicPath};
    /// assert!(AtomicKind::FAdd.applies_to("f32", AtomicPath::Buffer));
    /// assert!(AtomicKind::FAdd.applies_to("bf16", AtomicPath::Global));
    /// assert!(!AtomicKind::FAdd.applies_to("f16", AtomicPath::Buffer));
    /// assert!(!AtomicKind::FAdd.applies_to("i32", AtomicPath::Global));
    /// ```
    pub fn applies_to(self, ty: &str, path: AtomicPath) -> bool {
        let int = ty == "i32" || ty == "i64";
        let half = (ty == "f16" || ty == "bf16") && path == AtomicPath::Global;
        match self {
            AtomicKind::FAdd => ty == "f32" || ty == "f64" || half,
            AtomicKind::Xchg | AtomicKind::Cas => int || ty == "f32" || ty == "f64",
            _ => int,
        }
    }

    /// The new bits of an element holding `old` (`bits` wide, type `ty`) after the atomic with
    /// `value` (and `cmp`, the comparand of [`AtomicKind::Cas`]).
    pub fn apply(self, ty: &str, bits: u32, old: u64, value: u64, cmp: u64) -> Option<u64> {
        let arith = |op: ArithOp| op.eval(ty, bits, &[old, value]);
        match self {
            AtomicKind::Add | AtomicKind::FAdd => arith(ArithOp::Add),
            AtomicKind::Max => arith(ArithOp::Max),
            AtomicKind::Min => arith(ArithOp::Min),
            AtomicKind::UMax => arith(ArithOp::MaxU),
            AtomicKind::UMin => arith(ArithOp::MinU),
            AtomicKind::And => arith(ArithOp::And),
            AtomicKind::Or => arith(ArithOp::Or),
            AtomicKind::Xor => arith(ArithOp::Xor),
            AtomicKind::Xchg => Some(value),
            AtomicKind::Cas => Some(if old == cmp { value } else { old }),
        }
    }

    /// The operation of LLVM's `atomicrmw` (`None` for a compare-and-swap: `cmpxchg`).
    pub(crate) fn llvm_rmw(self) -> Option<&'static str> {
        Some(match self {
            AtomicKind::Add => "add",
            AtomicKind::FAdd => "fadd",
            AtomicKind::Max => "max",
            AtomicKind::Min => "min",
            AtomicKind::UMax => "umax",
            AtomicKind::UMin => "umin",
            AtomicKind::And => "and",
            AtomicKind::Or => "or",
            AtomicKind::Xor => "xor",
            AtomicKind::Xchg => "xchg",
            AtomicKind::Cas => return None,
        })
    }

    /// The name of LLVM's buffer atomic (`llvm.amdgcn.raw.ptr.buffer.atomic.<name>`).
    pub(crate) fn llvm(self) -> &'static str {
        match self {
            AtomicKind::Add => "add",
            AtomicKind::FAdd => "fadd",
            AtomicKind::Max => "smax",
            AtomicKind::Min => "smin",
            AtomicKind::UMax => "umax",
            AtomicKind::UMin => "umin",
            AtomicKind::And => "and",
            AtomicKind::Or => "or",
            AtomicKind::Xor => "xor",
            AtomicKind::Xchg => "swap",
            AtomicKind::Cas => "cmpswap",
        }
    }
}

/// How an atomic addresses memory: through the buffer's resource and an offset
/// (`amdg.buffer_atomic_rmw`: the buffer atomics, a masked thread's offset past the buffer), or
/// at a global address (`tt.atomic_rmw`, `tt.atomic_cas`: LLVM's `atomicrmw` / `cmpxchg`, a
/// masked thread branched around; where the hardware has no atomic for the type, LLVM makes
/// it a compare-and-swap loop). Triton addresses its atomics the same two ways.
///
/// ```
/// use linear_layout::lower::AtomicPath;
/// assert_ne!(AtomicPath::Buffer, AtomicPath::Global);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicPath {
    /// A buffer atomic.
    Buffer,
    /// A global atomic.
    Global,
}

/// The memory ordering an atomic promises (`sem`): `relaxed`, `acquire`, `release`,
/// `acq_rel`.
///
/// ```
/// use linear_layout::lower::AtomicOrdering;
/// assert_eq!(AtomicOrdering::parse("acq_rel"), Some(AtomicOrdering::AcqRel));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOrdering {
    /// No ordering beyond the atomic itself.
    Relaxed,
    /// Later accesses happen after it.
    Acquire,
    /// Earlier accesses happen before it.
    Release,
    /// Both.
    AcqRel,
}

impl AtomicOrdering {
    /// The ordering `sem` spells.
    pub fn parse(name: &str) -> Option<AtomicOrdering> {
        Some(match name {
            "relaxed" | "monotonic" => AtomicOrdering::Relaxed,
            "acquire" => AtomicOrdering::Acquire,
            "release" => AtomicOrdering::Release,
            "acq_rel" => AtomicOrdering::AcqRel,
            _ => return None,
        })
    }
}

/// Which threads the ordering is with (`scope`): `cta` (the workgroup), `gpu` (the device),
/// `sys` (the system).
///
/// ```
/// use linear_layout::lower::AtomicScope;
/// assert_eq!(AtomicScope::parse("gpu"), Some(AtomicScope::Gpu));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicScope {
    /// The workgroup.
    Cta,
    /// The device.
    Gpu,
    /// The whole system.
    Sys,
}

impl AtomicScope {
    /// The scope `scope` spells.
    pub fn parse(name: &str) -> Option<AtomicScope> {
        Some(match name {
            "cta" => AtomicScope::Cta,
            "gpu" => AtomicScope::Gpu,
            "sys" => AtomicScope::Sys,
            _ => return None,
        })
    }

    /// LLVM's `syncscope` for AMDGPU (empty: the system).
    pub(crate) fn llvm(self) -> &'static str {
        match self {
            AtomicScope::Cta => " syncscope(\"workgroup\")",
            AtomicScope::Gpu => " syncscope(\"agent\")",
            AtomicScope::Sys => "",
        }
    }
}
