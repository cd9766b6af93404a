//! `tritongpu-fuse-nested-loops`: a loop nest marked `tt.flatten` becomes one loop.
//!
//! A persistent kernel loops over tiles and, inside, over the K dimension. Triton fuses the
//! two loops so the software pipeliner sees one loop whose every iteration issues the next
//! loads, across tile boundaries. The fused loop runs `len(i) × inner_len` times; a counter
//! `T` says where it is in the current outer iteration, and each piece of the old outer body
//! runs under an `scf.if` on `T`:
//!
//! ```text
//! scf.for %i = %lb to %ub step %s {          %len_j = (%nj - %c0) ceildiv %c1
//!   %a = prologue(%i)                        scf.if %len_j == 0 { <the nest without the inner loop> }
//!   %acc = scf.for %j = %c0 to %nj step %c1   else {
//!       iter_args(%x = %zero) {                %inner_len = max(1, %len_j) - 0
//!     body(%a, %j, %x)                →        %total = len(%lb, %ub, %s) × %inner_len
//!   }                                          scf.for %t = 0 to %total iter_args(%T = 0, %i = %lb - %s, …) {
//!   epilogue(%i, %acc)                           %j, %a = scf.if %T == 0 { %i' = %i + %s; prologue(%i') }
//! }                                              %j', %acc = scf.if true { body(%a, %j, %x); %j + %c1 }
//!                                                %x' = scf.if %T == %inner_len - 1 { epilogue(%i', %acc); %zero }
//!                                                yield (%T == %inner_len - 1 ? 0 : %T + 1), …
//!                                              } }
//! ```
//!
//! Values that crossed from one piece to the next inside an outer iteration (`%a`, the inner
//! loop's results) become loop-carried, starting as zeros (or `ub.poison` where there is no
//! zero); an inner accumulator whose start value is defined outside the nest starts there and
//! is reset by the epilogue instead. Triton first makes the inner loop known to run at least
//! once — a `llvm.intr.assume(ub > lb)` says so, or the nest is versioned on the inner trip
//! count being zero, as above — so the inner body needs no real condition (`scf.if true`).
//! Before that, invariant ops leave the outer loop and pure prologue ops used only after the
//! inner loop sink below it.
//!
//! Nests marked `ttg.always-fuse` are fused whatever their shape, level by level from the
//! innermost, several inner loops in sequence each getting their own `T` window; an inner loop
//! whose bounds depend on the outer induction variable through cheap scalar ops gets its trip
//! count recomputed each outer iteration (and a first loop over the outer range adds them up
//! for the total). Inner loops whose bounds depend on anything else stay as they are.
//!
//! The new ops are created in Triton's order (constants where Triton makes them, not uniqued),
//! so the module reads op for op like Triton's; the canonicalizer cleans them up afterwards.

use std::collections::{HashMap, HashSet, VecDeque};

use crate::ttgir::graph::{BlockId, BlockOwner, Def, Graph, InsertPoint, OpId, ValueId};
use crate::ttgir::{TypeKind, ValueType};

use super::PassError;
use super::licm::{hoist_invariants, hoistable};
use super::ops::is_removable_when_unused;

/// Set by the front end on the loop nests to fuse.
const FLATTEN: &str = "tt.flatten";
/// Fuses a nest of any shape, without the preparation (Triton's tests use it).
const ALWAYS_FUSE: &str = "ttg.always-fuse";
/// On an inner loop known to run at least once in every outer iteration.
const MUST_EXECUTE: &str = "ttg.must-execute";
/// Loop attributes the fused loop inherits.
const WARP_SPECIALIZE: &str = "tt.warp_specialize";
const DISALLOW_ACC_MULTI_BUFFER: &str = "tt.disallow_acc_multi_buffer";
const NUM_STAGES: &str = "tt.num_stages";

/// Triton 3.6's `tritongpu-fuse-nested-loops` on `g`, in place; see the [module docs](self).
///
/// ```
/// use linear_layout::heuristics::propagation::fuse_nested_loops;
/// use linear_layout::ttgir::graph::Graph;
/// let text = r#"
/// module {
///   tt.func @k(%p: !tt.ptr<i32>, %m: i32, %n: i32) {
///     %c0 = arith.constant 0 : i32
///     %c1 = arith.constant 1 : i32
///     %r = scf.for %i = %c0 to %m step %c1 iter_args(%t = %c0) -> (i32)  : i32 {
///       %s = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %c0) -> (i32)  : i32 {
///         %x = arith.muli %i, %j : i32
///         %y = arith.addi %acc, %x : i32
///         scf.yield %y : i32
///       }
///       %u = arith.addi %t, %s : i32
///       scf.yield %u : i32
///     } {tt.flatten}
///     tt.store %p, %r : !tt.ptr<i32>
///     tt.return
///   }
/// }"#;
/// let mut g = Graph::parse(text)?;
/// fuse_nested_loops(&mut g)?;
/// let out = g.print()?;
/// // Versioned on the inner trip count; the fused loop carries T, i, the sum, the lengths,
/// // j and the accumulator.
/// assert!(out.contains("scf.if"), "{out}");
/// assert!(out.contains("-> (i32, i32, i32, i32, i32, i32, i32)"), "{out}");
/// assert_eq!(out.matches("arith.muli %").count(), 2, "{out}"); // the fused body and the total
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn fuse_nested_loops(g: &mut Graph) -> Result<(), PassError> {
    super::bounded(g)?;
    for f in 0..g.funcs.len() {
        let mut nests = Vec::new();
        find_nests(g, &g.funcs[f].blocks.clone(), &mut nests);
        for mut nest in nests {
            if !should_fuse(g, &nest) {
                continue;
            }
            if !has_attr(g, nest.nodes[0].lp, ALWAYS_FUSE) && !prepare(g, &nest)? {
                continue;
            }
            // Leaves first: a level fuses once the loops below it are one loop each.
            for node in post_order(&nest) {
                fuse_one_level(g, &mut nest, node)?;
            }
        }
    }
    Ok(())
}

/// A tree of `scf.for` ops, each directly in its parent's body.
struct Nest {
    /// The root first.
    nodes: Vec<Node>,
}

struct Node {
    /// The loop (the fused loop once this level is fused).
    lp: OpId,
    /// Indices in [`Nest::nodes`] of the loops directly in its body, in order.
    children: Vec<usize>,
}

/// The loop nests under `blocks`, as Triton finds them: each outermost loop roots one; any
/// other op with regions inside a nest starts nests of its own (fusion does not look across
/// an `scf.if`). Nests found inside a nest come before it.
fn find_nests(g: &Graph, blocks: &[BlockId], nests: &mut Vec<Nest>) {
    for &b in blocks {
        for &op in &g.blocks[b].ops {
            if g.ops[op].name == "scf.for" {
                let mut nest = Nest {
                    nodes: vec![Node {
                        lp: op,
                        children: Vec::new(),
                    }],
                };
                grow(g, &mut nest, 0, nests);
                nests.push(nest);
            } else {
                for region in &g.ops[op].regions {
                    find_nests(g, region, nests);
                }
            }
        }
    }
}

/// Adds the loops directly in node `node`'s body to the nest.
fn grow(g: &Graph, nest: &mut Nest, node: usize, nests: &mut Vec<Nest>) {
    let lp = nest.nodes[node].lp;
    for region in &g.ops[lp].regions {
        for &b in region {
            for &op in &g.blocks[b].ops {
                if g.ops[op].name == "scf.for" {
                    nest.nodes.push(Node {
                        lp: op,
                        children: Vec::new(),
                    });
                    let child = nest.nodes.len() - 1;
                    nest.nodes[node].children.push(child);
                    grow(g, nest, child, nests);
                } else {
                    for inner in &g.ops[op].regions {
                        find_nests(g, inner, nests);
                    }
                }
            }
        }
    }
}

/// The nodes, each after all of its descendants.
fn post_order(nest: &Nest) -> Vec<usize> {
    fn visit(nest: &Nest, node: usize, out: &mut Vec<usize>) {
        for &c in &nest.nodes[node].children {
            visit(nest, c, out);
        }
        out.push(node);
    }
    let mut out = Vec::new();
    visit(nest, 0, &mut out);
    out
}

fn has_attr(g: &Graph, op: OpId, name: &str) -> bool {
    g.ops[op].attrs.iter().any(|(k, _)| k == name)
}

/// Triton fuses nests marked `ttg.always-fuse`, and nests of one loop in one loop marked
/// `tt.flatten`.
fn should_fuse(g: &Graph, nest: &Nest) -> bool {
    let root = &nest.nodes[0];
    has_attr(g, root.lp, ALWAYS_FUSE)
        || nest.nodes.len() == 2 && root.children.len() == 1 && has_attr(g, root.lp, FLATTEN)
}

/// Readies a two-loop nest: invariant ops leave the outer loop, prologue ops only the
/// epilogue uses sink below the inner loop, and the inner loop is made to run at least once.
/// False when that last step is impossible (the nest is then left alone).
fn prepare(g: &mut Graph, nest: &Nest) -> Result<bool, PassError> {
    let outer = nest.nodes[0].lp;
    let Some(inner) = nest.nodes.get(1).map(|n| n.lp) else {
        return Ok(false);
    };
    // MLIR's loop-invariant code motion: loads stay.
    hoist_invariants(g, outer, false)?;
    sink_into_epilogue(g, inner);
    speculate_inner_length(g, outer, inner)
}

/// Moves the pure ops before `inner` (in its parent loop's body) that only ops after it use,
/// directly or through other such ops, to right after it: their values live shorter.
fn sink_into_epilogue(g: &mut Graph, inner: OpId) {
    let body = g.ops[inner].block;
    let at = g.position(inner).index;
    let prologue: Vec<OpId> = g.blocks[body].ops[..at].to_vec();
    let uses = g.all_uses();
    let after_inner =
        |g: &Graph, user: OpId| ancestor_in(g, user, body).is_some_and(|a| g.position(a).index > at);
    let mut sunk: HashSet<OpId> = HashSet::new();
    for &op in prologue.iter().rev() {
        if !hoistable(g, op) || is_dot(&g.ops[op].name) {
            continue;
        }
        let only_later_users = g.ops[op].results.iter().all(|&r| {
            uses[r]
                .iter()
                .all(|&(u, _)| after_inner(g, u) || sunk.contains(&u))
        });
        if only_later_users {
            sunk.insert(op);
        }
    }
    let mut anchor = inner;
    for op in prologue.into_iter().filter(|op| sunk.contains(op)) {
        g.move_after(op, anchor);
        anchor = op;
    }
}

/// Dots stay where they are (Triton's `DotOpInterface`).
fn is_dot(name: &str) -> bool {
    matches!(
        name,
        "tt.dot" | "tt.dot_scaled" | "ttng.warp_group_dot" | "ttng.tc_gen5_mma"
    )
}

/// The op holding `op` (or `op` itself) that sits directly in `block`.
fn ancestor_in(g: &Graph, op: OpId, block: BlockId) -> Option<OpId> {
    let mut cur = op;
    loop {
        if g.ops[cur].block == block {
            return Some(cur);
        }
        cur = g.parent_op(cur)?;
    }
}

/// Marks `inner` as running at least once per outer iteration: when an `llvm.intr.assume`
/// says `ub > lb`, or else by versioning the nest on its trip count being zero (the `then`
/// copy has no inner loop). False when its bounds cannot be computed before the nest.
fn speculate_inner_length(g: &mut Graph, outer: OpId, inner: OpId) -> Result<bool, PassError> {
    if positive_trip_count(g, inner) {
        g.set_trailing_attr(inner, MUST_EXECUTE, Some(""));
        return Ok(true);
    }
    let bounds = g.ops[inner].operands[..3].to_vec();
    let Some(to_hoist) = ops_to_hoist(g, outer, &bounds, is_func_arg) else {
        return Ok(false);
    };
    move_before(g, &to_hoist, outer);
    g.set_trailing_attr(inner, MUST_EXECUTE, Some(""));
    let mut b = Builder::new(g, outer);
    let len = b.trip_count(g, bounds[0], bounds[1], bounds[2])?;
    let len_ty = g.values[len].ty.clone();
    let zero = b.int(g, 0, &len_ty)?;
    let never = b.cmpi(g, "eq", len, zero)?;
    let result_tys = types(g, &g.ops[outer].results);
    let (choice, then_block, else_block) = b.if_op(g, never, result_tys);

    let mut map = HashMap::new();
    let copy = g.clone_deep(outer, end_of(g, then_block), &mut map);
    let copy_results = g.ops[copy].results.clone();
    append_yield(g, then_block, copy_results);
    let inner_index = g.position(inner).index;
    let copy_body = g.ops[copy].regions[0][0];
    if let Some(&copied_inner) = g.blocks[copy_body].ops.get(inner_index) {
        let o = g.ops[copied_inner].clone();
        for (&r, &init) in o.results.iter().zip(&o.operands[3..]) {
            g.replace_all_uses(r, init);
        }
        g.erase_op(copied_inner);
    }
    g.set_trailing_attr(copy, WARP_SPECIALIZE, None);

    let outer_results = g.ops[outer].results.clone();
    for (&r, &c) in outer_results.iter().zip(&g.ops[choice].results.clone()) {
        g.replace_all_uses(r, c);
    }
    let from = g.ops[outer].block;
    g.blocks[from].ops.retain(|&o| o != outer);
    g.blocks[else_block].ops.push(outer);
    g.ops[outer].block = else_block;
    append_yield(g, else_block, outer_results);
    Ok(true)
}

/// An `arith.cmpi` of the loop's bounds that says `ub > lb` and feeds an `llvm.intr.assume`.
fn positive_trip_count(g: &Graph, lp: OpId) -> bool {
    let (lb, ub) = (g.ops[lp].operands[0], g.ops[lp].operands[1]);
    g.uses(ub).into_iter().any(|(cmp, _)| {
        let o = &g.ops[cmp];
        let assumed = o.name == "arith.cmpi"
            && o.results.first().is_some_and(|&r| {
                g.uses(r)
                    .iter()
                    .any(|&(u, _)| g.ops[u].name == "llvm.intr.assume")
            });
        let predicate = match crate::ttgir::attr(&o.attrs, "predicate") {
            Some(crate::ttgir::AttrValue::Raw(p)) => p.as_str(),
            _ => "",
        };
        assumed
            && match (predicate, o.operands.as_slice()) {
                ("sgt", &[l, r]) => l == ub && r == lb,
                ("slt", &[l, r]) => l == lb && r == ub,
                _ => false,
            }
    })
}

fn is_func_arg(g: &Graph, v: ValueId) -> bool {
    matches!(g.values[v].def, Def::Arg { block, .. } if g.block_parent_op(block).is_none())
}

/// The ops that computing `values` before `lp` needs moved there, breadth-first from the
/// values (values defined before `lp` need nothing; block arguments only those
/// `may_use_arg` allows): `None` when one of them is not a cheap scalar op.
fn ops_to_hoist(
    g: &Graph,
    lp: OpId,
    values: &[ValueId],
    may_use_arg: impl Fn(&Graph, ValueId) -> bool,
) -> Option<Vec<OpId>> {
    let mut queue: VecDeque<ValueId> = values.iter().copied().collect();
    let mut seen = HashSet::new();
    let mut found = Vec::new();
    // Each op is visited once and queues its operands once: bounded by the module's uses.
    while let Some(v) = queue.pop_front() {
        if g.properly_dominates(v, lp) {
            continue;
        }
        match g.values[v].def {
            Def::Arg { .. } => {
                if !may_use_arg(g, v) {
                    return None;
                }
            }
            Def::Result { op, .. } => {
                if !seen.insert(op) {
                    continue;
                }
                if !cheap_scalar(g, op) {
                    return None;
                }
                found.push(op);
                queue.extend(reads_from_above(g, op));
            }
        }
    }
    Some(found)
}

/// The values `op` and the ops in its regions use that are defined outside it: moving `op`
/// needs them all defined where it goes.
fn reads_from_above(g: &Graph, op: OpId) -> Vec<ValueId> {
    let mut ops = vec![op];
    for region in &g.ops[op].regions {
        for &b in region {
            g.walk_block(b, &mut ops);
        }
    }
    ops.iter()
        .flat_map(|&o| g.ops[o].operands.iter().copied())
        .filter(|&v| !defined_inside(g, v, op))
        .collect()
}

/// Triton's loop-bound computations: ops without effects other than reads (an op with
/// regions, such as the loop an inner fusion left to add up lengths, without any effect
/// inside), on scalars only.
fn cheap_scalar(g: &Graph, op: OpId) -> bool {
    let o = &g.ops[op];
    let scalar = |v: &ValueId| g.values[*v].ty.kind == TypeKind::Scalar;
    let effects_allowed = if o.regions.is_empty() {
        is_removable_when_unused(&o.name)
    } else {
        effect_free(g, op)
    };
    effects_allowed && o.operands.iter().all(scalar) && o.results.iter().all(scalar)
}

/// MLIR's `isMemoryEffectFree`: no effect at all, reads included; structured ops by their
/// contents.
fn effect_free(g: &Graph, op: OpId) -> bool {
    let o = &g.ops[op];
    match o.name.as_str() {
        "scf.for" | "scf.if" | "scf.yield" => o
            .regions
            .iter()
            .flatten()
            .all(|&b| g.blocks[b].ops.iter().all(|&i| effect_free(g, i))),
        "tt.load" | "ttg.local_load" | "tt.descriptor_load" | "amdg.buffer_load" => false,
        name => o.regions.is_empty() && is_removable_when_unused(name),
    }
}

/// Moves `ops` in front of `anchor`, in program order.
fn move_before(g: &mut Graph, ops: &[OpId], anchor: OpId) {
    for op in program_order(g, ops) {
        let from = g.ops[op].block;
        g.blocks[from].ops.retain(|&o| o != op);
        let at = g.position(anchor);
        g.blocks[at.block].ops.insert(at.index, op);
        g.ops[op].block = at.block;
    }
}

/// `ops` sorted as the module's walk meets them.
fn program_order(g: &Graph, ops: &[OpId]) -> Vec<OpId> {
    let wanted: HashSet<OpId> = ops.iter().copied().collect();
    g.walk().into_iter().filter(|o| wanted.contains(o)).collect()
}

fn types(g: &Graph, values: &[ValueId]) -> Vec<ValueType> {
    values.iter().map(|&v| g.values[v].ty.clone()).collect()
}

fn end_of(g: &Graph, block: BlockId) -> InsertPoint {
    InsertPoint {
        block,
        index: g.blocks[block].ops.len(),
    }
}

/// Ends `block` with `scf.yield values` (nothing when there are none: MLIR leaves an empty
/// yield out of the text, and so does the graph).
fn append_yield(g: &mut Graph, block: BlockId, values: Vec<ValueId>) {
    if !values.is_empty() {
        let at = end_of(g, block);
        g.insert_built(at, "scf.yield", values, Vec::new());
    }
}

/// Replaces the uses of `old` by ops inside `block` (at any depth).
fn replace_uses_inside(g: &mut Graph, old: ValueId, new: ValueId, block: BlockId) {
    let mut ops = Vec::new();
    g.walk_block(block, &mut ops);
    for op in ops {
        for x in g.ops[op].operands.iter_mut().filter(|x| **x == old) {
            *x = new;
        }
    }
}

/// Replaces the uses of `old` by ops outside `block`.
fn replace_uses_outside(g: &mut Graph, old: ValueId, new: ValueId, block: BlockId) {
    for op in g.walk() {
        if ancestor_in(g, op, block).is_none() {
            for x in g.ops[op].operands.iter_mut().filter(|x| **x == old) {
                *x = new;
            }
        }
    }
}

/// Whether `v` is defined inside loop `lp` (in its body or deeper).
fn defined_inside(g: &Graph, v: ValueId, lp: OpId) -> bool {
    match g.values[v].def {
        Def::Result { op, .. } => g.is_ancestor(lp, op),
        Def::Arg { block, .. } => g.block_parent_op(block).is_some_and(|p| g.is_ancestor(lp, p)),
    }
}

/// The bit width of an integer or index type (index counts as 64 bits, Triton's pessimistic
/// guess).
fn int_width(element: &str) -> Option<u32> {
    if element == "index" {
        return Some(64);
    }
    element.strip_prefix('i')?.parse().ok()
}

fn is_float(element: &str) -> bool {
    matches!(element, "bf16" | "tf32")
        || element
            .strip_prefix('f')
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
}

/// Inserts ops one after the other, as MLIR's builder does.
struct Builder {
    at: InsertPoint,
    /// The loop being rewritten, named when something cannot be built.
    about: OpId,
}

impl Builder {
    /// Inserting in front of `op`.
    fn new(g: &Graph, op: OpId) -> Builder {
        Builder {
            at: g.position(op),
            about: op,
        }
    }

    /// A builder for the same loop inserting at `at`.
    fn to(&self, at: InsertPoint) -> Builder {
        Builder {
            at,
            about: self.about,
        }
    }

    fn text(
        &mut self,
        g: &mut Graph,
        name: &str,
        operands: Vec<ValueId>,
        ty: ValueType,
        format: &str,
    ) -> Result<ValueId, PassError> {
        let op = g
            .insert_text(self.at, name, operands, vec![ty], format)
            .map_err(|e| PassError::new(g, Some(self.about), &e.message))?;
        self.at.index += 1;
        Ok(g.ops[op].results[0])
    }

    /// `a <name> b`, of `a`'s type.
    fn binary(&mut self, g: &mut Graph, name: &str, a: ValueId, b: ValueId) -> Result<ValueId, PassError> {
        let ty = g.values[a].ty.clone();
        self.text(g, name, vec![a, b], ty, &format!("$r = {name} $0, $1 : $t0"))
    }

    fn cmpi(&mut self, g: &mut Graph, predicate: &str, a: ValueId, b: ValueId) -> Result<ValueId, PassError> {
        let format = format!("$r = arith.cmpi {predicate}, $0, $1 : $t0");
        self.text(g, "arith.cmpi", vec![a, b], ValueType::scalar("i1"), &format)
    }

    fn select(&mut self, g: &mut Graph, cond: ValueId, a: ValueId, b: ValueId) -> Result<ValueId, PassError> {
        let ty = g.values[a].ty.clone();
        self.text(
            g,
            "arith.select",
            vec![cond, a, b],
            ty,
            "$r = arith.select $0, $1, $2 : $t1",
        )
    }

    /// The integer constant `v` of scalar type `ty`.
    fn int(&mut self, g: &mut Graph, v: i64, ty: &ValueType) -> Result<ValueId, PassError> {
        let literal = match ty.element.as_str() {
            "i1" if v == 0 => "false".to_string(),
            "i1" => "true".to_string(),
            e => format!("{v} : {e}"),
        };
        let format = format!("$r = arith.constant {literal}");
        self.text(g, "arith.constant", Vec::new(), ty.clone(), &format)
    }

    /// A value of type `ty` no live path reads: zero where the type has one, else poison.
    fn zero_or_poison(&mut self, g: &mut Graph, ty: &ValueType) -> Result<ValueId, PassError> {
        let e = ty.element.as_str();
        let zero = if e == "i1" {
            Some("false")
        } else if is_float(e) {
            Some("0.000000e+00")
        } else {
            int_width(e).map(|_| "0")
        };
        let (name, format) = match (ty.kind, zero) {
            // MLIR writes an i1 constant without its type.
            (TypeKind::Scalar, Some("false")) => ("arith.constant", "$r = arith.constant false".to_string()),
            (TypeKind::Scalar, Some(z)) => ("arith.constant", format!("$r = arith.constant {z} : $rt0")),
            (TypeKind::Tensor, Some(z)) => {
                ("arith.constant", format!("$r = arith.constant dense<{z}> : $rt0"))
            }
            _ => ("ub.poison", "$r = ub.poison : $rt0".to_string()),
        };
        self.text(g, name, Vec::new(), ty.clone(), &format)
    }

    /// `v` as the integer type `ty` (sign-extended, truncated or cast from `index`).
    fn cast(&mut self, g: &mut Graph, v: ValueId, ty: &ValueType) -> Result<ValueId, PassError> {
        let from = g.values[v].ty.element.clone();
        if from == ty.element {
            return Ok(v);
        }
        let name = if from == "index" || ty.element == "index" {
            "arith.index_cast"
        } else if int_width(&from) > int_width(&ty.element) {
            "arith.trunci"
        } else {
            "arith.extsi"
        };
        self.text(
            g,
            name,
            vec![v],
            ty.clone(),
            &format!("$r = {name} $0 : $t0 to $rt0"),
        )
    }

    /// `len(range(lb, ub, step))` = `(ub - lb) ceildiv step` (right for negative steps too).
    fn trip_count(
        &mut self,
        g: &mut Graph,
        lb: ValueId,
        ub: ValueId,
        step: ValueId,
    ) -> Result<ValueId, PassError> {
        let diff = self.binary(g, "arith.subi", ub, lb)?;
        self.binary(g, "arith.ceildivsi", diff, step)
    }

    /// An `scf.if` with `then` and `else` blocks, still without yields.
    fn if_op(
        &mut self,
        g: &mut Graph,
        cond: ValueId,
        result_tys: Vec<ValueType>,
    ) -> (OpId, BlockId, BlockId) {
        let op = g.insert_built(self.at, "scf.if", vec![cond], result_tys);
        self.at.index += 1;
        let then_block = g.new_block(BlockOwner::Op(op), Vec::new());
        let else_block = g.new_block(BlockOwner::Op(op), Vec::new());
        g.ops[op].regions = vec![vec![then_block], vec![else_block]];
        (op, then_block, else_block)
    }

    /// An `scf.for` with an empty body (induction variable of `lb`'s type).
    fn for_op(&mut self, g: &mut Graph, bounds: [ValueId; 3], inits: Vec<ValueId>) -> (OpId, BlockId) {
        let tys = types(g, &inits);
        let operands = bounds.iter().copied().chain(inits).collect();
        let op = g.insert_built(self.at, "scf.for", operands, tys.clone());
        self.at.index += 1;
        let iv_ty = g.values[bounds[0]].ty.clone();
        let body = g.new_block(BlockOwner::Op(op), std::iter::once(iv_ty).chain(tys).collect());
        g.ops[op].regions = vec![vec![body]];
        (op, body)
    }
}

/// An inner loop to fuse.
struct Inner {
    lp: OpId,
    /// Whether its bounds can be computed before the outer loop.
    invariant: bool,
    /// Otherwise, the ops computing them from the outer induction variable.
    sliced: Vec<OpId>,
}

/// The ops of the outer body between two inner loops (or before the first, or after the
/// last), and their results used after them.
struct Logue {
    ops: Vec<OpId>,
    outputs: Vec<ValueId>,
}

impl Logue {
    /// `ops` (consecutive in `body`); an output is a result used after the last of them, or
    /// inside the last one.
    fn new(g: &Graph, body: BlockId, ops: Vec<OpId>) -> Logue {
        let mut outputs = Vec::new();
        if let Some(&last) = ops.last() {
            let last_index = g.position(last).index;
            let uses = g.all_uses();
            for &op in &ops {
                for &r in &g.ops[op].results {
                    let escapes = uses[r].iter().any(|&(u, _)| {
                        ancestor_in(g, u, body)
                            .is_some_and(|a| g.position(a).index > last_index || a == last && u != last)
                    });
                    if escapes {
                        outputs.push(r);
                    }
                }
            }
        }
        Logue { ops, outputs }
    }
}

/// Fuses the loops directly in node `node`'s loop into it (Triton's `fuseOneLevel`): one new
/// loop over `len(outer) × inner_len` iterations replaces them.
fn fuse_one_level(g: &mut Graph, nest: &mut Nest, node: usize) -> Result<(), PassError> {
    let outer = nest.nodes[node].lp;
    let children = std::mem::take(&mut nest.nodes[node].children);
    let body = g.ops[outer].regions[0][0];
    let iv = g.blocks[body].args[0];

    let mut inners = Vec::new();
    let mut to_hoist: Vec<OpId> = Vec::new();
    for child in children {
        let Some(lp) = nest.nodes.get(child).map(|n| n.lp) else {
            continue;
        };
        let bounds = g.ops[lp].operands[..3].to_vec();
        if let Some(ops) = ops_to_hoist(g, outer, &bounds, is_func_arg) {
            to_hoist.extend(
                ops.into_iter()
                    .filter(|o| !to_hoist.contains(o))
                    .collect::<Vec<_>>(),
            );
            inners.push(Inner {
                lp,
                invariant: true,
                sliced: Vec::new(),
            });
        } else if let Some(sliced) = ops_to_hoist(g, outer, &bounds, |g, v| v == iv || is_func_arg(g, v)) {
            inners.push(Inner {
                lp,
                invariant: false,
                sliced,
            });
        }
    }
    if inners.is_empty() {
        return Ok(());
    }
    move_before(g, &to_hoist, outer);

    let o = g.ops[outer].clone();
    let (lb, ub, step) = (o.operands[0], o.operands[1], o.operands[2]);
    let outer_yield = g.blocks[body]
        .ops
        .last()
        .copied()
        .filter(|&y| g.ops[y].name == "scf.yield");
    let iv_of = |g: &Graph, lp: OpId| g.blocks[g.ops[lp].regions[0][0]].args[0];
    let mut width = 0;
    for lp in std::iter::once(outer).chain(inners.iter().map(|i| i.lp)) {
        let element = &g.values[iv_of(g, lp)].ty.element;
        width = width.max(int_width(element).ok_or_else(|| {
            PassError::new(g, Some(lp), "a loop whose induction variable is not an integer")
        })?);
    }
    let int_ty = ValueType::scalar(&format!("i{width}"));
    let all_invariant = inners.iter().all(|i| i.invariant);
    let n_inner = inners.len();

    // Lengths and the total, before the outer loop.
    let mut b = Builder::new(g, outer);
    let len_outer = b.trip_count(g, lb, ub, step)?;
    let mut len_inners = Vec::new();
    for inner in &inners {
        let len = if inner.invariant {
            let [l, u, s] = bounds_of(g, inner.lp);
            let n = b.trip_count(g, l, u, s)?;
            b.cast(g, n, &int_ty)?
        } else {
            b.zero_or_poison(g, &int_ty)?
        };
        len_inners.push(len);
    }
    let mut inner_len = b.int(g, 0, &int_ty)?;
    for (inner, &len) in inners.iter().zip(&len_inners) {
        if inner.invariant {
            let one = b.int(g, 1, &int_ty)?;
            let at_least_one = b.binary(g, "arith.maxsi", one, len)?;
            inner_len = b.binary(g, "arith.addi", inner_len, at_least_one)?;
        }
    }
    let overlaps = b.int(g, n_inner as i64 - 1, &int_ty)?;
    inner_len = b.binary(g, "arith.subi", inner_len, overlaps)?;
    let len_outer = b.cast(g, len_outer, &int_ty)?;
    let total = b.binary(g, "arith.muli", len_outer, inner_len)?;

    // A loop over the outer range adds up the lengths that vary with it.
    let (peeled, peeled_body) = b.for_op(g, [lb, ub, step], vec![total]);
    let mut p = b.to(InsertPoint {
        block: peeled_body,
        index: 0,
    });
    let mut acc = g.blocks[peeled_body].args[1];
    let mut map = HashMap::from([(iv, g.blocks[peeled_body].args[0])]);
    let mut cloned = HashSet::new();
    for inner in inners.iter().filter(|i| !i.invariant) {
        let n = p.sliced_trip_count(g, inner, &mut map, &mut cloned)?;
        let n = p.cast(g, n, &int_ty)?;
        let one = p.int(g, 1, &int_ty)?;
        let at_least_one = p.binary(g, "arith.maxsi", one, n)?;
        acc = p.binary(g, "arith.addi", acc, at_least_one)?;
    }
    append_yield(g, peeled_body, vec![acc]);
    let total = g.ops[peeled].results[0];

    // The pieces of the outer body, before the loops move.
    let body_ops = g.blocks[body].ops.clone();
    let index_of = |lp: OpId| body_ops.iter().position(|&o| o == lp).unwrap_or(0);
    let end = body_ops.len() - usize::from(outer_yield.is_some());
    let mut cuts = vec![0];
    for inner in &inners {
        let k = index_of(inner.lp);
        cuts.push(k);
        cuts.push(k + 1);
    }
    cuts.push(end);
    let logues: Vec<Logue> = cuts
        .chunks(2)
        .map(|c| {
            let (from, to) = (c[0], c[1].max(c[0]));
            Logue::new(g, body, body_ops[from..to].to_vec())
        })
        .collect();
    // An inner start value defined outside the nest starts the fused loop and is reset by the
    // epilogue, instead of being carried out of the prologue.
    let from_outside: Vec<Vec<bool>> = inners
        .iter()
        .map(|i| {
            g.ops[i.lp].operands[3..]
                .iter()
                .map(|&init| !defined_inside(g, init, outer))
                .collect()
        })
        .collect();

    // The fused loop's carried values, in Triton's order.
    let mut inits = Vec::new();
    inits.push(b.int(g, 0, &int_ty)?);
    inits.push(b.binary(g, "arith.subi", lb, step)?);
    let outer_args_at = inits.len();
    inits.extend_from_slice(&o.operands[3..]);
    let lens_at = inits.len();
    inits.extend_from_slice(&len_inners);
    let inner_len_at = inits.len();
    inits.push(inner_len);
    let ivs_at = inits.len();
    for inner in &inners {
        let ty = g.values[iv_of(g, inner.lp)].ty.clone();
        inits.push(b.zero_or_poison(g, &ty)?);
    }
    let outs_at = inits.len();
    for (inner, outside) in inners.iter().zip(&from_outside) {
        let o = g.ops[inner.lp].clone();
        for ((&r, &init), &outside) in o.results.iter().zip(&o.operands[3..]).zip(outside) {
            let ty = g.values[r].ty.clone();
            let undef = b.zero_or_poison(g, &ty)?;
            inits.push(if outside { init } else { undef });
        }
    }
    let logue_outs_at = inits.len();
    for logue in &logues[..logues.len() - 1] {
        for &out in &logue.outputs {
            let ty = g.values[out].ty.clone();
            inits.push(b.zero_or_poison(g, &ty)?);
        }
    }
    let zero = b.int(g, 0, &int_ty)?;
    let one = b.int(g, 1, &int_ty)?;
    let (fused, fused_body) = b.for_op(g, [zero, total, one], inits);
    let carried: Vec<ValueId> = g.blocks[fused_body].args[1..].to_vec();
    for (k, &arg) in g.blocks[body].args[1..].to_vec().iter().enumerate() {
        g.replace_all_uses(arg, carried[outer_args_at + k]);
    }
    let mut len_inners: Vec<ValueId> = carried[lens_at..lens_at + n_inner].to_vec();
    let t = carried[0];
    let cur_i = carried[1];

    let mut b = b.to(InsertPoint {
        block: fused_body,
        index: 0,
    });
    let mut i = cur_i;
    let mut logue_out = logue_outs_at;
    let mut inner_out = outs_at;
    let mut prologue_ifs = Vec::new();
    let mut body_ifs = Vec::new();
    for (k, inner) in inners.iter().enumerate() {
        // Prologue k runs where inner loop k starts: T == Σ_{j<k} max(1, len_j) - k.
        let mut start = b.int(g, 0, &int_ty)?;
        for &len in &len_inners[..k] {
            let one = b.int(g, 1, &int_ty)?;
            let at_least_one = b.binary(g, "arith.maxsi", one, len)?;
            start = b.binary(g, "arith.addi", start, at_least_one)?;
        }
        let kc = b.int(g, k as i64, &int_ty)?;
        start = b.binary(g, "arith.subi", start, kc)?;
        let starts_here = b.cmpi(g, "eq", t, start)?;

        let lp = g.ops[inner.lp].clone();
        let inner_body = lp.regions[0][0];
        let inner_iv = g.blocks[inner_body].args[0];
        let inner_args = g.blocks[inner_body].args[1..].to_vec();
        let kept: Vec<usize> = (0..lp.results.len()).filter(|&j| !from_outside[k][j]).collect();
        let prologue = &logues[k];
        let n_out = prologue.outputs.len();
        let mut tys = vec![g.values[inner_iv].ty.clone()];
        tys.extend(types(g, &prologue.outputs));
        tys.extend(kept.iter().map(|&j| g.values[lp.operands[3 + j]].ty.clone()));
        if k == 0 {
            tys.push(g.values[cur_i].ty.clone());
            tys.extend(std::iter::repeat_n(int_ty.clone(), n_inner));
            tys.push(int_ty.clone());
        }
        let (prologue_if, then_block, else_block) = b.if_op(g, starts_here, tys);
        for &op in &prologue.ops {
            let from = g.ops[op].block;
            g.blocks[from].ops.retain(|&x| x != op);
            g.blocks[then_block].ops.push(op);
            g.ops[op].block = then_block;
        }
        let mut then_outs = vec![lp.operands[0]];
        then_outs.extend_from_slice(&prologue.outputs);
        then_outs.extend(kept.iter().map(|&j| lp.operands[3 + j]));
        let mut else_outs = vec![carried[ivs_at + k]];
        else_outs.extend_from_slice(&carried[logue_out..logue_out + n_out]);
        else_outs.extend(kept.iter().map(|&j| carried[inner_out + j]));
        logue_out += n_out;
        if k == 0 {
            // The outer step happens in the first prologue, with the lengths that vary.
            let mut tb = b.to(InsertPoint {
                block: then_block,
                index: 0,
            });
            let next_i = tb.binary(g, "arith.addi", cur_i, step)?;
            replace_uses_inside(g, iv, next_i, then_block);
            let mut map = HashMap::from([(iv, next_i)]);
            let mut cloned = HashSet::new();
            for (j, inner) in inners.iter().enumerate() {
                if !inner.invariant {
                    let n = tb.sliced_trip_count(g, inner, &mut map, &mut cloned)?;
                    let n = tb.cast(g, n, &int_ty)?;
                    len_inners[j] = n;
                    let one = tb.int(g, 1, &int_ty)?;
                    let at_least_one = tb.binary(g, "arith.maxsi", one, n)?;
                    inner_len = tb.binary(g, "arith.addi", inner_len, at_least_one)?;
                }
            }
            then_outs.push(next_i);
            then_outs.extend_from_slice(&len_inners);
            then_outs.push(inner_len);
            else_outs.push(cur_i);
            else_outs.extend_from_slice(&carried[lens_at..lens_at + n_inner]);
            // Triton forwards the value itself when no length varies.
            else_outs.push(if all_invariant {
                inner_len
            } else {
                carried[inner_len_at]
            });
        }
        append_yield(g, then_block, then_outs);
        append_yield(g, else_block, else_outs);

        let results = g.ops[prologue_if].results.clone();
        g.replace_all_uses(inner_iv, results[0]);
        for (n, &out) in prologue.outputs.iter().enumerate() {
            replace_uses_outside(g, out, results[1 + n], then_block);
        }
        let mut kept_results = results[1 + n_out..].iter();
        for (j, &arg) in inner_args.iter().enumerate() {
            let start_value = if from_outside[k][j] {
                Some(carried[inner_out + j])
            } else {
                kept_results.next().copied()
            };
            if let Some(v) = start_value {
                g.replace_all_uses(arg, v);
            }
        }
        if k == 0 {
            let m = results.len();
            i = results[m - 2 - n_inner];
            len_inners = results[m - 1 - n_inner..m - 1].to_vec();
            inner_len = results[m - 1];
            g.replace_all_uses(iv, i);
        }
        let jk = results[0];

        // Inner body k runs on the len_k iterations from there.
        let len = b.cast(g, len_inners[k], &int_ty)?;
        let end = b.binary(g, "arith.addi", start, len)?;
        let after_start = b.cmpi(g, "sge", t, start)?;
        let before_end = b.cmpi(g, "slt", t, end)?;
        let inside = b.binary(g, "arith.andi", after_start, before_end)?;
        let mut tys = vec![g.values[jk].ty.clone()];
        tys.extend(types(g, &lp.results));
        let (body_if, body_then, body_else) = b.if_op(g, inside, tys);
        g.move_ops(inner_body, body_then);
        let inner_yield = g.blocks[body_then]
            .ops
            .last()
            .copied()
            .filter(|&y| g.ops[y].name == "scf.yield");
        let before_yield = match inner_yield {
            Some(y) => g.position(y),
            None => end_of(g, body_then),
        };
        // The step as it is now: a prologue output has become the prologue's result.
        let inner_step = g.ops[inner.lp].operands[2];
        let next_jk = b.to(before_yield).binary(g, "arith.addi", jk, inner_step)?;
        match inner_yield {
            Some(y) => g.ops[y].operands.insert(0, next_jk),
            None => append_yield(g, body_then, vec![next_jk]),
        }
        let mut forwarded = vec![jk];
        forwarded.extend_from_slice(&carried[inner_out..inner_out + lp.results.len()]);
        inner_out += lp.results.len();
        append_yield(g, body_else, forwarded);
        let body_results = g.ops[body_if].results.clone();
        for (&r, &nr) in lp.results.iter().zip(&body_results[1..]) {
            g.replace_all_uses(r, nr);
        }
        if has_attr(g, inner.lp, MUST_EXECUTE) {
            let always = b.to(g.position(body_if)).int(g, 1, &ValueType::scalar("i1"))?;
            g.ops[body_if].operands[0] = always;
        }
        b.at = g.position(body_if);
        b.at.index += 1;
        prologue_ifs.push((prologue_if, n_out));
        body_ifs.push(body_if);
    }

    // The epilogue runs on the last iteration of the outer one, and resets the start values
    // that come from outside.
    let epilogue = &logues[logues.len() - 1];
    let mut used_args = Vec::new();
    for &out in &epilogue.outputs {
        let yielded: Vec<usize> = g
            .uses(out)
            .into_iter()
            .filter(|&(u, _)| Some(u) == outer_yield)
            .map(|(_, k)| k)
            .collect();
        let &[k] = yielded.as_slice() else {
            return Err(PassError::new(
                g,
                Some(outer),
                "a value after the inner loops that the loop does not yield exactly once",
            ));
        };
        used_args.push(carried[outer_args_at + k]);
    }
    let mut resets = Vec::new();
    let mut kept_going = Vec::new();
    for ((inner, outside), &body_if) in inners.iter().zip(&from_outside).zip(&body_ifs) {
        for (j, &outside) in outside.iter().enumerate() {
            if outside {
                resets.push(g.ops[inner.lp].operands[3 + j]);
                kept_going.push(g.ops[body_if].results[1 + j]);
            }
        }
    }
    let one = b.int(g, 1, &int_ty)?;
    let last = b.binary(g, "arith.subi", inner_len, one)?;
    let ends_here = b.cmpi(g, "eq", t, last)?;
    let mut tys = types(g, &epilogue.outputs);
    tys.extend(types(g, &resets));
    let (epilogue_if, then_block, else_block) = b.if_op(g, ends_here, tys);
    for &op in &epilogue.ops {
        let from = g.ops[op].block;
        g.blocks[from].ops.retain(|&x| x != op);
        g.blocks[then_block].ops.push(op);
        g.ops[op].block = then_block;
    }
    let epilogue_results = g.ops[epilogue_if].results.clone();
    append_yield(
        g,
        then_block,
        epilogue.outputs.iter().chain(&resets).copied().collect(),
    );
    append_yield(g, else_block, used_args.into_iter().chain(kept_going).collect());
    for (n, &out) in epilogue.outputs.iter().enumerate() {
        replace_uses_outside(g, out, epilogue_results[n], then_block);
    }

    // T wraps around at the end of each outer iteration.
    let mut b = b.to(end_of(g, fused_body));
    let one = b.int(g, 1, &int_ty)?;
    let next_t = b.binary(g, "arith.addi", t, one)?;
    let one = b.int(g, 1, &int_ty)?;
    let last = b.binary(g, "arith.subi", inner_len, one)?;
    let wraps = b.cmpi(g, "eq", t, last)?;
    let zero = b.int(g, 0, &int_ty)?;
    let next_t = b.select(g, wraps, zero, next_t)?;
    let mut outs = vec![next_t, i];
    if let Some(y) = outer_yield {
        outs.extend_from_slice(&g.ops[y].operands);
    }
    outs.extend_from_slice(&len_inners);
    outs.push(inner_len);
    outs.extend(body_ifs.iter().map(|&bi| g.ops[bi].results[0]));
    let mut resets_out = epilogue_results[epilogue.outputs.len()..].iter();
    for (outside, &body_if) in from_outside.iter().zip(&body_ifs) {
        for (j, &outside) in outside.iter().enumerate() {
            let reset = if outside { resets_out.next().copied() } else { None };
            outs.push(reset.unwrap_or(g.ops[body_if].results[1 + j]));
        }
    }
    for &(prologue_if, n_out) in &prologue_ifs {
        outs.extend_from_slice(&g.ops[prologue_if].results[1..1 + n_out]);
    }
    append_yield(g, fused_body, outs);
    let fused_results = g.ops[fused].results.clone();
    for (k, &r) in o.results.iter().enumerate() {
        g.replace_all_uses(r, fused_results[outer_args_at + k]);
    }

    // The fused loop keeps what the pipeliner reads from the loops it replaces.
    let loops: Vec<OpId> = std::iter::once(outer)
        .chain(inners.iter().map(|i| i.lp))
        .collect();
    for flag in [WARP_SPECIALIZE, DISALLOW_ACC_MULTI_BUFFER] {
        if loops.iter().any(|&lp| has_attr(g, lp, flag)) {
            g.set_trailing_attr(fused, flag, Some(""));
        }
    }
    let stages = loops
        .iter()
        .filter_map(|&lp| match crate::ttgir::attr(&g.ops[lp].attrs, NUM_STAGES) {
            Some(crate::ttgir::AttrValue::Int(n)) => Some(*n),
            _ => None,
        })
        .max()
        .unwrap_or(1);
    if stages > 1 {
        g.set_trailing_attr(fused, NUM_STAGES, Some(&format!("{stages} : i32")));
    }
    for inner in &inners {
        g.erase_op(inner.lp);
    }
    g.erase_op(outer);
    nest.nodes[node].lp = fused;
    Ok(())
}

fn bounds_of(g: &Graph, lp: OpId) -> [ValueId; 3] {
    let o = &g.ops[lp].operands;
    [o[0], o[1], o[2]]
}

impl Builder {
    /// The trip count of `inner`, its bound computations copied here (once each, through
    /// `map`, which maps the outer induction variable to its value here).
    fn sliced_trip_count(
        &mut self,
        g: &mut Graph,
        inner: &Inner,
        map: &mut HashMap<ValueId, ValueId>,
        cloned: &mut HashSet<OpId>,
    ) -> Result<ValueId, PassError> {
        for op in program_order(g, &inner.sliced) {
            if cloned.insert(op) {
                g.clone_deep(op, self.at, map);
                self.at.index += 1;
            }
        }
        let [l, u, s] = bounds_of(g, inner.lp).map(|v| *map.get(&v).unwrap_or(&v));
        self.trip_count(g, l, u, s)
    }
}
