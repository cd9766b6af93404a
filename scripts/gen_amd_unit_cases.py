#!/usr/bin/env python3
"""Record Triton 3.6's answers for the inputs of the AMD upstream unit tests.

The upstream C++ tests (unittest/Dialect/TritonGPU/LinearLayoutConversionsTest.cpp,
listed in encodings-spec.md section 8) check toLinearLayout of MFMA / WMMA /
dot-operand / AMD-rotating-shared encodings on a few shapes each.  This script
re-creates the *inputs* of the ones that are encoding conversions (the
LDS-transpose-read tests are not) and asks the real Triton 3.6.0 (ll_oracle.py)
for the layouts, so the Rust tests of the same names compare against 3.6 itself.

Usage (from the repository root):
    /work/shared/oracle/oracle-python scripts/gen_amd_unit_cases.py \
        > tests/fixtures/encodings/amd-unit-tests.json
"""

import json
import os
import sys

ORACLE_DIR = os.environ.get("LL_ORACLE_DIR", "/work/shared/oracle")
sys.path.insert(0, ORACLE_DIR)
import gen_cases  # noqa: E402  (for OracleProc)


def mfma(warps, instr, transposed, tpw=None, ebw=None, version=3):
    e = {"kind": "amd_mfma", "version": version, "warpsPerCTA": warps,
         "instrShape": instr, "isTransposed": transposed}
    if tpw:
        e["tilesPerWarp"] = tpw
    if ebw:
        e["elementBitWidth"] = ebw
    return e


def dot(parent, op, kw):
    return {"kind": "dot_operand", "opIdx": op, "parent": parent, "kWidth": kw}


def wmma(warps, version, transposed, instr=None):
    e = {"kind": "amd_wmma", "version": version, "warpsPerCTA": warps,
         "isTransposed": transposed}
    if instr:
        e["instrShape"] = instr
    return e


def rot(vec, per, mx, order):
    return {"kind": "amd_rotating_shared", "vec": vec, "perPhase": per,
            "maxPhase": mx, "order": order}


def both(f, shapes):
    """The same checks for the plain and the transposed parent."""
    return [(f(False), s) for s in shapes] + [(f(True), s) for s in shapes]


M32 = [32, 32, 8]
M16 = [16, 16, 16]
SQ = [[128, 128], [64, 32], [16, 16]]
TESTS = {
    "MFMA32_2x4Warps_tpw_2_2": both(lambda t: mfma([2, 4], M32, t, [2, 2]), [[32, 32], [128, 128], [256, 256]]),
    "MFMA16_2x4Warps_tpw_2_2": both(lambda t: mfma([2, 4], M16, t, [2, 2]), [[32, 32], [128, 128], [256, 256]]),
    "MFMA32_2x4Warps": both(lambda t: mfma([2, 4], M32, t), [[32, 32], [64, 32], [128, 128]]),
    "MFMA16_2x4Warps": both(lambda t: mfma([2, 4], M16, t), [[16, 16]]),
    "MFMA16_2x4Warps_F64": [(mfma([2, 4], [16, 16, 4], False, ebw=64), [16, 16])],
    "MFMA32_2x4x1Warps": both(lambda t: mfma([2, 4, 1], M32, t), [[1, 128, 128], [2, 32, 32], [2, 64, 32]]),
    "MFMA32_warp1onK_lhs_kwidth8": [(dot(mfma([1, 8], M32, False), 0, 8), s)
                                    for s in [[128, 128], [128, 256], [32, 64], [256, 256], [16, 16]]],
    "MFMA32_warp1onK_rhs_kwidth8": [(dot(mfma([1, 8], M32, False), 1, 8), s)
                                    for s in [[128, 128], [128, 256], [32, 64], [256, 256], [16, 16]]]
    + [(dot(mfma([1, 4], M32, False), 1, 8), [256, 256])],
    "MFMA16_warp1onK_lhs_kwidth8": [(dot(mfma([1, 4], M16, False), 0, 8), s)
                                    for s in [[128, 128], [1, 128], [128, 1], [256, 256], [16, 16]]]
    + [(dot(mfma([1, 8], M16, False), 0, 8), [256, 256]),
       (dot(mfma([1, 1, 8], M16, False), 0, 8), [1, 256, 256])],
    "MFMA16_warp1onK_rhs_kwidth8": [(dot(mfma([1, 4], M16, False), 1, 8), s)
                                    for s in [[128, 128], [1, 128], [128, 1], [256, 256], [16, 16]]]
    + [(dot(mfma([1, 8], M16, False), 1, 8), [256, 256]),
       (dot(mfma([1, 1, 8], M16, False), 1, 8), [1, 256, 256])],
    "MFMA32_dot_op_lhs_tpw_2_2": both(lambda t: dot(mfma([2, 4], M32, t, [2, 2]), 0, 4), [[64, 32], [128, 128], [256, 256]]),
    "MFMA16_dot_op_lhs_tpw_2_2": both(lambda t: dot(mfma([2, 4], M16, t, [2, 2]), 0, 4), [[64, 32], [128, 128], [256, 256]]),
    "MFMA32_dot_op_lhs_kwidth4": both(lambda t: dot(mfma([2, 4], M32, t), 0, 4), SQ),
    "MFMA16_dot_op_lhs_kwidth4": both(lambda t: dot(mfma([2, 4], M16, t), 0, 4), SQ),
    "MFMA32_dot_op_rhs_tpw_2_2": both(lambda t: dot(mfma([2, 4], M32, t, [2, 2]), 1, 4), [[32, 64], [128, 128], [256, 256]]),
    "MFMA16_dot_op_rhs_tpw_2_2": both(lambda t: dot(mfma([2, 4], M16, t, [2, 2]), 1, 4), [[32, 64], [128, 128], [256, 256]]),
    "MFMA32_dot_op_rhs_kwidth4": both(lambda t: dot(mfma([2, 4], M32, t), 1, 4), [[128, 128], [32, 64], [16, 16]]),
    "MFMA16_dot_op_rhs_kwidth4": both(lambda t: dot(mfma([2, 4], M16, t), 1, 4), [[128, 128], [32, 64], [16, 16]]),
    "WMMA_v1_2x4Warps": [(wmma([2, 4], 1, False), s) for s in [[16, 16], [32, 16], [16, 32], [128, 128]]],
    "WMMA_v1_2x4x1Warps": [(wmma([2, 4, 1], 1, False), s) for s in [[1, 16, 16], [2, 16, 16], [8, 16, 16]]],
    "WMMA_v1_2x4Warps_lhs": [(dot(wmma([2, 4], 1, False), 0, 16), s) for s in [[16, 16], [32, 64], [128, 128]]],
    "WMMA_v1_2x4Warps_rhs": [(dot(wmma([2, 4], 1, False), 1, 16), s) for s in [[16, 16], [64, 32], [128, 128]]],
    "WMMA_v1_2x4x1Warps_lhs": [(dot(wmma([2, 4, 1], 1, False), 0, 16), s) for s in [[1, 16, 16], [2, 32, 64], [8, 16, 16]]],
    "WMMA_v1_2x4x1Warps_rhs": [(dot(wmma([2, 4, 1], 1, False), 1, 16), s) for s in [[1, 16, 16], [2, 64, 32], [8, 16, 16]]],
    "WMMA_v2_2x4Warps": [(wmma([2, 4], 2, False), s) for s in [[16, 16], [32, 16], [16, 32], [128, 128]]],
    "WMMA_v2_2x2x2Warps": [(wmma([2, 2, 2], 2, False), s) for s in [[1, 16, 16], [2, 16, 16], [8, 32, 32]]],
    "TWMMA_v2_2x4Warps": [(wmma([2, 4], 2, True), s) for s in [[16, 16], [32, 16], [16, 32], [128, 128]]],
    "TWMMA_v2_2x2x2Warps": [(wmma([2, 2, 2], 2, True), s) for s in [[1, 16, 16], [2, 16, 16], [8, 32, 32]]],
    "WMMA_v2_2x4Warps_lhs": [(dot(wmma([2, 4], 2, False), 0, kw), s) for kw in (8, 16) for s in [[16, 16], [32, 64], [128, 128]]],
    "WMMA_v2_2x4Warps_rhs": [(dot(wmma([2, 4], 2, False), 1, kw), s) for kw in (8, 16) for s in [[16, 16], [64, 32], [128, 128]]],
    "WMMA_v2_2x4x1Warps_lhs": [(dot(wmma([2, 4, 1], 2, False), 0, 8), s) for s in [[1, 16, 16], [2, 32, 64], [8, 16, 16]]],
    "WMMA_v2_2x4x1Warps_rhs": [(dot(wmma([2, 4, 1], 2, False), 1, 8), s) for s in [[1, 16, 16], [2, 64, 32], [8, 16, 16]]],
    "WMMA_v3_2x4Warps": [(wmma([2, 4], 3, False, [16, 16, 32]), s) for s in [[16, 16], [32, 16], [16, 32], [128, 128]]],
    "WMMA_v3_2x4Warps_lhs": [(dot(wmma([2, 4], 3, False, [16, 16, 32]), 0, 8), s) for s in [[16, 16], [16, 32], [32, 64], [128, 128]]],
    "WMMA_v3_2x4Warps_rhs": [(dot(wmma([2, 4], 3, False, [16, 16, 32]), 1, 8), s) for s in [[16, 16], [32, 16], [64, 32], [128, 128]]],
    "AMDRotatingShared2D_8x16_ord10": [(rot(2, 2, 2, [1, 0]), [8, 16])],
    "AMDRotatingShared2D_8x16_ord01": [(rot(2, 2, 2, [0, 1]), [8, 16]), (rot(2, 2, 2, [0, 1]), [16, 8])],
    "AMDRotatingShared2D_64x64": [(rot(4, 2, 4, [1, 0]), [64, 64]), (rot(2, 2, 4, [1, 0]), [64, 64])],
    "AMDRotatingShared3D_4x64x64": [(rot(4, 2, 4, [2, 1, 0]), [4, 64, 64])],
}


def main():
    oracle = gen_cases.OracleProc(sys.executable, via="binding")
    out = {}
    for name, checks in TESTS.items():
        out[name] = []
        for enc, shape in checks:
            r = oracle.ask({"encoding": enc, "shape": shape})
            if not r.get("ok"):
                raise SystemExit("%s %r %r: %s" % (name, enc, shape, r.get("error")))
            out[name].append({"encoding": enc, "shape": shape,
                              "expected": {"in_dims": r["in_dims"], "out_dims": r["out_dims"]}})
    oracle.close()
    json.dump(out, sys.stdout, indent=None, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
