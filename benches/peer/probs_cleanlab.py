"""One-off peer check for `relabel --probs` (issue 13.3): the same out-of-fold
probabilities given to relabel's `probs` model and to cleanlab's confident
joint; prints both flip tables P(given | true) (rows = true class) and the
true one from the noise injection's truth file.

    python3 benches/peer/probs_cleanlab.py sample_data/wine_noisy.csv \
        sample_data/wine_noisy.truth.csv target/debug/relabel

Out-of-fold probabilities: 5-fold stratified logistic regression on the
standardised features (scikit-learn), seed 0.
"""
import csv
import subprocess
import sys
import tempfile

import numpy as np
from cleanlab.count import compute_confident_joint, estimate_latent
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

data, truth, binary = sys.argv[1], sys.argv[2], sys.argv[3]
rows = list(csv.DictReader(open(data)))
classes = list(dict.fromkeys(r["label"] for r in rows))
features = [c for c in rows[0] if c not in ("id", "label")]
X = np.array([[float(r[c]) for c in features] for r in rows])
y = np.array([classes.index(r["label"]) for r in rows])
model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
folds = StratifiedKFold(5, shuffle=True, random_state=0)
proba = cross_val_predict(model, X, y, cv=folds, method="predict_proba")

with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
    w = csv.writer(f)
    w.writerow(["id"] + classes)
    for r, p in zip(rows, proba):
        w.writerow([r["id"]] + [f"{v:.6f}" for v in p])
    probs_path = f.name
print(f"probabilities: {probs_path}")

k = len(classes)
fmt = lambda m: "\n".join(
    f"| {classes[t]} | " + " | ".join(f"{m[t][j]:.3f}" for j in range(k)) + " |" for t in range(k)
)

# Truth: P(given | true) counted from the injection.
t_rows = list(csv.DictReader(open(truth)))
counts = np.zeros((k, k))
for r in t_rows:
    counts[classes.index(r["true_label"]), classes.index(r["noisy_label"])] += 1
print("true flip table (counted)\n" + fmt(counts / counts.sum(1, keepdims=True)))

# cleanlab: noise_matrix[i][j] = P(given = i | true = j) -> transpose.
cj = compute_confident_joint(y, proba)
py, noise_matrix, inv = estimate_latent(cj, y)
print("cleanlab confident joint (counts, rows = given, cols = true)\n" + str(cj))
print("cleanlab noise matrix P(given | true)\n" + fmt(noise_matrix.T))
flagged = cj.sum() - np.trace(cj)
print(f"cleanlab off-diagonal count: {flagged}")

with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
    report = f.name
subprocess.run([binary, "scan", "--probs", probs_path, data, "--out", "/dev/null", "--report", report], check=True)
import json
rep = json.load(open(report))
g = rep["gamma"]["values"]
print("relabel probs P(given | true)\n" + fmt(g))
print("relabel notes:", rep["extra"]["notes"], "iterations:", rep["iterations"])
