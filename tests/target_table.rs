//! The target table is the only place that knows architectures by name: no code elsewhere in
//! `src/` may hold an arch-name string literal (comments, `#[cfg(test)]` modules and the command
//! line's defaults and help examples aside). Code decides by reading fields of a row.

use std::fs;
use std::path::{Path, PathBuf};

use linear_layout::target::{TARGETS, Target};

/// String literals of Rust source with their 1-based line numbers, comments skipped, up to the
/// first top-level `#[cfg(test)]`.
fn string_literals(source: &str) -> Vec<(usize, String)> {
    let code = match source.find("\n#[cfg(test)]") {
        Some(i) => &source[..i],
        None => source,
    };
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    let at = |k: usize| chars.get(k).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && at(i + 1) == '/') {
                line += usize::from(chars[i] == '\n');
                i += 1;
            }
            i += 2;
        } else if c == '\'' {
            // A char literal ('x', '\n', '"') or a lifetime ('a).
            if at(i + 1) == '\\' {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
            }
        } else if c == '"' || (c == 'r' && (at(i + 1) == '"' || at(i + 1) == '#')) {
            let start_line = line;
            let mut hashes = 0;
            let raw = c == 'r';
            if raw {
                i += 1;
                while at(i) == '#' {
                    hashes += 1;
                    i += 1;
                }
                if at(i) != '"' {
                    continue; // an identifier starting with r
                }
            }
            i += 1;
            let mut text = String::new();
            loop {
                if i >= chars.len() {
                    break;
                }
                let ch = chars[i];
                if ch == '\\' && !raw {
                    text.push(at(i + 1));
                    line += usize::from(at(i + 1) == '\n');
                    i += 2;
                    continue;
                }
                if ch == '"' && (0..hashes).all(|h| at(i + 1 + h) == '#') {
                    i += 1 + hashes;
                    break;
                }
                line += usize::from(ch == '\n');
                text.push(ch);
                i += 1;
            }
            out.push((start_line, text));
        } else {
            i += 1;
        }
    }
    out
}

/// Whether a literal names an architecture (`gfx` followed by a digit, or `generic32`).
fn names_an_arch(text: &str) -> bool {
    text.contains("generic32")
        || text
            .match_indices("gfx")
            .any(|(k, _)| text[k + 3..].starts_with(|c: char| c.is_ascii_digit()))
}

/// The command line may name archs in its defaults and its help examples.
fn allowed_on_line(path: &Path, line: &str) -> bool {
    let in_cli = path.components().any(|c| c.as_os_str() == "cli") || path.ends_with("main.rs");
    in_cli
        && (line.contains("default_value") || line.contains("const DEFAULT_") || line.contains("after_help"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn arch_names_live_only_in_the_target_table() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut offenders = Vec::new();
    for path in files.iter().filter(|p| !p.starts_with(src.join("target"))) {
        let source = fs::read_to_string(path).unwrap();
        let lines: Vec<&str> = source.lines().collect();
        for (line, text) in string_literals(&source) {
            if names_an_arch(&text) && !allowed_on_line(path, lines[line - 1]) {
                offenders.push(format!("{}:{line}: {text:?}", path.display()));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "arch names outside src/target:\n{}",
        offenders.join("\n")
    );
    assert!(files.len() > 40, "the scan saw only {} files", files.len());
}

/// The scanner itself finds what it must and skips what it may.
#[test]
fn the_scan_sees_literals_and_skips_comments() {
    let source = "/// gfx942 in a doc comment\nfn f() -> &'static str {\n    let c = '\"';\n    // gfx950 in a comment\n    if x == \"gfx950\" { r#\"gfx1100\"# } else { \"ok\" }\n}\n#[cfg(test)]\nmod tests { const T: &str = \"gfx942\"; }\n";
    let found: Vec<(usize, String)> = string_literals(source)
        .into_iter()
        .filter(|(_, t)| names_an_arch(t))
        .collect();
    assert_eq!(found, vec![(5, "gfx950".to_string()), (5, "gfx1100".to_string())]);
    assert!(!names_an_arch("gfx"));
    assert!(names_an_arch("unknown target generic32"));
}

/// Every row names itself once, `same_as` points at a primary row, and a repeated row equals
/// its base in every fact (but whether LLVM still knows its name).
#[test]
fn rows_are_unique_and_aliases_repeat_their_base() {
    for (i, t) in TARGETS.iter().enumerate() {
        assert!(TARGETS[..i].iter().all(|u| u.name != t.name), "{} twice", t.name);
        if let Some(base) = t.same_as {
            let b = Target::by_name(base).unwrap();
            assert!(b.same_as.is_none(), "{} -> {base} -> another alias", t.name);
            let renamed = Target {
                name: b.name,
                same_as: None,
                llvm_processor: b.llvm_processor,
                ..*t
            };
            assert_eq!(&renamed, b, "{} differs from {base}", t.name);
        }
    }
}
