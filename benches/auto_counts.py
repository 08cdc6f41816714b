"""The default's ranking, counts and determinism on noisy copies, draw by draw,
against the peer (5-fold scikit-learn + cleanlab) on the very same copies.

usage: python3 benches/auto_counts.py --bin target/release/relabel --out DIR \\
           [--repeats 10] [--datasets iris,wine,...] [--tables A.csv,B.csv] \\
           [--model auto] [--threads]

For every sample_data table (or a --tables file with its NAME.truth.csv beside
it), noise kind (symmetric 20%, pair 30%) and seed 0..repeats-1:
  relabel eval DATA --noise K --rate R --seed S --write-noisy COPY
  relabel scan COPY --seed 0 --model M --out RANKING --report REPORT
  python3 benches/peer/peer_detection.py COPY --seed S
and prints, per table: the mean AUROC of the output order (scikit-learn's, the
rank of each row in the ranking file as its score), the mean flagged / flipped
and sum p_mislabel / flipped, the mean |ratio - 1| of each, how often the 95%
interval held the flipped count, the best peer's AUROC and cleanlab's
find_label_issues count against the flipped count; copies where relabel says
the data cannot tell are counted apart. With --threads each scan runs again
with RAYON_NUM_THREADS=1 and 2 and under taskset -c 0, and any ranking whose
bytes differ is named."""
import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

from sklearn.metrics import roc_auc_score

ROOT = Path(__file__).resolve().parent.parent
DATASETS = ["iris", "wine", "breast_cancer", "digits", "house_votes_84", "colon"]
NOISE = [("symmetric", 0.2), ("pair", 0.3)]


def run(cmd, env=None):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout


def scan(bin_, copy, model, ranking, report, env=None, prefix=()):
    ranking.unlink(missing_ok=True)
    report.unlink(missing_ok=True)
    run([*prefix, bin_, "scan", str(copy), "--seed", "0", "--model", model, "--out", str(ranking),
         "--report", str(report), "--quiet"], env=env)


def measure(ranking, report, truth):
    flipped = {r["row"]: r["flipped"].lower() in ("1", "true") for r in csv.DictReader(open(truth))}
    rows = list(csv.DictReader(open(ranking)))
    truth_in_order = [flipped[r["row"]] for r in rows]
    auroc = roc_auc_score(truth_in_order, [-i for i in range(len(rows))])
    rep = json.load(open(report))
    k = sum(flipped.values())
    skill = rep.get("held_out_skill") or {}
    count = rep.get("wrong_labels")
    return {
        "auroc": auroc,
        "k": k,
        "flagged": rep.get("flagged", rep["flagged_at_0.5"]),
        "flagged_half": rep["flagged_at_0.5"],
        "expected": rep["expected_wrong_labels"],
        "covered": None if count is None else count["low"] <= k <= count["high"],
        "cannot_tell": skill.get("verdict") not in (None, "skill"),
        "chosen": rep["model"],
    }


def peer(copy, seed, models):
    out = {}
    text = run([sys.executable, str(ROOT / "benches/peer/peer_detection.py"), str(copy),
                "--seed", str(seed), "--models", models])
    for line in text.splitlines():
        m = re.match(r"(\w+)\s+AUROC (\S+) flagged (\d+) flipped (\d+)", line)
        if m:
            out[m[1]] = (float(m[2]), int(m[3]))
    return out


def copies(a, bin_, out):
    if a.tables:
        for t in a.tables.split(","):
            t = Path(t)
            yield t.stem, "as drawn", 0, t, t.with_name(t.stem + ".truth.csv")
        return
    for name in a.datasets.split(","):
        data = ROOT / "sample_data" / f"{name}.csv"
        for kind, rate in NOISE:
            for seed in range(a.repeats):
                where = out / f"{name}.{kind}.{seed}"
                where.mkdir(parents=True, exist_ok=True)
                copy, truth = where / f"{name}.csv", where / f"{name}.truth.csv"
                if not copy.exists():
                    run([bin_, "eval", str(data), "--noise", kind, "--rate", str(rate),
                         "--seed", str(seed), "--write-noisy", str(copy)])
                yield name, kind, seed, copy, truth


def threads_differ(bin_, copy, model, ranking, report):
    ref = ranking.read_bytes()
    odd = []
    for label, env, prefix in [("1 thread", {"RAYON_NUM_THREADS": "1"}, ()),
                               ("2 threads", {"RAYON_NUM_THREADS": "2"}, ()),
                               ("taskset -c 0", {}, ("taskset", "-c", "0"))]:
        other = ranking.with_suffix(".other.csv")
        scan(bin_, copy, model, other, report.with_suffix(".other.json"),
             env={**os.environ, **env}, prefix=prefix)
        if other.read_bytes() != ref:
            odd.append(label)
    return odd


def summary(key, draws, peers):
    told = [d for d in draws if not d["cannot_tell"]]
    line = f"## {key[0]} {key[1]}: {len(draws)} copies"
    if len(told) < len(draws):
        line += f", {len(draws) - len(told)} where relabel says the data cannot tell"
    mean = lambda f, ds: statistics.mean(f(d) for d in ds) if ds else float("nan")
    ratio_f = mean(lambda d: d["flagged"] / d["k"], told)
    ratio_h = mean(lambda d: d["flagged_half"] / d["k"], told)
    ratio_e = mean(lambda d: d["expected"] / d["k"], told)
    cover = [d["covered"] for d in told if d["covered"] is not None]
    names = [m for m in peers[0] if m != "k" and all(m in x for x in peers)] if peers else []
    best_peer = max(names, key=lambda p: mean(lambda x: x[p][0], peers)) if names else None
    peer_auc = mean(lambda x: x[best_peer][0], peers) if best_peer else float("nan")
    cl_ratio = mean(lambda x: x[best_peer][1] / x["k"], peers) if best_peer else float("nan")
    print(line)
    print(f"  AUROC {mean(lambda d: d['auroc'], draws):.4f} (best peer {best_peer} "
          f"{peer_auc:.4f}); flagged/k {ratio_f:.3f} |-1| {abs(ratio_f - 1):.3f} (at 0.5: "
          f"{ratio_h:.3f} |-1| {abs(ratio_h - 1):.3f}); "
          f"sum p/k {ratio_e:.3f} |-1| {abs(ratio_e - 1):.3f}; cleanlab ({best_peer}) "
          f"flagged/k {cl_ratio:.3f} |-1| {abs(cl_ratio - 1):.3f}; interval held k "
          f"{sum(cover)}/{len(cover)}; chosen "
          + ", ".join(sorted({d['chosen'] for d in draws})), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(ROOT / "target/release/relabel"))
    ap.add_argument("--out", default="/tmp/relabel-auto-counts")
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--tables", default="")
    ap.add_argument("--model", default="auto")
    ap.add_argument("--threads", action="store_true")
    ap.add_argument("--no-peer", action="store_true")
    ap.add_argument("--peers", default="lr,qda,nb", help="the peer's models (add rf for a forest)")
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    groups = {}
    for name, kind, seed, copy, truth in copies(a, a.bin, out):
        ranking = copy.with_name(f"{copy.stem}.ranking.{a.model}.csv")
        report = copy.with_name(f"{copy.stem}.report.{a.model}.json")
        scan(a.bin, copy, a.model, ranking, report)
        d = measure(ranking, report, truth)
        if a.threads:
            odd = threads_differ(a.bin, copy, a.model, ranking, report)
            if odd:
                print(f"  DIFFERENT BYTES: {copy} under {', '.join(odd)}", flush=True)
        p = {} if a.no_peer else peer(copy, seed, a.peers)
        if p:
            p["k"] = d["k"]
        g = groups.setdefault((name, kind), ([], []))
        g[0].append(d)
        if p:
            g[1].append(p)
        print(f"  {name} {kind} {seed}: AUROC {d['auroc']:.4f} flagged {d['flagged']} "
              f"expected {d['expected']:.1f} k {d['k']} covered {d['covered']} "
              f"cannot_tell {d['cannot_tell']} {d['chosen']} peer "
              + " ".join(f"{m} {v[0]:.3f}/{v[1]}" for m, v in p.items() if m != "k"),
              flush=True)
        if seed == a.repeats - 1 or a.tables:
            summary((name, kind), *groups[(name, kind)])


if __name__ == "__main__":
    main()
