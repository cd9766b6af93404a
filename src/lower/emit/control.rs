//! Control flow in LLVM IR: counted loops (rotated: a guard, the body with its phis at the top
//! and the test at the bottom, phis at the exit), while loops (rotated the same way, their first
//! part copied into the guard and the body's end; a header with the phis, the first part and
//! the test where that part is long), branches (selects where both arms are a couple of cheap
//! operations, run both ways) and predicated regions (a branch each thread takes on its own
//! bit).
//! What the emitter computed inside a region is forgotten when it leaves: it does not dominate
//! the code after. What depends on the thread id alone (thread parts of addresses, thread-bit
//! conditions) is computed at the top of the kernel and seen everywhere.

use std::collections::{HashMap, HashSet};

use super::{Emitter, lit};
use crate::lower::error::LowerError;
use crate::lower::ir::{ArithOp, BranchCondition, Uniform};
use crate::lower::ir::{CarriedUniform, CarriedValue, Op, Value, walk};
use crate::target::Target;

/// The largest first part of a `while` loop copied to rotate it: LLVM's loop rotation's
/// default bound on the header it duplicates (`-rotation-max-header-size`, 16 instructions),
/// counted in operations here.
const ROTATED_FIRST_PART_OPS: usize = 16;

/// The most operations unrolling may add (the trips' copies beyond the one a rolled loop
/// holds anyway): LLVM's full-unrolling threshold at `-O3` (300 instructions, which AMDGPU
/// keeps), counted in operations here — an approximation of LLVM's rule, which compares the
/// whole unrolled size but raises its bound up to fourfold where unrolling lets constants
/// fold (as a short loop's first trip on a zero accumulator does).
const UNROLL_ADDED_OPS: usize = 300;

/// The counter's value in each trip of a loop from `start` while below `end` by `step`, and
/// after the last — where all three are constants and the loop is worth unrolling: its body
/// names nothing that outlives a trip (a uniform read, a buffer bound; inner loops are
/// copied with it), and unrolling adds at most [`UNROLL_ADDED_OPS`] operations.
fn unrolled_trips((start, end, step): (&Uniform, &Uniform, &Uniform), body: &[Op]) -> Option<Vec<i64>> {
    let (start, end, step) = (start.as_constant()?, end.as_constant()?, step.as_constant()?);
    if step <= 0 || !copyable(body) {
        return None;
    }
    let span = end.checked_sub(start)?.max(0);
    let trips = span.checked_add(step - 1)? / step;
    // Each trip costs its operations and its counter (an empty body is not free to copy).
    let per_trip = i64::try_from(walk(body).count()).ok()? + 1;
    if (trips - 1).max(0).checked_mul(per_trip)? > UNROLL_ADDED_OPS as i64 {
        return None;
    }
    // The counter is an `i32`: a count past its range is the rolled loop's to wrap.
    (0..=trips)
        .map(|t| {
            let count = t.checked_mul(step)?.checked_add(start)?;
            i32::try_from(count).is_ok().then_some(count)
        })
        .collect()
}

/// Whether a region can be written more than once: it names nothing that outlives it (a
/// uniform read, a buffer bound) — what it defines, its loops' slots too, is renamed in each
/// copy ([`Names`](super::Names)).
fn copyable(ops: &[Op]) -> bool {
    walk(ops).all(|op| !matches!(op, Op::ReadUniform { .. } | Op::BindBuffer { .. }))
}

/// Whether a branch's arm is cheap enough to run whatever the test says: at most two
/// operations, each one instruction that cannot trap (no division: a zero divisor would be
/// undefined where the arm was not taken).
fn speculated(arm: &[Op]) -> bool {
    arm.len() <= 2
        && arm.iter().all(|op| match op {
            Op::Arith { op, .. } => matches!(
                op,
                ArithOp::Add
                    | ArithOp::Sub
                    | ArithOp::Mul
                    | ArithOp::And
                    | ArithOp::Or
                    | ArithOp::Xor
                    | ArithOp::Shl
                    | ArithOp::ShrS
                    | ArithOp::ShrU
                    | ArithOp::Max
                    | ArithOp::Min
                    | ArithOp::MaxU
                    | ArithOp::MinU
                    | ArithOp::Neg
                    | ArithOp::Abs
            ),
            Op::Compare { .. } | Op::Select { .. } | Op::Constant { .. } => true,
            _ => false,
        })
}

/// Uniform slots or values (by number) and the operands they read as in a copy of a region.
type Renames = Vec<(u32, String)>;

/// A loop being written ([`Emitter::open_loop`]): the text before it, the scope it opened,
/// the slots and phi values it carries, and where its first block's phis go.
struct LoopFrame {
    outer: String,
    scope: Scope,
    slots: Vec<u32>,
    phis: Vec<u32>,
    phi_at: usize,
}

/// What one copy of a `while` loop's first part leaves: its test, the sources of what the
/// loop leaves, and the values the body reads from it.
struct FirstPart {
    test: String,
    left: Vec<String>,
    kept: Vec<String>,
}

/// What the emitter knows that holds only inside a region (a loop body, a branch).
pub(super) struct Scope {
    products: HashMap<(String, String), String>,
    masked: HashMap<(String, String), String>,
    defined: Vec<bool>,
}

impl Emitter<'_> {
    pub(super) fn label(&mut self, what: &str) -> String {
        self.labels += 1;
        format!("{what}.{}", self.labels)
    }

    /// Starts block `name` (the previous one must have ended with a branch).
    pub(super) fn start_block(&mut self, name: &str) {
        self.body.push_str(&format!("{name}:\n"));
        self.block = name.to_string();
    }

    pub(super) fn enter(&mut self) -> Scope {
        self.depth += 1;
        Scope {
            products: self.products.clone(),
            masked: self.masked.clone(),
            defined: self.defined.clone(),
        }
    }

    /// Leaves a region: what was computed inside is not seen outside.
    pub(super) fn leave(&mut self, scope: Scope) {
        self.depth = self.depth.saturating_sub(1);
        self.products = scope.products;
        self.masked = scope.masked;
        self.defined = scope.defined;
    }

    /// A loop in the form LLVM optimises best (rotated): a guard, the body with its phis at the
    /// top and the test at the bottom, and phis at the exit for what the loop leaves (from the
    /// body's last block, or from a block of its own on the edge that skips the loop).
    ///
    /// A loop of a few constant trips is unrolled, as LLVM's full unrolling leaves it
    /// ([`unrolled_trips`]): the body once per trip, the counter a constant in each, what one
    /// trip yields the operands of the next — no phis, no test, and the first trip reads the
    /// initial values themselves (a zero accumulator is a matrix instruction's inline 0).
    pub(super) fn emit_loop(
        &mut self,
        (counter, start, end, step): (u32, &Uniform, &Uniform, &Uniform),
        uniforms: &[CarriedUniform],
        values: &[CarriedValue],
        body: &[Op],
        target: &Target,
    ) -> Result<(), LowerError> {
        if let Some(trips) = unrolled_trips((start, end, step), body) {
            return self.emit_unrolled(counter, trips, (uniforms, values), body, target);
        }
        let start = self.uniform(start)?;
        let end = self.uniform(end)?;
        let step = self.uniform(step)?;
        self.define_slot(counter);
        for u in uniforms {
            self.define_slot(u.slot);
        }
        let counter_name = self.slot_name(counter);
        let (inits, value_inits) = self.carried_operands((uniforms, values), false)?;
        let (entry, exit, skip) = (self.label("loop"), self.label("done"), self.label("skip"));
        let pre = self.block.clone();
        let guard = self.tmp();
        self.line(&format!("{guard} = icmp slt i32 {start}, {end}"));
        // A loop is expected to run (`!2`: the guard's weights): the edge that skips it is a
        // cold block of its own, where the exit phis' copies of the initial values (64 zeroed
        // accumulators) are made — not before the guard, on the loop's path, which makes the
        // loop's own copies too.
        self.line(&format!("br i1 {guard}, label %{entry}, label %{skip}, !prof !2"));
        self.start_block(&skip);
        self.line(&format!("br label %{exit}"));
        let slots = std::iter::once(counter).chain(uniforms.iter().map(|u| u.slot));
        let frame = self.open_loop(slots.collect(), values, &entry)?;
        self.ops(body, target)?;
        let (nexts, value_nexts) = self.carried_operands((uniforms, values), true)?;
        let (c, again) = (self.tmp(), self.tmp());
        self.line(&format!("{c} = add i32 {counter_name}.in, {step}"));
        self.line(&format!("{again} = icmp slt i32 {c}, {end}"));
        let latch = self.block.clone();
        self.line(&format!("br i1 {again}, label %{entry}, label %{exit}"));
        // The phis open the body.
        let mut phis = format!("  {counter_name}.in = phi i32 [ {start}, %{pre} ], [ {c}, %{latch} ]\n");
        phis.push_str(&self.carried_phis(
            (uniforms, values),
            ((&inits, &value_inits), &pre),
            ((&nexts, &value_nexts), &latch),
        ));
        self.close_loop(frame, &phis);
        self.start_block(&exit);
        self.line(&format!(
            "{counter_name} = phi i32 [ {start}, %{skip} ], [ {c}, %{latch} ]"
        ));
        for ((u, init), next) in uniforms.iter().zip(&inits).zip(&nexts) {
            self.line(&format!(
                "{} = phi i32 [ {init}, %{skip} ], [ {next}, %{latch} ]",
                self.slot_name(u.slot)
            ));
        }
        for ((v, init), next) in values.iter().zip(&value_inits).zip(&value_nexts) {
            let w = self.p.value_bits(v.phi);
            let d = self.define(v.phi)?;
            self.line(&format!(
                "{d} = phi i{w} [ {init}, %{skip} ], [ {next}, %{latch} ]"
            ));
        }
        Ok(())
    }

    /// A loop unrolled: `trips` lists the counter's value in each trip and after the last.
    fn emit_unrolled(
        &mut self,
        counter: u32,
        trips: Vec<i64>,
        (uniforms, values): (&[CarriedUniform], &[CarriedValue]),
        body: &[Op],
        target: &Target,
    ) -> Result<(), LowerError> {
        let (mut slot_operands, mut value_operands) = self.carried_operands((uniforms, values), false)?;
        let Some((&after_last, counts)) = trips.split_last() else {
            return Err(LowerError::new("an unrolled loop without its final count"));
        };
        for (trip, &count) in counts.iter().enumerate() {
            let slots = std::iter::once((counter, lit(count as u64)))
                .chain(uniforms.iter().map(|u| u.slot).zip(slot_operands))
                .collect();
            let carried = values.iter().map(|v| v.phi.0).zip(value_operands).collect();
            (slot_operands, value_operands) = self.in_copy(&format!(".u{trip}"), (slots, carried), |e| {
                e.ops(body, target)?;
                e.carried_operands((uniforms, values), true)
            })?;
        }
        // What the loop leaves, under the names the code after it reads.
        self.define_slot(counter);
        let counter_name = self.slot_name(counter);
        self.line(&format!("{counter_name} = add i32 {}, 0", lit(after_last as u64)));
        for (u, operand) in uniforms.iter().zip(&slot_operands) {
            self.define_slot(u.slot);
            let name = self.slot_name(u.slot);
            self.line(&format!("{name} = add i32 {operand}, 0"));
        }
        for (v, operand) in values.iter().zip(&value_operands) {
            let w = self.p.value_bits(v.phi);
            let d = self.define(v.phi)?;
            self.line(&format!("{d} = bitcast i{w} {operand} to i{w}"));
        }
        Ok(())
    }

    /// A `while` loop, rotated as LLVM's own loop rotation leaves one: the first part and its
    /// test run once in a guard on the initial values, the body's phis take what the first
    /// part left (from the guard or from the body's last block), and the body ends with a
    /// second copy of the first part on the values it yields, branching back or to the exit.
    /// Each iteration runs the first part once, as the loop says; what changes is that the
    /// test sits at the bottom, so the carried registers flow round the loop with no copies.
    ///
    /// ```text
    ///   guard:  first part (initial values); br test, body, exit
    ///   body:   phis (carried values, what the first part left); after; first part (next
    ///           values); br test, body, exit
    ///   exit:   phis (what the loop leaves: from the guard or from the body)
    /// ```
    ///
    /// A loop that carries nothing (a spin on its test: only the branch back would be saved),
    /// a first part of more than [`ROTATED_FIRST_PART_OPS`] operations (its second copy would
    /// add more code than the copies it saves), or one that names what outlives it (a uniform
    /// read, a buffer bound), is not copied: the loop is a header running the first part, the
    /// body branching back to it ([`emit_header_while`](Self::emit_header_while)).
    pub(super) fn emit_while(
        &mut self,
        carried: (&[CarriedUniform], &[CarriedValue]),
        (before, cond, after): (&[Op], &BranchCondition, &[Op]),
        results: &[[Value; 2]],
        target: &Target,
    ) -> Result<(), LowerError> {
        let carries = !carried.0.is_empty() || !carried.1.is_empty();
        if !carries || walk(before).count() > ROTATED_FIRST_PART_OPS || !copyable(before) {
            return self.emit_header_while(carried, (before, cond, after), results, target);
        }
        let (uniforms, values) = carried;
        let (inits, value_inits) = self.carried_operands((uniforms, values), false)?;
        // What the first part defines that the body reads: a phi each at the body's top.
        let first_defs: HashSet<u32> = before.iter().flat_map(Op::defined).map(|v| v.0).collect();
        let mut kept: Vec<Value> = walk(after)
            .flat_map(Op::operands)
            .chain(values.iter().map(|v| v.next))
            .filter(|v| first_defs.contains(&v.0))
            .collect();
        kept.sort_by_key(|v| v.0);
        kept.dedup();
        for u in uniforms {
            self.define_slot(u.slot);
        }
        let (body, exit) = (self.label("do"), self.label("done"));
        let guard_part = self.first_part_copy(
            ".g",
            carried,
            (&inits, &value_inits),
            (before, cond, results),
            &kept,
            target,
        )?;
        let guard = self.block.clone();
        self.line(&format!(
            "br i1 {}, label %{body}, label %{exit}, !prof !2",
            guard_part.test
        ));
        let frame = self.open_loop(uniforms.iter().map(|u| u.slot).collect(), values, &body)?;
        for &v in &kept {
            self.define(v)?;
        }
        self.ops(after, target)?;
        let (nexts, value_nexts) = self.carried_operands((uniforms, values), true)?;
        let bottom_part = self.first_part_copy(
            ".b",
            carried,
            (&nexts, &value_nexts),
            (before, cond, results),
            &kept,
            target,
        )?;
        let latch = self.block.clone();
        self.line(&format!(
            "br i1 {}, label %{body}, label %{exit}",
            bottom_part.test
        ));
        let mut phis = self.carried_phis(
            (uniforms, values),
            ((&inits, &value_inits), &guard),
            ((&nexts, &value_nexts), &latch),
        );
        for ((&v, first), second) in kept.iter().zip(&guard_part.kept).zip(&bottom_part.kept) {
            let (name, w) = (self.value_name(v), self.p.value_bits(v));
            phis.push_str(&format!(
                "  {name} = phi i{w} [ {first}, %{guard} ], [ {second}, %{latch} ]\n"
            ));
        }
        self.close_loop(frame, &phis);
        self.start_block(&exit);
        for ((u, init), next) in uniforms.iter().zip(&inits).zip(&nexts) {
            self.line(&format!(
                "{} = phi i32 [ {init}, %{guard} ], [ {next}, %{latch} ]",
                self.slot_name(u.slot)
            ));
        }
        for (([dst, _], first), second) in results.iter().zip(&guard_part.left).zip(&bottom_part.left) {
            let w = self.p.value_bits(*dst);
            let d = self.define(*dst)?;
            self.line(&format!(
                "{d} = phi i{w} [ {first}, %{guard} ], [ {second}, %{latch} ]"
            ));
        }
        Ok(())
    }

    /// One copy of a `while` loop's first part and its test, on the carried uniforms' and
    /// values' operands `names` (the initial values in the guard, the next ones at the body's
    /// end).
    fn first_part_copy(
        &mut self,
        suffix: &str,
        (uniforms, values): (&[CarriedUniform], &[CarriedValue]),
        (uniform_names, value_names): (&[String], &[String]),
        (before, cond, results): (&[Op], &BranchCondition, &[[Value; 2]]),
        kept: &[Value],
        target: &Target,
    ) -> Result<FirstPart, LowerError> {
        let slots = uniforms.iter().map(|u| u.slot).zip(uniform_names.iter().cloned());
        let carried = values.iter().map(|v| v.phi.0).zip(value_names.iter().cloned());
        self.in_copy(suffix, (slots.collect(), carried.collect()), |e| {
            e.ops(before, target)?;
            Ok(FirstPart {
                test: e.branch_test(cond)?,
                left: results.iter().map(|r| e.val(r[1])).collect::<Result<_, _>>()?,
                kept: kept.iter().map(|&v| e.val(v)).collect::<Result<_, _>>()?,
            })
        })
    }

    /// Opens a loop's first block `block`: what the loop computes is scoped to it, its carried
    /// values and uniform `slots` read as the phis (`%vN.in`, `%uK.in`) that
    /// [`close_loop`](Self::close_loop) puts at the block's top, and its text is written apart
    /// until then.
    fn open_loop(
        &mut self,
        slots: Vec<u32>,
        values: &[CarriedValue],
        block: &str,
    ) -> Result<LoopFrame, LowerError> {
        let outer = std::mem::take(&mut self.body);
        let scope = self.enter();
        for v in values {
            self.define(v.phi)?;
            self.inside.insert(v.phi.0);
        }
        self.inside_slots.extend(slots.iter().copied());
        self.start_block(block);
        Ok(LoopFrame {
            outer,
            scope,
            slots,
            phis: values.iter().map(|v| v.phi.0).collect(),
            phi_at: self.body.len(),
        })
    }

    /// Closes the loop `frame` opened: `phis` open its first block, its text follows what
    /// came before it, and what it computed and carried is no longer seen.
    fn close_loop(&mut self, frame: LoopFrame, phis: &str) {
        self.body.insert_str(frame.phi_at, phis);
        let loop_text = std::mem::replace(&mut self.body, frame.outer);
        self.body.push_str(&loop_text);
        self.leave(frame.scope);
        for id in frame.phis {
            self.inside.remove(&id);
        }
        for k in frame.slots {
            self.inside_slots.remove(&k);
        }
    }

    /// The operands of what a loop carries, its uniform slots' and its values': their initial
    /// values, or (`next`) what an iteration leaves them.
    fn carried_operands(
        &mut self,
        (uniforms, values): (&[CarriedUniform], &[CarriedValue]),
        next: bool,
    ) -> Result<(Vec<String>, Vec<String>), LowerError> {
        let slots = uniforms
            .iter()
            .map(|u| self.uniform(if next { &u.next } else { &u.init }))
            .collect::<Result<_, _>>()?;
        let carried = values
            .iter()
            .map(|v| self.val(if next { v.next } else { v.init }))
            .collect::<Result<_, _>>()?;
        Ok((slots, carried))
    }

    /// The phis opening a loop's body (`%uK.in`, `%vN.in`): each carried slot and value from
    /// the block entering the loop or from the one branching back, with their operands there.
    fn carried_phis(
        &self,
        (uniforms, values): (&[CarriedUniform], &[CarriedValue]),
        ((slots_in, values_in), entry): ((&[String], &[String]), &str),
        ((slots_back, values_back), latch): ((&[String], &[String]), &str),
    ) -> String {
        let slot_phis = uniforms
            .iter()
            .zip(slots_in)
            .zip(slots_back)
            .map(|((u, first), second)| {
                format!(
                    "  {}.in = phi i32 [ {first}, %{entry} ], [ {second}, %{latch} ]\n",
                    self.slot_name(u.slot)
                )
            });
        let value_phis = values
            .iter()
            .zip(values_in)
            .zip(values_back)
            .map(|((v, first), second)| {
                format!(
                    "  {}.in = phi i{} [ {first}, %{entry} ], [ {second}, %{latch} ]\n",
                    self.value_name(v.phi),
                    self.p.value_bits(v.phi)
                )
            });
        slot_phis.chain(value_phis).collect()
    }

    /// Runs `write` on a copy of a region (a `while` loop's first part, an unrolled loop's
    /// trip): what the copy defines is named with `suffix`, so the copies do not clash, and
    /// the uniform slots and values listed read as the names given.
    fn in_copy<T>(
        &mut self,
        suffix: &str,
        (slots, values): (Renames, Renames),
        write: impl FnOnce(&mut Self) -> Result<T, LowerError>,
    ) -> Result<T, LowerError> {
        let saved = self.names.clone();
        let suffix = format!("{}{suffix}", self.names.suffix.as_deref().unwrap_or(""));
        self.names.suffix = Some(suffix);
        self.names.slot_operands.extend(slots);
        self.names.value_operands.extend(values);
        let written = write(self);
        self.names = saved;
        written
    }

    /// A `while` loop as a header whose phis open it, running `before` and branching on the
    /// test to the body (`after`, which branches back to the header) or to the exit, whose
    /// phis are what the loop leaves. The header is the exit's only predecessor, so what
    /// `before` computed reaches the exit as it left the header.
    fn emit_header_while(
        &mut self,
        (uniforms, values): (&[CarriedUniform], &[CarriedValue]),
        (before, cond, after): (&[Op], &BranchCondition, &[Op]),
        results: &[[Value; 2]],
        target: &Target,
    ) -> Result<(), LowerError> {
        let (inits, value_inits) = self.carried_operands((uniforms, values), false)?;
        for u in uniforms {
            self.define_slot(u.slot);
        }
        let (header, body, exit) = (self.label("while"), self.label("do"), self.label("done"));
        let pre = self.block.clone();
        self.line(&format!("br label %{header}"));
        let frame = self.open_loop(uniforms.iter().map(|u| u.slot).collect(), values, &header)?;
        self.ops(before, target)?;
        let test = self.branch_test(cond)?;
        let left: Vec<String> = results.iter().map(|r| self.val(r[1])).collect::<Result<_, _>>()?;
        let tested = self.block.clone();
        self.line(&format!("br i1 {test}, label %{body}, label %{exit}"));
        self.start_block(&body);
        self.ops(after, target)?;
        let (nexts, value_nexts) = self.carried_operands((uniforms, values), true)?;
        let latch = self.block.clone();
        self.line(&format!("br label %{header}"));
        let phis = self.carried_phis(
            (uniforms, values),
            ((&inits, &value_inits), &pre),
            ((&nexts, &value_nexts), &latch),
        );
        self.close_loop(frame, &phis);
        self.start_block(&exit);
        for u in uniforms {
            let name = self.slot_name(u.slot);
            self.line(&format!("{name} = phi i32 [ {name}.in, %{tested} ]"));
        }
        for ([dst, _], src) in results.iter().zip(&left) {
            let w = self.p.value_bits(*dst);
            let d = self.define(*dst)?;
            self.line(&format!("{d} = phi i{w} [ {src}, %{tested} ]"));
        }
        Ok(())
    }

    /// Selects where both arms are cheap enough to run both ([`speculated`]); else two blocks
    /// and phis at the join.
    /// The `i1` a branch tests: a condition of uniforms, or one bit every thread agrees on,
    /// made a scalar so that the branch is uniform: the wave's ballot of it is zero or not
    /// (LLVM branches on the compare's lane mask itself, `s_cbranch_vccz`, where moving the
    /// bit to a scalar register costs a select, a `readfirstlane` and a compare); a bit each
    /// thread tests for itself is the lane's own (LLVM masks the lanes that part ways).
    fn branch_test(&mut self, cond: &BranchCondition) -> Result<String, LowerError> {
        match cond {
            BranchCondition::Uniform(c) => self.condition_of(c),
            BranchCondition::PerThread(v) => self.val(*v),
            BranchCondition::Value(v) => {
                let bit = self.val(*v)?;
                let (ballot, test) = (self.tmp(), self.tmp());
                let mask = format!("i{}", self.p.wave_size);
                self.decls
                    .insert(format!("declare {mask} @llvm.amdgcn.ballot.{mask}(i1)"));
                self.line(&format!(
                    "{ballot} = call {mask} @llvm.amdgcn.ballot.{mask}(i1 {bit})"
                ));
                self.line(&format!("{test} = icmp ne {mask} {ballot}, 0"));
                Ok(test)
            }
        }
    }

    pub(super) fn emit_if(
        &mut self,
        cond: &BranchCondition,
        then: &[Op],
        otherwise: &[Op],
        results: &[[Value; 3]],
        target: &Target,
    ) -> Result<(), LowerError> {
        let c = self.branch_test(cond)?;
        if speculated(then) && speculated(otherwise) {
            // Both arms run (at most two cheap operations each, as LLVM's `simplifycfg`
            // speculates them) and the results are picked: no branch.
            self.ops(then, target)?;
            self.ops(otherwise, target)?;
            for [dst, a, b] in results {
                let w = self.p.value_bits(*dst);
                let (a, b) = (self.val(*a)?, self.val(*b)?);
                let d = self.define(*dst)?;
                self.line(&format!("{d} = select i1 {c}, i{w} {a}, i{w} {b}"));
            }
            return Ok(());
        }
        let (yes, no, join) = (self.label("then"), self.label("else"), self.label("join"));
        self.line(&format!("br i1 {c}, label %{yes}, label %{no}"));
        let mut arms = Vec::new();
        for (label, ops, pick) in [(&yes, then, 1), (&no, otherwise, 2)] {
            let scope = self.enter();
            self.start_block(label);
            self.ops(ops, target)?;
            let names: Vec<String> = results
                .iter()
                .map(|r| self.val(r[pick]))
                .collect::<Result<_, _>>()?;
            arms.push((self.block.clone(), names));
            self.line(&format!("br label %{join}"));
            self.leave(scope);
        }
        self.start_block(&join);
        for (i, [dst, ..]) in results.iter().enumerate() {
            let w = self.p.value_bits(*dst);
            let d = self.define(*dst)?;
            self.line(&format!(
                "{d} = phi i{w} [ {}, %{} ], [ {}, %{} ]",
                arms[0].1[i], arms[0].0, arms[1].1[i], arms[1].0
            ));
        }
        Ok(())
    }

    /// The conditions every thread of the enclosing predicated region passes: its predicate
    /// and that predicate's conjuncts (none outside a region).
    pub(super) fn acting_conjuncts(&mut self) -> Result<Vec<String>, LowerError> {
        let Some(acting) = self.acting else {
            return Ok(Vec::new());
        };
        let all = self.val(acting)?;
        let mut held = vec![all.clone()];
        self.push_conjuncts(all, &mut held);
        Ok(held)
    }

    /// Whether every thread of the enclosing predicated region passes `predicate`.
    pub(super) fn acting_implies(&mut self, predicate: Value) -> Result<bool, LowerError> {
        let p = self.val(predicate)?;
        Ok(self.acting_conjuncts()?.contains(&p))
    }

    /// Ops that act where `predicate` holds: a branch around them (a divergent one — LLVM
    /// masks the wave's lanes and skips the block where none acts), inside which accesses
    /// masked by that predicate need no mask of their own.
    pub(super) fn emit_predicated(
        &mut self,
        predicate: Value,
        ops: &[Op],
        target: &Target,
    ) -> Result<(), LowerError> {
        let test = self.val(predicate)?;
        let (acting, done) = (self.label("acting"), self.label("acted"));
        self.line(&format!("br i1 {test}, label %{acting}, label %{done}"));
        let scope = self.enter();
        self.start_block(&acting);
        let outer = self.acting.replace(predicate);
        let result = self.ops(ops, target);
        self.acting = outer;
        result?;
        self.line(&format!("br label %{done}"));
        self.leave(scope);
        self.start_block(&done);
        Ok(())
    }
}
