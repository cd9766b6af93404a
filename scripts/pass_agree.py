#!/usr/bin/env python3
"""Do two TTGIR modules agree, op by op, on op names and result types (layouts included)?

    ../shared/oracle/oracle-python scripts/pass_agree.py A.mlir B.mlir
    ../shared/oracle/oracle-python scripts/pass_agree.py ours.mlir --expected-stage people/x.gfx942.mlir 4
    ../shared/oracle/oracle-python scripts/pass_agree.py --stage 3 F.mlir --stage 4 F.mlir
    ../shared/oracle/oracle-python scripts/pass_agree.py --dir DIR   # every X.ours.mlir beside X.triton.mlir
        (LAYOUT_PASSES_OUT=DIR cargo test --test layout_passes … writes them)

Both modules are parsed by Triton 3.6.0's parser (an MLIR context with Triton's and the AMD
backend's dialects loaded, as ../shared/oracle/pass_oracle.py loads them); all ops are walked in
order (MLIR's walk: post-order, the module op last) and compared by op name and by the printed
form of each result type. A type is printed on its own (`str(type)`), so its encoding appears
inline and in full: alias names (`#blocked` against `#blocked1`) do not matter, and two printed
encodings are equal exactly when the attributes are equal.

A module argument is a file, or `--stage K FILE` for stage K of a stage file of
tests/fixtures/passes/ (`// ----- stage <k>: ...` sections; a stage marked `// unchanged` stands
for the latest earlier stage that prints a module). `--expected-stage FILE K` is the same as
`--stage K FILE` for the second module.

Prints `agree N ops` and exits 0; or prints the first difference (op index, both op names, both
result types) and exits 1; exits 2 with the parser's message when a module does not parse (or a
stage file has no such stage).
"""

from __future__ import annotations

import os
import re
import sys
import tempfile

STAGE_RE = re.compile(r"^// ----- stage (\d+): (\S+)")


def stage_text(path, k):
    """The module text of stage k of a stage file (following `// unchanged` back)."""
    stages, cur = [], None
    for line in open(path).read().splitlines(keepends=True):
        m = STAGE_RE.match(line)
        if m:
            cur = [int(m.group(1)), []]
            stages.append(cur)
        elif cur is not None:
            cur[1].append(line)
    texts = {}
    last = None
    for idx, lines in stages:
        t = "".join(lines)
        if t.strip() != "// unchanged":
            last = t
        texts[idx] = last
    if k not in texts or texts[k] is None:
        raise LookupError(f"{path}: no stage {k} (stages 0..{len(stages) - 1})")
    return texts[k]


class _StderrCapture:

    def __enter__(self):
        sys.stderr.flush()
        self._saved = os.dup(2)
        self._tmp = tempfile.TemporaryFile(mode="w+b")
        os.dup2(self._tmp.fileno(), 2)
        return self

    def __exit__(self, *exc):
        sys.stderr.flush()
        os.dup2(self._saved, 2)
        os.close(self._saved)
        self._tmp.seek(0)
        self.text = self._tmp.read().decode("utf-8", "replace")
        self._tmp.close()
        return False


def parse(lt, ctx, text, label):
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        with _StderrCapture() as cap:
            try:
                mod = lt.ir.parse_mlir_module(path, ctx)
                err = None
            except Exception as e:  # noqa: BLE001
                mod, err = None, f"{type(e).__name__}: {e}"
    finally:
        os.unlink(path)
    if mod is None:
        msg = cap.text.strip().replace(path, label)
        raise SyntaxError(f"{label}: " + " | ".join(x for x in [msg, err] if x))
    mod.context = ctx
    return mod


def ops_of(mod):
    out = []

    def visit(op):
        out.append((op.get_name(), [str(op.get_result(i).get_type()) for i in range(op.get_num_results())]))

    mod.walk(visit)
    return out


def parse_args(argv):
    """[(label, text)] for the two modules."""
    mods, i = [], 0
    while i < len(argv):
        a = argv[i]
        if a == "--stage":
            k, path = int(argv[i + 1]), argv[i + 2]
            mods.append((f"{path}@stage{k}", stage_text(path, k)))
            i += 3
        elif a == "--expected-stage":
            path, k = argv[i + 1], int(argv[i + 2])
            mods.append((f"{path}@stage{k}", stage_text(path, k)))
            i += 3
        elif a in ("-h", "--help"):
            print(__doc__)
            sys.exit(0)
        else:
            mods.append((a, open(a).read()))
            i += 1
    if len(mods) != 2:
        raise SystemExit("usage: pass_agree.py A.mlir B.mlir  (or --stage K FILE / --expected-stage FILE K)")
    return mods


def check_dir(d):
    """Every `X.ours.mlir` of directory `d` beside its `X.triton.mlir`: both parsed by Triton's
    parser and compared op by op; prints the totals and the first failures."""
    import triton._C.libtriton as lt
    ctx = lt.ir.context()
    lt.ir.load_dialects(ctx)
    lt.amd.load_dialects(ctx)
    names = sorted(f[:-len(".ours.mlir")] for f in os.listdir(d) if f.endswith(".ours.mlir"))
    parsed = agree = 0
    bad = []
    for n in names:
        with open(os.path.join(d, n + ".ours.mlir")) as f:
            ours = f.read()
        with open(os.path.join(d, n + ".triton.mlir")) as f:
            theirs = f.read()
        try:
            a = ops_of(parse(lt, ctx, ours, n))
        except SyntaxError as e:
            bad.append(f"does not parse: {e}"[:300])
            continue
        parsed += 1
        try:
            b = ops_of(parse(lt, ctx, theirs, n + " (Triton)"))
        except SyntaxError:
            continue
        if a == b:
            agree += 1
        else:
            bad.append(f"{n}: differs")
    print(f"{len(names)} modules: {parsed} parse in Triton, {agree} agree with Triton's")
    for b in bad[:20]:
        print("  " + b)
    return 0 if parsed == len(names) else 1


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) == 2 and argv[0] == "--dir":
        return check_dir(argv[1])
    try:
        mods = parse_args(argv)
    except (LookupError, OSError, ValueError, IndexError) as e:
        print(f"error: {e}")
        return 2
    import triton._C.libtriton as lt
    ctx = lt.ir.context()
    lt.ir.load_dialects(ctx)
    lt.amd.load_dialects(ctx)
    try:
        (la, ta), (lb, tb) = mods
        a, b = ops_of(parse(lt, ctx, ta, la)), ops_of(parse(lt, ctx, tb, lb))
    except SyntaxError as e:
        print(f"parse error: {e}")
        return 2
    for i in range(max(len(a), len(b))):
        oa = a[i] if i < len(a) else ("<none>", [])
        ob = b[i] if i < len(b) else ("<none>", [])
        if oa != ob:
            print(f"differ at op {i}:")
            print(f"  A {la}: {oa[0]} -> {', '.join(oa[1]) or '()'}")
            print(f"  B {lb}: {ob[0]} -> {', '.join(ob[1]) or '()'}")
            return 1
    print(f"agree {len(a)} ops")
    return 0


if __name__ == "__main__":
    sys.exit(main())
