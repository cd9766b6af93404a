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

/// When values written with one type now have different types (the operand and result of a
/// square `tt.trans`, given layouts apart), the k-th type written is the k-th such value.
#[test]
fn values_of_one_written_type_print_in_order_once_they_differ() {
    let text = r#"
#a = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func @k(%x: tensor<64x64xf16, #a>) {
    %t = tt.trans %x {order = array<i32: 1, 0>} : tensor<64x64xf16, #a> -> tensor<64x64xf16, #a>
    %s = arith.addf %x, %x : tensor<64x64xf16, #a>
    tt.return
  }
}"#;
    let mut g = Graph::parse(text).unwrap();
    let trans = g.find_op("tt.trans").unwrap();
    let t = g.op(trans).results[0];
    let b = g
        .value(g.op(g.find_op("tt.trans").unwrap()).operands[0])
        .ty
        .clone();
    let mut ty = b.clone();
    ty.encoding = Some(std::sync::Arc::new(
        "#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 8], warpsPerCTA = [1, 4], order = [0, 1]}>"
            .parse()
            .unwrap(),
    ));
    g.value_mut(t).ty = ty.clone();
    let out = g.print().unwrap();
    assert!(
        out.contains(": tensor<64x64xf16, #a> -> tensor<64x64xf16, #b>"),
        "{out}"
    );
    // The add writes its type once for three values: no order to go by.
    let add = g.find_op("arith.addf").unwrap();
    let s = g.op(add).results[0];
    g.value_mut(s).ty = ty;
    assert!(g.print().is_err());
}

#[test]
fn fresh_names_continue_after_those_of_an_earlier_pass() {
    let text =
        "module {\n  tt.func @f(%a: i32) {\n    %ll1 = arith.addi %a, %a : i32\n    tt.return\n  }\n}\n";
    let mut g = Graph::parse(text).unwrap();
    let a = g.blocks[g.funcs[0].blocks[0]].args[0];
    let at = g.position(g.find_op("tt.return").unwrap());
    g.insert_text(
        at,
        "arith.muli",
        vec![a, a],
        vec![linear_layout::ttgir::ValueType::scalar("i32")],
        "$r = arith.muli $0, $1 : $t0",
    )
    .unwrap();
    let out = g.print().unwrap();
    assert!(out.contains("%ll2 = arith.muli %a, %a : i32"), "{out}");
}
