//! The `matmul` kernel: one workgroup computes `C = A·B` on a tile with the target's matrix
//! instructions, every step derived from layouts.
//!
//! # The pipeline
//!
//! 1. **Layouts.** The accelerate-matmul heuristic ([`choose`]) picks the accumulator
//!    encoding (MFMA or WMMA, its tile, `warpsPerCTA`, `isTransposed`) and the two
//!    dot-operand encodings (`kWidth`, with `--nonkdim` / `--kpack` as Triton takes them). On
//!    gfx1250, where Triton 3.6 maps a plain dot to FMA, the kernel uses the hardware's WMMA v3
//!    tile instead (16×16, K of the table's instruction, `kWidth` its elements per lane up to
//!    16), warps as [`warps_per_tile`] spreads them (`--nonkdim` and `--kpack` do not apply).
//! 2. **Loads.** A (`M × K`) and B (`K × N`), both row-major, are loaded in the coalesced
//!    blocked layouts of the coalesce heuristic ([`blocked_for`]: up to 128 bits per thread
//!    along the row, lanes and warps row-major).
//! 3. **Into the operand layouts.** Each operand is converted with the plan
//!    [`convert_cost`] prices; for a round trip through LDS that is the swizzled shared layout of
//!    [`optimal_shared_layout`](crate::heuristics::convert::optimal_shared_layout), the cost
//!    model's choice rather than Triton's `swizzled_shared` (BENCHMARKS.md compares the
//!    resulting kernel with Triton's). A's and B's tiles live
//!    in LDS side by side (B at the next power of two past A's tile), so both are written before
//!    one barrier and read after it.
//! 4. **The chain.** [`plan_dot`] maps the three layouts onto instruction calls; each call
//!    is one [`Op::Mma`](crate::lower::Op::Mma), the first of each tile with a zero accumulator.
//! 5. **The store.** C is stored from the accumulator layout (its registers along N are the
//!    vector of each store), converted to `T` first when the output type is the operands'.
//!
//! # Worked example
//!
//! 32×32×16 f16 with one warp on gfx942: the heuristic picks `v_mfma_f32_32x32x8f16` with
//! `kWidth = 4`, so K = 16 takes two calls into one 16-register accumulator.
//!
//! ```
//! use linear_layout::lower::matmul::{matmul_kernel, MatmulOptions};
//! use linear_layout::lower::numeric::{decode, encode};
//! use linear_layout::lower::{run, Op};
//! use linear_layout::target::Target;
//! let k = matmul_kernel(32, 32, 16, "f16", "f32", 1, Target::by_name("gfx942")?, MatmulOptions::default())?;
//! let calls: Vec<&str> = k.program.ops.iter().filter_map(|op| match op {
//!     Op::Mma { instruction, .. } => Some(instruction.intrinsic),
//!     _ => None,
//! }).collect();
//! assert_eq!(calls, ["llvm.amdgcn.mfma.f32.32x32x8f16"; 2]);
//! // Run it: A[i][k] = i - k, B[k][j] = k + j (small integers: the sums are exact).
//! let f16 = |x: i64| (encode("f16", x as f64).unwrap() as u16).to_le_bytes();
//! let a: Vec<u8> = (0..32 * 16).flat_map(|e| f16(e / 16 - e % 16)).collect();
//! let b: Vec<u8> = (0..16 * 32).flat_map(|e| f16(e / 32 + e % 32)).collect();
//! let mut buffers = vec![a, b, vec![0; 32 * 32 * 4]];
//! run(&k.program, &mut buffers)?;
//! let c = |i: usize, j: usize| {
//!     let at = (i * 32 + j) * 4;
//!     decode("f32", u32::from_le_bytes(buffers[2][at..at + 4].try_into().unwrap()).into()).unwrap()
//! };
//! for (i, j) in [(0, 0), (5, 7), (31, 31)] {
//!     let want: i64 = (0..16).map(|kk| (i as i64 - kk) * (kk + j as i64)).sum();
//!     assert_eq!(c(i, j), want as f64);
//! }
//! // Its LLVM IR calls the intrinsic with the verified argument list.
//! let ir = k.llvm_ir()?;
//! assert!(ir.contains("call <16 x float> @llvm.amdgcn.mfma.f32.32x32x8f16(<4 x half>"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::sync::Arc;

use super::check_target;
use super::convert::streaming;
use super::dist::{Dist, Loader, store_through};
use super::lds::{Source, Transfer, Trip, round_trips};
use super::mma::{DotPlan, plan_dot};
use crate::encodings::{AmdWmma, DotOperand, Encoding};
use crate::heuristics::coalesce::blocked_for;
use crate::heuristics::convert::{ConversionKind, convert_cost};
use crate::heuristics::matmul::{ChainRole, DotKind, DotSpec, choose, warps_per_tile};
use crate::linear::LinearLayout;
use crate::lower::error::LowerError;
use crate::lower::ir::{Buffer, Kernel, Op, Program, Value};
use crate::target::Target;
use crate::target::mma::{MMA_INSTRUCTIONS, MmaInstruction, Unit, element_bits};

/// The heuristic knobs of a matmul (Triton's `matrix_instr_nonkdim` and `kpack`).
///
/// ```
/// use linear_layout::lower::matmul::MatmulOptions;
/// let o = MatmulOptions { nonkdim: 16, ..MatmulOptions::default() };
/// assert_eq!((o.nonkdim, o.kpack), (16, 1));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatmulOptions {
    /// Forces the MFMA tile (16 or 32; 0 lets the heuristic choose).
    pub nonkdim: u32,
    /// `kpack` (1 or 2): more K elements per lane on MFMA.
    pub kpack: u32,
}

impl Default for MatmulOptions {
    fn default() -> Self {
        MatmulOptions { nonkdim: 0, kpack: 1 }
    }
}

/// The layouts and instruction of one matmul tile.
///
/// ```
/// use linear_layout::lower::matmul::{matmul_layouts, MatmulOptions};
/// use linear_layout::target::Target;
/// let l = matmul_layouts(128, 128, 64, "f16", 4, Target::by_name("gfx950")?, MatmulOptions::default())?;
/// assert_eq!(l.instruction.intrinsic, "llvm.amdgcn.mfma.f32.32x32x16.f16"); // gfx950's doubled K
/// assert_eq!(l.accumulator, "f32");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct MatmulLayouts {
    /// The matrix instruction.
    pub instruction: &'static MmaInstruction,
    /// The accumulator's element type (`f32`, `i32` or `f64`).
    pub accumulator: &'static str,
    /// A's dot-operand layout (`M × K`).
    pub a: LinearLayout,
    /// B's dot-operand layout (`K × N`).
    pub b: LinearLayout,
    /// The accumulator layout (`M × N`).
    pub c: LinearLayout,
    /// The accumulator encoding, as Triton writes it.
    pub encoding: String,
}

/// Types the matmul takes (Triton's spellings), with the type they accumulate in.
const TYPES: &[(&str, &str)] = &[
    ("f16", "f32"),
    ("bf16", "f32"),
    ("f32", "f32"),
    ("f64", "f64"),
    ("i8", "i32"),
    ("f8E4M3FNUZ", "f32"),
    ("f8E5M2FNUZ", "f32"),
    ("f8E4M3FN", "f32"),
    ("f8E5M2", "f32"),
];

/// A type name of the matmul: one of its types (`f16`, `bf16`, `f32`, `f64`, `i8`, `i32`, the
/// Triton fp8 names), or `fp8` / `bf8` for the 8-bit float flavour (E4M3 / E5M2) the target's
/// matrix instructions take (FNUZ on gfx942, OCP on gfx950 and gfx12).
///
/// ```
/// use linear_layout::lower::matmul::resolve_type;
/// use linear_layout::target::Target;
/// assert_eq!(resolve_type("fp8", Target::by_name("gfx942")?)?, "f8E4M3FNUZ");
/// assert_eq!(resolve_type("bf8", Target::by_name("gfx950")?)?, "f8E5M2");
/// assert_eq!(resolve_type("f16", Target::by_name("gfx950")?)?, "f16");
/// assert!(resolve_type("fp8", Target::by_name("gfx90a")?).is_err());
/// assert!(resolve_type("f4", Target::by_name("gfx90a")?).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn resolve_type(name: &str, target: &Target) -> Result<&'static str, LowerError> {
    let flavours: &[&'static str] = match name {
        "fp8" => &["f8E4M3FNUZ", "f8E4M3FN"],
        "bf8" => &["f8E5M2FNUZ", "f8E5M2"],
        "i32" => return Ok("i32"),
        _ => {
            return TYPES
                .iter()
                .find(|(t, _)| *t == name)
                .map(|(t, _)| *t)
                .ok_or_else(|| unknown_type(name));
        }
    };
    let (mfma, wmma) = versions(target);
    flavours
        .iter()
        .find(|f| {
            MMA_INSTRUCTIONS
                .iter()
                .any(|i| i.ab == **f && i.available(mfma, wmma))
        })
        .copied()
        .ok_or_else(|| {
            LowerError::new(format!(
                "{}: no matrix instruction takes {name} ({})",
                target.name,
                flavours.join(" or ")
            ))
        })
}

fn unknown_type(name: &str) -> LowerError {
    let names: Vec<&str> = TYPES.iter().map(|(t, _)| *t).collect();
    LowerError::new(format!(
        "unknown matmul type '{name}' (known: {}, fp8, bf8)",
        names.join(", ")
    ))
}

/// The type a product of `dtype` accumulates in (`f32`, `i32` for `i8`, `f64` for `f64`).
///
/// ```
/// use linear_layout::lower::matmul::accumulator_of;
/// assert_eq!(accumulator_of("bf16")?, "f32");
/// assert_eq!(accumulator_of("i8")?, "i32");
/// # Ok::<(), linear_layout::lower::LowerError>(())
/// ```
pub fn accumulator_of(dtype: &str) -> Result<&'static str, LowerError> {
    TYPES
        .iter()
        .find(|(t, _)| *t == dtype)
        .map(|(_, a)| *a)
        .ok_or_else(|| unknown_type(dtype))
}

/// The MFMA / WMMA versions whose instructions a target can run (`tt.dot`'s, or the
/// hardware's where Triton maps no dot to it).
fn versions(t: &Target) -> (Option<u32>, Option<u32>) {
    (
        t.matrix.mfma_version,
        t.matrix.wmma_version.or(t.matrix.wmma_hardware),
    )
}

/// The table's instruction for a result encoding and types on `target`.
pub(crate) fn instruction_for(
    result: &Encoding,
    ab: &str,
    acc: &str,
    target: &Target,
) -> Result<&'static MmaInstruction, LowerError> {
    let (shape, wmma) = match result {
        Encoding::AmdMfma(m) => (m.instr_shape.clone(), false),
        Encoding::AmdWmma(w) => (w.instr_shape.clone(), true),
        other => {
            return Err(LowerError::new(format!(
                "{other} is not a matrix-instruction layout"
            )));
        }
    };
    let (mfma, wmma_v) = versions(target);
    let tile = &shape[shape.len().saturating_sub(3)..];
    MMA_INSTRUCTIONS
        .iter()
        .find(|i| {
            [i.m, i.n, i.k].as_slice() == tile
                && i.ab == ab
                && i.acc == acc
                && matches!(i.unit, Unit::Wmma(_)) == wmma
                && i.available(mfma, wmma_v)
        })
        .ok_or_else(|| {
            LowerError::new(format!(
                "{}: the instruction table has no {ab} → {acc} instruction of shape {tile:?} ({result})",
                target.name
            ))
        })
}

/// gfx1250's WMMA v3 choice (Triton 3.6 maps no plain dot there): 16×16 tiles, the table's K.
fn wmma_hardware_choice(
    m: u64,
    n: u64,
    dtype: &str,
    acc: &str,
    warps: u32,
    target: &Target,
) -> Result<(Encoding, Encoding, Encoding), LowerError> {
    let v = target
        .matrix
        .wmma_hardware
        .ok_or_else(|| LowerError::new(format!("{}: no matrix instruction for a dot", target.name)))?;
    let instr = MMA_INSTRUCTIONS
        .iter()
        .find(|i| i.ab == dtype && i.acc == acc && i.available(None, Some(v)))
        .ok_or_else(|| {
            LowerError::new(format!(
                "{}: WMMA v{v} has no {dtype} → {acc} instruction",
                target.name
            ))
        })?;
    if m.min(n) < u64::from(instr.m) {
        return Err(LowerError::new(format!(
            "{}: a {m}×{n} result is smaller than the {}×{} WMMA tile",
            target.name, instr.m, instr.n
        )));
    }
    let warps = warps_per_tile(&[m, n], warps, (instr.m, instr.n), ChainRole::default());
    let result = Encoding::AmdWmma(AmdWmma {
        version: v,
        is_transposed: true,
        warps_per_cta: warps,
        tiles_per_warp: vec![1, 1],
        instr_shape: vec![instr.m, instr.n, instr.k],
        cga_layout: vec![],
    });
    let operand = |op_idx| {
        Encoding::DotOperand(DotOperand {
            op_idx,
            parent: Arc::new(result.clone()),
            // Each lane's elements in runs of at most 16 along K (the encoding's largest
            // kWidth): 8-bit operands take two runs, A and B alike.
            k_width: (1 << instr.operand.elements_log2).min(16),
        })
    };
    Ok((operand(0), operand(1), result))
}

/// The layouts and the instruction of an `M×N×K` matmul of `dtype` with `warps` warps on
/// `target` (see the module docs: the heuristic's choice, or gfx1250's WMMA v3).
///
/// ```
/// use linear_layout::lower::matmul::{matmul_layouts, MatmulOptions};
/// use linear_layout::target::Target;
/// let l = matmul_layouts(64, 64, 32, "i8", 2, Target::by_name("gfx1201")?, MatmulOptions::default())?;
/// assert_eq!(l.instruction.intrinsic, "llvm.amdgcn.wmma.i32.16x16x16.iu8.v8i32.v2i32");
/// assert!(matmul_layouts(64, 64, 32, "f64", 2, Target::by_name("gfx1201")?, MatmulOptions::default()).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn matmul_layouts(
    m: u64,
    n: u64,
    k: u64,
    dtype: &str,
    warps: u32,
    target: &'static Target,
    options: MatmulOptions,
) -> Result<MatmulLayouts, LowerError> {
    let acc = accumulator_of(dtype)?;
    let mut spec = DotSpec::new(target.name, dtype, dtype, acc, &[m, n], k, warps);
    spec.nonkdim = options.nonkdim;
    spec.kpack = options.kpack;
    // The dot's own blocked layout, which the heuristic keeps when it falls back to FMA: then
    // its reasons say why no instruction fits.
    spec.blocked = Some(blocked_for(
        &[m, n],
        &[1, 1],
        &[1, 0],
        warps,
        target.wave_size,
        vec![],
    ));
    let no_dot_unit = target.matrix.mfma_version.is_none() && target.matrix.wmma_version.is_none();
    let (a, b, result) = if no_dot_unit {
        wmma_hardware_choice(m, n, dtype, acc, warps, target)?
    } else {
        let choice = choose(&spec).map_err(|e| {
            LowerError::new(format!(
                "{}: no matrix instruction for a {m}×{n}×{k} {dtype} dot ({e})",
                target.name
            ))
        })?;
        if !matches!(choice.kind, DotKind::Mfma | DotKind::Wmma) {
            return Err(LowerError::new(format!(
                "{}: no matrix instruction fits a {m}×{n}×{k} {dtype} dot ({})",
                target.name,
                choice.reasons.join("; ")
            )));
        }
        if choice.a_elem != dtype || choice.b_elem != dtype || choice.c_elem != acc {
            return Err(LowerError::new(format!(
                "{}: the heuristic computes a {dtype} dot in {} × {} → {}; the matmul kernel does not convert operands",
                target.name, choice.a_elem, choice.b_elem, choice.c_elem
            )));
        }
        (choice.a, choice.b, choice.result)
    };
    let instruction = instruction_for(&result, dtype, acc, target)?;
    let layout = |e: &Encoding, shape: &[u64]| {
        e.to_linear_layout(shape)
            .map_err(|x| LowerError::new(format!("{e}: {x}")))
    };
    Ok(MatmulLayouts {
        instruction,
        accumulator: acc,
        a: layout(&a, &[m, k])?,
        b: layout(&b, &[k, n])?,
        c: layout(&result, &[m, n])?,
        encoding: result.to_string(),
    })
}

/// The coalesced blocked layout of a row-major `rows × cols` tile loaded by `warps` warps.
fn coalesced(rows: u64, cols: u64, bits: u32, warps: u32, wave: u32) -> Result<LinearLayout, LowerError> {
    let threads = u64::from(warps) * u64::from(wave);
    let per_thread = (u64::from(128 / bits.max(1)))
        .min(cols)
        .min((rows * cols / threads).max(1))
        .max(1);
    let b = blocked_for(
        &[rows, cols],
        &[1, per_thread as u32],
        &[1, 0],
        warps,
        wave,
        vec![],
    );
    let e = Encoding::Blocked(b);
    e.to_linear_layout(&[rows, cols])
        .map_err(|x| LowerError::new(format!("{e}: {x}")))
}

/// The `matmul` kernel `@matmul(a, b, c)`: `C (M×N, out) = A (M×K, dtype) · B (K×N, dtype)`,
/// all row-major; `out` is the accumulator type (`f32`, `i32`, `f64`) or `dtype` (converted,
/// rounding to nearest even). See the module docs for the pipeline.
///
/// ```
/// use linear_layout::lower::matmul::{matmul_kernel, MatmulOptions};
/// use linear_layout::target::Target;
/// let k = matmul_kernel(128, 128, 64, "f16", "f16", 4, Target::by_name("gfx942")?, MatmulOptions::default())?;
/// let counts = k.program.op_counts();
/// assert_eq!((counts["mma"], counts["barrier"]), (32, 1)); // per wave: 4×4 tiles / 4 warps × 8 steps of K
/// assert_eq!(counts["convert"], 16); // each thread's 64 results to f16, 4 at a time
/// // An accumulator type the instruction cannot produce is refused.
/// let e = matmul_kernel(32, 32, 32, "f16", "i32", 1, Target::by_name("gfx942")?, MatmulOptions::default());
/// assert!(e.unwrap_err().message().contains("accumulates in f32"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[allow(clippy::too_many_arguments)]
pub fn matmul_kernel(
    m: u64,
    n: u64,
    k: u64,
    dtype: &str,
    out: &str,
    warps: u32,
    target: &'static Target,
    options: MatmulOptions,
) -> Result<Kernel, LowerError> {
    check_target(target)?;
    let acc = accumulator_of(dtype)?;
    if out != acc && out != dtype {
        return Err(LowerError::new(format!(
            "a {dtype} product accumulates in {acc}: the output type is {acc} or {dtype}, not '{out}'"
        )));
    }
    // The narrow outputs LLVM converts to in one instruction (`fptrunc`, `trunc`).
    let out_ty: &'static str = match out {
        _ if out == acc => acc,
        "f16" => "f16",
        "bf16" => "bf16",
        "i8" => "i8",
        _ => {
            return Err(LowerError::new(format!(
                "a {acc} accumulator is not converted to {out} (narrow outputs: f16, bf16, i8)"
            )));
        }
    };
    for (name, x) in [("M", m), ("N", n), ("K", k)] {
        if !x.is_power_of_two() {
            return Err(LowerError::new(format!(
                "{name} = {x}: the matmul tile's sides are powers of two"
            )));
        }
    }
    if warps == 0 || !warps.is_power_of_two() || warps > 16 {
        return Err(LowerError::new(format!(
            "{warps} warps: a power of two from 1 to 16"
        )));
    }
    let l = matmul_layouts(m, n, k, dtype, warps, target, options)?;
    let wave = target.wave_size;
    let bits = element_bits(dtype);
    let out_bits = element_bits(out_ty);
    let acc_bits = element_bits(acc);
    let plan = plan_dot(&l.a, &l.b, &l.c, l.instruction, wave)?;
    let (da, db, dc) = (
        Dist::of(&l.a, wave)?,
        Dist::of(&l.b, wave)?,
        Dist::of(&l.c, wave)?,
    );
    let threads = wave * warps;
    if da.threads() != threads || db.threads() != threads || dc.threads() != threads {
        return Err(LowerError::new(format!(
            "the layouts of {} run {}, {} and {} threads, not {threads}",
            l.encoding,
            da.threads(),
            db.threads(),
            dc.threads()
        )));
    }
    let mut p = Program::new("matmul", wave, threads);
    for (name, elements, b) in [("a", m * k, bits), ("b", k * n, bits), ("c", m * n, out_bits)] {
        p.buffers.push(Buffer {
            name: name.into(),
            elements: Some(elements),
            element_bits: b,
            address: None,
        });
    }
    // Loads in the coalesced layouts, then into the operand layouts.
    let (ga, gb) = (
        coalesced(m, k, bits, warps, wave)?,
        coalesced(k, n, bits, warps, wave)?,
    );
    let (sa, sb) = (Dist::of(&ga, wave)?, Dist::of(&gb, wave)?);
    let mut la = Loader::new(&sa, &[m, k], 0, bits)?;
    let mut lb = Loader::new(&sb, &[k, n], 1, bits)?;
    let (a_vals, b_vals) = operands(
        &mut p,
        [(&ga, &l.a, &sa, &da, &mut la), (&gb, &l.b, &sb, &db, &mut lb)],
        bits,
        target,
    )?;
    let results = chain(&mut p, &plan, &a_vals, &b_vals, None, dc.registers(), acc_bits)?;
    let results = if out_ty == acc {
        results
    } else {
        // In vectors of consecutive registers (neighbours along a row of the tile): packed
        // conversions where the target has them.
        let mut out = Vec::with_capacity(results.len());
        for src in results.chunks(4) {
            let dst = p.values_of(src.len(), out_bits);
            p.ops.push(Op::Convert {
                dst: dst.clone(),
                src: src.to_vec(),
                from: acc,
                to: out_ty,
            });
            out.extend(dst);
        }
        out
    };
    store_through(&mut p, &dc, &[m, n], 2, out_bits, &results)?;
    Ok(Kernel { program: p, target })
}

/// The instruction chain of `plan`: one call per tile and step of K, each tile's first from
/// `acc` (or from zero without one); returns the `registers` accumulator registers.
pub(crate) fn chain(
    p: &mut Program,
    plan: &DotPlan,
    a_vals: &[Value],
    b_vals: &[Value],
    acc: Option<&[Value]>,
    registers: usize,
    acc_bits: u32,
) -> Result<Vec<Value>, LowerError> {
    let mut current: Vec<Option<Value>> = match acc {
        Some(vals) if vals.len() == registers => vals.iter().copied().map(Some).collect(),
        Some(_) => {
            return Err(LowerError::new(
                "the accumulator has another register count than the result",
            ));
        }
        None => vec![None; registers],
    };
    let mut started = vec![acc.is_some(); registers];
    for call in &plan.calls {
        let pick = |vals: &[Value], regs: &[u32]| -> Result<Vec<Value>, LowerError> {
            regs.iter()
                .map(|&r| {
                    vals.get(r as usize)
                        .copied()
                        .ok_or_else(|| LowerError::new("a call names a register the operand does not have"))
                })
                .collect()
        };
        let (a, b) = (pick(a_vals, &call.a)?, pick(b_vals, &call.b)?);
        let (a, b) = if plan.swapped { (b, a) } else { (a, b) };
        let from_zero = call
            .c
            .iter()
            .all(|&r| !started.get(r as usize).copied().unwrap_or(false));
        let c: Vec<Value> = if from_zero {
            Vec::new()
        } else {
            call.c
                .iter()
                .map(|&r| current.get(r as usize).copied().flatten())
                .collect::<Option<Vec<Value>>>()
                .ok_or_else(|| LowerError::new("a call reads an accumulator register no call wrote"))?
        };
        let dst = p.values_of(call.c.len(), acc_bits);
        for (&r, &v) in call.c.iter().zip(&dst) {
            if let (Some(slot), Some(s)) = (current.get_mut(r as usize), started.get_mut(r as usize)) {
                *slot = Some(v);
                *s = true;
            }
        }
        p.ops.push(Op::Mma {
            instruction: plan.instruction,
            dst,
            a,
            b,
            c,
        });
    }
    current
        .into_iter()
        .collect::<Option<Vec<Value>>>()
        .ok_or_else(|| LowerError::new("an accumulator register is written by no instruction"))
}

/// A's and B's registers in their operand layouts: round trips through LDS batched behind one
/// barrier (the larger tile first), other tiers as the cost model says; the global loads are
/// issued as the conversions need them.
type Operand<'a, 'b> = (
    &'a LinearLayout,
    &'a LinearLayout,
    &'a Dist,
    &'a Dist,
    &'a mut Loader<'b>,
);

fn operands(
    p: &mut Program,
    ops: [Operand; 2],
    bits: u32,
    target: &Target,
) -> Result<(Vec<Value>, Vec<Value>), LowerError> {
    let costs = [
        convert_cost(ops[0].0, ops[0].1, bits, target)?,
        convert_cost(ops[1].0, ops[1].1, bits, target)?,
    ];
    let mut out: [Option<Vec<Value>>; 2] = [None, None];
    let mut transfers = Vec::new();
    for (i, ((src, dst, s, d, loader), cost)) in ops.into_iter().zip(&costs).enumerate() {
        match (&cost.kind, &cost.plan) {
            (ConversionKind::Lds, Some(plan)) => transfers.push((
                i,
                Transfer {
                    s,
                    d,
                    trip: Trip::of(plan, bits),
                    base: 0,
                    source: Source::Registers(loader),
                    sink: None,
                },
            )),
            _ => out[i] = Some(streaming(p, (src, s), (dst, d), bits, target, loader, None)?),
        }
    }
    // The larger tile first: the next one's base, a multiple of the larger power of two, is
    // aligned to its own size.
    transfers.sort_by_key(|(_, t)| std::cmp::Reverse(t.trip.lds_bytes));
    let mut base = 0u64;
    for (_, t) in &mut transfers {
        t.base = base;
        base += t.trip.lds_bytes.next_power_of_two();
    }
    let (which, mut list): (Vec<usize>, Vec<Transfer>) = transfers.into_iter().unzip();
    for (i, vals) in which.into_iter().zip(round_trips(p, &mut list, target)?) {
        out[i] = Some(vals);
    }
    match out {
        [Some(a), Some(b)] => Ok((a, b)),
        _ => Err(LowerError::new("an operand was not converted")),
    }
}
