#!/usr/bin/env python3
"""fill_docs.py: the blocks a gpu_suite run's own files fill, for tools/publish.py (its BLOCKS says which).

fill_suite(dirs): 04's and 06's step tables (combined over the runs) and, from the first run that has their
files, the ncu, sass, pitfalls, 00, docs/tuning.md and fill_small_n blocks; multigpu_block(dir): chapter 11's;
publish_data(dirs): each sweep run to docs/data/runK. Run facts (GPU, driver, CUDA, date, link) come from the
files, never typed here; a block whose files no run has is left as it was, and one line says so. ROOT is the
repository written (publish.py sets it).
"""
import glob
import json
import os
import re
import shutil
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)  # publish.py --root changes it (tests fill a copy of the repository)
sys.path.insert(0, HERE)
import results  # noqa: E402
from results import fill_file, read_jsonl as jsonl, table  # noqa: E402
import fill_small_n  # noqa: E402
import ncu_table  # noqa: E402


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def say(message):
    print("fill_docs: " + message, file=sys.stderr)


def fill(relpath, marker, text):
    path = os.path.join(ROOT, relpath)
    if not os.path.exists(path):
        say(f"no {relpath}; block {marker} not filled")
    elif not fill_file(path, marker, text.rstrip() + "\n"):
        say(f"no block {marker} in {relpath}")


def having(dirs, names):
    """The run folders that have files matching all these glob patterns."""
    return [d for d in dirs if all(glob.glob(os.path.join(d, name)) for name in names)]


def first_with(dirs, names, what=None):
    """The first run folder having(names); None when none has (said, when `what` is given)."""
    found = having(dirs, names)
    if not found and what:
        say(f"no run has {', '.join(names)}; {what} left as it was")
    return found[0] if found else None


def facts_of(run_dir):
    try:
        sweeps = results.load_all(run_dir)
    except results.DataError:
        sweeps = None
    return results.run_facts(run_dir, sweeps)


def on_run(run_dir, dirs, names):
    """The machine of one run ("NVIDIA H100 80GB HBM3, CUDA 13.0, driver 580.159.04, 2026-11-22"),
    and " (run K of M)" where several runs have the files `names`."""
    runs = having(dirs, names)
    text = results.describe_runs([facts_of(run_dir)])
    return text + (f" (run {runs.index(run_dir) + 1} of {len(runs)})" if len(runs) > 1 else "")


def fenced(text, lang=""):
    return f"```{lang}\n{text.rstrip()}\n```"


def reps_of(records, fallback=None):
    """The records' "reps" as one number when all agree, else joined by " / " (fallback: none)."""
    found = sorted({r["reps"] for r in records if isinstance(r.get("reps"), int)})
    return " / ".join(map(str, found)) if found else fallback


def power(n):
    return f"2^{n.bit_length() - 1}"


# ----------------------------------------------------------------------------- 04 and 06, one change at a time

# The rows of `tour --steps NN`, keyed "chapter" or "chapter_variant" (two-digit chapter).
STEP_LABELS = {
    "05": "05: one load per trip, 05's tree (a loop, a `__syncthreads()` per step)",
    "06_tree_only": "`--variant tree_only`: 05's loop + 06's tree (written out, warp 0 with `__syncwarp()`)",
    "06_loop_only": "`--variant loop_only`: 06's loop (four loads per trip) + 05's tree",
    "06": "06: both changes",
    "03": "03: one element per thread, tree in place in global memory, a launch per pass",
    "04_one_each": "`--variant one_each`, the step between: 04's tree in shared memory, one element per thread, "
                   "a launch per pass",
    "04": "04: grid-stride sums in registers + the shared-memory tree, two launches",
}


def step_key(row):
    """A `tour --steps` row's key: "04" for a chapter's own kernel, "04_one_each" for a variant."""
    return row["chapter"][:2] + (f"_{row['variant']}" if row.get("variant") else "")


def combine_steps(parsed):
    """Several runs' `tour --steps` rows: per key the median of the medians (with lo, hi, n_runs),
    the smallest min and the median GB/s."""
    combined = {}
    for key in dict.fromkeys(key for _, rows in parsed for key in rows):
        found = [rows[key] for _, rows in parsed if key in rows]
        medians = [r["median"] for r in found]
        combined[key] = {"median": statistics.median(medians), "min": min(r["min"] for r in found),
                         "gbps": statistics.median(r["gbps"] for r in found), "ok": all(r["ok"] for r in found),
                         "lo": min(medians), "hi": max(medians), "n_runs": len(found)}
    return combined


def step_intro(group, first):
    """The launch shapes of a step table, from the record of its smallest N."""
    block, grids = first["block"], [row["grid"] for row in first["rows"]]
    if group == "06":
        per_sm = f" ({grids[-1] // first['sm_count']} per SM)" if first.get("sm_count") else ""
        return (f"06's two changes, each alone on top of 05, then both: the same launch for all four ({block} "
                f"threads, the smallest of the four kernels' default grids, each one full wave from the occupancy "
                f"calculator, then one block over the partials). Grid: {grids[-1]} blocks of {block}{per_sm}, then "
                "1 block. \"vs 05\" is 05's median time over the row's.")
    return ("From 03 to 04 in two steps: first the tree moves to shared memory (one element per thread, a "
            "launch per pass, as in 03), then the grid-stride loop and the fixed grid arrive. 04's grid: "
            f"{grids[-1]} blocks of {block}, then 1 block; 03 and the step between: one block per "
            f"{block} elements in each launch ({grids[0]} in the first at {power(first['n'])}), a launch per "
            "pass until one value is left. \"vs above\" is the median time of the row above over the row's.")


def step_cells(r, base, several):
    """One size's cells of a step row: median µs (± the spread over runs), min µs, GB/s, speed-up over base."""
    if r is None:
        return ["—"] * 4
    speed = "—"
    if base:
        within = several and base["lo"] <= r["hi"] and r["lo"] <= base["hi"]
        speed = f"{results.WITHIN_MARK if within else ''}{base['median'] / r['median']:.2f}×"
    median = f"{r['median']:.1f}"
    if several and r["n_runs"] >= 2 and r["median"] > 0:
        median += " " + results.fmt_spread(100 * max(r["hi"] - r["median"], r["median"] - r["lo"]) / r["median"])
    return [median, f"{r['min']:.1f}", f"{r['gbps']:.0f}", speed]


def steps_blocks(dirs):
    """04 and 06: each change of the chapter timed alone by `tour --steps NN` (steps.jsonl), with the
    speed-up of each step over the one it builds on (04: the row above; 06: 05), combined over the runs."""
    runs = having(dirs, ["steps.jsonl"])
    if not runs:
        return say("no run has steps.jsonl; the 04 and 06 step tables left as it was")
    parsed = []  # per run: its `tour --steps NN --json` records, and {(group "04", step_key, type, n): row}
    for records in (jsonl(os.path.join(d, "steps.jsonl")) for d in runs):
        parsed.append((records, {(record["steps"][:2], step_key(row), record["type"], record["n"]): {
            "median": 1000 * row["ms"], "min": 1000 * row["min_ms"], "gbps": row["gbps"], "ok": row["ok"]}
            for record in records for row in record["rows"]}))
    rows = combine_steps(parsed)
    wrong = [" ".join(map(str, k)) for k, r in rows.items() if not r["ok"]]
    if wrong:
        return say("steps.jsonl has WRONG results, step blocks left as they were: " + "; ".join(wrong))
    several = len(runs) >= 2
    facts = []
    for d, (records, _) in zip(runs, parsed):
        facts.append(facts_of(d))
        day = min((r["date"] for r in records if re.fullmatch(r"\d{4}-\d\d-\d\d", r.get("date", ""))), default=None)
        if day:
            facts[-1]["date"] = day  # the day the steps ran
    all_records = [r for records, _ in parsed for r in records]
    reps = reps_of(all_records)
    stats = f"median and min of {reps}" if reps else "median and min"
    if several:
        stats = (f"each run's {stats}; the table: the median of the {len(runs)} runs' medians (± the run farthest "
                 f"from it), the smallest min, the median GB/s; {results.WITHIN_MARK} before a speed-up: the two "
                 "rows' run ranges overlap (within the spread)")
    else:
        stats += " (one run: the spread between machines is not measured)"
    flushed = "L2 flushed before each run" if all(r.get("flush") for r in all_records) else "L2 not flushed"
    for group, readme, vs in (("06", "06_warp_unroll", "vs 05"), ("04", "04_shared_tree", "vs above")):
        records = [r for r in parsed[0][0] if r["steps"][:2] == group]  # the launch shapes: the first run's
        if not records:
            say(f"no run has a `tour --steps {group}` record in steps.jsonl; {group}'s step table left as it was")
            continue
        first = min(records, key=lambda r: r["n"])
        order = [step_key(row) for row in first["rows"]]
        sizes = sorted({k[3] for k in rows if k[0] == group})
        cells = []
        for dtype in [t for t in ("int", "float", "double") if any(k[0] == group and k[2] == t for k in rows)]:
            for i, key in enumerate(order):
                base = None if i == 0 else order[0] if group == "06" else order[i - 1]
                cells.append([STEP_LABELS.get(key, key), dtype])
                for n in sizes:
                    cells[-1] += step_cells(rows.get((group, key, dtype, n)), rows.get((group, base, dtype, n)),
                                            several)
        header = ["kernel", "type"] + [f"{power(n)} {c}" for n in sizes for c in ("median µs", "min µs", "GB/s", vs)]
        text = (f"Measured side by side on the {results.describe_runs(facts)} by `tour --steps {group}`: the "
                f"chapters' own kernels and {group}'s step variants ([steps.cu](steps.cu)), timed by the harness as "
                "the tour times the chapters ([how these are measured](../docs/README.md#how-the-numbers-are-measured"
                f")): each repetition running every kernel once, in turn; {flushed}; {stats}; every result checked "
                f"against the CPU reference. {step_intro(group, first)}\n\n" + table(header, "compact", cells))
        fill(f"{readme}/README.md", f"results:{group}_steps", text)


# ----------------------------------------------------------------------------- single-run tables

def cpu_block(dirs):
    names = ["chapters.jsonl", "cpu_300M_float.txt"]
    run = first_with(dirs, names, "00's block")
    if run is None:
        return
    rows = [d for d in jsonl(os.path.join(run, "chapters.jsonl")) if d.get("chapter") == "00_cpu_baseline"]
    cells = [[power(d["n"]), m["name"], m["result"], f"{m['error']:.3g}", f"{m['ms']:.3f}", f"{m['gbps']:.1f}",
              "ok" if m["ok"] else "WRONG"] for d in rows for m in d["methods"]]
    threads = rows[0]["threads"] if rows and "threads" in rows[0] else "?"
    reps = reps_of(rows, "the timed runs")
    text = (f"On the host of the {on_run(run, dirs, names)}, {threads} threads, median of {reps}:\n\n"
            + table(["n (int)", "method", "result", "error", "ms", "GB/s", "check"], "compact", cells)
            + "\n\nThe float stall, `--n 300000001 --type float --reps 3`:\n\n"
            + fenced(read(os.path.join(run, "cpu_300M_float.txt"))))
    fill("00_cpu_baseline/README.md", "output:00_cpu_methods", text)


def bank_conflicts(dirs):
    names = ["ncu_04_shared_tree.csv", "ncu_04_shared_tree_strided.csv"]
    run = first_with(dirs, names, "04's bank-conflict block")
    if run is None:
        return
    metrics = ["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
               "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "gpu__time_duration.sum"]
    rows = []
    for name, scheme in zip(names, ("sequential addressing", "strided index")):
        launches = ncu_table.read_launches(os.path.join(run, name))
        if not launches:
            return say(f"{name} has no launches; 04's bank-conflict block left as it was")
        ld, st, ns = (ncu_table.number(launches[0].get(key, "")) or 0 for key in metrics)
        rows.append([f"`{ncu_table.short_kernel(launches[0]['Kernel Name'])}` (first launch)", scheme,
                     f"{ld:,.0f}", f"{st:,.0f}", f"{ns / 1000:.1f}"])
    command = f"ncu --metrics {','.join(metrics)} build/release/bin/04_shared_tree --n 2^24 --reps 1 --no-flush"
    fill("04_shared_tree/README.md", "ncu:04_bank_conflicts",
         f"{on_run(run, dirs, names)}; `{command}` for the first row, the same with `--variant strided` added for the "
         f"second, ints:\n\n" + table(["kernel", "tree", "smem load bank conflicts", "smem store bank conflicts",
                                        "time µs"], "compact", rows))


def sass(dirs):
    run = first_with(dirs, ["sass_08.txt"], "08's SASS block")
    if run is None:
        return
    # gpu_suite.sh wrote the command's output: "COUNT LOAD" per kind of global load.
    counts = re.findall(r"^\s*(\d+) (LDG\.E[.0-9A-Z]*)$", read(os.path.join(run, "sass_08.txt")), re.M)
    text = "\n".join(f"{int(v):7d} {k}" for v, k in sorted(counts, key=lambda c: c[1]))
    command = "cuobjdump -sass build/release/bin/08_vectorized | grep -oE \"LDG\\.E[.0-9A-Z]*\" | sort | uniq -c"
    fill("08_vectorized/README.md", "sass:08_vectorized",
         f"On the {on_run(run, dirs, ['sass_08.txt'])} (all instantiations: int, float, double; both launches):\n\n"
         + fenced(f"$ {command}\n{text}"))


def pitfalls(dirs):
    run = first_with(dirs, ["pitfalls.txt"], "docs/pitfalls.md's outputs")
    if run is None:
        return
    on = on_run(run, dirs, ["pitfalls.txt"])
    text = read(os.path.join(run, "pitfalls.txt"))
    sections = re.split(r"^### (\d)\. .*$", text, flags=re.M)
    for number, body in zip(sections[1::2], sections[2::2]):
        body = "\n".join(line[:400] for line in body.strip().splitlines())
        fill("docs/pitfalls.md", f"output:{number}", f"On the {on}:\n\n" + fenced(body, "text"))
    found = [re.search(rf"(\$ compute-sanitizer --tool {tool} \S+06_warp_unroll --n.*?)(?={end}|\Z)", text, re.S)
             for tool, end in (("racecheck", r"\n\$ "), ("synccheck", r"\n\$ |\n###"))]
    if all(found):
        fill("06_warp_unroll/README.md", "sanitize:06_warp_unroll",
             f"On the {on} (the chapter's sanitizer tests run the same tools {sanitizer_sizes()}):\n\n"
             + fenced("\n\n".join(m.group(1).strip() for m in found), "text"))


def sanitizer_sizes():
    """The sizes the sanitizer tests use, from tests/CMakeLists.txt (the `set(n ...)` lines)."""
    path = os.path.join(os.path.dirname(HERE), "tests", "CMakeLists.txt")
    text = read(path) if os.path.exists(path) else ""
    start = text.find("compute-sanitizer")
    sizes = [] if start < 0 else re.findall(r"set\(n (\d+)\)", text[start:text.find("endforeach", start)])
    if not sizes:
        return "at awkward sizes"
    return "at " + (", ".join(sizes[:-1]) + " and " + sizes[-1] if len(sizes) > 1 else sizes[0]) + " elements"


def profiling_table(dirs):
    """docs/profiling.md: the main (first) launch of every chapter, one row each; and the chapters' ncu blocks."""
    run = first_with(dirs, ["ncu_*.csv"], "the Nsight Compute tables")
    if run is None:
        return
    launches = []
    for chapter, found in ncu_table.chapter_tables(run).items():
        first = dict(found[0])
        first["Kernel Name"] = chapter + ": " + ncu_table.short_kernel(first["Kernel Name"])
        launches.append(first)
    meta = f"Nsight Compute on the {on_run(run, dirs, ['ncu_*.csv'])}, `--clock-control none`; 2^24 ints."
    text = ncu_table.table(launches).replace("`", "").replace("| cub::", "| 10_cub: cub::")
    fill("docs/profiling.md", "ncu:all", f"{meta}\n\n{text}")
    ncu_table.fill_readmes(run, ROOT, meta)


def single_pass_table(path):
    """tune_single_pass.jsonl ({"variant", "n", "median_us", "ok"}): µs per variant and size."""
    times = {}
    for d in jsonl(path):
        times.setdefault(d["variant"], {})[d["n"]] = f"{d['median_us']:.2f}" if d["ok"] else "wrong"
    sizes = sorted({n for row in times.values() for n in row})
    return table(["variant"] + [f"2^{n.bit_length() - 1}" for n in sizes], "compact",
                 [[name] + [row.get(n, "—") for n in sizes] for name, row in times.items()])


def blocks_table(path):
    """blocks.jsonl (01-03's --json runs at each block size): µs per (block, n), and how they were timed."""
    records = jsonl(path)
    rows = {}
    for d in records:
        rows.setdefault(d["chapter"], {})[(d["block"], d["n"])] = d["ms"] * 1000
    blocks = sorted({b for r in rows.values() for b, _ in r})
    ns = sorted({n for r in rows.values() for _, n in r})
    how = f"median of {reps_of(records)}" if reps_of(records) else "the chapters' median"
    flush = {d["flush"] for d in records if isinstance(d.get("flush"), bool)}
    if flush:
        how += ", L2 flushed before each repetition" if flush == {True} else ", L2 not flushed"
    cells = [[chapter] + [f"{rows[chapter][(b, n)]:.1f}" if (b, n) in rows[chapter] else "—" for n in ns for b in blocks]
             for chapter in sorted(rows)]
    return how, table(["chapter"] + [f"B={b}, 2^{n.bit_length() - 1}" for n in ns for b in blocks], "compact", cells)


def tuning(dirs):
    """docs/tuning.md's two tables, each from the first run that has its file."""
    runs = {name: first_with(dirs, [name]) for name in ("tune_single_pass.jsonl", "blocks.jsonl")}
    if not any(runs.values()):
        say(f"no run has {', '.join(runs)}; docs/tuning.md's tables left as it was")
    run = runs["tune_single_pass.jsonl"]
    if run:
        fill("docs/tuning.md", "results:tuning_single_pass",
             f"On the {on_run(run, dirs, ['tune_single_pass.jsonl'])}: `tune_single_pass`, the median time in µs "
             "of each variant (one run).\n\n" + single_pass_table(os.path.join(run, "tune_single_pass.jsonl")))
    run = runs["blocks.jsonl"]
    if run:
        how, text = blocks_table(os.path.join(run, "blocks.jsonl"))
        fill("docs/tuning.md", "results:tuning_blocks", f"On the {on_run(run, dirs, ['blocks.jsonl'])}: the "
             f"chapters' `--json` runs, µs ({how}; one run).\n\n" + text)


def small_n(dirs):
    """09's small-n blocks (fill_small_n) from the runs' tune_small_n.jsonl."""
    for page, marker, text in (("09_single_pass/README.md", "results:09_small_n", fill_small_n.breakdown(dirs)),
                               ("docs/tuning.md", "results:09_shape", fill_small_n.shape_table(dirs))):
        if text is None:
            say(f"no run has tune_small_n.jsonl; {marker} left as it was")
        else:
            fill(page, marker, text)


# ----------------------------------------------------------------------------- chapter 11

def link_between(topo_text):
    """The connection between GPU0 and GPU1 in `nvidia-smi topo -m` output, and the legend's
    words for it: ("NV18", "Connection traversing a bonded set of 18 NVLinks"); (None, None)."""
    lines = re.sub(r"\x1b\[[0-9;]*m", "", topo_text).splitlines()
    # The header row has an empty first cell (it starts with white space); GPU0's row starts with its name.
    header = next((line.split() for line in lines if line[:1].isspace() and "GPU1" in line.split()), None)
    row = next((line.split() for line in lines if line.split()[:1] == ["GPU0"] and not line[:1].isspace()), None)
    if header is None or row is None or header.index("GPU1") + 1 >= len(row):
        return None, None
    link = row[header.index("GPU1") + 1]
    key = re.sub(r"\d+$", "#", link)
    for line in lines:
        m = re.match(r"^\s*(\S+)\s+=\s+(.*\S)\s*$", line)
        if m and m.group(1) == key:
            return link, m.group(2).replace("#", link[len(key) - 1:]) if "#" in key else m.group(2)
    return link, None


def large_run_sentence(text):
    """The sentence before the run larger than one GPU, from its own output."""
    m = re.search(r"(\d+) (int|float|double) values in (\d+) shards", text)
    memory = re.search(r"\(sm_\d+,[^)]*?([\d.]+) GiB\)", text)
    name = re.search(r"^gpu\s+\d+\s+(.+?) \(sm_", text, re.M)
    if not m:
        return "More than one GPU's memory in total:"
    n, dtype, shards = int(m.group(1)), m.group(2), int(m.group(3))
    total = n * results.TYPE_BYTES[dtype] / (1 << 30)
    count = f"{n // 10 ** 9}·10^9" if n % 10 ** 9 == 0 else f"{n:,}"
    one = f"; one {name.group(1)} has {memory.group(1)} GiB" if memory and name else ""
    return (f"More than one GPU's memory in total ({count} {dtype}s = {total:.1f} GiB, "
            f"{total / shards:.1f} GiB per GPU{one}):")


def multigpu_block(results_dir):
    """11's README: scaling from 1 to 2 GPUs, the run larger than one GPU, the MPI run. Returns 0, or 2
    when the folder lacks gpu_x2.txt/gpu.txt or multigpu.jsonl (tools/gpu_suite.sh multigpu writes them)."""
    def text_of(name):  # None where the file is missing
        path = os.path.join(results_dir, name)
        return read(path) if os.path.exists(path) else None

    gpu_text = next((text for text in map(text_of, ("gpu_x2.txt", "gpu.txt")) if text is not None), None)
    jsonl_path = os.path.join(results_dir, "multigpu.jsonl")
    if gpu_text is None or not os.path.exists(jsonl_path):
        say(f"{results_dir} has no gpu_x2.txt/gpu.txt or multigpu.jsonl (tools/gpu_suite.sh build multigpu)")
        return 2
    facts = results.parse_gpu_txt(gpu_text)
    runs = jsonl(jsonl_path)
    name = facts.get("gpu") or (runs[0].get("device") if runs else "GPU")
    cuda = facts.get("cuda") or (runs[0].get("cuda") if runs else None)
    date = facts.get("date") or results.file_date(jsonl_path)
    gpus = max((r["gpus"] for r in runs), default=2)
    link, meaning = link_between(text_of("topo.txt") or "")
    between = "the link between them not recorded: no topo.txt"
    if link:
        between = f"`nvidia-smi topo -m` between GPU0 and GPU1: {link}" + (
            f", {meaning[0].lower()}{meaning[1:]}" if meaning else "")
    mpi_text = text_of("multigpu_mpi.txt") or ""
    text_reps = re.search(r"median of (\d+), L2 (flushed|not flushed)", mpi_text)
    reps = reps_of(runs, text_reps.group(1) if text_reps else "the timed runs")
    flushes = {r["flush"] for r in runs if isinstance(r.get("flush"), bool)}
    flushed = flushes == {True} if flushes else (text_reps is None or text_reps.group(2) == "flushed")
    one = {(r["type"], r["n"]): r for r in runs if r["mode"] == "one process" and r["gpus"] == 1}
    rows = []
    for r in runs:
        if r["gpus"] == 2 and (r["type"], r["n"]) in one:
            base = one[(r["type"], r["n"])]
            speed = base["ms"] / r["ms"]
            mode = "" if r["mode"] == "one process" else f" ({r['mode']})"
            rows.append([f"{r['type']}{mode}", power(r["n"]), f"{base['ms']:.3f}", f"{base['gbps']:.0f}",
                         f"{r['ms']:.3f}", f"{r['gbps']:.0f}", f"{speed:.2f}×", f"{100 * speed / 2:.1f}%"])
    flush = "each GPU's L2 flushed" if flushed else "L2 not flushed"
    parts = [f"Measured on {gpus} × {name} ({between}), driver {facts.get('driver', '?')}, CUDA {cuda}, {date}; "
             f"{flush} before each run, median of {reps}, one run; every total verified against the CPU "
             "reference on every GPU. Sums, `--json`:\n\n" + table(
                 ["type", "N", "1 GPU ms", "1 GPU GB/s", "2 GPUs ms", "2 GPUs GB/s", "speed-up",
                  "parallel efficiency"], "compact", rows)]
    large = text_of("multigpu_large.txt")
    if large is not None:
        parts.append(large_run_sentence(large) + "\n\n" + fenced(large, "text"))
    if mpi_text:
        parts.append("One process per GPU under MPI (`mpirun -np 2 build/release/bin/11_multi_gpu_mpi --n 2^30 "
                     "--type float`):\n\n" + fenced(mpi_text, "text"))
    passed = re.search(r"\d+% tests passed.*", text_of("ctest_multigpu.log") or "")
    if passed:
        parts.append("`ctest --preset multigpu` on that machine: " + passed.group(0) + ".")
    fill("11_multi_gpu/README.md", "results:11_multi_gpu", "\n\n".join(parts))
    # When rank 1 goes silent before the all-reduce: the ranks' own lines, without Open MPI's MPI_Abort banner.
    silent = text_of("multigpu_mpi_silent_peer.txt")
    if silent is not None:
        lines = [line for line in silent.splitlines() if line.startswith("11_multi_gpu_mpi:")]
        fill("11_multi_gpu/README.md", "output:11_silent_peer",
             f"On {gpus} × {name}, `REDUCTION_TEST_FAIL=1:allreduce REDUCTION_NCCL_TIMEOUT=10 mpirun -np 2 "
             f"build/release/bin/11_multi_gpu_mpi --n 2^30 --type float`:\n\n" + fenced("\n".join(lines), "text"))
    return 0


# ----------------------------------------------------------------------------- docs/data and the suite's blocks

def publish_data(dirs):
    """docs/data/runK/: each run's sweep files and its facts (run.json: GPU, driver, CUDA, date, hashed
    GPU ids); removes what an earlier publication left that these runs do not replace. Returns the folders."""
    data = os.path.join(ROOT, "docs", "data")
    targets, removed = [], []
    for k, run_dir in enumerate(dirs, 1):
        target = os.path.join(data, f"run{k}")
        os.makedirs(target, exist_ok=True)
        sources = glob.glob(os.path.join(results.sweep_dir(run_dir), "sweep_*.json"))
        names = {os.path.basename(s) for s in sources}
        for old in glob.glob(os.path.join(target, "sweep_*.json")):
            if os.path.basename(old) not in names:
                os.remove(old)
                removed.append(old)
        for source in sources:
            shutil.copy(source, target)
        facts = facts_of(run_dir)
        with open(os.path.join(target, "run.json"), "w", encoding="utf-8") as f:
            json.dump({key: facts.get(key) for key in ("gpu", "driver", "cuda", "date", "memory", "gpus", "gpu_ids")},
                      f, indent=1)
            f.write("\n")
        targets.append(target)
    for stale in glob.glob(os.path.join(data, "run*")):
        if re.fullmatch(r"run\d+", os.path.basename(stale)) and int(os.path.basename(stale)[3:]) > len(dirs):
            for old in glob.glob(os.path.join(stale, "sweep_*.json")) + glob.glob(os.path.join(stale, "run.json")):
                os.remove(old)
                removed.append(old)
            if not os.listdir(stale):
                os.rmdir(stale)
    for old in removed:
        print("fill_docs: removed", os.path.relpath(old, ROOT))
    return targets


def fill_suite(dirs):
    """Every block of a gpu_suite run's own files (see the docstring)."""
    for fill_blocks in (steps_blocks, cpu_block, bank_conflicts, sass, pitfalls, profiling_table, tuning, small_n):
        fill_blocks(dirs)
