//! `tt.scan` wherever the layouts put the scanned axis: a 2-D tile of `i32` scanned along
//! either axis, forward and reversed, by a commutative body (`tl.cumsum`) and by an
//! associative one that is not (the last nonzero element so far), for tiles from one row to
//! one column per lane. `lower::compile` chooses the layouts (so the axis lands on registers,
//! lanes and warps in every mix), the interpreter runs each kernel on a 64-lane and a 32-lane
//! target, and every element is checked against the scan computed here.

use linear_layout::lower::{CompileOptions, Launch, compile, run_launch};
use linear_layout::target::Target;

/// The body's operation: `tl.cumsum`, or `select(b != 0, b, a)` (associative, and the order
/// of its operands matters).
#[derive(Clone, Copy, Debug)]
enum Body {
    Sum,
    LastNonzero,
}

impl Body {
    fn ttir(self) -> &'static str {
        match self {
            Body::Sum => "      %t = arith.addi %a, %b : i32",
            Body::LastNonzero => {
                "      %z = arith.constant 0 : i32\n      %nz = arith.cmpi ne, %b, %z : i32\n      %t = arith.select %nz, %b, %a : i32"
            }
        }
    }

    fn apply(self, a: i32, b: i32) -> i32 {
        match self {
            Body::Sum => a.wrapping_add(b),
            Body::LastNonzero => {
                if b != 0 {
                    b
                } else {
                    a
                }
            }
        }
    }
}

/// `y = scan(x)` of a `rows × cols` row-major tile, as `make_ttir` leaves such a kernel.
fn kernel((rows, cols): (usize, usize), axis: usize, reverse: bool, body: Body) -> String {
    let (t, b) = (format!("tensor<{rows}x{cols}xi32>"), body.ttir());
    format!(
        r#"module {{
  tt.func public @scan_kernel(%x: !tt.ptr<i32> {{tt.divisibility = 16 : i32}}, %y: !tt.ptr<i32> {{tt.divisibility = 16 : i32}}) attributes {{noinline = false}} {{
    %stride = arith.constant dense<{cols}> : tensor<{rows}x1xi32>
    %r = tt.make_range {{end = {rows} : i32, start = 0 : i32}} : tensor<{rows}xi32>
    %c = tt.make_range {{end = {cols} : i32, start = 0 : i32}} : tensor<{cols}xi32>
    %re = tt.expand_dims %r {{axis = 1 : i32}} : tensor<{rows}xi32> -> tensor<{rows}x1xi32>
    %rs = arith.muli %re, %stride : tensor<{rows}x1xi32>
    %ce = tt.expand_dims %c {{axis = 0 : i32}} : tensor<{cols}xi32> -> tensor<1x{cols}xi32>
    %rb = tt.broadcast %rs : tensor<{rows}x1xi32> -> {t}
    %cb = tt.broadcast %ce : tensor<1x{cols}xi32> -> {t}
    %off = arith.addi %rb, %cb : {t}
    %xs = tt.splat %x : !tt.ptr<i32> -> tensor<{rows}x{cols}x!tt.ptr<i32>>
    %xp = tt.addptr %xs, %off : tensor<{rows}x{cols}x!tt.ptr<i32>>, {t}
    %v = tt.load %xp : tensor<{rows}x{cols}x!tt.ptr<i32>>
    %s = "tt.scan"(%v) <{{axis = {axis} : i32, reverse = {reverse}}}> ({{
    ^bb0(%a: i32, %b: i32):
{b}
      tt.scan.return %t : i32
    }}) : ({t}) -> {t}
    %ys = tt.splat %y : !tt.ptr<i32> -> tensor<{rows}x{cols}x!tt.ptr<i32>>
    %yp = tt.addptr %ys, %off : tensor<{rows}x{cols}x!tt.ptr<i32>>, {t}
    tt.store %yp, %s : tensor<{rows}x{cols}x!tt.ptr<i32>>
    tt.return
  }}
}}
"#
    )
}

/// The scan of `x` computed one element at a time.
fn reference(x: &[i32], (rows, cols): (usize, usize), axis: usize, reverse: bool, body: Body) -> Vec<i32> {
    let mut y = x.to_vec();
    let (lines, len) = if axis == 0 { (cols, rows) } else { (rows, cols) };
    for line in 0..lines {
        let at = |k: usize| {
            if axis == 0 {
                k * cols + line
            } else {
                line * cols + k
            }
        };
        let order: Vec<usize> = if reverse {
            (0..len).rev().collect()
        } else {
            (0..len).collect()
        };
        let mut acc: Option<i32> = None;
        for k in order {
            let v = acc.map_or(x[at(k)], |a| body.apply(a, x[at(k)]));
            y[at(k)] = v;
            acc = Some(v);
        }
    }
    y
}

#[test]
fn scans_along_either_axis_in_the_layouts_compile_chooses() {
    let shapes = [(1, 256), (4, 128), (16, 64), (64, 16), (128, 4), (8, 8)];
    let mut checked = 0;
    for arch in ["gfx942", "gfx1100"] {
        let target = Target::by_name(arch).unwrap();
        for (n, &shape) in shapes.iter().enumerate() {
            let len = shape.0 * shape.1;
            // Small values with zeros among them (the last-nonzero body's interesting case).
            let x: Vec<i32> = (0..len)
                .map(|i| {
                    let h = (i as u32 ^ n as u32).wrapping_mul(2_654_435_761) >> 27;
                    if h.is_multiple_of(3) { 0 } else { h as i32 - 11 }
                })
                .collect();
            for axis in 0..2 {
                for reverse in [false, true] {
                    for body in [Body::Sum, Body::LastNonzero] {
                        let text = kernel(shape, axis, reverse, body);
                        let what = format!("{arch} {shape:?} axis {axis} reverse {reverse} {body:?}");
                        let k = compile(&text, target, &CompileOptions::new(4))
                            .unwrap_or_else(|e| panic!("{what}: {e}"))
                            .kernel;
                        let mut buffers = vec![
                            x.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(),
                            vec![0u8; 4 * len],
                        ];
                        let launch = Launch {
                            scalars: vec![],
                            workgroup: [0, 0, 0],
                            grid: [1, 1, 1],
                        };
                        run_launch(&k.program, &mut buffers, &launch)
                            .unwrap_or_else(|e| panic!("{what}: {e}"));
                        let got: Vec<i32> = buffers[1]
                            .chunks(4)
                            .map(|b| i32::from_le_bytes(b.try_into().unwrap()))
                            .collect();
                        assert_eq!(got, reference(&x, shape, axis, reverse, body), "{what}");
                        checked += 1;
                    }
                }
            }
        }
    }
    assert_eq!(checked, 2 * 6 * 2 * 2 * 2);
}

/// Law: a scan whose threads hold runs of consecutive elements scans each run in the thread,
/// then the runs' totals across threads, then gives every element its run's front — so its
/// combines are at most two per element plus two per run and axis bit above the runs (a
/// total and a front), not a few per element and axis bit. Where lanes own the bits right
/// above the runs, the totals scan across them at once and each run's front is the scan one
/// lane before: a wave shift on GFX9 (`wave_shr:1`, `wave_shl:1` reversed), a row shift and a
/// cross-row permute on RDNA. `tl.cumsum` of 4096 `i32` over 8 warps: runs of 4 elements, two
/// per thread on 64 lanes (ten axis bits above them), four on 32.
#[test]
fn a_long_scan_combines_runs_not_elements() {
    use linear_layout::lower::{ArithOp, DppCtrl, Op};
    let shape = (1, 4096);
    let x: Vec<i32> = (0..4096).map(|i| (i * 7919 % 23) - 11).collect();
    for (arch, runs, bits_above) in [("gfx942", 2, 10), ("gfx1100", 4, 10)] {
        let target = Target::by_name(arch).unwrap();
        for reverse in [false, true] {
            for body in [Body::Sum, Body::LastNonzero] {
                let what = format!("{arch} reverse {reverse} {body:?}");
                let k = compile(&kernel(shape, 1, reverse, body), target, &CompileOptions::new(8))
                    .unwrap_or_else(|e| panic!("{what}: {e}"))
                    .kernel;
                let mut buffers = vec![
                    x.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(),
                    vec![0u8; 4 * 4096],
                ];
                let launch = Launch {
                    scalars: vec![],
                    workgroup: [0, 0, 0],
                    grid: [1, 1, 1],
                };
                run_launch(&k.program, &mut buffers, &launch).unwrap_or_else(|e| panic!("{what}: {e}"));
                let got: Vec<i32> = buffers[1]
                    .chunks(4)
                    .map(|b| i32::from_le_bytes(b.try_into().unwrap()))
                    .collect();
                assert_eq!(got, reference(&x, shape, 1, reverse, body), "{what}");
                let ops = &k.program.ops;
                let count = |f: &dyn Fn(&Op) -> bool| ops.iter().filter(|op| f(op)).count();
                if let Body::Sum = body {
                    let sums = count(&|op| {
                        matches!(
                            op,
                            Op::Arith {
                                op: ArithOp::Add,
                                ty: "i32",
                                ..
                            }
                        )
                    });
                    let elements = 4 * runs;
                    assert!(
                        sums <= 2 * elements + 2 * runs * bits_above,
                        "{what}: {sums} additions"
                    );
                }
                // Per run: GFX9's one wave shift; RDNA's cross-row permute, beside the lane
                // scan's own.
                let (steps, wanted) = if target.instructions.dpp_wave_shift {
                    let wave = if reverse {
                        DppCtrl::WaveShl1
                    } else {
                        DppCtrl::WaveShr1
                    };
                    (
                        count(&|op| matches!(op, Op::Dpp { ctrl, .. } if *ctrl == wave)),
                        runs,
                    )
                } else {
                    (count(&|op| matches!(op, Op::PermlaneX16 { .. })), 2 * runs)
                };
                assert_eq!(steps, wanted, "{what}: moves one position back");
            }
        }
    }
}
