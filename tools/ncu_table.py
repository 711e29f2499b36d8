#!/usr/bin/env python3
"""ncu_table.py: turn Nsight Compute CSV output (tools/gpu_suite.sh ncu) into Markdown: the
<!-- ncu:NN_name --> blocks (fill_readmes) and docs/profiling.md's table, for tools/publish.py.

Each chapter was profiled with `--n 2^24 --reps 1 --no-flush`, which runs the launcher
three times (the verified run, the warm-up, one timed run); the table lists the distinct
kernel launches of one run (kernel, grid), in launch order.
"""
import csv
import glob
import os
import re

import results  # tools/results.py

SHARED_INSTRUCTION_KEYS = ("smsp__inst_executed_op_shared_ld.sum", "smsp__inst_executed_op_shared_st.sum")

COLUMNS = [
    ("gpu__time_duration.sum", "time µs", lambda v: f"{v / 1000:.1f}"),
    ("dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM % of peak", lambda v: f"{v:.1f}"),
    ("sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy %", lambda v: f"{v:.1f}"),
    ("smsp__average_inst_executed_per_warp.ratio", "instructions / warp", lambda v: f"{v:,.0f}"),
    ("l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum.per_second", "global load GB/s", lambda v: f"{v / 1e9:,.0f}"),
    ("smsp__sass_average_branch_targets_threads_uniform.pct", "branch uniformity %", lambda v: f"{v:.1f}"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "smem ld bank conflicts", lambda v: f"{v:,.0f}"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "smem st bank conflicts", lambda v: f"{v:,.0f}"),
    # Warp-level shared-memory load and store instructions (a store by one lane counts
    # as one, like a store by 32): the traffic, beside the conflicts it caused. One
    # column for the two metrics, "loads / stores".
    (SHARED_INSTRUCTION_KEYS, "shared ld/st instructions", lambda v: f"{v:,.0f}"),
    ("smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct", "stall: memory %", lambda v: f"{v:.1f}"),
    ("smsp__warp_issue_stalled_barrier_per_warp_active.pct", "stall: barrier %", lambda v: f"{v:.1f}"),
]


# Shared memory and its bank conflicts are taught in chapter 04: the READMEs before it
# leave those columns out.
BANK_CONFLICT_KEYS = {
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    SHARED_INSTRUCTION_KEYS,
}
BEFORE_BANK_CONFLICTS = ("01_", "02_", "03_")


def keys_of(key):
    """The metrics behind a column: one name, or a tuple of names shown in one cell."""
    return key if isinstance(key, tuple) else (key,)


def columns_for(chapter, launches):
    """The columns of a chapter's README table, without those its launches did not measure."""
    columns = COLUMNS
    if chapter.startswith(BEFORE_BANK_CONFLICTS):
        columns = [c for c in columns if c[0] not in BANK_CONFLICT_KEYS]
    return measured(columns, launches)


def measured(columns, launches):
    """The columns without the combined ones (tuple keys) that no launch measured."""
    return [c for c in columns
            if not isinstance(c[0], tuple) or any(all(k in rec for k in c[0]) for rec in launches)]


def command_for(chapter, columns):
    """The ncu command behind a chapter's table, with its metrics spelled out, so that it
    runs as written (tools/gpu_suite.sh ncu measures these and the rest of COLUMNS)."""
    metrics = ",".join(k for key, _, _ in columns for k in keys_of(key))
    return (f"ncu --metrics {metrics} --csv --page raw --clock-control none "
            f"build/release/bin/{chapter} --n 2^24 --reps 1 --no-flush")


def footer(program_args):
    """The line under a chapter's table: what ran, and where the command and the harness's
    busy-start row are explained once (docs/profiling.md, docs/README.md)."""
    return (f"`ncu` with [these metrics](../docs/profiling.md#nsight-compute-one-command-per-chapter) on "
            f"`build/release/bin/{program_args} --reps 1 --no-flush`, one run's launches; the last row is "
            "[the harness's busy start](../docs/README.md#how-the-numbers-are-measured), not the chapter.")


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def short_kernel(name):
    name = re.sub(r"\(.*", "", name)  # drop the parameter list
    name = re.sub(r"^void ", "", name)
    name = name.replace("<unnamed>::", "").replace("(anonymous namespace)::", "")
    if "cub::" in name or "DeviceReduce" in name:
        m = re.search(r"(DeviceReduce\w*Kernel)", name)
        return "cub::" + (m.group(1) if m else "kernel")
    return name if len(name) < 60 else name[:57] + "..."


def read_launches(path):
    """The distinct launches of one run: (kernel, grid, block) in first-seen order."""
    with open(path, newline="") as f:
        lines = [l for l in f if l.startswith('"')]
    if len(lines) < 3:
        return []
    rows = list(csv.reader(lines))
    header, data = rows[0], rows[2:]  # rows[1] holds the units
    seen, launches = set(), []
    for row in data:
        rec = dict(zip(header, row))
        kernel = rec.get("Kernel Name", "")
        if "memset" in kernel.lower() or "fill" in kernel.lower():
            continue
        key = (kernel, rec.get("Grid Size"), rec.get("Block Size"))
        if key in seen:
            continue
        seen.add(key)
        launches.append(rec)
    return launches


def table(launches, columns=None):
    if columns is None:  # every column the launches have
        columns = measured(COLUMNS, launches)
    rows = []
    for rec in launches:
        grid = rec.get("Grid Size", "").strip("()").split(",")[0].strip()
        block = rec.get("Block Size", "").strip("()").split(",")[0].strip()
        cells = []
        for key, _, fmt in columns:
            values = [number(rec.get(k, "")) for k in keys_of(key)]
            cells.append(" / ".join(fmt(v) if v is not None else "n/a" for v in values))
        rows.append([f"`{short_kernel(rec.get('Kernel Name', ''))}`", f"{grid} × {block}"] + cells)
    header = ["kernel", "grid × block"] + [label for _, label, _ in columns]
    return results.table(header, ["---"] * len(header), rows)


def chapter_tables(run):
    """{chapter: launches} for every ncu_NN_name.csv of a run folder that has launches."""
    tables = {}
    for path in sorted(glob.glob(os.path.join(run, "ncu_*.csv"))):
        launches = read_launches(path)
        if launches:
            tables[os.path.basename(path)[4:-4]] = launches
    return tables


def fill_readmes(run, root, meta):
    """Fills each chapter README's <!-- ncu:NN_name --> block under root; returns the chapters filled."""
    filled = []
    for chapter, launches in chapter_tables(run).items():
        readme = os.path.join(root, chapter, "README.md")
        if not os.path.exists(readme):
            continue
        columns = columns_for(chapter, launches)
        text = f"{meta}\n\n{table(launches, columns)}\n\n{footer(chapter + ' --n 2^24')}"
        if results.fill_file(readme, f"ncu:{chapter}", text):
            filled.append(chapter)
    return filled
