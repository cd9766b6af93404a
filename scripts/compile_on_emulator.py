#!/usr/bin/env python3
"""Run the kernels `linear-layout compile` makes from the people kernels' TTIR on the patched
emulator, against the same references as the lowering of Triton's own TTGIR.

    PATH=<dir with clang>:$PATH TINYGRAD_SRC=<patched tinygrad> \
      python3 scripts/compile_on_emulator.py [--binary target/release/linear-layout] [--only SUBSTR]
        [--layouts cost|triton] [--json FILE]

For each case of tests/fixtures/lower/ttgir-people/cases.json: the kernel's TTIR (stage 0 of
tests/fixtures/passes/people/<kernel>.<arch>.mlir, with its warps) goes through
`linear-layout compile --emit ttgir --layouts L` into a scratch directory, beside a copy of the
case list, its references (refs.py) and Triton's own AMDGCN of the kernel; then
../shared/tools/emulate/check_ttgir.py lowers, runs and compares each there, and counts
instructions beside Triton's: in the code, and executed per wave against what Triton's own code
object executes on the same emulator (`triton-executed.json`, measured with `check_ttgir.py
--triton`). `--json FILE` writes each case's status, instructions and instructions executed
per wave.
"""
import argparse
import json
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
    ap.add_argument("--layouts", default="cost", choices=["cost", "triton"])
    ap.add_argument("--json", help="write each case's status and counts to this file")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="compiled-people-")
    shutil.copy(os.path.join(PEOPLE_LOWER, "refs.py"), work)
    cases = json.load(open(os.path.join(PEOPLE_LOWER, "cases.json")))
    executed = os.path.join(PEOPLE_LOWER, "triton-executed.json")
    if os.path.exists(executed):
        theirs = json.load(open(executed))["default"]
        for case in cases:
            if case["id"] in theirs:
                case["triton_executed"] = theirs[case["id"]]
    json.dump(cases, open(os.path.join(work, "cases.json"), "w"), indent=1)
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
                              "--layouts", args.layouts, "--emit", "ttgir", "-o", os.path.join(work, name)],
                             capture_output=True, text=True)
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
    run = subprocess.run(cmd, capture_output=True, text=True)
    sys.stdout.write(run.stdout)
    sys.stderr.write(run.stderr)
    if args.json:
        json.dump(results(run.stdout), open(args.json, "w"), indent=1)
    sys.exit(run.returncode)


def results(report):
    """Per case id: status, instructions (ours/Triton's) and instructions executed per wave, from
    check_ttgir.py's report."""
    out = {}
    for line in report.splitlines():
        m = re.match(r"^(people/\S+)\s+(ok|WRONG|FAIL)\s+(\S*)\s+(.*)$", line)
        if not m:
            continue
        run = re.search(r"(\d+) instructions run per wave", m.group(4))
        out[m.group(1)] = {"status": m.group(2), "total": m.group(3),
                           "executed": int(run.group(1)) if run else None}
    return out


if __name__ == "__main__":
    main()
