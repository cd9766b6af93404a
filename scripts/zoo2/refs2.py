"""References of the round-2 kernels of the second zoo (cases.json beside this file), people-set format."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refs_common import _wrap, f16, f32, reference_with  # noqa: E402


def _cdiv_trunc(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def colsum_atomic_kernel(a, o):
    M, N, s = a["M"], a["N"], a["stride"]
    for c in range(N):
        o["out_ptr"][c] = sum(a["x_ptr"][r * s + c] for r in range(M))
    return 1e-6


def stream_compact_kernel(a, o):
    kept = [v for v in a["x_ptr"][:a["n"]] if v > 0]
    o["out_ptr"][:len(kept)] = kept
    o["counter_ptr"][0] = len(kept)
    return 0.0


def ticket_hist_kernel(a, o):
    NB = a["NB"]
    for v in a["x_ptr"][:a["n"]]:
        o["cnt_ptr"][abs(v) % NB] += 1
    o["tick_ptr"][0] = sum(c * (c - 1) // 2 for c in o["cnt_ptr"])
    return 0.0


def sinkhorn_kernel(a, o):
    M, N = a["M"], a["N"]
    p = [[math.exp(a["x_ptr"][r * N + c]) for c in range(N)] for r in range(M)]
    for _ in range(a["n_iters"]):
        for r in range(M):
            t = sum(p[r])
            p[r] = [v / t for v in p[r]]
        for c in range(N):
            t = sum(p[r][c] for r in range(M))
            for r in range(M):
                p[r][c] /= t
    for r in range(M):
        for c in range(N):
            o["y_ptr"][r * N + c] = p[r][c]
    return 1e-5


def grouped_router_kernel(a, o):
    G, EG = a["G"], a["EG"]
    E = G * EG
    for t in range(a["T"]):
        x = a["logits_ptr"][t * E:(t + 1) * E]
        gm = [max(x[g * EG:(g + 1) * EG]) for g in range(G)]
        best = gm.index(max(gm))
        grp = x[best * EG:(best + 1) * EG]
        o["gidx_ptr"][t] = best
        o["idx_ptr"][t] = best * EG + grp.index(max(grp))
    return 0.0


def col_argminmax_kernel(a, o):
    M, N = a["M"], a["N"]
    for c in range(N):
        col = [a["x_ptr"][r * N + c] for r in range(M)]
        o["amax_ptr"][c] = col.index(max(col))
        o["amin_ptr"][c] = col.index(min(col))
    return 0.0


def rev_scan_axis0_kernel(a, o):
    M, N = a["M"], a["N"]
    x = a["x_ptr"]
    for c in range(N):
        t = 0
        for r in reversed(range(M)):
            t += x[r * N + c]
            o["y_ptr"][r * N + c] = _wrap(t, 32)
        m = None
        for r in range(M):
            m = x[r * N + c] if m is None else max(m, x[r * N + c])
            o["z_ptr"][r * N + c] = m
    return 0.0


def hash_u32_kernel(a, o):
    M32 = 0xFFFFFFFF
    for i in range(a["n"]):
        x = a["x_ptr"][i]
        h = (x & M32) ^ (a["seed"] & M32)
        h = (h * 0x85EBCA6B) & M32
        h ^= h >> 13
        h = (h * 0xC2B2AE35) & M32
        h ^= h >> 16
        hi = (h * 1000003) >> 32
        big = 1 if h > 0x80000000 else 0
        s16 = _wrap(x & 0xFFFF, 16) * 7
        o["y_ptr"][i] = _wrap(h, 32)
        o["z_ptr"][i] = _wrap(_wrap(hi, 32) + big + s16, 32)
    return 0.0


def gather_axis0_kernel(a, o):
    M, N = a["M"], a["N"]
    for r in range(M):
        for c in range(N):
            o["y_ptr"][r * N + c] = a["x_ptr"][(a["idx_ptr"][r * N + c] & (M - 1)) * N + c]
    return 0.0


def newton_sqrt_while_kernel(a, o):
    B, n = a["BLOCK"], a["n"]
    for p in range(len(o["it_ptr"])):
        xs = [f32(abs(a["x_ptr"][i]) + 1.0) if i < n else 2.0 for i in range(p * B, (p + 1) * B)]
        ys = list(xs)
        it = 0
        while it < a["max_iter"] and max(abs(y * y - x) / x for x, y in zip(xs, ys)) > 1e-4:
            ys = [f32(0.5 * f32(y + f32(x / y))) for x, y in zip(xs, ys)]
            it += 1
        for j, i in enumerate(range(p * B, (p + 1) * B)):
            if i < n:
                o["y_ptr"][i] = ys[j]
        o["it_ptr"][p] = it
    return 1e-6


def bool_io_kernel(a, o):
    for i in range(a["n"]):
        x, f = a["x_ptr"][i], a["f_ptr"][i] != 0
        o["y_ptr"][i] = x if (f and x > 0.5) else 0.0
        o["gt_ptr"][i] = 1 if x > 0.5 else 0
    return 0.0


def i64_lcg_kernel(a, o):
    for i in range(a["n"]):
        v = _wrap(a["x_ptr"][i] * 6364136223846793005 + 1442695040888963407, 64)
        v = _wrap(v ^ (v >> 29), 64)
        o["lo_ptr"][i] = _wrap(v, 32)
        o["hi_ptr"][i] = _wrap(v >> 32, 32)
        q = _cdiv_trunc(v, 1000000007)
        o["q_ptr"][i] = _wrap(q - _cdiv_trunc(q, 1000) * 1000, 32)
    return 0.0


def matmul_f32_default_kernel(a, o):
    M, N, K = a["M"], a["N"], a["K"]
    for i in range(M):
        for j in range(N):
            o["c_ptr"][i * N + j] = sum(a["a_ptr"][i * K + k] * a["b_ptr"][k * N + j] for k in range(K))
    return 1e-6


def permute3d_kernel(a, o):
    A, B, C = a["A"], a["B"], a["C"]
    for blk in range(len(a["x_ptr"]) // (A * B * C)):
        base = blk * A * B * C
        for x in range(A):
            for y in range(B):
                for z in range(C):
                    o["y_ptr"][base + z * A * B + x * B + y] = a["x_ptr"][base + x * B * C + y * C + z]
    return 0.0


def load_at_argmax_kernel(a, o):
    N = a["N"]
    for r in range(a["n_rows"]):
        row = a["x_ptr"][r * N:(r + 1) * N]
        i = row.index(max(row))
        o["idx_ptr"][r] = i
        o["out_ptr"][r] = a["tbl_ptr"][i] * 2.0
    return 0.0


def tiny_rows_softmax_kernel(a, o):
    BN = a["BN"]
    for r in range(a["n_rows"]):
        row = a["x_ptr"][r * BN:(r + 1) * BN]
        mx = max(row)
        e = [math.exp(v - mx) for v in row]
        t = sum(e)
        for c in range(BN):
            o["y_ptr"][r * BN + c] = e[c] / t
    return 1e-5


def fused_mlp_kernel(a, o):
    D, H, O = a["D"], a["H"], a["O"]
    for i in range(a["M"]):
        x = a["x_ptr"][i * D:(i + 1) * D]
        h = [f16(max(sum(x[d] * a["w1_ptr"][d * H + j] for d in range(D)) + a["b1_ptr"][j], 0.0)) for j in range(H)]
        for c in range(O):
            o["y_ptr"][i * O + c] = sum(h[j] * a["w2_ptr"][j * O + c] for j in range(H))
    return 0.0


REFERENCES = {f.__name__: f for f in (
    colsum_atomic_kernel, stream_compact_kernel, ticket_hist_kernel, sinkhorn_kernel, grouped_router_kernel,
    col_argminmax_kernel, rev_scan_axis0_kernel, hash_u32_kernel, gather_axis0_kernel, newton_sqrt_while_kernel,
    bool_io_kernel, i64_lcg_kernel, matmul_f32_default_kernel, permute3d_kernel, load_at_argmax_kernel,
    tiny_rows_softmax_kernel, fused_mlp_kernel)}


reference = reference_with(REFERENCES)
