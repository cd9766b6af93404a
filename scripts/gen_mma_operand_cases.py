#!/usr/bin/env python3
"""Generate AMD matrix-core operand cases: WMMA and MFMA dot operands of every rank-3
shape class, answered by Triton 3.6.

gen_cases.py (the oracle's generator) draws tilesPerWarp only for the M and N dims, so the
batch entry of a rank-3 parent is always 1, and its shapes stay near the parent's tile.
This script fills that gap. For each case it draws

  * a parent: `amd_wmma` (versions 1-3, every legal instrShape, both transpositions) or
    `amd_mfma` (every instrShape of gen_cases.py, elementBitWidth 32/64), with
    warpsPerCTA over all three dims (batch warps included) and tilesPerWarp drawn
    independently for batch, M and N from {1, 2, 4, 8};
  * a dot operand of it: opIdx 0/1, every kWidth the parent allows (WMMA v1 8/16,
    v2 4/8/16, v3 2/8/16; MFMA 1-16, 1 for f64);
  * a shape: batch 1-8, and M/N and K extents from 1 up to 4x the parent's coverage,
    biased towards extents *below* the parent's tile (the broadcast cases).

About a third of the parents get a multi-CTA cgaLayout (1-2 block bases along any dim,
K included), about a sixth of the cases are rank 2 (the same draws without a batch dim),
a tenth are a slice of the operand (one dim removed), and a few are the parent itself on
the operand's shape, so that the result encodings' handling of a batch tilesPerWarp and of
a CGA split is recorded too. A few hand-picked requests (`EXTRA`) follow: a batch
tilesPerWarp larger than the batch extent, and a CGA split along K with one and with
several tiles per warp along the non-K dim. Every request is answered by the real Triton through
the oracle's ll_oracle.py and written whatever the answer (Triton rejects a few shapes,
e.g. WMMA results whose M or N extent is between 1 and 16), in gen_cases.py's format:

    {"id": "...", "kind": "dot_operand", "input": {"encoding": {...}, "shape": [...]},
     "expected": {"ok": true, "in_dims": {...}, "out_dims": {...}}}

Usage (from the repository root):

    /work/shared/oracle/oracle-python scripts/gen_mma_operand_cases.py \
        --seed 21 --count 600 --out tests/fixtures/encodings/mma-operands-seed21.jsonl

The oracle directory defaults to /work/shared/oracle (override with --oracle-dir or
$LL_ORACLE_DIR). The output is deterministic for a seed.
"""

import argparse
import json
import os
import random
import sys

WMMA_INSTR = {1: [[16, 16, 16]], 2: [[16, 16, 16], [16, 16, 32]],
              3: [[16, 16, 4], [16, 16, 32], [16, 16, 64], [16, 16, 128]]}
WMMA_KWIDTH = {1: [8, 16], 2: [4, 8, 16], 3: [2, 8, 16]}
MFMA_INSTR = [  # (M, N, K, versions, elementBitWidth)
    (32, 32, 8, (1, 2, 3), 32), (32, 32, 16, (3, 4), 32),
    (32, 32, 4, (1, 2, 3, 4), 32), (16, 16, 16, (1, 2, 3), 32),
    (16, 16, 32, (3, 4), 32), (16, 16, 128, (4,), 32), (16, 16, 4, (2, 3, 4), 64),
    (4, 64, 4, (1, 2, 3, 4), 32), (64, 4, 4, (1, 2, 3, 4), 32),
]
TPW = [1, 1, 2, 4, 8]
MAX_LOG2_ELEMS = 16


def log2(n):
    return n.bit_length() - 1


def warps(rng, rank):
    """warpsPerCTA with 1-8 warps spread over all dims (batch included)."""
    w = [1] * rank
    for _ in range(rng.choice([0, 1, 2, 3])):
        w[rng.randrange(rank)] *= 2
    return w


def wmma_parent(rng, rank):
    version = rng.choice([1, 2, 3])
    instr = rng.choice(WMMA_INSTR[version])
    enc = {"kind": "amd_wmma", "version": version, "warpsPerCTA": warps(rng, rank),
           "isTransposed": rng.random() < 0.5, "tilesPerWarp": [rng.choice(TPW) for _ in range(rank)]}
    if instr != [16, 16, 16] or rng.random() < 0.5:
        enc["instrShape"] = instr
    return enc, instr, rng.choice(WMMA_KWIDTH[version])


def mfma_parent(rng, rank):
    m, n, k, versions, ebw = rng.choice(MFMA_INSTR)
    enc = {"kind": "amd_mfma", "version": rng.choice(versions), "warpsPerCTA": warps(rng, rank),
           "instrShape": [m, n, k], "isTransposed": (m, n) == (64, 4) or rng.random() < 0.5,
           "tilesPerWarp": [rng.choice(TPW) for _ in range(rank)]}
    if ebw == 64:
        enc["elementBitWidth"] = 64
    kwidth = 1 if ebw == 64 else rng.choice([1, 2, 4, 8, 16])
    return enc, [m, n, k], kwidth


def extent(rng, tile):
    """A power of two from 1 to 4x `tile`, below the tile about half the time."""
    top = log2(max(1, tile))
    if rng.random() < 0.5:
        return 1 << rng.randint(0, max(0, top - 1))
    return 1 << rng.randint(top, top + 2)


def propose(rng):
    rank = 2 if rng.random() < 1 / 6 else 3
    parent, instr, kwidth = (wmma_parent if rng.random() < 0.6 else mfma_parent)(rng, rank)
    op = rng.choice([0, 1])
    w, t = parent["warpsPerCTA"], parent["tilesPerWarp"]
    m_cov = instr[0] * w[-2] * t[-2]
    n_cov = instr[1] * w[-1] * t[-1]
    lanes = 32 if parent["kind"] == "amd_wmma" else 64
    k_tile = max(instr[2], kwidth * max(1, lanes // (instr[0] if op == 0 else instr[1])))
    non_k = extent(rng, m_cov if op == 0 else n_cov)
    k = extent(rng, k_tile)
    shape = [non_k, k] if op == 0 else [k, non_k]
    if rank == 3:
        shape = [rng.choice([1, 1, 2, 4, 8])] + shape
    if rng.random() < 0.3:
        # Several CTAs: 1-2 block bases, each doubling one dim (K included) of the tensor.
        cga, split = [], [1] * rank
        for _ in range(rng.choice([1, 1, 2])):
            d = rng.randrange(rank)
            basis = [0] * rank
            basis[d] = split[d]
            split[d] *= 2
            cga.append(basis)
        parent["cgaLayout"] = cga
        shape = [s * f for s, f in zip(shape, split)]
    while sum(log2(s) for s in shape) > MAX_LOG2_ELEMS:
        d = max(range(rank), key=lambda i: shape[i])
        shape[d] //= 2
    if rng.random() < 0.08:
        return parent["kind"], parent, shape
    dot = {"kind": "dot_operand", "opIdx": op, "parent": parent, "kWidth": kwidth}
    if rng.random() < 0.1:
        # A slice of the operand (a reduction of it), one dim removed.
        d = rng.randrange(rank)
        return "slice", {"kind": "slice", "dim": d, "parent": dot}, shape[:d] + shape[d + 1:]
    return "dot_operand", dot, shape


def wmma_dot(op, kwidth, warps, tpw, instr, shape, cga=None, version=3):
    parent = {"kind": "amd_wmma", "version": version, "warpsPerCTA": warps,
              "isTransposed": False, "tilesPerWarp": tpw, "instrShape": instr}
    if cga:
        parent["cgaLayout"] = cga
    return {"encoding": {"kind": "dot_operand", "opIdx": op, "parent": parent, "kWidth": kwidth},
            "shape": shape}


EXTRA = [
    # A batch tilesPerWarp larger than the batch extent: no tiles along the batch dim.
    wmma_dot(1, 16, [1, 2, 4], [4, 2, 1], [16, 16, 128], [1, 32, 128]),
    wmma_dot(1, 16, [1, 2, 4], [1, 2, 1], [16, 16, 128], [1, 32, 128]),
    wmma_dot(1, 16, [1, 2, 4], [4, 2, 1], [16, 16, 128], [8, 32, 128]),
    wmma_dot(0, 8, [2, 1, 2], [8, 1, 1], [16, 16, 32], [2, 16, 64], version=2),
    # A CGA split along K, with one and with two tiles per warp along the non-K dim.
    wmma_dot(0, 16, [2, 1], [1, 1], [16, 16, 64], [256, 512], [[0, 1]]),
    wmma_dot(0, 16, [2, 1], [2, 1], [16, 16, 64], [256, 512], [[0, 1]]),
    wmma_dot(0, 16, [2, 1], [2, 1], [16, 16, 64], [32, 128], [[0, 1], [0, 2]]),
    wmma_dot(1, 16, [1, 1, 1], [1, 1, 1], [16, 16, 128], [2, 1024, 2], [[0, 1, 0]]),
    wmma_dot(1, 16, [1, 1, 1], [1, 1, 4], [16, 16, 128], [2, 1024, 2], [[0, 1, 0]]),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--count", type=int, default=600)
    ap.add_argument("--out", required=True)
    ap.add_argument("--oracle-dir", default=os.environ.get("LL_ORACLE_DIR", "/work/shared/oracle"))
    args = ap.parse_args()
    sys.path.insert(0, args.oracle_dir)
    import gen_cases as gc  # for OracleProc (one forked Triton call per request)

    rng = random.Random("%s/mma-operands" % args.seed)
    oracle = gc.OracleProc(sys.executable, via="binding")
    seen = set()
    counts = {}
    with open(args.out, "w") as out:
        n = tries = 0
        while n < args.count and tries < args.count * 20:
            tries += 1
            kind, enc, shape = propose(rng)
            request = {"encoding": enc, "shape": shape}
            key = json.dumps(request, sort_keys=True)
            if key in seen:
                continue
            seen.add(key)
            result = oracle.ask(request)
            result.pop("via", None)
            parent = enc
            while "parent" in parent:
                parent = parent["parent"]
            parent = parent["kind"]
            group = "%s-%s-rank%d" % (kind, parent, len(shape))
            out.write(json.dumps({"id": "mma-%s-%04d" % (kind, n), "kind": kind, "input": request,
                                  "expected": result}) + "\n")
            counts.setdefault(group, [0, 0])[0 if result.get("ok") else 1] += 1
            n += 1
        for i, request in enumerate(EXTRA):
            result = oracle.ask(request)
            result.pop("via", None)
            out.write(json.dumps({"id": "mma-extra-%04d" % i, "kind": "dot_operand",
                                  "input": request, "expected": result}) + "\n")
            counts.setdefault("extra", [0, 0])[0 if result.get("ok") else 1] += 1
            n += 1
    oracle.close()
    for group, (ok, bad) in sorted(counts.items()):
        print("%-34s accepted %3d rejected %3d" % (group, ok, bad), file=sys.stderr)
    print("total %d cases -> %s" % (n, args.out), file=sys.stderr)


if __name__ == "__main__":
    main()
