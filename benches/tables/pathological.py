"""Writes the pathological shapes of issue 12 (seeded): wide3.csv (3 x 5000),
k100.csv (200 rows, 100 classes, 5 features). usage: python3 pathological.py OUTDIR"""
import os
import random
import sys

out = sys.argv[1] if len(sys.argv) > 1 else "."
random.seed(1)
with open(os.path.join(out, "wide3.csv"), "w") as f:
    f.write(",".join(["id"] + [f"g{j}" for j in range(5000)] + ["label"]) + "\n")
    for i in range(3):
        row = [f"{random.gauss(0, 1):.4f}" for _ in range(5000)]
        f.write(",".join([f"s{i}"] + row + ["ab"[i % 2]]) + "\n")
with open(os.path.join(out, "k100.csv"), "w") as f:
    f.write("id,f1,f2,f3,f4,f5,label\n")
    for i in range(200):
        c = i % 100
        row = [f"{random.gauss(c * 0.1, 1):.4f}" for _ in range(5)]
        f.write(",".join([f"s{i}"] + row + [f"c{c}"]) + "\n")
