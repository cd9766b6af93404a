//! `lower::compile` on the zoo: kernels as people write them beyond the people set — norms,
//! activations, quantization, sorts and scans, block pointers, atomics of every kind, the device
//! library's functions, edge shapes — as Triton 3.6.0's `make_ttir` leaves them for gfx942,
//! gfx950 and gfx1100 (`tests/fixtures/compile/zoo/`, written by `scripts/zoo_ttir.py`).
//! Each compiles with both layout modes into a program that validates, the cost mode's never
//! dearer than Triton's layouts, and llc-22 accepts the kernel; or it is one of the refusals
//! listed here, refused in one line naming the op and the line of the file it is on.

mod lower_common;

use linear_layout::lower::{CompileOptions, Layouts, compile};
use linear_layout::target::Target;
use lower_common::{compile as assemble, llc};
use serde_json::Value as Json;

const DIR: &str = "tests/fixtures/compile/zoo";

/// What the crate refuses, by kernel: a fragment of the one-line message.
const REFUSED: &[(&str, &str)] = &[(
    "print_64_f32",
    "tt.print: device printing and assertions need a host runtime",
)];

#[test]
fn zoo_kernels_compile_both_ways_or_are_refused_in_one_line() {
    let manifest: Json =
        serde_json::from_str(&std::fs::read_to_string(format!("{DIR}/manifest.json")).unwrap()).unwrap();
    let llc = llc();
    let dir = std::env::temp_dir().join(format!("ll-zoo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mut compiled, mut refused, mut failures) = (0, 0, Vec::new());
    for (key, entry) in manifest.as_object().unwrap() {
        let path = format!("{DIR}/{key}.ttir");
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue; // Triton refused before TTIR
        };
        let (kernel, arch) = key.rsplit_once('.').unwrap();
        let target = Target::by_name(arch).unwrap();
        let warps = entry["num_warps"].as_u64().unwrap() as u32;
        let expected = REFUSED.iter().find(|(k, _)| *k == kernel).map(|(_, m)| *m);
        let mut results = Vec::new();
        for layouts in [Layouts::Triton, Layouts::Cost] {
            let opts = CompileOptions {
                layouts,
                ..CompileOptions::new(warps)
            };
            results.push(compile(&text, target, &opts));
        }
        match (&results[0], &results[1], expected) {
            (Ok(triton), Ok(cost), None) => {
                compiled += 1;
                if cost.cost.cycles > triton.cost.cycles || cost.cost.instructions > triton.cost.instructions
                {
                    failures.push(format!(
                        "{key}: the cost mode is dearer ({:?} vs {:?})",
                        cost.cost, triton.cost
                    ));
                }
                for c in [triton, cost] {
                    if let Err(e) = c.kernel.program.validate() {
                        failures.push(format!("{key}: {e}"));
                    }
                }
                if let Some(llc) = llc {
                    let ir = cost.kernel.llvm_ir().unwrap();
                    if let Err(e) = assemble(llc, &ir, target, &dir, kernel) {
                        failures.push(format!("{key}: llc: {e}"));
                    }
                }
            }
            (Err(a), Err(b), Some(fragment)) => {
                refused += 1;
                for e in [a, b] {
                    let e = e.to_string();
                    // `line N: op: …`, perhaps after the stage (`layouts: line N: …`).
                    let line_named = e
                        .split_once("line ")
                        .and_then(|(_, r)| r.split_once(':'))
                        .and_then(|(n, _)| n.parse::<usize>().ok());
                    let on_line = line_named
                        .and_then(|n| text.lines().nth(n - 1))
                        .is_some_and(|l| !l.trim().is_empty());
                    if !e.contains(fragment) || !on_line || e.contains('\n') {
                        failures.push(format!("{key}: refused otherwise than expected: {e}"));
                    }
                }
            }
            (a, b, _) => failures.push(format!(
                "{key}: expected {}, got triton {:?} / cost {:?}",
                expected.map_or("a kernel".to_string(), |m| format!("a refusal ({m})")),
                a.as_ref().err().map(|e| e.to_string()),
                b.as_ref().err().map(|e| e.to_string())
            )),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        compiled >= 300,
        "{compiled} compiled, {refused} refused: the zoo is missing"
    );
}
