//! Atomics in LLVM IR, one per thread, between the fences its ordering asks for at its scope:
//! a buffer atomic (`llvm.amdgcn.raw.ptr.buffer.atomic.*`) addressed as any buffer access (a
//! masked thread's offset lies outside the buffer, so the hardware drops it), or a global one
//! (`atomicrmw` / `cmpxchg` at the buffer's pointer plus the same offset, in a branch that
//! masked threads skip, reading 0, its fences inside the branch — a thread that skips the
//! atomic has nothing to order, as in Triton's code; no branch where no thread is masked).

use super::offsets::BufferOffset;
use super::{Emitter, llvm_number};
use crate::lower::error::LowerError;
use crate::lower::ir::{
    AtomicKind, AtomicNeighbour, AtomicOrdering, AtomicPath, AtomicScope, GlobalOffset, Value,
};
use crate::target::Target;

impl Emitter<'_> {
    pub(super) fn atomic(
        &mut self,
        (dst, src, cmp): (Option<Value>, Value, Option<Value>),
        (buffer, offset, path): (usize, &GlobalOffset, AtomicPath),
        (kind, ty, ordering, scope): (AtomicKind, &str, AtomicOrdering, AtomicScope),
        target: &Target,
    ) -> Result<(), LowerError> {
        let bits = self.p.value_bits(src);
        let int = format!("i{bits}");
        let float = ty.starts_with('f');
        // The operation's type: floats for a float add, integers otherwise.
        let t = if kind == AtomicKind::FAdd {
            llvm_number(ty)?.to_string()
        } else {
            int.clone()
        };
        let BufferOffset {
            voffset: off,
            unmasked,
            soffset: soff,
            live,
        } = self.global_offset(offset, u64::from(bits / 8))?;
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
        if path == AtomicPath::Global {
            let comparand = cmp.map(|c| operand(self, c)).transpose()?;
            let acting = self.all_of(&live);
            let old = self.global_atomic(
                (buffer, &unmasked, &soff, acting),
                (&t, &value),
                comparand,
                kind,
                (ordering, scope),
            )?;
            return self.atomic_result(dst, (&int, &t), &old);
        }
        self.release_fence(ordering, scope);
        let rsrc = self.resource(buffer, target)?;
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
        self.acquire_fence(ordering, scope);
        self.atomic_result(dst, (&int, &t), &old)
    }

    /// The fence before an atomic its ordering asks for (a release).
    fn release_fence(&mut self, ordering: AtomicOrdering, scope: AtomicScope) {
        if matches!(ordering, AtomicOrdering::Release | AtomicOrdering::AcqRel) {
            self.line(&format!("fence{} release", scope.llvm()));
        }
    }

    /// The fence after an atomic its ordering asks for (an acquire).
    fn acquire_fence(&mut self, ordering: AtomicOrdering, scope: AtomicScope) {
        if matches!(ordering, AtomicOrdering::Acquire | AtomicOrdering::AcqRel) {
            self.line(&format!("fence{} acquire", scope.llvm()));
        }
    }

    /// `dst` = the old value (of type `t`) as an integer.
    fn atomic_result(
        &mut self,
        dst: Option<Value>,
        (int, t): (&str, &str),
        old: &str,
    ) -> Result<(), LowerError> {
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

    /// A global atomic at buffer `buffer`'s pointer plus `off + soff` bytes, where the thread
    /// acts (`None`: every thread), between its fences: the old value, of type `t` (0 where
    /// skipped). The fences are in the branch, as the atomic is: a thread that skips it has
    /// nothing to order.
    fn global_atomic(
        &mut self,
        at: (usize, &str, &str, Option<String>),
        (t, value): (&str, &str),
        cmp: Option<String>,
        kind: AtomicKind,
        (ordering, scope): (AtomicOrdering, AtomicScope),
    ) -> Result<String, LowerError> {
        let sync = scope.llvm();
        let zero = if t.starts_with('i') { "0" } else { "0.0" };
        self.guarded(at, (t, zero), |e, address, wide| {
            e.release_fence(ordering, scope);
            let old = e.tmp();
            match (kind.llvm_rmw(), cmp) {
                (Some(_), _) if kind == AtomicKind::FAdd && (t == "half" || t == "bfloat") => {
                    e.packed_half_add((address, wide), (t, value), &old, sync)
                }
                (Some(op), _) => e.line(&format!(
                    "{old} = atomicrmw {op} ptr addrspace(1) {address}, {t} {value}{sync} monotonic"
                )),
                (None, Some(c)) => {
                    let pair = e.tmp();
                    e.line(&format!(
                        "{pair} = cmpxchg ptr addrspace(1) {address}, {t} {c}, {t} {value}{sync} monotonic monotonic"
                    ));
                    e.line(&format!("{old} = extractvalue {{ {t}, i1 }} {pair}, 0"));
                }
                (None, None) => return Err(LowerError::new("a compare-and-swap without its comparand")),
            }
            e.acquire_fence(ordering, scope);
            Ok(old)
        })
    }

    /// `body` (given the address and the 64-bit byte offset `off + soff` into buffer `buffer`)
    /// in a branch taken where `acting` holds (none: run by every thread); its result of type
    /// `t`, `zero` where skipped.
    fn guarded(
        &mut self,
        (buffer, off, soff, acting): (usize, &str, &str, Option<String>),
        (t, zero): (&str, &str),
        body: impl FnOnce(&mut Self, &str, &str) -> Result<String, LowerError>,
    ) -> Result<String, LowerError> {
        let name = self
            .p
            .buffers
            .get(buffer)
            .ok_or_else(|| LowerError::new(format!("no buffer {buffer}")))?
            .name
            .clone();
        let total = self.tmp();
        self.line(&format!("{total} = add i32 {off}, {soff}"));
        let address_of = |e: &mut Self| {
            let wide = e.tmp();
            e.line(&format!("{wide} = zext i32 {total} to i64"));
            let address = e.tmp();
            e.line(&format!(
                "{address} = getelementptr i8, ptr addrspace(1) %{name}, i64 {wide}"
            ));
            (address, wide)
        };
        let Some(acting) = acting else {
            let (address, wide) = address_of(self);
            return body(self, &address, &wide);
        };
        let (act, join) = (self.label("atomic"), self.label("atomic_done"));
        let before = self.block.clone();
        self.line(&format!("br i1 {acting}, label %{act}, label %{join}"));
        self.start_block(&act);
        let (address, wide) = address_of(self);
        let old = body(self, &address, &wide)?;
        let acted = self.block.clone();
        self.line(&format!("br label %{join}"));
        self.start_block(&join);
        let r = self.tmp();
        self.line(&format!(
            "{r} = phi {t} [ {old}, %{acted} ], [ {zero}, %{before} ]"
        ));
        Ok(r)
    }

    /// A packed pair (see [`AtomicNeighbour`]): the even element `src` and its neighbour added
    /// to the aligned word at `offset` in one `<2 x half>` (or `bfloat`) atomic add, a masked
    /// half adding −0.0; each half's old value (0 where masked).
    pub(super) fn atomic_pair(
        &mut self,
        (dst, src, n): (Option<Value>, Value, &AtomicNeighbour),
        (buffer, offset): (usize, &GlobalOffset),
        (ty, ordering, scope): (&str, AtomicOrdering, AtomicScope),
    ) -> Result<(), LowerError> {
        let t = llvm_number(ty)?.to_string();
        let pair_t = format!("<2 x {t}>");
        let minus_zero = if t == "half" { "0xH8000" } else { "0xR8000" };
        let unmasked = GlobalOffset {
            predicate: None,
            ..offset.clone()
        };
        let BufferOffset {
            unmasked: off,
            soffset: soff,
            live: mut acting,
            ..
        } = self.global_offset(&unmasked, 2)?;
        let mut own = |p: Option<Value>| -> Result<Option<Value>, LowerError> {
            Ok(match p {
                Some(p) if self.acting_implies(p)? => None,
                other => other,
            })
        };
        let (low, high) = (own(offset.predicate)?, own(n.predicate)?);
        let low = low.map(|p| self.val(p)).transpose()?;
        let high = high.map(|p| self.val(p)).transpose()?;
        // The pair acts where either half does (a masked half adds −0.0).
        if let (Some(a), Some(b)) = (&low, &high) {
            let any = self.tmp();
            self.line(&format!("{any} = or i1 {a}, {b}"));
            acting.push(any);
        }
        let mut pair = "poison".to_string();
        for (lane, (v, live)) in [(src, &low), (n.src, &high)].into_iter().enumerate() {
            let x = self.val(v)?;
            let mut value = self.tmp();
            self.line(&format!("{value} = bitcast i16 {x} to {t}"));
            if let Some(p) = live {
                let kept = self.tmp();
                self.line(&format!("{kept} = select i1 {p}, {t} {value}, {t} {minus_zero}"));
                value = kept;
            }
            let next = self.tmp();
            self.line(&format!(
                "{next} = insertelement {pair_t} {pair}, {t} {value}, i32 {lane}"
            ));
            pair = next;
        }
        let sync = scope.llvm();
        let acting = self.all_of(&acting);
        let both = self.guarded(
            (buffer, &off, &soff, acting),
            (&pair_t, "zeroinitializer"),
            |e, address, _| {
                e.release_fence(ordering, scope);
                let old = e.tmp();
                e.line(&format!(
                    "{old} = atomicrmw fadd ptr addrspace(1) {address}, {pair_t} {pair}{sync} monotonic, align 4"
                ));
                e.acquire_fence(ordering, scope);
                Ok(old)
            },
        )?;
        for (lane, (d, live)) in [(dst, &low), (n.dst, &high)].into_iter().enumerate() {
            let Some(d) = d else { continue };
            let half = self.tmp();
            self.line(&format!("{half} = extractelement {pair_t} {both}, i32 {lane}"));
            let bits = self.tmp();
            self.line(&format!("{bits} = bitcast {t} {half} to i16"));
            let d = self.define(d)?;
            match live {
                Some(p) => self.line(&format!("{d} = select i1 {p}, i16 {bits}, i16 0")),
                None => self.line(&format!("{d} = add i16 0, {bits}")),
            }
        }
        Ok(())
    }
}

impl Emitter<'_> {
    /// `old` = the 16-bit float at `address` before adding `value` to it: one packed add of
    /// the aligned pair holding it (`global_atomic_pk_add_f16` / `_bf16` where the target has
    /// them), the neighbour adding −0.0, which leaves every number as it is.
    fn packed_half_add(
        &mut self,
        (address, offset): (&str, &str),
        (t, value): (&str, &str),
        old: &str,
        sync: &str,
    ) {
        let high = self.tmp();
        self.line(&format!("{high} = and i64 {offset}, 2"));
        let is_high = self.tmp();
        self.line(&format!("{is_high} = icmp ne i64 {high}, 0"));
        let back = self.tmp();
        self.line(&format!("{back} = sub i64 0, {high}"));
        let aligned = self.tmp();
        self.line(&format!(
            "{aligned} = getelementptr i8, ptr addrspace(1) {address}, i64 {back}"
        ));
        let (lane, other) = (self.tmp(), self.tmp());
        self.line(&format!("{lane} = select i1 {is_high}, i32 1, i32 0"));
        self.line(&format!("{other} = xor i32 {lane}, 1"));
        let pair_t = format!("<2 x {t}>");
        let minus_zero = if t == "half" { "0xH8000" } else { "0xR8000" };
        let (p0, pair) = (self.tmp(), self.tmp());
        self.line(&format!(
            "{p0} = insertelement {pair_t} poison, {t} {minus_zero}, i32 {other}"
        ));
        self.line(&format!(
            "{pair} = insertelement {pair_t} {p0}, {t} {value}, i32 {lane}"
        ));
        let both = self.tmp();
        self.line(&format!(
            "{both} = atomicrmw fadd ptr addrspace(1) {aligned}, {pair_t} {pair}{sync} monotonic, align 4"
        ));
        self.line(&format!("{old} = extractelement {pair_t} {both}, i32 {lane}"));
    }
}
