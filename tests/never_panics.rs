//! No input reaches a panic: random (also malformed) layouts, names, sizes and requests are
//! driven through every public operation and the batch protocol; each call must return.

use std::panic::{AssertUnwindSafe, catch_unwind};

use linear_layout::batch::answer_line;
use linear_layout::linear::*;
use quickcheck::{Arbitrary, Gen, QuickCheck};

const NAMES: &[&str] = &[
    "register", "lane", "warp", "block", "offset", "dim0", "dim1", "x", "",
];
const VALUES: &[i64] = &[
    -1,
    0,
    1,
    2,
    3,
    4,
    5,
    8,
    16,
    1 << 30,
    1 << 31,
    1 << 62,
    i64::MAX,
    i64::MIN,
];
const SIZES: &[u64] = &[0, 1, 2, 3, 4, 8, 16, 1 << 31, 1 << 40, 1 << 63, u64::MAX];

fn pick<T: Copy>(g: &mut Gen, from: &[T]) -> T {
    *g.choose(from).unwrap()
}

fn name(g: &mut Gen) -> &'static str {
    pick(g, NAMES)
}

fn names(g: &mut Gen) -> Vec<&'static str> {
    (0..usize::arbitrary(g) % 4).map(|_| name(g)).collect()
}

fn sized(g: &mut Gen) -> Vec<(&'static str, u64)> {
    (0..usize::arbitrary(g) % 4)
        .map(|_| (name(g), pick(g, SIZES)))
        .collect()
}

/// A layout that may or may not be valid: random names, components and sizes.
fn wild_layout(g: &mut Gen) -> Result<LinearLayout, LayoutError> {
    let outs: Vec<(&str, i64)> = (0..usize::arbitrary(g) % 4)
        .map(|_| (name(g), pick(g, VALUES)))
        .collect();
    let ins: Vec<(&str, Vec<Vec<i64>>)> = (0..usize::arbitrary(g) % 4)
        .map(|_| {
            let n = usize::arbitrary(g) % 5;
            let bases = (0..n)
                .map(|_| (0..usize::arbitrary(g) % 4).map(|_| pick(g, VALUES)).collect())
                .collect();
            (name(g), bases)
        })
        .collect();
    if bool::arbitrary(g) {
        LinearLayout::from_bases(ins, outs.iter().map(|&(n, s)| (n, s)), bool::arbitrary(g))
    } else {
        LinearLayout::from_bases_inferred(ins, outs.iter().map(|&(n, _)| n))
    }
}

fn any_layout(g: &mut Gen) -> LinearLayout {
    match wild_layout(g) {
        Ok(l) if bool::arbitrary(g) => l,
        _ => LinearLayout::arbitrary(g),
    }
}

/// Every public operation, with random arguments. Results are ignored: only returning counts.
fn exercise(g: &mut Gen) {
    let a = any_layout(g);
    let b = any_layout(g);
    let n = name(g);
    let size = pick(g, SIZES);
    let _ = a.apply(&sized(g));
    let _ = a.apply_flat(u64::arbitrary(g));
    let flat: Vec<u64> = (0..usize::arbitrary(g) % 5).map(|_| u64::arbitrary(g)).collect();
    let _ = LinearLayout::from_flat_bases([(n, flat.as_slice())], sized(g), bool::arbitrary(g));
    let _ = (
        a.compose(&b),
        a.invert_and_compose(&b),
        a.invert(),
        a.pseudoinvert(),
        a.product(&b),
    );
    let _ = (divide_left(&a, &b), divide_right(&a, &b));
    let _ = (a.quotient(&names(g)), a.is_trivial_over(&names(g)));
    let _ = (
        a.sublayout(&names(g), &names(g)),
        a.sublayout_is_zero(&names(g), &names(g)),
    );
    let _ = (a.transpose_ins(&names(g)), a.transpose_outs(&names(g)));
    let _ = (
        a.reshape_ins(&sized(g)),
        a.reshape_outs(&sized(g)),
        a.flatten_ins(),
        a.flatten_outs(),
    );
    let _ = (a.resize_in_dim(n, size), a.resize_out_dim(n, size));
    let _ = (
        a.concat_ins(&b),
        a.concat_outs(&b),
        a.squeeze_in(n),
        a.squeeze_out(n),
    );
    let _ = (
        a.remove_zero_bases_along_dim(n),
        a.rename_in_dim(n, name(g)),
        a.rename_out_dim(n, name(g)),
    );
    let _ = (
        a.square_sublayout_is_identity(&names(g)),
        a.free_variable_masks(),
        a.num_consecutive_in_out(),
    );
    let _ = (
        a.bases(n),
        a.basis(n, usize::arbitrary(g) % 70),
        a.flat_bases(n),
        a.matrix_view(),
    );
    let _ = (
        a.in_dim_size(n),
        a.out_dim_size(n),
        a.out_dim_index(n),
        a.rank(),
        a.is_invertible(),
    );
    let _ = (
        a.to_string(),
        serde_json::to_string(&a),
        a.equal_ignoring_out_dim_sizes(&b),
    );
    let order: Vec<usize> = (0..usize::arbitrary(g) % 4)
        .map(|_| usize::arbitrary(g) % 5)
        .collect();
    let shape: Vec<u64> = (0..order.len()).map(|_| pick(g, SIZES)).collect();
    let _ = identity_standard_nd(n, &shape, &order);
    let _ = (
        transpose_linear_layout(&a, &order),
        reshape_layout(&a, &shape),
        remove_standard_dim(&a, size as usize),
    );
    let _ = ensure_layout_not_larger_than(&a, &sized(g), bool::arbitrary(g));
    let _ = ensure_layout_not_smaller_than(&a, &sized(g));
    let _ = (
        get_reps(&a, &b),
        reg_perm_for_divide(&a, &b, bool::arbitrary(g)),
        action_remove_broadcasted_regs(&a),
    );
    let _ = largest_vectorisation(
        &a,
        pick(g, &[0u32, 1, 8, 16, 32, 200]),
        Some(size).filter(|_| bool::arbitrary(g)),
    );
    let _ = (
        factor_through(&a, &b),
        is_linear_layout_image_subset(&a, &b),
        zeros_like(&a),
    );
    let _ = (basis_mask(&a, &names(g), n), input_basis_mask(&a, n, &names(g)));
    let _ = factor_maximal_identity_prefix(&a, n, name(g), size);
    let _ = (
        integer_strides(&a, n, &names(g)),
        invert_and_compose_block_local(&a, &b),
        basis_permutation_layout(&a, &b),
    );
    let _ = rename_dims(&a, &[(n, name(g))], &[(name(g), name(g))]);
    let action: Vec<usize> = (0..usize::arbitrary(g) % 6)
        .map(|_| usize::arbitrary(g) % 8)
        .collect();
    if let Ok(c) = ColumnAction::new(action, n, (usize::arbitrary(g) % 8) as u32) {
        let values: Vec<u8> = (0..usize::arbitrary(g) % 20).map(|_| 0).collect();
        let _ = (
            c.apply(&a),
            c.apply_values(&values),
            c.inverse(),
            c.left_compose(&c),
            c.to_string(),
        );
    }
}

#[test]
fn no_public_operation_panics() {
    fn law(seed: u64) -> bool {
        let mut g = Gen::new(16 + (seed % 8) as usize);
        catch_unwind(AssertUnwindSafe(|| exercise(&mut g))).is_ok()
    }
    QuickCheck::new().tests(5000).quickcheck(law as fn(u64) -> bool);
}

/// A request line: a random op with random members, some of them layouts, some garbage.
fn wild_request(g: &mut Gen) -> String {
    let ops: Vec<&str> = linear_layout::batch::OPS
        .iter()
        .copied()
        .chain(["nope", ""])
        .collect();
    let layout_json = |g: &mut Gen| -> String {
        match wild_layout(g) {
            Ok(l) => serde_json::to_string(&l).unwrap(),
            Err(_) => {
                let junk = [
                    "{}",
                    "[]",
                    "1",
                    "null",
                    "{\"in_dims\": {\"x\": [[1e40]]}, \"out_dims\": {\"y\": 2}}",
                    "{\"in_dims\": {\"x\": [[-5]]}, \"out_dims\": {\"y\": -2}}",
                    "{\"in_dims\": [], \"out_dims\": {}}",
                ];
                pick(g, &junk).to_string()
            }
        }
    };
    let mut text = format!(
        "{{\"op\": \"{}\", \"layout\": {}, \"outer\": {}, \"other\": {}, \"inputs\": {{\"{}\": {}}}}}",
        pick(g, ops.as_slice()),
        layout_json(g),
        layout_json(g),
        layout_json(g),
        name(g),
        pick(g, VALUES)
    );
    if u8::arbitrary(g) % 5 == 0 {
        let cut = usize::arbitrary(g) % text.len();
        text.truncate(cut);
    }
    text
}

#[test]
fn no_batch_request_panics_and_every_answer_has_ok() {
    fn law(seed: u64, raw: Vec<u8>) -> bool {
        let mut g = Gen::new(16 + (seed % 8) as usize);
        let request = wild_request(&mut g);
        catch_unwind(|| {
            let a = answer_line(&request);
            let b = answer_line(&String::from_utf8_lossy(&raw));
            a["ok"].is_boolean() && b["ok"] == false
        })
        .unwrap_or(false)
    }
    QuickCheck::new()
        .tests(5000)
        .quickcheck(law as fn(u64, Vec<u8>) -> bool);
}
