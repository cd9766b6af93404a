//! Where each shared-memory buffer of a module is live, so a layout conversion's LDS round
//! trip can use the bytes of buffers no later op reads and keep off the others.
//!
//! # Worked example
//!
//! A pipelined loop keeps the next iteration's operand in a buffer allocated before it, and
//! converts another tensor inside it:
//!
//! ```text
//! 3  %buf = ttg.local_alloc             : memdesc<32x32xf16>   (bytes 0..2048)
//! 4  scf.for … iter_args(%slot = %buf) {
//! 5    %a = ttg.local_load %slot
//! 6    %c = ttg.convert_layout %x       (a round trip through LDS)
//! 7    ttg.local_store %y, %slot
//!    }
//! 8  ttg.local_dealloc %buf
//! ```
//!
//! `%slot` is the buffer carried, so its uses count as the buffer's; they are inside a loop the
//! allocation is outside of, so the buffer is live to the loop's end and beyond, to the
//! dealloc at 8: at op 6 bytes 0..2048 are taken and the round trip starts above them. After
//! op 8 (or, for a buffer nothing deallocates, after its last use) a round trip may use them.

use crate::ttgir::{Module, TypeKind, ValueDef};

/// For each `ttg.local_alloc` of a module, the last op (by index: ops are numbered in the
/// order they are written, an op before those of its regions) at which its buffer is read or
/// written, through any memdesc derived from it (indexed, viewed, carried by a loop).
pub(super) struct BufferLiveness {
    /// Per op index: for a `ttg.local_alloc`, the last op index its buffer is live at.
    last_use: Vec<Option<usize>>,
    /// A memdesc none of the allocations accounts for (a function argument, a `scf.while`'s
    /// carried slot): every buffer is then taken to be live to the end.
    untracked: bool,
}

impl BufferLiveness {
    /// The liveness of every buffer of `m`.
    pub(super) fn of(m: &Module) -> BufferLiveness {
        let is_memdesc = |v: usize| m.values[v].ty.kind == TypeKind::MemDesc;
        // Which allocations each memdesc value may be a view of (a loop's carried slot takes
        // its initial value's and what its body yields); to a fixed point over loops.
        let mut from: Vec<Vec<usize>> = vec![Vec::new(); m.values.len()];
        let add = |from: &mut Vec<Vec<usize>>, v: usize, allocs: &[usize]| -> bool {
            let mut changed = false;
            for &a in allocs {
                if !from[v].contains(&a) {
                    from[v].push(a);
                    changed = true;
                }
            }
            changed
        };
        let mut changed = true;
        let mut rounds = 0;
        while changed && rounds <= m.ops.len() {
            changed = false;
            rounds += 1;
            for (i, op) in m.ops.iter().enumerate() {
                if op.name == "ttg.local_alloc" {
                    for &r in &op.results {
                        changed |= add(&mut from, r, &[i]);
                    }
                    continue;
                }
                let sources: Vec<usize> = op
                    .operands
                    .iter()
                    .filter(|&&v| is_memdesc(v))
                    .flat_map(|&v| from[v].clone())
                    .collect();
                match op.name.as_str() {
                    "scf.for" => {
                        for (k, &init) in op.operands.iter().skip(3).enumerate() {
                            let allocs = from[init].clone();
                            for v in [op.block_args.get(k + 1), op.results.get(k)]
                                .into_iter()
                                .flatten()
                            {
                                changed |= add(&mut from, *v, &allocs);
                            }
                        }
                    }
                    "scf.yield" => {
                        let Some(parent) = op.parent.map(|p| &m.ops[p]) else {
                            continue;
                        };
                        if parent.name != "scf.for" {
                            continue;
                        }
                        for (k, &y) in op.operands.iter().enumerate() {
                            let allocs = from[y].clone();
                            for v in [parent.block_args.get(k + 1), parent.results.get(k)]
                                .into_iter()
                                .flatten()
                            {
                                changed |= add(&mut from, *v, &allocs);
                            }
                        }
                    }
                    _ => {
                        for &r in op.results.iter().filter(|&&r| is_memdesc(r)) {
                            changed |= add(&mut from, r, &sources);
                        }
                    }
                }
            }
        }
        let untracked = (0..m.values.len()).any(|v| {
            is_memdesc(v)
                && from[v].is_empty()
                && !matches!(m.values[v].def, ValueDef::Op { op, .. } if m.ops[op].name == "ttg.local_alloc")
        });
        // The last op of each op's regions (itself when it has none).
        let mut region_end: Vec<usize> = (0..m.ops.len()).collect();
        for i in (0..m.ops.len()).rev() {
            if let Some(p) = m.ops[i].parent {
                region_end[p] = region_end[p].max(region_end[i]);
            }
        }
        let mut last_use: Vec<Option<usize>> = vec![None; m.ops.len()];
        for (u, op) in m.ops.iter().enumerate() {
            for &v in op.operands.iter().filter(|&&v| is_memdesc(v)) {
                for &a in &from[v] {
                    // A use inside a loop the allocation is outside of: live to the loop's end
                    // (the next iteration comes back to it).
                    let mut at = u;
                    let mut scope = op.parent;
                    while let Some(p) = scope {
                        if is_inside(m, a, p) {
                            break;
                        }
                        if matches!(m.ops[p].name.as_str(), "scf.for" | "scf.while") {
                            at = at.max(region_end[p]);
                        }
                        scope = m.ops[p].parent;
                    }
                    let last = last_use[a].get_or_insert(a);
                    *last = (*last).max(at);
                }
            }
        }
        BufferLiveness { last_use, untracked }
    }

    /// Whether the buffer op `alloc` allocates may be read or written at or after op `at`.
    pub(super) fn live_at(&self, alloc: usize, at: usize) -> bool {
        self.untracked
            || self
                .last_use
                .get(alloc)
                .copied()
                .flatten()
                .is_some_and(|last| at <= last)
    }
}

/// Whether op `i` is op `region_op` or inside its regions.
fn is_inside(m: &crate::ttgir::Module, i: usize, region_op: usize) -> bool {
    let mut at = Some(i);
    while let Some(o) = at {
        if o == region_op {
            return true;
        }
        at = m.ops[o].parent;
    }
    false
}
