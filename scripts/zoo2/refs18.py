"""References of the round-18 kernels of the second zoo (cases.json beside this file), people-set format."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refs_common import f32, reference_with  # noqa: E402


def pingpong_kernel(a, o):
    N = 256
    bufs = [list(a["a_ptr"]), list(a["b_ptr"])]
    s = 0
    for _ in range(a["n_iter"]):
        src, dst = bufs[s], bufs[1 - s]
        for i in range(N):
            l = src[i - 1] if i > 0 else 0.0
            r = src[i + 1] if i < N - 1 else 0.0
            dst[i] = f32(f32(f32(l + src[i]) + r) * 0.25)
        s = 1 - s
    o["a_ptr"][:] = bufs[0]
    o["b_ptr"][:] = bufs[1]
    return 0.0


def pingpong_while_kernel(a, o):
    N = 128
    bufs = [list(a["a_ptr"]), list(a["b_ptr"])]
    s, it, tol = 0, 0, a["tol"]
    delta = f32(tol + 1.0)
    while delta > tol and it < 50:
        src, dst = bufs[s], bufs[1 - s]
        d = 0.0
        for i in range(N):
            l = src[i - 1] if i > 0 else 0.0
            r = src[i + 1] if i < N - 1 else 0.0
            dst[i] = f32(f32(f32(l + src[i]) + r) * 0.25)
            d = max(d, abs(f32(dst[i] - src[i])))
        delta = d
        s = 1 - s
        it += 1
    o["a_ptr"][:] = bufs[0]
    o["b_ptr"][:] = bufs[1]
    o["out_ptr"][:] = [f32(v + it) for v in bufs[s]]
    return 0.0


def flag_switch_kernel(a, o):
    x, y, fl = a["x_ptr"], a["y_ptr"], a["flags_ptr"]
    for c in range(64):
        acc, p = 0.0, x
        for i in range(a["n"]):
            acc = f32(acc + p[i * 64 + c])
            p = y if fl[i] != 0 else x
        o["out_ptr"][c] = acc
    return 0.0


def growing_stride_kernel(a, o):
    x = a["x_ptr"]
    for c in range(64):
        acc = 0.0
        for i in range(a["n_iter"]):
            acc = f32(acc + x[(i + 1) * c + i])
        o["out_ptr"][c] = acc
    return 0.0


def data_step_kernel(a, o):
    x, st = a["x_ptr"], a["step_ptr"]
    for c in range(64):
        acc, pos = 0.0, c
        for i in range(a["n_iter"]):
            acc = f32(acc + x[pos])
            pos += st[i * 64 + c] + 3
        o["out_ptr"][c] = acc
    return 0.0

REFERENCES = {f.__name__: f for f in (flag_switch_kernel, pingpong_while_kernel, pingpong_kernel, growing_stride_kernel,
                                      data_step_kernel)}


reference = reference_with(REFERENCES)
