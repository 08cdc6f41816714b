"""A series matrix of HG-U133 Plus 2 size, loaded and ranked by relabel.

usage: python3 benches/geo_series_matrix.py [--probes 54675] [--samples 200]
           [--runs 5] [--out /tmp/relabel-geo] [--bin target/release/relabel]
           [--platform] [-- EXTRA relabel ARGS]

Writes OUT/GSE900000_series_matrix.txt.gz as GEO writes one (gzip; `!Series_`
and `!Sample_` header lines with quoted values; a tab-separated table of
quoted probe ids and one column of MAS5-like signal per sample between
`!series_matrix_table_begin` and `!series_matrix_table_end`), and, with
--platform, OUT/GPL570.annot.gz with a gene symbol per probe. The values are
raw intensities: every probe a log-normal level (log2 mean 4 to 12), its
samples spread by 0.5 log2 units, and 500 probes 1.5 log2 units higher in
the second of two groups ("disease state: case" / "control", half each),
so the ranking has something to find. A fixed seed: the same bytes every run.

Then runs `relabel scan FILE --label "disease state" --quiet --out /dev/null`
RUNS times under /usr/bin/time -v and prints each run's wall time and peak
resident memory, their medians, and the matrix's own size (probes x samples
x 8 bytes) with the ratio of the median peak to it. The targets (issue 49)
are at most 10 s and at most 3 x the matrix, whole process.
"""
import argparse
import gzip
import re
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def probe_ids(p):
    # Affymetrix-like ids, unique: "1007_s_at", "1053_at", ...
    suffix = ["_at", "_s_at", "_x_at", "_a_at"]
    return [f"{1000 + i}{suffix[i % 4]}" for i in range(p)]


def write_matrix(path, p, n, seed):
    rng = np.random.default_rng(seed)
    groups = np.array(["control"] * (n // 2) + ["case"] * (n - n // 2))
    level = rng.uniform(4.0, 12.0, size=p)
    logged = level[:, None] + rng.normal(0.0, 0.5, size=(p, n))
    logged[:500, groups == "case"] += 1.5
    values = np.round(np.exp2(logged), 1)
    gsm = [f"GSM{9000000 + j}" for j in range(n)]

    def line(key, cells):
        return key + "\t" + "\t".join(f'"{c}"' for c in cells) + "\n"

    with gzip.open(path, "wt", compresslevel=6, newline="\n") as f:
        f.write('!Series_title\t"A series of HG-U133 Plus 2 size for relabel\'s benchmark"\n')
        f.write('!Series_geo_accession\t"GSE900000"\n')
        f.write('!Series_platform_id\t"GPL570"\n')
        f.write(line("!Sample_title", [f"{g}-{j + 1}" for j, g in enumerate(groups)]))
        f.write(line("!Sample_geo_accession", gsm))
        f.write(line("!Sample_source_name_ch1", ["lung tissue"] * n))
        f.write(line("!Sample_characteristics_ch1", [f"disease state: {g}" for g in groups]))
        f.write(line("!Sample_platform_id", ["GPL570"] * n))
        f.write("!series_matrix_table_begin\n")
        f.write('"ID_REF"\t' + "\t".join(f'"{g}"' for g in gsm) + "\n")
        for i, probe in enumerate(probe_ids(p)):
            f.write(f'"{probe}"\t' + "\t".join(f"{v:.1f}" for v in values[i]) + "\n")
        f.write("!series_matrix_table_end\n")


def write_platform(path, p):
    with gzip.open(path, "wt", newline="\n") as f:
        f.write("^Annotation\n!Annotation_platform = GPL570\n")
        f.write("#ID = ID from Platform data table\n#Gene symbol = Entrez Gene symbol\n")
        f.write("!platform_table_begin\nID\tGene title\tGene symbol\n")
        for i, probe in enumerate(probe_ids(p)):
            f.write(f"{probe}\tgene {i}\tG{i % 20000}\n")
        f.write("!platform_table_end\n")


def measure(cmd):
    out = subprocess.run(
        ["/usr/bin/time", "-v", *cmd], capture_output=True, text=True, check=False
    )
    if out.returncode != 0:
        sys.exit(f"relabel failed: {out.stderr}")
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", out.stderr)
    hours, minutes, seconds = (float(g) if g else 0.0 for g in wall.groups())
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", out.stderr)
    return hours * 3600 + minutes * 60 + seconds, int(rss.group(1)) * 1024


def main():
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1 :] if "--" in argv else []
    argv = argv[: argv.index("--")] if "--" in argv else argv
    ap = argparse.ArgumentParser()
    ap.add_argument("--probes", type=int, default=54675)
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seed", type=int, default=49)
    ap.add_argument("--out", default="/tmp/relabel-geo")
    ap.add_argument("--bin", default=str(ROOT / "target/release/relabel"))
    ap.add_argument("--platform", action="store_true")
    a = ap.parse_args(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    matrix = out / f"GSE900000_{a.probes}x{a.samples}_series_matrix.txt.gz"
    if not matrix.exists():
        write_matrix(matrix, a.probes, a.samples, a.seed)
    cmd = [a.bin, "scan", str(matrix), "--label", "disease state", "--quiet", "--out", "/dev/null"]
    if a.platform:
        annot = out / f"GPL570_{a.probes}.annot.gz"
        if not annot.exists():
            write_platform(annot, a.probes)
        cmd += ["--platform", str(annot)]
    cmd += extra
    print(" ".join(cmd))
    size = a.probes * a.samples * 8
    runs = []
    for r in range(a.runs):
        wall, rss = measure(cmd)
        runs.append((wall, rss))
        print(f"run {r + 1}: {wall:.2f} s, peak RSS {rss / 1e6:.0f} MB")
    wall = statistics.median(w for w, _ in runs)
    rss = statistics.median(m for _, m in runs)
    print(
        f"median of {a.runs}: {wall:.2f} s, peak RSS {rss / 1e6:.0f} MB; the matrix is "
        f"{size / 1e6:.1f} MB ({a.probes} x {a.samples} x 8 bytes), peak / matrix = {rss / size:.2f}"
    )


if __name__ == "__main__":
    main()
