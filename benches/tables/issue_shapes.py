"""Writes tables of the shapes issue 47 names, to check the default on data
nobody tuned to (report them, never tune to them). Seeded numpy/scikit-learn
draws; labels flipped to a uniformly chosen other class at the rate given.

usage: python3 benches/tables/issue_shapes.py OUTDIR [SEED]
writes NAME.csv (id, features, label) and NAME.truth.csv (row, true_label,
flipped) for
  glass_like    214 x 9, 6 classes of unequal size (76/70/29/17/13/9), 20% flipped
  three_392     392 x 7, 3 classes of 2 clusters each, 15% flipped
  expr_57       57 x 6830, 8 classes, 60 informative log-scale genes, 10% flipped
  classes32     1907 x 58, 32 classes, 41 columns of many distinct values, 10% flipped
  strings_7032  7032 x 19, 2 classes (73/27), 10 string columns, 15% flipped
"""
import sys
from pathlib import Path

import numpy as np
from sklearn.datasets import make_classification


def flip(y, rate, rng):
    k = int(y.max()) + 1
    given = y.copy()
    flipped = rng.random(len(y)) < rate
    for i in np.where(flipped)[0]:
        given[i] = rng.choice([c for c in range(k) if c != y[i]])
    return given, flipped


def write(out, name, columns, y, rate, rng):
    given, flipped = flip(y, rate, rng)
    n = len(y)
    names = [c[0] for c in columns]
    with open(out / f"{name}.csv", "w") as f:
        f.write(",".join(["id"] + names + ["label"]) + "\n")
        for i in range(n):
            cells = []
            for _, col in columns:
                v = col[i]
                cells.append(v if isinstance(v, str) else f"{v:.5g}")
            f.write(",".join([f"s{i}"] + cells + [f"c{given[i]}"]) + "\n")
    with open(out / f"{name}.truth.csv", "w") as f:
        f.write("row,true_label,flipped\n")
        for i in range(n):
            f.write(f"{i},c{y[i]},{int(flipped[i])}\n")


def numeric(x):
    return [(f"f{j}", x[:, j]) for j in range(x.shape[1])]


def main():
    out = Path(sys.argv[1])
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)

    sizes = [76, 70, 29, 17, 13, 9]
    x, y = make_classification(214, 9, n_informative=6, n_redundant=2, n_classes=6,
                               n_clusters_per_class=1, weights=np.array(sizes) / 214,
                               class_sep=1.5, random_state=seed)
    write(out, "glass_like", numeric(np.exp(0.3 * x)), y, 0.2, rng)

    x, y = make_classification(392, 7, n_informative=5, n_redundant=1, n_classes=3,
                               n_clusters_per_class=2, class_sep=1.2, random_state=seed + 1)
    write(out, "three_392", numeric(x), y, 0.15, rng)

    n, p, k = 57, 6830, 8
    y = np.arange(n) % k
    x = rng.normal(8.0, 1.5, (n, p)) + rng.normal(0, 0.5, (1, p))
    for j in range(60):
        x[:, j] += 1.2 * rng.normal(size=k)[y]
    write(out, "expr_57", numeric(x), y, 0.1, rng)

    x, y = make_classification(1907, 58, n_informative=30, n_redundant=10, n_classes=32,
                               n_clusters_per_class=1, class_sep=2.0, random_state=seed + 2)
    x[:, 41:] = np.round(np.abs(x[:, 41:]) * 2)  # 17 columns of few levels
    write(out, "classes32", numeric(x), y, 0.1, rng)

    n = 7032
    x, y = make_classification(n, 19, n_informative=8, n_redundant=3, weights=[0.73],
                               class_sep=0.8, random_state=seed + 3)
    columns = []
    for j in range(19):
        if j < 10:
            levels = ["no", "yes", "maybe", "other"][: 2 + j % 3]
            cut = np.quantile(x[:, j], np.linspace(0, 1, len(levels) + 1)[1:-1])
            columns.append((f"s{j}", [levels[int(np.searchsorted(cut, v))] for v in x[:, j]]))
        else:
            columns.append((f"f{j}", x[:, j] * 30 + 60))
    write(out, "strings_7032", columns, y, 0.15, rng)


if __name__ == "__main__":
    main()
