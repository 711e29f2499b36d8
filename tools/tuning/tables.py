#!/usr/bin/env python3
"""tables.py RESULTS_DIR: fills docs/tuning.md's two tables from a GPU run's files:
tune_single_pass.txt (the bench's output) and blocks.jsonl (01-03 at each block size)."""
import json
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
results = sys.argv[1]


def fill(marker, text):
    subprocess.run([sys.executable, os.path.join(root, "tools/results.py"), "fill",
                    os.path.join(root, "docs/tuning.md"), marker], input=text, text=True, check=True)


with open(os.path.join(results, "tune_single_pass.txt")) as f:
    lines = [l.rstrip() for l in f if l.strip()]
sizes = [x for x in lines[0].split() if x.isdigit()]
out = ["| variant | " + " | ".join(f"2^{k}" for k in sizes) + " |", "|---" * (len(sizes) + 1) + "|"]
for line in lines[1:]:
    cells = line.split()
    name, values = " ".join(cells[:-len(sizes)]), cells[-len(sizes):]
    out.append(f"| {name} | " + " | ".join(values) + " |")
fill("results:tuning_single_pass", "\n".join(out) + "\n")

rows = {}
with open(os.path.join(results, "blocks.jsonl")) as f:
    for line in f:
        if line.strip():
            d = json.loads(line)
            rows.setdefault(d["chapter"], {})[(d["block"], d["n"])] = d["ms"] * 1000
blocks = sorted({b for r in rows.values() for b, _ in r})
ns = sorted({n for r in rows.values() for _, n in r})
head = "| chapter | " + " | ".join(f"B={b}, 2^{n.bit_length() - 1}" for n in ns for b in blocks) + " |"
out = [head, "|---" * (1 + len(ns) * len(blocks)) + "|"]
for chapter in sorted(rows):
    out.append(f"| {chapter} | " + " | ".join(f"{rows[chapter].get((b, n), float('nan')):.1f}" for n in ns for b in blocks) + " |")
fill("results:tuning_blocks", "\n".join(out) + "\n")
