//! Pointers and 64-bit integers: pointers loaded from memory,
//! `tl.load(a_ptrs + g).to(tl.pointer_type(tl.float16))`, and addresses taken,
//! `x_ptr.to(tl.int64, bitcast=True)`.
//!
//! Triton's grouped GEMM reads each group's matrices from tables of addresses. A buffer
//! instruction needs its buffer's resource in scalar registers, so a pointer the kernel loads
//! (`tt.int_to_ptr` of a loaded `i64`) becomes a buffer of its own at that address
//! ([`Buffer::address`](crate::lower::ir::Buffer::address)), its resource made where the pointer is
//! ([`Op::BindBuffer`](crate::lower::ir::Op::BindBuffer)): the address's first lane — every thread
//! loaded the same scalar — moved to scalar registers. Everything after addresses it as it
//! addresses an argument: strides, masks, vectors.
//!
//! # Worked example
//!
//! A table holds one pointer; the kernel copies 64 elements from where it points. In the
//! interpreter, argument buffer `k` lies at [`interpreted_address`](crate::lower::interpreted_address)`(k)`:
//!
//! ```
//! use linear_layout::lower::{interpreted_address, run_launch, ttgir_kernel, Launch};
//! use linear_layout::target::Target;
//! use linear_layout::ttgir::Module;
//! let text = r#"
//! #l = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>
//! module attributes {"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 64 : i32} {
//!   tt.func public @copy(%table: !tt.ptr<i64>, %data: !tt.ptr<i32>, %out: !tt.ptr<i32>) {
//!     %a = tt.load %table : !tt.ptr<i64>
//!     %src = tt.int_to_ptr %a : i64 -> !tt.ptr<i32>
//!     %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #l>
//!     %p = tt.splat %src : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>, #l>
//!     %q = tt.addptr %p, %r : tensor<64x!tt.ptr<i32>, #l>, tensor<64xi32, #l>
//!     %x = tt.load %q : tensor<64x!tt.ptr<i32>, #l>
//!     %o = tt.splat %out : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>, #l>
//!     %w = tt.addptr %o, %r : tensor<64x!tt.ptr<i32>, #l>, tensor<64xi32, #l>
//!     tt.store %w, %x : tensor<64x!tt.ptr<i32>, #l>
//!     tt.return
//!   }
//! }"#;
//! let k = ttgir_kernel(&Module::parse(text)?, Target::by_name("gfx942")?)?;
//! // The table points 16 elements (64 bytes) into `data`, argument buffer 1.
//! let table = (interpreted_address(1) + 64).to_le_bytes().to_vec();
//! let data: Vec<u8> = (0..100u32).flat_map(|i| i.to_le_bytes()).collect();
//! let mut buffers = vec![table, data, vec![0; 256]];
//! run_launch(&k.program, &mut buffers, &Launch::single(vec![]))?;
//! assert_eq!(u32::from_le_bytes(buffers[2][8..12].try_into()?), 18);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::carried_pointer::pointer_parts;
use super::{Lowering, Sym, fail};
use crate::lower::error::LowerError;
use crate::lower::ir::{ArithOp, Uniform};
use crate::lower::plan::dist::Dist;
use crate::ttgir::Op;

impl Lowering<'_> {
    /// `tt.int_to_ptr %x : i64 -> !tt.ptr<T>` of a scalar every thread holds: a buffer at that
    /// address.
    pub(super) fn int_to_ptr(&mut self, op: &Op) -> Result<(), LowerError> {
        let (x, r) = (op.operands[0], op.results[0]);
        if self.rank(r) != 0 {
            return fail(
                op,
                "a tensor of pointers made from integers (one buffer per element) is not lowered",
            );
        }
        let Some(bits) = self.m.values[r].ty.pointee_bits() else {
            return fail(op, "makes no pointer");
        };
        let address = match self.sym(op, x)?.clone() {
            Sym::Lanes(v) if self.p.value_bits(v) == 64 => v,
            other => {
                return fail(
                    op,
                    format!(
                        "{} is {}; a pointer is made from a 64-bit integer loaded from memory",
                        self.m.values[x].name,
                        other.kind()
                    ),
                );
            }
        };
        let (buffer, bind) = self.buffer_at(&self.m.values[r].name, address, u64::from(bits.div_ceil(8)));
        self.p.ops.push(bind);
        self.define(op, Sym::Ptr(buffer))
    }

    /// `tt.ptr_to_int %p : !tt.ptr<T> -> i64`: the address — a buffer's
    /// ([`BufferAddress`](crate::lower::ir::Op::BufferAddress) of an argument, the bound
    /// address of a loaded pointer) plus the element offset in bytes, per element of a tensor.
    pub(super) fn ptr_to_int(&mut self, op: &Op) -> Result<(), LowerError> {
        let (p, r) = (op.operands[0], op.results[0]);
        let Some(bits) = self.m.values[p].ty.pointee_bits() else {
            return fail(op, "converts no pointer");
        };
        let bytes = u64::from(bits.div_ceil(8));
        let sym = self.sym(op, p)?.clone();
        if self.rank(p) == 0 {
            let address = self.pointer_address(op, &sym, bytes)?;
            return self.define(op, Sym::Lanes(address));
        }
        let Some((buffer, constant, coef, index)) = pointer_parts(&sym) else {
            return fail(op, format!("takes the address of {}", sym.kind()));
        };
        let layout = self.layout(op, r)?;
        let dist = Dist::of(&layout, self.target.wave_size)?;
        let offsets = self.affine_registers(op, &dist, &constant, &coef, 64)?;
        let offsets = match index {
            None => offsets,
            Some((index_layout, index)) => {
                let index = match (index_layout, index.len()) {
                    (_, 1) => vec![index[0]; offsets.len()],
                    (Some(l), n) if *l == layout && n == offsets.len() => index,
                    _ => {
                        return fail(
                            op,
                            "the address's data part is in another layout than its pointers",
                        );
                    }
                };
                offsets
                    .into_iter()
                    .zip(index)
                    .map(|(o, i)| {
                        let wide = self.p.convert(i, ("i32", "i64"), 64);
                        self.binary(ArithOp::Add, "i64", o, wide)
                    })
                    .collect()
            }
        };
        let base = self.pointer_address(op, &Sym::Ptr(buffer), bytes)?;
        let size = self.uniform_register(&Uniform::constant(bytes as i64), 64);
        let values = offsets
            .into_iter()
            .map(|o| {
                let scaled = self.binary(ArithOp::Mul, "i64", o, size);
                self.binary(ArithOp::Add, "i64", base, scaled)
            })
            .collect();
        self.define_data(op, layout, values)
    }
}
