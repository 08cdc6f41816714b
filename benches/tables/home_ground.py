"""Writes the models' home-ground tables (issue 48): for each seed model the
kind of table its paper is about, several draws, each with its truth file
(row, true_label, flipped), into DIR/<model>/NAME.csv.

usage: python3 benches/tables/home_ground.py DIR

  rnda/   Gaussian classes (Lawrence & Schoelkopf): g0 500 x 5, 3 classes,
          20% symmetric; g1 1000 x 10, 4 classes, 20% pair; g2 300 x 4,
          2 classes, 30% one-way; g3 2000 x 8, 5 classes, 25% symmetric.
  shift/, rlr/  wide sparse tables (Tibshirani & Manning; Bootkrajang &
          Kaban): the tables of benches/tables/wide_sparse.py (w0-w2 the
          100 x 5000, 10 informative, 15% one-way case; sa, sb, sc, da).
  rmda/   multimodal classes (Bouveyron & Girard): each class a mixture of
          2 or 3 Gaussian blobs whose blobs interleave with the other
          classes'; m0 600 x 4, 2 classes, 20% symmetric; m1 900 x 6,
          3 classes, 20% pair; m2 1200 x 5, 2 classes, 30% one-way.
  cbt/    discrete tables as Lynch & Willett's model draws them: a row's
          symbol is its joint cell over a few discrete features, each class
          with its own symbol probabilities (Dirichlet(1/2) over the M cells,
          no independence between features); d0 600 rows, 3 features of 4
          levels (M = 64), 3 classes, 20% symmetric; d1 1000 rows, 4 of 3
          (M = 81), 4 classes, 20% pair; d2 400 rows, 3 of 3 (M = 27),
          2 classes, 30% one-way; d3 800 rows, 2 of 6 (M = 36), 3 classes,
          25% symmetric.

Run relabel on them with `relabel eval --home-ground DIR` and the peer with
`python3 benches/peer/home_ground_peer.py --home DIR`."""
import os
import sys

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(__file__))
import wide_sparse  # noqa: E402


def noisy(r, y, k, rate, kind):
    g = y.copy()
    n = len(y)
    if kind == "oneway":
        # The rate is the flip probability of the source class (class 0 -> 1),
        # as for the other kinds: a share of n taken from one class of two
        # flipped 60% of it at 30%, past the diagonal dominance every robust
        # model (and the truth itself) needs to tell flips from the class.
        src = np.flatnonzero(y == 0)
        g[r.choice(src, int(round(rate * len(src))), replace=False)] = 1
        return g
    idx = r.choice(n, int(round(rate * n)), replace=False)
    if kind == "pair":
        g[idx] = (y[idx] + 1) % k
    else:
        for i in idx:
            g[i] = r.choice([c for c in range(k) if c != y[i]])
    return g


def write(out, name, x, y, g, names=None):
    os.makedirs(out, exist_ok=True)
    df = pd.DataFrame(x, columns=names or [f"f{j}" for j in range(x.shape[1])])
    df.insert(0, "id", [f"s{i}" for i in range(len(y))])
    df["label"] = [f"c{v}" for v in g]
    df.to_csv(os.path.join(out, name + ".csv"), index=False, float_format="%.5g")
    pd.DataFrame({"row": range(len(y)), "true_label": [f"c{v}" for v in y],
                  "flipped": (g != y).astype(int)}).to_csv(
        os.path.join(out, name + ".truth.csv"), index=False)


def gaussian(out, name, seed, n, p, k, rate, kind, sep=1.2):
    r = np.random.default_rng(seed)
    y = r.integers(0, k, n)
    means = r.normal(0, sep, (k, p))
    x = np.empty((n, p))
    for c in range(k):
        a = r.normal(0, 0.5, (p, p)) + np.eye(p)
        rows = y == c
        x[rows] = means[c] + r.normal(size=(rows.sum(), p)) @ a.T
    x = x * np.exp(r.normal(0, 1, p)) + r.normal(0, 3, p)
    write(out, name, x, y, noisy(r, y, k, rate, kind))


def multimodal(out, name, seed, n, p, k, rate, kind, blobs=3, sep=3.0):
    r = np.random.default_rng(seed)
    y = r.integers(0, k, n)
    centres = r.normal(0, sep, (k, blobs, p))
    b = r.integers(0, blobs, n)
    x = centres[y, b] + r.normal(size=(n, p))
    write(out, name, x, y, noisy(r, y, k, rate, kind))


def discrete(out, name, seed, n, p, levels, k, rate, kind, conc=0.5):
    r = np.random.default_rng(seed)
    y = r.integers(0, k, n)
    cells = levels ** p
    probs = r.dirichlet(np.full(cells, conc), size=k)
    symbol = np.array([r.choice(cells, p=probs[c]) for c in y])
    x = np.empty((n, p), dtype=object)
    for j in range(p):
        x[:, j] = [f"v{v}" for v in (symbol // levels ** j) % levels]
    write(out, name, x, y, noisy(r, y, k, rate, kind))


def main():
    out = sys.argv[1]
    g = os.path.join(out, "rnda")
    gaussian(g, "g0", 100, 500, 5, 3, 0.2, "sym")
    gaussian(g, "g1", 101, 1000, 10, 4, 0.2, "pair")
    gaussian(g, "g2", 102, 300, 4, 2, 0.3, "oneway")
    gaussian(g, "g3", 103, 2000, 8, 5, 0.25, "sym")
    m = os.path.join(out, "rmda")
    multimodal(m, "m0", 200, 600, 4, 2, 0.2, "sym")
    multimodal(m, "m1", 201, 900, 6, 3, 0.2, "pair")
    multimodal(m, "m2", 202, 1200, 5, 2, 0.3, "oneway", blobs=2)
    d = os.path.join(out, "cbt")
    discrete(d, "d0", 300, 600, 3, 4, 3, 0.2, "sym")
    discrete(d, "d1", 301, 1000, 4, 3, 4, 0.2, "pair")
    discrete(d, "d2", 302, 400, 3, 3, 2, 0.3, "oneway")
    discrete(d, "d3", 303, 800, 2, 6, 3, 0.25, "sym")
    for model in ("shift", "rlr"):
        wide_sparse.main_into(os.path.join(out, model))


if __name__ == "__main__":
    main()
