//! `linear-layout` with no arguments: a tour on built-in AMD examples — the layouts of a
//! matmul as Triton's TTGIR names them, shown in both views, the cost of converting between
//! them on gfx942 and gfx950, a small tile program compiled with Triton's layouts and with
//! layouts chosen by cost, one conversion's code for both targets beside Triton's, and
//! pictures written to a folder.

use std::fmt::Write as _;
use std::path::PathBuf;

use super::llc;

/// The targets the tour prices its conversions on (a default of the command, not a fact).
const DEFAULT_TOUR_TARGETS: [&str; 2] = ["gfx942", "gfx950"];
/// The target the tour compiles its tile program for (a default of the command).
const DEFAULT_COMPILE_TARGET: &str = DEFAULT_TOUR_TARGETS[0];

use linear_layout::encodings::Encoding;
use linear_layout::heuristics::convert::convert_cost;
use linear_layout::linear::LinearLayout;
use linear_layout::lower::{CompileOptions, Layouts, compile, ttgir_kernel};
use linear_layout::target::Target;
use linear_layout::ttgir::Module;
use linear_layout::view::{self, PictureOptions};

/// The examples, as Triton prints them in TTGIR, each with the shape it is shown at.
const BLOCKED: &str =
    "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>";
const MFMA32: &str =
    "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>";
const MFMA16: &str =
    "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [16, 16, 16], isTransposed = true}>";
const SHARED: &str = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>";

/// The tensor of the conversions (a 128x128 f16 tile) and the small one the views print (its
/// rows fit the terminal).
const TILE: [u64; 2] = [128, 128];
const SMALL: [u64; 2] = [16, 8];

fn layout(text: &str, shape: &[u64]) -> Result<LinearLayout, String> {
    let encoding: Encoding = text.parse().map_err(|e| format!("{text}: {e}"))?;
    encoding
        .to_linear_layout(shape)
        .map_err(|e| format!("{text}: {e}"))
}

fn dot(op: u32, parent: &str) -> String {
    format!("#ttg.dot_op<{{opIdx = {op}, parent = {parent}, kWidth = 8}}>")
}

/// A tile program without layouts (TTIR): each of 16 rows of 128 f32 reduced to its maximum,
/// the maxima stored — what the compile step of the tour chooses layouts for.
const ROW_MAX: &str = r#"module {
  tt.func public @row_max(%x: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %out: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
    %cols = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    %c = tt.expand_dims %cols {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
    %rows = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>
    %r = tt.expand_dims %rows {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
    %c128 = arith.constant dense<128> : tensor<16x1xi32>
    %ro = arith.muli %r, %c128 : tensor<16x1xi32>
    %rb = tt.broadcast %ro : tensor<16x1xi32> -> tensor<16x128xi32>
    %cb = tt.broadcast %c : tensor<1x128xi32> -> tensor<16x128xi32>
    %o = arith.addi %rb, %cb : tensor<16x128xi32>
    %px = tt.splat %x : !tt.ptr<f32> -> tensor<16x128x!tt.ptr<f32>>
    %ax = tt.addptr %px, %o : tensor<16x128x!tt.ptr<f32>>, tensor<16x128xi32>
    %v = tt.load %ax : tensor<16x128x!tt.ptr<f32>>
    %m = "tt.reduce"(%v) <{axis = 1 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.maxnumf %a, %b : f32
      tt.reduce.return %s : f32
    }) : (tensor<16x128xf32>) -> tensor<16xf32>
    %po = tt.splat %out : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>
    %ao = tt.addptr %po, %rows : tensor<16x!tt.ptr<f32>>, tensor<16xi32>
    tt.store %ao, %m : tensor<16x!tt.ptr<f32>>
    tt.return
  }
}"#;

/// The widest line the tour prints: it fits an 80–100 column terminal.
const TOUR_COLUMNS: usize = 100;

/// `text` with every line longer than `columns` characters broken at a space — the last that
/// fits after a comma and before a name (as between an attribute's fields), else after a
/// comma, else any — the rest continued on the next line after four spaces; a line with no
/// space to break at stays whole.
fn fit(text: &str, columns: usize) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let mut rest = line;
        // The first piece has the whole width, each continuation four columns less.
        let mut width = columns;
        while rest.trim_end_matches('\n').chars().count() > width {
            let limit = rest.char_indices().nth(width).map_or(rest.len(), |(i, _)| i);
            // The spaces a line may break at (the space is dropped), best last: after a comma
            // and before a name, after a comma, anywhere.
            let spaces: Vec<usize> = rest[..limit]
                .match_indices(' ')
                .map(|(i, _)| i)
                .filter(|&i| i > 4)
                .collect();
            let after_comma = |i: &&usize| rest[..**i].ends_with(',');
            let before_name = |i: &&usize| rest[**i + 1..].starts_with(|c: char| c.is_ascii_alphabetic());
            let best = spaces.iter().rev().find(|i| after_comma(i) && before_name(i));
            let Some(&at) = best
                .or_else(|| spaces.iter().rev().find(after_comma))
                .or(spaces.last())
            else {
                break;
            };
            out.push_str(&rest[..at]);
            out.push_str("\n    ");
            rest = &rest[at + 1..];
            width = columns.saturating_sub(4);
        }
        out.push_str(rest);
    }
    out
}

/// The tour's first conversion as Triton compiles it: Triton 3.6.0's final TTGIR of a kernel
/// that loads a 128x128 f16 tile through the blocked layout, converts it to the MFMA 32x32
/// accumulator's layout and stores it (the lowering's anchor kernel
/// `d_cvt_blocked_to_mfma_128x128_f16`, from the oracle's `codegen_anchor.py`; locations and
/// target dropped). On gfx950 Triton's TTGIR names the version-4 instruction, whose
/// accumulator has this same layout.
const CONVERSION_TTGIR: &str = r#"#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @cvt_blocked_to_mfma(%src: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %dst: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %stride: i32 {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %r_0 = tt.expand_dims %r {axis = 1 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<128x1xi32, #blocked>
    %c = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %c_1 = tt.expand_dims %c {axis = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<1x128xi32, #blocked>
    %x = tt.splat %stride : i32 -> tensor<128x1xi32, #blocked>
    %x_2 = arith.muli %r_0, %x : tensor<128x1xi32, #blocked>
    %x_3 = tt.splat %src : !tt.ptr<f16> -> tensor<128x1x!tt.ptr<f16>, #blocked>
    %x_4 = tt.addptr %x_3, %x_2 : tensor<128x1x!tt.ptr<f16>, #blocked>, tensor<128x1xi32, #blocked>
    %x_5 = tt.broadcast %x_4 : tensor<128x1x!tt.ptr<f16>, #blocked> -> tensor<128x128x!tt.ptr<f16>, #blocked>
    %x_6 = tt.broadcast %c_1 : tensor<1x128xi32, #blocked> -> tensor<128x128xi32, #blocked>
    %x_7 = tt.addptr %x_5, %x_6 : tensor<128x128x!tt.ptr<f16>, #blocked>, tensor<128x128xi32, #blocked>
    %x_8 = tt.load %x_7 : tensor<128x128x!tt.ptr<f16>, #blocked>
    %y = ttg.convert_layout %x_8 : tensor<128x128xf16, #blocked> -> tensor<128x128xf16, #mma>
    %r2 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #mma}>>
    %r2_9 = tt.expand_dims %r2 {axis = 1 : i32} : tensor<128xi32, #ttg.slice<{dim = 1, parent = #mma}>> -> tensor<128x1xi32, #mma>
    %c2 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #mma}>>
    %c2_10 = tt.expand_dims %c2 {axis = 0 : i32} : tensor<128xi32, #ttg.slice<{dim = 0, parent = #mma}>> -> tensor<1x128xi32, #mma>
    %0 = tt.splat %stride : i32 -> tensor<128x1xi32, #mma>
    %1 = arith.muli %r2_9, %0 : tensor<128x1xi32, #mma>
    %2 = tt.splat %dst : !tt.ptr<f16> -> tensor<128x1x!tt.ptr<f16>, #mma>
    %3 = tt.addptr %2, %1 : tensor<128x1x!tt.ptr<f16>, #mma>, tensor<128x1xi32, #mma>
    %4 = tt.broadcast %3 : tensor<128x1x!tt.ptr<f16>, #mma> -> tensor<128x128x!tt.ptr<f16>, #mma>
    %5 = tt.broadcast %c2_10 : tensor<1x128xi32, #mma> -> tensor<128x128xi32, #mma>
    %6 = tt.addptr %4, %5 : tensor<128x128x!tt.ptr<f16>, #mma>, tensor<128x128xi32, #mma>
    tt.store %6, %y : tensor<128x128x!tt.ptr<f16>, #mma>
    tt.return
  }
}"#;

/// The instructions of Triton 3.6.0's own code for those kernels, per target (the same
/// fixtures; `blocked_to_mfma32` is the conversion's entry).
const TRITON_COUNTS: &str = include_str!("../../tests/fixtures/lower/triton_anchor_counts.json");

/// The code section: the tour's first conversion lowered for each tour target, its operations
/// beside Triton's instructions for the same kernel, and the LLVM IR written to `dir`.
fn code(out: &mut String, dir: &std::path::Path) -> Result<(), String> {
    let triton: serde_json::Value = serde_json::from_str(TRITON_COUNTS).map_err(|e| e.to_string())?;
    let _ = writeln!(
        out,
        "The code: blocked -> MFMA 32x32 on a 128x128 f16 tile (loaded, converted, stored), from \
         Triton's own TTGIR of that kernel, lowered for each target (instructions: llc-22 -O3):\n\n\
         {:<22}{:>6}{:>12}{:>11}{:>10}{:>8}  instructions",
        "", "loads", "LDS writes", "LDS reads", "barriers", "stores"
    );
    let module = Module::parse(CONVERSION_TTGIR).map_err(|e| e.to_string())?;
    for arch in DEFAULT_TOUR_TARGETS {
        let target = Target::by_name(arch)?;
        let kernel = ttgir_kernel(&module, target).map_err(|e| e.to_string())?;
        let ops = kernel.program.op_counts();
        let op = |name: &str| ops.get(name).copied().unwrap_or(0);
        let ir = kernel.llvm_ir().map_err(|e| e.to_string())?;
        let path = dir.join(format!("blocked-to-mfma32-{arch}.ll"));
        std::fs::write(&path, &ir).map_err(|e| format!("{}: {e}", path.display()))?;
        let theirs = &triton[arch]["blocked_to_mfma32"];
        let n = |key: &str| theirs[key].as_u64().unwrap_or(0);
        let ours_total = llc::assemble(&ir, arch)
            .map(|asm| llc::machine_instructions(&asm).to_string())
            .unwrap_or_else(|| "(llc-22 counts them)".to_string());
        let row = |who: &str, counts: [u64; 5], total: &str| {
            let [loads, writes, reads, barriers, stores] = counts;
            format!("{arch}  {who:<14}{loads:>6}{writes:>12}{reads:>11}{barriers:>10}{stores:>8}  {total}\n")
        };
        out.push_str(&row(
            "linear-layout",
            ["global_load", "lds_write", "lds_read", "barrier", "global_store"].map(op),
            &ours_total,
        ));
        out.push_str(&row(
            "Triton 3.6.0",
            ["global_load", "ds_write", "ds_read", "s_barrier", "global_store"].map(n),
            &n("total").to_string(),
        ));
        let _ = writeln!(out, "        the kernel's LLVM IR: {}", path.display());
    }
    out.push('\n');
    Ok(())
}

/// Where the pictures go: a folder in the system's temporary directory.
fn picture_dir() -> PathBuf {
    std::env::temp_dir().join("linear-layout-tour")
}

/// The tour's text; the pictures are written as a side effect.
pub fn run() -> Result<String, String> {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "linear-layout: GPU tensor layouts as linear maps over GF(2)\n"
    );
    let _ = writeln!(
        out,
        "A matmul on AMD moves its tiles through these layouts (Triton's TTGIR names them so):\n"
    );
    let examples: Vec<(&str, String, [u64; 2])> = vec![
        (
            "coalesced blocked layout (global loads, 8 x f16 = 128 bits a thread)",
            BLOCKED.to_string(),
            TILE,
        ),
        ("MFMA 32x32 accumulator", MFMA32.to_string(), TILE),
        (
            "its A operand (8 consecutive K elements a lane)",
            dot(0, MFMA32),
            [128, 64],
        ),
        ("its B operand", dot(1, MFMA32), [64, 128]),
        ("MFMA 16x16 accumulator", MFMA16.to_string(), TILE),
        ("its A operand", dot(0, MFMA16), [128, 64]),
        ("swizzled shared memory (LDS)", SHARED.to_string(), [128, 64]),
    ];
    for (what, text, shape) in &examples {
        let l = layout(text, shape)?;
        let _ = writeln!(out, "{what}, {}x{}:\n  {text}{l}\n", shape[0], shape[1]);
    }

    let _ = writeln!(
        out,
        "The two views of a layout, on a {}x{} tensor.\n",
        SMALL[0], SMALL[1]
    );
    let small_blocked = "#ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [16, 4], warpsPerCTA = [1, 1], order = [1, 0]}>";
    let l = layout(small_blocked, &SMALL)?;
    let _ = writeln!(
        out,
        "{small_blocked}\ntensor view (who holds each element, T<thread>:<register>):"
    );
    out.push_str(&view::tensor_view(&l).map_err(|e| e.to_string())?);
    let _ = writeln!(out, "\nhardware view (what each thread's registers hold):");
    out.push_str(&view::hardware_view(&l).map_err(|e| e.to_string())?);

    let _ = writeln!(out, "\nWhat converting a 128x128 f16 tile costs, and why:\n");
    let conversions: Vec<(&str, String, String, [u64; 2])> = vec![
        (
            "blocked -> MFMA 32x32",
            BLOCKED.to_string(),
            MFMA32.to_string(),
            TILE,
        ),
        (
            "blocked -> MFMA 16x16",
            BLOCKED.to_string(),
            MFMA16.to_string(),
            TILE,
        ),
        (
            "MFMA 32x32 -> MFMA 16x16",
            MFMA32.to_string(),
            MFMA16.to_string(),
            TILE,
        ),
        (
            "blocked -> A operand of MFMA 32x32",
            BLOCKED.to_string(),
            dot(0, MFMA32),
            [128, 64],
        ),
    ];
    for (what, src, dst, shape) in &conversions {
        let (s, d) = (layout(src, shape)?, layout(dst, shape)?);
        for arch in DEFAULT_TOUR_TARGETS {
            let target = Target::by_name(arch)?;
            let c = convert_cost(&s, &d, 16, target).map_err(|e| e.message().to_string())?;
            let instructions: Vec<String> =
                c.instructions.iter().map(|(m, n)| format!("{n} × {m}")).collect();
            let _ = writeln!(
                out,
                "{what} on {arch}: {} — {} LDS bytes, {} excess wavefronts, ~{} cycles\n  {}\n  why: {}",
                c.kind.as_str(),
                c.lds_bytes,
                c.bank_conflicts,
                c.cycles,
                if instructions.is_empty() {
                    "no instructions".into()
                } else {
                    instructions.join(", ")
                },
                c.explanation
            );
        }
        out.push('\n');
    }

    let _ = writeln!(
        out,
        "A tile program without layouts (16 row maxima of a 16x128 f32 tile, stored), compiled for {DEFAULT_COMPILE_TARGET}:\n"
    );
    let target = Target::by_name(DEFAULT_COMPILE_TARGET)?;
    for layouts in [Layouts::Triton, Layouts::Cost] {
        let opts = CompileOptions {
            layouts,
            ..CompileOptions::new(4)
        };
        let c = compile(ROW_MAX, target, &opts).map_err(|e| e.to_string())?;
        let _ = writeln!(
            out,
            "--layouts {layouts}: {} conversion(s) left; the kernel {}",
            c.conversions.len(),
            c.cost
        );
        for choice in &c.choices {
            let _ = writeln!(out, "  weighed: {choice}");
        }
    }
    out.push('\n');

    let dir = picture_dir();
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    code(&mut out, &dir)?;
    let mut pictures = vec![
        ("blocked.svg".to_string(), BLOCKED.to_string(), [32, 64], 32),
        ("mfma32.svg".to_string(), MFMA32.to_string(), [64, 64], 32),
        ("mfma32-operand-a.svg".to_string(), dot(0, MFMA32), [64, 32], 32),
        ("mfma16.svg".to_string(), MFMA16.to_string(), [32, 32], 32),
    ];
    // The shared layout's banks as each tour target's LDS has them.
    for arch in DEFAULT_TOUR_TARGETS {
        let banks = Target::by_name(arch)?.lds_banks;
        pictures.push((
            format!("swizzled-shared-{arch}.svg"),
            SHARED.to_string(),
            [32, 64],
            banks,
        ));
    }
    for (file, text, shape, banks) in &pictures {
        let l = layout(text, shape)?;
        let options = PictureOptions {
            title: text.clone(),
            bits: 16,
            banks: *banks,
            padding: Vec::new(),
        };
        let svg = view::svg(&l, &options).map_err(|e| e.to_string())?;
        let path = dir.join(file);
        std::fs::write(&path, svg).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let _ = writeln!(
        out,
        "Pictures of these layouts (cells coloured by warp, the smaller ones shaded by lane, labelled \
         lane:register; for shared memory, the offset and LDS bank of each element) are in {}",
        dir.display()
    );
    let _ = writeln!(
        out,
        "\nNext: `linear-layout show LAYOUT --shape 128x64`, `linear-layout cost SRC DST --shape 128x128 --arch all`, \
         `linear-layout compile KERNEL.ttir --arch {DEFAULT_COMPILE_TARGET} --explain`, `linear-layout batch` (JSON lines); \
         `linear-layout --help` for everything."
    );
    Ok(fit(&out, TOUR_COLUMNS))
}

#[cfg(test)]
mod tests {
    use super::fit;

    /// Long lines break after the last `", "` that fits, before a name where one can, else at
    /// a space; the text is unchanged once the breaks are joined again, and a line without a
    /// space stays whole.
    #[test]
    fn long_lines_break_between_fields() {
        let attr = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>\n";
        let fitted = fit(attr, 90);
        assert_eq!(
            fitted,
            "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1],\n    order = [1, 0]}>\n"
        );
        assert_eq!(fitted.replace(",\n    ", ", "), attr);
        let row = (0..40).map(|i| format!("T{i}:0")).collect::<Vec<_>>().join(", ") + "\n";
        let fitted = fit(&row, 100);
        assert!(fitted.lines().all(|l| l.chars().count() <= 100), "{fitted}");
        assert_eq!(fitted.replace(",\n    ", ", "), row);
        let prose = "a round trip through LDS. ".repeat(6);
        let fitted = fit(&prose, 100);
        assert!(fitted.lines().all(|l| l.chars().count() <= 100), "{fitted}");
        assert_eq!(fitted.replace("\n    ", " "), prose);
        let word = "x".repeat(120);
        assert_eq!(fit(&word, 100), word);
    }
}
