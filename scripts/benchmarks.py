#!/usr/bin/env python3
"""Measure the core LinearLayout operations on both sides in one run and write BENCHMARKS.md.

    python3 scripts/benchmarks.py [--oracle ../shared/oracle] [--out BENCHMARKS.md]

1. `cargo bench --bench core` (criterion; the mean time per call of each op is read from
   target/criterion/core/<op>/new/estimates.json);
2. `scripts/bench_triton.py` with the oracle's Python (Triton 3.6.0's pybind LinearLayout on
   the same layouts, the Python call overhead subtracted);
3. BENCHMARKS.md: both figures, their ratio, and whether the 100x target is met.
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# criterion id -> the Triton case of scripts/bench_triton.py measuring the same thing
CASES = [
    ("invert_and_compose/blocked_to_mfma", "blocked.invert_and_compose(mfma)"),
    ("invert_and_compose/mfma_to_shared", "mfma128x64.invert_and_compose(shared)"),
    ("compose/mfma_shared_inverse", "mfma128x64.compose(shared.invert())  [inverse precomputed]"),
    ("invert/shared", "shared.invert()"),
    ("pseudoinvert/blocked", "blocked.pseudoinvert()"),
    ("product/blocked_ident", "blocked * ident"),
    ("apply/blocked", None),  # the apply case's text embeds its arguments; matched by op
]

# criterion id (benches/encodings.rs) -> the Triton case (attribute builder + conversion)
ENCODING_CASES = [("to_linear_layout/%s" % n, "to_linear_layout(%s)" % n)
                  for n in ("blocked", "mfma", "shared", "dotop")]


def rust_side():
    subprocess.run(["cargo", "bench", "--bench", "core", "--bench", "encodings"], cwd=ROOT, check=True)
    out = {}
    for group, cases in (("core", CASES), ("encodings", ENCODING_CASES)):
        for cid, _ in cases:
            path = os.path.join(ROOT, "target", "criterion", group, cid.replace("/", "_"), "new", "estimates.json")
            with open(path) as f:
                est = json.load(f)
            out[cid] = est["mean"]["point_estimate"]  # ns
    return out


def triton_side(oracle):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as tmp:
        path = tmp.name
    subprocess.run([os.path.join(oracle, "oracle-python"), os.path.join(ROOT, "scripts", "bench_triton.py"),
                    "--json", path, "--oracle", oracle], cwd=ROOT, check=True)
    with open(path) as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oracle", default=os.path.join(ROOT, "..", "shared", "oracle"))
    ap.add_argument("--out", default=os.path.join(ROOT, "BENCHMARKS.md"))
    args = ap.parse_args()

    triton = triton_side(args.oracle)
    ours = rust_side()
    by_case = {r["case"]: r for r in triton["results"]}
    by_op = {r["op"]: r for r in triton["results"]}

    rows = []
    for cid, case in CASES + ENCODING_CASES:
        t = by_case[case] if case else by_op[cid.split("/")[0]]
        ns = ours[cid]
        ratio = t["net_us"] * 1000.0 / ns
        rows.append((cid, t["case"], t["net_us"], ns, ratio))

    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass

    lines = [
        "# Benchmarks",
        "",
        "The core LinearLayout operations on the standard layouts (`benches/std_layouts.json`: Triton 3.6 "
        "`to_linear_layout` of a 128x128 blocked layout, an MFMA 32x32 layout at 128x128 and 128x64, a "
        "swizzled shared layout, and a 16-element identity), measured on both sides in one run by "
        "`python3 scripts/benchmarks.py`:",
        "",
        "* **linear-layout**: `cargo bench --bench core` (criterion, mean time per call, release build).",
        "* **Triton 3.6.0**: `scripts/bench_triton.py` through the oracle's Python: the pybind "
        "`LinearLayout`, minimum over %d repeats of the mean time per call, minus the Python call "
        "overhead measured on `%s` (%.3f µs)." % (triton["results"][0]["repeats"], triton["overhead"]["call"],
                                                  triton["overhead"]["us"]),
        "",
        "Machine: %s, %s; Triton %s, Python %s." % (cpu, platform.machine(), triton["triton_version"],
                                                    triton["python"]),
        "",
        "| operation | Triton 3.6.0 case | Triton (µs, net) | linear-layout (ns) | speed-up | target |",
        "|---|---|---:|---:|---:|---|",
    ]
    for cid, case, t_us, ns, ratio in rows:
        if cid.startswith("to_linear_layout/"):
            target = "met (≤ 2 µs)" if ns <= 2000 else "not met (≤ 2 µs)"
        elif cid.startswith("invert_and_compose/"):
            target = "met" if ratio >= 100 and ns < 500 else "not met (100x, < 0.5 µs)"
        else:
            target = "met" if ratio >= 100 else "not met (100x)"
        lines.append("| `%s` | `%s` | %.2f | %.1f | %.0fx | %s |" % (
            cid, case.replace("|", "\\|"), t_us, ns, ratio, target))
    block = "<!-- results: written by scripts/benchmarks.py -->\n" + "\n".join(lines[2:]) + "\n<!-- /results -->"
    text = "# Benchmarks\n\n" + block + "\n"
    if os.path.exists(args.out):
        with open(args.out) as f:
            old = f.read()
        start = old.find("<!-- results")
        end = old.find("<!-- /results -->")
        if start >= 0 and end > start:
            text = old[:start] + block + old[end + len("<!-- /results -->"):]
    with open(args.out, "w") as f:
        f.write(text)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
