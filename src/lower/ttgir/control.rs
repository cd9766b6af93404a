//! Control flow: `scf.for` and `scf.while` with loop-carried values, `scf.if`, `arith.select`
//! of a uniform condition, and the rest of `arith` on uniforms (`divsi`, `remui`, `minsi`,
//! shifts, …).
//!
//! A loop is a [`Loop`](ProgramOp::Loop) of the program: its counter and every carried integer
//! or pointer offset are uniform slots (SGPR phis: a pointer tensor's strides stay, its uniform
//! part moves), every carried tensor a phi per register. The body is lowered once. A pointer
//! whose strides change from one iteration to the next and a yield of another layout are
//! refused. A slice of a multi-buffered LDS tile that moves from one iteration to the next
//! (Triton's pipeliner with more than two stages) is carried by its byte offset in a slot,
//! its accesses running in an LDS window at that offset. Loads issued before the loop are
//! issued before it, whatever reads them.
//!
//! `scf.while` is a [`While`](ProgramOp::While), its arguments carried the same way: the
//! `before` region is the loop's first part and `scf.condition`'s operand its test (a uniform
//! condition, a constant, or a scalar in registers read from the first lane: every thread
//! holds it; any other test is refused in one line). What the condition passes on is, inside
//! the `do` region, what the first part left; after the loop the results are those values as
//! the failing test saw them (registers through values of their own, uniforms through the
//! slots, which keep what that test saw).
//!
//! # Worked example
//!
//! Triton's K loop `for k in range(0, K, BK): acc += dot(load(pa), load(pb)); pa += BK; pb +=
//! BK·sbk` becomes a loop of `⌈(K − 0) / BK⌉` iterations: slot `k` (the counter), slots for
//! the uniform parts of `pa` and `pb` (`+ BK` and `+ BK·sbk` each time: one `s_add` each),
//! and one phi per accumulator register; the loads inside read `base + slot + Σ c·stride`, the
//! same thread offsets every iteration.

use super::{Lowering, Sym, fail};
use crate::lower::error::LowerError;
use crate::lower::ir::{ArithOp, Cmp, Condition, Derived, Predicate, Uniform, UniformInput, UniformOp};
use crate::lower::ir::{
    BranchCondition, CarriedUniform, CarriedValue, Op as ProgramOp, Program, Value, walk,
};
use crate::lower::plan::dist::Dist;
use crate::ttgir::{Module, Op};

/// What a loop carries: its uniform slots, its per-thread values, and how each argument is
/// carried by them.
struct Carried {
    uniforms: Vec<CarriedUniform>,
    values: Vec<CarriedValue>,
    carries: Vec<Carry>,
    /// Ops the loop's body starts with: the buffers of pointers carried by their address,
    /// bound at it.
    prologue: Vec<ProgramOp>,
}

/// A loop over 64-bit integers counted by its trips ([`Lowering::wide_loop`]).
struct WideLoop {
    /// The number of trips, a uniform.
    trips: Uniform,
    /// The first value of the induction variable and its step, 64-bit registers.
    start: Value,
    step: Value,
}

/// How a loop carries one of its arguments.
enum Carry {
    /// A uniform slot: an integer, or the uniform part of a pointer tensor.
    Slot(usize),
    /// Registers: index into the loop's carried values, and how many.
    Values(usize, usize),
    /// The same value every iteration (a memory descriptor).
    Same,
    /// A slice of one buffer whose place changes: its offset in a slot.
    Slice(usize),
    /// An address with a data part: its uniform part in a slot, its index in registers.
    Indexed(usize, usize, usize),
    /// A scalar pointer by its 64-bit address (index into the carried values), to elements of
    /// so many bytes.
    Address(usize, u64),
}

impl Lowering<'_> {
    /// A fresh uniform slot.
    fn slot(&mut self) -> u32 {
        self.slots += 1;
        self.slots - 1
    }

    /// A loop's bound or step as a uniform: a uniform integer, or a scalar every thread holds
    /// in a register (loaded from memory: `for start in range(0, tl.load(lens + b), BLOCK)`),
    /// read into a slot of its own.
    fn loop_bound(&mut self, op: &Op, v: usize) -> Result<Uniform, LowerError> {
        match self.sym(op, v)?.clone() {
            Sym::Int(u) => Ok(u),
            Sym::Lanes(x) if self.p.value_bits(x) == 32 => {
                let slot = self.slot();
                self.p.ops.push(ProgramOp::ReadUniform { slot, src: x });
                Ok(Uniform::input(UniformInput::Carried(slot)))
            }
            other => fail(
                op,
                format!(
                    "a bound or step that is {} (loops step through 32-bit integers every thread agrees on)",
                    other.kind()
                ),
            ),
        }
    }

    /// A loop over 64-bit integers that a uniform (32 bits) cannot hold — a bound loaded from
    /// memory as `i64`, or a 64-bit argument — counts its trips instead: `k` from 0 to
    /// `max(0, ⌈(ub − lb) / step⌉)` (computed in 64-bit registers, the count itself in 32 bits:
    /// no loop runs 2^31 trips), the induction variable `lb + k·step`. `None` for a loop whose
    /// bounds uniforms hold.
    fn wide_loop(&mut self, op: &Op, bounds: [usize; 3]) -> Result<Option<WideLoop>, LowerError> {
        let wide = |l: &Self, v: usize| {
            l.m.values[v].ty.element == "i64"
                && match l.syms.get(v) {
                    Some(Some(Sym::Lanes(x))) => l.p.value_bits(*x) == 64,
                    Some(Some(Sym::Int(u))) => l.reads_wide_argument(u),
                    _ => false,
                }
        };
        if !bounds.iter().any(|&v| wide(self, v)) {
            return Ok(None);
        }
        let mut registers = Vec::with_capacity(3);
        for v in bounds {
            let (_, values) = self.typed_data(op, v)?;
            match values.as_slice() {
                [x] => registers.push(*x),
                _ => return fail(op, "a bound that is not a scalar"),
            }
        }
        let [lb, ub, step] = [registers[0], registers[1], registers[2]];
        let (one, zero) = (self.p.constant(64, 1), self.p.constant(64, 0));
        let span = self.binary(ArithOp::Sub, "i64", ub, lb);
        let rounded = self.binary(ArithOp::Add, "i64", span, step);
        let rounded = self.binary(ArithOp::Sub, "i64", rounded, one);
        let quotient = self.binary(ArithOp::Div, "i64", rounded, step);
        let trips = self.binary(ArithOp::Max, "i64", quotient, zero);
        let narrow = self.p.value(32);
        self.p.ops.push(ProgramOp::Convert {
            dst: vec![narrow],
            src: vec![trips],
            from: "i64",
            to: "i32",
        });
        let slot = self.slot();
        self.p.ops.push(ProgramOp::ReadUniform { slot, src: narrow });
        Ok(Some(WideLoop {
            trips: Uniform::input(UniformInput::Carried(slot)),
            start: lb,
            step,
        }))
    }

    /// Registers of a tensor the op names: data, or a splat constant materialised.
    pub(super) fn registers_of(
        &mut self,
        op: &Op,
        v: usize,
    ) -> Result<(Box<crate::linear::LinearLayout>, Vec<Value>), LowerError> {
        if let Sym::Splat(bits) = self.sym(op, v)? {
            let bits = *bits;
            let layout = self.layout(op, v)?;
            let width = self.bits(op, v)?;
            let registers = Dist::of(&layout, self.target.wave_size)?.registers();
            let values = (0..registers)
                .map(|_| {
                    let dst = self.p.value(width);
                    self.p.ops.push(ProgramOp::Constant { dst, bits });
                    dst
                })
                .collect();
            return Ok((Box::new(layout), values));
        }
        self.typed_data(op, v)
    }

    /// Every load not issued yet is issued now (before a loop: not once per iteration).
    pub(super) fn issue_pending(&mut self, op: &Op) -> Result<(), LowerError> {
        for v in 0..self.syms.len() {
            if let Some(Sym::Pending(_)) = &self.syms[v] {
                self.data(op, v)?;
            }
        }
        self.issue_shared_reads()
    }

    /// Lowers the ops of a region (its terminator excluded) into their own op list.
    fn region(&mut self, ops: &[usize]) -> Result<Vec<ProgramOp>, LowerError> {
        let start = self.p.ops.len();
        self.lower_ops(ops)?;
        Ok(self.p.ops.split_off(start))
    }

    /// Lowers the ops of a region (its terminator excluded) after the program's ops.
    fn lower_ops(&mut self, ops: &[usize]) -> Result<(), LowerError> {
        for &i in ops {
            if !self.op(i)? {
                let op = &self.m.ops[i];
                return Err(LowerError::new(format!(
                    "{}: a return inside a region is not lowered",
                    crate::ttgir::op_place(op.line, &op.name)
                )));
            }
        }
        Ok(())
    }

    /// `scf.for`. An iteration argument starts as what its initial value is (an index, an
    /// integer, data, a fixed LDS slice); when the body yields data for one that started
    /// symbolic (a constant accumulator, an index the body computes in registers), or another
    /// slice of a carried buffer, the loop is lowered again with that argument carried in
    /// registers (or by its slice's offset) from the start.
    pub(super) fn scf_for(&mut self, op: &Op) -> Result<(), LowerError> {
        self.lower_loop(op, op.operands.len().saturating_sub(3), Self::scf_for_with)
    }

    /// `scf.while`, its carried arguments chosen as `scf.for`'s are.
    pub(super) fn scf_while(&mut self, op: &Op) -> Result<(), LowerError> {
        self.lower_loop(op, op.operands.len(), Self::scf_while_with)
    }

    /// Lowers a loop of `carried` arguments with `lower`, first with none in registers, then
    /// again with each argument in registers that the body yields data for (`Some(k)` from
    /// `lower`) while it started symbolic.
    fn lower_loop<F>(&mut self, op: &Op, carried: usize, lower: F) -> Result<(), LowerError>
    where
        F: Fn(&mut Self, &Op, &[bool]) -> Result<Option<usize>, LowerError>,
    {
        // In a mapped scalar function a loop's values are each thread's own from the start.
        let mut in_registers = vec![self.divergent; carried];
        self.issue_pending(op)?;
        let (ops, values, slots, derived, buffers) = (
            self.p.ops.len(),
            self.p.values.len(),
            self.slots,
            self.p.derived.len(),
            self.p.buffers.len(),
        );
        loop {
            match lower(self, op, &in_registers)? {
                None => return Ok(()),
                Some(k) => {
                    // A poison argument now starts in the form the loop yields; any other is
                    // carried in registers next time.
                    if !std::mem::take(&mut self.refined_poison) {
                        if in_registers[k] {
                            return fail(op, "carries a value the body does not yield in registers");
                        }
                        in_registers[k] = true;
                    }
                    self.p.ops.truncate(ops);
                    self.p.values.truncate(values);
                    self.held
                        .retain(|h| h.values.iter().all(|v| (v.0 as usize) < values));
                    self.slots = slots;
                    self.p.derived.truncate(derived);
                    self.p.buffers.truncate(buffers);
                }
            }
        }
    }

    /// `scf.for` with the iteration arguments `in_registers` carried as data; `Some(k)`: the
    /// body yields data for argument `k`, carried otherwise.
    fn scf_for_with(&mut self, op: &Op, in_registers: &[bool]) -> Result<Option<usize>, LowerError> {
        let (Some(&lb), Some(&ub), Some(&step)) =
            (op.operands.first(), op.operands.get(1), op.operands.get(2))
        else {
            return fail(op, "needs bounds and a step");
        };
        if self.divergent
            && [lb, ub, step]
                .iter()
                .any(|&v| matches!(self.syms.get(v), Some(Some(Sym::Lanes(_)))))
        {
            return self.scf_for_per_thread(op, in_registers, [lb, ub, step]);
        }
        let wide = self.wide_loop(op, [lb, ub, step])?;
        let (start, end, step) = match &wide {
            Some(w) => (Uniform::default(), w.trips.clone(), Uniform::constant(1)),
            None => (
                self.loop_bound(op, lb)?,
                self.loop_bound(op, ub)?,
                self.loop_bound(op, step)?,
            ),
        };
        if step.as_constant().is_some_and(|s| s <= 0) {
            return fail(op, "a step that is not positive (scf.for steps up)");
        }
        let (inits, args) = for_arguments(op)?;
        let counter = self.slot();
        let mut carried = self.carry(op, args, inits, in_registers)?;
        if let Some(&iv) = op.block_args.first() {
            let trip = Uniform::input(UniformInput::Carried(counter));
            self.syms[iv] = Some(match wide {
                None => Sym::Int(trip),
                // The induction variable, `lb + k·step` in 64 bits, at the top of trip `k`.
                Some(WideLoop { start, step, .. }) => {
                    let (k, product, value) = (self.p.value(64), self.p.value(64), self.p.value(64));
                    let at_top = [
                        ProgramOp::UniformValue { dst: k, value: trip },
                        ProgramOp::Arith {
                            op: ArithOp::Mul,
                            ty: "i64",
                            dst: product,
                            src: vec![k, step],
                        },
                        ProgramOp::Arith {
                            op: ArithOp::Add,
                            ty: "i64",
                            dst: value,
                            src: vec![start, product],
                        },
                    ];
                    carried.prologue.splice(0..0, at_top);
                    Sym::Lanes(value)
                }
            });
        }
        let mut body = match self.for_body(op, args, &mut carried)? {
            Ok(body) => body,
            Err(k) => return Ok(Some(k)),
        };
        let (at_top, at_end) = loop_edge_fences(&self.p, body.iter());
        if at_top {
            body.insert(0, ProgramOp::Barrier);
        }
        if at_end {
            body.push(ProgramOp::Barrier);
        }
        let Carried {
            uniforms,
            values,
            carries,
            ..
        } = carried;
        // Slots nothing reads (a pipeline's buffer index into a single buffer) are dropped.
        let used_after: Vec<bool> = carries
            .iter()
            .zip(&op.results)
            .filter(|(c, _)| matches!(c, Carry::Slot(_) | Carry::Indexed(..) | Carry::Slice(_)))
            .map(|(_, &r)| self.users[r] > 0)
            .collect();
        let uniforms = live_slots(&self.p, &body, uniforms, &used_after);
        let addresses: Vec<(usize, Value, u64)> = carries
            .iter()
            .zip(&op.results)
            .filter_map(|(c, &r)| match c {
                Carry::Address(i, bytes) => Some((r, values[*i].phi, *bytes)),
                _ => None,
            })
            .collect();
        self.p.ops.push(ProgramOp::Loop {
            counter,
            start,
            end,
            step,
            uniforms,
            values,
            body,
        });
        // After the loop: the carried values' last values; a pointer carried by its address
        // is bound at the last one.
        for (&arg, &r) in args.iter().zip(&op.results) {
            self.syms[r] = self.syms[arg].clone();
        }
        for (r, address, bytes) in addresses {
            let (buffer, bind) = self.buffer_at(&self.m.values[r].name, address, bytes);
            self.p.ops.push(bind);
            self.syms[r] = Some(Sym::Ptr(buffer));
        }
        Ok(None)
    }

    /// The body of an `scf.for`, what it yields taken as the next values of `carried`
    /// (constants yielded materialised at its end); `Err(k)`: it yields data for argument `k`,
    /// carried otherwise.
    fn for_body(
        &mut self,
        op: &Op,
        args: &[usize],
        carried: &mut Carried,
    ) -> Result<Result<Vec<ProgramOp>, usize>, LowerError> {
        let (ops, terminator) = split_terminator(self.m, op, &op.body);
        let mut body = std::mem::take(&mut carried.prologue);
        body.extend(self.region(ops)?);
        if yield_operands(terminator).len() != args.len() {
            return fail(
                terminator,
                "yields another number of values than the loop carries",
            );
        }
        let start_body = self.p.ops.len();
        if let Some(k) = self.carry_next(terminator, args, carried)? {
            return Ok(Err(k));
        }
        body.extend(self.p.ops.split_off(start_body));
        Ok(Ok(body))
    }

    /// `scf.for` in a mapped scalar function whose bounds or step are the element's own
    /// (`for i in range(n)` of an element `n`): each thread counts for itself — a
    /// [`While`](ProgramOp::While) whose test `i < end` each thread makes, the counter a carried
    /// register stepped at the body's end.
    fn scf_for_per_thread(
        &mut self,
        op: &Op,
        in_registers: &[bool],
        [lb, ub, step]: [usize; 3],
    ) -> Result<Option<usize>, LowerError> {
        let Some((&iv, args)) = op.block_args.split_first() else {
            return fail(op, "has no induction variable");
        };
        let Some(ty) =
            super::data::numeric_type(&self.m.values[iv].ty.element).filter(|t| t.starts_with('i'))
        else {
            return fail(op, "counts with an induction variable that is not an integer");
        };
        let [start, end, stride] =
            [lb, ub, step].map(|v| self.typed_data(op, v).map(|(_, values)| values[0]));
        let (start, end, stride) = (start?, end?, stride?);
        let (inits, _) = for_arguments(op)?;
        let mut carried = self.carry(op, args, inits, in_registers)?;
        if !carried.uniforms.is_empty() {
            return fail(
                op,
                "carries a value that is not a number in a loop each element counts for itself",
            );
        }
        let mut results = Vec::with_capacity(args.len());
        let mut leaving = Vec::with_capacity(args.len());
        for (&arg, &r) in args.iter().zip(&op.results) {
            let Some(Some(Sym::Lanes(phi))) = self.syms.get(arg).cloned() else {
                return fail(
                    op,
                    "carries a value that is not a scalar in a loop each element counts for itself",
                );
            };
            let dst = self.p.value(self.p.value_bits(phi));
            results.push([dst, phi]);
            leaving.push((r, Sym::Lanes(dst)));
        }
        let counter = self.p.value(self.p.value_bits(start));
        self.syms[iv] = Some(Sym::Lanes(counter));
        let test = self.p.value(1);
        let before = vec![ProgramOp::Compare {
            pred: Predicate::Slt,
            ty,
            dst: test,
            a: counter,
            b: end,
        }];
        let mut after = match self.for_body(op, args, &mut carried)? {
            Ok(body) => body,
            Err(k) => return Ok(Some(k)),
        };
        let next = self.p.value(self.p.value_bits(start));
        after.push(ProgramOp::Arith {
            op: ArithOp::Add,
            ty,
            dst: next,
            src: vec![counter, stride],
        });
        let mut values = carried.values;
        values.push(CarriedValue {
            phi: counter,
            init: start,
            next,
        });
        self.p.ops.push(ProgramOp::While {
            uniforms: Vec::new(),
            values,
            before,
            cond: BranchCondition::PerThread(test),
            results,
            after,
        });
        for (r, sym) in leaving {
            self.syms[r] = Some(sym);
        }
        Ok(None)
    }

    /// `scf.while` with the carried arguments `in_registers` carried as data; `Some(k)`: the
    /// `do` region yields data for argument `k`, carried otherwise. The `before` region and
    /// its test become the loop's first part; what `scf.condition` passes on is what the `do`
    /// region's arguments are, and, when the test fails, the op's results.
    fn scf_while_with(&mut self, op: &Op, in_registers: &[bool]) -> Result<Option<usize>, LowerError> {
        let n = op.operands.len();
        let split = op
            .regions
            .get(1)
            .copied()
            .unwrap_or(op.body.len())
            .min(op.body.len());
        let (before_ops, after_ops) = op.body.split_at(split);
        let Some((test, before_ops)) = before_ops
            .split_last()
            .map(|(&t, rest)| (&self.m.ops[t], rest))
            .filter(|(t, _)| t.name == "scf.condition")
        else {
            return fail(op, "needs a region ending in scf.condition, then a do region");
        };
        let passed = test.operands.get(1..).unwrap_or(&[]);
        let (args, after_args) = op.block_args.split_at(n.min(op.block_args.len()));
        if args.len() != n || after_args.len() != passed.len() || op.results.len() != passed.len() {
            return fail(
                op,
                "carried arguments, initial values, the values scf.condition passes on and results disagree in number",
            );
        }
        let buffers_before = self.p.buffers.len();
        let mut carried = self.carry(op, args, &op.operands, in_registers)?;
        let start = self.p.ops.len();
        // Pointers carried by their addresses are bound where the loop first reads them: in
        // the test's region if it does, else at the top of the body, which leaves the test's
        // region free to be copied below the body (the loop rotated).
        let bound_in_test = carried
            .carries
            .iter()
            .zip(args)
            .any(|(c, &arg)| matches!(c, Carry::Address(..)) && reads_value(self.m, before_ops, arg));
        if bound_in_test {
            self.p.ops.append(&mut carried.prologue);
        }
        self.lower_ops(before_ops)?;
        let cond = self.branch_condition(test)?;
        // Inside the `do` region the passed values are what `before` left; after the loop,
        // values of their own.
        let mut results = Vec::new();
        let mut leaving = Vec::new();
        let mut rebound = Vec::new();
        for ((&v, &arg), &r) in passed.iter().zip(after_args).zip(&op.results) {
            let inside = match self.sym(test, v)?.clone() {
                Sym::Pending(_) | Sym::SharedRead(_) => {
                    let (layout, values) = self.registers_of(test, v)?;
                    Sym::Data { layout, values }
                }
                other => other,
            };
            let mut leave = |p: &mut Program, inside: &[Value]| -> Vec<Value> {
                inside
                    .iter()
                    .map(|&src| {
                        let dst = p.value(p.value_bits(src));
                        results.push([dst, src]);
                        dst
                    })
                    .collect()
            };
            let outside = match &inside {
                Sym::Data { layout, values } => Sym::Data {
                    layout: layout.clone(),
                    values: leave(&mut self.p, values),
                },
                Sym::Lanes(src) => Sym::Lanes(leave(&mut self.p, &[*src])[0]),
                // A pointer bound in the loop at a carried address: bound again after it.
                Sym::Ptr(b) if *b >= buffers_before => {
                    let Some(address) = self.p.buffers[*b].address else {
                        return fail(test, "passes on a buffer without an address");
                    };
                    let after = leave(&mut self.p, &[address])[0];
                    let bytes = u64::from(self.p.buffers[*b].element_bits / 8);
                    let (buffer, bind) = self.buffer_at(&self.m.values[r].name, after, bytes);
                    rebound.push(bind);
                    Sym::Ptr(buffer)
                }
                Sym::Indexed(indexed) => {
                    let mut indexed = indexed.clone();
                    indexed.index = leave(&mut self.p, &indexed.index);
                    Sym::Indexed(indexed)
                }
                // A tile is written to LDS where it is read: from the registers that fill it.
                Sym::Shared(tile) => {
                    let mut tile = tile.clone();
                    tile.values = leave(&mut self.p, &tile.values);
                    Sym::Shared(tile)
                }
                // The rest is uniform: the slots keep what the last test saw.
                other => other.clone(),
            };
            self.syms[arg] = Some(inside);
            leaving.push((r, outside));
        }
        let middle = self.p.ops.len();
        self.p.ops.append(&mut carried.prologue);
        let (ops, terminator) = split_terminator(self.m, op, after_ops);
        self.lower_ops(ops)?;
        if yield_operands(terminator).len() != n {
            return fail(
                terminator,
                "yields another number of values than the loop carries",
            );
        }
        if let Some(k) = self.carry_next(terminator, args, &mut carried)? {
            return Ok(Some(k));
        }
        let mut after = self.p.ops.split_off(middle);
        let mut before = self.p.ops.split_off(start);
        let (at_top, at_end) = loop_edge_fences(&self.p, before.iter().chain(&after));
        if at_top {
            before.insert(0, ProgramOp::Barrier);
        }
        if at_end {
            after.push(ProgramOp::Barrier);
        }
        self.p.ops.push(ProgramOp::While {
            uniforms: carried.uniforms,
            values: carried.values,
            before,
            cond,
            results,
            after,
        });
        self.p.ops.append(&mut rebound);
        for (r, sym) in leaving {
            self.syms[r] = Some(sym);
        }
        Ok(None)
    }

    /// Carries `args` (a loop's arguments) from `inits`, those of `in_registers` as data: the
    /// uniform slots and per-thread values they are, each argument's value inside the loop
    /// defined.
    fn carry(
        &mut self,
        op: &Op,
        args: &[usize],
        inits: &[usize],
        in_registers: &[bool],
    ) -> Result<Carried, LowerError> {
        let mut uniforms: Vec<CarriedUniform> = Vec::new();
        let mut values: Vec<CarriedValue> = Vec::new();
        let mut carries = Vec::new();
        let mut prologue = Vec::new();
        for ((&arg, &init), &registers) in args.iter().zip(inits).zip(in_registers) {
            if self
                .m
                .def_op(init)
                .is_some_and(|i| self.m.ops[i].name == "ub.poison")
            {
                self.poison_carried.insert(arg, init);
            }
            let sym = match self.poison_forms.get(&init) {
                Some(form) => form.clone(),
                None => self.sym(op, init)?.clone(),
            };
            let sym = match sym {
                // A pointer argument: its offset, zero, in a slot.
                Sym::Ptr(buffer) if !registers => Sym::Affine {
                    base: Some(buffer),
                    constant: Uniform::default(),
                    coef: Vec::new(),
                },
                Sym::Int(_) if registers => Sym::Lanes(self.typed_data(op, init)?.1[0]),
                Sym::Affine { base: None, .. } if registers => {
                    let (layout, values) = self.typed_data(op, init)?;
                    Sym::Data { layout, values }
                }
                // A deferred load, a splat, and a mask (a pipelined loop carries the next
                // iteration's load masks) go into registers: each iteration yields new ones.
                Sym::Pending(_) | Sym::SharedRead(_) | Sym::Splat(_) | Sym::Mask { .. } | Sym::Cond(_) => {
                    let (layout, values) = self.registers_of(op, init)?;
                    Sym::Data { layout, values }
                }
                // A tensor of pointers the body moves per element (see `carried_pointer`).
                Sym::Affine {
                    base: Some(buffer),
                    constant,
                    coef,
                } if registers && !coef.is_empty() => Sym::Indexed(Box::new(self.carried_pointer(
                    op,
                    init,
                    (buffer, constant, coef),
                )?)),
                other => other,
            };
            let (carry, sym) = match sym {
                // A scalar pointer whose buffer the loop changes: by its address.
                sym if registers && Self::is_scalar_pointer(&sym) => {
                    let bytes = self.pointee_bytes(op, arg)?;
                    let init = self.pointer_address(op, &sym, bytes)?;
                    let phi = self.p.value(64);
                    values.push(CarriedValue {
                        phi,
                        init,
                        next: init,
                    });
                    let (buffer, bind) = self.buffer_at(&self.m.values[arg].name, phi, bytes);
                    prologue.push(bind);
                    (Carry::Address(values.len() - 1, bytes), Sym::Ptr(buffer))
                }
                Sym::Int(u) => {
                    let slot = self.slot();
                    uniforms.push(CarriedUniform {
                        slot,
                        init: u,
                        next: Uniform::default(),
                    });
                    (
                        Carry::Slot(uniforms.len() - 1),
                        Sym::Int(Uniform::input(UniformInput::Carried(slot))),
                    )
                }
                Sym::Affine { base, constant, coef } => {
                    let slot = self.slot();
                    uniforms.push(CarriedUniform {
                        slot,
                        init: constant,
                        next: Uniform::default(),
                    });
                    let constant = Uniform::input(UniformInput::Carried(slot));
                    (
                        Carry::Slot(uniforms.len() - 1),
                        Sym::Affine { base, constant, coef },
                    )
                }
                Sym::Buffer(mut slice) if registers => {
                    let slot = self.slot();
                    uniforms.push(CarriedUniform {
                        slot,
                        init: slice.offset.clone(),
                        next: Uniform::default(),
                    });
                    slice.offset = Uniform::input(UniformInput::Carried(slot));
                    (Carry::Slice(uniforms.len() - 1), Sym::Buffer(slice))
                }
                Sym::Buffer(_) | Sym::Shared(_) => (Carry::Same, self.sym(op, init)?.clone()),
                Sym::Indexed(mut indexed) => {
                    let slot = self.slot();
                    uniforms.push(CarriedUniform {
                        slot,
                        init: indexed.constant.clone(),
                        next: Uniform::default(),
                    });
                    indexed.constant = Uniform::input(UniformInput::Carried(slot));
                    let first = values.len();
                    for v in indexed.index.iter_mut() {
                        let phi = self.p.value(self.p.value_bits(*v));
                        values.push(CarriedValue {
                            phi,
                            init: *v,
                            next: *v,
                        });
                        *v = phi;
                    }
                    (
                        Carry::Indexed(uniforms.len() - 1, first, indexed.index.len()),
                        Sym::Indexed(indexed),
                    )
                }
                Sym::Lanes(v) => {
                    let phi = self.p.value(self.p.value_bits(v));
                    values.push(CarriedValue {
                        phi,
                        init: v,
                        next: v,
                    });
                    (Carry::Values(values.len() - 1, 1), Sym::Lanes(phi))
                }
                Sym::Data {
                    layout,
                    values: inits,
                } => {
                    let first = values.len();
                    let phis: Vec<Value> = inits
                        .iter()
                        .map(|&v| {
                            let phi = self.p.value(self.p.value_bits(v));
                            values.push(CarriedValue {
                                phi,
                                init: v,
                                next: v,
                            });
                            phi
                        })
                        .collect();
                    (
                        Carry::Values(first, phis.len()),
                        Sym::Data { layout, values: phis },
                    )
                }
                _ => {
                    return fail(
                        op,
                        "carries a value that is not an integer, pointer, tensor or buffer",
                    );
                }
            };
            self.syms[arg] = Some(sym);
            carries.push(carry);
        }
        Ok(Carried {
            uniforms,
            values,
            carries,
            prologue,
        })
    }

    /// Whether loop argument `arg`, started as `ub.poison`, is to start in the form of `next`,
    /// what the loop yields for it, instead: an index or a pointer with other strides, or a
    /// pointer into another buffer (in one arm of a choice, the other arm being the argument
    /// itself). Poison may
    /// be any value, so the loop carries what it yields without converting it. Once per
    /// argument: the form is then kept (`poison_forms`) and the loop is lowered again.
    fn poison_form(&mut self, arg: usize, next: &Sym) -> bool {
        let Some(&init) = self.poison_carried.get(&arg) else {
            return false;
        };
        if self.poison_forms.contains_key(&init) {
            return false;
        }
        let form = |s: &Sym| match s {
            Sym::Affine { base, coef, .. } => Some((*base, coef.clone())),
            Sym::Ptr(b) => Some((Some(*b), Vec::new())),
            _ => None,
        };
        let Some(now) = self.syms[arg].as_ref().and_then(form) else {
            return false;
        };
        let other = |s: &Sym| form(s).filter(|f| *f != now);
        let wanted = match next {
            Sym::Choice { then, otherwise, .. } => other(then).or_else(|| other(otherwise)),
            next => other(next),
        };
        let Some((base, coef)) = wanted else {
            return false;
        };
        self.poison_forms.insert(
            init,
            Sym::Affine {
                base,
                constant: Uniform::default(),
                coef,
            },
        );
        self.refined_poison = true;
        true
    }

    /// Bytes of the elements scalar pointer `v` points to.
    fn pointee_bytes(&self, op: &Op, v: usize) -> Result<u64, LowerError> {
        match self.m.values[v].ty.pointee_bits() {
            Some(bits) if self.rank(v) == 0 => Ok(u64::from(bits.div_ceil(8))),
            _ => fail(op, format!("{} is no scalar pointer", self.m.values[v].name)),
        }
    }

    /// The next values of a loop's carried `args` from what `terminator` yields; `Some(k)`:
    /// it yields data for argument `k`, which the loop carries otherwise.
    fn carry_next(
        &mut self,
        terminator: &Op,
        args: &[usize],
        carried: &mut Carried,
    ) -> Result<Option<usize>, LowerError> {
        let Carried {
            uniforms,
            values,
            carries,
            ..
        } = carried;
        for (k, ((carry, &arg), &yielded)) in carries
            .iter()
            .zip(args)
            .zip(yield_operands(terminator))
            .enumerate()
        {
            let next = match (carry, self.sym(terminator, yielded)?.clone()) {
                (Carry::Slot(_), Sym::Ptr(buffer)) => Sym::Affine {
                    base: Some(buffer),
                    constant: Uniform::default(),
                    coef: Vec::new(),
                },
                (_, next) => next,
            };
            if self.poison_form(arg, &next) {
                return Ok(Some(k));
            }
            match (carry, next) {
                (Carry::Address(i, bytes), next) => {
                    values[*i].next = self.pointer_address(terminator, &next, *bytes)?;
                }
                (Carry::Slot(k), Sym::Int(u)) => uniforms[*k].next = u,
                (Carry::Slot(slot), Sym::Affine { base, constant, coef }) => {
                    let Some(Sym::Affine {
                        base: b0, coef: k0, ..
                    }) = &self.syms[arg]
                    else {
                        return fail(terminator, "yields a pointer for an integer");
                    };
                    if (*b0, k0) != (base, &coef) {
                        // Strides that change: integers are carried in registers, pointers per
                        // element; a scalar pointer whose buffer changes: by its address.
                        if base.is_none() && b0.is_none()
                            || base.is_some()
                                && (*b0 == base && !k0.is_empty() || k0.is_empty() && coef.is_empty())
                        {
                            return Ok(Some(k));
                        }
                        return fail(
                            terminator,
                            "a pointer whose buffer changes in the loop is not lowered yet",
                        );
                    }
                    uniforms[*slot].next = constant;
                }
                // A scalar pointer chosen at run time or moved by a loaded offset: carried by
                // its address.
                (Carry::Slot(_), next @ (Sym::Choice { .. } | Sym::Indexed(_)))
                    if Self::is_scalar_pointer(&next)
                        && self.syms[arg].as_ref().is_some_and(Self::is_scalar_pointer) =>
                {
                    return Ok(Some(k));
                }
                // Pointers moved by data: carried per element.
                (Carry::Slot(_), Sym::Indexed(next)) if matches!(&self.syms[arg], Some(Sym::Affine { base: Some(b), coef, .. }) if *b == next.buffer && !coef.is_empty()) =>
                {
                    return Ok(Some(k));
                }
                (Carry::Indexed(slot, first, n), next @ (Sym::Indexed(_) | Sym::Affine { .. })) => {
                    let Some(Sym::Indexed(now)) = self.syms[arg].clone() else {
                        return fail(terminator, "yields an address for another kind of value");
                    };
                    let next = match (&now.layout, next) {
                        // A scalar pointer moved by a scalar loaded from memory.
                        (None, Sym::Indexed(next))
                            if (next.buffer, &next.coef, &next.layout) == (now.buffer, &now.coef, &None) =>
                        {
                            *next
                        }
                        // Another buffer: carried by its address.
                        (None, next) if Self::is_scalar_pointer(&next) => return Ok(Some(k)),
                        (None, next) => {
                            return fail(
                                terminator,
                                format!("yields {} for a scalar pointer it carries", next.kind()),
                            );
                        }
                        (Some(_), next) => self.next_carried_pointer(terminator, &now, next)?,
                    };
                    if next.index.len() != *n {
                        return fail(terminator, "yields an address of another size than it carries");
                    }
                    uniforms[*slot].next = next.constant.clone();
                    for (c, &v) in values[*first..first + n].iter_mut().zip(&next.index) {
                        c.next = v;
                    }
                }
                (Carry::Values(first, n), _) => {
                    let (layout, next) = self.registers_of(terminator, yielded)?;
                    let l0 = match &self.syms[arg] {
                        Some(Sym::Data { layout, .. }) => layout.clone(),
                        Some(Sym::Lanes(_)) => Box::new(self.scalar_layout()?),
                        _ => return fail(terminator, "yields data for another kind of value"),
                    };
                    if l0 != layout || next.len() != *n {
                        return fail(terminator, "yields a tensor in another layout than it carries");
                    }
                    for (c, v) in values[*first..first + n].iter_mut().zip(next) {
                        c.next = v;
                    }
                }
                (Carry::Slice(s), Sym::Buffer(next)) => {
                    let Some(Sym::Buffer(now)) = &self.syms[arg] else {
                        return fail(terminator, "yields a buffer for another kind of value");
                    };
                    if !now.same_buffer(&next) {
                        return fail(terminator, "yields a slice of another buffer than it carries");
                    }
                    uniforms[*s].next = next.offset.clone();
                }
                // A slice that moves from one iteration to the next: carried by its offset.
                (Carry::Same, Sym::Buffer(next)) if matches!(&self.syms[arg], Some(Sym::Buffer(now)) if now.same_buffer(&next) && now.offset != next.offset) =>
                {
                    return Ok(Some(k));
                }
                (Carry::Same, yielded_sym) => {
                    let same = match (&self.syms[arg], &yielded_sym) {
                        (Some(Sym::Buffer(a)), Sym::Buffer(b)) => a == b,
                        (Some(Sym::Shared(_)), Sym::Shared(_)) => {
                            self.syms[arg].as_ref().map(|s| format!("{s:?}"))
                                == Some(format!("{yielded_sym:?}"))
                        }
                        _ => false,
                    };
                    if !same {
                        return fail(
                            terminator,
                            "a memory descriptor that changes in the loop is not lowered yet",
                        );
                    }
                }
                (Carry::Slot(_), Sym::Data { .. } | Sym::Pending(_) | Sym::SharedRead(_) | Sym::Lanes(_))
                    if matches!(self.syms[arg], Some(Sym::Affine { base: None, .. } | Sym::Int(_))) =>
                {
                    return Ok(Some(k));
                }
                (_, other) => {
                    return fail(
                        terminator,
                        format!(
                            "yields {} as {}, which the loop carries as {}",
                            self.m.values[yielded].name,
                            other.kind(),
                            self.syms[arg].as_ref().map_or("nothing", Sym::kind)
                        ),
                    );
                }
            }
        }
        Ok(None)
    }

    /// What `op`'s first operand (an `i1` scalar) decides as a branch: a uniform condition, a
    /// constant, or a scalar in registers — the same in every thread, as every rank-0 value is,
    /// but in a mapped scalar function, where each thread tests its own.
    pub(super) fn branch_condition(&mut self, op: &Op) -> Result<BranchCondition, LowerError> {
        Ok(match self.operand(op, 0)?.clone() {
            Sym::Cond(c) => BranchCondition::Uniform(c),
            // A constant (`arith.constant false`).
            Sym::Int(u) => BranchCondition::Uniform(Condition {
                lhs: u,
                cmp: Cmp::Ne,
                rhs: Uniform::constant(0),
            }),
            Sym::Lanes(v) if self.p.value_bits(v) == 1 && self.divergent => BranchCondition::PerThread(v),
            Sym::Lanes(v) if self.p.value_bits(v) == 1 => BranchCondition::Value(v),
            other => {
                return fail(
                    op,
                    format!(
                        "tests {}; a branch tests a uniform condition, a constant or a scalar in registers",
                        other.kind()
                    ),
                );
            }
        })
    }

    /// `scf.if` on a scalar condition (uniform, or a scalar in registers), with results of any
    /// kind.
    pub(super) fn scf_if(&mut self, op: &Op) -> Result<(), LowerError> {
        let cond = self.branch_condition(op)?;
        self.issue_pending(op)?;
        let split = op
            .regions
            .get(1)
            .copied()
            .unwrap_or(op.body.len())
            .min(op.body.len());
        let (then_ops, else_ops) = op.body.split_at(split);
        let mut arms = Vec::new();
        for ops in [then_ops, else_ops] {
            if ops.is_empty() && op.results.is_empty() {
                arms.push((Vec::new(), Vec::new(), op));
                continue;
            }
            let (inner, terminator) = split_terminator(self.m, op, ops);
            let lowered = self.region(inner)?;
            let yielded: Vec<(usize, Sym)> = yield_operands(terminator)
                .iter()
                .map(|&v| Ok((v, self.sym(terminator, v)?.clone())))
                .collect::<Result<_, LowerError>>()?;
            arms.push((lowered, yielded, terminator));
        }
        let [(mut then, a, then_yield), (mut otherwise, b, else_yield)] =
            <[_; 2]>::try_from(arms).map_err(|_| LowerError::new("two arms"))?;
        if a.len() != op.results.len() || b.len() != op.results.len() {
            return fail(op, "arms yield another number of values than the op has results");
        }
        // Uniform integers from both arms: a uniform select (both are computable anywhere);
        // anything else in registers, chosen by the branch.
        let mut in_registers = Vec::new();
        for (&r, ((x, sx), (y, sy))) in op.results.iter().zip(a.into_iter().zip(b)) {
            if let (Sym::Int(then), Sym::Int(otherwise), BranchCondition::Uniform(cond)) = (&sx, &sy, &cond) {
                let d = Derived::Select {
                    cond: cond.clone(),
                    then: then.clone(),
                    otherwise: otherwise.clone(),
                };
                self.syms[r] = Some(Sym::Int(self.new_derived(d)?));
                continue;
            }
            // Pointers and indices from both arms: what one arm or the other yields, nothing
            // computed in either.
            if let Some(result) = self.branch_result(op, r, &cond, &sx, &sy)? {
                self.syms[r] = Some(result);
                continue;
            }
            let start = self.p.ops.len();
            let va = self.registers_of(then_yield, x)?;
            then.extend(self.p.ops.split_off(start));
            let vb = self.registers_of(else_yield, y)?;
            otherwise.extend(self.p.ops.split_off(start));
            in_registers.push((r, va, vb));
        }
        let mut results = Vec::new();
        for (r, (la, va), (lb, vb)) in in_registers {
            if la != lb || va.len() != vb.len() {
                return fail(op, "arms yield tensors in different layouts");
            }
            let dsts: Vec<Value> = va.iter().map(|&v| self.p.value(self.p.value_bits(v))).collect();
            results.extend(
                dsts.iter()
                    .zip(va.iter().zip(&vb))
                    .map(|(&d, (&x, &y))| [d, x, y]),
            );
            self.syms[r] = Some(if la.num_out_dims() == 0 && dsts.len() == 1 {
                Sym::Lanes(dsts[0])
            } else {
                Sym::Data {
                    layout: la,
                    values: dsts,
                }
            });
        }
        self.p.ops.push(ProgramOp::If {
            cond,
            then,
            otherwise,
            results,
        });
        Ok(())
    }

    /// `arith.select` of a uniform condition: of uniforms, a derived uniform; of tensors, a
    /// select per register.
    pub(super) fn select(&mut self, op: &Op) -> Result<(), LowerError> {
        let Sym::Cond(cond) = self.operand(op, 0)?.clone() else {
            return self.select_registers(op);
        };
        // `select(c, if c {…} else {yield b}, b)` (Triton's pipeline epilogue) is the if's result.
        if let Some(same) = self.select_of_own_branch(op) {
            let sym = self.sym(op, same)?.clone();
            return self.define(op, sym);
        }
        if let (Sym::Int(then), Sym::Int(otherwise)) =
            (self.operand(op, 1)?.clone(), self.operand(op, 2)?.clone())
        {
            return self.derive(
                op,
                Derived::Select {
                    cond,
                    then,
                    otherwise,
                },
            );
        }
        let (la, va) = self.registers_of(op, op.operands[1])?;
        let (lb, vb) = self.registers_of(op, op.operands[2])?;
        if la != lb || va.len() != vb.len() {
            return fail(op, "selects between tensors in different layouts");
        }
        let dsts: Vec<Value> = va.iter().map(|&v| self.p.value(self.p.value_bits(v))).collect();
        let results = dsts
            .iter()
            .zip(va.iter().zip(&vb))
            .map(|(&d, (&x, &y))| [d, x, y])
            .collect();
        self.p.ops.push(ProgramOp::If {
            cond: BranchCondition::Uniform(cond),
            then: Vec::new(),
            otherwise: Vec::new(),
            results,
        });
        self.define(
            op,
            Sym::Data {
                layout: la,
                values: dsts,
            },
        )
    }

    /// `arith.select` by a condition per element (or a scalar one in a register): one select
    /// per register, the three operands in registers of one layout.
    fn select_registers(&mut self, op: &Op) -> Result<(), LowerError> {
        if let Some(x) = self.complement_by_sign(op) {
            return self.xor_sign(op, x);
        }
        let (lc, c) = self.typed_data(op, op.operands[0])?;
        let (la, a) = self.registers_of(op, op.operands[1])?;
        let (lb, b) = self.registers_of(op, op.operands[2])?;
        // A scalar condition picks whole tensors.
        let c = if lc.num_out_dims() == 0 && la.num_out_dims() > 0 {
            vec![c[0]; a.len()]
        } else if lc != la {
            return fail(op, "a condition in another layout than the values");
        } else {
            c
        };
        if la != lb || a.len() != b.len() || c.len() != a.len() {
            return fail(op, "selects between tensors in different layouts");
        }
        let values = self.computed_once(op.results[0], &la, a.len(), |l, i| {
            let dst = l.p.value(l.p.value_bits(a[i]));
            l.p.ops.push(ProgramOp::Select {
                dst,
                cond: c[i],
                a: a[i],
                b: b[i],
            });
            dst
        });
        self.define(op, Sym::Data { layout: la, values })
    }

    /// `conds[r] ? a[r] : b[r]` per register.
    pub(super) fn select_each(&mut self, conds: &[Value], a: &[Value], b: &[Value]) -> Vec<Value> {
        conds
            .iter()
            .zip(a.iter().zip(b))
            .map(|(&cond, (&a, &b))| {
                let dst = self.p.value(self.p.value_bits(a));
                self.p.ops.push(ProgramOp::Select { dst, cond, a, b });
                dst
            })
            .collect()
    }

    /// `x` when the select is `x < 0 ? (0 - x) - 1 : x` (`tl.rand`'s fold of a signed integer
    /// onto the non-negative ones): the bits of `x` with every bit flipped where the sign is
    /// set, `x ^ (x >> (bits - 1))` — two instructions where the select takes a negation, a
    /// comparison and a choice.
    fn complement_by_sign(&self, op: &Op) -> Option<usize> {
        let def = |v: usize| self.m.def_op(v).map(|i| &self.m.ops[i]);
        let constant = |v: usize| match self.syms.get(v)?.as_ref()? {
            Sym::Int(u) => u.as_constant(),
            Sym::Affine {
                base: None,
                constant,
                coef,
            } if coef.iter().all(Uniform::is_zero) => constant.as_constant(),
            _ => None,
        };
        let (&c, &then, &x) = (op.operands.first()?, op.operands.get(1)?, op.operands.get(2)?);
        let cmp = def(c)?;
        let is_negative = cmp.name == "arith.cmpi"
            && cmp.keyword.as_deref() == Some("slt")
            && cmp.operands.first() == Some(&x)
            && constant(*cmp.operands.get(1)?) == Some(0);
        let minus_one = def(then)?;
        let negated = def(*minus_one.operands.first()?)?;
        let complement = minus_one.name == "arith.subi"
            && constant(*minus_one.operands.get(1)?) == Some(1)
            && negated.name == "arith.subi"
            && constant(*negated.operands.first()?) == Some(0)
            && negated.operands.get(1) == Some(&x);
        let integer = matches!(self.m.values[x].ty.element.as_str(), "i32" | "i64");
        (is_negative && complement && integer).then_some(x)
    }

    /// `x ^ (x >> (bits - 1))`, register by register: the result of a select
    /// [`complement_by_sign`](Self::complement_by_sign) recognised.
    fn xor_sign(&mut self, op: &Op, x: usize) -> Result<(), LowerError> {
        let (layout, values) = self.typed_data(op, x)?;
        let ty = if self.bits(op, x)? == 64 { "i64" } else { "i32" };
        let width = self.bits(op, x)?;
        let shift = self.p.value(width);
        self.p.ops.push(ProgramOp::Constant {
            dst: shift,
            bits: u64::from(width - 1),
        });
        let values = values
            .into_iter()
            .map(|v| {
                let sign = self.binary(ArithOp::ShrS, ty, v, shift);
                self.binary(ArithOp::Xor, ty, v, sign)
            })
            .collect();
        self.define(op, Sym::Data { layout, values })
    }

    /// The `then` operand when the select repeats what an `scf.if` on the same condition already
    /// chose: its `then` operand is that if's result and its `otherwise` what the else arm
    /// yields for it.
    fn select_of_own_branch(&self, op: &Op) -> Option<usize> {
        let (&c, &a, &b) = (op.operands.first()?, op.operands.get(1)?, op.operands.get(2)?);
        let if_op = &self.m.ops[self.m.def_op(a)?];
        let k = if_op.results.iter().position(|&r| r == a)?;
        let else_yield = &self.m.ops[*if_op.body.last()?];
        let same = if_op.name == "scf.if"
            && if_op.operands.first() == Some(&c)
            && else_yield.name == "scf.yield"
            && else_yield.operands.get(k) == Some(&b)
            && if_op
                .body
                .iter()
                .filter(|&&i| self.m.ops[i].name == "scf.yield")
                .count()
                == 2;
        same.then_some(a)
    }

    /// `arith.divsi` of a uniform by a constant.
    /// `arith.divsi`, `remui`, `maxsi`, `shli`, `xori`, … of two uniforms: folded when both
    /// are constants, else a derived uniform (a scalar instruction or two).
    pub(super) fn uniform_binary(&mut self, op: &Op, uop: UniformOp) -> Result<(), LowerError> {
        let (Sym::Int(a), Sym::Int(b)) = (self.operand(op, 0)?.clone(), self.operand(op, 1)?.clone()) else {
            return fail(op, "needs two uniform integers");
        };
        if let (Some(x), Some(y)) = (a.as_constant(), b.as_constant()) {
            let Some(c) = uop.apply(x, y) else {
                return fail(op, format!("{x} and {y}: the result is undefined"));
            };
            return self.define(op, Sym::Int(Uniform::constant(c)));
        }
        self.derive(op, Derived::Binary { op: uop, a, b })
    }

    /// `arith.andi` / `ori` / `xori` of uniform conditions (or a condition and a constant, as
    /// `xori %c, true` negates): each a 0/1 uniform, combined, compared with 0.
    pub(super) fn condition_logic(&mut self, op: &Op, uop: UniformOp) -> Result<(), LowerError> {
        let mut sides = Vec::with_capacity(2);
        for k in 0..2 {
            sides.push(match self.operand(op, k)?.clone() {
                Sym::Cond(c) => self.new_derived(Derived::Select {
                    cond: c,
                    then: Uniform::constant(1),
                    otherwise: Uniform::constant(0),
                })?,
                Sym::Int(u) => u,
                _ => return fail(op, "needs uniform conditions"),
            });
        }
        let b = sides.pop().unwrap_or_default();
        let a = sides.pop().unwrap_or_default();
        let combined = self.new_derived(Derived::Binary { op: uop, a, b })?;
        self.define(
            op,
            Sym::Cond(Condition {
                lhs: combined,
                cmp: Cmp::Ne,
                rhs: Uniform::constant(0),
            }),
        )
    }

    /// `cond ? then : otherwise` of uniforms (no select where both are the same).
    pub(super) fn uniform_select(
        &mut self,
        cond: &Condition,
        then: Uniform,
        otherwise: Uniform,
    ) -> Result<Uniform, LowerError> {
        if then == otherwise {
            return Ok(then);
        }
        self.new_derived(Derived::Select {
            cond: cond.clone(),
            then,
            otherwise,
        })
    }

    /// A derived uniform of the program, as a uniform.
    pub(super) fn new_derived(&mut self, d: Derived) -> Result<Uniform, LowerError> {
        let k =
            u32::try_from(self.p.derived.len()).map_err(|_| LowerError::new("too many derived uniforms"))?;
        self.p.derived.push(d);
        Ok(Uniform::input(UniformInput::Derived(k)))
    }

    fn derive(&mut self, op: &Op, d: Derived) -> Result<(), LowerError> {
        let u = self.new_derived(d)?;
        self.define(op, Sym::Int(u))
    }
}

/// The carried slots the loop's body, the code after it (`used_after`, per slot) or a live
/// slot's next value reads.
fn live_slots(
    p: &Program,
    body: &[ProgramOp],
    uniforms: Vec<CarriedUniform>,
    used_after: &[bool],
) -> Vec<CarriedUniform> {
    let read_by_body = p.slots_read(walk(body).flat_map(|o| p.uniform_inputs(o)));
    let mut live: Vec<bool> = uniforms
        .iter()
        .zip(used_after)
        .map(|(u, &after)| after || read_by_body.contains(&u.slot))
        .collect();
    loop {
        let read: Vec<u32> = p.slots_read(
            uniforms
                .iter()
                .zip(&live)
                .filter(|(_, l)| **l)
                .flat_map(|(u, _)| u.next.inputs().collect::<Vec<_>>()),
        );
        let mut changed = false;
        for (u, l) in uniforms.iter().zip(live.iter_mut()) {
            if !*l && read.contains(&u.slot) {
                *l = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    uniforms
        .into_iter()
        .zip(live)
        .filter(|(_, l)| *l)
        .map(|(u, _)| u)
        .collect()
}

/// A region's ops before its terminator, and the terminator (`scf.yield`). A region that
/// yields nothing may leave it out (MLIR prints no empty `scf.yield`): the op stands for it.
/// Whether an op of `ops` or of their regions reads value `v`.
fn reads_value(m: &Module, ops: &[usize], v: usize) -> bool {
    ops.iter().any(|&i| {
        let op = &m.ops[i];
        op.operands.contains(&v) || reads_value(m, &op.body, v)
    })
}

fn split_terminator<'m>(m: &'m Module, op: &'m Op, body: &'m [usize]) -> (&'m [usize], &'m Op) {
    match body.split_last() {
        Some((&last, rest)) if m.ops[last].name == "scf.yield" => (rest, &m.ops[last]),
        _ => (body, op),
    }
}

/// What a terminator from [`split_terminator`] yields (nothing when the op stands for it).
fn yield_operands(terminator: &Op) -> &[usize] {
    if terminator.name == "scf.yield" {
        &terminator.operands
    } else {
        &[]
    }
}

/// Whether a loop whose iteration runs `ops` needs a barrier at its top (its first LDS reads
/// see the previous iteration's, and the code before's, writes) and at its end (its first
/// writes wait for the previous iteration's last reads).
fn loop_edge_fences<'o>(
    p: &Program,
    ops: impl DoubleEndedIterator<Item = &'o ProgramOp> + Clone,
) -> (bool, bool) {
    let all = (0, u64::MAX);
    // Some(true): the op reads LDS; Some(false): it only writes; None: neither.
    let kind = |op: &ProgramOp| -> Option<bool> {
        if p.touches(op, true, all) {
            Some(true)
        } else if p.touches(op, false, all) {
            Some(false)
        } else {
            None
        }
    };
    let until_barrier = |ops: &mut dyn Iterator<Item = &ProgramOp>| {
        ops.take_while(|o| !matches!(o, ProgramOp::Barrier | ProgramOp::WorkgroupBarrier))
            .find_map(kind)
    };
    let first = until_barrier(&mut ops.clone());
    let last = until_barrier(&mut ops.clone().rev());
    let writes = ops.clone().any(|o| p.touches(o, false, all));
    let reads_first = first == Some(true) && writes;
    let writes_after_last_read = last == Some(true) && first == Some(false);
    (reads_first, writes_after_last_read)
}

/// An `scf.for`'s initial values and iteration arguments (its block arguments after the
/// induction variable), which must agree in number with each other and its results.
fn for_arguments(op: &Op) -> Result<(&[usize], &[usize]), LowerError> {
    let inits = op.operands.get(3..).unwrap_or(&[]);
    let args = op.block_args.get(1..).unwrap_or(&[]);
    if inits.len() != args.len() || op.results.len() != args.len() {
        return fail(
            op,
            "iteration arguments, initial values and results disagree in number",
        );
    }
    Ok((inits, args))
}
