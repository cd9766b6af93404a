//! `linear-layout lower copy|convert|matmul …`: AMDGPU kernels (LLVM IR) generated from
//! layouts.

use linear_layout::lower::matmul::{MatmulOptions, accumulator_of, matmul_kernel, resolve_type};
use linear_layout::lower::{Dtype, Kernel, LowerError, convert_kernel, copy_kernel};
use linear_layout::target::Target;

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
    let (kernel, output) = match &args.kernel {
        KernelArgs::Copy { common, .. } | KernelArgs::Convert { common, .. } => {
            (layout_kernel(&args.kernel, common)?, &common.output)
        }
        KernelArgs::Matmul(m) => (matmul(m)?, &m.output),
    };
    let ir = kernel.and_then(|k| k.llvm_ir()).map_err(|e| e.to_string())?;
    match output {
        Some(path) => {
            std::fs::write(path, ir).map_err(|e| format!("{path}: {e}"))?;
            Ok(String::new())
        }
        None => Ok(ir),
    }
}

fn layout_kernel(kernel: &KernelArgs, common: &Common) -> Result<Result<Kernel, LowerError>, String> {
    let shape = parse_shape(&common.shape)?;
    let padded: Vec<u64> = shape
        .iter()
        .map(|&s| {
            s.checked_next_power_of_two()
                .ok_or_else(|| format!("--shape: {s} is too large"))
        })
        .collect::<Result<_, _>>()?;
    let dtype = Dtype::parse(&common.dtype).map_err(|e| e.to_string())?;
    let target = Target::by_name(&common.arch)?;
    Ok(match kernel {
        KernelArgs::Copy { layout, .. } => {
            let l = load(layout, Some(&padded), "LAYOUT")?;
            copy_kernel(&l.layout, &shape, dtype, target)
        }
        KernelArgs::Convert { src, dst, .. } => {
            let s = load(src, Some(&padded), "SRC")?;
            let d = load(dst, Some(&padded), "DST")?;
            convert_kernel(&s.layout, &d.layout, &shape, dtype, target)
        }
        KernelArgs::Matmul(_) => Err(LowerError::new("matmul takes no layouts")),
    })
}

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
