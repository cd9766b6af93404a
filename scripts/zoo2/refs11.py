"""References of the round-11 kernels of the second zoo (cases.json beside this file), people-set format."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from refs_common import reference_with  # noqa: E402

E2M1 = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]


def _float8(byte, exponent_bits, bias):
    """An OCP fp8 byte (e4m3: 4 exponent bits, bias 7; e5m2: 5, bias 15) as a float (finite codes only)."""
    mantissa_bits = 7 - exponent_bits
    e = (byte >> mantissa_bits) & ((1 << exponent_bits) - 1)
    m = byte & ((1 << mantissa_bits) - 1)
    v = m / (1 << mantissa_bits) * 2.0 ** (1 - bias) if e == 0 else (1 + m / (1 << mantissa_bits)) * 2.0 ** (e - bias)
    return -v if byte & 0x80 else v


def _e2m1(nibble):
    return -E2M1[nibble & 7] if nibble & 8 else E2M1[nibble & 7]


def _scale(byte):
    return 2.0 ** ((byte & 3) + 122 - 127)


def _dot(a, b, M, N, K, out):
    for m in range(M):
        for n in range(N):
            out[m * N + n] = sum(a(m, k) * b(k, n) for k in range(K))


def scaled_mxfp8_kernel(a, o):
    M, N, K = a["M"], a["N"], a["K"]
    G = K // 32
    _dot(lambda m, k: _float8(a["a_ptr"][m * K + k] & 0xBF, 4, 7) * _scale(a["as_ptr"][m * G + k // 32]),
         lambda k, n: _float8(a["b_ptr"][k * N + n] & 0xBF, 5, 15) * _scale(a["bs_ptr"][n * G + k // 32]),
         M, N, K, o["c_ptr"])
    return 1e-3


def scaled_mxfp4_kernel(a, o):
    M, N, K = a["M"], a["N"], a["K"]
    G = K // 32

    def nibble(byte, k):
        return byte & 15 if k % 2 == 0 else (byte >> 4) & 15
    _dot(lambda m, k: _e2m1(nibble(a["a_ptr"][m * (K // 2) + k // 2], k)) * _scale(a["as_ptr"][m * G + k // 32]),
         lambda k, n: _e2m1(nibble(a["b_ptr"][(k // 2) * N + n], k)) * _scale(a["bs_ptr"][n * G + k // 32]),
         M, N, K, o["c_ptr"])
    return 1e-3


def scaled_e4m3_f16_kernel(a, o):
    M, N, K = a["M"], a["N"], a["K"]
    G = K // 32
    _dot(lambda m, k: _float8(a["a_ptr"][m * K + k] & 0xBF, 4, 7) * _scale(a["as_ptr"][m * G + k // 32]),
         lambda k, n: a["b_ptr"][k * N + n], M, N, K, o["c_ptr"])
    return 1e-3


REFERENCES = {f.__name__: f for f in (scaled_mxfp8_kernel, scaled_mxfp4_kernel, scaled_e4m3_f16_kernel)}


reference = reference_with(REFERENCES)
