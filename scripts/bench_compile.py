#!/usr/bin/env python3
"""Time `linear-layout compile` beside Triton 3.6.0's own compile of the same modules, in one run,
and print the table of BENCHMARKS.md ("Compile time against Triton").

    python3 scripts/bench_compile.py [--oracle ../shared/oracle] [--repeat 3]

The modules: the people kernels' TTIR as Triton's make_ttir leaves it (stage 0 of
tests/fixtures/passes/people/*.mlir, 147 kernels on gfx942, gfx950 and gfx1100), with their warps.

1. Ours, to LLVM IR: `cargo bench --bench compile` (criterion, all kernels in one iteration):
   the layout pipeline, the lowering and the LLVM IR text, for `--layouts triton` and
   `--layouts cost`.
2. Ours, LLVM IR to code: llc-22 -O3 on each kernel's LLVM IR (`--layouts cost`), the minimum of
   --repeat runs of the process per kernel, summed.
3. Triton (this script again through the oracle's Python, `--triton-side`): each module parsed,
   then its AMD backend's stages as triton.compile runs them at num_stages 1 — make_ttgir,
   make_llir (TTGIR to LLVM IR) and make_amdgcn (LLVM's code generation) — each timed, the minimum
   of --repeat runs per kernel, summed over the kernels.
"""

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
PEOPLE = os.path.join(ROOT, "tests", "fixtures", "passes", "people")


def modules():
    """[(file, arch, warps, ttir)] of the people kernels."""
    out = []
    for path in sorted(glob.glob(os.path.join(PEOPLE, "*.mlir"))):
        text = open(path).read()
        arch = re.search(r"^// arch: (\S+)", text, re.M).group(1)
        warps = int(re.search(r"^// num_warps: (\d+)", text, re.M).group(1))
        ttir = text.split("// ----- stage 0: ttir\n", 1)[1].split("// ----- stage 1", 1)[0]
        out.append((os.path.basename(path), arch, warps, ttir))
    return out


def triton_side(out_path, repeat):
    """Each kernel in its own process (LLVM aborts the process on the kernels Triton cannot
    compile); those are left out of both sides' totals."""
    totals = {"make_ttgir": 0.0, "make_llir": 0.0, "make_amdgcn": 0.0}
    per, refused = {}, []
    for name, _, _, _ in modules():
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--triton-one", name, "--repeat", str(repeat)],
                           capture_output=True, text=True)
        if p.returncode != 0:
            refused.append(name)
            continue
        per[name] = json.loads(p.stdout.strip().splitlines()[-1])
        for k in totals:
            totals[k] += per[name][k]
    json.dump({"totals": totals, "per": per, "kernels": len(per), "refused": refused}, open(out_path, "w"), indent=1)


def triton_one(file, repeat):
    """Prints the best seconds of each of Triton's stages on one kernel."""
    import triton._C.libtriton as lt
    from triton.backends.compiler import GPUTarget
    from triton.compiler.compiler import make_backend

    for name, arch, warps, ttir in modules():
        if name != file:
            continue
        target = GPUTarget("hip", arch, 32 if arch.startswith("gfx11") else 64)
        backend = make_backend(target)
        options = backend.parse_options({"num_warps": warps, "num_stages": 1})
        best = {}
        for _ in range(repeat):
            ctx = lt.ir.context()
            lt.ir.load_dialects(ctx)
            backend.load_dialects(ctx)
            with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
                f.write(ttir)
            mod = lt.ir.parse_mlir_module(f.name, ctx)
            os.unlink(f.name)
            mod.context = ctx
            metadata = {"target": target, **options.__dict__}
            src = mod
            for stage, fn in (("make_ttgir", backend.make_ttgir), ("make_llir", backend.make_llir),
                              ("make_amdgcn", backend.make_amdgcn)):
                t0 = time.perf_counter()
                src = fn(src, metadata, options)
                dt = time.perf_counter() - t0
                best[stage] = min(best.get(stage, dt), dt)
        print(json.dumps(best))


def criterion_mean(name):
    with open(os.path.join(ROOT, "target", "criterion", "compile", name, "new", "estimates.json")) as f:
        return json.load(f)["mean"]["point_estimate"] / 1e9


def llc_side(repeat):
    """Seconds of llc-22 -O3 over every kernel's LLVM IR (cost mode), the minimum per kernel."""
    binary = os.path.join(ROOT, "target", "release", "linear-layout")
    total = 0.0
    with tempfile.TemporaryDirectory() as td:
        for name, arch, warps, ttir in modules():
            src, ll = os.path.join(td, name), os.path.join(td, name + ".ll")
            open(src, "w").write(ttir)
            subprocess.run([binary, "compile", src, "--arch", arch, "--num-warps", str(warps), "-o", ll], check=True)
            best = None
            for _ in range(repeat):
                t0 = time.perf_counter()
                subprocess.run(["llc-22", "-O3", "-mtriple=amdgcn-amd-amdhsa", f"-mcpu={arch}", ll, "-o", os.devnull],
                               check=True)
                dt = time.perf_counter() - t0
                best = dt if best is None else min(best, dt)
            total += best
    return total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oracle", default=os.path.join(ROOT, "..", "shared", "oracle"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--triton-side", help=argparse.SUPPRESS)
    ap.add_argument("--triton-one", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.triton_one:
        triton_one(a.triton_one, a.repeat)
        return
    if a.triton_side:
        triton_side(a.triton_side, a.repeat)
        return
    subprocess.run(["cargo", "build", "--release"], cwd=ROOT, check=True)
    subprocess.run(["cargo", "bench", "--bench", "compile"], cwd=ROOT, check=True)
    ours = {m: criterion_mean(m) for m in ("triton", "cost")}
    llc = llc_side(a.repeat)
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    subprocess.run([os.path.join(a.oracle, "oracle-python"), os.path.abspath(__file__), "--triton-side", out,
                    "--repeat", str(a.repeat)], check=True)
    theirs = json.load(open(out))
    n_ours, n = len(modules()), theirs["kernels"]
    t = theirs["totals"]
    ms = lambda s: f"{s * 1e3:.1f} ms"  # noqa: E731
    # Per kernel: Triton's totals cover the kernels it compiles, ours every kernel.
    row = lambda label, total, kernels, base=None: print(  # noqa: E731
        f"| {label} | {kernels} | {ms(total)} | {total * 1e6 / kernels:.0f} µs | "
        + (f"{base / (total / kernels):.1f}x |" if base else "1x |"))
    to_ir = (t["make_ttgir"] + t["make_llir"]) / n
    whole = to_ir + t["make_amdgcn"] / n
    print("| path | kernels | total | per kernel | speed-up per kernel |")
    print("|---|---:|---:|---:|---:|")
    print(f"| Triton: make_ttgir (num_stages 1) | {n} | {ms(t['make_ttgir'])} | {t['make_ttgir'] * 1e6 / n:.0f} µs | |")
    print(f"| Triton: make_llir | {n} | {ms(t['make_llir'])} | {t['make_llir'] * 1e6 / n:.0f} µs | |")
    row("**Triton: TTIR → LLVM IR**", t["make_ttgir"] + t["make_llir"], n)
    for m in ("triton", "cost"):
        row(f"**linear-layout `compile --layouts {m}`: TTIR → LLVM IR**", ours[m], n_ours, to_ir)
    print(f"| Triton: make_amdgcn (LLVM's code generation) | {n} | {ms(t['make_amdgcn'])} | "
          f"{t['make_amdgcn'] * 1e6 / n:.0f} µs | |")
    row("Triton: TTIR → AMDGCN", whole * n, n)
    row("linear-layout `--layouts cost` + llc-22 -O3 (a process per kernel)", ours["cost"] + llc, n_ours, whole)
    if theirs["refused"]:
        print(f"\nTriton aborts on {', '.join(theirs['refused'])} (left out of its side).")


if __name__ == "__main__":
    sys.exit(main())
