//! `linear-layout cost SRC DST --shape … --bits 16 --arch gfx942`: what converting a tensor
//! from one layout to another costs on an AMD GPU, and why.

use std::fmt::Write as _;

use linear_layout::heuristics::convert::{ConvertCost, convert_cost};
use linear_layout::target::{TARGETS, Target};

use super::layout_arg::{LAYOUT_HELP, load, parse_shape};

/// Arguments of the `cost` subcommand.
#[derive(clap::Args)]
pub struct Args {
    /// The source layout (the forms of LAYOUT below).
    #[arg(value_name = "SRC", help = format!("The source layout. {LAYOUT_HELP}"))]
    pub src: String,
    /// The destination layout (same forms).
    #[arg(value_name = "DST")]
    pub dst: String,
    /// The tensor shape, e.g. 128x128 (required when SRC or DST is an encoding).
    #[arg(long, value_name = "DxD…")]
    pub shape: Option<String>,
    /// Element width in bits.
    #[arg(long, default_value_t = 16, value_name = "N")]
    pub bits: u32,
    /// Target architecture, or `all` for a table across every target.
    #[arg(long, default_value = "gfx942", value_name = "ARCH")]
    pub arch: String,
}

fn instruction_list(c: &ConvertCost) -> String {
    if c.instructions.is_empty() {
        return "none".into();
    }
    c.instructions
        .iter()
        .map(|(m, n)| format!("{n} × {m}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn report(out: &mut String, c: &ConvertCost, target: &Target) {
    let _ = writeln!(out, "target:       {} ({})", target.name, target.family);
    let _ = writeln!(out, "kind:         {}", c.kind.as_str());
    let _ = writeln!(out, "why:          {}", c.explanation);
    let _ = writeln!(out, "instructions: {} (per thread)", instruction_list(c));
    if let Some(plan) = &c.plan {
        let _ = writeln!(
            out,
            "LDS:          {} bytes a round trip, {} round trip(s){}",
            c.lds_bytes,
            plan.reps,
            if plan.read_transposed {
                ", read with the transposing ds_read_b64_tr"
            } else {
                ""
            }
        );
        let _ = writeln!(
            out,
            "conflicts:    {} excess wavefronts per write, {} per read",
            c.write_conflicts, c.read_conflicts
        );
        let _ = writeln!(out, "shared layout (offset -> tensor):{}", plan.shared);
    }
    let _ = writeln!(out, "cycles:       ~{} (estimate)", c.cycles);
}

/// Runs the subcommand and returns its standard output.
pub fn run(args: &Args) -> Result<String, String> {
    let shape = args.shape.as_deref().map(parse_shape).transpose()?;
    let src = load(&args.src, shape.as_deref(), "SRC")?;
    let dst = load(&args.dst, shape.as_deref(), "DST")?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "converting {} -> {}, {}-bit elements\n",
        src.title, dst.title, args.bits
    );
    if args.arch == "all" {
        let _ = writeln!(
            out,
            "{:<10} {:<9} {:>9} {:>9} {:>8}  instructions (per thread)",
            "target", "kind", "LDS bytes", "conflicts", "cycles"
        );
        for target in TARGETS.iter().filter(|t| t.same_as.is_none()) {
            match convert_cost(&src.layout, &dst.layout, args.bits, target) {
                Ok(c) => {
                    let _ = writeln!(
                        out,
                        "{:<10} {:<9} {:>9} {:>9} {:>8}  {}",
                        target.name,
                        c.kind.as_str(),
                        c.lds_bytes,
                        c.bank_conflicts,
                        c.cycles,
                        instruction_list(&c)
                    );
                }
                Err(e) => {
                    let _ = writeln!(out, "{:<10} {}", target.name, e.message());
                }
            }
        }
        return Ok(out);
    }
    let target = Target::by_name(&args.arch)?;
    let c = convert_cost(&src.layout, &dst.layout, args.bits, target).map_err(|e| e.message().to_string())?;
    report(&mut out, &c, target);
    Ok(out)
}
