"""Writes the scale tables of issue 11 (seeded, numpy): Gaussian classes with
label noise, as a curator's CSV (id, features, label) plus a truth file.

usage: python3 gaussian_tables.py OUTDIR [ROWS ...]
       ROWS like 10k, 200k, 1M (default: 10k 100k 200k); each makes
       gauss_ROWS.csv (ROWS x 20, 5 classes, 20% symmetric noise) and
       gauss_ROWS.truth.csv (row, true_label, flipped). Also writes
       weather_like.csv (1461 x 4, 5 classes) and wide_10k_20k.csv only when
       asked for by name ("weather", "wide")."""
import os
import sys

import numpy as np


def parse_rows(s):
    s = s.lower()
    mult = {"k": 1_000, "m": 1_000_000}.get(s[-1], 1)
    return int(float(s.rstrip("km")) * mult)


def write(path, x, labels, names=None):
    n, p = x.shape
    names = names or [f"f{j + 1}" for j in range(p)]
    with open(path, "w") as f:
        f.write(",".join(["id"] + names + ["label"]) + "\n")
        block = 20_000
        for s in range(0, n, block):
            e = min(n, s + block)
            lines = []
            for i in range(s, e):
                row = ",".join(f"{v:.5g}" for v in x[i])
                lines.append(f"s{i},{row},c{labels[i]}")
            f.write("\n".join(lines) + "\n")


def gaussian(n, p, k, rate, seed, sep=1.5):
    rng = np.random.default_rng(seed)
    means = rng.normal(0, sep, size=(k, p))
    y = rng.integers(0, k, size=n)
    x = means[y] + rng.normal(size=(n, p))
    flip = rng.random(n) < rate
    other = (y + rng.integers(1, k, size=n)) % k
    given = np.where(flip, other, y)
    return x, y, given, flip


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out, exist_ok=True)
    wanted = sys.argv[2:] or ["10k", "100k", "200k"]
    for w in wanted:
        if w == "weather":
            x, y, g, fl = gaussian(1461, 4, 5, 0.2, 7, sep=1.0)
            stem = "weather_like"
        elif w == "wide":
            x, y, g, fl = gaussian(10_000, 20_000, 2, 0.2, 11, sep=0.05)
            stem = "wide_10k_20k"
        else:
            n = parse_rows(w)
            x, y, g, fl = gaussian(n, 20, 5, 0.2, 1, sep=1.0)
            stem = f"gauss_{w}"
        write(os.path.join(out, f"{stem}.csv"), x, g)
        with open(os.path.join(out, f"{stem}.truth.csv"), "w") as f:
            f.write("row,true_label,flipped\n")
            for i in range(len(y)):
                f.write(f"{i},c{y[i]},{str(bool(fl[i])).lower()}\n")


if __name__ == "__main__":
    main()
