#!/usr/bin/env python3
"""tables.py: fills docs/tuning.md's two tables from a GPU run's files: tune_single_pass.jsonl (the
bench's output) and blocks.jsonl (01-03 at each block size); tools/publish.py calls
fill_tables(run, root, on), `on` naming the machine (the run's GPU, CUDA, driver and date)."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from results import fill_file  # noqa: E402  (tools/results.py)


def single_pass_table(path):
    """The bench's JSON lines ({"variant", "n", "median_us", "ok"}) as a table: µs per variant and size."""
    times = {}
    for d in jsonl(path):
        times.setdefault(d["variant"], {})[d["n"]] = f"{d['median_us']:.2f}" if d["ok"] else "wrong"
    sizes = sorted({n for row in times.values() for n in row})
    out = ["| variant | " + " | ".join(f"2^{n.bit_length() - 1}" for n in sizes) + " |", "|---" * (len(sizes) + 1) + "|"]
    for name, row in times.items():
        out.append(f"| {name} | " + " | ".join(row.get(n, "—") for n in sizes) + " |")
    return "\n".join(out)


def jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip().startswith("{")]


def blocks_table(path):
    """01-03's --json runs at each block size: µs per (block, n); returns (table, repetitions)."""
    rows, reps, flush = {}, set(), set()
    for d in jsonl(path):
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
    single = os.path.join(results, "tune_single_pass.jsonl")
    if os.path.exists(single) and only in (None, "tune_single_pass.jsonl"):
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
