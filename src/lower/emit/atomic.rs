//! Atomics in LLVM IR: a buffer atomic per thread (`llvm.amdgcn.raw.ptr.buffer.atomic.*`),
//! addressed as any buffer access (a masked thread's offset lies outside the buffer, so the
//! hardware drops it), between the fences its ordering asks for at its scope.

use super::{Emitter, llvm_number};
use crate::lower::error::LowerError;
use crate::lower::ir::{AtomicKind, AtomicOrdering, AtomicScope, GlobalOffset, Value};

impl Emitter<'_> {
    pub(super) fn atomic(
        &mut self,
        (dst, src, cmp): (Option<Value>, Value, Option<Value>),
        buffer: usize,
        offset: &GlobalOffset,
        (kind, ty, ordering, scope): (AtomicKind, &str, AtomicOrdering, AtomicScope),
    ) -> Result<(), LowerError> {
        let bits = self.p.value_bits(src);
        let int = format!("i{bits}");
        let float = ty.starts_with('f');
        // The intrinsic's type: floats for a float add, integers otherwise.
        let t = if kind == AtomicKind::FAdd {
            llvm_number(ty)?.to_string()
        } else {
            int.clone()
        };
        let (off, soff) = self.global_offset(offset, u64::from(bits / 8))?;
        let operand = |e: &mut Self, v: Value| -> Result<String, LowerError> {
            let x = e.val(v)?;
            Ok(if t == int {
                x
            } else {
                let c = e.tmp();
                e.line(&format!("{c} = bitcast {int} {x} to {t}"));
                c
            })
        };
        let value = operand(self, src)?;
        let fence = |e: &mut Self, order: &str| {
            e.line(&format!("fence{} {order}", scope.llvm()));
        };
        if matches!(ordering, AtomicOrdering::Release | AtomicOrdering::AcqRel) {
            fence(self, "release");
        }
        let rsrc = format!("%rsrc{buffer}");
        let name = kind.llvm();
        let suffix = if float && kind == AtomicKind::FAdd {
            ty.to_string()
        } else {
            int.clone()
        };
        let old = self.tmp();
        match cmp {
            Some(c) => {
                let c = operand(self, c)?;
                self.decls.insert(format!(
                    "declare {t} @llvm.amdgcn.raw.ptr.buffer.atomic.{name}.{suffix}({t}, {t}, ptr addrspace(8), i32, i32, i32)"
                ));
                self.line(&format!(
                    "{old} = call {t} @llvm.amdgcn.raw.ptr.buffer.atomic.{name}.{suffix}({t} {value}, {t} {c}, ptr addrspace(8) {rsrc}, i32 {off}, i32 {soff}, i32 0)"
                ));
            }
            None => {
                self.decls.insert(format!(
                    "declare {t} @llvm.amdgcn.raw.ptr.buffer.atomic.{name}.{suffix}({t}, ptr addrspace(8), i32, i32, i32)"
                ));
                self.line(&format!(
                    "{old} = call {t} @llvm.amdgcn.raw.ptr.buffer.atomic.{name}.{suffix}({t} {value}, ptr addrspace(8) {rsrc}, i32 {off}, i32 {soff}, i32 0)"
                ));
            }
        }
        if matches!(ordering, AtomicOrdering::Acquire | AtomicOrdering::AcqRel) {
            fence(self, "acquire");
        }
        if let Some(d) = dst {
            let d = self.define(d)?;
            if t == int {
                self.line(&format!("{d} = add {int} 0, {old}"));
            } else {
                self.line(&format!("{d} = bitcast {t} {old} to {int}"));
            }
        }
        Ok(())
    }
}
