#!/usr/bin/env python3
"""Time the crate's layout passes beside Triton 3.6.0's own, in one run, and write the
"Layout passes against Triton" section of BENCHMARKS.md.

    python3 scripts/bench_passes.py [--oracle ../shared/oracle] [--out BENCHMARKS.md]

1. `cargo bench --bench layout_passes` (criterion): each pass over Triton's own input for it in
   the people fixtures (tests/fixtures/passes/people/), reading the module, running the pass and
   printing it, all runs of a pass in one iteration; it writes the list of runs it timed to
   target/criterion/layout_passes/inputs.json (runs a pass refuses are left out on both sides).
2. Triton (this script again, through the oracle's python, `--triton-side`): the same runs
   through its binding: parse the module text, a pass manager with the one pass, run, print
   (`str_nodebug`), the minimum over --repeat repetitions of the whole list; and the pipeline
   kernel by kernel (criterion group `layout_pipeline` on our side), each the minimum over
   3 × --repeat runs.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
PEOPLE = os.path.join(ROOT, "tests", "fixtures", "passes", "people")
SECTION = "## Layout passes against Triton"


def stage_inputs(path):
    """{stage index: (pass name, input text)} of a stage file."""
    stages, cur, last = {}, None, ""
    k = -1
    with open(path) as f:
        lines = f.read().split("\n")
    bodies = []
    for line in lines:
        if line.startswith("// ----- stage "):
            if cur is not None:
                bodies.append(cur)
            name = line.split(": ", 1)[1] if ": " in line else ""
            cur = [name, [], False]
        elif line == "// unchanged" and cur is not None:
            cur[2] = True
        elif cur is not None:
            cur[1].append(line)
    if cur is not None:
        bodies.append(cur)
    for k, (name, body, unchanged) in enumerate(bodies):
        module = last if unchanged else "\n".join(body)
        if k > 0:
            stages[k] = (name.split()[0] if name else "", last)
        else:
            stages[0] = ("pipeline", module)
        last = module
    return stages


# The layout passes after the conversion to TTGIR, in make_ttgir's order at num_stages 1, up to
# data duplication, then the in-thread transpose and its propagation where Triton runs them (what
# `--pass pipeline` runs).
PIPELINE = ["coalesce", "f32_dot_tc", "remove_layout_conversions", "optimize_thread_locality", "accelerate_matmul",
            "remove_layout_conversions", "optimize_epilogue", "optimize_dot_operands", "hoist_layout_conversions",
            "fuse_nested_loops", "canonicalize", "licm", "canonicalize", "canonicalize", "remove_layout_conversions",
            "reduce_data_duplication"]
IN_THREAD_TRANSPOSE_TAIL = ["in_thread_transpose", "remove_layout_conversions"]


def pipeline_passes(arch):
    from triton.backends.amd.compiler import is_in_thread_transpose_enabled
    tail = IN_THREAD_TRANSPOSE_TAIL if is_in_thread_transpose_enabled(arch) else []
    return ["convert_to_ttgpuir"] + PIPELINE + tail


def op_count(text):
    """Ops of a module (lines that start with an op, its result names aside)."""
    n = 0
    for line in text.split("\n"):
        t = line.strip()
        if " = " in t and t.startswith("%"):
            t = t.split(" = ", 1)[1]
        head = t.split(" ", 1)[0].strip('"')
        if "." in head and head[:1].isalpha() and not head.startswith("module"):
            n += 1
    return n


def triton_side(inputs_path, out_path, repeat):
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    from pass_fixtures import Triton  # noqa: E402

    T = Triton()
    with open(inputs_path) as f:
        runs = json.load(f)
    cache = {}
    by_pass = {}
    for r in runs:
        f = r["file"]
        if f not in cache:
            cache[f] = stage_inputs(os.path.join(PEOPLE, f))
        name, text = cache[f][r["stage"]]
        assert name == r["pass"], (f, r["stage"], name, r["pass"])
        opts = {"arch": r["arch"], "num_warps": r.get("num_warps", 4),
                "threads_per_warp": r.get("threads_per_warp") or (32 if r["arch"].startswith("gfx11") else 64)}
        by_pass.setdefault(name, []).append((text, opts))
    ctx = T.context()
    result = {}

    def once(name, text, opts):
        mod = T.parse(text, ctx)
        passes = pipeline_passes(opts["arch"]) if name == "pipeline" else [name]
        T.run(mod, ctx, passes, opts)
        mod.str_nodebug()

    for name, items in by_pass.items():
        best = None
        for _ in range(repeat):
            t0 = time.perf_counter()
            for text, opts in items:
                once(name, text, opts)
            dt = time.perf_counter() - t0
            best = dt if best is None else min(best, dt)
        result[name] = {"runs": len(items), "seconds": best}
    modules = {}
    for r in runs:
        if r["pass"] != "pipeline":
            continue
        name, text = cache[r["file"]][r["stage"]]
        opts = {"arch": r["arch"], "num_warps": r.get("num_warps", 4),
                "threads_per_warp": r.get("threads_per_warp") or (32 if r["arch"].startswith("gfx11") else 64)}
        best = None
        for _ in range(repeat * 3):
            t0 = time.perf_counter()
            once("pipeline", text, opts)
            dt = time.perf_counter() - t0
            best = dt if best is None else min(best, dt)
        modules[r["file"]] = {"seconds": best, "ops": op_count(text)}
    result["pipeline per module"] = modules
    with open(out_path, "w") as f:
        json.dump(result, f, indent=1)


def criterion_means(group):
    """{benchmark: mean seconds} of a criterion group."""
    base = os.path.join(ROOT, "target", "criterion", group)
    out = {}
    for name in os.listdir(base) if os.path.isdir(base) else []:
        est = os.path.join(base, name, "new", "estimates.json")
        if os.path.isfile(est):
            with open(est) as f:
                out[name] = json.load(f)["mean"]["point_estimate"] / 1e9
    return out


def rust_side():
    subprocess.run(["cargo", "bench", "--bench", "layout_passes"], cwd=ROOT, check=True)
    inputs = os.path.join(ROOT, "target", "criterion", "layout_passes", "inputs.json")
    return criterion_means("layout_passes"), criterion_means("layout_pipeline"), inputs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oracle", default=os.path.join(ROOT, "..", "shared", "oracle"))
    ap.add_argument("--out", default=os.path.join(ROOT, "BENCHMARKS.md"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--triton-side", nargs=2, metavar=("INPUTS", "OUT"))
    args = ap.parse_args()
    if args.triton_side:
        triton_side(args.triton_side[0], args.triton_side[1], args.repeat)
        return

    ours, ours_per_module, inputs = rust_side()
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as tmp:
        tpath = tmp.name
    subprocess.run([os.path.join(args.oracle, "oracle-python"), os.path.abspath(__file__), "--triton-side", inputs,
                    tpath, "--repeat", str(args.repeat)], cwd=ROOT, check=True)
    with open(tpath) as f:
        triton = json.load(f)
    per_module = triton.pop("pipeline per module")
    module_rows = []
    for f in sorted(per_module):
        key = f[:-len(".mlir")]
        if key not in ours_per_module:
            continue
        kernel, arch = key.rsplit(".", 1)
        t, o = per_module[f]["seconds"], ours_per_module[key]
        module_rows.append("| `%s` | %s | %d | %.0f µs | %.0f µs | %.1fx |" % (
            kernel, arch, per_module[f]["ops"], t * 1e6, o * 1e6, t / o))
    rows = []
    for name in sorted(triton, key=lambda n: -triton[n]["seconds"]):
        if name not in ours:
            continue
        t, o, n = triton[name]["seconds"], ours[name], triton[name]["runs"]
        rows.append("| `%s` | %d | %.2f ms | %.1f µs | %.2f ms | %.1f µs | %.0fx |" % (
            name, n, t * 1e3, t * 1e6 / n, o * 1e3, o * 1e6 / n, t / o))
    text = "\n".join([
        SECTION,
        "",
        "`python3 scripts/bench_passes.py`, both sides in one run: each pass on Triton's own input for it "
        "in the people fixtures (`tests/fixtures/passes/people/`, 49 kernels × gfx942/gfx950/gfx1100), "
        "reading the module text, running the pass and printing the module. linear-layout: `cargo bench "
        "--bench layout_passes` (criterion, mean of all runs of a pass in one iteration). Triton 3.6.0: its "
        "binding (parse, a pass manager with the one pass, run, print), the minimum over %d repetitions. "
        "`pipeline` is each kernel's TTIR through the conversion and every layout pass of `make_ttgir` at "
        "num_stages 1 up to data duplication, then on gfx942 the in-thread transpose and its "
        "propagation (one pass manager on Triton's side). "
        "Runs a pass refuses are left out on both sides." % args.repeat,
        "",
        "| pass | runs | Triton | per run | linear-layout | per run | speed-up |",
        "|---|---:|---:|---:|---:|---:|---:|",
        *rows,
        "",
        "Where the time goes on our side: reading the module text (the reader's logical lines, "
        "attributes and layout checks) and reading the printed module back (a pass never returns a "
        "module the reader refuses) take most of each run; the passes themselves take tens of "
        "microseconds on these kernels. The pipeline reads the text once (again only before the "
        "passes that ask the reader's analyses) and prints once.",
        "",
        "### `pipeline` kernel by kernel",
        "",
        "The same runs, one at a time: linear-layout's criterion mean per kernel "
        "(`layout_pipeline/<file>`), Triton's minimum over %d runs. `ops`: the TTIR's ops." % (args.repeat * 3),
        "",
        "| kernel | arch | ops | Triton | linear-layout | speed-up |",
        "|---|---|---:|---:|---:|---:|",
        *module_rows,
        "",
    ])
    with open(args.out) as f:
        doc = f.read()
    if SECTION in doc:
        start = doc.index(SECTION)
        nxt = doc.find("\n## ", start + len(SECTION))
        doc = doc[:start] + text + (doc[nxt + 1:] if nxt >= 0 else "")
    else:
        doc = doc.rstrip("\n") + "\n\n" + text
    with open(args.out, "w") as f:
        f.write(doc)
    print(text)


if __name__ == "__main__":
    main()
