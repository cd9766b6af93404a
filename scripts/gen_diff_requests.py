#!/usr/bin/env python3
"""Seeded generator of random batch-protocol requests for differential testing.

    python3 scripts/gen_diff_requests.py --seed 1 --count 2600 --out requests.jsonl

Writes one request per line (PROTOCOL.md of the Triton oracle) covering every
LinearLayout algebra op: compose, invert_and_compose, invert, pseudoinvert,
product, apply, num_consecutive_in_out, is_injective, is_surjective,
is_invertible, plus a few malformed lines (missing members, wrong JSON types,
unknown/missing op, non-object lines and lines that are not JSON at all).
No blank lines are written (triton_batch.py skips them, which would shift the
response line numbers).

Stdlib only, deterministic for a given (--seed, --count): the same arguments
always give the same bytes, under any Python 3 (no set/hash iteration order is
relied upon).

What is generated
  * GPU-like layouts: in-dims register/lane/warp/block (distributed: blocked
    tiles, MMA-like interleavings with broadcast zero bases, XOR mixing) or
    offset/block (shared: identity in some order + vec/perPhase/maxPhase XOR
    swizzle, optional block bits), out-dims dim0..dim{r-1}, rank 1-3, in
    either dim order;
  * small layouts with arbitrary names (x, y, in1, out2, ...; an in-dim may
    share its name with an out-dim), random invertible / surjective /
    injective maps and layouts with uniformly random bits;
  * sizes from 0 to ~20 total bits; a few larger ones (apply / is_* up to 64
    input bits, each dim at most 2^30 so that sizes fit an int32; invert /
    pseudoinvert / invert_and_compose at most 30 input and 30 output bits per
    layout: beyond that Triton 3.6 overflows int32 sizes or its 64-column
    uint64 packing in lstsq and answers garbage, so such requests would not
    be reproducible by a conforming implementation).
  * ~20-30% requests that Triton rejects: layouts breaking a constructor
    invariant (negative component, wrong basis length, non-power-of-two or
    zero/negative out size, component >= out size, ints outside int32, wrong
    JSON types), dim-set mismatches, incompatible sizes, image not contained,
    non-invertible invert, non-surjective pseudoinvert, apply with
    missing/extra in-dims or values outside int32, products over 64 bits,
    invertAndCompose's identity-dim assertion (Q7 of ll-core-spec.md), ...
    Requests Triton accepts but that are "odd" are included too: apply values
    >= the in-dim size (masked) and negative apply values (two's complement,
    masked), empty layouts, size-1 in-dims, products of overlapping dims in
    different orders.

Each request has a unique "id" (ints; the malformed ones have string ids,
except the lines that are not JSON objects).  A "tag" member (ignored by the
protocol: unknown members are ignored) says what the case exercises, e.g.
"compose/gpu_shared_inv" or "invert/bad:neg".
"""

import argparse
import json
import random
import sys

DIST_INS = ("register", "lane", "warp", "block")
NAME_POOL = ("x", "y", "z", "w", "in1", "in2", "in3", "out1", "out2", "a",
             "b", "c", "p", "q", "register", "lane", "offset", "block",
             "dim0", "dim1", "dim2", "kOffset", "k")
WEIRD_NAMES = ("", "a b", "\u00fcn\u00efc\u00f6de", "dim-0", "0")

INT32_MAX = (1 << 31) - 1


def log2(n):
    return n.bit_length() - 1


# ---------------------------------------------------------------------------
# A tiny layout model (only what the generator needs to build operands)
# ---------------------------------------------------------------------------

class LL(object):
    """ins: list of [name, [basis, ...]]; outs: list of [name, size]."""

    def __init__(self, ins, outs):
        self.ins = [[n, [list(b) for b in bs]] for n, bs in ins]
        self.outs = [[n, s] for n, s in outs]

    def copy(self):
        return LL(self.ins, self.outs)

    def json(self):
        return {"in_dims": dict((n, [list(b) for b in bs]) for n, bs in self.ins),
                "out_dims": dict((n, s) for n, s in self.outs)}

    def in_names(self):
        return [n for n, _ in self.ins]

    def out_names(self):
        return [n for n, _ in self.outs]

    def in_bits(self, name):
        for n, bs in self.ins:
            if n == name:
                return len(bs)
        raise KeyError(name)

    def out_size(self, name):
        for n, s in self.outs:
            if n == name:
                return s
        raise KeyError(name)

    def total_in(self):
        return sum(len(bs) for _, bs in self.ins)

    def total_out(self):
        return sum(log2(s) for _, s in self.outs)

    def flat(self, b):
        v, sh = 0, 0
        for c, (_, s) in zip(b, self.outs):
            v |= c << sh
            sh += log2(s)
        return v

    def unflat(self, v):
        b = []
        for _, s in self.outs:
            b.append(v & (s - 1))
            v >>= log2(s)
        return b

    def columns(self):
        return [self.flat(b) for _, bs in self.ins for b in bs]

    def rank(self):
        return gf2_rank(self.columns())

    def is_surjective(self):
        return self.rank() == self.total_out()

    def apply(self, values):
        """values: dict in-name -> int (all in-dims present)."""
        res = [0] * len(self.outs)
        for n, bs in self.ins:
            v = values.get(n, 0)
            for i, b in enumerate(bs):
                if (v >> i) & 1:
                    res = [x ^ y for x, y in zip(res, b)]
        return res

    def compose(self, outer):
        """outer o self (self.outs must be outer's in-dims, any order)."""
        ins = []
        for n, bs in self.ins:
            nb = []
            for b in bs:
                nb.append(outer.apply(dict(zip(self.out_names(), b))))
            ins.append([n, nb])
        return LL(ins, outer.outs)

    def transpose_outs(self, order):
        idx = [self.out_names().index(n) for n in order]
        ins = [[n, [[b[i] for i in idx] for b in bs]] for n, bs in self.ins]
        return LL(ins, [[n, self.out_size(n)] for n in order])

    def transpose_ins(self, order):
        d = dict((n, bs) for n, bs in self.ins)
        return LL([[n, d[n]] for n in order], self.outs)

    def rename_ins(self, mapping):
        return LL([[mapping.get(n, n), bs] for n, bs in self.ins], self.outs)

    def rename_outs(self, mapping):
        return LL(self.ins, [[mapping.get(n, n), s] for n, s in self.outs])


def fits(L):
    """Every dim at most 2^30 (int32 sizes), at most 64 bits per side."""
    return (all(len(bs) <= 30 for _, bs in L.ins) and all(s <= 1 << 30 for _, s in L.outs)
            and L.total_in() <= 64 and L.total_out() <= 64)


def gf2_rank(vectors):
    basis = {}
    r = 0
    for v in vectors:
        while v:
            h = v.bit_length() - 1
            if h in basis:
                v ^= basis[h]
            else:
                basis[h] = v
                r += 1
                break
    return r


def inverse(L):
    """Inverse of an invertible LL (square, full rank): in-dims = L's out-dims,
    out-dims = L's in-dims (sizes 2^bits)."""
    cols = L.columns()
    n = len(cols)
    # reduce with combination tracking
    basis = {}
    for idx, v in enumerate(cols):
        w, combo = v, 1 << idx
        while w:
            h = w.bit_length() - 1
            if h in basis:
                w ^= basis[h][0]
                combo ^= basis[h][1]
            else:
                break
        if not w:
            raise ValueError("not invertible")
        basis[w.bit_length() - 1] = (w, combo)

    def solve(t):
        w, combo = t, 0
        while w:
            h = w.bit_length() - 1
            w ^= basis[h][0]
            combo ^= basis[h][1]
        return combo

    out_layout = LL([], [[nm, 1 << len(bs)] for nm, bs in L.ins])
    ins, sh = [], 0
    for nm, s in L.outs:
        k = log2(s)
        ins.append([nm, [out_layout.unflat(solve(1 << (sh + i))) for i in range(k)]])
        sh += k
    assert sh == n
    return LL(ins, out_layout.outs)


# ---------------------------------------------------------------------------
# The generator
# ---------------------------------------------------------------------------

class Gen(object):
    def __init__(self, seed):
        self.r = random.Random(seed)

    # -- small random helpers ------------------------------------------------
    def chance(self, p):
        return self.r.random() < p

    def pick(self, seq):
        return seq[self.r.randrange(len(seq))]

    def shuffled(self, seq):
        s = list(seq)
        self.r.shuffle(s)
        return s

    def split_bits(self, total, parts):
        """Random composition of `total` into `parts` non-negative ints."""
        cuts = sorted(self.r.randint(0, total) for _ in range(parts - 1))
        res, prev = [], 0
        for c in cuts + [total]:
            res.append(c - prev)
            prev = c
        return res

    def names(self, k, pool=NAME_POOL, avoid=()):
        cand = [n for n in pool if n not in avoid]
        self.r.shuffle(cand)
        return cand[:k]

    def shape(self, total_bits, rank=None):
        if rank is None:
            rank = self.pick((1, 2, 2, 2, 3))
        if total_bits > 30 * rank:
            total_bits = 30 * rank
        while True:
            bits = self.split_bits(total_bits, rank)
            if max(bits) <= 30:
                return [1 << b for b in bits]

    def std_outs(self, shape, reverse=None):
        outs = [["dim%d" % i, s] for i, s in enumerate(shape)]
        if reverse is None:
            reverse = self.chance(0.15)
        return outs[::-1] if reverse else outs

    def size_bits(self, lo=0, hi=20):
        """Total bits, mostly small/medium."""
        x = self.r.random()
        if x < 0.15:
            return self.r.randint(lo, min(hi, lo + 3))
        return self.r.randint(lo, hi)

    # -- GPU-like layouts ------------------------------------------------------
    def gpu_blocked(self, shape):
        """Blocked-encoding-like layout (register/lane/warp/block)."""
        r = len(shape)
        bits = [log2(s) for s in shape]
        order = list(range(r))[::-1] if self.chance(0.7) else self.shuffled(range(r))
        lane_bits = self.pick((5, 5, 6, 6, 4, 3, 2, 0))
        warp_bits = self.pick((0, 1, 2, 2, 3))
        block_bits = self.pick((0, 0, 0, 0, 1, 2))
        spt = [0] * r
        for d in order:
            spt[d] = self.r.randint(0, min(3, bits[d]))
        def spread(total):
            res = [0] * r
            left = total
            for i, d in enumerate(order):
                room = max(0, bits[d] - spt[d] - res[d])
                take = left if i == r - 1 else min(left, self.r.randint(0, max(room, 0) + (1 if self.chance(0.2) else 0)))
                res[d] += take
                left -= take
            return res
        tpw = spread(lane_bits)
        wpc = spread(warp_bits)
        cpg = spread(block_bits)
        cursor = [0] * r
        lists = dict((n, []) for n in DIST_INS)
        def take(d, count, lst):
            for _ in range(count):
                b = [0] * r
                if cursor[d] < bits[d]:
                    b[d] = 1 << cursor[d]
                cursor[d] += 1
                lst.append(b)
        for name, per in (("register", spt), ("lane", tpw), ("warp", wpc), ("block", cpg)):
            for d in order:
                take(d, per[d], lists[name])
        for d in order:  # repetitions
            while cursor[d] < bits[d]:
                take(d, 1, lists["register"])
        if self.chance(0.3):  # Triton drops broadcast registers in some paths
            lists["register"] = [b for b in lists["register"] if any(b)]
        outs = [["dim%d" % i, s] for i, s in enumerate(shape)]
        L = LL([[n, lists[n]] for n in DIST_INS], outs)
        if self.chance(0.1):
            L = L.transpose_outs(L.out_names()[::-1])
        return L

    def gpu_interleaved(self, shape, broadcast=0.15, mix=0.2):
        """MMA-like layout: out bits of the dims merged in a random interleaving,
        assigned to register/lane/warp/block with a noisy ordering, plus
        broadcast zero bases and XOR mixing."""
        r = len(shape)
        bits = [log2(s) for s in shape]
        seqs = [[(d, i) for i in range(bits[d])] for d in range(r)]
        merged = []
        while any(seqs):
            d = self.pick([k for k in range(r) if seqs[k]])
            run = self.r.randint(1, 3)
            for _ in range(run):
                if seqs[d]:
                    merged.append(seqs[d].pop(0))
        n = len(merged)
        lane_bits = min(n, self.pick((5, 6, 5, 4, 6, 3)))
        warp_bits = min(n - lane_bits, self.pick((0, 1, 2, 2, 3)))
        block_bits = min(n - lane_bits - warp_bits, self.pick((0, 0, 0, 1)))
        labels = (["lane"] * lane_bits + ["warp"] * warp_bits + ["block"] * block_bits +
                  ["register"] * (n - lane_bits - warp_bits - block_bits))
        keyed = []
        for i, lab in enumerate(labels):
            base = {"register": 0.0, "lane": 1.0, "warp": 3.0, "block": 5.0}[lab]
            spread = {"register": 5.0, "lane": 2.5, "warp": 2.0, "block": 1.0}[lab]
            keyed.append((base + self.r.random() * spread, i, lab))
        keyed.sort()
        lists = dict((k, []) for k in DIST_INS)
        for (_, _, lab), (d, i) in zip(keyed, merged):
            b = [0] * r
            b[d] = 1 << i
            lists[lab].append(b)
        # broadcast zero bases (lanes / warps duplicated, registers repeated);
        # broadcast=0 gives an invertible layout (no zero bases at all)
        if broadcast > 0:
            for name, want in (("lane", self.pick((5, 6))), ("warp", self.pick((0, 1, 2, 3)))):
                while len(lists[name]) < want and self.chance(0.7):
                    lists[name].insert(self.r.randint(0, len(lists[name])), [0] * r)
        for name in DIST_INS:
            if self.chance(broadcast):
                lists[name].insert(self.r.randint(0, len(lists[name])), [0] * r)
        L = LL([[k, lists[k]] for k in DIST_INS], [["dim%d" % i, s] for i, s in enumerate(shape)])
        if self.chance(mix):
            self.xor_mix(L, self.r.randint(1, 3), triangular=True)
        if self.chance(0.1):
            L = L.transpose_outs(L.out_names()[::-1])
        return L

    def gpu_shared(self, shape, swizzle=0.7, block_bits=None):
        """Shared-memory-like layout (offset/block): identity over the dims in
        some order, XOR swizzle, optional block bits (invertible)."""
        r = len(shape)
        bits = [log2(s) for s in shape]
        order = list(range(r))[::-1] if self.chance(0.7) else self.shuffled(range(r))
        offset = []
        for d in order:
            for i in range(bits[d]):
                b = [0] * r
                b[d] = 1 << i
                offset.append(b)
        if r >= 2 and self.chance(swizzle):
            inner, outer = order[0], order[1]
            isz = shape[inner]
            if isz > 1:
                vec = 1 << self.r.randint(0, max(0, log2(isz) - 1))
                max_phase = 1 << self.r.randint(0, max(0, log2(isz // vec)))
                per_phase = 1 << self.r.randint(0, 2)
                for b in offset:
                    if b[outer] and not any(b[k] for k in range(r) if k != outer):
                        row = b[outer]
                        phase = (row // per_phase) % max_phase
                        b[inner] ^= (phase * vec) & (isz - 1)
        elif self.chance(0.2):
            # generic triangular XOR mixing (keeps it invertible)
            for i in range(1, len(offset)):
                if self.chance(0.3):
                    j = self.r.randrange(i)
                    offset[i] = [x ^ y for x, y in zip(offset[i], offset[j])]
        if block_bits is None:
            block_bits = self.pick((0, 0, 0, 0, 1, 2))
        block_bits = min(block_bits, len(offset))
        block = offset[len(offset) - block_bits:] if block_bits else []
        offset = offset[:len(offset) - block_bits]
        outs = [["dim%d" % i, s] for i, s in enumerate(shape)]
        L = LL([["offset", offset], ["block", block]], outs)
        if self.chance(0.1):
            L = L.transpose_outs(L.out_names()[::-1])
        return L

    def gpu_any(self, total_bits=None, rank=None, kinds=("blocked", "interleaved", "shared")):
        if total_bits is None:
            total_bits = self.size_bits(0, 16)
        shape = self.shape(total_bits, rank)
        kind = self.pick(kinds)
        if kind == "blocked":
            return self.gpu_blocked(shape), kind
        if kind == "interleaved":
            return self.gpu_interleaved(shape), kind
        return self.gpu_shared(shape), kind

    # -- generic layouts -------------------------------------------------------
    def xor_mix(self, L, steps, triangular=False):
        """In place: basis_i ^= basis_j (keeps rank)."""
        flat = [(k, i) for k in range(len(L.ins)) for i in range(len(L.ins[k][1]))]
        if len(flat) < 2:
            return
        for _ in range(steps):
            a, b = self.r.sample(range(len(flat)), 2)
            if triangular and a < b:
                a, b = b, a
            ka, ia = flat[a]
            kb, ib = flat[b]
            L.ins[ka][1][ia] = [x ^ y for x, y in zip(L.ins[ka][1][ia], L.ins[kb][1][ib])]

    def out_dims(self, total_bits, k=None, names=None, max_dim_bits=30):
        if k is None:
            k = self.pick((1, 1, 2, 2, 3))
        if names is None:
            names = self.names(k)
        k = len(names)
        if k == 0:
            return []
        total_bits = min(total_bits, max_dim_bits * k)
        while True:
            parts = self.split_bits(total_bits, k)
            if max(parts) <= max_dim_bits:
                return [[n, 1 << b] for n, b in zip(names, parts)]

    def in_dim_sizes(self, total_bits, names, max_dim_bits=30):
        k = len(names)
        if k == 0:
            return []
        total_bits = min(total_bits, max_dim_bits * k)
        while True:
            parts = self.split_bits(total_bits, k)
            if max(parts) <= max_dim_bits:
                return list(zip(names, parts))

    def named_dims(self, n_in=None, n_out=None, share=0.25):
        """(in names, out names) with arbitrary names; an in-dim may share its
        name with an out-dim."""
        if n_out is None:
            n_out = self.pick((1, 1, 2, 2, 3))
        if n_in is None:
            n_in = self.pick((1, 1, 2, 2, 3))
        outs = self.names(n_out)
        if self.chance(0.02):
            outs[-1:] = [self.pick(WEIRD_NAMES)] if outs else []
        ins = self.names(n_in, avoid=outs)
        if outs and ins and self.chance(share):
            ins[self.r.randrange(len(ins))] = self.pick(outs)
        # dedupe (keep order)
        seen, uniq = [], []
        for n in ins:
            if n not in seen:
                seen.append(n)
                uniq.append(n)
        return uniq, outs

    def random_bits(self, in_names, outs, in_bits, zero_p=0.1):
        """Uniformly random components (optionally some zero bases)."""
        sizes = self.in_dim_sizes(in_bits, in_names)
        ins = []
        for n, k in sizes:
            bs = []
            for _ in range(k):
                if self.chance(zero_p):
                    bs.append([0] * len(outs))
                else:
                    bs.append([self.r.randrange(s) for _, s in outs])
            ins.append([n, bs])
        return LL(ins, outs)

    def random_invertible(self, in_names, outs, mix=None):
        """Square full-rank layout: a permutation of the out bits over the
        in-dims, then XOR mixing."""
        total = sum(log2(s) for _, s in outs)
        sizes = self.in_dim_sizes(total, in_names) if in_names else []
        if not in_names and total:
            raise ValueError("no in-dims for a non-trivial invertible layout")
        unit = []
        for oi, (_, s) in enumerate(outs):
            for i in range(log2(s)):
                b = [0] * len(outs)
                b[oi] = 1 << i
                unit.append(b)
        if self.chance(0.4):
            self.r.shuffle(unit)
        elif self.chance(0.5):
            # locally perturbed order
            for _ in range(self.r.randint(0, 3)):
                if len(unit) >= 2:
                    i = self.r.randrange(len(unit) - 1)
                    unit[i], unit[i + 1] = unit[i + 1], unit[i]
        ins, k = [], 0
        for n, c in sizes:
            ins.append([n, unit[k:k + c]])
            k += c
        L = LL(ins, outs)
        if mix is None:
            mix = self.pick((0, 0, 1, 2, 4, 8))
        self.xor_mix(L, mix)
        return L

    def random_surjective(self, in_names, outs, extra=None):
        """Full-rank-on-outputs layout with extra (zero / dependent) bases."""
        L = self.random_invertible(in_names, outs)
        if extra is None:
            extra = self.pick((1, 1, 2, 3, 4))
        if not L.ins:
            return L
        for _ in range(extra):
            k = self.r.randrange(len(L.ins))
            cols = [b for _, bs in L.ins for b in bs]
            if cols and self.chance(0.6):
                b = [0] * len(outs)
                for c in cols:
                    if self.chance(0.3):
                        b = [x ^ y for x, y in zip(b, c)]
                if self.chance(0.5):
                    b = [0] * len(outs)
            else:
                b = [0] * len(outs)
            L.ins[k][1].insert(self.r.randint(0, len(L.ins[k][1])), b)
        return L

    def random_injective(self, in_names, outs, missing=None):
        """Layout with fewer in bits than out bits, rank = in bits."""
        total = sum(log2(s) for _, s in outs)
        if missing is None:
            missing = self.r.randint(1, max(1, min(4, total)))
        L = self.random_invertible(in_names, outs)
        flat = [(k, i) for k in range(len(L.ins)) for i in range(len(L.ins[k][1]))]
        drop = self.r.sample(flat, min(missing, len(flat)))
        for k, i in sorted(drop, reverse=True):
            del L.ins[k][1][i]
        return L

    def small_named(self, max_bits=10, kind=None):
        """Small layout with arbitrary names; kind in invertible, surjective,
        injective, random."""
        ins, outs_names = self.named_dims()
        out_bits = self.r.randint(0, max_bits)
        outs = self.out_dims(out_bits, names=outs_names)
        if kind is None:
            kind = self.pick(("invertible", "surjective", "injective", "random", "random"))
        if not ins:
            ins = ["x"]
        if kind == "invertible":
            return self.random_invertible(ins, outs)
        if kind == "surjective":
            return self.random_surjective(ins, outs)
        if kind == "injective" and out_bits > 0:
            return self.random_injective(ins, outs)
        return self.random_bits(ins, outs, self.r.randint(0, max_bits), self.pick((0, 0.1, 0.4)))

    def any_layout(self, max_bits=16):
        x = self.r.random()
        if x < 0.45:
            return self.gpu_any(self.size_bits(0, max_bits))[0]
        if x < 0.85:
            return self.small_named(min(max_bits, 12))
        ins, outs_names = self.named_dims()
        outs = self.out_dims(self.r.randint(0, max_bits), names=outs_names)
        return self.random_bits(ins, outs, self.r.randint(0, max_bits), self.pick((0, 0.2)))

    def special_layout(self):
        """Edge cases: empty, no in-dims, size-1 in-dims, size-1 out-dims."""
        c = self.r.randrange(6)
        if c == 0:
            return LL([], []), "empty"
        if c == 1:
            return LL([], [[self.pick(("y", "dim0")), 1 << self.r.randint(0, 3)]]), "no_in_dims"
        if c == 2:
            return LL([[self.pick(("x", "register")), []]], []), "no_out_dims"
        if c == 3:
            return LL([["x", []], ["y", []]], [["z", 1]]), "all_size1"
        if c == 4:
            n = self.r.randint(1, 4)
            return LL([["x", [[0]] * n]], [["y", 1]]), "zeros_to_size1"
        return LL([["register", []], ["lane", [[1], [2]]], ["warp", []]], [["dim0", 4]]), "size1_dims"

    # -- invalid layouts --------------------------------------------------------
    def break_layout(self, L):
        """JSON of L made invalid in one way Triton rejects; (json, kind)."""
        j = L.json()
        bases = [(n, i) for n, bs in L.ins for i in range(len(bs))]
        c = self.pick(("neg", "neg", "len", "len", "npot", "npot", "big", "big",
                       "type", "type", "int32", "struct"))
        if c in ("neg", "big", "len") and (not bases or not L.outs):
            c = "npot" if L.outs else "len"
        if c == "neg":
            n, i = self.pick(bases)
            k = self.r.randrange(len(L.outs))
            j["in_dims"][n][i][k] = -self.pick((1, 1, 2, 4, 8, 1 << 20))
        elif c == "len":
            if bases:
                n, i = self.pick(bases)
                b = j["in_dims"][n][i]
                if b and self.chance(0.5):
                    b.pop()
                else:
                    b.append(self.pick((0, 1)))
            else:
                name = self.pick(("x", "register"))
                if name in j["in_dims"]:
                    name = name + "2"
                j["in_dims"][name] = [[0] * (len(L.outs) + 1)]
        elif c == "npot":
            if not L.outs:
                j["out_dims"]["extra"] = self.pick((3, 0))
                for n in j["in_dims"]:
                    j["in_dims"][n] = [b + [0] for b in j["in_dims"][n]]
            else:
                n = self.pick(L.out_names())
                j["out_dims"][n] = self.pick((3, 5, 6, 12, 24, 0, -2, -4, 1000))
        elif c == "big":
            n, i = self.pick(bases)
            k = self.r.randrange(len(L.outs))
            size = L.outs[k][1]
            j["in_dims"][n][i][k] = self.pick((size, size, 2 * size, size + 1, size * 3))
        elif c == "type":
            t = self.pick(("float", "bool", "str", "null", "size_float", "size_str",
                           "size_bool", "basis_int", "bases_obj"))
            if t.startswith("size") or not bases:
                if not L.outs:
                    j["out_dims"]["y"] = self.pick((4.0, "4", True))
                else:
                    n = self.pick(L.out_names())
                    s = L.out_size(n)
                    j["out_dims"][n] = {"size_float": float(s), "size_str": str(s),
                                        "size_bool": True}.get(t, float(s))
            else:
                n, i = self.pick(bases)
                b = j["in_dims"][n][i]
                if t == "basis_int":
                    j["in_dims"][n][i] = b[0] if b else 0
                elif t == "bases_obj":
                    j["in_dims"][n] = {"0": j["in_dims"][n]}
                elif b:
                    k = self.r.randrange(len(b))
                    b[k] = {"float": float(b[k]), "bool": bool(b[k] & 1), "str": str(b[k]),
                            "null": None}[t]
                else:
                    j["in_dims"][n][i] = [None]
        elif c == "int32":
            if bases and self.chance(0.5) and L.outs:
                n, i = self.pick(bases)
                k = self.r.randrange(len(L.outs))
                j["in_dims"][n][i][k] = self.pick((1 << 31, 1 << 40, -(1 << 33)))
            elif L.outs:
                n = self.pick(L.out_names())
                j["out_dims"][n] = self.pick((1 << 31, 1 << 32, 1 << 40))
            else:
                j["out_dims"]["y"] = 1 << 31
        else:  # struct
            t = self.pick(("ins_list", "outs_list", "no_outs", "no_ins", "not_obj"))
            if t == "ins_list":
                j["in_dims"] = [[n, bs] for n, bs in j["in_dims"].items()]
            elif t == "outs_list":
                j["out_dims"] = list(j["out_dims"].values())
            elif t == "no_outs":
                del j["out_dims"]
            elif t == "no_ins":
                del j["in_dims"]
            else:
                j = self.pick(([j["in_dims"], j["out_dims"]], "layout", None, 42))
            c = "struct:" + t
        return j, c

    # -- per-op requests -----------------------------------------------------------
    def req_compose(self):
        x = self.r.random()
        if x < 0.22:
            return self.bad_operand("compose", self.compose_pair)
        if x < 0.32:
            return self.compose_reject()
        layout, outer, tag = self.compose_pair()
        return {"op": "compose", "layout": layout.json(), "outer": outer.json()}, "compose/" + tag

    def compose_pair(self):
        """(layout, outer) Triton accepts."""
        c = self.r.random()
        if c < 0.3:
            # distributed o shared^-1: register/lane/warp/block -> offset/block
            shape = self.shape(self.size_bits(0, 16))
            shared = self.gpu_shared(shape)
            outer = inverse(shared)
            outer = outer.transpose_ins(self.shuffled(outer.in_names())) if self.chance(0.2) else outer
            layout = self.pick((self.gpu_blocked, self.gpu_interleaved))(shape)
            return layout, outer, "gpu_shared_inv"
        if c < 0.45:
            # shared o distributed^-1 where the distributed one is invertible
            shape = self.shape(self.size_bits(0, 14))
            dist = self.gpu_interleaved(shape, broadcast=0.0)
            for n, bs in dist.ins:
                bs[:] = [b for b in bs if any(b)]
            outer = inverse(dist)
            layout = self.gpu_shared(shape)
            return layout, outer, "gpu_dist_inv"
        if c < 0.75:
            # random layout, outer with in-dims = layout's out-dims (sizes >= )
            layout = self.any_layout(14)
            in_names = layout.out_names()
            if self.chance(0.5):
                in_names = self.shuffled(in_names)
            outer_ins = []
            for n in in_names:
                k = log2(layout.out_size(n))
                if self.chance(0.2):
                    k += self.r.randint(1, 3)
                outer_ins.append([n, k])
            outs_names = self.names(self.pick((0, 1, 1, 2, 2, 3)))
            outs = self.out_dims(self.r.randint(0, 16), names=outs_names)
            kind = self.pick(("bits", "inv", "surj"))
            total_in = sum(k for _, k in outer_ins)
            total_out = sum(log2(s) for _, s in outs)
            if kind == "inv" and outs:
                outs = self.out_dims(total_in, names=outs_names)
                total_out = total_in
            bases = []
            for n, k in outer_ins:
                bases.append([n, [[self.r.randrange(s) for _, s in outs] for _ in range(k)]])
            outer = LL(bases, outs)
            if kind == "inv" and outs and total_in == total_out and total_in:
                inv = self.random_invertible([n for n, _ in outer_ins], outs)
                # keep the per-dim sizes of outer_ins
                flat = [b for _, bs in inv.ins for b in bs]
                k0 = 0
                for e in outer.ins:
                    e[1] = flat[k0:k0 + len(e[1])]
                    k0 += len(e[1])
            return layout, outer, "random_" + kind
        if c < 0.9:
            # small named, including in/out name sharing and chains
            ins, mid = self.named_dims()
            mid_l = self.out_dims(self.r.randint(0, 10), names=mid)
            layout = self.random_bits(ins, mid_l, self.r.randint(0, 10), 0.1)
            o_ins = [[n, log2(s) + (self.r.randint(0, 2) if self.chance(0.2) else 0)] for n, s in mid_l]
            if self.chance(0.5):
                self.r.shuffle(o_ins)
            o_outs_names = self.names(self.pick((1, 2, 3)))
            if self.chance(0.3) and mid:
                o_outs_names[0] = self.pick(mid)  # outer out-dim named like its in-dim
                o_outs_names = list(dict.fromkeys(o_outs_names))
            o_outs = self.out_dims(self.r.randint(0, 12), names=o_outs_names)
            outer = LL([[n, [[self.r.randrange(s) for _, s in o_outs] for _ in range(k)]]
                        for n, k in o_ins], o_outs)
            return layout, outer, "named"
        # special: empty layouts / no in-dims
        s = self.r.randrange(4)
        if s == 0:
            return LL([], []), LL([], []), "empty_empty"
        if s == 1:
            return (LL([], [["y", 4]]), LL([["y", [[1], [2]]]], [["z", 4]]), "no_in_dims")
        if s == 2:
            return (LL([["x", [[0], [0]]]], [["y", 1]]), LL([["y", []]], [["z", 8]]), "size1_mid")
        return (LL([["x", []]], []), LL([], [["z", 2]]), "no_out_dims")

    def compose_reject(self):
        layout, outer, tag = self.compose_pair()
        c = self.pick(("extra_in", "missing_in", "renamed", "too_small", "too_small"))
        lj, oj = layout.json(), outer.json()
        if c == "extra_in":
            name = self.pick(("extra", "w", "dimX"))
            while name in oj["in_dims"]:
                name += "_"
            oj["in_dims"][name] = [[0] * len(outer.outs)]
        elif c == "missing_in" and outer.ins:
            del oj["in_dims"][self.pick(outer.in_names())]
        elif c == "renamed" and outer.ins:
            old = self.pick(outer.in_names())
            new = old + "_r"
            oj["in_dims"] = dict(((new if n == old else n), v) for n, v in oj["in_dims"].items())
        else:
            # layout out size larger than outer's in size
            cands = [n for n in layout.out_names()]
            if not cands:
                lj["out_dims"]["y"] = 2
                c = "missing_in"
            else:
                n = self.pick(cands)
                k = outer.in_bits(n)
                if k >= 30:
                    oj["in_dims"][n] = oj["in_dims"][n][:-1]
                else:
                    lj["out_dims"][n] = 1 << (k + self.r.randint(1, 2))
                c = "too_small"
        return {"op": "compose", "layout": lj, "outer": oj}, "compose/reject:%s/%s" % (c, tag)

    def bad_operand(self, op, pair_fn):
        a, b, tag = pair_fn()
        key = {"compose": "outer", "invert_and_compose": "outer", "product": "other"}[op]
        aj, bj = a.json(), b.json()
        if self.chance(0.5):
            aj, kind = self.break_layout(a)
            which = "layout"
        else:
            bj, kind = self.break_layout(b)
            which = key
        return {"op": op, "layout": aj, key: bj}, "%s/bad_%s:%s/%s" % (op, which, kind, tag)

    def req_invert_and_compose(self):
        x = self.r.random()
        if x < 0.14:
            return self.bad_operand("invert_and_compose", self.iac_pair)
        if x < 0.3:
            return self.iac_reject()
        b, a, tag = self.iac_pair()
        return ({"op": "invert_and_compose", "layout": b.json(), "outer": a.json()},
                "invert_and_compose/" + tag)

    def iac_pair(self):
        """(layout B, outer A) with Im(B) inside Im(A) and sizes compatible."""
        c = self.r.random()
        if c < 0.3:
            # distributed -> shared conversion
            shape = self.shape(self.size_bits(0, 16))
            a = self.gpu_shared(shape)
            b = self.pick((self.gpu_blocked, self.gpu_interleaved))(shape)
            if self.chance(0.3):  # same block bits -> identity dim
                bb = self.r.randint(0, 2)
                a = self.gpu_shared(shape, block_bits=bb)
                # A's block bases, written in B's out-dim order
                idx = [a.out_names().index(n) for n in b.out_names()]
                blk = [[v[i] for i in idx] for v in a.ins[1][1]]
                b.ins = [[n, bs] for n, bs in b.ins if n != "block"]
                b.ins.append(["block", [list(v) for v in blk]])
                # drop the block's out bits from B's other bases
                used = [b.flat(v) for v in blk]
                keep = []
                for n, bs in b.ins[:-1]:
                    nb = []
                    for v in bs:
                        f = b.flat(v)
                        nb.append(v if all(f != u for u in used) else [0] * len(v))
                    keep.append([n, nb])
                b.ins = keep + [b.ins[-1]]
                tag = "gpu_to_shared_sameblock"
            else:
                tag = "gpu_to_shared"
            if self.chance(0.2):
                b = b.transpose_outs(self.shuffled(b.out_names()))
            return b, a, tag
        if c < 0.45:
            # distributed -> distributed (A surjective; maybe broadcast)
            shape = self.shape(self.size_bits(0, 16))
            a = self.pick((self.gpu_blocked, self.gpu_interleaved))(shape)
            b = self.pick((self.gpu_blocked, self.gpu_interleaved))(shape)
            if not a.is_surjective():
                a = self.gpu_interleaved(shape)
            return b, a, "gpu_to_gpu"
        if c < 0.75:
            # B = A o C (image contained by construction), any A
            a = self.any_layout(14)
            if a.total_in() > 30 or a.total_out() > 30:
                a = self.small_named(10)
            b_ins, _ = self.named_dims(n_out=0)
            if self.chance(0.25):
                # share in-dim names with A (possible identity dims)
                b_ins = list(dict.fromkeys(a.in_names()[:self.r.randint(1, 3)] + b_ins))[:3]
            cmid = LL([], [[n, 1 << len(bs)] for n, bs in a.ins])
            cbits = self.r.randint(0, 14)
            C = self.random_bits(b_ins or ["x"], cmid.outs, cbits, 0.1)
            if self.chance(0.3) and a.ins:
                # copy an A in-dim verbatim into C so that B has it identically
                n = self.pick(a.in_names())
                if n in C.in_names():
                    idx = cmid.out_names().index(n)
                    bs = []
                    for i in range(a.in_bits(n)):
                        v = [0] * len(cmid.outs)
                        v[idx] = 1 << i
                        bs.append(v)
                    C.ins[C.in_names().index(n)][1] = bs
            b = C.compose(a)
            if self.chance(0.3) and b.outs:
                b = b.transpose_outs(self.shuffled(b.out_names()))
            return b, a, "composed"
        if c < 0.9:
            # A surjective, B anything on the same (or smaller) out-dims
            ins_a, outs_names = self.named_dims()
            outs = self.out_dims(self.r.randint(0, 12), names=outs_names)
            a = self.pick((self.random_surjective, self.random_invertible))(ins_a or ["x"], outs)
            b_outs = [[n, s >> (self.r.randint(0, min(2, log2(s))) if self.chance(0.3) else 0)]
                      for n, s in outs]
            if self.chance(0.4):
                self.r.shuffle(b_outs)
            ins_b, _ = self.named_dims(n_out=0)
            b = self.random_bits(ins_b or ["y"], b_outs, self.r.randint(0, 12), 0.1)
            return b, a, "surjective_outer"
        s = self.r.randrange(5)
        if s == 0:
            return LL([], []), LL([], []), "empty_empty"
        if s == 1:
            return LL([], [["y", 4]]), LL([["x", []]], [["y", 4]]), "q7_no_in_dims_b"
        if s == 2:
            return LL([["x", [[0]]]], [["y", 2]]), LL([["z", []]], [["y", 2]]), "zero_image"
        if s == 3:
            # identity dims only on both sides
            blk = [[4], [8]]
            return (LL([["block", blk]], [["dim0", 16]]),
                    LL([["block", blk]], [["dim0", 16]]), "all_identity_dims")
        return (LL([["register", [[1], [2]]], ["block", []]], [["dim0", 4]]),
                LL([["offset", [[2], [1]]], ["block", []]], [["dim0", 4]]), "tiny_block")

    def iac_reject(self):
        c = self.pick(("not_contained", "not_contained", "not_contained", "outs_mismatch",
                       "a_smaller", "a_smaller", "q7"))
        if c == "not_contained":
            ins_a, outs_names = self.named_dims()
            outs = self.out_dims(self.r.randint(1, 12), names=outs_names)
            if self.chance(0.5):
                a = self.random_injective(ins_a or ["x"], outs)
            else:
                shape = [s for _, s in outs]
                a = self.gpu_interleaved(shape).rename_outs(
                    dict(("dim%d" % i, n) for i, (n, _) in enumerate(outs)))
                # knock out a bit of the image
                flat = [(k, i) for k in range(len(a.ins)) for i in range(len(a.ins[k][1]))
                        if any(a.ins[k][1][i])]
                if flat:
                    k, i = self.pick(flat)
                    a.ins[k][1][i] = [0] * len(outs)
            ins_b, _ = self.named_dims(n_out=0)
            b = self.random_surjective(ins_b or ["y"], outs, extra=self.r.randint(0, 2))
            if self.chance(0.3):
                b = b.transpose_outs(self.shuffled(b.out_names()))
            return ({"op": "invert_and_compose", "layout": b.json(), "outer": a.json()},
                    "invert_and_compose/reject:not_contained")
        if c == "outs_mismatch":
            b, a, tag = self.iac_pair()
            aj = a.json()
            if a.outs and self.chance(0.5):
                old = self.pick(a.out_names())
                aj["out_dims"] = dict(((old + "_r" if n == old else n), s)
                                      for n, s in aj["out_dims"].items())
            else:
                name = "extra"
                while name in aj["out_dims"]:
                    name += "_"
                aj["out_dims"][name] = 2
                for n in aj["in_dims"]:
                    aj["in_dims"][n] = [v + [0] for v in aj["in_dims"][n]]
            return ({"op": "invert_and_compose", "layout": b.json(), "outer": aj},
                    "invert_and_compose/reject:outs_mismatch/" + tag)
        if c == "a_smaller":
            # B's out size larger than A's (even if A could cover the image)
            ins_a, outs_names = self.named_dims()
            outs = self.out_dims(self.r.randint(1, 12), names=outs_names)
            outs = [[n, s] for n, s in outs]
            if all(s == 1 for _, s in outs):
                outs[0][1] = 2
            a = self.random_surjective(ins_a or ["x"], outs)
            b_outs = [[n, s] for n, s in outs]
            grow = self.pick([i for i in range(len(b_outs))])
            b_outs[grow][1] *= 1 << self.r.randint(1, 2)
            ins_b, _ = self.named_dims(n_out=0)
            b = self.random_bits(ins_b or ["y"], b_outs, self.r.randint(0, 10), 0.1)
            if self.chance(0.3):
                # B's image still inside A's sizes: only the declared size differs
                for n, bs in b.ins:
                    for v in bs:
                        v[grow] &= outs[grow][1] - 1
            return ({"op": "invert_and_compose", "layout": b.json(), "outer": a.json()},
                    "invert_and_compose/reject:a_smaller")
        # Q7: identity-dim bookkeeping leaves one side without in-dims
        s = self.r.randrange(3)
        if s == 0:
            b = LL([["block", [[4]]]], [["dim0", 8]])
            a = LL([["offset", [[1], [2]]], ["block", [[4]]]], [["dim0", 8]])
        elif s == 1:
            b = LL([["register", [[1], [2]]], ["block", [[4]]]], [["dim0", 8]])
            a = LL([["block", [[4]]]], [["dim0", 8]])
        else:
            n = self.r.randint(1, 3)
            b = LL([["d", [[1 << i] for i in range(n)]]], [["d", 1 << n]])
            a = LL([["d", [[1 << i] for i in range(n)]], ["e", [[1]]]], [["d", 1 << n]])
        return ({"op": "invert_and_compose", "layout": b.json(), "outer": a.json()},
                "invert_and_compose/reject:q7_%d" % s)

    def req_invert(self):
        x = self.r.random()
        if x < 0.12:
            L = self.any_layout(12)
            j, kind = self.break_layout(L)
            return {"op": "invert", "layout": j}, "invert/bad:" + kind
        if x < 0.3:
            c = self.pick(("broadcast", "singular", "non_square", "injective"))
            if c == "broadcast":
                L = self.gpu_interleaved(self.shape(self.size_bits(1, 14)), broadcast=1.0)
            elif c == "singular":
                ins, outs_names = self.named_dims()
                outs = self.out_dims(self.r.randint(2, 12), names=outs_names)
                L = self.random_invertible(ins or ["x"], outs)
                flat = [(k, i) for k in range(len(L.ins)) for i in range(len(L.ins[k][1]))]
                if len(flat) >= 2:
                    (k1, i1), (k2, i2) = self.r.sample(flat, 2)
                    L.ins[k1][1][i1] = list(L.ins[k2][1][i2]) if self.chance(0.5) else [0] * len(outs)
            elif c == "non_square":
                ins, outs_names = self.named_dims()
                L = self.random_surjective(ins or ["x"], self.out_dims(self.r.randint(0, 12), names=outs_names))
            else:
                ins, outs_names = self.named_dims()
                L = self.random_injective(ins or ["x"], self.out_dims(self.r.randint(1, 12), names=outs_names))
            return {"op": "invert", "layout": L.json()}, "invert/reject:" + c
        c = self.r.random()
        if c < 0.35:
            L = self.gpu_shared(self.shape(self.size_bits(0, 18)))
            tag = "shared"
        elif c < 0.5:
            shape = self.shape(self.size_bits(0, 16))
            L = self.gpu_interleaved(shape, broadcast=0.0)
            for n, bs in L.ins:
                bs[:] = [b for b in bs if any(b)]
            tag = "dist_nobroadcast"
        elif c < 0.85:
            ins, outs_names = self.named_dims()
            L = self.random_invertible(ins or ["x"], self.out_dims(self.r.randint(0, 14), names=outs_names))
            tag = "named"
        elif c < 0.93:
            # large: up to 30 in and 30 out bits (Triton 3.6's limit, see docstring)
            ins, outs_names = self.named_dims(n_in=self.pick((2, 3)), n_out=self.pick((2, 3)))
            L = self.random_invertible(ins, self.out_dims(self.r.randint(21, 30), names=outs_names, max_dim_bits=16),
                                       mix=self.pick((0, 3, 20)))
            tag = "large"
        else:
            L, tag = self.special_layout()
        return {"op": "invert", "layout": L.json()}, "invert/" + tag

    def req_pseudoinvert(self):
        x = self.r.random()
        if x < 0.12:
            L = self.any_layout(12)
            j, kind = self.break_layout(L)
            return {"op": "pseudoinvert", "layout": j}, "pseudoinvert/bad:" + kind
        if x < 0.3:
            c = self.pick(("injective", "injective", "rank_deficient", "q7"))
            ins, outs_names = self.named_dims()
            if c == "injective":
                L = self.random_injective(ins or ["x"], self.out_dims(self.r.randint(1, 12), names=outs_names))
            elif c == "rank_deficient":
                L = self.gpu_interleaved(self.shape(self.size_bits(1, 14)))
                flat = [(k, i) for k in range(len(L.ins)) for i in range(len(L.ins[k][1]))
                        if any(L.ins[k][1][i])]
                if flat:
                    k, i = self.pick(flat)
                    L.ins[k][1][i] = [0] * len(L.outs)
            else:
                n = self.r.randint(1, 3)
                L = LL([["d", [[1 << i] for i in range(n)]], ["e", [[self.r.randint(1, (1 << n) - 1)]]]],
                       [["d", 1 << n]])
            return {"op": "pseudoinvert", "layout": L.json()}, "pseudoinvert/reject:" + c
        c = self.r.random()
        if c < 0.35:
            L, kind = self.gpu_any(self.size_bits(0, 16), kinds=("blocked", "interleaved", "interleaved"))
            if not L.is_surjective():
                L = self.gpu_interleaved(self.shape(self.size_bits(0, 16)))
                kind = "interleaved"
            tag = "gpu_" + kind
        elif c < 0.45:
            L = self.gpu_shared(self.shape(self.size_bits(0, 16)))
            tag = "shared"
        elif c < 0.85:
            ins, outs_names = self.named_dims(share=0.35)
            outs = self.out_dims(self.r.randint(0, 12), names=outs_names)
            L = self.pick((self.random_surjective, self.random_invertible))(ins or ["x"], outs)
            tag = "named"
        elif c < 0.93:
            ins, outs_names = self.named_dims(n_in=self.pick((2, 3)), n_out=self.pick((1, 2, 3)))
            outs = self.out_dims(self.r.randint(18, 26), names=outs_names)
            L = self.random_surjective(ins, outs, extra=self.r.randint(1, 4))
            tag = "large"
        else:
            L, tag = self.special_layout()
        return {"op": "pseudoinvert", "layout": L.json()}, "pseudoinvert/" + tag

    def req_product(self):
        x = self.r.random()
        if x < 0.2:
            return self.bad_operand("product", self.product_pair)
        if x < 0.24:
            # over 64 in (or out) bits in total -> "LinearLayout too large"
            a = LL([["x", [[1 << i, 0] for i in range(30)]], ["y", [[0, 1 << i] for i in range(8)]]],
                   [["p", 1 << 30], ["q", 1 << 8]])
            b = LL([["z", [[1 << i] for i in range(self.r.randint(27, 30))]]], [["r", 1 << 30]])
            if self.chance(0.5):
                a, b = b, a
            return ({"op": "product", "layout": a.json(), "other": b.json()},
                    "product/reject:too_large")
        a, b, tag = self.product_pair()
        return {"op": "product", "layout": a.json(), "other": b.json()}, "product/" + tag

    def product_pair(self):
        c = self.r.random()
        if c < 0.25:
            # GPU-ish: tile * repetition (same dims)
            a = self.gpu_any(self.size_bits(0, 12))[0]
            b = self.gpu_any(self.size_bits(0, 6), rank=len(a.outs) or 1)[0]
            if self.chance(0.3):
                b = b.transpose_ins(self.shuffled(b.in_names()))
            if self.chance(0.3) and b.outs:
                b = b.transpose_outs(self.shuffled(b.out_names()))
            return a, b, "gpu"
        if c < 0.7:
            a = self.small_named(10)
            b = self.small_named(10)
            return a, b, "named"
        if c < 0.85:
            # overlapping dims in different orders
            names = self.names(3)
            outs = self.names(2, avoid=names) if self.chance(0.5) else names[:2]
            oa = self.out_dims(self.r.randint(0, 8), names=outs)
            ob = self.out_dims(self.r.randint(0, 8), names=outs[::-1])
            a = self.random_bits(names, oa, self.r.randint(0, 8))
            b = self.random_bits(self.shuffled(names[:self.r.randint(1, 3)]), ob, self.r.randint(0, 8))
            return a, b, "overlap_reordered"
        if c < 0.93:
            # identity1D pieces like Triton builds them
            a = LL([[self.pick(("x", "register")), [[1 << i] for i in range(self.r.randint(0, 5))]]],
                   [["y", 1 << self.r.randint(0, 5)]])
            a.outs[0][1] = max(a.outs[0][1], 1 << len(a.ins[0][1]))
            b = LL([[self.pick(("x", "lane", "register")), [[self.pick((0, 1 << i))] for i in range(self.r.randint(0, 4))]]],
                   [[self.pick(("y", "z")), 1 << 4]])
            return a, b, "ident1d"
        L, tag = self.special_layout()
        other = self.small_named(6)
        if self.chance(0.5):
            return L, other, "special_left:" + tag
        return other, L, "special_right:" + tag

    def req_apply(self):
        x = self.r.random()
        if x < 0.1:
            L = self.any_layout(12)
            j, kind = self.break_layout(L)
            inputs = dict((n, self.r.randrange(1 << len(bs))) for n, bs in L.ins)
            return {"op": "apply", "layout": j, "inputs": inputs}, "apply/bad:" + kind
        c = self.r.random()
        if c < 0.7:
            L = self.any_layout(18)
            tag = "normal"
        elif c < 0.85:
            # large: up to 64 in bits, every dim <= 2^30
            nin = self.pick((2, 3, 4))
            ins = self.pick((list(DIST_INS[:nin]), self.names(nin)))
            outs = self.out_dims(self.r.randint(20, 60), names=self.names(self.pick((2, 3))))
            L = self.random_bits(ins, outs, self.r.randint(30, 64), 0.05)
            tag = "large"
        else:
            L, tag = self.special_layout()
        inputs = []
        kind = "ok"
        for n, bs in L.ins:
            size = 1 << len(bs)
            v = self.r.randrange(size)
            inputs.append([n, v])
        y = self.r.random()
        if y < 0.1 and inputs:
            kind = "masked"
            i = self.r.randrange(len(inputs))
            size = 1 << len(L.ins[i][1])
            inputs[i][1] = self.pick((size, size + inputs[i][1], INT32_MAX, size * 7 + 1,
                                      (1 << 30) + inputs[i][1]))
            if inputs[i][1] > INT32_MAX:
                inputs[i][1] = INT32_MAX
        elif y < 0.17 and inputs:
            kind = "negative"
            i = self.r.randrange(len(inputs))
            inputs[i][1] = self.pick((-1, -2, -self.r.randint(1, 1000), -(1 << 31)))
        elif y < 0.24:
            kind = "reject:missing_dim" if inputs else "reject:extra_dim"
            if inputs:
                del inputs[self.r.randrange(len(inputs))]
            else:
                inputs.append(["x", 0])
        elif y < 0.3:
            kind = "reject:extra_dim"
            name = self.pick(("extra", "dim0", "x", "register", "lane"))
            while name in L.in_names():
                name += "_"
            inputs.insert(self.r.randint(0, len(inputs)), [name, self.r.randint(0, 3)])
        elif y < 0.33 and inputs:
            kind = "reject:int32"
            i = self.r.randrange(len(inputs))
            inputs[i][1] = self.pick((1 << 31, 1 << 40, -(1 << 31) - 1))
        elif y < 0.35 and inputs:
            kind = "reject:renamed"
            i = self.r.randrange(len(inputs))
            inputs[i][0] = inputs[i][0] + "_r"
            while inputs[i][0] in L.in_names():
                inputs[i][0] += "_"
        if self.chance(0.4):
            self.r.shuffle(inputs)
        return ({"op": "apply", "layout": L.json(), "inputs": dict((n, v) for n, v in inputs)},
                "apply/%s/%s" % (tag, kind))

    def layout_for_query(self, op):
        x = self.r.random()
        if x < 0.13:
            L = self.any_layout(12)
            j, kind = self.break_layout(L)
            return j, "bad:" + kind
        if x < 0.55:
            L, kind = self.gpu_any(self.size_bits(0, 18))
            if op == "num_consecutive_in_out" and self.chance(0.3):
                # Triton's own use: after permuting registers/removing broadcasts
                for n, bs in L.ins:
                    if self.chance(0.3):
                        bs[:] = [b for b in bs if any(b)]
            return L.json(), "gpu_" + kind
        if x < 0.85:
            return self.small_named(12).json(), "named"
        if x < 0.92:
            nin = self.pick((2, 3, 4))
            ins = self.pick((list(DIST_INS[:nin]), self.names(nin)))
            outs = self.out_dims(self.r.randint(10, 60), names=self.names(self.pick((1, 2, 3))))
            kind = self.r.randrange(3)
            L = None
            if kind == 1:
                L = self.random_surjective(ins, outs)
                if not fits(L):
                    L = None
            if L is None and kind != 0:
                L = self.random_bits(ins, outs, sum(log2(s) for _, s in outs), 0.0)
            if L is None:
                L = self.random_bits(ins, outs, self.r.randint(20, 64), 0.05)
            assert fits(L)
            return L.json(), "large"
        L, tag = self.special_layout()
        return L.json(), tag

    def req_query(self, op):
        if op == "num_consecutive_in_out" and self.chance(0.25):
            # first in-dim starts with a run of (2^i, 0, ...) bases
            ins, outs_names = self.named_dims()
            outs = self.out_dims(self.r.randint(2, 12), names=outs_names)
            run = self.r.randint(0, log2(outs[0][1]))
            first = []
            for i in range(run):
                v = [0] * len(outs)
                v[0] = 1 << i
                first.append(v)
            rest = self.random_bits(ins or ["x"], outs, self.r.randint(0, 8), 0.2)
            if self.chance(0.3) and run < log2(outs[0][1]):
                v = [0] * len(outs)
                v[0] = 1 << run
                if len(outs) > 1 and self.chance(0.5):
                    v[1] = 1 % outs[1][1]
                first.append(v)
            rest.ins[0][1] = first + rest.ins[0][1]
            return {"op": op, "layout": rest.json()}, op + "/consecutive_run"
        j, tag = self.layout_for_query(op)
        return {"op": op, "layout": j}, op + "/" + tag

    def req_malformed(self, k):
        """(line text, tag): invalid requests."""
        c = k % 16
        good = LL([["x", [[1], [2]]]], [["y", 4]]).json()
        if c == 0:
            return "{not json", "malformed/invalid_json"
        if c == 1:
            return '{"op": "invert", "layout": ', "malformed/truncated_json"
        if c == 2:
            return self.pick(("[1, 2, 3]", '"invert"', "42", "null", "true")), "malformed/not_object"
        if c == 3:
            return {"op": "transpose", "layout": good}, "malformed/unknown_op"
        if c == 4:
            return {"layout": good}, "malformed/missing_op"
        if c == 5:
            return {"op": self.pick(("compose", "invert_and_compose")), "layout": good}, "malformed/missing_outer"
        if c == 6:
            return {"op": "product", "layout": good}, "malformed/missing_other"
        if c == 7:
            return {"op": "apply", "layout": good}, "malformed/missing_inputs"
        if c == 8:
            return {"op": "apply", "layout": good,
                    "inputs": self.pick(([1], {"x": 1.0}, {"x": "1"}, {"x": True}, {"x": None}, 3))}, "malformed/bad_inputs"
        if c == 9:
            return {"op": self.pick(("invert", "is_injective", "num_consecutive_in_out"))}, "malformed/missing_layout"
        if c == 10:
            return {"op": self.pick(("invert", "pseudoinvert", "is_surjective")),
                    "layout": self.pick((None, [], "x", 1, {"in_dims": {}}, {"out_dims": {}}))}, "malformed/layout_type"
        if c == 11:
            return {"op": self.pick((1, None, ["invert"], {"op": "invert"})), "layout": good}, "malformed/op_type"
        if c == 12:
            return {"op": "Invert", "layout": good}, "malformed/op_case"
        if c == 13:
            return {"op": "compose", "layout": good, "outer": self.pick((None, [], 7))}, "malformed/outer_type"
        if c == 14:
            return {"op": "is_invertible", "layout": {"in_dims": {"x": [[1.5]]}, "out_dims": {"y": 2}}}, "malformed/float_basis"
        return {"op": "invert", "layout": {"in_dims": {"x": [[1]]}, "out_dims": {"y": 2.0}}}, "malformed/float_size"


OPS = ("compose", "invert_and_compose", "invert", "pseudoinvert", "product",
       "apply", "num_consecutive_in_out", "is_injective", "is_surjective",
       "is_invertible")
# share of the requests per op (the rest, ~2%, are malformed lines)
WEIGHTS = {"compose": 0.13, "invert_and_compose": 0.15, "invert": 0.09,
           "pseudoinvert": 0.09, "product": 0.10, "apply": 0.13,
           "num_consecutive_in_out": 0.08, "is_injective": 0.07,
           "is_surjective": 0.07, "is_invertible": 0.07}


def generate(seed, count):
    g = Gen(seed)
    plan = []
    for op in OPS:
        plan += [op] * int(round(WEIGHTS[op] * count))
    while len(plan) < count:
        plan.append("malformed")
    plan = plan[:count]
    g.r.shuffle(plan)
    lines = []
    n_mal = 0
    for i, op in enumerate(plan):
        rid = i + 1
        if op == "malformed":
            req, tag = g.req_malformed(n_mal)
            n_mal += 1
            if isinstance(req, dict):
                out = {"id": "m%d" % rid}
                out.update(req)
                out["tag"] = tag
                lines.append(json.dumps(out, separators=(",", ":")))
            else:
                lines.append(req)
            continue
        if op == "compose":
            req, tag = g.req_compose()
        elif op == "invert_and_compose":
            req, tag = g.req_invert_and_compose()
        elif op == "invert":
            req, tag = g.req_invert()
        elif op == "pseudoinvert":
            req, tag = g.req_pseudoinvert()
        elif op == "product":
            req, tag = g.req_product()
        elif op == "apply":
            req, tag = g.req_apply()
        else:
            req, tag = g.req_query(op)
        out = {"id": rid}
        out.update(req)
        out["tag"] = tag
        lines.append(json.dumps(out, separators=(",", ":")))
    for l in lines:
        assert l.strip() and "\n" not in l
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=2600)
    ap.add_argument("--out", default="-", help="output file (default: stdout)")
    args = ap.parse_args(argv)
    lines = generate(args.seed, args.count)
    text = "".join(l + "\n" for l in lines)
    if args.out == "-":
        sys.stdout.write(text)
    else:
        with open(args.out, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
