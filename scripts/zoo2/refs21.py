"""References of the round-21 kernels of the second zoo (cases.json beside this file), people-set format."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refs_common import _wrap, f16, f32, reference_with  # noqa: E402


def expert_count_kernel(a, o):
    E, PER, n = a["E"], a["PER"], a["numel"]
    for pid in range(-(-n // PER)):
        for i in range(pid * PER, min(pid * PER + PER, n)):
            o["cnt_ptr"][(pid + 1) * E + abs(a["ids_ptr"][i]) % E] += 1
    return 0.0


def padded_offsets_kernel(a, o):
    acc = 0
    for i in range(a["E"]):
        acc += -(-abs(a["cnt_ptr"][i]) // a["BS"]) * a["BS"]
        o["cum_ptr"][i + 1] = acc
    o["total_ptr"][0] = acc
    return 0.0


def block_expert_ids_kernel(a, o):
    bs, lens = a["bs"], a["len_ptr"]
    for pid in range(6):
        s = pid * 4 * bs + abs(lens[2 * pid]) % 2 * bs
        for i in range(s, s + abs(lens[2 * pid + 1]) % 3 * bs, bs):
            o["eid_ptr"][i // bs] = pid
    return 0.0


def scatter_rank_kernel(a, o):
    E, PER, n = a["E"], a["PER"], a["numel"]
    for pid in range(-(-n // PER)):
        start = pid * PER
        for i in range(start, min(start + PER, n)):
            e = abs(a["ids_ptr"][i]) % E
            c = o["cnt_ptr"][pid * E + e]
            o["out_ptr"][e * n + start + c] = i
            o["cnt_ptr"][pid * E + e] = c + 1
    return 0.0


def alibi_softcap_attn_kernel(a, o):
    S, D, cap = a["S"], a["D"], a["cap"]
    q, k, v = a["q_ptr"], a["k_ptr"], a["v_ptr"]
    for h in range(len(a["slope_ptr"])):
        base, slope = h * S * D, a["slope_ptr"][h]
        for m in range(S):
            s = []
            for n in range(S):
                x = sum(q[base + m * D + d] * k[base + n * D + d] for d in range(D))
                s.append(cap * (2.0 / (1.0 + math.exp(-2.0 * x / cap)) - 1.0) + slope * (n - m))
            mx = max(s)
            p = [math.exp(x - mx) for x in s]
            total = sum(p)
            for d in range(D):
                # P is rounded to f16 before its product with V.
                o["o_ptr"][base + m * D + d] = sum(f16(pn) * v[base + n * D + d] for n, pn in enumerate(p)) / total
    return 1e-2


def flatten_persistent_matmul_kernel(a, o):
    M, N, K = a["M"], a["N"], a["K"]
    for i in range(M):
        for j in range(N):
            o["c_ptr"][i * N + j] = f16(sum(a["a_ptr"][i * K + kk] * a["b_ptr"][kk * N + j] for kk in range(K)))
    return 0.0


def i64_seed_hash_kernel(a, o):
    for i in range(a["n"]):
        h = _wrap(i * 6364136223846793005 + a["seed"], 64)
        h ^= h >> 29
        o["out_ptr"][i] = h & 0xFFFF
    return 0.0


REFERENCES = {f.__name__: f for f in (expert_count_kernel, padded_offsets_kernel, block_expert_ids_kernel,
                                      scatter_rank_kernel, alibi_softcap_attn_kernel,
                                      flatten_persistent_matmul_kernel, i64_seed_hash_kernel)}


reference = reference_with(REFERENCES)
