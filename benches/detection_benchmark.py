"""The public detection benchmark of issue 10: relabel's models and its default
against the peer pipeline (5-fold cross-validated scikit-learn model + cleanlab)
on the same noisy copies of six real tables.

usage: python3 benches/detection_benchmark.py --bin target/release/relabel \\
           --out /tmp/bench [--repeats 3] [--datasets iris,wine,...]

For every table, noise kind (symmetric 20%, pair 30%) and seed 0..repeats-1:
  relabel eval DATA --noise K --rate R --seed S --write-noisy NOISY.csv
  python3 benches/peer/peer_detection.py NOISY.csv --seed S   (lr, qda, nb)
and once per table and noise kind:
  relabel eval DATA --models auto,rnda,rlr,shift,rmda,cbt --noise K --rate R
               --repeats N --seed 0
(eval's draw r uses noise seed r, the same labels the peer ranks). Prints a
markdown table of mean AUROC, and the flagged / expected / flipped counts."""
import argparse
import re
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATASETS = ["iris", "wine", "breast_cancer", "digits", "house_votes_84", "colon"]
NOISE = [("symmetric", 0.2), ("pair", 0.3)]
MODELS = "auto,rnda,rlr,shift,rmda,cbt"
PEERS = ["lr", "qda", "nb"]


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def peer(bin_, data, kind, rate, repeats, out):
    scores = {p: [] for p in PEERS}
    flagged = {p: [] for p in PEERS}
    for seed in range(repeats):
        noisy = out / f"{data.stem}.{kind}.{seed}.csv"
        noisy.unlink(missing_ok=True)  # relabel never overwrites a file
        run([bin_, "eval", str(data), "--models", "auto", "--noise", kind, "--rate", str(rate),
             "--seed", str(seed), "--write-noisy", str(noisy)])
        text = run([sys.executable, str(ROOT / "benches/peer/peer_detection.py"),
                    str(noisy), "--seed", str(seed)])
        for line in text.splitlines():
            m = re.match(r"(\w+)\s+AUROC (\S+) flagged (\d+) flipped (\d+)", line)
            if m:
                scores[m[1]].append(float(m[2]))
                flagged[m[1]].append(int(m[3]))
    return scores, flagged


def relabel(bin_, data, kind, rate, repeats, models):
    text = run([bin_, "eval", str(data), "--models", models, "--noise", kind,
                "--rate", str(rate), "--repeats", str(repeats), "--seed", "0", "--quiet"])
    rows = {}
    for line in text.splitlines():
        parts = line.split()
        if parts and parts[0] in models.split(","):
            rows[parts[0]] = line
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(ROOT / "target/release/relabel"))
    ap.add_argument("--out", default="/tmp/relabel-bench")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--models", default=MODELS)
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    for name in a.datasets.split(","):
        data = ROOT / "sample_data" / f"{name}.csv"
        for kind, rate in NOISE:
            scores, flagged = peer(a.bin, data, kind, rate, a.repeats, out)
            rows = relabel(a.bin, data, kind, rate, a.repeats, a.models)
            peer_cells = " | ".join(
                f"{statistics.mean(scores[p]):.3f}" if scores[p] else "-" for p in PEERS)
            print(f"## {name} {kind} {rate}", flush=True)
            print(f"peer (lr | qda | nb): {peer_cells}; cleanlab flagged "
                  + ", ".join(f"{p} {statistics.mean(flagged[p]):.0f}" for p in PEERS if flagged[p]),
                  flush=True)
            for model, line in rows.items():
                print(f"relabel {line}", flush=True)


if __name__ == "__main__":
    main()
