//! Uniform values in LLVM IR: the kernel's scalar inputs, polynomials of them, derived uniforms
//! and conditions — computed once at the top of the kernel, or where they are used when they
//! change inside a loop.

use super::{Emitter, lit};
use crate::lower::error::LowerError;
use crate::lower::ir::{Condition, Derived, Uniform, UniformInput, UniformOp};

impl Emitter<'_> {
    pub(super) fn prologue_line(&mut self, s: &str) {
        self.prologue.push_str("  ");
        self.prologue.push_str(s);
        self.prologue.push('\n');
    }

    /// Whether a uniform input changes inside a loop (a loop's slot, or derived from one):
    /// computed where it is used rather than once at the top of the kernel.
    pub(super) fn loop_dependent(&self, x: UniformInput) -> bool {
        let mut pending = vec![x];
        let mut seen = 0usize;
        while let Some(x) = pending.pop() {
            seen += 1;
            match x {
                UniformInput::Carried(_) => return true,
                UniformInput::Derived(k) if seen <= 4096 => {
                    if let Some(d) = self.p.derived.get(k as usize) {
                        pending.extend(d.inputs());
                    }
                }
                _ => {}
            }
        }
        false
    }

    /// A line in the current block (`inline`) or at the top of the kernel.
    pub(super) fn put(&mut self, inline: bool, s: &str) {
        if inline {
            self.line(s);
        } else {
            self.prologue_line(s);
        }
    }

    /// A condition as an `i1` operand.
    pub(super) fn condition_of(&mut self, c: &Condition) -> Result<String, LowerError> {
        let inline = c.inputs().any(|x| self.loop_dependent(x));
        let (a, b) = (self.uniform(&c.lhs)?, self.uniform(&c.rhs)?);
        let r = self.tmp();
        self.put(inline, &format!("{r} = icmp {} i32 {a}, {b}", c.cmp.llvm()));
        Ok(r)
    }

    /// The derived quotient (its index) of the division a remainder `op` of `a` by `b` pairs
    /// with, if the kernel takes it and it changes in no loop.
    fn quotient_of(&self, op: UniformOp, a: &Uniform, b: &Uniform) -> Option<u32> {
        let division = match op {
            UniformOp::RemS => UniformOp::DivS,
            _ => UniformOp::DivU,
        };
        let q = self.p.derived.iter().position(
            |d| matches!(d, Derived::Binary { op, a: x, b: y } if *op == division && x == a && y == b),
        )?;
        let q = u32::try_from(q).ok()?;
        (!self.loop_dependent(UniformInput::Derived(q))).then_some(q)
    }

    /// A uniform input as an `i32` operand, read once at the top of the kernel (a loop's
    /// slot is its phi; what depends on one is computed where it is used).
    pub(super) fn input(&mut self, x: UniformInput) -> Result<String, LowerError> {
        if let Some(r) = self.inputs.get(&x) {
            return Ok(r.clone());
        }
        if let UniformInput::Carried(k) = x {
            if let Some(operand) = self.names.slot_operands.get(&k) {
                return Ok(operand.clone());
            }
            let name = self.slot_name(k);
            return Ok(match self.inside_slots.contains(&k) {
                true => format!("{name}.in"),
                false => name,
            });
        }
        if let UniformInput::Derived(k) = x {
            let inline = self.loop_dependent(x);
            let d = self
                .p
                .derived
                .get(k as usize)
                .cloned()
                .ok_or_else(|| LowerError::new(format!("derived uniform {k} does not exist")))?;
            let r = match d {
                // A remainder whose quotient the kernel also takes: `a − (a / b)·b`, a multiply
                // and a subtract after the one division (what LLVM's div-rem pairing makes;
                // `llc` alone runs no `opt`). The same bits, and where `b` is 0 the quotient
                // is as undefined as the remainder.
                Derived::Binary {
                    op: op @ (UniformOp::RemS | UniformOp::RemU),
                    a,
                    b,
                } if !inline && let Some(q) = self.quotient_of(op, &a, &b) => {
                    let (x, y) = (self.uniform(&a)?, self.uniform(&b)?);
                    let quotient = self.input(UniformInput::Derived(q))?;
                    let (product, r) = (self.tmp(), self.tmp());
                    self.put(false, &format!("{product} = mul i32 {quotient}, {y}"));
                    self.put(false, &format!("{r} = sub i32 {x}, {product}"));
                    r
                }
                Derived::Binary { op, a, b } => {
                    let (x, y) = (self.uniform(&a)?, self.uniform(&b)?);
                    match op.llvm() {
                        None => self.rounded_division(op, &x, &y, inline),
                        Some(f) => {
                            let r = self.tmp();
                            if let Some(name) = f.strip_prefix("llvm.") {
                                self.decls.insert(format!("declare i32 @llvm.{name}(i32, i32)"));
                                self.put(inline, &format!("{r} = call i32 @{f}(i32 {x}, i32 {y})"));
                            } else {
                                self.put(inline, &format!("{r} = {f} i32 {x}, {y}"));
                            }
                            r
                        }
                    }
                }
                Derived::Select {
                    cond,
                    then,
                    otherwise,
                } => {
                    let c = self.condition_of(&cond)?;
                    let (a, b) = (self.uniform(&then)?, self.uniform(&otherwise)?);
                    let r = self.tmp();
                    self.put(inline, &format!("{r} = select i1 {c}, i32 {a}, i32 {b}"));
                    r
                }
            };
            if !inline {
                self.inputs.insert(x, r.clone());
            }
            return Ok(r);
        }
        const AXES: [&str; 3] = ["x", "y", "z"];
        let r = self.tmp();
        match x {
            UniformInput::Argument(index) => {
                let s = self
                    .p
                    .scalars
                    .get(index)
                    .ok_or_else(|| LowerError::new(format!("scalar argument {index} does not exist")))?;
                let line = match s.ty {
                    "i32" => return Ok(format!("%{}", s.name)),
                    "i64" => format!("{r} = trunc i64 %{} to i32", s.name),
                    "i1" | "i8" | "i16" => format!("{r} = sext {} %{} to i32", s.ty, s.name),
                    other => {
                        return Err(LowerError::new(format!(
                            "scalar argument {} is {other}, not an integer",
                            s.name
                        )));
                    }
                };
                self.prologue_line(&line);
            }
            UniformInput::ProgramId(a) => {
                let axis = AXES
                    .get(a as usize)
                    .ok_or_else(|| LowerError::new(format!("no workgroup axis {a}")))?;
                self.decls
                    .insert(format!("declare i32 @llvm.amdgcn.workgroup.id.{axis}()"));
                self.prologue_line(&format!("{r} = call i32 @llvm.amdgcn.workgroup.id.{axis}()"));
            }
            UniformInput::Carried(_) | UniformInput::Derived(_) => {
                return Err(LowerError::new("a loop slot or derived uniform read as an input"));
            }
            UniformInput::NumPrograms(a) => {
                if a > 2 {
                    return Err(LowerError::new(format!("no workgroup axis {a}")));
                }
                // The implicit kernel arguments (code object v5) begin with the grid's
                // workgroup counts along x, y and z: `hidden_block_count_{x,y,z}`.
                self.decls
                    .insert("declare ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()".to_string());
                let (base, at) = (self.tmp(), self.tmp());
                self.prologue_line(&format!(
                    "{base} = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()"
                ));
                self.prologue_line(&format!(
                    "{at} = getelementptr i8, ptr addrspace(4) {base}, i64 {}",
                    4 * u32::from(a)
                ));
                self.prologue_line(&format!("{r} = load i32, ptr addrspace(4) {at}, align 4"));
            }
        }
        self.inputs.insert(x, r.clone());
        Ok(r)
    }

    /// `x / y` rounded up or down: the truncated quotient, moved by one where the remainder
    /// is not zero and the exact quotient lies on the side rounded to (its sign is that of
    /// `remainder xor divisor`).
    fn rounded_division(&mut self, op: UniformOp, x: &str, y: &str, inline: bool) -> String {
        let unsigned = op == UniformOp::CeilDivU;
        let (q, r, nonzero, adjust, out) = (self.tmp(), self.tmp(), self.tmp(), self.tmp(), self.tmp());
        let (div, rem) = if unsigned {
            ("udiv", "urem")
        } else {
            ("sdiv", "srem")
        };
        self.put(inline, &format!("{q} = {div} i32 {x}, {y}"));
        self.put(inline, &format!("{r} = {rem} i32 {x}, {y}"));
        self.put(inline, &format!("{nonzero} = icmp ne i32 {r}, 0"));
        let moves = if unsigned {
            nonzero.clone()
        } else {
            let (sign, side) = (self.tmp(), self.tmp());
            self.put(inline, &format!("{sign} = xor i32 {r}, {y}"));
            let test = if op == UniformOp::CeilDivS { "sge" } else { "slt" };
            self.put(inline, &format!("{side} = icmp {test} i32 {sign}, 0"));
            let both = self.tmp();
            self.put(inline, &format!("{both} = and i1 {nonzero}, {side}"));
            both
        };
        self.put(inline, &format!("{adjust} = zext i1 {moves} to i32"));
        let step = if op == UniformOp::FloorDivS { "sub" } else { "add" };
        self.put(inline, &format!("{out} = {step} i32 {q}, {adjust}"));
        out
    }

    /// A uniform polynomial as an `i32` operand, computed once at the top of the kernel.
    pub(super) fn uniform(&mut self, u: &Uniform) -> Result<String, LowerError> {
        if let Some(c) = u.as_constant() {
            return Ok(lit(c as u64));
        }
        if let Some(r) = self.uniforms.get(u) {
            return Ok(r.clone());
        }
        let inline = u.inputs().any(|x| self.loop_dependent(x));
        let mut sum: Option<String> = None;
        for (factor, inputs) in &u.terms {
            let mut term: Option<String> = None;
            for &x in inputs {
                let x = self.input(x)?;
                term = Some(match term {
                    None => x,
                    Some(t) => {
                        let r = self.tmp();
                        self.put(inline, &format!("{r} = mul i32 {t}, {x}"));
                        r
                    }
                });
            }
            let term = match term {
                None => lit(*factor as u64),
                Some(t) if *factor == 1 => t,
                Some(t) => {
                    let r = self.tmp();
                    self.put(inline, &format!("{r} = mul i32 {t}, {}", lit(*factor as u64)));
                    r
                }
            };
            sum = Some(match sum {
                None => term,
                Some(s) => {
                    let r = self.tmp();
                    self.put(inline, &format!("{r} = add i32 {s}, {term}"));
                    r
                }
            });
        }
        let r = sum.unwrap_or_else(|| "0".to_string());
        if !inline {
            self.uniforms.insert(u.clone(), r.clone());
        }
        Ok(r)
    }
}
