//! Addresses taken from pointers (`tt.ptr_to_int`), compiled from TTIR: a scalar pointer's
//! address to choose a path by its alignment, and a tensor of pointers' addresses less the
//! base's. Each kernel is `make_ttir`'s output of a kernel in `scripts/zoo2/gen19.py` (Triton
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
