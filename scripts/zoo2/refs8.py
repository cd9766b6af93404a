"""References of the round-8 kernels of the second zoo (cases.json beside this file), people-set format."""
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refs_common import f16, f32, reference_with  # noqa: E402


def _bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def _from_bits(b):
    return struct.unpack("<f", struct.pack("<I", b & 0xFFFFFFFF))[0]


def _e5m2_byte(v):
    """The fp8 e5m2 byte nearest v (ties to even), as a signed byte."""
    sign = 0x80 if math.copysign(1.0, v) < 0 else 0
    a = abs(v)
    if a == 0:
        return -128 if sign else 0
    e = max(math.floor(math.log2(a)), -14)
    q = round(a / 2.0 ** (e - 2)) * 2.0 ** (e - 2)
    e = math.floor(math.log2(q)) if q else -15
    if e < -14:
        byte = sign | int(q / 2.0 ** -16)
    else:
        byte = sign | (e + 15) << 2 | int((q / 2.0 ** e - 1) * 4)
    return byte - 256 if byte & 0x80 else byte


def assume_scale_rows_kernel(a, o):
    S = a["stride_x"]
    for r in range(a["M"]):
        for c in range(a["N"]):
            o["y_ptr"][r * a["stride_y"] + c] = f32(a["x_ptr"][r * S + c] * a["scale"])
    return 0.0


def cross_entropy_kernel(a, o):
    V, S = a["V"], a["stride"]
    for row, raw in enumerate(a["target_ptr"]):
        x = a["logits_ptr"][row * S:row * S + V]
        if raw < -50:
            o["logits_ptr"][row * S:row * S + V] = [0.0] * V
            o["loss_ptr"][row] = 0.0
            continue
        y = raw % V
        m = max(x)
        lse = m + math.log(sum(math.exp(v - m) for v in x))
        for c in range(V):
            o["logits_ptr"][row * S + c] = math.exp(x[c] - lse) - (1.0 if c == y else 0.0)
        o["loss_ptr"][row] = lse - x[y]
    return 1e-4


def embedding_bwd_f16_kernel(a, o):
    D, NV = a["D"], a["NV"]
    for t, raw in enumerate(a["ids_ptr"]):
        idx = raw % NV
        for c in range(D):
            o["dw_ptr"][idx * D + c] += a["dout_ptr"][t * D + c]
    return 0.0


def bmm3d_kernel(a, o):
    B, M, N, K = a["B"], a["M"], a["N"], a["K"]
    for b in range(B):
        for m in range(M):
            for n in range(N):
                o["c_ptr"][(b * M + m) * N + n] = sum(
                    a["a_ptr"][(b * M + m) * K + k] * a["b_ptr"][(b * K + k) * N + n] for k in range(K))
    return 0.0


def unroll2_rowsum_kernel(a, o):
    for r in range(len(o["y_ptr"])):
        o["y_ptr"][r] = sum(a["x_ptr"][r * a["stride"]:r * a["stride"] + a["n"]])
    return 1e-6


def welford_rows_kernel(a, o):
    N, S = a["N"], a["stride"]
    for r in range(a["M"]):
        x = a["x_ptr"][r * S:r * S + N]
        mean = sum(x) / N
        o["mean_ptr"][r] = mean
        o["var_ptr"][r] = sum((v - mean) ** 2 for v in x) / N
    return 1e-4


def segmented_cumsum_kernel(a, o):
    block = a["BLOCK"]
    run = 0
    for i in range(a["n"]):
        x, start = a["x_ptr"][i], a["key_ptr"][i] % 3 == 0
        run = x if start or i % block == 0 else run + x
        o["y_ptr"][i] = run
    return 0.0


def quant_fp8_rows_kernel(a, o):
    N, S = a["N"], a["stride"]
    for r in range(len(o["scale_ptr"])):
        x = a["x_ptr"][r * S:r * S + N]
        scale = f32(max(max(abs(v) for v in x), f32(1e-6)) / 448.0)
        o["scale_ptr"][r] = scale
        for c in range(N):
            o["q_ptr"][r * S + c] = _e5m2_byte(f32(x[c] / scale))
    return 0.0


def upsample_bilinear_kernel(a, o):
    H, W, OH, OW = a["H"], a["W"], a["OH"], a["OW"]
    for c in range(len(o["y_ptr"]) // (OH * OW)):
        src = a["x_ptr"][c * H * W:(c + 1) * H * W]
        for oy in range(OH):
            for ox in range(OW):
                sy = max(f32((oy + 0.5) * a["scale_h"]) - 0.5, 0.0)
                sx = max(f32((ox + 0.5) * a["scale_w"]) - 0.5, 0.0)
                y0, x0 = int(sy), int(sx)
                y1, x1 = min(y0 + 1, H - 1), min(x0 + 1, W - 1)
                ly, lx = sy - y0, sx - x0
                top = src[y0 * W + x0] * (1 - lx) + src[y0 * W + x1] * lx
                bot = src[y1 * W + x0] * (1 - lx) + src[y1 * W + x1] * lx
                o["y_ptr"][c * OH * OW + oy * OW + ox] = top * (1 - ly) + bot * ly
    return 1e-5


def maxpool2x2_idx_kernel(a, o):
    H, W, OH, OW = a["H"], a["W"], a["OH"], a["OW"]
    for c in range(len(o["y_ptr"]) // (OH * OW)):
        for oy in range(OH):
            for ox in range(OW):
                best, where = -math.inf, 0
                for dy in range(2):
                    for dx in range(2):
                        iy, ix = oy * 2 + dy, ox * 2 + dx
                        if iy < H and ix < W and a["x_ptr"][c * H * W + iy * W + ix] > best:
                            best, where = a["x_ptr"][c * H * W + iy * W + ix], iy * W + ix
                o["y_ptr"][c * OH * OW + oy * OW + ox] = best
                o["idx_ptr"][c * OH * OW + oy * OW + ox] = where
    return 0.0


def fast_rsqrt_bits_kernel(a, o):
    for i in range(a["n"]):
        x = f32(abs(a["x_ptr"][i]) + 1.0)
        y = _from_bits(0x5F3759DF - (_bits(x) >> 1))
        o["y_ptr"][i] = f32(y * (1.5 - 0.5 * x * y * y))
    return 1e-6


def sample_cumsum_kernel(a, o):
    V, S = a["V"], a["stride"]
    for r in range(len(o["tok_ptr"])):
        p = [abs(v) for v in a["p_ptr"][r * S:r * S + V]]
        u = f32(f32(abs(a["u_ptr"][r]) / 16.0) * sum(p))
        run, tok = 0.0, 0
        for v in p:
            run += v
            tok += run < u
        o["tok_ptr"][r] = min(tok, V - 1)
    return 0.0


def kl_div_rows_kernel(a, o):
    N, S = a["N"], a["stride"]
    total = 0.0
    for r in range(len(o["row_ptr"])):
        s = 0.0
        for c in range(N):
            t = f32(abs(a["t_ptr"][r * S + c]) / 16.0)
            if t > 0:
                s += t * (math.log(t) - a["logp_ptr"][r * S + c])
        o["row_ptr"][r] = s
        total += s
    o["total_ptr"][0] = total
    return 1e-4


def nchw_bias_silu_kernel(a, o):
    HW, C = a["HW"], a["C"]
    for i in range(a["numel"]):
        v = f32(a["x_ptr"][i] + a["b_ptr"][(i // HW) % C])
        o["y_ptr"][i] = v / (1.0 + math.exp(-v))
    return 1e-5


def fused_moe_kernel(a, o):
    N, K, E, TOP_K, BM, SLOTS = a["N"], a["K"], a["E"], a["TOP_K"], a["BM"], a["SLOTS"]
    for slot in range(SLOTS):
        tok = a["ids_ptr"][slot] + (slot * 7) % SLOTS
        if tok >= a["num_valid"]:
            continue
        e = a["experts_ptr"][slot // BM] % E
        row = tok // TOP_K
        for n in range(N):
            acc = sum(a["a_ptr"][row * K + k] * a["b_ptr"][e * K * N + k * N + n] for k in range(K))
            o["c_ptr"][tok * N + n] = f16(f32(acc * a["w_ptr"][tok]))
    return 0.0


REFERENCES = {f.__name__: f for f in (
    assume_scale_rows_kernel, cross_entropy_kernel, embedding_bwd_f16_kernel, bmm3d_kernel, unroll2_rowsum_kernel,
    welford_rows_kernel, segmented_cumsum_kernel, quant_fp8_rows_kernel, upsample_bilinear_kernel,
    maxpool2x2_idx_kernel, fast_rsqrt_bits_kernel, sample_cumsum_kernel, kl_div_rows_kernel, nchw_bias_silu_kernel,
    fused_moe_kernel)}


reference = reference_with(REFERENCES)
