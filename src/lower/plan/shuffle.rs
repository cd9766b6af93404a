//! Moving elements between the lanes of a wave: `ds_bpermute` rounds, or gfx950's permlane
//! swaps.
//!
//! # One `ds_bpermute` per destination word
//!
//! Write `G` for the map from a destination slot (register `r'`, lane `l'`) to the source slot
//! holding its element: `G(r', l') = (A_r r' ⊕ B_r l', A_l r' ⊕ B_l l')` (the warp is
//! unchanged). Round `k` of the shuffle fills destination register `k ⊕ X·l'` of every lane —
//! `X` a linear map from lanes to registers, chosen below — so lane `l'` reads source lane
//! `M·l' ⊕ A_l·k` with `M = B_l ⊕ A_l·X`, and that lane must send register
//! `A_r·k ⊕ N'·l'` with `N' = B_r ⊕ A_r·X`. One read per round works when the register a
//! source lane sends depends on that lane only: `ker M ⊆ ker N'`. Where `B_l` loses a lane
//! direction `δ` (two destination lanes reading one source lane for different registers), `X`
//! sends `δ` to a destination register bit whose `A_l` column completes `M`'s image. The
//! sender then picks `c_k ⊕ N·l` (selects on the lane bits `N` reads) and the receiver puts
//! round `k ⊕ X·l'` into register `k` (selects on the lane bits `X` reads). Sub-dword elements
//! share a word along destination register directions with no lane part (the kernel of
//! `A_l`): one word comes from one source lane, so that kernel bounds the packing, as the cost
//! model counts.
//!
//! Example: swapping register bit 0 with lane bit 0 (`A_l e0 = l0`, `B_r l0 = e0`): `B_l` loses
//! `l0`, `X l0 = e0`, `M = 1`: every round reads the lane itself (address `4·lane`), the sender
//! selects register `k ⊕ l0`, the receiver register `k ⊕ l0`: two selects per register and one
//! `ds_bpermute` per word, the count of Triton's `transferWithinWarp`.

use std::collections::HashMap;

use super::dist::Dist;
use crate::linear::gf2::{Echelon, combine};
use crate::lower::error::LowerError;
use crate::lower::ir::{Op, Program, SwapKind, Value, XorMap};

/// The distinct (non-zero) register bits of a layout.
fn distinct_bits(d: &Dist) -> Vec<usize> {
    (0..d.reg.len()).filter(|&i| d.reg[i] != 0).collect()
}

/// The full register index of a compact index over `bits`.
fn expand(compact: u64, bits: &[usize]) -> usize {
    bits.iter()
        .enumerate()
        .filter(|&(k, _)| compact >> k & 1 == 1)
        .fold(0, |a, (_, &b)| a | 1 << b)
}

/// The compact index of a full register index.
fn compress(full: usize, bits: &[usize]) -> u64 {
    bits.iter()
        .enumerate()
        .filter(|&(_, &b)| full >> b & 1 == 1)
        .fold(0, |a, (k, _)| a | 1 << k)
}

/// Builds `value(acc ⊕ Σ_{b set} step_b)` over the thread-id bits in `bits`, one select per
/// node, memoised.
struct SelectTree<'a> {
    bits: Vec<(u32, u64)>,
    memo: HashMap<(usize, u64), Value>,
    leaf: &'a dyn Fn(u64) -> Value,
}

impl SelectTree<'_> {
    fn get(&mut self, p: &mut Program, i: usize, acc: u64) -> Value {
        if i == self.bits.len() {
            return (self.leaf)(acc);
        }
        if let Some(&v) = self.memo.get(&(i, acc)) {
            return v;
        }
        let (bit, step) = self.bits[i];
        let zero = self.get(p, i + 1, acc);
        let one = self.get(p, i + 1, acc ^ step);
        let dst = p.value(p.value_bits(zero));
        p.ops.push(Op::SelectOnThreadBit { dst, bit, one, zero });
        self.memo.insert((i, acc), dst);
        dst
    }
}

/// Packs `parts` into 32-bit words (repeating them to fill a word), or splits 64-bit elements.
fn to_words(p: &mut Program, parts: &[Value], bits: u32) -> Vec<Value> {
    if bits == 64 {
        return parts
            .iter()
            .flat_map(|&v| {
                let halves = p.values_of(2, 32);
                p.ops.push(Op::Unpack {
                    dst: halves.clone(),
                    src: v,
                });
                halves
            })
            .collect();
    }
    if bits == 32 {
        return parts.to_vec();
    }
    let per_word = (32 / bits) as usize;
    let filled: Vec<Value> = parts
        .iter()
        .copied()
        .cycle()
        .take(per_word.max(parts.len()))
        .collect();
    let w = p.value(32);
    p.ops.push(Op::Pack {
        dst: w,
        parts: filled,
    });
    vec![w]
}

/// The inverse of [`to_words`]: `n` elements back from the words.
fn from_words(p: &mut Program, words: &[Value], bits: u32, n: usize) -> Vec<Value> {
    if bits == 64 {
        return words
            .chunks(2)
            .map(|pair| {
                let v = p.value(64);
                p.ops.push(Op::Pack {
                    dst: v,
                    parts: pair.to_vec(),
                });
                v
            })
            .collect();
    }
    if bits == 32 {
        return words.to_vec();
    }
    let parts = p.values_of((32 / bits) as usize, bits);
    p.ops.push(Op::Unpack {
        dst: parts.clone(),
        src: words[0],
    });
    parts.into_iter().take(n).collect()
}

/// An intra-warp conversion with one `ds_bpermute` per 32-bit destination word (module docs).
pub(crate) fn bpermute(
    p: &mut Program,
    s: &Dist,
    d: &Dist,
    bits: u32,
    src_vals: &[Value],
) -> Result<Vec<Value>, LowerError> {
    let lb = s.lane_bits;
    if s.thread[lb..] != d.thread[lb..] {
        return Err(LowerError::new(
            "the conversion moves elements between warps: not a shuffle",
        ));
    }
    let sbits = distinct_bits(s);
    let dbits = distinct_bits(d);
    let ns = sbits.len();
    // Solve over the source's distinct registers (columns 0..ns) and lanes (ns + b).
    let mut solver = Echelon::new();
    for (k, &b) in sbits.iter().enumerate() {
        solver.insert(s.reg[b], k as u32);
    }
    for b in 0..lb {
        if s.thread[b] != 0 {
            solver.insert(s.thread[b], (ns + b) as u32);
        }
    }
    let split = |target: u64| -> Result<(u64, u64), LowerError> {
        let c = solver.solve(target).ok_or_else(|| {
            LowerError::new("an element the destination needs is not held by the source's warp")
        })?;
        Ok((c & ((1u64 << ns) - 1), c >> ns))
    };
    let (mut a_r, mut a_l) = (Vec::new(), Vec::new());
    for &b in &dbits {
        let (r, l) = split(d.reg[b])?;
        a_r.push(r);
        a_l.push(l);
    }
    let (mut b_r, mut b_l) = (Vec::new(), Vec::new());
    for b in 0..lb {
        let (r, l) = split(d.thread[b])?;
        b_r.push(r);
        b_l.push(l);
    }
    // Pack along destination register bits that stay in registers.
    let per_word = if bits < 32 {
        (32 / bits).trailing_zeros() as usize
    } else {
        0
    };
    // Pack along destination register directions that stay in the source's registers (the
    // kernel of A_l): each pack vector has a free bit of its own; words run over the others.
    let mut stay = Echelon::new();
    let mut pack_vectors: Vec<u64> = Vec::new();
    let mut packs: Vec<usize> = Vec::new();
    for (i, &col) in a_l.iter().enumerate() {
        if !stay.insert(col, i as u32) && packs.len() < per_word {
            pack_vectors.push(stay.solve(col).unwrap_or(0) | 1u64 << i);
            packs.push(i);
        }
    }
    // X: lane' -> destination register, completing M's image where B_l loses directions.
    let mut x = vec![0u64; lb];
    let mut copies = vec![0u64; lb];
    let mut kernel = Echelon::new();
    let mut image = Echelon::new();
    for (b, &col) in b_l.iter().enumerate() {
        if kernel.insert(col, b as u32) {
            image.extend_span(col);
        }
    }
    for b in 0..lb {
        let Some(combo) = kernel.solve(b_l[b]) else {
            continue;
        };
        if combo == 1u64 << b {
            continue; // a pivot column
        }
        let delta = combo ^ (1u64 << b);
        let sends = combine(&b_r, delta | (1u64 << b));
        if sends == 0 {
            continue; // both lanes want the same element
        }
        // A source lane holding copies (a zero column) is read for free; otherwise a
        // destination register bit whose source lane completes the image.
        if let Some(z) = (0..lb).find(|&z| s.thread[z] == 0 && !image.contains(1u64 << z)) {
            image.extend_span(1u64 << z);
            copies[b] = 1u64 << z;
            continue;
        }
        let j = (0..dbits.len())
            .find(|&j| a_l[j] != 0 && !image.contains(a_l[j]))
            .ok_or_else(|| LowerError::new("no destination register completes the shuffle"))?;
        image.extend_span(a_l[j]);
        x[b] = 1u64 << j;
    }
    let m: Vec<u64> = (0..lb)
        .map(|b| b_l[b] ^ combine(&a_l, x[b]) ^ copies[b])
        .collect();
    let n_prime: Vec<u64> = (0..lb).map(|b| b_r[b] ^ combine(&a_r, x[b])).collect();
    // N: source lane -> source register, N(M l') = N'(l'), zero on a complement of M's image.
    let mut span = Echelon::new();
    for (b, &col) in m.iter().enumerate() {
        span.insert(col, b as u32);
    }
    for b in 0..lb {
        span.insert(1u64 << b, (lb + b) as u32);
    }
    let n: Vec<u64> = (0..lb)
        .map(|b| {
            let c = span.solve(1u64 << b).unwrap_or(0) & ((1u64 << lb) - 1);
            combine(&n_prime, c)
        })
        .collect();
    for lane in 0..1u64 << lb {
        if combine(&n, combine(&m, lane)) != combine(&n_prime, lane) {
            return Err(LowerError::new(
                "two lanes read one source lane for different registers in one round",
            ));
        }
    }
    // Sender: round k sends source register c_k ⊕ N·lane.
    let src_value = |compact: u64| src_vals[expand(compact, &sbits)];
    let send_bits: Vec<(u32, u64)> = (0..lb).filter(|&b| n[b] != 0).map(|b| (b as u32, n[b])).collect();
    let mut sender = SelectTree {
        bits: send_bits,
        memo: HashMap::new(),
        leaf: &src_value,
    };
    let rounds = 1u64 << dbits.len();
    let rest: Vec<usize> = (0..dbits.len()).filter(|i| !packs.contains(i)).collect();
    let mut received: Vec<Option<Value>> = vec![None; rounds as usize];
    for w in 0..1u64 << rest.len() {
        let word_base = rest
            .iter()
            .enumerate()
            .filter(|&(k, _)| w >> k & 1 == 1)
            .fold(0u64, |a, (_, &i)| a | 1 << i);
        let ks: Vec<u64> = (0..1u64 << packs.len())
            .map(|q| word_base ^ combine(&pack_vectors, q))
            .collect();
        let parts: Vec<Value> = ks
            .iter()
            .map(|&k| {
                let c = combine(&a_r, k) ^ combine(&n, combine(&a_l, k));
                sender.get(p, 0, c)
            })
            .collect();
        let lane = XorMap {
            cols: (0..s.thread.len())
                .map(|b| if b < lb { m[b] } else { 0 })
                .collect(),
            constant: combine(&a_l, word_base),
        };
        let words = to_words(p, &parts, bits);
        let got: Vec<Value> = words
            .iter()
            .map(|&src| {
                let dst = p.value(32);
                p.ops.push(Op::Bpermute {
                    dst,
                    src,
                    lane: lane.clone(),
                });
                dst
            })
            .collect();
        for (&k, v) in ks.iter().zip(from_words(p, &got, bits, ks.len())) {
            received[k as usize] = Some(v);
        }
    }
    // Receiver: register r' takes round r' ⊕ X·lane.
    let recv = received
        .into_iter()
        .collect::<Option<Vec<Value>>>()
        .ok_or_else(|| LowerError::new("a round of the shuffle was not received"))?;
    let recv_value = |k: u64| recv[k as usize];
    let recv_bits: Vec<(u32, u64)> = (0..lb).filter(|&b| x[b] != 0).map(|b| (b as u32, x[b])).collect();
    let mut receiver = SelectTree {
        bits: recv_bits,
        memo: HashMap::new(),
        leaf: &recv_value,
    };
    let compact: Vec<Value> = (0..rounds).map(|k| receiver.get(p, 0, k)).collect();
    Ok((0..d.registers())
        .map(|r| compact[compress(r, &dbits) as usize])
        .collect())
}

/// Exchanges of register bits with lane bit 4 or 5 by `v_permlane{16,32}_swap` (gfx950), one
/// instruction per pair of 32-bit words per exchanged bit.
pub(crate) fn permlane_swaps(
    p: &mut Program,
    s: &Dist,
    d: &Dist,
    bits: u32,
    src_vals: &[Value],
) -> Result<Vec<Value>, LowerError> {
    let sbits = distinct_bits(s);
    let mut reg: Vec<u64> = sbits.iter().map(|&b| s.reg[b]).collect();
    let mut thread = s.thread.clone();
    let mut cur: Vec<Value> = (0..1u64 << sbits.len())
        .map(|c| src_vals[expand(c, &sbits)])
        .collect();
    let per_word = if bits < 32 {
        (32 / bits).trailing_zeros() as usize
    } else {
        0
    };
    for i in 0..reg.len() {
        if d.reg.contains(&reg[i]) {
            continue;
        }
        let (kind, lane) = match [SwapKind::Rows16, SwapKind::Rows32].into_iter().find(|k| {
            let l = k.lane_bit() as usize;
            l < s.lane_bits && d.thread[l] == reg[i] && d.reg.contains(&thread[l])
        }) {
            Some(k) => (k, k.lane_bit() as usize),
            None => {
                return Err(LowerError::new(
                    "the conversion is not an exchange of register and lane bits",
                ));
            }
        };
        let others: Vec<usize> = (0..reg.len()).filter(|&j| j != i).collect();
        let (packs, rest) = others.split_at(per_word.min(others.len()));
        for w in 0..1u64 << rest.len() {
            let base = rest
                .iter()
                .enumerate()
                .filter(|&(k, _)| w >> k & 1 == 1)
                .fold(0u64, |a, (_, &j)| a | 1 << j);
            let side = |hi: bool| -> Vec<u64> {
                (0..1u64 << packs.len())
                    .map(|q| {
                        let r = packs
                            .iter()
                            .enumerate()
                            .filter(|&(k, _)| q >> k & 1 == 1)
                            .fold(base, |a, (_, &j)| a | 1 << j);
                        if hi { r | 1 << i } else { r }
                    })
                    .collect()
            };
            let (lo_regs, hi_regs) = (side(false), side(true));
            let lo_vals: Vec<Value> = lo_regs.iter().map(|&r| cur[r as usize]).collect();
            let hi_vals: Vec<Value> = hi_regs.iter().map(|&r| cur[r as usize]).collect();
            let lo_words = to_words(p, &lo_vals, bits);
            let hi_words = to_words(p, &hi_vals, bits);
            let (mut new_lo, mut new_hi) = (Vec::new(), Vec::new());
            for (&a, &b) in lo_words.iter().zip(&hi_words) {
                let dst = [p.value(32), p.value(32)];
                p.ops.push(Op::PermlaneSwap {
                    kind,
                    dst,
                    src: [a, b],
                });
                new_lo.push(dst[0]);
                new_hi.push(dst[1]);
            }
            for (&r, v) in lo_regs.iter().zip(from_words(p, &new_lo, bits, lo_regs.len())) {
                cur[r as usize] = v;
            }
            for (&r, v) in hi_regs.iter().zip(from_words(p, &new_hi, bits, hi_regs.len())) {
                cur[r as usize] = v;
            }
        }
        std::mem::swap(&mut reg[i], &mut thread[lane]);
    }
    if thread != d.thread {
        return Err(LowerError::new("the exchanges leave elements on the wrong lanes"));
    }
    let by_position: HashMap<u64, Value> = (0..cur.len() as u64)
        .map(|c| (combine(&reg, c), cur[c as usize]))
        .collect();
    (0..d.registers())
        .map(|r| {
            by_position.get(&d.reg_position(r)).copied().ok_or_else(|| {
                LowerError::new("a destination register's element is not in its thread after the exchanges")
            })
        })
        .collect()
}
