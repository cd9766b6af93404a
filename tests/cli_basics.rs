//! The `linear-layout` command itself: the tour, `batch` over a pipe, help and bad usage.

use std::io::Write;
use std::process::{Command, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_linear-layout"))
}

#[test]
fn the_tour_shows_amd_layouts_both_views_costs_and_pictures() {
    let out = bin().output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    // It fits an 80–100 column terminal: longer lines continue on the next after four spaces.
    assert!(text.lines().all(|l| l.chars().count() <= 100), "{text}");
    let text = text.replace("\n    ", " ");
    for needle in [
        "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>",
        "instrShape = [32, 32, 8]",
        "instrShape = [16, 16, 16]",
        "#ttg.dot_op<{opIdx = 0",
        "#ttg.dot_op<{opIdx = 1",
        "#ttg.swizzled_shared<{vec = 8",
        "where out dims are: [dim0 (size 128), dim1 (size 128)]",
        "tensor view",
        "hardware view",
        "blocked -> MFMA 32x32 on gfx942: lds",
        "blocked -> MFMA 32x32 on gfx950: lds",
        "so the data must cross warps",
        "--layouts triton: 1 conversion(s) left",
        "--layouts cost: 0 conversion(s) left",
        "chosen: sink",
        "The code: blocked -> MFMA 32x32 on a 128x128 f16 tile",
        "gfx942  Triton 3.6.0       8           8          8         3      16  152",
        "gfx950  Triton 3.6.0       8           8          8         3      16  152",
    ] {
        assert!(text.contains(needle), "tour lacks {needle:?}");
    }
    // The tensor view is Triton's: T<thread>:<register> cells.
    assert!(
        text.lines()
            .any(|l| l.starts_with("[[") && l.contains("T0:0,") && l.contains("T3:1]")),
        "tour lacks the tensor view grid"
    );
    let folder = text
        .lines()
        .find_map(|l| l.split(" are in ").nth(1))
        .expect("the tour names its picture folder");
    let svgs = std::fs::read_dir(folder.trim())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "svg"))
        })
        .count();
    assert!(svgs >= 5, "{svgs} pictures in {folder}");
    // The conversion's code for each target, beside the pictures.
    for arch in ["gfx942", "gfx950"] {
        let ll = std::path::Path::new(folder.trim()).join(format!("blocked-to-mfma32-{arch}.ll"));
        let ir = std::fs::read_to_string(&ll).unwrap();
        assert!(
            ir.starts_with(&format!("; cvt_blocked_to_mfma for {arch}")),
            "{}",
            ll.display()
        );
        assert!(text.contains(&format!("the kernel's LLVM IR: {}", ll.display())));
    }
}

#[test]
fn batch_answers_every_line_in_order_and_survives_bad_input() {
    let mut child = bin()
        .arg("batch")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let input = concat!(
        r#"{"id": 1, "op": "invert", "layout": {"in_dims": {"x": [[2], [1]]}, "out_dims": {"y": 4}}}"#,
        "\n{not json\n\n",
        r#"{"id": 3, "op": "nope"}"#,
        "\n",
        r#"{"id": 4, "op": "apply", "layout": {"in_dims": {"x": [[2], [1]]}, "out_dims": {"y": 4}}, "inputs": {"x": 1}}"#,
        "\n"
    );
    let mut bytes = input.as_bytes().to_vec();
    bytes.extend_from_slice(b"\xff\xfe not utf-8\n");
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5, "one answer per non-blank line");
    assert_eq!(lines[0]["layout"]["in_dims"]["y"], serde_json::json!([[2], [1]]));
    assert_eq!(lines[1]["ok"], false);
    assert_eq!(
        (lines[2]["id"].clone(), lines[2]["ok"].clone()),
        (serde_json::json!(3), serde_json::json!(false))
    );
    assert_eq!(lines[3]["outputs"]["y"], 2);
    assert_eq!(lines[4]["ok"], false);
}

#[test]
fn help_shows_examples_and_bad_usage_is_one_error_and_a_failure() {
    let help = bin().arg("--help").output().unwrap();
    assert!(help.status.success());
    assert!(String::from_utf8(help.stdout).unwrap().contains("Examples:"));
    let bad = bin().arg("no-such-command").output().unwrap();
    assert!(!bad.status.success());
    let err = String::from_utf8(bad.stderr).unwrap();
    assert!(err.starts_with("error:"), "{err}");
    assert!(!err.contains("panicked"));
}

const BLOCKED: &str =
    "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>";
const MFMA: &str =
    "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>";

#[test]
fn cost_reports_a_round_trip_through_lds_with_its_reason() {
    let out = bin()
        .args([
            "cost", BLOCKED, MFMA, "--shape", "128x128", "--bits", "16", "--arch", "gfx942",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("kind:         lds"), "{text}");
    assert!(text.contains("so the data must cross warps"), "{text}");
    assert!(
        text.contains("ds_write_b128") && text.contains("ds_read_b128"),
        "{text}"
    );
    assert!(text.contains("shared layout (offset -> tensor):"), "{text}");
}

#[test]
fn cost_across_every_target_is_one_row_each() {
    let out = bin()
        .args(["cost", BLOCKED, MFMA, "--shape", "128x128", "--arch", "all"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for target in [
        "generic32",
        "gfx90a",
        "gfx942",
        "gfx950",
        "gfx1100",
        "gfx1201",
        "gfx1250",
    ] {
        assert_eq!(
            text.lines().filter(|l| l.starts_with(target)).count(),
            1,
            "{target} in\n{text}"
        );
    }
    // RDNA spells LDS accesses ds_load/ds_store.
    assert!(
        text.lines()
            .any(|l| l.starts_with("gfx1100") && l.contains("ds_store_b128")),
        "{text}"
    );
}

#[test]
fn cost_rejects_an_unknown_target_and_a_missing_shape_with_one_line() {
    for args in [
        vec!["cost", BLOCKED, MFMA, "--shape", "128x128", "--arch", "gfx9999"],
        vec!["cost", BLOCKED, MFMA],
    ] {
        let out = bin().args(&args).output().unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("linear-layout: "), "{err}");
    }
}

#[test]
fn heuristics_rewrites_a_module_and_prints_it_as_ttgir() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/passes/people");
    let text = std::fs::read_to_string(dir.join("vector_add_256_f32.gfx942.mlir")).unwrap();
    // Stage 0 is the kernel's TTIR.
    let ttir: String = text
        .split("// ----- stage 1:")
        .next()
        .unwrap()
        .lines()
        .skip_while(|l| !l.starts_with("// ----- stage 0"))
        .skip(1)
        .map(|l| format!("{l}\n"))
        .collect();
    let path = std::env::temp_dir().join(format!("ll-cli-ttir-{}.mlir", std::process::id()));
    std::fs::write(&path, ttir).unwrap();
    let out = bin()
        .args([
            "heuristics",
            path.to_str().unwrap(),
            "--pass",
            "pipeline",
            "--arch",
            "gfx942",
            "--emit",
            "ttgir",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let module = String::from_utf8(out.stdout).unwrap();
    assert!(module.contains("\"ttg.threads-per-warp\" = 64 : i32"), "{module}");
    assert!(
        module.contains(
            "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>"
        ),
        "{module}"
    );
    let summary = bin()
        .args([
            "heuristics",
            path.to_str().unwrap(),
            "--pass",
            "pipeline",
            "--arch",
            "gfx942",
        ])
        .output()
        .unwrap();
    let summary = String::from_utf8(summary.stdout).unwrap();
    assert!(
        summary.starts_with("pipeline on gfx942 (4 warps × 64 lanes)"),
        "{summary}"
    );
    let _ = std::fs::remove_file(&path);
}
