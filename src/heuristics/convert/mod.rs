//! Pricing a `convert_layout`: classification, bank conflicts, the optimal LDS layout, cost.
//!
//! A compiler holds a tensor in a *source* distributed layout `S` (register, lane, warp, block →
//! tensor) and needs it in a *destination* layout `D`. The map `D⁻¹∘S` (hardware → hardware)
//! says what has to move:
//!
//! * identity everywhere → nothing to do ([`ConversionKind::Noop`](crate::heuristics::convert::ConversionKind::Noop));
//! * only register bits move → a register permutation, free ([`ConversionKind::Register`](crate::heuristics::convert::ConversionKind::Register));
//! * register and lane bits mix, warps stay → an intra-warp shuffle
//!   ([`ConversionKind::Shuffle`](crate::heuristics::convert::ConversionKind::Shuffle));
//! * anything crosses warps → a round trip through LDS ([`ConversionKind::Lds`](crate::heuristics::convert::ConversionKind::Lds)).
//!
//! For an LDS round trip the data is written with `ds_write_bN` in some shared layout
//! `M` (offset → tensor), a barrier is passed, and it is read back with `ds_read_bN`. `M` is
//! ours to choose. Its low offset bits decide the vector widths (consecutive offsets must sit
//! in consecutive registers of one thread, on both sides); its *segment* bits — the offset
//! bits above one bank row — decide bank conflicts: lanes of one phase that differ by a
//! segment vector hit the same bank at different addresses.
//!
//! # Worked example: a 16×32 f32 transpose through 32 banks
//!
//! Rows of 32 f32 are exactly one bank row, so in a row-major `M` the 16 lanes that read one
//! column all hit bank `c`: a 16-way conflict. The textbook swizzle `col ^= row` makes every
//! phase conflict-free *for rows 0..15 against columns 0..15*, but a 32-lane column read covers
//! only 16 rows, so two lanes of a phase still meet: 2-way. XOR-ing `2·row` instead spreads the
//! 16 rows over 32 banks with no collision; [`optimal_shared_layout`](crate::heuristics::convert::optimal_shared_layout) finds such a layout:
//!
//! ```
//! use linear_layout::heuristics::convert::{convert_cost, ConversionKind};
//! use linear_layout::target::Target;
//! use linear_layout::linear::LinearLayout;
//! // Source: lane i holds row i%16 ... as a 1-register, 32-lane, 16-warp layout over 16x32.
//! let src = LinearLayout::from_bases(
//!     [("register", vec![]), ("lane", vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![16, 0]]),
//!      ("warp", vec![vec![0, 1], vec![0, 2], vec![0, 4], vec![0, 8]])],
//!     [("dim1", 32), ("dim0", 16)], true)?;
//! let dst = LinearLayout::from_bases(
//!     [("register", vec![]), ("lane", vec![vec![0, 1], vec![0, 2], vec![0, 4], vec![0, 8], vec![1, 0]]),
//!      ("warp", vec![vec![2, 0], vec![4, 0], vec![8, 0], vec![16, 0]])],
//!     [("dim1", 32), ("dim0", 16)], true)?;
//! let cost = convert_cost(&src, &dst, 32, Target::by_name("generic32")?)?;
//! assert_eq!(cost.kind, ConversionKind::Lds);
//! assert_eq!(cost.bank_conflicts, 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

//! # Scope and assumptions
//!
//! * Bank conflicts for `generic32` are Triton 3.6's exact figure (`bank_conflicts` op); for
//!   the AMD targets they follow the measured phase tables of
//!   [`target`](crate::target) at dword granularity (two lanes touching different
//!   bytes of one dword never conflict — Triton's element-granular model can disagree there).
//! * The search ranks layouts by LDS instructions (vector widths) first, excess wavefronts
//!   second, LDS bytes third, as the brief of issue 4 asks; `ds_read2`/`ds_write2` pairing is
//!   applied afterwards when a register bit moves the address by a lone constant.
//! * Not priced: padded shared layouts, conversions across blocks (CTAs), gfx1250's
//!   `ds_load_tr*` (only gfx950's `ds_read_b64_tr_b8/b16` is modelled).

mod banks;
mod classify;
mod cost;
mod swizzle;
mod triton_shuffle;

pub use banks::{
    BankConflicts, BankReport, SimulatedBanks, bank_conflicts, lds_bank_conflicts, simulate_bank_conflicts,
    triton_bank_conflicts,
};
pub use classify::{Classification, ConversionKind, classify};
pub use cost::{ConvertCost, convert_cost};
pub use swizzle::{SharedPlan, optimal_shared_layout};
pub use triton_shuffle::{mixed_transpositions, triton_uses_shared_memory};

use std::fmt;

use crate::limits::LimitExceeded;
use crate::linear::gf2::Echelon;
use crate::linear::{LayoutError, LinearLayout};

/// The largest tensor a conversion is priced for, as log2 of its elements (2^40), and the most
/// hardware positions either layout may have (registers × lanes × warps × blocks, or offsets ×
/// blocks; registers that repeat elements count). The cost, the classification and the search
/// for the LDS layout work on the layouts' bases, so their time grows with the number of bits,
/// not of elements; the counts they report stay far from overflowing.
///
/// ```
/// use linear_layout::heuristics::convert::{convert_cost, MAX_COST_ELEMENTS_LOG2};
/// use linear_layout::linear::LinearLayout;
/// use linear_layout::target::Target;
/// let big = |bits: u32| LinearLayout::identity_1d(1 << bits, "register", "dim0");
/// let t = Target::by_name("gfx942")?;
/// assert!(convert_cost(&big(MAX_COST_ELEMENTS_LOG2)?, &big(MAX_COST_ELEMENTS_LOG2)?, 16, t).is_ok());
/// let err = convert_cost(&big(MAX_COST_ELEMENTS_LOG2 + 1)?, &big(MAX_COST_ELEMENTS_LOG2 + 1)?, 16, t).unwrap_err();
/// assert_eq!(err.limit().map(|l| l.limit), Some("heuristics::convert::MAX_COST_ELEMENTS_LOG2"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const MAX_COST_ELEMENTS_LOG2: u32 = 40;

/// The largest tensor the bank-conflict simulator ([`simulate_bank_conflicts`]) enumerates,
/// as log2 of its elements (offsets × blocks of the shared layout, 2^22); the distributed
/// layout may broadcast each element to at most four hardware positions more
/// (2^([`MAX_SIMULATED_ELEMENTS_LOG2`] + 2) positions in all).
///
/// ```
/// use linear_layout::heuristics::convert::{simulate_bank_conflicts, MAX_SIMULATED_ELEMENTS_LOG2};
/// use linear_layout::linear::LinearLayout;
/// use linear_layout::target::{LdsOp, Target};
/// let n = 1 << (MAX_SIMULATED_ELEMENTS_LOG2 + 1);
/// let dist = LinearLayout::identity_1d(n / 64, "register", "dim0")?.product(&LinearLayout::identity_1d(64, "lane", "dim0")?)?;
/// let smem = LinearLayout::identity_1d(n, "offset", "dim0")?;
/// let err = simulate_bank_conflicts(&dist, &smem, 32, Target::by_name("gfx942")?, LdsOp::Read).unwrap_err();
/// assert_eq!(err.limit().map(|l| l.limit), Some("heuristics::convert::MAX_SIMULATED_ELEMENTS_LOG2"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const MAX_SIMULATED_ELEMENTS_LOG2: u32 = 22;

/// Why a conversion could not be priced.
///
/// ```
/// use linear_layout::heuristics::convert::ConvertError;
/// let e = ConvertError::new("bad input");
/// assert_eq!(e.to_string(), "bad input");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvertError {
    message: String,
    limit: Option<LimitExceeded>,
}

impl ConvertError {
    /// An error with this message.
    ///
    /// ```
    /// use linear_layout::heuristics::convert::ConvertError;
    /// assert_eq!(ConvertError::new("x").message(), "x");
    /// ```
    pub fn new(message: impl Into<String>) -> Self {
        ConvertError {
            message: message.into(),
            limit: None,
        }
    }

    /// The limit that was exceeded, when that is the reason ([`MAX_COST_ELEMENTS_LOG2`],
    /// [`MAX_SIMULATED_ELEMENTS_LOG2`], or a limit of the layouts).
    ///
    /// ```
    /// use linear_layout::heuristics::convert::ConvertError;
    /// use linear_layout::limits::LimitExceeded;
    /// let e = ConvertError::from(LimitExceeded::new("heuristics::convert::MAX_COST_ELEMENTS_LOG2", "log2 of the elements", 40, 41));
    /// assert_eq!(e.limit().map(|l| l.got), Some(41));
    /// assert_eq!(ConvertError::new("x").limit(), None);
    /// ```
    pub fn limit(&self) -> Option<&LimitExceeded> {
        self.limit.as_ref()
    }

    /// The message.
    ///
    /// ```
    /// use linear_layout::heuristics::convert::ConvertError;
    /// assert!(ConvertError::new("no").message().starts_with('n'));
    /// ```
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ConvertError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ConvertError {}

impl From<LayoutError> for ConvertError {
    fn from(e: LayoutError) -> Self {
        match e {
            LayoutError::Limit(l) => l.into(),
            e => ConvertError::new(e.to_string()),
        }
    }
}

impl From<LimitExceeded> for ConvertError {
    fn from(limit: LimitExceeded) -> Self {
        ConvertError {
            message: limit.to_string(),
            limit: Some(limit),
        }
    }
}

impl From<String> for ConvertError {
    fn from(e: String) -> Self {
        ConvertError::new(e)
    }
}

/// The hardware in-dims of a distributed layout, in canonical order.
pub(crate) const HW_DIMS: [&str; 4] = ["register", "lane", "warp", "block"];

/// A distributed layout seen as flat tensor positions (first out-dim fastest).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Flat {
    pub reg: Vec<u64>,
    pub lane: Vec<u64>,
    pub warp: Vec<u64>,
    pub block: Vec<u64>,
    /// log2 of the tensor size.
    pub bits: u32,
}

impl Flat {
    /// Flattens a distributed layout; its in-dims must be among register/lane/warp/block.
    pub(crate) fn of(layout: &LinearLayout) -> Result<Flat, ConvertError> {
        for n in layout.in_dim_names() {
            if !HW_DIMS.contains(&n.as_str()) {
                return Err(ConvertError::new(format!(
                    "a distributed layout has in-dims register/lane/warp/block, not '{n}'"
                )));
            }
        }
        let bits = layout.total_out_bits();
        let flat = layout.flatten_outs()?;
        let get = |d: &str| -> Result<Vec<u64>, ConvertError> {
            if flat.has_in_dim(d) {
                Ok(flat.flat_bases(d)?.to_vec())
            } else {
                Ok(Vec::new())
            }
        };
        Ok(Flat {
            reg: get("register")?,
            lane: get("lane")?,
            warp: get("warp")?,
            block: get("block")?,
            bits,
        })
    }

    /// Drops the zero (broadcast) register bases.
    pub(crate) fn without_broadcast_regs(mut self) -> Flat {
        self.reg.retain(|&r| r != 0);
        self
    }

    /// Only the registers that hold elements no earlier register combination holds (zero
    /// columns and combinations of other registers left out): each distinct element of a thread
    /// once, which is what an LDS round trip moves.
    pub(crate) fn distinct_regs(mut self) -> Flat {
        let mut span = Echelon::new();
        let mut k = 0u32;
        self.reg.retain(|&r| {
            let new = span.insert(r, k);
            k += u32::from(new);
            new
        });
        self
    }
}

/// The layout with in-dims exactly register, lane, warp, block (missing ones of size 1).
pub(crate) fn canonical_distributed(layout: &LinearLayout) -> Result<LinearLayout, ConvertError> {
    if layout
        .in_dim_names()
        .map(|n| n.as_str())
        .eq(HW_DIMS.iter().copied())
    {
        return Ok(layout.clone());
    }
    let mut bases = Vec::with_capacity(4);
    for d in HW_DIMS {
        let b = if layout.has_in_dim(d) {
            layout.bases(d)?
        } else {
            Vec::new()
        };
        bases.push((d, to_i64(b)));
    }
    for n in layout.in_dim_names() {
        if !HW_DIMS.contains(&n.as_str()) {
            return Err(ConvertError::new(format!(
                "a distributed layout has in-dims register/lane/warp/block, not '{n}'"
            )));
        }
    }
    let outs: Vec<(String, i64)> = layout
        .out_dims()
        .map(|(n, s)| (n.to_string(), s as i64))
        .collect();
    Ok(LinearLayout::from_bases(bases, outs, false)?)
}

/// Checks that two layouts describe the same tensor (same out-dims, in order, same sizes) of
/// at most 2^[`MAX_COST_ELEMENTS_LOG2`] elements, with at most as many hardware positions.
pub(crate) fn same_tensor(a: &LinearLayout, b: &LinearLayout, what: &str) -> Result<(), ConvertError> {
    let da: Vec<(String, u64)> = a.out_dims().map(|(n, s)| (n.to_string(), s)).collect();
    let db: Vec<(String, u64)> = b.out_dims().map(|(n, s)| (n.to_string(), s)).collect();
    if da != db {
        return Err(ConvertError::new(format!(
            "{what}: the two layouts describe different tensors ({da:?} vs {db:?})"
        )));
    }
    LimitExceeded::check(
        "heuristics::convert::MAX_COST_ELEMENTS_LOG2",
        "log2 of the tensor elements of a conversion",
        u64::from(MAX_COST_ELEMENTS_LOG2),
        u64::from(a.total_out_bits()),
    )?;
    LimitExceeded::check(
        "heuristics::convert::MAX_COST_ELEMENTS_LOG2",
        "log2 of the hardware positions (registers x lanes x warps x blocks, or offsets x blocks) of a layout of a conversion",
        u64::from(MAX_COST_ELEMENTS_LOG2),
        u64::from(a.total_in_bits().max(b.total_in_bits())),
    )?;
    Ok(())
}

/// Checks an element width: a power of two from 1 to 512 bits.
pub(crate) fn check_element_bits(bits: u32) -> Result<(), ConvertError> {
    if bits == 0 || !bits.is_power_of_two() || bits > 512 {
        return Err(ConvertError::new(format!(
            "element_bits must be a power of two between 1 and 512, not {bits}"
        )));
    }
    Ok(())
}

/// Bases as the signed integers `LinearLayout::from_bases` takes.
pub(crate) fn to_i64(b: Vec<Vec<u64>>) -> Vec<Vec<i64>> {
    b.into_iter()
        .map(|v| v.into_iter().map(|x| x as i64).collect())
        .collect()
}
