//! The subcommands of the `linear-layout` command, one module each.

pub mod compile;
pub mod cost;
pub mod heuristics;
pub mod layout_arg;
pub mod llc;
pub mod lower;
pub mod serve;
pub mod show;
pub mod targets;
pub mod tour;

use std::io::Read;

use linear_layout::limits::LimitExceeded;
use linear_layout::ttgir::MAX_INPUT_BYTES;

/// Reads a TTGIR file, or standard input for `-`, reading no more than one byte past
/// [`MAX_INPUT_BYTES`]: a longer input is refused with the limit's error.
pub fn read_ttgir(path: &str) -> Result<String, String> {
    let what = if path == "-" { "standard input" } else { path };
    let source: Box<dyn Read> = if path == "-" {
        Box::new(std::io::stdin())
    } else {
        Box::new(std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?)
    };
    let mut text = String::new();
    source
        .take(MAX_INPUT_BYTES as u64 + 1)
        .read_to_string(&mut text)
        .map_err(|e| format!("{what}: {e}"))?;
    LimitExceeded::check(
        "ttgir::MAX_INPUT_BYTES",
        "bytes of TTGIR text",
        MAX_INPUT_BYTES as u64,
        text.len() as u64,
    )
    .map_err(|e| format!("{what}: {e}"))?;
    Ok(text)
}
