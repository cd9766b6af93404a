//! `tritongpu-coalesce`: the blocked layout Triton 3.6 gives each global memory access.
//!
//! For every load, store, atomic and async copy through a tensor of pointers, the pass picks
//! a `#ttg.blocked` layout so that each thread reads as many consecutive elements as the
//! pointer's AxisInfo allows (up to 128 bits), lanes continue along the same dimension, and
//! warps after them.
//!
//! # The rules
//!
//! 1. **Order**: dimensions sorted by decreasing pointer contiguity; ties keep ascending dim
//!    order (3.6.0 arg-sort: contiguity `[1, 1]` gives `[0, 1]`).
//! 2. **Width of one access** along `order[0]`:
//!    `min(divisibility / elemBytes, contiguity, shape, 128 / bits)`.
//! 3. **Sharing**: memory ops connected to this one through def-use chains (the "multi-root
//!    slice") with the same shape and the same order raise the width to their maximum — a
//!    strided load feeding a contiguous store gets the store's width.
//! 4. **Caps**: at most `numElements / (warps · lanes)` (at least 1); stores, atomics and
//!    copies never exceed their own width.
//! 5. **Blocked layout**: `sizePerThread = width` on `order[0]`, 1 elsewhere; lanes and warps
//!    fill `order[0]` first (see [`blocked_for`](crate::heuristics::coalesce::blocked_for)).
//!
//! # A worked example
//!
//! A 64×64 f16 tile, row-major, 16-byte aligned, 4 warps of 64 lanes: contiguity `[1, 64]`
//! gives order `[1, 0]`; divisibility 16 B is 8 × f16, so `sizePerThread = [1, 8]`; 8 lanes
//! cover a 64-element row, the other 8 lanes take 8 rows, and the 4 warps 32 rows: the
//! register → element map moves 8 consecutive elements, exactly the vector width.
//!
//! ```
//! use linear_layout::ttgir::axisinfo::AxisInfo;
//! use linear_layout::heuristics::coalesce::{coalesce, MemAccess};
//! let axis = AxisInfo { contiguity: vec![1, 64], divisibility: vec![16, 16], constancy: vec![1, 1], constant: None };
//! let load = MemAccess { op: "tt.load".into(), shape: vec![64, 64], elem_bits: 16, elem: "f16".into(), axis, cga_layout: vec![] };
//! let c = coalesce(&load, &[], 4, 64)?;
//! assert_eq!(c.encoding.to_string(),
//!     "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>");
//! assert_eq!((c.per_thread, c.width), (8, 8));
//! assert_eq!(c.layout.bases("register")?, vec![vec![0, 1], vec![0, 2], vec![0, 4], vec![32, 0]]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::encodings::{Blocked, CgaBases, Encoding};
use crate::linear::LinearLayout;

use super::error::{Decisions, HeuristicError, Undecided};
use crate::ttgir::Module;
use crate::ttgir::axisinfo::AxisInfo;

/// One memory access as the coalescing rules see it.
///
/// ```
/// use linear_layout::ttgir::axisinfo::AxisInfo;
/// use linear_layout::heuristics::coalesce::MemAccess;
/// let m = MemAccess { op: "tt.store".into(), shape: vec![1024], elem_bits: 32, elem: "f32".into(),
///                     axis: AxisInfo::range(0, 1024), cga_layout: vec![] };
/// assert!(!m.is_load());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemAccess {
    /// The op name (`tt.load`, `tt.store`, `tt.atomic_rmw`, `ttg.async_copy_global_to_local`).
    pub op: String,
    /// Shape of the pointer tensor (per CTA).
    pub shape: Vec<u64>,
    /// Bit width of the pointee.
    pub elem_bits: u32,
    /// The pointee type's name (`f16`), for reasons.
    pub elem: String,
    /// AxisInfo of the pointer.
    pub axis: AxisInfo,
    /// CTA tiling of the original encoding (kept as is).
    pub cga_layout: CgaBases,
}

impl MemAccess {
    /// Whether the op is a `tt.load` (only loads may exceed their own width).
    ///
    /// ```
    /// use linear_layout::ttgir::axisinfo::AxisInfo;
    /// use linear_layout::heuristics::coalesce::MemAccess;
    /// let m = MemAccess { op: "tt.load".into(), shape: vec![4], elem_bits: 8, elem: "i8".into(), axis: AxisInfo::range(0, 4), cga_layout: vec![] };
    /// assert!(m.is_load());
    /// ```
    pub fn is_load(&self) -> bool {
        self.op == "tt.load"
    }
}

/// Dimension order from contiguity: decreasing, ties in ascending dim order (Triton 3.6).
///
/// ```
/// use linear_layout::heuristics::coalesce::order_from_contiguity;
/// assert_eq!(order_from_contiguity(&[1, 64]), vec![1, 0]);
/// assert_eq!(order_from_contiguity(&[8, 8]), vec![0, 1]);
/// ```
pub fn order_from_contiguity(contiguity: &[u64]) -> Vec<u32> {
    let mut idx: Vec<u32> = (0..contiguity.len() as u32).collect();
    idx.sort_by_key(|&d| std::cmp::Reverse(contiguity[d as usize]));
    idx
}

/// Elements one thread may access at once along `order[0]`:
/// `min(max(div / elemBytes, 1), min(contig, shape), 128 / bits)`.
///
/// ```
/// use linear_layout::ttgir::axisinfo::AxisInfo;
/// use linear_layout::heuristics::coalesce::elements_per_thread;
/// let mut a = AxisInfo::range(0, 1024);
/// a.divisibility = vec![4];
/// assert_eq!(elements_per_thread(&a, &[0], 16, &[1024]), 2); // 4 B = 2 × f16
/// ```
pub fn elements_per_thread(axis: &AxisInfo, order: &[u32], elem_bits: u32, shape: &[u64]) -> u64 {
    let Some(&d0) = order.first() else { return 1 };
    let d0 = d0 as usize;
    let elem_bytes = u64::from((elem_bits / 8).max(1));
    let div = axis.divisibility.get(d0).copied().unwrap_or(1);
    let max_multiple = (div / elem_bytes).max(1);
    let contig = axis.contiguity.get(d0).copied().unwrap_or(1);
    let max_contig = contig.min(shape.get(d0).copied().unwrap_or(1));
    max_multiple
        .min(max_contig)
        .min(u64::from(128 / elem_bits.max(1)).max(1))
}

/// Triton's `BlockedEncodingAttr` builder: `sizePerThread` given, lanes and warps spread over
/// `order` (the slowest dim takes whatever is left).
///
/// ```
/// use linear_layout::heuristics::coalesce::blocked_for;
/// let b = blocked_for(&[16, 256], &[1, 8], &[1, 0], 8, 32, vec![]);
/// assert_eq!((b.threads_per_warp.clone(), b.warps_per_cta.clone()), (vec![1, 32], vec![8, 1]));
/// ```
pub fn blocked_for(
    shape: &[u64],
    spt: &[u32],
    order: &[u32],
    num_warps: u32,
    lanes: u32,
    cga: CgaBases,
) -> Blocked {
    let rank = shape.len();
    let mut tpw = vec![1u32; rank];
    let mut wpc = vec![1u32; rank];
    let (mut rem_lanes, mut rem_threads, mut rem_warps) = (
        u64::from(lanes),
        u64::from(lanes) * u64::from(num_warps),
        u64::from(num_warps),
    );
    let (mut prev_lanes, mut prev_warps) = (1u64, 1u64);
    for &o in order.iter().take(rank.saturating_sub(1)) {
        let i = o as usize;
        let per = u64::from(spt[i].max(1));
        let threads = rem_threads.max(1).min((shape[i] / per).max(1));
        let t = threads.max(1).min(rem_lanes.max(1));
        let w = (threads / t).max(1).min(rem_warps.max(1));
        tpw[i] = t as u32;
        wpc[i] = w as u32;
        rem_warps /= w;
        rem_lanes /= t;
        rem_threads /= threads;
        prev_lanes *= t;
        prev_warps *= w;
    }
    if let Some(&last) = order.get(rank.saturating_sub(1)) {
        tpw[last as usize] = (u64::from(lanes) / prev_lanes).max(1) as u32;
        wpc[last as usize] = (u64::from(num_warps) / prev_warps).max(1) as u32;
    }
    Blocked {
        size_per_thread: spt.to_vec(),
        threads_per_warp: tpw,
        warps_per_cta: wpc,
        order: order.to_vec(),
        cga_layout: cga,
    }
}

/// The coalescing decision for one access.
///
/// ```
/// use linear_layout::ttgir::axisinfo::AxisInfo;
/// use linear_layout::heuristics::coalesce::{coalesce, MemAccess};
/// let mut axis = AxisInfo::range(0, 1024);
/// axis.divisibility = vec![16];
/// let st = MemAccess { op: "tt.store".into(), shape: vec![1024], elem_bits: 16, elem: "f16".into(), axis, cga_layout: vec![] };
/// let c = coalesce(&st, &[], 4, 64)?;
/// assert_eq!(c.width, 4); // 1024 elements / 256 threads
/// assert!(c.reason.contains("1024 elements / 256 threads"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coalesced {
    /// The order chosen from contiguity.
    pub order: Vec<u32>,
    /// This op's own width ([`elements_per_thread`]).
    pub per_thread_op: u64,
    /// The widths of the same-order partners, in slice order: the first
    /// [`MAX_SAME_ORDER_LISTED`] of them (Triton's debug trace lists every one; a module's
    /// report stays linear in its size).
    pub per_thread_same_order: Vec<u64>,
    /// How many same-order partners there are (all of them, listed or not).
    pub same_order_count: usize,
    /// Triton's debug `perThread`: after the sharing rule and the thread cap, before the
    /// write cap.
    pub per_thread: u64,
    /// The final `sizePerThread[order[0]]` (the vector width of the access).
    pub width: u64,
    /// The blocked encoding.
    pub encoding: Encoding,
    /// Its linear layout at the access's shape.
    pub layout: LinearLayout,
    /// Why, in words.
    pub reason: String,
}

/// The most same-order partner widths one decision lists
/// ([`Coalesced::per_thread_same_order`]); every partner still counts for the width.
///
/// ```
/// use linear_layout::ttgir::axisinfo::AxisInfo;
/// use linear_layout::heuristics::coalesce::{coalesce, MemAccess, MAX_SAME_ORDER_LISTED};
/// let mut axis = AxisInfo::range(0, 1024);
/// axis.divisibility = vec![16];
/// let ld = MemAccess { op: "tt.load".into(), shape: vec![1024], elem_bits: 32, elem: "f32".into(), axis, cga_layout: vec![] };
/// let partners = vec![&ld; MAX_SAME_ORDER_LISTED + 1];
/// let c = coalesce(&ld, &partners, 1, 64)?;
/// assert_eq!((c.per_thread_same_order.len(), c.same_order_count), (MAX_SAME_ORDER_LISTED, MAX_SAME_ORDER_LISTED + 1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const MAX_SAME_ORDER_LISTED: usize = 64;

/// What the same-order partners of an access contribute: the widest of them and the widths
/// listed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct SameOrder {
    /// The widest partner (0 without one).
    widest: u64,
    /// The first [`MAX_SAME_ORDER_LISTED`] widths.
    listed: Vec<u64>,
    /// How many partners there are.
    count: usize,
}

impl SameOrder {
    fn add(&mut self, width: u64) {
        self.widest = self.widest.max(width);
        if self.listed.len() < MAX_SAME_ORDER_LISTED {
            self.listed.push(width);
        }
        self.count += 1;
    }
}

/// Decides the layout of `access`, given the memory ops of its slice with the same shape
/// (`partners`, the access itself excluded; those with another order are ignored).
///
/// ```
/// use linear_layout::ttgir::axisinfo::AxisInfo;
/// use linear_layout::heuristics::coalesce::{coalesce, MemAccess};
/// // A stride-2 load (width 1) whose data goes to a contiguous store (width 4): the load
/// // shares the store's width.
/// let mut strided = AxisInfo::range(0, 1024);
/// strided.contiguity = vec![1];
/// strided.divisibility = vec![8];
/// let mut contiguous = AxisInfo::range(0, 1024);
/// contiguous.divisibility = vec![16];
/// let ld = MemAccess { op: "tt.load".into(), shape: vec![1024], elem_bits: 32, elem: "f32".into(), axis: strided, cga_layout: vec![] };
/// let st = MemAccess { op: "tt.store".into(), shape: vec![1024], elem_bits: 32, elem: "f32".into(), axis: contiguous, cga_layout: vec![] };
/// let c = coalesce(&ld, &[&st], 1, 64)?;
/// assert_eq!((c.per_thread_op, c.width), (1, 4));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn coalesce(
    access: &MemAccess,
    partners: &[&MemAccess],
    num_warps: u32,
    lanes: u32,
) -> Result<Coalesced, HeuristicError> {
    let order = order_from_contiguity(&access.axis.contiguity);
    let mut same = SameOrder::default();
    for p in partners {
        if p.shape == access.shape && order_from_contiguity(&p.axis.contiguity) == order {
            same.add(elements_per_thread(&p.axis, &order, p.elem_bits, &p.shape));
        }
    }
    decide(access, order, same, num_warps, lanes)
}

/// [`coalesce`] with the partners summed up.
fn decide(
    access: &MemAccess,
    order: Vec<u32>,
    same: SameOrder,
    num_warps: u32,
    lanes: u32,
) -> Result<Coalesced, HeuristicError> {
    let rank = access.shape.len();
    if rank == 0 || access.axis.rank() != rank {
        return Err(HeuristicError::new(format!(
            "{}: AxisInfo rank {} does not match shape {:?}",
            access.op,
            access.axis.rank(),
            access.shape
        )));
    }
    if num_warps == 0 || lanes == 0 || !num_warps.is_power_of_two() || !lanes.is_power_of_two() {
        return Err(HeuristicError::new("warps and lanes must be powers of two"));
    }
    let d0 = order[0] as usize;
    let own = elements_per_thread(&access.axis, &order, access.elem_bits, &access.shape);
    let mut per = own.max(same.widest);
    let mut reason = format!(
        "order {:?} from contiguity {:?}; dim {d0}: contiguity {}, divisibility {} B → {own} × {} per thread",
        order, access.axis.contiguity, access.axis.contiguity[d0], access.axis.divisibility[d0], access.elem
    );
    if own == 128 / u64::from(access.elem_bits.max(1)) && own > 1 {
        reason.push_str(" (the 128-bit cap)");
    }
    if per > own {
        reason.push_str(&format!("; raised to {per} by a same-order access in its slice"));
    }
    let num_elems: u64 = access.shape.iter().product();
    let threads = u64::from(num_warps) * u64::from(lanes);
    let cap = (num_elems / threads).max(1);
    if per > cap {
        per = cap;
        reason.push_str(&format!(
            "; capped at {cap} ({num_elems} elements / {threads} threads)"
        ));
    }
    let debug_per = per;
    if !access.is_load() && per > own {
        per = own;
        reason.push_str(&format!("; a write never exceeds its own width {own}"));
    }
    let mut spt = vec![1u32; rank];
    spt[d0] = per as u32;
    let b = blocked_for(
        &access.shape,
        &spt,
        &order,
        num_warps,
        lanes,
        access.cga_layout.clone(),
    );
    let encoding = Encoding::Blocked(b);
    let layout = encoding
        .to_linear_layout(&access.shape)
        .map_err(|e| HeuristicError::new(format!("{}: {e}", access.op)))?;
    // Cross-check with the algebra: the register → element map along order[0] moves
    // `per` consecutive elements.
    let names: Vec<String> = order.iter().map(|d| format!("dim{d}")).collect();
    let run = layout
        .transpose_outs(&names)
        .map_err(|e| HeuristicError::new(e.to_string()))?
        .num_consecutive_in_out();
    if run != per {
        return Err(HeuristicError::new(format!(
            "{}: algebra cross-check failed: register run {run} ≠ vector width {per}",
            access.op
        )));
    }
    Ok(Coalesced {
        order,
        per_thread_op: own,
        per_thread_same_order: same.listed,
        same_order_count: same.count,
        per_thread: debug_per,
        width: per,
        encoding,
        layout,
        reason,
    })
}

/// One memory op of a module with its decision.
///
/// ```
/// use linear_layout::heuristics::{coalesce::coalesce_module, ttgir::Module};
/// let m = Module::parse(r#"
/// #bl = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
/// module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 64 : i32} {
///   tt.func @k(%src: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {
///     %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #bl>
///     %s = tt.splat %src : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #bl>
///     %p = tt.addptr %s, %r : tensor<1024x!tt.ptr<f32>, #bl>, tensor<1024xi32, #bl>
///     %l = tt.load %p : tensor<1024x!tt.ptr<f32>, #bl>
///     tt.return
///   }
/// }"#)?;
/// let d = coalesce_module(&m, false)?;
/// assert_eq!(d[0].choice.width, 4);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemDecision {
    /// Index of the op in [`Module::ops`].
    pub op: usize,
    /// The op name.
    pub name: String,
    /// Position among the ops of the same name (walk order).
    pub index: usize,
    /// 1-based source line.
    pub line: usize,
    /// The pointer's element type as written (`!tt.ptr<f16>`).
    pub elem: String,
    /// The access.
    pub access: MemAccess,
    /// The decision.
    pub choice: Coalesced,
}

/// The access of memory op `oi` through its pointer operand `pi`, or why it has none.
fn access_of(m: &Module, axis: &[Option<AxisInfo>], oi: usize, pi: usize) -> Result<MemAccess, &'static str> {
    let op = &m.ops[oi];
    let &pv = op.operands.get(pi).ok_or("the op has no pointer operand")?;
    let ty = &m.values[pv].ty;
    if !ty.is_tensor_of_ptr() {
        return Err("the pointer is not a tensor of pointers (Triton's coalesce skips it)");
    }
    let bits = ty.pointee_bits().ok_or("the pointee type has no known width")?;
    let ai = axis
        .get(pv)
        .cloned()
        .flatten()
        .ok_or("no AxisInfo for the pointer")?;
    let cga = match ty.encoding.as_deref() {
        Some(Encoding::Blocked(b)) => b.cga_layout.clone(),
        _ => Vec::new(),
    };
    Ok(MemAccess {
        op: op.name.clone(),
        shape: ty.shape.clone(),
        elem_bits: bits,
        elem: ty.pointee().unwrap_or("?").to_string(),
        axis: ai,
        cga_layout: cga,
    })
}

/// Memory ops the pass handles; returns the operand position of the pointer.
pub(crate) fn mem_ptr_operand(name: &str) -> Option<usize> {
    match name {
        "tt.load" | "tt.store" | "tt.atomic_rmw" | "tt.atomic_cas" | "ttg.async_copy_global_to_local" => {
            Some(0)
        }
        _ => None,
    }
}

/// Ops in walk (post-)order: region bodies before their op.
pub(crate) fn walk_order(m: &Module) -> Vec<usize> {
    fn visit(m: &Module, op: usize, out: &mut Vec<usize>, depth: usize) {
        if depth < 256 {
            for &b in &m.ops[op].body {
                visit(m, b, out, depth + 1);
            }
        }
        out.push(op);
    }
    let mut out = Vec::new();
    for f in &m.funcs {
        for &op in &f.body {
            visit(m, op, &mut out, 0);
        }
    }
    out
}

/// Connected components of ops under def-use edges (the multi-root slice).
pub(crate) fn slice_components(m: &Module) -> Vec<usize> {
    let n = m.ops.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    let union = |p: &mut Vec<usize>, a: usize, b: usize| {
        let (ra, rb) = (find(p, a), find(p, b));
        if ra != rb {
            p[ra] = rb;
        }
    };
    for (i, op) in m.ops.iter().enumerate() {
        for &v in &op.operands {
            match m.values.get(v).map(|x| x.def) {
                Some(crate::ttgir::ValueDef::Op { op: d, .. }) if d < n => union(&mut parent, i, d),
                Some(crate::ttgir::ValueDef::BlockArg { op: d, .. }) if d < n => union(&mut parent, i, d),
                _ => {}
            }
        }
        if let Some(p) = op.parent
            && p < n
        {
            union(&mut parent, i, p);
        }
    }
    (0..n).map(|i| find(&mut parent, i)).collect()
}

/// Ops that canonicalisation deletes: loads (and pure ops) whose results are never used, and
/// then the pure ops whose results only those used, and so on. A worklist: each op is looked
/// at once and once more for each operand use that goes away.
pub(crate) fn dead_ops(m: &Module) -> Vec<bool> {
    let pure = |name: &str| {
        name == "tt.load"
            || name.starts_with("arith.")
            || matches!(
                name,
                "tt.splat"
                    | "tt.addptr"
                    | "tt.make_range"
                    | "tt.expand_dims"
                    | "tt.broadcast"
                    | "ttg.convert_layout"
            )
    };
    let mut uses = vec![0usize; m.values.len()];
    for op in &m.ops {
        for &v in &op.operands {
            if let Some(u) = uses.get_mut(v) {
                *u += 1;
            }
        }
    }
    let mut dead = vec![false; m.ops.len()];
    let unused = |i: usize, uses: &[usize], dead: &[bool]| {
        let op = &m.ops[i];
        !dead[i]
            && pure(&op.name)
            && !op.results.is_empty()
            && op.results.iter().all(|&r| uses.get(r) == Some(&0))
    };
    let mut work: Vec<usize> = (0..m.ops.len()).filter(|&i| unused(i, &uses, &dead)).collect();
    while let Some(i) = work.pop() {
        if dead[i] {
            continue;
        }
        dead[i] = true;
        for &v in &m.ops[i].operands {
            let Some(u) = uses.get_mut(v) else { continue };
            *u -= 1;
            if *u == 0
                && let Some(d) = m.def_op(v)
                && unused(d, &uses, &dead)
            {
                work.push(d);
            }
        }
    }
    dead
}

/// The accesses that share their widths: one slice (its component), one shape, one order.
type SliceGroup<'a> = (usize, &'a [u64], &'a [u32]);

/// Runs the coalescing rules over every memory op of a parsed module, in walk order. With
/// `cleanup`, ops that the following `remove-layout-conversions` canonicalisation deletes
/// (unused loads) are left out, as in the oracle's `coalesce,remove_layout_conversions` runs.
///
/// ```
/// use linear_layout::heuristics::{coalesce::coalesce_module, ttgir::Module};
/// let m = Module::parse("module {\n tt.func @f() {\n tt.return\n }\n}")?;
/// assert!(coalesce_module(&m, true)?.is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn coalesce_module(m: &Module, cleanup: bool) -> Result<Decisions<MemDecision>, HeuristicError> {
    let axis = crate::ttgir::axisinfo::analyze(m)?;
    let comps = slice_components(m);
    let dead = if cleanup {
        dead_ops(m)
    } else {
        vec![false; m.ops.len()]
    };
    let order = walk_order(m);
    // Collect accesses; a memory op with none is reported with the reason.
    let mut accesses: Vec<(usize, MemAccess)> = Vec::new();
    let mut undecided = Vec::new();
    for &oi in &order {
        let op = &m.ops[oi];
        let Some(pi) = mem_ptr_operand(&op.name) else {
            continue;
        };
        match access_of(m, &axis, oi, pi) {
            Ok(acc) => accesses.push((oi, acc)),
            Err(reason) => undecided.push(Undecided {
                op: oi,
                name: op.name.clone(),
                line: op.line,
                reason: reason.into(),
            }),
        }
    }
    // The accesses of one slice with one shape and one order share their widths: grouped once,
    // so a slice of many accesses costs no more than its size (a decision lists at most
    // MAX_SAME_ORDER_LISTED partners).
    let orders: Vec<Vec<u32>> = accesses
        .iter()
        .map(|(_, a)| order_from_contiguity(&a.axis.contiguity))
        .collect();
    let mut groups: std::collections::HashMap<SliceGroup, Vec<usize>> = Default::default();
    for (k, (oi, a)) in accesses.iter().enumerate() {
        groups
            .entry((comps[*oi], a.shape.as_slice(), orders[k].as_slice()))
            .or_default()
            .push(k);
    }
    let widths: Vec<u64> = accesses
        .iter()
        .zip(&orders)
        .map(|((_, a), order)| elements_per_thread(&a.axis, order, a.elem_bits, &a.shape))
        .collect();
    // Per group: its widest member and the widest of the others.
    let widest = |group: &[usize]| {
        let mut best: Option<usize> = None;
        let mut second = 0u64;
        for &j in group {
            match best {
                Some(b) if widths[j] <= widths[b] => second = second.max(widths[j]),
                Some(b) => {
                    second = second.max(widths[b]);
                    best = Some(j);
                }
                None => best = Some(j),
            }
        }
        (best, second)
    };
    let group_widest: std::collections::HashMap<_, (Option<usize>, u64)> =
        groups.iter().map(|(key, group)| (*key, widest(group))).collect();
    let mut counters: std::collections::HashMap<String, usize> = Default::default();
    let mut out = Vec::new();
    for (k, (oi, acc)) in accesses.iter().enumerate() {
        let op = &m.ops[*oi];
        let mut same = SameOrder::default();
        if m.def_op(op.operands[0]).is_some() {
            let key = (comps[*oi], acc.shape.as_slice(), orders[k].as_slice());
            let group = &groups[&key];
            for &j in group.iter().filter(|&&j| j != k).take(MAX_SAME_ORDER_LISTED) {
                same.add(widths[j]);
            }
            same.count = group.len() - 1;
            // The widest partner: the widest of the group, or the second widest when that is
            // this access itself.
            same.widest = match group_widest[&key] {
                (Some(b), second) if b == k => second,
                (Some(b), _) => widths[b],
                (None, _) => 0,
            };
        }
        let choice = decide(acc, orders[k].clone(), same, m.num_warps, m.threads_per_warp)
            .map_err(|e| HeuristicError::new(format!("line {}: {}", op.line, e.message)))?;
        if dead[*oi] {
            undecided.push(Undecided {
                op: *oi,
                name: op.name.clone(),
                line: op.line,
                reason: "its result is unused: remove-layout-conversions deletes the op".into(),
            });
            continue;
        }
        let c = counters.entry(op.name.clone()).or_default();
        let index = *c;
        *c += 1;
        out.push(MemDecision {
            op: *oi,
            name: op.name.clone(),
            index,
            line: op.line,
            elem: m.values[op.operands[0]].ty.element.clone(),
            access: acc.clone(),
            choice,
        });
    }
    let mut position = vec![None; m.ops.len()];
    for (i, &o) in order.iter().enumerate() {
        position[o] = Some(i);
    }
    undecided.sort_by_key(|u| position.get(u.op).copied().flatten());
    Ok(Decisions {
        decided: out,
        undecided,
    })
}
