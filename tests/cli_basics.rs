//! The `linear-layout` command itself: the tour, `batch` over a pipe, help and bad usage.

use std::io::Write;
use std::process::{Command, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_linear-layout"))
}

#[test]
fn the_tour_prints_real_amd_layouts_from_their_attribute_text() {
    let out = bin().output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for needle in [
        "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>",
        "#ttg.amd_mfma<{version = 3",
        "#ttg.dot_op<{opIdx = 0",
        "#ttg.swizzled_shared<{vec = 8",
        "where out dims are: [dim0 (size 128), dim1 (size 128)]",
        "vector width of the blocked layout along dim1: 8 elements per access",
    ] {
        assert!(text.contains(needle), "tour lacks {needle:?}");
    }
}

#[test]
fn batch_answers_every_line_in_order_and_survives_bad_input() {
    let mut child = bin().arg("batch").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
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
    assert_eq!((lines[2]["id"].clone(), lines[2]["ok"].clone()), (serde_json::json!(3), serde_json::json!(false)));
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
