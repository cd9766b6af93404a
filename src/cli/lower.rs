//! `linear-layout lower copy|convert|lds-copy …`: AMDGPU kernels (LLVM IR) generated from
//! layouts.

use linear_layout::lower::{Dtype, convert_kernel, copy_kernel, lds_copy_kernel};
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
    let common = match &args.kernel {
        KernelArgs::Copy { common, .. }
        | KernelArgs::Convert { common, .. }
        | KernelArgs::LdsCopy { common, .. } => common,
    };
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
    let kernel = match &args.kernel {
        KernelArgs::Copy { layout, .. } => {
            let l = load(layout, Some(&padded), "LAYOUT")?;
            copy_kernel(&l.layout, &shape, dtype, target)
        }
        KernelArgs::Convert { src, dst, .. } => {
            let s = load(src, Some(&padded), "SRC")?;
            let d = load(dst, Some(&padded), "DST")?;
            convert_kernel(&s.layout, &d.layout, &shape, dtype, target)
        }
        KernelArgs::LdsCopy { src, shared, dst, .. } => {
            let s = load(src, Some(&padded), "SRC")?;
            let sh = load(shared, Some(&padded), "SHARED")?;
            let d = load(dst, Some(&padded), "DST")?;
            lds_copy_kernel(&s.layout, &sh.layout, &d.layout, &shape, dtype, target)
        }
    };
    let ir = kernel.and_then(|k| k.llvm_ir()).map_err(|e| e.to_string())?;
    match &common.output {
        Some(path) => {
            std::fs::write(path, ir).map_err(|e| format!("{path}: {e}"))?;
            Ok(String::new())
        }
        None => Ok(ir),
    }
}
