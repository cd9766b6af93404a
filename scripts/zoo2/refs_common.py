"""What the second zoo's references share: the people set's reference format
(`reference(case, vals) -> (expected output buffers by name, relative tolerance)`), numbers
rounded to the kernels' types, and a case's arguments as a reference reads them."""
import struct


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def f16(x):
    return struct.unpack("<e", struct.pack("<e", x))[0]


def bf16(x):
    """The nearest bf16 (ties to even), as a float."""
    b, = struct.unpack("<I", struct.pack("<f", x))
    b = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16
    return struct.unpack("<f", struct.pack("<I", b & 0xFFFFFFFF))[0]


def _args(case, vals):
    a = dict(case.get("constexprs", {}))
    out = {}
    for spec in case["args"]:
        name = spec["name"]
        if spec["kind"] == "ptr":
            v = vals[name]
            a[name] = [f32(x) for x in v] if spec["dtype"] == "f32" else list(v)
            if spec.get("out"):
                out[name] = list(a[name])
        elif spec["kind"] == "f32":
            a[name] = f32(spec["value"])
        else:
            a[name] = spec["value"]
    return a, out


def _wrap(v, bits=32):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def _rne(x):
    """Round half to even (nearbyint)."""
    return float(round(x))


def reference_with(references):
    """The `reference` function of a round whose kernels' references are `references` (by name)."""
    def reference(case, vals):
        a, out = _args(case, vals)
        tol = references[case["reference"]](a, out)
        return out, tol
    return reference


def swizzle2d(i, j, size_i, size_j, size_g):
    """`tl.swizzle2d`: tile (i, j) of a size_i × size_j grid, reordered in groups of size_g rows."""
    ij = i * size_j + j
    size_gj = size_g * size_j
    group_id = ij // size_gj
    off_i = group_id * size_g
    size_g = min(size_i - off_i, size_g)
    ij = ij % size_gj
    return off_i + ij % size_g, ij // size_g


def i64_at(words, i):
    """Element `i` of a buffer of 64-bit integers held as 32-bit words (low, high)."""
    return (words[2 * i] & 0xFFFFFFFF) + (words[2 * i + 1] << 32)


def put_i64(words, i, v):
    """Writes `v` (wrapped to 64 bits) as element `i` of a buffer held as 32-bit words."""
    v &= 2**64 - 1
    words[2 * i] = _wrap(v & 0xFFFFFFFF, 32)
    words[2 * i + 1] = _wrap(v >> 32, 32)
