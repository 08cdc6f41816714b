"""`relabel scan --probs` against cleanlab on the very same probabilities
(issue 48): 5-fold stratified out-of-fold probabilities of a scaled logistic
regression (seed 0), given to cleanlab's `get_label_quality_scores` (ranking)
and `find_label_issues` (count, and its ranked issues ahead of the rest),
and to `relabel scan labels.csv --probs
probs.csv` (ranking by its output order, count = p_mislabel >= 0.5 and sum of p).

usage: python3 benches/peer/probs_rank.py RELABEL TABLE.csv [TABLE.csv ...]
(TABLE.truth.csv beside each: row, true_label, flipped)"""
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from cleanlab.filter import find_label_issues
from cleanlab.rank import get_label_quality_scores
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler


def main():
    binary = sys.argv[1]
    for name in sys.argv[2:]:
        path = Path(name)
        table = pd.read_csv(path, dtype={"label": str})
        truth = pd.read_csv(path.with_name(path.stem + ".truth.csv"))
        flips = truth["flipped"].astype(str).isin(["1", "true", "True"]).to_numpy()
        classes, y = np.unique(table["label"], return_inverse=True)
        x = pd.get_dummies(table.drop(columns=["id", "label"]), dtype=float).to_numpy(float)
        folds = StratifiedKFold(5, shuffle=True, random_state=0)
        lr = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
        proba = cross_val_predict(lr, x, y, cv=folds, method="predict_proba")
        quality = get_label_quality_scores(y, proba)
        ranked_issues = find_label_issues(y, proba, return_indices_ranked_by="self_confidence")
        issues = len(ranked_issues)
        # find_label_issues' ranking: its issues first in its order, then the
        # rest by the label quality score.
        by_issues = -quality
        by_issues[ranked_issues] = 2.0 + np.arange(issues)[::-1]
        print(f"{path.stem} cleanlab AUROC {roc_auc_score(flips, -quality):.3f} "
              f"(find_label_issues order {roc_auc_score(flips, by_issues):.3f}) "
              f"flagged {issues} flipped {flips.sum()}")
        with tempfile.TemporaryDirectory() as d:
            probs = Path(d) / "probs.csv"
            labels = Path(d) / "labels.csv"
            out = Path(d) / "out.csv"
            pd.DataFrame(proba, columns=classes).assign(id=table["id"]).to_csv(probs, index=False)
            table[["id", "label"]].to_csv(labels, index=False)
            subprocess.run([binary, "scan", str(labels), "--probs", str(probs), "--out", str(out)],
                           check=True, capture_output=True)
            ranked = pd.read_csv(out)
            place = np.empty(len(table))
            rows = ranked["row"].to_numpy()
            place[rows] = -np.arange(len(rows))
            flagged = (ranked["p_mislabel"] >= 0.5).sum()
            print(f"{path.stem} relabel AUROC {roc_auc_score(flips, place):.3f} "
                  f"flagged {flagged} sum p {ranked['p_mislabel'].sum():.1f} flipped {flips.sum()}")


if __name__ == "__main__":
    main()
