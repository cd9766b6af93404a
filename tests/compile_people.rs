//! `lower::compile` on the kernels as people write them: each kernel's TTIR (as Triton's
//! `make_ttir` leaves it, `tests/fixtures/passes/people/`), its layouts chosen as Triton
//! 3.6 chooses them, lowered, and run in the interpreter over every workgroup of its cases'
//! grids against `expected.py` (`tests/fixtures/lower/ttgir-people/`); llc-22 accepts each
//! kernel. With `--nocapture` it prints each kernel's instructions, VGPRs and LDS bytes beside
//! Triton's own compile of the same source (its default options).

#[path = "lower_common/mod.rs"]
mod lower_common;

use std::collections::BTreeMap;

use linear_layout::lower::{CompileOptions, Compiled, compile};
use linear_layout::target::Target;
use lower_common::llc;
use lower_common::people::{assembled_row, cases, check, expected, print_table, stem};
use serde_json::Value as Json;

/// The TTIR of a case's kernel and its warps, from the layout-pass fixtures.
fn ttir(case: &Json) -> (String, u32) {
    let (kernel, arch) = (stem(case), case["arch"].as_str().unwrap().to_string());
    let path = format!("tests/fixtures/passes/people/{kernel}.{arch}.mlir");
    let text = std::fs::read_to_string(&path).unwrap();
    let warps = text
        .lines()
        .find_map(|l| l.strip_prefix("// num_warps: "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(4);
    let body = text
        .split("// ----- stage 0: ttir\n")
        .nth(1)
        .and_then(|rest| rest.split("// ----- stage 1").next())
        .unwrap();
    (body.to_string(), warps)
}

fn compiled(case: &Json) -> Result<Compiled, String> {
    let (text, warps) = ttir(case);
    let target = Target::by_name(case["arch"].as_str().unwrap()).unwrap();
    compile(&text, target, &CompileOptions::new(warps)).map_err(|e| e.to_string())
}

#[test]
fn people_kernels_compile_from_ttir_and_run_right() {
    let expected = expected();
    let llc = llc();
    let dir = std::env::temp_dir().join(format!("ll-compile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut failures = Vec::new();
    let mut done = BTreeMap::new();
    let mut rows = Vec::new();
    for case in cases() {
        let id = case["id"].as_str().unwrap().to_string();
        let c = match compiled(&case) {
            Ok(c) => c,
            Err(e) => {
                failures.push(format!("{id}: {e}"));
                continue;
            }
        };
        if let Err(e) = check(&case, &c.kernel, &expected[&id]) {
            failures.push(format!("{id}: {e}"));
        }
        let file = case["file"].as_str().unwrap().to_string();
        if let Some(llc) = llc
            && !done.contains_key(&file)
        {
            match assembled_row(
                llc,
                &c.kernel,
                &case,
                &dir,
                &format!("compiled_{}", file.replace('.', "_")),
            ) {
                Ok(r) => rows.push(r),
                Err(e) => failures.push(format!("{file}: {e}")),
            }
        }
        done.insert(file, ());
    }
    print_table(&rows);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(done.len() >= 140, "only {} kernels compiled", done.len());
}
