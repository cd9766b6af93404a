//! `linear-layout targets [--json]`: the target table the crate assumes, one row per arch —
//! what the cost model, the heuristics and the lowering read.

use std::fmt::Write as _;

use linear_layout::target::{PhaseModel, TARGETS, Target};

/// Arguments of the `targets` subcommand.
#[derive(clap::Args)]
pub struct Args {
    /// Print every row with every field as JSON (an array, table order).
    #[arg(long)]
    pub json: bool,
}

/// Runs the subcommand and returns its output text.
pub fn run(args: &Args) -> Result<String, String> {
    if args.json {
        let mut text = serde_json::to_string_pretty(TARGETS).map_err(|e| e.to_string())?;
        text.push('\n');
        return Ok(text);
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<10} {:<22} {:>4} {:>8} {:>5}  {:<8} {:<15} {:<15} cross-lane",
        "target", "family", "wave", "LDS KiB", "banks", "matrix", "direct-to-LDS", "LDS phases"
    );
    for t in TARGETS.iter().filter(|t| t.same_as.is_none()) {
        let _ = writeln!(
            out,
            "{:<10} {:<22} {:>4} {:>8} {:>5}  {:<8} {:<15} {:<15} {}",
            t.name,
            t.family,
            t.wave_size,
            t.lds_bytes / 1024,
            t.lds_banks,
            matrix(t),
            direct_to_lds(t),
            phases(t),
            cross_lane(t).join(", ")
        );
    }
    let _ = writeln!(out, "\nsame rows under other names:");
    for t in TARGETS {
        if let Some(base) = t.same_as {
            let _ = writeln!(out, "  {} = {base}", t.name);
        }
    }
    let _ = writeln!(out, "\nprovenance and assumptions:");
    for t in TARGETS.iter().filter(|t| t.same_as.is_none()) {
        let _ = writeln!(out, "  {}: {}", t.name, t.notes);
    }
    let _ = writeln!(out, "\nEvery field of every row: linear-layout targets --json");
    Ok(out)
}

fn matrix(t: &Target) -> String {
    match (t.matrix.mfma_version, t.matrix.wmma_version) {
        (Some(v), _) => format!("MFMA v{v}"),
        (None, Some(v)) => format!("WMMA v{v}"),
        (None, None) => "FMA".into(),
    }
}

fn direct_to_lds(t: &Target) -> String {
    let bytes = t.instructions.direct_to_lds_bytes;
    if bytes.is_empty() {
        return "-".into();
    }
    let list: Vec<String> = bytes.iter().map(|b| b.to_string()).collect();
    format!("{} B", list.join("/"))
}

fn phases(t: &Target) -> String {
    match t.phases {
        PhaseModel::LayoutLanes => "layout lanes".into(),
        PhaseModel::Table(rules) => format!("measured ({})", rules.len()),
    }
}

fn cross_lane(t: &Target) -> Vec<&'static str> {
    let i = &t.instructions;
    [
        (i.ds_bpermute, "ds_bpermute"),
        (i.dpp, "DPP"),
        (i.permlane16, "permlane16"),
        (i.permlane64, "permlane64"),
        (i.permlane_swap, "permlane swaps"),
        (i.ds_read_tr_b64, "ds_read_b64_tr"),
        (i.ds_load_tr_b128, "ds_load_tr"),
    ]
    .into_iter()
    .filter_map(|(has, name)| has.then_some(name))
    .collect()
}
