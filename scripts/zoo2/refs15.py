"""References of the round-15 kernels of the second zoo (cases.json beside this file), people-set format."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refs_common import f16, reference_with  # noqa: E402


def selu_map_kernel(a, o):
    alpha = a["alpha"]
    for i in range(a["n"]):
        x = a["x_ptr"][i]
        o["y_ptr"][i] = x if x > 0 else alpha * (math.exp(x) - 1)
    return 1e-5


def collatz_map_kernel(a, o):
    for i in range(a["n"]):
        x, steps = abs(a["x_ptr"][i]) + 1, 0
        while x != 1:
            x = x // 2 if x % 2 == 0 else 3 * x + 1
            steps += 1
        o["y_ptr"][i] = steps
    return 0.0


def minmax_pack_kernel(a, o):
    for i, (x, y) in enumerate(zip(a["x_ptr"], a["y_ptr"])):
        o["lo_ptr"][i], o["hi_ptr"][i] = min(x, y), max(x, y)
    return 0.0


def piecewise_map_kernel(a, o):
    t = a["t"]
    for i in range(a["M"] * a["N"]):
        x = a["x_ptr"][i]
        if x < -t:
            y = -t - math.log1p(-x - t)
        elif x > t:
            y = t + math.sqrt(x - t)
        else:
            y = x * x * x / (3 * t * t) + 2 * x / 3
        o["y_ptr"][i] = y
    return 1e-5


def cbrt_map_kernel(a, o):
    for i in range(a["n"]):
        x = a["x_ptr"][i]
        o["y_ptr"][i] = math.copysign(abs(x) ** (1 / 3), x)
    return 1e-4


def divmod_map_kernel(a, o):
    M, N = a["M"], a["N"]
    for i in range(M):
        for j in range(N):
            x, y = a["a_ptr"][i], abs(a["b_ptr"][j]) + 1
            q = int(x / y)  # toward zero, as Triton's integer division
            o["q_ptr"][i * N + j] = q
            o["r_ptr"][i * N + j] = (x - q * y) * 0.5
    return 0.0


REFERENCES = {f.__name__: f for f in (selu_map_kernel, collatz_map_kernel, minmax_pack_kernel, piecewise_map_kernel,
                                      cbrt_map_kernel, divmod_map_kernel)}


reference = reference_with(REFERENCES)
