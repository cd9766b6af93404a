//! `linear-layout compile FILE --arch …`: a TTIR (or TTGIR) module to an AMDGPU kernel, its
//! layouts chosen on the way.

use linear_layout::lower::{CompileOptions, Layouts, compile};
use linear_layout::target::Target;
use linear_layout::ttgir::Module;

/// Arguments of the `compile` subcommand.
#[derive(clap::Args)]
pub struct Args {
    /// A TTIR module as Triton's `make_ttir` leaves it (tensors without layouts), or TTGIR;
    /// '-' reads standard input.
    pub file: String,
    /// Target architecture (default: the module's `ttg.target`).
    #[arg(long)]
    pub arch: Option<String>,
    /// Warps of the kernel (Triton's `num_warps`).
    #[arg(long, default_value_t = 4)]
    pub num_warps: u32,
    /// How layouts are chosen: `cost` (Triton's layouts, then each conversion they leave
    /// weighed against recomputing its source or sinking its users, by the price of the code)
    /// or `triton` (Triton 3.6's AMD layout pipeline at num_stages 1).
    #[arg(long, default_value = "cost")]
    pub layouts: String,
    /// `llvm`: the kernel as LLVM IR for amdgcn-amd-amdhsa; `ttgir`: the module with its
    /// layouts, as TTGIR Triton's parser reads.
    #[arg(long, default_value = "llvm", value_parser = ["llvm", "ttgir"])]
    pub emit: String,
    /// Also print what each layout pass changed and why, what the cost mode weighed per
    /// conversion, the conversions left with their prices and the kernel's price (on standard
    /// error).
    #[arg(long)]
    pub explain: bool,
    /// Write the output to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<String>,
}

/// Runs the subcommand and returns its output text (empty when written to `--output`).
pub fn run(args: &Args) -> Result<String, String> {
    let text = super::read_ttgir(&args.file)?;
    let arch = match &args.arch {
        Some(a) => a.clone(),
        None => Module::parse(&text)
            .map_err(|e| format!("{}: {e}", args.file))?
            .target
            .ok_or_else(|| format!("{}: the module names no ttg.target; give --arch", args.file))?,
    };
    let target = Target::by_name(&arch)?;
    let layouts: Layouts = args.layouts.parse()?;
    let opts = CompileOptions {
        num_warps: args.num_warps,
        layouts,
    };
    let out = compile(&text, target, &opts).map_err(|e| format!("{}: {e}", args.file))?;
    if args.explain {
        for line in &out.changes {
            eprintln!("{line}");
        }
        if !out.choices.is_empty() {
            eprintln!("layouts weighed per conversion of Triton's layouts:");
            for c in &out.choices {
                eprintln!("  {c}");
            }
        }
        eprintln!("conversions left: {}", out.conversions.len());
        for c in &out.conversions {
            eprintln!("  {c}");
        }
        eprintln!("kernel: {} (LDS budget {} bytes)", out.cost, target.lds_bytes);
    }
    let text = match args.emit.as_str() {
        "ttgir" => out.ttgir,
        _ => out.kernel.llvm_ir().map_err(|e| format!("{}: {e}", args.file))?,
    };
    match &args.output {
        Some(path) => {
            std::fs::write(path, text).map_err(|e| format!("{path}: {e}"))?;
            Ok(String::new())
        }
        None => Ok(text),
    }
}
