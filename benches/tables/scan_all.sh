#!/usr/bin/env bash
# Scans every sample file with every model into OUTDIR (ranking, report with
# the wall time removed, stdout, stderr, exit code), so that two builds can be
# compared with `diff -r` after a change that must not alter behaviour.
# usage: benches/tables/scan_all.sh path/to/relabel OUTDIR
set -u
bin=$1 out=$2
cd "$(dirname "$0")/../.." || exit 1
mkdir -p "$out"
for f in iris iris_noisy wine wine_noisy colon house_votes_84; do
  for m in rnda nda rlr lr shift rmda mda lda cbt auto all; do
    base="$out/$f.$m"
    timeout 300 "$bin" scan "sample_data/$f.csv" --model "$m" --out "$base.csv" \
      --report "$base.json" >"$base.stdout" 2>"$base.stderr"
    echo $? >"$base.rc"
    if [ -f "$base.json" ]; then
      python3 - "$base.json" <<'PY'
import json, sys
path = sys.argv[1]
def strip(o):
    if isinstance(o, dict):
        return {k: strip(v) for k, v in o.items() if k != "wall_seconds"}
    if isinstance(o, list):
        return [strip(v) for v in o]
    return o
with open(path) as f:
    report = strip(json.load(f))
with open(path, "w") as f:
    json.dump(report, f, indent=1, sort_keys=True)
PY
    fi
  done
done
