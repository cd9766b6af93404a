//! Global memory: `tt.load` / `tt.store` through tensors of pointers, `amdg.buffer_load` /
//! `amdg.buffer_store` through a base pointer and offsets.
//!
//! An address is affine in the coordinates ([`Sym::Affine`]): its coefficients become the
//! access's strides and its constant (workgroup-uniform: program ids, arguments) the access's
//! base, so the buffer instructions get a per-thread offset, an `soffset` and an immediate. A
//! mask bounding coordinates becomes the access's bounds; a masked element reads `other`.
//! Vectors are as long as the layout's consecutive registers, the AxisInfo alignment of the
//! address and the mask's constancy allow.

use super::{Lowering, Sym, fail};
use crate::linear::LinearLayout;
use crate::lower::error::LowerError;
use crate::lower::ir::{Condition, Uniform};
use crate::lower::ir::{Extent, Op as ProgramOp, Value};
use crate::lower::plan::convert;
use crate::lower::plan::dist::{Addressing, Dist, Loader, Storer};
use crate::ttgir::axisinfo::AxisInfo;
use crate::ttgir::{Op, element_bits};

/// A load not issued yet, perhaps converted: issued where it is first needed, so that a
/// load → convert_layout → store streams through one round trip at a time.
#[derive(Clone, Debug)]
pub(super) struct Pending {
    /// The loaded layout.
    pub(super) layout: LinearLayout,
    pub(super) buffer: usize,
    pub(super) addressing: Addressing,
    /// The bits a masked element reads.
    pub(super) other: u64,
    pub(super) vector: usize,
    pub(super) bits: u32,
    /// The layout it is converted to, if any.
    pub(super) converted: Option<LinearLayout>,
}

/// The data part of an address: its layout (`None`: one register for every element) and its
/// element offsets.
pub(super) type IndexRegisters = (Option<Box<LinearLayout>>, Vec<Value>);

/// What a mask and `other` say of an access.
pub(super) struct Masking {
    /// Per dimension, the bound of a coordinate mask.
    pub(super) bounds: Vec<Option<Extent>>,
    /// Conditions the whole workgroup agrees on.
    pub(super) when: Vec<Condition>,
    /// Per register of the access's layout, a predicate: a mask that bounds no coordinate.
    pub(super) predicate: Option<Vec<Value>>,
    /// The bits a masked element of a load reads.
    other: u64,
    /// An `other` that is no constant: a tensor of the access's layout, chosen after the
    /// load where the mask fails.
    other_values: Option<Vec<Value>>,
    /// Whether a chosen pointer's condition is a predicate per element: a vector may not
    /// span elements it tells apart.
    elementwise_arm: bool,
}

impl Pending {
    /// The loader of its registers, laid out as `dist` (its layout's).
    fn loader<'d>(&self, dist: &'d Dist) -> Loader<'d> {
        Loader::strided(
            dist,
            (&self.addressing, self.other),
            self.vector,
            self.buffer,
            self.bits,
        )
    }
}

/// Where an access's addresses come from, for AxisInfo.
#[derive(Clone, Copy)]
enum Address {
    /// A tensor of pointers.
    Pointers(usize),
    /// A base pointer and a tensor of element offsets (`amdg.buffer_load` / `_store`).
    BaseAndOffsets(usize, usize),
}

impl Lowering<'_> {
    /// `tt.load` / `amdg.buffer_load`.
    pub(super) fn lower_load(&mut self, op: &Op, rank: usize) -> Result<(), LowerError> {
        let (address, ptr) = if op.name == "tt.load" {
            (
                self.address_parts(op, 0, rank)?,
                Address::Pointers(op.operands[0]),
            )
        } else {
            (
                self.base_and_offsets(op, 0, 1, rank)?,
                Address::BaseAndOffsets(op.operands[0], op.operands[1]),
            )
        };
        let (buffer, addressing) = self.addressing(op, address.buffer, address.constant, &address.coef)?;
        self.load(op, buffer, (addressing, address.data), ptr)
    }

    /// `tt.store` / `amdg.buffer_store`.
    pub(super) fn lower_store(&mut self, op: &Op) -> Result<(), LowerError> {
        let (data, address, ptr) = if op.name == "tt.store" {
            let data = op.operands[1];
            let rank = self.rank(data);
            (
                data,
                self.address_parts(op, 0, rank)?,
                Address::Pointers(op.operands[0]),
            )
        } else {
            let data = op.operands[0];
            let rank = self.rank(data);
            (
                data,
                self.base_and_offsets(op, 1, 2, rank)?,
                Address::BaseAndOffsets(op.operands[1], op.operands[2]),
            )
        };
        let (buffer, addressing) = self.addressing(op, address.buffer, address.constant, &address.coef)?;
        self.store(op, data, buffer, (addressing, address.data), ptr)
    }

    /// The index registers of an address in the registers of the access's `layout` (a
    /// scalar's one register in all of them).
    pub(super) fn attach_index(
        &self,
        op: &Op,
        addressing: &mut Addressing,
        index: Option<IndexRegisters>,
        layout: &LinearLayout,
    ) -> Result<(), LowerError> {
        let Some((index_layout, values)) = index else {
            return Ok(());
        };
        if values.iter().any(|&v| self.p.value_bits(v) != 32) {
            return fail(op, "the address's data part is not a 32-bit integer offset");
        }
        let registers = Dist::of(layout, self.target.wave_size)?.registers();
        addressing.index = Some(match index_layout {
            Some(l) if *l != *layout => {
                return fail(op, "the address's data part is in another layout than the access");
            }
            Some(_) => values,
            None if values.len() == 1 => vec![values[0]; registers],
            None => return fail(op, "an address with a data part of no layout"),
        });
        Ok(())
    }

    /// The buffer, strides and base of a pointer tensor (bounds come from the mask).
    pub(super) fn addressing(
        &self,
        op: &Op,
        buffer: Option<usize>,
        base: Uniform,
        coef: &[Uniform],
    ) -> Result<(usize, Addressing), LowerError> {
        let Some(buffer) = buffer else {
            return fail(op, "the address is not a pointer argument plus offsets");
        };
        let strides = coef
            .iter()
            .map(Uniform::extent)
            .collect::<Option<Vec<Extent>>>()
            .map_or_else(
                || {
                    fail(
                        op,
                        "an offset coefficient that is not a constant times one argument",
                    )
                },
                Ok,
            )?;
        let bounds = vec![None; strides.len()];
        Ok((
            buffer,
            Addressing {
                strides,
                bounds,
                base,
                when: Vec::new(),
                index: None,
                predicate: None,
                held: None,
                held_row: None,
            },
        ))
    }

    /// Elements per vector access: the layout's consecutive registers along the last
    /// dimension, the AxisInfo alignment of the address, and every other stride's
    /// divisibility. The address is a pointer tensor, or (buffer ops) a base pointer and a
    /// tensor of element offsets. Its affine part must step by one element along the last
    /// dimension — unless part of it is data in registers (`x % 96` of a flat index), where
    /// the AxisInfo of the whole address alone proves the elements consecutive, and the
    /// vector's first register's offset is the vector's.
    fn vector(
        &self,
        dist: &Dist,
        shape: &[u64],
        bits: u32,
        addressing: &Addressing,
        address: Address,
    ) -> Result<usize, LowerError> {
        let strides = &addressing.strides;
        let mut v = dist.global_vector(shape, bits)? as u64;
        let last = strides.len().saturating_sub(1);
        if strides.last() != Some(&Extent::Elements(1)) && addressing.index.is_none() {
            return Ok(1);
        }
        let bytes = u64::from(bits / 8).max(1);
        let info = |x: usize| self.axis.get(x).and_then(Option::as_ref);
        let last_of = |i: &AxisInfo| i.contiguity.len().saturating_sub(1);
        match address {
            Address::Pointers(ptr) => {
                if let Some(i) = info(ptr) {
                    v = v.min(i.alignment(last_of(i), bytes));
                }
            }
            Address::BaseAndOffsets(base, offsets) => {
                // A scalar base: only its divisibility (bytes) counts.
                if let Some(d) = info(base).and_then(|i| i.divisibility.first()) {
                    v = v.min((d / bytes).max(1));
                }
                if let Some(i) = info(offsets) {
                    v = v.min(i.alignment(last_of(i), 1));
                }
            }
        }
        for s in &strides[..last] {
            let div = match *s {
                Extent::Elements(k) => 1u64 << k.trailing_zeros().min(63),
                Extent::Scalar { index, times } => {
                    self.divisibility[index].saturating_mul(1u64 << times.trailing_zeros().min(63))
                }
            };
            v = v.min(div.max(1));
        }
        Ok(v.max(1) as usize)
    }

    fn load(
        &mut self,
        op: &Op,
        buffer: usize,
        (mut addressing, index): (Addressing, Option<IndexRegisters>),
        ptr: Address,
    ) -> Result<(), LowerError> {
        let r = op
            .results
            .first()
            .copied()
            .ok_or_else(|| LowerError::new("a load without result"))?;
        let layout = self.layout(op, r)?;
        let shape = self.m.values[r].ty.shape.clone();
        if addressing.strides.len() != shape.len() {
            return fail(op, "the address has another rank than the result");
        }
        self.attach_index(op, &mut addressing, index, &layout)?;
        let masking = self.bounds(op, &layout)?;
        let other = masking.other;
        let masked = self.mask_vector(op, &masking);
        let chosen = masking.other_values.clone().zip(masking.predicate.clone());
        addressing.bounds = masking.bounds;
        addressing.when = masking.when;
        addressing.predicate = masking.predicate;
        let bits = self.p.buffers[buffer].element_bits;
        let dist = Dist::of(&layout, self.target.wave_size)?;
        let vector = self.vector(&dist, &shape, bits, &addressing, ptr)?.min(masked);
        self.take_held(&mut addressing, &layout, &dist, vector);
        self.define(
            op,
            Sym::Pending(Box::new(Pending {
                layout: layout.clone(),
                buffer,
                addressing,
                other,
                vector,
                bits,
                converted: None,
            })),
        )?;
        let Some((others, predicates)) = chosen else {
            return Ok(());
        };
        // `other` per element: the load now, then a select where the mask fails.
        let (_, loaded) = self.data(op, r)?;
        let values = loaded
            .iter()
            .zip(&others)
            .zip(&predicates)
            .map(|((&a, &b), &cond)| {
                let dst = self.p.value(self.p.value_bits(a));
                self.p.ops.push(ProgramOp::Select { dst, cond, a, b });
                dst
            })
            .collect();
        self.define_data(op, layout, values)
    }

    /// Value `v` in registers, each as wide as its type's elements says (a module whose types
    /// disagree with what computed them is refused, not lowered).
    pub(super) fn typed_data(
        &mut self,
        op: &Op,
        v: usize,
    ) -> Result<(Box<LinearLayout>, Vec<Value>), LowerError> {
        let bits = self.bits(op, v)?;
        let (layout, values) = self.data(op, v)?;
        if values.iter().any(|&x| self.p.value_bits(x) != bits) {
            return fail(
                op,
                format!(
                    "{} holds elements of another width than its type",
                    self.m.values[v].name
                ),
            );
        }
        Ok((layout, values))
    }

    /// Value `v` in registers: a deferred load is issued (and converted) now, once.
    pub(super) fn data(&mut self, op: &Op, v: usize) -> Result<(Box<LinearLayout>, Vec<Value>), LowerError> {
        match self.sym(op, v)?.clone() {
            Sym::Data { layout, values } => Ok((layout, values)),
            Sym::Lanes(x) => Ok((Box::new(self.scalar_layout()?), vec![x])),
            Sym::SharedRead(_) => {
                self.issue_shared_reads()?;
                self.data(op, v)
            }
            Sym::Pending(pending) => {
                let dist = Dist::of(&pending.layout, self.target.wave_size)?;
                let mut values = pending.loader(&dist).all(&mut self.p);
                let mut layout = pending.layout;
                if let Some(dst) = pending.converted {
                    values =
                        convert::registers(&mut self.p, &layout, &dst, &values, pending.bits, self.target)?;
                    layout = dst;
                }
                let layout = Box::new(layout);
                self.syms[v] = Some(Sym::Data {
                    layout: layout.clone(),
                    values: values.clone(),
                });
                Ok((layout, values))
            }
            _ => self.materialise(op, v),
        }
    }

    fn store(
        &mut self,
        op: &Op,
        data: usize,
        buffer: usize,
        (mut addressing, index): (Addressing, Option<IndexRegisters>),
        ptr: Address,
    ) -> Result<(), LowerError> {
        let shape = self.m.values[data].ty.shape.clone();
        if addressing.strides.len() != shape.len() {
            return fail(op, "the address has another rank than the data");
        }
        let layout = self.layout(op, data)?;
        self.attach_index(op, &mut addressing, index, &layout)?;
        let masking = self.bounds(op, &layout)?;
        let masked = self.mask_vector(op, &masking);
        addressing.bounds = masking.bounds;
        addressing.when = masking.when;
        addressing.predicate = masking.predicate;
        let bits = self.p.buffers[buffer].element_bits;
        self.issue_loads_of(op, buffer, data)?;
        // A converted load stored once: loads, round trips and stores interleave.
        if let Sym::Pending(pending) = self.sym(op, data)?.clone()
            && let Some(dst) = &pending.converted
            && self.users[data] == 1
        {
            if pending.bits != bits {
                return fail(op, "stores elements of another width than the pointer's");
            }
            let s = Dist::of(&pending.layout, self.target.wave_size)?;
            let d = Dist::of(dst, self.target.wave_size)?;
            self.store_once(&d, &mut addressing);
            let vector = self.vector(&d, &shape, bits, &addressing, ptr)?.min(masked);
            self.take_held(&mut addressing, dst, &d, vector);
            let mut loader = pending.loader(&s);
            let mut storer = Storer::strided(&d, &addressing, vector, buffer);
            let values = convert::streaming(
                &mut self.p,
                (&pending.layout, &s),
                (dst, &d),
                pending.bits,
                self.target,
                &mut loader,
                Some(&mut storer),
            )?;
            return storer.finish(&mut self.p, &values);
        }
        let (layout, values) = self.typed_data(op, data)?;
        if values.iter().any(|&v| self.p.value_bits(v) != bits) {
            return fail(op, "stores elements of another width than the pointer's");
        }
        let dist = Dist::of(&layout, self.target.wave_size)?;
        self.store_once(&dist, &mut addressing);
        let vector = self.vector(&dist, &shape, bits, &addressing, ptr)?.min(masked);
        self.take_held(&mut addressing, &layout, &dist, vector);
        Storer::strided(&dist, &addressing, vector, buffer).finish(&mut self.p, &values)
    }

    /// Where the layout gives an element to several threads, only the first holder stores it
    /// (as Triton masks redundant stores): copies held by other waves may be computed at
    /// other times — a `DW += x` whose copies load, add and store one after the other would
    /// add twice.
    fn store_once(&mut self, dist: &Dist, addressing: &mut Addressing) {
        if let Some(first) = self.first_holder(dist) {
            let own = addressing.predicate.take();
            addressing.predicate = Some(
                (0..dist.registers())
                    .map(|r| {
                        let p = own.as_ref().and_then(|v| v.get(r).copied());
                        self.and_predicates(p, first)
                    })
                    .collect(),
            );
        }
    }

    /// Loads of `buffer` not issued yet (but `data`'s own) are issued now: a store or atomic
    /// to it comes after them, as the program says.
    pub(super) fn issue_loads_of(&mut self, op: &Op, buffer: usize, data: usize) -> Result<(), LowerError> {
        for v in 0..self.syms.len() {
            if v != data
                && let Some(Sym::Pending(pending)) = &self.syms[v]
                && pending.buffer == buffer
            {
                self.data(op, v)?;
            }
        }
        Ok(())
    }

    /// What a load's or store's mask says (nothing without one), and the bits a masked
    /// element of a load reads (`other`, a splat constant; 0 without one). A mask bounding
    /// coordinates becomes the access's bounds; any other mask is computed in registers of the
    /// access's `layout`, one predicate per register.
    pub(super) fn bounds(&mut self, op: &Op, layout: &LinearLayout) -> Result<Masking, LowerError> {
        let mut masking = self.own_bounds(op, layout)?;
        if self.arms.is_empty() {
            return Ok(masking);
        }
        // An arm of a chosen pointer: its side of the condition masks the access too.
        let arm = self.arm_masks(op, op.operands[0])?;
        masking.when.extend(arm.when);
        if let Some(arm) = arm.predicate {
            let registers = Dist::of(layout, self.target.wave_size)?.registers();
            if arm.len() != registers {
                return fail(op, "the pointer's condition is in another layout than the access");
            }
            masking.elementwise_arm = true;
            let existing = masking.predicate.take();
            masking.predicate = Some(self.and_predicate_registers(existing, arm));
        }
        Ok(masking)
    }

    /// The mask, bounds and `other` of the access `op` itself.
    fn own_bounds(&mut self, op: &Op, layout: &LinearLayout) -> Result<Masking, LowerError> {
        let rank = layout.num_out_dims();
        let constant_other = match op.other.map(|i| self.operand(op, i)).transpose()? {
            None => Some(0),
            Some(Sym::Splat(bits)) => Some(*bits),
            Some(Sym::Affine {
                base: None,
                constant,
                coef,
            }) if coef.iter().all(Uniform::is_zero) && constant.as_constant().is_some() => {
                let c = constant.as_constant().unwrap_or(0);
                Some(c as u64 & self.element_mask(op, op.results[0])?)
            }
            Some(_) => None,
        };
        let other_values = match (constant_other, op.other) {
            (None, Some(i)) => {
                let (other_layout, values) = self.typed_data(op, op.operands[i])?;
                if *other_layout != *layout {
                    return fail(op, "`other` is in another layout than the load");
                }
                Some(values)
            }
            _ => None,
        };
        let mut masking = Masking {
            bounds: vec![None; rank],
            when: Vec::new(),
            predicate: None,
            other: constant_other.unwrap_or(0),
            other_values,
            elementwise_arm: false,
        };
        let Some(i) = op.mask else {
            return Ok(masking);
        };
        let mask_type = &self.m.values[op.operands[i]].ty.element;
        if mask_type != "i1" {
            return fail(op, format!("a mask of {mask_type} elements (a mask is i1)"));
        }
        if masking.other_values.is_some() {
            // The choice needs the mask per register.
            let (mask_layout, values) = self.typed_data(op, op.operands[i])?;
            if *mask_layout != *layout {
                return fail(op, "the mask is in another layout than the access");
            }
            masking.predicate = Some(values);
            return Ok(masking);
        }
        match self.operand(op, i)? {
            Sym::Mask { bounds, when } if bounds.len() == rank => {
                masking.bounds = bounds.clone();
                masking.when = when.clone();
            }
            Sym::Mask { .. } => return fail(op, "the mask has another rank than the access"),
            _ => {
                let mask = op.operands[i];
                let (mask_layout, values) = self.typed_data(op, mask)?;
                if *mask_layout != *layout {
                    return fail(op, "the mask is in another layout than the access");
                }
                masking.predicate = Some(values);
            }
        }
        Ok(masking)
    }

    /// Elements per vector a mask allows: a bound on the last dimension or a mask in registers
    /// may cut a vector, so vectors are no longer than the mask's AxisInfo constancy there (a
    /// chosen pointer's condition per element allows one).
    fn mask_vector(&self, op: &Op, masking: &Masking) -> usize {
        if masking.elementwise_arm {
            return 1;
        }
        if masking.predicate.is_none() && masking.bounds.last().is_none_or(Option::is_none) {
            return usize::MAX;
        }
        op.mask
            .and_then(|i| op.operands.get(i))
            .and_then(|&v| self.axis.get(v))
            .and_then(Option::as_ref)
            .and_then(|info| info.constancy.last().copied())
            .map_or(1, |c| c.max(1) as usize)
    }

    /// The bits of value `v`'s elements, as a mask.
    pub(super) fn element_mask(&self, op: &Op, v: usize) -> Result<u64, LowerError> {
        let bits = self.bits(op, v)?;
        Ok(if bits == 64 { u64::MAX } else { (1 << bits) - 1 })
    }

    /// Bits of value `v`'s elements (8 to 64).
    pub(super) fn bits(&self, op: &Op, v: usize) -> Result<u32, LowerError> {
        element_bits(&self.m.values[v].ty.element)
            .filter(|b| [1, 8, 16, 32, 64].contains(b))
            .map_or_else(|| fail(op, "elements that are not i1 or 8 to 64 bits wide"), Ok)
    }
}
