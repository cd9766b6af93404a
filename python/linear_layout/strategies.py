"""Hypothesis strategies of GPU-shaped layouts, for stating laws over :class:`LinearLayout`.

Random bit matrices say little about GPU layouts, so these strategies build what compilers
build, as the crate's ``linear::arbitrary`` generators do for Rust's quickcheck: distributed
layouts that deal the bits of a tensor out to registers, lanes, warps and blocks (in some order,
with broadcast zero bases and XOR mixing), swizzled shared-memory layouts, and small layouts with
arbitrary names (an in-dim may share its name with an out-dim). Sizes stay small enough for
brute-force checks (at most 18 input bits: 10 tensor bits and up to 8 broadcast ones). Needs
``hypothesis`` (``pip install "./python[strategies]"``).

>>> from hypothesis import given
>>> from linear_layout.strategies import invertible_layouts
>>> @given(invertible_layouts())
... def test_invert_is_an_inverse(l):
...     assert l.compose(l.invert()).is_injective()
"""

from typing import List, Sequence, Tuple

from hypothesis import strategies as st

from . import LinearLayout

__all__ = [
    "distributed_layouts",
    "shared_layouts",
    "small_layouts",
    "layouts",
    "layouts_from",
    "invertible_on",
    "invertible_layouts",
    "chains",
    "contained_pairs",
    "same_dims_pairs",
]

DISTRIBUTED = ("register", "lane", "warp", "block")
NAMES = ("x", "y", "z", "register", "dim0", "offset")

Dims = List[Tuple[str, int]]  # (name, bits)


def _assemble(ins: Sequence[Tuple[str, List[int]]], outs: Dims) -> LinearLayout:
    """The layout whose in-dim ``name`` has the packed columns ``cols`` (first out-dim in the
    low bits) over out-dims of ``bits`` each."""
    starts = []
    start = 0
    for _, bits in outs:
        starts.append(start)
        start += bits
    bases = {
        name: [[(c >> s) & ((1 << bits) - 1) for s, (_, bits) in zip(starts, outs)] for c in cols]
        for name, cols in ins
    }
    return LinearLayout(bases, {name: 1 << bits for name, bits in outs})


@st.composite
def _tensor_dims(draw, total: int) -> Dims:
    """Out-dims dim0.. of rank 1-3 with ``total`` bits in all."""
    rank = draw(st.integers(1, 3))
    bits = [0] * rank
    for _ in range(total):
        bits[draw(st.integers(0, rank - 1))] += 1
    return [("dim%d" % k, b) for k, b in enumerate(bits)]


@st.composite
def _walk(draw, outs: Dims) -> List[int]:
    """The unit vectors of every output bit in a "tensor walk" order: each dim's bits low to
    high, cut into runs, and the runs of different dims interleaved (as MMA layouts interleave
    rows and columns)."""
    queues = []
    shift = 0
    for _, bits in outs:
        units = [1 << (shift + b) for b in range(bits)]
        shift += bits
        runs = []
        while units:
            take = draw(st.integers(1, len(units)))
            runs.append(units[:take])
            units = units[take:]
        queues.append(runs)
    out: List[int] = []
    while True:
        live = [i for i, q in enumerate(queues) if q]
        if not live:
            return out
        out.extend(queues[draw(st.sampled_from(live))].pop(0))


def _coin(percent: int):
    return st.integers(0, 99).map(lambda x: x < percent)


@st.composite
def distributed_layouts(draw, max_bits: int = 10) -> LinearLayout:
    """A distributed layout: register/lane/warp/block over dim0.. (rank 1-3, at most
    ``max_bits`` tensor bits), with broadcast zero bases and occasional XOR mixing of a lower
    bit into a higher basis."""
    outs = draw(_tensor_dims(draw(st.integers(0, max_bits))))
    columns = draw(_walk(outs))
    for k in range(1, len(columns)):
        if draw(_coin(10)):
            columns[k] ^= columns[draw(st.integers(0, k - 1))]
    ins = []
    for i, name in enumerate(DISTRIBUTED):
        remaining = len(columns)
        take = remaining if i == len(DISTRIBUTED) - 1 else draw(st.integers(0, remaining))
        dim, columns = columns[:take], columns[take:]
        zeros = draw(st.integers(1, 2)) if draw(_coin(30)) else 0
        for _ in range(zeros):
            dim.insert(draw(st.integers(0, len(dim))), 0)
        ins.append((name, dim))
    return _assemble(ins, outs)


@st.composite
def shared_layouts(draw, max_bits: int = 10) -> LinearLayout:
    """A shared-memory layout: ``offset`` (and an empty ``block``) over dim0.., the row bits
    XORed into the column bits as a vec/perPhase/maxPhase swizzle does."""
    outs = draw(_tensor_dims(draw(st.integers(0, max_bits))))
    columns = draw(_walk(outs))
    half = len(columns) // 2
    for k in range(half, len(columns)):
        if half > 0 and draw(_coin(50)):
            columns[k] ^= columns[draw(st.integers(0, half - 1))]
    return _assemble([("offset", columns), ("block", [])], outs)


@st.composite
def small_layouts(draw) -> LinearLayout:
    """A small layout with random names and random bits: possibly not surjective, not
    injective, with size-1 dims, an in-dim named like an out-dim, or no dims at all."""
    out_names = draw(st.permutations(NAMES))[: draw(st.integers(0, 2))]
    outs = [(n, draw(st.integers(0, 3))) for n in out_names]
    out_bits = sum(b for _, b in outs)
    in_names = draw(st.permutations(NAMES))[: draw(st.integers(0, 3))]
    ins = []
    for name in in_names:
        bits = draw(st.integers(0, 3))
        ins.append((name, [draw(st.integers(0, (1 << out_bits) - 1)) for _ in range(bits)]))
    return _assemble(ins, outs)


@st.composite
def layouts(draw) -> LinearLayout:
    """One of the strategies above: half distributed, a fifth shared, the rest small."""
    pick = draw(st.integers(0, 9))
    if pick <= 4:
        return draw(distributed_layouts())
    if pick <= 6:
        return draw(shared_layouts())
    return draw(small_layouts())


def _bits(dims: Sequence[Tuple[str, int]]) -> Dims:
    return [(name, size.bit_length() - 1) for name, size in dims]


@st.composite
def layouts_from(draw, in_dims: Sequence[Tuple[str, int]]) -> LinearLayout:
    """A random layout whose in-dims are exactly ``in_dims`` ((name, size) pairs, as
    ``LinearLayout.out_dims`` lists them), over random out-dims dim0..: the second layout of a
    composable pair."""
    ins = _bits(in_dims)
    in_bits = sum(b for _, b in ins)
    total = draw(st.integers(0, min(in_bits, 10) + 2))
    outs = draw(_tensor_dims(total))
    cols = iter(
        [0 if draw(_coin(15)) else draw(st.integers(0, (1 << total) - 1)) for _ in range(in_bits)]
    )
    return _assemble([(name, [next(cols) for _ in range(bits)]) for name, bits in ins], outs)


@st.composite
def invertible_on(draw, dims: Sequence[Tuple[str, int]]) -> LinearLayout:
    """A random invertible layout from in-dims named and sized like ``dims`` ((name, size)
    pairs) to the same out-dims: a change of coordinates that preserves a layout's image."""
    outs = _bits(dims)
    n = sum(b for _, b in outs)
    perm = draw(st.permutations(range(n)))
    # A random lower-unitriangular matrix times a permutation is invertible.
    cols = []
    for j, p in enumerate(perm):
        c = 1 << p
        for q in perm[:j]:
            if draw(_coin(25)):
                c ^= 1 << q
        cols.append(c)
    it = iter(cols)
    return _assemble([(name, [next(it) for _ in range(bits)]) for name, bits in outs], outs)


@st.composite
def invertible_layouts(draw) -> LinearLayout:
    """An invertible layout (a bijection between equally sized dims), its in-dims named
    in0, in1, ... apart from its out-dims dim0.., as a hardware-to-tensor map has them."""
    base = draw(st.one_of(distributed_layouts(), shared_layouts()))
    change = draw(invertible_on(base.out_dims))
    bases = {"in%d" % k: b for k, (_, b) in enumerate(change.bases)}
    return LinearLayout(bases, dict(change.out_dims))


@st.composite
def chains(draw) -> Tuple[LinearLayout, LinearLayout, LinearLayout]:
    """Three layouts that compose in a chain: ``a``'s out-dims are ``b``'s in-dims (same sizes)
    and ``b``'s out-dims are ``c``'s in-dims."""
    a = draw(layouts())
    b = draw(layouts_from(a.out_dims))
    c = draw(layouts_from(b.out_dims))
    return a, b, c


@st.composite
def contained_pairs(draw) -> Tuple[LinearLayout, LinearLayout]:
    """A layout and an ``outer`` layout whose image contains the layout's image (the layout is
    ``x`` composed with ``outer`` for a random ``x``), as in a conversion between two layouts
    of one tensor: ``layout.invert_and_compose(outer)`` succeeds."""
    outer = draw(layouts())
    ins = _bits(outer.in_dims)
    total = sum(b for _, b in ins)
    x_ins = []
    for name in ("register", "lane", "warp", "q")[: draw(st.integers(1, 4))]:
        bits = draw(st.integers(0, 4))
        x_ins.append(
            (name, [0 if draw(_coin(15)) else draw(st.integers(0, (1 << total) - 1)) for _ in range(bits)])
        )
    x = _assemble(x_ins, ins)
    return x.compose(outer), outer


@st.composite
def same_dims_pairs(draw) -> Tuple[LinearLayout, LinearLayout]:
    """Two distributed layouts over the same in-dims and the same out-dims (names and order;
    sizes may differ): operands of a product that can be divided again."""
    a = draw(distributed_layouts())
    b = draw(distributed_layouts().filter(lambda b: b.num_out_dims == a.num_out_dims))
    return a, b
