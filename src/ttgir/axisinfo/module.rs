//! AxisInfo over a whole parsed module: every value, in program order, through regions.

use super::{AxisInfo, BinOp, CmpPred, Hints, gcd};
use crate::limits::LimitExceeded;
use crate::ttgir::{Constant, Module, TypeKind, attr};

/// The most op evaluations one [`analyze`] may make (2^20). Loops are iterated to a fixed
/// point, and a loop nested in a loop is iterated again on every iteration of the outer one,
/// so the work grows with the product of the loops' iteration counts; real kernels nest two
/// or three loops and stay far below.
///
/// ```
/// use linear_layout::ttgir::{axisinfo, axisinfo::MAX_EVALUATIONS, Module, MAX_REGION_DEPTH};
/// // Nested loops whose carried value changes on the first iteration (from 0 to 0, 1, 2, …):
/// // each loop runs twice every time it is reached, so every level doubles the work.
/// let nested = |depth: usize| {
///     let mut body = String::from("%c0 = arith.constant 0 : i32\n%c1 = arith.constant 1 : i32\n");
///     for d in 0..depth {
///         body += &format!("%r{d} = scf.for %i{d} = %lb to %ub step %st iter_args(%a{d} = %c0) -> (i32) : i32 {{\n");
///     }
///     for d in (0..depth).rev() {
///         body += &format!("%n{d} = arith.addi %a{d}, %c1 : i32\nscf.yield %n{d} : i32\n}}\n");
///     }
///     format!("module {{\ntt.func @f(%lb: i32, %ub: i32, %st: i32) {{\n{body}tt.return\n}}\n}}")
/// };
/// assert!(axisinfo::analyze(&Module::parse(&nested(4))?).is_ok());
/// // Nested as deeply as a module may nest regions, the loops would need 2^32 evaluations:
/// // refused once the budget is spent (`tests/limits.rs` runs it).
/// assert!(MAX_REGION_DEPTH > MAX_EVALUATIONS.trailing_zeros() as usize);
/// # Ok::<(), linear_layout::ttgir::TtgirError>(())
/// ```
pub const MAX_EVALUATIONS: u64 = 1 << 20;

/// Op evaluations left to an analysis.
struct Budget(u64);

impl Budget {
    fn spend(&mut self) -> Result<(), LimitExceeded> {
        if self.0 == 0 {
            return Err(LimitExceeded::new(
                "ttgir::axisinfo::MAX_EVALUATIONS",
                "op evaluations of an AxisInfo analysis",
                MAX_EVALUATIONS,
                MAX_EVALUATIONS + 1,
            ));
        }
        self.0 -= 1;
        Ok(())
    }
}

/// The argument hints of a parsed function argument.
fn arg_hints(attrs: &crate::ttgir::Attrs, rank: usize) -> Hints {
    let get = |n: &str| {
        attr(attrs, n)
            .and_then(|v| v.ints(rank))
            .map(|v| v.into_iter().map(|x| x.max(1) as u64).collect())
    };
    Hints {
        divisibility: get("tt.divisibility"),
        contiguity: get("tt.contiguity"),
        constancy: get("tt.constancy"),
    }
}

/// Runs AxisInfo over a whole parsed module: one entry per value (`None` for values without
/// an integer/pointer meaning, e.g. memdescs and tokens). At most [`MAX_EVALUATIONS`] op
/// evaluations are made; a module that needs more is an error naming that limit.
///
/// ```
/// use linear_layout::heuristics::{axisinfo, ttgir::Module};
/// let m = Module::parse("module {\n tt.func @f() {\n %r = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>\n tt.return\n }\n}")?;
/// let ai = axisinfo::analyze(&m)?;
/// assert_eq!(ai[0].as_ref().unwrap().contiguity, vec![64]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn analyze(m: &Module) -> Result<Vec<Option<AxisInfo>>, LimitExceeded> {
    let mut out: Vec<Option<AxisInfo>> = vec![None; m.values.len()];
    let mut budget = Budget(MAX_EVALUATIONS);
    for f in &m.funcs {
        for (k, &v) in f.args.iter().enumerate() {
            let ty = &m.values[v].ty;
            if matches!(ty.kind, TypeKind::Tensor | TypeKind::Scalar) {
                let rank = ty.rank();
                let hints = f.arg_attrs.get(k).map(|a| arg_hints(a, rank)).unwrap_or_default();
                out[v] = Some(AxisInfo::argument(rank, &hints));
            }
        }
        for &op in &f.body {
            eval_op(m, op, &mut out, &mut budget)?;
        }
    }
    Ok(out)
}

fn get(out: &[Option<AxisInfo>], m: &Module, v: usize) -> AxisInfo {
    out.get(v)
        .cloned()
        .flatten()
        .unwrap_or_else(|| AxisInfo::pessimistic(m.values.get(v).map_or(1, |x| x.ty.rank())))
}

fn eval_op(
    m: &Module,
    oi: usize,
    out: &mut Vec<Option<AxisInfo>>,
    budget: &mut Budget,
) -> Result<(), LimitExceeded> {
    budget.spend()?;
    let op = &m.ops[oi];
    if op.name == "scf.for" {
        return eval_for(m, oi, out, budget);
    }
    if op.name == "scf.while" {
        return eval_while(m, oi, out, budget);
    }
    if !op.body.is_empty() {
        // Other region ops (`scf.if`, unknown ones): evaluate the bodies; `scf.if` results
        // join what its branches yield, anything else is conservative.
        for &b in &op.body {
            eval_op(m, b, out, budget)?;
        }
        // Each result joins the values yielded for it, in the order of the yields (one walk
        // over the yields: a result does not look at every yield again).
        let mut joined: Vec<Option<AxisInfo>> = vec![None; op.results.len()];
        if op.name == "scf.if" {
            for &b in &op.body {
                let y = &m.ops[b];
                if y.name != "scf.yield" {
                    continue;
                }
                for (acc, &v) in joined.iter_mut().zip(&y.operands) {
                    let yv = get(out, m, v);
                    *acc = Some(match acc.take() {
                        Some(a) if a.rank() == yv.rank() => a.join(&yv),
                        Some(a) => a,
                        None => yv,
                    });
                }
            }
        }
        for (&r, acc) in op.results.iter().zip(joined) {
            let t = &m.values[r].ty;
            if !matches!(t.kind, TypeKind::Tensor | TypeKind::Scalar) {
                continue;
            }
            out[r] = Some(
                acc.filter(|a| a.rank() == t.rank())
                    .unwrap_or_else(|| AxisInfo::pessimistic(t.rank())),
            );
        }
        return Ok(());
    }
    let Some(&res) = op.results.first() else {
        return Ok(());
    };
    let rty = &m.values[res].ty;
    if !matches!(rty.kind, TypeKind::Tensor | TypeKind::Scalar) {
        return Ok(());
    }
    let shape = rty.shape.clone();
    let rank = rty.rank();
    let o = |k: usize| op.operands.get(k).map(|&v| get(out, m, v));
    let pess = AxisInfo::pessimistic(rank);
    let is_int_like = |t: &str| t.starts_with('i') || t.starts_with("!tt.ptr") || t == "index";
    let r: Option<AxisInfo> = match op.name.as_str() {
        "arith.constant" => Some(match (&op.constant, is_int_like(&rty.element)) {
            (Some(Constant::Int(v)), true) => AxisInfo::dense_constant(*v, &shape),
            _ => pess.clone(),
        }),
        "tt.make_range" => {
            let s = attr(&op.attrs, "start")
                .and_then(|v| v.ints(1))
                .map_or(0, |v| v[0]);
            let e = attr(&op.attrs, "end").and_then(|v| v.ints(1)).map_or(1, |v| v[0]);
            Some(AxisInfo::range(s, e))
        }
        // Never read: Triton assumes the best of a poison value.
        "ub.poison" => Some(AxisInfo {
            contiguity: vec![super::MAX_DIVISIBILITY; rank],
            divisibility: vec![super::MAX_DIVISIBILITY; rank],
            constancy: vec![super::MAX_DIVISIBILITY; rank],
            constant: None,
        }),
        "tt.splat" => o(0).map(|a| a.splat(&shape)),
        "tt.expand_dims" => {
            let axis = attr(&op.attrs, "axis")
                .and_then(|v| v.ints(1))
                .map_or(0, |v| v[0].max(0) as usize);
            o(0).and_then(|a| a.expand_dims(axis).ok())
        }
        "tt.broadcast" => {
            let in_shape = op
                .operands
                .first()
                .map(|&v| m.values[v].ty.shape.clone())
                .unwrap_or_default();
            o(0).and_then(|a| a.broadcast(&in_shape, &shape).ok())
        }
        "arith.extsi" | "arith.extui" | "arith.trunci" | "arith.bitcast" | "arith.index_cast"
        | "arith.index_castui" | "ttg.convert_layout" | "tt.bitcast" => o(0).filter(|a| a.rank() == rank),
        "tt.addptr" => {
            let eb = u64::from(rty.pointee_bits().unwrap_or(8) / 8).max(1);
            match (o(0), o(1)) {
                (Some(a), Some(b)) => a.addptr(&b, eb, &shape).ok(),
                _ => None,
            }
        }
        "arith.cmpi" => {
            let pred = op.keyword.as_deref().and_then(CmpPred::parse);
            match (pred, o(0), o(1)) {
                (Some(p), Some(a), Some(b)) => a.cmp(p, &b, &shape).ok(),
                _ => None,
            }
        }
        "arith.select" => match (o(0), o(1), o(2)) {
            (Some(c), Some(a), Some(b)) => {
                let scalar_cond = op
                    .operands
                    .first()
                    .is_some_and(|&v| m.values[v].ty.kind == TypeKind::Scalar);
                AxisInfo::select(&c, scalar_cond, &a, &b).ok()
            }
            _ => None,
        },
        "tt.load" => o(0).map(|p| AxisInfo::load(&p, op.mask.and_then(o).as_ref())),
        name => match BinOp::from_arith(name) {
            Some(b) if is_int_like(&rty.element) => match (o(0), o(1)) {
                (Some(x), Some(y)) => x.binary(b, &y, &shape).ok(),
                _ => None,
            },
            _ => None,
        },
    };
    let mut r = r.unwrap_or(pess);
    // Discardable attributes on the op override the rule.
    let hints = arg_hints(&op.attrs, rank);
    r.apply_hints(&hints);
    if let Some(slot) = out.get_mut(res) {
        *slot = Some(r);
    }
    // Further results of multi-result ops: conservative.
    for &v in op.results.iter().skip(1) {
        let t = &m.values[v].ty;
        if matches!(t.kind, TypeKind::Tensor | TypeKind::Scalar) {
            out[v] = Some(AxisInfo::pessimistic(t.rank()));
        }
    }
    Ok(())
}

fn eval_for(
    m: &Module,
    oi: usize,
    out: &mut Vec<Option<AxisInfo>>,
    budget: &mut Budget,
) -> Result<(), LimitExceeded> {
    let op = &m.ops[oi];
    // Operands: lb, ub, step, inits…
    let lb = op.operands.first().map(|&v| get(out, m, v));
    let st = op.operands.get(2).map(|&v| get(out, m, v));
    if let Some(&iv) = op.block_args.first() {
        let d = match (lb, st) {
            (Some(a), Some(b)) => gcd(a.divisibility[0], b.divisibility[0]),
            _ => 1,
        };
        out[iv] = Some(AxisInfo {
            contiguity: vec![1],
            divisibility: vec![d],
            constancy: vec![1],
            constant: None,
        });
    }
    let inits: Vec<usize> = op.operands.iter().skip(3).copied().collect();
    let carried: Vec<usize> = op.block_args.iter().skip(1).copied().collect();
    let mut cur: Vec<AxisInfo> = inits.iter().map(|&v| get(out, m, v)).collect();
    let yield_op = op.body.iter().copied().find(|&b| m.ops[b].name == "scf.yield");
    for _ in 0..64 {
        for (k, &ba) in carried.iter().enumerate() {
            if let Some(c) = cur.get(k) {
                out[ba] = Some(c.clone());
            }
        }
        for &b in &op.body {
            eval_op(m, b, out, budget)?;
        }
        let Some(y) = yield_op else { break };
        let next: Vec<AxisInfo> = cur
            .iter()
            .enumerate()
            .map(|(k, c)| match m.ops[y].operands.get(k) {
                Some(&v) => {
                    let yv = get(out, m, v);
                    if yv.rank() == c.rank() {
                        c.join(&yv)
                    } else {
                        c.clone()
                    }
                }
                None => c.clone(),
            })
            .collect();
        if next == cur {
            break;
        }
        cur = next;
    }
    for (k, &r) in op.results.iter().enumerate() {
        if let Some(c) = cur.get(k) {
            out[r] = Some(c.clone());
        }
    }
    Ok(())
}

/// `scf.while`: the condition region's arguments join the inits and what the body region
/// yields; the body's arguments and the op's results are what `scf.condition` forwards. Iterated
/// to a fixed point as `scf.for` is (the lattice only falls, so it ends).
fn eval_while(
    m: &Module,
    oi: usize,
    out: &mut Vec<Option<AxisInfo>>,
    budget: &mut Budget,
) -> Result<(), LimitExceeded> {
    let op = &m.ops[oi];
    let n = op.operands.len();
    let before: Vec<usize> = op.block_args.iter().take(n).copied().collect();
    let after: Vec<usize> = op.block_args.iter().skip(n).copied().collect();
    let mut cur: Vec<AxisInfo> = op.operands.iter().map(|&v| get(out, m, v)).collect();
    let mut forwarded: Vec<AxisInfo> = Vec::new();
    for _ in 0..64 {
        for (k, &ba) in before.iter().enumerate() {
            out[ba] = cur.get(k).cloned();
        }
        let mut yielded: Vec<AxisInfo> = Vec::new();
        for &b in &op.body {
            match m.ops[b].name.as_str() {
                "scf.condition" => {
                    forwarded = m.ops[b]
                        .operands
                        .iter()
                        .skip(1)
                        .map(|&v| get(out, m, v))
                        .collect();
                    for (k, &ba) in after.iter().enumerate() {
                        out[ba] = forwarded.get(k).cloned();
                    }
                }
                "scf.yield" => yielded = m.ops[b].operands.iter().map(|&v| get(out, m, v)).collect(),
                _ => eval_op(m, b, out, budget)?,
            }
        }
        let next: Vec<AxisInfo> = cur
            .iter()
            .enumerate()
            .map(|(k, c)| match yielded.get(k) {
                Some(y) if y.rank() == c.rank() => c.join(y),
                _ => c.clone(),
            })
            .collect();
        if next == cur {
            break;
        }
        cur = next;
    }
    for (k, &r) in op.results.iter().enumerate() {
        let rank = m.values[r].ty.rank();
        out[r] = Some(
            forwarded
                .get(k)
                .filter(|f| f.rank() == rank)
                .cloned()
                .unwrap_or_else(|| AxisInfo::pessimistic(rank)),
        );
    }
    Ok(())
}
