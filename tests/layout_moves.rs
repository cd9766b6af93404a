//! The law of the layout moves (`heuristics::propagation::moves`), as a property over generated
//! kernels: **a move never changes what a kernel computes** — the kernel lowered after
//! `apply_layout_move` writes the same outputs as before it, on any input. And the cost mode's
//! choice is never costlier than Triton's layouts under the model.
//!
//! The kernels: a tile of `R × C` f32 loaded in a blocked layout `#a`, converted to another
//! blocked layout `#b`, squared and stored — or squared, transposed and stored, or summed along
//! its rows and the sums stored from a 1-D layout `#c`; the layouts, the shape and the input
//! are drawn at random.

use linear_layout::heuristics::propagation::{apply_layout_move, layout_moves};
use linear_layout::lower::{Launch, kernel_cost, run_launch, ttgir_kernel};
use linear_layout::target::Target;
use linear_layout::ttgir::Module;
use linear_layout::ttgir::graph::Graph;

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A 2-D blocked layout of 64 lanes and 4 warps: per thread, lane and warp splits along dim 0
/// (the rest along dim 1), and whether dim 1 is the fastest.
#[derive(Clone, Copy)]
struct Blocked {
    size: [u64; 2],
    lanes0: u64,
    warps0: u64,
    dim1_fastest: bool,
}

impl Blocked {
    fn random(r: &mut Rng) -> Blocked {
        Blocked {
            size: [1 << r.below(3), 1 << r.below(3)],
            lanes0: 1 << r.below(7),
            warps0: 1 << r.below(3),
            dim1_fastest: r.below(2) == 0,
        }
    }

    /// The layout of the transposed tensor (what `tt.trans` with order [1, 0] gives).
    fn transposed(self) -> Blocked {
        Blocked {
            size: [self.size[1], self.size[0]],
            lanes0: 64 / self.lanes0,
            warps0: 4 / self.warps0,
            dim1_fastest: !self.dim1_fastest,
        }
    }

    fn text(self) -> String {
        let order = if self.dim1_fastest { "[1, 0]" } else { "[0, 1]" };
        format!(
            "#ttg.blocked<{{sizePerThread = [{}, {}], threadsPerWarp = [{}, {}], warpsPerCTA = [{}, {}], order = {order}}}>",
            self.size[0],
            self.size[1],
            self.lanes0,
            64 / self.lanes0,
            self.warps0,
            4 / self.warps0
        )
    }
}

/// The element offsets `row · cols + col` of an `rows × cols` tile in layout `l`, as ops
/// defining `%o_{name}`.
fn offsets(name: &str, l: &str, rows: u64, cols: u64) -> String {
    let sr = format!("#ttg.slice<{{dim = 1, parent = {l}}}>");
    let sc = format!("#ttg.slice<{{dim = 0, parent = {l}}}>");
    format!(
        "    %r_{name} = tt.make_range {{end = {rows} : i32, start = 0 : i32}} : tensor<{rows}xi32, {sr}>
    %re_{name} = tt.expand_dims %r_{name} {{axis = 1 : i32}} : tensor<{rows}xi32, {sr}> -> tensor<{rows}x1xi32, {l}>
    %k_{name} = arith.constant dense<{cols}> : tensor<{rows}x1xi32, {l}>
    %rm_{name} = arith.muli %re_{name}, %k_{name} : tensor<{rows}x1xi32, {l}>
    %rb_{name} = tt.broadcast %rm_{name} : tensor<{rows}x1xi32, {l}> -> tensor<{rows}x{cols}xi32, {l}>
    %c_{name} = tt.make_range {{end = {cols} : i32, start = 0 : i32}} : tensor<{cols}xi32, {sc}>
    %ce_{name} = tt.expand_dims %c_{name} {{axis = 0 : i32}} : tensor<{cols}xi32, {sc}> -> tensor<1x{cols}xi32, {l}>
    %cb_{name} = tt.broadcast %ce_{name} : tensor<1x{cols}xi32, {l}> -> tensor<{rows}x{cols}xi32, {l}>
    %o_{name} = arith.addi %rb_{name}, %cb_{name} : tensor<{rows}x{cols}xi32, {l}>
"
    )
}

/// A generated kernel: `@k(%x, %y)` reading the tile from `x` and writing `y`.
fn kernel(r: &mut Rng) -> (String, u64, u64) {
    let (rows, cols) = (4 << r.below(4), 16 << r.below(4));
    let (a, b) = (Blocked::random(r).text(), Blocked::random(r));
    let (b, bt) = (b.text(), b.transposed().text());
    let t = |l: &str| format!("tensor<{rows}x{cols}xf32, {l}>");
    let p = |l: &str| format!("tensor<{rows}x{cols}x!tt.ptr<f32>, {l}>");
    let i = |l: &str| format!("tensor<{rows}x{cols}xi32, {l}>");
    let mut body = offsets("a", &a, rows, cols);
    body += &format!(
        "    %px = tt.splat %x : !tt.ptr<f32> -> {pa}
    %ax = tt.addptr %px, %o_a : {pa}, {ia}
    %v = tt.load %ax : {pa}
    %w = ttg.convert_layout %v : {ta} -> {tb}
",
        pa = p(&a),
        ia = i(&a),
        ta = t(&a),
        tb = t(&b)
    );
    let variant = r.below(3);
    let outputs = if variant == 2 {
        // Transposed: y[c·rows + r] = x[r·cols + c]².
        body += &offsets("t", &bt, cols, rows);
        let tt = format!("tensor<{cols}x{rows}xf32, {bt}>");
        let pt = format!("tensor<{cols}x{rows}x!tt.ptr<f32>, {bt}>");
        let it = format!("tensor<{cols}x{rows}xi32, {bt}>");
        body += &format!(
            "    %sq = arith.mulf %w, %w : {tb}
    %tr = tt.trans %sq {{order = array<i32: 1, 0>}} : {tb} -> {tt}
    %py = tt.splat %y : !tt.ptr<f32> -> {pt}
    %ay = tt.addptr %py, %o_t : {pt}, {it}
    tt.store %ay, %tr : {pt}
",
            tb = t(&b),
        );
        rows * cols
    } else if variant == 0 {
        body += &offsets("b", &b, rows, cols);
        body += &format!(
            "    %sq = arith.mulf %w, %w : {tb}
    %py = tt.splat %y : !tt.ptr<f32> -> {pb}
    %ay = tt.addptr %py, %o_b : {pb}, {ib}
    tt.store %ay, %sq : {pb}
",
            tb = t(&b),
            pb = p(&b),
            ib = i(&b)
        );
        rows * cols
    } else {
        let c = format!(
            "#ttg.blocked<{{sizePerThread = [{}], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}}>",
            1 << r.below(3)
        );
        let s = format!("#ttg.slice<{{dim = 1, parent = {b}}}>");
        body += &format!(
            "    %sum = \"tt.reduce\"(%w) <{{axis = 1 : i32}}> ({{
    ^bb0(%l: f32, %m: f32):
      %s = arith.addf %l, %m : f32
      tt.reduce.return %s : f32
    }}) : ({tb}) -> tensor<{rows}xf32, {s}>
    %sc = ttg.convert_layout %sum : tensor<{rows}xf32, {s}> -> tensor<{rows}xf32, {c}>
    %ro = tt.make_range {{end = {rows} : i32, start = 0 : i32}} : tensor<{rows}xi32, {c}>
    %py = tt.splat %y : !tt.ptr<f32> -> tensor<{rows}x!tt.ptr<f32>, {c}>
    %ay = tt.addptr %py, %ro : tensor<{rows}x!tt.ptr<f32>, {c}>, tensor<{rows}xi32, {c}>
    tt.store %ay, %sc : tensor<{rows}x!tt.ptr<f32>, {c}>
",
            tb = t(&b)
        );
        rows
    };
    let text = format!(
        "module attributes {{\"ttg.num-warps\" = 4 : i32, \"ttg.threads-per-warp\" = 64 : i32, ttg.target = \"hip:gfx942\"}} {{
  tt.func public @k(%x: !tt.ptr<f32> {{tt.divisibility = 16 : i32}}, %y: !tt.ptr<f32> {{tt.divisibility = 16 : i32}}) {{
{body}    tt.return
  }}
}}
"
    );
    (text, rows * cols, outputs)
}

/// The output buffer the kernel `text` writes for `input`.
fn outputs(text: &str, input: &[f32], n_out: u64) -> Result<Vec<u8>, String> {
    let module = Module::parse(text).map_err(|e| e.to_string())?;
    let k = ttgir_kernel(&module, Target::by_name("gfx942").unwrap()).map_err(|e| e.to_string())?;
    let x: Vec<u8> = input.iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut buffers = vec![x, vec![0u8; 4 * n_out as usize]];
    run_launch(&k.program, &mut buffers, &Launch::single(vec![])).map_err(|e| e.to_string())?;
    Ok(buffers.swap_remove(1))
}

#[test]
fn layout_moves_keep_what_the_kernel_computes() {
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    let mut applied = 0;
    for _ in 0..60 {
        let (text, n_in, n_out) = kernel(&mut r);
        // Small integers: every sum is exact, in any order.
        let input: Vec<f32> = (0..n_in).map(|_| r.below(17) as f32 - 8.0).collect();
        let before = outputs(&text, &input, n_out).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let g = Graph::parse(&text).unwrap();
        for (cvt, mv) in layout_moves(&g) {
            let mut h = g.clone();
            assert!(
                apply_layout_move(&mut h, cvt, mv).unwrap(),
                "{mv} listed but not applied:\n{text}"
            );
            let moved = h.print().unwrap();
            let after = outputs(&moved, &input, n_out).unwrap_or_else(|e| panic!("{mv}: {e}\n{moved}"));
            assert_eq!(before, after, "{mv} changed the outputs:\n{text}\n=>\n{moved}");
            applied += 1;
        }
    }
    eprintln!("{applied} moves applied");
    assert!(applied >= 60, "only {applied} moves applied");
}

#[test]
fn the_cost_mode_is_never_costlier_than_tritons_layouts() {
    use linear_layout::lower::{CompileOptions, Layouts, compile};
    let gfx942 = Target::by_name("gfx942").unwrap();
    let mut r = Rng(0x0123_4567_89AB_CDEF);
    for _ in 0..20 {
        let (text, _, _) = kernel(&mut r);
        let triton = CompileOptions {
            layouts: Layouts::Triton,
            ..CompileOptions::new(4)
        };
        let (t, c) = (
            compile(&text, gfx942, &triton).unwrap(),
            compile(&text, gfx942, &CompileOptions::new(4)).unwrap(),
        );
        assert!(c.cost.cycles <= t.cost.cycles && c.cost.instructions <= t.cost.instructions);
        assert_eq!(kernel_cost(&c.kernel), c.cost);
    }
}
