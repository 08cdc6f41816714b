"""Writes the wide tables shift's theta penalty was measured on (issue 48), each
with its truth file (row, true_label, flipped). Every feature has its own scale
(exp N(0, 1)) and offset (N(0, 5^2)).

usage: python3 benches/tables/wide_sparse.py DIR

  w0-w2    100 x 5000, 2 classes 2 sd apart on 10 features, 15% one-way flips
  sa0-sa1  60 x 2000, 5 informative features 3 sd apart, 20% symmetric flips
  sb0-sb1  200 x 1000, 20 informative features 1.4 sd apart, 20% pair flips
  sc0-sc1  90 x 2000, 3 classes each 1.2 sd higher on 10 features, 15% pair flips
  da0-da1  80 x 1000, 200 informative features 0.5 sd apart (dense), 15% symmetric

Score a ranking (`relabel scan DIR/NAME.csv --out RANKING.csv`) with
`python3 benches/tables/wide_sparse.py --score DIR/NAME.truth.csv RANKING.csv`."""
import os
import sys

import numpy as np
import pandas as pd


def write(out, name, x, y, g, k_names):
    n, p = x.shape
    df = pd.DataFrame(x, columns=[f"f{j}" for j in range(p)])
    df.insert(0, "id", [f"s{i}" for i in range(n)])
    df["label"] = [k_names[v] for v in g]
    df.to_csv(os.path.join(out, name + ".csv"), index=False, float_format="%.5g")
    pd.DataFrame({"row": range(n), "true_label": [k_names[v] for v in y],
                  "flipped": (g != y).astype(int)}).to_csv(
        os.path.join(out, name + ".truth.csv"), index=False)


def one_way(out, name, seed, n=100, p=5000, inf=10, rate=0.15):
    r = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    r.shuffle(y)
    x = r.normal(size=(n, p))
    x[:, :inf] += np.where(y[:, None] == 1, 1.0, -1.0)
    x = x * np.exp(r.normal(0, 1, p)) + r.normal(0, 5, p)
    g = y.copy()
    g[r.choice(np.flatnonzero(y == 0), int(rate * n), replace=False)] = 1
    write(out, name, x, y, g, ["a", "b"])


def draw(out, name, n, p, inf, delta, rate, kind, seed, k=2):
    r = np.random.default_rng(seed)
    y = np.arange(n) % k
    r.shuffle(y)
    x = r.normal(size=(n, p))
    for c in range(k):
        cols = slice(c * inf, (c + 1) * inf) if k > 2 else slice(0, inf)
        sign = 1.0 if (k > 2 or c == 1) else -1.0
        x[y == c, cols] += sign * delta * (1 if k > 2 else 0.5) * (2 if k == 2 else 1)
    x = x * np.exp(r.normal(0, 1, p)) + r.normal(0, 5, p)
    g = y.copy()
    m = int(round(rate * n))
    if kind == "sym":
        for i in r.choice(n, m, replace=False):
            g[i] = r.choice([c for c in range(k) if c != y[i]])
    else:
        idx = r.choice(n, m, replace=False)
        g[idx] = (y[idx] + 1) % k
    write(out, name, x, y, g, [f"c{v}" for v in range(k)])


def score(truth_path, ranking_path):
    from sklearn.metrics import roc_auc_score

    flipped = pd.read_csv(truth_path)["flipped"].astype(str).isin(["1", "true", "True"])
    ranked = pd.read_csv(ranking_path).sort_values("row")
    p = ranked["p_mislabel"].to_numpy()
    # Where the pipeline found no held-out skill it flags nothing and keeps
    # the model's own scores in model_p: the ranking is scored on those.
    scores = ranked["model_p"].to_numpy() if "model_p" in ranked else p
    print(f"auroc {roc_auc_score(flipped.to_numpy(), scores):.3f} flagged {(p >= 0.5).sum()}"
          f" flipped {flipped.sum()}")


def main():
    if sys.argv[1] == "--score":
        score(sys.argv[2], sys.argv[3])
        return
    main_into(sys.argv[1])


def main_into(out):
    os.makedirs(out, exist_ok=True)
    for s in range(3):
        one_way(out, f"w{s}", s)
    for s in range(2):
        draw(out, f"sa{s}", 60, 2000, 5, 1.5, 0.2, "sym", 10 + s)
        draw(out, f"sb{s}", 200, 1000, 20, 0.7, 0.2, "pair", 20 + s)
        draw(out, f"sc{s}", 90, 2000, 10, 1.2, 0.15, "pair", 30 + s, k=3)
        draw(out, f"da{s}", 80, 1000, 200, 0.25, 0.15, "sym", 40 + s)


if __name__ == "__main__":
    main()
