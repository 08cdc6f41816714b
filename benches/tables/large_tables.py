"""Writes the large synthetic tables the rLR subsample start and auto's timing
are measured on (seeded numpy, 20% of labels flipped to a uniformly chosen
other class), and scores a scan of one against its truth.

usage: python3 large_tables.py OUTDIR KIND ROWS [SEED]
         KIND: gauss  4 Gaussian classes, 10 columns, means N(0, 1)
               quad   2 classes with one mean, variances 1 and 2, 20 columns
               logit  2 classes, P(1 | x) = logistic(x . w), 10 t(3) columns
               wide   2 Gaussian classes, 100 columns, means N(0, 0.35)
               xor    2 classes of 2 clusters each at (+-2, +-2) in the first 2
                      of 5 columns, class = sign of the product
         ROWS like 60k or 100000; SEED default 11. Writes KIND_ROWS.csv
         (id, f1.., label) and KIND_ROWS.truth.csv (row, true_label, flipped).
       python3 large_tables.py --score TRUTH RANKING
         RANKING: `relabel scan --out` CSV; prints the AUROC of p_mislabel
         for the flipped rows (ties averaged) and the count flagged at 0.5."""
import csv
import os
import sys

import numpy as np


def draw(kind, n, rng):
    if kind == "gauss":
        means = rng.normal(0, 1.0, size=(4, 10))
        y = rng.integers(0, 4, size=n)
        return means[y] + rng.normal(size=(n, 10)), y, 4
    if kind == "quad":
        y = rng.integers(0, 2, size=n)
        scale = np.where(y == 1, np.sqrt(2.0), 1.0)[:, None]
        return rng.normal(size=(n, 20)) * scale, y, 2
    if kind == "logit":
        x = rng.standard_t(3, size=(n, 10))
        w = rng.normal(size=10)
        y = (rng.random(n) < 1 / (1 + np.exp(-x @ w))).astype(int)
        return x, y, 2
    if kind == "wide":
        means = rng.normal(0, 0.35, size=(2, 100))
        y = rng.integers(0, 2, size=n)
        return means[y] + rng.normal(size=(n, 100)), y, 2
    if kind == "xor":
        x = rng.normal(size=(n, 5))
        corner = rng.choice([-2.0, 2.0], size=(n, 2))
        x[:, :2] += corner
        return x, (corner[:, 0] * corner[:, 1] > 0).astype(int), 2
    sys.exit(f"unknown kind {kind}")


def rows(s):
    s = s.lower()
    mult = {"k": 1_000, "m": 1_000_000}.get(s[-1], 1)
    return int(float(s.rstrip("km")) * mult)


def write(out, kind, n_text, seed):
    rng = np.random.default_rng(seed)
    x, y, k = draw(kind, rows(n_text), rng)
    flip = rng.random(len(y)) < 0.2
    given = np.where(flip, (y + rng.integers(1, k, size=len(y))) % k, y)
    stem = os.path.join(out, f"{kind}_{n_text}")
    with open(stem + ".csv", "w") as f:
        f.write(",".join(["id"] + [f"f{j + 1}" for j in range(x.shape[1])] + ["label"]) + "\n")
        for i in range(len(y)):
            f.write(f"s{i}," + ",".join(f"{v:.5g}" for v in x[i]) + f",c{given[i]}\n")
    with open(stem + ".truth.csv", "w") as f:
        f.write("row,true_label,flipped\n")
        for i in range(len(y)):
            f.write(f"{i},c{y[i]},{str(bool(flip[i])).lower()}\n")


def score(truth_path, ranking_path):
    from sklearn.metrics import roc_auc_score

    with open(truth_path) as f:
        flipped = [r["flipped"] == "true" for r in csv.DictReader(f)]
    with open(ranking_path) as f:
        ranked = list(csv.DictReader(f))
    p = [0.0] * len(flipped)
    for r in ranked:
        p[int(r["row"])] = float(r["p_mislabel"])
    print(f"auroc {roc_auc_score(flipped, p):.4f} flagged {sum(v >= 0.5 for v in p)}"
          f" flipped {sum(flipped)}")


if __name__ == "__main__":
    if sys.argv[1] == "--score":
        score(sys.argv[2], sys.argv[3])
    else:
        os.makedirs(sys.argv[1], exist_ok=True)
        write(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 11)
