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

// ---------------------------------------------------------------------------------------------
// Forms `triton-opt` prints and accepts, each read into the ops, values, types and attributes
// it says. The modules were checked with Triton 3.6.0's parser.
// ---------------------------------------------------------------------------------------------

use linear_layout::ttgir::{AttrValue, Constant, Op, TypeKind, ValueDef, attr};

/// The ops named `name`, in order.
fn ops_named<'m>(m: &'m Module, name: &str) -> Vec<&'m Op> {
    m.ops.iter().filter(|o| o.name == name).collect()
}

/// The one op named `name`.
fn the_op<'m>(m: &'m Module, name: &str) -> &'m Op {
    let ops = ops_named(m, name);
    assert_eq!(ops.len(), 1, "ops named {name}");
    ops[0]
}

/// The op defining the value named `result`.
fn def<'m>(m: &'m Module, result: &str) -> &'m Op {
    let v = value(m, result);
    &m.ops[m
        .def_op(v)
        .unwrap_or_else(|| panic!("{result} is not an op result"))]
}

/// The (last) value named `name`.
fn value(m: &Module, name: &str) -> usize {
    m.values
        .iter()
        .rposition(|v| v.name == name)
        .unwrap_or_else(|| panic!("no value {name}"))
}

/// The names of `values`.
fn names(m: &Module, values: &[usize]) -> Vec<String> {
    values.iter().map(|&v| m.values[v].name.clone()).collect()
}

/// The type of `v` as `shape x element` (`64xf32`, `i32`).
fn ty(m: &Module, v: usize) -> String {
    let t = &m.values[v].ty;
    let mut s: String = t.shape.iter().map(|d| format!("{d}x")).collect();
    s.push_str(&t.element);
    s
}

fn raw(s: &str) -> AttrValue {
    AttrValue::Raw(s.to_string())
}

/// `%name` as MLIR allows it: `-`, `$`, `.`, `_` and digits anywhere after the `%` and its
/// first character, `#n` for the results of a multi-result op, and result lists.
#[test]
fn value_names_with_punctuation_and_result_numbers() {
    let text = r#"
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [64, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func @k(%a: i32, %t: tensor<64xf32, #blocked>) {
    %c-766435501_i32 = arith.constant -766435501 : i32
    %foo$bar = arith.constant 7 : i32
    %x.y = arith.addi %c-766435501_i32, %foo$bar : i32
    %0 = tt.mulhiui %c-766435501_i32, %x.y : i32
    %_1-2.b$3 = arith.muli %0, %x.y : i32
    %j = tt.join %t, %t : tensor<64xf32, #blocked> -> tensor<64x2xf32, #blocked2>
    %5:2 = tt.split %j : tensor<64x2xf32, #blocked2> -> tensor<64xf32, #blocked>
    %s = arith.addf %5#0, %5#1 : tensor<64xf32, #blocked>
    %lhs, %rhs = tt.split %j : tensor<64x2xf32, #blocked2> -> tensor<64xf32, #blocked>
    %d = arith.subf %rhs, %lhs : tensor<64xf32, #blocked>
    %e = arith.addi %_1-2.b$3#0, %a : i32
    tt.return
  }
}
"#;
    let m = Module::parse(text).expect("parses");
    let add = def(&m, "%x.y");
    assert_eq!(names(&m, &add.operands), ["%c-766435501_i32", "%foo$bar"]);
    assert_eq!(
        def(&m, "%c-766435501_i32").constant,
        Some(Constant::Int(-766435501))
    );
    let hi = the_op(&m, "tt.mulhiui");
    assert_eq!(names(&m, &hi.operands), ["%c-766435501_i32", "%x.y"]);
    assert_eq!(names(&m, &def(&m, "%_1-2.b$3").operands), ["%0", "%x.y"]);
    let splits = ops_named(&m, "tt.split");
    assert_eq!(names(&m, &splits[0].results), ["%5#0", "%5#1"]);
    assert_eq!(names(&m, &splits[1].results), ["%lhs", "%rhs"]);
    for s in &splits {
        assert_eq!(names(&m, &s.operands), ["%j"]);
        for &r in &s.results {
            assert_eq!(ty(&m, r), "64xf32");
        }
    }
    assert_eq!(def(&m, "%s").operands, splits[0].results);
    assert_eq!(names(&m, &def(&m, "%d").operands), ["%rhs", "%lhs"]);
    // `%v#0` is also the result of a single-result op.
    assert_eq!(names(&m, &def(&m, "%e").operands), ["%_1-2.b$3", "%a"]);
    assert!(m.notes.is_empty(), "{:?}", m.notes);
}

/// An op's text may go on over lines outside brackets too: result types on a line of their
/// own (`-> (…)` of `scf.for` / `scf.if`), the types of a generic-form op after its region on
/// the closing line or the next, a `: type` or an operand on the next line, the attributes of
/// a generic-form op after its region (as older printers put them).
#[test]
fn result_types_and_operands_on_lines_of_their_own() {
    let text = r#"
#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func @k(%x: tensor<16x64xf32, #blocked>, %i: tensor<16x64xi32, #blocked>, %n: i32) {
    %r:2 = "tt.reduce"(%x, %i) ({
    ^bb0(%a0: f32, %a1: i32, %b0: f32, %b1: i32):
      %gt = arith.cmpf ogt, %a0, %b0 : f32
      %v = arith.select %gt, %a0, %b0 : f32
      %w = arith.select %gt, %a1, %b1 : i32
      tt.reduce.return %v, %w : f32, i32
    }) {axis = 1 : i32} : (tensor<16x64xf32, #blocked>, tensor<16x64xi32, #blocked>) -> (tensor<16xf32, #ttg.slice<{dim = 1, parent = #blocked}>>, tensor<16xi32, #ttg.slice<{dim = 1, parent = #blocked}>>)
    %s = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%p: f32, %q: f32):
      %t = arith.addf %p, %q : f32
      tt.reduce.return %t : f32
    })
      : (tensor<16x64xf32, #blocked>) -> tensor<64xf32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %c0 = arith.constant 0 : i32
    %c1 =
      arith.constant 1 : i32
    %f:2 = scf.for %iv = %c0 to %n step %c1 iter_args(%p = %r#0, %q = %r#1)
        -> (tensor<16xf32, #ttg.slice<{dim = 1, parent = #blocked}>>, tensor<16xi32, #ttg.slice<{dim = 1, parent = #blocked}>>)  : i32 {
      %p2 = arith.addf %p,
          %p : tensor<16xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
      scf.yield %p2, %q : tensor<16xf32, #ttg.slice<{dim = 1, parent = #blocked}>>, tensor<16xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    }
    %cond = arith.cmpi sgt, %n, %c0
      : i32
    %y = scf.if %cond
        -> (tensor<16xi32, #ttg.slice<{dim = 1, parent = #blocked}>>) {
      scf.yield %f#1 : tensor<16xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    } else {
      scf.yield %r#1 : tensor<16xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    }
    tt.return
  }
}
"#;
    let m = Module::parse(text).expect("parses");
    let reduces = ops_named(&m, "tt.reduce");
    assert_eq!(reduces.len(), 2);
    let (argmax, sum) = (reduces[0], reduces[1]);
    assert_eq!(names(&m, &argmax.operands), ["%x", "%i"]);
    assert_eq!(names(&m, &argmax.results), ["%r#0", "%r#1"]);
    assert_eq!(attr(&argmax.attrs, "axis"), Some(&AttrValue::Int(1)));
    assert_eq!(
        (ty(&m, argmax.results[0]), ty(&m, argmax.results[1])),
        ("16xf32".into(), "16xi32".into())
    );
    assert_eq!(names(&m, &argmax.block_args), ["%a0", "%a1", "%b0", "%b1"]);
    let body: Vec<&str> = argmax.body.iter().map(|&b| m.ops[b].name.as_str()).collect();
    assert_eq!(
        body,
        ["arith.cmpf", "arith.select", "arith.select", "tt.reduce.return"]
    );
    assert_eq!(attr(&sum.attrs, "axis"), Some(&AttrValue::Int(0)));
    assert_eq!(ty(&m, sum.results[0]), "64xf32");
    assert_eq!(def(&m, "%c1").constant, Some(Constant::Int(1)));
    let f = the_op(&m, "scf.for");
    assert_eq!(names(&m, &f.operands), ["%c0", "%n", "%c1", "%r#0", "%r#1"]);
    assert_eq!(names(&m, &f.block_args), ["%iv", "%p", "%q"]);
    assert_eq!(ty(&m, f.block_args[0]), "i32");
    assert_eq!(
        (ty(&m, f.results[0]), ty(&m, f.results[1])),
        ("16xf32".into(), "16xi32".into())
    );
    assert_eq!(names(&m, &def(&m, "%p2").operands), ["%p", "%p"]);
    assert_eq!(def(&m, "%cond").keyword.as_deref(), Some("sgt"));
    assert_eq!(ty(&m, value(&m, "%cond")), "i1");
    let y = the_op(&m, "scf.if");
    assert_eq!(names(&m, &y.operands), ["%cond"]);
    assert_eq!(ty(&m, y.results[0]), "16xi32");
    assert_eq!((y.body.len(), y.regions.as_slice()), (2, &[0, 1][..]));
}

/// Where each region of an op starts: the arms of an `scf.if` without results (which print no
/// `scf.yield`), the two regions of `scf.while`, the regions of an op in generic form.
#[test]
fn regions_of_an_op() {
    let text = r#"
module {
  tt.func @k(%c: i1, %p: !tt.ptr<i32>, %a: i32) {
    scf.if %c {
      tt.store %p, %a : !tt.ptr<i32>
      tt.store %p, %a : !tt.ptr<i32>
    } else {
      %b = arith.addi %a, %a : i32
      tt.store %p, %b : !tt.ptr<i32>
    }
    scf.if %c {
      tt.store %p, %a : !tt.ptr<i32>
    }
    %w = scf.while (%x = %a) : (i32) -> i32 {
      %lt = arith.cmpi slt, %x, %a : i32
      scf.condition(%lt) %x : i32
    } do {
    ^bb0(%y: i32):
      %z = arith.addi %y, %y : i32
      scf.yield %z : i32
    }
    "scf.if"(%c) ({
      tt.store %p, %a : !tt.ptr<i32>
      scf.yield
    }, {
      tt.store %p, %w : !tt.ptr<i32>
      scf.yield
    }) : (i1) -> ()
    tt.return
  }
}
"#;
    let m = Module::parse(text).expect("parses");
    let ifs = ops_named(&m, "scf.if");
    assert_eq!(ifs.len(), 3);
    let arms = |o: &Op| -> Vec<Vec<String>> {
        let mut starts = o.regions.clone();
        starts.push(o.body.len());
        starts
            .windows(2)
            .map(|w| {
                o.body[w[0]..w[1]]
                    .iter()
                    .map(|&b| m.ops[b].name.clone())
                    .collect()
            })
            .collect()
    };
    assert_eq!(
        arms(ifs[0]),
        [vec!["tt.store", "tt.store"], vec!["arith.addi", "tt.store"]]
    );
    assert_eq!(arms(ifs[1]), [vec!["tt.store"]]);
    assert_eq!(
        arms(ifs[2]),
        [vec!["tt.store", "scf.yield"], vec!["tt.store", "scf.yield"]]
    );
    assert_eq!(names(&m, &m.ops[ifs[2].body[2]].operands), ["%p", "%w"]);
    let w = the_op(&m, "scf.while");
    assert_eq!(
        arms(w),
        [
            vec!["arith.cmpi", "scf.condition"],
            vec!["arith.addi", "scf.yield"]
        ]
    );
    assert!(the_op(&m, "arith.cmpi").regions.is_empty());
}

/// `loc(…)` in every form, after ops, region closings, function and block arguments, and
/// location aliases defined before and after the module.
#[test]
fn locations_in_every_form() {
    let text = r#"
#loc = loc("kernel.py":3:0)
#loc1 = loc("kernel.py":4:8)
#loc2 = loc(unknown)
#loc3 = loc(fused[#loc, #loc1])
#loc4 = loc(callsite(#loc1 at #loc))
#loc5 = loc("x"(#loc))
#loc6 = loc(fused<"tag">[#loc1, #loc2])
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @k(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32} loc("x"(#loc)), %n: i32 loc(callsite(#loc1 at #loc)), %v: tensor<64xf32, #blocked> loc(fused[#loc, #loc1])) attributes {noinline = false} {
    %c0 = arith.constant 0 : i32 loc(#loc1)
    %c1 = arith.constant 1 : i32 loc("kernel.py":5:3)
    %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #blocked> loc(unknown)
    %s = "tt.scan"(%v) <{axis = 0 : i32, reverse = true}> ({
    ^bb0(%a: f32 loc(callsite(#loc2 at #loc1)), %b: f32 loc("b"(#loc1))):
      %t = arith.addf %a, %b : f32 loc(fused[#loc1, "kernel.py":9:9])
      tt.scan.return %t : f32 loc(#loc7)
    }) : (tensor<64xf32, #blocked>) -> tensor<64xf32, #blocked> loc(#loc8)
    %w:2 = scf.while (%p = %s, %i = %c0) : (tensor<64xf32, #blocked>, i32) -> (tensor<64xf32, #blocked>, i32) {
      %lt = arith.cmpi slt, %i, %n : i32 loc(#loc3)
      scf.condition(%lt) %p, %i : tensor<64xf32, #blocked>, i32 loc(#loc4)
    } do {
    ^bb0(%p2: tensor<64xf32, #blocked> loc("p"), %i2: i32 loc("i"(#loc2))):
      %p3 = arith.addf %p2, %p2 : tensor<64xf32, #blocked> loc(#loc5)
      %i3 = arith.addi %i2, %c1 : i32 loc(#loc6)
      scf.yield %p3, %i3 : tensor<64xf32, #blocked>, i32 loc(#loc7)
    } loc(#loc8)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc7 = loc("kernel.py":12:1)
#loc8 = loc("loop"(#loc7))
"#;
    let m = Module::parse(text).expect("parses");
    let f = &m.funcs[0];
    assert_eq!(names(&m, &f.args), ["%x", "%n", "%v"]);
    assert_eq!(
        attr(&f.arg_attrs[0], "tt.divisibility"),
        Some(&AttrValue::Int(16))
    );
    assert_eq!(
        (ty(&m, f.args[0]), ty(&m, f.args[1]), ty(&m, f.args[2])),
        ("!tt.ptr<f32>".into(), "i32".into(), "64xf32".into())
    );
    let scan = the_op(&m, "tt.scan");
    assert_eq!(names(&m, &scan.block_args), ["%a", "%b"]);
    assert_eq!(ty(&m, scan.block_args[1]), "f32");
    let w = the_op(&m, "scf.while");
    assert_eq!(names(&m, &w.block_args), ["%p", "%i", "%p2", "%i2"]);
    assert_eq!(ty(&m, w.block_args[3]), "i32");
    assert_eq!(names(&m, &def(&m, "%i3").operands), ["%i2", "%c1"]);
    let ops: Vec<&str> = m.ops.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(
        ops,
        [
            "arith.constant",
            "arith.constant",
            "tt.make_range",
            "tt.scan",
            "arith.addf",
            "tt.scan.return",
            "scf.while",
            "arith.cmpi",
            "scf.condition",
            "arith.addf",
            "arith.addi",
            "scf.yield",
            "tt.return"
        ]
    );
    assert!(m.notes.is_empty(), "{:?}", m.notes);
}

/// Attributes in any order, in dictionaries, properties and on arguments; unit attributes;
/// the attributes of a region op after its region.
#[test]
fn attributes_in_any_order() {
    let text = r#"
#blocked = #ttg.blocked<{order = [0], warpsPerCTA = [4], threadsPerWarp = [64], sizePerThread = [4]}>
module attributes {"ttg.threads-per-warp" = 64 : i32, ttg.target = "hip:gfx942", "ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32} {
  tt.func public @k(%p: !tt.ptr<f16> {tt.pointer_range = 32 : i32, tt.divisibility = 16 : i32}, %q: !tt.ptr<f16> {tt.divisibility = 8 : i32, tt.pointer_range = 32 : i32}, %n: i32 {tt.divisibility = 16 : i32}) {
    %r = tt.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32, #blocked>
    %r2 = tt.make_range {end = 512 : i32, start = 256 : i32} : tensor<256xi32, #blocked>
    %sp = tt.splat %p : !tt.ptr<f16> -> tensor<256x!tt.ptr<f16>, #blocked>
    %a = tt.addptr %sp, %r : tensor<256x!tt.ptr<f16>, #blocked>, tensor<256xi32, #blocked>
    %l = tt.load %a {isVolatile = false, tt.unit_hint, cache = 1 : i32} : tensor<256x!tt.ptr<f16>, #blocked>
    %s = "tt.scan"(%r) <{reverse = false, axis = 0 : i32}> ({
    ^bb0(%x: i32, %y: i32):
      %z = arith.addi %x, %y : i32
      tt.scan.return %z : i32
    }) : (tensor<256xi32, #blocked>) -> tensor<256xi32, #blocked>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %i = %c0 to %n step %c1  : i32 {
      scf.yield
    } {tt.num_stages = 2 : i32, tt.loop_unroll_factor = 1 : i32}
    tt.return
  }
}
"#;
    let m = Module::parse(text).expect("parses");
    assert_eq!((m.num_warps, m.threads_per_warp, m.num_ctas), (4, 64, 1));
    assert_eq!(m.target.as_deref(), Some("gfx942"));
    let f = &m.funcs[0];
    let div = |k: usize| attr(&f.arg_attrs[k], "tt.divisibility").cloned();
    assert_eq!(
        (div(0), div(1), div(2)),
        (
            Some(AttrValue::Int(16)),
            Some(AttrValue::Int(8)),
            Some(AttrValue::Int(16))
        )
    );
    let ranges = ops_named(&m, "tt.make_range");
    for (op, (start, end)) in ranges.iter().zip([(0, 256), (256, 512)]) {
        assert_eq!(attr(&op.attrs, "start"), Some(&AttrValue::Int(start)));
        assert_eq!(attr(&op.attrs, "end"), Some(&AttrValue::Int(end)));
    }
    let l = the_op(&m, "tt.load");
    assert_eq!(attr(&l.attrs, "tt.unit_hint"), Some(&AttrValue::Int(1)));
    assert_eq!(attr(&l.attrs, "cache"), Some(&AttrValue::Int(1)));
    assert_eq!(attr(&l.attrs, "isVolatile"), Some(&AttrValue::Int(0)));
    let s = the_op(&m, "tt.scan");
    assert_eq!(attr(&s.attrs, "axis"), Some(&AttrValue::Int(0)));
    assert_eq!(attr(&s.attrs, "reverse"), Some(&AttrValue::Int(0)));
    let for_op = the_op(&m, "scf.for");
    assert_eq!(attr(&for_op.attrs, "tt.num_stages"), Some(&AttrValue::Int(2)));
    assert_eq!(
        attr(&for_op.attrs, "tt.loop_unroll_factor"),
        Some(&AttrValue::Int(1))
    );
    // The coalescing heuristic sees the same pointer, however the attributes are ordered.
    let r = run(&m, &PassOptions::new(Pass::Coalesce, "gfx942")).expect("coalesce");
    assert!(
        r.to_text().contains("contiguity = [256], divisibility = [16]"),
        "{}",
        r.to_text()
    );
}

/// Keywords with values among the operands, in any order, several in a row
/// (`cacheModifier = cg evictionPolicy = evict_last`), before an attribute dictionary.
#[test]
fn inline_attributes_in_any_order() {
    let text = r#"
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func @k(%p: tensor<64x!tt.ptr<f32>, #blocked>, %m: tensor<64xi1, #blocked>, %o: tensor<64xf32, #blocked>, %b: !tt.ptr<f32>, %off: tensor<64xi32, #blocked>) {
    %a = tt.load %p, %m, %o evictionPolicy = evict_last cacheModifier = cg {isVolatile = true} : tensor<64x!tt.ptr<f32>, #blocked>
    tt.store %p, %a, %m cacheModifier = wt evictionPolicy = evict_first : tensor<64x!tt.ptr<f32>, #blocked>
    %c = amdg.buffer_load %b[%off], %m, %o cacheModifier = cg : tensor<64xf32, #blocked>
    amdg.buffer_store %c, %b[%off], %m cacheModifier = cs : tensor<64xf32, #blocked>
    tt.return
  }
}
"#;
    let m = Module::parse(text).expect("parses");
    let l = the_op(&m, "tt.load");
    assert_eq!(names(&m, &l.operands), ["%p", "%m", "%o"]);
    assert_eq!((l.mask, l.other), (Some(1), Some(2)));
    assert_eq!(attr(&l.attrs, "cacheModifier"), Some(&raw("cg")));
    assert_eq!(attr(&l.attrs, "evictionPolicy"), Some(&raw("evict_last")));
    assert_eq!(attr(&l.attrs, "isVolatile"), Some(&AttrValue::Int(1)));
    let s = the_op(&m, "tt.store");
    assert_eq!(names(&m, &s.operands), ["%p", "%a", "%m"]);
    assert_eq!(attr(&s.attrs, "cacheModifier"), Some(&raw("wt")));
    assert_eq!(attr(&s.attrs, "evictionPolicy"), Some(&raw("evict_first")));
    let bl = the_op(&m, "amdg.buffer_load");
    assert_eq!(names(&m, &bl.operands), ["%b", "%off", "%m", "%o"]);
    assert_eq!(attr(&bl.attrs, "cacheModifier"), Some(&raw("cg")));
    assert_eq!(ty(&m, bl.results[0]), "64xf32");
    let bs = the_op(&m, "amdg.buffer_store");
    assert_eq!(names(&m, &bs.operands), ["%c", "%b", "%off", "%m"]);
    assert_eq!(attr(&bs.attrs, "cacheModifier"), Some(&raw("cs")));
}

/// A spin lock's `scf.while : () -> ()` carries nothing: no operands, no results, its test in
/// the first region (tutorial 05's layer-norm backward prints it so).
#[test]
fn a_while_that_carries_nothing() {
    let text = r#"
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func @k(%lock: !tt.ptr<i32>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.while : () -> () {
      %old = tt.atomic_cas acq_rel, gpu, %lock, %c0, %c1 : (!tt.ptr<i32>, i32, i32) -> i32
      %held = arith.cmpi eq, %old, %c1 : i32
      scf.condition(%held)
    } do {
      scf.yield
    }
    tt.return
  }
}
"#;
    let m = Module::parse(text).expect("parses");
    let w = the_op(&m, "scf.while");
    assert!(w.operands.is_empty() && w.results.is_empty() && w.block_args.is_empty());
    let body: Vec<&str> = w.body.iter().map(|&b| m.ops[b].name.as_str()).collect();
    assert_eq!(
        body,
        ["tt.atomic_cas", "arith.cmpi", "scf.condition", "scf.yield"]
    );
    assert_eq!(w.regions, [0, 3]);
}

/// `scf.while` and `tt.scan` read with their regions; the atomics with their kind, ordering,
/// scope and mask; Triton's other element-wise ops with their operands, result types and
/// attributes.
#[test]
fn while_scan_atomics_and_triton_elementwise_ops() {
    let text = r#"
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func @k(%p: tensor<64x!tt.ptr<f32>, #blocked>, %q: !tt.ptr<i32>, %m: tensor<64xi1, #blocked>, %x: tensor<64xf32, #blocked>, %u: tensor<64xi32, #blocked>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %a = tt.atomic_rmw fadd, acq_rel, gpu, %p, %x, %m : (tensor<64x!tt.ptr<f32>, #blocked>, tensor<64xf32, #blocked>, tensor<64xi1, #blocked>) -> tensor<64xf32, #blocked>
    %b = tt.atomic_rmw exch, relaxed, sys, %p, %x : (tensor<64x!tt.ptr<f32>, #blocked>, tensor<64xf32, #blocked>) -> tensor<64xf32, #blocked>
    %c = tt.atomic_cas release, cta, %q, %c0, %c1 : (!tt.ptr<i32>, i32, i32) -> i32
    %w:2 = scf.while (%v = %x, %i = %c0) : (tensor<64xf32, #blocked>, i32) -> (tensor<64xf32, #blocked>, i32) {
      %lt = arith.cmpi slt, %i, %n : i32
      scf.condition(%lt) %v, %i : tensor<64xf32, #blocked>, i32
    } do {
    ^bb0(%v2: tensor<64xf32, #blocked>, %i2: i32):
      %v3 = tt.precise_sqrt %v2 : tensor<64xf32, #blocked>
      %i3 = arith.addi %i2, %c1 : i32
      scf.yield %v3, %i3 : tensor<64xf32, #blocked>, i32
    }
    %s:2 = "tt.scan"(%x, %u) <{axis = 0 : i32, reverse = true}> ({
    ^bb0(%s0: f32, %s1: i32, %s2: f32, %s3: i32):
      %t0 = arith.addf %s0, %s2 : f32
      %t1 = arith.addi %s1, %s3 : i32
      tt.scan.return %t0, %t1 : f32, i32
    }) : (tensor<64xf32, #blocked>, tensor<64xi32, #blocked>) -> (tensor<64xf32, #blocked>, tensor<64xi32, #blocked>)
    %d = tt.precise_divf %x, %w#0 : tensor<64xf32, #blocked>
    %h = tt.mulhiui %u, %u : tensor<64xi32, #blocked>
    %cl = tt.clampf %x, %d, %w#0, propagateNan = all : tensor<64xf32, #blocked>
    %f8 = tt.fp_to_fp %x, rounding = rtne : tensor<64xf32, #blocked> -> tensor<64xf8E4M3FNUZ, #blocked>
    %f16 = tt.fp_to_fp %f8 : tensor<64xf8E4M3FNUZ, #blocked> -> tensor<64xf16, #blocked>
    %bc = tt.bitcast %x : tensor<64xf32, #blocked> -> tensor<64xi32, #blocked>
    %e = tt.extern_elementwise %x, %d {libname = "", libpath = "", pure = true, symbol = "__ocml_pow_f32"} : (tensor<64xf32, #blocked>, tensor<64xf32, #blocked>) -> tensor<64xf32, #blocked>
    %ex = math.exp2 %x fastmath<afn> : tensor<64xf32, #blocked>
    %fm = math.fma %x, %x, %ex fastmath<nnan,ninf,contract> : tensor<64xf32, #blocked>
    %ad = arith.addf %x, %fm fastmath<fast> : tensor<64xf32, #blocked>
    %ab = math.absf %ad : tensor<64xf32, #blocked>
    tt.return
  }
}
"#;
    let m = Module::parse(text).expect("parses");
    assert!(m.notes.is_empty(), "{:?}", m.notes);
    let rmw = ops_named(&m, "tt.atomic_rmw");
    assert_eq!(names(&m, &rmw[0].operands), ["%p", "%x", "%m"]);
    assert_eq!(rmw[0].mask, Some(2));
    assert_eq!(
        ["atomic_rmw_op", "sem", "scope"].map(|k| attr(&rmw[0].attrs, k).cloned()),
        [Some(raw("fadd")), Some(raw("acq_rel")), Some(raw("gpu"))]
    );
    assert_eq!(rmw[0].keyword.as_deref(), Some("fadd"));
    assert_eq!(ty(&m, rmw[0].results[0]), "64xf32");
    assert_eq!((rmw[1].operands.len(), rmw[1].mask), (2, None));
    assert_eq!(
        ["atomic_rmw_op", "sem", "scope"].map(|k| attr(&rmw[1].attrs, k).cloned()),
        [Some(raw("exch")), Some(raw("relaxed")), Some(raw("sys"))]
    );
    let cas = the_op(&m, "tt.atomic_cas");
    assert_eq!(names(&m, &cas.operands), ["%q", "%c0", "%c1"]);
    assert_eq!(
        ["sem", "scope"].map(|k| attr(&cas.attrs, k).cloned()),
        [Some(raw("release")), Some(raw("cta"))]
    );
    assert_eq!(ty(&m, cas.results[0]), "i32");

    let w = the_op(&m, "scf.while");
    assert_eq!(names(&m, &w.operands), ["%x", "%c0"]);
    assert_eq!(names(&m, &w.results), ["%w#0", "%w#1"]);
    assert_eq!(
        (ty(&m, w.results[0]), ty(&m, w.results[1])),
        ("64xf32".into(), "i32".into())
    );
    assert_eq!(names(&m, &w.block_args), ["%v", "%i", "%v2", "%i2"]);
    let body: Vec<&str> = w.body.iter().map(|&b| m.ops[b].name.as_str()).collect();
    assert_eq!(
        body,
        [
            "arith.cmpi",
            "scf.condition",
            "tt.precise_sqrt",
            "arith.addi",
            "scf.yield"
        ]
    );
    assert_eq!(w.regions, [0, 2]);
    let cond = the_op(&m, "scf.condition");
    assert_eq!(names(&m, &cond.operands), ["%lt", "%v", "%i"]);
    for &b in &w.body {
        assert_eq!(m.ops[b].parent, m.ops.iter().position(|o| o.name == "scf.while"));
    }
    assert!(matches!(
        m.values[w.block_args[2]].def,
        ValueDef::BlockArg { index: 2, .. }
    ));

    let scan = the_op(&m, "tt.scan");
    assert_eq!(names(&m, &scan.operands), ["%x", "%u"]);
    assert_eq!(attr(&scan.attrs, "axis"), Some(&AttrValue::Int(0)));
    assert_eq!(attr(&scan.attrs, "reverse"), Some(&AttrValue::Int(1)));
    assert_eq!(names(&m, &scan.block_args), ["%s0", "%s1", "%s2", "%s3"]);
    assert_eq!(
        (ty(&m, scan.results[0]), ty(&m, scan.results[1])),
        ("64xf32".into(), "64xi32".into())
    );
    let ret = the_op(&m, "tt.scan.return");
    assert_eq!(names(&m, &ret.operands), ["%t0", "%t1"]);

    assert_eq!(names(&m, &def(&m, "%d").operands), ["%x", "%w#0"]);
    assert_eq!(ty(&m, value(&m, "%h")), "64xi32");
    let cl = def(&m, "%cl");
    assert_eq!(names(&m, &cl.operands), ["%x", "%d", "%w#0"]);
    assert_eq!(attr(&cl.attrs, "propagateNan"), Some(&raw("all")));
    let f8 = def(&m, "%f8");
    assert_eq!(names(&m, &f8.operands), ["%x"]);
    assert_eq!(attr(&f8.attrs, "rounding"), Some(&raw("rtne")));
    assert_eq!(ty(&m, f8.results[0]), "64xf8E4M3FNUZ");
    assert_eq!(ty(&m, value(&m, "%f16")), "64xf16");
    assert_eq!(attr(&def(&m, "%f16").attrs, "rounding"), None);
    assert_eq!(ty(&m, value(&m, "%bc")), "64xi32");
    let e = def(&m, "%e");
    assert_eq!(names(&m, &e.operands), ["%x", "%d"]);
    assert_eq!(
        attr(&e.attrs, "symbol"),
        Some(&AttrValue::Str("__ocml_pow_f32".into()))
    );
    assert_eq!(attr(&e.attrs, "pure"), Some(&AttrValue::Int(1)));
    assert_eq!(ty(&m, e.results[0]), "64xf32");
    assert_eq!(attr(&def(&m, "%ex").attrs, "fastmath"), Some(&raw("afn")));
    let fm = def(&m, "%fm");
    assert_eq!(names(&m, &fm.operands), ["%x", "%x", "%ex"]);
    assert_eq!(attr(&fm.attrs, "fastmath"), Some(&raw("nnan,ninf,contract")));
    assert_eq!(attr(&def(&m, "%ad").attrs, "fastmath"), Some(&raw("fast")));
    assert_eq!(attr(&def(&m, "%ab").attrs, "fastmath"), None);
}

/// `arith.constant` of every element type, hex floats (MLIR's infinities and NaNs) read as
/// the bits of their type; `arith.cmpf` with every predicate and `arith.cmpi` in generic form.
#[test]
fn constants_and_comparisons() {
    let text = r#"
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func @k(%x: tensor<64xf32, #blocked>, %u: tensor<64xi32, #blocked>) {
    %ninf = arith.constant dense<0xFF800000> : tensor<64xf32, #blocked>
    %hninf = arith.constant dense<0xFC00> : tensor<64xf16, #blocked>
    %h1 = arith.constant dense<0x3C00> : tensor<64xf16, #blocked>
    %bninf = arith.constant dense<0xFF80> : tensor<64xbf16, #blocked>
    %dninf = arith.constant 0xFFF0000000000000 : f64
    %nan = arith.constant 0x7FC00000 : f32
    %half = arith.constant 5.000000e-01 : f32
    %small = arith.constant dense<4.6566126E-10> : tensor<64xf32, #blocked>
    %t = arith.constant dense<true> : tensor<64xi1, #blocked>
    %false = arith.constant false
    %list = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
    %flist = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
    %i8 = arith.constant dense<-128> : tensor<64xi8, #blocked>
    %big = arith.constant 4294967295 : i64
    %x0 = arith.cmpf false, %x, %x : tensor<64xf32, #blocked>
    %x1 = arith.cmpf oeq, %x, %x : tensor<64xf32, #blocked>
    %x2 = arith.cmpf ogt, %x, %x : tensor<64xf32, #blocked>
    %x3 = arith.cmpf oge, %x, %x : tensor<64xf32, #blocked>
    %x4 = arith.cmpf olt, %x, %x : tensor<64xf32, #blocked>
    %x5 = arith.cmpf ole, %x, %x : tensor<64xf32, #blocked>
    %x6 = arith.cmpf one, %x, %x : tensor<64xf32, #blocked>
    %x7 = arith.cmpf ord, %x, %x : tensor<64xf32, #blocked>
    %x8 = arith.cmpf ueq, %x, %x : tensor<64xf32, #blocked>
    %x9 = arith.cmpf ugt, %x, %x : tensor<64xf32, #blocked>
    %x10 = arith.cmpf uge, %x, %x : tensor<64xf32, #blocked>
    %x11 = arith.cmpf ult, %x, %x : tensor<64xf32, #blocked>
    %x12 = arith.cmpf ule, %x, %x : tensor<64xf32, #blocked>
    %x13 = arith.cmpf une, %x, %x : tensor<64xf32, #blocked>
    %x14 = arith.cmpf uno, %x, %x : tensor<64xf32, #blocked>
    %x15 = arith.cmpf true, %x, %x : tensor<64xf32, #blocked>
    %x16 = arith.cmpf olt, %x, %ninf fastmath<nnan> : tensor<64xf32, #blocked>
    %g = "arith.cmpi"(%u, %u) <{predicate = 2 : i64}> : (tensor<64xi32, #blocked>, tensor<64xi32, #blocked>) -> tensor<64xi1, #blocked>
    %g2 = "arith.cmpf"(%x, %x) <{fastmath = #arith.fastmath<none>, predicate = 13 : i64}> : (tensor<64xf32, #blocked>, tensor<64xf32, #blocked>) -> tensor<64xi1, #blocked>
    tt.return
  }
}
"#;
    let m = Module::parse(text).expect("parses");
    let c = |name: &str| def(&m, name).constant.clone().expect("a constant");
    // Floats written in hex are their bit patterns, exactly.
    assert_eq!(c("%ninf"), Constant::Int(0xFF80_0000));
    assert_eq!(c("%hninf"), Constant::Int(0xFC00));
    assert_eq!(c("%h1"), Constant::Int(0x3C00));
    assert_eq!(c("%bninf"), Constant::Int(0xFF80));
    assert_eq!(c("%dninf"), Constant::Int(0xFFF0_0000_0000_0000_u64 as i64));
    assert_eq!(c("%nan"), Constant::Int(0x7FC0_0000));
    assert_eq!(c("%half"), Constant::Float(0.5));
    assert_eq!(c("%small"), Constant::Float(4.6566126E-10));
    assert_eq!(c("%t"), Constant::Int(1));
    assert_eq!(c("%false"), Constant::Int(0));
    assert_eq!(ty(&m, value(&m, "%false")), "i1");
    assert_eq!(m.values[value(&m, "%false")].ty.kind, TypeKind::Scalar);
    assert_eq!(c("%list"), Constant::Other);
    assert_eq!(c("%flist"), Constant::Other);
    assert_eq!(c("%i8"), Constant::Int(-128));
    assert_eq!(c("%big"), Constant::Int(4294967295));
    assert_eq!(ty(&m, value(&m, "%bninf")), "64xbf16");

    let predicates = [
        "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule", "une",
        "uno", "true", "olt",
    ];
    for (k, want) in predicates.iter().enumerate() {
        let op = def(&m, &format!("%x{k}"));
        assert_eq!(op.keyword.as_deref(), Some(*want), "%x{k}");
        assert_eq!(attr(&op.attrs, "predicate"), Some(&raw(want)), "%x{k}");
        assert_eq!(names(&m, &op.operands)[0], "%x");
        assert_eq!(ty(&m, op.results[0]), "64xi1");
    }
    assert_eq!(names(&m, &def(&m, "%x16").operands), ["%x", "%ninf"]);
    assert_eq!(attr(&def(&m, "%x16").attrs, "fastmath"), Some(&raw("nnan")));
    let g = def(&m, "%g");
    assert_eq!(g.keyword.as_deref(), Some("slt"));
    assert_eq!(attr(&g.attrs, "predicate"), Some(&raw("slt")));
    assert_eq!(names(&m, &g.operands), ["%u", "%u"]);
    let g2 = def(&m, "%g2");
    assert_eq!(g2.keyword.as_deref(), Some("une"));
    assert_eq!(attr(&g2.attrs, "fastmath"), Some(&raw("none")));
}

/// Ops without a `module` around them (MLIR's parser makes one); strings holding `%` (the
/// format of `tt.print`, inline assembly) and `tt.print`'s operands after its `:`; a space
/// between a generic op's name and its operands; 0-d tensors.
#[test]
fn ops_outside_a_module_and_strings() {
    let text = r#"
tt.func @k(%p: !tt.ptr<f32>, %v : tensor<64xf32>, %s: f32) {
  %z = tt.splat %s : f32 -> tensor<f32>
  %a = "tt.reduce" (%v) ({
  ^bb0(%arg0: f32, %arg1: f32):
    %add = arith.addf %arg0, %arg1 : f32
    tt.reduce.return %add : f32
  }) {axis = 0 : i32}  : (tensor<64xf32>) -> f32
  tt.print "x=%d %v: " {hex = false, isSigned = array<i32: 1>} : %a : f32
  %i = tt.bitcast %v : tensor<64xf32> -> tensor<64xi32>
  %1 = tt.elementwise_inline_asm "shl.b32 $0, $0, 3; // %x"
    {constraints = "=r,r", packed_element = 1 : i32, pure = true} %i : tensor<64xi32> -> tensor<64xi32>
  tt.return
}
tt.func private @callee(%x: f32) -> f32 {
  tt.return %x : f32
}
"#;
    let m = Module::parse(text).expect("parses");
    assert_eq!(m.first_line, 2);
    assert_eq!(m.funcs.len(), 2);
    assert_eq!(m.funcs[1].name, "callee");
    let z = value(&m, "%z");
    assert_eq!(
        (m.values[z].ty.kind, m.values[z].ty.shape.len()),
        (TypeKind::Tensor, 0)
    );
    let r = the_op(&m, "tt.reduce");
    assert_eq!(names(&m, &r.operands), ["%v"]);
    assert_eq!(attr(&r.attrs, "axis"), Some(&AttrValue::Int(0)));
    assert_eq!(ty(&m, r.results[0]), "f32");
    let print = the_op(&m, "tt.print");
    assert_eq!(names(&m, &print.operands), ["%a"]);
    assert_eq!(attr(&print.attrs, "hex"), Some(&AttrValue::Int(0)));
    assert_eq!(attr(&print.attrs, "isSigned"), Some(&AttrValue::Ints(vec![1])));
    let asm = the_op(&m, "tt.elementwise_inline_asm");
    assert_eq!(names(&m, &asm.operands), ["%i"]);
    assert_eq!(attr(&asm.attrs, "packed_element"), Some(&AttrValue::Int(1)));
    assert_eq!(ty(&m, asm.results[0]), "64xi32");
    assert_eq!(names(&m, &ops_named(&m, "tt.return")[1].operands), ["%x"]);
    // What closes nothing is still an error.
    let err = Module::parse(&format!("{text}}}\n")).unwrap_err();
    assert_eq!(
        (err.line, err.message.as_str()),
        (18, "a '}' that closes nothing")
    );
}

/// A module written all in generic form (`triton-opt --mlir-print-op-generic`): the module's
/// attributes after its region, the function's name and argument attributes in its properties
/// and its arguments in its entry block, `scf.for` / `scf.if` with their operands and block
/// arguments as any op has them, constants and predicates in properties.
#[test]
fn generic_form_module() {
    let generic = r#"
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
"builtin.module"() ({
  "tt.func"() <{arg_attrs = [{tt.divisibility = 16 : i32}, {}], function_type = (!tt.ptr<f32>, i32) -> (), sym_name = "k", sym_visibility = "public"}> ({
  ^bb0(%arg0: !tt.ptr<f32>, %arg1: i32):
    %0 = "arith.constant"() <{value = 0 : i32}> : () -> i32
    %1 = "arith.constant"() <{value = 1 : i32}> : () -> i32
    %2 = "arith.constant"() <{value = dense<0xFF800000> : tensor<64xf32, #blocked>}> : () -> tensor<64xf32, #blocked>
    %3 = "tt.make_range"() <{end = 64 : i32, start = 0 : i32}> : () -> tensor<64xi32, #blocked>
    %4 = "tt.splat"(%arg0) : (!tt.ptr<f32>) -> tensor<64x!tt.ptr<f32>, #blocked>
    %5 = "tt.addptr"(%4, %3) : (tensor<64x!tt.ptr<f32>, #blocked>, tensor<64xi32, #blocked>) -> tensor<64x!tt.ptr<f32>, #blocked>
    %6 = "scf.for"(%0, %arg1, %1, %2) ({
    ^bb0(%arg2: i32, %arg3: tensor<64xf32, #blocked>):
      %7 = "tt.load"(%5) <{boundaryCheck = array<i32>, cache = 1 : i32, evict = 1 : i32, isVolatile = false, operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<64x!tt.ptr<f32>, #blocked>) -> tensor<64xf32, #blocked>
      %8 = "arith.maxnumf"(%arg3, %7) : (tensor<64xf32, #blocked>, tensor<64xf32, #blocked>) -> tensor<64xf32, #blocked>
      "scf.yield"(%8) : (tensor<64xf32, #blocked>) -> ()
    }) : (i32, i32, i32, tensor<64xf32, #blocked>) -> tensor<64xf32, #blocked>
    %9 = "arith.cmpi"(%arg1, %0) <{predicate = 4 : i64}> : (i32, i32) -> i1
    "scf.if"(%9) ({
      "tt.store"(%5, %6) <{boundaryCheck = array<i32>, cache = 1 : i32, evict = 1 : i32}> : (tensor<64x!tt.ptr<f32>, #blocked>, tensor<64xf32, #blocked>) -> ()
      "scf.yield"() : () -> ()
    }, {
    }) : (i1) -> ()
    "tt.return"() : () -> ()
  }) : () -> ()
}) {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32, ttg.target = "hip:gfx942"} : () -> ()
"#;
    // The same module as Triton prints it.
    let custom = r#"
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "hip:gfx942", "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @k(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %arg1: i32) {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %cst = arith.constant dense<0xFF800000> : tensor<64xf32, #blocked>
    %0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #blocked>
    %1 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>, #blocked>
    %2 = tt.addptr %1, %0 : tensor<64x!tt.ptr<f32>, #blocked>, tensor<64xi32, #blocked>
    %3 = scf.for %arg2 = %c0_i32 to %arg1 step %c1_i32 iter_args(%arg3 = %cst) -> (tensor<64xf32, #blocked>)  : i32 {
      %5 = tt.load %2 : tensor<64x!tt.ptr<f32>, #blocked>
      %6 = arith.maxnumf %arg3, %5 : tensor<64xf32, #blocked>
      scf.yield %6 : tensor<64xf32, #blocked>
    }
    %4 = arith.cmpi sgt, %arg1, %c0_i32 : i32
    scf.if %4 {
      tt.store %2, %3 : tensor<64x!tt.ptr<f32>, #blocked>
    }
    tt.return
  }
}
"#;
    let g = Module::parse(generic).expect("generic form");
    let c = Module::parse(custom).expect("custom form");
    assert_eq!((g.num_warps, g.threads_per_warp), (4, 64));
    assert_eq!((g.target.as_deref(), g.first_line), (Some("gfx942"), 3));
    let f = &g.funcs[0];
    assert_eq!(
        (f.name.as_str(), names(&g, &f.args).as_slice()),
        ("k", &["%arg0".to_string(), "%arg1".to_string()][..])
    );
    assert_eq!(f.arg_attrs, c.funcs[0].arg_attrs);
    assert_eq!(
        (ty(&g, f.args[0]), ty(&g, f.args[1])),
        ("!tt.ptr<f32>".into(), "i32".into())
    );
    assert!(matches!(
        g.values[f.args[1]].def,
        ValueDef::FuncArg { func: 0, index: 1 }
    ));
    assert_eq!(def(&g, "%2").constant, Some(Constant::Int(0xFF80_0000)));
    assert_eq!(def(&g, "%1").constant, Some(Constant::Int(1)));
    assert_eq!(def(&g, "%9").keyword.as_deref(), Some("sgt"));
    let for_op = the_op(&g, "scf.for");
    assert_eq!(names(&g, &for_op.operands), ["%0", "%arg1", "%1", "%2"]);
    assert_eq!(names(&g, &for_op.block_args), ["%arg2", "%arg3"]);
    assert_eq!(ty(&g, for_op.results[0]), "64xf32");
    let if_op = the_op(&g, "scf.if");
    assert_eq!((if_op.regions.as_slice(), if_op.body.len()), (&[0, 2][..], 2));
    // Op for op, the same but for the if's explicit `scf.yield`.
    let shape = |m: &Module| {
        m.ops
            .iter()
            .filter(|o| !(o.name == "scf.yield" && o.operands.is_empty()))
            .map(|o| {
                let tys: Vec<String> = o.results.iter().map(|&r| ty(m, r)).collect();
                // (A constant's keyword is its value as written.)
                let keyword = o.keyword.clone().filter(|_| o.constant.is_none());
                (
                    o.name.clone(),
                    o.operands.len(),
                    tys,
                    keyword,
                    o.constant.clone(),
                    o.mask,
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(shape(&g), shape(&c));
    assert_eq!(
        lineless(decisions(&g, Pass::Coalesce, "gfx942")),
        lineless(decisions(&c, Pass::Coalesce, "gfx942"))
    );
}

/// Decisions, but for the lines they name.
fn lineless(v: Value) -> Value {
    match v {
        Value::Object(o) => Value::Object(
            o.into_iter()
                .filter(|(k, _)| k != "line")
                .map(|(k, v)| (k, lineless(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.into_iter().map(lineless).collect()),
        v => v,
    }
}

fn forms_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ttgir-forms")
}

fn read_form(file: &str) -> String {
    std::fs::read_to_string(forms_dir().join(file)).expect("fixture")
}

/// Kernels as Triton 3.6.0 prints them (`tests/fixtures/ttgir-forms/README.md`).
#[test]
fn triton_printed_kernels_parse() {
    let mut files: Vec<String> = std::fs::read_dir(forms_dir())
        .expect("fixture directory")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|f| f.ends_with(".ttgir"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 3, "{files:?}");
    for f in &files {
        let m = Module::parse(&read_form(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert_eq!((m.num_warps, m.threads_per_warp), (4, 64), "{f}");
        assert!(m.ops.len() > 30, "{f}");
        run(&m, &PassOptions::new(Pass::Coalesce, "gfx942")).unwrap_or_else(|e| panic!("{f}: {e}"));
    }

    let m = Module::parse(&read_form("dropout.gfx942.ttgir")).expect("dropout");
    let c = value(&m, "%c-766435501_i32");
    assert_eq!(ty(&m, c), "i32");
    assert_eq!(
        def(&m, "%c-766435501_i32").constant,
        Some(Constant::Int(-766435501))
    );
    let users: Vec<&str> = m.users()[c].iter().map(|&o| m.ops[o].name.as_str()).collect();
    assert_eq!(users, ["tt.mulhiui", "arith.muli"]);
    assert_eq!(ops_named(&m, "tt.mulhiui").len(), 18);
    let f = &m.funcs[0];
    assert_eq!(names(&m, &f.args), ["%x", "%out", "%n", "%p", "%seed"]);
    assert_eq!(
        attr(&f.arg_attrs[1], "tt.divisibility"),
        Some(&AttrValue::Int(16))
    );

    let m = Module::parse(&read_form("forms.gfx942.ttgir")).expect("forms");
    assert!(m.notes.iter().all(|n| n.contains("amdg.")), "{:?}", m.notes);
    let argmax = &ops_named(&m, "tt.reduce")[0];
    assert_eq!(argmax.operands.len(), 2);
    assert_eq!(argmax.block_args.len(), 4);
    let ret = &m.ops[*argmax.body.last().expect("a body")];
    assert_eq!((ret.name.as_str(), ret.operands.len()), ("tt.reduce.return", 2));
    let rmw = the_op(&m, "tt.atomic_rmw");
    assert_eq!((rmw.operands.len(), rmw.mask), (3, Some(2)));
    assert_eq!(attr(&rmw.attrs, "atomic_rmw_op"), Some(&raw("fadd")));
    let w = the_op(&m, "scf.while");
    assert_eq!((w.operands.len(), w.results.len(), w.block_args.len()), (2, 2, 4));
    assert_eq!(
        attr(&the_op(&m, "tt.scan").attrs, "reverse"),
        Some(&AttrValue::Int(0))
    );
}

/// A module read with its locations is the module read without them, but for the names
/// Triton gives values and the lines.
#[test]
fn locations_change_nothing() {
    let with = Module::parse(&read_form("forms.gfx942.ttgir")).expect("with locations");
    let without = Module::parse(&read_form("forms.nolocs.gfx942.ttgir")).expect("without");
    assert_eq!(with.ops.len(), without.ops.len());
    for (a, b) in with.ops.iter().zip(&without.ops) {
        let key = |o: &Op| {
            (
                o.name.clone(),
                o.operands.clone(),
                o.results.clone(),
                o.attrs.clone(),
                o.keyword.clone(),
                o.mask,
                o.block_args.clone(),
                o.body.clone(),
                o.parent,
            )
        };
        assert_eq!(key(a), key(b), "line {} / {}", a.line, b.line);
        assert_eq!(a.constant, b.constant);
    }
    let tys = |m: &Module| m.values.iter().map(|v| v.ty.clone()).collect::<Vec<_>>();
    assert_eq!(tys(&with), tys(&without));
    assert_eq!(with.funcs[0].arg_attrs, without.funcs[0].arg_attrs);
    for pass in [Pass::Coalesce, Pass::AccelerateMatmul] {
        let (a, b) = (
            decisions(&with, pass, "gfx942"),
            decisions(&without, pass, "gfx942"),
        );
        assert!(a.to_string().contains("tt.atomic_rmw") || pass != Pass::Coalesce);
        assert_eq!(lineless(a), lineless(b));
    }
}

/// Triton's texts cut after any line or inside one, or with a line left out: the reader
/// answers (a module or a one-line error inside the text), never panics.
#[test]
fn cut_kernels_never_panic() {
    for file in ["dropout.gfx942.ttgir", "forms.gfx942.ttgir"] {
        let text = read_form(file);
        let lines: Vec<&str> = text.lines().collect();
        let check = |variant: &str| {
            if let Err(e) = Module::parse(variant) {
                assert!(!e.message.contains('\n'), "{file}: {e}");
                assert!(
                    (1..=variant.lines().count().max(1)).contains(&e.line),
                    "{file}: {e}"
                );
            }
        };
        for k in 0..lines.len() {
            check(&lines[..k].join("\n"));
            check(&[&lines[..k], &lines[k + 1..]].concat().join("\n"));
            let l = lines[k];
            let mid = (0..=l.len() / 2)
                .rev()
                .find(|&i| l.is_char_boundary(i))
                .unwrap_or(0);
            check(&[&lines[..k], &[&l[..mid]][..]].concat().join("\n"));
        }
    }
}
