//! Data in registers: element-wise arithmetic, type conversions, moves between layouts
//! (`ttg.convert_layout`, `amdg.in_thread_transpose`), broadcasts, and `tt.dot`.
//!
//! A data tensor is one [`Value`] per register of its layout ([`Sym::Data`]). Element-wise
//! operations keep the layout (TTGIR gives both operands the same encoding) and act register by
//! register. `tt.expand_dims` and `tt.broadcast` of data move nothing where each register of
//! the result holds an element some register of the same thread already holds, and convert
//! first where not ([`Lowering::regather`]).

use super::{Lowering, Sym, fail};
use crate::encodings::Encoding;
use crate::lower::error::LowerError;
use crate::lower::ir::{ArithOp, Bessel, Op as ProgramOp, Predicate, Uniform, Value};
use crate::lower::plan::convert;
use crate::lower::plan::dist::Dist;
use crate::lower::plan::fma::fma_dot;
use crate::lower::plan::matmul::{chain, instruction_for};
use crate::lower::plan::mma::plan_dot;
use crate::ttgir::{AttrValue, Op, ValueDef, op_place};

/// The instruction table's name of a float or integer element type.
pub(super) fn numeric_type(name: &str) -> Option<&'static str> {
    ["f64", "f32", "f16", "bf16", "i64", "i32", "i16", "i8", "i1"]
        .into_iter()
        .find(|&t| t == name)
}

/// The element-wise operation of an `arith` / `math` / `tt` op on data.
pub(super) fn arith_op(name: &str) -> Option<ArithOp> {
    Some(match name {
        "arith.addf" | "arith.addi" => ArithOp::Add,
        "arith.subf" | "arith.subi" => ArithOp::Sub,
        "arith.mulf" | "arith.muli" => ArithOp::Mul,
        "arith.divf" | "arith.divsi" | "tt.precise_divf" => ArithOp::Div,
        "arith.divui" => ArithOp::DivU,
        "arith.remf" | "arith.remsi" => ArithOp::RemS,
        "arith.remui" => ArithOp::RemU,
        "arith.maxnumf" | "arith.maxsi" => ArithOp::Max,
        "arith.minnumf" | "arith.minsi" => ArithOp::Min,
        "arith.maxui" => ArithOp::MaxU,
        "arith.minui" => ArithOp::MinU,
        "arith.maximumf" => ArithOp::Maximum,
        "arith.minimumf" => ArithOp::Minimum,
        "arith.andi" => ArithOp::And,
        "arith.ori" => ArithOp::Or,
        "arith.xori" => ArithOp::Xor,
        "arith.shli" => ArithOp::Shl,
        "arith.shrsi" => ArithOp::ShrS,
        "arith.shrui" => ArithOp::ShrU,
        "tt.mulhiui" => ArithOp::MulHiU,
        "arith.negf" => ArithOp::Neg,
        "math.absf" | "math.absi" => ArithOp::Abs,
        "math.exp" => ArithOp::Exp,
        "math.exp2" => ArithOp::Exp2,
        "math.log" => ArithOp::Log,
        "math.log2" => ArithOp::Log2,
        "math.log10" => ArithOp::Log10,
        "math.sqrt" => ArithOp::FastSqrt,
        "tt.precise_sqrt" => ArithOp::PreciseSqrt,
        "math.rsqrt" => ArithOp::Rsqrt,
        "math.sin" => ArithOp::Sin,
        "math.cos" => ArithOp::Cos,
        "math.erf" => ArithOp::Erf,
        "math.floor" => ArithOp::Floor,
        "math.ceil" => ArithOp::Ceil,
        "math.trunc" => ArithOp::Trunc,
        "math.round" => ArithOp::Round,
        "math.roundeven" => ArithOp::Rint,
        "math.tanh" => ArithOp::Tanh,
        "math.fma" => ArithOp::Fma,
        _ => return None,
    })
}

/// The element-wise operation of a `tt.extern_elementwise` call into the device library
/// (`__ocml_tanh_f32`, …), where the crate computes the same function itself.
pub(super) fn library_op(symbol: &str) -> Option<ArithOp> {
    // Triton's own `exp` for HIP (`libdevice.fast_expf`): `v_exp_f32` of `x · log₂e`.
    if symbol == "__triton_hip_fast_expf" {
        return Some(ArithOp::Exp);
    }
    // `libdevice.fast_dividef` and `fast_tanhf`, as Triton's AMD backend expands them.
    if symbol == "__triton_hip_fast_fdividef" {
        return Some(ArithOp::FastDiv);
    }
    if symbol == "__triton_hip_fast_tanhf" {
        return Some(ArithOp::FastTanh);
    }
    // `libdevice.abs` of integers and floats.
    if symbol == "__triton_hip_iabs" || symbol == "__triton_hip_fabs" {
        return Some(ArithOp::Abs);
    }
    let name = symbol.strip_prefix("__ocml_")?;
    let name = ["_f16", "_f32", "_f64"]
        .iter()
        .find_map(|s| name.strip_suffix(s))
        .unwrap_or(name);
    Some(match name {
        "exp" => ArithOp::Exp,
        "exp2" => ArithOp::Exp2,
        "log" => ArithOp::Log,
        "log2" => ArithOp::Log2,
        "log10" => ArithOp::Log10,
        "sqrt" => ArithOp::Sqrt,
        "rsqrt" => ArithOp::Rsqrt,
        "sin" => ArithOp::Sin,
        "cos" => ArithOp::Cos,
        "erf" => ArithOp::Erf,
        "tanh" => ArithOp::Tanh,
        "floor" => ArithOp::Floor,
        "ceil" => ArithOp::Ceil,
        "trunc" => ArithOp::Trunc,
        "round" => ArithOp::Round,
        "rint" => ArithOp::Rint,
        "fabs" => ArithOp::Abs,
        "fmax" => ArithOp::Max,
        "fmin" => ArithOp::Min,
        "fma" => ArithOp::Fma,
        "nearbyint" => ArithOp::Rint,
        "fmod" => ArithOp::RemS,
        "copysign" => ArithOp::CopySign,
        "log1p" => ArithOp::Log1p,
        "expm1" => ArithOp::Expm1,
        "pow" => ArithOp::Pow,
        "tan" => ArithOp::Tan,
        "hypot" => ArithOp::Hypot,
        "asin" => ArithOp::Asin,
        "acos" => ArithOp::Acos,
        "atan" => ArithOp::Atan,
        "atan2" => ArithOp::Atan2,
        "sinh" => ArithOp::Sinh,
        "cosh" => ArithOp::Cosh,
        "asinh" => ArithOp::Asinh,
        "acosh" => ArithOp::Acosh,
        "atanh" => ArithOp::Atanh,
        "erfc" => ArithOp::Erfc,
        "erfcx" => ArithOp::Erfcx,
        "erfinv" => ArithOp::Erfinv,
        "lgamma" => ArithOp::Lgamma,
        "nextafter" => ArithOp::NextAfter,
        "j0" => ArithOp::Bessel(Bessel::J0),
        "j1" => ArithOp::Bessel(Bessel::J1),
        "y0" => ArithOp::Bessel(Bessel::Y0),
        "y1" => ArithOp::Bessel(Bessel::Y1),
        "i0" => ArithOp::Bessel(Bessel::I0),
        "i1" => ArithOp::Bessel(Bessel::I1),
        _ => return None,
    })
}

/// Refuses an `arith` op whose operands and result disagree in element type where the op
/// keeps it (`arith.addi` of `i32`s typed `i16`, a comparison of an `i32` with an `i16`): a
/// module MLIR would not verify, whose values the lowering would compute at two widths.
pub(super) fn element_types_agree(m: &crate::ttgir::Module, op: &Op) -> Result<(), LowerError> {
    let keeps = [
        "arith.addi",
        "arith.subi",
        "arith.muli",
        "arith.divsi",
        "arith.divui",
        "arith.remsi",
        "arith.remui",
        "arith.ceildivsi",
        "arith.floordivsi",
        "arith.andi",
        "arith.ori",
        "arith.xori",
        "arith.shli",
        "arith.shrsi",
        "arith.shrui",
        "arith.maxsi",
        "arith.minsi",
        "arith.maxui",
        "arith.minui",
        "arith.addf",
        "arith.subf",
        "arith.mulf",
        "arith.divf",
        "arith.remf",
        "arith.maxnumf",
        "arith.minnumf",
        "arith.maximumf",
        "arith.minimumf",
        "arith.negf",
    ];
    let element = |v: &usize| m.values.get(*v).map(|x| x.ty.element.as_str());
    // An extension widens its operand and a truncation narrows it (`i1` is 1 bit).
    let bits = |v: Option<&usize>| {
        v.and_then(element)
            .map(|e| {
                if e == "i1" {
                    1
                } else {
                    crate::target::mma::element_bits(e)
                }
            })
            .filter(|&b| b > 0)
    };
    let widens = match op.name.as_str() {
        "arith.extf" | "arith.extsi" | "arith.extui" => Some(true),
        "arith.truncf" | "arith.trunci" => Some(false),
        _ => None,
    };
    if let (Some(widens), Some(from), Some(to)) =
        (widens, bits(op.operands.first()), bits(op.results.first()))
        && (from < to) != widens
    {
        return fail(op, format!("converts {from}-bit elements to {to}-bit ones"));
    }
    if op.name == "arith.select"
        && let Some(c) = op.operands.first().and_then(element)
        && c != "i1"
    {
        return fail(op, format!("selects on a condition of {c}, not i1"));
    }
    let (values, what): (Vec<usize>, &str) = match op.name.as_str() {
        name if keeps.contains(&name) || name == "tt.splat" => {
            (op.operands.iter().chain(&op.results).copied().collect(), "result")
        }
        "arith.cmpi" | "arith.cmpf" => (op.operands.clone(), "other operand"),
        "arith.select" => (
            op.operands.iter().skip(1).chain(&op.results).copied().collect(),
            "result",
        ),
        _ => return Ok(()),
    };
    match values.split_first() {
        Some((first, rest)) if rest.iter().any(|v| element(v) != element(first)) => fail(
            op,
            format!(
                "an operand of {} where its {what} is of another element type",
                element(first).unwrap_or("?")
            ),
        ),
        _ => Ok(()),
    }
}

/// A classification of `f32` numbers the device library answers with an `i32` 1 or 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FloatClass {
    /// `__ocml_isnan_f32` and `_f64`.
    Nan,
    /// `__ocml_isinf_f32` and `_f64`.
    Infinite,
    /// `__ocml_signbit_f32` and `_f64`: the sign bit (−0.0 and negative NaNs too).
    SignBit,
    /// `__ocml_ilogb_f32` and `_f64`: the unbiased exponent, `⌊log₂|x|⌋` (subnormals too); `i32::MIN`
    /// for ±0 and `i32::MAX` for infinities and NaNs, as Triton's code returns.
    Exponent,
}

/// Where a float format keeps its fields, for the classifications computed on its bits.
pub(super) struct FloatFields {
    bits: u32,
    /// The integer and unsigned integer types of its width, and the float type itself.
    int: &'static str,
    unsigned: &'static str,
    float: &'static str,
    /// All bits but the sign; the bits of +∞.
    magnitude: u64,
    infinity: u64,
    mantissa_bits: u32,
    bias: u64,
}

const F32_FIELDS: FloatFields = FloatFields {
    bits: 32,
    int: "i32",
    unsigned: "u32",
    float: "f32",
    magnitude: 0x7fff_ffff,
    infinity: 0x7f80_0000,
    mantissa_bits: 23,
    bias: 127,
};

const F64_FIELDS: FloatFields = FloatFields {
    bits: 64,
    int: "i64",
    unsigned: "u64",
    float: "f64",
    magnitude: 0x7fff_ffff_ffff_ffff,
    infinity: 0x7ff0_0000_0000_0000,
    mantissa_bits: 52,
    bias: 1023,
};

/// The classification a device-library symbol computes, if it is one.
pub(super) fn library_class(symbol: &str) -> Option<FloatClass> {
    Some(match symbol {
        "__ocml_isnan_f32" | "__ocml_isnan_f64" => FloatClass::Nan,
        "__ocml_isinf_f32" | "__ocml_isinf_f64" => FloatClass::Infinite,
        "__ocml_signbit_f32" | "__ocml_signbit_f64" => FloatClass::SignBit,
        "__ocml_ilogb_f32" | "__ocml_ilogb_f64" => FloatClass::Exponent,
        _ => return None,
    })
}

/// Coordinates of a flat position of `d`, dim0 first.
pub(super) fn coords(d: &Dist, flat: u64) -> Vec<u64> {
    (0..d.dim_bits.len()).map(|k| d.coord(flat, k)).collect()
}

/// The flat position of coordinates in `d`.
pub(super) fn flat(d: &Dist, coords: &[u64]) -> u64 {
    let mut shift = 0;
    let mut f = 0;
    for (c, bits) in coords.iter().zip(&d.dim_bits) {
        f |= c << shift;
        shift += bits;
    }
    f
}

impl Lowering<'_> {
    /// For each register of `layout` (the layout of value `v`), the register holding the same
    /// value of `v` that an element-wise op computes once: where AxisInfo proves `v` constant
    /// over aligned blocks of `c` elements along a dimension and a thread's registers cover such
    /// a block (no lane or warp bit within it), each register takes the value of the block's
    /// first — Triton's deduplication of element-wise results. `xindex % 96 < 64` over two
    /// consecutive elements a thread holds is one compare, not two.
    fn shared_registers(&self, v: usize, layout: &crate::linear::LinearLayout) -> Vec<usize> {
        let Ok(dist) = Dist::of(layout, self.target.wave_size) else {
            return Vec::new();
        };
        let identity: Vec<usize> = (0..dist.registers()).collect();
        let Some(info) = self.axis.get(v).and_then(Option::as_ref) else {
            return identity;
        };
        let masks: Vec<u64> = (0..dist.dim_bits.len())
            .map(|d| {
                let c = info.constancy.get(d).copied().unwrap_or(1).max(1);
                let mut low = (c & c.wrapping_neg()) - 1;
                // Only bits no thread column touches: the block lies in one thread.
                while low != 0 && dist.thread.iter().any(|&t| dist.coord(t, d) & low != 0) {
                    low >>= 1;
                }
                low
            })
            .collect();
        if masks.iter().all(|&m| m == 0) {
            return identity;
        }
        let index: std::collections::HashMap<u64, usize> = (0..dist.registers())
            .rev()
            .map(|r| (dist.reg_position(r), r))
            .collect();
        identity
            .into_iter()
            .map(|r| {
                let first: Vec<u64> = coords(&dist, dist.reg_position(r))
                    .iter()
                    .zip(&masks)
                    .map(|(&c, &m)| c & !m)
                    .collect();
                index
                    .get(&flat(&dist, &first))
                    .copied()
                    .filter(|&f| f < r)
                    .unwrap_or(r)
            })
            .collect()
    }

    /// The `n` registers of value `v` (of `layout`), each from `compute(register)` — once per
    /// block of registers [`shared_registers`](Self::shared_registers) proves equal, the others
    /// taking the block's first.
    pub(super) fn computed_once(
        &mut self,
        v: usize,
        layout: &crate::linear::LinearLayout,
        n: usize,
        mut compute: impl FnMut(&mut Self, usize) -> Value,
    ) -> Vec<Value> {
        let shared = self.shared_registers(v, layout);
        let mut out: Vec<Value> = Vec::with_capacity(n);
        for i in 0..n {
            let x = match shared.get(i) {
                Some(&first) if first < i => out[first],
                _ => compute(self, i),
            };
            out.push(x);
        }
        out
    }

    /// An element-wise operation on data of one layout.
    pub(super) fn elementwise(&mut self, op: &Op, arith: ArithOp) -> Result<(), LowerError> {
        let r = op.results[0];
        let ty = numeric_type(&self.m.values[r].ty.element)
            .filter(|t| arith.applies_to(t))
            .map_or_else(
                || {
                    fail(
                        op,
                        format!("{arith:?} of {} is not lowered", self.m.values[r].ty.element),
                    )
                },
                Ok,
            )?;
        if op.operands.len() != arith.operands() {
            return fail(op, format!("takes {} operands", arith.operands()));
        }
        // Every element-wise operation here keeps its operands' element type.
        let result_element = &self.m.values[r].ty.element;
        if let Some(&v) = op
            .operands
            .iter()
            .find(|&&v| self.m.values[v].ty.element != *result_element)
        {
            return fail(
                op,
                format!(
                    "an operand of {} for a result of {result_element}",
                    self.m.values[v].ty.element
                ),
            );
        }
        let mut layout = None;
        let mut args: Vec<Vec<Value>> = Vec::new();
        for &v in &op.operands {
            // A splat constant operand is a constant per register (LLVM folds it in).
            let (l, values) = self.registers_of(op, v)?;
            if values
                .iter()
                .any(|&x| self.p.value_bits(x) != self.bits(op, v).unwrap_or(0))
            {
                return fail(op, "an operand holds elements of another width than its type");
            }
            if layout.as_ref().is_some_and(|x| *x != l) {
                return fail(op, "operands in different layouts");
            }
            layout = Some(l);
            args.push(values);
        }
        let Some(layout) = layout else {
            return fail(op, "has no operand");
        };
        let bits = self.bits(op, r)?;
        if self.bf16_in_f32(arith, ty) {
            let values = (0..args[0].len())
                .map(|i| {
                    let src: Vec<Value> = args.iter().map(|a| a[i]).collect();
                    self.bf16_arith(arith, &src)
                })
                .collect();
            return self.define(op, Sym::Data { layout, values });
        }
        let values = self.computed_once(r, &layout, args[0].len(), |l, i| {
            let dst = l.p.value(bits);
            let src = args.iter().map(|a| a[i]).collect();
            l.p.ops.push(ProgramOp::Arith {
                op: arith,
                ty,
                dst,
                src,
            });
            dst
        });
        self.define(op, Sym::Data { layout, values })
    }

    /// `tt.expand_dims` / `tt.broadcast` of data: the same elements, more registers.
    pub(super) fn reshape_data(&mut self, op: &Op) -> Result<(), LowerError> {
        let (layout, values) = self.typed_data(op, op.operands[0])?;
        let r = op.results[0];
        let dst = self.layout(op, r)?;
        let s = Dist::of(&layout, self.target.wave_size)?;
        let d = Dist::of(&dst, self.target.wave_size)?;
        let from = self.m.values[op.operands[0]].ty.shape.clone();
        let values = if op.name == "tt.expand_dims" {
            let axis = self.axis(op, self.rank(r))?;
            self.regather(op, (&s, &values), &d, |c| {
                c.iter()
                    .enumerate()
                    .filter(|&(k, _)| k != axis)
                    .map(|(_, &x)| x)
                    .collect()
            })?
        } else {
            self.regather(op, (&s, &values), &d, |c| {
                c.iter()
                    .zip(&from)
                    .map(|(&x, &n)| if n == 1 { 0 } else { x })
                    .collect()
            })?
        };
        self.define_data(op, dst, values)
    }

    /// `tt.trans` with `order`: result dimension `i` is the operand's dimension `order[i]`. Of
    /// data it moves nothing when the result's layout is the operand's, permuted (what Triton
    /// gives it); of an index tensor or a mask it permutes the coefficients or bounds.
    pub(super) fn transpose(&mut self, op: &Op) -> Result<(), LowerError> {
        let rank = self.rank(op.operands[0]);
        let order: Vec<usize> = match crate::ttgir::attr(&op.attrs, "order").and_then(|a| a.ints(rank)) {
            Some(o)
                if {
                    let mut sorted = o.clone();
                    sorted.sort_unstable();
                    sorted.iter().enumerate().all(|(i, &x)| x == i as i64)
                } =>
            {
                o.into_iter().map(|x| x as usize).collect()
            }
            _ => return fail(op, "needs an order that permutes the dimensions"),
        };
        match self.operand(op, 0)?.clone() {
            Sym::Affine { base, constant, coef } if coef.len() == rank => {
                let coef = order.iter().map(|&d| coef[d].clone()).collect();
                self.define(op, Sym::Affine { base, constant, coef })
            }
            Sym::Mask { bounds, when } if bounds.len() == rank => {
                let bounds = order.iter().map(|&d| bounds[d]).collect();
                self.define(op, Sym::Mask { bounds, when })
            }
            Sym::Splat(bits) => self.define(op, Sym::Splat(bits)),
            _ => {
                let (layout, values) = self.typed_data(op, op.operands[0])?;
                let r = op.results[0];
                let dst = self.layout(op, r)?;
                let s = Dist::of(&layout, self.target.wave_size)?;
                let d = Dist::of(&dst, self.target.wave_size)?;
                let values = self.regather(op, (&s, &values), &d, |c| {
                    let mut src = vec![0; c.len()];
                    for (i, &d) in order.iter().enumerate() {
                        if let (Some(slot), Some(&x)) = (src.get_mut(d), c.get(i)) {
                            *slot = x;
                        }
                    }
                    src
                })?;
                self.define_data(op, dst, values)
            }
        }
    }

    /// `ttg.convert_layout` / `amdg.in_thread_transpose` of data: the conversion the cost model
    /// plans (register moves, lane shuffles or a round trip through LDS).
    pub(super) fn convert_data(&mut self, op: &Op) -> Result<(), LowerError> {
        let (layout, values) = self.typed_data(op, op.operands[0])?;
        let r = op.results[0];
        let dst = self.layout(op, r)?;
        let bits = self.bits(op, r)?;
        let values = convert::registers(&mut self.p, &layout, &dst, &values, bits, self.target)?;
        self.define_data(op, dst, values)
    }

    /// A number conversion (`arith.extf`/`truncf`/`extsi`/`extui`/`trunci`/`sitofp`/`uitofp`/
    /// `fptosi`/`fptoui`, `tt.fp_to_fp`), register by register; the unsigned forms read or
    /// write their integers as unsigned.
    pub(super) fn convert_numbers(&mut self, op: &Op) -> Result<(), LowerError> {
        let r = op.results[0];
        let element = |v: usize| self.m.values[v].ty.element.clone();
        let (from, to) = (element(op.operands[0]), element(r));
        let unsigned = |t: &str| -> Option<&'static str> {
            Some(match t {
                "i1" => "u1",
                "i8" => "u8",
                "i16" => "u16",
                "i32" => "u32",
                "i64" => "u64",
                _ => return None,
            })
        };
        // `tt.fp_to_fp` also reaches the 8-bit floats, from and to f32 / f16 / bf16.
        let fp8 = |t: &str| -> Option<&'static str> {
            ["f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "f8E5M2FNUZ"]
                .into_iter()
                .find(|&f| f == t)
                .filter(|_| op.name == "tt.fp_to_fp")
        };
        let from_ty = match op.name.as_str() {
            "arith.extui" | "arith.uitofp" => unsigned(&from),
            _ => numeric_type(&from).or_else(|| fp8(&from)),
        };
        let to_ty = match op.name.as_str() {
            "arith.fptoui" => unsigned(&to),
            _ => numeric_type(&to).or_else(|| fp8(&to)),
        };
        // Narrowing rounds to nearest even, or toward zero (`rtz`, mode 0).
        let toward_zero = match crate::ttgir::attr(&op.attrs, "rounding") {
            None | Some(AttrValue::Int(1)) => false,
            Some(AttrValue::Raw(m)) if m == "rtne" => false,
            Some(AttrValue::Raw(m)) if m == "rtz" => true,
            Some(AttrValue::Int(0)) => true,
            Some(mode) => {
                let shown = match mode {
                    AttrValue::Raw(m) => m.clone(),
                    other => format!("{other:?}"),
                };
                return fail(
                    op,
                    format!("rounding = {shown} ({from} to {to}): not a rounding mode"),
                );
            }
        };
        let wide = |t: &str| matches!(t, "f32" | "f16" | "bf16");
        if (fp8(&from).is_some() && !wide(&to)) || (fp8(&to).is_some() && !wide(&from)) {
            return fail(
                op,
                format!("converts {from} to {to}: 8-bit floats convert to and from f32, f16 and bf16"),
            );
        }
        let (Some(mut from_ty), Some(to_ty)) = (from_ty, to_ty) else {
            return fail(op, format!("converts {from} to {to}: not lowered"));
        };
        // An integer widened only to become a float converts from its own width: the same
        // number (`pid.to(tl.int64).to(tl.float32)` is one 32-bit conversion, not a 64-bit one
        // the hardware lacks).
        let mut source = op.operands[0];
        if let Some((narrow, narrow_ty)) = self.widened_integer(op, source) {
            source = narrow;
            from_ty = narrow_ty;
        }
        let (layout, values) = self.typed_data(op, source)?;
        let bits = self.bits(op, r)?;
        let mut out = Vec::with_capacity(values.len());
        if to_ty == "bf16"
            && matches!(from_ty, "f32" | "f16")
            && self.target.lowering.bf16_rounding_in_integers
        {
            out = self.bf16_in_integers(from_ty, &values);
            if toward_zero {
                out = self.toward_zero(op, (from_ty, to_ty), &values, out)?;
            }
            return self.define(op, Sym::Data { layout, values: out });
        }
        for src in values.chunks(4) {
            let dst = self.p.values_of(src.len(), bits);
            self.p.ops.push(ProgramOp::Convert {
                dst: dst.clone(),
                src: src.to_vec(),
                from: from_ty,
                to: to_ty,
            });
            out.extend(dst);
        }
        if toward_zero {
            out = self.toward_zero(op, (from_ty, to_ty), &values, out)?;
        }
        self.define(op, Sym::Data { layout, values: out })
    }

    /// `libdevice.llrint` (`__triton_hip_llrint`): the float rounded to the nearest integer,
    /// halfway cases to even, then converted to the result's integer type — Triton's expansion
    /// (`llvm.rint`, then `fptosi`).
    pub(super) fn llrint(&mut self, op: &Op) -> Result<(), LowerError> {
        let (source, r) = (op.operands[0], op.results[0]);
        let element = |v: usize| self.m.values[v].ty.element.clone();
        let (Some(from), Some(to)) = (numeric_type(&element(source)), numeric_type(&element(r))) else {
            return fail(op, "llrint of other than a float to an integer");
        };
        if !matches!(from, "f32" | "f64") || !to.starts_with('i') {
            return fail(op, format!("llrint of {from} to {to}: a float to an integer"));
        }
        let (layout, values) = self.typed_data(op, source)?;
        let (float_bits, bits) = (self.bits(op, source)?, self.bits(op, r)?);
        let rounded: Vec<Value> = values
            .iter()
            .map(|&v| {
                let dst = self.p.value(float_bits);
                self.p.ops.push(ProgramOp::Arith {
                    op: ArithOp::Rint,
                    ty: from,
                    dst,
                    src: vec![v],
                });
                dst
            })
            .collect();
        let mut out = Vec::with_capacity(rounded.len());
        for src in rounded.chunks(4) {
            let dst = self.p.values_of(src.len(), bits);
            self.p.ops.push(ProgramOp::Convert {
                dst: dst.clone(),
                src: src.to_vec(),
                from,
                to,
            });
            out.extend(dst);
        }
        self.define(op, Sym::Data { layout, values: out })
    }

    /// A device-library function of an f32 tensor and an i32 tensor of the same layout:
    /// `ldexp` (`__ocml_ldexp_f32`, `x·2ⁿ`: [`ArithOp::Ldexp`]) or `pow` of an integer
    /// exponent (`__ocml_pown_f32`: [`ArithOp::Pow`] of the exponent made an f32, which it
    /// is exactly up to 2²⁴).
    pub(super) fn float_by_integer(&mut self, op: &Op, arith: ArithOp) -> Result<(), LowerError> {
        let element = |v: usize| self.m.values[v].ty.element.clone();
        let (x, n, r) = (op.operands[0], op.operands[1], op.results[0]);
        // `pown` of f64 too (the power converts its exponent); `ldexp` takes the exponent's
        // bits as they are, in an f32's place.
        let (ty, bits) = match element(x).as_str() {
            "f64" if arith == ArithOp::Pow => ("f64", 64),
            _ => ("f32", 32),
        };
        if element(x) != ty || element(n) != "i32" || element(r) != ty {
            return fail(op, format!("{arith:?} of other than an f32 and an i32"));
        }
        let (layout, values) = self.typed_data(op, x)?;
        let (exponent_layout, exponents) = self.typed_data(op, n)?;
        if exponent_layout != layout || exponents.len() != values.len() {
            return fail(op, "operands in different layouts");
        }
        let mut out = Vec::with_capacity(values.len());
        for (&v, &e) in values.iter().zip(&exponents) {
            let e = match arith {
                ArithOp::Ldexp => e,
                _ => self.p.convert(e, ("i32", ty), bits),
            };
            let dst = self.p.value(bits);
            self.p.ops.push(ProgramOp::Arith {
                op: arith,
                ty,
                dst,
                src: vec![v, e],
            });
            out.push(dst);
        }
        self.define(op, Sym::Data { layout, values: out })
    }

    /// Whether `arith` of `ty` is computed as Triton computes bf16 sums, differences and
    /// products on the targets where it rounds bf16 in integers: in f32, rounded back by its
    /// rule ([`bf16_arith`](Self::bf16_arith); the numbers LLVM's promotion to f32 gives too,
    /// NaN results as Triton's).
    pub(super) fn bf16_in_f32(&self, arith: ArithOp, ty: &str) -> bool {
        ty == "bf16"
            && matches!(arith, ArithOp::Add | ArithOp::Sub | ArithOp::Mul)
            && self.target.lowering.bf16_rounding_in_integers
    }

    /// `arith` of bf16 operands `src` computed in f32 and rounded back in integers.
    pub(super) fn bf16_arith(&mut self, arith: ArithOp, src: &[Value]) -> Value {
        let wide = src
            .iter()
            .map(|&v| self.p.convert(v, ("bf16", "f32"), 32))
            .collect();
        let exact = self.p.value(32);
        self.p.ops.push(ProgramOp::Arith {
            op: arith,
            ty: "f32",
            dst: exact,
            src: wide,
        });
        self.bf16_in_integers("f32", &[exact])[0]
    }

    /// `f32` (or `f16`, widened exactly first) rounded to `bf16` in integers, as Triton does on
    /// the targets whose row says so: `(x + 0x7FFF + lsb) >> 16` rounds to nearest even (a
    /// carry out of the mantissa moves the exponent, and past the largest finite value lands
    /// on ∞), and every NaN becomes `0x7FFF`. E.g. `1.00390625f` (`0x3F808000`, halfway, even
    /// below) gives `0x3F80`; `1.01171875f` (`0x3F818000`, halfway, odd below) gives `0x3F82`.
    fn bf16_in_integers(&mut self, from: &'static str, values: &[Value]) -> Vec<Value> {
        let (sixteen, one, half) = (
            self.p.constant(32, 16),
            self.p.constant(32, 1),
            self.p.constant(32, 0x7FFF),
        );
        let nan = self.p.constant(16, 0x7FFF);
        values
            .iter()
            .map(|&v| {
                let x = if from == "f32" {
                    v
                } else {
                    self.p.convert(v, (from, "f32"), 32)
                };
                let high = self.binary(ArithOp::ShrU, "i32", x, sixteen);
                let lsb = self.binary(ArithOp::And, "i32", high, one);
                let bias = self.binary(ArithOp::Add, "i32", lsb, half);
                let sum = self.binary(ArithOp::Add, "i32", x, bias);
                let top = self.binary(ArithOp::ShrU, "i32", sum, sixteen);
                let rounded = self.p.convert(top, ("i32", "i16"), 16);
                let is_nan = self.p.value(1);
                self.p.ops.push(ProgramOp::Compare {
                    pred: Predicate::Uno,
                    ty: "f32",
                    dst: is_nan,
                    a: x,
                    b: x,
                });
                let dst = self.p.value(16);
                self.p.ops.push(ProgramOp::Select {
                    dst,
                    cond: is_nan,
                    a: nan,
                    b: rounded,
                });
                dst
            })
            .collect()
    }

    /// Narrowed floats `rounded` to nearest even of `wide`, rounded toward zero instead.
    ///
    /// Rounding to nearest lands within one unit of the last place, so where it rounded away
    /// from zero (`|rounded| > |wide|`, compared exactly after widening back) the result
    /// toward zero is one step nearer zero: the bit pattern minus one (sign and magnitude).
    /// A finite number past the narrow range rounds to infinity and steps back to the
    /// largest finite one, as rounding toward zero gives; NaNs and infinities stay. E.g.
    /// f32 `1.00146484375` (between the f16 neighbours 1.0009765625 and 1.001953125, nearer
    /// the second): nearest gives `0x3c02`, toward zero `0x3c01`.
    fn toward_zero(
        &mut self,
        op: &Op,
        (wide_ty, narrow_ty): (&'static str, &'static str),
        wide: &[Value],
        rounded: Vec<Value>,
    ) -> Result<Vec<Value>, LowerError> {
        let (bits_ty, narrow_bits) = match narrow_ty {
            "f16" | "bf16" => ("i16", 16),
            "f32" => ("i32", 32),
            _ => {
                return fail(
                    op,
                    format!(
                        "rounding = rtz ({wide_ty} to {narrow_ty}): toward zero only to f32, f16 and bf16"
                    ),
                );
            }
        };
        if !matches!(wide_ty, "f64" | "f32") {
            return fail(
                op,
                format!("rounding = rtz ({wide_ty} to {narrow_ty}): toward zero only from f64 and f32"),
            );
        }
        let wide_bits = if wide_ty == "f64" { 64 } else { 32 };
        let one = self.p.constant(narrow_bits, 1);
        let mut out = Vec::with_capacity(rounded.len());
        for (&x, r) in wide.iter().zip(rounded) {
            let back = self.p.convert(r, (narrow_ty, wide_ty), wide_bits);
            let (abs_back, abs_x) = (self.p.value(wide_bits), self.p.value(wide_bits));
            for (dst, src) in [(abs_back, back), (abs_x, x)] {
                self.p.ops.push(ProgramOp::Arith {
                    op: ArithOp::Abs,
                    ty: wide_ty,
                    dst,
                    src: vec![src],
                });
            }
            let away = self.p.value(1);
            self.p.ops.push(ProgramOp::Compare {
                pred: Predicate::Ogt,
                ty: wide_ty,
                dst: away,
                a: abs_back,
                b: abs_x,
            });
            let nearer = self.binary(ArithOp::Sub, bits_ty, r, one);
            let dst = self.p.value(narrow_bits);
            self.p.ops.push(ProgramOp::Select {
                dst,
                cond: away,
                a: nearer,
                b: r,
            });
            out.push(dst);
        }
        Ok(out)
    }

    /// For `sitofp` / `uitofp` of `v`: where `v` is `extsi` / `extui` (the same signedness) of
    /// a narrower integer, that integer and its conversion type.
    fn widened_integer(&self, op: &Op, v: usize) -> Option<(usize, &'static str)> {
        let signed = match op.name.as_str() {
            "arith.sitofp" => true,
            "arith.uitofp" => false,
            _ => return None,
        };
        let ValueDef::Op { op: d, .. } = self.m.values[v].def else {
            return None;
        };
        let def = &self.m.ops[d];
        if def.name != if signed { "arith.extsi" } else { "arith.extui" } {
            return None;
        }
        let narrow = *def.operands.first()?;
        let ty = match (self.m.values[narrow].ty.element.as_str(), signed) {
            ("i8", true) => "i8",
            ("i16", true) => "i16",
            ("i32", true) => "i32",
            ("i8", false) => "u8",
            ("i16", false) => "u16",
            ("i32", false) => "u32",
            _ => return None,
        };
        self.syms.get(narrow)?.as_ref()?;
        Some((narrow, ty))
    }

    /// `tt.clampf %x, %lo, %hi`: `min(max(x, lo), hi)`, NaN-propagating where
    /// `propagateNan = all`.
    pub(super) fn clampf(&mut self, op: &Op) -> Result<(), LowerError> {
        let r = op.results[0];
        let Some(ty) = numeric_type(&self.m.values[r].ty.element).filter(|t| !t.starts_with('i')) else {
            return fail(op, "clamps elements that are not floats");
        };
        let propagate = matches!(
            crate::ttgir::attr(&op.attrs, "propagateNan"),
            Some(crate::ttgir::AttrValue::Raw(s) | crate::ttgir::AttrValue::Str(s)) if s.contains("all")
        );
        let (max, min) = if propagate {
            (ArithOp::Maximum, ArithOp::Minimum)
        } else {
            (ArithOp::Max, ArithOp::Min)
        };
        let mut operands = Vec::with_capacity(3);
        let mut layout = None;
        for &v in &op.operands[..3] {
            let (l, values) = self.registers_of(op, v)?;
            if layout.as_ref().is_some_and(|x| *x != l) {
                return fail(op, "operands in different layouts");
            }
            layout = Some(l);
            operands.push(values);
        }
        let Some(layout) = layout else {
            return fail(op, "has no operand");
        };
        let bits = self.bits(op, r)?;
        let mut out = Vec::with_capacity(operands[0].len());
        let [x, lo, hi] =
            <[Vec<Value>; 3]>::try_from(operands).map_err(|_| LowerError::new("three operands"))?;
        for ((x, lo), hi) in x.into_iter().zip(lo).zip(hi) {
            let (low, clamped) = (self.p.value(bits), self.p.value(bits));
            self.p.ops.push(ProgramOp::Arith {
                op: max,
                ty,
                dst: low,
                src: vec![x, lo],
            });
            self.p.ops.push(ProgramOp::Arith {
                op: min,
                ty,
                dst: clamped,
                src: vec![low, hi],
            });
            out.push(clamped);
        }
        self.define(op, Sym::Data { layout, values: out })
    }

    /// `tt.bitcast` / `arith.bitcast`: the same bits, read as another type of the same width.
    pub(super) fn bitcast(&mut self, op: &Op) -> Result<(), LowerError> {
        let r = op.results[0];
        if self.bits(op, op.operands[0])? != self.bits(op, r)? {
            return fail(op, "reinterprets elements as another width");
        }
        let (layout, values) = self.typed_data(op, op.operands[0])?;
        self.define(op, Sym::Data { layout, values })
    }

    /// A device-library classification of `f32` elements (`isnan`, `isinf`, `signbit`, `ilogb`),
    /// as integer tests of their bits: 1 or 0 (the exponent for `ilogb`) in an `i32` per
    /// element.
    pub(super) fn classify(&mut self, op: &Op, class: FloatClass) -> Result<(), LowerError> {
        let (x, r) = (op.operands[0], op.results[0]);
        let format = match self.m.values[x].ty.element.as_str() {
            "f32" => &F32_FIELDS,
            "f64" => &F64_FIELDS,
            _ => return fail(op, "classifies f32 and f64 elements only"),
        };
        if self.bits(op, r)? != 32 {
            return fail(op, "classifies into i32 elements only");
        }
        let (layout, values) = self.typed_data(op, x)?;
        let (w, int) = (format.bits, format.int);
        let magnitude = self.p.constant(w, format.magnitude);
        let infinity = self.p.constant(w, format.infinity);
        let sign_shift = self.p.constant(w, u64::from(w - 1));
        let mut out = Vec::with_capacity(values.len());
        for v in values {
            let result = match class {
                FloatClass::SignBit => {
                    let sign = self.binary(ArithOp::ShrU, int, v, sign_shift);
                    self.low_word(sign, format)
                }
                FloatClass::Exponent => self.exponent(v, format),
                FloatClass::Nan | FloatClass::Infinite => {
                    let m = self.binary(ArithOp::And, int, v, magnitude);
                    let pred = if class == FloatClass::Nan {
                        Predicate::Ugt
                    } else {
                        Predicate::Eq
                    };
                    let hit = self.p.value(1);
                    self.p.ops.push(ProgramOp::Compare {
                        pred,
                        ty: int,
                        dst: hit,
                        a: m,
                        b: infinity,
                    });
                    let wide = self.p.value(32);
                    self.p.ops.push(ProgramOp::Convert {
                        dst: vec![wide],
                        src: vec![hit],
                        from: "u1",
                        to: "i32",
                    });
                    wide
                }
            };
            out.push(result);
        }
        self.define_data(op, *layout, out)
    }

    /// The low 32 bits of an integer of `format`'s width, as an `i32`.
    fn low_word(&mut self, v: Value, format: &FloatFields) -> Value {
        if format.bits == 32 {
            return v;
        }
        let narrow = self.p.value(32);
        self.p.ops.push(ProgramOp::Convert {
            dst: vec![narrow],
            src: vec![v],
            from: format.int,
            to: "i32",
        });
        narrow
    }

    /// `ilogb` of the float bits `v` ([`FloatClass::Exponent`]): the exponent field less the
    /// bias; for a subnormal, the field of its mantissa converted to a float (exact) less the
    /// bias and the mantissa's width; `i32::MIN` for ±0 and `i32::MAX` for infinities and NaNs.
    fn exponent(&mut self, v: Value, format: &FloatFields) -> Value {
        let (w, int) = (format.bits, format.int);
        let magnitude = self.p.constant(w, format.magnitude);
        let shift = self.p.constant(w, u64::from(format.mantissa_bits));
        let mantissa_mask = self.p.constant(w, (1 << format.mantissa_bits) - 1);
        let bias = self.p.constant(w, format.bias);
        let subnormal_bias = self
            .p
            .constant(w, format.bias + u64::from(format.mantissa_bits) + format.bias - 1);
        let (zero_field, top_field) = (self.p.constant(w, 0), self.p.constant(w, 2 * format.bias + 1));
        let (int_min, int_max) = (self.p.constant(32, 0x8000_0000), self.p.constant(32, 0x7fff_ffff));
        let m = self.binary(ArithOp::And, int, v, magnitude);
        let field = self.binary(ArithOp::ShrU, int, m, shift);
        let normal = self.binary(ArithOp::Sub, int, field, bias);
        let mantissa = self.binary(ArithOp::And, int, v, mantissa_mask);
        let as_float = self.p.value(w);
        self.p.ops.push(ProgramOp::Convert {
            dst: vec![as_float],
            src: vec![mantissa],
            from: format.unsigned,
            to: format.float,
        });
        let float_field = self.binary(ArithOp::ShrU, int, as_float, shift);
        let subnormal = self.binary(ArithOp::Sub, int, float_field, subnormal_bias);
        let (normal, subnormal) = (self.low_word(normal, format), self.low_word(subnormal, format));
        // `a == b ? then : otherwise`, `a` and `b` of the float's width.
        let choose = |s: &mut Self, (a, b): (Value, Value), then: Value, otherwise: Value| {
            let hit = s.p.value(1);
            s.p.ops.push(ProgramOp::Compare {
                pred: Predicate::Eq,
                ty: int,
                dst: hit,
                a,
                b,
            });
            let dst = s.p.value(32);
            s.p.ops.push(ProgramOp::Select {
                dst,
                cond: hit,
                a: then,
                b: otherwise,
            });
            dst
        };
        let finite = choose(self, (field, zero_field), subnormal, normal);
        let special = choose(self, (field, top_field), int_max, finite);
        choose(self, (m, zero_field), int_min, special)
    }

    /// `tt.bitcast` of a pointer or a tensor of pointers to another pointee: the same
    /// addresses, read as the new type by the accesses through them. Of the same size in memory
    /// (`!tt.ptr<f32>` → `!tt.ptr<i32>` for an atomic on a float's bits, `!tt.ptr<i1>` →
    /// `!tt.ptr<i8>` for booleans, which take a byte each) the pointer is unchanged. Of another
    /// size (`x_ptr.to(tl.pointer_type(tl.uint8))`, a float's bytes) the memory is a buffer of
    /// the new elements at the pointer's address: a scalar pointer's address bound as one, a
    /// tensor's offsets scaled where each old element is a whole number of new ones.
    pub(super) fn pointer_bitcast(&mut self, op: &Op) -> Result<(), LowerError> {
        let bytes = |v: usize| {
            self.m.values[v]
                .ty
                .pointee_bits()
                .map(|b| u64::from(b.div_ceil(8)))
        };
        let (Some(from), Some(to)) = (bytes(op.operands[0]), bytes(op.results[0])) else {
            return fail(op, "reinterprets what is no pointer");
        };
        let sym = self.operand(op, 0)?.clone();
        if from == to {
            return self.define(op, sym);
        }
        let name = self.m.values[op.results[0]].name.clone();
        if self.rank(op.operands[0]) == 0 {
            let address = self.pointer_address(op, &sym, from)?;
            let (buffer, bind) = self.buffer_at(&name, address, to);
            self.p.ops.push(bind);
            return self.define(op, Sym::Ptr(buffer));
        }
        if from % to != 0 {
            return fail(
                op,
                format!(
                    "reads a tensor of pointers to {from}-byte elements as {to}-byte ones, which need not start at a whole element"
                ),
            );
        }
        let ratio = Uniform::constant((from / to) as i64);
        let Some((buffer, constant, coef, _)) = super::carried_pointer::pointer_parts(&sym) else {
            return fail(op, format!("reinterprets {} as pointers", sym.kind()));
        };
        let address = self.pointer_address(op, &Sym::Ptr(buffer), from)?;
        let (view, bind) = self.buffer_at(&name, address, to);
        self.p.ops.push(bind);
        let (constant, coef) = (constant.mul(&ratio), coef.iter().map(|c| c.mul(&ratio)).collect());
        match sym {
            Sym::Indexed(mut x) => {
                let scale = self.uniform_register(&ratio, 32);
                x.index = x
                    .index
                    .iter()
                    .map(|&i| self.binary(ArithOp::Mul, "i32", i, scale))
                    .collect();
                x.buffer = view;
                x.constant = constant;
                x.coef = coef;
                self.define(op, Sym::Indexed(x))
            }
            _ => self.define(
                op,
                Sym::Affine {
                    base: Some(view),
                    constant,
                    coef,
                },
            ),
        }
    }

    /// `tt.dot`: the chain of matrix instructions of the result's MFMA / WMMA layout, or
    /// multiply-adds in registers where the result is blocked ([`fma_dot`]).
    pub(super) fn dot(&mut self, op: &Op) -> Result<(), LowerError> {
        let r = op.results[0];
        let (la, va) = self.typed_data(op, op.operands[0])?;
        let (lb, vb) = self.typed_data(op, op.operands[1])?;
        let lc = self.layout(op, r)?;
        let acc = match self.operand(op, 2)? {
            Sym::Splat(0) => None,
            Sym::Splat(_) => Some(self.registers_of(op, op.operands[2])?.1),
            _ => Some(self.typed_data(op, op.operands[2])?.1),
        };
        let ab = self.m.values[op.operands[0]].ty.element.clone();
        let acc_ty = self.m.values[r].ty.element.clone();
        let encoding = self.m.values[r]
            .ty
            .encoding
            .clone()
            .map_or_else(|| fail(op, "the result has no encoding"), Ok)?;
        if let Encoding::Blocked(_) = *encoding {
            let element = |t: &str| {
                numeric_type(t).map_or_else(|| fail(op, format!("a dot of {t} is not lowered")), Ok)
            };
            let (from, to) = (element(&ab)?, element(&acc_ty)?);
            let acc_bits = self.bits(op, r)?;
            // Operands of a narrower type multiply in the accumulator's (exactly widened).
            let widen = |p: &mut crate::lower::ir::Program, v: Vec<Value>| -> Vec<Value> {
                if from == to {
                    return v;
                }
                v.into_iter()
                    .map(|x| p.convert(x, (from, to), acc_bits))
                    .collect()
            };
            let (va, vb) = (widen(&mut self.p, va), widen(&mut self.p, vb));
            let values = fma_dot(
                &mut self.p,
                (&la, &va),
                (&lb, &vb),
                &lc,
                acc.as_deref(),
                to,
                self.target.wave_size,
            )
            .map_err(|e| LowerError::new(format!("{}: {e}", op_place(op.line, &op.name))))?;
            return self.define_data(op, lc, values);
        }
        // `inputPrecision = tf32` permits reading f32 operands at TF32 precision: the
        // target's XF32 instruction where the layout names one (gfx942), else the f32 one.
        let tf32 = ab == "f32"
            && match crate::ttgir::attr(&op.attrs, "inputPrecision") {
                Some(AttrValue::Int(precision)) => *precision == 0,
                Some(AttrValue::Raw(name) | AttrValue::Str(name)) => name == "tf32",
                _ => false,
            };
        let instr = match tf32 {
            true => instruction_for(&encoding, "tf32", &acc_ty, self.target)
                .or_else(|_| instruction_for(&encoding, &ab, &acc_ty, self.target))?,
            false => instruction_for(&encoding, &ab, &acc_ty, self.target)?,
        };
        let plan = plan_dot(&la, &lb, &lc, instr, self.target.wave_size)?;
        let registers = Dist::of(&lc, self.target.wave_size)?.registers();
        let acc_bits = self.bits(op, r)?;
        let values = chain(&mut self.p, &plan, &va, &vb, acc.as_deref(), registers, acc_bits)?;
        self.define_data(op, lc, values)
    }
}
