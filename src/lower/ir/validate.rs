//! What makes a [`Program`] well formed: the checks every back end relies on before it emits or
//! runs one, and the uniform inputs each op reads (which the checks and loop-slot pruning share).

use super::atomic::{AtomicKind, AtomicPath};
use super::numeric;
use super::program::{BranchCondition, Buffer, Op, Program, Scalar, Value, walk};
use super::uniform::{Condition, Extent, UniformInput};
use crate::lower::error::LowerError;
use crate::target::mma::element_bits;

impl Program {
    /// Checks that the program is well formed: a power-of-two wave size dividing the thread
    /// count, every value used exists and is 1 to 64 bits wide, no vector is empty, every buffer
    /// index exists. [`run`](crate::lower::run) and [`emit_llvm`](crate::lower::emit_llvm) refuse other
    /// programs.
    ///
    /// ```
    /// use linear_layout::lower::{Op, Program, Value};
    /// let mut p = Program::new("k", 64, 64);
    /// p.ops.push(Op::LdsWrite { src: vec![Value(0)], address: linear_layout::lower::XorMap::constant(0, 6) });
    /// assert!(p.validate().is_err()); // value 0 does not exist
    /// ```
    pub fn validate(&self) -> Result<(), LowerError> {
        let bad = |m: &str| Err(LowerError::new(m.to_string()));
        if !self.wave_size.is_power_of_two()
            || self.threads == 0
            || !self.threads.is_multiple_of(self.wave_size)
            || self.threads > 1024
        {
            return bad("the workgroup needs a power-of-two wave size dividing at most 1024 threads");
        }
        if self.values.iter().any(|&b| b == 0 || b > 64) {
            return bad("values are 1 to 64 bits wide");
        }
        let params = self.buffers.iter().filter(|b| b.is_argument()).count() + self.scalars.len();
        let mut taken = vec![false; params];
        for s in &self.scalars {
            if !Scalar::TYPES.contains(&s.ty) {
                return bad("scalar arguments are i1, i8, i16, i32, i64, f16, bf16, f32 or f64");
            }
            match taken.get_mut(s.position) {
                Some(t) if !*t => *t = true,
                _ => return bad("two scalar arguments share a position, or one lies past the argument list"),
            }
        }
        // A derived uniform reads only those before it: evaluating one ends.
        for (k, d) in self.derived.iter().enumerate() {
            if d.inputs()
                .iter()
                .any(|x| matches!(x, UniformInput::Derived(j) if *j as usize >= k))
            {
                return bad("a derived uniform reads itself or one after it");
            }
        }
        let exists = |v: &Value| (v.0 as usize) < self.values.len();
        for op in self.walk() {
            let buffer = match op {
                Op::GlobalLoad { buffer, .. }
                | Op::GlobalStore { buffer, .. }
                | Op::GlobalAtomic { buffer, .. }
                | Op::GlobalLoadToLds { buffer, .. } => Some(*buffer),
                _ => None,
            };
            let mut used = op.operands();
            used.extend(op.defined());
            match op {
                Op::ReadUniform { src, .. } if self.value_bits(*src) != 32 => {
                    return bad("a uniform is read from a 32-bit value");
                }
                Op::BufferAddress { dst, buffer } => {
                    if !self.buffers.get(*buffer).is_some_and(Buffer::is_argument) {
                        return bad("an address is taken of an argument buffer");
                    }
                    if self.value_bits(*dst) != 64 {
                        return bad("a buffer's address is 64 bits");
                    }
                }
                Op::BindBuffer { buffer } => match self.buffers.get(*buffer).and_then(|b| b.address) {
                    Some(address) if self.value_bits(address) == 64 => used.push(address),
                    _ => return bad("a bound buffer has a 64-bit address"),
                },
                Op::LdsWindow { ops, .. }
                    if walk(ops).any(|o| matches!(o, Op::GlobalLoadToLds { .. } | Op::WaitDirectLoads)) =>
                {
                    return bad("direct-to-LDS loads stay outside an LDS window");
                }
                Op::Predicated { predicate, ops } => self.check_predicated(*predicate, ops)?,
                _ => {}
            }
            if !used.iter().all(exists) {
                return bad("an operation uses a value the program does not have");
            }
            let empty = match op {
                Op::GlobalLoad { dst, .. }
                | Op::GlobalStore { src: dst, .. }
                | Op::LdsWrite { src: dst, .. } => dst.is_empty(),
                Op::LdsRead { dst, .. } | Op::LdsReadTransposed { dst, .. } | Op::Unpack { dst, .. } => {
                    dst.is_empty()
                }
                Op::Pack { parts, .. } => parts.is_empty(),
                Op::GlobalLoadToLds { elements, .. } => *elements == 0,
                _ => false,
            };
            if empty {
                return bad("an operation moves no value");
            }
            if buffer.is_some_and(|b| b >= self.buffers.len()) {
                return bad("an operation names a buffer the program does not have");
            }
            if let Op::GlobalLoad { offset, .. }
            | Op::GlobalStore { offset, .. }
            | Op::GlobalAtomic { offset, .. }
            | Op::GlobalLoadToLds { offset, .. } = op
                && offset
                    .strides
                    .iter()
                    .chain(offset.bounds.iter().flatten())
                    .any(|s| matches!(s, Extent::Scalar { index, .. } if *index >= self.scalars.len()))
            {
                return bad("a stride or bound names a scalar argument the program does not have");
            }
            if let Op::GlobalLoadToLds { buffer, elements, .. } = op
                && u64::from(*elements) * u64::from(self.buffers[*buffer].element_bits) > 128
            {
                return bad("a direct-to-LDS load moves at most 128 bits per lane");
            }
            if let Op::GlobalLoad { offset, .. }
            | Op::GlobalStore { offset, .. }
            | Op::GlobalAtomic { offset, .. }
            | Op::GlobalLoadToLds { offset, .. } = op
                && (offset.index.is_some_and(|v| self.value_bits(v) != 32)
                    || offset.held.is_some_and(|v| self.value_bits(v) != 32)
                    || offset
                        .held_row
                        .as_ref()
                        .is_some_and(|h| self.value_bits(h.value) != 32)
                    || offset.predicate.is_some_and(|v| self.value_bits(v) != 1))
            {
                return bad(
                    "an access's data index and held offset are 32 bits wide and its predicate 1 bit",
                );
            }
            if let Op::GlobalLoad { offset, .. }
            | Op::GlobalStore { offset, .. }
            | Op::GlobalAtomic { offset, .. }
            | Op::GlobalLoadToLds { offset, .. } = op
                && let Some(h) = &offset.held_row
                && (offset.bounds.get(h.dim) != Some(&None) || offset.held.is_some())
            {
                return bad(
                    "a held row names a dimension the offset lacks or bounds, or an offset held whole",
                );
            }
            if let Op::GlobalLoadToLds { offset, .. } = op
                && !offset.symbolic()
            {
                return bad("a direct-to-LDS load takes no data index or predicate");
            }
            if let Op::Mma { .. }
            | Op::Convert { .. }
            | Op::Arith { .. }
            | Op::Compare { .. }
            | Op::Select { .. }
            | Op::ThreadMap { .. } = op
            {
                self.check_numeric(op)?;
            }
            if let Op::PermlaneSwap { kind, .. } = op
                && self.wave_size < 2 << kind.lane_bit()
            {
                return bad("a permlane swap exchanges halves of a wider wave");
            }
            if let Op::LdsAtomicAdd { src, address, region } = op
                && (self.value_bits(*address) != 32
                    || self.value_bits(*src) != 32
                    || region.0 >= region.1
                    || region.1 > self.lds_bytes)
            {
                return bad(
                    "an LDS atomic add takes a 32-bit address into a region of the program's LDS and a 32-bit addend",
                );
            }
            if let Op::LdsReadIndexed { dst, address, region } = op
                && (self.value_bits(*address) != 32
                    || !self.value_bits(*dst).is_multiple_of(8)
                    || region.0 >= region.1
                    || region.1 > self.lds_bytes)
            {
                return bad("an indexed LDS read takes a 32-bit address into a region of the program's LDS");
            }
            let widths_agree = |vals: &[Value]| {
                vals.iter()
                    .all(|&v| self.value_bits(v) == self.value_bits(vals[0]))
            };
            let control = match op {
                Op::Loop { step, values, .. } => {
                    step.as_constant().is_none_or(|s| s > 0)
                        && values.iter().all(|c| widths_agree(&[c.phi, c.init, c.next]))
                }
                Op::If { cond, results, .. } => {
                    results.iter().all(|r| widths_agree(r))
                        && cond.value().is_none_or(|v| self.value_bits(v) == 1)
                }
                Op::While {
                    values,
                    cond,
                    results,
                    ..
                } => {
                    values.iter().all(|c| widths_agree(&[c.phi, c.init, c.next]))
                        && results.iter().all(|r| widths_agree(r))
                        && cond.value().is_none_or(|v| self.value_bits(v) == 1)
                }
                _ => true,
            };
            if !control {
                return bad(
                    "a loop steps by a positive count, carries and leaves values of one width and tests one bit; a branch's results agree in width",
                );
            }
            let parted = match op {
                Op::If {
                    cond: BranchCondition::PerThread(_),
                    then,
                    otherwise,
                    ..
                } => Some((true, [then, otherwise])),
                Op::While {
                    cond: BranchCondition::PerThread(_),
                    uniforms,
                    before,
                    after,
                    ..
                } => Some((uniforms.is_empty(), [before, after])),
                _ => None,
            };
            if let Some((no_uniforms, bodies)) = parted
                && !(no_uniforms && bodies.into_iter().flat_map(|b| walk(b)).all(computed_alone))
            {
                return bad(
                    "under a branch each thread takes for itself, every op is one a thread computes alone and a loop carries no uniform",
                );
            }
            if let Some(x) = self.uniform_inputs(op).into_iter().find(|x| match *x {
                UniformInput::Argument(i) => i >= self.scalars.len(),
                UniformInput::ProgramId(a) | UniformInput::NumPrograms(a) => a > 2,
                UniformInput::Carried(_) => false,
                UniformInput::Derived(k) => k as usize >= self.derived.len(),
            }) {
                return bad(&format!(
                    "an operation reads {x:?}, which the program does not have"
                ));
            }
        }
        Ok(())
    }

    /// The uniform inputs an operation reads (its offset's base and conditions, a loop's bounds,
    /// slots and test, a branch's condition).
    pub(crate) fn uniform_inputs(&self, op: &Op) -> Vec<UniformInput> {
        match op {
            Op::GlobalLoad { offset, .. }
            | Op::GlobalStore { offset, .. }
            | Op::GlobalAtomic { offset, .. }
            | Op::GlobalLoadToLds { offset, .. } => offset
                .base
                .inputs()
                .chain(offset.when.iter().flat_map(Condition::inputs))
                .collect(),
            Op::Loop {
                start,
                end,
                step,
                uniforms,
                ..
            } => start
                .inputs()
                .chain(end.inputs())
                .chain(step.inputs())
                .chain(
                    uniforms
                        .iter()
                        .flat_map(|u| u.init.inputs().chain(u.next.inputs())),
                )
                .collect(),
            Op::If { cond, .. } => cond.inputs(),
            Op::LdsWindow { offset, .. } => offset.inputs().collect(),
            Op::While { uniforms, cond, .. } => uniforms
                .iter()
                .flat_map(|u| u.init.inputs().chain(u.next.inputs()))
                .chain(cond.inputs())
                .collect(),
            Op::UniformValue { value, .. } => value.inputs().collect(),
            _ => Vec::new(),
        }
    }

    /// The loop slots `inputs` read, through derived uniforms too.
    pub(crate) fn slots_read(&self, inputs: impl IntoIterator<Item = UniformInput>) -> Vec<u32> {
        let mut pending: Vec<UniformInput> = inputs.into_iter().collect();
        let mut seen_derived = vec![false; self.derived.len()];
        let mut slots = Vec::new();
        while let Some(x) = pending.pop() {
            match x {
                UniformInput::Carried(k) => slots.push(k),
                UniformInput::Derived(k) => {
                    if let Some(seen) = seen_derived.get_mut(k as usize)
                        && !*seen
                    {
                        *seen = true;
                        pending.extend(self.derived[k as usize].inputs());
                    }
                }
                _ => {}
            }
        }
        slots
    }
    /// A predicated region holds what may run in the threads of its predicate alone: stores
    /// and atomics masked by it (or by a conjunction with it), loads, and arithmetic — no LDS
    /// access, barrier, cross-lane move, uniform read or control flow (they need every thread
    /// of the wave), and what it defines is not used after it.
    fn check_predicated(&self, predicate: Value, ops: &[Op]) -> Result<(), LowerError> {
        let bad = |m: &str| Err(LowerError::new(format!("a predicated region {m}")));
        if self.value_bits(predicate) != 1 {
            return bad("tests a 1-bit predicate");
        }
        let conjunctions = super::Conjunctions::of(self);
        let implies = |p: Option<Value>| p.is_some_and(|p| conjunctions.parts(p).contains(&predicate));
        for op in ops {
            let fits = match op {
                Op::GlobalStore { offset, .. } => implies(offset.predicate),
                Op::GlobalAtomic {
                    offset, neighbour, ..
                } => implies(offset.predicate) && neighbour.as_ref().is_none_or(|n| implies(n.predicate)),
                other => other.runs_alone(),
            };
            if !fits {
                return bad("holds only loads, arithmetic, and stores and atomics its predicate masks");
            }
        }
        let inside: std::collections::HashSet<Value> = ops.iter().flat_map(Op::defined).collect();
        if walk(&self.ops).any(|op| {
            !matches!(op, Op::Predicated { .. })
                && !ops.iter().any(|o| std::ptr::eq(o, op))
                && op.operands().iter().any(|v| inside.contains(v))
        }) {
            return bad("defines a value used after it");
        }
        Ok(())
    }

    /// A matrix instruction's operands have its element counts and widths, a conversion's its
    /// types' widths.
    fn check_numeric(&self, op: &Op) -> Result<(), LowerError> {
        let widths = |vals: &[Value], bits: u32| vals.iter().all(|&v| self.value_bits(v) == bits);
        let ok = match op {
            Op::Mma {
                instruction: i,
                dst,
                a,
                b,
                c,
            } => {
                let (ab, acc) = (element_bits(i.ab), element_bits(i.acc));
                let elems = 1usize << i.operand.elements_log2;
                let regs = i.acc_bases(i.wave).0.len();
                i.wave == self.wave_size
                    && a.len() == elems
                    && b.len() == elems
                    && dst.len() == 1 << regs
                    && (c.is_empty() || c.len() == dst.len())
                    && widths(a, ab)
                    && widths(b, ab)
                    && widths(dst, acc)
                    && widths(c, acc)
            }
            Op::Convert { dst, src, from, to } => {
                numeric::bits(from) > 0
                    && numeric::bits(to) > 0
                    && !dst.is_empty()
                    && dst.len() == src.len()
                    && widths(src, numeric::bits(from))
                    && widths(dst, numeric::bits(to))
            }
            Op::GlobalAtomic {
                dst,
                src,
                cmp,
                buffer,
                offset,
                kind,
                ty,
                path,
                neighbour,
                ..
            } => {
                let bits = element_bits(ty);
                // A pair: a 16-bit float add at a global address, both halves of one width.
                let pair = neighbour.as_ref().is_none_or(|n| {
                    *kind == AtomicKind::FAdd
                        && *path == AtomicPath::Global
                        && bits == 16
                        && offset.index.is_none()
                        && widths(&[n.src], bits)
                        && widths(n.dst.as_slice(), bits)
                        && widths(n.predicate.as_slice(), 1)
                        && n.dst.is_some() == dst.is_some()
                });
                kind.applies_to(ty, *path)
                    && self.buffers.get(*buffer).is_some_and(|b| b.element_bits == bits)
                    && widths(&[*src], bits)
                    && widths(dst.as_slice(), bits)
                    && cmp.is_some() == (*kind == AtomicKind::Cas)
                    && widths(cmp.as_slice(), bits)
                    && pair
            }
            Op::Arith { op, ty, dst, src } => {
                let bits = numeric::bits(ty);
                op.applies_to(ty) && src.len() == op.operands() && widths(src, bits) && widths(&[*dst], bits)
            }
            Op::Compare { pred, ty, dst, a, b } => {
                let bits = numeric::bits(ty);
                let float = !ty.starts_with('i');
                bits > 0
                    && (if float {
                        pred.on_floats()
                    } else {
                        pred.on_integers()
                    })
                    && widths(&[*a, *b], bits)
                    && widths(&[*dst], 1)
            }
            Op::InlineAsm { dst, src, .. } => {
                let pack = dst.first().map_or(0, |r| r.values.len());
                pack > 0
                    && dst.iter().chain(src).all(|a| {
                        let bits = numeric::bits(a.ty);
                        bits > 0 && a.values.len() == pack && widths(&a.values, bits)
                    })
            }
            Op::ThreadMap { dst, .. } => widths(&[*dst], 32) || widths(&[*dst], 64),
            Op::Select { dst, cond, a, b } => widths(&[*cond], 1) && widths(&[*a, *b], self.value_bits(*dst)),
            _ => true,
        };
        if ok {
            Ok(())
        } else {
            Err(LowerError::new(
                "a matrix instruction, conversion, arithmetic operation, inline assembly, comparison or select has operands of the wrong count, type or width",
            ))
        }
    }
}

/// Whether a thread computes `op` alone — no memory, barrier, exchange between lanes or read of
/// the first lane — so that it may run where threads part ways.
fn computed_alone(op: &Op) -> bool {
    matches!(
        op,
        Op::Arith { .. }
            | Op::Compare { .. }
            | Op::Select { .. }
            | Op::Convert { .. }
            | Op::Constant { .. }
            | Op::Pack { .. }
            | Op::Unpack { .. }
            | Op::ThreadMap { .. }
            | Op::Argument { .. }
            | Op::UniformValue { .. }
            | Op::Loop { .. }
            | Op::If { .. }
            | Op::While { .. }
    )
}
