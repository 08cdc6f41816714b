"""The peer on the models' home-ground tables: 5-fold cross-validated
out-of-fold probabilities from a scikit-learn model, then cleanlab (as
benches/peer/peer_detection.py), with the models a curator would pick for each
kind of table: lr (scaled L2 logistic regression, C = 1), l1 (scaled L1 logistic
regression, C by 5-fold cross-validation: the lasso a p >> n table calls for),
qda (reg_param 0.1), nb (Gaussian naive Bayes), cnb (categorical naive Bayes on
the level codes, for discrete tables), rf (random forest, 200 trees).

usage: python3 benches/peer/home_ground_peer.py TABLE.csv [TABLE.csv ...] [--models lr,l1]
       python3 benches/peer/home_ground_peer.py --home DIR
(--home: the tables of benches/tables/home_ground.py, each model's directory
with the peers a curator would pick there, HOME_PEERS; then the mean AUROC
per directory and peer, to set beside `relabel eval --home-ground DIR`)
Each TABLE.csv needs TABLE.truth.csv beside it (a `flipped` column: 1/0 or true/false).
prints per table and model: AUROC of cleanlab's label quality score against the flips,
number flagged by find_label_issues, number flipped."""
import argparse
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from cleanlab.filter import find_label_issues
from cleanlab.rank import get_label_quality_scores
from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression, LogisticRegressionCV
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.multiclass import OneVsRestClassifier
from sklearn.naive_bayes import CategoricalNB, GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OrdinalEncoder, StandardScaler

MODELS = {
    "lr": lambda: make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
    # liblinear's coordinate descent (saga took minutes on 100 x 5000); one
    # binary lasso per class, as liblinear fits several classes.
    "l1": lambda: make_pipeline(
        StandardScaler(),
        OneVsRestClassifier(LogisticRegressionCV(Cs=10, penalty="l1", solver="liblinear", random_state=0,
                                                 cv=5, max_iter=2000)),
    ),
    "qda": lambda: QuadraticDiscriminantAnalysis(reg_param=0.1),
    "nb": lambda: GaussianNB(),
    # On the table's level codes (coded once for the whole table: a level
    # met only in a test fold has no negative code then).
    "cnb": lambda: CategoricalNB(min_categories=64),
    # The joint cell's class frequencies (add-one), what a curator would
    # count by hand on a table of a few discrete features.
    "cell": lambda: CategoricalNB(alpha=1.0, min_categories=4096),
    "rf": lambda: RandomForestClassifier(n_estimators=200, random_state=0, n_jobs=1),
}


HOME_PEERS = {
    "rnda": "lr,qda,nb,rf",
    "shift": "lr,l1",
    "rlr": "lr,l1",
    "rmda": "lr,qda,rf",
    "cbt": "lr,cnb,rf,cell",
}


def truth_of(table):
    path = table.with_name(table.name[: -len(".csv")] + ".truth.csv")
    return pd.read_csv(path)["flipped"].astype(str).isin(["1", "true", "True"]).to_numpy()


def main() -> None:
    warnings.filterwarnings("ignore")
    ap = argparse.ArgumentParser()
    ap.add_argument("tables", nargs="*")
    ap.add_argument("--home")
    ap.add_argument("--models", default="lr,l1")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    if a.home:
        home(a)
        return
    for name in a.tables:
        for model, auroc, flagged, flipped in scored(Path(name), a.models, a.seed):
            stem = Path(name).stem
            if auroc is None:
                print(f"{stem} {model} failed: {flagged}")
            else:
                print(f"{stem} {model} AUROC {auroc:.3f} flagged {flagged} flipped {flipped}")


def home(a):
    for model_dir in sorted(Path(a.home).iterdir()):
        peers = HOME_PEERS.get(model_dir.name)
        if not peers:
            continue
        means = {}
        for table in sorted(model_dir.glob("*.csv")):
            if table.name.endswith(".truth.csv"):
                continue
            for peer, auroc, flagged, flipped in scored(table, peers, a.seed):
                if auroc is None:
                    print(f"{model_dir.name}/{table.stem} {peer} failed: {flagged}")
                    continue
                means.setdefault(peer, []).append(auroc)
                print(f"{model_dir.name}/{table.stem} {peer} AUROC {auroc:.3f} flagged {flagged}"
                      f" flipped {flipped}", flush=True)
        for peer, v in means.items():
            print(f"{model_dir.name} mean {peer} AUROC {np.mean(v):.3f} over {len(v)} tables",
                  flush=True)


def scored(table_path, models, seed):
    """(peer, AUROC, flagged, flipped) per peer on one table; AUROC None
    and the error in place of flagged when the peer failed."""
    table = pd.read_csv(table_path, dtype={"label": str}, keep_default_na=False)
    flips = truth_of(table_path)
    label = "label" if "label" in table.columns else table.columns[-1]
    features = table.drop(columns=[c for c in ("id", label) if c in table.columns])
    classes, y = np.unique(table[label].astype(str), return_inverse=True)
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=seed)
    for model in models.split(","):
        if model == "cnb":
            x = OrdinalEncoder().fit_transform(features.astype(str))
        elif model == "cell":
            joint = features.astype(str).agg("|".join, axis=1).to_frame()
            x = OrdinalEncoder().fit_transform(joint)
        else:
            x = pd.get_dummies(features, dtype=float).to_numpy(float)
        try:
            proba = cross_val_predict(MODELS[model](), x, y, cv=folds, method="predict_proba")
        except (ValueError, np.linalg.LinAlgError) as e:
            yield model, None, str(e).splitlines()[0], flips.sum()
            continue
        quality = get_label_quality_scores(y, proba)
        flagged = find_label_issues(y, proba).sum()
        auroc = roc_auc_score(flips, -quality)
        yield model, auroc, flagged, flips.sum()


if __name__ == "__main__":
    main()
