//! Global offsets in LLVM IR: a [`GlobalOffset`] as the buffer instruction's per-thread
//! `voffset` and workgroup-uniform `soffset` — the coordinates' strides applied once per
//! distinct row, a constant row folded into `soffset`, a data index added per lane, and a
//! masked thread sent past the buffer (offset `0x80000000`) so the hardware drops its access.
//! An offset the program already holds in a register (the index a mask compared) is shifted
//! to bytes instead: the whole offset per thread, no uniform part to compute; a row index it
//! holds is multiplied by its stride in place of that dimension's product and uniform part.

use super::{Emitter, lit};
use crate::lower::error::LowerError;
use crate::lower::ir::{Extent, GlobalOffset, HeldRow, Uniform, UniformInput, XorMap};

/// A global access's operands: the per-thread `voffset` (masked lanes already sent to
/// `0x80000000`; `unmasked`: before that), the uniform `soffset` (`"0"` when none), and the
/// `i1` conditions under which a lane accesses its element (all of them hold; none: every
/// lane) — a load's `other` is chosen by them, not by comparing the offset with the sentinel,
/// and an access at a global address branches on them.
pub(super) struct BufferOffset {
    pub(super) voffset: String,
    pub(super) unmasked: String,
    pub(super) soffset: String,
    pub(super) live: Vec<String>,
}

impl Emitter<'_> {
    /// `x · stride` as an operand (computed once per distinct pair).
    fn times(&mut self, x: &str, stride: Extent) -> Result<String, LowerError> {
        let (factor, times) = match stride {
            Extent::Elements(1) => return Ok(x.to_string()),
            Extent::Elements(k) => (lit(k), 1),
            Extent::Scalar { index, times } => (self.input(UniformInput::Argument(index))?, times),
        };
        let key = (x.to_string(), format!("{factor}*{times}"));
        if let Some(r) = self.products.get(&key) {
            return Ok(r.clone());
        }
        let mut r = self.tmp();
        self.line(&format!("{r} = mul i32 {x}, {factor}"));
        if times != 1 {
            let t = self.tmp();
            self.line(&format!("{t} = mul i32 {r}, {}", lit(times)));
            r = t;
        }
        self.products.insert(key, r.clone());
        Ok(r)
    }

    /// The byte offset of a global access as the buffer instructions take it: a per-thread
    /// part (masked lanes get `0x80000000`, after every term is added, so no term brings a
    /// masked lane back into the buffer) and a uniform part (`soffset`, `"0"` when none).
    ///
    /// When every coordinate's constant is disjoint from its thread part, the thread parts'
    /// products are shared by all accesses, constants times constant strides become a constant
    /// LLVM folds into the instruction's offset field, and constants times argument strides
    /// become the uniform part — scalar code, no vector instruction per access.
    pub(super) fn global_offset(&mut self, o: &GlobalOffset, bytes: u64) -> Result<BufferOffset, LowerError> {
        let (mut voffset, soffset, mut live) = match (o.held, &o.held_row) {
            (Some(held), _) => {
                let h = self.val(held)?;
                (self.in_bytes(h, bytes), "0".to_string(), Vec::new())
            }
            (None, Some(row)) => self.held_row_offset(o, row, bytes)?,
            (None, None) => self.coordinate_offset(o, bytes)?,
        };
        // What the access computes of its uniform part (none when the offset is held whole).
        let rest = o.uniform_rest();
        // `soffset` is unsigned: a base that may be negative (a window reaching back,
        // `rows - 3 + j`) joins the per-thread part, whose sum is what the access reads.
        let base_per_thread = rest.subtracts();
        if base_per_thread {
            let base = self.uniform(&rest.mul(&Uniform::constant(bytes as i64)))?;
            let r = self.tmp();
            self.line(&format!("{r} = add i32 {voffset}, {base}"));
            voffset = r;
        }
        if let Some(index) = o.index {
            let i = self.val(index)?;
            let scaled = self.in_bytes(i, bytes);
            let r = self.tmp();
            self.line(&format!("{r} = add i32 {voffset}, {scaled}"));
            voffset = r;
        }
        let unmasked = voffset.clone();
        for c in &live {
            voffset = self.masked_offset(voffset, c);
        }
        if let Some(predicate) = o.predicate {
            // A conjunction goes conjunct by conjunct where another access sent this offset
            // past the buffer by its first part already (a store masked like its load, and
            // by one more condition): that select is shared. Otherwise it is one condition.
            // Inside a predicated region, the conjuncts its predicate holds go.
            let p = self.val(predicate)?;
            let mut parts = Vec::new();
            self.push_conjuncts(p.clone(), &mut parts);
            let held = self.acting_conjuncts()?;
            let kept: Vec<String> = parts.iter().filter(|c| !held.contains(c)).cloned().collect();
            if kept.len() < parts.len() {
                parts = kept;
            } else if !self.masked.contains_key(&(voffset.clone(), parts[0].clone())) {
                parts = vec![p];
            }
            for c in parts {
                voffset = self.masked_offset(voffset, &c);
                live.push(c);
            }
        }
        for c in &o.when {
            let c = self.condition_of(c)?;
            voffset = self.masked_offset(voffset, &c);
            live.push(c);
        }
        // A small constant base is added to `voffset`, where LLVM folds it into the
        // instruction's immediate offset: no scalar register to set. A masked lane's
        // `0x80000000` plus it stays past the buffer.
        let bytes_in = |c: i64| {
            c.checked_mul(bytes as i64)
                .filter(|&b| b > 0 && b as u64 <= self.immediate_offset)
        };
        if soffset == "0"
            && o.held.is_none()
            && let Some(b) = rest.as_constant().and_then(bytes_in)
        {
            let (masked, whole) = (self.tmp(), self.tmp());
            self.line(&format!("{masked} = add i32 {voffset}, {b}"));
            self.line(&format!("{whole} = add i32 {unmasked}, {b}"));
            return Ok(BufferOffset {
                voffset: masked,
                unmasked: whole,
                soffset,
                live,
            });
        }
        if rest.is_zero() || base_per_thread {
            return Ok(BufferOffset {
                voffset,
                unmasked,
                soffset,
                live,
            });
        }
        let base = self.uniform(&rest.mul(&Uniform::constant(bytes as i64)))?;
        let mut soffset = if soffset == "0" {
            base
        } else {
            let t = self.tmp();
            self.line(&format!("{t} = add i32 {soffset}, {base}"));
            t
        };
        // A loop's slots are uniform, but llc may keep them in VGPRs and then wrap the access
        // in a loop over lanes: read the (equal) value of the first lane instead.
        if rest.inputs().any(|x| self.loop_dependent(x)) {
            self.decls
                .insert("declare i32 @llvm.amdgcn.readfirstlane.i32(i32)".to_string());
            let t = self.tmp();
            self.line(&format!(
                "{t} = call i32 @llvm.amdgcn.readfirstlane.i32(i32 {soffset})"
            ));
            soffset = t;
        }
        Ok(BufferOffset {
            voffset,
            unmasked,
            soffset,
            live,
        })
    }

    /// `condition`'s conjuncts (itself when it is no `a ∧ b` the emitter wrote), leftmost first.
    pub(super) fn push_conjuncts(&mut self, condition: String, out: &mut Vec<String>) {
        match self.conjunctions.get(&condition).cloned() {
            Some((a, b)) => {
                self.push_conjuncts(a, out);
                self.push_conjuncts(b, out);
            }
            None => out.push(condition),
        }
    }

    /// `offset` where `condition` holds, else `0x80000000` (computed once per pair in a region).
    fn masked_offset(&mut self, offset: String, condition: &str) -> String {
        let key = (offset, condition.to_string());
        if let Some(r) = self.masked.get(&key) {
            return r.clone();
        }
        let r = self.tmp();
        self.line(&format!(
            "{r} = select i1 {condition}, i32 {}, i32 -2147483648",
            key.0
        ));
        self.masked.insert(key, r.clone());
        r
    }

    /// The conjunction of `conditions` (`None` when there are none: always true).
    pub(super) fn all_of(&mut self, conditions: &[String]) -> Option<String> {
        let (first, rest) = conditions.split_first()?;
        let mut all = first.clone();
        for c in rest {
            let t = self.tmp();
            self.line(&format!("{t} = and i1 {all}, {c}"));
            all = t;
        }
        Some(all)
    }

    /// An element offset `h` in bytes: one shift, shared by every access of that element (a
    /// load and the store masked like it share the select that sends a masked lane past the
    /// buffer).
    fn in_bytes(&mut self, h: String, bytes: u64) -> String {
        if bytes == 1 {
            return h;
        }
        let key = (h.clone(), format!("bytes*{bytes}"));
        if let Some(t) = self.products.get(&key) {
            return t.clone();
        }
        let t = self.tmp();
        if bytes.is_power_of_two() {
            self.line(&format!("{t} = shl i32 {h}, {}", bytes.trailing_zeros()));
        } else {
            self.line(&format!("{t} = mul i32 {h}, {bytes}"));
        }
        self.products.insert(key, t.clone());
        t
    }

    /// [`coordinate_offset`](Self::coordinate_offset) of the other dimensions, plus the held
    /// row times its dimension's stride per thread: that dimension's coordinate product and
    /// its uniform part (`start · stride`, left out of the base) are not computed.
    fn held_row_offset(
        &mut self,
        o: &GlobalOffset,
        row: &HeldRow,
        bytes: u64,
    ) -> Result<(String, String, Vec<String>), LowerError> {
        let stride = *o
            .strides
            .get(row.dim)
            .ok_or_else(|| LowerError::new("a held row names a dimension the offset does not have"))?;
        let mut others = GlobalOffset {
            coords: o.coords.clone(),
            strides: o.strides.clone(),
            bounds: o.bounds.clone(),
            ..GlobalOffset::default()
        };
        others.coords.remove(row.dim);
        others.strides.remove(row.dim);
        others.bounds.remove(row.dim);
        let (voffset, soffset, live) = if others.coords.is_empty() {
            ("0".to_string(), "0".to_string(), Vec::new())
        } else {
            self.coordinate_offset(&others, bytes)?
        };
        let h = self.val(row.value)?;
        let product = self.times(&h, stride)?;
        let scaled = self.in_bytes(product, bytes);
        if voffset == "0" {
            return Ok((scaled, soffset, live));
        }
        let sum = self.tmp();
        self.line(&format!("{sum} = add i32 {voffset}, {scaled}"));
        Ok((sum, soffset, live))
    }

    /// [`global_offset`](Self::global_offset) without the base, and the bounds' conditions
    /// (not applied yet).
    fn coordinate_offset(
        &mut self,
        o: &GlobalOffset,
        bytes: u64,
    ) -> Result<(String, String, Vec<String>), LowerError> {
        let shift = bytes.trailing_zeros();
        let separable = o.unmasked()
            && o.strides.iter().any(|s| matches!(s, Extent::Scalar { .. }))
            && o.coords.iter().all(|c| c.constant & c.thread_bits() == 0);
        if !separable {
            let (voffset, live) = self.thread_offset(o, bytes)?;
            return Ok((voffset, "0".to_string(), live));
        }
        let mut threads: Option<String> = None;
        let mut immediate = 0u64;
        let mut uniform: Option<String> = None;
        let add = |e: &mut Self, acc: Option<String>, x: String| -> Option<String> {
            Some(match acc {
                None => x,
                Some(prev) => {
                    let t = e.tmp();
                    e.line(&format!("{t} = add i32 {prev}, {x}"));
                    t
                }
            })
        };
        for (c, s) in o.coords.iter().zip(&o.strides) {
            if c.cols.iter().any(|&x| x != 0) {
                let thread = XorMap {
                    cols: c.cols.clone(),
                    constant: 0,
                };
                let t = self.xor_map(&thread);
                let t = self.times(&t, *s)?;
                threads = add(self, threads, t);
            }
            if c.constant != 0 {
                match *s {
                    Extent::Elements(k) => immediate = immediate.wrapping_add(c.constant.wrapping_mul(k)),
                    Extent::Scalar { .. } => {
                        let k = self.times(&lit(c.constant), *s)?;
                        uniform = add(self, uniform, k);
                    }
                }
            }
        }
        let shifted = |e: &mut Self, x: String| -> String {
            if shift == 0 {
                x
            } else {
                let t = e.tmp();
                e.line(&format!("{t} = shl i32 {x}, {shift}"));
                t
            }
        };
        let base = match threads {
            Some(t) => shifted(self, t),
            None => "0".to_string(),
        };
        let voffset = if immediate == 0 {
            base
        } else {
            let t = self.tmp();
            self.line(&format!("{t} = add i32 {base}, {}", lit(immediate << shift)));
            t
        };
        let soffset = match uniform {
            Some(u) => shifted(self, u),
            None => "0".to_string(),
        };
        Ok((voffset, soffset, Vec::new()))
    }

    /// The byte offset of a global access, all of it per thread, and the conditions of its
    /// bounds (not applied yet).
    fn thread_offset(&mut self, o: &GlobalOffset, bytes: u64) -> Result<(String, Vec<String>), LowerError> {
        // Power-of-two constant strides: the offset is one XOR map shifted per dimension.
        let shifts: Option<Vec<u32>> = o
            .strides
            .iter()
            .map(|s| match s {
                Extent::Elements(k) if k.is_power_of_two() => Some(k.trailing_zeros()),
                _ => None,
            })
            .collect();
        let shift = bytes.trailing_zeros();
        if let Some(shifts) = shifts
            && o.bounds.iter().skip(1).all(Option::is_none)
            && !matches!(o.bounds.first(), Some(Some(Extent::Scalar { .. })))
        {
            let mut flat = XorMap::constant(0, self.p.thread_bits());
            for (c, &k) in o.coords.iter().zip(&shifts) {
                let c = c.shifted(k);
                for (a, b) in flat.cols.iter_mut().zip(&c.cols) {
                    *a ^= b;
                }
                flat.constant ^= c.constant;
            }
            let off = self.xor_map(&flat.shifted(shift));
            return Ok(match (o.bounds.first().copied().flatten(), o.strides.first()) {
                (Some(Extent::Elements(b)), Some(Extent::Elements(k))) => {
                    let limit = b.wrapping_mul(*k).wrapping_mul(bytes);
                    let m = self.tmp();
                    self.line(&format!("{m} = icmp ult i32 {off}, {}", lit(limit)));
                    (off, vec![m])
                }
                _ => (off, Vec::new()),
            });
        }
        let mut sum: Option<String> = None;
        let mut mask: Option<String> = None;
        for ((c, s), b) in o.coords.iter().zip(&o.strides).zip(&o.bounds) {
            let x = self.xor_map(c);
            if let Some(b) = b {
                let m = self.tmp();
                let bound = match *b {
                    Extent::Elements(k) => lit(k),
                    scaled => self.times(&lit(1), scaled)?,
                };
                self.line(&format!("{m} = icmp ult i32 {x}, {bound}"));
                mask = Some(match mask {
                    None => m,
                    Some(prev) => {
                        let t = self.tmp();
                        self.line(&format!("{t} = and i1 {prev}, {m}"));
                        t
                    }
                });
            }
            // A constant no thread bit reaches is added: the thread part's product is shared by
            // every access and the constant's is uniform (scalar code).
            let scaled = if c.constant & c.thread_bits() == 0 && *s != Extent::Elements(1) {
                let thread = XorMap {
                    cols: c.cols.clone(),
                    constant: 0,
                };
                let t = self.xor_map(&thread);
                let t = self.times(&t, *s)?;
                if c.constant == 0 {
                    t
                } else {
                    let k = self.times(&lit(c.constant), *s)?;
                    let r = self.tmp();
                    self.line(&format!("{r} = add i32 {t}, {k}"));
                    r
                }
            } else {
                self.times(&x, *s)?
            };
            sum = Some(match sum {
                None => scaled,
                Some(prev) => {
                    let t = self.tmp();
                    self.line(&format!("{t} = add i32 {prev}, {scaled}"));
                    t
                }
            });
        }
        let sum = sum.unwrap_or_else(|| "0".to_string());
        let off = if shift == 0 {
            sum
        } else {
            let t = self.tmp();
            self.line(&format!("{t} = shl i32 {sum}, {shift}"));
            t
        };
        Ok((off, mask.into_iter().collect()))
    }
}
