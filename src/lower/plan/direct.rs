//! Direct-to-LDS copies: global memory straight into a shared layout, then read back in a
//! distributed layout.
//!
//! Triton's `ttg.async_copy_global_to_local` fills shared memory without passing through
//! registers. The hardware decides much of the layout:
//!
//! * gfx942 / gfx950's `buffer_load … lds` takes one wave-uniform LDS base (in M0) and writes
//!   lane `i`'s `size` bytes at `base + i·size`. So in the *shared* layout, the source layout's
//!   lane bit `q` must be the offset `v·2^q` (`v` elements per lane) — the source writes
//!   coalesced, which is what the async-copy heuristic
//!   ([`coalesce_copy`](crate::heuristics::async_copy::coalesce_copy)) makes it do. A swizzle
//!   therefore lives on the global side: the shared layout picks which elements a lane loads.
//! * gfx1250's `global_load_async_to_lds` takes an LDS address per lane: any shared layout.
//!
//! Each lane loads `v` elements that are consecutive both in memory (the source's leading
//! register bits step along the last dimension) and in LDS (they are offsets `0..v`), `v·bytes`
//! one of the sizes the target row lists
//! ([`DirectToLds::bytes`](crate::target::DirectToLds::bytes)). Then every thread waits for its
//! loads, a barrier passes, and the destination reads its registers as the round trip of a
//! conversion does ([`lds`](super::lds)).
//!
//! # Worked example
//!
//! A 64×64 f16 tile on gfx950, 4 warps: the source gives each lane 8 consecutive f16 of a row
//! (`sizePerThread = [1, 8]`, 8 lanes per row), the shared layout is row-major and
//! unswizzled, so lane `q` of a wave writes bytes `16·q…16·q+15` of the wave's 1 KiB block —
//! exactly the hardware's order. Each thread issues 2 loads of 16 bytes (4,096 elements over
//! 256 threads), waits, and after the barrier reads its destination registers back.
//!
//! ```
//! use linear_layout::encodings::Encoding;
//! use linear_layout::lower::{lds_copy_kernel, run, Dtype};
//! use linear_layout::target::Target;
//! let src: Encoding = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>".parse()?;
//! let shared: Encoding = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>".parse()?;
//! let dst: Encoding = "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 4], warpsPerCTA = [1, 4], order = [0, 1]}>".parse()?;
//! let [s, sh, d] = [&src, &shared, &dst].map(|e| e.to_linear_layout(&[64, 64]));
//! let k = lds_copy_kernel(&s?, &sh?, &d?, &[64, 64], Dtype::F16, Target::by_name("gfx950")?)?;
//! let counts = k.program.op_counts();
//! assert_eq!(counts["global_load_lds"], 2);
//! assert_eq!(counts["wait_direct_loads"], 1);
//! assert!(k.llvm_ir()?.contains("@llvm.amdgcn.raw.ptr.buffer.load.lds(ptr addrspace(8) %rsrc0, ptr addrspace(3) %"));
//! let input: Vec<u8> = (0..8192).map(|i| (i * 31 % 253) as u8).collect();
//! let mut buffers = vec![input.clone(), vec![0; 8192], vec![0; 8192]];
//! run(&k.program, &mut buffers)?;
//! assert_eq!(buffers[1], input);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::convert::{in_out_regs, source_and_destination, store_registers};
use super::dist::Storer;
use super::lds::{self, Source, Trip};
use super::{Dtype, check_shape, check_target};
use crate::heuristics::convert::lds_bank_conflicts;
use crate::linear::LinearLayout;
use crate::lower::error::LowerError;
use crate::lower::ir::{Kernel, Program};
use crate::target::{DirectToLdsAddress, LdsOp, Target};

/// The `lds_copy` kernel (see the module docs): arguments `in, out, regs`; `in` goes straight
/// into LDS as `shared` lays it out, loaded by the threads of `src`; `dst` reads it back;
/// `out = in` through `dst`'s registers, and thread `t` writes its register `r` to
/// `regs[t·R + r]` as the `convert` kernel does.
///
/// `shared` maps LDS offsets (in-dim `offset`, in elements) to tensor positions, as Triton's
/// shared encodings do; it must hold the whole tensor in one tile.
///
/// ```
/// use linear_layout::linear::LinearLayout;
/// use linear_layout::lower::{lds_copy_kernel, Dtype};
/// use linear_layout::target::Target;
/// // Lanes one element apart but 2-byte loads placed 4 bytes apart: not the hardware's order.
/// let src = LinearLayout::identity_1d(64, "lane", "dim0")?;
/// let shared = LinearLayout::from_bases([("offset", (0..6).map(|i| vec![1 << ((i + 1) % 6)]).collect())], [("dim0", 64)], true)?;
/// let err = lds_copy_kernel(&src, &shared, &src, &[64], Dtype::F16, Target::by_name("gfx942")?).unwrap_err();
/// assert!(err.to_string().contains("one after another"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn lds_copy_kernel(
    src: &LinearLayout,
    shared: &LinearLayout,
    dst: &LinearLayout,
    shape: &[u64],
    dtype: Dtype,
    target: &'static Target,
) -> Result<Kernel, LowerError> {
    check_target(target)?;
    let direct = target.lowering.direct_to_lds.ok_or_else(|| {
        LowerError::new(format!(
            "{} has no loads from global memory straight into LDS",
            target.name
        ))
    })?;
    check_shape(src, shape)?;
    check_shape(dst, shape)?;
    let bits = dtype.bits();
    let bytes = u64::from(bits / 8);
    let (s, d) = source_and_destination(src, dst, target.wave_size)?;
    let distinct: Vec<u64> = s.reg.iter().copied().filter(|&c| c != 0).collect();
    let reg_offsets = lds::shared_offsets(shared, &distinct)?;
    let thread_offsets = lds::shared_offsets(shared, &s.thread)?;
    // The vector: consecutive in memory and in LDS, and a size the hardware loads.
    let in_lds = reg_offsets
        .iter()
        .enumerate()
        .take_while(|&(t, &o)| o == 1 << t)
        .count();
    let most = (s.global_vector(shape, bits)? as u64).min(1 << in_lds);
    let vector = (0..=most.trailing_zeros())
        .rev()
        .map(|k| 1u64 << k)
        .find(|&v| direct.bytes.contains(&((v * bytes) as u32)))
        .ok_or_else(|| {
            LowerError::new(format!(
                "{} loads {:?} bytes per lane straight into LDS; {} consecutive {}-bit elements fit none",
                target.name, direct.bytes, most, bits
            ))
        })?;
    let masked = shape.iter().zip(&s.dim_bits).any(|(&n, &b)| n < 1u64 << b);
    if direct.address == DirectToLdsAddress::PerLane && masked {
        return Err(LowerError::new(format!(
            "{}'s direct-to-LDS loads have no bounds check: the tensor must fill the layout",
            target.name
        )));
    }
    if direct.address == DirectToLdsAddress::WaveBlock {
        for (q, &o) in thread_offsets.iter().take(s.lane_bits).enumerate() {
            if o != vector << q {
                return Err(LowerError::new(format!(
                    "{}'s direct-to-LDS loads write a wave's lanes one after another ({} B each): lane bit {q} must be LDS offset {} elements, the shared layout puts it at {o}",
                    target.name,
                    vector * bytes,
                    vector << q
                )));
            }
        }
    }
    let tile = shared.in_dim_size("offset")?;
    let read = lds_bank_conflicts(dst, shared, bits, target, LdsOp::Read)?;
    let trip = Trip {
        shared,
        reps: 1,
        lds_bytes: tile * bytes,
        write_vector: vector,
        read_vector: read.vector_elems,
        read_transposed: false,
        element_bits: bits,
    };
    let threads = s.threads().max(target.wave_size);
    let mut p = Program::new("lds_copy", target.wave_size, threads);
    in_out_regs(&mut p, shape, &d, bits);
    let mut storer = Storer::new(&d, shape, 1, bits)?;
    let dst_vals = lds::round_trip(
        &mut p,
        &s,
        &d,
        trip,
        target,
        Source::Global { buffer: 0, shape },
        Some(&mut storer),
    )?;
    storer.finish(&mut p, &dst_vals)?;
    store_registers(&mut p, &d, bits, &dst_vals);
    Ok(Kernel { program: p, target })
}
