//! `linear-layout targets`: the table as people read it and as JSON.

use std::process::Command;

use linear_layout::target::TARGETS;

fn run(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_linear-layout"))
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn text_lists_every_row_with_its_facts() {
    let text = run(&["targets"]);
    for t in TARGETS {
        match t.same_as {
            None => {
                let row = text
                    .lines()
                    .find(|l| l.starts_with(&format!("{} ", t.name)))
                    .unwrap();
                assert!(row.contains(t.family), "{row}");
                assert!(row.contains(&format!(" {} ", t.wave_size)), "{row}");
                assert!(text.contains(&format!("  {}: {}", t.name, t.notes)));
            }
            Some(base) => assert!(text.contains(&format!("  {} = {base}", t.name))),
        }
    }
}

#[test]
fn json_holds_every_field_of_every_row() {
    let rows: serde_json::Value = serde_json::from_str(&run(&["targets", "--json"])).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), TARGETS.len());
    for (json, t) in rows.iter().zip(TARGETS) {
        assert_eq!(json["name"], t.name);
        assert_eq!(json["lds_bytes"], t.lds_bytes);
        assert_eq!(
            json["matrix"]["mfma_version"],
            serde_json::json!(t.matrix.mfma_version)
        );
        assert_eq!(json["instructions"]["ds_bpermute"], t.instructions.ds_bpermute);
        assert!(json["costs"]["valu_issue_cycles"].is_u64());
    }
}
