//! Random layouts for property tests (feature `quickcheck`, on by default).
//!
//! Random bit matrices say little about GPU layouts, so the generators here build what
//! compilers build: distributed layouts that deal the bits of a tensor out to registers, lanes,
//! warps and blocks (in some order, with broadcast zero bases and XOR mixing), swizzled
//! shared-memory layouts, and small layouts with arbitrary names (an in-dim may share its name
//! with an out-dim). Sizes stay small enough for brute-force checks (at most 18 input bits: 10
//! tensor bits and up to 8 broadcast ones).
//!
//! ```
//! use linear_layout::linear::LinearLayout;
//! use quickcheck::{Arbitrary, Gen};
//! let mut g = Gen::new(16);
//! let l = LinearLayout::arbitrary(&mut g);
//! assert!(l.total_in_bits() <= 18);
//! ```

use quickcheck::{Arbitrary, Gen};

use super::dims::{Dim, Dims};
use super::layout::Columns;
use super::{DimName, LinearLayout};

const DISTRIBUTED: [&str; 4] = ["register", "lane", "warp", "block"];
const NAMES: [&str; 7] = ["x", "y", "z", "register", "dim0", "offset", "a_longer_name"];

/// The generators stay far below 64 bits a side, so assembling cannot fail.
fn assemble(ins: Dims, outs: Dims, cols: Columns) -> LinearLayout {
    LinearLayout::from_parts(ins, outs, cols).unwrap_or_else(|_| LinearLayout::empty())
}

fn below(g: &mut Gen, n: u32) -> u32 {
    if n == 0 { 0 } else { u32::arbitrary(g) % n }
}

fn coin(g: &mut Gen, percent: u32) -> bool {
    below(g, 100) < percent
}

fn shuffle<T>(g: &mut Gen, v: &mut [T]) {
    for i in (1..v.len()).rev() {
        let j = below(g, i as u32 + 1) as usize;
        v.swap(i, j);
    }
}

/// Random out-dims `dim0…` of rank 1–3 with `total` bits in all.
fn tensor_dims(g: &mut Gen, total: u32) -> Dims {
    let rank = 1 + below(g, 3);
    let mut bits = vec![0u32; rank as usize];
    for _ in 0..total {
        bits[below(g, rank) as usize] += 1;
    }
    bits.iter()
        .enumerate()
        .map(|(k, &b)| Dim::new(DimName::from(format!("dim{k}")), b))
        .collect()
}

/// The unit vectors of every output bit in a "tensor walk" order: each dim's bits low to high,
/// cut into runs, and the runs of different dims interleaved (as MMA layouts interleave rows
/// and columns).
fn walk(g: &mut Gen, outs: &[Dim]) -> Vec<u64> {
    let mut shift = 0;
    let mut queues: Vec<std::collections::VecDeque<Vec<u64>>> = Vec::new();
    for d in outs {
        let mut bits: Vec<u64> = (0..d.bits).map(|b| 1u64 << (shift + b)).collect();
        shift += d.bits;
        let mut runs = std::collections::VecDeque::new();
        while !bits.is_empty() {
            let take = 1 + below(g, bits.len() as u32) as usize;
            runs.push_back(bits.drain(..take).collect());
        }
        queues.push(runs);
    }
    let mut out = Vec::new();
    loop {
        let live: Vec<usize> = (0..queues.len()).filter(|&q| !queues[q].is_empty()).collect();
        if live.is_empty() {
            return out;
        }
        let q = live[below(g, live.len() as u32) as usize];
        if let Some(run) = queues[q].pop_front() {
            out.extend(run);
        }
    }
}

/// A distributed layout: register/lane/warp/block over `dim0…`, with broadcast zero bases
/// and occasional XOR mixing of a lower bit into a higher basis.
pub fn distributed_layout(g: &mut Gen) -> LinearLayout {
    let total = below(g, 11);
    let outs = tensor_dims(g, total);
    let mut columns = walk(g, &outs);
    for k in 1..columns.len() {
        if coin(g, 10) {
            let lower = columns[below(g, k as u32) as usize];
            columns[k] ^= lower;
        }
    }
    let mut ins = Dims::new();
    let mut cols = Columns::new();
    let mut next = 0;
    for (i, name) in DISTRIBUTED.iter().enumerate() {
        let remaining = columns.len() - next;
        let take = if i == DISTRIBUTED.len() - 1 {
            remaining
        } else {
            below(g, remaining as u32 + 1) as usize
        };
        let mut dim: Vec<u64> = columns[next..next + take].to_vec();
        next += take;
        let zeros = if coin(g, 30) { 1 + below(g, 2) } else { 0 };
        for _ in 0..zeros {
            let at = below(g, dim.len() as u32 + 1) as usize;
            dim.insert(at, 0);
        }
        dim.iter().for_each(|&c| cols.push(c));
        ins.push(Dim::new(DimName::from(*name), dim.len() as u32));
    }
    assemble(ins, outs, cols)
}

/// A shared-memory layout: `offset` (and an empty `block`) over `dim0…`, the row bits XORed
/// into the column bits as a `vec`/`perPhase`/`maxPhase` swizzle does.
pub fn shared_layout(g: &mut Gen) -> LinearLayout {
    let total = below(g, 11);
    let outs = tensor_dims(g, total);
    let mut columns = walk(g, &outs);
    // Swizzle: a basis in the upper half XORs a lower basis into itself.
    let half = columns.len() / 2;
    for k in half..columns.len() {
        if half > 0 && coin(g, 50) {
            columns[k] ^= columns[below(g, half as u32) as usize];
        }
    }
    let ins: Dims = [
        Dim::new(DimName::from("offset"), columns.len() as u32),
        Dim::new(DimName::from("block"), 0),
    ]
    .into_iter()
    .collect();
    assemble(ins, outs, columns.into_iter().collect())
}

/// A small layout with random names and random bits (possibly not surjective, not
/// injective, with size-1 dims, an in-dim named like an out-dim, or no dims at all).
pub fn small_layout(g: &mut Gen) -> LinearLayout {
    let mut out_names: Vec<&str> = NAMES.to_vec();
    shuffle(g, &mut out_names);
    let outs: Dims = out_names[..below(g, 3) as usize]
        .iter()
        .map(|n| Dim::new(DimName::from(*n), below(g, 4)))
        .collect();
    let ins: Vec<(&str, u32)> = {
        let mut names: Vec<&str> = NAMES.to_vec();
        shuffle(g, &mut names);
        names[..below(g, 4) as usize]
            .iter()
            .map(|n| (*n, below(g, 4)))
            .collect()
    };
    let out_bits: u32 = outs.iter().map(|d| d.bits).sum();
    let mut cols = Columns::new();
    for (_, bits) in &ins {
        for _ in 0..*bits {
            cols.push(u64::arbitrary(g) & super::layout::low_mask(out_bits));
        }
    }
    let ins: Dims = ins
        .into_iter()
        .map(|(n, bits)| Dim::new(DimName::from(n), bits))
        .collect();
    assemble(ins, outs, cols)
}

/// A random layout whose in-dims are exactly `ins` (names and sizes), over random out-dims:
/// the second layout of a composable pair.
pub fn layout_from(g: &mut Gen, ins: &[(DimName, u32)]) -> LinearLayout {
    let in_bits: u32 = ins.iter().map(|(_, b)| b).sum();
    let total = below(g, in_bits.min(10) + 3);
    let outs = tensor_dims(g, total);
    let mut cols = Columns::new();
    for _ in 0..in_bits {
        cols.push(if coin(g, 15) {
            0
        } else {
            u64::arbitrary(g) & super::layout::low_mask(total)
        });
    }
    let ins: Dims = ins.iter().map(|(n, b)| Dim::new(*n, *b)).collect();
    assemble(ins, outs, cols)
}

/// A random invertible layout from in-dims named and sized like `outs` to the same out-dims:
/// a change of coordinates that preserves a layout's image.
pub fn invertible_on(g: &mut Gen, outs: &[(DimName, u32)]) -> LinearLayout {
    let n: u32 = outs.iter().map(|(_, b)| b).sum();
    // A random lower-unitriangular matrix times a random permutation is invertible.
    let mut perm: Vec<u32> = (0..n).collect();
    shuffle(g, &mut perm);
    let mut cols = Columns::new();
    for (j, &p) in perm.iter().enumerate() {
        let mut c = 1u64 << p;
        for &q in &perm[..j] {
            if coin(g, 25) {
                c ^= 1u64 << q;
            }
        }
        cols.push(c);
    }
    let dims: Dims = outs.iter().map(|(name, bits)| Dim::new(*name, *bits)).collect();
    assemble(dims.clone(), dims, cols)
}

/// One of the generators above, chosen at random.
pub fn arbitrary_layout(g: &mut Gen) -> LinearLayout {
    match below(g, 10) {
        0..=4 => distributed_layout(g),
        5..=6 => shared_layout(g),
        _ => small_layout(g),
    }
}

impl Arbitrary for LinearLayout {
    fn arbitrary(g: &mut Gen) -> Self {
        arbitrary_layout(g)
    }

    /// Shrinks by dropping one in-dim at a time.
    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        let me = self.clone();
        let outs: Vec<DimName> = self.out_dim_names().cloned().collect();
        Box::new((0..self.num_in_dims()).filter_map(move |skip| {
            let keep: Vec<DimName> = me
                .in_dim_names()
                .enumerate()
                .filter(|&(i, _)| i != skip)
                .map(|(_, n)| *n)
                .collect();
            me.sublayout(&keep, &outs).ok()
        }))
    }
}

fn dims_of(names_bits: impl Iterator<Item = (DimName, u64)>) -> Vec<(DimName, u32)> {
    names_bits.map(|(n, s)| (n, s.trailing_zeros())).collect()
}

/// Three layouts that compose in a chain: `a`'s out-dims are `b`'s in-dims (same sizes), and
/// `b`'s out-dims are `c`'s in-dims.
///
/// ```
/// use linear_layout::linear::arbitrary::Chain;
/// use quickcheck::{Arbitrary, Gen};
/// let Chain(a, b, c) = Chain::arbitrary(&mut Gen::new(16));
/// assert!(a.compose(&b)?.compose(&c).is_ok());
/// # Ok::<(), linear_layout::linear::LayoutError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Chain(pub LinearLayout, pub LinearLayout, pub LinearLayout);

impl Arbitrary for Chain {
    fn arbitrary(g: &mut Gen) -> Self {
        let a = arbitrary_layout(g);
        let b = layout_from(g, &dims_of(a.out_dims().map(|(n, s)| (*n, s))));
        let c = layout_from(g, &dims_of(b.out_dims().map(|(n, s)| (*n, s))));
        Chain(a, b, c)
    }
}

/// A layout and an `outer` layout whose image contains the layout's image (the layout is
/// `x ∘ outer` for a random `x`), as in a conversion between two layouts of one tensor.
///
/// ```
/// use linear_layout::linear::arbitrary::Contained;
/// use quickcheck::{Arbitrary, Gen};
/// let Contained { layout, outer } = Contained::arbitrary(&mut Gen::new(16));
/// assert!(layout.invert_and_compose(&outer).is_ok());
/// ```
#[derive(Clone, Debug)]
pub struct Contained {
    /// The layout, `x ∘ outer`.
    pub layout: LinearLayout,
    /// The layout whose image contains `layout`'s.
    pub outer: LinearLayout,
}

impl Arbitrary for Contained {
    fn arbitrary(g: &mut Gen) -> Self {
        let outer = arbitrary_layout(g);
        let ins = dims_of(outer.in_dims().map(|(n, s)| (*n, s)));
        let total: u32 = ins.iter().map(|(_, b)| b).sum();
        // x: random in-dims of its own onto outer's in-dims.
        let pool = ["register", "lane", "warp", "q"];
        let mut x_ins = Dims::new();
        let mut cols = Columns::new();
        for name in pool.iter().take(1 + below(g, 4) as usize) {
            let bits = below(g, 5);
            for _ in 0..bits {
                cols.push(if coin(g, 15) {
                    0
                } else {
                    u64::arbitrary(g) & super::layout::low_mask(total)
                });
            }
            x_ins.push(Dim::new(DimName::from(*name), bits));
        }
        let x_outs: Dims = ins.iter().map(|(n, b)| Dim::new(*n, *b)).collect();
        let x = assemble(x_ins, x_outs, cols);
        match x.compose(&outer) {
            Ok(layout) => Contained { layout, outer },
            Err(_) => Contained {
                layout: outer.clone(),
                outer,
            },
        }
    }
}

/// An invertible layout (a bijection between equally sized dims).
///
/// ```
/// use linear_layout::linear::arbitrary::Invertible;
/// use quickcheck::{Arbitrary, Gen};
/// assert!(Invertible::arbitrary(&mut Gen::new(16)).0.is_invertible());
/// ```
#[derive(Clone, Debug)]
pub struct Invertible(pub LinearLayout);

impl Arbitrary for Invertible {
    fn arbitrary(g: &mut Gen) -> Self {
        let base = if coin(g, 50) {
            distributed_layout(g)
        } else {
            shared_layout(g)
        };
        let outs = dims_of(base.out_dims().map(|(n, s)| (*n, s)));
        let change = invertible_on(g, &outs);
        // Rename the in-dims apart from the out-dims, as a hardware-to-tensor map has them.
        let mut ins = change.ins.edit();
        for (k, d) in ins.iter_mut().enumerate() {
            d.name = DimName::from(format!("in{k}"));
        }
        Invertible(assemble(ins, change.outs.edit(), change.cols))
    }
}

/// Two distributed layouts over the same in-dims and the same out-dims (names and order; sizes
/// may differ): operands of a product that can be divided again.
///
/// ```
/// use linear_layout::linear::arbitrary::SameDims;
/// use quickcheck::{Arbitrary, Gen};
/// let SameDims(a, b) = SameDims::arbitrary(&mut Gen::new(16));
/// assert!(a.out_dim_names().eq(b.out_dim_names()));
/// ```
#[derive(Clone, Debug)]
pub struct SameDims(pub LinearLayout, pub LinearLayout);

impl Arbitrary for SameDims {
    fn arbitrary(g: &mut Gen) -> Self {
        let a = distributed_layout(g);
        loop {
            let b = distributed_layout(g);
            if a.num_out_dims() == b.num_out_dims() {
                return SameDims(a, b);
            }
        }
    }
}
