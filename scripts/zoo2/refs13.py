"""References of the round-13 kernels of the second zoo (cases.json beside this file), people-set format."""
import math
import os
import statistics
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refs_common import _wrap, f16, f32, reference_with  # noqa: E402


def inline_asm_minmax_kernel(a, o):
    for i in range(a["n"]):
        x, y = a["x_ptr"][i], a["y_ptr"][i]
        o["lo_ptr"][i], o["hi_ptr"][i] = min(x, y), max(x, y)
        o["bits_ptr"][i] = ((x & 0xFFFFFFFF) >> 4) & 0xFF
    return 0.0


def inline_asm_packed_kernel(a, o):
    for i in range(a["n"]):
        o["y_ptr"][i] = f16(a["x_ptr"][i] * a["w_ptr"][i])
    return 0.0


def erf_family_kernel(a, o):
    for i in range(a["n"]):
        x = a["x_ptr"][i]
        h = f32(x * 0.5)
        o["erfc_ptr"][i] = math.erfc(h)
        o["erfcx_ptr"][i] = math.exp(h * h) * math.erfc(h)
        t = f32(x * f32(0.12))
        o["erfinv_ptr"][i] = statistics.NormalDist().inv_cdf((1 + t) / 2) / math.sqrt(2)
    return 2e-5


def _next_up(x):
    """The f32 after `x` towards +inf (x finite and non-zero here, or zero)."""
    b, = struct.unpack("<i", struct.pack("<f", x))
    if x == 0:
        return struct.unpack("<f", struct.pack("<i", 1))[0]
    return struct.unpack("<f", struct.pack("<i", b + 1 if x > 0 else b - 1))[0]


def special_misc_kernel(a, o):
    for i in range(a["n"]):
        x, k = a["x_ptr"][i], a["k_ptr"][i]
        e = k - 7 * int(k / 7)  # C remainder
        o["lg_ptr"][i] = math.lgamma(x) if not (x <= 0 and x == int(x)) else math.inf
        o["pw_ptr"][i] = x ** e if x != 0 or e >= 0 else math.copysign(math.inf, x) if e % 2 else math.inf
        # nextafter(x, 2x): towards +inf for positive x, towards -inf for negative x, zero stays.
        o["nx_ptr"][i] = x if x == 0 else _next_up(x) if x > 0 else -_next_up(-x)
        o["ab_ptr"][i] = abs(x)
        o["ia_ptr"][i] = _wrap(abs(k))
    return 2e-5


_EULER = 0.5772156649015329


def _harmonic(k):
    return sum(1.0 / j for j in range(1, k + 1))


def _bessel_j(n, x):
    return sum((-1) ** k * (x / 2) ** (2 * k + n) / (math.factorial(k) * math.factorial(k + n)) for k in range(60))


def _bessel_i(n, x):
    return sum((x / 2) ** (2 * k + n) / (math.factorial(k) * math.factorial(k + n)) for k in range(60))


def _bessel_y0(x):
    s = sum((-1) ** (k + 1) * _harmonic(k) * (x * x / 4) ** k / math.factorial(k) ** 2 for k in range(1, 60))
    return 2 / math.pi * (math.log(x / 2) + _EULER) * _bessel_j(0, x) + 2 / math.pi * s


def _bessel_y1(x):
    s = sum((-1) ** k * (_harmonic(k) + _harmonic(k + 1) - 2 * _EULER) * (x / 2) ** (2 * k + 1)
            / (math.factorial(k) * math.factorial(k + 1)) for k in range(60))
    return -2 / (math.pi * x) + 2 / math.pi * math.log(x / 2) * _bessel_j(1, x) - s / math.pi


def bessel_kernel(a, o):
    """The power series (exact enough in doubles for |x| ≤ 16)."""
    for i in range(a["n"]):
        x = f32(a["x_ptr"][i] * 2)
        ax = f32(abs(x) + 0.25)
        h = f32(x * 0.5)
        o["j0_ptr"][i], o["j1_ptr"][i] = _bessel_j(0, x), _bessel_j(1, x)
        o["y0_ptr"][i], o["y1_ptr"][i] = _bessel_y0(ax), _bessel_y1(ax)
        o["i0_ptr"][i], o["i1_ptr"][i] = _bessel_i(0, h), _bessel_i(1, h)
    return 2e-5


def conv2d_nhwc_kernel(a, o):
    NB, H, W, C, K = a["NB"], a["H"], a["W"], a["C"], a["K"]
    x, w = a["x_ptr"], a["w_ptr"]
    for nb in range(NB):
        for p in range(H):
            for q in range(W):
                m = (nb * H + p) * W + q
                for k in range(K):
                    acc = 0.0
                    for r in range(3):
                        for s in range(3):
                            ih, iw = p + r - 1, q + s - 1
                            if 0 <= ih < H and 0 <= iw < W:
                                base = ((nb * H + ih) * W + iw) * C
                                for c in range(C):
                                    acc += x[base + c] * w[((r * 3 + s) * C + c) * K + k]
                    o["y_ptr"][m * K + k] = acc
    return 0.0


def dot_f64_kernel(a, o):
    M, N, K = a["M"], a["N"], a["K"]
    for i in range(M):
        for j in range(N):
            o["c_ptr"][i * N + j] = sum(a["a_ptr"][i * K + k] * a["b_ptr"][k * N + j] for k in range(K))
    return 1e-6


def paged_decode_kernel(a, o):
    D, PAGE, P, pool = a["D"], a["PAGE"], a["max_pages"], a["pool"]
    S = len(a["lens_ptr"])
    for seq in range(S):
        L = abs(a["lens_ptr"][seq]) % (P * PAGE) + 1
        q = a["q_ptr"][seq * D:(seq + 1) * D]
        scores, rows = [], []
        for tok in range(L):
            page = abs(a["table_ptr"][seq * P + tok // PAGE]) % pool
            base = (page * PAGE + tok % PAGE) * D
            scores.append(sum(q[d] * a["k_ptr"][base + d] for d in range(D)) * a["scale"])
            rows.append(base)
        mx = max(scores)
        e = [math.exp(s - mx) for s in scores]
        for d in range(D):
            o["o_ptr"][seq * D + d] = sum(e[t] * a["v_ptr"][rows[t] + d] for t in range(L)) / sum(e)
    return 1e-4


REFERENCES = {f.__name__: f for f in (inline_asm_minmax_kernel, inline_asm_packed_kernel, erf_family_kernel,
                                      special_misc_kernel, bessel_kernel, conv2d_nhwc_kernel, dot_f64_kernel,
                                      paged_decode_kernel)}


reference = reference_with(REFERENCES)
