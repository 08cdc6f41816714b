"""The pipeline a curator would run instead of relabel: 5-fold cross-validated
out-of-fold probabilities from a scikit-learn model, then cleanlab. Reads a noisy
copy and its truth file as written by `relabel eval DATA --write-noisy NOISY.csv`,
so both tools rank exactly the same labels.

usage: python3 benches/peer/peer_detection.py NOISY.csv [--models lr,qda,nb,rf]
       python3 benches/peer/peer_detection.py TABLE.csv --suspects SUSPECTS.csv
(the second scores against the ids a suspects file lists, for a table whose
wrong labels are known from the literature, e.g. sample_data/breast_west.csv.gz)
prints: model, AUROC of cleanlab's label quality score against the flips,
number flagged by find_label_issues, number flipped, seconds (whole pipeline
after the read)."""
import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from cleanlab.filter import find_label_issues
from cleanlab.rank import get_label_quality_scores
from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

MODELS = {
    "lr": lambda: make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
    "qda": lambda: QuadraticDiscriminantAnalysis(reg_param=0.1),
    "nb": lambda: GaussianNB(),
    # scikit-learn's defaults (100 fully grown trees, sqrt(d) features a split).
    "rf": lambda: RandomForestClassifier(random_state=0),
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("noisy")
    ap.add_argument("--models", default="lr,qda,nb")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--suspects", help="CSV with an id column: the labels known to be wrong")
    a = ap.parse_args()
    noisy = Path(a.noisy)
    table = pd.read_csv(noisy)
    if a.suspects:
        flips = table["id"].astype(str).isin(pd.read_csv(a.suspects)["id"].astype(str)).to_numpy()
    else:
        truth = noisy.with_name(noisy.name.split(".")[0] + ".truth.csv")
        flips = pd.read_csv(truth)["flipped"].to_numpy().astype(bool)
    label = "label" if "label" in table.columns else table.columns[-1]
    features = table.drop(columns=[c for c in ("id", label) if c in table.columns])
    # String columns (house votes' y / n / ?) as 0/1 columns, as a user would.
    x = pd.get_dummies(features, dtype=float).to_numpy(float)
    classes, y = np.unique(table[label].astype(str), return_inverse=True)
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=a.seed)
    for name in a.models.split(","):
        started = time.perf_counter()
        try:
            proba = cross_val_predict(MODELS[name](), x, y, cv=folds, method="predict_proba")
        except (ValueError, np.linalg.LinAlgError) as e:
            # QDA on more features than samples per class: the peer a user
            # would try refuses the table; say so rather than stop.
            print(f"{name:<4} failed: {str(e).splitlines()[0][:120]}", flush=True)
            continue
        quality = get_label_quality_scores(y, proba)
        flagged = find_label_issues(y, proba)
        seconds = time.perf_counter() - started
        auroc = roc_auc_score(flips, -quality) if 0 < flips.sum() < len(flips) else float("nan")
        print(f"{name:<4} AUROC {auroc:.3f} flagged {int(flagged.sum())} flipped {int(flips.sum())} "
              f"seconds {seconds:.2f}", flush=True)


if __name__ == "__main__":
    main()
