"""References of the round-6 kernels of the second zoo (cases.json beside this file), people-set format."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refs_common import f16, f32, reference_with  # noqa: E402


def linear_nt_kernel(a, o):
    M, N, K = a["M"], a["N"], a["K"]
    for i in range(M):
        for j in range(N):
            o["y_ptr"][i * N + j] = f16(sum(a["x_ptr"][i * K + k] * a["w_ptr"][j * K + k] for k in range(K)) + a["b_ptr"][j])
    return 0.0


def matmul_rowmax_kernel(a, o):
    M, N, K = a["M"], a["N"], a["K"]
    for i in range(M):
        row = [sum(a["a_ptr"][i * K + k] * a["b_ptr"][k * N + j] for k in range(K)) for j in range(N)]
        amax = max(max(abs(v) for v in row), 1.0)
        o["s_ptr"][i] = amax
        for j in range(N):
            o["c_ptr"][i * N + j] = f32(row[j] / amax)
    return 1e-6


def matmul_dbias_kernel(a, o):
    M, N, K = a["M"], a["N"], a["K"]
    for i in range(M):
        for j in range(N):
            c = sum(a["a_ptr"][i * K + k] * a["b_ptr"][k * N + j] for k in range(K))
            o["c_ptr"][i * N + j] = c
            o["db_ptr"][j] += c
    return 0.0


def ln_matmul_kernel(a, o):
    M, N, K = a["M"], a["N"], a["K"]
    for i in range(M):
        A = [f16((a["x_ptr"][i * K + k] - a["mean_ptr"][i]) * a["rstd_ptr"][i] * a["g_ptr"][k]) for k in range(K)]
        for j in range(N):
            o["y_ptr"][i * N + j] = sum(A[k] * a["w_ptr"][k * N + j] for k in range(K))
    return 0.0


def matmul_big_w8_kernel(a, o):
    M, N, K = a["M"], a["N"], a["K"]
    for i in range(M):
        for j in range(N):
            o["c_ptr"][i * N + j] = f16(sum(a["a_ptr"][i * K + k] * a["b_ptr"][k * N + j] for k in range(K)))
    return 0.0


REFERENCES = {f.__name__: f for f in (linear_nt_kernel, matmul_rowmax_kernel, matmul_dbias_kernel, ln_matmul_kernel,
                                      matmul_big_w8_kernel)}


reference = reference_with(REFERENCES)
