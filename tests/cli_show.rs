//! `linear-layout show`: the views against Triton 3.6.0's own text
//! (`tests/fixtures/views/cases.jsonl`, see its README), every flag of the command, bad
//! input, and the pictures — parsed and rendered by a real browser (headless Chromium) when
//! one is installed.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use linear_layout::encodings::Encoding;
use linear_layout::linear::LinearLayout;
use linear_layout::view;
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_linear-layout");

const BLOCKED: &str =
    "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>";
const MFMA: &str =
    "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>";
const SWIZZLED: &str = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>";

fn cases() -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/views/cases.jsonl");
    std::fs::read_to_string(path)
        .expect("fixture file")
        .lines()
        .map(|l| serde_json::from_str(l).expect("fixture JSON"))
        .collect()
}

fn fixture_layout(c: &Value) -> LinearLayout {
    serde_json::from_value(json!({"in_dims": c["in_dims"], "out_dims": c["out_dims"]}))
        .expect("fixture layout")
}

fn shape_arg(c: &Value) -> String {
    c["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join("x")
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("run linear-layout")
}

fn run_stdin(args: &[&str], input: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).expect("UTF-8 output")
}

/// A bad input: non-zero exit, nothing on stdout, one error line on stderr, no panic.
fn fails(args: &[&str]) -> String {
    let out = run(args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!out.status.success(), "{args:?} succeeded");
    assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
    assert!(
        out.stdout.is_empty(),
        "{args:?} printed {:?}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: not one line: {err:?}");
    assert!(err.starts_with("linear-layout: "), "{err}");
    err
}

fn tmp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ll-show-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

// ------------------------------------------------------------------ Triton's views

#[test]
fn fixtures_cover_the_required_layouts() {
    let cs = cases();
    assert!(cs.len() >= 40, "{} cases", cs.len());
    let names: Vec<&str> = cs.iter().map(|c| c["name"].as_str().unwrap()).collect();
    for want in [
        "blocked",
        "mfma32",
        "mfma16",
        "transposed",
        "wmma",
        "dot-a",
        "dot-b",
        "slice",
        "broadcast",
        "8-warps",
        "swizzled",
        "rotating",
        "nvmma",
        "ctas",
    ] {
        assert!(names.iter().any(|n| n.contains(want)), "no {want} case");
    }
    assert!(cs.iter().filter(|c| c["shared"] == true).count() >= 10);
}

#[test]
fn library_views_match_triton() {
    for c in cases() {
        let name = c["name"].as_str().unwrap();
        let l = fixture_layout(&c);
        if let Some(text) = c["layout"].as_str() {
            let e: Encoding = text.parse().unwrap_or_else(|e| panic!("{name}: {e}"));
            let shape: Vec<u64> = serde_json::from_value(c["shape"].clone()).unwrap();
            assert_eq!(
                e.to_linear_layout(&shape).unwrap(),
                l,
                "{name}: encoding differs from Triton"
            );
        }
        assert_eq!(view::is_shared(&l), c["shared"] == true, "{name}");
        // The pasteable attribute is the one Triton reads back as the same layout.
        let pasteable = view::pasteable_bases(&l);
        let attr = pasteable.lines().next().unwrap();
        match c["linear_attr"].as_str() {
            Some(want) => {
                assert_eq!(attr, want, "{name}");
                let shape: Vec<u64> = l.out_dims().map(|(_, s)| s).collect();
                let back: Encoding = attr.parse().unwrap_or_else(|e| panic!("{name}: {attr}: {e}"));
                assert_eq!(back.to_linear_layout(&shape).unwrap(), l, "{name}");
            }
            None => assert!(!l.is_surjective(), "{name}"),
        }
        assert_eq!(
            view::tensor_view(&l).unwrap(),
            c["tensor_view"].as_str().unwrap(),
            "{name}: tensor view"
        );
        assert_eq!(
            view::hardware_view(&l).unwrap(),
            c["hw_view"].as_str().unwrap(),
            "{name}: hardware view"
        );
    }
}

#[test]
fn cli_views_match_triton() {
    for c in cases() {
        let name = c["name"].as_str().unwrap();
        let shape = shape_arg(&c);
        let json_layout = json!({"in_dims": c["in_dims"], "out_dims": c["out_dims"]}).to_string();
        let args: Vec<&str> = match c["layout"].as_str() {
            Some(text) => vec!["show", text, "--shape", &shape],
            None => vec!["show", &json_layout],
        };
        let out = run(&args);
        assert_eq!(
            ok(&out),
            c["tensor_view"].as_str().unwrap(),
            "{name}: tensor view"
        );
        assert!(out.stderr.is_empty(), "{name}");
        let mut hw = args.clone();
        hw.push("--hw");
        assert_eq!(
            ok(&run(&hw)),
            c["hw_view"].as_str().unwrap(),
            "{name}: hardware view"
        );
    }
}

// ------------------------------------------------------------------ inputs

#[test]
fn json_encoding_json_layout_and_tensor_type_inputs() {
    let text_view = ok(&run(&["show", BLOCKED, "--shape", "16x16"]));
    let e: Encoding = BLOCKED.parse().unwrap();
    let json_enc = e.to_json().to_string();
    assert_eq!(ok(&run(&["show", &json_enc, "--shape", "16,16"])), text_view);
    let l = e.to_linear_layout(&[16, 16]).unwrap();
    let json_layout = serde_json::to_string(&l).unwrap();
    assert_eq!(ok(&run(&["show", &json_layout])), text_view);
    assert_eq!(ok(&run(&["show", &json_layout, "--shape", "16x16"])), text_view);
    let ty = format!("tensor<16x16xf16, {BLOCKED}>");
    assert_eq!(ok(&run(&["show", &ty])), text_view);
}

#[test]
fn alias_files() {
    let d = tmp_dir("aliases");
    let defs = d.join("defs.mlir");
    std::fs::write(
        &defs,
        format!(
            "#blocked = {BLOCKED}\n#mma = {MFMA}\n#dot = #ttg.dot_op<{{opIdx = 0, parent = #mma, kWidth = 8}}>\n\
             #smem = #ttg.shared_memory\nmodule {{\n}}\n"
        ),
    )
    .unwrap();
    let one = d.join("one.mlir");
    std::fs::write(&one, format!("#mma = {MFMA}\n")).unwrap();
    let attr = d.join("attr.txt");
    std::fs::write(&attr, format!("{SWIZZLED}\n")).unwrap();
    let (defs, one, attr) = (
        defs.display().to_string(),
        one.display().to_string(),
        attr.display().to_string(),
    );

    let direct = ok(&run(&["show", MFMA, "--shape", "64x64"]));
    assert_eq!(
        ok(&run(&["show", &format!("@{defs}:#mma"), "--shape", "64x64"])),
        direct
    );
    assert_eq!(
        ok(&run(&["show", &format!("@{defs}:mma"), "--shape", "64x64"])),
        direct
    );
    assert_eq!(
        ok(&run(&["show", &format!("@{one}"), "--shape", "64x64"])),
        direct
    );
    assert_eq!(
        ok(&run(&["show", &format!("@{defs}:tensor<64x64xf32, #mma>")])),
        direct
    );
    let dot = format!("#ttg.dot_op<{{opIdx = 0, parent = {MFMA}, kWidth = 8}}>");
    assert_eq!(
        ok(&run(&[
            "show",
            &format!("@{defs}:#dot"),
            "--shape",
            "64x32",
            "--hw"
        ])),
        ok(&run(&["show", &dot, "--shape", "64x32", "--hw"]))
    );
    assert_eq!(
        ok(&run(&["show", &format!("@{attr}"), "--shape", "32x64"])),
        ok(&run(&["show", SWIZZLED, "--shape", "32x64"]))
    );
    // Standard input.
    assert_eq!(ok(&run_stdin(&["show", "@-", "--shape", "64x64"], MFMA)), direct);
    assert_eq!(
        ok(&run_stdin(
            &["show", "@-:#mma", "--shape", "64x64"],
            &format!("#mma = {MFMA}\n")
        )),
        direct
    );

    let err = fails(&["show", &format!("@{defs}"), "--shape", "64x64"]);
    assert!(err.contains("#blocked, #dot, #mma"), "{err}");
    let err = fails(&["show", &format!("@{defs}:#nope"), "--shape", "64x64"]);
    assert!(err.contains("no encoding alias #nope"), "{err}");
    fails(&["show", &format!("@{defs}:#smem"), "--shape", "64x64"]);
    fails(&[
        "show",
        &format!("@{}", d.join("missing.mlir").display()),
        "--shape",
        "64x64",
    ]);
    std::fs::remove_dir_all(&d).ok();
}

// ------------------------------------------------------------------ flags

#[test]
fn bases_flag_prints_triton_and_pasteable_bases() {
    for (text, shape, dims) in [
        (MFMA, "64x64", vec![64u64, 64]),
        (SWIZZLED, "32x64", vec![32, 64]),
        (
            "#ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>}>",
            "64",
            vec![64],
        ),
    ] {
        let e: Encoding = text.parse().unwrap();
        let l = e.to_linear_layout(&dims).unwrap();
        let out = ok(&run(&["show", text, "--shape", shape, "--bases"]));
        assert!(out.starts_with(&format!("Triton's LinearLayout:{l}\n")), "{out}");
        let attr = out
            .lines()
            .find(|line| line.starts_with("#ttg."))
            .expect("attribute line");
        // The attribute reads back as the same layout.
        let back: Encoding = attr.parse().unwrap_or_else(|e| panic!("{attr}: {e}"));
        assert_eq!(back.to_linear_layout(&dims).unwrap(), l, "{attr}");
        let gluon = out
            .lines()
            .find(|line| line.starts_with("ttgl."))
            .expect("Gluon line");
        if view::is_shared(&l) {
            assert!(
                gluon.starts_with("ttgl.SharedLinearLayout(offset_bases=[["),
                "{gluon}"
            );
        } else {
            assert!(
                gluon.starts_with("ttgl.DistributedLinearLayout(reg_bases=["),
                "{gluon}"
            );
            assert!(gluon.ends_with(&format!("shape={dims:?})")), "{gluon}");
        }
    }
    // --bases with --hw: the bases, then the hardware view.
    let both = ok(&run(&["show", MFMA, "--shape", "64x64", "--bases", "--hw"]));
    let hw = ok(&run(&["show", MFMA, "--shape", "64x64", "--hw"]));
    assert!(both.ends_with(&format!("\n\n{hw}")));
}

#[test]
fn partial_layouts() {
    // In-dims may be missing (size 1) or in any order; unowned elements print empty.
    let l = r#"{"in_dims": {"lane": [[0, 2], [2, 0]], "register": [[0, 1]]}, "out_dims": {"dim0": 4, "dim1": 4}}"#;
    assert_eq!(
        ok(&run(&["show", l])),
        "[[T0:0, T0:1, T1:0, T1:1]\n[ , , , ]\n[ T2:0, T2:1, T3:0, T3:1]\n[ , , , ]]\n"
    );
    let bases = ok(&run(&["show", l, "--bases"]));
    assert!(
        bases.contains("#ttg.linear<{register = [[0, 1]], lane = [[0, 2], [2, 0]], warp = [], block = []}>")
    );
    assert!(
        bases.contains("note: some elements are held by no thread"),
        "{bases}"
    );
    assert!(!ok(&run(&["show", MFMA, "--shape", "64x64", "--bases"])).contains("note:"));
    // A JSON layout in a file.
    let d = tmp_dir("json-file");
    let f = d.join("layout.json");
    std::fs::write(&f, l).unwrap();
    assert_eq!(
        ok(&run(&["show", &format!("@{}", f.display())])),
        ok(&run(&["show", l]))
    );
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn help_has_examples() {
    let out = ok(&run(&["show", "--help"]));
    assert!(out.contains("Examples:") && out.contains("linear-layout show '#ttg.amd_mfma"));
    assert!(out.contains("@FILE[:NAME]"));
}

#[test]
fn bad_input_is_one_error_line() {
    let big = "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>";
    for args in [
        vec![
            "show",
            "#ttg.blocked<{sizePerThread = [1, 4]}>",
            "--shape",
            "16x16",
        ],
        vec!["show", BLOCKED],
        vec!["show", BLOCKED, "--shape", "16"],
        vec!["show", BLOCKED, "--shape", "16xx16"],
        vec!["show", BLOCKED, "--shape", "0x16"],
        vec!["show", BLOCKED, "--shape", "12x16"],
        vec!["show", "#ttg.nonsense<{}>", "--shape", "16x16"],
        vec!["show", "", "--shape", "16x16"],
        vec!["show", "{not json", "--shape", "16x16"],
        vec!["show", "{\"kind\": \"blocked\"}", "--shape", "16x16"],
        vec!["show", "{\"foo\": 1}"],
        vec![
            "show",
            "{\"in_dims\": {\"lane\": [[4]]}, \"out_dims\": {\"dim0\": 4}}",
        ],
        vec![
            "show",
            "{\"in_dims\": {\"lane\": [[1]]}, \"out_dims\": {\"dim0\": 2}}",
            "--shape",
            "4",
        ],
        vec![
            "show",
            "{\"in_dims\": {\"thread\": [[1]]}, \"out_dims\": {\"dim0\": 2}}",
        ],
        vec!["show", "{\"in_dims\": {\"lane\": []}, \"out_dims\": {}}"],
        vec!["show", "tensor<16x16xf16>"],
        vec![
            "show",
            &format!("tensor<16x16xf16, {BLOCKED}>"),
            "--shape",
            "32x32",
        ],
        vec!["show", big, "--shape", "8388608"],
        vec!["show", big, "--shape", "131072", "--svg", "/dev/null"],
        vec![
            "show",
            SWIZZLED,
            "--shape",
            "32x64",
            "--svg",
            "/dev/null",
            "--bits",
            "12",
        ],
        vec![
            "show",
            SWIZZLED,
            "--shape",
            "32x64",
            "--svg",
            "/nonexistent-dir/x.svg",
        ],
        vec!["show", "@/nonexistent-file.mlir:#mma", "--shape", "32x64"],
    ] {
        fails(&args);
    }
    // clap rejects --banks 48 (its own usage message, exit code 2, no panic).
    let out = run(&["show", SWIZZLED, "--shape", "32x64", "--banks", "48"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
}

#[test]
fn output_pipes_cleanly() {
    use std::io::Read;
    let mut child = Command::new(BIN)
        .args(["show", MFMA, "--shape", "256x256"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 64];
    child.stdout.as_mut().unwrap().read_exact(&mut first).unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty());
}

// ------------------------------------------------------------------ pictures

fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let i = tag.find(&key)? + key.len();
    Some(&tag[i..i + tag[i..].find('"')?])
}

/// The picture `show LAYOUT --shape SHAPE FLAG FILE` writes (`FLAG`: `--svg` or `--html`).
fn picture(layout: &str, shape: &str, flag: &str, file: &Path) -> String {
    ok(&run(&[
        "show",
        layout,
        "--shape",
        shape,
        flag,
        file.to_str().unwrap(),
    ]));
    std::fs::read_to_string(file).unwrap()
}

/// The `<g class="CLASS" …>` elements of a picture, as (opening tag, its first text).
fn elements(doc: &str, class: &str) -> Vec<(String, String)> {
    doc.split(&format!("<g class=\"{class}\""))
        .skip(1)
        .map(|c| {
            let tag = c[..c.find('>').unwrap()].to_string();
            let t = c.find("<text").unwrap();
            let text = &c[t..];
            let text = &text[text.find('>').unwrap() + 1..text.find("</text>").unwrap()];
            (tag, text.to_string())
        })
        .collect()
}

/// The cells of a picture drawn a cell at a time, as (opening tag, first label).
fn cells(doc: &str) -> Vec<(String, String)> {
    elements(doc, "cell")
}

/// The rows of a large picture, as (opening tag, the first line of labels, one per cell).
fn rows(doc: &str) -> Vec<(String, Vec<String>)> {
    elements(doc, "row")
        .into_iter()
        .map(|(tag, text)| (tag, text.split_whitespace().map(str::to_string).collect()))
        .collect()
}

fn self_contained(doc: &str) {
    assert!(!doc.contains("<script"), "scripts");
    assert!(!doc.contains("https://"), "network reference");
    assert_eq!(
        doc.matches("http://").count(),
        doc.matches("xmlns=\"http://www.w3.org/2000/svg\"").count()
    );
    assert!(!doc.contains("href"), "external reference");
}

#[test]
fn svg_and_html_pictures() {
    let d = tmp_dir("pictures");
    let (svg, html) = (d.join("mfma.svg"), d.join("mfma.html"));
    let out = run(&[
        "show",
        MFMA,
        "--shape",
        "64x64",
        "--svg",
        svg.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ]);
    assert!(ok(&out).is_empty(), "a picture alone prints nothing on stdout");
    let svg_doc = std::fs::read_to_string(&svg).unwrap();
    let html_doc = std::fs::read_to_string(&html).unwrap();
    assert!(svg_doc.starts_with("<?xml") && svg_doc.trim_end().ends_with("</svg>"));
    assert!(html_doc.starts_with("<!DOCTYPE html>") && html_doc.trim_end().ends_with("</html>"));
    self_contained(&svg_doc);
    self_contained(&html_doc);
    let l = MFMA
        .parse::<Encoding>()
        .unwrap()
        .to_linear_layout(&[64, 64])
        .unwrap();
    let inv = l.invert().unwrap();
    // 4,096 cells: drawn a row at a time, in a tenth of the bytes of a cell at a time.
    assert!(svg_doc.len() < 105_000, "{} bytes", svg_doc.len());
    for doc in [&svg_doc, &html_doc] {
        assert!(cells(doc).is_empty());
        let rs = rows(doc);
        assert_eq!(rs.len(), 64);
        for (r, (tag, labels)) in rs.iter().enumerate() {
            assert_eq!(attr(tag, "data-row").unwrap(), r.to_string());
            let list = |name: &str| -> Vec<String> {
                attr(tag, name).unwrap().split(' ').map(str::to_string).collect()
            };
            let (warps, lanes, regs) = (list("data-warp"), list("data-lane"), list("data-reg"));
            assert_eq!(labels.len(), 64);
            assert!(attr(tag, "data-block").is_none() && attr(tag, "data-owners").is_none());
            for c in 0..64 {
                let hw = inv.apply(&[("dim0", r as u64), ("dim1", c as u64)]).unwrap(); // register, lane, warp, block
                assert_eq!(labels[c], format!("{}:{}", hw[1], hw[0]));
                assert_eq!(
                    (&warps[c], &lanes[c], &regs[c]),
                    (&hw[2].to_string(), &hw[1].to_string(), &hw[0].to_string())
                );
            }
        }
    }
    // '-' writes the picture to standard output.
    assert_eq!(
        ok(&run(&["show", MFMA, "--shape", "64x64", "--svg", "-"])),
        svg_doc
    );
    // Shared: offset and bank per element; --bits and --banks.
    let l = SWIZZLED
        .parse::<Encoding>()
        .unwrap()
        .to_linear_layout(&[16, 64])
        .unwrap();
    let inv = l.invert().unwrap();
    for (bits, banks) in [(16u64, 32u64), (32, 64), (8, 32), (64, 64)] {
        let p = d.join(format!("sw-{bits}-{banks}.svg"));
        ok(&run(&[
            "show",
            SWIZZLED,
            "--shape",
            "16x64",
            "--svg",
            p.to_str().unwrap(),
            "--bits",
            &bits.to_string(),
            "--banks",
            &banks.to_string(),
        ]));
        let doc = std::fs::read_to_string(&p).unwrap();
        let cs = cells(&doc);
        assert_eq!(cs.len(), 16 * 64);
        for (i, (tag, label)) in cs.iter().enumerate() {
            let off = inv
                .apply(&[("dim0", i as u64 / 64), ("dim1", i as u64 % 64)])
                .unwrap()[0];
            assert_eq!(label, &off.to_string());
            assert_eq!(attr(tag, "data-offset").unwrap(), off.to_string());
            assert_eq!(
                attr(tag, "data-bank").unwrap(),
                (off * bits / 32 % banks).to_string()
            );
        }
    }
    // A large shared picture, a row at a time: offsets (the first line of labels) and banks.
    let big = SWIZZLED
        .parse::<Encoding>()
        .unwrap()
        .to_linear_layout(&[64, 64])
        .unwrap()
        .invert()
        .unwrap();
    let doc = picture(SWIZZLED, "64x64", "--svg", &d.join("sw-big.svg"));
    let rs = rows(&doc);
    assert_eq!(rs.len(), 64);
    for (r, (tag, labels)) in rs.iter().enumerate() {
        let offsets: Vec<u64> = (0..64)
            .map(|c| big.apply(&[("dim0", r as u64), ("dim1", c)]).unwrap()[0])
            .collect();
        let text = |v: &[u64]| v.iter().map(u64::to_string).collect::<Vec<_>>();
        assert_eq!(labels, &text(&offsets));
        assert_eq!(attr(tag, "data-offset").unwrap(), text(&offsets).join(" "));
        let banks: Vec<u64> = offsets.iter().map(|o| o * 16 / 32 % 32).collect();
        assert_eq!(attr(tag, "data-bank").unwrap(), text(&banks).join(" "));
    }
    // padded_shared: banks of the physical (padded) offsets.
    let p = d.join("padded.svg");
    ok(&run(&[
        "show",
        "#ttg.padded_shared<[32:+4] {order = [1, 0], shape = [8, 32]}>",
        "--shape",
        "8x32",
        "--svg",
        p.to_str().unwrap(),
        "--bits",
        "32",
    ]));
    let doc = std::fs::read_to_string(&p).unwrap();
    let cs = cells(&doc);
    assert_eq!(attr(&cs[33].0, "data-offset"), Some("37"));
    assert_eq!(attr(&cs[33].0, "data-bank"), Some("5"));
    std::fs::remove_dir_all(&d).ok();
}

// ------------------------------------------------------------------ in a real browser

/// A Chromium binary: `$CHROMIUM`, else `chromium`, `chromium-browser`, `google-chrome` on
/// the PATH.
fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

fn headless(chrome: &Path, profile: &Path, args: &[&str]) -> Output {
    let mut cmd = Command::new(chrome);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
        "--force-color-profile=srgb",
    ])
    .arg(format!("--user-data-dir={}", profile.display()))
    .args(args)
    .stdin(Stdio::null());
    let out = cmd.output().expect("run chromium");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
fn pictures_render_in_chromium() {
    let Some(chrome) = chromium() else {
        eprintln!(
            "skipping pictures_render_in_chromium: no chromium binary (set CHROMIUM or install Debian's `chromium`)"
        );
        return;
    };
    let d = tmp_dir("chromium");
    let profile = d.join("profile");
    let (svg, html) = (d.join("blocked.svg"), d.join("blocked.html"));
    let shape = "16x32";
    ok(&run(&[
        "show",
        BLOCKED,
        "--shape",
        shape,
        "--svg",
        svg.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ]));
    let l = BLOCKED
        .parse::<Encoding>()
        .unwrap()
        .to_linear_layout(&[16, 32])
        .unwrap();
    let inv = l.invert().unwrap();

    // The DOM the browser built: one cell element per tensor element, with the right label.
    for file in [&svg, &html] {
        let url = format!("file://{}", file.display());
        let dom = String::from_utf8(headless(&chrome, &profile, &["--dump-dom", &url]).stdout).unwrap();
        let cs = cells(&dom);
        assert_eq!(cs.len(), 16 * 32, "{}", file.display());
        for (i, (tag, label)) in cs.iter().enumerate() {
            let hw = inv
                .apply(&[("dim0", i as u64 / 32), ("dim1", i as u64 % 32)])
                .unwrap();
            assert_eq!(label, &format!("{}:{}", hw[1], hw[0]), "{}", file.display());
            assert_eq!(attr(tag, "data-lane").unwrap(), hw[1].to_string());
        }
    }

    // A screenshot of the SVG: each cell's pixels have its fill colour.
    let doc = std::fs::read_to_string(&svg).unwrap();
    let img = screenshot(&chrome, &profile, &svg, &doc, 0);
    let colours = check_cell_pixels(&img, &doc, 0);
    assert!(colours.len() >= 4 * 8, "warps x lanes shades: {}", colours.len());
    // The page background is white and the title is drawn (dark pixels in its line).
    assert_eq!(img.rgb(2, 2), Some([255, 255, 255]));
    assert!((0..img.w.min(400)).any(|x| img.rgb(x, 16).is_some_and(|p| p.iter().all(|&c| c < 100))));

    // A screenshot of a shared layout's HTML page (the SVG 12 px in): bank colours.
    let page = d.join("swizzled.html");
    let doc = picture(SWIZZLED, "8x16", "--html", &page);
    let img = screenshot(&chrome, &profile, &page, &doc, 24);
    let colours = check_cell_pixels(&img, &doc, 12);
    assert_eq!(colours.len(), 32, "16-bit elements of 8x16 cover all 32 banks");
    std::fs::remove_dir_all(&d).ok();
}

/// A screenshot of `file` (whose picture is `doc`) in a window `margin` px larger than it.
fn screenshot(chrome: &Path, profile: &Path, file: &Path, doc: &str, margin: usize) -> png::Image {
    let svg_tag = &doc[doc.find("<svg").unwrap()..];
    let w: usize = attr(svg_tag, "width").unwrap().parse().unwrap();
    let h: usize = attr(svg_tag, "height").unwrap().parse().unwrap();
    let out = file.with_extension("png");
    headless(
        chrome,
        profile,
        &[
            &format!("--window-size={},{}", w + margin, h + margin),
            &format!("--screenshot={}", out.display()),
            &format!("file://{}", file.display()),
        ],
    );
    let img = png::decode(&std::fs::read(&out).unwrap()).expect("PNG");
    assert_eq!((img.w, img.h), (w + margin, h + margin));
    img
}

/// Every cell of `doc` shows its fill colour near its four corners (the picture drawn
/// `offset` px right and down); returns the set of fills.
fn check_cell_pixels(img: &png::Image, doc: &str, offset: usize) -> std::collections::HashSet<String> {
    let mut colours = std::collections::HashSet::new();
    let mut checked = 0;
    let cells = doc.split("<g class=\"cell\"").skip(1).collect::<Vec<_>>();
    for chunk in &cells {
        let rect = &chunk[chunk.find("<rect").unwrap()..];
        let rect = &rect[..rect.find("/>").unwrap()];
        let x: usize = attr(rect, "x").unwrap().parse::<usize>().unwrap() + offset;
        let y: usize = attr(rect, "y").unwrap().parse::<usize>().unwrap() + offset;
        let w: usize = attr(rect, "width").unwrap().parse().unwrap();
        let h: usize = attr(rect, "height").unwrap().parse().unwrap();
        let fill = attr(rect, "fill").unwrap();
        let want = [1, 3, 5].map(|k| u8::from_str_radix(&fill[k..k + 2], 16).unwrap());
        for (px, py) in [
            (x + 3, y + 3),
            (x + w - 4, y + 3),
            (x + 3, y + h - 4),
            (x + w - 4, y + h - 4),
        ] {
            let got = img.rgb(px, py).expect("pixel inside the screenshot");
            assert!(
                got.iter().zip(want).all(|(&g, w)| g.abs_diff(w) <= 3),
                "cell at ({x}, {y}): pixel ({px}, {py}) is {got:?}, fill {fill}"
            );
            checked += 1;
        }
        colours.insert(fill.to_string());
    }
    assert!(!cells.is_empty());
    assert_eq!(checked, 4 * cells.len());
    colours
}

/// A small PNG decoder (8-bit RGB / RGBA, not interlaced — what Chromium writes), with its
/// own inflate, so the browser test needs no image crate.
mod png {
    pub struct Image {
        pub w: usize,
        pub h: usize,
        channels: usize,
        data: Vec<u8>,
    }

    impl Image {
        pub fn rgb(&self, x: usize, y: usize) -> Option<[u8; 3]> {
            if x >= self.w || y >= self.h {
                return None;
            }
            let i = (y * self.w + x) * self.channels;
            Some([self.data[i], self.data[i + 1], self.data[i + 2]])
        }
    }

    pub fn decode(bytes: &[u8]) -> Result<Image, String> {
        if bytes.len() < 8 || &bytes[..8] != b"\x89PNG\r\n\x1a\n" {
            return Err("not a PNG".into());
        }
        let mut pos = 8;
        let (mut w, mut h, mut channels) = (0usize, 0usize, 0usize);
        let mut idat = Vec::new();
        while pos + 8 <= bytes.len() {
            let len = u32::from_be_bytes(bytes[pos..pos + 4].try_into().unwrap()) as usize;
            let kind = &bytes[pos + 4..pos + 8];
            let body = bytes.get(pos + 8..pos + 8 + len).ok_or("truncated chunk")?;
            match kind {
                b"IHDR" => {
                    w = u32::from_be_bytes(body[0..4].try_into().unwrap()) as usize;
                    h = u32::from_be_bytes(body[4..8].try_into().unwrap()) as usize;
                    if body[8] != 8 || body[12] != 0 {
                        return Err("only 8-bit non-interlaced PNGs".into());
                    }
                    channels = match body[9] {
                        2 => 3,
                        6 => 4,
                        t => return Err(format!("colour type {t}")),
                    };
                }
                b"IDAT" => idat.extend_from_slice(body),
                b"IEND" => break,
                _ => {}
            }
            pos += 12 + len;
        }
        let raw = inflate(idat.get(2..).ok_or("empty zlib stream")?)?;
        let stride = w * channels;
        if raw.len() < h * (stride + 1) {
            return Err("short image data".into());
        }
        let mut data = vec![0u8; h * stride];
        for y in 0..h {
            let filter = raw[y * (stride + 1)];
            let line = &raw[y * (stride + 1) + 1..(y + 1) * (stride + 1)];
            for i in 0..stride {
                let a = if i >= channels {
                    data[y * stride + i - channels] as i32
                } else {
                    0
                };
                let b = if y > 0 {
                    data[(y - 1) * stride + i] as i32
                } else {
                    0
                };
                let c = if y > 0 && i >= channels {
                    data[(y - 1) * stride + i - channels] as i32
                } else {
                    0
                };
                let pred = match filter {
                    0 => 0,
                    1 => a,
                    2 => b,
                    3 => (a + b) / 2,
                    4 => {
                        let p = a + b - c;
                        let (pa, pb, pc) = ((p - a).abs(), (p - b).abs(), (p - c).abs());
                        if pa <= pb && pa <= pc {
                            a
                        } else if pb <= pc {
                            b
                        } else {
                            c
                        }
                    }
                    f => return Err(format!("filter {f}")),
                };
                data[y * stride + i] = (line[i] as i32 + pred) as u8;
            }
        }
        Ok(Image { w, h, channels, data })
    }

    struct Bits<'a> {
        src: &'a [u8],
        pos: usize,
        bit: u32,
    }

    impl Bits<'_> {
        fn get(&mut self, n: u32) -> Result<u32, String> {
            let mut v = 0u32;
            for k in 0..n {
                let byte = *self.src.get(self.pos).ok_or("inflate: out of input")?;
                v |= ((byte as u32 >> self.bit) & 1) << k;
                self.bit += 1;
                if self.bit == 8 {
                    self.bit = 0;
                    self.pos += 1;
                }
            }
            Ok(v)
        }
    }

    struct Huffman {
        counts: [u16; 16],
        symbols: Vec<u16>,
    }

    impl Huffman {
        fn new(lengths: &[u8]) -> Self {
            let mut counts = [0u16; 16];
            for &l in lengths {
                counts[l as usize] += 1;
            }
            counts[0] = 0;
            let mut offs = [0u16; 16];
            for i in 1..16 {
                offs[i] = offs[i - 1] + counts[i - 1];
            }
            let mut symbols = vec![0u16; lengths.len()];
            for (s, &l) in lengths.iter().enumerate() {
                if l != 0 {
                    symbols[offs[l as usize] as usize] = s as u16;
                    offs[l as usize] += 1;
                }
            }
            Huffman { counts, symbols }
        }

        fn decode(&self, b: &mut Bits) -> Result<u16, String> {
            let (mut code, mut first, mut index) = (0i32, 0i32, 0i32);
            for len in 1..16 {
                code |= b.get(1)? as i32;
                let count = self.counts[len] as i32;
                if code - first < count {
                    return Ok(self.symbols[(index + code - first) as usize]);
                }
                index += count;
                first = (first + count) << 1;
                code <<= 1;
            }
            Err("inflate: bad code".into())
        }
    }

    const LEN_BASE: [u16; 29] = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163,
        195, 227, 258,
    ];
    const LEN_EXTRA: [u8; 29] = [
        0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
    ];
    const DIST_BASE: [u16; 30] = [
        1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049,
        3073, 4097, 6145, 8193, 12289, 16385, 24577,
    ];
    const DIST_EXTRA: [u8; 30] = [
        0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
    ];

    fn inflate(src: &[u8]) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        let mut b = Bits { src, pos: 0, bit: 0 };
        loop {
            let last = b.get(1)?;
            match b.get(2)? {
                0 => {
                    if b.bit != 0 {
                        b.bit = 0;
                        b.pos += 1;
                    }
                    let len = src.get(b.pos..b.pos + 4).ok_or("inflate: stored header")?;
                    let n = u16::from_le_bytes([len[0], len[1]]) as usize;
                    out.extend_from_slice(src.get(b.pos + 4..b.pos + 4 + n).ok_or("inflate: stored block")?);
                    b.pos += 4 + n;
                }
                t @ (1 | 2) => {
                    let (lit, dist) = if t == 1 {
                        let mut l = [8u8; 288];
                        l[144..256].fill(9);
                        l[256..280].fill(7);
                        (Huffman::new(&l), Huffman::new(&[5u8; 30]))
                    } else {
                        let hlit = b.get(5)? as usize + 257;
                        let hdist = b.get(5)? as usize + 1;
                        let hclen = b.get(4)? as usize + 4;
                        const ORDER: [usize; 19] =
                            [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];
                        let mut cl = [0u8; 19];
                        for &o in &ORDER[..hclen] {
                            cl[o] = b.get(3)? as u8;
                        }
                        let clh = Huffman::new(&cl);
                        let mut lens = Vec::with_capacity(hlit + hdist);
                        while lens.len() < hlit + hdist {
                            match clh.decode(&mut b)? {
                                s @ 0..=15 => lens.push(s as u8),
                                16 => {
                                    let prev = *lens.last().ok_or("inflate: repeat with no length")?;
                                    for _ in 0..3 + b.get(2)? {
                                        lens.push(prev);
                                    }
                                }
                                17 => lens.extend(std::iter::repeat_n(0, 3 + b.get(3)? as usize)),
                                _ => lens.extend(std::iter::repeat_n(0, 11 + b.get(7)? as usize)),
                            }
                        }
                        (
                            Huffman::new(&lens[..hlit]),
                            Huffman::new(&lens[hlit..hlit + hdist]),
                        )
                    };
                    loop {
                        let s = lit.decode(&mut b)? as usize;
                        if s < 256 {
                            out.push(s as u8);
                        } else if s == 256 {
                            break;
                        } else {
                            let k = s - 257;
                            let len = *LEN_BASE.get(k).ok_or("inflate: length")? as usize
                                + b.get(LEN_EXTRA[k] as u32)? as usize;
                            let d = dist.decode(&mut b)? as usize;
                            let dd = *DIST_BASE.get(d).ok_or("inflate: distance")? as usize
                                + b.get(DIST_EXTRA[d] as u32)? as usize;
                            let start = out.len().checked_sub(dd).ok_or("inflate: distance too far")?;
                            for i in 0..len {
                                out.push(out[start + i]);
                            }
                        }
                    }
                }
                _ => return Err("inflate: block type 3".into()),
            }
            if last == 1 {
                return Ok(out);
            }
        }
    }
}
