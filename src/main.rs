//! The `linear-layout` command.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cli;

/// GPU tensor layouts as linear maps over GF(2), exact with Triton 3.6.0.
#[derive(Parser)]
#[command(name = "linear-layout", version, about, long_about = None)]
#[command(
    after_help = "With no command: a short tour on built-in examples.\n\nExamples:\n  linear-layout\n  echo '{\"op\": \"invert\", \"layout\": {\"in_dims\": {\"x\": [[2], [1]]}, \"out_dims\": {\"y\": 4}}}' | linear-layout batch"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Answer JSON-lines requests on stdin, one answer per line on stdout (see the README).
    #[command(
        after_help = "Example:\n  echo '{\"id\": 1, \"op\": \"is_injective\", \"layout\": {\"in_dims\": {\"x\": [[1]]}, \"out_dims\": {\"y\": 2}}}' | linear-layout batch"
    )]
    Batch,
    /// Run Triton 3.6's AMD layout heuristics (coalesce, accelerate-matmul, async-copy) on a
    /// TTGIR file and explain each choice.
    #[command(
        after_help = "Examples:\n  linear-layout heuristics kernel.mlir --pass coalesce --arch gfx942\n  linear-layout heuristics kernel.mlir --pass accelerate_matmul --arch gfx950 --nonkdim 16 --json"
    )]
    Heuristics(cli::heuristics::Args),
    /// Show a layout: Triton's tensor view (who holds each element), hardware view (--hw),
    /// bases (--bases), or a picture (--svg / --html).
    #[command(
        after_help = "Examples:\n  linear-layout show '#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>' --shape 64x64\n  linear-layout show '#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>' --shape 128x64 --hw\n  linear-layout show '#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>' --shape 32x64 --html swizzle.html --bits 16 --banks 64\n  linear-layout show @kernel.mlir:#mma --shape 128x128 --svg mma.svg\n  linear-layout show '@kernel.mlir:tensor<128x64xf16, #blocked>' --bases\n  linear-layout show '{\"in_dims\": {\"register\": [[1]], \"lane\": [[2], [4]], \"warp\": [], \"block\": []}, \"out_dims\": {\"dim0\": 8}}'"
    )]
    Show(cli::show::Args),
    /// Price converting a tensor from one layout to another on an AMD GPU: no-op, register
    /// permutation, lane shuffle or a round trip through LDS, with instruction counts, the
    /// chosen LDS layout, bank conflicts and a cycle estimate.
    #[command(
        after_help = "Examples:\n  linear-layout cost '#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>' '#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>' --shape 128x128 --bits 16 --arch gfx942\n  linear-layout cost @kernel.mlir:#blocked @kernel.mlir:#mma --shape 128x128 --arch all"
    )]
    Cost(cli::cost::Args),
    /// Print the target table the crate assumes: wave size, LDS, banks and phases, matrix
    /// units, direct-to-LDS widths, cross-lane instructions, with each row's provenance.
    #[command(after_help = "Examples:\n  linear-layout targets\n  linear-layout targets --json")]
    Targets(cli::targets::Args),
    /// Generate an AMDGPU kernel (LLVM IR for amdgcn-amd-amdhsa) from layouts: a copy through
    /// one layout, or a conversion between two with the plan `cost` reports.
    #[command(
        after_help = "Examples:\n  linear-layout lower copy '#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]}>' --shape 128x128 --dtype f16 --arch gfx942\n  linear-layout lower convert @kernel.mlir:#blocked @kernel.mlir:#mma --shape 128x128 --dtype f16 --arch gfx950 -o cvt.ll"
    )]
    Lower(cli::lower::Args),
    /// Compile a TTIR module (tensors without layouts) to an AMDGPU kernel: layouts chosen by
    /// Triton 3.6's AMD layout pipeline, then lowered as `lower ttgir` lowers.
    #[command(
        after_help = "Examples:\n  linear-layout compile kernel.ttir --arch gfx942 --num-warps 4 -o kernel.ll\n  linear-layout compile kernel.ttir --arch gfx950 --emit ttgir --explain"
    )]
    Compile(cli::compile::Args),
    /// Serve a page on this machine (127.0.0.1 only) to explore layouts in a browser: paste a
    /// layout, see its picture, bases and view; give a second one and see the conversion's cost
    /// and the kernel generated for it.
    #[command(after_help = "Examples:\n  linear-layout serve\n  linear-layout serve --port 9000")]
    Serve(cli::serve::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        None => cli::tour::run().and_then(|text| emit(&text)),
        Some(Command::Heuristics(args)) => cli::heuristics::run(&args).and_then(|text| emit(&text)),
        Some(Command::Show(args)) => cli::show::run(&args).and_then(|text| emit(&text)),
        Some(Command::Cost(args)) => cli::cost::run(&args).and_then(|text| emit(&text)),
        Some(Command::Targets(args)) => cli::targets::run(&args).and_then(|text| emit(&text)),
        Some(Command::Lower(args)) => cli::lower::run(&args).and_then(|text| emit(&text)),
        Some(Command::Compile(args)) => cli::compile::run(&args).and_then(|text| emit(&text)),
        Some(Command::Serve(args)) => cli::serve::run(&args).and_then(|text| emit(&text)),
        Some(Command::Batch) => {
            let stdin = io::stdin();
            let stdout = io::stdout();
            linear_layout::batch::run(stdin.lock(), BufWriter::new(stdout.lock())).or_else(quiet_broken_pipe)
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("linear-layout: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Writes a command's output; a reader that goes away early (`| head`) is not an error.
fn emit(text: &str) -> Result<(), String> {
    io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .or_else(quiet_broken_pipe)
}

fn quiet_broken_pipe(e: io::Error) -> Result<(), String> {
    if e.kind() == io::ErrorKind::BrokenPipe {
        Ok(())
    } else {
        Err(e.to_string())
    }
}
