#!/usr/bin/env python3
"""Measure what Triton 3.6.0's own code executes on the patched emulator, per people case, and
write tests/fixtures/lower/ttgir-people/triton-executed.json: the yardstick `compile_on_emulator.py`
and BENCHMARKS.md compare `linear-layout compile` against.

    PATH=<dir with clang>:$PATH TINYGRAD_SRC=<patched tinygrad> \\
      python3 scripts/triton_executed.py [--oracle ../shared/oracle] [--reports DEFAULT NS1 NS1_DIR]

1. `check_ttgir.py --triton` on the fixtures' own code objects (Triton's default options, as
   the kernels' launches compile them).
2. `people_ttgir.py --num-stages 1` into a scratch directory (Triton's compile at num_stages 1,
   whose layouts `--layouts triton` reproduces), then `check_ttgir.py --triton` there.

Written per case id: the instructions one wave executes, for the cases Triton's code runs right on
the emulator (it does not model Triton's fp8 rounding-mode setup `s_setreg`, gfx942's packed f16
atomics or gfx950's `ds_read_b64_tr_b8`, and Triton's buffer-atomic split-K runs wrong there);
and per kernel the num_stages 1 compile's instruction count, VGPRs and LDS bytes.
`--reports` reads the two reports and the num_stages 1 directory of an earlier run instead.
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
PEOPLE = os.path.join(ROOT, "tests", "fixtures", "lower", "ttgir-people")


def executed(report):
    """{case id: instructions executed per wave} of the cases a check_ttgir.py report has right."""
    out = {}
    for line in report.splitlines():
        m = re.match(r"^(people/\S+)\s+ok\s+\S+\s+.*?(\d+) instructions run per wave", line)
        if m:
            out[m.group(1)] = int(m.group(2))
    return out


def check(emulate, cases_dir):
    cmd = [sys.executable, os.path.join(emulate, "check_ttgir.py"), "--triton", "--cases",
           os.path.join(cases_dir, "cases.json"), "--references", os.path.join(PEOPLE, "refs.py")]
    return subprocess.run(cmd, capture_output=True, text=True).stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oracle", default=os.path.join(ROOT, "..", "shared", "oracle"))
    ap.add_argument("--emulate", default=os.path.join(ROOT, "..", "shared", "tools", "emulate"))
    ap.add_argument("--reports", nargs=3, metavar=("DEFAULT", "NS1", "NS1_DIR"))
    a = ap.parse_args()
    if a.reports:
        default, ns1 = (open(p).read() for p in a.reports[:2])
        ns1_dir = a.reports[2]
    else:
        default = check(a.emulate, PEOPLE)
        ns1_dir = tempfile.mkdtemp(prefix="people-ns1-")
        subprocess.run([os.path.join(a.oracle, "oracle-python"), os.path.join(ROOT, "scripts", "people_ttgir.py"),
                        "--out", ns1_dir, "--num-stages", "1"], check=True, capture_output=True)
        shutil.copy(os.path.join(PEOPLE, "refs.py"), ns1_dir)
        ns1 = check(a.emulate, ns1_dir)
    counts = {}
    for name in sorted(os.listdir(ns1_dir)):
        m = re.match(r"triton-counts\.(\w+)\.json$", name)
        if m:
            for kernel, c in json.load(open(os.path.join(ns1_dir, name)))["kernels"].items():
                counts[f"{kernel}.{m.group(1)}"] = {"total": c["total"], "vgpr_count": c["vgpr_count"],
                                                    "lds_bytes": c["lds_bytes"]}
    out = {
        "provenance": "Triton 3.6.0's code objects run on tinygrad's AMD emulator patched by "
                      "../shared/tools/emulate/patch_emu.py (check_ttgir.py --triton), written by "
                      "scripts/triton_executed.py",
        "default": executed(default),
        "num_stages_1": executed(ns1),
        "num_stages_1_counts": counts,
    }
    with open(os.path.join(PEOPLE, "triton-executed.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    print(f"default: {len(out['default'])} cases, num_stages 1: {len(out['num_stages_1'])} cases")


if __name__ == "__main__":
    main()
