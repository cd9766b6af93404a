"""References of the round-19 kernels of the second zoo (cases.json beside this file), people-set format."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refs_common import f32, reference_with, swizzle2d  # noqa: E402


def align_dispatch_kernel(a, o):
    for i in range(a["n"]):
        o["out_ptr"][i] = f32(a["x_ptr"][i] * 2.0)
    return 0.0


def pointer_bytes_kernel(a, o):
    for i in range(a["n"]):
        o["out_ptr"][i] = 4 * i
    return 0.0


def list_walk_kernel(a, o):
    nxt, val = a["next_ptr"], a["val_ptr"]
    nodes = list(range(64)); acc = [0.0] * 64; steps = 0
    while max(nodes) >= 0 and steps < 20:
        for c in range(64):
            if nodes[c] >= 0:
                acc[c] = f32(acc[c] + val[nodes[c]])
                nodes[c] = nxt[nodes[c]]
            else:
                nodes[c] = -1
        steps += 1
    o["out_ptr"][:] = acc
    return 0.0


def cat_sum_kernel(a, o):
    s = sum(a["x_ptr"]) + sum(a["y_ptr"])
    for i in range(64):
        o["out_ptr"][i] = a["x_ptr"][i] * 2.0 + s
    return 1e-5


def swizzle_tiles_kernel(a, o):
    M, N = a["M"], a["N"]
    for pm in range(4):
        for pn in range(3):
            sm, sn = swizzle2d(pm, pn, 4, 3, 2)
            for r in range(sm * 16, sm * 16 + 16):
                for c in range(sn * 32, sn * 32 + 32):
                    if r < M and c < N:
                        o["out_ptr"][r * N + c] = f32(a["x_ptr"][r * N + c] + pm * 100 + pn)
    return 0.0


def block_ptr_data_step_kernel(a, o):
    x, st = a["x_ptr"], a["step_ptr"]
    acc = [0.0] * (16 * 32); r = 0
    for i in range(4):
        for m in range(16):
            for k in range(32):
                row = r + m
                v = x[row * 32 + k] if 0 <= row < 64 else 0.0
                acc[m * 32 + k] = f32(acc[m * 32 + k] + v)
        r += st[i]
    o["out_ptr"][:] = acc
    return 0.0

REFERENCES = {f.__name__: f for f in (align_dispatch_kernel, pointer_bytes_kernel, list_walk_kernel, cat_sum_kernel,
                                      swizzle_tiles_kernel, block_ptr_data_step_kernel)}


reference = reference_with(REFERENCES)
