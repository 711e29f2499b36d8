#!/usr/bin/env python3
"""tables.py: fills docs/tuning.md's two tables from a GPU run's files: tune_single_pass.txt (the
bench's output) and blocks.jsonl (01-03 at each block size); tools/publish.py calls
fill_tables(run, root, on), `on` naming the machine (the run's GPU, CUDA, driver and date)."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from results import fill_file  # noqa: E402  (tools/results.py)


def single_pass_table(path):
    """The bench's table (a header "variant / log2(n): 16 20 ...", then one line per variant) in Markdown."""
    with open(path, encoding="utf-8") as f:
        lines = [line.rstrip() for line in f if line.strip()]
    sizes = [x for x in lines[0].split() if x.isdigit()]
    out = ["| variant | " + " | ".join(f"2^{k}" for k in sizes) + " |", "|---" * (len(sizes) + 1) + "|"]
    for line in lines[1:]:
        cells = line.split()
        if len(cells) <= len(sizes):
            continue
        name, values = " ".join(cells[:-len(sizes)]), cells[-len(sizes):]
        out.append(f"| {name} | " + " | ".join(values) + " |")
    return "\n".join(out)


def blocks_table(path):
    """01-03's --json runs at each block size: µs per (block, n); returns (table, repetitions)."""
    rows, reps, flush = {}, set(), set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip().startswith("{"):
                d = json.loads(line)
                rows.setdefault(d["chapter"], {})[(d["block"], d["n"])] = d["ms"] * 1000
                if isinstance(d.get("reps"), int):
                    reps.add(d["reps"])
                if isinstance(d.get("flush"), bool):
                    flush.add(d["flush"])
    blocks = sorted({b for r in rows.values() for b, _ in r})
    ns = sorted({n for r in rows.values() for _, n in r})
    head = "| chapter | " + " | ".join(f"B={b}, 2^{n.bit_length() - 1}" for n in ns for b in blocks) + " |"
    out = [head, "|---" * (1 + len(ns) * len(blocks)) + "|"]
    for chapter in sorted(rows):
        cells = [f"{rows[chapter][(b, n)]:.1f}" if (b, n) in rows[chapter] else "—" for n in ns for b in blocks]
        out.append(f"| {chapter} | " + " | ".join(cells) + " |")
    return "\n".join(out), sorted(reps), flush


def fill_tables(results, root, on=None, only=None):
    """Fills what results has files for (only the table of file `only`, when given); returns the
    markers filled."""
    page = os.path.join(root, "docs", "tuning.md")
    where = f"On the {on}" if on else "From one GPU run"
    filled = []
    single = os.path.join(results, "tune_single_pass.txt")
    if os.path.exists(single) and only in (None, "tune_single_pass.txt"):
        text = (f"{where}: `tune_single_pass`, the median time in µs of each variant (one run).\n\n"
                + single_pass_table(single))
        if fill_file(page, "results:tuning_single_pass", text + "\n"):
            filled.append("results:tuning_single_pass")
    blocks = os.path.join(results, "blocks.jsonl")
    if os.path.exists(blocks) and only in (None, "blocks.jsonl"):
        text, reps, flush = blocks_table(blocks)
        how = f"median of {' / '.join(map(str, reps))}" if reps else "the chapters' median"
        if flush:
            how += ", L2 flushed before each repetition" if flush == {True} else ", L2 not flushed"
        text = f"{where}: the chapters' `--json` runs, µs ({how}; one run).\n\n" + text
        if fill_file(page, "results:tuning_blocks", text + "\n"):
            filled.append("results:tuning_blocks")
    return filled
