#!/usr/bin/env python3
"""Write the layout-pass fixtures of tests/fixtures/passes/: modules before and after each of
Triton 3.6.0's TTGIR layout passes, as the real Triton (the oracle's CPU-only wheel) runs them.

    ../shared/oracle/oracle-python scripts/pass_fixtures.py [--out tests/fixtures/passes]
        [--parts people,lit,corpus] [--lit-src TRITON_CHECKOUT] [--only SUBSTR] [-j 2]

Three sources, one stage file each (format below), and `manifest.json`:

* `people/<kernel>.<arch>.mlir`: every kernel of scripts/people_ttgir.py on every arch it is
  compiled for there, compiled the same way (ASTSource, GPUTarget('hip', arch, 64 or 32 lanes),
  the same specialisation, options and knobs). Stage 0 is the TTIR as Triton's `make_ttir`
  leaves it; then the layout passes of the AMD backend's `make_ttgir` (num_stages = 1, so no
  scheduling / pipelining) run one at a time, each in its own pass manager, in this order:
  PEOPLE_CHAIN below, with in_thread_transpose + remove_layout_conversions only where
  `is_in_thread_transpose_enabled(arch)` holds (gfx942).
* `lit/<test-stem>.<n>.mlir`: the modules of Triton's own lit tests of these passes (LIT_TESTS
  below), split at `// -----` (module n, counted from 0), printed by Triton (so without the
  tests' comments and CHECK lines), then the passes of the test's RUN line. A module that does
  not parse, or on which a pass fails, is skipped and listed in the manifest. The import needs
  the test files: `--lit-src` names a directory holding Triton's `test/` tree (a checkout of
  LIT_COMMIT). Without `--lit-src` the lit fixtures are regenerated from the stage-0 modules of
  the lit files already written (their provenance comes from their header lines and the skipped
  list from the previous manifest).
* `corpus/<id>.<arch>.mlir`: a deterministic spread (every k-th, at most CORPUS_MAX) of the
  oracle's heuristics corpus (../shared/oracle/heuristics, manifest.json there): coalesce modules
  through coalesce -> remove_layout_conversions; matmul modules (with their nonkdim / kpack)
  through accelerate_matmul -> remove_layout_conversions -> optimize_epilogue ->
  reduce_data_duplication. The module's ttg.target is set to the arch it runs for.

Stage file format: comment lines (`// key: value`) describing the file, then for k = 0, 1, ...
a line `// ----- stage <k>: <pass> [opt=value ...]` followed either by the module as Triton
prints it without locations (`module.str_nodebug()`) or, when that pass left the module
unchanged (identical printed text), by the single line `// unchanged`. Options are written only
for lit stages whose RUN line sets them.

Every stage is checked: the previous stage's text, parsed alone in a fresh context and run
through the stage's pass, must print exactly as the stage (`faithful` in the manifest); and for
people files the passes after convert_to_ttgpuir run in one pass manager (as make_ttgir runs
them) must end at the same module as the one-at-a-time chain (`single_pm_agrees`).

Work runs in 2 worker processes (one python each, all jobs in-process); a job that kills its
worker (a fatal error inside Triton) is recorded as a crash and the worker restarts after it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
ORACLE = os.path.normpath(os.path.join(ROOT, "..", "shared", "oracle"))
HEUR = os.path.join(ORACLE, "heuristics")
DEFAULT_OUT = os.path.join(ROOT, "tests", "fixtures", "passes")

# The layout passes of HIPBackend.make_ttgir (triton 3.6.0, backends/amd/compiler.py) with
# num_stages = 1 (schedule_loops and pipeline left out), after convert_to_ttgpuir.
PEOPLE_CHAIN = [
    "coalesce", "f32_dot_tc", "remove_layout_conversions", "optimize_thread_locality", "accelerate_matmul",
    "remove_layout_conversions", "optimize_epilogue", "optimize_dot_operands", "hoist_layout_conversions",
    "fuse_nested_loops", "canonicalize", "licm", "canonicalize", "canonicalize", "remove_layout_conversions",
    "reduce_data_duplication"
]
ITT_TAIL = ["in_thread_transpose", "remove_layout_conversions"]

COALESCE_CHAIN = ["coalesce", "remove_layout_conversions"]
MATMUL_CHAIN = ["accelerate_matmul", "remove_layout_conversions", "optimize_epilogue", "reduce_data_duplication"]
CORPUS_MAX = 300
CORPUS_COALESCE = 100  # of CORPUS_MAX; the rest matmul
CORPUS_ARCHS = ("gfx942", "gfx950", "gfx1100")

# Triton's lit tests of these passes, read at LIT_COMMIT: the upstream main commit the 3.6.0 release
# branch was cut from (the wheel's Python sources equal that commit's but for one cherry-picked
# line in knobs.py). path -> the passes of its RUN line, in our names, with the options it sets.
LIT_REPO = "triton-lang/triton"
LIT_COMMIT = "4b184cccbb42c3aa5f24e34c39c5358636b3e2bd"
LIT_TESTS = {
    "test/TritonGPU/combine.mlir": [("remove_layout_conversions", {}), ("cse", {})],
    "test/TritonGPU/reduce-data-duplication.mlir": [("reduce_data_duplication", {})],
    "test/TritonGPU/optimize-locality.mlir": [("optimize_thread_locality", {}), ("canonicalize", {})],
    "test/TritonGPU/amd/amd-optimize-epilogue.mlir": [("optimize_epilogue", {})],
    "test/TritonGPU/optimize_epilogue.mlir": [("optimize_epilogue", {})],
    "test/TritonGPU/amd/amd-hoist-cvtToDotOp.mlir": [("hoist_layout_conversions", {})],
    "test/TritonGPU/amd/in-thread-transpose.mlir": [("in_thread_transpose", {})],
    "test/TritonGPU/amd/amd-optimize-dot-operands.mlir": [("optimize_dot_operands", {"arch": "gfx950"})],
    "test/TritonGPU/tf32x3-matmul.mlir": [("f32_dot_tc", {"emu_tf32": 1}), ("canonicalize", {})],
    "test/TritonGPU/bf16x3-matmul.mlir": [("f32_dot_tc", {"emu_tf32": 0}), ("canonicalize", {})],
    "test/TritonGPU/coalesce.mlir": [("coalesce", {})],
    "test/TritonGPU/fuse-nested-loops.mlir": [("fuse_nested_loops", {}), ("canonicalize", {}), ("cse", {})],
    "test/Conversion/triton_to_tritongpu.mlir": [("convert_to_ttgpuir", {"target": "cuda:80", "num_warps": 2})],
}


# ---------------------------------------------------------------------------------------------
# Stage files
# ---------------------------------------------------------------------------------------------

STAGE_RE = re.compile(r"^// ----- stage (\d+): (\S+)(.*)$")


def stage_label(name, opts):
    return name + "".join(f" {k}={v}" for k, v in opts.items())


def write_stage_file(path, header, stages):
    """stages: [(label, text or None)]; None = unchanged."""
    out = [f"// {k}: {v}\n" for k, v in header]
    for k, (label, text) in enumerate(stages):
        out.append(f"// ----- stage {k}: {label}\n")
        if text is None:
            out.append("// unchanged\n")
        else:
            out.append(text if text.endswith("\n") else text + "\n")
    with open(path, "w") as f:
        f.write("".join(out))


def read_stage_file(path):
    """(header [(key, value)], [(pass, opts, text or None)])."""
    header, stages, cur = [], [], None
    for line in open(path).read().splitlines(keepends=True):
        m = STAGE_RE.match(line.rstrip("\n"))
        if m:
            opts = dict(kv.split("=", 1) for kv in m.group(3).split())
            cur = [m.group(2), opts, []]
            stages.append(cur)
            continue
        if cur is None:
            mm = re.match(r"^// ([\w-]+): (.*)$", line.rstrip("\n"))
            if mm:
                header.append((mm.group(1), mm.group(2)))
            continue
        cur[2].append(line)
    res = []
    for name, opts, lines in stages:
        text = "".join(lines)
        res.append((name, opts, None if text.strip() == "// unchanged" else text))
    return header, res


def module_attr_int(text, name):
    m = re.search(r'"?' + re.escape(name) + r'"?\s*=\s*(\d+)\s*:\s*i32', text or "")
    return int(m.group(1)) if m else None


def module_target(text):
    m = re.search(r'ttg\.target\s*=\s*"([^"]+)"', text or "")
    return m.group(1) if m else None


# ---------------------------------------------------------------------------------------------
# Worker side: Triton in-process
# ---------------------------------------------------------------------------------------------

class StderrCapture:
    """fd 2 into a temp file while Triton runs (its diagnostics)."""

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


class Triton:
    """Triton's passes, each added to a pass manager as make_ttgir (or pass_oracle.py) adds it."""

    def __init__(self):
        import triton._C.libtriton as lt
        self.lt = lt
        self.ir = lt.ir
        ttg, amd, common, ttir = lt.passes.ttgpuir, lt.amd.passes.ttgpuir, lt.passes.common, lt.passes.ttir
        self.passes = {
            "convert_to_ttgpuir": lambda pm, o: ttir.add_convert_to_ttgpuir(
                pm, o.get("target") or f"hip:{o['arch']}", int(o["num_warps"]), int(o["threads_per_warp"]),
                int(o.get("num_ctas", 1))),
            "coalesce": lambda pm, o: ttg.add_coalesce(pm),
            "f32_dot_tc": lambda pm, o: ttg.add_f32_dot_tc(pm, bool(int(o.get("emu_tf32", 0)))),
            "remove_layout_conversions": lambda pm, o: ttg.add_remove_layout_conversions(pm),
            "optimize_thread_locality": lambda pm, o: ttg.add_optimize_thread_locality(pm),
            "accelerate_matmul": lambda pm, o: amd.add_accelerate_matmul(pm, o["arch"], int(o.get("nonkdim", 0)),
                                                                         int(o.get("kpack", 1))),
            "optimize_epilogue": lambda pm, o: amd.add_optimize_epilogue(pm),
            "optimize_dot_operands": lambda pm, o: amd.add_optimize_dot_operands(pm, o["arch"]),
            "hoist_layout_conversions": lambda pm, o: amd.add_hoist_layout_conversions(pm),
            "fuse_nested_loops": lambda pm, o: ttg.add_fuse_nested_loops(pm),
            "canonicalize": lambda pm, o: common.add_canonicalizer(pm),
            "licm": lambda pm, o: ttir.add_triton_licm(pm),
            "cse": lambda pm, o: common.add_cse(pm),
            "reduce_data_duplication": lambda pm, o: ttg.add_reduce_data_duplication(pm),
            "in_thread_transpose": lambda pm, o: amd.add_in_thread_transpose(pm),
        }

    def context(self):
        ctx = self.ir.context()
        self.ir.load_dialects(ctx)
        self.lt.amd.load_dialects(ctx)
        return ctx

    def parse(self, text, ctx):
        """The module, or raises RuntimeError with the parser's message."""
        with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
            f.write(text)
            path = f.name
        try:
            with StderrCapture() as cap:
                try:
                    mod = self.ir.parse_mlir_module(path, ctx)
                    err = None
                except Exception as e:  # noqa: BLE001
                    mod, err = None, f"{type(e).__name__}: {e}"
        finally:
            os.unlink(path)
        if mod is None:
            raise RuntimeError(" | ".join(x for x in [cap.text.strip(), err] if x)[:2000])
        mod.context = ctx
        return mod

    def run(self, mod, ctx, names, opts):
        """Run `names` (a list of (pass, opts) or pass names with shared opts) in ONE pass manager;
        raises RuntimeError with Triton's diagnostics on failure."""
        pm = self.ir.pass_manager(ctx)
        pm.enable_debug()
        for n in names:
            name, o = (n, opts) if isinstance(n, str) else (n[0], dict(opts, **n[1]))
            self.passes[name](pm, o)
        with StderrCapture() as cap:
            try:
                pm.run(mod, "pass_fixtures")
                err = None
            except Exception as e:  # noqa: BLE001
                err = f"{type(e).__name__}: {e}"
        if err is not None:
            diag = " | ".join(l.strip() for l in cap.text.splitlines() if l.strip())
            raise RuntimeError((diag + " | " + err if diag else err)[:2000])


def run_chain(T, mod, ctx, chain, opts, first_text):
    """Apply chain [(pass, stage opts)] one at a time (one pass manager each) to `mod`; return
    [(label, text or None)], the last text, and an error (pass index, message) or None."""
    stages, prev = [], first_text
    for i, (name, sopts) in enumerate(chain):
        try:
            T.run(mod, ctx, [(name, sopts)], opts)
        except RuntimeError as e:
            return stages, prev, (i, name, str(e))
        text = mod.str_nodebug()
        stages.append((stage_label(name, sopts), None if text == prev else text))
        prev = text
    return stages, prev, None


def verify_chain(T, stage0, chain, stages, opts):
    """For each stage k >= 1: parse the previous materialised text alone, run the pass, compare.
    Returns the list of stage indices that differ (with a short reason)."""
    bad = []
    prev = stage0
    for k, ((name, sopts), (_, text)) in enumerate(zip(chain, stages), start=1):
        expect = prev if text is None else text
        try:
            ctx = T.context()
            mod = T.parse(prev, ctx)
            T.run(mod, ctx, [(name, sopts)], opts)
            got = mod.str_nodebug()
            if got != expect:
                bad.append({"stage": k, "pass": name, "why": "differs"})
        except RuntimeError as e:
            bad.append({"stage": k, "pass": name, "why": str(e)[:300]})
        prev = expect
    return bad


def roundtrip_ok(T, text):
    ctx = T.context()
    try:
        return T.parse(text, ctx).str_nodebug() == text
    except RuntimeError:
        return False


def stage_entries(chain, stages):
    out = []
    for k, ((name, sopts), (_, text)) in enumerate(zip(chain, stages), start=1):
        e = {"k": k, "pass": name, "changed": text is not None}
        if sopts:
            e["options"] = sopts
        out.append(e)
    return out


# --- people ---

_people_cache = {}


def people_kernels():
    """[(name, fn, cex, opts, launches, variant, arch)] as people_ttgir.main() iterates them."""
    if "k" not in _people_cache:
        sys.path.insert(0, HERE)
        import people_ttgir as P
        out = []
        for arch in P.ARCHS:
            for name, fn, cex, opts, launches, *variant in P.cases():
                variant = dict(variant[0]) if variant else {}
                if arch not in variant.pop("archs", [arch]):
                    continue
                out.append((name, fn, cex, opts, launches, variant, arch))
        _people_cache["k"] = (P, out)
    return _people_cache["k"]


def job_people(T, job, out_dir):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler.compiler import ASTSource, make_backend
    from triton.backends.amd.compiler import is_in_thread_transpose_enabled
    P, kernels = people_kernels()
    name, fn, cex, opts, launches, variant, arch = next(k for k in kernels if k[0] == job["kernel"]
                                                        and k[6] == job["arch"])
    warp = 32 if arch.startswith("gfx1") else 64
    target = GPUTarget("hip", arch, warp)
    backend = make_backend(target)
    sig, cexs, attrs, _ = P.specialise(fn, launches[0][1], cex, backend)
    src = ASTSource(fn, sig, cexs, attrs)
    with triton.knobs.amd.scope():
        for knob, value in variant.items():
            setattr(triton.knobs.amd, knob, value)
        options = backend.parse_options(dict(opts))
        stages_fn = {}
        backend.add_stages(stages_fn, options, src.language)
        ctx = T.context()
        backend.load_dialects(ctx)
        metadata = {"target": target, **options.__dict__}
        mod = src.make_ir(target, options, backend.get_codegen_implementation(options), backend.get_module_map(), ctx)
        mod = stages_fn["ttir"](mod, metadata)
        ttir = mod.str_nodebug()
        o = {"arch": arch, "num_warps": options.num_warps, "threads_per_warp": options.warp_size,
             "num_ctas": options.num_ctas, "nonkdim": options.matrix_instr_nonkdim, "kpack": options.kpack}
        chain = [("convert_to_ttgpuir", {})] + [(p, {}) for p in PEOPLE_CHAIN]
        if is_in_thread_transpose_enabled(arch):
            chain += [(p, {}) for p in ITT_TAIL]
        stages, last, err = run_chain(T, mod, ctx, chain, o, ttir)
        if err is not None:
            return {"status": "error", "error": f"stage {err[0] + 1} {err[1]}: {err[2]}"}
        bad = verify_chain(T, ttir, chain, stages, o)
        # make_ttgir runs the passes after convert_to_ttgpuir in one pass manager.
        first = next((t for _, t in stages[:1] if t is not None), ttir)
        single = None
        try:
            c2 = T.context()
            m2 = T.parse(first, c2)
            T.run(m2, c2, chain[1:], o)
            single = m2.str_nodebug() == last
        except RuntimeError as e:
            single = f"error: {e}"[:300]
    fname = f"{name}.{arch}.mlir"
    header = [("source", "people"), ("kernel", f"{name} ({fn.__name__}, scripts/people_ttgir.py)"),
              ("arch", arch), ("num_warps", o["num_warps"]), ("threads_per_warp", o["threads_per_warp"]),
              ("triton", triton.__version__ + " (make_ttir, then make_ttgir's layout passes, num_stages=1)")]
    write_stage_file(os.path.join(out_dir, "people", fname), header, [("ttir", ttir)] + stages)
    return {"status": "ok", "entry": {
        "file": f"people/{fname}", "source": "people", "kernel": name, "function": fn.__name__, "arch": arch,
        "num_warps": o["num_warps"], "threads_per_warp": o["threads_per_warp"],
        "stages": [{"k": 0, "pass": "ttir", "changed": True}] + stage_entries(chain, stages),
        "faithful": not bad, "unfaithful_stages": bad, "single_pm_agrees": single,
        "roundtrip": roundtrip_ok(T, last),
    }}


# --- lit ---

def job_lit(T, job, out_dir):
    chain = [(p, o) for p, o in job["chain"]]
    ctx = T.context()
    try:
        mod = T.parse(job["text"], ctx)
    except RuntimeError as e:
        return {"status": "skip", "why": "parse", "error": str(e)[:600]}
    stage0 = mod.str_nodebug()
    nw = module_attr_int(stage0, "ttg.num-warps")
    tpw = module_attr_int(stage0, "ttg.threads-per-warp")
    tgt = module_target(stage0)
    arch = tgt[4:] if tgt and tgt.startswith("hip:") else None
    o = {"arch": arch or "gfx942", "num_warps": nw or 4, "threads_per_warp": tpw or 32}
    stages, last, err = run_chain(T, mod, ctx, chain, o, stage0)
    if err is not None:
        return {"status": "skip", "why": f"pass {err[1]}", "error": err[2][:600]}
    bad = verify_chain(T, stage0, chain, stages, o)
    fname = f"{job['stem']}.{job['index']}.mlir"
    header = [("source", "lit"), ("lit-file", f"{LIT_REPO} {job['path']}"), ("lit-commit", job["commit"]),
              ("lit-module", f"{job['index']} (0-based, split at '// -----')"),
              ("note", "stage 0 is the test's input module as Triton 3.6.0 prints it (comments, CHECK lines dropped)")]
    write_stage_file(os.path.join(out_dir, "lit", fname), header, [("input", stage0)] + stages)
    num_warps = nw
    for p, so in chain:
        if p == "convert_to_ttgpuir":
            num_warps, tpw, tgt = so.get("num_warps", 4), so.get("threads_per_warp", 32), so.get("target")
    return {"status": "ok", "entry": {
        "file": f"lit/{fname}", "source": "lit", "arch": tgt, "num_warps": num_warps, "threads_per_warp": tpw,
        "provenance": {"repo": LIT_REPO, "path": job["path"], "commit": job["commit"], "index": job["index"]},
        "stages": [{"k": 0, "pass": "input", "changed": True}] + stage_entries(chain, stages),
        "faithful": not bad, "unfaithful_stages": bad, "roundtrip": roundtrip_ok(T, stage0),
    }}


# --- corpus ---

def job_corpus(T, job, out_dir):
    text = open(os.path.join(HEUR, job["file"])).read()
    arch = job["arch"]
    text = re.sub(r'ttg\.target = "hip:\w+"', f'ttg.target = "hip:{arch}"', text)
    ctx = T.context()
    try:
        mod = T.parse(text, ctx)
    except RuntimeError as e:
        return {"status": "error", "error": str(e)[:600]}
    stage0 = mod.str_nodebug()
    o = {"arch": arch, "num_warps": module_attr_int(stage0, "ttg.num-warps") or 4,
         "threads_per_warp": module_attr_int(stage0, "ttg.threads-per-warp") or 64,
         "nonkdim": job.get("nonkdim", 0), "kpack": job.get("kpack", 1)}
    names = COALESCE_CHAIN if job["group"] == "coalesce" else MATMUL_CHAIN
    chain = []
    for p in names:
        so = {}
        if p == "accelerate_matmul":
            if o["nonkdim"]:
                so["nonkdim"] = o["nonkdim"]
            if o["kpack"] != 1:
                so["kpack"] = o["kpack"]
        chain.append((p, so))
    stages, last, err = run_chain(T, mod, ctx, chain, o, stage0)
    if err is not None:
        return {"status": "error", "error": f"stage {err[0] + 1} {err[1]}: {err[2]}"}
    bad = verify_chain(T, stage0, chain, stages, o)
    fname = f"{job['name']}.mlir"
    header = [("source", "corpus"),
              ("corpus-file", f"shared/oracle/heuristics/{job['file']} (manifest id {job['corpus_id']})"),
              ("arch", arch), ("num_warps", o["num_warps"]), ("threads_per_warp", o["threads_per_warp"])]
    if job["group"] != "coalesce":
        header.append(("accelerate_matmul", f"nonkdim={o['nonkdim']} kpack={o['kpack']}"))
    write_stage_file(os.path.join(out_dir, "corpus", fname), header, [("input", stage0)] + stages)
    return {"status": "ok", "entry": {
        "file": f"corpus/{fname}", "source": "corpus", "corpus_id": job["corpus_id"],
        "corpus_group": job["manifest_group"], "arch": arch,
        "num_warps": o["num_warps"], "threads_per_warp": o["threads_per_warp"],
        "nonkdim": o["nonkdim"], "kpack": o["kpack"],
        "stages": [{"k": 0, "pass": "input", "changed": True}] + stage_entries(chain, stages),
        "faithful": not bad, "unfaithful_stages": bad, "roundtrip": roundtrip_ok(T, stage0),
    }}


def worker(jobs_path, results_path, out_dir):
    T = Triton()
    kinds = {"people": job_people, "lit": job_lit, "corpus": job_corpus}
    with open(results_path, "a") as res:
        for line in open(jobs_path):
            job = json.loads(line)
            t = time.time()
            # Announce the job before running it, so a crash can be pinned on it.
            res.write(json.dumps({"start": job["id"]}) + "\n")
            res.flush()
            try:
                r = kinds[job["kind"]](T, job, out_dir)
            except Exception as e:  # noqa: BLE001 - recorded, not fatal
                r = {"status": "error", "error": f"{type(e).__name__}: {e}"[:1000]}
            r["id"] = job["id"]
            r["seconds"] = round(time.time() - t, 2)
            res.write(json.dumps(r) + "\n")
            res.flush()


# ---------------------------------------------------------------------------------------------
# Parent side: jobs, workers, manifest
# ---------------------------------------------------------------------------------------------

def split_modules(text):
    """The chunks of a `-split-input-file` test; comment-only chunks dropped but counted."""
    chunks, cur = [], []
    for line in text.splitlines(keepends=True):
        if re.match(r"^// -----\s*$", line):
            chunks.append("".join(cur))
            cur = []
        else:
            cur.append(line)
    chunks.append("".join(cur))
    return chunks


def strip_comments(chunk):
    return "".join(l for l in chunk.splitlines(keepends=True) if not l.lstrip().startswith("//"))


def people_jobs():
    _, kernels = people_kernels()
    return [{"kind": "people", "id": f"people/{k[0]}.{k[6]}", "kernel": k[0], "arch": k[6]} for k in kernels]


def lit_jobs(args, out_dir, old_manifest):
    jobs, pre_skipped = [], []
    if args.lit_src:
        for path, chain in LIT_TESTS.items():
            src = os.path.join(args.lit_src, path)
            if not os.path.exists(src):
                pre_skipped.append({"path": path, "index": None, "why": "test file missing"})
                continue
            stem = os.path.splitext(os.path.basename(path))[0]
            for i, chunk in enumerate(split_modules(open(src).read())):
                body = strip_comments(chunk)
                if not body.strip():
                    pre_skipped.append({"path": path, "index": i, "why": "no module (comments only)"})
                    continue
                jobs.append({"kind": "lit", "id": f"lit/{stem}.{i}", "path": path, "stem": stem, "index": i,
                             "commit": args.lit_commit, "text": body, "chain": chain})
        return jobs, pre_skipped
    lit_dir = os.path.join(out_dir, "lit")
    for fn in sorted(os.listdir(lit_dir)) if os.path.isdir(lit_dir) else []:
        if not fn.endswith(".mlir"):
            continue
        header, stages = read_stage_file(os.path.join(lit_dir, fn))
        h = dict(header)
        path = h["lit-file"].split(" ", 1)[1]
        index = int(h["lit-module"].split()[0])
        chain = [(name, {k: (int(v) if v.isdigit() else v) for k, v in opts.items()}) for name, opts, _ in stages[1:]]
        stem = os.path.splitext(os.path.basename(path))[0]
        jobs.append({"kind": "lit", "id": f"lit/{stem}.{index}", "path": path, "stem": stem, "index": index,
                     "commit": h["lit-commit"], "text": stages[0][2], "chain": chain})
    pre_skipped = (old_manifest or {}).get("skipped", {}).get("lit", [])
    return jobs, pre_skipped


def corpus_jobs():
    man = json.load(open(os.path.join(HEUR, "manifest.json")))
    coal, mm = [], []
    for e in man:
        if e["group"] == "coalesce":
            coal.append(dict(e, arch="gfx942"))
        elif e["group"].startswith("matmul"):
            for a in CORPUS_ARCHS:
                if a in e["archs"]:
                    mm.append(dict(e, arch=a))

    def spread(xs, k):
        xs = sorted(xs, key=lambda e: (e["id"], e["arch"]))
        if len(xs) <= k:
            return xs
        return [xs[(i * len(xs)) // k] for i in range(k)]

    total = len(coal) + len(mm)
    chosen = spread(coal, CORPUS_COALESCE) + spread(mm, CORPUS_MAX - CORPUS_COALESCE) if total > 400 else coal + mm
    jobs = []
    for e in chosen:
        name = re.sub(r"[^\w.-]", "-", f"{e['id']}.{e['arch']}")
        jobs.append({"kind": "corpus", "id": f"corpus/{name}", "name": name, "file": e["file"], "corpus_id": e["id"],
                     "group": "coalesce" if e["group"] == "coalesce" else "matmul", "manifest_group": e["group"],
                     "arch": e["arch"], "nonkdim": e.get("nonkdim", 0), "kpack": e.get("kpack", 1)})
    return jobs, {"candidates": total, "coalesce_candidates": len(coal), "matmul_candidates": len(mm)}


def run_workers(jobs, out_dir, nproc):
    """Run jobs in nproc worker processes; a job during which its worker dies is a crash."""
    results = {}
    tmp = tempfile.mkdtemp(prefix="pass-fixtures-")
    shards = [jobs[i::nproc] for i in range(nproc)]
    pending = [(i, s) for i, s in enumerate(shards) if s]
    attempt = 0
    while pending:
        procs = []
        for i, shard in pending:
            attempt += 1
            jp = os.path.join(tmp, f"jobs{attempt}.jsonl")
            rp = os.path.join(tmp, f"res{attempt}.jsonl")
            with open(jp, "w") as f:
                f.writelines(json.dumps(j) + "\n" for j in shard)
            p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker", jp, rp, "--out", out_dir],
                                 stdout=subprocess.DEVNULL, stderr=open(rp + ".err", "w"))
            procs.append((i, shard, p, rp))
        pending = []
        for i, shard, p, rp in procs:
            rc = p.wait()
            started = None
            if os.path.exists(rp):
                for line in open(rp):
                    r = json.loads(line)
                    if "start" in r:
                        started = r["start"]
                    else:
                        results[r["id"]] = r
                        started = None
            done = {j["id"] for j in shard if j["id"] in results}
            if rc != 0 and started is not None:
                err = open(rp + ".err").read().strip().splitlines()[-5:]
                results[started] = {"id": started, "status": "crash", "error": f"worker rc={rc}: " + " | ".join(err)}
                done.add(started)
            rest = [j for j in shard if j["id"] not in done]
            if rest:
                pending.append((i, rest))
            print(f"  worker {i}: rc={rc}, {len(done)} done, {len(rest)} left", flush=True)
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--parts", default="people,lit,corpus")
    ap.add_argument("--lit-src", help="directory holding Triton's test/ tree at --lit-commit")
    ap.add_argument("--lit-commit", default=LIT_COMMIT)
    ap.add_argument("--only", help="only jobs whose id contains this (manifest not rewritten)")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--worker", nargs=2, metavar=("JOBS", "RESULTS"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    out_dir = os.path.abspath(args.out)
    if args.worker:
        return worker(args.worker[0], args.worker[1], out_dir)

    t0 = time.time()
    parts = args.parts.split(",")
    man_path = os.path.join(out_dir, "manifest.json")
    old = json.load(open(man_path)) if os.path.exists(man_path) else None
    jobs, pre_skipped, corpus_info = [], [], None
    if "people" in parts:
        jobs += people_jobs()
    if "lit" in parts:
        lj, pre_skipped = lit_jobs(args, out_dir, old)
        jobs += lj
    if "corpus" in parts:
        cj, corpus_info = corpus_jobs()
        jobs += cj
    if args.only:
        jobs = [j for j in jobs if args.only in j["id"]]
    for part in parts:
        d = os.path.join(out_dir, part)
        os.makedirs(d, exist_ok=True)
        if not args.only and not (part == "lit" and not args.lit_src):
            for fn in os.listdir(d):
                if fn.endswith(".mlir"):
                    os.remove(os.path.join(d, fn))
    print(f"{len(jobs)} jobs", flush=True)
    results = run_workers(jobs, out_dir, max(1, args.j))
    if args.only:
        for j in jobs:
            r = results[j["id"]]
            print(j["id"], r["status"], r.get("error", "")[:300])
        return 0

    if "lit" in parts and not args.lit_src:
        # regenerated from the written files: a file whose module now fails is removed
        for j in jobs:
            if results[j["id"]]["status"] != "ok":
                p = os.path.join(out_dir, j["id"] + ".mlir")
                if os.path.exists(p):
                    os.remove(p)

    files, skipped = [], {"people": [], "lit": list(pre_skipped), "corpus": []}
    for j in jobs:
        r = results[j["id"]]
        src = j["kind"]
        if r["status"] == "ok":
            files.append(r["entry"])
        elif src == "lit":
            skipped["lit"].append({"path": j["path"], "index": j["index"], "why": r.get("why", r["status"]),
                                   "error": r.get("error", "")})
        else:
            skipped[src].append({"id": j["id"], "why": r["status"], "error": r.get("error", "")})
    if old and not ("people" in parts and "lit" in parts and "corpus" in parts):
        keep = [e for e in old["files"] if e["source"] not in parts]
        files = keep + files
        for s in skipped:
            if s not in parts:
                skipped[s] = old.get("skipped", {}).get(s, [])
    files.sort(key=lambda e: e["file"])

    per_pass, per_source = {}, {}
    for e in files:
        ps = per_source.setdefault(e["source"], {"files": 0, "stages": 0, "stages_changed": 0, "unfaithful_files": 0})
        ps["files"] += 1
        ps["unfaithful_files"] += 0 if e["faithful"] else 1
        for s in e["stages"][1:]:
            ps["stages"] += 1
            ps["stages_changed"] += s["changed"]
            key = s["pass"]
            pp = per_pass.setdefault(key, {"stages": 0, "changed": 0, "by_source": {}})
            pp["stages"] += 1
            pp["changed"] += s["changed"]
            bs = pp["by_source"].setdefault(e["source"], {"stages": 0, "changed": 0})
            bs["stages"] += 1
            bs["changed"] += s["changed"]
    size = 0
    for dp, _, fns in os.walk(out_dir):
        for fn in fns:
            if fn.endswith(".mlir"):
                size += os.path.getsize(os.path.join(dp, fn))
    import triton
    manifest = {
        "generated_by": "scripts/pass_fixtures.py",
        "triton": triton.__version__,
        "command": "../shared/oracle/oracle-python scripts/pass_fixtures.py",
        "people_chain": ["convert_to_ttgpuir"] + PEOPLE_CHAIN, "in_thread_transpose_tail": ITT_TAIL,
        "coalesce_chain": COALESCE_CHAIN, "matmul_chain": MATMUL_CHAIN,
        "lit": {"repo": LIT_REPO, "commit": args.lit_commit,
                "tests": {p: [stage_label(n, o) for n, o in c] for p, c in LIT_TESTS.items()}},
        "corpus": corpus_info or (old or {}).get("corpus"),
        "totals": {"files": len(files), "mlir_bytes": size, "per_source": per_source, "per_pass": per_pass,
                   "skipped": {k: len(v) for k, v in skipped.items()},
                   "single_pm_disagrees": [e["file"] for e in files if e.get("single_pm_agrees") not in (None, True)],
                   "unfaithful": [e["file"] for e in files if not e["faithful"]]},
        "skipped": skipped,
        "files": files,
    }
    with open(man_path, "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    print(json.dumps(manifest["totals"], indent=1))
    print(f"{time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
