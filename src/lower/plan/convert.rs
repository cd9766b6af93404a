//! The `convert` kernel: load through the source layout, convert with the plan the cost model
//! prices, store through the destination layout (and every thread's destination registers).
//!
//! The tier comes from [`convert_cost`]: a no-op or register permutation renames values; a
//! shuffle moves 32-bit words between lanes with `ds_bpermute` (or, where the cost model counts
//! them, gfx950's permlane swaps); an LDS round trip writes through the plan's swizzled shared
//! layout and reads it back ([`lds`](super::lds)).

use std::collections::HashMap;

use super::dist::{Dist, Loader, Storer};
use super::{Dtype, check_shape, lds, shuffle};
use crate::heuristics::convert::{ConversionKind, convert_cost};
use crate::linear::LinearLayout;
use crate::lower::error::LowerError;
use crate::lower::ir::{Buffer, Extent, GlobalOffset, Kernel, Op, Program, Uniform, Value, XorMap};
use crate::target::Target;

/// The `convert` kernel of `src → dst` over a tensor of `shape` (see the module docs):
/// arguments `in, out, regs`; `out = in`; thread `t` writes its destination register `r` to
/// `regs[t·R + r]` (`R` the destination's register count), 0 for an element outside `shape`.
///
/// ```
/// use linear_layout::linear::LinearLayout;
/// use linear_layout::lower::{convert_kernel, run, Dtype};
/// use linear_layout::target::Target;
/// // 2 warps of 64 lanes; the source spreads dim0 lanes-first, the destination warps-first.
/// let src = LinearLayout::from_bases([("register", vec![vec![1]]), ("lane", (1..7).map(|i| vec![1 << i]).collect()), ("warp", vec![vec![128]])], [("dim0", 256)], true)?;
/// let dst = LinearLayout::from_bases([("register", vec![vec![1]]), ("lane", (2..8).map(|i| vec![1 << i]).collect()), ("warp", vec![vec![2]])], [("dim0", 256)], true)?;
/// let k = convert_kernel(&src, &dst, &[256], Dtype::F32, Target::by_name("gfx942")?)?;
/// assert_eq!(k.program.op_counts()["barrier"], 1); // through LDS
/// let input: Vec<u8> = (0..1024).map(|i| (i % 253) as u8).collect();
/// let mut buffers = vec![input.clone(), vec![0; 1024], vec![0; 128 * 2 * 4]];
/// run(&k.program, &mut buffers)?;
/// assert_eq!(buffers[1], input);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn convert_kernel(
    src: &LinearLayout,
    dst: &LinearLayout,
    shape: &[u64],
    dtype: Dtype,
    target: &'static Target,
) -> Result<Kernel, LowerError> {
    super::check_target(target)?;
    check_shape(src, shape)?;
    check_shape(dst, shape)?;
    let bits = dtype.bits();
    let (s, d) = source_and_destination(src, dst, target.wave_size)?;
    let threads = s.threads();
    let mut p = Program::new("convert", target.wave_size, threads);
    in_out_regs(&mut p, shape, &d, bits);
    let mut loader = Loader::new(&s, shape, 0, bits)?;
    let mut storer = Storer::new(&d, shape, 1, bits)?;
    let dst_vals = convert(
        &mut p,
        src,
        dst,
        &s,
        &d,
        bits,
        target,
        &mut loader,
        Some(&mut storer),
    )?;
    storer.finish(&mut p, &dst_vals)?;
    store_registers(&mut p, &d, bits, &dst_vals);
    Ok(Kernel { program: p, target })
}

/// The conversion `cost` plans, from the source registers `loader` gives (loading them as they
/// are needed) to the destination's, which `sink` (if any) may store as they are read.
#[allow(clippy::too_many_arguments)]
fn convert(
    p: &mut Program,
    src: &LinearLayout,
    dst: &LinearLayout,
    s: &Dist,
    d: &Dist,
    bits: u32,
    target: &Target,
    loader: &mut Loader,
    sink: Option<&mut Storer>,
) -> Result<Vec<Value>, LowerError> {
    let cost = convert_cost(src, dst, bits, target)?;
    Ok(match cost.kind {
        ConversionKind::Noop | ConversionKind::Register => {
            let src_vals = loader.all(p);
            register_moves(s, d, &src_vals)?
        }
        ConversionKind::Shuffle => {
            let src_vals = loader.all(p);
            if cost
                .instructions
                .keys()
                .any(|k| k.contains("permlane") && k.contains("swap"))
            {
                shuffle::permlane_swaps(p, s, d, bits, &src_vals)?
            } else {
                shuffle::bpermute(p, s, d, bits, &src_vals)?
            }
        }
        ConversionKind::Lds => {
            let plan = cost
                .plan
                .as_ref()
                .ok_or_else(|| LowerError::new("the cost model gave no LDS plan"))?;
            lds::round_trip(
                p,
                s,
                d,
                lds::Trip::of(plan, bits),
                target,
                lds::Source::Registers(loader),
                sink,
            )?
        }
    })
}

/// The conversion `cost` plans of `src → dst` (each with its analysis), the source registers
/// coming from `loader` as they are needed and the destination's going to `sink` as they are
/// read: a load → convert → store streams one round trip at a time.
pub(crate) fn streaming(
    p: &mut Program,
    (src, s): (&LinearLayout, &Dist),
    (dst, d): (&LinearLayout, &Dist),
    bits: u32,
    target: &Target,
    loader: &mut Loader,
    sink: Option<&mut Storer>,
) -> Result<Vec<Value>, LowerError> {
    convert(p, src, dst, s, d, bits, target, loader, sink)
}

/// Converts registers `values` of `src` to registers of `dst` with the plan `cost` reports.
pub(crate) fn registers(
    p: &mut Program,
    src: &LinearLayout,
    dst: &LinearLayout,
    values: &[Value],
    bits: u32,
    target: &Target,
) -> Result<Vec<Value>, LowerError> {
    let s = Dist::of(src, target.wave_size)?;
    let d = Dist::of(dst, target.wave_size)?;
    // Booleans move as bytes: LDS and the lane moves address whole bytes, and eight
    // threads' bits of one byte would overwrite each other.
    if bits < 8 {
        let bytes: Vec<Value> = values.iter().map(|&v| p.convert(v, ("i1", "i8"), 8)).collect();
        let mut loader = Loader::loaded(&s, &bytes, 8);
        let moved = convert(p, src, dst, &s, &d, 8, target, &mut loader, None)?;
        return Ok(moved.into_iter().map(|v| p.convert(v, ("i8", "i1"), 1)).collect());
    }
    let mut loader = Loader::loaded(&s, values, bits);
    convert(p, src, dst, &s, &d, bits, target, &mut loader, None)
}

/// The two layouts of a conversion, analysed: they must describe one tensor over one number of
/// threads.
pub(crate) fn source_and_destination(
    src: &LinearLayout,
    dst: &LinearLayout,
    wave_size: u32,
) -> Result<(Dist, Dist), LowerError> {
    let s = Dist::of(src, wave_size)?;
    let d = Dist::of(dst, wave_size)?;
    if s.dim_bits != d.dim_bits {
        return Err(LowerError::new("the two layouts describe different tensors"));
    }
    if s.thread.len() != d.thread.len() {
        return Err(LowerError::new(format!(
            "the source runs {} threads, the destination {}",
            s.threads(),
            d.threads()
        )));
    }
    Ok((s, d))
}

/// The buffers `in, out` (the tensor of `shape`) and `regs` (every thread's registers of `d`).
pub(crate) fn in_out_regs(p: &mut Program, shape: &[u64], d: &Dist, bits: u32) {
    let elements: u64 = shape.iter().product();
    let regs = u64::from(p.threads) * d.registers() as u64;
    for (name, n) in [("in", elements), ("out", elements), ("regs", regs)] {
        p.buffers.push(Buffer {
            name: name.into(),
            elements: Some(n),
            element_bits: bits,
            address: None,
        });
    }
}

/// Renames values: each destination register takes the source register holding its element in
/// the same thread.
fn register_moves(s: &Dist, d: &Dist, src_vals: &[Value]) -> Result<Vec<Value>, LowerError> {
    if s.thread != d.thread {
        return Err(LowerError::new(
            "the layouts place elements on different threads: not a register permutation",
        ));
    }
    let by_position: HashMap<u64, Value> = (0..s.registers())
        .map(|r| (s.reg_position(r), src_vals[r]))
        .collect();
    (0..d.registers())
        .map(|r| {
            by_position.get(&d.reg_position(r)).copied().ok_or_else(|| {
                LowerError::new("a destination register's element is in no source register of its thread")
            })
        })
        .collect()
}

/// `regs[t·R + r] = register r` for every thread `t`, in vectors of up to 128 bits.
pub(crate) fn store_registers(p: &mut Program, d: &Dist, bits: u32, vals: &[Value]) {
    let regs = vals.len();
    let vector = regs.min((128 / bits) as usize).max(1);
    let shift = regs.trailing_zeros();
    let cols: Vec<u64> = (0..d.thread.len()).map(|k| 1u64 << (k as u32 + shift)).collect();
    for start in (0..regs).step_by(vector) {
        p.ops.push(Op::GlobalStore {
            src: vals[start..start + vector].to_vec(),
            buffer: 2,
            offset: GlobalOffset {
                coords: vec![XorMap {
                    cols: cols.clone(),
                    constant: start as u64,
                }],
                strides: vec![Extent::Elements(1)],
                bounds: vec![None],
                base: Uniform::default(),
                when: Vec::new(),
                index: None,
                predicate: None,
                held: None,
                held_row: None,
            },
        });
    }
}
