#!/usr/bin/env python3
"""Time Triton 3.6's LinearLayout operations (the pybind module) on the
standard benchmark layouts, as the baseline for the Rust benches.

    ../shared/oracle/oracle-python scripts/bench_triton.py [--json out.json]
        [--layouts benches/std_layouts.json] [--repeat 7] [--min-time 0.2]

Run it with the oracle's Python (it imports triton).  Layouts come from
benches/std_layouts.json (a verbatim copy of the oracle's std_layouts.json);
each is built with
    LinearLayout.from_bases(list(in_dims.items()), out_names, out_sizes, False)

Operations timed (one Python call each; operands are built beforehand):
    invert_and_compose   blocked.invert_and_compose(mfma)
    invert_and_compose   mfma128x64.invert_and_compose(shared)
    compose              mfma128x64.compose(shared_inv)   (shared_inv = shared.invert(), precomputed)
    invert               shared.invert()
    pseudoinvert         blocked.pseudoinvert()
    product              blocked * ident
    apply                blocked.apply({"register": 5, "lane": 9, "warp": 1, "block": 0})

Method: timeit.Timer on a bound callable; `number` is chosen (autorange) so
that one repeat lasts at least --min-time seconds; the per-call time is the
mean over `number` calls, and the reported figure is the minimum of --repeat
such means.  The Python/pybind call overhead is measured the same way on the
cheapest trivial accessor of the same object (the fastest of num_in_dims
(a property), is_surjective(), is_injective(), get_in_dim_names()), and
subtracted to give the "net" figure (an estimate of the C++ work; it still
contains argument conversion, e.g. the dict of apply, and the allocation of
the returned Python object).  Every timed statement is a lambda, so both
figures include one lambda call, which the subtraction removes again.
"""

import argparse
import json
import os
import platform
import sys
import timeit

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_LAYOUTS = os.path.join(HERE, "..", "benches", "std_layouts.json")


def build(LL, j):
    return LL.from_bases(list(j["in_dims"].items()), list(j["out_dims"].keys()),
                         list(j["out_dims"].values()), False)


def measure(fn, repeat, min_time):
    """(min over repeats of the mean seconds per call, number per repeat)."""
    t = timeit.Timer(fn)
    number = 1
    while True:
        if t.timeit(number) >= min_time:
            break
        number *= 2
    best = min(t.repeat(repeat=repeat, number=number)) / number
    return best, number


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--layouts", default=DEFAULT_LAYOUTS,
                    help="std_layouts.json (default: benches/std_layouts.json)")
    ap.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    ap.add_argument("--oracle", help="the oracle folder (default: ../shared/oracle beside the repository)")
    ap.add_argument("--repeat", type=int, default=7, help="repeats (min is taken)")
    ap.add_argument("--min-time", type=float, default=0.2,
                    help="minimum seconds per repeat (sets the calls per repeat)")
    args = ap.parse_args(argv)

    import triton
    from triton._C.libtriton.linear_layout import LinearLayout as LL

    with open(args.layouts) as f:
        std = json.load(f)
    L = dict((name, build(LL, j)) for name, j in std.items())
    blocked, mfma, mfma128x64, shared, ident = (
        L["blocked"], L["mfma"], L["mfma128x64"], L["shared"], L["ident"])
    shared_inv = shared.invert()
    apply_in = {"register": 5, "lane": 9, "warp": 1, "block": 0}

    cases = [
        ("invert_and_compose", "blocked.invert_and_compose(mfma)",
         lambda: blocked.invert_and_compose(mfma)),
        ("invert_and_compose", "mfma128x64.invert_and_compose(shared)",
         lambda: mfma128x64.invert_and_compose(shared)),
        ("compose", "mfma128x64.compose(shared.invert())  [inverse precomputed]",
         lambda: mfma128x64.compose(shared_inv)),
        ("invert", "shared.invert()", lambda: shared.invert()),
        ("pseudoinvert", "blocked.pseudoinvert()", lambda: blocked.pseudoinvert()),
        ("product", "blocked * ident", lambda: blocked * ident),
        ("apply", "blocked.apply(%s)" % json.dumps(apply_in),
         lambda: blocked.apply(apply_in)),
    ]
    # Encoding -> layout: Triton's attribute builder plus its conversion, on the encodings
    # of benches/std_encodings.json (distributed ones through GluonOpBuilder.to_linear_layout,
    # the shared one through the C++ toLinearLayout, as the oracle does).
    oracle_dir = args.oracle or os.path.join(HERE, "..", "..", "shared", "oracle")
    if os.path.isdir(oracle_dir):
        sys.path.insert(0, oracle_dir)
        import ll_oracle
        o = ll_oracle.Oracle(want_mlir=False)
        with open(os.path.join(HERE, "..", "benches", "std_encodings.json")) as f:
            encs = json.load(f)
        for name in ("blocked", "mfma", "shared", "dotop", "wmma", "slice"):
            enc, shape = encs[name]["encoding"], encs[name]["shape"]
            if enc["kind"] == "swizzled_shared":
                fn = (lambda enc=enc, shape=shape:
                      o.bridge.to_linear_layout(ll_oracle.build_attr(o.b, enc, shape), shape))
            else:
                fn = (lambda enc=enc, shape=shape:
                      o.b.to_linear_layout(ll_oracle.build_attr(o.b, enc, shape), shape))
            cases.append(("to_linear_layout", "to_linear_layout(%s)" % name, fn))

    # sanity: every case runs (a failure would abort the interpreter here)
    for _, _, fn in cases:
        fn()

    # call overhead: the cheapest trivial accessor of the same object
    x = blocked
    overhead_cands = [
        ("blocked.num_in_dims (property)", lambda: x.num_in_dims),
        ("blocked.is_surjective()", lambda: x.is_surjective()),
        ("blocked.is_injective()", lambda: x.is_injective()),
        ("blocked.get_in_dim_names()", lambda: x.get_in_dim_names()),
    ]
    ov = []
    for name, fn in overhead_cands:
        sec, number = measure(fn, args.repeat, args.min_time)
        ov.append((sec, name, number))
    ov.sort()
    ov_sec, ov_name, ov_number = ov[0]

    results = []
    for op, desc, fn in cases:
        sec, number = measure(fn, args.repeat, args.min_time)
        results.append({"op": op, "case": desc, "raw_us": sec * 1e6,
                        "net_us": max(0.0, sec - ov_sec) * 1e6,
                        "calls_per_repeat": number, "repeats": args.repeat})

    info = {
        "triton_version": triton.__version__,
        "python": sys.version.split()[0],
        "machine": platform.machine(),
        "platform": platform.platform(),
        "layouts": os.path.relpath(os.path.abspath(args.layouts)),
        "method": "min over repeats of the mean time per call (timeit); "
                  "net = raw - call overhead",
        "overhead": {"call": ov_name, "us": ov_sec * 1e6,
                     "calls_per_repeat": ov_number,
                     "candidates_us": dict((n, s * 1e6) for s, n, _ in ov)},
        "results": results,
    }

    print("Triton %s LinearLayout (pybind), Python %s, %s" % (
        info["triton_version"], info["python"], info["machine"]))
    print("call overhead: %.3f us  (%s)" % (ov_sec * 1e6, ov_name))
    print()
    w = max(len(r["case"]) for r in results)
    print("%-18s  %-*s  %10s  %10s" % ("op", w, "case", "raw us", "net us"))
    print("%s  %s  %s  %s" % ("-" * 18, "-" * w, "-" * 10, "-" * 10))
    for r in results:
        print("%-18s  %-*s  %10.3f  %10.3f" % (r["op"], w, r["case"], r["raw_us"], r["net_us"]))

    if args.json:
        with open(args.json, "w") as f:
            json.dump(info, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
