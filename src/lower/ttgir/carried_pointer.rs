//! Pointers a loop carries and moves by more than a uniform step.
//!
//! `p += BLOCK` moves every element by the same amount: the loop carries the pointer's uniform
//! part in a scalar slot and its strides stay those it entered with. Two other moves are as
//! easy to write: `p += tl.load(steps + i * N + offs)` (each element by its own loaded step) and
//! `p += offs` (the strides themselves grow). The general form carries such a pointer as an
//! address with a data part ([`Indexed`]): the buffer and strides it entered the loop with, a
//! uniform constant in a slot, and a per-element element offset in registers. Whatever the
//! body yields for it — pointers of that buffer with any strides and any data part — is brought
//! to those strides: the difference of the strides times the coordinates joins the data part.
//!
//! # Worked example
//!
//! `p = x + offs` (stride 1, 64 elements over 64 lanes); each iteration `p += offs`. At the loop's
//! entry the carried form is `x[0 + 1·c + index]` with `index = 0` in a register. The body
//! yields `x + 2·c`: stride 2, one more than the carried stride, so the next index is
//! `index + (2 − 1)·c` — a register add per element (the `(2 − 1)·c` computed once, outside
//! the loop, by LLVM). After `i` iterations element `c` reads `x[(i + 1)·c]`, as the kernel
//! says. With `p += offs + 1` the uniform step `1` joins the same add (`index + 1 + c`) and the
//! constant's slot stays what it was: no scalar add per iteration either.
//!
//! A scalar pointer may change its buffer: `src, dst = dst, src` ping-pongs between two
//! buffers. A buffer instruction names its buffer by a resource in scalar registers, so such a
//! pointer is carried as what Triton carries, its 64-bit address (an argument's
//! [`BufferAddress`](ProgramOp::BufferAddress) plus its offset in bytes), and the body — and the
//! code after the loop — binds a buffer at that address ([`BindBuffer`](ProgramOp::BindBuffer))
//! and addresses it as any other.
//!
//! Law: for every element `c`, the address the carried form names,
//! `buffer[constant + Σ c_d·coef[d] + index(c)]`, is the address the yielded pointer names;
//! a scalar pointer's carried address is its buffer's address plus its offset in bytes.

use super::gather::Indexed;
use super::{Lowering, Sym, fail};
use crate::linear::LinearLayout;
use crate::lower::error::LowerError;
use crate::lower::ir::{ArithOp, Buffer, Op as ProgramOp, Uniform, UniformInput, Value};
use crate::lower::plan::dist::Dist;
use crate::ttgir::Op;

/// The data part of an address: the layout of its index registers and the registers.
pub(super) type DataPart = (Option<Box<LinearLayout>>, Vec<Value>);

/// A tensor of pointers' buffer, uniform constant, strides and data part, if `sym` is one.
pub(super) fn pointer_parts(sym: &Sym) -> Option<(usize, Uniform, Vec<Uniform>, Option<DataPart>)> {
    match sym {
        Sym::Affine {
            base: Some(buffer),
            constant,
            coef,
        } => Some((*buffer, constant.clone(), coef.clone(), None)),
        Sym::Indexed(x) => Some((
            x.buffer,
            x.constant.clone(),
            x.coef.clone(),
            Some((x.layout.clone(), x.index.clone())),
        )),
        _ => None,
    }
}

impl Lowering<'_> {
    /// A pointer tensor entering a loop that moves it per element: its address with a data part,
    /// the index zero.
    pub(super) fn carried_pointer(
        &mut self,
        op: &Op,
        init: usize,
        (buffer, constant, coef): (usize, Uniform, Vec<Uniform>),
    ) -> Result<Indexed, LowerError> {
        let layout = self.layout(op, init)?;
        let registers = Dist::of(&layout, self.target.wave_size)?.registers();
        let zero = self.uniform_register(&Uniform::default(), 32);
        Ok(Indexed {
            buffer,
            constant,
            coef,
            layout: Some(Box::new(layout)),
            index: vec![zero; registers],
        })
    }

    /// What the loop's body yields for a pointer tensor it carries as `now`, brought to `now`'s
    /// buffer, strides and layout: the strides' difference times the coordinates, plus any data
    /// part of its own, is the next index.
    pub(super) fn next_carried_pointer(
        &mut self,
        terminator: &Op,
        now: &Indexed,
        yielded: Sym,
    ) -> Result<Indexed, LowerError> {
        let Some((buffer, constant, coef, data)) = pointer_parts(&yielded) else {
            return fail(
                terminator,
                format!("yields {} for a tensor of pointers it carries", yielded.kind()),
            );
        };
        if buffer != now.buffer {
            return fail(
                terminator,
                "a tensor of pointers whose buffer changes in the loop is not lowered",
            );
        }
        let Some(layout) = &now.layout else {
            return fail(terminator, "carries a scalar pointer as a tensor");
        };
        if coef.len() != now.coef.len() {
            return fail(terminator, "yields pointers of another rank than it carries");
        }
        let dist = Dist::of(layout, self.target.wave_size)?;
        let data = match data {
            None => None,
            Some((data_layout, values)) => Some(match (data_layout, values.len()) {
                (_, 1) => vec![values[0]; dist.registers()],
                (Some(l), n) if *l == **layout && n == dist.registers() => values,
                _ => {
                    return fail(
                        terminator,
                        "yields pointers whose data part is in another layout than it carries",
                    );
                }
            }),
        };
        let moved: Vec<Uniform> = coef.iter().zip(&now.coef).map(|(n, c)| n.add(c, -1)).collect();
        // Where the strides change, a step of the uniform part that every iteration takes
        // alike (no value the loop computes) and never lowers the offset joins the per-element
        // step: the slot stays, one add per element moves both. Where they do not, the step
        // stays the slot's (one scalar add, and an index the body leaves alone moves not at
        // all: a K loop over rows of a gathered index).
        let step = constant.add(&now.constant, -1);
        let invariant = step.inputs().all(|x| {
            matches!(
                x,
                UniformInput::Argument(_) | UniformInput::ProgramId(_) | UniformInput::NumPrograms(_)
            )
        });
        let folded = invariant && !step.subtracts() && !step.is_zero() && !moved.iter().all(Uniform::is_zero);
        let (constant, step) = if folded {
            (now.constant.clone(), step)
        } else {
            (constant, Uniform::default())
        };
        let terms = if moved.iter().all(Uniform::is_zero) && step.is_zero() {
            None
        } else {
            Some(self.affine_registers(terminator, &dist, &step, &moved, 32)?)
        };
        let index = match (terms, data) {
            (Some(terms), Some(data)) => terms
                .into_iter()
                .zip(data)
                .map(|(t, x)| self.binary(ArithOp::Add, "i32", t, x))
                .collect(),
            (Some(index), None) | (None, Some(index)) => index,
            (None, None) => {
                let zero = self.uniform_register(&Uniform::default(), 32);
                vec![zero; dist.registers()]
            }
        };
        Ok(Indexed {
            buffer,
            constant,
            coef: now.coef.clone(),
            layout: now.layout.clone(),
            index,
        })
    }

    /// Whether `sym` is a scalar pointer: an argument, or one plus a uniform offset, or a
    /// choice between two.
    pub(super) fn is_scalar_pointer(sym: &Sym) -> bool {
        match sym {
            Sym::Ptr(_) => true,
            Sym::Affine { base, coef, .. } => base.is_some() && coef.is_empty(),
            Sym::Indexed(x) => x.layout.is_none() && x.index.len() == 1,
            Sym::Choice { then, otherwise, .. } => {
                Self::is_scalar_pointer(then) && Self::is_scalar_pointer(otherwise)
            }
            _ => false,
        }
    }

    /// The 64-bit address of a scalar pointer to `bytes`-byte elements, in every thread (of a
    /// pointer chosen at run time, the chosen arm's).
    pub(super) fn pointer_address(&mut self, op: &Op, sym: &Sym, bytes: u64) -> Result<Value, LowerError> {
        if let Sym::Choice {
            cond,
            then,
            otherwise,
        } = sym
        {
            let cond = match &**cond {
                Sym::Cond(c) => self.condition_register(c),
                Sym::Lanes(v) if self.p.value_bits(*v) == 1 => *v,
                other => return fail(op, format!("chooses a pointer by {}", other.kind())),
            };
            let (a, b) = (
                self.pointer_address(op, then, bytes)?,
                self.pointer_address(op, otherwise, bytes)?,
            );
            let dst = self.p.value(64);
            self.p.ops.push(ProgramOp::Select { dst, cond, a, b });
            return Ok(dst);
        }
        let (buffer, constant, index) = match sym {
            Sym::Ptr(b) => (*b, Uniform::default(), None),
            Sym::Affine {
                base: Some(b),
                constant,
                coef,
            } if coef.is_empty() => (*b, constant.clone(), None),
            // A scalar pointer plus an offset loaded from memory.
            Sym::Indexed(x) if x.layout.is_none() && x.index.len() == 1 => {
                (x.buffer, x.constant.clone(), Some(x.index[0]))
            }
            other => {
                return fail(
                    op,
                    format!("{} where a loop carries a pointer by its address", other.kind()),
                );
            }
        };
        let base = match self.p.buffers.get(buffer).map(|b| b.address) {
            Some(Some(address)) => address,
            _ => {
                let dst = self.p.value(64);
                self.p.ops.push(ProgramOp::BufferAddress { dst, buffer });
                dst
            }
        };
        let size = Uniform::constant(bytes as i64);
        let mut address = base;
        if !constant.is_zero() {
            let offset = self.uniform_register(&constant.mul(&size), 64);
            address = self.binary(ArithOp::Add, "i64", address, offset);
        }
        if let Some(index) = index {
            let wide = self.p.convert(index, ("i32", "i64"), 64);
            let size = self.uniform_register(&size, 64);
            let offset = self.binary(ArithOp::Mul, "i64", wide, size);
            address = self.binary(ArithOp::Add, "i64", address, offset);
        }
        Ok(address)
    }

    /// A buffer of `bytes`-byte elements at the address `address` holds, for a pointer named
    /// `name`: its resource made by the op returned, where that op is placed.
    pub(super) fn buffer_at(&mut self, name: &str, address: Value, bytes: u64) -> (usize, ProgramOp) {
        let buffer = self.p.buffers.len();
        self.p.buffers.push(Buffer {
            name: name.trim_start_matches('%').to_string(),
            elements: None,
            element_bits: (8 * bytes) as u32,
            address: Some(address),
        });
        (buffer, ProgramOp::BindBuffer { buffer })
    }
}
