//! The lowering is a pipeline of stages, one folder each (`src/lower/`): `ir/` (the program and
//! its semantics), `passes/` (rewrites of a built program), `plan/` (programs from layouts),
//! `ttgir/` (the TTGIR front, which runs the passes on what it built), and the back ends
//! `emit/` and `interp.rs` that read the IR only; `error.rs` lies under all of them and
//! `mod.rs` is the facade. A stage may import only the stages below it — this test reads every
//! file's code (comments and `#[cfg(test)]` modules aside), resolves each `crate::lower::…` and
//! `super::…` path to the stage it names, and fails on an import that points up or sideways.

use std::fs;
use std::path::{Path, PathBuf};

/// The stages each stage may import (itself included).
fn allowed(stage: &str) -> &'static [&'static str] {
    match stage {
        "error" => &["error"],
        "ir" => &["ir", "error"],
        "passes" => &["passes", "ir", "error"],
        "plan" => &["plan", "ir", "error"],
        "ttgir" => &["ttgir", "plan", "passes", "ir", "error"],
        "emit" => &["emit", "ir", "error"],
        "interp" => &["interp", "ir", "error"],
        _ => &[
            "facade", "error", "ir", "passes", "plan", "ttgir", "emit", "interp",
        ],
    }
}

/// The stage a path segment right under `lower` names (`LowerError` and other re-exports of the
/// facade count as the facade: a stage imports from the stage that defines a thing).
fn stage_of_segment(segment: &str) -> &str {
    match segment {
        "error" | "ir" | "passes" | "plan" | "ttgir" | "emit" | "interp" => segment,
        _ => "facade",
    }
}

/// The module path of a file under `src/lower/` (`["ir", "program"]` for `ir/program.rs`,
/// `["ir"]` for `ir/mod.rs`, `[]` for `mod.rs`).
fn module_path(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The code of a source: line comments removed, cut at the first top-level `#[cfg(test)]`.
fn code(source: &str) -> String {
    let source = match source.find("\n#[cfg(test)]") {
        Some(i) => &source[..i],
        None => source,
    };
    source
        .lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The identifiers a path continues with after `rest`'s start: one, or each first identifier of
/// a `{a, b::c}` group.
fn continuations(rest: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    if let Some(group) = rest.strip_prefix('{') {
        let mut depth = 0;
        let mut items = vec![String::new()];
        for c in group.chars() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => break,
                '}' => depth -= 1,
                ',' if depth == 0 => items.push(String::new()),
                _ => {}
            }
            if let Some(last) = items.last_mut()
                && !(c == ',' && depth == 0)
            {
                last.push(c);
            }
        }
        items.iter().map(|i| ident(i)).filter(|i| !i.is_empty()).collect()
    } else {
        vec![ident(rest)]
    }
}

/// Every stage the code of the module at `module` (its path under `lower`) imports, with the
/// 1-based line of each import.
fn imported_stages(module: &[String], code: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let mut rest = line;
        while let Some(i) = rest.find("crate::lower::").or_else(|| rest.find("super::")) {
            let crate_form = rest[i..].starts_with("crate::lower::");
            // The earlier of the two forms first.
            let j = rest.find("super::");
            let (i, crate_form) = match (crate_form, j) {
                (true, Some(j)) if j < i => (j, false),
                _ => (i, crate_form),
            };
            // A `super::` inside a longer identifier path (`a::super::`) is not a start.
            let preceded = i >= 2 && &rest[i - 2..i] == "::";
            let mut tail = &rest[i..];
            let base: Vec<String> = if crate_form {
                tail = &tail["crate::lower::".len()..];
                Vec::new()
            } else {
                let mut up = 0;
                while let Some(t) = tail.strip_prefix("super::") {
                    up += 1;
                    tail = t;
                }
                if up > module.len() {
                    // Above `lower`: not a lowering stage.
                    rest = tail;
                    continue;
                }
                module[..module.len() - up].to_vec()
            };
            if !preceded {
                for next in continuations(tail) {
                    let first = base.first().cloned().unwrap_or(next);
                    out.push((n + 1, stage_of_segment(&first).to_string()));
                }
            }
            rest = tail;
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("src/lower is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every import of a later (or sideways) stage in the files under `root`.
fn violations(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(root, &mut files);
    files.sort();
    let mut bad = Vec::new();
    for file in files {
        let relative = file.strip_prefix(root).expect("under root");
        let module = module_path(relative);
        let stage = module
            .first()
            .map_or("facade", |s| stage_of_segment(s))
            .to_string();
        let source = fs::read_to_string(&file).expect("a readable source");
        for (line, target) in imported_stages(&module, &code(&source)) {
            if !allowed(&stage).contains(&target.as_str()) {
                bad.push(format!(
                    "{}:{line}: the {stage} stage imports the {target} stage",
                    relative.display()
                ));
            }
        }
    }
    bad
}

#[test]
fn every_stage_imports_only_the_stages_below_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lower");
    let bad = violations(&root);
    assert!(
        bad.is_empty(),
        "imports against the pipeline:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_facade_holds_no_code_of_a_stage() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lower");
    let facade = code(&fs::read_to_string(root.join("mod.rs")).expect("mod.rs"));
    for word in ["fn ", "struct ", "enum ", "impl "] {
        assert!(
            !facade.contains(word),
            "src/lower/mod.rs defines code (`{word}`): it should only re-export the stages"
        );
    }
}

#[test]
fn the_scan_sees_upward_imports_in_every_form() {
    let dir = std::env::temp_dir().join(format!("lower-stages-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(dir.join("ir")).expect("temp dir");
    fs::create_dir_all(dir.join("emit")).expect("temp dir");
    fs::create_dir_all(dir.join("plan")).expect("temp dir");
    fs::write(
        dir.join("ir/program.rs"),
        "use super::uniform::Uniform;\nuse crate::lower::plan::dist::Dist;\n// use crate::lower::ttgir::x; (a comment)\n",
    )
    .expect("write");
    fs::write(
        dir.join("emit/mod.rs"),
        "use super::{error::LowerError, interp::run};\n",
    )
    .expect("write");
    fs::write(
        dir.join("plan/dist.rs"),
        "use super::lds::Trip;\nfn f() { super::super::ttgir::go(); }\nuse crate::lower::LowerError;\n",
    )
    .expect("write");
    let bad = violations(&dir);
    let _ = fs::remove_dir_all(&dir);
    assert_eq!(
        bad,
        vec![
            "emit/mod.rs:1: the emit stage imports the interp stage".to_string(),
            "ir/program.rs:2: the ir stage imports the plan stage".to_string(),
            "plan/dist.rs:2: the plan stage imports the ttgir stage".to_string(),
            "plan/dist.rs:3: the plan stage imports the facade stage".to_string(),
        ]
    );
}
