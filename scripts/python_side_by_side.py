#!/usr/bin/env python3
"""One short layout session in Triton 3.6.0's Python binding and in `linear_layout`, side by
side: the same calls, timed from Python on both sides, their answers compared, and then inputs
on which Triton's binding aborts the process while `linear_layout` raises.

Run it with the oracle's Python (Triton 3.6.0 installed there), with this package installed
into that environment for the run:

    ../shared/oracle/oracle-python -m pip install ./python
    ../shared/oracle/oracle-python scripts/python_side_by_side.py [--markdown]

Each timing is the median of 7 rounds of a loop long enough to take about 20 ms, divided by
the loop's length: microseconds per call from Python, the binding's overhead included. The
aborting inputs run on Triton's side in a child process (an abort ends the process that
makes the call), on ours in this one.
"""

import argparse
import statistics
import subprocess
import sys
import time

import linear_layout as ll
import triton._C.libtriton as lt
from triton._C.libtriton import gluon_ir, ir

TLL = lt.linear_layout.LinearLayout
OLL = ll.LinearLayout

BLOCKED = {"sizePerThread": [1, 8], "threadsPerWarp": [8, 8], "warpsPerCTA": [4, 1], "order": [1, 0]}
MFMA = {"version": 3, "warpsPerCTA": [2, 2], "instrShape": [32, 32, 8], "isTransposed": True}
SHAPE = [128, 128]


def per_call_us(fn):
    """Median microseconds per call of fn()."""
    n, start = 1, time.perf_counter()
    fn()
    while time.perf_counter() - start < 0.02:
        n *= 2
        start = time.perf_counter()
        for _ in range(n):
            fn()
    rounds = []
    for _ in range(7):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        rounds.append((time.perf_counter() - start) / n)
    return statistics.median(rounds) * 1e6


def triton_encodings():
    """Triton's layouts of the two encodings, through Gluon's builder (its Python route to
    toLinearLayout), and the call that makes one."""
    ctx = ir.context()
    ir.load_dialects(ctx)
    lt.amd.load_dialects(ctx)
    b = gluon_ir.GluonOpBuilder(ctx)

    def blocked():
        attr = b.get_blocked_layout(
            BLOCKED["sizePerThread"], BLOCKED["threadsPerWarp"], BLOCKED["warpsPerCTA"], BLOCKED["order"], []
        )
        return b.to_linear_layout(attr, SHAPE)

    def mfma():
        attr = b.get_amd_mfma_layout(3, MFMA["warpsPerCTA"], MFMA["instrShape"], True, [], [1, 1], 32)
        return b.to_linear_layout(attr, SHAPE)

    def as_layout(g):
        bases = [("register", g.reg_bases), ("lane", g.lane_bases), ("warp", g.warp_bases), ("block", g.block_bases)]
        return TLL.from_bases(bases, ["dim0", "dim1"], SHAPE, False)

    # The builder does not keep its MLIR context alive: the closures must.
    blocked.context = ctx
    return blocked, as_layout(blocked()), as_layout(mfma())


def ours_encodings():
    def blocked():
        return ll.to_linear_layout(dict(kind="blocked", **BLOCKED), SHAPE)

    def mfma():
        return ll.to_linear_layout(dict(kind="amd_mfma", **MFMA), SHAPE)

    return blocked, blocked(), mfma()


def session(LL, blocked, mfma):
    """The session: (step, call) pairs, written once for both bindings (the same names)."""
    bases = blocked.bases
    names = [n for n, _ in blocked.out_dims]
    sizes = [s for _, s in blocked.out_dims]
    lane = LL.identity_1d(32, "lane", "dim0")
    inv = mfma.invert()
    point = {"register": 5, "lane": 37, "warp": 3, "block": 0}
    return [
        ("from_bases (blocked, 128x128)", lambda: LL.from_bases(bases, names, sizes, False)),
        ("identity_1d * identity_1d", lambda: lane * LL.identity_1d(4, "warp", "dim0")),
        ("apply", lambda: mfma.apply(point)),
        ("invert (MFMA)", lambda: mfma.invert()),
        ("compose (blocked ∘ MFMA⁻¹)", lambda: blocked.compose(inv)),
        ("invert_and_compose (blocked → MFMA)", lambda: blocked.invert_and_compose(mfma)),
        ("pseudoinvert (blocked)", lambda: blocked.pseudoinvert()),
        ("is_surjective", lambda: blocked.is_surjective()),
        ("== (equal layouts)", lambda: blocked == LL.from_bases(bases, names, sizes, False)),
        ("str (Triton's printing)", lambda: str(mfma)),
        ("get_distributed_view(True)", lambda: mfma.get_distributed_view(True)),
    ]


def canonical(x):
    """An answer in a form both bindings share."""
    if hasattr(x, "bases") and hasattr(x, "out_dims"):
        return ([(n, [list(b) for b in bs]) for n, bs in x.bases], [tuple(d) for d in x.out_dims])
    if isinstance(x, dict):
        return sorted(x.items())
    return x


# Inputs on which Triton 3.6.0's binding aborts. Each is one Python expression over `LL`,
# evaluated by both bindings.
ABORTS = [
    ("invert of a non-invertible layout", "LL.zeros_1d(2, 'register', 'dim0').invert()"),
    (
        "compose with mismatched dims",
        "LL.identity_1d(32, 'lane', 'dim0').compose(LL.identity_1d(32, 'warp', 'dim1'))",
    ),
    (
        "invert_and_compose into a smaller layout",
        "LL.identity_1d(32, 'lane', 'dim0').invert_and_compose(LL.identity_1d(16, 'lane', 'dim0'))",
    ),
    ("apply without an in-dim", "LL.identity_1d(32, 'lane', 'dim0').apply({'warp': 1})"),
    (
        "get_distributed_view without registers",
        "(LL.identity_1d(4, 'lane', 'dim0') * LL.identity_1d(2, 'warp', 'dim0')).get_distributed_view(True)",
    ),
    (
        "product past 64 bits",
        "LL.identity_1d(2**30, 'x', 'y') * LL.identity_1d(2**30, 'z', 'w') * LL.identity_1d(2**30, 'u', 'v')",
    ),
    (
        "pseudoinvert of a non-surjective layout",
        "LL.strided_1d(4, 2, 'register', 'dim0').pseudoinvert()",
    ),
]

CHILD = """
import triton._C.libtriton as lt
LL = lt.linear_layout.LinearLayout
r = {expr}
print('returns:', str(r).strip().splitlines()[0] if str(r).strip() else repr(r))
"""


def triton_abort(expr):
    p = subprocess.run([sys.executable, "-c", CHILD.format(expr=expr)], capture_output=True, text=True)
    if p.returncode < 0:
        lines = [l for l in p.stderr.strip().splitlines() if l.strip()]
        why = lines[-1] if lines else ""
        if "Assertion `" in why:
            why = "assertion " + why.split("Assertion `", 1)[1].split("' failed", 1)[0]
        elif "LLVM ERROR:" in why:
            why = "LLVM ERROR: " + why.split("LLVM ERROR:", 1)[1].strip()
        name = "SIGABRT" if -p.returncode == 6 else "signal %d" % -p.returncode
        return "process killed (%s): %s" % (name, why)
    if p.returncode:
        lines = p.stderr.strip().splitlines()
        return "exit %d: %s" % (p.returncode, lines[-1] if lines else "")
    return p.stdout.strip()


def ours_raise(expr):
    try:
        r = eval(expr, {"LL": OLL})
    except ll.LinearLayoutError as e:
        return "raises %s: %s" % (type(e).__name__, e)
    text = str(r).strip()
    return "returns: " + (text.splitlines()[0] if text else repr(r))


def short(s, n=110):
    s = " ".join(s.split()).replace("|", "\\|")
    return s if len(s) <= n else s[: n - 1] + "…"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--markdown", action="store_true", help="print Markdown tables")
    args = ap.parse_args()

    t_make, t_blocked, t_mfma = triton_encodings()
    o_make, o_blocked, o_mfma = ours_encodings()
    assert canonical(t_blocked) == canonical(o_blocked) and canonical(t_mfma) == canonical(o_mfma)

    rows = [("to_linear_layout (blocked encoding)", per_call_us(t_make), per_call_us(o_make), "yes")]
    for (step, t_call), (_, o_call) in zip(session(TLL, t_blocked, t_mfma), session(OLL, o_blocked, o_mfma)):
        same = canonical(t_call()) == canonical(o_call())
        rows.append((step, per_call_us(t_call), per_call_us(o_call), "yes" if same else "NO"))

    aborts = [(what, triton_abort(expr), ours_raise(expr)) for what, expr in ABORTS]

    if args.markdown:
        print("| call | Triton 3.6.0 (µs) | linear_layout (µs) | ratio | same answer |")
        print("|---|---:|---:|---:|---|")
        for step, t, o, same in rows:
            print("| `%s` | %.2f | %.2f | %.1f× | %s |" % (step, t, o, t / o, same))
        print()
        print("| input | Triton 3.6.0 | linear_layout |")
        print("|---|---|---|")
        for what, t, o in aborts:
            print("| %s | %s | %s |" % (what, short(t), short(o)))
    else:
        print("%-40s %14s %14s %8s  %s" % ("call", "Triton us", "ours us", "ratio", "same"))
        for step, t, o, same in rows:
            print("%-40s %14.2f %14.2f %7.1fx  %s" % (step, t, o, t / o, same))
        print()
        for what, t, o in aborts:
            print("%s\n  Triton: %s\n  ours:   %s" % (what, short(t, 200), short(o, 200)))
    return 0 if all(r[3] == "yes" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
