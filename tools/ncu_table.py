#!/usr/bin/env python3
"""ncu_table.py: turn Nsight Compute CSV output (tools/gpu_suite.sh ncu) into Markdown.

    python3 tools/ncu_table.py RESULTS_DIR            # prints one table per chapter
    python3 tools/ncu_table.py RESULTS_DIR --fill     # and fills the <!-- ncu:NN_name --> blocks

Each chapter was profiled with `--n 2^24 --reps 1 --no-flush`, which runs the launcher
three times (the verified run, the warm-up, one timed run); the table lists the distinct
kernel launches of one run (kernel, grid), in launch order.
"""
import csv
import glob
import os
import re
import sys


COLUMNS = [
    ("gpu__time_duration.sum", "time µs", lambda v: f"{v / 1000:.1f}"),
    ("dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM % of peak", lambda v: f"{v:.1f}"),
    ("sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy %", lambda v: f"{v:.1f}"),
    ("smsp__average_inst_executed_per_warp.ratio", "instructions / warp", lambda v: f"{v:,.0f}"),
    ("l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum.per_second", "global load GB/s", lambda v: f"{v / 1e9:,.0f}"),
    ("smsp__sass_average_branch_targets_threads_uniform.pct", "branch uniformity %", lambda v: f"{v:.1f}"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "smem ld bank conflicts", lambda v: f"{v:,.0f}"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "smem st bank conflicts", lambda v: f"{v:,.0f}"),
    ("smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct", "stall: memory %", lambda v: f"{v:.1f}"),
    ("smsp__warp_issue_stalled_barrier_per_warp_active.pct", "stall: barrier %", lambda v: f"{v:.1f}"),
]


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


def table(launches):
    head = "| kernel | grid × block | " + " | ".join(label for _, label, _ in COLUMNS) + " |"
    rule = "|" + " --- |" * (2 + len(COLUMNS))
    out = [head, rule]
    for rec in launches:
        grid = rec.get("Grid Size", "").strip("()").split(",")[0].strip()
        block = rec.get("Block Size", "").strip("()").split(",")[0].strip()
        cells = []
        for key, _, fmt in COLUMNS:
            v = number(rec.get(key, ""))
            cells.append(fmt(v) if v is not None else "n/a")
        out.append(f"| `{short_kernel(rec.get('Kernel Name', ''))}` | {grid} × {block} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    results = sys.argv[1]
    fill = "--fill" in sys.argv
    meta = sys.argv[sys.argv.index("--meta") + 1] if "--meta" in sys.argv else ""
    tables = {}
    for path in sorted(glob.glob(os.path.join(results, "ncu_*.csv"))):
        chapter = os.path.basename(path)[4:-4]
        launches = read_launches(path)
        if not launches:
            continue
        tables[chapter] = launches
        print(f"## {chapter}\n\n{table(launches)}\n")
    if fill:
        from results import fill_file  # tools/results.py

        for chapter, launches in tables.items():
            readme = os.path.join(os.path.dirname(__file__), "..", chapter, "README.md")
            if not os.path.exists(readme):
                continue
            cmd = (f"ncu --metrics <the {len(COLUMNS)} metrics of tools/gpu_suite.sh> --csv --page raw "
                   f"--clock-control none build/release/bin/{chapter} --n 2^24 --reps 1 --no-flush")
            text = f"{meta}\n\n{table(launches)}\n\nCommand: `{cmd}`; ints; one run's launches shown."
            fill_file(readme, f"ncu:{chapter}", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
