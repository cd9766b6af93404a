//! Pointers chosen at run time: `tl.where(c, a_ptr, b_ptr)`.
//!
//! A buffer instruction reads one buffer (its resource descriptor) in every lane, so a pointer
//! that is one of two buffers — per element, or for the whole workgroup — is no single access.
//! It is kept as a [`Sym::Choice`]: the condition and both arms, each an ordinary pointer.
//! Ops that compute addresses take each arm through themselves (`tt.addptr`), and ops that
//! reshape take the condition through too (`tt.splat`, `broadcast`, `expand_dims`, `reshape`,
//! `trans`, `convert_layout`), so the choice reaches the access in the access's shape and
//! layout. There an access is two: each arm's, masked by its side of the condition (a uniform
//! condition is the access's `when`, one in registers its predicate). A load reads both and
//! selects per element; a store or an atomic writes through each arm where its side holds.
//!
//! # Worked example
//!
//! `src = tl.where(sel > 0, a, b); tl.store(out + offs, tl.load(src + offs))`: the condition
//! is uniform, so each arm's load is masked whole by it (`when`), and the loaded registers are
//! selected by it — the one whose side failed reads zeros the select never takes.
//!
//! ```
//! use linear_layout::lower::{run_launch, ttgir_kernel, Launch};
//! use linear_layout::target::Target;
//! use linear_layout::ttgir::Module;
//! let text = r#"
//! #l = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]}>
//! module attributes {"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 64 : i32} {
//!   tt.func public @pick(%a: !tt.ptr<i32>, %b: !tt.ptr<i32>, %out: !tt.ptr<i32>, %sel: i32) {
//!     %c0 = arith.constant 0 : i32
//!     %c = arith.cmpi sgt, %sel, %c0 : i32
//!     %src = arith.select %c, %a, %b : !tt.ptr<i32>
//!     %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #l>
//!     %p = tt.splat %src : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>, #l>
//!     %q = tt.addptr %p, %r : tensor<64x!tt.ptr<i32>, #l>, tensor<64xi32, #l>
//!     %x = tt.load %q : tensor<64x!tt.ptr<i32>, #l>
//!     %o = tt.splat %out : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>, #l>
//!     %w = tt.addptr %o, %r : tensor<64x!tt.ptr<i32>, #l>, tensor<64xi32, #l>
//!     tt.store %w, %x : tensor<64x!tt.ptr<i32>, #l>
//!     tt.return
//!   }
//! }"#;
//! let k = ttgir_kernel(&Module::parse(text)?, Target::by_name("gfx942")?)?;
//! let words = |f: fn(u32) -> u32| (0..64).flat_map(|i| f(i).to_le_bytes()).collect::<Vec<u8>>();
//! for (sel, want) in [(1u64, 7), (0, 9)] {
//!     let mut buffers = vec![words(|_| 7), words(|_| 9), vec![0; 256]];
//!     run_launch(&k.program, &mut buffers, &Launch::single(vec![sel]))?;
//!     assert_eq!(u32::from_le_bytes(buffers[2][40..44].try_into()?), want);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::{Lowering, Sym, fail};
use crate::linear::LinearLayout;
use crate::lower::error::LowerError;
use crate::lower::ir::{ArithOp, BranchCondition, Condition, Op as ProgramOp, Uniform, Value};
use crate::lower::plan::dist::Dist;
use crate::ttgir::Op;

/// Ops that move a pointer without reading it and change its shape or layout: the condition
/// of a choice goes through them with its arms.
fn reshapes(name: &str) -> bool {
    matches!(
        name,
        "tt.splat" | "tt.broadcast" | "tt.expand_dims" | "tt.reshape" | "tt.trans" | "ttg.convert_layout"
    )
}

/// The most pointers one choice may hold: an access through it is one access per pointer, so
/// a chain of selects must not multiply the work without bound.
const MAX_CHOSEN_POINTERS: usize = 16;

/// How many pointers a choice holds (1 for a pointer that is no choice).
fn pointers(sym: &Sym) -> usize {
    match sym {
        Sym::Choice { then, otherwise, .. } => pointers(then).saturating_add(pointers(otherwise)),
        _ => 1,
    }
}

impl Sym {
    /// The choice of `then` where `cond` holds, else `otherwise`.
    fn choice(cond: Sym, then: Sym, otherwise: Sym) -> Sym {
        Sym::Choice {
            cond: Box::new(cond),
            then: Box::new(then),
            otherwise: Box::new(otherwise),
        }
    }
}

/// A condition the whole workgroup agrees on, if `cond` is one (a scalar comparison, or its
/// splat).
fn uniform_condition(cond: &Sym) -> Option<Condition> {
    match cond {
        Sym::Cond(c) => Some(c.clone()),
        Sym::Mask { bounds, when } if bounds.iter().all(Option::is_none) && when.len() == 1 => {
            Some(when[0].clone())
        }
        _ => None,
    }
}

/// The side of a choice an access takes: its condition, and whether the condition fails there
/// (the second arm).
#[derive(Clone)]
pub(super) struct Arm {
    cond: Sym,
    negated: bool,
}

/// What the arms of the accesses being lowered add to their masks.
pub(super) struct ArmMasks {
    /// Conditions the whole workgroup agrees on.
    pub(super) when: Vec<Condition>,
    /// Per register of the access's layout, a predicate.
    pub(super) predicate: Option<Vec<Value>>,
}

impl Lowering<'_> {
    /// `arith.select` of pointers: a choice, nothing computed yet.
    pub(super) fn choose_pointer(&mut self, op: &Op) -> Result<(), LowerError> {
        let (cond, then, otherwise) = (
            self.operand(op, 0)?.clone(),
            self.operand(op, 1)?.clone(),
            self.operand(op, 2)?.clone(),
        );
        if pointers(&then) + pointers(&otherwise) > MAX_CHOSEN_POINTERS {
            return fail(
                op,
                format!("chooses among more than {MAX_CHOSEN_POINTERS} pointers at run time; not lowered"),
            );
        }
        self.define(op, Sym::choice(cond, then, otherwise))
    }

    /// The pointer or index `r` an `scf.if` yields: `then` where `cond` holds, else
    /// `otherwise`, if both are held without registers (an argument, an affine tensor of
    /// indices or pointers, a choice of pointers). With one buffer and strides and a condition
    /// of uniforms, the offset is a uniform select; pointers are otherwise a choice (its
    /// condition a 1-bit value in registers where the branch tests one); indices otherwise
    /// go into registers (`None`).
    pub(super) fn branch_result(
        &mut self,
        op: &Op,
        r: usize,
        cond: &BranchCondition,
        then: &Sym,
        otherwise: &Sym,
    ) -> Result<Option<Sym>, LowerError> {
        let symbolic = |s: &Sym| {
            matches!(s, Sym::Ptr(_) | Sym::Affine { .. })
                || matches!(s, Sym::Choice { .. }) && Self::is_scalar_pointer(s)
        };
        if !symbolic(then) || !symbolic(otherwise) {
            return Ok(None);
        }
        let parts = |s: &Sym| match s {
            Sym::Ptr(b) => Some((Some(*b), Uniform::default(), Vec::new())),
            Sym::Affine { base, constant, coef } => Some((*base, constant.clone(), coef.clone())),
            _ => None,
        };
        if let BranchCondition::Uniform(c) = cond
            && let (Some((b0, c0, k0)), Some((b1, c1, k1))) = (parts(then), parts(otherwise))
            && (b0, &k0) == (b1, &k1)
        {
            let constant = self.uniform_select(c, c0, c1)?;
            return Ok(Some(Sym::Affine {
                base: b0,
                constant,
                coef: k0,
            }));
        }
        let index = |s: &Sym| matches!(s, Sym::Affine { base: None, .. });
        if index(then) || index(otherwise) {
            return Ok(None);
        }
        if pointers(then) + pointers(otherwise) > MAX_CHOSEN_POINTERS {
            return fail(
                op,
                format!("chooses among more than {MAX_CHOSEN_POINTERS} pointers at run time; not lowered"),
            );
        }
        // The condition in the pointer's shape, as a splat of it would be.
        let rank = self.rank(r);
        let cond = match cond {
            BranchCondition::Uniform(c) if rank == 0 => Sym::Cond(c.clone()),
            BranchCondition::Uniform(c) => Sym::Mask {
                bounds: vec![None; rank],
                when: vec![c.clone()],
            },
            BranchCondition::Value(v) if rank == 0 => Sym::Lanes(*v),
            BranchCondition::Value(v) => {
                let layout = self.layout(op, r)?;
                let registers = Dist::of(&layout, self.target.wave_size)?.registers();
                Sym::Data {
                    layout: Box::new(layout),
                    values: vec![*v; registers],
                }
            }
            // A branch whose threads part ways yields a pointer per thread: not one choice.
            BranchCondition::PerThread(_) => return Ok(None),
        };
        Ok(Some(Sym::choice(cond, then.clone(), otherwise.clone())))
    }

    /// Op `i`, whose operand `k` is a chosen pointer.
    pub(super) fn through_choice(&mut self, i: usize, k: usize) -> Result<(), LowerError> {
        let op = &self.m.ops[i];
        let ptr = op.operands[k];
        let Some(Sym::Choice {
            cond,
            then,
            otherwise,
        }) = self.syms[ptr].clone()
        else {
            return fail(op, "expected a chosen pointer");
        };
        let accesses = ["tt.load", "tt.store", "tt.atomic_rmw", "tt.atomic_cas"];
        if k == 0 && accesses.contains(&op.name.as_str()) {
            return self.access_each_arm(i, ptr, (*cond, *then, *otherwise));
        }
        if k != 0 || !(op.name == "tt.addptr" || reshapes(&op.name)) || op.results.len() != 1 {
            return fail(
                op,
                format!(
                    "{} is a pointer chosen at run time; it reaches accesses and address arithmetic only",
                    self.m.values[ptr].name
                ),
            );
        }
        let r = op.results[0];
        let original = self.syms[ptr].clone();
        let then = self.lower_with(i, ptr, r, *then);
        let otherwise = then.and_then(|t| Ok((t, self.lower_with(i, ptr, r, *otherwise)?)));
        let cond = otherwise.and_then(|arms| {
            let cond = if reshapes(&op.name) {
                self.lower_with(i, ptr, r, *cond)?
            } else {
                *cond
            };
            Ok((cond, arms))
        });
        self.syms[ptr] = original;
        let (cond, (then, otherwise)) = cond?;
        self.define(op, Sym::choice(cond, then, otherwise))
    }

    /// What op `i` makes of `sym` as its operand `v` (its result `r`, taken).
    fn lower_with(&mut self, i: usize, v: usize, r: usize, sym: Sym) -> Result<Sym, LowerError> {
        self.syms[v] = Some(sym);
        self.lower_op(i)?;
        self.syms[r]
            .take()
            .map_or_else(|| fail(&self.m.ops[i], "defined no result"), Ok)
    }

    /// A load, store or atomic through a chosen pointer: one access per arm, masked by its side
    /// of the condition; a result is each element's from the arm its condition chose.
    fn access_each_arm(
        &mut self,
        i: usize,
        ptr: usize,
        (cond, then, otherwise): (Sym, Sym, Sym),
    ) -> Result<(), LowerError> {
        let op = &self.m.ops[i];
        // A condition per element goes into registers once: both arms' masks and the final
        // choice read the same ones.
        let cond = match cond {
            Sym::Lanes(_) | Sym::Data { .. } => cond,
            _ if uniform_condition(&cond).is_some() => cond,
            _ => {
                let (layout, values) = self.data_of_sym(op, ptr, cond)?;
                Sym::Data { layout, values }
            }
        };
        let saved = self.syms[ptr].take();
        let mut results = Vec::new();
        let mut lowered = Ok(());
        for (arm, negated) in [(then, false), (otherwise, true)] {
            self.syms[ptr] = Some(arm);
            self.arms.push(Arm {
                cond: cond.clone(),
                negated,
            });
            lowered = self.lower_op(i).map(|_| ());
            self.arms.pop();
            if lowered.is_err() {
                break;
            }
            if let Some(&r) = op.results.first()
                && self.users[r] > 0
            {
                match self.data(op, r) {
                    Ok(values) => results.push(values),
                    Err(e) => {
                        lowered = Err(e);
                        break;
                    }
                }
            }
        }
        self.syms[ptr] = saved;
        lowered?;
        let [(layout, a), (_, b)] = match <[_; 2]>::try_from(results) {
            Ok(both) => both,
            Err(_) => return Ok(()),
        };
        // The condition per register of the result's layout (the pointer's).
        let conds = self.registers_of_sym(op, ptr, cond)?;
        if conds.len() != a.len() || a.len() != b.len() {
            return fail(op, "the condition and the loaded values differ in registers");
        }
        let values = self.select_each(&conds, &a, &b);
        self.define(op, Sym::Data { layout, values })
    }

    /// `sym` (a condition) in registers of value `v`'s layout, one predicate per register.
    fn registers_of_sym(&mut self, op: &Op, v: usize, sym: Sym) -> Result<Vec<Value>, LowerError> {
        if let Sym::Cond(c) = &sym
            && self.rank(v) == 0
        {
            return Ok(vec![self.condition_register(c)]);
        }
        Ok(self.data_of_sym(op, v, sym)?.1)
    }

    /// `sym` in registers of value `v`'s layout (a symbolic one materialised).
    fn data_of_sym(
        &mut self,
        op: &Op,
        v: usize,
        sym: Sym,
    ) -> Result<(Box<LinearLayout>, Vec<Value>), LowerError> {
        let saved = self.syms[v].replace(sym);
        let registers = self.data(op, v);
        self.syms[v] = saved;
        registers
    }

    /// What the arms being lowered add to the mask of an access through value `ptr`.
    pub(super) fn arm_masks(&mut self, op: &Op, ptr: usize) -> Result<ArmMasks, LowerError> {
        let mut masks = ArmMasks {
            when: Vec::new(),
            predicate: None,
        };
        for Arm { cond, negated } in self.arms.clone() {
            if let Some(c) = uniform_condition(&cond) {
                masks.when.push(if negated { c.negated() } else { c });
                continue;
            }
            let mut registers = self.registers_of_sym(op, ptr, cond)?;
            if negated {
                let one = self.p.value(1);
                self.p.ops.push(ProgramOp::Constant { dst: one, bits: 1 });
                registers = registers
                    .into_iter()
                    .map(|p| self.binary(ArithOp::Xor, "i1", p, one))
                    .collect();
            }
            let existing = masks.predicate.take();
            masks.predicate = Some(self.and_predicate_registers(existing, registers));
        }
        Ok(masks)
    }
}
