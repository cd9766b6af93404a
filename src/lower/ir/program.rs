//! The wave-level program: what every thread of one workgroup does, in order.
//!
//! A [`Program`] is a list of [`Op`]s over typed per-thread values ([`Value`]: an integer of
//! 8, 16, 32, 64 or 128 bits per thread). Registers are unrolled, so the only thing that
//! differs between threads is the thread id, and every address or lane index is an [`XorMap`]
//! of it — a global offset's coordinates too, their strides constants or constants times a
//! scalar argument ([`Extent`], a row stride passed at run time), plus a part the same for the
//! whole workgroup ([`Uniform`]: a polynomial in the scalar arguments, the workgroup's id and
//! the slots of enclosing loops, such as `pid · 64 · stride + k`). Control flow is uniform too:
//! a [`Loop`](Op::Loop) runs its body while a counter slot stays below a uniform end, carrying
//! uniform slots and per-thread values from one iteration to the next, a [`While`](Op::While)
//! runs while a test after its first part holds ([`BranchCondition`]), and an [`If`](Op::If)
//! picks a branch by a [`Condition`] every thread agrees on. Two things are derived from a
//! program: LLVM IR text ([`emit_llvm`](crate::lower::emit_llvm)) and an execution on the CPU
//! ([`run`](crate::lower::run), [`run_with`](crate::lower::run_with) for the scalar arguments,
//! [`run_launch`](crate::lower::run_launch) for any workgroup of a grid).

use super::arith::ArithOp;
use super::atomic::{AtomicKind, AtomicOrdering, AtomicPath, AtomicScope};
use super::predicate::Predicate;
use super::uniform::{Condition, Derived, Env, Extent, Launch, Uniform, UniformInput};
use super::xor_map::XorMap;
use crate::target::mma::MmaInstruction;

/// A per-thread SSA value of a [`Program`].
///
/// ```
/// use linear_layout::lower::Value;
/// assert_eq!(Value(3).0, 3);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(pub u32);

/// A global (buffer) offset in elements: `base + Σ coords[d] · strides[d]`, masked when a checked
/// coordinate reaches its bound (then loads read 0 and stores are dropped, as an out-of-range
/// buffer offset does on the hardware).
///
/// ```
/// use linear_layout::lower::{GlobalOffset, Extent, Launch, Uniform, XorMap};
/// let o = GlobalOffset { coords: vec![XorMap { cols: vec![1], constant: 0 }], strides: vec![Extent::Elements(1)], bounds: vec![Some(Extent::Elements(1))], base: Uniform::constant(8), when: vec![], index: None, predicate: None, held: None, held_row: None };
/// assert_eq!(o.eval(0, &Launch::single(vec![])), Some(8));
/// assert_eq!(o.eval(1, &Launch::single(vec![])), None);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GlobalOffset {
    /// Per dimension, the coordinate (dim0 first).
    pub coords: Vec<XorMap>,
    /// Per dimension, elements between consecutive coordinates.
    pub strides: Vec<Extent>,
    /// Per dimension, `Some(n)`: the coordinate must stay below `n`.
    pub bounds: Vec<Option<Extent>>,
    /// Elements added for the whole workgroup (the bounds check the coordinates only).
    pub base: Uniform,
    /// Conditions the whole workgroup agrees on; where one fails, every thread is masked.
    pub when: Vec<Condition>,
    /// A per-thread element offset added to the rest (a 32-bit value: the index of a gather or
    /// scatter, an address that is data).
    pub index: Option<Value>,
    /// A per-thread predicate (a 1-bit value): where it is 0 the thread is masked (a mask that
    /// bounds no coordinate).
    pub predicate: Option<Value>,
    /// `base + Σ coords[d] · strides[d]` as a 32-bit value the program already holds (the index
    /// a mask compared: `offs = pid * BLOCK + arange` in `tl.load(x + offs, offs < n)`). The
    /// access then takes its whole offset from that register, shifted to bytes, and needs no
    /// uniform part of its own; the interpreter checks that it holds what the formula says.
    pub held: Option<Value>,
    /// One dimension's coordinate and its uniform start as a 32-bit value the program already
    /// holds (see [`HeldRow`]): that dimension's part of the offset is taken from it.
    pub held_row: Option<HeldRow>,
}

/// `start + coords[dim]` per thread, held in a register: the row index a mask compared.
///
/// `rows = pid * BM + arange(0, BM)` masked by `rows[:, None] < M` is in a register before
/// `x + rows[:, None] * stride + cols[None, :]` is read. The access's offset is then
/// `rows · stride + cols`: one product per register, where computing it anew takes the
/// coordinate's product `arange · stride` and the uniform `pid · BM · stride` (scalar code, in
/// the buffer instruction's `soffset`) apart. The offset is the same either way; the
/// interpreter checks that the register holds what the formula says.
///
/// ```
/// use linear_layout::lower::{Extent, GlobalOffset, HeldRow, Uniform, UniformInput, Value, XorMap};
/// let row = Uniform::input(UniformInput::Argument(1));
/// let o = GlobalOffset {
///     coords: vec![XorMap { cols: vec![1], constant: 0 }, XorMap { cols: vec![0], constant: 0 }],
///     strides: vec![Extent::Scalar { index: 0, times: 1 }, Extent::Elements(1)],
///     bounds: vec![None, None],
///     base: row.mul(&Extent::Scalar { index: 0, times: 1 }.uniform()),
///     held_row: Some(HeldRow { dim: 0, start: row, value: Value(0) }),
///     ..GlobalOffset::default()
/// };
/// assert_eq!(o.uniform_rest().is_zero(), true);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeldRow {
    /// The dimension.
    pub dim: usize,
    /// The uniform start of the coordinate (`pid · BM`), part of the offset's base times the
    /// dimension's stride.
    pub start: Uniform,
    /// The register holding `start + coords[dim]`.
    pub value: Value,
}

impl GlobalOffset {
    /// The uniform part the access computes itself: the base, less what a held row brings
    /// (`start · stride` of its dimension).
    ///
    /// ```
    /// use linear_layout::lower::{GlobalOffset, Uniform};
    /// let o = GlobalOffset { base: Uniform::constant(8), ..GlobalOffset::default() };
    /// assert_eq!(o.uniform_rest(), Uniform::constant(8));
    /// ```
    pub fn uniform_rest(&self) -> Uniform {
        match (&self.held_row, self.held) {
            (_, Some(_)) => Uniform::default(),
            (Some(h), None) => match self.strides.get(h.dim) {
                Some(s) => self.base.add(&h.start.mul(&s.uniform()), -1),
                None => self.base.clone(),
            },
            (None, None) => self.base.clone(),
        }
    }

    /// The element offset for thread `tid` in `launch`, or `None` when masked (or an input is
    /// missing).
    ///
    /// ```
    /// use linear_layout::lower::{GlobalOffset, Extent, Launch, Uniform, XorMap};
    /// let o = GlobalOffset { coords: vec![XorMap { cols: vec![1], constant: 0 }, XorMap { cols: vec![0], constant: 1 }], strides: vec![Extent::Scalar { index: 0, times: 1 }, Extent::Elements(1)], bounds: vec![None, None], base: Uniform::default(), when: vec![], index: None, predicate: None, held: None, held_row: None };
    /// assert_eq!(o.eval(1, &Launch::single(vec![3])), Some(4));
    /// ```
    pub fn eval(&self, tid: u64, launch: &Launch) -> Option<u64> {
        let scalars = launch.scalars.as_slice();
        let mut off = self.base.value(launch)? as u64;
        if !self.when.iter().all(|c| c.value(launch) == Some(true)) {
            return None;
        }
        for ((c, s), b) in self.coords.iter().zip(&self.strides).zip(&self.bounds) {
            let x = c.eval(tid);
            if let Some(b) = b
                && x >= b.value(scalars)?
            {
                return None;
            }
            off = off.wrapping_add(x.wrapping_mul(s.value(scalars)?));
        }
        Some(off)
    }

    /// [`eval`](Self::eval) for threads `0..threads`.
    ///
    /// ```
    /// use linear_layout::lower::{GlobalOffset, Extent, Launch, Uniform, XorMap};
    /// let o = GlobalOffset { coords: vec![XorMap { cols: vec![1], constant: 0 }], strides: vec![Extent::Elements(1)], bounds: vec![Some(Extent::Elements(1))], base: Uniform::default(), when: vec![], index: None, predicate: None, held: None, held_row: None };
    /// assert_eq!(o.eval_all(2, &Launch::single(vec![])), vec![Some(0), None]);
    /// ```
    pub fn eval_all(&self, threads: usize, launch: &Launch) -> Vec<Option<u64>> {
        self.eval_all_in(threads, &Env::new(launch))
    }

    pub(crate) fn eval_all_in(&self, threads: usize, env: &Env) -> Vec<Option<u64>> {
        let scalars = env.launch.scalars.as_slice();
        let live = self.when.iter().all(|c| c.value_in(env) == Some(true));
        let base = self.base.value_in(env).filter(|_| live);
        let mut out: Vec<Option<u64>> = vec![base.map(|b| b as u64); threads];
        for ((c, s), b) in self.coords.iter().zip(&self.strides).zip(&self.bounds) {
            let stride = s.value(scalars);
            let bound = b.map(|b| b.value(scalars).unwrap_or(0));
            for (o, x) in out.iter_mut().zip(c.eval_all(threads)) {
                *o = match (*o, bound, stride) {
                    (Some(_), Some(b), _) if x >= b => None,
                    (Some(acc), _, Some(s)) => Some(acc.wrapping_add(x.wrapping_mul(s))),
                    _ => None,
                };
            }
        }
        out
    }

    /// Whether no coordinate is checked.
    ///
    /// ```
    /// use linear_layout::lower::{GlobalOffset, Extent, Uniform, XorMap};
    /// assert!(GlobalOffset { coords: vec![XorMap::constant(0, 1)], strides: vec![Extent::Elements(1)], bounds: vec![None], base: Uniform::default(), when: vec![], index: None, predicate: None, held: None, held_row: None }.unmasked());
    /// ```
    pub fn unmasked(&self) -> bool {
        self.bounds.iter().all(Option::is_none) && self.when.is_empty() && self.predicate.is_none()
    }

    /// Whether every part is the same in every thread's access but the coordinates (no data
    /// index, no predicate).
    ///
    /// ```
    /// use linear_layout::lower::GlobalOffset;
    /// assert!(GlobalOffset::default().symbolic());
    /// ```
    pub fn symbolic(&self) -> bool {
        self.index.is_none() && self.predicate.is_none()
    }
}

/// A global buffer: a kernel argument, or memory at an address the kernel loaded (a pointer
/// read from a table, `tl.load(ptrs + g).to(tl.pointer_type(tl.float16))`).
///
/// ```
/// use linear_layout::lower::Buffer;
/// let b = Buffer { name: "in".into(), elements: Some(64), element_bits: 16, address: None };
/// assert_eq!(b.bytes(), Some(128));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buffer {
    /// Argument name (or, for a loaded address, the value's).
    pub name: String,
    /// Elements in the buffer; `None` when only the caller knows (a kernel lowered from TTGIR):
    /// the buffer resource then covers the largest range a 32-bit offset reaches, and the
    /// interpreter checks accesses against the data it is given.
    pub elements: Option<u64>,
    /// Bits per element.
    pub element_bits: u32,
    /// `None`: a kernel argument (buffers fill the argument positions scalars leave, in
    /// order). `Some(v)`: the memory at the 64-bit address `v` holds, the same in every
    /// thread — no argument; its resource is made where [`Op::BindBuffer`] names it, and
    /// accesses follow that op.
    pub address: Option<Value>,
}

impl Buffer {
    /// Whether it is a kernel argument.
    ///
    /// ```
    /// use linear_layout::lower::{Buffer, Value};
    /// let loaded = Buffer { name: "a".into(), elements: None, element_bits: 16, address: Some(Value(3)) };
    /// assert!(!loaded.is_argument());
    /// ```
    pub fn is_argument(&self) -> bool {
        self.address.is_none()
    }

    /// Size in bytes, if known.
    ///
    /// ```
    /// use linear_layout::lower::Buffer;
    /// assert_eq!(Buffer { name: "x".into(), elements: Some(3), element_bits: 64, address: None }.bytes(), Some(24));
    /// ```
    pub fn bytes(&self) -> Option<u64> {
        self.elements
            .map(|e| (e * u64::from(self.element_bits)).div_ceil(8))
    }
}

/// A scalar kernel argument (`i32 %stride`, `float %eps`). Its value in a
/// [`Launch`](super::Launch) is its bit pattern (`f32` 1.0 is `0x3f80_0000`).
///
/// ```
/// use linear_layout::lower::Scalar;
/// let s = Scalar { name: "eps".into(), ty: "f32", position: 2 };
/// assert_eq!(s.bits(), 32);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scalar {
    /// Argument name.
    pub name: String,
    /// Its type: `i1`, `i8`, `i16`, `i32`, `i64`, `f16`, `bf16`, `f32` or `f64`.
    pub ty: &'static str,
    /// Its position among the kernel's arguments (buffers fill the other positions, in order).
    pub position: usize,
}

impl Scalar {
    /// The types a scalar argument may have.
    pub const TYPES: [&'static str; 9] = ["i1", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"];

    /// Its width in bits (0 for a type outside [`Scalar::TYPES`]).
    ///
    /// ```
    /// use linear_layout::lower::Scalar;
    /// assert_eq!(Scalar { name: "p".into(), ty: "i1", position: 0 }.bits(), 1);
    /// assert_eq!(Scalar { name: "x".into(), ty: "bf16", position: 0 }.bits(), 16);
    /// ```
    pub fn bits(&self) -> u32 {
        match self.ty {
            "i1" => 1,
            "i8" => 8,
            "i16" | "f16" | "bf16" => 16,
            "i32" | "f32" => 32,
            "i64" | "f64" => 64,
            _ => 0,
        }
    }
}

/// Which half-exchange a permlane swap performs.
///
/// ```
/// use linear_layout::lower::SwapKind;
/// assert_eq!(SwapKind::Rows32.lane_bit(), 5);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SwapKind {
    /// `v_permlane16_swap_b32`: odd 16-lane rows of the first operand with even rows of the
    /// second.
    Rows16,
    /// `v_permlane32_swap_b32`: lanes 32–63 of the first operand with lanes 0–31 of the second.
    Rows32,
}

impl SwapKind {
    /// The lane bit the swap exchanges (4 or 5).
    ///
    /// ```
    /// use linear_layout::lower::SwapKind;
    /// assert_eq!(SwapKind::Rows16.lane_bit(), 4);
    /// ```
    pub fn lane_bit(self) -> u32 {
        match self {
            SwapKind::Rows16 => 4,
            SwapKind::Rows32 => 5,
        }
    }
}

/// A DPP lane pattern ([`Op::Dpp`]): within each row of 16 lanes, or from one row to the next.
/// A lane the pattern gives no source reads 0.
///
/// ```
/// use linear_layout::lower::DppCtrl;
/// assert_eq!(DppCtrl::QuadPerm([1, 0, 3, 2]).source_lane(6), Some(7));
/// assert_eq!(DppCtrl::RowHalfMirror.source_lane(1), Some(6));
/// assert_eq!(DppCtrl::RowMirror.source_lane(17), Some(30));
/// assert_eq!(DppCtrl::RowShr(2).source_lane(19), Some(17));
/// assert_eq!(DppCtrl::RowShr(2).source_lane(17), None);
/// assert_eq!(DppCtrl::RowBcast15.source_lane(56), Some(47));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DppCtrl {
    /// Lane `4q + i` reads lane `4q + sel[i]`.
    QuadPerm([u8; 4]),
    /// Lane `i` of each row reads lane `15 − i`.
    RowMirror,
    /// Lane `i` of each half-row of 8 reads lane `7 − i`.
    RowHalfMirror,
    /// Lane `i` of each row reads lane `i − n` of the row (`1 ≤ n ≤ 15`; none below `n`).
    RowShr(u8),
    /// Lane `i` of each row reads lane `i + n` of the row (`1 ≤ n ≤ 15`; none above `15 − n`).
    RowShl(u8),
    /// The lanes of rows 1 and 3 read lane 15 of the row before (`row_bcast:15`).
    RowBcast15,
    /// The lanes of rows 2 and 3 read lane 31 (`row_bcast:31`).
    RowBcast31,
    /// Lane `i` reads lane `i − 1` of the wave (none for lane 0; `wave_shr:1`, GFX9 only).
    WaveShr1,
    /// Lane `i` reads lane `i + 1` of the wave (none for the last; `wave_shl:1`, GFX9 only).
    WaveShl1,
}

impl DppCtrl {
    /// The lane a lane reads (`None`: it reads 0; a lane past the wave's last reads 0 too).
    ///
    /// ```
    /// use linear_layout::lower::DppCtrl;
    /// assert_eq!(DppCtrl::WaveShr1.source_lane(16), Some(15));
    /// assert_eq!(DppCtrl::WaveShr1.source_lane(0), None);
    /// assert_eq!(DppCtrl::QuadPerm([2, 3, 0, 1]).source_lane(0), Some(2));
    /// assert_eq!(DppCtrl::RowShl(1).source_lane(15), None);
    /// assert_eq!(DppCtrl::RowBcast31.source_lane(31), None);
    /// ```
    pub fn source_lane(self, lane: u32) -> Option<u32> {
        let in_row = lane & 15;
        match self {
            DppCtrl::QuadPerm(sel) => Some((lane & !3) | u32::from(sel[(lane & 3) as usize] & 3)),
            DppCtrl::RowMirror => Some(lane ^ 15),
            DppCtrl::RowHalfMirror => Some(lane ^ 7),
            DppCtrl::RowShr(n) => (in_row >= u32::from(n)).then(|| lane - u32::from(n)),
            DppCtrl::RowShl(n) => (in_row + u32::from(n) <= 15).then(|| lane + u32::from(n)),
            DppCtrl::RowBcast15 => (lane & 16 != 0).then_some((lane & !31) | 15),
            DppCtrl::RowBcast31 => (lane & 32 != 0).then_some(31),
            DppCtrl::WaveShr1 => lane.checked_sub(1),
            DppCtrl::WaveShl1 => Some(lane + 1),
        }
    }

    /// The `dpp_ctrl` field (`llvm.amdgcn.update.dpp`).
    ///
    /// ```
    /// use linear_layout::lower::DppCtrl;
    /// assert_eq!(DppCtrl::QuadPerm([1, 0, 3, 2]).code(), 0xb1);
    /// assert_eq!(DppCtrl::RowMirror.code(), 0x140);
    /// assert_eq!(DppCtrl::RowShr(4).code(), 0x114);
    /// assert_eq!(DppCtrl::WaveShr1.code(), 0x138);
    /// ```
    pub fn code(self) -> u32 {
        match self {
            DppCtrl::QuadPerm(sel) => sel
                .iter()
                .enumerate()
                .fold(0, |c, (i, &s)| c | u32::from(s & 3) << (2 * i)),
            DppCtrl::RowShl(n) => 0x100 | u32::from(n & 15),
            DppCtrl::RowShr(n) => 0x110 | u32::from(n & 15),
            DppCtrl::RowMirror => 0x140,
            DppCtrl::RowHalfMirror => 0x141,
            DppCtrl::RowBcast15 => 0x142,
            DppCtrl::RowBcast31 => 0x143,
            DppCtrl::WaveShl1 => 0x130,
            DppCtrl::WaveShr1 => 0x138,
        }
    }

    /// The rows the move writes (`row_mask`): the broadcasts write only the rows they feed,
    /// the others keep the instruction's old value (0 here, as for lanes without a source).
    ///
    /// ```
    /// use linear_layout::lower::DppCtrl;
    /// assert_eq!(DppCtrl::RowBcast15.row_mask(), 0b1010);
    /// assert_eq!(DppCtrl::RowShr(1).row_mask(), 0b1111);
    /// ```
    pub fn row_mask(self) -> u32 {
        match self {
            DppCtrl::RowBcast15 => 0b1010,
            DppCtrl::RowBcast31 => 0b1100,
            _ => 0b1111,
        }
    }

    /// Whether every lane has a source.
    ///
    /// ```
    /// use linear_layout::lower::DppCtrl;
    /// assert!(DppCtrl::RowMirror.every_lane_reads());
    /// assert!(!DppCtrl::RowShr(8).every_lane_reads());
    /// ```
    pub fn every_lane_reads(self) -> bool {
        matches!(
            self,
            DppCtrl::QuadPerm(_) | DppCtrl::RowMirror | DppCtrl::RowHalfMirror
        )
    }
}

/// Whether `ops[i]` is a DPP move LLVM folds into the two-operand 32-bit operation right after
/// it that reads it (`v_add_f32_dpp`: a reduction's or a scan's step is one instruction) — the
/// emitter marks those moves for folding (`bound_ctrl`) and the cost model counts them as no
/// instruction. A float maximum or minimum is not folded: in IEEE mode LLVM quiets its
/// operands first (`v_max_f32 x, x, x`), which reads the move.
pub(crate) fn dpp_folds_into_next(ops: &[Op], i: usize) -> bool {
    let Some(Op::Dpp { dst, ctrl, .. }) = ops.get(i) else {
        return false;
    };
    let Some(Op::Arith { op, ty, src, .. }) = ops.get(i + 1) else {
        return false;
    };
    let quieted = ty.starts_with('f') && matches!(op, ArithOp::Max | ArithOp::Min);
    ctrl.row_mask() == 0b1111
        && src.len() == 2
        && src.contains(dst)
        && ["f32", "i32", "f16"].contains(ty)
        && !quieted
}

/// Every operation of `ops`, those in loop bodies and branches too, each before its body.
pub(crate) fn walk(ops: &[Op]) -> impl Iterator<Item = &Op> {
    let mut stack: Vec<&Op> = ops.iter().rev().collect();
    std::iter::from_fn(move || {
        let op = stack.pop()?;
        match op {
            Op::Loop { body, .. } | Op::LdsWindow { ops: body, .. } | Op::Predicated { ops: body, .. } => {
                stack.extend(body.iter().rev())
            }
            Op::If { then, otherwise, .. } => {
                stack.extend(otherwise.iter().rev());
                stack.extend(then.iter().rev());
            }
            Op::While { before, after, .. } => {
                stack.extend(after.iter().rev());
                stack.extend(before.iter().rev());
            }
            _ => {}
        }
        Some(op)
    })
}

/// A uniform slot a loop carries: `init` before the first iteration, `next` (read with the
/// iteration's values) after each.
///
/// ```
/// use linear_layout::lower::{CarriedUniform, Uniform, UniformInput};
/// let k = CarriedUniform { slot: 1, init: Uniform::constant(0), next: Uniform::input(UniformInput::Carried(1)).add(&Uniform::constant(32), 1) };
/// assert_eq!(k.slot, 1);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CarriedUniform {
    /// Its slot ([`UniformInput::Carried`](super::UniformInput::Carried)).
    pub slot: u32,
    /// Before the first iteration.
    pub init: Uniform,
    /// After each iteration.
    pub next: Uniform,
}

/// A per-thread value a loop carries: `phi` is `init` in the first iteration, then the last
/// iteration's `next`.
///
/// ```
/// use linear_layout::lower::{CarriedValue, Value};
/// let acc = CarriedValue { phi: Value(1), init: Value(0), next: Value(2) };
/// assert_eq!(acc.phi, Value(1));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CarriedValue {
    /// The value inside the loop and after it.
    pub phi: Value,
    /// Before the first iteration.
    pub init: Value,
    /// At the end of each iteration.
    pub next: Value,
}

/// What decides a branch — whether an [`If`](Op::If) runs its first arm, whether a
/// [`While`](Op::While) loop goes on: a condition of uniforms, a 1-bit value every thread
/// holds the same bit of (a scalar computed in registers; the emitted code reads it from the
/// first lane, the interpreter checks that every thread agrees), or a 1-bit value each thread
/// tests for itself.
///
/// The last is a scalar function mapped over a tensor's elements (`tt.map_elementwise`):
/// `if x > 0: return x` decides per element, so the threads part ways — each runs its own arm,
/// or its own iterations of a loop, and the results are each thread's own. Under such a
/// branch every op is one a thread computes alone (no memory, barrier or exchange between
/// lanes: [`validate`](super::Program::validate) checks it); the emitted code branches on the
/// lane's bit and LLVM masks the lanes.
///
/// ```
/// use linear_layout::lower::{Cmp, Condition, Uniform, UniformInput, Value, BranchCondition};
/// let below_n = BranchCondition::Uniform(Condition { lhs: Uniform::input(UniformInput::Carried(0)), cmp: Cmp::Lt, rhs: Uniform::input(UniformInput::Argument(0)) });
/// assert_ne!(below_n, BranchCondition::Value(Value(3)));
/// assert_eq!(BranchCondition::PerThread(Value(3)).value(), Some(Value(3)));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BranchCondition {
    /// A comparison of uniforms.
    Uniform(Condition),
    /// A 1-bit value, the same in every thread.
    Value(Value),
    /// A 1-bit value each thread tests for itself.
    PerThread(Value),
}

impl BranchCondition {
    /// The value it tests, if it tests one.
    pub fn value(&self) -> Option<Value> {
        match self {
            BranchCondition::Value(v) | BranchCondition::PerThread(v) => Some(*v),
            BranchCondition::Uniform(_) => None,
        }
    }

    /// Every uniform input it reads.
    pub(crate) fn inputs(&self) -> Vec<UniformInput> {
        match self {
            BranchCondition::Uniform(c) => c.inputs().collect(),
            BranchCondition::Value(_) | BranchCondition::PerThread(_) => Vec::new(),
        }
    }
}

/// The odd element of a packed pair [`Op::GlobalAtomic`] updates with its even one: one
/// `<2 x half>` add of the aligned 32-bit word instead of two (a masked half adds −0.0, which
/// leaves every number as it is; a masked pair does nothing).
///
/// ```
/// use linear_layout::lower::{AtomicNeighbour, Value};
/// let n = AtomicNeighbour { src: Value(3), dst: None, predicate: Some(Value(4)) };
/// assert_eq!(n.src, Value(3));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AtomicNeighbour {
    /// Its operand.
    pub src: Value,
    /// Its old value (`None`: unused).
    pub dst: Option<Value>,
    /// Its own predicate (the pair's offset bounds both elements alike; its predicate is the
    /// even element's).
    pub predicate: Option<Value>,
}

/// One operation, executed by every thread of the workgroup.
///
/// ```
/// use linear_layout::lower::{Op, Value};
/// let op = Op::Barrier;
/// assert_eq!(op.defined(), Vec::<Value>::new());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// Loads `dst.len()` consecutive elements of `buffer` starting at `offset`
    /// (`raw.ptr.buffer.load` of the whole vector). Where the offset is masked, every element
    /// reads `other`.
    GlobalLoad {
        /// One value per element.
        dst: Vec<Value>,
        /// Index into [`Program::buffers`].
        buffer: usize,
        /// Element offset of the first element.
        offset: GlobalOffset,
        /// The bits a masked element reads: 0, what an out-of-range buffer load returns, unless
        /// the source asks for another value (a `select` after the load).
        other: u64,
    },
    /// Stores `src` as consecutive elements (`raw.ptr.buffer.store`).
    GlobalStore {
        /// One value per element.
        src: Vec<Value>,
        /// Index into [`Program::buffers`].
        buffer: usize,
        /// Element offset of the first element.
        offset: GlobalOffset,
    },
    /// Writes `src` as consecutive elements at LDS byte `address` (one `ds_write`).
    LdsWrite {
        /// One value per element.
        src: Vec<Value>,
        /// Byte address (aligned to the vector's size).
        address: XorMap,
    },
    /// Reads consecutive elements at LDS byte `address` (one `ds_read`).
    LdsRead {
        /// One value per element.
        dst: Vec<Value>,
        /// Byte address (aligned to the vector's size).
        address: XorMap,
    },
    /// `dst` = the element at the byte address `address` holds in each thread (an address
    /// that is data: `tt.gather`'s looked-up index), which lies in the LDS bytes `region`.
    LdsReadIndexed {
        /// Result.
        dst: Value,
        /// Byte address, per thread.
        address: Value,
        /// `[start, end)`: the bytes the address may reach.
        region: (u64, u64),
    },
    /// Adds each thread's 32-bit `src` to the 32-bit LDS word at its byte `address` (in
    /// `region`), atomically: threads of the workgroup apply theirs in thread order
    /// (`tt.histogram`'s counts).
    LdsAtomicAdd {
        /// The addend, per thread.
        src: Value,
        /// Byte address, per thread.
        address: Value,
        /// `[start, end)`: the bytes the address may reach.
        region: (u64, u64),
    },
    /// gfx950's `ds_read_b64_tr_b{16,8}`: within each group of 16 lanes, lane `s` supplies the
    /// address of `E = dst.len()` elements `f = s·E + t`; lane `L` receives `f = j·16 + L` as
    /// its element `j`.
    LdsReadTransposed {
        /// `E` values (64 bits in all).
        dst: Vec<Value>,
        /// Byte address (8-byte aligned).
        address: XorMap,
    },
    /// Loads `elements` consecutive elements of `buffer` starting at `offset` straight into
    /// LDS at byte `address` (`buffer_load … lds` / `global_load_async_to_lds`), without
    /// registers. The bytes are in LDS only after [`Op::WaitDirectLoads`]; a masked lane writes
    /// zeros.
    GlobalLoadToLds {
        /// Index into [`Program::buffers`].
        buffer: usize,
        /// Element offset of the first element.
        offset: GlobalOffset,
        /// Elements per lane.
        elements: u32,
        /// LDS byte address per thread (aligned to the access).
        address: XorMap,
    },
    /// Waits until the thread's direct-to-LDS loads have written LDS (`s_waitcnt vmcnt(0)`,
    /// `s_wait_asynccnt 0`).
    WaitDirectLoads,
    /// Loop slot `slot` ([`UniformInput::Carried`](super::UniformInput::Carried)) holds the
    /// 32-bit `src`, which every thread holds alike (a loop bound loaded from memory): its
    /// first lane, in scalar registers, from here on.
    ReadUniform {
        /// The slot.
        slot: u32,
        /// The value read.
        src: Value,
    },
    /// Makes the resource of a buffer at a loaded address ([`Buffer::address`], the same in
    /// every thread) here: accesses to it follow.
    BindBuffer {
        /// Index into [`Program::buffers`].
        buffer: usize,
    },
    /// Workgroup barrier with LDS release/acquire fences around it.
    Barrier,
    /// Workgroup barrier that orders every memory access (global memory and LDS) of the
    /// workgroup's threads before it before every one after it (`tl.debug_barrier()`):
    /// release/acquire fences of the workgroup scope for all address spaces around it.
    WorkgroupBarrier,
    /// `ds_bpermute_b32`: `dst` = `src` of lane `lane` of the same wave (a 32-bit value).
    Bpermute {
        /// Result (32 bits).
        dst: Value,
        /// Sent value (32 bits).
        src: Value,
        /// Lane read, per thread (taken modulo the wave size).
        lane: XorMap,
    },
    /// A DPP move: `dst` = `src` of the lane `ctrl` names in the same row of 16 (a 32-bit value).
    Dpp {
        /// Result (32 bits).
        dst: Value,
        /// Moved value (32 bits).
        src: Value,
        /// The lane pattern.
        ctrl: DppCtrl,
    },
    /// RDNA's `v_permlanex16_b32` (a 32-bit value): lane `i` of each row of 16 reads lane
    /// `lanes[i]` of the other row of its 32 (the identity selects: the lane 16 apart).
    PermlaneX16 {
        /// Result (32 bits).
        dst: Value,
        /// Moved value (32 bits).
        src: Value,
        /// Per lane of a row, the lane of the other row it reads.
        lanes: [u8; 16],
    },
    /// `v_permlane{16,32}_swap_b32` on two 32-bit values: returns the new (first, second).
    PermlaneSwap {
        /// Which swap.
        kind: SwapKind,
        /// New first and second operand.
        dst: [Value; 2],
        /// First and second operand.
        src: [Value; 2],
    },
    /// `dst = bit `bit` of the thread id ? one : zero`.
    SelectOnThreadBit {
        /// Result.
        dst: Value,
        /// Thread-id bit tested.
        bit: u32,
        /// Taken when the bit is 1.
        one: Value,
        /// Taken when the bit is 0.
        zero: Value,
    },
    /// Concatenates equal-width `parts` (first part in the low bits) into `dst`.
    Pack {
        /// Result, as wide as all parts.
        dst: Value,
        /// Parts, low first.
        parts: Vec<Value>,
    },
    /// Splits `src` into equal-width parts (low first).
    Unpack {
        /// Parts, low first.
        dst: Vec<Value>,
        /// Value split.
        src: Value,
    },
    /// One matrix instruction of the wave: `dst = a·b + c` on the instruction's tile, each
    /// lane's operand elements and result registers placed as the instruction's lane layouts
    /// say ([`MmaInstruction::operand_bases`], [`MmaInstruction::acc_bases`]).
    Mma {
        /// The instruction.
        instruction: &'static MmaInstruction,
        /// Result registers (one value per accumulator register, the instruction's `acc` type).
        dst: Vec<Value>,
        /// First operand's elements (the instruction's `ab` type), element 0 first.
        a: Vec<Value>,
        /// Second operand's elements.
        b: Vec<Value>,
        /// Accumulator registers; empty for a zero accumulator.
        c: Vec<Value>,
    },
    /// Converts numbers between element types, element by element (`f32 → f16` rounds to
    /// nearest even, `i32 → i8` keeps the low bits); type names as in the instruction table
    /// (`f32`, `f16`, `bf16`, `i32`, `i8`, …; `u8`, `u32`, … where the integers are unsigned:
    /// [`numeric::convert`](super::numeric::convert)). A vector converts as one operation (the
    /// packed conversions where the target has them).
    Convert {
        /// Results.
        dst: Vec<Value>,
        /// Operands, one per result.
        src: Vec<Value>,
        /// The operand's type.
        from: &'static str,
        /// The result's type.
        to: &'static str,
    },
    /// `dst` = the bits `bits` in every thread.
    Constant {
        /// Result.
        dst: Value,
        /// Its bits (the low `dst`-width bits).
        bits: u64,
    },
    /// A loop the whole workgroup runs together: the uniform slot `counter` starts at `start`
    /// and the body runs while it is below `end` (signed), `step` more each time. After each
    /// iteration every carried value and uniform takes its `next`, all at once; after the loop
    /// they hold their last values (a value the body defines is not seen outside it).
    Loop {
        /// The counter's slot ([`UniformInput::Carried`](super::UniformInput::Carried)).
        counter: u32,
        /// First value of the counter.
        start: Uniform,
        /// The counter stays below it.
        end: Uniform,
        /// Added to the counter after each iteration (positive: a step that is not is an
        /// error when the loop runs).
        step: Uniform,
        /// Uniform slots the loop carries.
        uniforms: Vec<CarriedUniform>,
        /// Per-thread values the loop carries.
        values: Vec<CarriedValue>,
        /// The body.
        body: Vec<Op>,
    },
    /// Runs `then` or `otherwise` as `cond` holds, then each result `[dst, a, b]` is `a` (from
    /// `then`) or `b` (from `otherwise`).
    If {
        /// The condition.
        cond: BranchCondition,
        /// Ops run when it holds.
        then: Vec<Op>,
        /// Ops run otherwise.
        otherwise: Vec<Op>,
        /// `[dst, a, b]` per result.
        results: Vec<[Value; 3]>,
    },
    /// Runs `ops` with every LDS address `offset` bytes further (a workgroup uniform): a
    /// slice of a multi-buffered shared tile picked at run time, such as a pipeline stage's
    /// slot. The ops run in place (what they define is seen after it); direct-to-LDS loads
    /// stay outside.
    LdsWindow {
        /// Bytes added to every LDS address.
        offset: Uniform,
        /// The ops.
        ops: Vec<Op>,
    },
    /// A loop the whole workgroup runs together while a test holds (`scf.while`): each
    /// iteration runs `before` with the carried values, tests `cond`, and when it holds runs
    /// `after`, after which every carried value and uniform takes its `next`, all at once. When
    /// it fails the loop ends: each result `[dst, src]` is `src` as that last `before` left it,
    /// and the carried uniform slots keep the values it saw. A value `before` defines is seen
    /// by the `after` of its iteration; one `after` defines is not seen outside it.
    While {
        /// Uniform slots the loop carries.
        uniforms: Vec<CarriedUniform>,
        /// Per-thread values the loop carries (`phi` is seen inside the loop only).
        values: Vec<CarriedValue>,
        /// Runs first in each iteration.
        before: Vec<Op>,
        /// Tested after `before`: the loop goes on while it holds.
        cond: BranchCondition,
        /// `[dst, src]` per value the loop leaves.
        results: Vec<[Value; 2]>,
        /// Runs while the test holds.
        after: Vec<Op>,
    },
    /// Ops that act only in the threads where `predicate` (1 bit) holds: every store and
    /// atomic among them is masked by it, and what they define is used among them alone — so
    /// the code branches around them, and a wave none of whose threads needs them skips them
    /// all. They compute what they would in place
    /// ([`form_predicated_regions`](crate::lower::passes::form_predicated_regions) makes them).
    Predicated {
        /// The threads that act.
        predicate: Value,
        /// The ops, in order.
        ops: Vec<Op>,
    },
    /// `dst` (1 bit) = `a pred b` on numbers of type `ty` (`icmp` / `fcmp`).
    Compare {
        /// The comparison.
        pred: Predicate,
        /// The numbers' type.
        ty: &'static str,
        /// Result (1 bit).
        dst: Value,
        /// Left operand.
        a: Value,
        /// Right operand.
        b: Value,
    },
    /// `dst = cond ? a : b`, per thread (`cond` 1 bit; `a`, `b` and `dst` of one width).
    Select {
        /// Result.
        dst: Value,
        /// The condition (1 bit).
        cond: Value,
        /// Taken where it is 1.
        a: Value,
        /// Taken where it is 0.
        b: Value,
    },
    /// `dst` (32 or 64 bits) = `map` applied to the thread id: a coordinate of a layout, an
    /// index that leaves the affine form and becomes data.
    ThreadMap {
        /// Result (32 or 64 bits).
        dst: Value,
        /// The map.
        map: XorMap,
    },
    /// An atomic read-modify-write of one element per thread at `offset` of `buffer`: the
    /// element becomes `kind(old, src)` (compare-and-swap: `src` where `old == cmp`) with no
    /// other access in between; `dst` receives `old`. A masked thread does nothing (and reads
    /// 0). Threads of a workgroup apply theirs in thread order; the hardware's order among
    /// them is unspecified, which an exact float sum may tell.
    GlobalAtomic {
        /// The old value, per thread (`None`: unused).
        dst: Option<Value>,
        /// The operand.
        src: Value,
        /// The comparand of a compare-and-swap.
        cmp: Option<Value>,
        /// Index into [`Program::buffers`].
        buffer: usize,
        /// Where, per thread.
        offset: GlobalOffset,
        /// What it does.
        kind: AtomicKind,
        /// The elements' type.
        ty: &'static str,
        /// Its ordering.
        ordering: AtomicOrdering,
        /// Its scope.
        scope: AtomicScope,
        /// Through the buffer's resource or at a global address.
        path: AtomicPath,
        /// The element after this one in memory, updated by the same instruction (a packed
        /// 16-bit float add of an aligned pair: this element is the even one).
        neighbour: Option<AtomicNeighbour>,
    },
    /// `dst` = scalar argument `index`'s bits ([`Program::scalars`]), as wide as its type, in
    /// every thread: a float argument (`sm_scale`, `eps`) or a narrow integer.
    Argument {
        /// Result (the argument's width).
        dst: Value,
        /// Index into [`Program::scalars`].
        index: usize,
    },
    /// `dst` = the 64-bit address of argument buffer `buffer` in every thread: a pointer
    /// whose buffer a loop changes is carried as its address.
    BufferAddress {
        /// Result (64 bits).
        dst: Value,
        /// Index into [`Program::buffers`]: an argument.
        buffer: usize,
    },
    /// `dst` = a workgroup uniform, its low bits (a scalar argument's bits, a program id, a
    /// loop slot) in every thread.
    UniformValue {
        /// Result.
        dst: Value,
        /// The uniform.
        value: Uniform,
    },
    /// `dst = op(src…)` on numbers of type `ty` (`f32`, `f16`, `bf16`, `f64`, `i64`, `i32`,
    /// `i16`, `i8`).
    Arith {
        /// The operation.
        op: ArithOp,
        /// The numbers' type.
        ty: &'static str,
        /// Result.
        dst: Value,
        /// Operands ([`ArithOp::operands`] of them).
        src: Vec<Value>,
    },
    /// One statement of inline assembly (`tl.inline_asm_elementwise`) on a group of `pack`
    /// elements of each operand, giving `pack` elements of each result: `$0 … $(r−1)` in the
    /// text name the results, `$r …` the operands, as LLVM's inline assembly numbers them.
    InlineAsm {
        /// The statement (bytes, as the module's string literal decodes).
        asm: String,
        /// LLVM's constraint string (`=v,v`: a result and an operand in VGPRs).
        constraints: String,
        /// Whether it has no effect besides its results (else LLVM keeps it where it is).
        pure: bool,
        /// Results: per result, its element type and `pack` values.
        dst: Vec<AsmValues>,
        /// Operands: per operand, its element type and `pack` values.
        src: Vec<AsmValues>,
    },
}

/// The elements of one operand or result of [`Op::InlineAsm`]: `pack` values of one element
/// type, element 0 first (one value: a scalar; more: a vector of them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmValues {
    /// The element type (`i32`, `f16`, …: the instruction table's names).
    pub ty: &'static str,
    /// The values, element 0 first.
    pub values: Vec<Value>,
}

impl Op {
    /// The values the operation defines.
    ///
    /// ```
    /// use linear_layout::lower::{Op, Value};
    /// let op = Op::Pack { dst: Value(2), parts: vec![Value(0), Value(1)] };
    /// assert_eq!(op.defined(), vec![Value(2)]);
    /// ```
    pub fn defined(&self) -> Vec<Value> {
        match self {
            Op::GlobalLoad { dst, .. }
            | Op::LdsRead { dst, .. }
            | Op::LdsReadTransposed { dst, .. }
            | Op::Unpack { dst, .. }
            | Op::Mma { dst, .. }
            | Op::Convert { dst, .. } => dst.clone(),
            Op::InlineAsm { dst, .. } => dst.iter().flat_map(|r| r.values.iter().copied()).collect(),
            Op::Bpermute { dst, .. }
            | Op::Dpp { dst, .. }
            | Op::PermlaneX16 { dst, .. }
            | Op::SelectOnThreadBit { dst, .. }
            | Op::Pack { dst, .. }
            | Op::Arith { dst, .. }
            | Op::LdsReadIndexed { dst, .. }
            | Op::Compare { dst, .. }
            | Op::Select { dst, .. }
            | Op::ThreadMap { dst, .. }
            | Op::UniformValue { dst, .. }
            | Op::Argument { dst, .. }
            | Op::BufferAddress { dst, .. }
            | Op::Constant { dst, .. } => vec![*dst],
            Op::Loop { values, .. } => values.iter().map(|c| c.phi).collect(),
            Op::If { results, .. } => results.iter().map(|r| r[0]).collect(),
            Op::LdsWindow { ops, .. } => ops.iter().flat_map(Op::defined).collect(),
            Op::While { values, results, .. } => values
                .iter()
                .map(|c| c.phi)
                .chain(results.iter().map(|r| r[0]))
                .collect(),
            Op::PermlaneSwap { dst, .. } => dst.to_vec(),
            Op::GlobalAtomic { dst, neighbour, .. } => dst
                .iter()
                .chain(neighbour.as_ref().and_then(|n| n.dst.as_ref()))
                .copied()
                .collect(),
            Op::GlobalStore { .. }
            | Op::LdsWrite { .. }
            | Op::LdsAtomicAdd { .. }
            | Op::GlobalLoadToLds { .. }
            | Op::WaitDirectLoads
            | Op::BindBuffer { .. }
            | Op::ReadUniform { .. }
            | Op::Barrier
            | Op::WorkgroupBarrier
            | Op::Predicated { .. } => Vec::new(),
        }
    }
}

/// A kernel for one workgroup: buffers, LDS, values and operations.
///
/// ```
/// use linear_layout::lower::{Program, Op};
/// let mut p = Program::new("k", 64, 64);
/// let v = p.value(32);
/// assert_eq!(p.value_bits(v), 32);
/// p.ops.push(Op::Barrier);
/// assert_eq!(p.ops.len(), 1);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// Kernel name.
    pub name: String,
    /// Lanes per wave.
    pub wave_size: u32,
    /// Threads in the workgroup (a multiple of the wave size).
    pub threads: u32,
    /// The buffer arguments, in order.
    pub buffers: Vec<Buffer>,
    /// The scalar arguments, each with its position in the argument list.
    pub scalars: Vec<Scalar>,
    /// Uniforms computed from others ([`UniformInput::Derived`](super::UniformInput::Derived) indexes them).
    pub derived: Vec<Derived>,
    /// Bytes of LDS (a module-level `addrspace(3)` array).
    pub lds_bytes: u64,
    /// LDS bytes the kernel's own buffers take from address 0 so far: a layout conversion's
    /// round trip starts at or above it, so it never overwrites a buffer live across it (a
    /// pipelined loop's operand slots around a conversion in its body).
    pub lds_reserved: u64,
    /// Bit width of each value, indexed by [`Value`].
    pub values: Vec<u32>,
    /// The operations, in program order.
    pub ops: Vec<Op>,
}

impl Program {
    /// An empty program.
    ///
    /// ```
    /// use linear_layout::lower::Program;
    /// assert_eq!(Program::new("copy", 32, 128).threads, 128);
    /// ```
    pub fn new(name: &str, wave_size: u32, threads: u32) -> Program {
        Program {
            name: name.to_string(),
            wave_size,
            threads,
            buffers: Vec::new(),
            scalars: Vec::new(),
            derived: Vec::new(),
            lds_bytes: 0,
            lds_reserved: 0,
            values: Vec::new(),
            ops: Vec::new(),
        }
    }

    /// A fresh value of `bits` bits.
    ///
    /// ```
    /// use linear_layout::lower::Program;
    /// let mut p = Program::new("k", 64, 64);
    /// assert_ne!(p.value(16), p.value(16));
    /// ```
    pub fn value(&mut self, bits: u32) -> Value {
        self.values.push(bits);
        Value(self.values.len() as u32 - 1)
    }

    /// A new `bits`-wide value holding `pattern` in every thread (an [`Op::Constant`]).
    ///
    /// ```
    /// use linear_layout::lower::{Op, Program};
    /// let mut p = Program::new("k", 64, 64);
    /// let c = p.constant(16, 0x7FFF);
    /// assert_eq!(p.value_bits(c), 16);
    /// assert!(matches!(p.ops[0], Op::Constant { bits: 0x7FFF, .. }));
    /// ```
    pub fn constant(&mut self, bits: u32, pattern: u64) -> Value {
        let dst = self.value(bits);
        self.ops.push(Op::Constant { dst, bits: pattern });
        dst
    }

    /// A new 1-bit value: whether `map` of the thread id compares with `bound` as `pred` says
    /// (an [`Op::ThreadMap`], an [`Op::Constant`] and an [`Op::Compare`] on 32-bit integers).
    ///
    /// ```
    /// use linear_layout::lower::{Op, Predicate, Program, XorMap};
    /// let mut p = Program::new("k", 64, 64);
    /// let first = p.thread_test(XorMap { cols: (0..6).map(|b| 1 << b).collect(), constant: 0 }, Predicate::Eq, 0);
    /// assert_eq!(p.value_bits(first), 1);
    /// assert!(matches!(p.ops[2], Op::Compare { pred: Predicate::Eq, dst, .. } if dst == first));
    /// ```
    pub fn thread_test(&mut self, map: XorMap, pred: Predicate, bound: u64) -> Value {
        let position = self.value(32);
        self.ops.push(Op::ThreadMap { dst: position, map });
        let bound = self.constant(32, bound);
        let dst = self.value(1);
        self.ops.push(Op::Compare {
            pred,
            ty: "i32",
            dst,
            a: position,
            b: bound,
        });
        dst
    }

    /// A new `bits`-wide value: `v` converted from type `from` to type `to` (an
    /// [`Op::Convert`] of one element).
    ///
    /// ```
    /// use linear_layout::lower::{Op, Program};
    /// let mut p = Program::new("k", 64, 64);
    /// let x = p.value(16);
    /// let w = p.convert(x, ("bf16", "f32"), 32);
    /// assert!(matches!(&p.ops[0], Op::Convert { src, dst, .. } if src == &[x] && dst == &[w]));
    /// ```
    pub fn convert(&mut self, v: Value, (from, to): (&'static str, &'static str), bits: u32) -> Value {
        let dst = self.value(bits);
        self.ops.push(Op::Convert {
            dst: vec![dst],
            src: vec![v],
            from,
            to,
        });
        dst
    }

    /// The width of a value (0 for a value the program does not have).
    ///
    /// ```
    /// use linear_layout::lower::{Program, Value};
    /// assert_eq!(Program::new("k", 64, 64).value_bits(Value(9)), 0);
    /// ```
    pub fn value_bits(&self, v: Value) -> u32 {
        self.values.get(v.0 as usize).copied().unwrap_or(0)
    }

    /// Every operation, those in loop bodies and branches too, each before its body.
    ///
    /// ```
    /// use linear_layout::lower::{Op, Program, Uniform};
    /// let mut p = Program::new("k", 64, 64);
    /// p.ops.push(Op::Loop { counter: 0, start: Uniform::constant(0), end: Uniform::constant(2), step: Uniform::constant(1), uniforms: vec![], values: vec![], body: vec![Op::Barrier] });
    /// assert_eq!(p.walk().count(), 2);
    /// ```
    pub fn walk(&self) -> impl Iterator<Item = &Op> {
        walk(&self.ops)
    }

    /// Whether an LDS access of `op` (or of an op in its loop body or branches) of the kind
    /// `reads` touches bytes `lo..hi`.
    pub(crate) fn touches(&self, op: &Op, reads: bool, (lo, hi): (u64, u64)) -> bool {
        let threads = self.threads as usize;
        let hit = |dst: &[Value], address: &XorMap| {
            let bytes = dst.len() as u64 * u64::from(dst.first().map_or(0, |&v| self.value_bits(v))) / 8;
            address
                .eval_all(threads)
                .iter()
                .any(|&a| a < hi && a + bytes > lo)
        };
        match op {
            Op::LdsRead { dst, address } | Op::LdsReadTransposed { dst, address } if reads => {
                hit(dst, address)
            }
            Op::LdsReadIndexed { region, .. } if reads => region.0 < hi && region.1 > lo,
            Op::LdsAtomicAdd { region, .. } => region.0 < hi && region.1 > lo,
            Op::LdsWrite { src, address } if !reads => hit(src, address),
            // Direct loads land anywhere in their wave's block: taken as touching.
            Op::GlobalLoadToLds { .. } => !reads,
            Op::Loop { body, .. } => body.iter().any(|o| self.touches(o, reads, (lo, hi))),
            Op::If { then, otherwise, .. } => then
                .iter()
                .chain(otherwise)
                .any(|o| self.touches(o, reads, (lo, hi))),
            // The window's place is known at run time only: any access of the kind counts.
            Op::LdsWindow { ops, .. } => ops.iter().any(|o| self.touches(o, reads, (0, u64::MAX))),
            Op::Predicated { ops, .. } => ops.iter().any(|o| self.touches(o, reads, (lo, hi))),
            Op::While { before, after, .. } => before
                .iter()
                .chain(after)
                .any(|o| self.touches(o, reads, (lo, hi))),
            _ => false,
        }
    }

    /// Whether an op since the last barrier accesses bytes `lo..hi` (reads or writes).
    fn since_barrier(&self, reads: bool, lo: u64, hi: u64) -> bool {
        self.ops
            .iter()
            .rev()
            .take_while(|op| !matches!(op, Op::Barrier | Op::WorkgroupBarrier))
            .any(|op| self.touches(op, reads, (lo, hi)))
    }

    /// Before new LDS writes to bytes `lo..hi`: a barrier if some wave may still be reading
    /// them (a read of one of them since the last barrier), so the writes cannot overtake those
    /// reads.
    pub(crate) fn fence_lds_reuse(&mut self, lo: u64, hi: u64) {
        if self.since_barrier(true, lo, hi) {
            self.ops.push(Op::Barrier);
        }
    }

    /// Before LDS reads of bytes `lo..hi`: a barrier if some wave may have written them since
    /// the last one, so every wave reads what all wrote.
    pub(crate) fn fence_lds_writes(&mut self, lo: u64, hi: u64) {
        if self.since_barrier(false, lo, hi) {
            self.ops.push(Op::Barrier);
        }
    }

    /// Thread-id bits (log2 of the thread count).
    ///
    /// ```
    /// use linear_layout::lower::Program;
    /// assert_eq!(Program::new("k", 64, 256).thread_bits(), 8);
    /// ```
    pub fn thread_bits(&self) -> usize {
        self.threads.max(1).trailing_zeros() as usize
    }

    /// Adds `n` values of `bits` bits.
    ///
    /// ```
    /// use linear_layout::lower::Program;
    /// let mut p = Program::new("k", 64, 64);
    /// assert_eq!(p.values_of(3, 8).len(), 3);
    /// ```
    pub fn values_of(&mut self, n: usize, bits: u32) -> Vec<Value> {
        (0..n).map(|_| self.value(bits)).collect()
    }

    /// Counts operations by kind (`global_load`, `lds_write`, `bpermute`, …), what the
    /// instruction counts of llc's output are checked against.
    ///
    /// ```
    /// use linear_layout::lower::{Program, Op};
    /// let mut p = Program::new("k", 64, 64);
    /// p.ops.push(Op::Barrier);
    /// assert_eq!(p.op_counts()["barrier"], 1);
    /// ```
    pub fn op_counts(&self) -> std::collections::BTreeMap<&'static str, u64> {
        let mut m = std::collections::BTreeMap::new();
        for op in self.walk() {
            let k = match op {
                Op::GlobalLoad { .. } => "global_load",
                Op::GlobalStore { .. } => "global_store",
                Op::GlobalAtomic { .. } => "global_atomic",
                Op::LdsWrite { .. } => "lds_write",
                Op::LdsRead { .. } => "lds_read",
                Op::LdsReadIndexed { .. } => "lds_read_indexed",
                Op::LdsAtomicAdd { .. } => "lds_atomic_add",
                Op::LdsReadTransposed { .. } => "lds_read_transposed",
                Op::GlobalLoadToLds { .. } => "global_load_lds",
                Op::WaitDirectLoads => "wait_direct_loads",
                Op::BindBuffer { .. } => "bind_buffer",
                Op::ReadUniform { .. } => "read_uniform",
                Op::Barrier => "barrier",
                Op::WorkgroupBarrier => "workgroup_barrier",
                Op::Bpermute { .. } => "bpermute",
                Op::Dpp { .. } => "dpp",
                Op::PermlaneX16 { .. } => "permlanex16",
                Op::PermlaneSwap { .. } => "permlane_swap",
                Op::SelectOnThreadBit { .. } => "select",
                Op::Pack { .. } => "pack",
                Op::Unpack { .. } => "unpack",
                Op::Mma { .. } => "mma",
                Op::Convert { .. } => "convert",
                Op::Arith { .. } => "arith",
                Op::InlineAsm { .. } => "inline_asm",
                Op::Constant { .. } => "constant",
                Op::Compare { .. } => "compare",
                Op::Select { .. } => "select_value",
                Op::ThreadMap { .. } => "thread_map",
                Op::UniformValue { .. } => "uniform_value",
                Op::Argument { .. } => "argument",
                Op::BufferAddress { .. } => "buffer_address",
                Op::Loop { .. } => "loop",
                Op::If { .. } => "if",
                Op::LdsWindow { .. } => "lds_window",
                Op::While { .. } => "while",
                Op::Predicated { .. } => "predicated",
            };
            *m.entry(k).or_insert(0) += 1;
        }
        m
    }
}

/// Two `f32` operations of one kind as one packed operation: each one's result and operands,
/// the first's then the second's ([`Packing::pair_at`]).
pub type PackedPair<'o> = [(Value, &'o [Value]); 2];

/// Which `f32` operations side by side the emitter packs into one `<2 x float>` operation
/// (`v_pk_add_f32`, `v_pk_mul_f32`, `v_pk_fma_f32`) on targets with packed `f32` — the rule the
/// emitter and the cost model both read, walking a program's ops in order.
///
/// Two operations pack where they are the same addition, subtraction, product or fused
/// multiply-add of `f32`, the second does not read the first's result, and each operand is
/// one value for both or two values already side by side in a register pair: the elements a
/// vector load or LDS read put in consecutive registers, or the results of an earlier packed
/// operation. So an elementwise chain over a vector load packs from end to end, and operands
/// that would first have to be moved together do not. A product packs only where the sums it
/// feeds pack too, and — where the target has no paired `f16` rounding — where it is not
/// rounded to `f16`: the `fma` a product and a sum fuse into, and the `v_fma_mix` a product
/// and its rounding fuse into, are never lost.
///
/// ```
/// use linear_layout::lower::{ArithOp, Op, Packing, Value, XorMap};
/// let mul = |dst, a| Op::Arith { op: ArithOp::Mul, ty: "f32", dst: Value(dst), src: vec![Value(a), Value(9)] };
/// let mut packing = Packing::default(); // or `Packing::for_target`
/// // Operands 0 and 1 not side by side: the products stay apart.
/// assert!(packing.pair_at(&[mul(4, 0), mul(5, 1)], 0).is_none());
/// // Loaded side by side (or one value for both): one packed product.
/// packing.record(&Op::LdsRead { dst: vec![Value(0), Value(1)], address: XorMap { cols: vec![8; 6], constant: 0 } });
/// assert!(packing.pair_at(&[mul(4, 0), mul(5, 1)], 0).is_some());
/// /// ```
#[derive(Clone, Debug, Default)]
pub struct Packing {
    /// Value pairs side by side in a register pair.
    adjacent: std::collections::HashSet<(Value, Value)>,
    /// Products rounded to `f16` stay unpacked (the target fuses them with the rounding).
    keep_f16_products: bool,
}

impl Packing {
    /// The packing for `target`'s code.
    ///
    /// ```
    /// use linear_layout::lower::Packing;
    /// use linear_layout::target::Target;
    /// let _ = Packing::for_target(Target::by_name("gfx942")?);
    /// # Ok::<(), String>(())
    /// ```
    pub fn for_target(target: &crate::target::Target) -> Packing {
        Packing {
            adjacent: Default::default(),
            keep_f16_products: !target.lowering.f16_rounding_pairs,
        }
    }

    /// Notes the register pairs `op` leaves side by side (a vector load's or LDS read's
    /// elements, two by two), and the pairs a loop carries side by side: two consecutive
    /// carried values that enter it side by side or as one value (an accumulator of zeros).
    pub fn record(&mut self, op: &Op) {
        match op {
            Op::GlobalLoad { dst, .. } | Op::LdsRead { dst, .. } => {
                for pair in dst.chunks_exact(2) {
                    if let &[a, b] = pair {
                        self.adjacent.insert((a, b));
                    }
                }
            }
            Op::Loop { values, .. } | Op::While { values, .. } => {
                // Consecutive in any position: the values of one argument need not start at
                // an even index (a scalar carried before a tile).
                for pair in values.windows(2) {
                    if let [a, b] = pair
                        && (a.init == b.init || self.adjacent.contains(&(a.init, b.init)))
                    {
                        self.adjacent.insert((a.phi, b.phi));
                    }
                }
            }
            _ => {}
        }
    }

    /// The packed operation `ops[i]` and `ops[i + 1]` make, if they make one (recording its
    /// results as side by side).
    pub fn pair_at<'o>(&mut self, ops: &'o [Op], i: usize) -> Option<(ArithOp, PackedPair<'o>)> {
        let found = self.candidate(ops.get(i)?, ops.get(i + 1)?, None)?;
        let (op, [(d0, _), (d1, _)]) = found;
        if op == ArithOp::Mul && !self.sums_pack(ops, i + 2, (d0, d1)) {
            return None;
        }
        self.adjacent.insert((d0, d1));
        Some(found)
    }

    /// `a` and `b` as one packed operation, `also` counted side by side as well.
    fn candidate<'o>(
        &self,
        a: &'o Op,
        b: &'o Op,
        also: Option<(Value, Value)>,
    ) -> Option<(ArithOp, PackedPair<'o>)> {
        match (a, b) {
            (
                Op::Arith {
                    op,
                    ty: "f32",
                    dst: d0,
                    src: s0,
                },
                Op::Arith {
                    op: op1,
                    ty: "f32",
                    dst: d1,
                    src: s1,
                },
            ) if op == op1
                && matches!(op, ArithOp::Add | ArithOp::Sub | ArithOp::Mul | ArithOp::Fma)
                && !s1.contains(d0)
                && s0.len() == s1.len()
                && s0
                    .iter()
                    .zip(s1)
                    .all(|(&x, &y)| x == y || also == Some((x, y)) || self.adjacent.contains(&(x, y))) =>
            {
                Some((*op, [(*d0, s0.as_slice()), (*d1, s1.as_slice())]))
            }
            _ => None,
        }
    }

    /// Whether every addition or subtraction after `from` reading a product of `products`
    /// packs with its neighbour (the products then side by side).
    fn sums_pack(&self, ops: &[Op], from: usize, products: (Value, Value)) -> bool {
        let reads = |op: &Op| {
            matches!(op, Op::Arith { op: ArithOp::Add | ArithOp::Sub, src, .. }
                if src.contains(&products.0) || src.contains(&products.1))
        };
        let mut j = from;
        while let Some(op) = ops.get(j) {
            // A product rounded to f16 fuses with the rounding (`v_fma_mix`) unpacked.
            if let Op::Convert { src, to: "f16", .. } = op
                && self.keep_f16_products
                && (src.contains(&products.0) || src.contains(&products.1))
            {
                return false;
            }
            if reads(op) {
                match ops
                    .get(j + 1)
                    .and_then(|next| self.candidate(op, next, Some(products)))
                {
                    Some(_) => j += 2,
                    None => return false,
                }
            } else {
                j += 1;
            }
        }
        true
    }
}
