//! TTGIR as people write it: every recorded corpus module, rewritten the ways `triton-opt`
//! accepts — ops split over lines, comments everywhere, `loc(…)` on every op, several modules
//! in one file separated by `// -----`, module attributes left at Triton's defaults — must give
//! the same decisions as the module as Triton printed it (which `tests/heuristics.rs` checks
//! against the oracle).

use std::path::{Path, PathBuf};

use linear_layout::heuristics::passes::{Pass, PassOptions, run};
use linear_layout::ttgir::Module;
use serde_json::Value;

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/heuristics")
}

/// (file, pass, arch) of every recorded run, one per file.
fn corpus() -> Vec<(String, Pass, String)> {
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for f in ["expected.jsonl", "regions.jsonl"] {
        let text = std::fs::read_to_string(fixture_dir().join(f)).expect("fixture");
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let r: Value = serde_json::from_str(line).expect("line");
            let file = r["file"].as_str().expect("file").to_string();
            if seen.insert(file.clone()) {
                let pass = r["passes"].as_str().expect("passes").parse().expect("pass");
                out.push((file, pass, r["arch"].as_str().expect("arch").to_string()));
            }
        }
    }
    out
}

fn decisions(m: &Module, pass: Pass, arch: &str) -> Value {
    match run(m, &PassOptions::new(pass, arch)) {
        Ok(r) => r.to_json(),
        Err(e) => Value::String(format!("error: {e}")),
    }
}

/// Splits every list inside brackets over lines (after each top-level `, ` at depth > 0),
/// drops all indentation, puts a comment line between lines and a comment after each, and a
/// location after each op.
fn reformat(text: &str) -> String {
    let mut out = String::from("#loc1 = loc(\"kernel.py\":12:3)\n");
    for line in text.lines() {
        let t = line.trim();
        let mut depth = 0i32;
        let mut in_string = false;
        let mut split = String::new();
        let chars: Vec<char> = t.chars().collect();
        for (i, &c) in chars.iter().enumerate() {
            split.push(c);
            match c {
                '"' => in_string = !in_string,
                '(' | '[' | '{' | '<' if !in_string => depth += 1,
                ')' | ']' | '}' if !in_string => depth -= 1,
                '>' if !in_string && i > 0 && chars[i - 1] != '-' => depth -= 1,
                ',' if !in_string && depth > 0 && chars.get(i + 1) == Some(&' ') => {
                    split.push_str("\n      // inside an op\n   ");
                }
                _ => {}
            }
        }
        let is_op = t.starts_with('%') && !t.ends_with('{');
        let loc = if is_op { " loc(#loc1)" } else { "" };
        out.push_str(&format!("// before\n{split}{loc} // after\n"));
    }
    out
}

/// Removes a module attribute that equals Triton's default.
fn strip_default(text: &str, attr: &str) -> String {
    text.replace(&format!("{attr}, "), "")
        .replace(&format!(", {attr}"), "")
}

#[test]
fn reformatted_modules_decide_the_same() {
    let (mut checked, mut bad) = (0, Vec::new());
    for (file, pass, arch) in corpus() {
        let text = std::fs::read_to_string(fixture_dir().join(&file)).expect("corpus file");
        let want = decisions(&Module::parse(&text).expect("original parses"), pass, &arch);
        let variant = reformat(&text);
        match Module::parse(&variant) {
            Ok(m) if decisions(&m, pass, &arch) == want => checked += 1,
            Ok(_) => bad.push(format!("{file}: different decisions")),
            Err(e) => bad.push(format!("{file}: {e}")),
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {} differ:\n{}",
        bad.len(),
        checked + bad.len(),
        bad[..bad.len().min(10)].join("\n")
    );
    assert!(checked > 1000, "only {checked} modules");
}

#[test]
fn default_attributes_may_be_left_out() {
    let mut checked = 0;
    for (file, pass, arch) in corpus() {
        let text = std::fs::read_to_string(fixture_dir().join(&file)).expect("corpus file");
        let lanes_32 = text.contains("\"ttg.threads-per-warp\" = 32 : i32");
        let ctas_1 = text.contains("\"ttg.num-ctas\" = 1 : i32");
        if !lanes_32 && !ctas_1 {
            continue;
        }
        let mut stripped = strip_default(&text, "\"ttg.threads-per-warp\" = 32 : i32");
        stripped = strip_default(&stripped, "\"ttg.num-ctas\" = 1 : i32");
        assert_ne!(stripped, text, "{file}");
        let want = decisions(&Module::parse(&text).expect("original"), pass, &arch);
        let got = decisions(&Module::parse(&stripped).expect("stripped parses"), pass, &arch);
        assert_eq!(got, want, "{file}");
        checked += 1;
    }
    assert!(checked > 400, "only {checked} modules");
}

#[test]
fn split_files_answer_per_module() {
    let corpus = corpus();
    let mut checked = 0;
    for chunk in corpus.chunks(7) {
        let texts: Vec<String> = chunk
            .iter()
            .map(|(f, _, _)| std::fs::read_to_string(fixture_dir().join(f)).expect("file"))
            .collect();
        let joined = texts.join("\n// -----\n");
        let modules = Module::parse_all(&joined).expect("split file parses");
        assert_eq!(modules.len(), chunk.len());
        // A module's first line is where its text starts in the joined file.
        let mut line = 1;
        for ((m, text), (file, pass, arch)) in modules.iter().zip(&texts).zip(chunk) {
            let own = Module::parse(text).expect("alone");
            assert_eq!(m.first_line, line + own.first_line - 1, "{file}");
            assert_eq!(decisions(m, *pass, arch), decisions(&own, *pass, arch), "{file}");
            line += text.lines().count() + if text.ends_with('\n') { 2 } else { 1 };
            checked += 1;
        }
        assert!(Module::parse(&joined).is_err() || chunk.len() == 1);
    }
    assert!(checked > 1000);
}
