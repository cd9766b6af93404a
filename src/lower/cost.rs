//! What a generated kernel costs: the model [`compile`](super::compile) minimises when it
//! chooses layouts.
//!
//! The cost is read off the [`Program`] the lowering emits — the same ops the LLVM IR and the
//! interpreter are made from — so a layout is priced by the code it actually implies, not by a
//! separate estimate that could drift from it. Each op is priced for one wave from the target
//! row's [`CostConstants`](crate::target::CostConstants):
//!
//! | op | cycles |
//! |---|---|
//! | global load, store, atomic | `valu_issue + lines · global_line_cycles`, `lines` the distinct `global_line_bytes` lines the wave's lanes touch; plus a `valu_issue` select per mask |
//! | LDS read, write | `valu_issue + wavefronts · lds_cycles_per_wavefront`, a wavefront per `4 · lds_banks` bytes the wave moves |
//! | barrier | `barrier_cycles + lds_latency_cycles` (the reads after it wait for the writes before it) |
//! | `ds_bpermute` | `bpermute_cycles` |
//! | DPP, permlane | `permlane_cycles` |
//! | packing, unpacking 16-bit halves | 0 (absorbed by the instructions around them) |
//! | two `f32` operations the emitter packs (`packed_f32` targets, [`Packing`]) | one `valu_issue` |
//! | any other instruction | `valu_issue` |
//!
//! A loop's body counts once per iteration when its bounds are constants, [`UNKNOWN_TRIPS`]
//! times when they are not; both arms of a branch count (divergent lanes run both).
//!
//! Worked example — 256 f32 copied by 64 lanes on gfx942. With 4 consecutive elements per lane
//! the wave's load touches 1024 bytes = 8 lines: `4 + 8 · 2 = 20` cycles, the store the same.
//! With one element per lane and 4 registers the wave issues 4 loads of 2 lines each:
//! `4 · (4 + 2 · 2) = 32` cycles per direction — the coalesced layout is cheaper.
//!
//! ```
//! use linear_layout::linear::LinearLayout;
//! use linear_layout::lower::{copy_kernel, kernel_cost, Dtype};
//! use linear_layout::target::Target;
//! let gfx942 = Target::by_name("gfx942")?;
//! let vectors = LinearLayout::identity_1d(4, "register", "dim0")?.product(&LinearLayout::identity_1d(64, "lane", "dim0")?)?;
//! let strided = LinearLayout::identity_1d(64, "lane", "dim0")?.product(&LinearLayout::identity_1d(4, "register", "dim0")?)?;
//! let coalesced = kernel_cost(&copy_kernel(&vectors, &[256], Dtype::F32, gfx942)?);
//! let scattered = kernel_cost(&copy_kernel(&strided, &[256], Dtype::F32, gfx942)?);
//! assert_eq!((coalesced.cycles, coalesced.instructions), (40, 2));
//! assert_eq!((scattered.cycles, scattered.instructions), (64, 8));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::BTreeSet;
use std::fmt;

use super::ir::{Extent, GlobalOffset, Kernel, Op, Packing, Program, dpp_folds_into_next};
use crate::target::Target;

/// Iterations a loop whose bounds are only known at run time is counted for.
///
/// ```
/// assert_eq!(linear_layout::lower::UNKNOWN_TRIPS, 8);
/// ```
pub const UNKNOWN_TRIPS: u64 = 8;

/// Elements between rows whose stride is a run-time argument: taken as far apart (each row its
/// own lines).
const FAR_STRIDE: u64 = 1 << 24;

/// A kernel's price for one wave under the model of the module docs.
///
/// ```
/// use linear_layout::lower::KernelCost;
/// let c = KernelCost { cycles: 40, instructions: 2, lds_bytes: 0 };
/// assert_eq!(c.to_string(), "~40 cycles, 2 instructions per wave, 0 LDS bytes");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct KernelCost {
    /// Estimated cycles of one wave.
    pub cycles: u64,
    /// Instructions one wave executes (loop bodies times their trips).
    pub instructions: u64,
    /// The kernel's shared memory.
    pub lds_bytes: u64,
}

impl fmt::Display for KernelCost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "~{} cycles, {} instructions per wave, {} LDS bytes",
            self.cycles, self.instructions, self.lds_bytes
        )
    }
}

/// Prices `kernel` (see the module docs).
///
/// ```
/// use linear_layout::linear::LinearLayout;
/// use linear_layout::lower::{copy_kernel, kernel_cost, Dtype};
/// use linear_layout::target::Target;
/// let l = LinearLayout::identity_1d(64, "lane", "dim0")?;
/// let k = copy_kernel(&l, &[64], Dtype::F32, Target::by_name("gfx942")?)?;
/// // 64 × 4 bytes = 2 lines a direction: (4 + 2·2) · 2.
/// assert_eq!(kernel_cost(&k).cycles, 16);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn kernel_cost(kernel: &Kernel) -> KernelCost {
    let pricer = Pricer {
        program: &kernel.program,
        target: kernel.target,
        packing: std::cell::RefCell::new(Packing::for_target(kernel.target)),
    };
    let (cycles, instructions) = pricer.ops(&kernel.program.ops);
    KernelCost {
        cycles,
        instructions,
        lds_bytes: kernel.program.lds_bytes,
    }
}

struct Pricer<'a> {
    program: &'a Program,
    target: &'static Target,
    /// The emitter's packing of `f32` operations, followed in the same order.
    packing: std::cell::RefCell<Packing>,
}

impl Pricer<'_> {
    /// (cycles, instructions) of a sequence of ops.
    fn ops(&self, ops: &[Op]) -> (u64, u64) {
        let (mut c, mut n) = (0u64, 0u64);
        let mut i = 0;
        while let Some(op) = ops.get(i) {
            // Two f32 operations the emitter packs into one instruction.
            let packed =
                self.target.lowering.packed_f32 && self.packing.borrow_mut().pair_at(ops, i).is_some();
            self.packing.borrow_mut().record(op);
            let (c1, n1) = self.op(op);
            let n1 = if dpp_folds_into_next(ops, i) { 0 } else { n1 };
            (c, n) = (c.saturating_add(c1), n.saturating_add(n1));
            i += if packed { 2 } else { 1 };
        }
        (c, n)
    }

    fn op(&self, op: &Op) -> (u64, u64) {
        let costs = &self.target.costs;
        let issue = u64::from(costs.valu_issue_cycles);
        let one = |cycles: u64| (cycles, 1);
        match op {
            Op::Loop {
                start,
                end,
                step,
                body,
                ..
            } => {
                let trips = match (start.as_constant(), end.as_constant(), step.as_constant()) {
                    (Some(s), Some(e), Some(st)) if st > 0 => ((e - s).max(0) as u64).div_ceil(st as u64),
                    _ => UNKNOWN_TRIPS,
                };
                let (c, n) = self.ops(body);
                (c.saturating_mul(trips), n.saturating_mul(trips))
            }
            Op::While { before, after, .. } => {
                let (c0, n0) = self.ops(before);
                let (c1, n1) = self.ops(after);
                (
                    (c0 + c1).saturating_mul(UNKNOWN_TRIPS),
                    (n0 + n1).saturating_mul(UNKNOWN_TRIPS),
                )
            }
            Op::If { then, otherwise, .. } => {
                let (c0, n0) = self.ops(then);
                let (c1, n1) = self.ops(otherwise);
                (c0 + c1, n0 + n1)
            }
            Op::LdsWindow { ops, .. } | Op::Predicated { ops, .. } => self.ops(ops),
            // Register reinterpretations: absorbed by the instructions around them (16-bit
            // halves are read and written in place).
            Op::Argument { .. }
            | Op::BufferAddress { .. }
            | Op::UniformValue { .. }
            | Op::Pack { .. }
            | Op::Unpack { .. } => (0, 0),
            Op::GlobalLoad {
                dst, buffer, offset, ..
            } => self.global(offset, *buffer, dst.len()),
            Op::GlobalStore { src, buffer, offset } => self.global(offset, *buffer, src.len()),
            Op::GlobalAtomic {
                buffer,
                offset,
                neighbour,
                ..
            } => self.global(offset, *buffer, 1 + usize::from(neighbour.is_some())),
            Op::GlobalLoadToLds {
                buffer,
                offset,
                elements,
                ..
            } => self.global(offset, *buffer, *elements as usize),
            Op::LdsWrite { src: v, .. }
            | Op::LdsRead { dst: v, .. }
            | Op::LdsReadTransposed { dst: v, .. } => {
                let bytes =
                    v.len() as u64 * u64::from(v.first().map_or(32, |&x| self.program.value_bits(x))) / 8;
                one(issue + self.wavefronts(bytes))
            }
            Op::LdsReadIndexed { .. } | Op::LdsAtomicAdd { .. } => one(issue + self.wavefronts(4)),
            Op::Barrier | Op::WorkgroupBarrier => {
                one(u64::from(costs.barrier_cycles) + u64::from(costs.lds_latency_cycles))
            }
            // Inline assembly: an instruction per line of its text (`;` starts a comment).
            Op::InlineAsm { asm, .. } => {
                let lines = asm
                    .lines()
                    .map(|l| l.split(';').next().unwrap_or("").trim())
                    .filter(|l| !l.is_empty())
                    .count()
                    .max(1) as u64;
                (issue.saturating_mul(lines), lines)
            }
            Op::Bpermute { .. } => one(u64::from(costs.bpermute_cycles)),
            Op::Dpp { .. } | Op::PermlaneX16 { .. } | Op::PermlaneSwap { .. } => {
                one(u64::from(costs.permlane_cycles))
            }
            _ => one(issue),
        }
    }

    /// A global access of `elements` consecutive elements per lane: its issue, its lines, and
    /// the select that sends a masked lane's offset past the buffer (one per mask kind).
    fn global(&self, offset: &GlobalOffset, buffer: usize, elements: usize) -> (u64, u64) {
        let issue = u64::from(self.target.costs.valu_issue_cycles);
        let masks = u64::from(offset.predicate.is_some())
            + u64::from(offset.bounds.iter().any(Option::is_some))
            + offset.when.len() as u64;
        (
            issue * (1 + masks) + self.lines(offset, buffer, elements),
            1 + masks,
        )
    }

    /// LDS wavefronts of a DS instruction moving `bytes_per_lane` on every lane.
    fn wavefronts(&self, bytes_per_lane: u64) -> u64 {
        let per_pass = 4 * u64::from(self.target.lds_banks.max(1));
        let wave = bytes_per_lane * u64::from(self.program.wave_size);
        wave.div_ceil(per_pass).max(1) * u64::from(self.target.costs.lds_cycles_per_wavefront)
    }

    /// Cycles of the cache lines the first wave's lanes touch with `elements` consecutive
    /// elements each at `offset` (an address that is data: a line per lane).
    fn lines(&self, offset: &GlobalOffset, buffer: usize, elements: usize) -> u64 {
        let costs = &self.target.costs;
        let line_cycles = u64::from(costs.global_line_cycles);
        let wave = u64::from(self.program.wave_size);
        if offset.index.is_some() {
            return wave * line_cycles;
        }
        let bits = self.program.buffers.get(buffer).map_or(32, |b| b.element_bits);
        let bytes = (elements as u64 * u64::from(bits)).div_ceil(8).max(1);
        let line = u64::from(costs.global_line_bytes.max(1));
        let mut lines = BTreeSet::new();
        for lane in 0..wave {
            let element = offset
                .coords
                .iter()
                .zip(&offset.strides)
                .fold(0u64, |acc, (coord, stride)| {
                    let stride = match stride {
                        Extent::Elements(n) => *n,
                        Extent::Scalar { times, .. } => FAR_STRIDE.saturating_mul(*times),
                    };
                    acc.wrapping_add(coord.eval(lane).wrapping_mul(stride))
                });
            let start = element.wrapping_mul(u64::from(bits)) / 8;
            for l in start / line..=(start + bytes - 1) / line {
                lines.insert(l);
            }
        }
        lines.len() as u64 * line_cycles
    }
}
