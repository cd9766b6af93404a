#!/usr/bin/env python3
"""Generate encoding -> layout cases around Triton 3.6's validity boundary.

Starts from the valid proposals of the oracle's gen_cases.py and applies one
random mutation per case (non-power-of-two sizes, wrong ranks, bad orders,
out-of-range versions, illegal instruction shapes, bad kWidth, malformed CGA
layouts, non-power-of-two or mismatched shapes, broadcasting padded bases,
bad MLIR text, ...).  Every mutated request is answered by the real Triton
through ll_oracle.py, and recorded whatever the answer (most are errors,
some mutations turn out to be accepted), in the same format as
gen_cases.py's output:

    {"id": "...", "kind": "...", "mutation": "...",
     "input": {"encoding": {...}, "shape": [...]},
     "expected": {"ok": false, "error": "..."}}            (or ok: true + bases)

Usage (from the repository root):

    /work/shared/oracle/oracle-python scripts/gen_invalid_encodings.py \
        --seed 11 --per-kind 120 --out tests/fixtures/encodings/invalid-seed11.jsonl

The oracle directory defaults to /work/shared/oracle (override with
--oracle-dir or $LL_ORACLE_DIR).
"""

import argparse
import copy
import json
import os
import random
import sys


def pick(rng, xs):
    return xs[rng.randrange(len(xs))]


def bad_pow2(rng):
    return pick(rng, [0, 3, 5, 6, 12, 24])


def mutate_list_entry(rng, enc, key):
    if key in enc and enc[key]:
        enc[key] = list(enc[key])
        enc[key][rng.randrange(len(enc[key]))] = bad_pow2(rng)
        return True
    return False


def mutate_shape(rng, shape):
    """A non-power-of-two, zero, or wrong-rank shape."""
    s = list(shape)
    m = rng.randrange(4)
    if m == 0:
        s[rng.randrange(len(s))] = pick(rng, [3, 6, 12, 48, 0])
        return s, "shape-not-pow2"
    if m == 1:
        return s + [pick(rng, [1, 2, 4])], "shape-rank-plus"
    if m == 2 and len(s) > 1:
        return s[:-1], "shape-rank-minus"
    return [x * 64 for x in s], "shape-huge"


def mutate_cga(rng, enc, rank):
    m = rng.randrange(4)
    if m == 0:
        enc["cgaLayout"] = [[1] * rank] if rank > 1 else [[2]]
        return "cga-not-surjective"
    if m == 1:
        enc["cgaLayout"] = [[0] * (rank + 1)]
        return "cga-wrong-length"
    if m == 2:
        v = [0] * rank
        v[rng.randrange(rank)] = 2
        enc["cgaLayout"] = [v]
        return "cga-gap"
    v = [0] * rank
    v[rng.randrange(rank)] = 1
    enc["cgaLayout"] = [v, list(v)]
    return "cga-duplicate"


def mutate(rng, kind, enc, shape, gc):
    enc = copy.deepcopy(enc)
    shape = list(shape)
    rank = len(shape)
    m = rng.random()
    if m < 0.15:
        shape, name = mutate_shape(rng, shape)
        return enc, shape, name
    if m < 0.25 and kind not in ("padded_shared", "slice", "dot_operand"):
        return enc, shape, mutate_cga(rng, enc, rank)
    if kind == "blocked":
        c = rng.randrange(4)
        if c == 0:
            key = pick(rng, ["sizePerThread", "threadsPerWarp", "warpsPerCTA"])
            mutate_list_entry(rng, enc, key)
            return enc, shape, "blocked-" + key + "-not-pow2"
        if c == 1:
            enc["order"] = [0] * rank
            return enc, shape, "blocked-order-dup"
        if c == 2:
            enc["order"] = list(enc["order"])
            enc["order"][0] = rank
            return enc, shape, "blocked-order-range"
        enc["sizePerThread"] = enc["sizePerThread"] + [1]
        return enc, shape, "blocked-rank-mismatch"
    if kind == "slice":
        c = rng.randrange(3)
        if c == 0:
            enc["dim"] = len(shape) + 1 + rng.randrange(2)
            return enc, shape, "slice-dim-range"
        if c == 1:
            enc["parent"] = {"kind": "swizzled_shared", "vec": 1, "perPhase": 1,
                             "maxPhase": 1, "order": list(range(len(shape), -1, -1))}
            return enc, shape, "slice-shared-parent"
        enc["parent"] = {"kind": "blocked", "sizePerThread": [1],
                         "threadsPerWarp": [32], "warpsPerCTA": [1], "order": [0]}
        enc["dim"] = 0
        return enc, [], "slice-rank1-parent"
    if kind == "amd_mfma":
        c = rng.randrange(6)
        if c == 0:
            enc["version"] = pick(rng, [0, 5, 9])
            return enc, shape, "mfma-version"
        if c == 1:
            enc["instrShape"] = pick(rng, [[4, 4, 4], [8, 8, 4], [32, 16, 8], [64, 64, 4]])
            return enc, shape, "mfma-instr"
        if c == 2:
            enc["instrShape"] = [64, 4, 4]
            enc["isTransposed"] = False
            return enc, shape, "mfma-64x4-not-transposed"
        if c == 3:
            enc["elementBitWidth"] = pick(rng, [8, 16, 48])
            return enc, shape, "mfma-ebw"
        if c == 4:
            enc["tilesPerWarp"] = [3] * len(enc["warpsPerCTA"])
            return enc, shape, "mfma-tpw"
        mutate_list_entry(rng, enc, "warpsPerCTA")
        return enc, shape, "mfma-warps-not-pow2"
    if kind == "amd_wmma":
        c = rng.randrange(4)
        if c == 0:
            enc["version"] = pick(rng, [0, 4])
            return enc, shape, "wmma-version"
        if c == 1:
            v = enc["version"]
            enc["instrShape"] = pick(rng, [[16, 16, 8], [32, 32, 16], [16, 16, 64] if v < 3 else [16, 16, 16]])
            return enc, shape, "wmma-instr"
        if c == 2:
            s = list(shape)
            s[-1] = 8
            return enc, s, "wmma-extent-8"
        mutate_list_entry(rng, enc, "warpsPerCTA")
        return enc, shape, "wmma-warps-not-pow2"
    if kind == "nvidia_mma":
        c = rng.randrange(3)
        if c == 0:
            enc["versionMajor"] = pick(rng, [1, 4, 5])
            return enc, shape, "nvmma-version"
        if c == 1:
            enc["instrShape"] = pick(rng, [[16, 16], [8, 8], [32, 8], [16, 12, 16]])
            return enc, shape, "nvmma-instr"
        mutate_list_entry(rng, enc, "warpsPerCTA")
        return enc, shape, "nvmma-warps-not-pow2"
    if kind == "dot_operand":
        c = rng.randrange(5)
        pk = enc["parent"]["kind"]
        if c == 0:
            enc["opIdx"] = pick(rng, [2, 3])
            return enc, shape, "dot-opidx"
        if c == 1:
            enc["kWidth"] = 0 if pk != "blocked" else pick(rng, [1, 2])
            return enc, shape, "dot-kwidth-zero-or-nonzero"
        if c == 2:
            enc["kWidth"] = pick(rng, [3, 6, 32, 64]) if pk != "blocked" else 4
            return enc, shape, "dot-kwidth-odd"
        if c == 3:
            enc["parent"] = pick(rng, [
                {"kind": "swizzled_shared", "vec": 1, "perPhase": 1, "maxPhase": 1,
                 "order": list(range(len(shape) - 1, -1, -1))},
                {"kind": "slice", "dim": 0, "parent": {
                    "kind": "blocked", "sizePerThread": [1] * (len(shape) + 1),
                    "threadsPerWarp": [32] + [1] * len(shape),
                    "warpsPerCTA": [1] * (len(shape) + 1),
                    "order": list(range(len(shape), -1, -1))}}])
            return enc, shape, "dot-bad-parent"
        enc["opIdx"] = 1
        enc["parent"] = {"kind": "nvidia_mma", "versionMajor": 3, "versionMinor": 0,
                         "warpsPerCTA": [4, 1], "instrShape": [16, 64, 16]}
        enc["kWidth"] = 2
        return enc, [64, 64], "dot-hopper-b"
    if kind in ("swizzled_shared", "amd_rotating_shared"):
        c = rng.randrange(4)
        if c == 0:
            enc["order"] = [0] * rank
            return enc, shape, "swizzle-order-dup"
        if c == 1:
            enc["vec"] = pick(rng, [3, 6])
            return enc, shape, "swizzle-vec-not-pow2"
        if c == 2:
            enc["order"] = enc["order"] + [rank]
            return enc, shape, "swizzle-order-rank"
        if rank >= 2:
            enc["cgaLayout"] = [[1 if d == enc["order"][0] else 0 for d in range(rank)]]
            s = list(shape)
            s[enc["order"][0]] = max(2, s[enc["order"][0]])
            return enc, s, "swizzle-multicta"
        return enc, shape, "swizzle-unchanged"
    if kind == "nvmma_shared":
        c = rng.randrange(4)
        if c == 0:
            s = list(shape)
            s[0 if enc.get("transposed") else -1] = 4
            return enc, s, "nvmma-block-too-small"
        if c == 1:
            enc["swizzlingByteWidth"] = pick(rng, [32, 64, 128])
            return enc, [256], "nvmma-rank1-swizzled"
        if c == 2:
            enc["rank"] = rank + 1
            return enc, shape, "nvmma-rank-mismatch"
        s = list(shape)
        s[-2 if not enc.get("transposed") else -1] = 4
        return enc, s, "nvmma-few-rows"
    if kind == "padded_shared":
        c = rng.randrange(6)
        if c == 0:
            enc["intervals"] = [pick(rng, [3, 6, 12])]
            enc["paddings"] = [1]
            return enc, shape, "padded-interval-not-pow2"
        if c == 1:
            enc["paddings"] = [3] * len(enc["paddings"])
            return enc, shape, "padded-padding-not-pow2"
        if c == 2:
            enc["intervals"] = [8, 8]
            enc["paddings"] = [1, 2]
            return enc, shape, "padded-interval-dup"
        if c == 3:
            enc["paddings"] = enc["paddings"] + [1]
            return enc, shape, "padded-length-mismatch"
        if c == 4 and enc.get("offsetBases"):
            enc["offsetBases"] = [list(b) for b in enc["offsetBases"]]
            enc["offsetBases"][0] = [0] * rank
            return enc, shape, "padded-broadcast"
        if enc.get("offsetBases") and len(enc["offsetBases"]) >= 2:
            b = [list(x) for x in enc["offsetBases"]]
            b[1] = list(b[0])
            enc["offsetBases"] = b
            return enc, shape, "padded-duplicate-basis"
        enc["intervals"] = []
        enc["paddings"] = []
        return enc, shape, "padded-empty"
    raise ValueError(kind)


EXTRA = [
    # (mutation, request)
    ("mlir-legacy-cta", {"encoding": {"kind": "mlir", "text": "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0], CTAsPerCGA = [1], CTASplitNum = [1], CTAOrder = [0]}>"}, "shape": [32]}),
    ("mlir-unknown-key", {"encoding": {"kind": "mlir", "text": "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0], foo = 1}>"}, "shape": [32]}),
    ("mlir-rotating-3d", {"encoding": {"kind": "mlir", "text": "#ttg.amd_rotating_shared<{vec = 4, perPhase = 1, maxPhase = 16, order = [2, 1, 0]}>"}, "shape": [4, 64, 64]}),
    ("mlir-linear", {"encoding": {"kind": "mlir", "text": "#ttg.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0]], block = []}>"}, "shape": [32, 8]}),
    ("mlir-linear-small", {"encoding": {"kind": "mlir", "text": "#ttg.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0]], block = []}>"}, "shape": [8, 4]}),
    ("mlir-linear-large", {"encoding": {"kind": "mlir", "text": "#ttg.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0]], block = []}>"}, "shape": [64, 32]}),
    ("mlir-shared-linear", {"encoding": {"kind": "mlir", "text": "#ttg.shared_linear<{offset = [[0, 1], [0, 2], [1, 0], [2, 1]]}, alignment = 16>"}, "shape": [4, 4]}),
    ("linear-two-dims", {"encoding": {"kind": "linear", "registerBases": [[1, 1]], "laneBases": [[0, 2], [2, 0]], "warpBases": [], "blockBases": []}, "shape": [4, 4]}),
    ("linear-ok", {"encoding": {"kind": "linear", "registerBases": [[0, 1]], "laneBases": [[0, 2], [1, 0], [2, 0]], "warpBases": [[0, 0]], "blockBases": []}, "shape": [4, 4]}),
    ("linear-slice-parent", {"encoding": {"kind": "slice", "dim": 1, "parent": {"kind": "linear", "registerBases": [[0, 1], [1, 0]], "laneBases": [[0, 2], [2, 0]], "warpBases": [], "blockBases": [], "shape": [4, 4]}}, "shape": [4]}),
    ("linear-not-surjective", {"encoding": {"kind": "linear", "registerBases": [[1]], "laneBases": [], "warpBases": []}, "shape": [8]}),
    ("linear-basis-too-large", {"encoding": {"kind": "linear", "registerBases": [[1], [2], [4], [8]], "laneBases": [], "warpBases": []}, "shape": [8]}),
    ("linear-empty", {"encoding": {"kind": "linear", "registerBases": [], "laneBases": [], "warpBases": []}, "shape": [1]}),
    ("linear-slice-parent-broadcast", {"encoding": {"kind": "slice", "dim": 0, "parent": {"kind": "linear", "registerBases": [[0, 1], [1, 0]], "laneBases": [[0, 2], [2, 0]], "warpBases": [], "shape": [4, 4]}}, "shape": [8]}),
    ("mlir-nvmma-3d-cga-no-rank", {"encoding": {"kind": "mlir", "text": "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16, CGALayout = [[0, 1, 0]]}>"}, "shape": [256, 2, 64]}),
    ("mlir-nvmma-3d-cga-rank", {"encoding": {"kind": "mlir", "text": "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16, CGALayout = [[0, 1, 0]], rank = 3}>"}, "shape": [256, 2, 64]}),
    ("mlir-padded-order", {"encoding": {"kind": "mlir", "text": "#ttg.padded_shared<[4:+1] {order = [0, 1], shape = [4, 1]}>"}, "shape": [4, 1]}),
    ("mlir-dot-blocked", {"encoding": {"kind": "mlir", "text": "#ttg.dot_op<{opIdx = 1, parent = #ttg.blocked<{sizePerThread = [2, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 4], order = [1, 0]}>}>"}, "shape": [16, 64]}),
    ("dot-mfma-64x4-not-transposed-parent", {"encoding": {"kind": "dot_operand", "opIdx": 0, "kWidth": 4, "parent": {"kind": "amd_mfma", "version": 3, "warpsPerCTA": [1, 1], "instrShape": [64, 4, 4], "isTransposed": False}}, "shape": [64, 64]}),
    ("slice-mfma-64x4-not-transposed-parent", {"encoding": {"kind": "slice", "dim": 0, "parent": {"kind": "amd_mfma", "version": 3, "warpsPerCTA": [1, 1], "instrShape": [64, 4, 4], "isTransposed": False}}, "shape": [64]}),
    ("dot-mfma-bad-version-parent", {"encoding": {"kind": "dot_operand", "opIdx": 0, "kWidth": 4, "parent": {"kind": "amd_mfma", "version": 7, "warpsPerCTA": [1, 1], "instrShape": [32, 32, 4], "isTransposed": False}}, "shape": [64, 64]}),
    ("dot-nvidia-v1-parent", {"encoding": {"kind": "dot_operand", "opIdx": 0, "kWidth": 4, "parent": {"kind": "nvidia_mma", "versionMajor": 1, "versionMinor": 0, "warpsPerCTA": [1, 1], "instrShape": [16, 8]}}, "shape": [64, 64]}),
    ("dot-nvidia-v1-parent-kwidth0", {"encoding": {"kind": "dot_operand", "opIdx": 0, "kWidth": 0, "parent": {"kind": "nvidia_mma", "versionMajor": 1, "versionMinor": 0, "warpsPerCTA": [1, 1], "instrShape": [16, 8]}}, "shape": [64, 64]}),
    ("dot-blocked-rank1-parent", {"encoding": {"kind": "dot_operand", "opIdx": 0, "kWidth": 0, "parent": {"kind": "blocked", "sizePerThread": [1], "threadsPerWarp": [32], "warpsPerCTA": [1], "order": [0]}}, "shape": [64]}),
    ("shared-linear-ok", {"encoding": {"kind": "shared_linear", "offsetBases": [[0, 1], [1, 0], [2, 2]], "blockBases": [], "alignment": 16}, "shape": [4, 4]}),
    ("shared-linear-align", {"encoding": {"kind": "shared_linear", "offsetBases": [[0, 1], [1, 0]], "alignment": 3}, "shape": [2, 2]}),
    ("shared-linear-broadcast", {"encoding": {"kind": "shared_linear", "offsetBases": [[0, 1], [0, 1], [1, 0]], "alignment": 16}, "shape": [2, 2]}),
    ("shared-linear-shape", {"encoding": {"kind": "shared_linear", "offsetBases": [[0, 1], [1, 0]], "alignment": 16}, "shape": [4, 4]}),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--per-kind", type=int, default=120)
    ap.add_argument("--out", required=True)
    ap.add_argument("--oracle-dir", default=os.environ.get("LL_ORACLE_DIR", "/work/shared/oracle"))
    args = ap.parse_args()
    sys.path.insert(0, args.oracle_dir)
    import gen_cases as gc  # the oracle's generator: valid starting points + OracleProc

    oracle = gc.OracleProc(sys.executable, via="binding")
    out = open(args.out, "w")
    seen = set()
    stats = {}
    kinds = ["blocked", "slice", "amd_mfma", "amd_wmma", "dot_operand", "nvidia_mma",
             "swizzled_shared", "amd_rotating_shared", "nvmma_shared", "padded_shared"]
    n = 0
    for kind in kinds:
        rng = random.Random("%s/invalid/%s" % (args.seed, kind))
        made = tries = 0
        while made < args.per_kind and tries < args.per_kind * 20:
            tries += 1
            enc, shape = gc.GENERATORS[kind](rng)
            enc, shape, mutation = mutate(rng, kind, enc, shape, gc)
            request = {"encoding": enc, "shape": shape}
            key = json.dumps(request, sort_keys=True)
            if key in seen:
                continue
            seen.add(key)
            result = oracle.ask(request)
            result.pop("mlir", None)
            out.write(json.dumps({"id": "invalid-%s-%04d" % (kind, made), "kind": kind,
                                  "mutation": mutation, "input": request,
                                  "expected": result}) + "\n")
            stats.setdefault(mutation, [0, 0])[0 if result.get("ok") else 1] += 1
            made += 1
            n += 1
    for i, (mutation, request) in enumerate(EXTRA):
        result = oracle.ask(request)
        result.pop("mlir", None)
        out.write(json.dumps({"id": "invalid-extra-%04d" % i,
                              "kind": request["encoding"]["kind"], "mutation": mutation,
                              "input": request, "expected": result}) + "\n")
        stats.setdefault(mutation, [0, 0])[0 if result.get("ok") else 1] += 1
        n += 1
    oracle.close()
    out.close()
    for mutation, (ok, bad) in sorted(stats.items()):
        print("%-32s accepted %3d rejected %3d" % (mutation, ok, bad), file=sys.stderr)
    print("total %d cases -> %s" % (n, args.out), file=sys.stderr)


if __name__ == "__main__":
    main()
