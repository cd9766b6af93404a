//! The harness of the layout-pass tests: the stage files of `tests/fixtures/passes/` and the
//! agreement of a pass with Triton on them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use linear_layout::ttgir::Module;
use linear_layout::ttgir::graph::Graph;

/// One pass run of a stage file: the pass, Triton's input and Triton's output.
pub struct Case {
    pub file: PathBuf,
    pub stage: usize,
    pub pass: String,
    pub input: String,
    pub expected: String,
    /// The file's header comments (`// arch: gfx942` → `("arch", "gfx942")`).
    pub header: Vec<(String, String)>,
    /// The options on the stage line (`convert_to_ttgpuir target=cuda:80 num_warps=2`).
    pub options: Vec<(String, String)>,
}

impl Case {
    /// A header value, or else a stage option, of that name.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.header
            .iter()
            .chain(&self.options)
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

pub fn cases(dir: &str) -> Vec<Case> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/passes")
        .join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "mlir"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let mut stages: Vec<(String, Option<String>)> = Vec::new();
        let mut cur: Option<(String, String)> = None;
        let mut header = Vec::new();
        for line in text.lines() {
            if cur.is_none()
                && let Some((k, v)) = line.strip_prefix("// ").and_then(|r| r.split_once(": "))
                && !k.starts_with("-----")
            {
                header.push((k.trim().to_string(), v.trim().to_string()));
            }
            if let Some(rest) = line.strip_prefix("// ----- stage ") {
                if let Some((name, body)) = cur.take() {
                    stages.push((name, Some(body)));
                }
                let name = rest.split_once(": ").map_or("", |(_, n)| n).to_string();
                cur = Some((name, String::new()));
            } else if line == "// unchanged" {
                if let Some((name, _)) = cur.take() {
                    stages.push((name, None));
                }
            } else if let Some((_, body)) = cur.as_mut() {
                body.push_str(line);
                body.push('\n');
            }
        }
        if let Some((name, body)) = cur.take() {
            stages.push((name, Some(body)));
        }
        let mut last = String::new();
        for (k, (pass, body)) in stages.into_iter().enumerate() {
            let expected = body.clone().unwrap_or_else(|| last.clone());
            if k > 0 {
                let mut words = pass.split_whitespace();
                out.push(Case {
                    file: file.clone(),
                    stage: k,
                    pass: words.next().unwrap_or("").to_string(),
                    input: last.clone(),
                    expected: expected.clone(),
                    header: header.clone(),
                    options: words
                        .filter_map(|w| w.split_once('='))
                        .map(|(k, v)| (k.to_string(), v.to_string()))
                        .collect(),
                });
            }
            last = expected;
        }
    }
    out
}

pub fn signature(m: &Module) -> Vec<String> {
    fn visit(m: &Module, ops: &[usize], out: &mut Vec<String>) {
        for &o in ops {
            let op = &m.ops[o];
            let tys: Vec<String> = op
                .results
                .iter()
                .map(|&r| {
                    let t = &m.values[r].ty;
                    match &t.encoding {
                        Some(e) => format!("{:?}x{} {}", t.shape, t.element, e),
                        None => format!("{:?}x{}", t.shape, t.element),
                    }
                })
                .collect();
            out.push(format!("{} {}", op.name, tys.join(", ")));
            visit(m, &op.body, out);
        }
    }
    let mut out = Vec::new();
    for f in &m.funcs {
        visit(m, &f.body, &mut out);
    }
    out
}

/// Runs `pass` on every case of `dir`; returns (agreeing, total) and prints disagreements
/// when asked.
pub fn agreement(dir: &str, pass: &str, run: fn(&mut Graph) -> Result<(), String>) -> (usize, usize) {
    agreement_with(dir, pass, &|g: &mut Graph, _: &Case| run(g))
}

/// [`agreement`] for a pass that reads its options from the case (the file's header, the
/// stage line's options).
pub fn agreement_with(
    dir: &str,
    pass: &str,
    run: &dyn Fn(&mut Graph, &Case) -> Result<(), String>,
) -> (usize, usize) {
    let verbose = std::env::var_os("LAYOUT_PASSES_VERBOSE").is_some();
    let (mut ok, mut total) = (0, 0);
    for c in cases(dir).into_iter().filter(|c| c.pass == pass) {
        // Modules our reader does not take (other targets' encodings) are not counted.
        let Ok(expected) = Module::parse(&c.expected) else {
            continue;
        };
        let Ok(mut g) = Graph::parse(&c.input) else {
            continue;
        };
        total += 1;
        let name = format!("{}#{}", c.file.file_name().unwrap().to_string_lossy(), c.stage);
        let printed = match run(&mut g, &c).and_then(|()| g.print().map_err(|e| e.to_string())) {
            Ok(p) => p,
            Err(e) => {
                if verbose {
                    println!("{name}: error {e}");
                }
                continue;
            }
        };
        if std::env::var("LAYOUT_PASSES_DUMP").is_ok_and(|d| d == name) {
            println!("{printed}");
        }
        // For checking with Triton's own parser (`scripts/pass_agree.py --dir`).
        if let Some(dir) = std::env::var_os("LAYOUT_PASSES_OUT") {
            let base = std::path::Path::new(&dir).join(format!("{pass}.{name}"));
            let _ = std::fs::create_dir_all(&dir);
            let _ = std::fs::write(base.with_extension("ours.mlir"), &printed);
            let _ = std::fs::write(base.with_extension("triton.mlir"), &c.expected);
        }
        let ours = match Module::parse(&printed) {
            Ok(m) => m,
            Err(e) => {
                if verbose {
                    println!("{name}: our output does not parse: {e}");
                }
                continue;
            }
        };
        let (a, b) = (signature(&ours), signature(&expected));
        if a == b {
            ok += 1;
        } else if verbose {
            let i = a
                .iter()
                .zip(&b)
                .position(|(x, y)| x != y)
                .unwrap_or(a.len().min(b.len()));
            println!(
                "{name}: op {i} of {}/{}:\n  ours   {}\n  triton {}",
                a.len(),
                b.len(),
                a.get(i).map_or("(end)", |s| s.as_str()),
                b.get(i).map_or("(end)", |s| s.as_str())
            );
        }
    }
    (ok, total)
}

/// Runs `pass` on each source and checks the agreement has not dropped below what it was
/// when last measured (`floors`: people, corpus, lit).
pub fn check(pass: &str, run: fn(&mut Graph) -> Result<(), String>, floors: [usize; 3]) {
    check_with(pass, &|g: &mut Graph, _: &Case| run(g), floors);
}

/// [`check`] for a pass that reads its options from the case.
pub fn check_with(pass: &str, run: &dyn Fn(&mut Graph, &Case) -> Result<(), String>, floors: [usize; 3]) {
    let mut report = Vec::new();
    let mut low = Vec::new();
    for (dir, floor) in ["people", "corpus", "lit"].into_iter().zip(floors) {
        let (ok, total) = agreement_with(dir, pass, run);
        report.push(format!("{dir} {ok}/{total}"));
        if ok < floor {
            low.push(format!("{dir}: {ok} < {floor}"));
        }
    }
    println!("{pass}: {}", report.join(", "));
    assert!(
        low.is_empty(),
        "{pass} agrees with Triton on fewer modules: {}",
        low.join("; ")
    );
}
