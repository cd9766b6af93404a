#!/usr/bin/env python3
"""Measure the core LinearLayout operations on both sides in one run and write BENCHMARKS.md.

    python3 scripts/benchmarks.py [--oracle ../shared/oracle] [--out BENCHMARKS.md]

1. `cargo bench --bench core --bench encodings` (criterion; the mean time per call of each op
   is read from target/criterion/<group>/<op>/new/estimates.json), including the `scaling`
   group (every core op on layouts of 8 to 64 input bits over 1 to 6 dims);
2. `scripts/bench_triton.py` with the oracle's Python (Triton 3.6.0's pybind LinearLayout on
   the same layouts, the Python call overhead subtracted);
3. the batch protocol's throughput on the differential requests and the encoding cases of
   tests/fixtures: `linear-layout batch` (release build) against the oracle's
   `triton_batch.py`, the same request files on both sides;
4. instructions per call of each operation of the table under `valgrind --tool=callgrind`
   (`examples/op_counts.rs` run with 2,000 calls and with none; the difference per call), a
   figure that does not move with the machine's load as the times do;
5. BENCHMARKS.md: the figures, their ratios, and whether the 100x target is met.

`--counts` prints only the instruction counts (step 4), for deciding a change quickly.
"""

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

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
                  for n in ("blocked", "mfma", "shared", "dotop", "wmma", "slice")]


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


SCALING_OPS = ["apply", "compose", "invert_and_compose", "invert", "pseudoinvert", "product"]
SCALING_BITS = [8, 16, 32, 64]
SCALING_DIMS = [1, 2, 4, 6]


def scaling_side():
    """ns per call of each op of the criterion group `scaling`, by (op, bits, dims)."""
    out = {}
    for op in SCALING_OPS:
        for bits in SCALING_BITS:
            for dims in SCALING_DIMS:
                path = os.path.join(ROOT, "target", "criterion", "scaling", "%s_%db_%dd" % (op, bits, dims),
                                    "new", "estimates.json")
                if os.path.exists(path):
                    with open(path) as f:
                        out[(op, bits, dims)] = json.load(f)["mean"]["point_estimate"]
    return out


# The request files of the throughput comparison: the differential requests as they are, and
# every encoding case of tests/fixtures/encodings (valid, invalid and rejected ones) as a
# to_linear_layout request.
ENCODING_FIXTURES = ["cases-seed1", "cases-seed2", "cases-seed3", "cases-seed4", "invalid-seed11",
                     "invalid-seed12", "rejected-gen-cases"]


def batch_files(tmp):
    diff = os.path.join(ROOT, "tests", "fixtures", "diff", "requests.jsonl")
    enc = os.path.join(tmp, "encoding-requests.jsonl")
    n = 0
    with open(enc, "w") as out:
        for name in ENCODING_FIXTURES:
            with open(os.path.join(ROOT, "tests", "fixtures", "encodings", name + ".jsonl")) as f:
                for line in f:
                    if line.strip():
                        case = json.loads(line)
                        out.write(json.dumps({"id": case["id"], "op": "to_linear_layout",
                                              "encoding": case["input"]["encoding"],
                                              "shape": case["input"]["shape"]}) + "\n")
                        n += 1
    with open(diff) as f:
        n_diff = sum(1 for line in f if line.strip())
    return [("differential requests (`tests/fixtures/diff/requests.jsonl`)", diff, n_diff),
            ("encoding cases (`tests/fixtures/encodings`, as `to_linear_layout`)", enc, n)]


def timed(cmd, path, repeat):
    """The best wall time of `repeat` runs of `cmd` reading `path`, its output discarded."""
    best = None
    for _ in range(repeat):
        with open(path) as f, open(os.devnull, "w") as null:
            start = time.perf_counter()
            subprocess.run(cmd, stdin=f, stdout=null, cwd=ROOT, check=True)
            t = time.perf_counter() - start
        best = t if best is None else min(best, t)
    return best


def batch_side(oracle):
    subprocess.run(["cargo", "build", "--release", "--bin", "linear-layout"], cwd=ROOT, check=True)
    ours = [os.path.join(ROOT, "target", "release", "linear-layout"), "batch"]
    theirs = [os.path.join(oracle, "oracle-python"), os.path.join(oracle, "triton_batch.py")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, path, n in batch_files(tmp):
            rows.append((label, n, timed(theirs, path, 1), timed(ours, path, 5)))
    return rows


def triton_side(oracle):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as tmp:
        path = tmp.name
    subprocess.run([os.path.join(oracle, "oracle-python"), os.path.join(ROOT, "scripts", "bench_triton.py"),
                    "--json", path, "--oracle", oracle], cwd=ROOT, check=True)
    with open(path) as f:
        return json.load(f)


def callgrind_side(calls=2000):
    """Instructions per call of each operation of the table under callgrind ({} without
    valgrind): `examples/op_counts.rs` with `calls` calls and with none, the difference per
    call (the setup, the same in both runs, cancels)."""
    if not shutil.which("valgrind"):
        return {}
    subprocess.run(["cargo", "build", "--release", "--example", "op_counts"], cwd=ROOT, check=True)
    exe = os.path.join(ROOT, "target", "release", "examples", "op_counts")

    def collected(op, n):
        run = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", exe, op, str(n)],
                             capture_output=True, text=True, check=True)
        return int(re.search(r"Collected : (\d+)", run.stderr).group(1))

    return {cid: (collected(cid, calls) - collected(cid, 0)) / calls for cid, _ in CASES + ENCODING_CASES}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oracle", default=os.path.join(ROOT, "..", "shared", "oracle"))
    ap.add_argument("--out", default=os.path.join(ROOT, "BENCHMARKS.md"))
    ap.add_argument("--counts", action="store_true", help="print only the instruction counts under callgrind")
    args = ap.parse_args()

    if args.counts:
        for cid, n in callgrind_side().items():
            print("%-40s %8.0f" % (cid, n))
        return 0

    triton = triton_side(args.oracle)
    ours = rust_side()
    scaling = scaling_side()
    batch = batch_side(args.oracle)
    counts = callgrind_side()
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
        "swizzled shared layout, and a 16-element identity; the encodings' conversions add a WMMA "
        "layout at 128x128 and a slice of the blocked one, whose Triton layouts are in "
        "`benches/encoding_layouts.json`), measured on both sides in one run by "
        "`python3 scripts/benchmarks.py`:",
        "",
        "* **linear-layout**: `cargo bench --bench core --bench encodings` (criterion, mean time per call, release build).",
        "* **Triton 3.6.0**: `scripts/bench_triton.py` through the oracle's Python: the pybind "
        "`LinearLayout`, minimum over %d repeats of the mean time per call, minus the Python call "
        "overhead measured on `%s` (%.3f µs)." % (triton["results"][0]["repeats"], triton["overhead"]["call"],
                                                  triton["overhead"]["us"]),
        "",
        "Machine: %s, %s; Triton %s, Python %s." % (cpu, platform.machine(), triton["triton_version"],
                                                    triton["python"]),
        "",
        "| operation | Triton 3.6.0 case | Triton (µs, net) | linear-layout (ns) | speed-up | target "
        "| linear-layout (instructions per call, callgrind) |",
        "|---|---|---:|---:|---:|---|---:|",
    ]
    for cid, case, t_us, ns, ratio in rows:
        target = "met" if ratio >= 100 else "not met (100x)"
        count = "%.0f" % counts[cid] if cid in counts else "—"
        lines.append("| `%s` | `%s` | %.2f | %.1f | %.0fx | %s | %s |" % (
            cid, case.replace("|", "\\|"), t_us, ns, ratio, target, count))

    lines += [
        "",
        "### The batch protocol's throughput",
        "",
        "Requests per second of the whole protocol (reading, parsing, computing and writing every "
        "answer), the same request files on both sides: `linear-layout batch` (release build, best "
        "of 5 runs) against the oracle's `triton_batch.py` (one run; it evaluates every request in "
        "a forked child, as Triton aborts the process on many bad inputs, and that isolation is "
        "most of its time).",
        "",
        "| requests | count | Triton 3.6.0 (req/s) | linear-layout (req/s) | speed-up | target |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for label, n, t_them, t_us in batch:
        ratio = t_them / t_us
        lines.append("| %s | %d | %.0f | %.0f | %.0fx | %s |" % (
            label, n, n / t_them, n / t_us, ratio, "met" if ratio >= 100 else "not met (100x)"))

    lines += [
        "",
        "### Scaling with the size of a layout",
        "",
        "`cargo bench --bench core -- scaling`: each core operation on generated invertible layouts "
        "of 8 to 64 input bits (as many output bits) split evenly over 1 to 6 dims a side (ns per "
        "call; `apply` by name, `product` of two layouts of half the bits with the same dims; no "
        "single dim of 64 bits exists, its size not fitting 64 bits).",
        "",
        "| operation | dims | " + " | ".join("%d bits" % b for b in SCALING_BITS) + " |",
        "|---|---:|" + "---:|" * len(SCALING_BITS),
    ]
    for op in SCALING_OPS:
        for dims in SCALING_DIMS:
            cells = ["%.0f" % scaling[(op, b, dims)] if (op, b, dims) in scaling else "—" for b in SCALING_BITS]
            lines.append("| `%s` | %d | %s |" % (op, dims, " | ".join(cells)))
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
