//! `tt.dot_scaled` as a dot of upcast operands: Triton's `DecomposeScaledBlocked`.
//!
//! A microscaling operand is a tensor of narrow floats (`e4m3`, `e5m2`, or `e2m1` packed two to
//! a byte along K) and, per 32 elements along K, one `e8m0` scale byte `s` meaning `2^(s−127)`
//! (`0xFF`: NaN). The dot says `d = (a · 2^(sa−127)) × (b · 2^(sb−127)) + c`. Where the target
//! has no scaled matrix instruction Triton rewrites it, operand by operand, into ops every
//! target has, then one `tt.dot`: upcast to the *compute type* (`f16` if either operand is
//! `fp16`, else `bf16` — exact for every microscaling format, which has at most 4 significant
//! bits), multiply by the scale broadcast over its 32 elements (exact: a power of two), and
//! make a group NaN where its scale byte is `0xFF` (unless `fastMath`). The crate does that on
//! the module without layouts, before any layout is chosen, on every target:
//!
//! ```text
//! %d = tt.dot_scaled %a scale %sa, %b scale %sb, %c lhs = e4m3 rhs = e5m2
//!        : tensor<32x64xf8E4M3FN>, tensor<32x2xi8> * tensor<64x32xf8E5M2>, tensor<32x2xi8> -> tensor<32x32xf32>
//! ```
//!
//! becomes, for `a` (`b` the same with its scale transposed to `2 × 32` first):
//!
//! ```text
//! %a16 = tt.fp_to_fp %a : f8E4M3FN -> bf16                      32×64
//! %s16 = bitcast(extui %sa to i16 << 7) : bf16                  32×2, 2^(s−127) as bf16 bits
//! %sk  = reshape(broadcast(expand_dims %s16 at 2) to 32×2×32)   32×64: each scale on its 32
//! %as  = select(%sa == 0xFF broadcast alike, NaN, %a16 · %sk)
//! %d   = tt.dot %as, %bs, %c : bf16 × bf16 -> f32
//! ```
//!
//! An `e2m1` nibble `sign·e·e·m` becomes its compute-type bits directly: magnitude `v = eem`
//! is 0, ½ (`v = 1`) or `2^((v>>1)−1)·(1 + (v&1)/2)`, whose bf16 pattern is `(v + 252) << 6`
//! (f16: `(v + 28) << 9`); the low nibble of a byte is the earlier element along K. Triton
//! itself decomposes only operands packed along K; so does this pass.

use crate::ttgir::graph::{Def, Graph, OpId, ValueId};
use crate::ttgir::{AttrValue, Module, ValueType, attr};

use super::PassError;
use super::f32_dot::Before;

/// Rewrites every `tt.dot_scaled` of `g` (read as `m`, whose op ids agree with `g`'s) into a
/// `tt.dot` of upcast, scaled operands (see the [module docs](self)); returns how many. An
/// operand of a format it does not decode, or `e2m1` packed across K, is an error at the op.
///
/// ```
/// use linear_layout::heuristics::propagation::decompose_scaled_dots;
/// use linear_layout::ttgir::graph::Graph;
/// let text = r#"
/// module {
///   tt.func @k(%a: tensor<16x64xf8E4M3FN>, %sa: tensor<16x2xi8>, %b: tensor<64x16xbf16>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
///     %d = tt.dot_scaled %a scale %sa, %b, %c lhs = e4m3 rhs = bf16 {fastMath = false} : tensor<16x64xf8E4M3FN>, tensor<16x2xi8> * tensor<64x16xbf16> -> tensor<16x16xf32>
///     tt.return %d : tensor<16x16xf32>
///   }
/// }"#;
/// let (mut g, m) = Graph::parse_with_module(text)?;
/// assert_eq!(decompose_scaled_dots(&mut g, &m)?, 1);
/// let out = g.print()?;
/// assert!(!out.contains("tt.dot_scaled"), "{out}");
/// assert!(out.contains("tt.dot ") && out.contains("tensor<16x64xbf16> * tensor<64x16xbf16> -> tensor<16x16xf32>"), "{out}");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn decompose_scaled_dots(g: &mut Graph, m: &Module) -> Result<usize, PassError> {
    let dots: Vec<OpId> = g
        .walk()
        .into_iter()
        .filter(|&o| g.ops[o].name == "tt.dot_scaled")
        .collect();
    for &dot in &dots {
        let Some(&old) = g.ops[dot].results.first() else {
            return Err(PassError::new(g, Some(dot), "a scaled dot without a result"));
        };
        let result = decompose(g, m, dot).map_err(|e| PassError::new(g, Some(dot), &e))?;
        g.note(dot, "decomposed into a dot of upcast, scaled operands");
        g.replace_all_uses(old, result);
        g.erase_op(dot);
    }
    Ok(dots.len())
}

/// One operand as the dot has it: the value, its scale, its format and its side.
struct Operand {
    value: ValueId,
    scale: Option<ValueId>,
    format: String,
    /// 0: the left operand (K is its last dimension), 1: the right (K is its second last).
    side: usize,
}

/// The `tt.dot` replacing `dot`, built before it; its result.
fn decompose(g: &mut Graph, m: &Module, dot: OpId) -> Result<ValueId, String> {
    let read = m.ops.get(dot).filter(|o| o.name == "tt.dot_scaled");
    let read = read.ok_or("the module read does not match the graph")?;
    let operands = g.ops[dot].operands.clone();
    let attrs = g.ops[dot].attrs.clone();
    let format = |key: &str| match attr(&attrs, key) {
        Some(AttrValue::Raw(f) | AttrValue::Str(f)) => Ok(f.clone()),
        _ => Err(format!("no {key} format")),
    };
    let fast_math = matches!(attr(&attrs, "fastMath"), Some(AttrValue::Int(1)));
    for key in ["lhs_k_pack", "rhs_k_pack"] {
        if matches!(attr(&attrs, key), Some(AttrValue::Int(0))) {
            return Err(format!(
                "{key} = false: e2m1 packed across K is not decomposed (nor by Triton)"
            ));
        }
    }
    // Operands in order: a, its scale (if any), b, its scale (if any), c.
    let is_scale = |k: usize| read.scales.contains(&k);
    let mut values = (0..operands.len()).filter(|&k| !is_scale(k));
    let (Some(a), Some(b), Some(c), None) = (values.next(), values.next(), values.next(), values.next())
    else {
        return Err("expected a, b and an accumulator".to_string());
    };
    let scale_after = |k: usize| operands.get(k + 1).copied().filter(|_| is_scale(k + 1));
    let sides = [
        Operand {
            value: operands[a],
            scale: scale_after(a),
            format: format("lhs")?,
            side: 0,
        },
        Operand {
            value: operands[b],
            scale: scale_after(b),
            format: format("rhs")?,
            side: 1,
        },
    ];
    let compute = if sides.iter().any(|s| s.format == "fp16") {
        "f16"
    } else {
        "bf16"
    };
    let mut before = Before { g, op: dot };
    let a = scaled(&mut before, &sides[0], compute, fast_math)?;
    let b = scaled(&mut before, &sides[1], compute, fast_math)?;
    before.dot(a, b, operands[c], "ieee", "")
}

/// `operand` upcast to `compute`, scaled, its NaN groups masked.
fn scaled(at: &mut Before, operand: &Operand, compute: &str, fast_math: bool) -> Result<ValueId, String> {
    let rank = at.ty(operand.value).shape.len();
    if rank < 2 {
        return Err("an operand of rank below 2".to_string());
    }
    let k_dim = rank - 1 - operand.side;
    let v = upcast(at, operand, compute, k_dim)?;
    let Some(scale) = operand.scale else {
        return Ok(v);
    };
    let i8_scale = at.ty(scale).element == "i8";
    if !i8_scale || at.ty(scale).shape.len() != rank {
        return Err("a scale that is not a tensor of bytes of the operand's rank".to_string());
    }
    // The right operand's scale comes as N × K/32: K moves to its place.
    let scale = if operand.side == 1 {
        let mut order: Vec<usize> = (0..rank).collect();
        order.swap(rank - 2, rank - 1);
        transpose(at, scale, &order)?
    } else {
        scale
    };
    // One scale per 32 elements of K, one per row (column) otherwise.
    let mut covered = at.ty(scale).shape;
    covered[k_dim] = covered[k_dim].saturating_mul(32);
    if covered != at.ty(v).shape {
        return Err(format!(
            "a scale of shape {:?} for an operand of shape {:?}: one scale per 32 elements of K",
            at.ty(scale).shape,
            at.ty(v).shape
        ));
    }
    let factor = scale_factor(at, scale, compute)?;
    let factor = along_k(at, factor, k_dim)?;
    let product = at.binary("arith.mulf", v, factor)?;
    if fast_math {
        return Ok(product);
    }
    let all_ones = splat_int(at, scale, -1)?;
    let nan = at.compare("arith.cmpi", "eq", scale, all_ones)?;
    let nan = along_k(at, nan, k_dim)?;
    let ty = at.ty(product);
    let quiet = if compute == "f16" { "0x7E00" } else { "0x7FC0" };
    let nans = at.op(
        "arith.constant",
        Vec::new(),
        ty,
        &format!("$r = arith.constant dense<{quiet}> : $rt0"),
    )?;
    at.select(nan, nans, product)
}

/// The operand's values in the compute type.
fn upcast(at: &mut Before, operand: &Operand, compute: &str, k_dim: usize) -> Result<ValueId, String> {
    let v = operand.value;
    let element = at.ty(v).element;
    match (operand.format.as_str(), element.as_str()) {
        ("e2m1", "i8") => unpack_fp4(at, v, compute, k_dim),
        ("e4m3", "f8E4M3FN") | ("e5m2", "f8E5M2") | ("bf16", "bf16") | ("fp16", "f16") => {
            if element == compute {
                return Ok(v);
            }
            let ty = at.with_element(v, compute);
            at.op("tt.fp_to_fp", vec![v], ty, "$r = tt.fp_to_fp $0 : $t0 -> $rt0")
        }
        (format, element) => Err(format!("a {format} operand of {element} elements is not decoded")),
    }
}

/// Packed `e2m1` pairs (two to a byte along `k_dim`, the low nibble first) as `compute` values.
fn unpack_fp4(at: &mut Before, packed: ValueId, compute: &str, k_dim: usize) -> Result<ValueId, String> {
    let fifteen = splat_int(at, packed, 15)?;
    let four = splat_int(at, packed, 4)?;
    let low = at.binary("arith.andi", packed, fifteen)?;
    let high = at.binary("arith.shrui", packed, four)?;
    let (low, high) = (fp4_values(at, low, compute)?, fp4_values(at, high, compute)?);
    let mut shape = at.ty(low).shape;
    shape.push(2);
    let joined_ty = ValueType {
        shape: shape.clone(),
        ..at.ty(low)
    };
    let mut pairs = at.op(
        "tt.join",
        vec![low, high],
        joined_ty,
        "$r = tt.join $0, $1 : $t0 -> $rt0",
    )?;
    let rank = shape.len() - 1;
    if k_dim + 1 != rank {
        // The pair's dimension right after K.
        let mut order: Vec<usize> = (0..=k_dim).collect();
        order.push(rank);
        order.extend(k_dim + 1..rank);
        pairs = transpose(at, pairs, &order)?;
    }
    let mut unpacked = at.ty(low);
    unpacked.shape[k_dim] = unpacked.shape[k_dim].saturating_mul(2);
    at.op(
        "tt.reshape",
        vec![pairs],
        unpacked,
        "$r = tt.reshape $0 : $t0 -> $rt0",
    )
}

/// Nibbles (bytes 0–15) as the `compute` values they encode (see the [module docs](self)).
fn fp4_values(at: &mut Before, nibbles: ValueId, compute: &str) -> Result<ValueId, String> {
    // (added to the magnitude, shift, the pattern of ½) in bf16 and in f16.
    let (bias, shift, half) = if compute == "f16" {
        (28, 9, 0x3800)
    } else {
        (252, 6, 0x3F00)
    };
    let ty = at.with_element(nibbles, "i16");
    let wide = at.op(
        "arith.extui",
        vec![nibbles],
        ty,
        "$r = arith.extui $0 : $t0 to $rt0",
    )?;
    let eight = splat_int(at, wide, 8)?;
    let seven = splat_int(at, wide, 7)?;
    let twelve = splat_int(at, wide, 12)?;
    let sign = at.binary("arith.andi", wide, eight)?;
    let sign = at.binary("arith.shli", sign, twelve)?;
    let magnitude = at.binary("arith.andi", wide, seven)?;
    let bias = splat_int(at, wide, bias)?;
    let shift = splat_int(at, wide, shift)?;
    let normal = at.binary("arith.addi", magnitude, bias)?;
    let normal = at.binary("arith.shli", normal, shift)?;
    let mut bits = normal;
    for (code, pattern) in [(1, half), (0, 0)] {
        let code = splat_int(at, wide, code)?;
        let pattern = splat_int(at, wide, pattern)?;
        let is = at.compare("arith.cmpi", "eq", magnitude, code)?;
        bits = at.select(is, pattern, bits)?;
    }
    let bits = at.binary("arith.ori", bits, sign)?;
    let ty = at.with_element(bits, compute);
    at.op("tt.bitcast", vec![bits], ty, "$r = tt.bitcast $0 : $t0 -> $rt0")
}

/// Scale bytes `s` as `2^(s−127)` in `compute` (Triton's `scaleTo16`: the byte becomes the
/// exponent field, so 0 is +0 and 0xFF +∞ — the NaN mask takes care of 0xFF).
fn scale_factor(at: &mut Before, scale: ValueId, compute: &str) -> Result<ValueId, String> {
    let (int, float, shift) = if compute == "f16" {
        ("i32", "f32", 23)
    } else {
        ("i16", "bf16", 7)
    };
    let ty = at.with_element(scale, int);
    let wide = at.op(
        "arith.extui",
        vec![scale],
        ty,
        "$r = arith.extui $0 : $t0 to $rt0",
    )?;
    let shift = splat_int(at, wide, shift)?;
    let bits = at.binary("arith.shli", wide, shift)?;
    let ty = at.with_element(bits, float);
    let factor = at.op("tt.bitcast", vec![bits], ty, "$r = tt.bitcast $0 : $t0 -> $rt0")?;
    if float == compute {
        return Ok(factor);
    }
    let ty = at.with_element(factor, compute);
    at.op(
        "arith.truncf",
        vec![factor],
        ty,
        "$r = arith.truncf $0 : $t0 to $rt0",
    )
}

/// A per-group tensor (K/32 along `k_dim`) with each entry repeated over its 32 elements.
fn along_k(at: &mut Before, grouped: ValueId, k_dim: usize) -> Result<ValueId, String> {
    let ty = at.ty(grouped);
    let mut expanded = ty.clone();
    expanded.shape.insert(k_dim + 1, 1);
    let e = at.op(
        "tt.expand_dims",
        vec![grouped],
        expanded.clone(),
        &format!(
            "$r = tt.expand_dims $0 {{axis = {} : i32}} : $t0 -> $rt0",
            k_dim + 1
        ),
    )?;
    with_attr(at, e, "axis", AttrValue::Int(k_dim as i64 + 1));
    let mut broadcast = expanded;
    broadcast.shape[k_dim + 1] = 32;
    let b = at.op(
        "tt.broadcast",
        vec![e],
        broadcast,
        "$r = tt.broadcast $0 : $t0 -> $rt0",
    )?;
    let mut flat = ty;
    flat.shape[k_dim] = flat.shape[k_dim].saturating_mul(32);
    at.op("tt.reshape", vec![b], flat, "$r = tt.reshape $0 : $t0 -> $rt0")
}

/// `tt.trans` of `v` by `order`.
fn transpose(at: &mut Before, v: ValueId, order: &[usize]) -> Result<ValueId, String> {
    let mut ty = at.ty(v);
    ty.shape = order.iter().map(|&d| at.ty(v).shape[d]).collect();
    let text: Vec<String> = order.iter().map(ToString::to_string).collect();
    let t = at.op(
        "tt.trans",
        vec![v],
        ty,
        &format!(
            "$r = tt.trans $0 {{order = array<i32: {}>}} : $t0 -> $rt0",
            text.join(", ")
        ),
    )?;
    with_attr(
        at,
        t,
        "order",
        AttrValue::Ints(order.iter().map(|&d| d as i64).collect()),
    );
    Ok(t)
}

/// Records attribute `name` on the op defining `v`, as the reader would have read it from the
/// op's text (the passes query attributes, not text).
fn with_attr(at: &mut Before, v: ValueId, name: &str, value: AttrValue) {
    if let Def::Result { op, .. } = at.g.values[v].def {
        at.g.ops[op].attrs.push((name.to_string(), value));
    }
}

/// A constant of `like`'s type, every element `value`.
fn splat_int(at: &mut Before, like: ValueId, value: i64) -> Result<ValueId, String> {
    let ty = at.ty(like);
    at.op(
        "arith.constant",
        Vec::new(),
        ty,
        &format!("$r = arith.constant dense<{value}> : $rt0"),
    )
}
