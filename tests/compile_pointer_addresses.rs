//! Addresses taken from pointers (`tt.ptr_to_int`) and pointers read as another element type
//! (`tt.bitcast`), compiled from TTIR: a scalar pointer's address to choose a path by its
//! alignment, a tensor of pointers' addresses less the base's, a float tensor's bytes. Each
//! kernel is `make_ttir`'s output of a kernel in `scripts/zoo2/gen19.py` or `gen20.py` (Triton
//! 3.6.0; the zoo's fixtures), run in the interpreter — which places argument buffer `k` at
//! `interpreted_address(k)` — and accepted by llc-22.

mod lower_common;

use linear_layout::lower::interpreted_address;
use lower_common::constructs::{ARCHS, compiled, float, floats, run, word};

fn ttir(name: &str) -> String {
    let path = format!("tests/fixtures/compile/zoo/{name}.gfx942.ttir");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `if x_ptr.to(tl.int64, bitcast=True) % 16 == 0: y = 2x else: y = 3x`: the interpreter's
/// buffers lie at aligned addresses, so every element doubles.
#[test]
fn a_pointers_address_chooses_a_path() {
    assert_eq!(interpreted_address(0) % 16, 0);
    let x: Vec<f32> = (0..1024).map(|i| (i % 37) as f32 - 18.0).collect();
    for arch in ARCHS {
        let k = compiled(&ttir("align_dispatch_256_f32"), arch);
        let mut buffers = vec![floats(&x), floats(&[7.5; 1024])];
        run(&k, &mut buffers, &[1000], 4);
        for (i, &v) in x.iter().enumerate() {
            let want = if i < 1000 { 2.0 * v } else { 7.5 };
            assert_eq!(float(&buffers[1], i), want, "{arch}: element {i}");
        }
    }
}

/// `(x_ptr + offs).to(tl.int64, bitcast=True) - x_ptr.to(tl.int64, bitcast=True)`: each
/// element's byte offset, `4 · offs`.
#[test]
fn a_tensor_of_pointers_has_an_address_per_element() {
    for arch in ARCHS {
        let k = compiled(&ttir("pointer_bytes_128_f32"), arch);
        let mut buffers = vec![vec![0; 384 * 4], vec![0; 384 * 4]];
        run(&k, &mut buffers, &[300], 3);
        for i in 0..384 {
            let want = if i < 300 { 4 * i as u32 } else { 0 };
            assert_eq!(word(&buffers[1], i), want, "{arch}: element {i}");
        }
    }
}

/// `x_ptr.to(tl.pointer_type(tl.uint8))`: a float tensor's memory read a byte at a time —
/// byte 3 of float `i` is byte `4i + 3`, its sign and high exponent bits.
#[test]
fn a_pointer_read_as_another_element_size_reads_the_same_bytes() {
    let x: Vec<f32> = (0..64).map(|i| (i as f32 - 31.5) * 1.5e3).collect();
    for arch in ARCHS {
        let k = compiled(&ttir("byte_view_64_f32"), arch);
        let mut buffers = vec![floats(&x), vec![0; 64 * 4]];
        run(&k, &mut buffers, &[], 1);
        for (i, v) in x.iter().enumerate() {
            let want = u32::from(v.to_le_bytes()[3]);
            assert_eq!(word(&buffers[1], i), want, "{arch}: element {i}");
        }
    }
}

/// The same bytes through a tensor of pointers reinterpreted (`(x_ptr + offs)` read as
/// `uint8`): each float pointer is four byte pointers on, so element `i` reads byte `4i + 3`.
#[test]
fn a_tensor_of_pointers_read_as_bytes_scales_its_offsets() {
    let text = r#"module {
  tt.func public @tensor_byte_view(%x_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<i32>) {
    %three = arith.constant dense<3> : tensor<64xi32>
    %offs = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
    %xs = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>
    %p = tt.addptr %xs, %offs : tensor<64x!tt.ptr<f32>>, tensor<64xi32>
    %b = tt.bitcast %p : tensor<64x!tt.ptr<f32>> -> tensor<64x!tt.ptr<i8>>
    %b3 = tt.addptr %b, %three : tensor<64x!tt.ptr<i8>>, tensor<64xi32>
    %v = tt.load %b3 : tensor<64x!tt.ptr<i8>>
    %os = tt.splat %out_ptr : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>>
    %o = tt.addptr %os, %offs : tensor<64x!tt.ptr<i32>>, tensor<64xi32>
    %w = arith.extui %v : tensor<64xi8> to tensor<64xi32>
    tt.store %o, %w : tensor<64x!tt.ptr<i32>>
    tt.return
  }
}"#;
    let x: Vec<f32> = (0..64).map(|i| (31.5 - i as f32) * 2.5e-3).collect();
    for arch in ARCHS {
        let k = compiled(text, arch);
        let mut buffers = vec![floats(&x), vec![0; 64 * 4]];
        run(&k, &mut buffers, &[], 1);
        for (i, v) in x.iter().enumerate() {
            let want = u32::from(v.to_le_bytes()[3]);
            assert_eq!(word(&buffers[1], i), want, "{arch}: element {i}");
        }
    }
}
