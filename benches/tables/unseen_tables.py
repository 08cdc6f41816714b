"""Writes three tables of shapes the public benchmark does not have, to check
the default on data nobody tuned to (never a benchmark to tune against):
imbalanced classes, twenty classes, and classes of several clusters each.
scikit-learn's make_classification draws them; labels are flipped to a
uniformly chosen other class.

usage: python3 unseen_tables.py OUTDIR [--large]
       writes NAME.csv (id, f0.., label) and NAME.truth.csv (id, flipped) for
       imbalanced_5k (5000 x 10, 85/15, 10% flipped), classes20_4k (4000 x 15,
       20 classes of 2 clusters, 15% flipped) and multimodal_3k (3000 x 8,
       3 classes of 3 clusters, 20% flipped); with --large also
       multimodal_200k (the same recipe on 200000 rows, its own noise draw:
       whether auto's choice holds where the dear models take their
       large-table paths).

The peer for each (5-fold cross-validated scaled logistic regression and
cleanlab's find_label_issues): python3 unseen_tables.py --peer OUTDIR/NAME.csv"""
import sys

import numpy as np
import pandas as pd


def write(out, name, x, y, rate, rng):
    k = len(np.unique(y))
    n = len(y)
    flip = rng.random(n) < rate
    given = y.copy()
    for i in np.where(flip)[0]:
        given[i] = rng.choice([c for c in range(k) if c != y[i]])
    df = pd.DataFrame(x, columns=[f"f{j}" for j in range(x.shape[1])])
    df.insert(0, "id", [f"s{i}" for i in range(n)])
    df["label"] = [f"c{v}" for v in given]
    df.to_csv(f"{out}/{name}.csv", index=False)
    pd.DataFrame({"id": df.id, "flipped": flip}).to_csv(f"{out}/{name}.truth.csv", index=False)


def tables(out, large=False):
    from sklearn.datasets import make_classification

    rng = np.random.default_rng(7)
    x, y = make_classification(n_samples=5000, n_features=10, n_informative=6, n_redundant=2,
                               weights=[0.85, 0.15], class_sep=1.0, random_state=1)
    write(out, "imbalanced_5k", x, y, 0.10, rng)
    x, y = make_classification(n_samples=4000, n_features=15, n_informative=10, n_redundant=3,
                               n_classes=20, n_clusters_per_class=2, class_sep=2.0, random_state=2)
    write(out, "classes20_4k", x, y, 0.15, rng)
    x, y = make_classification(n_samples=3000, n_features=8, n_informative=5, n_classes=3,
                               n_clusters_per_class=3, class_sep=1.5, random_state=3)
    write(out, "multimodal_3k", x, y, 0.2, rng)
    if large:
        x, y = make_classification(n_samples=200000, n_features=8, n_informative=5, n_classes=3,
                                   n_clusters_per_class=3, class_sep=1.5, random_state=3)
        write(out, "multimodal_200k", x, y, 0.2, np.random.default_rng(8))


def peer(path):
    from cleanlab.filter import find_label_issues
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import cross_val_predict
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    truth = pd.read_csv(path.replace(".csv", ".truth.csv"))
    df = pd.read_csv(path)
    x = df.drop(columns=["id", "label"]).values
    y = pd.factorize(df.label, sort=True)[0]
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    p = cross_val_predict(model, x, y, cv=5, method="predict_proba")
    score = 1 - p[np.arange(len(y)), y]
    issues = find_label_issues(y, p)
    print(f"peer AUROC {roc_auc_score(truth.flipped, score):.4f} flagged {issues.sum()} "
          f"flipped {truth.flipped.sum()}")


if __name__ == "__main__":
    if sys.argv[1] == "--peer":
        peer(sys.argv[2])
    else:
        tables(sys.argv[1], large="--large" in sys.argv[2:])
