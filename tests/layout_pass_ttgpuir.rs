//! `convert_to_ttgpuir` (Triton's `convert-triton-to-tritongpu`) against Triton 3.6.0 on its
//! own stage files (`tests/fixtures/passes/`): the people kernels' TTIR, with the arch, warps
//! and lanes of their header, and Triton's lit modules, with the options of their stage line.
//! Agreement: the same ops in walk order with the same result types, layouts included.
//! `LAYOUT_PASSES_VERBOSE=1` prints each disagreement.

mod common;

use common::passes::{Case, check_with};
use linear_layout::heuristics::propagation::convert_to_ttgpuir;
use linear_layout::ttgir::graph::Graph;

/// The pass with the case's options: `arch`, `num_warps` and `threads_per_warp` from a
/// people file's header, `target` and `num_warps` from a lit stage line (32 lanes unless it
/// says otherwise, as Triton's option defaults).
fn convert(g: &mut Graph, c: &Case) -> Result<(), String> {
    let target = match (c.get("target"), c.get("arch")) {
        (Some(t), _) => t.to_string(),
        (None, Some(arch)) => format!("hip:{arch}"),
        (None, None) => return Err("no target".into()),
    };
    let number = |key: &str, default: u32| -> Result<u32, String> {
        c.get(key)
            .map_or(Ok(default), |v| v.parse().map_err(|e| format!("{key}: {e}")))
    };
    let num_warps = number("num_warps", 4)?;
    let threads_per_warp = number("threads_per_warp", 32)?;
    convert_to_ttgpuir(g, &target, num_warps, threads_per_warp).map_err(|e| e.to_string())
}

#[test]
fn convert_to_ttgpuir_agrees_with_triton() {
    check_with("convert_to_ttgpuir", &convert, [234, 0, 9]);
}

/// A module that is TTGIR already (every tensor has its layout) keeps its ops and layouts: the
/// conversion only sets the module attributes. Run on Triton's own output of the conversion
/// and on the TTGIR inputs of the other passes' fixtures.
#[test]
fn a_ttgir_module_keeps_its_ops_and_layouts() {
    use common::passes::{cases, signature};
    use linear_layout::ttgir::{Module, TypeKind};
    let mut modules = Vec::new();
    for dir in ["people", "lit", "corpus"] {
        for c in cases(dir) {
            if c.pass == "convert_to_ttgpuir" {
                modules.push(c.expected);
            } else if c.stage == 1 && dir != "people" {
                modules.push(c.input);
            }
        }
    }
    let mut checked = 0;
    for text in modules {
        let (Ok(before), Ok(mut g)) = (Module::parse(&text), Graph::parse(&text)) else {
            continue;
        };
        // Inputs of the TTIR-level passes (f32_dot_tc) have tensors without layouts.
        if before
            .values
            .iter()
            .any(|v| v.ty.kind == TypeKind::Tensor && v.ty.encoding.is_none())
        {
            continue;
        }
        let (warps, lanes) = (g.num_warps, g.threads_per_warp);
        convert_to_ttgpuir(&mut g, "hip:gfx942", warps, lanes).unwrap();
        let after = Module::parse(&g.print().unwrap()).unwrap();
        assert_eq!(signature(&before), signature(&after));
        assert_eq!(after.target.as_deref(), Some("gfx942"));
        checked += 1;
    }
    assert!(checked > 400, "{checked} modules");
}

/// What Triton's conversion cannot do, or the crate cannot write, is an error naming the op;
/// the graph is left as it was.
#[test]
fn what_cannot_be_converted_is_an_error() {
    let module = |body: &str, args: &str| {
        format!("module {{\n  tt.func public @k({args}) {{\n{body}\n    tt.return\n  }}\n}}\n")
    };
    let cases = [
        (
            module("    %x = arith.negf %a : tensor<64xf32>", "%a: tensor<64xf32>"),
            "tensor arguments",
        ),
        (
            module(
                "    %a = arith.constant dense<1.0> : tensor<64xf32>\n    %x = arith.negf %a : tensor<64xf32>",
                "",
            ),
            "no rule",
        ),
        (
            module(
                "    %c = arith.constant 1.0 : f32\n    %x = tt.splat %c : f32 -> tensor<64xf32>",
                "",
            ),
            "splat of a constant",
        ),
    ];
    for (text, why) in cases {
        let mut g = Graph::parse(&text).unwrap();
        let before = g.clone();
        let e = convert_to_ttgpuir(&mut g, "hip:gfx942", 4, 64).unwrap_err();
        assert!(e.to_string().contains(why), "{e}");
        assert_eq!(g, before);
    }
    let mut g = Graph::parse(&module("", "")).unwrap();
    assert!(convert_to_ttgpuir(&mut g, "", 4, 64).is_err());
    assert!(convert_to_ttgpuir(&mut g, "hip:gfx942", 3, 64).is_err());
    assert!(convert_to_ttgpuir(&mut g, "hip:gfx942", 4, 0).is_err());
}

/// Every TTIR module converts for other warp and lane counts too (more threads than elements,
/// one warp, wide CTAs), and what it prints reads back with its layouts verified.
#[test]
fn every_ttir_module_converts_for_any_warps_and_lanes() {
    use common::passes::cases;
    use linear_layout::ttgir::Module;
    let inputs: Vec<String> = ["people", "lit"]
        .into_iter()
        .flat_map(cases)
        .filter(|c| c.pass == "convert_to_ttgpuir")
        .map(|c| c.input)
        .collect();
    for text in &inputs {
        for (warps, lanes) in [(1, 16), (2, 64), (8, 32), (32, 64), (64, 8)] {
            let mut g = Graph::parse(text).unwrap();
            convert_to_ttgpuir(&mut g, "hip:gfx942", warps, lanes).unwrap();
            let out = g.print().unwrap();
            let m = Module::parse(&out).unwrap_or_else(|e| panic!("{e}\n{out}"));
            assert_eq!((m.num_warps, m.threads_per_warp), (warps, lanes));
        }
    }
}
