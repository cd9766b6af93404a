//! Predicated regions: stores and atomics masked by one condition, side by side, become one
//! [`Op::Predicated`] with the loads and arithmetic only they use — one branch around them all,
//! which a wave none of whose threads acts skips, instead of each access masking its own
//! lanes. The condition may be a part of each access's predicate: a matmul epilogue stores
//! each register under `in_bounds_r ∧ first` (the first thread holding the element), and the
//! sixteen stores share a branch on `first`, each keeping its `in_bounds_r` inside.
//!
//! # Worked example
//!
//! A spin lock's critical section, the first thread of the workgroup alone acting
//! (`tl.store(acc, tl.load(acc) + pid + 1)`, `tl.atomic_xchg(lock, 0)`,
//! `tl.store(hits + pid, 1)`; [`common_values`](super::common_values) has given the three one
//! predicate `first`):
//!
//! ```text
//! v = load acc                         first = tid == 0
//! s = v + pid + 1                      if first:
//! first = tid == 0            ──▶          v = load acc
//! store acc, s     where first             s = v + pid + 1
//! xchg lock, 0     where first             store acc, s
//! store hits, 1    where first             xchg lock, 0
//!                                          store hits, 1
//! ```
//!
//! Three of the workgroup's four waves now skip the load, the sum, the stores and the
//! atomic with their fences; the first wave runs them once, with no mask per access.
//!
//! # The law
//!
//! The program computes the same bits: every store and atomic moved into a region is masked by
//! its predicate already, a load or a pure operation moved in is used by the region alone (the
//! threads that skip it never read its result), and an operation moved out ahead of the region
//! is pure and reads nothing the region defines — no memory access changes its order.
//!
//! A region is formed where it pays. Its predicate must fail in every thread of some waves
//! whatever the data — it requires a test of the thread id alone (such as "the first thread
//! holding this element") that no thread of those waves passes; a mask of the data
//! (`offs < n`) holds in whole waves but the last, so a branch on it would cost every wave and
//! save none. And the waves that skip must save at least what the branch costs all of them:
//! `skipped waves · work inside ≥ 8 · waves`, the work counted roughly (an access 2, an
//! atomic's fence 2 more, arithmetic 1). Eight instructions a wave is what LLVM's structurizer
//! makes of a branch at worst (the mask saved and inverted through a flow block, the test,
//! the mask restored); three where the branch comes out clean. The two scalar stores of a
//! layer norm's mean and deviation by one thread of four waves keep their masks
//! (`3 · 4 < 8 · 4`); a spin lock's section, skipped by three waves of four, is a region
//! (`3 · 14 ≥ 8 · 4`).

use std::collections::HashMap;

use crate::lower::ir::{Conjunctions, Op, Program, Value};

/// Forms the predicated regions of `p` everywhere in it (loop bodies and branches too).
/// Returns how many it formed.
///
/// ```
/// use linear_layout::lower::passes::form_predicated_regions;
/// use linear_layout::lower::{Buffer, GlobalOffset, Op, Predicate, Program, XorMap};
/// // Four waves; thread 0 alone stores six elements: three waves skip 6 · 2 instructions each.
/// let mut p = Program::new("k", 64, 256);
/// p.buffers.push(Buffer { name: "out".into(), elements: Some(6), element_bits: 32, address: None });
/// let first = p.thread_test(XorMap { cols: (0..8).map(|b| 1 << b).collect(), constant: 0 }, Predicate::Eq, 0);
/// let one = p.constant(32, 1);
/// for base in 0..6 {
///     let offset = GlobalOffset { base: linear_layout::lower::Uniform::constant(base), predicate: Some(first), ..GlobalOffset::default() };
///     p.ops.push(Op::GlobalStore { src: vec![one], buffer: 0, offset });
/// }
/// assert_eq!(form_predicated_regions(&mut p), 1);
/// let Some(Op::Predicated { predicate, ops }) = p.ops.last() else { panic!("no region") };
/// assert_eq!(*predicate, first);
/// assert_eq!(ops.iter().filter(|op| matches!(op, Op::GlobalStore { .. })).count(), 6);
/// ```
pub fn form_predicated_regions(p: &mut Program) -> usize {
    let skipped_waves = skipped_waves(p);
    let conjunctions = Conjunctions::of(p);
    let mut reads = vec![0u32; p.values.len()];
    let mut count = |v: Value| {
        if let Some(n) = reads.get_mut(v.0 as usize) {
            *n += 1;
        }
    };
    for op in p.walk() {
        op.operands().into_iter().for_each(&mut count);
    }
    p.buffers.iter().filter_map(|b| b.address).for_each(&mut count);
    let mut forming = Forming {
        reads,
        skipped_waves,
        conjunctions,
        waves: u64::from(p.threads / p.wave_size.max(1)),
        formed: 0,
    };
    p.ops = forming.ops(std::mem::take(&mut p.ops));
    forming.formed
}

struct Forming {
    /// How many times each value is read in the whole program.
    reads: Vec<u32>,
    /// The 1-bit values that fail in every thread of some waves, with how many waves.
    skipped_waves: HashMap<Value, u64>,
    /// Waves in the workgroup.
    waves: u64,
    /// The program's conjunctions of 1-bit values.
    conjunctions: Conjunctions,
    formed: usize,
}

/// Where an operation of a candidate run goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    /// Into the region.
    Inside,
    /// Ahead of it, in its order.
    Ahead,
}

/// The predicate a store or an atomic is masked by alone (an atomic's packed neighbour too).
fn access_predicate(op: &Op) -> Option<Value> {
    match op {
        Op::GlobalStore { offset, .. } => offset.predicate,
        Op::GlobalAtomic {
            offset, neighbour, ..
        } => offset
            .predicate
            .filter(|p| neighbour.as_ref().is_none_or(|n| n.predicate == Some(*p))),
        _ => None,
    }
}

/// A run of ops that becomes a region: `start..end` of its list, where each op goes.
struct Region {
    start: usize,
    end: usize,
    predicate: Value,
    places: Vec<Place>,
}

impl Forming {
    fn ops(&mut self, ops: Vec<Op>) -> Vec<Op> {
        let ops: Vec<Op> = ops.into_iter().map(|op| self.bodies(op)).collect();
        let mut regions = Vec::new();
        let (mut floor, mut i) = (0, 0);
        while i < ops.len() {
            match self.region_at(&ops, floor, i) {
                Some(region) => {
                    (floor, i) = (region.end, region.end);
                    regions.push(region);
                }
                None => i += 1,
            }
        }
        self.formed += regions.len();
        let mut out = Vec::with_capacity(ops.len());
        let (mut ops, mut at) = (ops.into_iter(), 0);
        for region in regions {
            out.extend(ops.by_ref().take(region.start - at));
            at = region.end;
            let mut inside = Vec::new();
            for (op, place) in ops.by_ref().take(region.end - region.start).zip(region.places) {
                match place {
                    Place::Ahead => out.push(op),
                    Place::Inside => inside.push(op),
                }
            }
            out.push(Op::Predicated {
                predicate: region.predicate,
                ops: inside,
            });
        }
        out.extend(ops);
        out
    }

    /// `op` with regions formed in its bodies.
    fn bodies(&mut self, mut op: Op) -> Op {
        match &mut op {
            Op::Loop { body, .. } => *body = self.ops(std::mem::take(body)),
            Op::If { then, otherwise, .. } => {
                *then = self.ops(std::mem::take(then));
                *otherwise = self.ops(std::mem::take(otherwise));
            }
            Op::LdsWindow { ops, .. } => *ops = self.ops(std::mem::take(ops)),
            Op::While { before, after, .. } => {
                *before = self.ops(std::mem::take(before));
                *after = self.ops(std::mem::take(after));
            }
            _ => {}
        }
        op
    }

    /// The region whose first access is `ops[first]`: its span (reaching back to `floor` at
    /// most, over the loads and arithmetic before the access, and forward over the accesses
    /// masked alike and what lies between them) and where each op of it goes; `None` when
    /// `ops[first]` starts no region of two accesses or more.
    fn region_at(&self, ops: &[Op], floor: usize, first: usize) -> Option<Region> {
        // Of the conditions the access's predicate implies that skip waves, the one the most
        // accesses after it imply too (the strongest of those: the fewest masks inside).
        let implied_by = |op: &Op, q: Value| access_predicate(op).is_some_and(|p| self.parts(p).contains(&q));
        let sharing = |q: Value| {
            ops[first..]
                .iter()
                .take_while(|op| op.runs_alone() || implied_by(op, q))
                .filter(|op| implied_by(op, q))
                .count()
        };
        let predicate = self
            .parts(access_predicate(&ops[first])?)
            .into_iter()
            .filter(|p| self.skipped_waves.contains_key(p))
            .enumerate()
            .max_by_key(|&(k, q)| (sharing(q), std::cmp::Reverse(k)))?
            .1;
        let masked_alike = |op: &Op| implied_by(op, predicate);
        let mut start = first;
        while start > floor && ops[start - 1].runs_alone() {
            start -= 1;
        }
        let mut end = first + 1;
        while ops.get(end).is_some_and(|op| op.runs_alone() || masked_alike(op)) {
            end += 1;
        }
        loop {
            // The span ends with its last access.
            while end > first + 1 && !masked_alike(&ops[end - 1]) {
                end -= 1;
            }
            match self.places(&ops[start..end], first - start, predicate) {
                Ok(places) => {
                    let work: u64 = places
                        .iter()
                        .zip(&ops[start..end])
                        .filter(|(place, _)| **place == Place::Inside)
                        .map(|(_, op)| work_of(op))
                        .sum();
                    let skipped = self.skipped_waves.get(&predicate).copied().unwrap_or(0);
                    // Pays: the waves that skip save more than every wave's branch costs.
                    let pays = skipped * work >= BRANCH_INSTRUCTIONS * self.waves;
                    return pays.then_some(Region {
                        start,
                        end,
                        predicate,
                        places,
                    });
                }
                Err(cut) if cut > first - start => end = start + cut,
                Err(_) => return None,
            }
        }
    }

    /// `p` and, where it is a conjunction, its parts and theirs: every condition `p` implies
    /// that the program spells.
    fn parts(&self, p: Value) -> Vec<Value> {
        self.conjunctions.parts(p)
    }

    /// Where each op of `span` goes (its first access at `first`); `Err(k)` when op `k` can go
    /// neither way: an access whose result is read after the region, or a load after the
    /// first access whose result is (ahead of the region it would pass that access).
    ///
    /// One pass from the last op back: the ops reading an op's results come after it, so
    /// where they go is known when it is placed. A result read more often in the whole
    /// program than by the ops inside is needed outside, and the op defining it goes ahead.
    fn places(&self, span: &[Op], first: usize, predicate: Value) -> Result<Vec<Place>, usize> {
        let mut read_inside: HashMap<Value, u32> = HashMap::new();
        for op in span {
            for v in op.operands() {
                *read_inside.entry(v).or_insert(0) += 1;
            }
        }
        let mut places = vec![Place::Inside; span.len()];
        for (k, op) in span.iter().enumerate().rev() {
            let needed_outside = op.defined().iter().any(|&v| {
                v == predicate
                    || self.reads.get(v.0 as usize).copied().unwrap_or(0)
                        > read_inside.get(&v).copied().unwrap_or(0)
            });
            if !needed_outside {
                continue;
            }
            if access_predicate(op).is_some() || (k > first && matches!(op, Op::GlobalLoad { .. })) {
                return Err(k);
            }
            places[k] = Place::Ahead;
            for v in op.operands() {
                if let Some(n) = read_inside.get_mut(&v) {
                    *n -= 1;
                }
            }
        }
        Ok(places)
    }
}

/// Instructions a predicated region's branch may cost a wave: the lane mask saved, inverted
/// and set through LLVM's flow block, the test that skips the block, the mask restored.
const BRANCH_INSTRUCTIONS: u64 = 8;

/// The instructions an op in a region stands for, roughly: a global access its address and
/// instruction, an atomic its fences too, arithmetic one, what LLVM folds away (constants,
/// thread maps computed once at the top, uniforms, packing) none.
fn work_of(op: &Op) -> u64 {
    match op {
        Op::GlobalLoad { .. } | Op::GlobalStore { .. } => 2,
        Op::GlobalAtomic { ordering, .. } => {
            let fences = match ordering {
                crate::lower::ir::AtomicOrdering::AcqRel => 2,
                crate::lower::ir::AtomicOrdering::Relaxed => 0,
                _ => 1,
            };
            2 + 2 * fences
        }
        Op::Arith { .. }
        | Op::Compare { .. }
        | Op::Select { .. }
        | Op::Convert { .. }
        | Op::SelectOnThreadBit { .. } => 1,
        _ => 0,
    }
}

/// The 1-bit values of `p` that fail in every thread of some waves whatever the data, with how
/// many waves: a compare of a thread map with a constant, and a conjunction (`and`) with such
/// a part (it fails at least where that part does).
fn skipped_waves(p: &Program) -> HashMap<Value, u64> {
    let mut thread_maps = HashMap::new();
    let mut constants = HashMap::new();
    let mut skipped = HashMap::new();
    let (threads, wave) = (u64::from(p.threads), u64::from(p.wave_size.max(1)));
    for op in p.walk() {
        match op {
            Op::ThreadMap { dst, map } => {
                thread_maps.insert(*dst, map);
            }
            Op::Constant { dst, bits } => {
                constants.insert(*dst, *bits);
            }
            Op::Compare {
                pred,
                ty: "i32",
                dst,
                a,
                b,
            } => {
                if let (Some(map), Some(&bound)) = (thread_maps.get(a), constants.get(b)) {
                    let holds = |tid: u64| pred.holds_int(map.eval(tid), bound, 32);
                    let none_pass = (0..threads / wave)
                        .filter(|w| !(w * wave..(w + 1) * wave).any(holds))
                        .count() as u64;
                    if none_pass > 0 {
                        skipped.insert(*dst, none_pass);
                    }
                }
            }
            Op::Arith {
                op: crate::lower::ir::ArithOp::And,
                ty: "i1",
                dst,
                src,
            } => {
                if let Some(most) = src.iter().filter_map(|v| skipped.get(v).copied()).max() {
                    skipped.insert(*dst, most);
                }
            }
            _ => {}
        }
    }
    skipped
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lower::ir::{Buffer, GlobalOffset, Predicate, Uniform, XorMap, walk};
    use crate::lower::run;

    /// 256 threads in waves of 64, one 32-bit buffer of 8 elements.
    fn program() -> Program {
        let mut p = Program::new("k", 64, 256);
        p.buffers.push(Buffer {
            name: "x".into(),
            elements: Some(8),
            element_bits: 32,
            address: None,
        });
        p
    }

    fn at(element: i64, predicate: Option<Value>) -> GlobalOffset {
        GlobalOffset {
            base: Uniform::constant(element),
            predicate,
            ..GlobalOffset::default()
        }
    }

    /// Whether thread 0 alone passes: three waves of four never do.
    fn first_thread(p: &mut Program) -> Value {
        let all = XorMap {
            cols: (0..8).map(|b| 1 << b).collect(),
            constant: 0,
        };
        p.thread_test(all, Predicate::Eq, 0)
    }

    fn regions(p: &Program) -> Vec<&Vec<Op>> {
        walk(&p.ops)
            .filter_map(|op| match op {
                Op::Predicated { ops, .. } => Some(ops),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_load_and_its_sum_go_in_and_the_result_is_the_same() {
        let mut p = program();
        let (v, one, sum) = (p.value(32), p.constant(32, 1), p.value(32));
        p.ops.push(Op::GlobalLoad {
            dst: vec![v],
            buffer: 0,
            offset: at(0, None),
            other: 0,
        });
        p.ops.push(Op::Arith {
            op: crate::lower::ir::ArithOp::Add,
            ty: "i32",
            dst: sum,
            src: vec![v, one],
        });
        let first = first_thread(&mut p);
        for element in 0..4 {
            p.ops.push(Op::GlobalStore {
                src: vec![sum],
                buffer: 0,
                offset: at(element, Some(first)),
            });
        }
        let mut before = vec![[7u8, 0, 0, 0].repeat(8)];
        run(&p, &mut before).unwrap();
        assert_eq!(form_predicated_regions(&mut p), 1);
        p.validate().unwrap();
        let inside = regions(&p);
        assert_eq!(inside.len(), 1);
        assert!(
            inside[0].iter().any(|op| matches!(op, Op::GlobalLoad { .. })),
            "the load goes in"
        );
        // The predicate's own test stays ahead of the region, which reads it.
        assert!(!inside[0].iter().any(|op| matches!(op, Op::Compare { .. })));
        let mut after = vec![[7u8, 0, 0, 0].repeat(8)];
        run(&p, &mut after).unwrap();
        assert_eq!(after, before);
        assert_eq!(&after[0][..16], &[8, 0, 0, 0].repeat(4)[..]);
    }

    #[test]
    fn stores_that_share_a_part_of_their_predicates_share_its_branch() {
        let mut p = program();
        let first = first_thread(&mut p);
        let lanes = XorMap {
            cols: (0..8).map(|b| 1 << b).collect(),
            constant: 0,
        };
        let one = p.constant(32, 1);
        let mut predicates = Vec::new();
        for element in 0..6 {
            // Each store's own bound, and the first thread.
            let below = p.thread_test(lanes.clone(), Predicate::Ult, 1 + element as u64);
            let both = p.value(1);
            p.ops.push(Op::Arith {
                op: crate::lower::ir::ArithOp::And,
                ty: "i1",
                dst: both,
                src: vec![below, first],
            });
            predicates.push(both);
            p.ops.push(Op::GlobalStore {
                src: vec![one],
                buffer: 0,
                offset: at(element, Some(both)),
            });
        }
        let mut before = vec![vec![0u8; 32]];
        run(&p, &mut before).unwrap();
        assert_eq!(form_predicated_regions(&mut p), 1);
        p.validate().unwrap();
        let Some(Op::Predicated { predicate, ops }) = p.ops.last() else {
            panic!("no region last")
        };
        assert_eq!(*predicate, first);
        let kept: Vec<_> = ops
            .iter()
            .filter_map(|op| match op {
                Op::GlobalStore { offset, .. } => offset.predicate,
                _ => None,
            })
            .collect();
        assert_eq!(kept, predicates, "each store keeps its own predicate");
        let mut after = vec![vec![0u8; 32]];
        run(&p, &mut after).unwrap();
        assert_eq!(after, before);
    }

    #[test]
    fn a_mask_every_wave_may_pass_forms_none() {
        let mut p = program();
        let lanes = XorMap {
            cols: (0..8).map(|b| 1 << b).collect(),
            constant: 0,
        };
        // Below 100: both waves have threads that pass.
        let below = p.thread_test(lanes, Predicate::Ult, 100);
        let one = p.constant(32, 1);
        for element in [0, 1] {
            p.ops.push(Op::GlobalStore {
                src: vec![one],
                buffer: 0,
                offset: at(element, Some(below)),
            });
        }
        assert_eq!(form_predicated_regions(&mut p), 0);
    }

    #[test]
    fn a_load_read_after_the_region_stays_ahead_of_it() {
        let mut p = program();
        let v = p.value(32);
        p.ops.push(Op::GlobalLoad {
            dst: vec![v],
            buffer: 0,
            offset: at(7, None),
            other: 0,
        });
        let first = first_thread(&mut p);
        for element in 0..6 {
            p.ops.push(Op::GlobalStore {
                src: vec![v],
                buffer: 0,
                offset: at(element, Some(first)),
            });
        }
        // Every thread stores it again: the load is needed outside the region.
        p.ops.push(Op::GlobalStore {
            src: vec![v],
            buffer: 0,
            offset: at(6, None),
        });
        assert_eq!(form_predicated_regions(&mut p), 1);
        p.validate().unwrap();
        assert!(
            matches!(p.ops[0], Op::GlobalLoad { .. }),
            "the load stays first, outside"
        );
        assert_eq!(regions(&p)[0].len(), 6);
    }

    #[test]
    fn an_atomic_whose_old_value_is_read_after_forms_none() {
        let mut p = program();
        let first = first_thread(&mut p);
        let (one, old) = (p.constant(32, 1), p.value(32));
        p.ops.push(Op::GlobalStore {
            src: vec![one],
            buffer: 0,
            offset: at(0, Some(first)),
        });
        p.ops.push(Op::GlobalAtomic {
            dst: Some(old),
            src: one,
            cmp: None,
            buffer: 0,
            offset: at(1, Some(first)),
            kind: crate::lower::ir::AtomicKind::Add,
            ty: "i32",
            ordering: crate::lower::ir::AtomicOrdering::Relaxed,
            scope: crate::lower::ir::AtomicScope::Gpu,
            path: crate::lower::ir::AtomicPath::Global,
            neighbour: None,
        });
        p.ops.push(Op::GlobalStore {
            src: vec![old],
            buffer: 0,
            offset: at(2, None),
        });
        assert_eq!(form_predicated_regions(&mut p), 0);
    }
}
