//! Loops that carry pointers as people write them, compiled from TTIR: a scalar pointer whose
//! buffer changes (two buffers swapped each sweep, in a `for` and in a `while`; a pointer
//! reassigned from a flag) is carried by its address, and a tensor of pointers moved per element
//! (strides that grow, steps loaded from memory) by an index per element. Each kernel is
//! `make_ttir`'s output of a kernel in `scripts/zoo2/gen18.py` (Triton 3.6.0; the zoo's fixtures),
//! run in the interpreter against the computation written out here, and accepted by llc-22.

mod lower_common;

use linear_layout::lower::Op;
use lower_common::constructs::{ARCHS, compiled, float, floats, run, words};

fn ttir(name: &str) -> String {
    let path = format!("tests/fixtures/compile/zoo/{name}.gfx942.ttir");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Values with a fraction of a quarter: sums of a few stay exact in f32.
fn data(n: usize, seed: usize) -> Vec<f32> {
    (0..n)
        .map(|i| ((i * 37 + seed * 11) % 29) as f32 * 0.25 - 3.5)
        .collect()
}

/// One sweep of the stencil `(l + c + r) · 0.25`, zero beyond the ends.
fn sweep(src: &[f32]) -> Vec<f32> {
    let n = src.len();
    (0..n)
        .map(|i| {
            let l = if i > 0 { src[i - 1] } else { 0.0 };
            let r = if i + 1 < n { src[i + 1] } else { 0.0 };
            (l + src[i] + r) * 0.25
        })
        .collect()
}

/// `src, dst = dst, src` after each of five sweeps: the pointers' buffers trade places in the
/// loop, and the last sweep lands in `b`.
#[test]
fn buffers_swapped_each_iteration_are_carried_by_address() {
    let text = ttir("pingpong_256_f32");
    let a0 = data(256, 1);
    for arch in ARCHS {
        let k = compiled(&text, arch);
        let mut buffers = vec![floats(&a0), floats(&[7.5; 256])];
        run(&k, &mut buffers, &[5], 1);
        let mut bufs = [a0.clone(), vec![7.5; 256]];
        for s in 0..5 {
            bufs[1 - s % 2] = sweep(&bufs[s % 2]);
        }
        for (b, want) in bufs.iter().enumerate() {
            for (i, &w) in want.iter().enumerate() {
                assert_eq!(float(&buffers[b], i), w, "{arch}: buffer {b}, element {i}");
            }
        }
    }
}

/// The same swap in a `while` that stops when a sweep changes no element by more than `tol`;
/// the result is read back through the pointer the loop leaves, and the sweep count is added.
/// Triton 3.6 aborts on this kernel (its pointer canonicalization fails).
#[test]
fn a_pointer_swapped_in_a_while_loop_is_read_after_it() {
    let text = ttir("pingpong_while_128_f32");
    let a0 = data(128, 2);
    let tol = 0.5f32;
    for arch in ARCHS {
        let k = compiled(&text, arch);
        let mut buffers = vec![floats(&a0), floats(&[7.5; 128]), floats(&[7.5; 128])];
        run(&k, &mut buffers, &[u64::from(tol.to_bits())], 1);
        let mut bufs = [a0.clone(), vec![7.5; 128]];
        let (mut s, mut sweeps, mut delta) = (0, 0, tol + 1.0);
        while delta > tol && sweeps < 50 {
            let next = sweep(&bufs[s]);
            delta = next
                .iter()
                .zip(&bufs[s])
                .map(|(n, c)| (n - c).abs())
                .fold(0.0, f32::max);
            bufs[1 - s] = next;
            s = 1 - s;
            sweeps += 1;
        }
        assert!(sweeps > 1, "the loop runs more than once");
        for (i, &v) in bufs[s].iter().enumerate() {
            assert_eq!(float(&buffers[2], i), v + sweeps as f32, "{arch}: element {i}");
        }
    }
}

/// `p = y if flags[i] else x` each iteration: a pointer chosen at run time, carried.
#[test]
fn a_pointer_chosen_from_a_flag_each_iteration_is_carried() {
    let text = ttir("flag_switch_64_f32");
    let (x, y) = (data(64 * 6, 3), data(64 * 6, 4));
    let flags = [0u32, 1, 1, 0, 1, 0];
    for arch in ARCHS {
        let k = compiled(&text, arch);
        let mut buffers = vec![floats(&x), floats(&y), words(&flags), vec![0; 64 * 4]];
        run(&k, &mut buffers, &[6], 1);
        for c in 0..64 {
            let (mut acc, mut from_y) = (0.0f32, false);
            for (i, &flag) in flags.iter().enumerate() {
                acc += if from_y { y[i * 64 + c] } else { x[i * 64 + c] };
                from_y = flag != 0;
            }
            assert_eq!(float(&buffers[3], c), acc, "{arch}: element {c}");
        }
    }
}

/// `p += offs + 1` (the strides grow) and `p += steps[i·N + offs] + 3` (steps loaded): element
/// `c` of iteration `i` reads `x[(i + 1)·c + i]`, and `x[c + Σ (step + 3)]`.
#[test]
fn pointers_moved_per_element_are_carried_with_an_index() {
    let x = data(64 * 20, 5);
    let steps: Vec<u32> = (0..64 * 4).map(|i: i32| (i * 5 % 7 - 3) as u32).collect();
    for arch in ARCHS {
        let k = compiled(&ttir("growing_stride_64_f32"), arch);
        let mut buffers = vec![floats(&x), vec![0; 64 * 4]];
        run(&k, &mut buffers, &[4], 1);
        for c in 0..64 {
            let want: f32 = (0..4).map(|i| x[(i + 1) * c + i]).sum();
            assert_eq!(
                float(&buffers[1], c),
                want,
                "{arch}: growing strides, element {c}"
            );
        }
        let k = compiled(&ttir("data_step_64_f32"), arch);
        let mut buffers = vec![floats(&x), words(&steps), vec![0; 64 * 4]];
        run(&k, &mut buffers, &[4], 1);
        for c in 0..64 {
            let (mut acc, mut at) = (0.0f32, c as i64);
            for i in 0..4 {
                acc += x[at as usize];
                at += i64::from(steps[i * 64 + c] as i32) + 3;
            }
            assert_eq!(float(&buffers[2], c), acc, "{arch}: loaded steps, element {c}");
        }
    }
}

/// `p = y_ptr + |steps[i]| · 16` each iteration, `p = x_ptr` before: a scalar pointer that
/// changes buffer and is moved by an offset loaded from memory, carried by its address.
#[test]
fn a_pointer_moved_by_a_loaded_offset_into_another_buffer_is_carried() {
    let text = r#"module {
  tt.func public @loaded_switch_kernel(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %y_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %step_ptr: !tt.ptr<i32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %out_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32, tt.pointer_range = 32 : i32}, %n: i32) attributes {noinline = false} {
    %acc = arith.constant dense<0.000000e+00> : tensor<64xf32>
    %c1_i32 = arith.constant 1 : i32
    %c0_i32 = arith.constant 0 : i32
    %c16_i32 = arith.constant 16 : i32
    %offs = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %acc_0:2 = scf.for %i = %c0_i32 to %n step %c1_i32 iter_args(%p = %x_ptr, %acc_1 = %acc) -> (!tt.ptr<f32>, tensor<64xf32>)  : i32 {
      %acc_2 = tt.splat %p : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
      %acc_3 = tt.addptr %acc_2, %offs : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
      %acc_4 = tt.load %acc_3 : tensor<64x!tt.ptr<f32>>
      %acc_5 = arith.addf %acc_1, %acc_4 : tensor<64xf32>
      %p_6 = tt.addptr %step_ptr, %i : !tt.ptr<i32>, i32
      %p_7 = tt.load %p_6 : !tt.ptr<i32>
      %p_8 = math.absi %p_7 : i32
      %p_9 = arith.muli %p_8, %c16_i32 : i32
      %p_10 = tt.addptr %y_ptr, %p_9 : !tt.ptr<f32>, i32
      scf.yield %p_10, %acc_5 : !tt.ptr<f32>, tensor<64xf32>
    }
    %0 = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %1 = tt.addptr %0, %offs : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    tt.store %1, %acc_0#1 : tensor<64x!tt.ptr<f32>>
    tt.return
  }
}"#;
    let (x, y) = (data(64, 6), data(256, 7));
    let steps = [2u32, (-1i32) as u32, 0, 3];
    for arch in ARCHS {
        let k = compiled(text, arch);
        let mut buffers = vec![floats(&x), floats(&y), words(&steps), vec![0; 64 * 4]];
        run(&k, &mut buffers, &[4], 1);
        for c in 0..64 {
            let mut acc = x[c];
            for &s in &steps[..3] {
                acc += y[(s as i32).unsigned_abs() as usize * 16 + c];
            }
            assert_eq!(float(&buffers[3], c), acc, "{arch}: element {c}");
        }
    }
}

/// A `while` loop reading, each iteration, the buffer an `if` picks (`p = b if k % 2 == 0 else
/// a`: carried by its address). Its test does not read the pointer, so the buffer is bound at
/// the top of the body rather than in the test's region, which leaves that region free to be
/// copied below the body: the loop rotated, its test at the bottom.
#[test]
fn a_pointer_alternated_in_a_while_loop_is_bound_in_its_body() {
    let text = ttir("while_alternate_64_f32");
    let (a, b) = (data(320, 3), data(320, 4));
    let binds = |ops: &[Op]| ops.iter().filter(|o| matches!(o, Op::BindBuffer { .. })).count();
    for arch in ARCHS {
        let k = compiled(&text, arch);
        let loops: Vec<(&[Op], &[Op])> = k
            .program
            .ops
            .iter()
            .filter_map(|op| match op {
                Op::While { before, after, .. } => Some((before.as_slice(), after.as_slice())),
                _ => None,
            })
            .collect();
        assert_eq!(loops.len(), 1, "{arch}: one while loop");
        assert_eq!(
            binds(loops[0].0),
            0,
            "{arch}: a buffer bound in the test's region"
        );
        assert_eq!(binds(loops[0].1), 1, "{arch}: the buffer bound in the body");
        let mut buffers = vec![floats(&a), floats(&b), floats(&[0.0; 64])];
        run(&k, &mut buffers, &[5], 1);
        for j in 0..64 {
            let want: f32 = (0..5)
                .map(|k| if k % 2 == 0 { a[k * 64 + j] } else { b[k * 64 + j] })
                .sum();
            assert_eq!(float(&buffers[2], j), want, "{arch}: element {j}");
        }
    }
}
