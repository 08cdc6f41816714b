#!/usr/bin/env bash
# Issue 11's scale table: whole-process wall time and peak memory of
# `relabel scan FILE --model M` for every model on the Gaussian tables, and the
# peer pipeline (pandas + 5-fold cross-validated scikit-learn model + cleanlab,
# single-threaded BLAS) on the same files in the same run.
#
# usage: benches/tables/scale.sh path/to/relabel TABLEDIR [ROWS ...] [-- MODELS]
#   TABLEDIR holds gauss_ROWS.csv and its truth file, written by
#   `python3 benches/tables/gaussian_tables.py TABLEDIR 10k 100k 200k 1M`.
#   ROWS default: 10k 100k 200k; MODELS default: auto rnda rlr shift rmda cbt all.
# Prints one markdown row per (table, model): seconds, peak MB; a run over
# LIMIT seconds (default 300) is cut and shown as "> LIMIT s".
set -u
bin=$(realpath "$1") dir=$2
shift 2
rows=() models=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do rows+=("$1"); shift; done
[ $# -gt 0 ] && shift
models=("$@")
[ ${#rows[@]} -eq 0 ] && rows=(10k 100k 200k)
[ ${#models[@]} -eq 0 ] && models=(auto rnda rlr shift rmda cbt all)
limit=${LIMIT:-300}
here="$(cd "$(dirname "$0")/../.." && pwd)"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "| table | command | wall | peak memory |"
echo "| --- | --- | --- | --- |"
for r in "${rows[@]}"; do
  f="$dir/gauss_$r.csv"
  for m in "${models[@]}"; do
    rm -f "$out/r.csv"
    /usr/bin/time -o "$out/time" -f "%e %M" timeout "$limit" "$bin" scan "$f" --model "$m" \
      --out "$out/r.csv" -q >/dev/null 2>"$out/err"
    read -r secs kb <<<"$(tail -1 "$out/time")"
    if [ -f "$out/r.csv" ]; then
      echo "| gauss_$r | $m | $secs s | $((kb / 1024)) MB |"
    else
      echo "| gauss_$r | $m | > $limit s or failed: $(head -c 100 "$out/err") | |"
    fi
  done
  for p in qda lr; do
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 /usr/bin/time -o "$out/time" \
      -f "%e %M" timeout "$limit" python3 "$here/benches/peer/peer_detection.py" "$f" \
      --models "$p" >/dev/null 2>"$out/err"
    read -r secs kb <<<"$(tail -1 "$out/time")"
    echo "| gauss_$r | peer $p | $secs s | $((kb / 1024)) MB |"
  done
done
