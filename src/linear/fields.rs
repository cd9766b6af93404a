//! Moving the per-dimension fields of a flattened value between two dimension arrangements.
//!
//! A flattened basis packs one component per out-dim, first out-dim lowest. Reordering,
//! dropping, shifting or embedding out-dims is therefore a fixed re-packing of bit fields,
//! which [`FieldMap`] precomputes once per operation and then applies to every column.

use smallvec::SmallVec;

use super::layout::low_mask;

/// A re-packing of bit fields: each field is `(source shift, mask, destination shift)`.
#[derive(Clone, Default)]
pub(crate) struct FieldMap {
    fields: SmallVec<[(u32, u64, u32); 4]>,
}

impl FieldMap {
    pub(crate) fn new() -> Self {
        FieldMap::default()
    }

    /// Moves the `bits`-wide field at `from` to `to`. Empty fields are skipped, so no shift
    /// ever reaches 64.
    pub(crate) fn push(&mut self, from: u32, bits: u32, to: u32) {
        if bits > 0 && from < 64 && to < 64 {
            self.fields.push((from, low_mask(bits), to));
        }
    }

    #[inline]
    pub(crate) fn map(&self, value: u64) -> u64 {
        self.fields
            .iter()
            .fold(0, |acc, &(from, mask, to)| acc | ((value >> from) & mask) << to)
    }
}
