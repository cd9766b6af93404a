//! A distributed layout as the lowering sees it, and global memory through it.
//!
//! The layout's out-dims `dim0, dim1, …` are the tensor's dimensions (row-major, the last one
//! fastest in memory); its in-dims register, lane and warp give, per bit, a *column*: the
//! tensor position (flattened, `dim0` in the low bits) that bit moves to. A thread's element of
//! register `r` is at `reg(r) ⊕ thread(tid)`, and per dimension its coordinate is an
//! [`XorMap`] of the thread id whose constant is the register's part — what
//! [`GlobalOffset`] holds.
//!
//! A vector access covers the registers of the layout's leading register bits that step
//! along the last dimension one element at a time (`num_consecutive_in_out` of the layout with
//! the last dimension first), at most 128 bits, and no more than keeps every vector inside one
//! row (the vector length divides the row length, so a row's start is aligned too).
//! Zero (broadcast) register bases hold copies: each distinct element is loaded once.

use crate::linear::LinearLayout;
use crate::lower::error::LowerError;
use crate::lower::ir::{Condition, Extent, GlobalOffset, HeldRow, Op, Program, Uniform, Value, XorMap};

/// Largest tensor (elements) the lowering accepts: byte offsets stay far below 2^31.
pub(crate) const MAX_ELEMENTS: u64 = 1 << 24;
/// Largest register count per thread (registers are unrolled).
pub(crate) const MAX_REGISTERS: u64 = 1 << 12;

/// `2^bits` in decimal, or as `2^bits` past what a `u64` holds (a layout has up to 64 bits of
/// one in-dim).
fn power_of_two(bits: usize) -> String {
    match 1u64.checked_shl(bits as u32) {
        Some(n) if bits < 64 => n.to_string(),
        _ => format!("2^{bits}"),
    }
}

/// A distributed layout, flattened.
#[derive(Clone, Debug)]
pub(crate) struct Dist {
    /// log2 of each dimension's (power-of-two) size, dim0 first.
    pub dim_bits: Vec<u32>,
    /// Register columns (flat positions), zeros included.
    pub reg: Vec<u64>,
    /// Thread-id columns: `lane_bits` lane columns (zero where the layout has fewer lanes),
    /// then the warp columns.
    pub thread: Vec<u64>,
    /// log2 of the wave size.
    pub lane_bits: usize,
}

impl Dist {
    /// Analyses `layout` for a wave of `wave_size` lanes.
    pub(crate) fn of(layout: &LinearLayout, wave_size: u32) -> Result<Dist, LowerError> {
        for (k, (name, _)) in layout.out_dims().enumerate() {
            if name.as_str() != format!("dim{k}") {
                return Err(LowerError::new(format!(
                    "the layout's out-dims must be dim0, dim1, … in order; out-dim {k} is '{name}'"
                )));
            }
        }
        for name in layout.in_dim_names() {
            if !["register", "lane", "warp", "block"].contains(&name.as_str()) {
                return Err(LowerError::new(format!(
                    "a distributed layout has in-dims register/lane/warp/block, not '{name}'"
                )));
            }
        }
        if layout.total_out_size() > MAX_ELEMENTS {
            return Err(LowerError::new(format!(
                "a tensor of {} elements is larger than the {MAX_ELEMENTS} the lowering handles",
                layout.total_out_size()
            )));
        }
        if !layout.is_surjective() {
            return Err(LowerError::new(format!(
                "the layout reaches {} of its tensor's {} elements; a distributed layout holds every element",
                1u64 << layout.rank().min(63),
                layout.total_out_size()
            )));
        }
        let flat = layout.flatten_outs()?;
        let cols = |d: &str| -> Result<Vec<u64>, LowerError> {
            Ok(if flat.has_in_dim(d) {
                flat.flat_bases(d)?.to_vec()
            } else {
                Vec::new()
            })
        };
        let (reg, lane, warp, block) = (cols("register")?, cols("lane")?, cols("warp")?, cols("block")?);
        if block.iter().any(|&b| b != 0) {
            return Err(LowerError::new(
                "the layout spreads the tensor over several blocks (CTAs); the kernels run one workgroup",
            ));
        }
        let lane_bits = wave_size.trailing_zeros() as usize;
        if lane.len() > lane_bits {
            return Err(LowerError::new(format!(
                "the layout has {} lanes per warp; the target's waves have {wave_size}",
                power_of_two(lane.len())
            )));
        }
        if reg.len() > MAX_REGISTERS.trailing_zeros() as usize {
            return Err(LowerError::new(format!(
                "{} registers per thread is more than the {MAX_REGISTERS} the lowering unrolls",
                power_of_two(reg.len())
            )));
        }
        let mut thread = lane;
        thread.resize(lane_bits, 0);
        thread.extend(warp);
        if thread.len() > 10 {
            return Err(LowerError::new(format!(
                "{} threads per workgroup is more than 1024",
                power_of_two(thread.len())
            )));
        }
        Ok(Dist {
            dim_bits: layout.out_dims().map(|(_, s)| s.trailing_zeros()).collect(),
            reg,
            thread,
            lane_bits,
        })
    }

    /// The layout these columns describe: in-dims register, lane (the first `lane_bits` thread
    /// columns) and warp, out-dims `dim0, dim1, …`. The inverse of [`Dist::of`] where the
    /// columns reach every element.
    pub(crate) fn layout(&self) -> Result<LinearLayout, LowerError> {
        let n = self.dim_bits.len();
        let per_dim = |c: &u64| -> Vec<i64> { (0..n).map(|d| self.coord(*c, d) as i64).collect() };
        let (lane, warp) = self.thread.split_at(self.lane_bits.min(self.thread.len()));
        let outs: Vec<(String, i64)> = (0..n)
            .map(|d| (format!("dim{d}"), 1i64 << self.dim_bits[d]))
            .collect();
        Ok(LinearLayout::from_bases(
            [
                ("register", self.reg.iter().map(per_dim).collect::<Vec<_>>()),
                ("lane", lane.iter().map(per_dim).collect()),
                ("warp", warp.iter().map(per_dim).collect()),
            ],
            outs,
            true,
        )?)
    }

    /// Registers per thread.
    pub(crate) fn registers(&self) -> usize {
        1 << self.reg.len()
    }

    /// Threads of the workgroup.
    pub(crate) fn threads(&self) -> u32 {
        1 << self.thread.len()
    }

    /// Mask of the register bits with non-zero columns.
    pub(crate) fn distinct_mask(&self) -> usize {
        self.reg
            .iter()
            .enumerate()
            .filter(|&(_, &c)| c != 0)
            .fold(0, |m, (i, _)| m | 1 << i)
    }

    /// The flat position of register `r`'s element in thread 0.
    pub(crate) fn reg_position(&self, r: usize) -> u64 {
        self.reg
            .iter()
            .enumerate()
            .filter(|&(i, _)| r >> i & 1 == 1)
            .fold(0, |a, (_, &c)| a ^ c)
    }

    /// Coordinate `d` of a flat position.
    pub(crate) fn coord(&self, flat: u64, d: usize) -> u64 {
        let shift: u32 = self.dim_bits[..d].iter().sum();
        (flat >> shift) & ((1u64 << self.dim_bits[d]) - 1)
    }

    /// The global offset of register `r`'s element in a dense row-major tensor of `shape`.
    pub(crate) fn offset(&self, r: usize, shape: &[u64]) -> GlobalOffset {
        let n = shape.len();
        let mut strides = vec![1u64; n];
        for d in (0..n.saturating_sub(1)).rev() {
            strides[d] = strides[d + 1] * shape[d + 1];
        }
        let bounds: Vec<Option<Extent>> = (0..n)
            .map(|d| (shape[d] < 1u64 << self.dim_bits[d]).then_some(Extent::Elements(shape[d])))
            .collect();
        let strides: Vec<Extent> = strides.into_iter().map(Extent::Elements).collect();
        self.strided_offset(
            r,
            &Addressing {
                strides,
                bounds,
                base: Uniform::default(),
                when: Vec::new(),
                index: None,
                predicate: None,
                held: None,
                held_row: None,
            },
        )
    }

    /// The global offset of register `r`'s element, `base + Σ coordinate·stride` over the
    /// dimensions, masked where a coordinate reaches its bound.
    pub(crate) fn strided_offset(&self, r: usize, a: &Addressing) -> GlobalOffset {
        let n = self.dim_bits.len();
        let base = self.reg_position(r);
        GlobalOffset {
            coords: (0..n)
                .map(|d| XorMap {
                    cols: self.thread.iter().map(|&c| self.coord(c, d)).collect(),
                    constant: self.coord(base, d),
                })
                .collect(),
            strides: a.strides.clone(),
            bounds: a.bounds.clone(),
            base: a.base.clone(),
            when: a.when.clone(),
            index: a.index.as_ref().and_then(|v| v.get(r).copied()),
            predicate: a.predicate.as_ref().and_then(|v| v.get(r).copied()),
            held: a.held.as_ref().and_then(|v| v.get(r).copied()),
            held_row: a.held_row.as_ref().and_then(|(dim, start, values)| {
                Some(HeldRow {
                    dim: *dim,
                    start: start.clone(),
                    value: *values.get(r)?,
                })
            }),
        }
    }

    /// Elements per global vector access (see the module docs).
    pub(crate) fn global_vector(&self, shape: &[u64], element_bits: u32) -> Result<usize, LowerError> {
        let n = self.dim_bits.len();
        if n == 0 {
            return Ok(1);
        }
        // The layout over the distinct registers with the last dimension first.
        let distinct: Vec<u64> = self.reg.iter().copied().filter(|&c| c != 0).collect();
        let per_dim = |c: u64| -> Vec<i64> { (0..n).rev().map(|d| self.coord(c, d) as i64).collect() };
        let bases = [
            (
                "register",
                distinct.iter().map(|&c| per_dim(c)).collect::<Vec<_>>(),
            ),
            ("thread", self.thread.iter().map(|&c| per_dim(c)).collect()),
        ];
        let outs: Vec<(String, i64)> = (0..n)
            .rev()
            .map(|d| (format!("dim{d}"), 1i64 << self.dim_bits[d]))
            .collect();
        let reordered = LinearLayout::from_bases(bases, outs, false)?;
        let consecutive = reordered.num_consecutive_in_out() as usize;
        let row = shape[n - 1];
        let row_align = 1usize << row.trailing_zeros().min(12);
        let cap = (128 / element_bits.max(1)).max(1) as usize;
        Ok(consecutive.min(cap).min(row_align).max(1))
    }
}

/// Global accesses through a layout: the register groups of each vector.
pub(crate) struct Access {
    /// Registers of each access, element order.
    pub groups: Vec<Vec<usize>>,
}

impl Access {
    /// One access per vector of distinct registers.
    pub(crate) fn plan(dist: &Dist, vector: usize) -> Access {
        let distinct: Vec<usize> = (0..dist.reg.len()).filter(|&i| dist.reg[i] != 0).collect();
        let vbits = vector.trailing_zeros() as usize;
        let (inner, outer) = distinct.split_at(vbits.min(distinct.len()));
        let groups = (0..1usize << outer.len())
            .map(|o| {
                let base = outer
                    .iter()
                    .enumerate()
                    .filter(|&(k, _)| o >> k & 1 == 1)
                    .fold(0, |a, (_, &b)| a | 1 << b);
                (0..1usize << inner.len())
                    .map(|j| {
                        inner
                            .iter()
                            .enumerate()
                            .filter(|&(k, _)| j >> k & 1 == 1)
                            .fold(base, |a, (_, &b)| a | 1 << b)
                    })
                    .collect()
            })
            .collect();
        Access { groups }
    }
}

/// Loads a layout's registers on first use: each vector access is issued right before the
/// first operation that needs one of its registers, so a register is live only from then on (a
/// round trip through LDS then holds one tile's worth, not the whole tensor).
pub(crate) struct Loader<'a> {
    dist: &'a Dist,
    buffer: usize,
    element_bits: u32,
    groups: Vec<Vec<usize>>,
    /// Per access, the offset of its first element.
    offsets: Vec<GlobalOffset>,
    /// Per distinct register, its access.
    group_of: Vec<usize>,
    /// Per register, its value once loaded.
    loaded: Vec<Option<Value>>,
    /// The bits a masked element reads.
    other: u64,
}

/// Where a tensor lives in a global buffer: element `c` is at `base + Σ c_d·strides[d]`, and
/// exists only where every bounded coordinate is below its bound.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Addressing {
    pub(crate) strides: Vec<Extent>,
    pub(crate) bounds: Vec<Option<Extent>>,
    pub(crate) base: Uniform,
    /// Conditions the whole workgroup agrees on, without which nothing is accessed.
    pub(crate) when: Vec<Condition>,
    /// Per register, an element offset that is data (32 bits), added to the rest.
    pub(crate) index: Option<Vec<Value>>,
    /// Per register, a predicate (1 bit) without which the element is not accessed.
    pub(crate) predicate: Option<Vec<Value>>,
    /// Per register, `base + Σ c_d·strides[d]` as a 32-bit value the program already holds.
    pub(crate) held: Option<Vec<Value>>,
    /// A dimension, its coordinate's uniform start and per register the 32-bit value holding
    /// `start + c_dim` (a [`HeldRow`] per access).
    pub(crate) held_row: Option<(usize, Uniform, Vec<Value>)>,
}

/// The accesses of a layout's distinct registers in vectors of `vector` elements, each with
/// its offset; and per register, its access.
fn accesses(
    dist: &Dist,
    vector: usize,
    offset: impl Fn(usize) -> GlobalOffset,
) -> (Vec<Vec<usize>>, Vec<GlobalOffset>, Vec<usize>) {
    let groups = Access::plan(dist, vector).groups;
    let offsets = groups.iter().map(|g| offset(g[0])).collect();
    let mut group_of = vec![usize::MAX; dist.registers()];
    for (g, group) in groups.iter().enumerate() {
        for &r in group {
            group_of[r] = g;
        }
    }
    (groups, offsets, group_of)
}

impl<'a> Loader<'a> {
    /// A loader of `buffer` (a dense row-major tensor of `shape`) into `dist`'s registers.
    pub(crate) fn new(
        dist: &'a Dist,
        shape: &[u64],
        buffer: usize,
        element_bits: u32,
    ) -> Result<Loader<'a>, LowerError> {
        let vector = dist.global_vector(shape, element_bits)?;
        Ok(Self::with(
            dist,
            accesses(dist, vector, |r| dist.offset(r, shape)),
            buffer,
            element_bits,
        ))
    }

    /// A loader of `buffer` at `base + Σ coordinate·stride`, masked by the bounds (a masked
    /// element reads the bits `other`), in vectors of `vector` elements.
    pub(crate) fn strided(
        dist: &'a Dist,
        (addressing, other): (&Addressing, u64),
        vector: usize,
        buffer: usize,
        element_bits: u32,
    ) -> Loader<'a> {
        let mut loader = Self::with(
            dist,
            accesses(dist, vector, |r| dist.strided_offset(r, addressing)),
            buffer,
            element_bits,
        );
        loader.other = other;
        loader
    }

    fn with(
        dist: &'a Dist,
        (groups, offsets, group_of): (Vec<Vec<usize>>, Vec<GlobalOffset>, Vec<usize>),
        buffer: usize,
        element_bits: u32,
    ) -> Loader<'a> {
        Loader {
            dist,
            buffer,
            element_bits,
            groups,
            offsets,
            group_of,
            loaded: vec![None; dist.registers()],
            other: 0,
        }
    }

    /// A loader whose registers already hold `values` (register order): it never loads.
    pub(crate) fn loaded(dist: &'a Dist, values: &[Value], element_bits: u32) -> Loader<'a> {
        Loader {
            dist,
            buffer: 0,
            element_bits,
            groups: Vec::new(),
            offsets: Vec::new(),
            group_of: Vec::new(),
            loaded: values.iter().copied().map(Some).collect(),
            other: 0,
        }
    }

    /// Register `r`'s value, loading its access first if no earlier operation needed it.
    pub(crate) fn value(&mut self, p: &mut Program, r: usize) -> Value {
        let r = r & self.dist.distinct_mask();
        if let Some(v) = self.loaded[r] {
            return v;
        }
        let g = self.group_of[r];
        let group = &self.groups[g];
        let dst = p.values_of(group.len(), self.element_bits);
        p.ops.push(Op::GlobalLoad {
            dst: dst.clone(),
            buffer: self.buffer,
            offset: self.offsets[g].clone(),
            other: self.other,
        });
        for (&g, &v) in group.iter().zip(&dst) {
            self.loaded[g] = Some(v);
        }
        dst[group.iter().position(|&g| g == r).unwrap_or(0)]
    }

    /// Every register's value (loading what is not loaded yet), register order.
    pub(crate) fn all(&mut self, p: &mut Program) -> Vec<Value> {
        (0..self.dist.registers()).map(|r| self.value(p, r)).collect()
    }
}

/// Loads `buffer` (a dense row-major tensor of `shape`) into the registers of `dist`; returns
/// one value per register (broadcast registers share their value).
pub(crate) fn load_through(
    p: &mut Program,
    dist: &Dist,
    shape: &[u64],
    buffer: usize,
    element_bits: u32,
) -> Result<Vec<Value>, LowerError> {
    Ok(Loader::new(dist, shape, buffer, element_bits)?.all(p))
}

/// Stores a layout's registers as they become available: a vector access is issued as soon as
/// all its registers have been offered, so a register need not stay live until the end.
pub(crate) struct Storer {
    buffer: usize,
    groups: Vec<Vec<usize>>,
    /// Per access, the offset of its first element.
    offsets: Vec<GlobalOffset>,
    /// Per distinct register, its access.
    group_of: Vec<usize>,
    values: Vec<Option<Value>>,
    stored: Vec<bool>,
}

impl Storer {
    /// A storer of `dist`'s registers into `buffer` (a dense row-major tensor of `shape`).
    pub(crate) fn new(
        dist: &Dist,
        shape: &[u64],
        buffer: usize,
        element_bits: u32,
    ) -> Result<Storer, LowerError> {
        let vector = dist.global_vector(shape, element_bits)?;
        Ok(Self::with(
            dist,
            accesses(dist, vector, |r| dist.offset(r, shape)),
            buffer,
        ))
    }

    /// A storer into `buffer` at `base + Σ coordinate·stride`, masked by the bounds, in
    /// vectors of `vector` elements.
    pub(crate) fn strided(dist: &Dist, addressing: &Addressing, vector: usize, buffer: usize) -> Storer {
        Self::with(
            dist,
            accesses(dist, vector, |r| dist.strided_offset(r, addressing)),
            buffer,
        )
    }

    fn with(
        dist: &Dist,
        (groups, offsets, group_of): (Vec<Vec<usize>>, Vec<GlobalOffset>, Vec<usize>),
        buffer: usize,
    ) -> Storer {
        Storer {
            buffer,
            stored: vec![false; groups.len()],
            groups,
            offsets,
            group_of,
            values: vec![None; dist.registers()],
        }
    }

    /// Register `r` holds `v`; stores its access once every register of it is known. A
    /// broadcast copy (`r` with zero-column bits) is ignored: its element is stored once.
    pub(crate) fn offer(&mut self, p: &mut Program, r: usize, v: Value) {
        let Some(&g) = self.group_of.get(r).filter(|&&g| g != usize::MAX) else {
            return;
        };
        self.values[r] = Some(v);
        if self.stored[g] {
            return;
        }
        let src: Option<Vec<Value>> = self.groups[g].iter().map(|&m| self.values[m]).collect();
        if let Some(src) = src {
            self.stored[g] = true;
            p.ops.push(Op::GlobalStore {
                src,
                buffer: self.buffer,
                offset: self.offsets[g].clone(),
            });
        }
    }

    /// Offers every register of `values` (register order) and checks that all were stored.
    pub(crate) fn finish(mut self, p: &mut Program, values: &[Value]) -> Result<(), LowerError> {
        for (r, &v) in values.iter().enumerate() {
            self.offer(p, r, v);
        }
        if self.stored.iter().all(|&s| s) {
            Ok(())
        } else {
            Err(LowerError::new("a register has no value"))
        }
    }
}

/// Stores the registers of `dist` (`values[r]`) into `buffer`, each distinct element once.
pub(crate) fn store_through(
    p: &mut Program,
    dist: &Dist,
    shape: &[u64],
    buffer: usize,
    element_bits: u32,
    values: &[Value],
) -> Result<(), LowerError> {
    Storer::new(dist, shape, buffer, element_bits)?.finish(p, values)
}
