//! Runs one core operation of the benchmark table a given number of times, for counting its
//! instructions under `valgrind --tool=callgrind` (counts do not move with the machine's load,
//! as criterion's times do). `scripts/benchmarks.py` runs it twice per operation — `N` calls and
//! none — and reports the difference per call beside criterion's time.
//!
//! ```text
//! cargo run --release --example op_counts -- apply/blocked 2000
//! cargo run --release --example op_counts -- --list
//! ```
//!
//! The operations and their operands are those of `benches/core.rs` and
//! `benches/encodings.rs` (the standard layouts and encodings of `benches/`).

use std::collections::HashMap;
use std::hint::black_box;

use linear_layout::encodings::Encoding;
use linear_layout::linear::LinearLayout;
use serde_json::Value;

/// The benchmark table's operations, by their criterion ids.
const OPS: [&str; 13] = [
    "invert_and_compose/blocked_to_mfma",
    "invert_and_compose/mfma_to_shared",
    "compose/mfma_shared_inverse",
    "invert/shared",
    "pseudoinvert/blocked",
    "product/blocked_ident",
    "apply/blocked",
    "to_linear_layout/blocked",
    "to_linear_layout/mfma",
    "to_linear_layout/shared",
    "to_linear_layout/dotop",
    "to_linear_layout/wmma",
    "to_linear_layout/slice",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--list") {
        OPS.iter().for_each(|op| println!("{op}"));
        return Ok(());
    }
    let (Some(op), Some(n)) = (args.first(), args.get(1)) else {
        return Err("usage: op_counts OP N (or --list)".into());
    };
    let n: u64 = n.parse()?;
    let mut layouts: HashMap<String, LinearLayout> =
        serde_json::from_str(include_str!("../benches/std_layouts.json"))?;
    let more: HashMap<String, LinearLayout> =
        serde_json::from_str(include_str!("../benches/encoding_layouts.json"))?;
    layouts.extend(more);
    let specs: HashMap<String, Value> = serde_json::from_str(include_str!("../benches/std_encodings.json"))?;
    let l = |name: &str| layouts.get(name).ok_or(format!("no layout {name}"));
    let (blocked, mfma, mfma128x64, shared, ident) = (
        l("blocked")?,
        l("mfma")?,
        l("mfma128x64")?,
        l("shared")?,
        l("ident")?,
    );
    let shared_inv = shared.invert()?;
    let run = |f: &dyn Fn()| (0..n).for_each(|_| f());
    match op.as_str() {
        "invert_and_compose/blocked_to_mfma" => run(&|| {
            black_box(black_box(blocked).invert_and_compose(black_box(mfma)).ok());
        }),
        "invert_and_compose/mfma_to_shared" => run(&|| {
            black_box(black_box(mfma128x64).invert_and_compose(black_box(shared)).ok());
        }),
        "compose/mfma_shared_inverse" => run(&|| {
            black_box(black_box(mfma128x64).compose(black_box(&shared_inv)).ok());
        }),
        "invert/shared" => run(&|| {
            black_box(black_box(shared).invert().ok());
        }),
        "pseudoinvert/blocked" => run(&|| {
            black_box(black_box(blocked).pseudoinvert().ok());
        }),
        "product/blocked_ident" => run(&|| {
            black_box(black_box(blocked).product(black_box(ident)).ok());
        }),
        "apply/blocked" => run(&|| {
            let inputs = [("register", 5), ("lane", 9), ("warp", 1), ("block", 0)];
            black_box(black_box(blocked).apply(black_box(&inputs)).ok());
        }),
        encoding if encoding.starts_with("to_linear_layout/") => {
            let name = &encoding["to_linear_layout/".len()..];
            let spec = specs.get(name).ok_or(format!("no encoding {name}"))?;
            let encoding = Encoding::from_json(&spec["encoding"])?;
            let shape: Vec<u64> = serde_json::from_value(spec["shape"].clone())?;
            if encoding.to_linear_layout(&shape)? != *l(name)? {
                return Err(format!("{name} differs from Triton's layout").into());
            }
            run(&|| {
                black_box(black_box(&encoding).to_linear_layout(black_box(&shape)).ok());
            });
        }
        other => return Err(format!("unknown operation {other} (--list names them)").into()),
    }
    Ok(())
}
