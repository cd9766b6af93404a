//! Element-wise arithmetic in LLVM IR: one [`ArithOp`] per instruction or intrinsic of the
//! number type, values kept as integers of their width between operations (floats are bitcast
//! in and out, which costs no instruction).
//!
//! Integers map onto LLVM's instructions and `llvm.{s,u}{max,min}` / `llvm.abs`; floats onto
//! `fadd`…`frem`, `fneg` and the intrinsics (`llvm.maxnum`, `llvm.maximum`, `llvm.sqrt`,
//! `llvm.exp2`, `llvm.log2`, `llvm.sin`, `llvm.fma`, …) that AMDGPU selects to its own
//! instructions. Transcendental functions of 16-bit floats compute in `f32` and round back, as
//! the hardware's `f32` instructions are what both would use. As in Triton's default
//! (`enable_fp_fusion`), a float product feeding a sum may fuse into one `fma` (one rounding
//! instead of two), and `exp`/`exp2` of `f32` are `v_exp_f32` itself (a result below the normal
//! range flushes to zero). `Erf` has no instruction: it is
//! the polynomial [`ArithOp::eval`] describes, a select between its two ranges.

use super::{Emitter, llvm_number, llvm_suffix};
use crate::lower::error::LowerError;
use crate::lower::ir::arith::{
    ASIN_POLY, ATAN_POLY, COS_POLY, ERF_SERIES, ERF_TAIL, HALF_PI_PARTS, SIN_POLY,
};
use crate::lower::ir::{ArithOp, PackedPair, Value};

/// An LLVM float literal (the hexadecimal form LLVM prints for doubles, exact for every type).
fn float_literal(x: f64) -> String {
    format!("0x{:016X}", x.to_bits())
}

/// The integer type as wide as float type `t`.
pub(super) fn int_of(t: &str) -> &'static str {
    match t {
        "double" => "i64",
        "half" | "bfloat" => "i16",
        _ => "i32",
    }
}

/// A float literal of LLVM type `t`: `f32` constants must be exactly representable, so the
/// value is rounded to `f32` first.
pub(super) fn literal_of(t: &str, x: f64) -> String {
    if t == "double" {
        float_literal(x)
    } else {
        float_literal(f64::from(x as f32))
    }
}

impl Emitter<'_> {
    /// `{r} = v_exp_f32 x` (`llvm.amdgcn.exp2.f32`): the instruction, without the scaling LLVM
    /// wraps around `llvm.exp2` for subnormal results.
    fn hardware_exp2(&mut self, r: &str, x: &str) {
        self.decls
            .insert("declare float @llvm.amdgcn.exp2.f32(float)".to_string());
        self.line(&format!("{r} = call float @llvm.amdgcn.exp2.f32(float {x})"));
    }

    /// `{r} = call {t} @llvm.{name}.{suffix}({t} args…)`, declaring the intrinsic.
    pub(super) fn intrinsic(&mut self, r: &str, name: &str, t: &str, args: &[&str]) {
        let suffix = llvm_suffix(t);
        let params = vec![t; args.len()].join(", ");
        self.decls
            .insert(format!("declare {t} @llvm.{name}.{suffix}({params})"));
        let list: Vec<String> = args.iter().map(|a| format!("{t} {a}")).collect();
        self.line(&format!(
            "{r} = call {t} @llvm.{name}.{suffix}({})",
            list.join(", ")
        ));
    }

    /// A fresh temporary holding `{t} op`.
    pub(super) fn compute(&mut self, text: impl FnOnce(&str) -> String) -> String {
        let r = self.tmp();
        let line = text(&r);
        self.line(&line);
        r
    }

    /// One element-wise operation: float operands bitcast to the number type, the result back.
    /// Two `f32` operations of one kind side by side as one `<2 x float>` operation, which LLVM
    /// selects as `v_pk_add_f32`, `v_pk_mul_f32` or `v_pk_fma_f32` (a product feeding a sum
    /// fuses as the scalar ones do) — what `opt`'s SLP vectorizer makes of Triton's elementwise
    /// code on the families with packed `f32` arithmetic.
    pub(super) fn arith_pair(&mut self, op: ArithOp, pair: PackedPair) -> Result<(), LowerError> {
        let mut vectors = Vec::with_capacity(op.operands());
        for k in 0..op.operands() {
            let mut v = "poison".to_string();
            for (lane, (_, src)) in pair.iter().enumerate() {
                let Some(&x) = src.get(k) else {
                    return Err(LowerError::new(format!(
                        "{op:?} takes {} operands",
                        op.operands()
                    )));
                };
                let x = self.val(x)?;
                let f = self.compute(|c| format!("{c} = bitcast i32 {x} to float"));
                v = self.compute(|c| format!("{c} = insertelement <2 x float> {v}, float {f}, i32 {lane}"));
            }
            vectors.push(v);
        }
        let r = match (op, vectors.as_slice()) {
            (ArithOp::Fma, [a, b, c]) => {
                self.decls.insert(
                    "declare <2 x float> @llvm.fma.v2f32(<2 x float>, <2 x float>, <2 x float>)".to_string(),
                );
                self.compute(|r| {
                    format!("{r} = call <2 x float> @llvm.fma.v2f32(<2 x float> {a}, <2 x float> {b}, <2 x float> {c})")
                })
            }
            (ArithOp::Add | ArithOp::Sub | ArithOp::Mul, [a, b]) => {
                let instruction = match op {
                    ArithOp::Add => "fadd",
                    ArithOp::Sub => "fsub",
                    _ => "fmul",
                };
                self.compute(|r| format!("{r} = {instruction} contract <2 x float> {a}, {b}"))
            }
            _ => return Err(LowerError::new(format!("{op:?} has no packed f32 form"))),
        };
        for (lane, (dst, _)) in pair.iter().enumerate() {
            let e = self.compute(|e| format!("{e} = extractelement <2 x float> {r}, i32 {lane}"));
            let d = self.define(*dst)?;
            self.line(&format!("{d} = bitcast float {e} to i32"));
        }
        Ok(())
    }

    pub(super) fn arith(
        &mut self,
        op: ArithOp,
        ty: &str,
        dst: Value,
        src: &[Value],
    ) -> Result<(), LowerError> {
        let bits = self.p.value_bits(dst);
        let int = format!("i{bits}");
        let float = !ty.starts_with('i');
        let t = if float {
            llvm_number(ty)?.to_string()
        } else {
            int.clone()
        };
        if src.len() < op.operands() {
            return Err(LowerError::new(format!(
                "{op:?} takes {} operands",
                op.operands()
            )));
        }
        let mut args = Vec::with_capacity(src.len());
        for &v in src {
            let x = self.val(v)?;
            args.push(if float {
                self.compute(|c| format!("{c} = bitcast {int} {x} to {t}"))
            } else {
                x
            });
        }
        let r = if float {
            self.float_op(op, &t, &args)?
        } else {
            self.int_op(op, &t, &args)?
        };
        let d = self.define(dst)?;
        if op == ArithOp::And && bits == 1 {
            self.conjunctions
                .insert(d.clone(), (args[0].clone(), args[1].clone()));
        }
        if float {
            self.line(&format!("{d} = bitcast {t} {r} to {int}"));
        } else {
            self.line(&format!("{d} = add {t} 0, {r}"));
        }
        Ok(())
    }

    fn int_op(&mut self, op: ArithOp, t: &str, args: &[String]) -> Result<String, LowerError> {
        let (a, b) = (args[0].as_str(), args.get(1).map_or("", String::as_str));
        let instruction = match op {
            ArithOp::Add => "add",
            ArithOp::Sub => "sub",
            ArithOp::Mul => "mul",
            ArithOp::Div => "sdiv",
            ArithOp::DivU => "udiv",
            ArithOp::RemS => "srem",
            ArithOp::RemU => "urem",
            ArithOp::And => "and",
            ArithOp::Or => "or",
            ArithOp::Xor => "xor",
            ArithOp::Shl => "shl",
            ArithOp::ShrS => "ashr",
            ArithOp::ShrU => "lshr",
            ArithOp::Max | ArithOp::Min | ArithOp::MaxU | ArithOp::MinU => {
                let name = match op {
                    ArithOp::Max => "smax",
                    ArithOp::Min => "smin",
                    ArithOp::MaxU => "umax",
                    _ => "umin",
                };
                let r = self.tmp();
                self.intrinsic(&r, name, t, &[a, b]);
                return Ok(r);
            }
            ArithOp::Abs => {
                self.decls.insert(format!("declare {t} @llvm.abs.{t}({t}, i1)"));
                return Ok(self.compute(|r| format!("{r} = call {t} @llvm.abs.{t}({t} {a}, i1 false)")));
            }
            ArithOp::MulHiU => {
                let w = t.trim_start_matches('i').parse::<u32>().unwrap_or(32);
                let wide = format!("i{}", 2 * w);
                let x = self.compute(|r| format!("{r} = zext {t} {a} to {wide}"));
                let y = self.compute(|r| format!("{r} = zext {t} {b} to {wide}"));
                let m = self.compute(|r| format!("{r} = mul {wide} {x}, {y}"));
                let h = self.compute(|r| format!("{r} = lshr {wide} {m}, {w}"));
                return Ok(self.compute(|r| format!("{r} = trunc {wide} {h} to {t}")));
            }
            other => {
                return Err(LowerError::new(format!(
                    "{other:?} of integers is not an operation"
                )));
            }
        };
        Ok(self.compute(|r| format!("{r} = {instruction} {t} {a}, {b}")))
    }

    pub(super) fn float_op(&mut self, op: ArithOp, t: &str, args: &[String]) -> Result<String, LowerError> {
        // Only `f32` has the instruction and Triton's refined root; other types' square roots
        // are correctly rounded.
        let op = match op {
            ArithOp::FastSqrt | ArithOp::PreciseSqrt if t != "float" => ArithOp::Sqrt,
            op => op,
        };
        let transcendental = matches!(
            op,
            ArithOp::Exp
                | ArithOp::Exp2
                | ArithOp::Log
                | ArithOp::Log2
                | ArithOp::Log10
                | ArithOp::Sqrt
                | ArithOp::Rsqrt
                | ArithOp::Sin
                | ArithOp::Cos
                | ArithOp::Erf
                | ArithOp::Tanh
                | ArithOp::Log1p
                | ArithOp::Expm1
                | ArithOp::Pow
                | ArithOp::Tan
                | ArithOp::Hypot
                | ArithOp::Asin
                | ArithOp::Acos
                | ArithOp::Atan
                | ArithOp::Atan2
                | ArithOp::Sinh
                | ArithOp::Cosh
                | ArithOp::Asinh
                | ArithOp::Acosh
                | ArithOp::Atanh
                | ArithOp::Erfc
                | ArithOp::Erfcx
                | ArithOp::Erfinv
                | ArithOp::Lgamma
                | ArithOp::Bessel(_)
        );
        if transcendental && (t == "half" || t == "bfloat") {
            let wide: Vec<String> = args
                .iter()
                .map(|x| self.compute(|r| format!("{r} = fpext {t} {x} to float")))
                .collect();
            let y = self.float_op(op, "float", &wide)?;
            return Ok(self.compute(|r| format!("{r} = fptrunc float {y} to {t}")));
        }
        let (a, b) = (args[0].as_str(), args.get(1).map_or("", String::as_str));
        // Double precision in software where no instruction computes the function.
        if t == "double" {
            match op {
                ArithOp::Exp => return Ok(self.exp_f64(a, 0)),
                ArithOp::Exp2 => return Ok(self.exp2_f64(a)),
                ArithOp::Log | ArithOp::Log2 | ArithOp::Log10 => return Ok(self.log_f64(op, a)),
                ArithOp::Rsqrt => return Ok(self.rsqrt_f64(a)),
                ArithOp::Tanh => return self.tanh_f64(a),
                ArithOp::Expm1 => return Ok(self.expm1_f64(a)),
                ArithOp::Tan => return Ok(self.tan_f64(a)),
                ArithOp::Hypot => return Ok(self.hypot_f64(a, b)),
                ArithOp::Sin => return Ok(self.sin_cos_f64(a, 0)),
                ArithOp::Cos => return Ok(self.sin_cos_f64(a, 1)),
                _ => {}
            }
        }
        let binary = match op {
            ArithOp::Add => Some("fadd"),
            ArithOp::Sub => Some("fsub"),
            ArithOp::Mul => Some("fmul"),
            ArithOp::Div => Some("fdiv"),
            ArithOp::RemS => Some("frem"),
            _ => None,
        };
        if let Some(instruction) = binary {
            // A product feeding a sum may fuse into one fma, as Triton's default
            // (`enable_fp_fusion`) lets it.
            let flags = if matches!(op, ArithOp::Add | ArithOp::Sub | ArithOp::Mul) {
                "contract "
            } else {
                ""
            };
            return Ok(self.compute(|r| format!("{r} = {instruction} {flags}{t} {a}, {b}")));
        }
        let r = self.tmp();
        match op {
            ArithOp::Neg => self.line(&format!("{r} = fneg {t} {a}")),
            ArithOp::Max => self.intrinsic(&r, "maxnum", t, &[a, b]),
            ArithOp::Min => self.intrinsic(&r, "minnum", t, &[a, b]),
            ArithOp::Maximum => self.intrinsic(&r, "maximum", t, &[a, b]),
            ArithOp::Minimum => self.intrinsic(&r, "minimum", t, &[a, b]),
            ArithOp::Abs => self.intrinsic(&r, "fabs", t, &[a]),
            ArithOp::Sqrt => self.intrinsic(&r, "sqrt", t, &[a]),
            // The instruction alone, as Triton lowers `math.sqrt` of `f32`: `llvm.sqrt` would add
            // the scaling and correction steps that round it correctly.
            ArithOp::FastSqrt => {
                self.decls
                    .insert("declare float @llvm.amdgcn.sqrt.f32(float)".to_string());
                self.line(&format!("{r} = call float @llvm.amdgcn.sqrt.f32(float {a})"));
            }
            ArithOp::PreciseSqrt => return Ok(self.refined_sqrt(a)),
            ArithOp::Floor => self.intrinsic(&r, "floor", t, &[a]),
            ArithOp::Ceil => self.intrinsic(&r, "ceil", t, &[a]),
            ArithOp::Trunc => self.intrinsic(&r, "trunc", t, &[a]),
            ArithOp::Round => self.intrinsic(&r, "round", t, &[a]),
            ArithOp::Rint => self.intrinsic(&r, "rint", t, &[a]),
            ArithOp::Tanh => return self.tanh(t, a),
            // `v_exp_f32` itself, as Triton's exponentials are: a result below the normal
            // range flushes to zero rather than being scaled into a subnormal.
            ArithOp::Exp2 if t == "float" => self.hardware_exp2(&r, a),
            ArithOp::Exp2 => self.intrinsic(&r, "exp2", t, &[a]),
            ArithOp::Log => self.intrinsic(&r, "log", t, &[a]),
            ArithOp::Log2 => self.intrinsic(&r, "log2", t, &[a]),
            ArithOp::Log10 => self.intrinsic(&r, "log10", t, &[a]),
            ArithOp::Sin => return self.sin_cos(t, a, 0),
            ArithOp::Cos => return self.sin_cos(t, a, 1),
            ArithOp::Fma => self.intrinsic(&r, "fma", t, &[a, b, args[2].as_str()]),
            ArithOp::Exp => {
                // e^x = 2^(x·log2 e) (v_exp_f32).
                let m = self.compute(|m| format!("{m} = fmul {t} {a}, 0x3FF7154760000000"));
                if t == "float" {
                    self.hardware_exp2(&r, &m);
                } else {
                    self.intrinsic(&r, "exp2", t, &[&m]);
                }
            }
            // `v_rsq_f32` alone, as Triton lowers `math.rsqrt` of `f32` with its default `ftz`
            // (1 ulp; a subnormal argument is not rescaled first).
            ArithOp::Rsqrt if t == "float" => {
                self.decls
                    .insert("declare float @llvm.amdgcn.rsq.f32(float)".to_string());
                self.line(&format!("{r} = call float @llvm.amdgcn.rsq.f32(float {a})"));
            }
            ArithOp::Rsqrt => {
                let s = self.tmp();
                let suffix = llvm_suffix(t);
                self.decls.insert(format!("declare {t} @llvm.sqrt.{suffix}({t})"));
                self.line(&format!("{s} = call afn {t} @llvm.sqrt.{suffix}({t} {a})"));
                self.line(&format!("{r} = fdiv afn {t} {}, {s}", literal_of(t, 1.0)));
            }
            ArithOp::Erf => return self.erf(t, a),
            ArithOp::CopySign => self.intrinsic(&r, "copysign", t, &[a, b]),
            ArithOp::Log1p => return self.log1p(t, a),
            ArithOp::Expm1 => return self.expm1(t, a),
            ArithOp::Pow => return self.pow(t, a, b),
            ArithOp::Tan => {
                let (s, c) = (
                    self.float_op(ArithOp::Sin, t, &[a.to_string()])?,
                    self.float_op(ArithOp::Cos, t, &[a.to_string()])?,
                );
                return Ok(self.compute(|r| format!("{r} = fdiv {t} {s}, {c}")));
            }
            ArithOp::Hypot => return self.hypot(t, a, b),
            ArithOp::Asin => return self.asin(t, a),
            ArithOp::Acos => return self.acos(t, a),
            ArithOp::Atan => return self.atan(t, a),
            ArithOp::Atan2 => return self.atan2(t, a, b),
            ArithOp::Sinh | ArithOp::Cosh | ArithOp::Asinh | ArithOp::Acosh | ArithOp::Atanh => {
                return self.hyperbolic(op, t, a);
            }
            ArithOp::FastDiv => {
                self.decls
                    .insert("declare float @llvm.amdgcn.rcp.f32(float)".to_string());
                let rcp = self.compute(|q| format!("{q} = call float @llvm.amdgcn.rcp.f32(float {b})"));
                self.line(&format!("{r} = fmul float {a}, {rcp}"));
            }
            ArithOp::FastTanh => return Ok(self.fast_tanh(a)),
            ArithOp::Erfc | ArithOp::Erfcx => return self.erfc(op, t, a),
            ArithOp::Erfinv => return self.erfinv(t, a),
            ArithOp::Lgamma => return self.lgamma(t, a),
            ArithOp::NextAfter => return Ok(self.next_after(t, a, b)),
            ArithOp::Bessel(kind) => return self.bessel(kind, t, a),
            // The exponent arrives as the bits of an f32 (every operand of a float op does).
            ArithOp::Ldexp => {
                let n = self.compute(|n| format!("{n} = bitcast float {b} to i32"));
                self.decls
                    .insert("declare float @llvm.ldexp.f32.i32(float, i32)".to_string());
                self.line(&format!(
                    "{r} = call float @llvm.ldexp.f32.i32(float {a}, i32 {n})"
                ));
            }
            other => {
                return Err(LowerError::new(format!(
                    "{other:?} of floats is not an operation"
                )));
            }
        }
        Ok(r)
    }

    /// `tanh(x)`: `x·(1 + x²·(c₁ + x²·(c₂ + …)))` below 0.35, `±(1 − 2/(e^{2|x|} + 1))` above
    /// (where the subtraction no longer cancels most of the result).
    fn tanh(&mut self, t: &str, x: &str) -> Result<String, LowerError> {
        // tanh x = x − x³/3 + 2x⁵/15 − 17x⁷/315 + 62x⁹/2835 − 1382x¹¹/155925 (below 0.35 the
        // next term is 10⁻⁸ of the result).
        const SERIES: [f64; 6] = [
            1.0,
            -1.0 / 3.0,
            2.0 / 15.0,
            -17.0 / 315.0,
            62.0 / 2835.0,
            -1382.0 / 155_925.0,
        ];
        let a = self.tmp();
        self.intrinsic(&a, "fabs", t, &[x]);
        let z = self.compute(|r| format!("{r} = fmul {t} {x}, {x}"));
        let mut acc = literal_of(t, SERIES[SERIES.len() - 1]);
        for &c in SERIES[..SERIES.len() - 1].iter().rev() {
            let r = self.tmp();
            self.intrinsic(&r, "fma", t, &[&acc, &z, &literal_of(t, c)]);
            acc = r;
        }
        let near = self.compute(|r| format!("{r} = fmul {t} {x}, {acc}"));
        let twice = self.compute(|r| format!("{r} = fmul {t} {a}, {}", literal_of(t, 2.0)));
        let e = self.float_op(ArithOp::Exp, t, &[twice])?;
        let den = self.compute(|r| format!("{r} = fadd {t} {e}, {}", literal_of(t, 1.0)));
        let q = self.compute(|r| format!("{r} = fdiv arcp afn {t} {}, {den}", literal_of(t, 2.0)));
        let far = self.compute(|r| format!("{r} = fsub {t} {}, {q}", literal_of(t, 1.0)));
        let signed = self.tmp();
        self.intrinsic(&signed, "copysign", t, &[&far, x]);
        let small = self.compute(|r| format!("{r} = fcmp olt {t} {a}, {}", literal_of(t, 0.35)));
        Ok(self.compute(|r| format!("{r} = select i1 {small}, {t} {near}, {t} {signed}")))
    }

    /// `ln(1 + x)`: `u = 1 + x`; `x` itself where `u` rounds to 1 (or `x` is +∞), else
    /// `ln(u) · x / (u − 1)`, whose quotient undoes the rounding of `u`.
    fn log1p(&mut self, t: &str, x: &str) -> Result<String, LowerError> {
        let one = literal_of(t, 1.0);
        let u = self.compute(|r| format!("{r} = fadd {t} {x}, {one}"));
        let d = self.compute(|r| format!("{r} = fsub {t} {u}, {one}"));
        let l = self.float_op(ArithOp::Log, t, std::slice::from_ref(&u))?;
        let q = self.compute(|r| format!("{r} = fdiv {t} {x}, {d}"));
        let near = self.compute(|r| format!("{r} = fmul {t} {l}, {q}"));
        let exact = self.compute(|r| format!("{r} = fcmp oeq {t} {d}, {}", literal_of(t, 0.0)));
        let inf = self.compute(|r| format!("{r} = fcmp oeq {t} {x}, {}", literal_of(t, f64::INFINITY)));
        let itself = self.compute(|r| format!("{r} = or i1 {exact}, {inf}"));
        Ok(self.compute(|r| format!("{r} = select i1 {itself}, {t} {x}, {t} {near}")))
    }

    /// `eˣ − 1`: `u = eˣ`; `x` itself where `u` rounds to 1, −1 where `u − 1` is −1, `u`
    /// where it is +∞, else `(u − 1) · x / ln(u)`.
    fn expm1(&mut self, t: &str, x: &str) -> Result<String, LowerError> {
        let one = literal_of(t, 1.0);
        let u = self.float_op(ArithOp::Exp, t, &[x.to_string()])?;
        let d = self.compute(|r| format!("{r} = fsub {t} {u}, {one}"));
        let l = self.float_op(ArithOp::Log, t, std::slice::from_ref(&u))?;
        let q = self.compute(|r| format!("{r} = fdiv {t} {x}, {l}"));
        let near = self.compute(|r| format!("{r} = fmul {t} {d}, {q}"));
        let minus_one = literal_of(t, -1.0);
        let bottom = self.compute(|r| format!("{r} = fcmp oeq {t} {d}, {minus_one}"));
        let low = self.compute(|r| format!("{r} = select i1 {bottom}, {t} {minus_one}, {t} {near}"));
        let top = self.compute(|r| format!("{r} = fcmp oeq {t} {u}, {}", literal_of(t, f64::INFINITY)));
        let high = self.compute(|r| format!("{r} = select i1 {top}, {t} {u}, {t} {low}"));
        let exact = self.compute(|r| format!("{r} = fcmp oeq {t} {d}, {}", literal_of(t, 0.0)));
        Ok(self.compute(|r| format!("{r} = select i1 {exact}, {t} {x}, {t} {high}")))
    }

    /// `xʸ = 2^(y · log₂|x|)`, negated for a negative `x` and an odd integer `y`, NaN for a
    /// negative `x` and a `y` that is no integer, 1 for `y = 0` or `x = 1` (NaN inputs too).
    fn pow(&mut self, t: &str, x: &str, y: &str) -> Result<String, LowerError> {
        let (zero, half, one) = (literal_of(t, 0.0), literal_of(t, 0.5), literal_of(t, 1.0));
        let ax = self.tmp();
        self.intrinsic(&ax, "fabs", t, &[x]);
        let e = if t == "double" {
            self.pow_magnitude_f64(&ax, y)
        } else {
            let l = self.float_op(ArithOp::Log2, t, &[ax])?;
            let p = self.compute(|r| format!("{r} = fmul {t} {y}, {l}"));
            self.float_op(ArithOp::Exp2, t, &[p])?
        };
        let yi = self.tmp();
        self.intrinsic(&yi, "trunc", t, &[y]);
        let integer = self.compute(|r| format!("{r} = fcmp oeq {t} {yi}, {y}"));
        let h = self.compute(|r| format!("{r} = fmul {t} {y}, {half}"));
        let hi = self.tmp();
        self.intrinsic(&hi, "trunc", t, &[&h]);
        let odd_half = self.compute(|r| format!("{r} = fcmp une {t} {hi}, {h}"));
        let odd = self.compute(|r| format!("{r} = and i1 {integer}, {odd_half}"));
        let negative = self.compute(|r| format!("{r} = fcmp olt {t} {x}, {zero}"));
        let flip = self.compute(|r| format!("{r} = and i1 {negative}, {odd}"));
        let ne = self.compute(|r| format!("{r} = fneg {t} {e}"));
        let signed = self.compute(|r| format!("{r} = select i1 {flip}, {t} {ne}, {t} {e}"));
        let fraction = self.compute(|r| format!("{r} = xor i1 {integer}, true"));
        let undefined = self.compute(|r| format!("{r} = and i1 {negative}, {fraction}"));
        let nan = literal_of(t, f64::NAN);
        let real = self.compute(|r| format!("{r} = select i1 {undefined}, {t} {nan}, {t} {signed}"));
        let y0 = self.compute(|r| format!("{r} = fcmp oeq {t} {y}, {zero}"));
        let x1 = self.compute(|r| format!("{r} = fcmp oeq {t} {x}, {one}"));
        let unit = self.compute(|r| format!("{r} = or i1 {y0}, {x1}"));
        Ok(self.compute(|r| format!("{r} = select i1 {unit}, {t} {one}, {t} {real}")))
    }

    /// `√(x² + y²)`: `m · √(1 + (n/m)²)` with `m`, `n` the larger and smaller magnitude (no
    /// square overflows or underflows); 0 where both are 0, +∞ where either is infinite (a NaN
    /// beside it too), else NaN where either is NaN.
    fn hypot(&mut self, t: &str, x: &str, y: &str) -> Result<String, LowerError> {
        let (ax, ay) = (self.tmp(), self.tmp());
        self.intrinsic(&ax, "fabs", t, &[x]);
        self.intrinsic(&ay, "fabs", t, &[y]);
        let (m, n) = (self.tmp(), self.tmp());
        self.intrinsic(&m, "maxnum", t, &[&ax, &ay]);
        self.intrinsic(&n, "minnum", t, &[&ax, &ay]);
        let q = self.compute(|r| format!("{r} = fdiv {t} {n}, {m}"));
        let one = literal_of(t, 1.0);
        let s = self.tmp();
        self.intrinsic(&s, "fma", t, &[&q, &q, &one]);
        let root = self.float_op(ArithOp::Sqrt, t, &[s])?;
        let h = self.compute(|r| format!("{r} = fmul {t} {m}, {root}"));
        let zero = self.compute(|r| format!("{r} = fcmp oeq {t} {m}, {}", literal_of(t, 0.0)));
        let finite = self.compute(|r| format!("{r} = select i1 {zero}, {t} {}, {t} {h}", literal_of(t, 0.0)));
        Ok(self.hypot_special_values(t, &ax, &ay, &finite))
    }

    /// `hypot`'s `value` of the magnitudes `ax`, `ay` with IEEE's special values: NaN where
    /// either is NaN (maxnum and minnum pass a NaN by), `+∞` where either is infinite (a NaN
    /// beside it too).
    pub(super) fn hypot_special_values(&mut self, t: &str, ax: &str, ay: &str, value: &str) -> String {
        let nan = self.compute(|r| format!("{r} = fcmp uno {t} {ax}, {ay}"));
        let value = self.compute(|r| {
            format!(
                "{r} = select i1 {nan}, {t} {}, {t} {value}",
                literal_of(t, f64::NAN)
            )
        });
        let inf = literal_of(t, f64::INFINITY);
        let (xi, yi) = (
            self.compute(|r| format!("{r} = fcmp oeq {t} {ax}, {inf}")),
            self.compute(|r| format!("{r} = fcmp oeq {t} {ay}, {inf}")),
        );
        let either = self.compute(|r| format!("{r} = or i1 {xi}, {yi}"));
        self.compute(|r| format!("{r} = select i1 {either}, {t} {inf}, {t} {value}"))
    }

    /// `sin x` (`shift` 0) or `cos x = sin(x + π/2)` (`shift` 1): `x = j·π/2 + r` with
    /// `|r| ≤ π/4`, then by the quadrant `(j + shift) mod 4` the sine or cosine polynomial of
    /// `r`, negated in the second half turn.
    fn sin_cos(&mut self, t: &str, x: &str, shift: i64) -> Result<String, LowerError> {
        let scaled = self.compute(|r| {
            format!(
                "{r} = fmul {t} {x}, {}",
                literal_of(t, std::f64::consts::FRAC_2_PI)
            )
        });
        let j = self.tmp();
        self.intrinsic(&j, "rint", t, &[&scaled]);
        let nj = self.compute(|r| format!("{r} = fneg {t} {j}"));
        let mut rest = x.to_string();
        for part in HALF_PI_PARTS {
            let next = self.tmp();
            self.intrinsic(&next, "fma", t, &[&nj, &literal_of(t, part), &rest]);
            rest = next;
        }
        let z = self.compute(|r| format!("{r} = fmul {t} {rest}, {rest}"));
        let sine = self.odd_series(t, &rest, &z, &SIN_POLY);
        let p = self.polynomial(t, &z, &COS_POLY);
        let zz = self.compute(|r| format!("{r} = fmul {t} {z}, {z}"));
        let half = self.compute(|r| format!("{r} = fmul {t} {z}, {}", literal_of(t, 0.5)));
        let one_minus = self.compute(|r| format!("{r} = fsub {t} {}, {half}", literal_of(t, 1.0)));
        let cosine = self.tmp();
        self.intrinsic(&cosine, "fma", t, &[&zz, &p, &one_minus]);
        // The quadrant from j (an integer-valued float; a NaN or infinite x gives NaN anyway).
        let ji = self.compute(|r| format!("{r} = fptosi {t} {j} to i32"));
        let q = self.compute(|r| format!("{r} = add i32 {ji}, {shift}"));
        let odd = self.compute(|r| format!("{r} = trunc i32 {q} to i1"));
        let q2 = self.compute(|r| format!("{r} = and i32 {q}, 2"));
        let flip = self.compute(|r| format!("{r} = icmp ne i32 {q2}, 0"));
        let v = self.compute(|r| format!("{r} = select i1 {odd}, {t} {cosine}, {t} {sine}"));
        let nv = self.compute(|r| format!("{r} = fneg {t} {v}"));
        Ok(self.compute(|r| format!("{r} = select i1 {flip}, {t} {nv}, {t} {v}")))
    }

    /// `c₀·zⁿ + … + cₙ` by Horner's rule with fused multiply-adds.
    pub(super) fn polynomial(&mut self, t: &str, z: &str, coefficients: &[f64]) -> String {
        let mut acc = literal_of(t, coefficients[0]);
        for &c in &coefficients[1..] {
            let r = self.tmp();
            self.intrinsic(&r, "fma", t, &[&acc, z, &literal_of(t, c)]);
            acc = r;
        }
        acc
    }

    /// `x + x·z·P(z)` for a reduced argument `x` with `z = x²`.
    fn odd_series(&mut self, t: &str, x: &str, z: &str, coefficients: &[f64]) -> String {
        let p = self.polynomial(t, z, coefficients);
        let xz = self.compute(|r| format!("{r} = fmul {t} {x}, {z}"));
        let r = self.tmp();
        self.intrinsic(&r, "fma", t, &[&xz, &p, x]);
        r
    }

    /// Triton's precise `f32` square root ([`ArithOp::PreciseSqrt`]): `a·rsq(a)` and
    /// `rsq(a)/2` refined by one Newton step, `±0` and `+∞` passed through (`is.fpclass`
    /// mask `0x260`). Eight instructions where LLVM's correctly rounded `llvm.sqrt.f32` scales
    /// small arguments and corrects the result by comparisons.
    fn refined_sqrt(&mut self, a: &str) -> String {
        self.decls
            .insert("declare float @llvm.amdgcn.rsq.f32(float)".to_string());
        self.decls
            .insert("declare float @llvm.fma.f32(float, float, float)".to_string());
        self.decls
            .insert("declare i1 @llvm.is.fpclass.f32(float, i32)".to_string());
        let r = self.compute(|r| format!("{r} = call float @llvm.amdgcn.rsq.f32(float {a})"));
        let s = self.compute(|s| format!("{s} = fmul float {a}, {r}"));
        let h = self.compute(|h| format!("{h} = fmul float {r}, 5.000000e-01"));
        let neg_h = self.compute(|n| format!("{n} = fneg float {h}"));
        let fma =
            |x: &str, y: &str, z: &str| format!("call float @llvm.fma.f32(float {x}, float {y}, float {z})");
        let e = self.compute(|e| format!("{e} = {}", fma(&neg_h, &s, "5.000000e-01")));
        let h = self.compute(|n| format!("{n} = {}", fma(&h, &e, &h)));
        let s = self.compute(|n| format!("{n} = {}", fma(&s, &e, &s)));
        let neg_s = self.compute(|n| format!("{n} = fneg float {s}"));
        let d = self.compute(|n| format!("{n} = {}", fma(&neg_s, &s, a)));
        let root = self.compute(|n| format!("{n} = {}", fma(&d, &h, &s)));
        let passed = self.compute(|p| format!("{p} = call i1 @llvm.is.fpclass.f32(float {a}, i32 608)"));
        self.compute(|n| format!("{n} = select i1 {passed}, float {a}, float {root}"))
    }

    /// Triton's `fast_tanhf` ([`ArithOp::FastTanh`]), step by step.
    fn fast_tanh(&mut self, x: &str) -> String {
        let a = self.tmp();
        self.intrinsic(&a, "fabs", "float", &[x]);
        let twice = self.compute(|r| format!("{r} = fmul float {a}, 2.000000e+00"));
        let scaled = self.compute(|r| format!("{r} = fmul float {twice}, 0x3FF7154760000000"));
        let e = self.tmp();
        self.hardware_exp2(&e, &scaled);
        let den = self.compute(|r| format!("{r} = fadd float {e}, 1.000000e+00"));
        let q = self.compute(|r| format!("{r} = fdiv float 2.000000e+00, {den}"));
        let far = self.compute(|r| format!("{r} = fsub float 1.000000e+00, {q}"));
        let signed = self.tmp();
        self.intrinsic(&signed, "copysign", "float", &[&far, x]);
        signed
    }

    /// The hyperbolic functions and their inverses (see [`ArithOp::Sinh`] … [`ArithOp::Atanh`])
    /// from the exponential and logarithm.
    fn hyperbolic(&mut self, op: ArithOp, t: &str, x: &str) -> Result<String, LowerError> {
        let lit = |v: f64| literal_of(t, v);
        let a = self.tmp();
        self.intrinsic(&a, "fabs", t, &[x]);
        let signed = |e: &mut Self, v: &str| {
            let r = e.tmp();
            e.intrinsic(&r, "copysign", t, &[v, x]);
            r
        };
        // e^|x| / 2, finite up to |x| ≈ 89 in f32: e^(|x| − ln 2); in f64 the exponential
        // scales by 2⁻¹ itself, exactly (the subtraction would round |x| off by up to half its
        // last place, hundreds of units in the result's near the top of the range).
        let half_exp = |e: &mut Self| -> Result<String, LowerError> {
            if t == "double" {
                return Ok(e.exp_f64(&a, -1));
            }
            let shifted = e.compute(|r| format!("{r} = fsub {t} {a}, {}", lit(std::f64::consts::LN_2)));
            e.float_op(ArithOp::Exp, t, &[shifted])
        };
        // Past these, e^−2|x| (sinh) and 1/(4x²) (asinh, acosh) are below the type's last place.
        let (sinh_far, log_far) = if t == "double" {
            (20.0, 268_435_456.0)
        } else {
            (10.0, 4096.0)
        };
        match op {
            ArithOp::Sinh => {
                let u = self.float_op(ArithOp::Expm1, t, std::slice::from_ref(&a))?;
                let u1 = self.compute(|r| format!("{r} = fadd {t} {u}, {}", lit(1.0)));
                let q = self.compute(|r| format!("{r} = fdiv {t} {u}, {u1}"));
                let sum = self.compute(|r| format!("{r} = fadd {t} {u}, {q}"));
                let near = self.compute(|r| format!("{r} = fmul {t} {sum}, {}", lit(0.5)));
                let far = half_exp(self)?;
                let large = self.compute(|r| format!("{r} = fcmp ogt {t} {a}, {}", lit(sinh_far)));
                let m = self.compute(|r| format!("{r} = select i1 {large}, {t} {far}, {t} {near}"));
                Ok(signed(self, &m))
            }
            ArithOp::Cosh => {
                let h = half_exp(self)?;
                let four = self.compute(|r| format!("{r} = fmul {t} {h}, {}", lit(4.0)));
                let inv = self.compute(|r| format!("{r} = fdiv {t} {}, {four}", lit(1.0)));
                Ok(self.compute(|r| format!("{r} = fadd {t} {h}, {inv}")))
            }
            ArithOp::Asinh | ArithOp::Acosh => {
                let (arg, big) = if op == ArithOp::Asinh {
                    // |x| + x²/(1 + √(1 + x²))
                    let sq = self.compute(|r| format!("{r} = fmul {t} {a}, {a}"));
                    let sq1 = self.compute(|r| format!("{r} = fadd {t} {sq}, {}", lit(1.0)));
                    let root = self.float_op(ArithOp::Sqrt, t, &[sq1])?;
                    let den = self.compute(|r| format!("{r} = fadd {t} {root}, {}", lit(1.0)));
                    let q = self.compute(|r| format!("{r} = fdiv {t} {sq}, {den}"));
                    (self.compute(|r| format!("{r} = fadd {t} {a}, {q}")), a.clone())
                } else {
                    // t + √(t·(t + 2)), t = x − 1
                    let d = self.compute(|r| format!("{r} = fsub {t} {x}, {}", lit(1.0)));
                    let d2 = self.compute(|r| format!("{r} = fadd {t} {d}, {}", lit(2.0)));
                    let p = self.compute(|r| format!("{r} = fmul {t} {d}, {d2}"));
                    let root = self.float_op(ArithOp::Sqrt, t, &[p])?;
                    (
                        self.compute(|r| format!("{r} = fadd {t} {d}, {root}")),
                        x.to_string(),
                    )
                };
                let near = self.float_op(ArithOp::Log1p, t, &[arg])?;
                let log = self.float_op(ArithOp::Log, t, std::slice::from_ref(&big))?;
                let far = self.compute(|r| format!("{r} = fadd {t} {log}, {}", lit(std::f64::consts::LN_2)));
                let large = self.compute(|r| format!("{r} = fcmp ogt {t} {big}, {}", lit(log_far)));
                let m = self.compute(|r| format!("{r} = select i1 {large}, {t} {far}, {t} {near}"));
                Ok(if op == ArithOp::Asinh { signed(self, &m) } else { m })
            }
            _ => {
                // atanh: log1p(2|x|/(1 − |x|))/2
                let twice = self.compute(|r| format!("{r} = fadd {t} {a}, {a}"));
                let rest = self.compute(|r| format!("{r} = fsub {t} {}, {a}", lit(1.0)));
                let q = self.compute(|r| format!("{r} = fdiv {t} {twice}, {rest}"));
                let l = self.float_op(ArithOp::Log1p, t, &[q])?;
                let h = self.compute(|r| format!("{r} = fmul {t} {l}, {}", lit(0.5)));
                Ok(signed(self, &h))
            }
        }
    }

    /// `asin(x)`, `x` of magnitude at most ½ or not: see [`ArithOp::Asin`].
    fn asin(&mut self, t: &str, x: &str) -> Result<String, LowerError> {
        let a = self.tmp();
        self.intrinsic(&a, "fabs", t, &[x]);
        let half = literal_of(t, 0.5);
        let large = self.compute(|r| format!("{r} = fcmp ogt {t} {a}, {half}"));
        // Above ½: asin(a) = π/2 − 2·asin(s), s = √((1 − a)/2) ≤ ½.
        let d = self.compute(|r| format!("{r} = fsub {t} {}, {a}", literal_of(t, 1.0)));
        let zl = self.compute(|r| format!("{r} = fmul {t} {d}, {half}"));
        let s = self.float_op(ArithOp::Sqrt, t, std::slice::from_ref(&zl))?;
        let zs = self.compute(|r| format!("{r} = fmul {t} {a}, {a}"));
        let u = self.compute(|r| format!("{r} = select i1 {large}, {t} {s}, {t} {a}"));
        let z = self.compute(|r| format!("{r} = select i1 {large}, {t} {zl}, {t} {zs}"));
        let v = self.odd_series(t, &u, &z, &ASIN_POLY);
        let twice = self.compute(|r| format!("{r} = fadd {t} {v}, {v}"));
        let folded = self.compute(|r| {
            format!(
                "{r} = fsub {t} {}, {twice}",
                literal_of(t, std::f64::consts::FRAC_PI_2)
            )
        });
        let m = self.compute(|r| format!("{r} = select i1 {large}, {t} {folded}, {t} {v}"));
        let out = self.tmp();
        self.intrinsic(&out, "copysign", t, &[&m, x]);
        Ok(out)
    }

    /// `acos(x)`: see [`ArithOp::Acos`].
    fn acos(&mut self, t: &str, x: &str) -> Result<String, LowerError> {
        let (half, one) = (literal_of(t, 0.5), literal_of(t, 1.0));
        let a = self.tmp();
        self.intrinsic(&a, "fabs", t, &[x]);
        let large = self.compute(|r| format!("{r} = fcmp ogt {t} {a}, {half}"));
        let negative = self.compute(|r| format!("{r} = fcmp olt {t} {x}, {}", literal_of(t, 0.0)));
        // Near ±1: s = √((1 − |x|)/2), acos = 2·asin(s) (x > 0) or π − 2·asin(s) (x < 0).
        let d = self.compute(|r| format!("{r} = fsub {t} {one}, {a}"));
        let zl = self.compute(|r| format!("{r} = fmul {t} {d}, {half}"));
        let s = self.float_op(ArithOp::Sqrt, t, &[zl])?;
        let arg = self.compute(|r| format!("{r} = select i1 {large}, {t} {s}, {t} {x}"));
        let w = self.asin(t, &arg)?;
        let twice = self.compute(|r| format!("{r} = fadd {t} {w}, {w}"));
        let from_pi =
            self.compute(|r| format!("{r} = fsub {t} {}, {twice}", literal_of(t, std::f64::consts::PI)));
        let edge = self.compute(|r| format!("{r} = select i1 {negative}, {t} {from_pi}, {t} {twice}"));
        let middle = self.compute(|r| {
            format!(
                "{r} = fsub {t} {}, {w}",
                literal_of(t, std::f64::consts::FRAC_PI_2)
            )
        });
        Ok(self.compute(|r| format!("{r} = select i1 {large}, {t} {edge}, {t} {middle}")))
    }

    /// `atan(x)`: see [`ArithOp::Atan`].
    fn atan(&mut self, t: &str, x: &str) -> Result<String, LowerError> {
        let one = literal_of(t, 1.0);
        let a = self.tmp();
        self.intrinsic(&a, "fabs", t, &[x]);
        // tan(3π/8) and tan(π/8).
        let high =
            self.compute(|r| format!("{r} = fcmp ogt {t} {a}, {}", literal_of(t, 2.414_213_562_373_095)));
        let mid = self.compute(|r| {
            format!(
                "{r} = fcmp ogt {t} {a}, {}",
                literal_of(t, 0.414_213_562_373_095_1)
            )
        });
        let inv = self.compute(|r| format!("{r} = fdiv {t} {}, {a}", literal_of(t, -1.0)));
        let num = self.compute(|r| format!("{r} = fsub {t} {a}, {one}"));
        let den = self.compute(|r| format!("{r} = fadd {t} {a}, {one}"));
        let ratio = self.compute(|r| format!("{r} = fdiv {t} {num}, {den}"));
        let mid_or_small = self.compute(|r| format!("{r} = select i1 {mid}, {t} {ratio}, {t} {a}"));
        let u = self.compute(|r| format!("{r} = select i1 {high}, {t} {inv}, {t} {mid_or_small}"));
        let base_mid = literal_of(t, std::f64::consts::FRAC_PI_4);
        let base_high = literal_of(t, std::f64::consts::FRAC_PI_2);
        let zero = literal_of(t, 0.0);
        let base_low = self.compute(|r| format!("{r} = select i1 {mid}, {t} {base_mid}, {t} {zero}"));
        let base = self.compute(|r| format!("{r} = select i1 {high}, {t} {base_high}, {t} {base_low}"));
        let z = self.compute(|r| format!("{r} = fmul {t} {u}, {u}"));
        let v = self.odd_series(t, &u, &z, &ATAN_POLY);
        let m = self.compute(|r| format!("{r} = fadd {t} {base}, {v}"));
        let out = self.tmp();
        self.intrinsic(&out, "copysign", t, &[&m, x]);
        Ok(out)
    }

    /// `atan2(y, x)`: see [`ArithOp::Atan2`].
    fn atan2(&mut self, t: &str, y: &str, x: &str) -> Result<String, LowerError> {
        let zero = literal_of(t, 0.0);
        let q = self.compute(|r| format!("{r} = fdiv {t} {y}, {x}"));
        let base = self.atan(t, &q)?;
        let pi = self.tmp();
        self.intrinsic(&pi, "copysign", t, &[&literal_of(t, std::f64::consts::PI), y]);
        let turned = self.compute(|r| format!("{r} = fadd {t} {base}, {pi}"));
        let left = self.compute(|r| format!("{r} = fcmp olt {t} {x}, {zero}"));
        let off_axis = self.compute(|r| format!("{r} = select i1 {left}, {t} {turned}, {t} {base}"));
        // On the y axis: ±π/2; at the origin a signed zero or ±π by the sign of x.
        let half_pi = self.tmp();
        self.intrinsic(
            &half_pi,
            "copysign",
            t,
            &[&literal_of(t, std::f64::consts::FRAC_PI_2), y],
        );
        let x_bits = self.compute(|r| format!("{r} = bitcast {t} {x} to {}", int_of(t)));
        let x_negative = self.compute(|r| format!("{r} = icmp slt {} {x_bits}, 0", int_of(t)));
        let zero_y = self.tmp();
        self.intrinsic(&zero_y, "copysign", t, &[&zero, y]);
        let origin = self.compute(|r| format!("{r} = select i1 {x_negative}, {t} {pi}, {t} {zero_y}"));
        let y_zero = self.compute(|r| format!("{r} = fcmp oeq {t} {y}, {zero}"));
        let on_axis = self.compute(|r| format!("{r} = select i1 {y_zero}, {t} {origin}, {t} {half_pi}"));
        let x_zero = self.compute(|r| format!("{r} = fcmp oeq {t} {x}, {zero}"));
        Ok(self.compute(|r| format!("{r} = select i1 {x_zero}, {t} {on_axis}, {t} {off_axis}")))
    }

    /// `erf(x)`: the series below 1, the Abramowitz–Stegun form above (see [`ArithOp::eval`]).
    fn erf(&mut self, t: &str, x: &str) -> Result<String, LowerError> {
        let a = self.tmp();
        self.intrinsic(&a, "fabs", t, &[x]);
        let z = self.compute(|r| format!("{r} = fmul {t} {x}, {x}"));
        // Horner's rule with fused multiply-adds.
        let horner = |e: &mut Self, coefficients: &[f64], at: &str| -> String {
            let mut acc = literal_of(t, coefficients[coefficients.len() - 1]);
            for &c in coefficients[..coefficients.len() - 1].iter().rev() {
                let r = e.tmp();
                e.intrinsic(&r, "fma", t, &[&acc, at, &literal_of(t, c)]);
                acc = r;
            }
            acc
        };
        let series = horner(self, &ERF_SERIES, &z);
        let near = self.compute(|r| format!("{r} = fmul {t} {x}, {series}"));
        let pa = self.compute(|r| format!("{r} = fmul {t} {a}, {}", literal_of(t, ERF_TAIL[0])));
        let den = self.compute(|r| format!("{r} = fadd {t} {pa}, {}", literal_of(t, 1.0)));
        // A reciprocal to an ulp (`v_rcp_f32`): far inside the formula's own error.
        let tt = self.compute(|r| format!("{r} = fdiv arcp afn {t} {}, {den}", literal_of(t, 1.0)));
        let tail = horner(self, &ERF_TAIL[1..], &tt);
        let poly = self.compute(|r| format!("{r} = fmul {t} {tail}, {tt}"));
        let nz = self.compute(|r| format!("{r} = fneg {t} {z}"));
        let e = self.float_op(ArithOp::Exp, t, &[nz])?;
        let pe = self.compute(|r| format!("{r} = fmul {t} {poly}, {e}"));
        let far = self.compute(|r| format!("{r} = fsub {t} {}, {pe}", literal_of(t, 1.0)));
        let signed = self.tmp();
        self.intrinsic(&signed, "copysign", t, &[&far, x]);
        let small = self.compute(|r| format!("{r} = fcmp ole {t} {a}, {}", literal_of(t, 1.0)));
        Ok(self.compute(|r| format!("{r} = select i1 {small}, {t} {near}, {t} {signed}")))
    }
}
