//! Matrix instructions from layouts: which registers of A, B and C each MFMA / WMMA call
//! reads and writes, derived from the three distributed layouts alone.
//!
//! # The rule
//!
//! An instruction ([`MmaInstruction`]) fixes, for one wave, which `(row, k)` of its `M × K`
//! A-tile every (lane, element) holds, and which `(i, j)` of its `M × N` result every (lane,
//! register) holds. A dot `C = A·B + C` in distributed layouts `L_A` (register, lane, warp →
//! m, k), `L_B` (→ k, n) and `L_C` (→ m, n) maps onto a sequence of such calls when:
//!
//! * **lanes agree**: each lane bit moves `L_C` exactly as it moves the instruction's result,
//!   and `L_A` / `L_B` exactly along the instruction's rows / columns — or, for a lane bit the
//!   instruction spends on K, along K only, by the *same* k in A and in B (the product only
//!   needs A and B to agree on K, not the hardware's own K order);
//! * **warps agree**: a warp bit moves A along C's rows and B along C's columns, never K;
//! * **registers split cleanly**: each register bit of `L_C` moves either inside one tile (then
//!   the instruction's result registers are combinations of such bits) or from tile to tile; each
//!   register bit of `L_A` moves along K (the lowest become the instruction's elements, the rest
//!   step from call to call) or from row-tile to row-tile; the same for `L_B`.
//!
//! Then every tile of C, every step along K, is one call: its C registers are the tile's
//! registers plus the instruction's, its A registers the row tile's plus the K step's plus the
//! elements', and B's the same with the K step matched by its k value.
//!
//! # Worked example
//!
//! A 32×32×16 f16 dot with one warp, in Triton's MFMA layouts (`v_mfma_f32_32x32x8f16`,
//! `kWidth = 4`): C has 16 registers, one tile; A and B have 8 registers, two steps of K.
//!
//! ```
//! use linear_layout::encodings::Encoding;
//! use linear_layout::lower::mma::plan_dot;
//! use linear_layout::target::mma::MMA_INSTRUCTIONS;
//! let mfma: Encoding = "#ttg.amd_mfma<{version = 3, warpsPerCTA = [1, 1], instrShape = [32, 32, 8], isTransposed = true}>".parse()?;
//! let a: Encoding = format!("#ttg.dot_op<{{opIdx = 0, parent = {mfma}, kWidth = 4}}>").parse()?;
//! let b: Encoding = format!("#ttg.dot_op<{{opIdx = 1, parent = {mfma}, kWidth = 4}}>").parse()?;
//! let instr = MMA_INSTRUCTIONS.iter().find(|i| i.intrinsic == "llvm.amdgcn.mfma.f32.32x32x8f16").unwrap();
//! let plan = plan_dot(&a.to_linear_layout(&[32, 16])?, &b.to_linear_layout(&[16, 32])?,
//!                     &mfma.to_linear_layout(&[32, 32])?, instr, 64)?;
//! assert_eq!(plan.calls.len(), 2);
//! assert_eq!(plan.calls[0].a, vec![0, 1, 2, 3]);
//! assert_eq!(plan.calls[1].a, vec![4, 5, 6, 7]);
//! assert_eq!(plan.calls[0].c, (0..16).collect::<Vec<u32>>());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashMap;

use crate::linear::LinearLayout;
use crate::lower::error::LowerError;
use crate::target::mma::{Basis, MmaInstruction};

/// One instruction call: the register indices (of each layout's `register` dim) that form its
/// operands and accumulator, in the instruction's element / result-register order.
///
/// ```
/// use linear_layout::lower::mma::MmaCall;
/// let c = MmaCall { a: vec![0, 1], b: vec![0, 1], c: vec![0, 1, 2, 3] };
/// assert_eq!(c.c.len(), 4);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MmaCall {
    /// A's registers, element 0 first.
    pub a: Vec<u32>,
    /// B's registers, element 0 first.
    pub b: Vec<u32>,
    /// C's registers, result register 0 first (read as C, written as D).
    pub c: Vec<u32>,
}

/// The calls computing `C += A·B`, tile by tile, each tile's steps along K in order.
///
/// When C's layout is the instruction's result transposed (lanes along rows: Triton's
/// `isTransposed`), the calls compute `Cᵀ += Bᵀ·Aᵀ`: `swapped` is set, and each call passes
/// B's registers as the instruction's first operand and A's as its second.
///
/// ```
/// use linear_layout::lower::mma::{DotPlan, MmaCall};
/// use linear_layout::target::mma::MMA_INSTRUCTIONS;
/// let p = DotPlan { instruction: &MMA_INSTRUCTIONS[0], calls: vec![], swapped: false };
/// assert!(p.calls.is_empty());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DotPlan {
    /// The instruction every call uses.
    pub instruction: &'static MmaInstruction,
    /// The calls, in issue order.
    pub calls: Vec<MmaCall>,
    /// The instruction's first operand is B (see above).
    pub swapped: bool,
}

/// A 2-D layout's value at one (register, lane, warp), other in-dims zero.
fn at(l: &LinearLayout, reg: u64, lane: u64, warp: u64) -> Result<[u64; 2], LowerError> {
    let inputs: Vec<(String, u64)> = l
        .in_dims()
        .map(|(n, _)| {
            let v = match n.as_str() {
                "register" => reg,
                "lane" => lane,
                "warp" => warp,
                _ => 0,
            };
            (n.as_str().to_string(), v)
        })
        .collect();
    let out = l.apply(&inputs)?;
    match out.as_slice() {
        [x, y] => Ok([*x, *y]),
        _ => Err(LowerError::new(format!(
            "a dot needs 2-D layouts; this one has {} out-dims",
            out.len()
        ))),
    }
}

fn size(l: &LinearLayout, dim: &str) -> u64 {
    l.in_dims().find(|(n, _)| n.as_str() == dim).map_or(1, |(_, s)| s)
}

fn bits(n: u64) -> u32 {
    n.max(1).trailing_zeros()
}

fn basis64(b: Basis) -> [u64; 2] {
    [u64::from(b[0]), u64::from(b[1])]
}

/// The register bits of an operand (A: `rows_dim = 0`; B: `rows_dim = 1`), split into the
/// row-tile bits (with their tile step) and the K bits (with their k step).
struct OperandRegisters {
    /// (register bit, row-tile step in tiles).
    tile: Vec<(u32, u64)>,
    /// (register bit, k step).
    k: Vec<(u32, u64)>,
}

fn operand_registers(
    l: &LinearLayout,
    name: &str,
    rows_dim: usize,
    tile_rows: u64,
) -> Result<OperandRegisters, LowerError> {
    let k_dim = 1 - rows_dim;
    let mut out = OperandRegisters {
        tile: Vec::new(),
        k: Vec::new(),
    };
    for q in 0..bits(size(l, "register")) {
        let v = at(l, 1 << q, 0, 0)?;
        let (row, k) = (v[rows_dim], v[k_dim]);
        match (row, k) {
            (0, 0) => return Err(LowerError::new(format!("{name}: register bit {q} repeats data"))),
            (r, 0) if r % tile_rows == 0 => out.tile.push((q, r / tile_rows)),
            (0, k) => out.k.push((q, k)),
            _ => {
                return Err(LowerError::new(format!(
                    "{name}: register bit {q} moves along rows inside an instruction tile or along rows and K at once"
                )));
            }
        }
    }
    Ok(out)
}

/// All XOR-combinations of `steps` (values) with the OR of their register bits.
fn combinations(steps: &[(u32, u64)]) -> Vec<(u32, u64)> {
    (0u32..1 << steps.len())
        .map(|x| {
            steps
                .iter()
                .enumerate()
                .filter(|(b, _)| x >> b & 1 == 1)
                .fold((0u32, 0u64), |(r, v), (_, &(q, s))| (r | 1 << q, v ^ s))
        })
        .collect()
}

/// Plans `C += A·B` with `instr` on waves of `wave` lanes: see the module documentation for
/// when the three layouts fit and how the calls follow from them.
///
/// ```
/// use linear_layout::linear::LinearLayout;
/// use linear_layout::lower::mma::plan_dot;
/// use linear_layout::target::mma::MMA_INSTRUCTIONS;
/// // A blocked-style C layout does not fit an MFMA instruction: a typed error, not a guess.
/// let c = LinearLayout::identity_1d(32, "lane", "dim1")?.product(&LinearLayout::identity_1d(32, "register", "dim0")?)?;
/// let a = LinearLayout::identity_1d(32, "lane", "dim0")?.product(&LinearLayout::identity_1d(8, "register", "dim1")?)?;
/// let b = LinearLayout::identity_1d(8, "register", "dim0")?.product(&LinearLayout::identity_1d(32, "lane", "dim1")?)?;
/// let instr = MMA_INSTRUCTIONS.iter().find(|i| i.intrinsic == "llvm.amdgcn.mfma.f32.32x32x8f16").unwrap();
/// assert!(plan_dot(&a, &b, &c, instr, 64).is_err());
/// # Ok::<(), linear_layout::linear::LayoutError>(())
/// ```
pub fn plan_dot(
    a: &LinearLayout,
    b: &LinearLayout,
    c: &LinearLayout,
    instr: &'static MmaInstruction,
    wave: u32,
) -> Result<DotPlan, LowerError> {
    if c.num_out_dims() == 3 {
        return super::batched::plan_batched(a, b, c, instr, wave);
    }
    match plan_direct(a, b, c, instr, wave) {
        Ok(calls) => Ok(DotPlan {
            instruction: instr,
            calls,
            swapped: false,
        }),
        Err(direct) => {
            // Cᵀ = Bᵀ·Aᵀ: the same registers, the operands' roles exchanged.
            let (at, bt, ct) = (transposed(b)?, transposed(a)?, transposed(c)?);
            match plan_direct(&at, &bt, &ct, instr, wave) {
                Ok(calls) => Ok(DotPlan {
                    instruction: instr,
                    calls: calls
                        .into_iter()
                        .map(|x| MmaCall {
                            a: x.b,
                            b: x.a,
                            c: x.c,
                        })
                        .collect(),
                    swapped: true,
                }),
                Err(swapped) => Err(LowerError::new(format!(
                    "the layouts fit {} neither as they are ({}) nor transposed ({})",
                    instr.intrinsic,
                    direct.message(),
                    swapped.message()
                ))),
            }
        }
    }
}

/// The layout with its two out-dims exchanged.
fn transposed(l: &LinearLayout) -> Result<LinearLayout, LowerError> {
    let names: Vec<String> = l.out_dims().rev().map(|(n, _)| n.as_str().to_string()).collect();
    Ok(l.transpose_outs(&names)?)
}

fn plan_direct(
    a: &LinearLayout,
    b: &LinearLayout,
    c: &LinearLayout,
    instr: &'static MmaInstruction,
    wave: u32,
) -> Result<Vec<MmaCall>, LowerError> {
    let (m, n, k) = (u64::from(instr.m), u64::from(instr.n), u64::from(instr.k));
    if wave != instr.wave {
        return Err(LowerError::new(format!(
            "{} runs on {}-lane waves, not {wave}",
            instr.intrinsic, instr.wave
        )));
    }
    if size(c, "lane") != u64::from(wave)
        || size(a, "lane") != u64::from(wave)
        || size(b, "lane") != u64::from(wave)
    {
        return Err(LowerError::new(format!(
            "the dot's layouts must have {wave} lanes"
        )));
    }
    let within = |v: [u64; 2]| [v[0] % m, v[1] % n];
    // Lanes of C: exactly the instruction's result lanes.
    let (acc_regs, acc_lanes) = instr.acc_bases(wave);
    for (q, want) in acc_lanes.iter().enumerate() {
        let got = at(c, 0, 1 << q, 0)?;
        if got != basis64(*want) {
            return Err(LowerError::new(format!(
                "C: lane bit {q} moves to {got:?}, but {} puts it at (row, column) {want:?}",
                instr.intrinsic
            )));
        }
    }
    // Lanes of A and B: rows (columns) as the instruction's, K lanes agreeing between A and B.
    let (elem_bases, lane_bases) = instr.operand_bases(wave);
    for (q, want) in lane_bases.iter().enumerate() {
        let va = at(a, 0, 1 << q, 0)?;
        let vb = at(b, 0, 1 << q, 0)?;
        let (a_row, a_k, b_k, b_col) = (va[0], va[1], vb[0], vb[1]);
        let ok = if want[1] == 0 {
            [a_row, a_k] == [u64::from(want[0]), 0] && [b_k, b_col] == [0, u64::from(want[0])]
        } else {
            a_row == 0 && b_col == 0 && a_k == b_k && a_k != 0
        };
        if !ok {
            return Err(LowerError::new(format!(
                "lane bit {q}: A moves to (row, k) {va:?}, B to (k, column) {vb:?}; {} needs (row, k) {want:?} in both",
                instr.intrinsic
            )));
        }
    }
    // Warps: A along C's rows, B along C's columns, neither along K.
    for q in 0..bits(size(c, "warp")) {
        let vc = at(c, 0, 0, 1 << q)?;
        let (va, vb) = (at(a, 0, 0, 1 << q)?, at(b, 0, 0, 1 << q)?);
        if va != [vc[0], 0] || vb != [0, vc[1]] {
            return Err(LowerError::new(format!(
                "warp bit {q}: C moves to {vc:?} but A to {va:?} and B to {vb:?} (a dot's warps split rows and columns, not K)"
            )));
        }
    }
    // C's registers: inside a tile (the instruction's registers) or from tile to tile.
    let mut c_inside: Vec<(u32, [u64; 2])> = Vec::new();
    let mut c_tiles: Vec<(u32, u64)> = Vec::new();
    for q in 0..bits(size(c, "register")) {
        let v = at(c, 1 << q, 0, 0)?;
        let w = within(v);
        if w == [0, 0] && v != [0, 0] {
            // Encode the tile step as one number: row tiles in the high half.
            c_tiles.push((q, (v[0] / m) << 32 | (v[1] / n)));
        } else if v == w && v != [0, 0] {
            c_inside.push((q, v));
        } else {
            return Err(LowerError::new(format!(
                "C: register bit {q} moves to {v:?}, neither inside one tile nor from tile to tile"
            )));
        }
    }
    let mut inside: HashMap<[u64; 2], u32> = HashMap::new();
    for x in 0u32..1 << c_inside.len() {
        let (mut reg, mut v) = (0u32, [0u64; 2]);
        for (b, (q, s)) in c_inside.iter().enumerate() {
            if x >> b & 1 == 1 {
                reg |= 1 << q;
                v = [v[0] ^ s[0], v[1] ^ s[1]];
            }
        }
        inside.insert(v, reg);
    }
    let acc_count = 1u32 << acc_regs.len();
    let mut c_of_result = Vec::with_capacity(acc_count as usize);
    for t in 0..acc_count {
        let mut v = [0u64; 2];
        for (b, basis) in acc_regs.iter().enumerate() {
            if t >> b & 1 == 1 {
                v = [v[0] ^ u64::from(basis[0]), v[1] ^ u64::from(basis[1])];
            }
        }
        let reg = inside.get(&v).ok_or_else(|| {
            LowerError::new(format!(
                "C: no register holds the instruction's result element {v:?} of a tile"
            ))
        })?;
        c_of_result.push(*reg);
    }
    if inside.len() != c_of_result.len() {
        return Err(LowerError::new(
            "C: its registers inside a tile are not the instruction's",
        ));
    }
    // A's and B's registers.
    let ra = operand_registers(a, "A", 0, m)?;
    let rb = operand_registers(b, "B", 1, n)?;
    let e = elem_bases.len();
    if ra.k.len() < e || rb.k.len() < e {
        return Err(LowerError::new(format!(
            "{} takes {} elements per lane along K; A has {} and B {} register bits along K",
            instr.intrinsic,
            1 << e,
            ra.k.len(),
            rb.k.len()
        )));
    }
    for j in 0..e {
        if ra.k[j].1 != rb.k[j].1 {
            return Err(LowerError::new(format!(
                "element bit {j}: A's register steps k by {}, B's by {} (A and B must agree on K)",
                ra.k[j].1, rb.k[j].1
            )));
        }
    }
    let a_elems: Vec<u32> = combinations(&ra.k[..e]).into_iter().map(|(r, _)| r).collect();
    let b_elems: Vec<u32> = combinations(&rb.k[..e]).into_iter().map(|(r, _)| r).collect();
    let a_steps = combinations(&ra.k[e..]);
    let b_steps: HashMap<u64, u32> = combinations(&rb.k[e..])
        .into_iter()
        .map(|(r, v)| (v, r))
        .collect();
    if a_steps.len() != b_steps.len() {
        return Err(LowerError::new("A and B step along K differently"));
    }
    let k_total = size_out(a, 1);
    if k_total != size_out(b, 0) || k_total != k * a_steps.len() as u64 {
        return Err(LowerError::new(format!(
            "K: A has {}, B {}, and {} calls of {k} cover {}",
            k_total,
            size_out(b, 0),
            a_steps.len(),
            k * a_steps.len() as u64
        )));
    }
    let a_tiles: HashMap<u64, u32> = combinations(&ra.tile).into_iter().map(|(r, v)| (v, r)).collect();
    let b_tiles: HashMap<u64, u32> = combinations(&rb.tile).into_iter().map(|(r, v)| (v, r)).collect();
    let mut calls = Vec::new();
    for (c_tile_reg, step) in combinations(&c_tiles) {
        let (tm, tn) = (step >> 32, step & 0xffff_ffff);
        let a_tile = *a_tiles
            .get(&tm)
            .ok_or_else(|| LowerError::new(format!("A holds no rows of row tile {tm}")))?;
        let b_tile = *b_tiles
            .get(&tn)
            .ok_or_else(|| LowerError::new(format!("B holds no columns of column tile {tn}")))?;
        for (a_step, kv) in &a_steps {
            let b_step = *b_steps
                .get(kv)
                .ok_or_else(|| LowerError::new(format!("B has no registers at K step {kv}")))?;
            calls.push(MmaCall {
                a: a_elems.iter().map(|r| a_tile | a_step | r).collect(),
                b: b_elems.iter().map(|r| b_tile | b_step | r).collect(),
                c: c_of_result.iter().map(|r| c_tile_reg | r).collect(),
            });
        }
    }
    Ok(calls)
}

fn size_out(l: &LinearLayout, dim: usize) -> u64 {
    l.out_dims().nth(dim).map_or(1, |(_, s)| s)
}
