"""References of the round-12 kernels of the second zoo (cases.json beside this file), people-set format."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refs_common import f32, reference_with  # noqa: E402


def gelu_fast_tanh_kernel(a, o):
    for i in range(a["n"]):
        x = a["x_ptr"][i]
        o["y_ptr"][i] = 0.5 * x * (1 + math.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))
    return 1e-5


def softmax_fast_kernel(a, o):
    N, S = a["N"], a["stride"]
    for r in range(len(a["x_ptr"]) // S):
        x = a["x_ptr"][r * S:r * S + N]
        e = [math.exp(v - max(x)) for v in x]
        for c in range(N):
            o["y_ptr"][r * S + c] = e[c] / sum(e)
    return 1e-5


def hyperbolic_kernel(a, o):
    for i in range(a["n"]):
        x = a["x_ptr"][i]
        o["s_ptr"][i] = math.sinh(x)
        o["c_ptr"][i] = math.cosh(x)
        o["as_ptr"][i] = math.asinh(x)
        o["ac_ptr"][i] = math.acosh(abs(x) + 1)
        o["at_ptr"][i] = math.atanh(f32(x * f32(0.1)))
    return 1e-5


def ldexp_kernel(a, o):
    for i in range(a["n"]):
        k = a["k_ptr"][i]
        k = k - 20 * int(k / 20)  # C remainder: the sign of the dividend
        o["y_ptr"][i] = a["x_ptr"][i] * 2.0 ** k
    return 0.0


REFERENCES = {f.__name__: f for f in (gelu_fast_tanh_kernel, softmax_fast_kernel, hyperbolic_kernel, ldexp_kernel)}


reference = reference_with(REFERENCES)
