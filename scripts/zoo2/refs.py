"""References of the second zoo's emulator cases (cases.json beside this file), in the people
set's format: reference(case, vals) -> (expected output buffers by name, relative tolerance)."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refs_common import _rne, f16, f32, reference_with  # noqa: E402


def group_norm_fwd_kernel(a, o):
    X, W, B, Y = a["x_ptr"], a["w_ptr"], a["b_ptr"], o["y_ptr"]
    C, HW, G, eps = a["C"], a["HW"], a["G"], a["eps"]
    n_samples = len(X) // (C * HW)
    cpg = C // G
    gs = cpg * HW
    for n in range(n_samples):
        for g in range(G):
            base = n * C * HW + g * gs
            xs = X[base:base + gs]
            mean = sum(xs) / gs
            var = sum(v * v for v in xs) / gs - mean * mean
            rstd = 1.0 / math.sqrt(var + eps)
            for i in range(gs):
                c = g * cpg + i // HW
                Y[base + i] = (xs[i] - mean) * rstd * W[c] + B[c]
    return 1e-5


def batchnorm_infer_kernel(a, o):
    M, C = a["M"], a["C"]
    X, Y = a["x_ptr"], o["y_ptr"]
    for c in range(C):
        var = max(a["var_ptr"][c], 0.0)
        rstd = 1.0 / math.sqrt(var + a["eps"])
        for r in range(M):
            y = (X[r * a["stride_xm"] + c] - a["mean_ptr"][c]) * rstd * a["w_ptr"][c] + a["b_ptr"][c]
            Y[r * a["stride_ym"] + c] = max(y, 0.0)
    return 1e-4


def ln_bwd_fused_kernel(a, o):
    N, s = a["N"], a["stride"]
    rows = len(a["mean_ptr"])
    dw, db = o["dw_ptr"], o["db_ptr"]
    for r in range(rows):
        x = a["x_ptr"][r * s:r * s + N]
        dy = a["dy_ptr"][r * s:r * s + N]
        mean, rstd = a["mean_ptr"][r], a["rstd_ptr"][r]
        xhat = [(v - mean) * rstd for v in x]
        wdy = [a["w_ptr"][c] * dy[c] for c in range(N)]
        c1 = sum(xhat[c] * wdy[c] for c in range(N)) / N
        c2 = sum(wdy) / N
        for c in range(N):
            o["dx_ptr"][r * s + c] = f16((wdy[c] - (xhat[c] * c1 + c2)) * rstd)
            dw[c] += dy[c] * xhat[c]
            db[c] += dy[c]
    return 2e-3


def masked_scaled_softmax_kernel(a, o):
    R, N, s, sc = a["n_rows"], a["n_cols"], a["stride"], a["scale"]
    for r in range(R):
        v = []
        for c in range(N):
            keep = (a["keep_ptr"][r * s + c] & 3) != 0
            v.append(a["s_ptr"][r * s + c] * sc + a["bias_ptr"][c] if keep else None)
        mx = max(x for x in v if x is not None)
        e = [math.exp(x - mx) if x is not None else 0.0 for x in v]
        t = sum(e)
        for c in range(N):
            o["out_ptr"][r * s + c] = e[c] / t
    return 1e-5


def top1_router_kernel(a, o):
    T, E, s = a["T"], a["E"], a["stride"]
    for t in range(T):
        x = a["logits_ptr"][t * s:t * s + E]
        mx = max(x)
        o["idx_ptr"][t] = x.index(mx)
        o["probs_ptr"][t] = 1.0 / sum(math.exp(v - mx) for v in x)
        o["counts_ptr"][x.index(mx)] += 1
    return 1e-5


def quant_int8_rows2d_kernel(a, o):
    M, N = a["M"], a["N"]
    for r in range(M):
        x = a["x_ptr"][r * a["stride_x"]:r * a["stride_x"] + N]
        amax = max(max(abs(v) for v in x), f32(1e-8))
        scale = f32(amax / 127.0)
        o["scale_ptr"][r] = scale
        for c in range(N):
            q = _rne(f32(x[c] / scale))
            o["q_ptr"][r * a["stride_q"] + c] = int(min(max(q, -128.0), 127.0))
    return 1e-6


def w8a16_matmul_kernel(a, o):
    M, N, K = a["M"], a["N"], a["K"]
    A, Wt, S, Cc = a["a_ptr"], a["w_ptr"], a["s_ptr"], o["c_ptr"]
    for i in range(M):
        for j in range(N):
            acc = sum(A[i * a["stride_am"] + k] * Wt[k * a["stride_wk"] + j] for k in range(K))
            Cc[i * a["stride_cm"] + j] = f32(acc * S[j])
    return 0.0


def gemv_t_kernel(a, o):
    K, N = a["K"], a["N"]
    for n in range(N):
        o["y_ptr"][n] = sum(a["x_ptr"][k] * a["w_ptr"][k * a["stride_wk"] + n] for k in range(K)) + a["b_ptr"][n]
    return 1e-6


def col_mean_kernel(a, o):
    M, N, s = a["M"], a["N"], a["stride"]
    for c in range(N):
        o["y_ptr"][c] = f16(f32(sum(a["x_ptr"][r * s + c] for r in range(M)) / M))
    return 1e-3


def trans_scale_f16_kernel(a, o):
    M, N = a["M"], a["N"]
    for m in range(M):
        for n in range(N):
            o["y_ptr"][n * a["stride_y"] + m] = f16(a["x_ptr"][m * a["stride_x"] + n] * a["alpha"])
    return 0.0


def add_layernorm_kernel(a, o):
    N, s, eps = a["N"], a["stride"], a["eps"]
    rows = len(a["x_ptr"]) // s
    for r in range(rows):
        x = [a["x_ptr"][r * s + c] + a["r_ptr"][r * s + c] for c in range(N)]
        mean = sum(x) / N
        var = sum((v - mean) ** 2 for v in x) / N
        rstd = 1.0 / math.sqrt(var + eps)
        for c in range(N):
            o["sum_ptr"][r * s + c] = f16(x[c])
            o["y_ptr"][r * s + c] = f16((x[c] - mean) * rstd * a["w_ptr"][c] + a["b_ptr"][c])
    return 2e-3


def bias_gelu_tanh_kernel(a, o):
    M, N, s = a["M"], a["N"], a["stride"]
    for r in range(M):
        for c in range(N):
            x = a["x_ptr"][r * s + c] + a["b_ptr"][c]
            o["y_ptr"][r * s + c] = f16(0.5 * x * (1.0 + math.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3))))
    return 2e-3


def pad2d_kernel(a, o):
    H, W, OH, OW = a["H"], a["W"], a["OH"], a["OW"]
    for oh in range(OH):
        for ow in range(OW):
            ih, iw = oh - a["pad_t"], ow - a["pad_l"]
            v = a["x_ptr"][ih * a["stride_xh"] + iw * a["stride_xw"]] if 0 <= ih < H and 0 <= iw < W else -1.0
            o["y_ptr"][oh * a["stride_yh"] + ow] = v
    return 0.0


def elu_sign_i64_kernel(a, o):
    al = a["alpha"]
    for i in range(a["n"]):
        x = a["x_ptr"][i]
        o["y_ptr"][i] = x if x > 0 else al * (math.exp(x) - 1.0)
        o["sign_ptr"][i] = 1 if x > 0 else (-1 if x < 0 else 0)
    return 1e-5


def decode_attn_gqa_kernel(a, o):
    G, D, L = a["GROUP"], a["D"], a["seq_len"]
    heads = len(o["o_ptr"]) // a["stride_oh"]
    for h in range(heads):
        kvh = h // G
        q = a["q_ptr"][h * a["stride_qh"]:h * a["stride_qh"] + D]
        sc = []
        for s in range(L):
            base = kvh * a["stride_kh"] + s * a["stride_ks"]
            sc.append(sum(q[d] * a["k_ptr"][base + d] for d in range(D)) * a["sm_scale"])
        mx = max(sc)
        p = [math.exp(v - mx) for v in sc]
        t = sum(p)
        for d in range(D):
            o["o_ptr"][h * a["stride_oh"] + d] = sum(
                p[s] / t * a["v_ptr"][kvh * a["stride_kh"] + s * a["stride_ks"] + d] for s in range(L))
    return 1e-5


def cummax_idx_kernel(a, o):
    L = a["L"]
    for r in range(a["n_rows"]):
        cur, ci = None, 0
        for c in range(L):
            x = a["x_ptr"][r * L + c]
            if cur is None or x >= cur:
                cur, ci = x, c
            o["v_ptr"][r * L + c] = cur
            o["i_ptr"][r * L + c] = ci
    return 0.0


def weighted_hist_kernel(a, o):
    lo, hi, NB = a["lo"], a["hi"], a["NBINS"]
    rng = f32(hi - lo)
    for i in range(a["n"]):
        t = f32(f32(f32(a["x_ptr"][i] - lo) / rng) * NB)
        b = min(max(int(t), 0), NB - 1)
        o["hist_ptr"][b] += a["w_ptr"][i]
        o["cnt_ptr"][b] += 1
    return 1e-6


def dwconv1d_kernel(a, o):
    L, T = a["L"], a["TAPS"]
    chans = len(a["x_ptr"]) // L
    for ch in range(chans):
        for i in range(L):
            acc = 0.0
            for t in range(T):
                j = i + t - T // 2
                if 0 <= j < L:
                    acc += a["x_ptr"][ch * L + j] * a["w_ptr"][ch * T + t]
            o["y_ptr"][ch * L + i] = acc
    return 1e-6


def first_exceed_kernel(a, o):
    N, s, th = a["n_cols"], a["stride"], a["thresh"]
    for r in range(len(o["out_ptr"])):
        tot, found = 0.0, N
        for c in range(N):
            tot += abs(a["x_ptr"][r * s + c])
            if tot > th:
                found = c
                break
        o["out_ptr"][r] = found
    return 0.0


def group_quant_kernel(a, o):
    n, G, B = a["n"], a["GROUP"], a["BLOCK"]
    x = a["x_ptr"][:n] + [0.0] * (len(o["s_ptr"]) * G - n)
    for g in range(len(o["s_ptr"])):
        xs = x[g * G:(g + 1) * G]
        scale = f32(max(max(abs(v) for v in xs), f32(1e-6)) / 7.0)
        o["s_ptr"][g] = scale
        for i in range(G):
            if g * G + i < n:
                q = _rne(f32(xs[i] / scale))
                o["q_ptr"][g * G + i] = int(min(max(q, -8.0), 7.0))
    return 1e-6


REFERENCES = {f.__name__: f for f in (
    group_norm_fwd_kernel, batchnorm_infer_kernel, ln_bwd_fused_kernel, masked_scaled_softmax_kernel,
    top1_router_kernel, quant_int8_rows2d_kernel, w8a16_matmul_kernel, gemv_t_kernel, col_mean_kernel,
    trans_scale_f16_kernel, add_layernorm_kernel, bias_gelu_tanh_kernel, pad2d_kernel, elu_sign_i64_kernel,
    decode_attn_gqa_kernel, cummax_idx_kernel, weighted_hist_kernel, dwconv1d_kernel, first_exceed_kernel,
    group_quant_kernel)}


reference = reference_with(REFERENCES)
