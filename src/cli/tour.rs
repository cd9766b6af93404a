//! `linear-layout` with no arguments: a tour on built-in AMD examples.

use std::fmt::Write as _;

use linear_layout::encodings::Encoding;
use linear_layout::linear::LinearLayout;

/// The built-in examples, as Triton prints them in TTGIR.
const BLOCKED: &str =
    "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>";
const MFMA: &str =
    "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>";
const SHARED: &str = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>";

fn layout(text: &str, shape: &[u64]) -> Result<LinearLayout, String> {
    let encoding: Encoding = text.parse().map_err(|e| format!("{text}: {e}"))?;
    encoding
        .to_linear_layout(shape)
        .map_err(|e| format!("{text}: {e}"))
}

fn show(out: &mut String, title: &str, text: &str, l: &LinearLayout) {
    let _ = writeln!(out, "{title}\n  {text}{l}\n");
}

/// The tour's text.
pub fn run() -> Result<String, String> {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "linear-layout: GPU tensor layouts as linear maps over GF(2)\n"
    );
    let blocked = layout(BLOCKED, &[128, 128])?;
    show(
        &mut out,
        "A coalesced blocked layout of a 128x128 tensor:",
        BLOCKED,
        &blocked,
    );
    let mfma = layout(MFMA, &[128, 128])?;
    show(
        &mut out,
        "An MFMA 32x32 accumulator layout of the same tensor:",
        MFMA,
        &mfma,
    );
    let dot_a_text = format!("#ttg.dot_op<{{opIdx = 0, parent = {MFMA}, kWidth = 8}}>");
    let dot_a = layout(&dot_a_text, &[128, 64])?;
    show(
        &mut out,
        "Its A operand (128x64, 8 consecutive K elements per lane):",
        &dot_a_text,
        &dot_a,
    );
    let dot_b_text = format!("#ttg.dot_op<{{opIdx = 1, parent = {MFMA}, kWidth = 8}}>");
    let dot_b = layout(&dot_b_text, &[64, 128])?;
    show(&mut out, "Its B operand (64x128):", &dot_b_text, &dot_b);
    let shared = layout(SHARED, &[128, 64])?;
    show(
        &mut out,
        "A swizzled shared-memory layout (128x64):",
        SHARED,
        &shared,
    );

    let owner = blocked
        .apply(&[("register", 3), ("lane", 9), ("warp", 1), ("block", 0)])
        .map_err(|e| e.to_string())?;
    let _ = writeln!(
        out,
        "blocked: register 3 of lane 9 of warp 1 holds element ({}, {})",
        owner[0], owner[1]
    );
    let conversion = blocked.invert_and_compose(&mfma).map_err(|e| e.to_string())?;
    let _ = writeln!(
        out,
        "converting blocked -> MFMA: for each source register/lane/warp, the MFMA register/lane/warp holding the same element:{conversion}\n"
    );
    let row_major = blocked
        .transpose_outs(&["dim1", "dim0"])
        .map_err(|e| e.to_string())?;
    let _ = writeln!(
        out,
        "vector width of the blocked layout along dim1: {} elements per access",
        row_major.num_consecutive_in_out()
    );
    let _ = writeln!(
        out,
        "\nRun `linear-layout --help` for the commands, `linear-layout batch` for the JSON-lines protocol."
    );
    Ok(out)
}
