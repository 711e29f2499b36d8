#!/usr/bin/env python3
"""ncu_table.py: Nsight Compute CSV output (tools/gpu_suite.sh ncu) as Markdown tables, for fill_docs.py (the
<!-- ncu:NN_name --> blocks and docs/profiling.md's table) and fill_accuracy.py (12's).

Each chapter was profiled with `--n 2^24 --reps 1 --no-flush`, which runs the launcher three times
(the verified run, the warm-up, one timed run); a table lists the distinct launches of one run
(kernel, grid), in launch order.
"""
import csv
import glob
import os
import re

import results  # tools/results.py

# (metric, or metrics separated by a space shown in one cell as "a / b"; column label; format)
COLUMNS = [
    ("gpu__time_duration.sum", "time µs", lambda v: f"{v / 1000:.1f}"),
    ("dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM % of peak", lambda v: f"{v:.1f}"),
    ("sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy %", lambda v: f"{v:.1f}"),
    ("smsp__average_inst_executed_per_warp.ratio", "instructions / warp", lambda v: f"{v:,.0f}"),
    ("l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum.per_second", "global load GB/s", lambda v: f"{v / 1e9:,.0f}"),
    ("smsp__sass_average_branch_targets_threads_uniform.pct", "branch uniformity %", lambda v: f"{v:.1f}"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "smem ld bank conflicts", lambda v: f"{v:,.0f}"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "smem st bank conflicts", lambda v: f"{v:,.0f}"),
    # Warp-level shared-memory load and store instructions (a store by one lane counts as one, like a
    # store by 32): the traffic, beside the conflicts it caused.
    ("smsp__inst_executed_op_shared_ld.sum smsp__inst_executed_op_shared_st.sum", "shared ld/st instructions",
     lambda v: f"{v:,.0f}"),
    ("smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct", "stall: memory %", lambda v: f"{v:.1f}"),
    ("smsp__warp_issue_stalled_barrier_per_warp_active.pct", "stall: barrier %", lambda v: f"{v:.1f}"),
]
# Shared memory and its bank conflicts are taught in chapter 04: the READMEs before it leave these out.
SHARED_MEMORY_COLUMNS = ("smem ld bank conflicts", "smem st bank conflicts", "shared ld/st instructions")


def columns_for(chapter, launches):
    """The columns of a chapter's table, without the combined ones (several metrics) that no launch measured."""
    return [c for c in COLUMNS if not (chapter.startswith(("01_", "02_", "03_")) and c[1] in SHARED_MEMORY_COLUMNS)
            and (" " not in c[0] or any(all(k in rec for k in c[0].split()) for rec in launches))]


def command_for(chapter, columns):
    """The ncu command behind a chapter's table, with its metrics spelled out, so that it runs as written."""
    metrics = ",".join(key.replace(" ", ",") for key, _, _ in columns)
    return (f"ncu --metrics {metrics} --csv --page raw --clock-control none "
            f"build/release/bin/{chapter} --n 2^24 --reps 1 --no-flush")


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def short_kernel(name):
    """A kernel's name without parameters, `void` and anonymous namespaces; CUB's as cub::...Kernel."""
    name = re.sub(r"^void ", "", re.sub(r"\(.*", "", name))
    name = name.replace("<unnamed>::", "").replace("(anonymous namespace)::", "")
    if "cub::" in name or "DeviceReduce" in name:
        m = re.search(r"(DeviceReduce\w*Kernel)", name)
        return "cub::" + (m.group(1) if m else "kernel")
    return name if len(name) < 60 else name[:57] + "..."


def read_launches(path):
    """The distinct launches of one run: a record per (kernel, grid, block), first seen first; no memsets or fills."""
    with open(path, newline="") as f:
        rows = list(csv.reader(line for line in f if line.startswith('"')))
    launches = {}
    for row in rows[2:]:  # rows[0]: the metric names, rows[1]: their units
        rec = dict(zip(rows[0], row))
        kernel = rec.get("Kernel Name", "")
        if "memset" not in kernel.lower() and "fill" not in kernel.lower():
            launches.setdefault((kernel, rec.get("Grid Size"), rec.get("Block Size")), rec)
    return list(launches.values())


def table(launches, columns=None):
    """The Markdown table of these launches: kernel, grid × block, then the columns (default: all measured)."""
    columns = columns_for("", launches) if columns is None else columns
    rows = []
    for rec in launches:
        grid, block = (rec.get(size, "").strip("()").split(",")[0].strip() for size in ("Grid Size", "Block Size"))
        cells = [" / ".join("n/a" if v is None else fmt(v) for v in (number(rec.get(k, "")) for k in key.split()))
                 for key, _, fmt in columns]
        rows.append([f"`{short_kernel(rec.get('Kernel Name', ''))}`", f"{grid} × {block}"] + cells)
    header = ["kernel", "grid × block"] + [label for _, label, _ in columns]
    return results.table(header, ["---"] * len(header), rows)


def chapter_tables(run):
    """{chapter: launches} for every ncu_NN_name.csv of a run folder that has launches, in name order."""
    tables = {os.path.basename(p)[4:-4]: read_launches(p) for p in sorted(glob.glob(os.path.join(run, "ncu_*.csv")))}
    return {chapter: launches for chapter, launches in tables.items() if launches}



if __name__ == "__main__":  # the metrics to collect, comma-separated (tools/gpu_suite.sh, tools/accuracy_study.sh)
    print(",".join(key.replace(" ", ",") for key, _, _ in COLUMNS))
