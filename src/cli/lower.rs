//! `linear-layout lower copy|convert|lds-copy|matmul|ttgir …`: AMDGPU kernels (LLVM IR) generated
//! from layouts.

use linear_layout::lower::matmul::{MatmulOptions, accumulator_of, matmul_kernel, resolve_type};
use linear_layout::lower::{
    Dtype, Kernel, LowerError, convert_kernel, copy_kernel, lds_copy_kernel, ttgir_kernel,
};
use linear_layout::target::Target;
use linear_layout::ttgir::graph::Graph;

use super::layout_arg::{LAYOUT_HELP, load, parse_shape};

/// Arguments of the `lower` subcommand.
#[derive(clap::Args)]
pub struct Args {
    /// What to generate.
    #[command(subcommand)]
    pub kernel: KernelArgs,
}

/// The kernels `lower` generates.
#[derive(clap::Subcommand)]
pub enum KernelArgs {
    /// `@copy(in, out)`: out = in, every element moved through the registers LAYOUT gives it.
    Copy {
        /// The layout.
        #[arg(value_name = "LAYOUT", help = format!("The layout. {LAYOUT_HELP}"))]
        layout: String,
        /// Common options.
        #[command(flatten)]
        common: Common,
    },
    /// `@convert(in, out, regs)`: load `in` through SRC, convert to DST with the plan `cost`
    /// reports, store `out` through DST; thread t writes its DST register r to regs[t·R + r].
    Convert {
        /// The source layout (the forms of LAYOUT).
        #[arg(value_name = "SRC")]
        src: String,
        /// The destination layout.
        #[arg(value_name = "DST")]
        dst: String,
        /// Common options.
        #[command(flatten)]
        common: Common,
    },
    /// `@matmul(a, b, c)`: C (M×N, type U) = A (M×K, type T) · B (K×N, type T), all
    /// row-major, with the MFMA / WMMA instructions the accelerate-matmul heuristic picks:
    /// coalesced loads, both operands through LDS into their dot-operand layouts, the
    /// instruction chain, C stored from the accumulator layout.
    Matmul(MatmulArgs),
    /// The kernel of a TTGIR file: one `amdgpu_kernel` named as its `tt.func`, its arguments
    /// in order; an op outside the lowered subset is one error line naming it.
    Ttgir(TtgirArgs),
    /// `@lds_copy(in, out, regs)`: `in` loaded straight into LDS (direct-to-LDS loads) by the
    /// threads of SRC, laid out as SHARED, read back into DST's registers; `out` and `regs` as
    /// for `convert`.
    LdsCopy {
        /// The layout of the loading threads (the forms of LAYOUT).
        #[arg(value_name = "SRC")]
        src: String,
        /// The shared layout (a shared encoding, or a layout with in-dim `offset`).
        #[arg(value_name = "SHARED")]
        shared: String,
        /// The layout the tile is read back in.
        #[arg(value_name = "DST")]
        dst: String,
        /// Common options.
        #[command(flatten)]
        common: Common,
    },
}

/// Options of `lower matmul`.
#[derive(clap::Args)]
pub struct MatmulArgs {
    /// The tile, e.g. 128x128x64 (powers of two).
    #[arg(long, value_name = "MxNxK")]
    pub mnk: String,
    /// Operand type: f16, bf16, f32, f64, i8, fp8 or bf8 (the target's 8-bit float flavour), or
    /// a Triton name such as f8E4M3FNUZ.
    #[arg(long, default_value = "f16", value_name = "T")]
    pub dtype: String,
    /// Output type: the accumulator's (f32 for floats, i32 for i8, f64 for f64; the default)
    /// or T (f16, bf16, i8: converted).
    #[arg(long, value_name = "U")]
    pub acc: Option<String>,
    /// Warps of the workgroup (1, 2, 4, 8 or 16).
    #[arg(long, default_value_t = 4, value_name = "N")]
    pub warps: u32,
    /// Target architecture.
    #[arg(long, default_value = "gfx942", value_name = "ARCH")]
    pub arch: String,
    /// Forces the MFMA tile (16 or 32), as Triton's `matrix_instr_nonkdim`.
    #[arg(long, default_value_t = 0, value_name = "X")]
    pub nonkdim: u32,
    /// Triton's `kpack` (1 or 2).
    #[arg(long, default_value_t = 1, value_name = "Y")]
    pub kpack: u32,
    /// Write the module to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<String>,
}

/// Arguments of `lower ttgir`.
#[derive(clap::Args)]
pub struct TtgirArgs {
    /// The TTGIR file (Triton's final TTGIR: one module with one `tt.func`); '-' reads standard
    /// input.
    #[arg(value_name = "FILE")]
    pub file: String,
    /// Target architecture (default: the module's `ttg.target`).
    #[arg(long, value_name = "ARCH")]
    pub arch: Option<String>,
    /// Write the module to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<String>,
}

/// Options shared by the kernels.
#[derive(clap::Args)]
pub struct Common {
    /// The tensor shape, e.g. 128x128 (dense, row-major; sizes that are not powers of two are
    /// masked inside the layout's power-of-two tile).
    #[arg(long, value_name = "DxD…")]
    pub shape: String,
    /// Element type: i8, f16, bf16, f32, i32 or f64.
    #[arg(long, default_value = "f16", value_name = "T")]
    pub dtype: String,
    /// Target architecture.
    #[arg(long, default_value = "gfx942", value_name = "ARCH")]
    pub arch: String,
    /// Write the module to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<String>,
}

/// Runs the subcommand; returns the module text (empty when written to a file).
pub fn run(args: &Args) -> Result<String, String> {
    let (common, kernel) = match &args.kernel {
        KernelArgs::Ttgir(t) => return run_ttgir(t),
        KernelArgs::Matmul(m) => {
            let ir = matmul(m)?.and_then(|k| k.llvm_ir()).map_err(|e| e.to_string())?;
            return write(ir, m.output.as_deref());
        }
        KernelArgs::Copy { layout, common } => {
            let (shape, padded, dtype, target) = common.resolve()?;
            let l = load(layout, Some(&padded), "LAYOUT")?;
            (common, copy_kernel(&l.layout, &shape, dtype, target))
        }
        KernelArgs::Convert { src, dst, common } => {
            let (shape, padded, dtype, target) = common.resolve()?;
            let s = load(src, Some(&padded), "SRC")?;
            let d = load(dst, Some(&padded), "DST")?;
            (
                common,
                convert_kernel(&s.layout, &d.layout, &shape, dtype, target),
            )
        }
        KernelArgs::LdsCopy {
            src,
            shared,
            dst,
            common,
        } => {
            let (shape, padded, dtype, target) = common.resolve()?;
            let s = load(src, Some(&padded), "SRC")?;
            let sh = load(shared, Some(&padded), "SHARED")?;
            let d = load(dst, Some(&padded), "DST")?;
            (
                common,
                lds_copy_kernel(&s.layout, &sh.layout, &d.layout, &shape, dtype, target),
            )
        }
    };
    let ir = kernel.and_then(|k| k.llvm_ir()).map_err(|e| e.to_string())?;
    write(ir, common.output.as_deref())
}

/// The shape, its power-of-two padding, the dtype and the target.
type Resolved = (Vec<u64>, Vec<u64>, Dtype, &'static Target);

impl Common {
    /// The shape, its power-of-two padding, the dtype and the target.
    fn resolve(&self) -> Result<Resolved, String> {
        let shape = parse_shape(&self.shape)?;
        let padded: Vec<u64> = shape
            .iter()
            .map(|&s| {
                s.checked_next_power_of_two()
                    .ok_or_else(|| format!("--shape: {s} is too large"))
            })
            .collect::<Result<_, _>>()?;
        let dtype = Dtype::parse(&self.dtype).map_err(|e| e.to_string())?;
        let target = Target::by_name(&self.arch)?;
        Ok((shape, padded, dtype, target))
    }
}

/// `lower matmul`: the kernel, or why the request is malformed.
fn matmul(m: &MatmulArgs) -> Result<Result<Kernel, LowerError>, String> {
    let sides: Vec<u64> = m
        .mnk
        .split(['x', 'X'])
        .map(|x| x.trim().parse::<u64>().ok().filter(|&v| v > 0))
        .collect::<Option<_>>()
        .unwrap_or_default();
    let [rows, cols, depth] = sides[..] else {
        return Err(format!(
            "--mnk {}: expected three sizes like 128x128x64 (positive integers)",
            m.mnk
        ));
    };
    let target = Target::by_name(&m.arch)?;
    let dtype = resolve_type(&m.dtype, target).map_err(|e| e.to_string())?;
    let acc = match &m.acc {
        Some(a) => resolve_type(a, target),
        None => accumulator_of(dtype),
    }
    .map_err(|e| e.to_string())?;
    let options = MatmulOptions {
        nonkdim: m.nonkdim,
        kpack: m.kpack,
    };
    Ok(matmul_kernel(
        rows, cols, depth, dtype, acc, m.warps, target, options,
    ))
}

/// `lower ttgir`.
fn run_ttgir(args: &TtgirArgs) -> Result<String, String> {
    let text = if args.file == "-" {
        std::io::read_to_string(std::io::stdin()).map_err(|e| format!("standard input: {e}"))?
    } else {
        std::fs::read_to_string(&args.file).map_err(|e| format!("{}: {e}", args.file))?
    };
    let (_, module) = Graph::parse_inlined(&text).map_err(|e| format!("{}: {e}", args.file))?;
    let arch = match (&args.arch, &module.target) {
        (Some(a), _) => a.clone(),
        (None, Some(t)) => t.clone(),
        (None, None) => {
            return Err(format!(
                "{}: the module names no ttg.target; give --arch",
                args.file
            ));
        }
    };
    let target = Target::by_name(&arch)?;
    let ir = ttgir_kernel(&module, target)
        .and_then(|k| k.llvm_ir())
        .map_err(|e| format!("{}: {e}", args.file))?;
    write(ir, args.output.as_deref())
}

/// The module on standard output (returned) or in `output`.
fn write(ir: String, output: Option<&str>) -> Result<String, String> {
    match output {
        Some(path) => {
            std::fs::write(path, ir).map_err(|e| format!("{path}: {e}"))?;
            Ok(String::new())
        }
        None => Ok(ir),
    }
}
