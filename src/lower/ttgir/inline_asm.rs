//! `tt.elementwise_inline_asm` (`tl.inline_asm_elementwise`): a statement of the target's
//! assembly applied to a tensor's elements, `pack` at a time.
//!
//! The op names its results' element types, LLVM's constraint string and how many elements one
//! statement takes (`packed_element`). Every operand and result has the same layout, so a
//! thread's registers line up: statement `g` reads registers `g·pack … g·pack + pack − 1` of
//! each operand and writes the same registers of each result — Triton's grouping, which matters
//! for a statement that mixes its elements. One element is a scalar of its type, `pack` of them
//! a vector (`<2 x half>`), several results a struct; the text goes to LLVM as it is, so what
//! llc does not assemble for the target is llc's error, as it is Triton's.
//!
//! # Worked example
//!
//! ```text
//! %lo, %hi = tt.elementwise_inline_asm "v_min_i32 $0, $2, $3\0A v_max_i32 $1, $2, $3"
//!     {constraints = "=v,=v,v,v", packed_element = 1 : i32, pure = true} %x, %y
//!     : tensor<256xi32>, tensor<256xi32> -> tensor<256xi32>, tensor<256xi32>
//! ```
//!
//! over 256 threads holding one element each is one statement per thread:
//!
//! ```text
//! %r = call { i32, i32 } asm "v_min_i32 $0, $2, $3\0A v_max_i32 $1, $2, $3", "=v,=v,v,v"(i32 %x, i32 %y)
//! ```
//!
//! and with `packed_element = 2` over `f16` (`v_pk_mul_f16 $0, $1, $2`) each statement takes
//! `<2 x half>` operands — two registers of each.

use super::Lowering;
use super::data::numeric_type;
use crate::lower::error::LowerError;
use crate::lower::ir::{AsmValues, Op as ProgramOp};
use crate::lower::plan::dist::Dist;
use crate::ttgir::{AttrValue, Op, attr, decode_string};

use super::fail;

impl Lowering<'_> {
    pub(super) fn inline_asm(&mut self, op: &Op) -> Result<(), LowerError> {
        let text = |key: &str| match attr(&op.attrs, key) {
            Some(AttrValue::Str(raw)) => decode_string(raw),
            _ => None,
        };
        let Some(asm) = text("asm_string") else {
            return fail(op, "has no assembly string");
        };
        let Some(constraints) = text("constraints") else {
            return fail(op, "has no constraint string");
        };
        let pack = match attr(&op.attrs, "packed_element") {
            Some(AttrValue::Int(n)) if *n >= 1 => *n as usize,
            None => 1,
            Some(_) => return fail(op, "packed_element must be a positive integer"),
        };
        // The reader reads `true` as 1.
        let pure = matches!(attr(&op.attrs, "pure"), Some(AttrValue::Int(1)));
        let Some(&first) = op.results.first() else {
            return fail(op, "has no result");
        };
        let element = |v: usize| {
            let name = &self.m.values[v].ty.element;
            numeric_type(name).ok_or_else(|| name.clone())
        };
        let (layout, registers, values) = self.grouped_operands(op, first, ("packed_element", pack))?;
        let mut operands = Vec::with_capacity(op.operands.len());
        for (&v, values) in op.operands.iter().zip(values) {
            let ty = element(v).or_else(|t| fail(op, format!("an operand of {t}: not a number")))?;
            operands.push((ty, values));
        }
        let mut results = Vec::with_capacity(op.results.len());
        for &r in &op.results {
            let ty = element(r).or_else(|t| fail(op, format!("a result of {t}: not a number")))?;
            if self.layout(op, r)? != layout {
                return fail(op, "results in different layouts");
            }
            let bits = self.bits(op, r)?;
            results.push((ty, self.p.values_of(registers, bits)));
        }
        for g in (0..registers).step_by(pack) {
            let group = |(ty, values): &(&'static str, Vec<_>)| AsmValues {
                ty,
                values: values[g..g + pack].to_vec(),
            };
            self.p.ops.push(ProgramOp::InlineAsm {
                asm: asm.clone(),
                constraints: constraints.clone(),
                pure,
                dst: results.iter().map(group).collect(),
                src: operands.iter().map(group).collect(),
            });
        }
        for (i, (_, values)) in results.into_iter().enumerate() {
            let layout = Box::new(layout.clone());
            self.define_result(op, i, super::Sym::Data { layout, values })?;
        }
        Ok(())
    }

    /// The operands of an element-wise op applied `pack` elements at a time (`name` the
    /// attribute that says so): the layout of result `first` (every operand's), a thread's
    /// registers in it, which `pack` must divide (Triton's rule), and each operand's registers.
    pub(super) fn grouped_operands(
        &mut self,
        op: &Op,
        first: usize,
        (name, pack): (&str, usize),
    ) -> Result<
        (
            crate::linear::LinearLayout,
            usize,
            Vec<Vec<crate::lower::ir::Value>>,
        ),
        LowerError,
    > {
        let layout = self.layout(op, first)?;
        let registers = Dist::of(&layout, self.target.wave_size)?.registers();
        if registers % pack != 0 {
            return fail(
                op,
                format!("{registers} elements per thread do not group by {name} = {pack}"),
            );
        }
        let mut operands = Vec::with_capacity(op.operands.len());
        for &v in &op.operands {
            let (l, values) = self.typed_data(op, v)?;
            if *l != layout || values.len() != registers {
                return fail(op, "an operand in another layout than the results");
            }
            operands.push(values);
        }
        Ok((layout, registers, operands))
    }
}
