#!/usr/bin/env python3
"""Run the kernels `linear-layout compile` makes from the people kernels' TTIR on the patched
emulator, against the same references as the lowering of Triton's own TTGIR.

    PATH=<dir with clang>:$PATH TINYGRAD_SRC=<patched tinygrad> \
      python3 scripts/compile_on_emulator.py [--binary target/release/linear-layout] [--only SUBSTR]

For each case of tests/fixtures/lower/ttgir-people/cases.json: the kernel's TTIR (stage 0 of
tests/fixtures/passes/people/<kernel>.<arch>.mlir, with its warps) goes through
`linear-layout compile --emit ttgir` (Triton's layouts, chosen by the crate) into a scratch
directory, beside a copy of the case list, its references (refs.py) and Triton's own AMDGCN of
the kernel; then ../shared/tools/emulate/check_ttgir.py lowers, runs and compares each there, and
counts instructions beside Triton's.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
PEOPLE_LOWER = os.path.join(ROOT, "tests", "fixtures", "lower", "ttgir-people")
PEOPLE_PASSES = os.path.join(ROOT, "tests", "fixtures", "passes", "people")


def ttir(kernel, arch):
    """(TTIR text, warps) of a people kernel on an arch."""
    with open(os.path.join(PEOPLE_PASSES, f"{kernel}.{arch}.mlir")) as f:
        text = f.read()
    warps = re.search(r"^// num_warps: (\d+)", text, re.M)
    body = text.split("// ----- stage 0: ttir\n", 1)[1].split("// ----- stage 1", 1)[0]
    return body, int(warps.group(1)) if warps else 4


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "linear-layout"))
    ap.add_argument("--emulate", default=os.path.join(ROOT, "..", "shared", "tools", "emulate"))
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="compiled-people-")
    for name in ("cases.json", "refs.py"):
        shutil.copy(os.path.join(PEOPLE_LOWER, name), work)
    compiled = 0
    for name in sorted(os.listdir(PEOPLE_LOWER)):
        if not name.endswith(".ttgir"):
            continue
        kernel, arch, _ = name.rsplit(".", 2)
        text, warps = ttir(kernel, arch)
        src = os.path.join(work, f"{kernel}.{arch}.ttir")
        with open(src, "w") as f:
            f.write(text)
        out = subprocess.run([args.binary, "compile", src, "--arch", arch, "--num-warps", str(warps),
                              "--emit", "ttgir", "-o", os.path.join(work, name)], capture_output=True, text=True)
        if out.returncode != 0:
            print(f"{name}: compile failed: {out.stderr.strip()}")
            continue
        compiled += 1
        amdgcn = os.path.join(PEOPLE_LOWER, f"{kernel}.{arch}.amdgcn")
        if os.path.exists(amdgcn):
            shutil.copy(amdgcn, work)
    print(f"compiled {compiled} kernels into {work}")
    cmd = [sys.executable, os.path.join(args.emulate, "check_ttgir.py"), args.binary,
           "--cases", os.path.join(work, "cases.json"), "--references", os.path.join(work, "refs.py")]
    if args.only:
        cmd += ["--only", args.only]
    sys.exit(subprocess.run(cmd).returncode)


if __name__ == "__main__":
    main()
