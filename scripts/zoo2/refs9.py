"""References of the round-9 kernels of the second zoo (cases.json beside this file), people-set format."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refs_common import f32, reference_with  # noqa: E402

M64 = (1 << 64) - 1


def _signed(v, bits=32):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def _div_toward_zero(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def int_divmod_signed_kernel(a, o):
    for i in range(a["n"]):
        x = a["x_ptr"][i]
        for q, r, d in (("q_ptr", "r_ptr", 7), ("qd_ptr", "rd_ptr", a["d"])):
            o[q][i] = _div_toward_zero(x, d)
            o[r][i] = x - d * _div_toward_zero(x, d)
    return 0.0


def float_rounding_kernel(a, o):
    for i in range(a["n"]):
        x = f32(a["x_ptr"][i] * f32(0.7))
        o["fl_ptr"][i] = float(math.floor(x))
        o["ce_ptr"][i] = float(math.ceil(x))
        o["tr_ptr"][i] = int(x)
    return 0.0


def keepdims_center_kernel(a, o):
    N, S = a["N"], a["stride"]
    for r in range(a["M"]):
        x = a["x_ptr"][r * S:r * S + N]
        mean = sum(x) / N
        amax = max(abs(v - mean) for v in x)
        for c in range(N):
            o["y_ptr"][r * S + c] = (x[c] - mean) / max(amax, 1e-6)
    return 1e-5


def rev_cumsum_axis0_kernel(a, o):
    R, C = a["R"], a["C"]
    for c in range(C):
        run = 0
        for r in reversed(range(R)):
            run += a["x_ptr"][r * C + c]
            o["y_ptr"][r * C + c] = _signed(run)
    return 0.0


def scalar_masked_sign_kernel(a, o):
    B = a["BLOCK"]
    for pid in range(len(o["y_ptr"]) // B):
        f = a["flag_ptr"][pid] if pid < a["n_flags"] else -1
        for i in range(pid * B, (pid + 1) * B):
            x = a["x_ptr"][i]
            o["y_ptr"][i] = (x if f > 0 else -x) + f
    return 0.0


def splitmix64_kernel(a, o):
    for i in range(a["n"]):
        z = ((a["seed_ptr"][i] & 0xFFFFFFFF) * 0x9E3779B97F4A7C15 + i) & M64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        z ^= z >> 31
        o["lo_ptr"][i] = _signed(z)
        o["hi_ptr"][i] = _signed(z >> 32)
    return 0.0


def u8_gamma_kernel(a, o):
    for i in range(a["n"]):
        f = f32((a["x_ptr"][i] & 0xFF) / 255.0)
        v = int(f32(f32(f32(f * f) * 255.0) + 0.5))
        o["y_ptr"][i] = _signed(v, 8)
    return 0.0


def bool_row_reduce_kernel(a, o):
    N = a["N"]
    for r in range(len(o["any_ptr"])):
        pos = [v > 0 for v in a["x_ptr"][r * N:(r + 1) * N]]
        o["any_ptr"][r] = int(any(pos))
        o["all_ptr"][r] = int(all(pos))
        o["cnt_ptr"][r] = sum(pos)
    return 0.0


def i16_mac_kernel(a, o):
    B, N = a["BLOCK"], a["N"]
    for r in range(len(o["y_ptr"]) // B):
        for j in range(B):
            acc = 0
            for c in range(a["CHUNKS"]):
                k = r * N + c * B + j
                t = _signed(_signed(a["a_ptr"][k] * a["b_ptr"][k], 16) * 3, 16)
                acc = _signed(acc + t, 16)
            o["y_ptr"][r * B + j] = acc
    return 0.0


def dot_trans_store_kernel(a, o):
    M, N, K = a["M"], a["N"], a["K"]
    for m in range(M):
        for n in range(N):
            o["c_ptr"][n * M + m] = sum(a["a_ptr"][m * K + k] * a["b_ptr"][k * N + n] for k in range(K))
    return 0.0


def done_flag_loop_kernel(a, o):
    N = a["N"]
    for r in range(len(o["sum_ptr"])):
        s, count = 0.0, 0
        for x in a["x_ptr"][r * N:(r + 1) * N]:
            s = f32(s + x)
            count += 1
            if s > a["thresh"]:
                break
        o["sum_ptr"][r] = s
        o["cnt_ptr"][r] = count
    return 0.0


def u32_ops_kernel(a, o):
    for i in range(a["n"]):
        x = a["x_ptr"][i] & 0xFFFFFFFF
        y = (a["y_ptr"][i] & 0xFFFFFFFF) | 1
        o["q_ptr"][i] = _signed(x // y + (x % y) * 3 + (x >> 28))
        o["c_ptr"][i] = int(x > y)
    return 0.0


REFERENCES = {f.__name__: f for f in (
    int_divmod_signed_kernel, float_rounding_kernel, keepdims_center_kernel, rev_cumsum_axis0_kernel,
    scalar_masked_sign_kernel, splitmix64_kernel, u8_gamma_kernel, bool_row_reduce_kernel, i16_mac_kernel,
    dot_trans_store_kernel, done_flag_loop_kernel, u32_ops_kernel)}


reference = reference_with(REFERENCES)
