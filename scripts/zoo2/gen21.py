#!/usr/bin/env python3
"""Round 21 of the second zoo (a mixture-of-experts routing written as scalar loops — counts
kept in memory and read back, offsets padded to a block, ids stored over loaded ranges, ranks
scattered; attention with ALiBi slopes and a tanh logit cap; a persistent matmul over
`tl.range(flatten=True)`; a hash seeded by a 64-bit argument): writes fx21/ as gen.py writes fx/.

    ../shared/oracle/oracle-python scripts/zoo2/gen21.py [--only SUBSTR]
"""
import os
import tempfile
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from gen import Buf, F32, triton, tl  # noqa: E402


# 1. Tokens per expert, counted one token at a time: a count loaded, incremented and stored back
#    in the same loop (each program its own row of counts).
@triton.jit
def expert_count_kernel(ids_ptr, cnt_ptr, numel, E: tl.constexpr, PER: tl.constexpr):
    pid = tl.program_id(0)
    start = pid * PER
    row = (pid + 1) * E
    for i in range(PER):
        if start + i < numel:
            e = tl.abs(tl.load(ids_ptr + start + i)) % E
            c = tl.load(cnt_ptr + row + e)
            tl.store(cnt_ptr + row + e, c + 1)


# 2. Each expert's first row, its count padded up to a whole block (a scalar running sum stored
#    every iteration, the total at the end).
@triton.jit
def padded_offsets_kernel(cnt_ptr, cum_ptr, total_ptr, E: tl.constexpr, BS: tl.constexpr):
    acc = 0
    for i in range(E):
        c = tl.abs(tl.load(cnt_ptr + i))
        acc = acc + tl.cdiv(c, BS) * BS
        tl.store(cum_ptr + i + 1, acc)
    tl.store(total_ptr, acc)


# 3. The expert of every block: a loop between bounds loaded from memory with a run-time step.
@triton.jit
def block_expert_ids_kernel(len_ptr, eid_ptr, bs):
    pid = tl.program_id(0)
    s = pid * 4 * bs + (tl.abs(tl.load(len_ptr + 2 * pid)) % 2) * bs
    e = s + (tl.abs(tl.load(len_ptr + 2 * pid + 1)) % 3) * bs
    for i in range(s, e, bs):
        tl.store(eid_ptr + i // bs, pid)


# 4. Each token's rank among its expert's: a loop up to `tl.minimum` of two bounds, a count read
#    and written back per token, the token scattered to its slot.
@triton.jit
def scatter_rank_kernel(ids_ptr, cnt_ptr, out_ptr, numel, E: tl.constexpr, PER: tl.constexpr):
    pid = tl.program_id(0)
    start = pid * PER
    base = pid * E
    for i in range(start, tl.minimum(start + PER, numel)):
        e = tl.abs(tl.load(ids_ptr + i)) % E
        c = tl.load(cnt_ptr + base + e)
        tl.store(out_ptr + e * numel + start + c, i)
        tl.store(cnt_ptr + base + e, c + 1)


# 5. Attention with a tanh cap on the logits and ALiBi's per-head linear bias.
@triton.jit
def alibi_softcap_attn_kernel(q_ptr, k_ptr, v_ptr, slope_ptr, o_ptr, S, cap,
                              D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    h = tl.program_id(1)
    offs_m = tl.program_id(0) * BM + tl.arange(0, BM)
    offs_d = tl.arange(0, D)
    base = h * S * D
    q = tl.load(q_ptr + base + offs_m[:, None] * D + offs_d[None, :], mask=offs_m[:, None] < S, other=0.0)
    slope = tl.load(slope_ptr + h)
    m_i = tl.full([BM], float("-inf"), tl.float32)
    l_i = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, D], tl.float32)
    for n0 in range(0, S, BN):
        offs_n = n0 + tl.arange(0, BN)
        k = tl.load(k_ptr + base + offs_n[None, :] * D + offs_d[:, None], mask=offs_n[None, :] < S, other=0.0)
        s = tl.dot(q, k)
        s = cap * (2.0 * tl.sigmoid(2.0 * s / cap) - 1.0)
        s += slope * (offs_n[None, :] - offs_m[:, None]).to(tl.float32)
        s = tl.where(offs_n[None, :] < S, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + base + offs_n[:, None] * D + offs_d[None, :], mask=offs_n[:, None] < S, other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_new
    tl.store(o_ptr + base + offs_m[:, None] * D + offs_d[None, :], (acc / l_i[:, None]).to(tl.float16),
             mask=offs_m[:, None] < S)


# 6. A persistent matmul whose tile loop is `tl.range(..., flatten=True)` around the K loop.
@triton.jit
def flatten_persistent_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, NUM_PROGS: tl.constexpr,
                                     BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    tiles_n = tl.cdiv(N, BN)
    tiles = tl.cdiv(M, BM) * tiles_n
    for t in tl.range(tl.program_id(0), tiles, NUM_PROGS, flatten=True):
        rm = (t // tiles_n) * BM + tl.arange(0, BM)
        rn = (t % tiles_n) * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros([BM, BN], tl.float32)
        for k0 in range(0, K, BK):
            a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :],
                        mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K), other=0.0)
            b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :],
                        mask=((k0 + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
            acc = tl.dot(a, b, acc)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16),
                 mask=(rm[:, None] < M) & (rn[None, :] < N))


# 7. A 64-bit multiplicative hash seeded by a 64-bit argument (Triton passes ints past 2^31 as i64).
@triton.jit
def i64_seed_hash_kernel(out_ptr, seed, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    h = offs.to(tl.int64) * 6364136223846793005 + seed
    h = h ^ (h >> 29)
    tl.store(out_ptr + offs, (h & 0xFFFF).to(tl.int32), mask=offs < n)


def cdiv(a, b):
    return -(-a // b)


def cases():
    E, PER, T = 8, 16, 100
    H, S, D = 2, 50, 32
    M, N, K = 70, 40, 48
    return [
        ("expert_count_8x16_i32", expert_count_kernel, {"E": E, "PER": PER}, {"num_warps": 1}, [
            ("t100", dict(ids_ptr=Buf("i32", T, "small"), cnt_ptr=Buf("i32", (cdiv(T, PER) + 1) * E, "zeros", True),
                          numel=T), [cdiv(T, PER), 1, 1], 2901)]),
        ("padded_offsets_8_i32", padded_offsets_kernel, {"E": E, "BS": 16}, {"num_warps": 1}, [
            ("e8", dict(cnt_ptr=Buf("i32", E, "small"), cum_ptr=Buf("i32", E + 1, "sentinel", True),
                        total_ptr=Buf("i32", 1, "sentinel", True)), [1, 1, 1], 2902)]),
        ("block_expert_ids_i32", block_expert_ids_kernel, {}, {"num_warps": 1}, [
            ("p6-bs16", dict(len_ptr=Buf("i32", 12, "small"), eid_ptr=Buf("i32", 6 * 4, "sentinel", True), bs=16),
             [6, 1, 1], 2903)]),
        ("scatter_rank_8x16_i32", scatter_rank_kernel, {"E": E, "PER": PER}, {"num_warps": 1}, [
            ("t100", dict(ids_ptr=Buf("i32", T, "small"), cnt_ptr=Buf("i32", cdiv(T, PER) * E, "zeros", True),
                          out_ptr=Buf("i32", E * T + PER, "sentinel", True), numel=T), [cdiv(T, PER), 1, 1], 2904)]),
        ("alibi_softcap_attn_32x32_d32_f16", alibi_softcap_attn_kernel, {"D": D, "BM": 32, "BN": 32},
         {"num_warps": 4}, [
            ("h2-s50", dict(q_ptr=Buf("f16", H * S * D, "int3"), k_ptr=Buf("f16", H * S * D, "int3"),
                            v_ptr=Buf("f16", H * S * D, "int3"), slope_ptr=Buf("f32", H),
                            o_ptr=Buf("f16", H * S * D, "sentinel", True), S=S, cap=F32(20.0)),
             [cdiv(S, 32), H, 1], 2905)]),
        ("flatten_persistent_matmul_32x32x16_f16", flatten_persistent_matmul_kernel,
         {"NUM_PROGS": 3, "BM": 32, "BN": 32, "BK": 16}, {"num_warps": 4}, [
            ("70x40x48", dict(a_ptr=Buf("f16", M * K, "int3"), b_ptr=Buf("f16", K * N, "int3"),
                              c_ptr=Buf("f16", M * N, "sentinel", True), M=M, N=N, K=K), [3, 1, 1], 2906)]),
        ("i64_seed_hash_256", i64_seed_hash_kernel, {"BLOCK": 256}, {"num_warps": 4}, [
            ("n600", dict(out_ptr=Buf("i32", 768, "sentinel", True), seed=2**40 + 12345, n=600), [3, 1, 1], 2907)]),
    ]


if __name__ == "__main__":
    gen.cases = cases
    if "--out" not in sys.argv:
        sys.argv += ["--out", os.path.join(tempfile.gettempdir(), "zoo2", "fx21")]
    gen.main()
