//! Kernels broken on purpose: the interpreter's check must catch each mutation.

mod lower_common;

use linear_layout::lower::{Dtype, Op, convert_kernel};
use linear_layout::target::Target;
use lower_common::*;

fn blocked(
    spt: [u32; 2],
    tpw: [u32; 2],
    wpc: [u32; 2],
    order: [u32; 2],
    shape: &[u64],
) -> linear_layout::linear::LinearLayout {
    let j = format!(
        r#"{{"kind": "blocked", "sizePerThread": {spt:?}, "threadsPerWarp": {tpw:?}, "warpsPerCTA": {wpc:?}, "order": {order:?}}}"#
    );
    let v: serde_json::Value = serde_json::from_str(&j).unwrap();
    linear_layout::encodings::Encoding::from_json(&v)
        .unwrap()
        .to_linear_layout(shape)
        .unwrap()
}

/// The 64x64 f32 transpose of codegen-anchor.md through LDS on gfx942.
fn transpose() -> (
    linear_layout::linear::LinearLayout,
    linear_layout::linear::LinearLayout,
) {
    (
        blocked([1, 4], [4, 16], [4, 1], [1, 0], &[64, 64]),
        blocked([4, 1], [16, 4], [1, 4], [0, 1], &[64, 64]),
    )
}

#[test]
fn the_unmodified_kernel_passes() {
    let (src, dst) = transpose();
    let k = convert_kernel(
        &src,
        &dst,
        &[64, 64],
        Dtype::F32,
        Target::by_name("gfx942").unwrap(),
    )
    .unwrap();
    check(&k, &dst, &[64, 64], Dtype::F32, 7).unwrap();
}

#[test]
fn a_wrong_xor_constant_in_an_lds_address_is_caught() {
    let (src, dst) = transpose();
    let mut caught = 0;
    let k = convert_kernel(
        &src,
        &dst,
        &[64, 64],
        Dtype::F32,
        Target::by_name("gfx942").unwrap(),
    )
    .unwrap();
    let reads: Vec<usize> = (0..k.program.ops.len())
        .filter(|&i| matches!(k.program.ops[i], Op::LdsRead { .. }))
        .collect();
    assert!(!reads.is_empty());
    for &i in &reads {
        for bit in 2..12 {
            let mut bad = k.clone();
            if let Op::LdsRead { address, .. } = &mut bad.program.ops[i] {
                address.constant ^= 1 << bit;
            }
            if check(&bad, &dst, &[64, 64], Dtype::F32, 7).is_err() {
                caught += 1;
            }
        }
    }
    assert_eq!(caught, reads.len() * 10, "every flipped address bit is caught");
}

#[test]
fn a_skipped_conversion_is_caught() {
    // Storing through SRC's registers (the conversion left out) still copies the tensor, but the
    // registers are not DST's.
    let (src, dst) = transpose();
    let skipped = convert_kernel(
        &src,
        &src,
        &[64, 64],
        Dtype::F32,
        Target::by_name("gfx942").unwrap(),
    )
    .unwrap();
    let e = check(&skipped, &dst, &[64, 64], Dtype::F32, 7).unwrap_err();
    assert!(e.contains("regs"), "{e}");
}

#[test]
fn a_missing_barrier_is_caught() {
    let (src, dst) = transpose();
    let mut k = convert_kernel(
        &src,
        &dst,
        &[64, 64],
        Dtype::F32,
        Target::by_name("gfx942").unwrap(),
    )
    .unwrap();
    k.program.ops.retain(|op| !matches!(op, Op::Barrier));
    let e = check(&k, &dst, &[64, 64], Dtype::F32, 7).unwrap_err();
    assert!(e.contains("barrier"), "{e}");
}

#[test]
fn a_wrong_lane_in_a_shuffle_is_caught() {
    // Registers and lanes trade places within a warp: a ds_bpermute shuffle.
    let src = blocked([1, 4], [8, 8], [1, 1], [1, 0], &[32, 32]);
    let dst = blocked([4, 1], [8, 8], [1, 1], [0, 1], &[32, 32]);
    let k = convert_kernel(
        &src,
        &dst,
        &[32, 32],
        Dtype::F16,
        Target::by_name("gfx942").unwrap(),
    )
    .unwrap();
    let shuffles: Vec<usize> = (0..k.program.ops.len())
        .filter(|&i| matches!(k.program.ops[i], Op::Bpermute { .. }))
        .collect();
    assert!(!shuffles.is_empty(), "{:?}", k.program.op_counts());
    check(&k, &dst, &[32, 32], Dtype::F16, 3).unwrap();
    for &i in &shuffles {
        let mut bad = k.clone();
        if let Op::Bpermute { lane, .. } = &mut bad.program.ops[i] {
            lane.constant ^= 1;
        }
        assert!(check(&bad, &dst, &[32, 32], Dtype::F16, 3).is_err());
    }
}
