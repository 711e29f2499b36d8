#!/usr/bin/env python3
"""fill_small_n.py: the text of 09's small-n blocks (publish.py's BLOCKS says where each goes).

vs_cub(runs): 09 against CUB and the read-only floor in the tour's sweep of each run
(results.load_runs); breakdown(dirs) and shape_table(dirs): from each gpu_suite run's
tune_small_n.jsonl (09_single_pass/bench/small_n.cu) and gpu.txt. Times are medians over the
runs of each run's median; a target is met only where every run meets it (the worst run).
Each returns None without the data.
"""
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from results import FLOOR, parse_gpu_txt, read_jsonl, table  # noqa: E402

# Issue targets for 09 against CUB (time ratio CUB / 09) and against the floor.
CUB_TARGETS = {16: 1.35, 18: 1.25, 20: 1.20, 22: 1.20, 24: 1.10, 26: 1.03, 28: 1.01, 30: 1.01}
FLOOR_TARGETS = {16: ("within", 1.35), 28: ("at least", 0.99), 30: ("at least", 0.99)}


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def measured_on(facts, dates):
    """"3 separately started machines (GPU, driver D, CUDA C; dates)" from each run's
    (GPU, driver, CUDA version)."""
    gpus = "; ".join(f"{name}, driver {driver}, CUDA {cuda}" for name, driver, cuda in sorted(set(facts)))
    when = ", ".join(sorted(set(dates)))
    return f"{len(facts)} separately started machine{'s' if len(facts) != 1 else ''} ({gpus}; {when})"


def suite_facts(run):
    """(GPU, driver, CUDA version) from a suite run's gpu.txt."""
    facts = parse_gpu_txt(read(os.path.join(run, "gpu.txt")))
    return facts["gpu"], facts["driver"], facts["cuda"]


def spread(values):
    """'5.61 (5.57-5.73)' or '5.61' for one run."""
    mid = statistics.median(values)
    if len(values) == 1:
        return f"{mid:.2f}"
    return f"{mid:.2f} ({min(values):.2f}-{max(values):.2f})"


def vs_cub(runs):
    """09 against CUB and the floor in the tour's sweep of the runs (results.load_runs: one
    per separately started machine); the ratios are the worst machine's."""
    points, reps, dates = {}, set(), []
    for run in runs:
        for dtype, sweep in run["sweeps"].items():
            reps.add(sweep["reps"])
            dates.append(sweep["date"])
            for row in sweep["rows"]:
                points.setdefault((dtype, row["n"], row["chapter"]), []).append(row["ms"] * 1000)
    rows = []
    for k in sorted(CUB_TARGETS):
        n = 1 << k
        for dtype in ("int", "float"):
            nine = points.get((dtype, n, "09_single_pass"))
            cub = points.get((dtype, n, "10_cub"))
            floor = points.get((dtype, n, FLOOR))
            if not nine or not cub or not floor:
                continue
            worst = min(c / m for c, m in zip(cub, nine))
            goal = CUB_TARGETS[k]
            cells = [f"{worst:.3f}× (≥ {goal:.2f}×): " + ("met" if worst >= goal else "not met"), ""]
            if k in FLOOR_TARGETS:
                how, goal = FLOOR_TARGETS[k]
                if how == "within":
                    w = max(m / f for m, f in zip(nine, floor))
                    cells[1] = f"{w:.3f}× its time (≤ {goal:.2f}×): " + ("met" if w <= goal else "not met")
                else:
                    w = min(f / m for m, f in zip(nine, floor))
                    cells[1] = (f"{100 * w:.1f}% of its speed (≥ {100 * goal:.0f}%): "
                                + ("met" if w >= goal else "not met"))
            rows.append([f"2^{k}", dtype, spread(nine), spread(cub), spread(floor)] + cells)
    if not rows:
        return None
    on = measured_on([tuple(r["facts"].get(k, "?") for k in ("gpu", "driver", "cuda")) for r in runs], dates)
    rep = "/".join(str(r) for r in sorted(reps))
    head = (f"From the tour's sweep (docs/results.md) on {on}: 09, CUB and the read-only floor "
            f"side by side in one `tour` run per size and machine, L2 flushed, median of {rep}. Times: the median "
            f"over the machines (their range in brackets); ratios: the worst machine's, the target in brackets.\n\n")
    return head + table(["N", "type", "09 µs", "CUB µs", "floor µs", "CUB / 09", "09 against the floor"], "compact",
                        rows)


def load_bench_runs(runs):
    """(times {(type, n, job): [µs of each run]}, shapes {(type, n, job): (block, grid)}, the
    "measured on" words, med(key): the median over the runs), or None without a bench run."""
    times, shapes, reps, facts, dates = {}, {}, {}, [], []
    for run in runs:
        path = os.path.join(run, "tune_small_n.jsonl")
        if not os.path.exists(path):
            continue
        head, *rows = read_jsonl(path)
        facts.append(suite_facts(run))
        dates.append(head["date"])
        for r in rows:
            key = (r["type"], r["n"], r["job"])
            times.setdefault(key, []).append(r["median_us"])
            shapes.setdefault(key, (r["block"], r["grid"]))
            reps.setdefault(r["n"], set()).add(r["reps"])
    if not times:
        return None
    return times, shapes, measured_on(facts, dates), lambda key: statistics.median(times[key]), reps


def reps_text(reps, sizes):
    """"100", or "100 (30 from 2^24 up)": the repetitions at these sizes, smallest first."""
    counts = [("/".join(map(str, sorted(reps[n]))), n) for n in sorted(sizes)]
    changes = [f"{c} from 2^{n.bit_length() - 1} up" for (b, _), (c, n) in zip(counts, counts[1:]) if c != b]
    return counts[0][0] + (f" ({', '.join(changes)})" if changes else "")


def breakdown(runs):
    loaded = load_bench_runs(runs)
    if loaded is None:
        return None
    times, shapes, on, med, reps = loaded
    sizes = [1 << 12, 1 << 16, 1 << 20]

    def floor_best(n):
        keys = [k for k in times if k[0] == "int" and k[1] == n and k[2].startswith("floor")]
        return min(med(k) for k in keys)

    def shape(n):
        b, g = shapes[("int", n, "09 default")]
        return f"{g} × {b}"

    rows = [
        ("09's default shape (grid × block)", lambda n: shape(n)),
        ("an empty kernel at that shape: the launch", lambda n: f"{med(('int', n, 'empty 09-shape')):.2f}"),
        ("the read-only floor (its fastest shape)", lambda n: f"{floor_best(n):.2f}"),
        ("09 cut after step 1: read, block_reduce, partial stored", lambda n: f"{med(('int', n, 'stage partials')):.2f}"),
        ("... and step 2: the ticket (acquire-release)", lambda n: f"{med(('int', n, 'stage ticket')):.2f}"),
        ("(the ticket drawn relaxed: no ordering, not correct)", lambda n: f"{med(('int', n, 'stage relaxed')):.2f}"),
        ("... and step 3: 09, the last block's combine", lambda n: f"{med(('int', n, '09 default')):.2f}"),
        ("09 with the classic ticket (`__threadfence` + `atomicInc`)", lambda n: f"{med(('int', n, '09 threadfence')):.2f}"),
        ("CUB", lambda n: f"{med(('int', n, '10 CUB')):.2f}"),
    ]
    note = ("At 2^12 the default grid is one block, which writes the result without a ticket: its steps 2 and 3 "
            "are skipped by 09 itself, while the cut-short kernels above still run them.")
    return (f"`tune_small_n` (09_single_pass/bench/small_n.cu) on {on}: µs, median of {reps_text(reps, sizes)} "
            f"interleaved repetitions, L2 flushed; the median over the machines.\n\n"
            + table(["ints", "2^12", "2^16", "2^20"], "compact", [[label] + [cell(n) for n in sizes] for label, cell in rows])
            + "\n\n" + note)


def shape_table(runs):
    loaded = load_bench_runs(runs)
    if loaded is None:
        return None
    times, shapes, on, med, reps = loaded
    rows = []
    for n in sorted({k[1] for k in times if k[0] == "int"}):
        candidates = [k for k in times if k[0] == "int" and k[1] == n and k[2].startswith("09 B=")]
        default = ("int", n, "09 default")
        if not candidates or default not in times:
            continue
        best = min(candidates + [default], key=med)
        b, g = shapes[default]
        if best == default:
            found = "the default"
        else:
            per_thread = int(best[2].split("V=")[1])
            bb, bg = shapes[best]
            found = f"{bg} × {bb} ({per_thread} vector{'s' if per_thread != 1 else ''} per thread)"
        rows.append([f"2^{n.bit_length() - 1}", f"{g} × {b}", f"{med(default):.2f}", found, f"{med(best):.2f}"])
    every = {k[1] for k in times}
    return (f"`tune_small_n` on {on}: 09 at 256 and 1024 threads per block, each with grids for 1, 2, 4 or 8 "
            f"16-byte vectors per thread (at most one full wave; a shape that repeats the default is timed once), "
            f"median of {reps_text(reps, every)} interleaved repetitions; the median over the machines.\n\n"
            + table(["ints", "default grid × block", "default µs", "fastest shape found", "its µs"], "compact", rows))
