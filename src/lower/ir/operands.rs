//! The values an operation reads: what a pass renames when it replaces one value by another,
//! and what the well-formedness checks look up.
//!
//! Also which operations a thread can run alone ([`Op::runs_alone`]): what a predicated region
//! may hold besides its masked stores and atomics.
//!
//! An operation's operands are the values it reads itself — a store's data, an access's data
//! index, predicate and held offset, a loop's initial and next values, a branch's test and
//! the values its arms yield. The operations of a body (a loop's, a branch's arms, a window's)
//! have their own.

use super::program::{BranchCondition, Op, Value};

/// The one list of operands, read through shared (`operands_of!(op)`) or mutable
/// (`operands_of!(op, mut)`) references: one match, so the two cannot disagree.
macro_rules! operands_of {
    ($op:expr $(, $m:tt)?) => {
        match $op {
            Op::GlobalLoad { offset, .. } | Op::GlobalLoadToLds { offset, .. } => {
                (& $($m)? offset.index).into_iter()
                    .chain(& $($m)? offset.predicate)
                    .chain(& $($m)? offset.held)
                    .chain((& $($m)? offset.held_row).into_iter().map(|h| & $($m)? h.value))
                    .collect()
            }
            Op::GlobalStore { src, offset, .. } => src
                .into_iter()
                .chain(& $($m)? offset.index)
                .chain(& $($m)? offset.predicate)
                .chain(& $($m)? offset.held)
                .chain((& $($m)? offset.held_row).into_iter().map(|h| & $($m)? h.value))
                .collect(),
            Op::GlobalAtomic { src, cmp, offset, neighbour, .. } => {
                let mut all: Vec<_> = std::iter::once(src)
                    .chain(cmp)
                    .chain(& $($m)? offset.index)
                    .chain(& $($m)? offset.predicate)
                    .chain(& $($m)? offset.held)
                    .chain((& $($m)? offset.held_row).into_iter().map(|h| & $($m)? h.value))
                    .collect();
                if let Some(n) = neighbour {
                    all.push(& $($m)? n.src);
                    all.extend(& $($m)? n.predicate);
                }
                all
            }
            Op::LdsWrite { src, .. }
            | Op::Pack { parts: src, .. }
            | Op::Convert { src, .. }
            | Op::Arith { src, .. } => src.into_iter().collect(),
            Op::Mma { a, b, c, .. } => a.into_iter().chain(b).chain(c).collect(),
            Op::InlineAsm { src, .. } => src.into_iter().flat_map(|o| & $($m)? o.values).collect(),
            Op::LdsReadIndexed { address, .. } => vec![address],
            Op::LdsAtomicAdd { src, address, .. } => vec![src, address],
            Op::ReadUniform { src, .. }
            | Op::Bpermute { src, .. }
            | Op::Dpp { src, .. }
            | Op::PermlaneX16 { src, .. }
            | Op::Unpack { src, .. } => vec![src],
            Op::PermlaneSwap { src, .. } => src.into_iter().collect(),
            Op::SelectOnThreadBit { one, zero, .. } => vec![one, zero],
            Op::Compare { a, b, .. } => vec![a, b],
            Op::Select { cond, a, b, .. } => vec![cond, a, b],
            Op::Loop { values, .. } => values
                .into_iter()
                .flat_map(|c| [& $($m)? c.init, & $($m)? c.next])
                .collect(),
            Op::If { cond, results, .. } => {
                let mut all: Vec<_> = results
                    .into_iter()
                    .flat_map(|r| {
                        let [_, a, b] = r;
                        [a, b]
                    })
                    .collect();
                if let BranchCondition::Value(v) | BranchCondition::PerThread(v) = cond {
                    all.push(v);
                }
                all
            }
            Op::While { values, cond, results, .. } => {
                let mut all: Vec<_> = values
                    .into_iter()
                    .flat_map(|c| [& $($m)? c.init, & $($m)? c.next])
                    .collect();
                all.extend(results.into_iter().map(|r| & $($m)? r[1]));
                if let BranchCondition::Value(v) | BranchCondition::PerThread(v) = cond {
                    all.push(v);
                }
                all
            }
            Op::Predicated { predicate, .. } => vec![predicate],
            Op::LdsRead { .. }
            | Op::LdsReadTransposed { .. }
            | Op::WaitDirectLoads
            | Op::BindBuffer { .. }
            | Op::Barrier
            | Op::WorkgroupBarrier
            | Op::Constant { .. }
            | Op::ThreadMap { .. }
            | Op::UniformValue { .. }
            | Op::Argument { .. }
            | Op::BufferAddress { .. }
            | Op::LdsWindow { .. } => Vec::new(),
        }
    };
}

impl Op {
    /// The values the operation reads (not those of the operations in its bodies), in a
    /// fixed order.
    ///
    /// ```
    /// use linear_layout::lower::{Op, Value};
    /// let op = Op::Select { dst: Value(3), cond: Value(0), a: Value(1), b: Value(2) };
    /// assert_eq!(op.operands(), vec![Value(0), Value(1), Value(2)]);
    /// ```
    pub fn operands(&self) -> Vec<Value> {
        let refs: Vec<&Value> = operands_of!(self);
        refs.into_iter().copied().collect()
    }

    /// Mutable references to the same values, in the same order: what a pass renames.
    ///
    /// ```
    /// use linear_layout::lower::{ArithOp, Op, Value};
    /// let mut op = Op::Arith { op: ArithOp::Add, ty: "i32", dst: Value(2), src: vec![Value(0), Value(1)] };
    /// for v in op.operands_mut() {
    ///     if *v == Value(1) {
    ///         *v = Value(0);
    ///     }
    /// }
    /// assert_eq!(op.operands(), vec![Value(0), Value(0)]);
    /// ```
    pub fn operands_mut(&mut self) -> Vec<&mut Value> {
        operands_of!(self, mut)
    }

    /// Whether a thread can run the operation without the others of its wave: a load, or
    /// arithmetic of the thread's own values (no LDS access, barrier, cross-lane move, uniform
    /// read, store, atomic or control flow).
    ///
    /// ```
    /// use linear_layout::lower::{Op, Value};
    /// assert!(Op::Select { dst: Value(3), cond: Value(0), a: Value(1), b: Value(2) }.runs_alone());
    /// assert!(!Op::Barrier.runs_alone());
    /// ```
    pub fn runs_alone(&self) -> bool {
        matches!(
            self,
            Op::GlobalLoad { .. }
                | Op::Constant { .. }
                | Op::ThreadMap { .. }
                | Op::UniformValue { .. }
                | Op::Argument { .. }
                | Op::BufferAddress { .. }
                | Op::Arith { .. }
                | Op::Compare { .. }
                | Op::Select { .. }
                | Op::Convert { .. }
                | Op::Pack { .. }
                | Op::Unpack { .. }
                | Op::SelectOnThreadBit { .. }
        )
    }
}
