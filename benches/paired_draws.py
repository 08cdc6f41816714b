"""A paired comparison of relabel's default with the peer, draw by draw.

The benchmark (detection_benchmark.py) reports each tool's mean AUROC over the
draws. Both tools rank the same noisy copies, so the difference of the two on
each copy varies far less than either AUROC does; its mean and standard error
say whether a gap between the means is more than the draws' spread.

usage: python3 benches/paired_draws.py DATA.csv --kind pair --rate 0.3 \\
           --seeds 30 --out /tmp/paired [--bin target/release/relabel]

For each noise seed s in 0..seeds-1, in a directory of its own (the truth file
is named after the copy's stem):
  relabel eval DATA --noise K --rate R --seed s --write-noisy COPY
  relabel scan COPY --seed 0        (auto, its seed fixed as in the benchmark)
  python3 benches/peer/peer_detection.py COPY --seed s   (lr, qda, nb)
Prints each draw's AUROCs, then every peer's mean, and the mean paired
difference auto - peer with its standard error. AUROC is scikit-learn's, as
the peer's: a tie in p_mislabel counts one half (eval breaks ties in the
list's order instead, so the two can differ in the third decimal)."""
import argparse
import csv
import re
import statistics
import sys
from pathlib import Path

from sklearn.metrics import roc_auc_score

from detection_benchmark import PEERS, ROOT, run


def relabel_auroc(bin_, copy, truth):
    ranking = copy.with_name("ranking.csv")
    ranking.unlink(missing_ok=True)
    run([bin_, "scan", str(copy), "--out", str(ranking), "--seed", "0", "--quiet"])
    flipped = {r["row"]: r["flipped"] == "1" for r in csv.DictReader(open(truth))}
    rows = list(csv.DictReader(open(ranking)))
    return roc_auc_score([flipped[r["row"]] for r in rows], [float(r["p_mislabel"]) for r in rows])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("--kind", default="pair")
    ap.add_argument("--rate", type=float, default=0.3)
    ap.add_argument("--seeds", type=int, default=30)
    ap.add_argument("--out", default="/tmp/relabel-paired")
    ap.add_argument("--bin", default=str(ROOT / "target/release/relabel"))
    a = ap.parse_args()
    data = Path(a.data)
    draws = []
    for seed in range(a.seeds):
        where = Path(a.out) / f"{data.stem}.{a.kind}.{seed}"
        where.mkdir(parents=True, exist_ok=True)
        copy = where / f"{data.stem}.csv"
        truth = where / f"{data.stem}.truth.csv"
        copy.unlink(missing_ok=True)  # relabel never overwrites a file
        truth.unlink(missing_ok=True)
        run([a.bin, "eval", str(data), "--noise", a.kind, "--rate", str(a.rate),
             "--seed", str(seed), "--write-noisy", str(copy)])
        draw = {"auto": relabel_auroc(a.bin, copy, truth)}
        peer = run([sys.executable, str(ROOT / "benches/peer/peer_detection.py"), str(copy),
                    "--seed", str(seed)])
        for line in peer.splitlines():
            m = re.match(r"(\w+)\s+AUROC (\S+)", line)
            if m:
                draw[m[1]] = float(m[2])
        print(seed, " ".join(f"{k} {v:.4f}" for k, v in draw.items()), flush=True)
        draws.append(draw)
    auto = [d["auto"] for d in draws]
    print(f"auto mean {statistics.mean(auto):.4f} over {len(draws)} draws")
    for peer in PEERS:
        pairs = [(d["auto"], d[peer]) for d in draws if peer in d]
        if len(pairs) < 2:
            continue
        diff = [x - y for x, y in pairs]
        se = statistics.stdev(diff) / len(diff) ** 0.5
        print(f"{peer:<4} mean {statistics.mean(y for _, y in pairs):.4f}  auto - {peer} "
              f"{statistics.mean(diff):+.4f} ± {se:.4f} (paired se, {len(pairs)} draws)")


if __name__ == "__main__":
    main()
