//! The editable graph prints every TTGIR fixture back to a module with the same ops, in the
//! same order, with the same result types (layouts included).

use std::path::Path;

use linear_layout::ttgir::Module;
use linear_layout::ttgir::graph::Graph;

fn walk_signature(m: &Module) -> Vec<String> {
    let mut out = Vec::new();
    fn visit(m: &Module, ops: &[usize], out: &mut Vec<String>) {
        for &o in ops {
            let op = &m.ops[o];
            let tys: Vec<String> = op
                .results
                .iter()
                .map(|&r| format!("{:?}", m.values[r].ty))
                .collect();
            out.push(format!("{} {}", op.name, tys.join(" ")));
            visit(m, &op.body, out);
        }
    }
    for f in &m.funcs {
        visit(m, &f.body, &mut out);
    }
    out
}

fn fixtures() -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for dir in [
        "tests/fixtures/lower/ttgir-people",
        "tests/fixtures/lower/ttgir-own",
        "tests/fixtures/lower/ttgir",
    ] {
        let Ok(rd) = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(dir)) else {
            continue;
        };
        for e in rd.flatten() {
            if e.path().extension().is_some_and(|x| x == "ttgir") {
                files.push(e.path());
            }
        }
    }
    files.sort();
    files
}

#[test]
fn prints_every_fixture_back_to_the_same_ops_and_types() {
    let files = fixtures();
    assert!(files.len() > 100, "{} fixtures", files.len());
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let m = Module::parse(&text).unwrap();
        let g = Graph::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let printed = g.print().unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        if std::env::var_os("GRAPH_PRINT_DUMP").is_some() {
            let out = Path::new("/tmp/rt").join(f.file_name().unwrap());
            std::fs::write(out, &printed).unwrap();
        }
        let back = Module::parse(&printed).unwrap_or_else(|e| panic!("{}: {e}\n{printed}", f.display()));
        assert_eq!(walk_signature(&m), walk_signature(&back), "{}", f.display());
    }
}
