//! Shared by the `lower_*` tests: generated (layout pair, dtype, target) cases, the reference
//! check of a kernel's result, and llc.

#![allow(dead_code)]

pub mod constructs;
pub mod people;

use std::path::Path;
use std::process::Command;

use linear_layout::encodings::Encoding;
use linear_layout::linear::LinearLayout;
use linear_layout::lower::{Dtype, Kernel, run};
use linear_layout::target::Target;

/// Layouts with a description.
pub type Named = Vec<(String, LinearLayout)>;

/// One generated conversion.
pub struct Case {
    pub name: String,
    pub src: LinearLayout,
    pub dst: LinearLayout,
    pub shape: Vec<u64>,
    pub dtype: Dtype,
    pub target: &'static Target,
}

/// The six real targets (not `generic32`).
/// The targets the lowering is verified on.
pub fn targets() -> Vec<&'static Target> {
    ["gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201", "gfx1250"]
        .iter()
        .map(|n| Target::by_name(n).expect("a target row"))
        .collect()
}

pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }
    pub fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[self.below(v.len() as u64) as usize]
    }
}

fn enc(json: &str, shape: &[u64]) -> Option<LinearLayout> {
    let v: serde_json::Value = serde_json::from_str(json).ok()?;
    Encoding::from_json(&v).ok()?.to_linear_layout(shape).ok()
}

/// Realistic layouts of a 2-D tensor for a wave size and 4 warps: blocked, MFMA / WMMA, dot
/// operands.
pub fn encodings_2d(target: &Target, shape: &[u64]) -> Vec<(String, LinearLayout)> {
    let mut out = Vec::new();
    let w = target.wave_size;
    let tpws: &[[u32; 2]] = if w == 64 {
        &[[8, 8], [4, 16], [16, 4], [1, 64], [64, 1], [2, 32]]
    } else {
        &[[4, 8], [8, 4], [1, 32], [32, 1], [2, 16]]
    };
    for spt in [[1, 1], [1, 4], [1, 8], [4, 1], [2, 2]] {
        for tpw in tpws {
            for wpc in [[4, 1], [1, 4], [2, 2]] {
                for order in [[1, 0], [0, 1]] {
                    let j = format!(
                        r#"{{"kind": "blocked", "sizePerThread": {spt:?}, "threadsPerWarp": {tpw:?}, "warpsPerCTA": {wpc:?}, "order": {order:?}}}"#
                    );
                    if let Some(l) = enc(&j, shape) {
                        out.push((j, l));
                    }
                }
            }
        }
    }
    let mut mma = Vec::new();
    let (kind, version, shapes): (&str, u32, &[[u32; 3]]) = match target.name {
        "gfx90a" => ("amd_mfma", 2, &[[32, 32, 8], [16, 16, 16]]),
        "gfx942" => ("amd_mfma", 3, &[[32, 32, 8], [16, 16, 16]]),
        "gfx950" => ("amd_mfma", 4, &[[32, 32, 16], [16, 16, 32]]),
        "gfx1100" => ("amd_wmma", 1, &[[16, 16, 16]]),
        "gfx1201" => ("amd_wmma", 2, &[[16, 16, 16]]),
        _ => ("amd_wmma", 3, &[[16, 16, 32]]),
    };
    for instr in shapes {
        for t in [true, false] {
            mma.push(format!(
                r#"{{"kind": "{kind}", "version": {version}, "warpsPerCTA": [2, 2], "instrShape": {instr:?}, "isTransposed": {t}}}"#
            ));
        }
    }
    for m in &mma {
        if let Some(l) = enc(m, shape) {
            out.push((m.clone(), l));
        }
        for (op, k) in [(0, 4), (1, 4), (0, 8), (1, 8)] {
            let j = format!(r#"{{"kind": "dot_operand", "opIdx": {op}, "kWidth": {k}, "parent": {m}}}"#);
            if let Some(l) = enc(&j, shape) {
                out.push((j, l));
            }
        }
    }
    out
}

/// Warps of a distributed layout.
pub fn warps(l: &LinearLayout) -> u64 {
    if l.has_in_dim("warp") {
        l.in_dim_size("warp").unwrap()
    } else {
        1
    }
}

/// A random distributed layout over `dims` (log2 sizes): `lanes` lane bits, `warp_bits` warps,
/// the rest registers; zero (broadcast) columns where `zeros` says, XOR mixing.
pub fn random_layout(
    r: &mut Rng,
    dims: &[u32],
    lanes: usize,
    warp_bits: usize,
    zeros: usize,
) -> LinearLayout {
    let n: u32 = dims.iter().sum();
    let mut cols: Vec<u64> = (0..n).map(|i| 1u64 << i).collect();
    for i in (1..cols.len()).rev() {
        cols.swap(i, r.below(i as u64 + 1) as usize);
    }
    for k in 1..cols.len() {
        if r.below(8) == 0 {
            let j = r.below(k as u64) as usize;
            cols[k] ^= cols[j];
        }
    }
    let total = n as usize + zeros;
    let mut slots: Vec<u64> = cols;
    for _ in 0..zeros {
        let at = r.below(slots.len() as u64 + 1) as usize;
        slots.insert(at, 0);
    }
    let regs = total - lanes - warp_bits;
    let unflat = |c: u64| -> Vec<i64> {
        let mut shift = 0;
        dims.iter()
            .map(|&b| {
                let x = (c >> shift) & ((1u64 << b) - 1);
                shift += b;
                x as i64
            })
            .collect()
    };
    let part = |a: usize, b: usize| slots[a..b].iter().map(|&c| unflat(c)).collect::<Vec<_>>();
    let outs: Vec<(String, i64)> = dims
        .iter()
        .enumerate()
        .map(|(k, &b)| (format!("dim{k}"), 1i64 << b))
        .collect();
    LinearLayout::from_bases(
        [
            ("register", part(0, regs)),
            ("lane", part(regs, regs + lanes)),
            ("warp", part(regs + lanes, total)),
        ],
        outs,
        false,
    )
    .unwrap()
}

/// A layout whose register and lane columns are those of `l` moved among themselves (a
/// shuffle), or registers only (`regs_only`).
pub fn permuted(r: &mut Rng, l: &LinearLayout, regs_only: bool) -> LinearLayout {
    let get = |d: &str| l.bases(d).unwrap();
    let (mut reg, mut lane, warp) = (get("register"), get("lane"), get("warp"));
    let nr = reg.len();
    let mut all: Vec<Vec<u64>> = reg
        .drain(..)
        .chain(if regs_only {
            Vec::new()
        } else {
            std::mem::take(&mut lane)
        })
        .collect();
    for i in (1..all.len()).rev() {
        all.swap(i, r.below(i as u64 + 1) as usize);
    }
    let reg: Vec<Vec<u64>> = all[..nr].to_vec();
    let lane: Vec<Vec<u64>> = if regs_only { lane } else { all[nr..].to_vec() };
    let i64s = |v: Vec<Vec<u64>>| {
        v.into_iter()
            .map(|b| b.into_iter().map(|x| x as i64).collect())
            .collect::<Vec<Vec<i64>>>()
    };
    let outs: Vec<(String, i64)> = l.out_dims().map(|(n, s)| (n.to_string(), s as i64)).collect();
    LinearLayout::from_bases(
        [
            ("register", i64s(reg)),
            ("lane", i64s(lane)),
            ("warp", i64s(warp)),
        ],
        outs,
        false,
    )
    .unwrap()
}

/// `l` with a register basis and lane basis 4 or 5 exchanged (what gfx950's permlane swaps do).
pub fn swapped(r: &mut Rng, l: &LinearLayout) -> Option<LinearLayout> {
    let (mut reg, mut lane, warp) = (
        l.bases("register").ok()?,
        l.bases("lane").ok()?,
        l.bases("warp").ok()?,
    );
    if reg.is_empty() || lane.len() < 5 {
        return None;
    }
    let j = r.below(reg.len() as u64) as usize;
    let k = 4 + r.below((lane.len() - 4).min(2) as u64) as usize;
    std::mem::swap(&mut reg[j], &mut lane[k]);
    let i64s = |v: Vec<Vec<u64>>| {
        v.into_iter()
            .map(|b| b.into_iter().map(|x| x as i64).collect())
            .collect::<Vec<Vec<i64>>>()
    };
    let outs: Vec<(String, i64)> = l.out_dims().map(|(n, s)| (n.to_string(), s as i64)).collect();
    LinearLayout::from_bases(
        [
            ("register", i64s(reg)),
            ("lane", i64s(lane)),
            ("warp", i64s(warp)),
        ],
        outs,
        false,
    )
    .ok()
}

/// Runs `k` on random input and checks `out = in` and (for `convert`) every `regs` entry
/// against `dst`'s apply.
pub fn check(k: &Kernel, dst: &LinearLayout, shape: &[u64], dtype: Dtype, seed: u64) -> Result<(), String> {
    let bytes = (dtype.bits() / 8) as usize;
    let elements: u64 = shape.iter().product();
    let mut r = Rng(seed | 1);
    let input: Vec<u8> = (0..elements as usize * bytes).map(|_| r.next() as u8).collect();
    let mut buffers: Vec<Vec<u8>> = k
        .program
        .buffers
        .iter()
        .map(|b| vec![0u8; b.bytes().unwrap_or(0) as usize])
        .collect();
    buffers[0] = input.clone();
    run(&k.program, &mut buffers).map_err(|e| format!("interpreter: {e}"))?;
    if buffers[1] != input {
        let bad = (0..input.len()).find(|&i| buffers[1][i] != input[i]).unwrap_or(0) / bytes;
        return Err(format!("out != in (first differing element {bad})"));
    }
    if buffers.len() < 3 {
        return Ok(());
    }
    let regs = if dst.has_in_dim("register") {
        dst.in_dim_size("register").unwrap()
    } else {
        1
    };
    let wave = u64::from(k.program.wave_size);
    let n = shape.len();
    // Flat positions (dim0 in the low bits) by in-dim, then coordinates.
    let flat = dst.flatten_outs().map_err(|e| e.to_string())?;
    let cols = |d: &str| -> Vec<u64> {
        if flat.has_in_dim(d) {
            flat.flat_bases(d).unwrap().to_vec()
        } else {
            Vec::new()
        }
    };
    let (rc, lc, wc) = (cols("register"), cols("lane"), cols("warp"));
    let pos = |c: &[u64], x: u64| {
        c.iter()
            .enumerate()
            .filter(|&(i, _)| x >> i & 1 == 1)
            .fold(0, |a, (_, &v)| a ^ v)
    };
    let bits: Vec<u32> = dst.out_dims().map(|(_, s)| s.trailing_zeros()).collect();
    for t in 0..u64::from(k.program.threads) {
        let tp = pos(&lc, t % wave) ^ pos(&wc, t / wave);
        for reg in 0..regs {
            let p = tp ^ pos(&rc, reg);
            let mut shift = 0;
            let mut off = 0u64;
            let mut inside = true;
            for d in 0..n {
                let c = (p >> shift) & ((1u64 << bits[d]) - 1);
                shift += bits[d];
                inside &= c < shape[d];
                off = off * shape[d] + c;
            }
            let want: &[u8] = if inside {
                &input[off as usize * bytes..(off as usize + 1) * bytes]
            } else {
                &[0u8; 8][..bytes]
            };
            let at = ((t * regs + reg) as usize) * bytes;
            if &buffers[2][at..at + bytes] != want {
                return Err(format!("regs[{t}*{regs}+{reg}] is wrong"));
            }
        }
    }
    Ok(())
}

/// `llc-22`, if installed.
pub fn llc() -> Option<&'static str> {
    let ok = Command::new("llc-22")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        Some("llc-22")
    } else {
        eprintln!("note: llc-22 is not installed; the llc checks are skipped");
        None
    }
}

/// Compiles `ir` for `target` with `-verify-machineinstrs`; returns the assembly.
pub fn compile(llc: &str, ir: &str, target: &Target, dir: &Path, name: &str) -> Result<String, String> {
    let ll = dir.join(format!("{name}.ll"));
    let s = dir.join(format!("{name}.s"));
    std::fs::write(&ll, ir).map_err(|e| e.to_string())?;
    let out = Command::new(llc)
        .args([
            "-march=amdgcn",
            &format!("-mcpu={}", target.name),
            "-verify-machineinstrs",
            "-o",
        ])
        .arg(&s)
        .arg(&ll)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "llc failed on {}: {}",
            ll.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let asm = std::fs::read_to_string(&s).map_err(|e| e.to_string())?;
    if !asm.contains(".amdhsa_kernel ") {
        return Err(format!("llc emitted no kernel for {}", ll.display()));
    }
    Ok(asm)
}

/// Instruction counts of the kernel body by mnemonic, encoding and sub-dword suffixes folded
/// (`v_permlane32_swap_b32_e32` → `v_permlane32_swap_b32`, `ds_read_u16_d16_hi` →
/// `ds_read_u16`), barriers in every spelling as `s_barrier`.
pub fn asm_counts(asm: &str) -> std::collections::BTreeMap<String, u64> {
    let mut m = std::collections::BTreeMap::new();
    let mut inside = false;
    for line in asm.lines() {
        let t = line.trim();
        let code = t.split(';').next().unwrap_or("").trim();
        if code.ends_with(':') && !code.starts_with('.') && !code.starts_with('$') {
            inside = true;
            continue;
        }
        if !inside {
            continue;
        }
        if t.starts_with("s_endpgm") {
            inside = false;
            continue;
        }
        let word = if t.starts_with("; wave barrier") {
            "s_barrier".to_string()
        } else if t.is_empty() || t.starts_with(';') || t.starts_with('.') {
            continue;
        } else {
            let w = t.split_whitespace().next().unwrap_or("");
            let w = w.trim_end_matches("_e32").trim_end_matches("_e64");
            let w = w.trim_end_matches("_d16_hi").trim_end_matches("_d16");
            match w {
                "s_barrier_signal" => "s_barrier".to_string(),
                "s_barrier_wait" => continue,
                _ => w.to_string(),
            }
        };
        *m.entry(word).or_insert(0) += 1;
    }
    m
}

/// (tensor shape, the layouts' power-of-two shape), masked shapes among them.
pub fn shapes_for(r: &mut Rng) -> (Vec<u64>, Vec<u64>) {
    match r.below(8) {
        0 => (vec![32, 48], vec![32, 64]),
        1 => (vec![24, 64], vec![32, 64]),
        2 => (vec![64, 64], vec![64, 64]),
        3 => (vec![64, 32], vec![64, 32]),
        4 => (vec![16, 64], vec![16, 64]),
        _ => (vec![32, 64], vec![32, 64]),
    }
}

/// Generates the conversion cases: realistic encoding pairs and random layouts, shuffles and
/// register permutations derived from them.
pub fn cases(per_target: usize, seed: u64) -> Vec<Case> {
    let mut r = Rng(seed);
    let mut out = Vec::new();
    let mut known: std::collections::HashMap<(&str, Vec<u64>), Named> = Default::default();
    for t in targets() {
        let lanes = t.wave_size.trailing_zeros() as usize;
        for i in 0..per_target {
            let dtype = r.pick(&Dtype::ALL);
            let (shape, padded) = shapes_for(&mut r);
            let (name, src, dst) = match i % 4 {
                0 | 1 => {
                    let layouts = known
                        .entry((t.name, padded.clone()))
                        .or_insert_with(|| encodings_2d(t, &padded));
                    let (a, la) = &layouts[r.below(layouts.len() as u64) as usize];
                    let same: Vec<&(String, _)> =
                        layouts.iter().filter(|(_, l)| warps(l) == warps(la)).collect();
                    let (b, lb) = same[r.below(same.len() as u64) as usize];
                    (format!("{a} -> {b}"), la.clone(), lb.clone())
                }
                2 => {
                    let dims = [padded[0].trailing_zeros(), padded[1].trailing_zeros()];
                    let zeros = r.below(2) as usize;
                    let warp_bits = r.below(3) as usize;
                    let a = random_layout(&mut r, &dims, lanes, warp_bits, zeros);
                    let zb = r.below(2) as usize;
                    let b = random_layout(&mut r, &dims, lanes, warp_bits, zb);
                    ("random".to_string(), a, b)
                }
                _ => {
                    let dims = [padded[0].trailing_zeros(), padded[1].trailing_zeros()];
                    let (wb, z) = (r.below(3) as usize, r.below(2) as usize);
                    let a = random_layout(&mut r, &dims, lanes, wb, z);
                    if t.instructions.permlane_swap
                        && r.below(2) == 0
                        && let Some(b) = swapped(&mut r, &a)
                    {
                        out.push(Case {
                            name: "random, a register and lane 4 or 5 exchanged".into(),
                            src: a,
                            dst: b,
                            shape,
                            dtype,
                            target: t,
                        });
                        continue;
                    }
                    let regs_only = r.below(3) == 0;
                    let b = permuted(&mut r, &a, regs_only);
                    (format!("random permuted (registers only: {regs_only})"), a, b)
                }
            };
            out.push(Case {
                name,
                src,
                dst,
                shape,
                dtype,
                target: t,
            });
        }
    }
    out
}

/// Instructions of `counts` ([`asm_counts`]) whose mnemonic starts with one of `prefixes`.
pub fn family_count(counts: &std::collections::BTreeMap<String, u64>, prefixes: &[&str]) -> u64 {
    counts
        .iter()
        .filter(|(m, _)| prefixes.iter().any(|p| m.starts_with(p)))
        .map(|(_, n)| n)
        .sum()
}

/// Body instruction lines, as codegen-anchor.md counts them (`s_endpgm` included), over the
/// whole function: a kernel whose masked stores branch out of line has blocks after its first
/// `s_endpgm`, and they count too.
pub fn total(asm: &str) -> u64 {
    let (mut inside, mut n) = (false, 0);
    for line in asm.lines() {
        let code = line.trim().split(';').next().unwrap_or("").trim();
        if !inside {
            inside = code.ends_with(':') && !code.starts_with('.') && !code.starts_with('$');
            continue;
        }
        if code.starts_with(".Lfunc_end") || code.starts_with(".size") {
            break;
        }
        if code.is_empty() || code.starts_with('.') || code.ends_with(':') {
            continue;
        }
        n += 1;
    }
    n
}

/// A number from the kernel metadata of llc's assembly (`.vgpr_count:`, …), 0 if absent.
pub fn metadata(asm: &str, key: &str) -> u64 {
    asm.lines()
        .find_map(|l| l.trim().strip_prefix(key).and_then(|v| v.trim().parse().ok()))
        .unwrap_or(0)
}

/// Runs a matmul tile case (the emulator tool's format, inputs `int3`: small integers, so sums
/// are exact) and checks `c[i·scm + j] = Σ_k a[i·sam + k] · b[k·sbk + j]` over the block.
pub fn check_matmul(case: &serde_json::Value, k: &Kernel) -> Result<(), String> {
    let mut r = Rng(case["seed"].as_u64().unwrap_or(1) | 1);
    let args = case["args"].as_array().unwrap();
    let mut buffers: Vec<(Vec<u8>, &str)> = Vec::new();
    let mut scalars = Vec::new();
    for a in args {
        if a["kind"] == "ptr" {
            let ty = a["dtype"].as_str().unwrap();
            let bytes = ty[1..].parse::<usize>().unwrap() / 8;
            let n = a["elems"].as_u64().unwrap() as usize;
            let mut data = vec![0u8; n * bytes];
            if a["init"] == "int3" {
                for e in 0..n {
                    let v = linear_layout::lower::numeric::encode(ty, r.below(7) as f64 - 3.0).unwrap();
                    data[e * bytes..(e + 1) * bytes].copy_from_slice(&v.to_le_bytes()[..bytes]);
                }
            }
            buffers.push((data, ty));
        } else {
            scalars.push(a["value"].as_u64().unwrap());
        }
    }
    let mut data: Vec<Vec<u8>> = buffers.iter().map(|b| b.0.clone()).collect();
    linear_layout::lower::run_with(&k.program, &mut data, &scalars)
        .map_err(|e| format!("interpreter: {e}"))?;
    let value = |buffer: usize, i: usize| -> f64 {
        let ty = buffers[buffer].1;
        let bytes = ty[1..].parse::<usize>().unwrap() / 8;
        let mut x = [0u8; 8];
        x[..bytes].copy_from_slice(&data[buffer][i * bytes..(i + 1) * bytes]);
        linear_layout::lower::numeric::decode(ty, u64::from_le_bytes(x)).unwrap()
    };
    let input = |buffer: usize, i: usize| -> f64 {
        let ty = buffers[buffer].1;
        let bytes = ty[1..].parse::<usize>().unwrap() / 8;
        let mut x = [0u8; 8];
        x[..bytes].copy_from_slice(&buffers[buffer].0[i * bytes..(i + 1) * bytes]);
        linear_layout::lower::numeric::decode(ty, u64::from_le_bytes(x)).unwrap()
    };
    let cex = &case["constexprs"];
    let (bm, bn, bk) = (
        cex["BM"].as_u64().unwrap() as usize,
        cex["BN"].as_u64().unwrap() as usize,
        cex["BK"].as_u64().unwrap() as usize,
    );
    let int = |name: &str| -> usize {
        case["args"]
            .as_array()
            .and_then(|a| a.iter().find(|x| x["name"] == name))
            .and_then(|x| x["value"].as_u64())
            .unwrap_or(0) as usize
    };
    let (sam, sbk, scm) = (int("sam"), int("sbk"), int("scm"));
    // A K loop's K is an argument; a single step's is BK.
    let has_k = case["args"]
        .as_array()
        .is_some_and(|a| a.iter().any(|x| x["name"] == "K"));
    let bk = if has_k { int("K") } else { bk };
    for i in 0..bm {
        for j in 0..bn {
            let want: f64 = (0..bk)
                .map(|kk| input(0, i * sam + kk) * input(1, kk * sbk + j))
                .sum();
            let got = value(2, i * scm + j);
            if got != want {
                return Err(format!("c[{i}][{j}] = {got}, want {want}"));
            }
        }
    }
    Ok(())
}
