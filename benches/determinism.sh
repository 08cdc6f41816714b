#!/bin/sh
# Same input, same bytes: scans each FILE four ways and compares the outputs.
#   1. RAYON_NUM_THREADS=1      2. RAYON_NUM_THREADS=2
#   3. taskset -c 0 (one core)  4. while two busy loops keep both cores at 100%
# usage: benches/determinism.sh RELABEL FILE... (extra scan flags in ${SCAN_FLAGS:-})
# Prints one line per file: "same" with the digest, or "DIFFERS" and the digests;
# exits 1 if any file differs.
set -eu
bin=$1; shift
out=$(mktemp -d)
trap 'rm -rf "$out"; kill $busy 2>/dev/null || true' EXIT
busy=""
status=0
for f in "$@"; do
    RAYON_NUM_THREADS=1 "$bin" scan "$f" --seed 0 -q ${SCAN_FLAGS:-} --out "$out/1.csv"
    RAYON_NUM_THREADS=2 "$bin" scan "$f" --seed 0 -q ${SCAN_FLAGS:-} --out "$out/2.csv"
    taskset -c 0 "$bin" scan "$f" --seed 0 -q ${SCAN_FLAGS:-} --out "$out/t.csv"
    sh -c 'while :; do :; done' & b1=$!
    sh -c 'while :; do :; done' & b2=$!
    busy="$b1 $b2"
    "$bin" scan "$f" --seed 0 -q ${SCAN_FLAGS:-} --out "$out/b.csv"
    kill $b1 $b2; wait $b1 $b2 2>/dev/null || true; busy=""
    sums=$(sha256sum "$out/1.csv" "$out/2.csv" "$out/t.csv" "$out/b.csv" | cut -c1-16)
    if [ "$(echo "$sums" | sort -u | wc -l)" -eq 1 ]; then
        echo "same     $(echo "$sums" | head -1)  $f"
    else
        echo "DIFFERS  $(echo $sums)  $f"; status=1
    fi
done
exit $status
