//! LDS bank conflicts of a (distributed, shared) pair, three ways: Triton 3.6's generic count,
//! the algebraic count for a target's bank/phase model, and a brute-force simulator.
//!
//! # The algebraic count
//!
//! Write `C = M⁻¹∘R` for the map from (register, lane, …) to LDS offsets, and `v` for the
//! widest vector (elements) of consecutive offsets in consecutive registers. One instruction
//! moves `v` elements per lane; the lanes of one phase form a coset of a subspace `V0` of lane
//! ids ([`PhaseRule`](crate::target::PhaseRule)). Map each `V0` basis lane to its
//! dword address (`offset · bits / 32`), add the dwords inside one vector, and call the span
//! `A`. The dwords one phase touches are a coset of `A`; a bank (low `log2 banks` dword bits)
//! receives `|A ∩ K|` distinct dwords, `K` being the dwords of bank 0, so the phase needs
//! `2^k` wavefronts with `k = dim(A ∩ K) = dim A − rank(bank bits of A)`. The excess,
//! `2^k − 1`, is what Triton reports.
//!
//! ```
//! use linear_layout::heuristics::convert::{lds_bank_conflicts, simulate_bank_conflicts};
//! use linear_layout::target::{LdsOp, Target};
//! use linear_layout::linear::LinearLayout;
//! // 64 lanes each holding one f32 of a column of a 64x32 row-major tile: every lane hits bank 0.
//! let dist = LinearLayout::from_bases(
//!     [("register", vec![]),
//!      ("lane", vec![vec![0, 1], vec![0, 2], vec![0, 4], vec![0, 8], vec![0, 16], vec![0, 32]]),
//!      ("warp", vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![16, 0]])],
//!     [("dim1", 32), ("dim0", 64)], true)?;
//! let smem = LinearLayout::identity_1d(2048, "offset", "dim1")?.reshape_outs(&[("dim1", 32), ("dim0", 64)])?;
//! let gfx942 = Target::by_name("gfx942")?;
//! let alg = lds_bank_conflicts(&dist, &smem, 32, gfx942, LdsOp::Read)?;
//! let sim = simulate_bank_conflicts(&dist, &smem, 32, gfx942, LdsOp::Read)?;
//! // 32 lanes per phase on one bank: 32 wavefronts, 31 excess — and the simulator agrees.
//! assert_eq!((alg.excess, sim.excess), (31, 31));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashMap;

use super::{
    ConvertError, MAX_SIMULATED_ELEMENTS_LOG2, canonical_distributed, check_element_bits, same_tensor,
};
use crate::limits::LimitExceeded;
use crate::linear::gf2::{Echelon, combine, intersection_dim, kernel_dim_under_mask};
use crate::linear::{LinearLayout, action_remove_broadcasted_regs, largest_vectorisation};
use crate::target::{LdsOp, PhaseModel, TARGETS, Target};

/// The algebraic bank-conflict figure of one LDS access pattern.
///
/// ```
/// use linear_layout::heuristics::convert::BankReport;
/// let r = BankReport { vector_elems: 4, access_bits: 128, excess: 1, phases: 8, lanes_per_phase: 8, instructions: 4 };
/// assert_eq!(r.wavefronts_per_instruction(), 16);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BankReport {
    /// Elements per lane per instruction.
    pub vector_elems: u64,
    /// Bits per lane per instruction.
    pub access_bits: u32,
    /// Excess wavefronts per phase of one instruction (`2^k − 1`), as Triton reports them.
    pub excess: u32,
    /// Phases per instruction.
    pub phases: u32,
    /// Lanes served per phase.
    pub lanes_per_phase: u32,
    /// Instructions per thread (non-broadcast registers / vector).
    pub instructions: u64,
}

impl BankReport {
    /// Wavefronts one instruction takes: `phases · (1 + excess)`.
    ///
    /// ```
    /// use linear_layout::heuristics::convert::BankReport;
    /// let r = BankReport { vector_elems: 1, access_bits: 32, excess: 0, phases: 2, lanes_per_phase: 32, instructions: 1 };
    /// assert_eq!(r.wavefronts_per_instruction(), 2);
    /// ```
    pub fn wavefronts_per_instruction(&self) -> u64 {
        u64::from(self.phases) * (1 + u64::from(self.excess))
    }
}

/// What the brute-force simulator saw.
///
/// ```
/// use linear_layout::heuristics::convert::SimulatedBanks;
/// let s = SimulatedBanks { excess: 0, uniform: true, instructions: 2 };
/// assert!(s.uniform);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimulatedBanks {
    /// Worst excess wavefronts over every (instruction, phase).
    pub excess: u32,
    /// Whether every (instruction, phase) had the same excess (a law of linear layouts).
    pub uniform: bool,
    /// Instructions simulated per thread.
    pub instructions: u64,
}

/// The common preparation: broadcast registers removed, registers permuted for the widest
/// vector, `C = M⁻¹∘R` flattened.
pub(crate) struct Prepared {
    /// The distributed layout, canonical dims, broadcast registers removed, permuted (absent
    /// when built directly from flat vectors by the swizzle search).
    pub dist: Option<LinearLayout>,
    /// `C` flattened: one column per (register, lane, warp, block) bit, offset bits low.
    pub c_reg: Vec<u64>,
    pub c_lane: Vec<u64>,
    /// Warp and block columns of `C`.
    pub c_other: Vec<u64>,
    /// Offset bits of the shared layout.
    pub offset_bits: u32,
    /// Vector width in elements.
    pub v: u64,
}

fn check_shared(shared: &LinearLayout) -> Result<(), ConvertError> {
    if !shared.has_in_dim("offset") {
        return Err(ConvertError::new("the shared layout needs an 'offset' in-dim"));
    }
    if let Some(n) = shared
        .in_dim_names()
        .find(|n| n.as_str() != "offset" && n.as_str() != "block")
    {
        return Err(ConvertError::new(format!(
            "a shared layout has in-dims offset/block, not '{n}'"
        )));
    }
    if shared.in_dim_names().next().map(|n| n.as_str()) != Some("offset") {
        return Err(ConvertError::new(
            "the shared layout's first in-dim must be 'offset'",
        ));
    }
    Ok(())
}

pub(crate) fn prepare(
    distributed: &LinearLayout,
    shared: &LinearLayout,
    element_bits: u32,
    max_access_bits: u32,
) -> Result<Prepared, ConvertError> {
    check_element_bits(element_bits)?;
    check_shared(shared)?;
    same_tensor(distributed, shared, "bank conflicts")?;
    if element_bits > max_access_bits {
        return Err(ConvertError::new(format!(
            "{element_bits}-bit elements do not fit one {max_access_bits}-bit LDS access"
        )));
    }
    let d = canonical_distributed(distributed)?;
    let d = action_remove_broadcasted_regs(&d)?.apply(&d)?;
    if !shared.is_injective() {
        return Err(ConvertError::new(
            "the shared layout maps two offsets to one element",
        ));
    }
    if d.total_in_bits() > 40 {
        return Err(ConvertError::new(
            "the distributed layout has more than 2^40 hardware slots",
        ));
    }
    let c = d.invert_and_compose(shared)?;
    let (v, perm) = largest_vectorisation(&c, element_bits, None)?;
    let c = perm.apply(&c)?;
    let dist = perm.apply(&d)?;
    let flat = c.flatten_outs()?;
    let offset_bits = shared.in_dim_size_log2("offset")?;
    let mask = low_mask(offset_bits);
    Ok(Prepared {
        c_reg: flat.flat_bases("register")?.iter().map(|x| x & mask).collect(),
        c_lane: flat.flat_bases("lane")?.iter().map(|x| x & mask).collect(),
        c_other: flat
            .flat_bases("warp")?
            .iter()
            .chain(flat.flat_bases("block")?)
            .map(|x| x & mask)
            .collect(),
        dist: Some(dist),
        offset_bits,
        v,
    })
}

pub(crate) fn low_mask(bits: u32) -> u64 {
    if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 }
}

/// Dword address of an element offset (linear over GF(2) for power-of-two element widths).
#[inline]
pub(crate) fn dword(offset: u64, element_bits: u32) -> u64 {
    let s = element_bits.trailing_zeros();
    if s >= 5 {
        offset << (s - 5)
    } else {
        offset >> (5 - s)
    }
}

/// Triton 3.6's `bankConflictsMemDesc` (Gluon's `bank_conflicts`, target `generic32`): 32 banks
/// of 4 bytes, every lane of the layout in one phase except the top `log2(v·bits/32)` lane
/// bits, and conflicts = `2^dim(span(lanes) ∩ span(segment)) − 1` over flattened tensor
/// positions (with Triton's shortcut of intersecting *sets* when every basis is a power of two).
///
/// ```
/// use linear_layout::heuristics::convert::triton_bank_conflicts;
/// use linear_layout::linear::LinearLayout;
/// // 32 lanes down a column of a 32x32 f32 row-major tile: a 32-way conflict.
/// let dist = LinearLayout::from_bases(
///     [("register", vec![]),
///      ("lane", vec![vec![0, 1], vec![0, 2], vec![0, 4], vec![0, 8], vec![0, 16]]),
///      ("warp", vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![16, 0]])],
///     [("dim1", 32), ("dim0", 32)], true)?;
/// let smem = LinearLayout::identity_1d(1024, "offset", "dim1")?.reshape_outs(&[("dim1", 32), ("dim0", 32)])?;
/// assert_eq!(triton_bank_conflicts(&dist, &smem, 32)?, 31);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn triton_bank_conflicts(
    distributed: &LinearLayout,
    shared: &LinearLayout,
    element_bits: u32,
) -> Result<u32, ConvertError> {
    check_element_bits(element_bits)?;
    check_shared(shared)?;
    same_tensor(distributed, shared, "bank_conflicts")?;
    if distributed.total_out_bits() > 31 {
        return Err(ConvertError::new(
            "tensor too large for Triton's 32-bit positions",
        ));
    }
    let d = canonical_distributed(distributed)?;
    let d = action_remove_broadcasted_regs(&d)?.apply(&d)?;
    let c = d.invert_and_compose(shared)?;
    let (v, _perm) = largest_vectorisation(&c, element_bits, None)?;
    let total = shared.total_in_size();
    let vb = v * u64::from(element_bits);
    let bank = (1024 / vb).min(total);
    if bank == 0 || bank * v > total {
        return Err(ConvertError::new(format!(
            "Triton cannot split a {total}-element shared layout into {v}-element vectors x {bank} banks"
        )));
    }
    let shared_flat = shared.flatten_outs()?;
    let cols: Vec<u64> = shared_flat.columns().to_vec();
    let skip = (v.trailing_zeros() + bank.trailing_zeros()) as usize;
    let segment: Vec<u64> = cols.get(skip..).unwrap_or(&[]).to_vec();
    let lanes = d.flatten_outs()?.flat_bases("lane")?.to_vec();
    let drop = (vb / 32).max(1).trailing_zeros() as usize;
    if drop > lanes.len() {
        return Err(ConvertError::new(format!(
            "a {vb}-bit access needs at least {drop} lane bits; the layout has {}",
            lanes.len()
        )));
    }
    let tile = &lanes[..lanes.len() - drop];
    let pow2 = |x: &u64| x.is_power_of_two();
    let k = if segment.iter().all(pow2) && tile.iter().all(pow2) {
        segment.iter().filter(|s| tile.contains(s)).count() as u32
    } else {
        intersection_dim(&segment, tile)
    };
    if k >= 32 {
        return Err(ConvertError::new("conflict count overflows"));
    }
    Ok((1u32 << k) - 1)
}

/// The bank conflicts of a (distributed, shared) pair on a target, as the batch protocol's
/// `bank_conflicts` op reports them: Triton 3.6's figure on a target of the generic model
/// (`generic32`), the write and read sides of the target's phase model elsewhere.
///
/// ```
/// use linear_layout::heuristics::convert::bank_conflicts;
/// use linear_layout::linear::LinearLayout;
/// use linear_layout::target::Target;
/// let dist = LinearLayout::identity_1d(4, "register", "dim0")?.product(&LinearLayout::identity_1d(64, "lane", "dim0")?)?;
/// let smem = LinearLayout::identity_1d(256, "offset", "dim0")?;
/// let b = bank_conflicts(&dist, &smem, 32, Target::by_name("gfx950")?)?;
/// assert_eq!((b.value, b.write, b.read, b.access_bits), (0, Some(0), Some(0), Some(128)));
/// assert_eq!(b.to_json(), serde_json::json!({"value": 0, "write": 0, "read": 0, "access_bits": 128}));
/// // Triton's generic model serves all 64 lanes in one phase: 2 wavefronts, 1 in excess.
/// let generic = bank_conflicts(&dist, &smem, 32, Target::by_name("generic32")?)?;
/// assert_eq!(generic.to_json(), serde_json::json!({"value": 1}));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BankConflicts {
    /// Excess wavefronts per LDS instruction: Triton's figure on the generic model, the read
    /// side's on a target with a phase table.
    pub value: u32,
    /// Excess wavefronts per write instruction (`None` on the generic model).
    pub write: Option<u32>,
    /// Excess wavefronts per read instruction (`None` on the generic model).
    pub read: Option<u32>,
    /// Bits each lane moves per instruction (`None` on the generic model).
    pub access_bits: Option<u32>,
}

impl BankConflicts {
    /// The members of the protocol's answer: `value`, and `write`, `read`, `access_bits`
    /// where the target has them (see [`bank_conflicts`]).
    ///
    /// ```
    /// use linear_layout::heuristics::convert::BankConflicts;
    /// let b = BankConflicts { value: 3, write: None, read: None, access_bits: None };
    /// assert_eq!(b.to_json().to_string(), r#"{"value":3}"#);
    /// ```
    pub fn to_json(&self) -> serde_json::Value {
        let mut out = serde_json::Map::new();
        out.insert("value".into(), self.value.into());
        for (key, v) in [
            ("write", self.write),
            ("read", self.read),
            ("access_bits", self.access_bits),
        ] {
            if let Some(v) = v {
                out.insert(key.into(), v.into());
            }
        }
        serde_json::Value::Object(out)
    }
}

/// The bank conflicts of writing the distributed layout to the shared one and reading it back,
/// with the widest vector the pair allows: [`triton_bank_conflicts`] on a target of the generic
/// model, [`lds_bank_conflicts`] of both sides elsewhere.
///
/// ```
/// use linear_layout::heuristics::convert::bank_conflicts;
/// use linear_layout::linear::LinearLayout;
/// use linear_layout::target::Target;
/// // 64 lanes down a column of a 64x32 f32 row-major tile.
/// let dist = LinearLayout::from_bases(
///     [("register", vec![]),
///      ("lane", vec![vec![0, 1], vec![0, 2], vec![0, 4], vec![0, 8], vec![0, 16], vec![0, 32]]),
///      ("warp", vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![16, 0]])],
///     [("dim1", 32), ("dim0", 64)], true)?;
/// let smem = LinearLayout::identity_1d(2048, "offset", "dim1")?.reshape_outs(&[("dim1", 32), ("dim0", 64)])?;
/// assert_eq!(bank_conflicts(&dist, &smem, 32, Target::by_name("gfx942")?)?.read, Some(31));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn bank_conflicts(
    distributed: &LinearLayout,
    shared: &LinearLayout,
    element_bits: u32,
    target: &Target,
) -> Result<BankConflicts, ConvertError> {
    if matches!(target.phases, PhaseModel::LayoutLanes) {
        let value = triton_bank_conflicts(distributed, shared, element_bits)?;
        return Ok(BankConflicts {
            value,
            write: None,
            read: None,
            access_bits: None,
        });
    }
    let w = lds_bank_conflicts(distributed, shared, element_bits, target, LdsOp::Write)?;
    let r = lds_bank_conflicts(distributed, shared, element_bits, target, LdsOp::Read)?;
    Ok(BankConflicts {
        value: r.excess,
        write: Some(w.excess),
        read: Some(r.excess),
        access_bits: Some(r.access_bits),
    })
}

/// Lane-id masks spanning one phase, within the layout's `lanes`.
pub(crate) fn phase_masks(
    target: &Target,
    op: LdsOp,
    access_bits: u32,
    lanes: u32,
) -> Result<Vec<u32>, ConvertError> {
    let rule = match target.phases {
        PhaseModel::LayoutLanes => {
            let t = Target {
                wave_size: lanes,
                ..*target
            };
            t.phase_rule(op, access_bits)?
        }
        PhaseModel::Table(_) => target.phase_rule(op, access_bits)?,
    };
    Ok(rule.basis_within(lanes))
}

/// The algebraic conflict exponent `k` for lane offsets `lane_offsets` (element units), a
/// vector of `v` elements, `element_bits` and `banks` banks of 4 bytes.
pub(crate) fn conflict_exponent(lane_offsets: &[u64], v: u64, element_bits: u32, banks: u32) -> u32 {
    let mut a: Vec<u64> = lane_offsets.iter().map(|&o| dword(o, element_bits)).collect();
    let vec_dwords = (v * u64::from(element_bits)) / 32;
    let mut j = 1;
    while j < vec_dwords {
        a.push(j);
        j <<= 1;
    }
    kernel_dim_under_mask(&a, u64::from(banks) - 1)
}

/// The algebraic bank-conflict count of writing (`LdsOp::Write`) or reading the distributed
/// layout to / from the shared layout on `target`, with the widest vector the pair allows
/// (at most 128 bits). For `generic32` the excess is Triton's exact figure
/// ([`triton_bank_conflicts`]); for AMD targets it is the dword/phase model of the module docs.
///
/// Law: equals [`simulate_bank_conflicts`] on every AMD target (property-tested).
///
/// ```
/// use linear_layout::heuristics::convert::lds_bank_conflicts;
/// use linear_layout::target::{LdsOp, Target};
/// use linear_layout::linear::LinearLayout;
/// // Each of 64 lanes writes 4 consecutive f32 (128 bits) of a contiguous 1-D tensor.
/// let dist = LinearLayout::identity_1d(4, "register", "dim0")?.product(&LinearLayout::identity_1d(64, "lane", "dim0")?)?;
/// let smem = LinearLayout::identity_1d(256, "offset", "dim0")?;
/// let r = lds_bank_conflicts(&dist, &smem, 32, Target::by_name("gfx950")?, LdsOp::Write)?;
/// assert_eq!((r.access_bits, r.excess, r.phases), (128, 0, 4));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn lds_bank_conflicts(
    distributed: &LinearLayout,
    shared: &LinearLayout,
    element_bits: u32,
    target: &Target,
    op: LdsOp,
) -> Result<BankReport, ConvertError> {
    let p = prepare(distributed, shared, element_bits, 128)?;
    let mut report = algebraic_report(&p, element_bits, target, op)?;
    if matches!(target.phases, PhaseModel::LayoutLanes) {
        report.excess = triton_bank_conflicts(distributed, shared, element_bits)?;
    }
    Ok(report)
}

/// The dword/phase model on a prepared pair (any target, `generic32` included).
pub(crate) fn algebraic_report(
    p: &Prepared,
    element_bits: u32,
    target: &Target,
    op: LdsOp,
) -> Result<BankReport, ConvertError> {
    let access_bits = (p.v * u64::from(element_bits)) as u32;
    let lanes = 1u32 << p.c_lane.len().min(31);
    let masks = phase_masks(target, op, access_bits, lanes)?;
    let offs: Vec<u64> = masks.iter().map(|&m| combine(&p.c_lane, u64::from(m))).collect();
    let k = conflict_exponent(&offs, p.v, element_bits, target.lds_banks);
    if k >= 32 {
        return Err(ConvertError::new("conflict count overflows"));
    }
    let lanes_per_phase = 1u32 << masks.len();
    Ok(BankReport {
        vector_elems: p.v,
        access_bits,
        excess: (1u32 << k) - 1,
        phases: (lanes / lanes_per_phase).max(1),
        lanes_per_phase,
        instructions: (1u64 << p.c_reg.len()) / p.v,
    })
}

/// Brute force: every lane's dword addresses for every LDS instruction, lanes grouped by
/// phase, distinct dwords counted per bank. Independent of the rank computations of
/// [`lds_bank_conflicts`]: offsets come from a table built by enumerating the shared layout.
/// The enumeration is bounded: at most 2^[`MAX_SIMULATED_ELEMENTS_LOG2`] elements and offsets,
/// four times as many hardware positions, and no more lanes than the widest wave of the target
/// table.
///
/// ```
/// use linear_layout::heuristics::convert::simulate_bank_conflicts;
/// use linear_layout::target::{LdsOp, Target};
/// use linear_layout::linear::LinearLayout;
/// let dist = LinearLayout::identity_1d(64, "lane", "dim0")?;
/// let smem = LinearLayout::identity_1d(64, "offset", "dim0")?;
/// let s = simulate_bank_conflicts(&dist, &smem, 32, Target::by_name("gfx942")?, LdsOp::Read)?;
/// assert_eq!((s.excess, s.uniform), (0, true));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn simulate_bank_conflicts(
    distributed: &LinearLayout,
    shared: &LinearLayout,
    element_bits: u32,
    target: &Target,
    op: LdsOp,
) -> Result<SimulatedBanks, ConvertError> {
    let p = prepare(distributed, shared, element_bits, 128)?;
    let n = shared.total_in_bits();
    LimitExceeded::check(
        "heuristics::convert::MAX_SIMULATED_ELEMENTS_LOG2",
        "log2 of the tensor elements of a simulated access",
        u64::from(MAX_SIMULATED_ELEMENTS_LOG2),
        u64::from(shared.total_out_bits()),
    )?;
    LimitExceeded::check(
        "heuristics::convert::MAX_SIMULATED_ELEMENTS_LOG2",
        "log2 of the offsets of a simulated shared layout",
        u64::from(MAX_SIMULATED_ELEMENTS_LOG2),
        u64::from(n),
    )?;
    LimitExceeded::check(
        "heuristics::convert::MAX_SIMULATED_ELEMENTS_LOG2",
        "log2 of the hardware positions of a simulated distributed layout, less 2",
        u64::from(MAX_SIMULATED_ELEMENTS_LOG2),
        u64::from(distributed.total_in_bits().saturating_sub(2)),
    )?;
    if distributed.total_out_bits() != shared.total_out_bits() {
        return Err(ConvertError::new(
            "the distributed and the shared layout must cover tensors of the same size",
        ));
    }
    // tensor position -> offset, by enumeration.
    let sflat = shared.flatten_outs()?;
    let mut table = vec![u64::MAX; 1usize << sflat.total_out_bits()];
    let omask = low_mask(p.offset_bits);
    for x in 0..1u64 << n {
        if let Some(slot) = table.get_mut(sflat.apply_flat(x) as usize) {
            *slot = x & omask;
        }
    }
    let dflat = p
        .dist
        .as_ref()
        .ok_or_else(|| ConvertError::new("no layout to simulate"))?
        .flatten_outs()?;
    let reg_bits = dflat.in_dim_size_log2("register")?;
    let lane_bits = dflat.in_dim_size_log2("lane")?;
    let lanes = 1u32 << lane_bits;
    // The simulator keeps every lane of a wave at once: a layout's lanes must fit the widest
    // wave of the target table.
    let widest = TARGETS
        .iter()
        .map(|t| t.wave_size)
        .max()
        .unwrap_or(target.wave_size);
    if lanes > widest {
        return Err(ConvertError::new(format!(
            "the simulator models waves of at most {widest} lanes; the distributed layout has {lanes}"
        )));
    }
    let access_bits = (p.v * u64::from(element_bits)) as u32;
    let span = Echelon::spanning(
        phase_masks(target, op, access_bits, lanes)?
            .into_iter()
            .map(u64::from),
    );
    let dwords_per_elem = u64::from(element_bits / 32).max(1);
    let banks = u64::from(target.lds_banks);
    let groups = (1u64 << reg_bits) / p.v;
    let mut worst = 0u32;
    let mut best = u32::MAX;
    for g in 0..groups {
        let mut phases: HashMap<u64, HashMap<u64, Vec<u64>>> = HashMap::new();
        for lane in 0..u64::from(lanes) {
            let key = span.canonical(lane);
            let per_bank = phases.entry(key).or_default();
            for e in 0..p.v {
                let input = (g * p.v + e) | lane << reg_bits;
                let pos = dflat.apply_flat(input);
                let off = *table
                    .get(pos as usize)
                    .filter(|&&o| o != u64::MAX)
                    .ok_or_else(|| ConvertError::new("an element has no LDS offset"))?;
                let d0 = dword(off, element_bits);
                for w in 0..dwords_per_elem {
                    let d = d0 + w;
                    let list = per_bank.entry(d % banks).or_default();
                    if !list.contains(&d) {
                        list.push(d);
                    }
                }
            }
        }
        for per_bank in phases.values() {
            let w = per_bank.values().map(|l| l.len() as u32).max().unwrap_or(1);
            worst = worst.max(w - 1);
            best = best.min(w - 1);
        }
    }
    Ok(SimulatedBanks {
        excess: worst,
        uniform: best == worst || groups == 0,
        instructions: groups,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::TARGETS;

    fn rnd(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    /// Law (beside its code; the 10,000-case version is in tests/convert_cost.rs): the
    /// algebraic count equals the brute-force simulator on every AMD target.
    #[test]
    fn algebra_equals_simulation() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for t in TARGETS
            .iter()
            .filter(|t| matches!(t.phases, PhaseModel::Table(_)))
        {
            let lane_bits = t.wave_size.trailing_zeros() as usize;
            for _ in 0..200 {
                let n = lane_bits + 1 + (rnd(&mut seed) % 5) as usize;
                let mut v: Vec<u64> = (0..n).map(|i| 1u64 << i).collect();
                for i in (1..n).rev() {
                    v.swap(i, (rnd(&mut seed) % (i as u64 + 1)) as usize);
                }
                let b = |x: &[u64]| x.iter().map(|&y| vec![y as i64]).collect::<Vec<_>>();
                let regs = n - lane_bits;
                let dist = LinearLayout::from_bases(
                    [("register", b(&v[..regs])), ("lane", b(&v[regs..]))],
                    [("dim0", 1i64 << n)],
                    false,
                )
                .unwrap();
                let mut offs: Vec<u64> = (0..n).map(|i| 1u64 << i).collect();
                for i in 0..n {
                    for j in 0..i {
                        if rnd(&mut seed).is_multiple_of(3) {
                            offs[i] ^= offs[j];
                        }
                    }
                }
                let shared =
                    LinearLayout::from_bases([("offset", b(&offs))], [("dim0", 1i64 << n)], false).unwrap();
                let bits = [8, 16, 32, 64][(rnd(&mut seed) % 4) as usize];
                for op in [LdsOp::Read, LdsOp::Write] {
                    let a = lds_bank_conflicts(&dist, &shared, bits, t, op).unwrap();
                    let s = simulate_bank_conflicts(&dist, &shared, bits, t, op).unwrap();
                    assert_eq!(a.excess, s.excess, "{} {bits}", t.name);
                }
            }
        }
    }
}
