#!/usr/bin/env python3
"""Corpus modules with `"ttg.threads-per-warp" = 64` left out, recorded with Triton 3.6.0.

Without the attribute Triton uses its default of 32 lanes per warp: the module's 64-lane
layouts no longer verify, and Triton rejects the module ("Layout has 64 threads per warp, but
the module specifies 32 threads per warp"). Each run is recorded anew:

    ../shared/oracle/oracle-python scripts/gen_stripped_cases.py [--every 6] [-j 2]

Takes every N-th coalesce run of `tests/fixtures/heuristics/expected.jsonl` whose module says
64 lanes, writes the stripped module to `tests/fixtures/heuristics/stripped/` and its run (same
shape as `expected.jsonl`, group `stripped`) to `tests/fixtures/heuristics/stripped.jsonl`,
through the corpus runner of `../shared/oracle/heuristics/run_corpus.py`.
"""

import argparse
import concurrent.futures as cf
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIX = os.path.join(ROOT, "tests", "fixtures", "heuristics")
sys.path.insert(0, os.path.join(ROOT, "..", "shared", "oracle", "heuristics"))
import run_corpus  # noqa: E402

ATTR = '"ttg.threads-per-warp" = 64 : i32'


def strip(text):
    return text.replace(ATTR + ", ", "").replace(", " + ATTR, "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--every", type=int, default=6)
    ap.add_argument("-j", type=int, default=2)
    args = ap.parse_args()
    runs = [json.loads(l) for l in open(os.path.join(FIX, "expected.jsonl")) if l.strip()]
    picked, seen = [], set()
    for r in runs:
        if r["group"] != "coalesce" or r["file"] in seen:
            continue
        text = open(os.path.join(FIX, r["file"])).read()
        if ATTR not in text:
            continue
        seen.add(r["file"])
        if len(seen) % args.every == 0:
            picked.append((r, strip(text)))
    out_dir = os.path.join(FIX, "stripped")
    os.makedirs(out_dir, exist_ok=True)
    entries = []
    for r, text in picked:
        name = os.path.basename(r["file"])
        path = os.path.join(out_dir, name)
        open(path, "w").write(text)
        entries.append(({"id": "stripped_" + r["id"], "file": path, "group": "coalesce",
                         "passes": r["passes"]}, r["arch"], f"stripped/{name}"))
    with cf.ThreadPoolExecutor(max_workers=args.j) as ex:
        results = list(ex.map(lambda e: run_corpus.run_one(e[0], e[1]), entries))
    ok = 0
    with open(os.path.join(FIX, "stripped.jsonl"), "w") as f:
        for (e, arch, rel), res in zip(entries, results):
            st = res.get("status", "crash")
            out = {"id": e["id"], "file": rel, "group": "stripped", "arch": arch, "passes": e["passes"],
                   "nonkdim": 0, "kpack": 1, "status": st}
            if st != "ok":
                out["error"] = " ".join(d for d in res.get("diagnostics", []) if "Layout has" in d)[:300]
            c = run_corpus.compact(e, res)
            c.pop("convert_layout_count", None)
            out["result"] = c
            ok += st == "ok"
            f.write(json.dumps(out, sort_keys=True, separators=(",", ":")) + "\n")
    print(f"{ok}/{len(entries)} ok")


if __name__ == "__main__":
    main()
