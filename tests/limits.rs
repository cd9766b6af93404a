//! Every limit of the crate (see `linear_layout::limits`): one past it is a typed error that
//! names it, and the limit itself is accepted where that is cheap to check.

use std::sync::Arc;

use linear_layout::batch;
use linear_layout::encodings::{
    Encoding, EncodingError, MAX_ELEMENTS_LOG2, MAX_LIST_DEPTH, MAX_LIST_LEN, MAX_NESTING, MAX_RANK,
    TensorType, parse_aliases,
};
use linear_layout::heuristics::convert::{
    ConvertError, MAX_COST_ELEMENTS_LOG2, MAX_SIMULATED_ELEMENTS_LOG2, convert_cost, simulate_bank_conflicts,
};
use linear_layout::heuristics::passes::{Pass, PassOptions, run};
use linear_layout::limits::LimitExceeded;
use linear_layout::linear::{LayoutError, LinearLayout, MAX_BITS, MAX_DIMS};
use linear_layout::target::{LdsOp, Target};
use linear_layout::ttgir::axisinfo::MAX_EVALUATIONS;
use linear_layout::ttgir::{
    MAX_INPUT_BYTES, MAX_MODULES, MAX_OP_RESULTS, MAX_REGION_DEPTH, MAX_VALUES, Module, TtgirError,
};
use linear_layout::view::{self, MAX_PICTURE_ELEMENTS, MAX_VIEW_ELEMENTS, PictureOptions, ViewError};

/// The limit of a layout error.
fn layout_limit(r: Result<LinearLayout, LayoutError>) -> LimitExceeded {
    match r {
        Err(LayoutError::Limit(l)) => l,
        other => panic!("expected a limit, got {other:?}"),
    }
}

fn encoding_limit<T: std::fmt::Debug>(r: Result<T, EncodingError>) -> LimitExceeded {
    match r {
        Err(EncodingError::Limit(l)) => l,
        other => panic!("expected a limit, got {other:?}"),
    }
}

fn ttgir_limit<T: std::fmt::Debug>(r: Result<T, TtgirError>) -> LimitExceeded {
    match r {
        Err(TtgirError { limit: Some(l), .. }) => l,
        other => panic!("expected a limit, got {other:?}"),
    }
}

fn view_limit(r: Result<String, ViewError>) -> LimitExceeded {
    match r {
        Err(ViewError::Limit(l)) => l,
        other => panic!("expected a limit, got {:?}", other.map(|s| s.len())),
    }
}

fn convert_limit<T: std::fmt::Debug>(r: Result<T, ConvertError>) -> LimitExceeded {
    match r {
        Err(e) => *e.limit().unwrap_or_else(|| panic!("expected a limit, got {e}")),
        Ok(v) => panic!("expected a limit, got {v:?}"),
    }
}

#[test]
fn layout_bits() {
    let half = LinearLayout::identity_1d(1 << 32, "x", "y").unwrap();
    let at = half
        .product(&LinearLayout::identity_1d(1 << 32, "z", "w").unwrap())
        .unwrap();
    assert_eq!((at.total_in_bits(), at.total_out_bits()), (MAX_BITS, MAX_BITS));
    let past = half.product(&LinearLayout::identity_1d(1 << 33, "z", "w").unwrap());
    assert!(
        matches!(past, Err(LayoutError::TooManyBits { bits: 65, .. })),
        "{past:?}"
    );
    assert!(past.unwrap_err().to_string().contains("linear::MAX_BITS"));
}

#[test]
fn layout_dims() {
    let names: Vec<String> = (0..=MAX_DIMS).map(|i| format!("d{i}")).collect();
    let ins = |n: usize| {
        names[..n]
            .iter()
            .map(|d| (d.as_str(), vec![]))
            .collect::<Vec<_>>()
    };
    let outs = |n: usize| names[..n].iter().map(|d| (d.as_str(), 1)).collect::<Vec<_>>();
    assert!(LinearLayout::from_bases(ins(MAX_DIMS), outs(MAX_DIMS), false).is_ok());
    for (what, r) in [
        (
            "input",
            LinearLayout::from_bases(ins(MAX_DIMS + 1), outs(1), false),
        ),
        (
            "output",
            LinearLayout::from_bases(ins(1), outs(MAX_DIMS + 1), false),
        ),
    ] {
        let l = layout_limit(r);
        assert_eq!(
            (l.limit, l.max, l.got),
            ("linear::MAX_DIMS", MAX_DIMS as u64, MAX_DIMS as u64 + 1)
        );
        assert!(l.counts.starts_with(what), "{l}");
    }
    // The product of two layouts of MAX_DIMS dims each, and a reshape, stop at the limit too.
    let a = LinearLayout::from_bases(ins(MAX_DIMS), outs(1), false).unwrap();
    let other: Vec<(String, Vec<Vec<i64>>)> = (0..MAX_DIMS).map(|i| (format!("e{i}"), vec![])).collect();
    let b = LinearLayout::from_bases(other, [("d0", 1)], false).unwrap();
    assert_eq!(layout_limit(a.product(&b)).limit, "linear::MAX_DIMS");
    let many: Vec<(String, u64)> = (0..=MAX_DIMS).map(|i| (format!("r{i}"), 1)).collect();
    assert_eq!(layout_limit(a.reshape_ins(&many)).limit, "linear::MAX_DIMS");
    // JSON: the reader stops comparing names at the limit.
    let json = |n: usize| {
        let dims: Vec<String> = (0..n).map(|i| format!("\"d{i}\": []")).collect();
        format!(
            r#"{{"in_dims": {{{}}}, "out_dims": {{"o": 1}}}}"#,
            dims.join(", ")
        )
    };
    assert!(serde_json::from_str::<LinearLayout>(&json(MAX_DIMS)).is_ok());
    let err = serde_json::from_str::<LinearLayout>(&json(MAX_DIMS + 1)).unwrap_err();
    assert!(err.to_string().contains("linear::MAX_DIMS"), "{err}");
}

fn blocked(rank: usize) -> Encoding {
    let ones = vec!["1"; rank].join(", ");
    let order: Vec<String> = (0..rank).rev().map(|d| d.to_string()).collect();
    let mut tpw = vec!["1"; rank];
    tpw[rank - 1] = "32";
    format!(
        "#ttg.blocked<{{sizePerThread = [{ones}], threadsPerWarp = [{}], warpsPerCTA = [{ones}], order = [{}]}}>",
        tpw.join(", "),
        order.join(", ")
    )
    .parse()
    .unwrap()
}

#[test]
fn encoding_rank() {
    assert!(blocked(MAX_RANK).to_linear_layout(&[1; MAX_RANK]).is_ok());
    let l = encoding_limit(blocked(1).to_linear_layout(&[1; MAX_RANK + 1]));
    assert_eq!((l.limit, l.got), ("encodings::MAX_RANK", MAX_RANK as u64 + 1));
    assert_eq!(
        encoding_limit(blocked(MAX_RANK + 1).to_linear_layout(&[1])).limit,
        "encodings::MAX_RANK"
    );
    let dims = |n: usize| format!("tensor<{}f16>", "1x".repeat(n));
    assert!(dims(MAX_RANK).parse::<TensorType>().is_ok());
    assert_eq!(
        encoding_limit(dims(MAX_RANK + 1).parse::<TensorType>()).limit,
        "encodings::MAX_RANK"
    );
    let json = |n: usize| {
        format!(
            r#"{{"op": "to_linear_layout", "encoding": {{"kind": "blocked", "sizePerThread": [1], "threadsPerWarp": [32], "warpsPerCTA": [1], "order": [0]}}, "shape": [{}]}}"#,
            vec!["1"; n].join(", ")
        )
    };
    assert!(
        batch::answer_line(&json(MAX_RANK + 1))["error"]
            .as_str()
            .unwrap()
            .contains("encodings::MAX_RANK")
    );
}

#[test]
fn encoding_elements() {
    let e = blocked(1);
    assert!(e.to_linear_layout(&[1 << MAX_ELEMENTS_LOG2]).is_ok());
    let l = encoding_limit(e.to_linear_layout(&[1 << (MAX_ELEMENTS_LOG2 + 1)]));
    assert_eq!(
        (l.limit, l.got),
        ("encodings::MAX_ELEMENTS_LOG2", u64::from(MAX_ELEMENTS_LOG2) + 1)
    );
}

/// `parent` nested `n` levels below the top: `n` slices of a blocked layout of rank `n + 1`.
fn slices(n: usize) -> String {
    let mut text = blocked(n + 1).to_string();
    for _ in 0..n {
        text = format!("#ttg.slice<{{dim = 0, parent = {text}}}>");
    }
    text
}

#[test]
fn encoding_nesting() {
    // MAX_NESTING slices of a blocked layout of rank MAX_NESTING + 1 > MAX_RANK parse, and are
    // refused for their rank only.
    let at: Encoding = slices(MAX_NESTING).parse().unwrap();
    assert_eq!(
        encoding_limit(at.to_linear_layout(&[1])).limit,
        "encodings::MAX_RANK"
    );
    let l = encoding_limit(slices(MAX_NESTING + 1).parse::<Encoding>());
    assert_eq!(
        (l.limit, l.got),
        ("encodings::MAX_NESTING", MAX_NESTING as u64 + 1)
    );
    // Built in Rust, then converted.
    let mut e = blocked(2);
    for _ in 0..=MAX_NESTING {
        e = Encoding::Slice(linear_layout::encodings::Slice {
            dim: 0,
            parent: Arc::new(e),
        });
    }
    assert_eq!(
        encoding_limit(e.to_linear_layout(&[4])).limit,
        "encodings::MAX_NESTING"
    );
    // JSON.
    let mut json = r#"{"kind": "blocked", "sizePerThread": [1], "threadsPerWarp": [32], "warpsPerCTA": [1], "order": [0]}"#.to_string();
    for _ in 0..=MAX_NESTING {
        json = format!(r#"{{"kind": "slice", "dim": 0, "parent": {json}}}"#);
    }
    assert_eq!(
        encoding_limit(Encoding::from_json_str(&json)).limit,
        "encodings::MAX_NESTING"
    );
}

/// Aliases bring their parents along: a chain of aliases, each the slice of the one before,
/// nests as deeply as the text written out would.
#[test]
fn alias_nesting() {
    let chain = |n: usize| {
        let mut text = format!("#a0 = {}\n", blocked(n + 1));
        for i in 1..=n {
            text += &format!("#a{i} = #ttg.slice<{{dim = 0, parent = #a{}}}>\n", i - 1);
        }
        text
    };
    assert!(parse_aliases(&chain(MAX_NESTING)).is_ok());
    let l = encoding_limit(parse_aliases(&chain(MAX_NESTING + 1)));
    assert_eq!(
        (l.limit, l.got),
        ("encodings::MAX_NESTING", MAX_NESTING as u64 + 1)
    );
    // In a TTGIR module too.
    let text = format!("{}module {{\n}}\n", chain(MAX_NESTING + 1));
    let err = Module::parse(&text).unwrap_err();
    assert_eq!(err.limit.map(|l| l.limit), Some("encodings::MAX_NESTING"));
}

#[test]
fn attribute_lists() {
    let lane = |n: usize| {
        format!(
            "#ttg.linear<{{register = [], lane = [{}], warp = [], block = []}}>",
            vec!["[0]"; n].join(", ")
        )
    };
    assert!(lane(MAX_LIST_LEN).parse::<Encoding>().is_ok());
    let l = encoding_limit(lane(MAX_LIST_LEN + 1).parse::<Encoding>());
    assert_eq!(
        (l.limit, l.got),
        ("encodings::MAX_LIST_LEN", MAX_LIST_LEN as u64 + 1)
    );
    let nested = |depth: usize| {
        format!(
            "#ttg.linear<{{register = {}0{}, lane = [], warp = [], block = []}}>",
            "[".repeat(depth),
            "]".repeat(depth)
        )
    };
    // At the limit the lists are only too deep for a basis; one more is too deep to read.
    assert!(!matches!(
        nested(MAX_LIST_DEPTH).parse::<Encoding>(),
        Err(EncodingError::Limit(_))
    ));
    let l = encoding_limit(nested(MAX_LIST_DEPTH + 1).parse::<Encoding>());
    assert_eq!(
        (l.limit, l.got),
        ("encodings::MAX_LIST_DEPTH", MAX_LIST_DEPTH as u64 + 1)
    );
}

#[test]
fn view_elements() {
    let regs = |n: u64| LinearLayout::identity_1d(n, "register", "dim0").unwrap();
    let l = view_limit(view::tensor_view(&regs(2 * MAX_VIEW_ELEMENTS)));
    assert_eq!(
        (l.limit, l.got),
        ("view::MAX_VIEW_ELEMENTS", 2 * MAX_VIEW_ELEMENTS)
    );
    // One element broadcast to more hardware positions than the limit.
    let bits = MAX_VIEW_ELEMENTS.trailing_zeros();
    let broadcast = |b: u32| {
        LinearLayout::from_bases([("lane", vec![vec![0]; b as usize])], [("dim0", 1)], false).unwrap()
    };
    assert!(view::hardware_view(&broadcast(bits)).is_ok());
    assert_eq!(
        view_limit(view::hardware_view(&broadcast(bits + 1))).limit,
        "view::MAX_VIEW_ELEMENTS"
    );
    assert_eq!(
        view_limit(view::svg(&broadcast(bits + 1), &PictureOptions::default())).limit,
        "view::MAX_VIEW_ELEMENTS"
    );
}

#[test]
fn picture_elements() {
    let regs = |n: u64| LinearLayout::identity_1d(n, "register", "dim0").unwrap();
    assert!(view::svg(&regs(MAX_PICTURE_ELEMENTS), &PictureOptions::default()).is_ok());
    let l = view_limit(view::html(
        &regs(2 * MAX_PICTURE_ELEMENTS),
        &PictureOptions::default(),
    ));
    assert_eq!(
        (l.limit, l.got),
        ("view::MAX_PICTURE_ELEMENTS", 2 * MAX_PICTURE_ELEMENTS)
    );
}

#[test]
fn cost_elements() {
    let t = Target::by_name("gfx942").unwrap();
    let regs = |bits: u32| LinearLayout::identity_1d(1 << bits, "register", "dim0").unwrap();
    assert!(
        convert_cost(
            &regs(MAX_COST_ELEMENTS_LOG2),
            &regs(MAX_COST_ELEMENTS_LOG2),
            16,
            t
        )
        .is_ok()
    );
    let big = regs(MAX_COST_ELEMENTS_LOG2 + 1);
    let l = convert_limit(convert_cost(&big, &big, 16, t));
    assert_eq!(
        (l.limit, l.got),
        (
            "heuristics::convert::MAX_COST_ELEMENTS_LOG2",
            u64::from(MAX_COST_ELEMENTS_LOG2) + 1
        )
    );
    // Registers that repeat elements count: one element in 2^41 registers.
    let repeated = LinearLayout::from_bases(
        [("register", vec![vec![1]; MAX_COST_ELEMENTS_LOG2 as usize + 1])],
        [("dim0", 2)],
        false,
    )
    .unwrap();
    let l = convert_limit(convert_cost(&repeated, &regs(1), 16, t));
    assert!(l.counts.contains("hardware positions"), "{l}");
}

#[test]
fn simulated_elements() {
    let t = Target::by_name("gfx942").unwrap();
    let pair = |bits: u32| {
        let n = 1u64 << bits;
        let dist = LinearLayout::identity_1d(n / 64, "register", "dim0")
            .unwrap()
            .product(&LinearLayout::identity_1d(64, "lane", "dim0").unwrap())
            .unwrap();
        (dist, LinearLayout::identity_1d(n, "offset", "dim0").unwrap())
    };
    // (At the limit the simulator enumerates 2^22 offsets: seconds in a debug build.)
    let (d, s) = pair(16);
    assert!(simulate_bank_conflicts(&d, &s, 32, t, LdsOp::Read).is_ok());
    let (d, s) = pair(MAX_SIMULATED_ELEMENTS_LOG2 + 1);
    let l = convert_limit(simulate_bank_conflicts(&d, &s, 32, t, LdsOp::Read));
    assert_eq!(l.limit, "heuristics::convert::MAX_SIMULATED_ELEMENTS_LOG2");
}

#[test]
fn ttgir_input_bytes() {
    // (Reading 16 MiB at the limit takes seconds in a debug build: one byte past it is
    // refused before any reading.)
    let module = "module {\n}\n";
    let padded = |n: usize| format!("{module}{}", " ".repeat(n - module.len()));
    let l = ttgir_limit(Module::parse(&padded(MAX_INPUT_BYTES + 1)));
    assert_eq!(
        (l.limit, l.got),
        ("ttgir::MAX_INPUT_BYTES", MAX_INPUT_BYTES as u64 + 1)
    );
}

#[test]
fn ttgir_modules() {
    let text = |n: usize| vec!["module {\n}\n"; n].join("// -----\n");
    assert_eq!(Module::parse_all(&text(MAX_MODULES)).unwrap().len(), MAX_MODULES);
    let err = Module::parse_all(&text(MAX_MODULES + 1)).unwrap_err();
    // The error is at the first module past the limit.
    assert_eq!(err.line, 3 * MAX_MODULES + 1);
    assert_eq!(ttgir_limit::<()>(Err(err)).limit, "ttgir::MAX_MODULES");
}

#[test]
fn ttgir_region_depth() {
    let nested = |depth: usize| {
        format!(
            "module {{\n tt.func @f(%c: i1) {{\n{}{}  tt.return\n }}\n}}",
            " scf.if %c {\n".repeat(depth),
            " }\n".repeat(depth)
        )
    };
    assert!(Module::parse(&nested(MAX_REGION_DEPTH)).is_ok());
    let err = Module::parse(&nested(MAX_REGION_DEPTH + 1)).unwrap_err();
    assert_eq!(err.line, 2 + MAX_REGION_DEPTH + 1);
    let l = ttgir_limit::<()>(Err(err));
    assert_eq!(
        (l.limit, l.got),
        ("ttgir::MAX_REGION_DEPTH", MAX_REGION_DEPTH as u64 + 1)
    );
}

#[test]
fn ttgir_op_results() {
    let text =
        |lhs: &str| format!("module {{\n tt.func @f() {{\n  {lhs} = foo.bar : i32\n  tt.return\n }}\n}}");
    assert!(Module::parse(&text(&format!("%r:{MAX_OP_RESULTS}"))).is_ok());
    // Counted over the whole list: a few bytes each would otherwise name 4,096 values apiece.
    let l = ttgir_limit(Module::parse(&text(&format!("%a:{}, %b:2", MAX_OP_RESULTS - 1))));
    assert_eq!(
        (l.limit, l.got),
        ("ttgir::MAX_OP_RESULTS", MAX_OP_RESULTS as u64 + 1)
    );
    let names: Vec<String> = (0..=MAX_OP_RESULTS).map(|i| format!("%v{i}")).collect();
    assert_eq!(
        ttgir_limit(Module::parse(&text(&names.join(", ")))).limit,
        "ttgir::MAX_OP_RESULTS"
    );
    let err = Module::parse(&text("%r:99999999999999999999999")).unwrap_err();
    assert_eq!((err.message.as_str(), err.limit), ("malformed result list", None));
}

#[test]
fn ttgir_values() {
    let text = |extra: &str| {
        let body = format!("  %r:{MAX_OP_RESULTS} = foo.bar : i32\n").repeat(MAX_VALUES / MAX_OP_RESULTS);
        format!("module {{\n tt.func @f() {{\n{body}{extra}  tt.return\n }}\n}}")
    };
    assert_eq!(Module::parse(&text("")).unwrap().values.len(), MAX_VALUES);
    let err = Module::parse(&text("  %x = foo.bar : i32\n")).unwrap_err();
    assert_eq!(err.line, 3 + MAX_VALUES / MAX_OP_RESULTS);
    let l = ttgir_limit::<()>(Err(err));
    assert_eq!((l.limit, l.got), ("ttgir::MAX_VALUES", MAX_VALUES as u64 + 1));
}

/// A slice of many same-order accesses: each decision lists the first MAX_SAME_ORDER_LISTED
/// partner widths and counts them all, so the report grows with the module, not its square.
#[test]
fn coalesce_report_is_bounded() {
    use linear_layout::heuristics::coalesce::{MAX_SAME_ORDER_LISTED, coalesce_module};
    let n = MAX_SAME_ORDER_LISTED + 6;
    let mut text = String::from(
        "#bl = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>\n\
         module attributes {\"ttg.num-warps\" = 4 : i32, \"ttg.threads-per-warp\" = 64 : i32} {\n\
         tt.func @k(%src: !tt.ptr<f16> {tt.divisibility = 16 : i32}) {\n\
         %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #bl>\n\
         %s = tt.splat %src : !tt.ptr<f16> -> tensor<1024x!tt.ptr<f16>, #bl>\n\
         %p = tt.addptr %s, %r : tensor<1024x!tt.ptr<f16>, #bl>, tensor<1024xi32, #bl>\n",
    );
    for i in 0..n {
        text += &format!("%l{i} = tt.load %p : tensor<1024x!tt.ptr<f16>, #bl>\n");
    }
    text += "tt.return\n}\n}\n";
    let d = coalesce_module(&Module::parse(&text).unwrap(), false).unwrap();
    assert_eq!(d.decided.len(), n);
    for m in &d.decided {
        assert_eq!(m.choice.per_thread_same_order.len(), MAX_SAME_ORDER_LISTED);
        assert_eq!(m.choice.same_order_count, n - 1);
        assert_eq!(m.choice.width, 4);
    }
    let report = run(
        &Module::parse(&text).unwrap(),
        &PassOptions::new(Pass::Coalesce, "gfx942"),
    )
    .unwrap();
    assert_eq!(report.to_json()["mem"][0]["same_order_count"], n - 1);
}

/// Loops nested `depth` deep whose carried value changes once: every level runs its body
/// twice each time it is reached.
fn nested_loops(depth: usize) -> String {
    let mut body = String::from("%c0 = arith.constant 0 : i32\n%c1 = arith.constant 1 : i32\n");
    for d in 0..depth {
        body += &format!(
            "%r{d} = scf.for %i{d} = %lb to %ub step %st iter_args(%a{d} = %c0) -> (i32) : i32 {{\n"
        );
    }
    body += "%p = tt.splat %ptr : !tt.ptr<f16> -> tensor<64x!tt.ptr<f16>>\n%l = tt.load %p : tensor<64x!tt.ptr<f16>>\n";
    for d in (0..depth).rev() {
        body += &format!("%n{d} = arith.addi %a{d}, %c1 : i32\nscf.yield %n{d} : i32\n}}\n");
    }
    format!(
        "module {{\ntt.func @f(%lb: i32, %ub: i32, %st: i32, %ptr: !tt.ptr<f16>) {{\n{body}tt.return\n}}\n}}"
    )
}

#[test]
fn axisinfo_evaluations() {
    let opts = PassOptions::new(Pass::Coalesce, "gfx942");
    assert!(run(&Module::parse(&nested_loops(8)).unwrap(), &opts).is_ok());
    // 2^depth body evaluations and more: past the budget long before the region limit.
    let depth = (MAX_EVALUATIONS.trailing_zeros() as usize + 1).min(MAX_REGION_DEPTH);
    let err = run(&Module::parse(&nested_loops(depth)).unwrap(), &opts).unwrap_err();
    assert_eq!(
        err.limit.map(|l| l.limit),
        Some("ttgir::axisinfo::MAX_EVALUATIONS")
    );
}

#[test]
fn batch_line_bytes() {
    let request =
        r#"{"id": 1, "op": "is_injective", "layout": {"in_dims": {"x": [[1]]}, "out_dims": {"y": 2}}}"#;
    let padded = |n: usize| format!("{request}{}\n", " ".repeat(n - request.len()));
    let mut out = Vec::new();
    let input = format!(
        "{}{}",
        padded(batch::MAX_LINE_BYTES),
        padded(batch::MAX_LINE_BYTES + 1)
    );
    batch::run(input.as_bytes(), &mut out).unwrap();
    let answers: Vec<serde_json::Value> = std::str::from_utf8(&out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), 2);
    assert_eq!(
        (answers[0]["id"].as_u64(), answers[0]["ok"].as_bool()),
        (Some(1), Some(true))
    );
    assert_eq!(answers[1]["ok"], false);
    assert!(
        answers[1]["error"]
            .as_str()
            .unwrap()
            .contains("batch::MAX_LINE_BYTES")
    );
}

/// Values whose types name one alias share its encoding: a module's memory grows with its
/// text, however large the alias and however many values name it.
#[test]
fn aliases_are_shared() {
    let mut text = String::from(
        "#big = #ttg.linear<{register = [[1, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = [], block = []}>\n\
         module attributes {\"ttg.num-warps\" = 1 : i32} {\ntt.func @f(%x: tensor<2x32xf32, #big>) {\n",
    );
    for i in 0..100 {
        text += &format!("%v{i} = arith.addf %x, %x : tensor<2x32xf32, #big>\n");
    }
    text += "tt.return\n}\n}\n";
    let m = Module::parse(&text).unwrap();
    let alias = &m.aliases["big"];
    let sharing = m
        .values
        .iter()
        .filter(|v| v.ty.encoding.as_ref().is_some_and(|e| Arc::ptr_eq(e, alias)))
        .count();
    assert_eq!(sharing, 101);
}

#[test]
fn layout_passes_take_modules_up_to_max_pass_ops() {
    use linear_layout::heuristics::propagation::{
        LayoutPass, LayoutPassOptions, MAX_PASS_OPS, run_layout_pass,
    };
    // n adds and the return: n + 1 ops.
    let module = |n: usize| {
        let mut t = String::from("module {\n tt.func @f(%a: i32) {\n");
        for i in 0..n {
            t.push_str(&format!("  %v{i} = arith.addi %a, %a : i32\n"));
        }
        t.push_str("  tt.return\n }\n}\n");
        t
    };
    let opts = LayoutPassOptions::new("gfx942");
    assert!(run_layout_pass(&module(MAX_PASS_OPS - 1), LayoutPass::Canonicalize, &opts).is_ok());
    let e = run_layout_pass(&module(MAX_PASS_OPS), LayoutPass::RemoveLayoutConversions, &opts).unwrap_err();
    let l = e.limit.expect("a limit");
    assert_eq!(
        (l.limit, l.got),
        ("heuristics::propagation::MAX_PASS_OPS", MAX_PASS_OPS as u64 + 1)
    );
}
