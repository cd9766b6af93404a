#!/usr/bin/env python3
"""The table of BENCHMARKS.md "Executed per wave": instructions one wave executes on the patched
emulator, per people case, for `linear-layout compile --layouts cost` and `--layouts triton`
(`compile_on_emulator.py --json` of each) beside Triton 3.6.0's own code at num_stages 1 and
with its default options (tests/fixtures/lower/ttgir-people/triton-executed.json).

    python3 scripts/executed_table.py COST.json TRITON.json
"""

import json
import os
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def main():
    cost, triton = (json.load(open(p)) for p in sys.argv[1:3])
    theirs = json.load(open(os.path.join(ROOT, "tests", "fixtures", "lower", "ttgir-people", "triton-executed.json")))
    ns1, default = theirs["num_stages_1"], theirs["default"]
    cell = lambda r: str(r["executed"]) if r and r.get("status") == "ok" and r.get("executed") is not None else "–"  # noqa: E731
    print("| case | `--layouts cost` | `--layouts triton` | Triton, num_stages 1 | Triton, default |")
    print("|---|---:|---:|---:|---:|")
    right = compared = not_more = fewer = 0
    more = []
    for case in sorted(cost, key=lambda c: (c.rsplit("-", 1)[-1], c)):
        c, t = cost[case], triton.get(case)
        right += c["status"] == "ok"
        print(f"| {case.removeprefix('people/')} | {cell(c)} | {cell(t)} | {ns1.get(case, '–')} | "
              f"{default.get(case, '–')} |")
        if c["status"] == "ok" and c["executed"] is not None and case in ns1 and case in default:
            compared += 1
            best = min(ns1[case], default[case])
            not_more += c["executed"] <= best
            fewer += c["executed"] < best
            if c["executed"] > best:
                more.append(f"{case.removeprefix('people/')} ({c['executed']} vs {best})")
    print()
    print(f"{right}/{len(cost)} cases right with `--layouts cost`; of the {compared} cases Triton's code runs right on "
          f"the emulator, no more instructions executed per wave than Triton's better compile on {not_more}, "
          f"fewer on {fewer}.")
    if more:
        print("More on: " + ", ".join(more) + ".")


if __name__ == "__main__":
    main()
