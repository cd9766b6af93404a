#!/usr/bin/env python3
"""Generate the bank-conflict fixtures of tests/convert_cost.rs from Triton 3.6.0.

    /work/shared/oracle/oracle-python scripts/gen_convert_fixtures.py \
        [--seed 1] [--count 2400] [--out tests/fixtures/convert/bank_conflicts_generic32.jsonl]

Builds `count` random `bank_conflicts` requests (target generic32: Triton's own model,
GluonOpBuilder.get_shared_bank_conflicts), pipes them through the oracle's
triton_batch.py (which evaluates each in a forked child, so Triton aborts become
ok: false answers), and writes one JSON object per line:
    {"request": {...}, "response": {...}}

Request mix (deterministic for a seed):
* distributed: ~65-80% random linear layouts (register/lane/warp bases; 32 or 64 lanes;
  some broadcast lanes/registers; some non-unit bases mixed by XOR), ~20% blocked
  encodings, ~15% of the rank-2 cases amd_mfma / amd_wmma encodings;
* shared: ~60% random XOR-swizzled shared_linear layouts (a permutation of the tensor
  bits with lower offset bits XOR-ed into higher ones), ~40% swizzled_shared encodings,
  ~2% padded_shared (which Triton 3.6 rejects);
* shape: rank 1-3, 2^6 .. 2^13 elements; element_bits in {8, 16, 32, 64}.
"""

import argparse
import json
import os
import random
import subprocess
import sys

ORACLE = "/work/shared/oracle"


def rand_shape(rng):
    total = rng.randint(6, 13)
    rank = rng.choice([1, 2, 2, 2, 2, 3])
    cuts = sorted(rng.randint(0, total) for _ in range(rank - 1))
    bits = [b - a for a, b in zip([0] + cuts, cuts + [total])]
    return [1 << b for b in bits]


def unit(shape, flat_bit):
    """The tensor coordinate vector of flattened bit `flat_bit` (dim0 fastest)."""
    coords = []
    for d in shape:
        db = d.bit_length() - 1
        if flat_bit < db and flat_bit >= 0:
            coords.append(1 << flat_bit)
        else:
            coords.append(0)
        flat_bit -= db
    return coords


def xor(a, b):
    return [x ^ y for x, y in zip(a, b)]


def rand_distributed(rng, shape):
    n = sum(d.bit_length() - 1 for d in shape)
    lane_bits = rng.choice([5, 5, 6])
    bits = list(range(n))
    rng.shuffle(bits)
    vecs = [unit(shape, b) for b in bits]
    # Mix some bases (stays invertible: triangular XOR). Triton requires each base of a
    # distributed layout to move in one dimension only, so mixing stays inside a dimension,
    # except in ~5% of the cases (which Triton rejects).
    cross = rng.random() < 0.05
    if rng.random() < 0.4:
        for i in range(1, len(vecs)):
            j = rng.randrange(i)
            same = [k for k, x in enumerate(vecs[i]) if x] == [k for k, x in enumerate(vecs[j]) if x]
            if rng.random() < 0.4 and (same or cross):
                vecs[i] = xor(vecs[i], vecs[j])
    # lanes take up to lane_bits of them (the rest of the lanes broadcast)
    n_lane = min(lane_bits, len(vecs))
    if rng.random() < 0.15 and n_lane > 2:
        n_lane -= rng.randint(1, 2)
    rest = len(vecs) - n_lane
    n_warp = min(rng.randint(0, 3), rest)
    n_reg = rest - n_warp
    zero = [0] * len(shape)
    # registers first (so a vector may form), lanes, warps, in shuffled order
    regs = vecs[:n_reg]
    lanes = vecs[n_reg:n_reg + n_lane]
    warps = vecs[n_reg + n_lane:]
    while len(lanes) < lane_bits:
        lanes.insert(rng.randint(0, len(lanes)), zero)
    if rng.random() < 0.1:
        regs.insert(rng.randint(0, len(regs)), zero)
    if rng.random() < 0.5:   # contiguous registers: sort register bases by value
        regs.sort(key=lambda v: sum(x << (8 * i) for i, x in enumerate(v)))
    ins = {"register": regs, "lane": lanes, "warp": warps, "block": []}
    outs = {"dim%d" % i: d for i, d in enumerate(shape)}
    return {"in_dims": ins, "out_dims": outs}


def rand_blocked(rng, shape):
    rank = len(shape)
    lanes = rng.choice([32, 64])
    warps = rng.choice([1, 2, 4, 8])
    order = list(range(rank))
    rng.shuffle(order)

    def split(total):
        out = [1] * rank
        t = total
        while t > 1:
            out[rng.randrange(rank)] *= 2
            t //= 2
        return out

    spt = [1 << rng.randint(0, 3) for _ in range(rank)]
    return {"kind": "blocked", "sizePerThread": spt, "threadsPerWarp": split(lanes),
            "warpsPerCTA": split(warps), "order": order}


def rand_mma(rng, shape):
    """An amd_mfma or amd_wmma encoding (rank-2 shapes only)."""
    warps = rng.choice([[1, 1], [2, 2], [4, 1], [1, 4], [2, 1]])
    if rng.random() < 0.7:
        m = rng.choice([16, 32])
        k = {16: 16, 32: 8}[m]
        return {"kind": "amd_mfma", "version": rng.choice([2, 3, 4]), "warpsPerCTA": warps,
                "instrShape": [m, m, k], "isTransposed": rng.random() < 0.5}
    return {"kind": "amd_wmma", "version": rng.choice([1, 2]), "warpsPerCTA": warps,
            "isTransposed": rng.random() < 0.5}


def rand_shared(rng, shape):
    rank = len(shape)
    if rng.random() < 0.02:   # Triton 3.6 has no bank model for padding: rejected
        return {"kind": "padded_shared", "intervals": [32], "paddings": [4],
                "order": list(range(rank))[::-1]}
    if rng.random() < 0.4:
        order = list(range(rank))
        rng.shuffle(order)
        max_phase = 1 << rng.randint(0, 4)
        return {"kind": "swizzled_shared", "vec": 1 << rng.randint(0, 3),
                "perPhase": 1 << rng.randint(0, 2), "maxPhase": max_phase,
                "order": order}
    n = sum(d.bit_length() - 1 for d in shape)
    bits = list(range(n))
    if rng.random() < 0.5:
        rng.shuffle(bits)
    offs = [unit(shape, b) for b in bits]
    if rng.random() < 0.7:   # XOR-swizzle: high offset bits pick up lower ones
        for i in range(n):
            for j in range(i):
                if rng.random() < 0.2:
                    offs[i] = xor(offs[i], offs[j])
    outs = {"dim%d" % i: d for i, d in enumerate(shape)}
    return {"in_dims": {"offset": offs, "block": []}, "out_dims": outs}


def make_requests(seed, count):
    rng = random.Random(seed)
    reqs = []
    for i in range(count):
        shape = rand_shape(rng)
        x = rng.random()
        if x < 0.2:
            dist = rand_blocked(rng, shape)
        elif x < 0.35 and len(shape) == 2:
            dist = rand_mma(rng, shape)
        else:
            dist = rand_distributed(rng, shape)
        reqs.append({"id": i, "op": "bank_conflicts", "distributed": dist,
                     "shared": rand_shared(rng, shape), "shape": shape,
                     "element_bits": rng.choice([8, 16, 32, 32, 64]),
                     "target": "generic32"})
    return reqs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=2400)
    ap.add_argument("--out", default="tests/fixtures/convert/bank_conflicts_generic32.jsonl")
    args = ap.parse_args()
    reqs = make_requests(args.seed, args.count)
    text = "".join(json.dumps(r) + "\n" for r in reqs)
    res = subprocess.run([sys.executable, os.path.join(ORACLE, "triton_batch.py")],
                         input=text, capture_output=True, text=True, check=True)
    answers = [json.loads(line) for line in res.stdout.splitlines() if line.strip()]
    assert len(answers) == len(reqs), (len(answers), len(reqs))
    with open(args.out, "w") as f:
        for q, a in zip(reqs, answers):
            assert a.get("id") == q["id"]
            f.write(json.dumps({"request": q, "response": a}, separators=(",", ":")) + "\n")
    ok = sum(1 for a in answers if a.get("ok"))
    print("wrote %d cases (%d ok, %d rejected) to %s" % (len(reqs), ok, len(reqs) - ok, args.out))


if __name__ == "__main__":
    main()
