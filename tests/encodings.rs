//! Encodings → linear layouts against Triton 3.6.0 (fixtures in `tests/fixtures/encodings/`,
//! see the README there).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use linear_layout::encodings::*;
use serde_json::Value;

fn fixture_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/encodings")
}

fn load(name: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(fixture_dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("fixture line"))
        .collect()
}

fn shape_of(v: &Value) -> Vec<u64> {
    v.as_array()
        .expect("shape")
        .iter()
        .map(|x| x.as_u64().expect("dim"))
        .collect()
}

type Named = Vec<(String, Value)>;

/// In-dims and out-dims as ordered lists, so that the order is compared too.
fn ordered(v: &Value) -> (Named, Named) {
    let ins = v["in_dims"]
        .as_object()
        .expect("in_dims")
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let outs = v["out_dims"]
        .as_object()
        .expect("out_dims")
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    (ins, outs)
}

/// Inputs that Triton 3.6 accepts and the crate deliberately rejects, with the reason.
///
/// * More than 2^30 elements: the crate caps tensor sizes (no unbounded work on any input).
/// * `#ttg.nvmma_shared<{…, CGALayout = [[a, b, c]]}>` without `rank = 3`: Triton 3.6 prints
///   rank-3 tilings this way but its parser then checks the bases against the default rank 2
///   and fails; the crate takes the rank from the bases, so that Triton's printed text parses.
/// * A zero entry in `warpsPerCTA`: the MFMA/WMMA Python builders skip the verifier, and
///   `identity1D(0)` happens to be the empty layout, so 3.6 silently drops those warps (a zero
///   along N divides by zero instead). The crate rejects zero like every verifier does.
fn deviation(input: &Value) -> Option<&'static str> {
    let shape = shape_of(&input["shape"]);
    if shape.iter().all(|s| s.is_power_of_two()) && shape.iter().map(|s| s.trailing_zeros()).sum::<u32>() > 30
    {
        return Some("more than 2^30 elements");
    }
    let mut e = &input["encoding"];
    if let Some(text) = e["text"].as_str()
        && text.contains("#ttg.nvmma_shared")
        && text.contains("CGALayout")
        && !text.contains("rank =")
    {
        return Some("Triton 3.6 cannot re-parse its own printing of a rank-3 nvmma_shared");
    }
    loop {
        if e["warpsPerCTA"]
            .as_array()
            .is_some_and(|w| w.iter().any(|x| x == 0))
        {
            return Some("zero warps");
        }
        match e.get("parent") {
            Some(p) => e = p,
            None => return None,
        }
    }
}

/// Checks every case of a file; returns the failures as readable lines.
fn check_file(name: &str) -> (usize, Vec<String>) {
    let cases = load(name);
    let mut failures = Vec::new();
    for case in &cases {
        let id = case["id"].as_str().unwrap_or("?").to_string();
        let input = &case["input"];
        let expected = &case["expected"];
        let shape = shape_of(&input["shape"]);
        let got = Encoding::from_json(&input["encoding"]).and_then(|e| e.to_linear_layout(&shape));
        let want_ok = expected["ok"].as_bool().expect("ok");
        match (got, want_ok) {
            (Ok(l), true) => {
                let got = serde_json::to_value(&l).expect("serialise");
                if ordered(&got) != ordered(expected) {
                    failures.push(format!(
                        "{name} {id}: {}\n   got      {}\n   expected {}",
                        input,
                        got,
                        serde_json::json!({"in_dims": expected["in_dims"], "out_dims": expected["out_dims"]})
                    ));
                }
            }
            (Err(e), true) => {
                if deviation(input).is_none() {
                    failures.push(format!("{name} {id}: {input}\n   error {e}"));
                }
            }
            (Ok(l), false) => {
                if deviation(input).is_none() {
                    failures.push(format!(
                        "{name} {id}: {input}\n   expected error {}\n   got {}",
                        expected["error"],
                        serde_json::to_value(&l).unwrap()
                    ));
                }
            }
            (Err(_), false) => {}
        }
    }
    (cases.len(), failures)
}

/// The `.jsonl` case files of the fixture directory, plus (as absolute paths) those of the
/// directory named by `$LL_EXTRA_ENCODING_CASES`, if set — for checking freshly generated
/// cases without committing them.
fn case_files() -> Vec<String> {
    let list = |dir: &Path, absolute: bool| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .filter_map(|e| e.ok())
            .map(|e| {
                if absolute {
                    e.path().to_string_lossy().into_owned()
                } else {
                    e.file_name().to_string_lossy().into_owned()
                }
            })
            .filter(|n| n.ends_with(".jsonl"))
            .collect();
        names.sort();
        names
    };
    let mut names = list(&fixture_dir(), false);
    if let Ok(extra) = std::env::var("LL_EXTRA_ENCODING_CASES") {
        names.extend(list(Path::new(&extra), true));
    }
    names
}

#[test]
fn oracle_fixtures_agree_exactly() {
    let mut total = 0;
    let mut failures = Vec::new();
    let mut by_kind: BTreeMap<String, usize> = BTreeMap::new();
    for name in case_files() {
        let (n, f) = check_file(&name);
        total += n;
        for line in &f {
            let kind = line
                .split_whitespace()
                .nth(1)
                .unwrap_or("?")
                .rsplit_once('-')
                .map_or("?", |x| x.0)
                .to_string();
            *by_kind.entry(kind).or_default() += 1;
        }
        failures.extend(f);
    }
    assert!(total >= 8300, "only {total} cases found");
    eprintln!("{total} oracle cases checked");
    if !failures.is_empty() {
        let shown: Vec<&String> = failures.iter().take(15).collect();
        panic!(
            "{} of {total} cases disagree with Triton 3.6 ({by_kind:?}):\n{}",
            failures.len(),
            shown.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
        );
    }
}

/// The AMD matrix-core operand cases (`mma-operands-seed21.jsonl`): WMMA and MFMA dot
/// operands of rank-3 (and some rank-2) parents with tilesPerWarp along every dim, every
/// kWidth, extents below the parent's tile, CGA splits and slices. Checked by
/// `oracle_fixtures_agree_exactly` with the rest; named here so that the file cannot go
/// missing unnoticed, and so that its own class shows up in a failure.
#[test]
fn mma_operand_fixtures_agree_exactly() {
    let (n, failures) = check_file("mma-operands-seed21.jsonl");
    assert!(n >= 1000, "only {n} MFMA/WMMA operand cases");
    assert!(
        failures.is_empty(),
        "{} of {n} disagree with Triton 3.6:\n{}",
        failures.len(),
        failures[..failures.len().min(10)].join("\n")
    );
}

/// Every `mlir` string recorded by the oracle parses, prints back identically, and converts to
/// the recorded layout; the JSON encoding prints as the same string.
#[test]
fn mlir_text_round_trips() {
    let mut n = 0;
    let mut failures = Vec::new();
    for name in case_files() {
        for case in load(&name) {
            let Some(text) = case["expected"]["mlir"].as_str() else {
                continue;
            };
            if case["expected"]["ok"] != true {
                continue;
            }
            n += 1;
            let id = case["id"].as_str().unwrap_or("?");
            let shape = shape_of(&case["input"]["shape"]);
            let parsed: Encoding = match text.parse() {
                Ok(e) => e,
                Err(e) => {
                    failures.push(format!("{id}: parse {text}: {e}"));
                    continue;
                }
            };
            if parsed.to_string() != text {
                failures.push(format!("{id}: reprint\n   {text}\n   {parsed}"));
            }
            let from_json = Encoding::from_json(&case["input"]["encoding"])
                .unwrap()
                .with_shape_defaults(&shape);
            if from_json.to_string() != text {
                failures.push(format!("{id}: json print\n   {text}\n   {from_json}"));
            }
            match parsed.to_linear_layout(&shape) {
                Ok(l) => {
                    let got = serde_json::to_value(&l).unwrap();
                    if ordered(&got) != ordered(&case["expected"]) {
                        failures.push(format!("{id}: layout of parsed text differs: {got}"));
                    }
                }
                Err(e) => failures.push(format!("{id}: parsed text does not convert: {e}")),
            }
        }
    }
    assert!(n >= 1800, "only {n} mlir strings");
    assert!(
        failures.is_empty(),
        "{} of {n} failures:\n{}",
        failures.len(),
        failures[..failures.len().min(15)].join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// The AMD upstream unit tests (encodings-spec.md §8), on the inputs of the upstream tests, with
// Triton 3.6.0's own answers (`amd-unit-tests.json`, made by scripts/gen_amd_unit_cases.py).
// ---------------------------------------------------------------------------------------------

fn amd_unit(name: &str) -> Vec<(Encoding, Vec<u64>, linear_layout::linear::LinearLayout)> {
    let all: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture_dir().join("amd-unit-tests.json")).expect("amd-unit-tests.json"),
    )
    .expect("json");
    let cases = all[name]
        .as_array()
        .unwrap_or_else(|| panic!("no recorded cases for {name}"));
    assert!(!cases.is_empty());
    let mut out = Vec::new();
    for c in cases {
        let e = Encoding::from_json(&c["encoding"]).expect("encoding");
        let shape = shape_of(&c["shape"]);
        let l = e
            .to_linear_layout(&shape)
            .unwrap_or_else(|err| panic!("{name} {shape:?}: {err}"));
        let got = serde_json::to_value(&l).unwrap();
        assert_eq!(ordered(&got), ordered(&c["expected"]), "{name} {e} on {shape:?}");
        // Printing and re-parsing the encoding gives the same layout.
        let again: Encoding = e.to_string().parse().expect("reparse");
        assert_eq!(again.to_linear_layout(&shape).unwrap(), l);
        out.push((e, shape, l));
    }
    out
}

/// The recorded cases come in two halves (plain and transposed parent); a dot operand does not
/// depend on the parent's transposition.
fn transposed_parent_is_irrelevant(cases: &[(Encoding, Vec<u64>, linear_layout::linear::LinearLayout)]) {
    let half = cases.len() / 2;
    for k in 0..half {
        assert_eq!(cases[k].1, cases[k + half].1);
        assert_eq!(
            cases[k].2,
            cases[k + half].2,
            "{} vs {}",
            cases[k].0,
            cases[k + half].0
        );
    }
}

fn bases(l: &linear_layout::linear::LinearLayout, dim: &str) -> Vec<Vec<u64>> {
    l.bases(dim).unwrap()
}

macro_rules! amd_unit_tests {
    ($($name:ident),* $(,)?) => {$(
        #[test]
        #[allow(non_snake_case)]
        fn $name() {
            amd_unit(stringify!($name));
        }
    )*};
}

amd_unit_tests!(
    MFMA16_2x4Warps_tpw_2_2,
    MFMA32_2x4Warps,
    MFMA16_2x4Warps,
    MFMA32_warp1onK_lhs_kwidth8,
    MFMA32_warp1onK_rhs_kwidth8,
    MFMA16_warp1onK_lhs_kwidth8,
    MFMA16_warp1onK_rhs_kwidth8,
    WMMA_v1_2x4Warps,
    WMMA_v1_2x4x1Warps,
    WMMA_v1_2x4Warps_rhs,
    WMMA_v1_2x4x1Warps_lhs,
    WMMA_v1_2x4x1Warps_rhs,
    WMMA_v2_2x4Warps,
    WMMA_v2_2x2x2Warps,
    TWMMA_v2_2x4Warps,
    TWMMA_v2_2x2x2Warps,
    WMMA_v2_2x4Warps_lhs,
    WMMA_v2_2x4Warps_rhs,
    WMMA_v2_2x4x1Warps_lhs,
    WMMA_v2_2x4x1Warps_rhs,
    WMMA_v3_2x4Warps,
    WMMA_v3_2x4Warps_lhs,
    WMMA_v3_2x4Warps_rhs,
    AMDRotatingShared2D_8x16_ord10,
    AMDRotatingShared2D_8x16_ord01,
    AMDRotatingShared3D_4x64x64,
);

#[test]
#[allow(non_snake_case)]
fn MFMA32_2x4Warps_tpw_2_2() {
    let cases = amd_unit("MFMA32_2x4Warps_tpw_2_2");
    // 128×128, not transposed (encodings-spec §3.3): N-major tile order.
    let l = &cases[1].2;
    assert_eq!(
        bases(l, "register"),
        [[1, 0], [2, 0], [8, 0], [16, 0], [0, 32], [32, 0]]
    );
    assert_eq!(
        bases(l, "lane"),
        [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [4, 0]]
    );
    assert_eq!(bases(l, "warp"), [[0, 64], [0, 0], [64, 0]]);
}

#[test]
#[allow(non_snake_case)]
fn MFMA16_2x4Warps_F64() {
    let cases = amd_unit("MFMA16_2x4Warps_F64");
    let l = &cases[0].2;
    assert_eq!(bases(l, "register"), [[4, 0], [8, 0]]);
    assert_eq!(bases(l, "lane"), [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0]]);
}

#[test]
#[allow(non_snake_case)]
fn MFMA32_2x4x1Warps() {
    let cases = amd_unit("MFMA32_2x4x1Warps");
    // [2, 32, 32]: the 4 warps along N and 2 along M are broadcast, the batch warp is not.
    assert_eq!(bases(&cases[1].2, "warp"), [[0, 0, 0], [0, 0, 0], [1, 0, 0]]);
}

#[test]
#[allow(non_snake_case)]
fn MFMA32_dot_op_lhs_tpw_2_2() {
    transposed_parent_is_irrelevant(&amd_unit("MFMA32_dot_op_lhs_tpw_2_2"));
}

#[test]
#[allow(non_snake_case)]
fn MFMA16_dot_op_lhs_tpw_2_2() {
    transposed_parent_is_irrelevant(&amd_unit("MFMA16_dot_op_lhs_tpw_2_2"));
}

#[test]
#[allow(non_snake_case)]
fn MFMA32_dot_op_lhs_kwidth4() {
    let cases = amd_unit("MFMA32_dot_op_lhs_kwidth4");
    transposed_parent_is_irrelevant(&cases);
    let l = &cases[0].2; // 128×128
    assert_eq!(
        bases(l, "register"),
        [[0, 1], [0, 2], [0, 8], [0, 16], [0, 32], [0, 64], [64, 0]]
    );
    assert_eq!(
        bases(l, "lane"),
        [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 4]]
    );
    assert_eq!(bases(l, "warp"), [[0, 0], [0, 0], [32, 0]]);
}

#[test]
#[allow(non_snake_case)]
fn MFMA16_dot_op_lhs_kwidth4() {
    transposed_parent_is_irrelevant(&amd_unit("MFMA16_dot_op_lhs_kwidth4"));
}

#[test]
#[allow(non_snake_case)]
fn MFMA32_dot_op_rhs_tpw_2_2() {
    transposed_parent_is_irrelevant(&amd_unit("MFMA32_dot_op_rhs_tpw_2_2"));
}

#[test]
#[allow(non_snake_case)]
fn MFMA16_dot_op_rhs_tpw_2_2() {
    transposed_parent_is_irrelevant(&amd_unit("MFMA16_dot_op_rhs_tpw_2_2"));
}

#[test]
#[allow(non_snake_case)]
fn MFMA32_dot_op_rhs_kwidth4() {
    transposed_parent_is_irrelevant(&amd_unit("MFMA32_dot_op_rhs_kwidth4"));
}

#[test]
#[allow(non_snake_case)]
fn MFMA16_dot_op_rhs_kwidth4() {
    transposed_parent_is_irrelevant(&amd_unit("MFMA16_dot_op_rhs_kwidth4"));
}

#[test]
#[allow(non_snake_case)]
fn WMMA_v1_2x4Warps_lhs() {
    let cases = amd_unit("WMMA_v1_2x4Warps_lhs");
    let l = &cases[1].2; // 32×64, kWidth 16: lanes 16..31 duplicate lanes 0..15
    assert_eq!(
        bases(l, "register"),
        [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]]
    );
    assert_eq!(bases(l, "lane"), [[1, 0], [2, 0], [4, 0], [8, 0], [0, 0]]);
    assert_eq!(bases(l, "warp"), [[0, 0], [0, 0], [16, 0]]);
}

#[test]
#[allow(non_snake_case)]
fn AMDRotatingShared2D_64x64() {
    let cases = amd_unit("AMDRotatingShared2D_64x64");
    let offset = bases(&cases[0].2, "offset");
    // Two full rotation periods: the last basis is a plain row step.
    assert_eq!(offset.last().unwrap(), &vec![32, 0]);
    assert!(cases.iter().all(|c| c.2.is_invertible()));
}

/// `to_linear_layout` through the JSON-lines batch protocol.
#[test]
fn batch_protocol_answers_to_linear_layout() {
    use linear_layout::batch::answer_line;
    let r = answer_line(
        r#"{"id": 1, "op": "to_linear_layout", "shape": [16], "encoding": {"kind": "blocked", "sizePerThread": [4], "threadsPerWarp": [32], "warpsPerCTA": [4], "order": [0]}}"#,
    );
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(
        r["layout"]["in_dims"]["lane"],
        serde_json::json!([[4], [8], [0], [0], [0]])
    );
    let r = answer_line(
        r##"{"op": "to_linear_layout", "shape": [8, 16], "encoding": {"kind": "mlir", "text": "#ttg.amd_rotating_shared<{vec = 2, perPhase = 2, maxPhase = 2, order = [1, 0]}>"}}"##,
    );
    assert_eq!(r["ok"], true, "{r}");
    let r = answer_line(
        r#"{"op": "to_linear_layout", "shape": [6], "encoding": {"kind": "blocked", "sizePerThread": [1], "threadsPerWarp": [32], "warpsPerCTA": [1], "order": [0]}}"#,
    );
    assert_eq!(r["ok"], false);
    assert!(r["error"].as_str().unwrap().contains("power of 2"), "{r}");
}

// ---------------------------------------------------------------------------------------------
// Properties (quickcheck) over random valid encodings.
// ---------------------------------------------------------------------------------------------

mod props {
    use super::*;
    use linear_layout::linear::{LinearLayout, remove_standard_dim};
    use quickcheck::{Arbitrary, Gen, QuickCheck, TestResult};

    fn pick<T: Clone>(g: &mut Gen, xs: &[T]) -> T {
        g.choose(xs).expect("non-empty").clone()
    }

    fn pow2(g: &mut Gen, max_log: u32) -> u32 {
        1 << (u32::arbitrary(g) % (max_log + 1))
    }

    /// Splits 2^bits over `rank` dims.
    fn split(g: &mut Gen, bit_choices: &[u32], rank: usize) -> Vec<u32> {
        let bits = pick(g, bit_choices);
        let mut v = vec![1u32; rank];
        for _ in 0..bits {
            let d = usize::arbitrary(g) % rank;
            v[d] *= 2;
        }
        v
    }

    fn perm(g: &mut Gen, rank: usize) -> Vec<u32> {
        let mut p: Vec<u32> = (0..rank as u32).collect();
        for i in (1..rank).rev() {
            let j = usize::arbitrary(g) % (i + 1);
            p.swap(i, j);
        }
        p
    }

    /// A CTA tiling: split bases 1, 2, 4… per dim, sometimes a multicast (zero) basis.
    fn cga(g: &mut Gen, rank: usize) -> Vec<Vec<u32>> {
        if u8::arbitrary(g) % 4 != 0 {
            return vec![];
        }
        let mut next = vec![1u32; rank];
        let mut out = vec![];
        for _ in 0..1 + usize::arbitrary(g) % 2 {
            let mut b = vec![0u32; rank];
            if u8::arbitrary(g) % 5 != 0 {
                let d = usize::arbitrary(g) % rank;
                b[d] = next[d];
                next[d] *= 2;
            }
            out.push(b);
        }
        out
    }

    fn blocked(g: &mut Gen, rank: usize) -> Blocked {
        Blocked {
            size_per_thread: (0..rank).map(|_| pow2(g, 2)).collect(),
            threads_per_warp: split(g, &[5, 6], rank),
            warps_per_cta: split(g, &[0, 1, 2, 3], rank),
            order: perm(g, rank),
            cga_layout: cga(g, rank),
        }
    }

    fn tiles(g: &mut Gen, rank: usize) -> Vec<u32> {
        let mut t = vec![1; rank];
        t[rank - 2] = pow2(g, 1);
        t[rank - 1] = pow2(g, 1);
        t
    }

    fn mfma(g: &mut Gen, rank: usize) -> AmdMfma {
        let (instr, ebw) = pick(
            g,
            &[
                (vec![32, 32, 8], 32),
                (vec![16, 16, 16], 32),
                (vec![16, 16, 4], 64),
                (vec![4, 64, 4], 32),
                (vec![64, 4, 4], 32),
                (vec![32, 32, 16], 32),
            ],
        );
        AmdMfma {
            version: pick(g, &[1, 2, 3, 4]),
            warps_per_cta: split(g, &[0, 1, 2, 3], rank),
            is_transposed: instr[0] == 64 || bool::arbitrary(g),
            instr_shape: instr,
            tiles_per_warp: tiles(g, rank),
            element_bit_width: ebw,
            cga_layout: cga(g, rank),
        }
    }

    fn wmma(g: &mut Gen, rank: usize) -> AmdWmma {
        let version = pick(g, &[1, 2, 3]);
        let instr = match version {
            1 => vec![16, 16, 16],
            2 => pick(g, &[vec![16, 16, 16], vec![16, 16, 32]]),
            _ => pick(g, &[vec![16, 16, 4], vec![16, 16, 32], vec![16, 16, 64]]),
        };
        AmdWmma {
            version,
            is_transposed: bool::arbitrary(g),
            warps_per_cta: split(g, &[0, 1, 2, 3], rank),
            tiles_per_warp: tiles(g, rank),
            instr_shape: instr,
            cga_layout: cga(g, rank),
        }
    }

    fn nvidia(g: &mut Gen, rank: usize, hopper: bool) -> NvidiaMma {
        if hopper {
            NvidiaMma {
                version_major: 3,
                version_minor: 0,
                warps_per_cta: pick(g, &[vec![4, 1], vec![4, 2], vec![8, 1]]),
                cga_layout: cga(g, 2),
                instr_shape: vec![16, pick(g, &[8, 16, 64, 128]), 16],
            }
        } else {
            NvidiaMma {
                version_major: 2,
                version_minor: 0,
                warps_per_cta: split(g, &[0, 1, 2, 3], rank),
                cga_layout: cga(g, rank),
                instr_shape: if rank == 3 { vec![1, 16, 8] } else { vec![16, 8] },
            }
        }
    }

    /// A random valid distributed encoding of the given rank (2 or 3 for MMA kinds).
    fn distributed(g: &mut Gen, rank: usize, depth: usize) -> Encoding {
        let choice = if rank < 2 {
            0
        } else {
            u8::arbitrary(g) % if depth > 1 { 5 } else { 7 }
        };
        match choice {
            0 => Encoding::Blocked(blocked(g, rank)),
            1 => Encoding::AmdMfma(mfma(g, rank)),
            2 => Encoding::AmdWmma(wmma(g, rank)),
            3 => {
                let hopper = rank == 2 && bool::arbitrary(g);
                Encoding::NvidiaMma(nvidia(g, rank, hopper))
            }
            4 => dot_operand(g, rank),
            _ => Encoding::Slice(Slice {
                dim: (usize::arbitrary(g) % (rank + 1)) as u32,
                parent: Arc::new(distributed(g, rank + 1, depth + 1)),
            }),
        }
    }

    fn dot_operand(g: &mut Gen, rank: usize) -> Encoding {
        let op_idx = u32::arbitrary(g) % 2;
        let (parent, k_width) = match u8::arbitrary(g) % 4 {
            0 => {
                let mut b = blocked(g, rank);
                b.cga_layout.clear();
                (Encoding::Blocked(b), 0)
            }
            1 => (Encoding::AmdMfma(mfma(g, rank)), pow2(g, 4)),
            2 => {
                let w = wmma(g, rank);
                let kw = match w.version {
                    1 => pick(g, &[8, 16]),
                    2 => pick(g, &[4, 8, 16]),
                    _ => pick(g, &[2, 8, 16]),
                };
                (Encoding::AmdWmma(w), kw)
            }
            _ => {
                let hopper = rank == 2 && op_idx == 0 && bool::arbitrary(g);
                (Encoding::NvidiaMma(nvidia(g, rank, hopper)), pow2(g, 2))
            }
        };
        Encoding::DotOperand(DotOperand {
            op_idx,
            parent: Arc::new(parent),
            k_width,
        })
    }

    fn shape(g: &mut Gen, rank: usize) -> Vec<u64> {
        let mut s: Vec<u64> = (0..rank).map(|_| 1u64 << (u32::arbitrary(g) % 9)).collect();
        while s.iter().map(|x| x.trailing_zeros()).sum::<u32>() > 14 {
            let m = s.iter().copied().max().unwrap();
            let i = s.iter().position(|&x| x == m).unwrap();
            s[i] /= 2;
        }
        s
    }

    #[derive(Clone, Debug)]
    struct Dist(Encoding, Vec<u64>);

    impl Arbitrary for Dist {
        fn arbitrary(g: &mut Gen) -> Self {
            let rank = pick(g, &[1, 2, 2, 2, 3]);
            let e = distributed(g, rank, 0);
            let mut s = shape(g, rank);
            // WMMA asserts its M and N extents are 1 or at least 16.
            if rank >= 2 && contains_wmma(&e) {
                for d in [rank - 2, rank - 1] {
                    if s[d] > 1 && s[d] < 16 {
                        s[d] = 16;
                    }
                }
            }
            Dist(e, s)
        }
    }

    fn contains_wmma(e: &Encoding) -> bool {
        match e {
            Encoding::AmdWmma(_) => true,
            Encoding::Slice(s) => contains_wmma(&s.parent),
            Encoding::DotOperand(d) => contains_wmma(&d.parent),
            _ => false,
        }
    }

    fn qc() -> QuickCheck {
        QuickCheck::new().tests(400).max_tests(4000)
    }

    /// Every distributed layout covers its whole tensor, with `register, lane, warp, block`.
    #[test]
    fn distributed_layouts_are_surjective_onto_their_shape() {
        fn prop(Dist(e, s): Dist) -> TestResult {
            let Ok(l) = e.to_linear_layout(&s) else {
                return TestResult::discard();
            };
            let dims: Vec<String> = l.in_dim_names().map(|d| d.to_string()).collect();
            let sizes: Vec<u64> = l.out_dims().map(|(_, n)| n).collect();
            TestResult::from_bool(
                l.is_surjective() && sizes == s && dims == ["register", "lane", "warp", "block"],
            )
        }
        qc().quickcheck(prop as fn(Dist) -> TestResult);
    }

    /// For every lane, warp and block, a slice holds exactly the elements its parent holds on
    /// the shape with a 1 inserted, with the sliced dim dropped.
    #[test]
    fn a_slice_is_its_parent_without_the_sliced_dim() {
        fn prop(Dist(parent, s): Dist) -> TestResult {
            if s.len() < 2 {
                return TestResult::discard();
            }
            let dim = s.len() - 1 - (s[0] as usize % s.len());
            let slice = Encoding::Slice(Slice {
                dim: dim as u32,
                parent: Arc::new(parent.clone()),
            });
            let mut small: Vec<u64> = s.clone();
            small.remove(dim);
            let mut pshape = small.clone();
            pshape.insert(dim, 1);
            let (Ok(sl), Ok(pl)) = (slice.to_linear_layout(&small), parent.to_linear_layout(&pshape)) else {
                return TestResult::discard();
            };
            if sl.total_in_bits() > 12 || pl.total_in_bits() > 12 {
                return TestResult::discard(); // keep the brute-force comparison cheap
            }
            let projected = remove_standard_dim(&pl, dim).unwrap();
            TestResult::from_bool(images(&sl) == images(&projected))
        }
        qc().quickcheck(prop as fn(Dist) -> TestResult);
    }

    /// The set of elements of each (lane, warp, block), over all registers (evaluated from the
    /// bases: XOR of the bases of the set bits).
    fn images(l: &LinearLayout) -> Vec<std::collections::BTreeSet<Vec<u64>>> {
        let rank = l.num_out_dims();
        let b = |d: &str| l.bases(d).unwrap_or_default();
        let (reg, lane, warp, block) = (b("register"), b("lane"), b("warp"), b("block"));
        let eval = |v: &mut Vec<u64>, bases: &[Vec<u64>], x: u64| {
            for (k, basis) in bases.iter().enumerate() {
                if x >> k & 1 == 1 {
                    for (o, c) in basis.iter().enumerate() {
                        v[o] ^= c;
                    }
                }
            }
        };
        let mut out = vec![];
        for ln in 0..1u64 << lane.len() {
            for w in 0..1u64 << warp.len() {
                for bl in 0..1u64 << block.len() {
                    let mut set = std::collections::BTreeSet::new();
                    for r in 0..1u64 << reg.len() {
                        let mut v = vec![0u64; rank];
                        eval(&mut v, &reg, r);
                        eval(&mut v, &lane, ln);
                        eval(&mut v, &warp, w);
                        eval(&mut v, &block, bl);
                        set.insert(v);
                    }
                    out.push(set);
                }
            }
        }
        out
    }

    /// A dot operand holds `kWidth` consecutive K elements per thread (fewer when K is
    /// smaller): the run of consecutive registers along K (`num_consecutive_in_out` with K as
    /// the first out-dim) is exactly `kWidth` whenever the next K element sits in another lane,
    /// and a multiple of it otherwise. WMMA v1 is excluded — its two half-warps duplicate each
    /// other along K, so registers always continue the run.
    #[test]
    fn a_dot_operand_register_run_along_k_is_k_width() {
        fn prop(Dist(e, s): Dist) -> TestResult {
            let Encoding::DotOperand(d) = &e else {
                return TestResult::discard();
            };
            let v1 = matches!(d.parent.as_ref(), Encoding::AmdWmma(w) if w.version == 1);
            if d.k_width == 0 || v1 || s.len() < 2 {
                return TestResult::discard();
            }
            let Ok(l) = e.to_linear_layout(&s) else {
                return TestResult::discard();
            };
            if l.bases("block")
                .unwrap()
                .iter()
                .any(|b| b.iter().any(|&x| x != 0))
            {
                return TestResult::discard(); // several CTAs split K: fewer elements per thread
            }
            let r = s.len();
            let k = if d.op_idx == 0 { r - 1 } else { r - 2 };
            let mut order = vec![format!("dim{k}")];
            order.extend((0..r).filter(|&x| x != k).map(|x| format!("dim{x}")));
            let lk = l.transpose_outs(&order).unwrap();
            let want = (d.k_width as u64).min(s[k]);
            // When the next K element belongs to another lane the run stops exactly at kWidth;
            // otherwise (4x64 MFMA operands, a single lane along K) registers continue it.
            let mut next = vec![0u64; r];
            next[k] = d.k_width as u64;
            let next_in_lane = l.bases("lane").unwrap().contains(&next);
            let run = lk.num_consecutive_in_out();
            if (next_in_lane && run != want) || run < want || run % want != 0 {
                return TestResult::error(format!(
                    "{e} on {s:?}: run {} != {want}",
                    lk.num_consecutive_in_out()
                ));
            }
            TestResult::passed()
        }
        QuickCheck::new()
            .tests(300)
            .max_tests(20000)
            .quickcheck(prop as fn(Dist) -> TestResult);
    }

    #[derive(Clone, Debug)]
    struct Shared(Encoding, Vec<u64>);

    impl Arbitrary for Shared {
        fn arbitrary(g: &mut Gen) -> Self {
            let rank = pick(g, &[1, 2, 2, 3]);
            let s = shape(g, rank);
            let e = match u8::arbitrary(g) % 5 {
                0 | 1 => {
                    let sw = Swizzled {
                        vec: pow2(g, 3),
                        per_phase: pow2(g, 2),
                        max_phase: pow2(g, 3),
                        order: perm(g, rank),
                        cga_layout: vec![],
                    };
                    if bool::arbitrary(g) {
                        Encoding::SwizzledShared(sw)
                    } else {
                        Encoding::AmdRotatingShared(sw)
                    }
                }
                2 => Encoding::NvmmaShared(NvmmaShared {
                    swizzling_byte_width: pick(g, &[0, 32, 64, 128]),
                    transposed: bool::arbitrary(g),
                    element_bit_width: pick(g, &[8, 16, 32]),
                    fp4_padded: false,
                    cga_layout: vec![],
                    rank: Some(rank as u32),
                }),
                3 => {
                    let offset = shuffled_identity(g, &s);
                    Encoding::PaddedShared(PaddedShared {
                        intervals: vec![pow2(g, 8).max(2)],
                        paddings: vec![pow2(g, 3)],
                        linear: PaddedLinear::Bases {
                            offset,
                            block: vec![],
                        },
                    })
                }
                _ => Encoding::SharedLinear(SharedLinear {
                    offset: shuffled_identity(g, &s),
                    block: vec![],
                    alignment: pow2(g, 7),
                }),
            };
            Shared(e, s)
        }
    }

    /// The identity bases of `shape`, in a random order.
    fn shuffled_identity(g: &mut Gen, shape: &[u64]) -> Vec<Vec<u32>> {
        let r = shape.len();
        let mut b = vec![];
        for (d, &n) in shape.iter().enumerate() {
            let mut v = 1;
            while v < n {
                let mut x = vec![0u32; r];
                x[d] = v as u32;
                b.push(x);
                v *= 2;
            }
        }
        if b.is_empty() {
            let mut x = vec![0u32; r];
            x[0] = 1;
            b.push(x);
        }
        for i in (1..b.len()).rev() {
            let j = usize::arbitrary(g) % (i + 1);
            b.swap(i, j);
        }
        b
    }

    /// A single-CTA shared layout is a bijection between offsets and the elements of its shape.
    #[test]
    fn shared_layouts_are_invertible_on_their_shape() {
        fn prop(Shared(e, s): Shared) -> TestResult {
            let Ok(l) = e.to_linear_layout(&s) else {
                return TestResult::discard();
            };
            let sizes: Vec<u64> = l.out_dims().map(|(_, n)| n).collect();
            let dims: Vec<String> = l.in_dim_names().map(|d| d.to_string()).collect();
            TestResult::from_bool(
                l.is_invertible()
                    && dims == ["offset", "block"]
                    && (sizes == s || e.kind() == "padded_shared"),
            )
        }
        qc().quickcheck(prop as fn(Shared) -> TestResult);
    }

    #[derive(Clone, Debug)]
    struct Any(Encoding);

    impl Arbitrary for Any {
        fn arbitrary(g: &mut Gen) -> Self {
            if bool::arbitrary(g) {
                let rank = pick(g, &[1, 2, 3]);
                Any(distributed(g, rank, 0))
            } else if u8::arbitrary(g) % 4 == 0 {
                let Dist(e, s) = Dist::arbitrary(g);
                // A linear encoding with the bases of a computed layout.
                match e.to_linear_layout(&s) {
                    Ok(l) => {
                        let b = |d: &str| -> Vec<Vec<u32>> {
                            l.bases(d)
                                .unwrap()
                                .into_iter()
                                .map(|v| v.into_iter().map(|x| x as u32).collect())
                                .collect()
                        };
                        Any(Encoding::Linear(Linear {
                            register: b("register"),
                            lane: b("lane"),
                            warp: b("warp"),
                            block: b("block"),
                            shape: Some(s.clone()),
                        }))
                    }
                    Err(_) => Any(e),
                }
            } else {
                let Shared(mut e, s) = Shared::arbitrary(g);
                match &mut e {
                    Encoding::SwizzledShared(x) | Encoding::AmdRotatingShared(x) => {
                        x.cga_layout = cga(g, s.len())
                    }
                    Encoding::NvmmaShared(n) => {
                        n.cga_layout = cga(g, s.len());
                        n.fp4_padded = bool::arbitrary(g);
                        if !n.cga_layout.is_empty() {
                            n.rank = Some(s.len() as u32);
                        }
                    }
                    _ => {}
                }
                Any(e)
            }
        }
    }

    fn mangle(v: &mut Value, nums: &[u64], i: &mut usize) {
        match v {
            Value::Number(_) if !nums.is_empty() => {
                let x = nums[*i % nums.len()];
                *i += 1;
                // Mostly small values, some powers of two up to 2^40, some arbitrary.
                *v = serde_json::json!(match x % 4 {
                    0 => x % 9,
                    1 => 1u64 << (x % 41),
                    2 => x % 300,
                    _ => x,
                });
            }
            Value::Array(a) => a.iter_mut().for_each(|x| mangle(x, nums, i)),
            Value::Object(m) => m.iter_mut().for_each(|(_, x)| mangle(x, nums, i)),
            _ => {}
        }
    }

    /// Nothing panics: mangled JSON parameters, mangled or truncated text, odd shapes.
    #[test]
    fn never_panics_on_mangled_input() {
        fn prop(Any(e): Any, nums: Vec<u64>, cut: usize, byte: u8, dims: Vec<u8>) -> bool {
            let shape: Vec<u64> = dims
                .iter()
                .take(4)
                .map(|&d| if d % 7 == 0 { d as u64 } else { 1 << (d % 12) })
                .collect();
            let mut v = e.to_json();
            mangle(&mut v, &nums, &mut 0);
            if let Ok(m) = Encoding::from_json(&v) {
                let _ = m.to_linear_layout(&shape);
                let _ = m.to_string().parse::<Encoding>();
            }
            let text = e.to_string();
            let k = cut % (text.len() + 1);
            let _ = text[..k].parse::<Encoding>();
            let mut bytes = text.into_bytes();
            if !bytes.is_empty() {
                let n = bytes.len();
                bytes[cut % n] = byte % 128;
            }
            if let Ok(m) = String::from_utf8(bytes).unwrap().parse::<Encoding>() {
                let _ = m.to_linear_layout(&shape);
            }
            true
        }
        QuickCheck::new()
            .tests(2000)
            .quickcheck(prop as fn(Any, Vec<u64>, usize, u8, Vec<u8>) -> bool);
    }

    /// Printing in Triton's syntax and parsing back gives the same value; so does JSON.
    #[test]
    fn parse_print_round_trip() {
        fn prop(Any(e): Any) -> bool {
            let text = e.to_string();
            let parsed: Encoding = text.parse().unwrap_or_else(|err| panic!("{text}: {err}"));
            let json = Encoding::from_json(&e.to_json()).expect("json");
            parsed == e && json == e && parsed.to_string() == text
        }
        QuickCheck::new().tests(1000).quickcheck(prop as fn(Any) -> bool);
    }
}

/// Alias definitions and tensor types as they appear in a TTGIR module.
#[test]
fn ttgir_aliases_and_tensor_types() {
    let module = "\
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>
#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {\"ttg.num-warps\" = 4 : i32, \"ttg.threads-per-warp\" = 64 : i32} {
  tt.func public @k(%a: tensor<128x64xf16, #blocked>) {
    %0 = ttg.convert_layout %a : tensor<128x64xf16, #blocked> -> tensor<128x64xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 8}>>
    tt.return
  }
}
";
    let aliases = parse_aliases(module).expect("aliases");
    assert_eq!(
        aliases.len(),
        3,
        "#smem is not an encoding of this crate and is skipped"
    );
    let t = TensorType::parse_with_aliases("tensor<128x64xf16, #blocked>", &aliases).unwrap();
    assert_eq!(t.to_linear_layout().unwrap().out_dim_size("dim0").unwrap(), 128);
    let d = TensorType::parse_with_aliases(
        "tensor<128x64xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 8}>>",
        &aliases,
    )
    .unwrap();
    assert_eq!(
        d.to_string(),
        "tensor<128x64xf16, #ttg.dot_op<{opIdx = 0, parent = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>, kWidth = 8}>>"
    );
    let l = d.to_linear_layout().unwrap();
    assert_eq!(l.bases("register").unwrap()[..3], [[0, 1], [0, 2], [0, 4]]);
    let m =
        TensorType::parse_with_aliases("!ttg.memdesc<64x64xf16, #shared, #smem, mutable>", &aliases).unwrap();
    assert_eq!(
        m.memdesc.as_deref(),
        Some(&["#smem".to_string(), "mutable".to_string()][..])
    );
    assert_eq!(
        m.to_string(),
        "!ttg.memdesc<64x64xf16, #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>, #smem, mutable>"
    );
    assert!(m.to_linear_layout().unwrap().is_invertible());
    // Alias definitions print as in the file.
    let def: AliasDef = module.lines().next().unwrap().parse().unwrap();
    assert_eq!(def.to_string(), module.lines().next().unwrap());
    // Errors carry line and column.
    let err = parse_aliases("#a = #ttg.blocked<{sizePerThread = [1]}>\n#b = #ttg.bogus<{}>").unwrap_err();
    assert!(matches!(err, EncodingError::Parse { line: 1, .. }), "{err}");
    let err =
        parse_aliases("#a = #ttg.shared_memory\n#b = #ttg.blocked<{sizePerThread = [1], foo}>").unwrap_err();
    assert!(
        matches!(
            err,
            EncodingError::Parse {
                line: 2,
                column: 44,
                ..
            }
        ),
        "{err}"
    );
    assert!("#ttg.bogus<{}>".parse::<Encoding>().is_err());
}
