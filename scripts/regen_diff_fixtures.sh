#!/usr/bin/env bash
# Regenerate the differential-test fixtures in tests/fixtures/diff/:
#   1. requests.jsonl      <- scripts/gen_diff_requests.py (plain python3, seeded)
#   2. triton-3.6.0.jsonl  <- Triton 3.6.0's answers (the oracle's triton_batch.py)
#
# Usage: scripts/regen_diff_fixtures.sh
# Environment:
#   ORACLE   directory of the Triton oracle (holding oracle-python and
#            triton_batch.py); default: ../shared/oracle beside the repository
#   PYTHON   interpreter for the generator (default: python3)
#   SEED     generator seed  (default: 1)
#   COUNT    number of requests (default: 2600)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ORACLE="${ORACLE:-$ROOT/../shared/oracle}"
PYTHON="${PYTHON:-python3}"
SEED="${SEED:-1}"
COUNT="${COUNT:-2600}"
OUT="$ROOT/tests/fixtures/diff"

if [ ! -x "$ORACLE/oracle-python" ] || [ ! -f "$ORACLE/triton_batch.py" ]; then
  echo "regen_diff_fixtures: no oracle at $ORACLE (set ORACLE=/path/to/shared/oracle)" >&2
  exit 1
fi
version="$("$ORACLE/oracle-python" -c 'import triton; print(triton.__version__)')"
if [ "$version" != "3.6.0" ]; then
  echo "regen_diff_fixtures: the oracle has Triton $version, expected 3.6.0" >&2
  exit 1
fi

mkdir -p "$OUT"
"$PYTHON" "$ROOT/scripts/gen_diff_requests.py" --seed "$SEED" --count "$COUNT" \
  --out "$OUT/requests.jsonl"
"$ORACLE/oracle-python" "$ORACLE/triton_batch.py" \
  < "$OUT/requests.jsonl" > "$OUT/triton-3.6.0.jsonl.tmp"

nreq="$(wc -l < "$OUT/requests.jsonl")"
nresp="$(wc -l < "$OUT/triton-3.6.0.jsonl.tmp")"
if [ "$nreq" != "$nresp" ]; then
  echo "regen_diff_fixtures: $nreq requests but $nresp responses" >&2
  exit 1
fi
mv "$OUT/triton-3.6.0.jsonl.tmp" "$OUT/triton-3.6.0.jsonl"
echo "regen_diff_fixtures: $nreq requests (seed $SEED) answered by Triton $version in $OUT" >&2
