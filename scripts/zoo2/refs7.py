"""References of the round-7 kernels of the second zoo (cases.json beside this file), people-set format."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refs_common import f16, f32, reference_with  # noqa: E402


def matmul_k128_bias_kernel(a, o):
    M, N, K = a["M"], a["N"], a["K"]
    A, B = a["a_ptr"], a["b_ptr"]
    for i in range(M):
        for j in range(N):
            acc = sum(A[i * a["stride_am"] + k] * B[k * a["stride_bk"] + j] for k in range(K))
            o["c_ptr"][i * a["stride_cm"] + j] = f16(acc + a["bias_ptr"][j])
    return 0.0


def chunk_parity_rows_kernel(a, o):
    M, S, BL, NC = a["M"], a["stride"], a["BLOCK"], a["NCHUNK"]
    X = a["x_ptr"]
    for r in range(M):
        acc = 0.0
        for c in range(NC):
            chunk = X[r * S + c * BL:r * S + (c + 1) * BL]
            if c % 2 == 0:
                acc += sum(chunk)
            else:
                acc = max(acc, max(chunk))
                for t, v in enumerate(chunk):
                    o["y_ptr"][r * S + c * BL + t] = 2.0 * v
        o["acc_ptr"][r] = acc
    return 0.0


def online_softmax_kernel(a, o):
    M, NC, S = a["M"], a["n_cols"], a["stride"]
    X = a["x_ptr"]
    for r in range(M):
        row = X[r * S:r * S + NC]
        m = max(row)
        e = [math.exp(v - m) for v in row]
        t = sum(e)
        for c in range(NC):
            o["y_ptr"][r * S + c] = e[c] / t
        o["lse_ptr"][r] = m + math.log(t)
    return 1e-5


def rmsnorm_fwd_kernel(a, o):
    N, S = a["N"], a["stride"]
    rows = len(o["rstd_ptr"])
    for r in range(rows):
        x = a["x_ptr"][r * S:r * S + N]
        rstd = 1.0 / math.sqrt(sum(v * v for v in x) / N + a["eps"])
        o["rstd_ptr"][r] = rstd
        for c in range(N):
            o["y_ptr"][r * S + c] = f16(x[c] * rstd * a["w_ptr"][c])
    return 2e-3


def searchsorted_while_kernel(a, o):
    """The kernel's binary search step for step (the data need not be sorted for the result to be defined)."""
    srt = a["sorted_ptr"]
    for pid in range(len(o["out_ptr"])):
        v = a["q_ptr"][pid]
        lo, hi = 0, a["N"]
        while lo < hi:
            mid = (lo + hi) // 2
            if srt[mid] < v:
                lo = mid + 1
            else:
                hi = mid
        o["out_ptr"][pid] = lo
    return 0.0


def halve_until_small_kernel(a, o):
    n, B, cap, th = a["n"], a["BLOCK"], a["MAX_IT"], a["thresh"]
    for pid in range(len(o["it_ptr"])):
        idx = [i for i in range(pid * B, (pid + 1) * B) if i < n]
        x = [a["x_ptr"][i] for i in idx]
        it = 0
        while max(abs(v) for v in x) > th and it < cap:
            x = [v * 0.5 for v in x]
            it += 1
        for i, v in zip(idx, x):
            o["y_ptr"][i] = v
        o["it_ptr"][pid] = it
    return 0.0


def two_pass_var_kernel(a, o):
    n, S = a["n"], a["stride"]
    for r in range(len(o["mean_ptr"])):
        x = a["x_ptr"][r * S:r * S + n]
        mean = f32(sum(x) / n)
        o["mean_ptr"][r] = mean
        o["var_ptr"][r] = sum((v - mean) ** 2 for v in x) / n
    return 1e-5


def varlen_row_mean_kernel(a, o):
    S, L = a["stride"], a["MAXLEN"]
    for r in range(len(o["sum_ptr"])):
        n = min(max(a["len_ptr"][r], 0), L)
        s = sum(a["x_ptr"][r * S:r * S + n])
        o["sum_ptr"][r] = s
        o["mean_ptr"][r] = s / max(n, 1)
    return 1e-6


def gemv_ptr_advance_kernel(a, o):
    M, K, S = a["M"], a["K"], a["stride_wm"]
    for i in range(M):
        o["y_ptr"][i] = sum(a["w_ptr"][i * S + k] * a["x_ptr"][k] for k in range(K))
    return 1e-6


def causal_scores_kernel(a, o):
    S, D = a["S"], a["D"]
    H = len(o["p_ptr"]) // (S * S)
    Q, K = a["q_ptr"], a["k_ptr"]
    for h in range(H):
        for i in range(S):
            s = [sum(Q[h * S * D + i * D + d] * K[h * S * D + j * D + d] for d in range(D)) * a["sm_scale"]
                 for j in range(i + 1)]
            m = max(s)
            e = [math.exp(v - m) for v in s]
            t = sum(e)
            for j in range(S):
                o["p_ptr"][h * S * S + i * S + j] = e[j] / t if j <= i else 0.0
    return 1e-5


def conv_taps_gridstride_kernel(a, o):
    n, T = a["n"], a["TAPS"]
    X, W = a["x_ptr"], a["w_ptr"]
    for i in range(n):
        acc = 0.0
        for t in range(T):
            xi = i + t - T // 2
            if 0 <= xi < n:
                acc += W[t] * X[xi]
        o["y_ptr"][i] = acc
    return 1e-6


def top2_gating_kernel(a, o):
    T, E = a["T"], a["E"]
    for r in range(T):
        x = a["logits_ptr"][r * E:(r + 1) * E]
        m = max(x)
        e = [math.exp(v - m) for v in x]
        t = sum(e)
        p = [v / t for v in e]
        i1 = max(range(E), key=lambda c: (x[c], -c))
        rest = [c for c in range(E) if c != i1]
        i2 = max(rest, key=lambda c: (x[c], -c))
        d = p[i1] + p[i2]
        o["w_ptr"][2 * r] = p[i1] / d
        o["w_ptr"][2 * r + 1] = p[i2] / d
        o["idx_ptr"][2 * r] = i1
        o["idx_ptr"][2 * r + 1] = i2
    return 1e-5


def swiglu_bwd_kernel(a, o):
    for i in range(a["n"]):
        g, u, dh = a["g_ptr"][i], a["u_ptr"][i], a["dh_ptr"][i]
        sig = 1.0 / (1.0 + math.exp(-g))
        o["du_ptr"][i] = f16(dh * g * sig)
        o["dg_ptr"][i] = f16(dh * u * sig * (1.0 + g * (1.0 - sig)))
    return 2e-3


def alt_sign_dot_loop_kernel(a, o):
    M, N, K, BK = a["M"], a["N"], a["K"], a["BK"]
    A, B = a["a_ptr"], a["b_ptr"]
    for i in range(M):
        for j in range(N):
            o["c_ptr"][i * N + j] = sum((1 if (k // BK) % 2 == 0 else -1) * A[i * K + k] * B[k * N + j] for k in range(K))
    return 0.0


def for_while_halve_int_kernel(a, o):
    N = a["N"]
    for row in range(len(o["steps_ptr"])):
        x = a["x_ptr"][row * N:(row + 1) * N]
        steps = 0
        while max(x) > 0:
            x = [int(v / 2) - 1 if v > 0 else v for v in x]
            steps += 1
        o["y_ptr"][row * N:(row + 1) * N] = x
        o["steps_ptr"][row] = steps
    return 0.0


def loop_trans_acc_kernel(a, o):
    BM, BN, NB = a["BM"], a["BN"], a["NB"]
    X = a["x_ptr"]
    for n in range(BN):
        o["cs_ptr"][n] = sum(X[r * BN + n] for r in range(NB * BM))
        for m in range(BM):
            o["t_ptr"][n * BM + m] = sum(X[(b * BM + m) * BN + n] * (b + 1) for b in range(NB))
    return 0.0


REFERENCES = {f.__name__: f for f in (
    matmul_k128_bias_kernel, chunk_parity_rows_kernel, online_softmax_kernel, rmsnorm_fwd_kernel,
    searchsorted_while_kernel, halve_until_small_kernel, two_pass_var_kernel, varlen_row_mean_kernel,
    gemv_ptr_advance_kernel, causal_scores_kernel, conv_taps_gridstride_kernel, top2_gating_kernel,
    swiglu_bwd_kernel, alt_sign_dot_loop_kernel, for_while_halve_int_kernel, loop_trans_acc_kernel)}


reference = reference_with(REFERENCES)
