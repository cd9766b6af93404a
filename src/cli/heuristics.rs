//! `linear-layout heuristics FILE.mlir --pass … --arch …`: Triton 3.6's AMD layout decisions
//! on a TTGIR file, with the reason for each.

use std::path::PathBuf;

use linear_layout::heuristics::passes::{Pass, PassOptions, run as run_pass};
use linear_layout::heuristics::propagation::{LayoutPass, LayoutPassOptions, run_layout_pass_explained};
use linear_layout::ttgir::Module;

/// Arguments of the `heuristics` subcommand.
#[derive(clap::Args)]
pub struct Args {
    /// A TTGIR module as Triton prints it (`.mlir`).
    pub file: PathBuf,
    /// The pass to run. Decisions with their reasons: coalesce, accelerate_matmul,
    /// coalesce_async_copy. Rewrites of the module (what changed, or the module with
    /// `--emit ttgir`): convert_to_ttgpuir, coalesce, f32_dot_tc, remove_layout_conversions,
    /// optimize_thread_locality, accelerate_matmul, optimize_epilogue, optimize_dot_operands,
    /// hoist_layout_conversions, fuse_nested_loops, canonicalize, licm,
    /// reduce_data_duplication, in_thread_transpose, and pipeline (all of them in Triton's AMD order). coalesce and
    /// accelerate_matmul report their decisions unless `--emit ttgir` asks for the module.
    #[arg(long)]
    pub pass: String,
    /// Warps of a TTIR module (convert_to_ttgpuir, pipeline).
    #[arg(long, default_value_t = 4)]
    pub num_warps: u32,
    /// Lanes per warp of a TTIR module (convert_to_ttgpuir, pipeline); default: the arch's
    /// wave size.
    #[arg(long)]
    pub threads_per_warp: Option<u32>,
    /// `ttgir`: print the module after a rewriting pass, as TTGIR Triton's parser reads.
    #[arg(long, value_parser = ["ttgir"])]
    pub emit: Option<String>,
    /// Target architecture (gfx90a, gfx942, gfx950, gfx1100, gfx1201, gfx1250); default: the
    /// module's `ttg.target`.
    #[arg(long)]
    pub arch: Option<String>,
    /// accelerate_matmul's kPack (1 or 2).
    #[arg(long, default_value_t = 1)]
    pub kpack: u32,
    /// accelerate_matmul's matrix_instr_nonkdim (0 = heuristic).
    #[arg(long, default_value_t = 0)]
    pub nonkdim: u32,
    /// f32_dot_tc's TF32 emulation (split `tf32x3` dots; off in Triton's AMD pipeline).
    #[arg(long)]
    pub emu_tf32: bool,
    /// Print a JSON object shaped like the oracle's `result` (`mem` / `dots` / `copies`).
    #[arg(long)]
    pub json: bool,
}

/// Runs the subcommand and returns its output text.
pub fn run(args: &Args) -> Result<String, String> {
    let text = super::read_ttgir(&args.file.to_string_lossy())?;
    let decisions = matches!(
        args.pass.as_str(),
        "coalesce" | "accelerate_matmul" | "coalesce_async_copy"
    );
    if let Ok(pass) = args.pass.parse::<LayoutPass>()
        && (!decisions || args.emit.is_some())
    {
        return rewrite(args, &text, pass);
    }
    if args.emit.is_some() {
        return Err(format!(
            "--emit ttgir needs a rewriting pass, not '{}'",
            args.pass
        ));
    }
    let modules = Module::parse_all(&text).map_err(|e| format!("{}: {e}", args.file.display()))?;
    let pass: Pass = args.pass.parse()?;
    if args.kpack != 1 && args.kpack != 2 {
        return Err(format!("--kpack must be 1 or 2, got {}", args.kpack));
    }
    // One module: its report alone. Several (`// -----`): each report says which module.
    let several = modules.len() > 1;
    let mut text_out = String::new();
    let mut json_out = Vec::new();
    for module in &modules {
        let where_ = format!("{}:{}", args.file.display(), module.first_line);
        let arch = args
            .arch
            .clone()
            .or_else(|| module.target.clone())
            .ok_or_else(|| format!("{where_}: no --arch given and the module has no ttg.target"))?;
        let mut opts = PassOptions::new(pass, &arch);
        opts.kpack = args.kpack;
        opts.nonkdim = args.nonkdim;
        let report = run_pass(module, &opts).map_err(|e| format!("{where_}: {e}"))?;
        if args.json {
            let result = report.to_json();
            json_out.push(if several {
                serde_json::json!({"module_line": module.first_line, "result": result})
            } else {
                result
            });
        } else {
            if several {
                text_out.push_str(&format!("module at line {}: ", module.first_line));
            }
            text_out.push_str(&format!(
                "{} on {arch} ({} warps × {} lanes)\n",
                args.pass, module.num_warps, module.threads_per_warp
            ));
            let body = report.to_text();
            if body.is_empty() {
                text_out.push_str("no op to decide\n");
            }
            text_out.push_str(&body);
            if several {
                text_out.push('\n');
            }
        }
    }
    if args.json {
        let value = if several {
            serde_json::Value::Array(json_out)
        } else {
            json_out.remove(0)
        };
        let mut s = serde_json::to_string_pretty(&value).map_err(|e| e.to_string())?;
        s.push('\n');
        Ok(s)
    } else {
        Ok(text_out)
    }
}

/// A rewriting pass: the module after it (`--emit ttgir`), or what changed (ops and converts
/// before and after), in text or JSON.
fn rewrite(args: &Args, text: &str, pass: LayoutPass) -> Result<String, String> {
    let module = Module::parse(text).map_err(|e| format!("{}: {e}", args.file.display()))?;
    let arch = args
        .arch
        .clone()
        .or_else(|| module.target.clone())
        .ok_or_else(|| {
            format!(
                "{}: no --arch given and the module has no ttg.target",
                args.file.display()
            )
        })?;
    let mut opts = LayoutPassOptions::new(&arch);
    opts.num_warps = args.num_warps;
    opts.threads_per_warp = args.threads_per_warp.unwrap_or(0);
    opts.kpack = args.kpack;
    opts.nonkdim = args.nonkdim;
    opts.emu_tf32 = args.emu_tf32;
    let (out, log) = run_layout_pass_explained(text, pass, &opts)
        .map_err(|e| format!("{}: {pass}: {e}", args.file.display()))?;
    if args.emit.is_some() {
        return Ok(out);
    }
    let after = Module::parse(&out).map_err(|e| {
        format!(
            "{}: {pass} printed a module it cannot read: {e}",
            args.file.display()
        )
    })?;
    let count = |m: &Module, name: &str| m.ops.iter().filter(|o| o.name == name).count();
    let (ops0, ops1) = (module.ops.len(), after.ops.len());
    let (c0, c1) = (
        count(&module, "ttg.convert_layout"),
        count(&after, "ttg.convert_layout"),
    );
    if args.json {
        let v = serde_json::json!({
            "pass": pass.to_string(), "arch": arch,
            "ops": {"before": ops0, "after": ops1},
            "convert_layout": {"before": c0, "after": c1},
            "changes": log,
            "ttgir": out,
        });
        let mut s = serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?;
        s.push('\n');
        return Ok(s);
    }
    let mut text = format!(
        "{pass} on {arch} ({} warps × {} lanes): {ops0} ops → {ops1}, {c0} convert_layout → {c1}\n",
        after.num_warps, after.threads_per_warp
    );
    for line in &log {
        text.push_str("  ");
        text.push_str(line);
        text.push('\n');
    }
    text.push_str("(--emit ttgir prints the module)\n");
    Ok(text)
}
