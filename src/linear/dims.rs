//! The dimensions of a layout, interned.
//!
//! A layout is its columns (one `u64` per input bit) plus two lists of named dimensions. The
//! lists are what most operations pass through unchanged — `compose` keeps the inner layout's
//! in-dims and the outer layout's out-dims, an inversion swaps them — so they are stored once
//! per process and referred to by a [`DimList`]: one pointer, `Copy`, compared by address.
//!
//! Cost model:
//!
//! * Copying, comparing or hashing a list is one word (equal contents are the same table).
//! * Making a list (from names, or by editing another: a product, a reshape) interns it: a
//!   hash of its contents and a look-up in this thread's cache of recent lists, and on a miss
//!   a look-up under the process-wide lock (insert on first sight). Lists made by a product are
//!   also remembered per pair of operands, so repeating a product does not hash at all.
//! * Each distinct list is kept for the life of the process (as Triton's MLIR context keeps
//!   every name it has seen): a few dozen bytes a list, and real programs use a handful.
//!
//! Threads: a table never changes once made, so any thread reads any list without
//! synchronising; the caches are per thread, and the lock is taken only on a cache miss, to
//! find or insert a table, so two threads interning the same contents get the same table.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Mutex;

use smallvec::SmallVec;

use super::layout::{MAX_BITS, MAX_DIMS, Result, low_mask, too_many_dims};
use super::name::NameKey;
use super::{DimName, LayoutError};

/// One named dimension, its size as a number of bits (`size = 2^bits`), and where its bits
/// start: the first column of an in-dim, the shift of an out-dim's field in a flattened basis
/// (the same running sum, so one list serves either side). `start` is derived when the list
/// is interned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Dim {
    pub(crate) name: DimName,
    pub(crate) bits: u32,
    pub(crate) start: u32,
}

impl Dim {
    pub(crate) fn new(name: DimName, bits: u32) -> Self {
        Dim { name, bits, start: 0 }
    }
}

/// A list of dims being built or edited; [`Dims::intern`] checks it and makes it a
/// [`DimList`].
#[derive(Clone, Debug, Default)]
pub(crate) struct Dims(SmallVec<[Dim; 8]>);

impl Dims {
    pub(crate) fn new() -> Self {
        Dims(SmallVec::new())
    }

    /// Checks the list against [`MAX_DIMS`] and [`MAX_BITS`] (errors name `side`, `"input"`
    /// or `"output"`), sets every `start`, and interns it.
    pub(crate) fn intern(&mut self, side: &'static str) -> Result<DimList> {
        if self.0.len() > MAX_DIMS {
            return Err(too_many_dims(side, self.0.len()));
        }
        let mut start = 0u32;
        for d in self.0.iter_mut() {
            d.start = start;
            start = start.saturating_add(d.bits);
        }
        if start > MAX_BITS {
            return Err(LayoutError::TooManyBits { side, bits: start });
        }
        Ok(DimList(intern(&self.0, start)))
    }
}

impl std::ops::Deref for Dims {
    type Target = SmallVec<[Dim; 8]>;
    #[inline]
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl std::ops::DerefMut for Dims {
    #[inline]
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl FromIterator<Dim> for Dims {
    fn from_iter<T: IntoIterator<Item = Dim>>(iter: T) -> Self {
        Dims(iter.into_iter().collect())
    }
}

/// An interned list of dims: valid (at most [`MAX_DIMS`] dims and [`MAX_BITS`] bits, every
/// `start` set), immutable, shared by every layout that has it. Dereferences to the dims.
#[derive(Clone, Copy)]
pub(crate) struct DimList(&'static Table);

/// The interned contents of a [`DimList`].
struct Table {
    dims: &'static [Dim],
    /// Per dim, what `apply` needs on its hot path.
    placed: &'static [Placed],
    bits: u32,
    hash: u64,
}

static NO_DIMS: Table = Table {
    dims: &[],
    placed: &[],
    bits: 0,
    hash: 0,
};

/// A dim as `apply` packs and unpacks values: its field in a flattened value (`value & mask`
/// shifted left by `shift`) and its name's key — derived once when the list is interned.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Placed {
    pub(crate) mask: u64,
    pub(crate) shift: u32,
    pub(crate) name: NameKey,
}

impl DimList {
    /// The list with no dims.
    pub(crate) const EMPTY: DimList = DimList(&NO_DIMS);

    /// The total of the dims' bits.
    #[inline]
    pub(crate) fn bits(self) -> u32 {
        self.0.bits
    }

    /// Each dim's field and name key, for `apply`'s hot path.
    #[inline]
    pub(crate) fn placed(self) -> &'static [Placed] {
        self.0.placed
    }

    /// The interned list of the dims `(name, bits)`, in order, checked as [`Dims::intern`]
    /// checks them (errors name `side`).
    pub(crate) fn new(side: &'static str, dims: impl IntoIterator<Item = (DimName, u32)>) -> Result<DimList> {
        let mut list = Dims::new();
        for (name, bits) in dims.into_iter().take(MAX_DIMS + 1) {
            list.push(Dim::new(name, bits));
        }
        list.intern(side)
    }

    /// The dims as a list to edit.
    pub(crate) fn edit(self) -> Dims {
        Dims(SmallVec::from_slice(self.0.dims))
    }

    /// The address that identifies the list.
    fn id(self) -> usize {
        self.0 as *const Table as usize
    }
}

impl std::ops::Deref for DimList {
    type Target = [Dim];
    #[inline]
    fn deref(&self) -> &[Dim] {
        self.0.dims
    }
}

impl<'a> IntoIterator for &'a DimList {
    type Item = &'a Dim;
    type IntoIter = std::slice::Iter<'a, Dim>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.dims.iter()
    }
}

/// Equal contents are one table, so the address decides.
impl PartialEq for DimList {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl Eq for DimList {}

/// The contents' hash, computed once when interned (so equal lists hash equally).
impl Hash for DimList {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.0.hash)
    }
}

impl fmt::Debug for DimList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.dims.iter()).finish()
    }
}

/// A multiply-rotate hash of words (the contents of a list are a few dozen bytes; SipHash's
/// strength is not needed to index a cache).
struct WordHasher(u64);

impl WordHasher {
    #[inline]
    fn write_u64(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Slots in each thread's caches (a power of two).
const SLOTS: usize = 64;

thread_local! {
    /// Recently interned tables, indexed by hash: a hit needs no lock.
    static RECENT: [Cell<Option<&'static Table>>; SLOTS] = const { [const { Cell::new(None) }; SLOTS] };
    /// Results of [`DimList::merged`], indexed by the operands' addresses.
    static MERGED: [Cell<(usize, usize, Option<&'static Table>)>; SLOTS] =
        const { [const { Cell::new((0, 0, None)) }; SLOTS] };
}

/// The cache slot of a key: its top bits after a multiplicative mix.
#[inline]
fn slot(key: u64) -> usize {
    (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - SLOTS.trailing_zeros())) as usize
}

/// Every table interned so far, by hash.
static TABLES: Mutex<BTreeMap<u64, Vec<&'static Table>>> = Mutex::new(BTreeMap::new());

/// The table of `dims` (whose starts are set and whose bits total `bits`).
fn intern(dims: &[Dim], bits: u32) -> &'static Table {
    if dims.is_empty() {
        return &NO_DIMS;
    }
    let mut h = WordHasher(0);
    // A name's first word (its length and first 7 bytes) tells the names of a list apart;
    // equal hashes are compared in full anyway.
    for d in dims {
        h.write_u64(d.name.words()[0] ^ (d.bits as u64) << 56);
    }
    let hash = h.finish();
    let slot = slot(hash);
    let same = |t: &&'static Table| t.hash == hash && t.dims == dims;
    let same_table = |t: &&&'static Table| same(t);
    if let Some(t) = RECENT.with(|r| r[slot].get()).filter(same) {
        return t;
    }
    // A poisoned lock still holds consistent tables: pushes of finished tables are the only
    // writes.
    let mut tables = TABLES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let bucket = tables.entry(hash).or_default();
    let table = match bucket.iter().find(same_table) {
        Some(&t) => t,
        None => {
            let placed: Vec<Placed> = dims
                .iter()
                .map(|d| Placed {
                    mask: low_mask(d.bits),
                    shift: d.start & 63,
                    name: NameKey::of(&d.name),
                })
                .collect();
            let t: &'static Table = Box::leak(Box::new(Table {
                dims: Box::leak(dims.into()),
                placed: Box::leak(placed.into_boxed_slice()),
                bits,
                hash,
            }));
            bucket.push(t);
            t
        }
    };
    drop(tables);
    RECENT.with(|r| r[slot].set(Some(table)));
    table
}

impl DimList {
    /// `make(a, b)` for a pure function `make` of the two lists named by `op`, remembered per
    /// pair of operands on this thread (`op` distinguishes the functions sharing the cache).
    pub(crate) fn memo(
        op: usize,
        a: DimList,
        b: DimList,
        make: impl FnOnce() -> Result<DimList>,
    ) -> Result<DimList> {
        let (ka, kb) = (a.id() ^ op, b.id());
        let slot = slot(ka as u64 ^ (kb as u64).rotate_left(29));
        if let (x, y, Some(t)) = MERGED.with(|m| m[slot].get())
            && x == ka
            && y == kb
        {
            return Ok(DimList(t));
        }
        let made = make()?;
        MERGED.with(|m| m[slot].set((ka, kb, Some(made.0))));
        Ok(made)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(names: &[(&str, u32)]) -> DimList {
        names
            .iter()
            .map(|&(n, b)| Dim::new(DimName::from(n), b))
            .collect::<Dims>()
            .intern("input")
            .unwrap()
    }

    #[test]
    fn equal_contents_are_one_table() {
        let a = list(&[("register", 2), ("lane", 5)]);
        assert_eq!(a, list(&[("register", 2), ("lane", 5)]));
        assert_ne!(a, list(&[("register", 2), ("lane", 4)]));
        assert_ne!(a, list(&[("lane", 5), ("register", 2)]));
        assert_eq!(a[1].start, 2);
        assert_eq!(a.bits(), 7);
        assert_eq!(list(&[]), DimList::EMPTY);
    }

    #[test]
    fn threads_share_the_tables() {
        let here = list(&[("warp", 3), ("block", 1)]);
        let there = std::thread::spawn(|| list(&[("warp", 3), ("block", 1)]))
            .join()
            .unwrap();
        assert_eq!(here, there);
    }
}
