#!/bin/sh
# Regenerates tests/fixtures/encodings/ with the real Triton 3.6.0 (through the oracle venv).
# Usage: scripts/regen_encoding_fixtures.sh [ORACLE_DIR]   (default /work/shared/oracle)
set -eu
ORACLE=${1:-/work/shared/oracle}
PY="$ORACLE/oracle-python"
OUT=tests/fixtures/encodings
TMP=$(mktemp -d)
mkdir -p "$OUT"
cp "$ORACLE/cases-seed1.jsonl" "$OUT/cases-seed1.jsonl"
for s in 2 3 4; do
    "$PY" "$ORACLE/gen_cases.py" --seed "$s" --per-kind 150 \
        --out "$TMP/cases-seed$s.jsonl" --rejected "$TMP/rejected-seed$s.jsonl"
done
# Keep the MLIR text (used by the round-trip test) in seeds 1 and 2 only; drop the
# informational "via" field everywhere, to keep the fixtures small.
"$PY" - "$TMP" "$OUT" <<'PYEOF'
import json, sys
tmp, out = sys.argv[1], sys.argv[2]
for s in (2, 3, 4):
    with open("%s/cases-seed%d.jsonl" % (tmp, s)) as f, open("%s/cases-seed%d.jsonl" % (out, s), "w") as g:
        for line in f:
            c = json.loads(line)
            c["expected"].pop("via", None)
            if s != 2:
                c["expected"].pop("mlir", None)
            g.write(json.dumps(c) + "\n")
n = 0
with open("%s/rejected-gen-cases.jsonl" % out, "w") as g:
    for s in (2, 3, 4):
        with open("%s/rejected-seed%d.jsonl" % (tmp, s)) as f:
            for line in f:
                c = json.loads(line)
                g.write(json.dumps({"id": "rejected-seed%d-%04d" % (s, n), "kind": c["kind"],
                                    "input": c["input"], "expected": c["expected"]}) + "\n")
                n += 1
PYEOF
for s in 11 12; do
    "$PY" scripts/gen_invalid_encodings.py --seed "$s" --per-kind 120 --oracle-dir "$ORACLE" \
        --out "$OUT/invalid-seed$s.jsonl"
done
rm -rf "$TMP"
