//! Which conversions Triton lowers as warp shuffles and which through shared memory.
//!
//! Triton 3.6 lowers a conversion that moves registers and lanes (no warps) with shuffles only
//! when its register↔lane permutation factors into register and lane permutations and at most
//! one register↔lane transposition (`getWarpLayoutConvertDecomposition`); anything else goes
//! through shared memory. Its passes ask the same question (`cvtNeedsSharedMemory`) — the
//! data-duplication pass, for one, only stages a dot operand through shared memory when the
//! conversion would go there anyway.

use crate::linear::LinearLayout;

use super::ConvertError;
use super::classify::classify;

/// Triton 3.6's `cvtNeedsSharedMemory`: whether Triton lowers `src → dst` through shared
/// memory. It does unless the conversion only reorders registers, or is a warp shuffle of the
/// form its lowering takes: the minimal conversion moves exactly registers and lanes, and
/// factoring it into register and lane permutations leaves fewer than two register↔lane
/// transpositions ([`mixed_transpositions`]). A conversion moving lanes only goes through
/// shared memory in Triton.
///
/// ```
/// use linear_layout::heuristics::convert::triton_uses_shared_memory;
/// use linear_layout::linear::LinearLayout;
/// let l = LinearLayout::from_bases([("register", vec![vec![1]]), ("lane", vec![vec![2]])], [("dim0", 4)], true)?;
/// let swapped = LinearLayout::from_bases([("register", vec![vec![2]]), ("lane", vec![vec![1]])], [("dim0", 4)], true)?;
/// assert!(!triton_uses_shared_memory(&l, &l)?);
/// assert!(!triton_uses_shared_memory(&l, &swapped)?); // one register↔lane transposition
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn triton_uses_shared_memory(src: &LinearLayout, dst: &LinearLayout) -> Result<bool, ConvertError> {
    let c = classify(src, dst)?;
    let dims: Vec<String> = c.minimal.out_dim_names().map(|d| d.to_string()).collect();
    if dims.is_empty() || dims == ["register"] {
        return Ok(false);
    }
    if dims != ["register", "lane"] {
        return Ok(true);
    }
    Ok(mixed_transpositions(src, dst)? >= 2)
}

/// How many register↔lane transpositions Triton 3.6's `getWarpLayoutConvertDecomposition`
/// factors out of the register-and-lane permutation taking `src` to `dst` (broadcast
/// registers removed, the smaller side padded with zero bases, zero bases paired up).
///
/// Law: a conversion to itself has none; swapping one register bit with one lane bit has one.
///
/// ```
/// use linear_layout::heuristics::convert::mixed_transpositions;
/// use linear_layout::linear::LinearLayout;
/// let l = LinearLayout::from_bases([("register", vec![vec![1], vec![2]]), ("lane", vec![vec![4], vec![8]])], [("dim0", 16)], true)?;
/// let t = LinearLayout::from_bases([("register", vec![vec![4], vec![8]]), ("lane", vec![vec![1], vec![2]])], [("dim0", 16)], true)?;
/// assert_eq!(mixed_transpositions(&l, &l)?, 0);
/// assert_eq!(mixed_transpositions(&l, &t)?, 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn mixed_transpositions(src: &LinearLayout, dst: &LinearLayout) -> Result<usize, ConvertError> {
    let err = |e: crate::linear::LayoutError| ConvertError::new(e.to_string());
    let strip = |l: &LinearLayout| -> Result<LinearLayout, ConvertError> {
        if l.has_in_dim("register") {
            l.remove_zero_bases_along_dim("register").map_err(err)
        } else {
            Ok(l.clone())
        }
    };
    let (s, t) = (strip(src)?, strip(dst)?);
    let bases = |l: &LinearLayout, d: &str| -> Vec<Vec<i64>> {
        l.bases(d)
            .unwrap_or_default()
            .into_iter()
            .map(|b| b.into_iter().map(|x| x as i64).collect())
            .collect()
    };
    let outs: Vec<(String, i64)> = s.out_dims().map(|(n, sz)| (n.to_string(), sz as i64)).collect();
    let zero = vec![0i64; outs.len()];
    let (mut sr, mut sl, mut tr, mut tl) = (
        bases(&s, "register"),
        bases(&s, "lane"),
        bases(&t, "register"),
        bases(&t, "lane"),
    );
    let n_reg = sr.len().max(tr.len());
    let n_lane = sl.len().max(tl.len());
    for v in [&mut sr, &mut tr] {
        v.resize(n_reg, zero.clone());
    }
    for v in [&mut sl, &mut tl] {
        v.resize(n_lane, zero.clone());
    }
    let build = |r: &[Vec<i64>], l: &[Vec<i64>]| {
        LinearLayout::from_bases(
            [("register", r.to_vec()), ("lane", l.to_vec())],
            outs.iter().map(|(n, sz)| (n.as_str(), *sz)),
            false,
        )
        .map_err(err)
    };
    let (sl_layout, tl_layout) = (build(&sr, &sl)?, build(&tr, &tl)?);
    let p = sl_layout.invert_and_compose(&tl_layout).map_err(err)?;
    let p_outs: Vec<String> = p.out_dim_names().map(|d| d.to_string()).collect();
    // pBases[dim][i] as (register part, lane part).
    let mut pb: [Vec<[u64; 2]>; 2] = [vec![[0, 0]; n_reg], vec![[0, 0]; n_lane]];
    for (di, d) in ["register", "lane"].iter().enumerate() {
        for (i, b) in p.bases(d).unwrap_or_default().into_iter().enumerate() {
            if let Some(slot) = pb[di].get_mut(i) {
                for (k, name) in p_outs.iter().enumerate() {
                    let j = usize::from(name == "lane");
                    slot[j] = b.get(k).copied().unwrap_or(0);
                }
            }
        }
    }
    let is_zero = |v: &[i64]| v.iter().all(|&x| x == 0);
    let (mut src_free, mut dst_free) = (Vec::new(), Vec::new());
    for (di, (sv, tv)) in [(&sr, &tr), (&sl, &tl)].into_iter().enumerate() {
        for i in 0..sv.len() {
            match (is_zero(&sv[i]), is_zero(&tv[i])) {
                (true, true) => pb[di][i][di] = 1 << i,
                (true, false) => src_free.push((di, i)),
                (false, true) => dst_free.push((di, i)),
                _ => {}
            }
        }
    }
    for (&(sd, si), &(dd, dj)) in src_free.iter().zip(&dst_free) {
        pb[sd][si][dd] = 1 << dj;
    }
    let sizes = [n_reg, n_lane];
    let flat = |d: usize, i: usize| if d == 0 { i } else { n_reg + i };
    let mut visited = vec![false; n_reg + n_lane];
    let mut count = 0;
    for d in 0..2 {
        for i in 0..sizes[d] {
            if visited[flat(d, i)] {
                continue;
            }
            let (entry_d, entry_i) = (d, i);
            let (mut cd, mut ci) = (d, i);
            let (mut reg_start, mut reg_end) = (false, false);
            // A permutation visits each bit once: at most n_reg + n_lane steps.
            for _ in 0..=(n_reg + n_lane) {
                visited[flat(cd, ci)] = true;
                let next = pb[cd][ci];
                let Some((nd, v)) = next.iter().enumerate().rev().find(|(_, v)| **v != 0) else {
                    return Err(ConvertError::new(
                        "the register and lane bits do not form a permutation",
                    ));
                };
                let ni = v.trailing_zeros() as usize;
                match (cd, nd) {
                    (0, 1) => reg_start = true,
                    (1, 0) => reg_end = true,
                    _ => {}
                }
                if reg_end {
                    if reg_start {
                        count += 1;
                    }
                    reg_start = false;
                    reg_end = false;
                }
                cd = nd;
                ci = ni;
                if flat(cd, ci) == flat(entry_d, entry_i) {
                    break;
                }
            }
        }
    }
    Ok(count)
}
