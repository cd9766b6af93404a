//! LLVM IR text for `amdgcn-amd-amdhsa` from a [`Program`].
//!
//! The module follows `amdgpu-lowering.md`: one `amdgpu_kernel` whose arguments are
//! `ptr addrspace(1)`, the `amdgpu-no-*` attributes of §3 (so the kernarg pointer is the only
//! user SGPR) and `"amdgpu-flat-work-group-size"="N,N"`; buffers through
//! `make.buffer.rsrc` with the target's word-3 flags and the buffer's exact size as
//! `num_records`, masked lanes given the offset `0x80000000` (§4.3); LDS as a module-level
//! `addrspace(3)` array; barriers as HIP's `__syncthreads` with LDS-only fences (§5.3).
//!
//! # Worked example
//!
//! An empty program of two waves that meet at a barrier: the kernel, its attributes, and the
//! barrier as HIP spells it.
//!
//! ```
//! use linear_layout::lower::{emit_llvm, Program, Op};
//! use linear_layout::target::Target;
//! let mut p = Program::new("k", 64, 128);
//! p.ops.push(Op::Barrier);
//! let ir = emit_llvm(&p, Target::by_name("gfx942")?)?;
//! assert!(ir.contains("target triple = \"amdgcn-amd-amdhsa\""));
//! assert!(ir.contains("\"amdgpu-flat-work-group-size\"=\"128,128\""));
//! assert!(ir.contains("call void @llvm.amdgcn.s.barrier()"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod arith;
mod atomic;
mod control;
mod double;
mod fp8;
mod offsets;
mod special;
mod uniforms;

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;

use super::error::LowerError;
use super::ir::{
    AsmValues, DppCtrl, GlobalOffset, Kernel, Op, Packing, Program, SwapKind, Uniform, UniformInput, Value,
    XorMap, dpp_folds_into_next, numeric,
};
use crate::target::{DirectToLds, DirectToLdsAddress, Target};
use offsets::BufferOffset;

struct Emitter<'a> {
    p: &'a Program,
    body: String,
    decls: BTreeSet<String>,
    next: u32,
    thread_parts: HashMap<Vec<u64>, String>,
    /// `%tid` masked (and shifted) by each term thread parts and conditions have asked for.
    thread_terms: HashMap<(u64, i32), String>,
    swizzled: HashMap<(Vec<u64>, u64), String>,
    conditions: HashMap<u32, String>,
    products: HashMap<(String, String), String>,
    /// Offsets sent past the buffer where a condition fails, by (offset, condition): accesses
    /// masked by a common condition share the select (and LLVM keeps it one instruction).
    masked: HashMap<(String, String), String>,
    /// `i1` values written as `a ∧ b`, by name, with their operands: a masked access applies
    /// each conjunct on its own, so accesses whose masks share a part share its select.
    conjunctions: HashMap<String, (String, String)>,
    defined: Vec<bool>,
    /// Lines at the top of the kernel: workgroup-uniform values, computed once.
    prologue: String,
    /// Which buffers' resources (`%rsrcN`) exist so far.
    resources: Vec<bool>,
    /// How many regions (loop bodies, branches) enclose the code being written.
    depth: u32,
    uniforms: HashMap<Uniform, String>,
    inputs: HashMap<UniformInput, String>,
    /// The block being written, and how many labels exist.
    block: String,
    labels: u32,
    /// Values and uniform slots a loop being written carries: inside its body they are the
    /// body's phis (`%vN.in`, `%uK.in`); after it, the exit's.
    inside: std::collections::HashSet<u32>,
    inside_slots: std::collections::HashSet<u32>,
    /// The names of values and slots inside copies of a region.
    names: Names,
    /// Whether the DPP move being written is folded into the operation after it
    /// ([`dpp_folds_into_next`]).
    dpp_folded: bool,
    /// The bytes an enclosing [`Op::LdsWindow`] adds to LDS addresses (an `i32` operand).
    lds_shift: Option<String>,
    /// The largest constant LLVM folds into a buffer access's immediate offset
    /// ([`LoweringFacts::buffer_immediate_offset`](crate::target::LoweringFacts::buffer_immediate_offset)).
    immediate_offset: u64,
    /// Which `f32` operations side by side are packed.
    packing: Packing,
    /// The predicate of the enclosing [`Op::Predicated`]: the code runs only where it holds,
    /// so an access masked by it alone needs no mask of its own.
    acting: Option<Value>,
}

/// The names of what a copied region defines. A region written more than once (an unrolled
/// loop's trips, a rotated `while` loop's first part) names its values and its loops' slots
/// with the copy's `suffix` (`%v7.u1`, `%u3.u1.in`), and reads its carried values and slots
/// as the operands each copy gives them (the initial values, the previous trip's).
#[derive(Clone, Default)]
struct Names {
    /// Operands read in place of values and slots (by number).
    value_operands: HashMap<u32, String>,
    slot_operands: HashMap<u32, String>,
    /// The names of the values and slots the copies being written define.
    values: HashMap<u32, String>,
    slots: HashMap<u32, String>,
    /// The suffix of the copy being written (the copies around it first).
    suffix: Option<String>,
}

fn lit(c: u64) -> String {
    (c as u32 as i32).to_string()
}

fn ty(n: usize, bits: u32) -> String {
    if n == 1 {
        format!("i{bits}")
    } else {
        format!("<{n} x i{bits}>")
    }
}

impl Kernel {
    /// The LLVM IR module ([`emit_llvm`]).
    ///
    /// ```
    /// use linear_layout::linear::LinearLayout;
    /// use linear_layout::lower::{copy_kernel, Dtype};
    /// use linear_layout::target::Target;
    /// let l = LinearLayout::identity_1d(64, "lane", "dim0")?;
    /// let ir = copy_kernel(&l, &[64], Dtype::F16, Target::by_name("gfx950")?)?.llvm_ir()?;
    /// assert!(ir.contains("define amdgpu_kernel void @copy(ptr addrspace(1) %in, ptr addrspace(1) %out)"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn llvm_ir(&self) -> Result<String, LowerError> {
        emit_llvm(&self.program, self.target)
    }
}

/// The LLVM type of a number type of the instruction table.
fn llvm_number(ty: &str) -> Result<&'static str, LowerError> {
    Ok(match ty {
        "f64" => "double",
        "f32" => "float",
        "f16" => "half",
        "bf16" => "bfloat",
        "i32" => "i32",
        "i8" => "i8",
        _ => return Err(LowerError::new(format!("no conversion to or from {ty}"))),
    })
}

/// The LLVM type of a conversion's type (`u32` is an `i32` read as unsigned).
fn llvm_convertible(ty: &str) -> Result<&'static str, LowerError> {
    Ok(match ty {
        "i1" | "u1" => "i1",
        "u8" => "i8",
        "i16" | "u16" => "i16",
        "u32" => "i32",
        "i64" | "u64" => "i64",
        other => llvm_number(other)?,
    })
}

/// `text` as the inside of an LLVM IR string literal: printable ASCII as it is, every other
/// byte, `"` and `\` as `\` and two hex digits (a newline is `\0A`).
fn llvm_string(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b' '..=b'~' if b != b'"' && b != b'\\' => char::from(b).to_string(),
            _ => format!("\\{b:02X}"),
        })
        .collect()
}

/// An LLVM integer type narrower than a register (`i1`, `i8`, `i16`).
fn narrow_integer(llvm: &str) -> bool {
    matches!(llvm, "i1" | "i8" | "i16")
}

/// The LLVM type of a scalar argument's type.
fn llvm_scalar(ty: &str) -> Result<&'static str, LowerError> {
    Ok(match ty {
        "i1" => "i1",
        "i16" => "i16",
        "i64" => "i64",
        other => llvm_number(other)?,
    })
}

/// The name suffix of an LLVM float type in intrinsic names.
fn llvm_suffix(t: &str) -> String {
    match t {
        "double" => "f64".to_string(),
        "float" => "f32".to_string(),
        "half" => "f16".to_string(),
        "bfloat" => "bf16".to_string(),
        other => other.to_string(),
    }
}

/// The type a buffer intrinsic moves for `total` bits, and its name suffix.
fn buffer_ty(total: u32) -> Result<(&'static str, &'static str), LowerError> {
    Ok(match total {
        8 => ("i8", "i8"),
        16 => ("i16", "i16"),
        32 => ("i32", "i32"),
        64 => ("<2 x i32>", "v2i32"),
        128 => ("<4 x i32>", "v4i32"),
        _ => return Err(LowerError::new(format!("no buffer access of {total} bits"))),
    })
}

impl Emitter<'_> {
    /// `%rsrc{i}`: buffer `i`'s resource over the memory at `base` (a buffer sized at run
    /// time gets the largest range a 32-bit offset reaches below the masking offset
    /// 0x80000000), in the current block (`inline`) or at the top of the kernel.
    fn make_resource(
        &mut self,
        (i, base): (usize, &str),
        inline: bool,
        target: &Target,
    ) -> Result<(), LowerError> {
        let b = &self.p.buffers[i];
        let records = b.bytes().unwrap_or(0x7FFF_FFFE);
        if records > target.lowering.buffer_max_records.min(i32::MAX as u64) {
            return Err(LowerError::new(format!(
                "buffer {} is too large for a buffer resource",
                b.name
            )));
        }
        self.decls.insert(
            "declare ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1), i16, i64, i32)"
                .to_string(),
        );
        self.put(
            inline,
            &format!(
                "%rsrc{i} = call ptr addrspace(8) @llvm.amdgcn.make.buffer.rsrc.p8.p1(ptr addrspace(1) {base}, i16 0, i64 {records}, i32 {})",
                target.lowering.buffer_flags as i32
            ),
        );
        if let Some(made) = self.resources.get_mut(i) {
            *made = true;
        }
        Ok(())
    }

    /// Argument buffer `i`'s resource, made where it is first used when that is outside every
    /// region (so it dominates all later uses), else at the top of the kernel. Made as late as
    /// that, resources used one after another share one quad of scalar registers: each built
    /// in the registers the last one's access has finished reading, where resources made all
    /// at once stay live together and copy their constant words into a quad each.
    fn resource(&mut self, i: usize, target: &Target) -> Result<String, LowerError> {
        if !self.resources.get(i).copied().unwrap_or(true) {
            let b = &self.p.buffers[i];
            if !b.is_argument() {
                return Err(LowerError::new(format!(
                    "buffer {} is accessed before its address is bound",
                    b.name
                )));
            }
            let base = format!("%{}", b.name);
            self.make_resource((i, &base), self.depth == 0, target)?;
        }
        Ok(format!("%rsrc{i}"))
    }

    fn tmp(&mut self) -> String {
        self.next += 1;
        format!("%t{}", self.next)
    }

    fn line(&mut self, s: &str) {
        self.body.push_str("  ");
        self.body.push_str(s);
        self.body.push('\n');
    }

    fn val(&self, v: Value) -> Result<String, LowerError> {
        if let Some(operand) = self.names.value_operands.get(&v.0) {
            return Ok(operand.clone());
        }
        let copied = self.names.values.contains_key(&v.0);
        if !copied && !self.defined.get(v.0 as usize).copied().unwrap_or(false) {
            return Err(LowerError::new(format!(
                "value {} is used before it is defined",
                v.0
            )));
        }
        let name = self.value_name(v);
        Ok(match self.inside.contains(&v.0) {
            true => format!("{name}.in"),
            false => name,
        })
    }

    /// `%vN`, or its name in the copy being written.
    fn value_name(&self, v: Value) -> String {
        self.names
            .values
            .get(&v.0)
            .cloned()
            .unwrap_or_else(|| format!("%v{}", v.0))
    }

    /// `%uK`, or its name in the copy being written.
    fn slot_name(&self, k: u32) -> String {
        self.names
            .slots
            .get(&k)
            .cloned()
            .unwrap_or_else(|| format!("%u{k}"))
    }

    /// A loop's uniform slot about to be defined: in a copy, under the copy's name.
    fn define_slot(&mut self, k: u32) {
        if let Some(suffix) = &self.names.suffix {
            self.names.slots.insert(k, format!("%u{k}{suffix}"));
        }
    }

    fn define(&mut self, v: Value) -> Result<String, LowerError> {
        if let Some(suffix) = &self.names.suffix {
            let name = format!("%v{}{suffix}", v.0);
            self.names.values.insert(v.0, name.clone());
            return Ok(name);
        }
        match self.defined.get_mut(v.0 as usize) {
            Some(d) if !*d => {
                *d = true;
                Ok(format!("%v{}", v.0))
            }
            _ => Err(LowerError::new(format!(
                "value {} is defined twice or does not exist",
                v.0
            ))),
        }
    }

    /// `(%tid & mask) << shift` (a right shift where `shift` is negative), computed once at
    /// the top of the kernel.
    fn thread_term(&mut self, mask: u64, shift: i32) -> String {
        if let Some(n) = self.thread_terms.get(&(mask, shift)) {
            return n.clone();
        }
        let all = u64::from(self.p.threads).saturating_sub(1);
        let masked = if mask == all {
            "%tid".to_string()
        } else if shift == 0 {
            let a = self.tmp();
            self.prologue_line(&format!("{a} = and i32 %tid, {}", lit(mask)));
            a
        } else {
            self.thread_term(mask, 0)
        };
        let name = match shift {
            0 => masked,
            s if s > 0 => {
                let t = self.tmp();
                self.prologue_line(&format!("{t} = shl i32 {masked}, {s}"));
                t
            }
            s => {
                let t = self.tmp();
                self.prologue_line(&format!("{t} = lshr i32 {masked}, {}", -s));
                t
            }
        };
        self.thread_terms.insert((mask, shift), name.clone());
        name
    }

    /// The thread part of an address, computed once per distinct column list at the top of
    /// the kernel: it depends on the thread id alone, so every block sees the one copy (a loop
    /// body and the code after it would otherwise each compute their own, and LLVM's O2
    /// pipeline, which has no GVN, keeps both).
    fn thread_part(&mut self, cols: &[u64]) -> Option<String> {
        if cols.iter().all(|&c| c == 0) {
            return None;
        }
        if let Some(n) = self.thread_parts.get(cols) {
            return Some(n.clone());
        }
        let map = XorMap {
            cols: cols.to_vec(),
            constant: 0,
        };
        let mut acc: Option<(String, u64)> = None;
        for term in map.terms() {
            let shifted = self.thread_term(term.mask, term.shift);
            acc = Some(match acc {
                None => (shifted, term.bits()),
                Some((prev, bits)) => {
                    let t = self.tmp();
                    let op = if bits & term.bits() == 0 {
                        "or disjoint"
                    } else {
                        "xor"
                    };
                    self.prologue_line(&format!("{t} = {op} i32 {prev}, {shifted}"));
                    (t, bits | term.bits())
                }
            });
        }
        let name = acc.map(|(n, _)| n)?;
        self.thread_parts.insert(cols.to_vec(), name.clone());
        Some(name)
    }

    /// An `i32` operand holding `m` for each thread: the thread part, XOR the constant bits it
    /// can reach, then the other constant bits added (`or disjoint`), so that accesses that
    /// differ only there share one base register and LLVM folds the difference into the
    /// instruction's offset (and pairs DS accesses into `read2`/`write2`).
    fn xor_map(&mut self, m: &XorMap) -> String {
        let Some(t) = self.thread_part(&m.cols) else {
            return lit(m.constant);
        };
        let reach = m.thread_bits();
        let (overlap, disjoint) = (m.constant & reach, m.constant & !reach);
        let base = if overlap == 0 {
            t
        } else {
            let key = (m.cols.clone(), overlap);
            match self.swizzled.get(&key) {
                Some(n) => n.clone(),
                None => {
                    let r = self.tmp();
                    self.prologue_line(&format!("{r} = xor i32 {t}, {}", lit(overlap)));
                    self.swizzled.insert(key, r.clone());
                    r
                }
            }
        };
        if disjoint == 0 {
            return base;
        }
        let r = self.tmp();
        self.line(&format!("{r} = or disjoint i32 {base}, {}", lit(disjoint)));
        r
    }

    /// A vector operand `<n x iB>` (or `iB`) built from values.
    fn gather(&mut self, vals: &[Value]) -> Result<(String, String), LowerError> {
        let bits = self.p.value_bits(vals[0]);
        let t = ty(vals.len(), bits);
        if vals.len() == 1 {
            return Ok((self.val(vals[0])?, t));
        }
        let mut acc = "poison".to_string();
        for (i, &v) in vals.iter().enumerate() {
            let x = self.val(v)?;
            let n = self.tmp();
            self.line(&format!("{n} = insertelement {t} {acc}, i{bits} {x}, i32 {i}"));
            acc = n;
        }
        Ok((acc, t))
    }

    /// Defines `vals` from a vector operand of type `t`.
    fn scatter(&mut self, src: &str, t: &str, vals: &[Value]) -> Result<(), LowerError> {
        let bits = self.p.value_bits(vals[0]);
        let want = ty(vals.len(), bits);
        let src = if *t == want {
            src.to_string()
        } else {
            let c = self.tmp();
            self.line(&format!("{c} = bitcast {t} {src} to {want}"));
            c
        };
        if vals.len() == 1 {
            let d = self.define(vals[0])?;
            self.line(&format!("{d} = bitcast {want} {src} to {want}"));
            return Ok(());
        }
        for (i, &v) in vals.iter().enumerate() {
            let d = self.define(v)?;
            self.line(&format!("{d} = extractelement {want} {src}, i32 {i}"));
        }
        Ok(())
    }

    fn lds_pointer(&mut self, address: &XorMap) -> String {
        let a = self.xor_map(address);
        self.lds_pointer_at(a)
    }

    /// The LDS pointer of byte address `a` (an `i32` held in a register), moved by the
    /// enclosing window's offset.
    fn lds_pointer_at(&mut self, mut a: String) -> String {
        if let Some(shift) = self.lds_shift.clone() {
            let moved = self.tmp();
            self.line(&format!("{moved} = add i32 {a}, {shift}"));
            a = moved;
        }
        let p = self.tmp();
        self.line(&format!("{p} = getelementptr i8, ptr addrspace(3) @lds, i32 {a}"));
        p
    }

    /// Whether bit `bit` of the thread id is set, as an `i1`: computed once at the top of
    /// the kernel, like the thread parts.
    fn condition(&mut self, bit: u32) -> String {
        if let Some(c) = self.conditions.get(&bit) {
            return c.clone();
        }
        let a = self.thread_term(1u64 << bit.min(31), 0);
        let c = self.tmp();
        self.prologue_line(&format!("{c} = icmp ne i32 {a}, 0"));
        self.conditions.insert(bit, c.clone());
        c
    }

    fn direct_to_lds(&self, target: &Target) -> Result<DirectToLds, LowerError> {
        target.lowering.direct_to_lds.ok_or_else(|| {
            LowerError::new(format!(
                "{} has no loads from global memory straight into LDS",
                target.name
            ))
        })
    }

    /// A direct-to-LDS load (amdgpu-lowering.md §6). gfx9's form takes one wave-uniform LDS
    /// base and writes lane `i`'s bytes at `base + i·size`: the address's lane part must be
    /// exactly that, and the rest (warp bits and constant) goes through `readfirstlane`.
    fn direct_load(
        &mut self,
        target: &Target,
        buffer: usize,
        offset: &GlobalOffset,
        elements: u32,
        address: &XorMap,
    ) -> Result<(), LowerError> {
        let d = self.direct_to_lds(target)?;
        let element_bits = self
            .p
            .buffers
            .get(buffer)
            .map(|b| b.element_bits)
            .ok_or_else(|| LowerError::new("no such buffer"))?;
        let size = elements * element_bits / 8;
        if !d.bytes.contains(&size) {
            return Err(LowerError::new(format!(
                "{} loads {:?} bytes per lane straight into LDS, not {size}",
                target.name, d.bytes
            )));
        }
        let BufferOffset {
            voffset: off,
            soffset: soff,
            ..
        } = self.global_offset(offset, u64::from(element_bits / 8))?;
        match d.address {
            DirectToLdsAddress::WaveBlock => {
                let lane_bits = self.p.wave_size.trailing_zeros() as usize;
                let in_order = address
                    .cols
                    .iter()
                    .take(lane_bits)
                    .enumerate()
                    .all(|(q, &c)| c == u64::from(size) << q);
                if !in_order || address.cols.len() < lane_bits {
                    return Err(LowerError::new(format!(
                        "{}'s direct-to-LDS loads write a wave's lanes one after another ({size} B each); this access places them at {:?}",
                        target.name,
                        &address.cols[..lane_bits.min(address.cols.len())]
                    )));
                }
                let mut uniform = address.clone();
                uniform.cols[..lane_bits].fill(0);
                let base = self.xor_map(&uniform);
                self.decls
                    .insert("declare i32 @llvm.amdgcn.readfirstlane.i32(i32)".to_string());
                let u = self.tmp();
                self.line(&format!(
                    "{u} = call i32 @llvm.amdgcn.readfirstlane.i32(i32 {base})"
                ));
                let l = self.tmp();
                self.line(&format!("{l} = getelementptr i8, ptr addrspace(3) @lds, i32 {u}"));
                let rsrc = self.resource(buffer, target)?;
                self.decls.insert(format!(
                    "declare void @{}(ptr addrspace(8), ptr addrspace(3), i32, i32, i32, i32, i32)",
                    d.intrinsic
                ));
                self.line(&format!(
                    "call void @{}(ptr addrspace(8) {rsrc}, ptr addrspace(3) {l}, i32 {size}, i32 {off}, i32 {soff}, i32 0, i32 0)",
                    d.intrinsic
                ));
            }
            DirectToLdsAddress::PerLane => {
                if !offset.unmasked() {
                    return Err(LowerError::new(format!(
                        "{}'s direct-to-LDS loads have no bounds check: the tensor must fill the layout",
                        target.name
                    )));
                }
                let name = &self.p.buffers[buffer].name;
                let off = if soff == "0" {
                    off
                } else {
                    let t = self.tmp();
                    self.line(&format!("{t} = add i32 {off}, {soff}"));
                    t
                };
                let g = self.tmp();
                self.line(&format!(
                    "{g} = getelementptr i8, ptr addrspace(1) %{name}, i32 {off}"
                ));
                let l = self.lds_pointer(address);
                let intrinsic = format!("{}{}", d.intrinsic, size * 8);
                self.decls.insert(format!(
                    "declare void @{intrinsic}(ptr addrspace(1), ptr addrspace(3), i32, i32)"
                ));
                self.line(&format!(
                    "call void @{intrinsic}(ptr addrspace(1) {g}, ptr addrspace(3) {l}, i32 0, i32 0)"
                ));
            }
        }
        Ok(())
    }

    /// `ops` in order, two `f32` operations of one kind side by side as one packed operation
    /// where the target has them.
    fn ops(&mut self, ops: &[Op], target: &Target) -> Result<(), LowerError> {
        let mut i = 0;
        while let Some(op) = ops.get(i) {
            let pair = if target.lowering.packed_f32 {
                self.packing.pair_at(ops, i)
            } else {
                None
            };
            self.packing.record(op);
            match pair {
                Some((arith, pair)) => {
                    self.arith_pair(arith, pair)?;
                    i += 2;
                }
                _ => {
                    self.dpp_folded = dpp_folds_into_next(ops, i);
                    self.op(op, target)?;
                    i += 1;
                }
            }
        }
        Ok(())
    }

    fn op(&mut self, op: &Op, target: &Target) -> Result<(), LowerError> {
        match op {
            Op::GlobalLoad {
                dst, buffer, offset, ..
            }
            | Op::GlobalStore {
                src: dst,
                buffer,
                offset,
            } => {
                if dst.is_empty() {
                    return Err(LowerError::new("an empty global access"));
                }
                let bits = self.p.value_bits(dst[0]);
                let (ity, suffix) = buffer_ty(bits * dst.len() as u32)?;
                let BufferOffset {
                    voffset: off,
                    soffset: soff,
                    live,
                    ..
                } = self.global_offset(offset, u64::from(bits / 8))?;
                let rsrc = self.resource(*buffer, target)?;
                if matches!(op, Op::GlobalStore { .. }) {
                    let (v, t) = self.gather(dst)?;
                    let v = if t == ity {
                        v
                    } else {
                        let c = self.tmp();
                        self.line(&format!("{c} = bitcast {t} {v} to {ity}"));
                        c
                    };
                    self.decls.insert(format!("declare void @llvm.amdgcn.raw.ptr.buffer.store.{suffix}({ity}, ptr addrspace(8), i32, i32, i32)"));
                    self.line(&format!("call void @llvm.amdgcn.raw.ptr.buffer.store.{suffix}({ity} {v}, ptr addrspace(8) {rsrc}, i32 {off}, i32 {soff}, i32 0)"));
                } else if offset.unmasked()
                    && self.p.buffers[*buffer].is_argument()
                    && (offset.coords.is_empty()
                        || offset.index.is_none()
                            && offset.coords.iter().all(|c| c.cols.iter().all(|&k| k == 0)))
                {
                    // The same unmasked elements in every thread — a scalar's load, its index
                    // data too (a binary search's probe) — a plain load, which LLVM makes a
                    // scalar load where the address is uniform and nothing before it in the
                    // kernel may write them (the value then stays in scalar registers, as
                    // Triton's does). Through an argument's pointer: a loaded pointer is bound
                    // as a buffer only.
                    let name = self.p.buffers[*buffer].name.clone();
                    let (total, wide, address, l) = (self.tmp(), self.tmp(), self.tmp(), self.tmp());
                    self.line(&format!("{total} = add i32 {off}, {soff}"));
                    self.line(&format!("{wide} = zext i32 {total} to i64"));
                    self.line(&format!(
                        "{address} = getelementptr i8, ptr addrspace(1) %{name}, i64 {wide}"
                    ));
                    let align = (bits / 8).max(1);
                    self.line(&format!(
                        "{l} = load {ity}, ptr addrspace(1) {address}, align {align}"
                    ));
                    self.scatter(&l, ity, dst)?;
                } else {
                    self.decls.insert(format!("declare {ity} @llvm.amdgcn.raw.ptr.buffer.load.{suffix}(ptr addrspace(8), i32, i32, i32)"));
                    let mut l = self.tmp();
                    self.line(&format!("{l} = call {ity} @llvm.amdgcn.raw.ptr.buffer.load.{suffix}(ptr addrspace(8) {rsrc}, i32 {off}, i32 {soff}, i32 0)"));
                    if let Op::GlobalLoad { other, .. } = op
                        && *other != 0
                        && let Some(m) = self.all_of(&live)
                    {
                        // Masked lanes read 0 from past the buffer; they take `other`.
                        let (o, r) = (self.tmp(), self.tmp());
                        let t = ty(dst.len(), bits);
                        self.line(&format!("{o} = bitcast {ity} {l} to {t}"));
                        let splat = if dst.len() == 1 {
                            format!("{}", *other as i64)
                        } else {
                            format!("splat (i{bits} {})", *other as i64)
                        };
                        self.line(&format!("{r} = select i1 {m}, {t} {o}, {t} {splat}"));
                        let back = self.tmp();
                        self.line(&format!("{back} = bitcast {t} {r} to {ity}"));
                        l = back;
                    }
                    self.scatter(&l, ity, dst)?;
                }
            }
            Op::GlobalAtomic {
                dst,
                src,
                cmp,
                buffer,
                offset,
                kind,
                ty,
                ordering,
                scope,
                path,
                neighbour,
            } => match neighbour {
                Some(n) => self.atomic_pair((*dst, *src, n), (*buffer, offset), (ty, *ordering, *scope))?,
                None => self.atomic(
                    (*dst, *src, *cmp),
                    (*buffer, offset, *path),
                    (*kind, ty, *ordering, *scope),
                    target,
                )?,
            },
            Op::LdsWrite { src, address } => {
                let (v, t) = self.gather(src)?;
                let align = (src.len() as u32 * self.p.value_bits(src[0]) / 8).max(1);
                let p = self.lds_pointer(address);
                self.line(&format!("store {t} {v}, ptr addrspace(3) {p}, align {align}"));
            }
            Op::LdsRead { dst, address } => {
                let bits = self.p.value_bits(dst[0]);
                let t = ty(dst.len(), bits);
                let align = (dst.len() as u32 * bits / 8).max(1);
                let p = self.lds_pointer(address);
                let l = self.tmp();
                self.line(&format!("{l} = load {t}, ptr addrspace(3) {p}, align {align}"));
                self.scatter(&l, &t, dst)?;
            }
            Op::LdsReadIndexed { dst, address, .. } => {
                let bits = self.p.value_bits(*dst);
                let a = self.val(*address)?;
                let p = self.lds_pointer_at(a);
                let d = self.define(*dst)?;
                self.line(&format!(
                    "{d} = load i{bits}, ptr addrspace(3) {p}, align {}",
                    (bits / 8).max(1)
                ));
            }
            Op::LdsAtomicAdd { src, address, .. } => {
                let a = self.val(*address)?;
                let v = self.val(*src)?;
                let p = self.lds_pointer_at(a);
                let old = self.tmp();
                self.line(&format!(
                    "{old} = atomicrmw add ptr addrspace(3) {p}, i32 {v} syncscope(\"workgroup\") monotonic, align 4"
                ));
            }
            Op::LdsReadTransposed { dst, address } => {
                let bits = self.p.value_bits(dst[0]);
                let (b16, b8) = target
                    .lowering
                    .transpose_read_b64
                    .ok_or_else(|| LowerError::new(format!("{} has no transposing LDS read", target.name)))?;
                let (name, rty) = match bits {
                    16 => (b16, "<4 x i16>"),
                    8 => (b8, "<2 x i32>"),
                    _ => return Err(LowerError::new("transposing reads move 8- or 16-bit elements")),
                };
                self.decls
                    .insert(format!("declare {rty} @{name}(ptr addrspace(3))"));
                let p = self.lds_pointer(address);
                let l = self.tmp();
                self.line(&format!("{l} = call {rty} @{name}(ptr addrspace(3) {p})"));
                self.scatter(&l, rty, dst)?;
            }
            Op::GlobalLoadToLds {
                buffer,
                offset,
                elements,
                address,
            } => self.direct_load(target, *buffer, offset, *elements, address)?,
            Op::ReadUniform { slot, src } => {
                let v = self.val(*src)?;
                self.decls
                    .insert("declare i32 @llvm.amdgcn.readfirstlane.i32(i32)".to_string());
                self.line(&format!(
                    "%u{slot} = call i32 @llvm.amdgcn.readfirstlane.i32(i32 {v})"
                ));
            }
            Op::BindBuffer { buffer } => {
                // The address is the same in every thread: its first lane's, in scalar registers.
                let address = self
                    .p
                    .buffers
                    .get(*buffer)
                    .and_then(|b| b.address)
                    .ok_or_else(|| LowerError::new("a bound buffer without an address"))?;
                let a = self.val(address)?;
                self.decls
                    .insert("declare i64 @llvm.amdgcn.readfirstlane.i64(i64)".to_string());
                let (uniform, base) = (self.tmp(), self.tmp());
                self.line(&format!(
                    "{uniform} = call i64 @llvm.amdgcn.readfirstlane.i64(i64 {a})"
                ));
                self.line(&format!("{base} = inttoptr i64 {uniform} to ptr addrspace(1)"));
                self.make_resource((*buffer, &base), true, target)?;
            }
            Op::WaitDirectLoads => {
                let (name, arg) = self.direct_to_lds(target)?.wait;
                let arg_ty = arg.split(' ').next().unwrap_or("i32");
                self.decls.insert(format!("declare void @{name}({arg_ty})"));
                self.line(&format!("call void @{name}({arg})"));
            }
            Op::Barrier => {
                self.decls
                    .insert("declare void @llvm.amdgcn.s.barrier()".to_string());
                self.line("fence syncscope(\"workgroup\") release, !mmra !0");
                self.line("call void @llvm.amdgcn.s.barrier()");
                self.line("fence syncscope(\"workgroup\") acquire, !mmra !0");
            }
            Op::WorkgroupBarrier => {
                self.decls
                    .insert("declare void @llvm.amdgcn.s.barrier()".to_string());
                self.line("fence syncscope(\"workgroup\") release");
                self.line("call void @llvm.amdgcn.s.barrier()");
                self.line("fence syncscope(\"workgroup\") acquire");
            }
            Op::Bpermute { dst, src, lane } => {
                let a = self.xor_map(&lane.shifted(2));
                let s = self.val(*src)?;
                let d = self.define(*dst)?;
                self.decls
                    .insert("declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)".to_string());
                self.line(&format!(
                    "{d} = call i32 @llvm.amdgcn.ds.bpermute(i32 {a}, i32 {s})"
                ));
            }
            Op::Dpp { dst, src, ctrl } => {
                let broadcast = matches!(ctrl, DppCtrl::RowBcast15 | DppCtrl::RowBcast31);
                let wave_shift = matches!(ctrl, DppCtrl::WaveShr1 | DppCtrl::WaveShl1);
                if !target.instructions.dpp
                    || (broadcast && !target.instructions.dpp_row_broadcast)
                    || (wave_shift && !target.instructions.dpp_wave_shift)
                {
                    return Err(LowerError::new(format!("{} has no DPP {ctrl:?}", target.name)));
                }
                let s = self.val(*src)?;
                let d = self.define(*dst)?;
                self.decls.insert(
                    "declare i32 @llvm.amdgcn.update.dpp.i32(i32, i32, i32, i32, i32, i1)".to_string(),
                );
                // Rows the move leaves keep `old` and lanes without a source read 0
                // (`bound_ctrl`): 0 both ways. A move every lane has a source for needs no
                // `bound_ctrl`, but LLVM folds a move into the operation that reads it only
                // with it: it is set where the next operation is one that folds
                // (`v_add_f32_dpp`, one instruction instead of two, as the cost model counts)
                // and left off elsewhere (a compare folded into a VOP3 DPP encoding buys
                // nothing).
                let old = if ctrl.row_mask() == 0b1111 { "poison" } else { "0" };
                self.line(&format!(
                    "{d} = call i32 @llvm.amdgcn.update.dpp.i32(i32 {old}, i32 {s}, i32 {}, i32 {}, i32 15, i1 {})",
                    ctrl.code(),
                    ctrl.row_mask(),
                    self.dpp_folded || !ctrl.every_lane_reads()
                ));
            }
            Op::PermlaneX16 { dst, src, lanes } => {
                if !target.instructions.permlane16 {
                    return Err(LowerError::new(format!("{} has no v_permlanex16", target.name)));
                }
                let s = self.val(*src)?;
                let d = self.define(*dst)?;
                self.decls.insert(
                    "declare i32 @llvm.amdgcn.permlanex16.i32(i32, i32, i32, i32, i1, i1)".to_string(),
                );
                // The selects: a nibble per lane of the row, lanes 0–7 in the first word.
                let select = |half: &[u8]| {
                    half.iter()
                        .rev()
                        .fold(0u32, |word, &l| word << 4 | u32::from(l & 15)) as i32
                };
                self.line(&format!(
                    "{d} = call i32 @llvm.amdgcn.permlanex16.i32(i32 poison, i32 {s}, i32 {}, i32 {}, i1 false, i1 false)",
                    select(&lanes[..8]),
                    select(&lanes[8..])
                ));
            }
            Op::PermlaneSwap { kind, dst, src } => {
                let (n16, n32) = target
                    .lowering
                    .permlane_swap
                    .ok_or_else(|| LowerError::new(format!("{} has no permlane swaps", target.name)))?;
                let name = if *kind == SwapKind::Rows16 { n16 } else { n32 };
                self.decls
                    .insert(format!("declare {{ i32, i32 }} @{name}(i32, i32, i1, i1)"));
                let (a, b) = (self.val(src[0])?, self.val(src[1])?);
                let s = self.tmp();
                self.line(&format!(
                    "{s} = call {{ i32, i32 }} @{name}(i32 {a}, i32 {b}, i1 false, i1 false)"
                ));
                for (i, &v) in dst.iter().enumerate() {
                    let d = self.define(v)?;
                    self.line(&format!("{d} = extractvalue {{ i32, i32 }} {s}, {i}"));
                }
            }
            Op::SelectOnThreadBit { dst, bit, one, zero } => {
                let c = self.condition(*bit);
                let bits = self.p.value_bits(*dst);
                let (o, z) = (self.val(*one)?, self.val(*zero)?);
                let d = self.define(*dst)?;
                self.line(&format!("{d} = select i1 {c}, i{bits} {o}, i{bits} {z}"));
            }
            Op::Pack { dst, parts } => {
                let (v, t) = self.gather(parts)?;
                let bits = self.p.value_bits(*dst);
                let d = self.define(*dst)?;
                self.line(&format!("{d} = bitcast {t} {v} to i{bits}"));
            }
            Op::Unpack { dst, src } => {
                let s = self.val(*src)?;
                let bits = self.p.value_bits(*src);
                self.scatter(&s, &format!("i{bits}"), dst)?;
            }
            Op::Mma {
                instruction: i,
                dst,
                a,
                b,
                c,
            } => {
                let a = self.operand(a, i.ab_llvm)?;
                let b = self.operand(b, i.ab_llvm)?;
                let c = if c.is_empty() {
                    format!("{} zeroinitializer", i.acc_llvm)
                } else {
                    self.operand(c, i.acc_llvm)?
                };
                let args = i.call.arguments(&a, &b, &c);
                // The declaration: each argument's type (its text without the value).
                let types: Vec<&str> = args
                    .split(", ")
                    .map(|x| x.rsplit_once(' ').map_or(x, |(t, _)| t))
                    .collect();
                self.decls.insert(format!(
                    "declare {} @{}({})",
                    i.acc_llvm,
                    i.intrinsic,
                    types.join(", ")
                ));
                let r = self.tmp();
                self.line(&format!("{r} = call {} @{}({args})", i.acc_llvm, i.intrinsic));
                self.scatter(&r, i.acc_llvm, dst)?;
            }
            Op::Convert { dst, src, from, to }
                if numeric::fp8(from).is_some() || numeric::fp8(to).is_some() =>
            {
                self.convert_fp8(dst, src, from, to)?
            }
            // Integers change width, and floats become narrow integers (below 32 bits),
            // element by element: as a vector, LLVM packs the narrow elements into one
            // register (shifts and ors on gfx11) only to take them apart again. (Narrow
            // integers become floats as a vector: CDNA converts a packed register's bytes in
            // place, and gfx11 packs the `f16` results a matrix instruction reads.)
            Op::Convert { dst, src, from, to }
                if src.len() > 1
                    && llvm_convertible(to)?.starts_with('i')
                    && (llvm_convertible(from)?.starts_with('i')
                        || narrow_integer(llvm_convertible(to)?)) =>
            {
                for (&d, &s) in dst.iter().zip(src) {
                    self.op(
                        &Op::Convert {
                            dst: vec![d],
                            src: vec![s],
                            from,
                            to,
                        },
                        target,
                    )?;
                }
            }
            Op::Convert { dst, src, from, to } => {
                let (ft, tt) = (llvm_convertible(from)?, llvm_convertible(to)?);
                let (fb, tb) = (self.p.value_bits(src[0]), self.p.value_bits(dst[0]));
                let vector = |t: &str| {
                    if src.len() == 1 {
                        t.to_string()
                    } else {
                        format!("<{} x {t}>", src.len())
                    }
                };
                let (fv, tv) = (vector(ft), vector(tt));
                let (mut x, xt) = self.gather(src)?;
                if xt != fv {
                    let t = self.tmp();
                    self.line(&format!("{t} = bitcast {xt} {x} to {fv}"));
                    x = t;
                }
                let float = |t: &str| !t.starts_with('i');
                let unsigned = |t: &str| t.starts_with('u');
                let cast = match (float(ft), float(tt)) {
                    (true, true) if fb > tb => "fptrunc",
                    (true, true) if fb == tb => "bitcast",
                    (true, true) => "fpext",
                    (false, false) if fb > tb => "trunc",
                    (false, false) if fb == tb => "bitcast",
                    (false, false) if unsigned(from) => "zext",
                    (false, false) => "sext",
                    (true, false) if unsigned(to) => "fptoui",
                    (true, false) => "fptosi",
                    (false, true) if unsigned(from) => "uitofp",
                    (false, true) => "sitofp",
                };
                let y = self.tmp();
                if cast == "bitcast" && ft != tt {
                    // Two floats of one width (f16 ↔ bf16): through f32, exactly.
                    let wide = self.tmp();
                    self.line(&format!("{wide} = fpext {fv} {x} to {}", vector("float")));
                    self.line(&format!("{y} = fptrunc {} {wide} to {tv}", vector("float")));
                } else {
                    self.line(&format!("{y} = {cast} {fv} {x} to {tv}"));
                }
                self.scatter(&y, &tv, dst)?;
            }
            Op::Arith { op, ty, dst, src } => self.arith(*op, ty, *dst, src)?,
            Op::InlineAsm {
                asm,
                constraints,
                pure,
                dst,
                src,
            } => self.inline_asm(asm, constraints, *pure, dst, src)?,
            Op::Compare { pred, ty, dst, a, b } => {
                let bits = self.p.value_bits(*a);
                let (mut x, mut y) = (self.val(*a)?, self.val(*b)?);
                let (cmp, t) = if ty.starts_with('i') {
                    ("icmp", format!("i{bits}"))
                } else {
                    let t = llvm_number(ty)?.to_string();
                    for v in [&mut x, &mut y] {
                        let c = self.tmp();
                        self.line(&format!("{c} = bitcast i{bits} {v} to {t}"));
                        *v = c;
                    }
                    ("fcmp", t)
                };
                let d = self.define(*dst)?;
                self.line(&format!("{d} = {cmp} {} {t} {x}, {y}", pred.spelling()));
            }
            Op::Select { dst, cond, a, b } => {
                let w = self.p.value_bits(*dst);
                let (c, x, y) = (self.val(*cond)?, self.val(*a)?, self.val(*b)?);
                let d = self.define(*dst)?;
                self.line(&format!("{d} = select i1 {c}, i{w} {x}, i{w} {y}"));
            }
            Op::ThreadMap { dst, map } => {
                let w = self.p.value_bits(*dst);
                let x = self.xor_map(map);
                let d = self.define(*dst)?;
                if w == 32 {
                    self.line(&format!("{d} = add i32 0, {x}"));
                } else {
                    self.line(&format!("{d} = zext i32 {x} to i{w}"));
                }
            }
            Op::UniformValue { dst, value } => {
                let w = self.p.value_bits(*dst);
                let x = self.uniform(value)?;
                let d = self.define(*dst)?;
                match w {
                    32 => self.line(&format!("{d} = add i32 0, {x}")),
                    w if w < 32 => self.line(&format!("{d} = trunc i32 {x} to i{w}")),
                    w => self.line(&format!("{d} = sext i32 {x} to i{w}")),
                }
            }
            Op::BufferAddress { dst, buffer } => {
                let name = self
                    .p
                    .buffers
                    .get(*buffer)
                    .filter(|b| b.is_argument())
                    .map(|b| b.name.clone())
                    .ok_or_else(|| LowerError::new(format!("buffer {buffer} is no argument")))?;
                let d = self.define(*dst)?;
                self.line(&format!("{d} = ptrtoint ptr addrspace(1) %{name} to i64"));
            }
            Op::Argument { dst, index } => {
                let s = self
                    .p
                    .scalars
                    .get(*index)
                    .ok_or_else(|| LowerError::new(format!("scalar argument {index} does not exist")))?;
                let (w, t, name) = (s.bits(), llvm_scalar(s.ty)?, s.name.clone());
                let d = self.define(*dst)?;
                if t.starts_with('i') {
                    self.line(&format!("{d} = add {t} 0, %{name}"));
                } else {
                    self.line(&format!("{d} = bitcast {t} %{name} to i{w}"));
                }
            }
            Op::Constant { dst, bits } => {
                let w = self.p.value_bits(*dst);
                let d = self.define(*dst)?;
                let b = if w >= 64 { *bits } else { *bits & ((1 << w) - 1) };
                self.line(&format!("{d} = add i{w} 0, {b}"));
            }
            Op::Loop {
                counter,
                start,
                end,
                step,
                uniforms,
                values,
                body,
            } => self.emit_loop((*counter, start, end, step), uniforms, values, body, target)?,
            Op::LdsWindow { offset, ops } => {
                let shift = self.uniform(offset)?;
                let outer = self.lds_shift.clone();
                let total = match &outer {
                    Some(o) => {
                        let t = self.tmp();
                        self.line(&format!("{t} = add i32 {o}, {shift}"));
                        t
                    }
                    None => shift,
                };
                self.lds_shift = Some(total);
                let result = self.ops(ops, target);
                self.lds_shift = outer;
                result?;
            }
            Op::If {
                cond,
                then,
                otherwise,
                results,
            } => self.emit_if(cond, then, otherwise, results, target)?,
            Op::While {
                uniforms,
                values,
                before,
                cond,
                results,
                after,
            } => self.emit_while((uniforms, values), (before, cond, after), results, target)?,
            Op::Predicated { predicate, ops } => self.emit_predicated(*predicate, ops, target)?,
        }
        Ok(())
    }
    /// A matrix-instruction operand of LLVM type `t` (`type value`) from its elements.
    /// One statement of inline assembly: LLVM's `call … asm`, each operand and result a scalar
    /// of its element type or a vector of `pack` of them, several results a struct.
    fn inline_asm(
        &mut self,
        asm: &str,
        constraints: &str,
        pure: bool,
        dst: &[AsmValues],
        src: &[AsmValues],
    ) -> Result<(), LowerError> {
        let llvm = |a: &AsmValues| -> Result<String, LowerError> {
            let t = llvm_convertible(a.ty)?;
            Ok(match a.values.len() {
                1 => t.to_string(),
                n => format!("<{n} x {t}>"),
            })
        };
        let mut args = Vec::with_capacity(src.len());
        for operand in src {
            let t = llvm(operand)?;
            args.push(self.operand(&operand.values, &t)?);
        }
        let types = dst.iter().map(llvm).collect::<Result<Vec<_>, _>>()?;
        let returned = match types.as_slice() {
            [] => "void".to_string(),
            [one] => one.clone(),
            many => format!("{{ {} }}", many.join(", ")),
        };
        let call = format!(
            "call {returned} asm {}\"{}\", \"{}\"({})",
            if pure { "" } else { "sideeffect " },
            llvm_string(asm),
            llvm_string(constraints),
            args.join(", ")
        );
        if dst.is_empty() {
            self.line(&call);
            return Ok(());
        }
        let r = self.tmp();
        self.line(&format!("{r} = {call}"));
        if let ([one], [t]) = (dst, types.as_slice()) {
            return self.scatter(&r, t, &one.values);
        }
        for (i, (result, t)) in dst.iter().zip(&types).enumerate() {
            let e = self.tmp();
            self.line(&format!("{e} = extractvalue {returned} {r}, {i}"));
            self.scatter(&e, t, &result.values)?;
        }
        Ok(())
    }

    fn operand(&mut self, vals: &[Value], t: &str) -> Result<String, LowerError> {
        let (v, vt) = self.gather(vals)?;
        if vt == t {
            return Ok(format!("{t} {v}"));
        }
        let c = self.tmp();
        self.line(&format!("{c} = bitcast {vt} {v} to {t}"));
        Ok(format!("{t} {c}"))
    }
}

/// The LLVM IR module of `p` for `target` (see the module docs).
///
/// ```
/// use linear_layout::lower::{emit_llvm, Program};
/// use linear_layout::target::Target;
/// let ir = emit_llvm(&Program::new("k", 32, 32), Target::by_name("gfx1201")?)?;
/// assert!(ir.contains("define amdgpu_kernel void @k()"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn emit_llvm(p: &Program, target: &Target) -> Result<String, LowerError> {
    p.validate()?;
    let mut e = Emitter {
        p,
        body: String::new(),
        decls: BTreeSet::new(),
        next: 0,
        thread_parts: HashMap::new(),
        thread_terms: HashMap::new(),
        swizzled: HashMap::new(),
        conditions: HashMap::new(),
        products: HashMap::new(),
        masked: HashMap::new(),
        conjunctions: HashMap::new(),
        defined: vec![false; p.values.len()],
        prologue: String::new(),
        resources: vec![false; p.buffers.len()],
        depth: 0,
        uniforms: HashMap::new(),
        inputs: HashMap::new(),
        block: "entry".to_string(),
        labels: 0,
        inside: Default::default(),
        inside_slots: Default::default(),
        names: Names::default(),
        dpp_folded: false,
        lds_shift: None,
        immediate_offset: target.lowering.buffer_immediate_offset,
        acting: None,
        packing: Packing::for_target(target),
    };
    e.decls
        .insert("declare i32 @llvm.amdgcn.workitem.id.x()".to_string());
    e.prologue_line("%tid = call i32 @llvm.amdgcn.workitem.id.x(), !range !1");
    e.ops(&p.ops, target)?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "; {} for {} ({}), generated by linear-layout",
        p.name, target.name, target.family
    );
    let _ = writeln!(out, "target triple = \"amdgcn-amd-amdhsa\"\n");
    if p.lds_bytes > 0 {
        let _ = writeln!(
            out,
            "@lds = internal addrspace(3) global [{} x i8] poison, align 16\n",
            p.lds_bytes
        );
    }
    let mut buffers = p.buffers.iter().filter(|b| b.is_argument());
    let arguments = p.buffers.iter().filter(|b| b.is_argument()).count();
    let args: Vec<String> = (0..arguments + p.scalars.len())
        .filter_map(
            |position| match p.scalars.iter().find(|s| s.position == position) {
                Some(s) => Some(format!("{} %{}", llvm_scalar(s.ty).unwrap_or("i32"), s.name)),
                None => buffers.next().map(|b| format!("ptr addrspace(1) %{}", b.name)),
            },
        )
        .collect();
    let _ = writeln!(
        out,
        "define amdgpu_kernel void @{}({}) #0 {{",
        p.name,
        args.join(", ")
    );
    let _ = writeln!(out, "entry:");
    out.push_str(&e.prologue);
    out.push_str(&e.body);
    let _ = writeln!(out, "  ret void\n}}\n");
    for d in &e.decls {
        let _ = writeln!(out, "{d}");
    }
    // The attributes promise LLVM the implicit inputs the kernel does not read: not the
    // workgroup ids or the implicit arguments (the grid's size) it does.
    let reads = |x: UniformInput| e.inputs.contains_key(&x);
    let attrs: Vec<String> = target
        .lowering
        .kernel_attributes
        .iter()
        .filter(|&&a| match a {
            "amdgpu-no-workgroup-id-x" => !reads(UniformInput::ProgramId(0)),
            "amdgpu-no-workgroup-id-y" => !reads(UniformInput::ProgramId(1)),
            "amdgpu-no-workgroup-id-z" => !reads(UniformInput::ProgramId(2)),
            "amdgpu-no-implicitarg-ptr" => !(0..3).any(|a| reads(UniformInput::NumPrograms(a))),
            _ => true,
        })
        .map(|a| format!("\"{a}\""))
        .chain(
            target
                .lowering
                .mfma_accumulates_in_vgprs
                .then(|| "\"amdgpu-agpr-alloc\"=\"0\"".to_string()),
        )
        .collect();
    let _ = writeln!(
        out,
        "\nattributes #0 = {{ nounwind \"amdgpu-flat-work-group-size\"=\"{n},{n}\" {} }}\n",
        attrs.join(" "),
        n = p.threads
    );
    let _ = writeln!(out, "!0 = !{{!\"amdgpu-synchronize-as\", !\"local\"}}");
    let _ = writeln!(out, "!1 = !{{i32 0, i32 {}}}", p.threads);
    let _ = writeln!(out, "!2 = !{{!\"branch_weights\", i32 2000, i32 1}}");
    Ok(out)
}
