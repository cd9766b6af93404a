"""References of the round-29 kernels of the second zoo (cases.json beside this file), people-set format."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refs_common import f32, reference_with  # noqa: E402


def _function(name, x, y):
    if name == "exp":
        return math.exp(x)
    if name == "exp2":
        return 2.0 ** x
    if name in ("log", "log2", "log10"):
        return {"log": math.log, "log2": math.log2, "log10": math.log10}[name](abs(x) + 0.001)
    if name == "rsqrt":
        return 1.0 / math.sqrt(abs(x) + 0.001)
    if name == "pow":
        return (abs(x) + 0.01) ** y
    if name == "pown":
        return x ** int(y * 3.0)
    if name == "hypot":
        return math.hypot(x, y)
    if name == "acosh":
        return math.acosh(abs(x) + 1.0)
    return {"tanh": math.tanh, "log1p": math.log1p, "expm1": math.expm1, "sinh": math.sinh,
            "cosh": math.cosh, "asinh": math.asinh, "atanh": math.atanh, "sin": math.sin, "cos": math.cos,
            "tan": math.tan}[name](x)


def f64_function_kernel(a, o):
    """hi: the result rounded to f32; lo: (result − hi)/|hi|·2²⁴. Within 1e-7 of lo is within
    about 27 units in the last place of a double."""
    for i in range(a["n"]):
        v = _function(a["FN"], a["x_ptr"][i] * a["A"], a["y_ptr"][i] * a["B"]) * a["SCALE"]
        h = f32(v)
        ok = 1.1754943508222875e-38 <= abs(h) < 1e300
        o["hi_ptr"][i] = h
        o["lo_ptr"][i] = f32((v - h) / abs(h) * 16777216.0) if ok else 0.0
    return 1e-7


def layernorm_f64_kernel(a, o):
    N = a["N"]
    for r in range(5):
        x = a["x_ptr"][r * N:(r + 1) * N]
        mean = sum(x) / N
        var = sum((v - mean) ** 2 for v in x) / N
        rstd = 1.0 / math.sqrt(var + a["eps"])
        for c in range(N):
            o["y_ptr"][r * N + c] = f32((x[c] - mean) * rstd * a["w_ptr"][c] + a["b_ptr"][c])
    return 1e-6


def logsumexp_f64_kernel(a, o):
    N = a["N"]
    for r in range(4):
        x = [v * 7.0 for v in a["x_ptr"][r * N:(r + 1) * N]]
        m = max(x)
        o["out_ptr"][r] = f32(m + math.log(sum(math.exp(v - m) for v in x)))
    return 1e-6


def gelu_softplus_f64_kernel(a, o):
    for i in range(a["n"]):
        x = a["x_ptr"][i]
        inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        o["g_ptr"][i] = f32(0.5 * x * (1.0 + math.tanh(inner)))
        o["s_ptr"][i] = f32(x if x > 20.0 else math.log1p(math.exp(x)))
    return 1e-6


REFERENCES = {f.__name__: f for f in (f64_function_kernel, layernorm_f64_kernel, logsumexp_f64_kernel,
                                      gelu_softplus_f64_kernel)}


reference = reference_with(REFERENCES)
