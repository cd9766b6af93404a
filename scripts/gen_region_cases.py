#!/usr/bin/env python3
"""Region-shaped coalescing cases: pointers that come out of `scf.if`, `scf.for` iter-args,
`scf.while` and `arith.select`, nested, with and without masks — recorded with Triton 3.6.0.

    ../shared/oracle/oracle-python scripts/gen_region_cases.py [--seed 7] [--count 240] [-j 2]

Writes `tests/fixtures/heuristics/regions/*.mlir` and `tests/fixtures/heuristics/regions.jsonl`
(one run per line, the shape of `expected.jsonl`, group `regions`), running each module through
`../shared/oracle/pass_oracle.py --passes coalesce` (via the corpus runner's `run_one` and
`compact`, so the recorded members are exactly those of the public corpus).
"""

import argparse
import concurrent.futures as cf
import json
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORACLE_HEUR = os.path.join(ROOT, "..", "shared", "oracle", "heuristics")
sys.path.insert(0, ORACLE_HEUR)
import run_corpus  # noqa: E402  (the oracle's corpus runner)

OUT_DIR = os.path.join(ROOT, "tests", "fixtures", "heuristics", "regions")
OUT_JSONL = os.path.join(ROOT, "tests", "fixtures", "heuristics", "regions.jsonl")

ELEMS = {"f16": 16, "f32": 32, "bf16": 16, "i8": 8, "i32": 32}


def header(threads, warps):
    return (f'#bl = #ttg.blocked<{{sizePerThread = [1], threadsPerWarp = [{threads}], '
            f'warpsPerCTA = [{warps}], order = [0]}}>\n'
            f'module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = {warps} : i32, '
            f'ttg.target = "hip:gfx942", "ttg.threads-per-warp" = {threads} : i32}} {{\n')


def arg(name, div):
    hint = f" {{tt.divisibility = {div} : i32}}" if div else ""
    return f"%{name}: !tt.ptr<{{E}}>{hint}"


def gen_case(rng, k):
    kind = rng.choice(["if", "if", "for", "select", "select_tensor", "select_const", "while", "for_if"])
    elem = rng.choice(list(ELEMS))
    threads = rng.choice([32, 64])
    warps = rng.choice([1, 2, 4, 8])
    n = rng.choice([256, 512, 1024, 2048, 4096])
    if n < threads * warps:
        n = threads * warps
    div_a = rng.choice([16, 16, 8, 4, 0])
    div_b = rng.choice([16, 8, 4, 0])
    off_b = rng.choice([0, 0, 1, 2, 4, 8, 16, 64])
    masked = rng.random() < 0.4
    T = f"tensor<{n}x!tt.ptr<{elem}>, #bl>"
    I = f"tensor<{n}xi32, #bl>"
    V = f"tensor<{n}x{elem}, #bl>"
    lines = []
    args = [arg("a", div_a), arg("b", div_b), arg("o", 16), "%c: i1", "%n: i32"]
    lines.append(f"  tt.func public @k({', '.join(args)}) {{")
    lines.append(f"    %r = tt.make_range {{end = {n} : i32, start = 0 : i32}} : {I}")
    lines.append(f"    %cb = arith.constant dense<{off_b}> : {I}")
    lines.append(f"    %rb = arith.addi %r, %cb : {I}")

    def make_ptr(base, off, name):
        return [f"      %s{name} = tt.splat %{base} : !tt.ptr<{elem}> -> {T}",
                f"      %{name} = tt.addptr %s{name}, %{off} : {T}, {I}"]

    load_ptr = "%p"
    if kind == "if":
        lines.append(f"    %p = scf.if %c -> ({T}) {{")
        lines += make_ptr("a", "r", "qa") + [f"      scf.yield %qa : {T}", "    } else {"]
        lines += make_ptr("b", "rb", "qb") + [f"      scf.yield %qb : {T}", "    }"]
    elif kind in ("select", "select_tensor", "select_const"):
        lines += [x[2:] for x in make_ptr("a", "r", "qa")]
        lines += [x[2:] for x in make_ptr("b", "rb", "qb")]
        if kind == "select":
            lines.append(f"    %p = arith.select %c, %qa, %qb : {T}")
        elif kind == "select_const":
            bound = rng.choice([16, 64, 128, n // 2, n // 4 + 8])
            lines.append(f"    %bd = arith.constant dense<{bound}> : {I}")
            lines.append(f"    %sel = arith.cmpi slt, %r, %bd : {I}")
            lines.append(f"    %p = arith.select %sel, %qa, %qb : tensor<{n}xi1, #bl>, {T}")
        else:
            lines.append(f"    %nn = tt.splat %n : i32 -> {I}")
            lines.append(f"    %sel = arith.cmpi slt, %r, %nn : {I}")
            lines.append(f"    %p = arith.select %sel, %qa, %qb : tensor<{n}xi1, #bl>, {T}")
    elif kind in ("for", "for_if"):
        step = rng.choice([n, n, 2 * n, 8, 3, 16])
        lines += [x[2:] for x in make_ptr("a", "r", "qa")]
        lines.append("    %lb = arith.constant 0 : i32")
        lines.append("    %ub = arith.constant 4 : i32")
        lines.append("    %one = arith.constant 1 : i32")
        lines.append(f"    %st = arith.constant dense<{step}> : {I}")
        lines.append(f"    %fin = scf.for %i = %lb to %ub step %one iter_args(%pp = %qa) -> ({T})  : i32 {{")
        inner = "%pp"
        if kind == "for_if":
            lines.append(f"      %pi = scf.if %c -> ({T}) {{")
            lines.append(f"        scf.yield %pp : {T}")
            lines.append("      } else {")
            lines.append(f"        %sb = tt.splat %b : !tt.ptr<{elem}> -> {T}")
            lines.append(f"        %qb = tt.addptr %sb, %rb : {T}, {I}")
            lines.append(f"        scf.yield %qb : {T}")
            lines.append("      }")
            inner = "%pi"
        lines.append(f"      %v = tt.load {inner} : {T}")
        lines.append(f"      %so = tt.splat %o : !tt.ptr<{elem}> -> {T}")
        lines.append(f"      %qo = tt.addptr %so, %r : {T}, {I}")
        lines.append(f"      tt.store %qo, %v : {T}")
        lines.append(f"      %nx = tt.addptr {inner}, %st : {T}, {I}")
        lines.append(f"      scf.yield %nx : {T}")
        lines.append("    }")
        load_ptr = "%fin"
    elif kind == "while":
        lines += [x[2:] for x in make_ptr("a", "r", "qa")]
        lines.append("    %z = arith.constant 0 : i32")
        lines.append(f"    %st = arith.constant dense<{n}> : {I}")
        lines.append(f"    %w:2 = scf.while (%wp = %qa, %wi = %z) : ({T}, i32) -> ({T}, i32) {{")
        lines.append("      %lt = arith.cmpi slt, %wi, %n : i32")
        lines.append(f"      scf.condition(%lt) %wp, %wi : {T}, i32")
        lines.append("    } do {")
        lines.append(f"    ^bb0(%bp: {T}, %bi: i32):")
        lines.append("      %one = arith.constant 1 : i32")
        lines.append("      %ni = arith.addi %bi, %one : i32")
        lines.append(f"      %np = tt.addptr %bp, %st : {T}, {I}")
        lines.append(f"      scf.yield %np, %ni : {T}, i32")
        lines.append("    }")
        load_ptr = "%w#0"
    if masked:
        lines.append(f"    %mn = tt.splat %n : i32 -> {I}")
        lines.append(f"    %m = arith.cmpi slt, %r, %mn : {I}")
        lines.append(f"    %l = tt.load {load_ptr}, %m : {T}")
    else:
        lines.append(f"    %l = tt.load {load_ptr} : {T}")
    lines.append(f"    %so2 = tt.splat %o : !tt.ptr<{elem}> -> {T}")
    lines.append(f"    %qo2 = tt.addptr %so2, %rb : {T}, {I}")
    lines.append(f"    tt.store %qo2, %l : {T}")
    lines.append("    tt.return")
    lines.append("  }")
    text = header(threads, warps) + "\n".join(lines).replace("{E}", elem) + "\n}\n"
    cid = f"r{k:03d}_{kind}_{elem}_n{n}_w{warps}_t{threads}"
    return cid, text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--count", type=int, default=240)
    ap.add_argument("-j", type=int, default=2)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    os.makedirs(OUT_DIR, exist_ok=True)
    entries = []
    for k in range(args.count):
        cid, text = gen_case(rng, k)
        path = os.path.join(OUT_DIR, cid + ".mlir")
        with open(path, "w") as f:
            f.write(text)
        entries.append({"id": cid, "file": f"regions/{cid}.mlir", "group": "coalesce", "passes": "coalesce",
                        "path": path})

    def run(e):
        # run_one reads the file relative to the corpus folder: give it an absolute path.
        e2 = dict(e, file=e["path"])
        res = run_corpus.run_one(e2, "gfx942")
        return res

    with cf.ThreadPoolExecutor(max_workers=args.j) as ex:
        results = list(ex.map(run, entries))
    ok = 0
    with open(OUT_JSONL, "w") as f:
        for e, res in zip(entries, results):
            st = res.get("status", "crash")
            r = {"id": e["id"], "file": e["file"], "group": "regions", "arch": "gfx942", "passes": "coalesce",
                 "nonkdim": 0, "kpack": 1, "status": st}
            if st != "ok":
                r["error"] = (res.get("error", "") + " | " + " | ".join(res.get("diagnostics", [])[:3]))[:600]
            res_c = run_corpus.compact(e, res)
            res_c.pop("convert_layout_count", None)
            r["result"] = res_c
            ok += st == "ok"
            f.write(json.dumps(r, sort_keys=True, separators=(",", ":")) + "\n")
    print(f"{ok}/{len(entries)} ok -> {OUT_JSONL}")


if __name__ == "__main__":
    main()
