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

use crate::ttgir::graph::{BlockId, Def, Graph, InsertPoint, OpId, ValueId};
use crate::ttgir::{TypeKind, ValueType};

use super::PassError;
use super::licm::{hoist_invariants, hoistable};
use super::ops::is_removable_when_unused;

mod builder;
mod fusion;

use builder::Builder;
use fusion::fuse_one_level;

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

/// Triton 3.6's `tritongpu-fuse-nested-loops` on `g`, in place; see the module docs.
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
