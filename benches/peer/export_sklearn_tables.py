"""Writes the scikit-learn bundled UCI tables used by the public benchmark into
sample_data/ (no network: the files ship inside the scikit-learn package).

usage: python3 benches/peer/export_sklearn_tables.py sample_data
Columns: id (1-based original row), features (snake_case), label."""
import re
import sys
from pathlib import Path

from sklearn.datasets import load_breast_cancer, load_digits

out = Path(sys.argv[1] if len(sys.argv) > 1 else "sample_data")


def snake(name: str) -> str:
    return re.sub(r"[^0-9a-z]+", "_", name.lower()).strip("_")


def write(path: Path, features, names, labels) -> None:
    with path.open("w") as f:
        f.write(",".join(["id"] + names + ["label"]) + "\n")
        for i, (row, label) in enumerate(zip(features, labels)):
            cells = [f"{v:g}" for v in row]
            f.write(",".join([str(i + 1)] + cells + [label]) + "\n")


bc = load_breast_cancer()
write(
    out / "breast_cancer.csv",
    bc.data,
    [snake(n) for n in bc.feature_names],
    [bc.target_names[t] for t in bc.target],
)
digits = load_digits()
write(
    out / "digits.csv",
    digits.data,
    [f"pixel_{r}_{c}" for r in range(8) for c in range(8)],
    [f"digit_{t}" for t in digits.target],
)
