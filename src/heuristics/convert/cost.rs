//! The price of a conversion: instruction counts, LDS bytes, conflicts, a cycle estimate.
//!
//! Cycle estimate (coarse, for ranking alternatives; constants in
//! [`CostConstants`](crate::target::CostConstants)):
//!
//! * LDS round trip: `wavefronts · lds_cycles_per_wavefront + instructions · valu_issue_cycles
//!   + barriers · barrier_cycles + lds_latency_cycles`, where `wavefronts` sums, over every
//!   access, `phases · (1 + excess)`;
//! * shuffle: `bpermutes · bpermute_cycles + selects · valu_issue_cycles + lds_latency_cycles`;
//! * register permutation and no-op: 0.
//!
//! ```
//! use linear_layout::heuristics::convert::convert_cost;
//! use linear_layout::target::Target;
//! use linear_layout::linear::LinearLayout;
//! // 4 f32 per lane along dim0 -> the same elements spread over warps: an LDS round trip.
//! let src = LinearLayout::from_bases([("register", vec![vec![1], vec![2]]), ("lane", vec![vec![4], vec![8]]), ("warp", vec![vec![16]])], [("dim0", 32)], true)?;
//! let dst = LinearLayout::from_bases([("register", vec![vec![1], vec![2]]), ("lane", vec![vec![4], vec![16]]), ("warp", vec![vec![8]])], [("dim0", 32)], true)?;
//! let c = convert_cost(&src, &dst, 32, Target::by_name("gfx942")?)?;
//! assert_eq!(c.instructions["ds_write_b128"], 1);
//! assert_eq!(c.instructions["ds_read_b128"], 1);
//! assert!(c.cycles > 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::BTreeMap;

use super::classify::{Classification, ConversionKind, classify};
use super::swizzle::{SharedPlan, optimal_shared_layout};
use super::{ConvertError, Flat, canonical_distributed, check_element_bits};
use crate::linear::LinearLayout;
use crate::linear::gf2::Echelon;
use crate::target::{LdsOp, Target};

/// Everything a compiler wants to know about one conversion.
///
/// ```
/// use linear_layout::heuristics::convert::{convert_cost, ConversionKind};
/// use linear_layout::target::Target;
/// use linear_layout::linear::LinearLayout;
/// let l = LinearLayout::identity_1d(4, "register", "dim0")?.product(&LinearLayout::identity_1d(64, "lane", "dim0")?)?;
/// let c = convert_cost(&l, &l, 16, Target::by_name("gfx942")?)?;
/// assert_eq!((c.kind, c.cycles, c.lds_bytes), (ConversionKind::Noop, 0, 0));
/// assert!(c.instructions.is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvertCost {
    /// The tier.
    pub kind: ConversionKind,
    /// Mnemonic (family) → count per thread.
    pub instructions: BTreeMap<String, u64>,
    /// LDS bytes of one tile (0 unless `kind` is `Lds`).
    pub lds_bytes: u64,
    /// Excess wavefronts per write instruction plus per read instruction.
    pub bank_conflicts: u64,
    /// Excess wavefronts per write instruction.
    pub write_conflicts: u64,
    /// Excess wavefronts per read instruction.
    pub read_conflicts: u64,
    /// Estimated cycles (see the module docs).
    pub cycles: u64,
    /// The LDS layout, for `Lds`.
    pub plan: Option<SharedPlan>,
    /// Classification details.
    pub classification: Classification,
    /// Why, in words.
    pub explanation: String,
}

impl ConvertCost {
    /// The chosen shared layout (offset → tensor), if the conversion goes through LDS.
    ///
    /// ```
    /// use linear_layout::heuristics::convert::convert_cost;
    /// use linear_layout::target::Target;
    /// use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::identity_1d(64, "lane", "dim0")?;
    /// assert!(convert_cost(&l, &l, 32, Target::by_name("gfx950")?)?.shared_layout().is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn shared_layout(&self) -> Option<&LinearLayout> {
        self.plan.as_ref().map(|p| &p.shared)
    }

    /// The members of the batch protocol's `convert_cost` answer: `kind`, `instructions`,
    /// `lds_bytes`, `bank_conflicts`, `write_conflicts`, `read_conflicts`, `cycles`,
    /// `shared_layout` (a layout, or `null` unless the conversion goes through LDS) and
    /// `explanation`.
    ///
    /// ```
    /// use linear_layout::heuristics::convert::convert_cost;
    /// use linear_layout::target::Target;
    /// use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::identity_1d(64, "lane", "dim0")?;
    /// let j = convert_cost(&l, &l, 32, Target::by_name("gfx942")?)?.to_json();
    /// assert_eq!((j["kind"].as_str(), j["cycles"].as_u64()), (Some("noop"), Some(0)));
    /// assert!(j["shared_layout"].is_null());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "kind": self.kind.as_str(),
            "instructions": self.instructions,
            "lds_bytes": self.lds_bytes,
            "bank_conflicts": self.bank_conflicts,
            "write_conflicts": self.write_conflicts,
            "read_conflicts": self.read_conflicts,
            "cycles": self.cycles,
            "shared_layout": self.shared_layout(),
            "explanation": self.explanation,
        })
    }

    /// Total LDS data instructions (`ds_read*`, `ds_write*`, `ds_load*`, `ds_store*`) per thread.
    ///
    /// ```
    /// use linear_layout::heuristics::convert::convert_cost;
    /// use linear_layout::target::Target;
    /// use linear_layout::linear::LinearLayout;
    /// let l = LinearLayout::identity_1d(64, "lane", "dim0")?;
    /// assert_eq!(convert_cost(&l, &l, 32, Target::by_name("gfx942")?)?.lds_instructions(), 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn lds_instructions(&self) -> u64 {
        self.instructions
            .iter()
            .filter(|(k, _)| {
                ["ds_read", "ds_write", "ds_load", "ds_store"]
                    .iter()
                    .any(|p| k.starts_with(p))
            })
            .map(|(_, v)| v)
            .sum()
    }
}

fn pair_mnemonic(target: &Target, op: LdsOp, bits: u32, stride: u64) -> String {
    let prefix = match op {
        LdsOp::Read => target.ds_mnemonics.0,
        LdsOp::Write => target.ds_mnemonics.1,
    };
    let st64 = stride > 255;
    if prefix.ends_with("read") || prefix.ends_with("write") {
        format!("{prefix}2{}_b{bits}", if st64 { "st64" } else { "" })
    } else {
        format!("{prefix}_2addr{}_b{bits}", if st64 { "_stride64" } else { "" })
    }
}

fn add(map: &mut BTreeMap<String, u64>, k: String, v: u64) {
    if v > 0 {
        *map.entry(k).or_insert(0) += v;
    }
}

/// Prices `src → dst` for `element_bits`-bit elements on `target`.
///
/// ```
/// use linear_layout::heuristics::convert::{convert_cost, ConversionKind};
/// use linear_layout::target::Target;
/// use linear_layout::linear::LinearLayout;
/// let src = LinearLayout::from_bases([("register", vec![vec![1]]), ("lane", vec![vec![2]]), ("warp", vec![vec![4]])], [("dim0", 8)], true)?;
/// let dst = LinearLayout::from_bases([("register", vec![vec![1]]), ("lane", vec![vec![4]]), ("warp", vec![vec![2]])], [("dim0", 8)], true)?;
/// let c = convert_cost(&src, &dst, 32, Target::by_name("gfx942")?)?;
/// assert_eq!(c.kind, ConversionKind::Lds);
/// assert_eq!(c.instructions["ds_write_b64"], 1);
/// assert_eq!(c.instructions["s_barrier"], 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn convert_cost(
    src: &LinearLayout,
    dst: &LinearLayout,
    element_bits: u32,
    target: &Target,
) -> Result<ConvertCost, ConvertError> {
    check_element_bits(element_bits)?;
    let classification = classify(src, dst)?;
    let mut instructions = BTreeMap::new();
    let costs = &target.costs;
    let mut out = ConvertCost {
        kind: classification.kind,
        instructions: BTreeMap::new(),
        lds_bytes: 0,
        bank_conflicts: 0,
        write_conflicts: 0,
        read_conflicts: 0,
        cycles: 0,
        plan: None,
        explanation: classification.explanation.clone(),
        classification: classification.clone(),
    };
    match classification.kind {
        ConversionKind::Noop => {}
        ConversionKind::Register => {
            // Sub-dword elements: a packed 32-bit word whose halves/bytes come from different
            // words needs one v_perm_b32.
            let pack = (32 / element_bits.min(32)).trailing_zeros() as usize;
            let full = &classification.full;
            let reg_pos = full.out_dim_index("register")?;
            let moved = full
                .bases("register")?
                .iter()
                .take(pack)
                .enumerate()
                .any(|(i, b)| b.get(reg_pos).copied() != Some(1u64 << i));
            if pack > 0 && moved {
                let d = Flat::of(&canonical_distributed(dst)?)?.without_broadcast_regs();
                let words = ((1u64 << d.reg.len().min(40)) * u64::from(element_bits)).div_ceil(32);
                add(&mut instructions, "v_perm_b32".to_string(), words);
                out.cycles = words * u64::from(costs.valu_issue_cycles);
                out.explanation
                    .push_str(&format!("; {words} x v_perm_b32 to repack sub-dword elements"));
            }
        }
        ConversionKind::Shuffle => {
            let d = Flat::of(&canonical_distributed(dst)?)?.without_broadcast_regs();
            let regs = 1u64 << d.reg.len().min(40);
            // One 32-bit word comes from one source lane: sub-dword elements share a word only
            // along destination register directions that stay in the source's registers
            // (the kernel of the destination-register -> source-lane map).
            let s = Flat::of(&canonical_distributed(src)?)?.without_broadcast_regs();
            let ns = s.reg.len();
            let mut solver = Echelon::new();
            for (i, &c) in s.reg.iter().chain(&s.lane).enumerate() {
                if c != 0 && i < 64 {
                    solver.insert(c, i as u32);
                }
            }
            let lane_parts =
                Echelon::spanning(d.reg.iter().map(|&c| solver.solve(c).unwrap_or(0) >> ns.min(63)));
            let stay = d.reg.len() - (lane_parts.rank() as usize).min(d.reg.len());
            let per_word = (32 / element_bits.clamp(1, 32)).trailing_zeros() as usize;
            let shared = per_word.min(stay);
            let words = if element_bits >= 32 {
                (regs * u64::from(element_bits)).div_ceil(32)
            } else {
                (regs >> shared).max(1)
            };
            let full = &classification.full;
            let lane_pos = full.out_dim_index("lane")?;
            let reg_pos = full.out_dim_index("register")?;
            let reg_bases = full.bases("register")?;
            let lane_bases = full.bases("lane")?;
            let mixed = reg_bases
                .iter()
                .filter(|b| b.get(lane_pos).is_some_and(|&x| x != 0))
                .count() as u64;
            // gfx950: a register bit exchanged with lane bit 4 or 5 (and nothing else moving)
            // is one v_permlane{16,32}_swap per register pair.
            let single = |b: &Vec<u64>, pos: usize| -> Option<u32> {
                let nz: Vec<(usize, u64)> = b.iter().copied().enumerate().filter(|&(_, x)| x != 0).collect();
                match nz.as_slice() {
                    [(p, x)] if *p == pos && x.is_power_of_two() => Some(x.trailing_zeros()),
                    _ => None,
                }
            };
            let mut swaps: Vec<u32> = Vec::new();
            let mut swap_only = true;
            for (i, b) in reg_bases.iter().enumerate() {
                match (single(b, reg_pos), single(b, lane_pos)) {
                    (Some(r), _) if r as usize == i => {}
                    // (Lane bit 4 or 5 may be a bit the destination's lanes do not have.)
                    (_, Some(l))
                        if (l == 4 || l == 5)
                            && lane_bases.get(l as usize).and_then(|lb| single(lb, reg_pos))
                                == Some(i as u32) =>
                    {
                        swaps.push(l)
                    }
                    _ => swap_only = false,
                }
            }
            for (i, b) in lane_bases.iter().enumerate() {
                if !swaps.contains(&(i as u32)) && single(b, lane_pos) != Some(i as u32) {
                    swap_only = false;
                }
            }
            if target.instructions.permlane_swap && swap_only && !swaps.is_empty() {
                for l in &swaps {
                    let name = if *l == 5 {
                        "v_permlane32_swap_b32"
                    } else {
                        "v_permlane16_swap_b32"
                    };
                    add(&mut instructions, name.to_string(), words / 2);
                }
                let n = swaps.len() as u64 * (words / 2);
                out.cycles = n * u64::from(costs.permlane_cycles);
                out.explanation.push_str(&format!(
                    "; register bits trade places with lane bits {swaps:?}: {n} x v_permlane*_swap per thread"
                ));
            } else {
                // One cross-lane move per 32-bit register word; two selects per mixed
                // register↔lane bit per register (Triton PR #7558's count).
                let mover = if target.instructions.ds_bpermute {
                    "ds_bpermute_b32"
                } else {
                    "v_permlane16_b32"
                };
                add(&mut instructions, mover.to_string(), words);
                add(&mut instructions, "v_cndmask_b32".to_string(), 2 * mixed * regs);
                out.cycles = words * u64::from(costs.bpermute_cycles)
                    + 2 * mixed * regs * u64::from(costs.valu_issue_cycles)
                    + u64::from(costs.lds_latency_cycles);
                out.explanation.push_str(&format!(
                    "; {words} x {mover} and {} selects per thread",
                    2 * mixed * regs
                ));
            }
        }
        ConversionKind::Lds => {
            let plan = optimal_shared_layout(src, dst, element_bits, target)?;
            let (w, r) = (plan.write, plan.read);
            let wname = target.ds_mnemonic(LdsOp::Write, w.access_bits);
            let (w_instr, w_name) = match plan.write_pair_stride {
                Some(s) if w.instructions >= 2 => (
                    w.instructions / 2,
                    pair_mnemonic(target, LdsOp::Write, w.access_bits, s),
                ),
                _ => (w.instructions, wname),
            };
            let (r_instr, r_name) = if plan.read_transposed {
                (r.instructions, format!("ds_read_b64_tr_b{element_bits}"))
            } else {
                match plan.read_pair_stride {
                    Some(s) if r.instructions >= 2 => (
                        r.instructions / 2,
                        pair_mnemonic(target, LdsOp::Read, r.access_bits, s),
                    ),
                    _ => (r.instructions, target.ds_mnemonic(LdsOp::Read, r.access_bits)),
                }
            };
            add(&mut instructions, w_name.clone(), w_instr);
            add(&mut instructions, r_name.clone(), r_instr);
            let barriers = 2 * plan.reps - 1;
            add(&mut instructions, "s_barrier".to_string(), barriers);
            let wavefronts = w.instructions * w.wavefronts_per_instruction()
                + r.instructions * r.wavefronts_per_instruction();
            out.cycles = wavefronts * u64::from(costs.lds_cycles_per_wavefront)
                + (w_instr + r_instr) * u64::from(costs.valu_issue_cycles)
                + barriers * u64::from(costs.barrier_cycles)
                + u64::from(costs.lds_latency_cycles);
            out.lds_bytes = plan.lds_bytes;
            out.write_conflicts = u64::from(w.excess);
            out.read_conflicts = u64::from(r.excess);
            out.bank_conflicts = out.write_conflicts + out.read_conflicts;
            out.explanation.push_str(&format!(
                ". Through {} B of LDS in {} round trip(s): {w_instr} x {w_name} ({} elements per lane, {} excess wavefronts per instruction), {r_instr} x {r_name} ({} elements per lane, {} excess), {barriers} barrier(s)",
                plan.lds_bytes, plan.reps, w.vector_elems, w.excess, r.vector_elems, r.excess
            ));
            out.plan = Some(plan);
        }
    }
    out.instructions = instructions;
    Ok(out)
}
