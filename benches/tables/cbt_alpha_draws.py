#!/usr/bin/env python3
"""Six draws of five shapes from cbt's own model (home_ground.py's `discrete`
generator) and `relabel scan T --model cbt` on each: AUROC of the output order
against the flips, per draw and on average. The RESULTS cbt notes compare its
figures for the classes' own alphas (build 73c69a0) and for one alpha unless the
classes' own pay BIC's price (the rule since).

    python3 benches/tables/cbt_alpha_draws.py [--bin target/release/relabel] [--out /tmp/cbtd]
"""
import argparse
import os
import subprocess
import sys

import numpy as np
import pandas as pd
from sklearn.metrics import roc_auc_score

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import home_ground as hg  # noqa: E402

# name, rows, features, levels, classes, rate, kind, seed offset
SHAPES = [
    ("d0", 600, 3, 4, 3, 0.2, "sym", 39),
    ("d2", 400, 3, 3, 2, 0.3, "oneway", 51),
    ("d3", 800, 2, 6, 3, 0.25, "sym", 9),
    ("d1", 1000, 4, 3, 4, 0.2, "pair", 56),
    ("big", 3000, 2, 4, 2, 0.2, "oneway", 52),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/release/relabel")
    ap.add_argument("--out", default="/tmp/cbtd")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for name, n, p, levels, k, rate, kind, off in SHAPES:
        aucs = []
        for seed in range(6):
            stem = f"{name}_{seed}"
            hg.discrete(a.out, stem, 1000 + seed * 7 + off, n, p, levels, k, rate, kind)
            rank = os.path.join(a.out, stem + ".rank.csv")
            subprocess.run([a.bin, "scan", os.path.join(a.out, stem + ".csv"), "--model", "cbt",
                            "--out", rank, "-q"], check=True)
            truth = pd.read_csv(os.path.join(a.out, stem + ".truth.csv"))
            r = pd.read_csv(rank)
            aucs.append(roc_auc_score(truth.flipped.values[r.row.values], -np.arange(len(r))))
        print(name, " ".join(f"{v:.3f}" for v in aucs), f"mean {np.mean(aucs):.3f}")


if __name__ == "__main__":
    main()
