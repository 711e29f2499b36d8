#!/usr/bin/env python3
"""fill_docs.py: the blocks that a gpu_suite run's own files fill, for tools/publish.py.

fill_suite(dirs) fills 04's and 06's step tables (steps.jsonl, combined over the runs) and,
from the first run that has their files, the ncu, sass, pitfalls, 00 and docs/tuning.md blocks
and fill_small_n's of tune_small_n.jsonl; multigpu_block(dir) chapter 11's; publish_data(dirs)
copies each sweep run to docs/data/runK. BLOCKS in publish.py says which block comes from which file. The run
facts (GPU, driver, CUDA version, date, link type) are read from the files, never typed here;
a kind of file that no run has leaves its blocks as they were, and one line says so. ROOT is
the repository written (publish.py sets it).
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
from results import fill_file, table  # noqa: E402
import fill_small_n  # noqa: E402
import ncu_table  # noqa: E402
sys.path.insert(0, os.path.join(HERE, "tuning"))
import tables as tuning_tables  # noqa: E402


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def fill(relpath, marker, text):
    path = os.path.join(ROOT, relpath)
    if not os.path.exists(path):
        print(f"fill_docs: no {relpath}; block {marker} not filled", file=sys.stderr)
        return
    count = fill_file(path, marker, text.rstrip() + "\n")
    if not count:
        print(f"fill_docs: no block {marker} in {relpath}", file=sys.stderr)


def first_with(dirs, *names):
    """The first run folder that has all these files (tables one run is enough for)."""
    for d in dirs:
        if all(os.path.exists(os.path.join(d, name)) for name in names):
            return d
    return None


def skipped(what, names):
    print(f"fill_docs: no run has {', '.join(names)}; {what} left as it was", file=sys.stderr)


def facts_of(run_dir):
    try:
        sweeps = results.load_all(run_dir)
    except results.DataError:
        sweeps = None
    return results.run_facts(run_dir, sweeps)


def on_run(run_dir, dirs, *names):
    """The machine of one run, for a table from that run only: "NVIDIA H100 80GB HBM3, CUDA 13.0,
    driver 580.159.04, 2026-11-22" (and which run it was, among the runs that hold the files
    `names` (glob patterns), when there are several)."""
    text = results.describe_runs([facts_of(run_dir)])
    having = [d for d in dirs if all(glob.glob(os.path.join(d, name)) for name in names)]
    if len(having) > 1:
        text += f" (run {having.index(run_dir) + 1} of {len(having)})"
    return text


def fenced(text, lang=""):
    return f"```{lang}\n{text.rstrip()}\n```"


def jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip().startswith("{")]


def reps_of(records, fallback=None):
    """The repetition count of JSON records (the chapters' --json "reps"), as one number when all agree."""
    found = sorted({r["reps"] for r in records if isinstance(r.get("reps"), int)})
    if len(found) == 1:
        return str(found[0])
    return " / ".join(map(str, found)) if found else fallback


def median_text(reps):
    return f"median of {reps}" if reps else "median of the timed runs"


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


def parse_steps(path):
    """steps.jsonl (tools/gpu_suite.sh steps: one `tour --steps NN --json` object per line): the
    records, and {(group, key, type, n): {"median": µs, "min": µs, "gbps": GB/s, "ok": bool}},
    group the chapter whose steps they are ("04"), key as step_key."""
    records = jsonl(path)
    rows = {}
    for record in records:
        for row in record["rows"]:
            rows[(record["steps"][:2], step_key(row), record["type"], record["n"])] = {
                "median": 1000 * row["ms"], "min": 1000 * row["min_ms"], "gbps": row["gbps"], "ok": row["ok"]}
    return records, rows


def combine_steps(parsed):
    """Several runs' `tour --steps` rows: per key the median of the medians (with lo, hi, n_runs),
    the smallest min and the median GB/s."""
    keys = []
    for _, rows in parsed:
        keys += [k for k in rows if k not in keys]
    combined = {}
    for key in keys:
        found = [rows[key] for _, rows in parsed if key in rows]
        medians = [r["median"] for r in found]
        combined[key] = {"median": statistics.median(medians), "min": min(r["min"] for r in found),
                         "gbps": statistics.median(r["gbps"] for r in found), "ok": all(r["ok"] for r in found),
                         "lo": min(medians), "hi": max(medians), "n_runs": len(found)}
    return combined


def steps_blocks(dirs):
    """04 and 06: each change of the chapter timed alone by `tour --steps 04` and `tour --steps 06`
    (steps.jsonl), with the speed-up of each step over the one it builds on (the row above for 04;
    05 for 06's three), combined over every run that has steps.jsonl."""
    runs = [d for d in dirs if os.path.exists(os.path.join(d, "steps.jsonl"))]
    if not runs:
        skipped("the 04 and 06 step tables", ["steps.jsonl"])
        return
    parsed = [parse_steps(os.path.join(d, "steps.jsonl")) for d in runs]
    rows = combine_steps(parsed)
    wrong = [" ".join(map(str, k)) for k, r in rows.items() if not r["ok"]]
    if wrong:
        print("fill_docs: steps.jsonl has WRONG results, step blocks left as they were: " + "; ".join(wrong),
              file=sys.stderr)
        return
    several = len(runs) >= 2
    facts = []
    for d, (records, _) in zip(runs, parsed):
        f = facts_of(d)
        dates = sorted({r.get("date", "") for r in records if re.fullmatch(r"\d{4}-\d\d-\d\d", r.get("date", ""))})
        if dates:
            f["date"] = dates[0]  # the day the steps ran
        facts.append(f)
    on = results.describe_runs(facts)
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
    for group, readme, vs, base_of in (
            ("06", "06_warp_unroll/README.md", "vs 05", lambda i, order: order[0]),
            ("04", "04_shared_tree/README.md", "vs above", lambda i, order: order[i - 1])):
        records = [r for r in parsed[0][0] if r["steps"][:2] == group]  # the launch shapes: the first run's
        if not records:
            skipped(f"{group}'s step table", [f"a `tour --steps {group}` record in steps.jsonl"])
            continue
        first = min(records, key=lambda r: r["n"])  # at its smallest N
        order = [step_key(row) for row in first["rows"]]
        shape = {step_key(row): (row["block"], row["grid"]) for row in first["rows"]}
        block = first["block"]
        if group == "06":
            grid = shape[order[-1]][1]
            per_sm = f" ({grid // first['sm_count']} per SM)" if first.get("sm_count") else ""
            intro = (f"06's two changes, each alone on top of 05, then both: the same launch for all four ({block} "
                     f"threads, the smallest of the four kernels' default grids, each one full wave from the occupancy "
                     f"calculator, then one block over the partials). Grid: {grid} blocks of {block}{per_sm}, then "
                     "1 block. \"vs 05\" is 05's median time over the row's.")
        else:
            intro = ("From 03 to 04 in two steps: first the tree moves to shared memory (one element per thread, a "
                     "launch per pass, as in 03), then the grid-stride loop and the fixed grid arrive. 04's grid: "
                     f"{shape[order[-1]][1]} blocks of {block}, then 1 block; 03 and the step between: one block per "
                     f"{block} elements in each launch ({shape[order[0]][1]} in the first at "
                     f"2^{first['n'].bit_length() - 1}), a launch per pass until one value is left. \"vs above\" is "
                     "the median time of the row above over the row's.")
        sizes = sorted({k[3] for k in rows if k[0] == group})
        header = ["kernel", "type"]
        for n in sizes:
            k = n.bit_length() - 1
            header += [f"2^{k} median µs", f"2^{k} min µs", f"2^{k} GB/s", f"2^{k} {vs}"]
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        for dtype in ("int", "float", "double"):
            if not any(k[0] == group and k[2] == dtype for k in rows):
                continue
            for i, key in enumerate(order):
                cells = [STEP_LABELS.get(key, key), dtype]
                for n in sizes:
                    r = rows.get((group, key, dtype, n))
                    if r is None:
                        cells += ["—"] * 4
                        continue
                    speed = "—"
                    if i > 0:
                        base = rows.get((group, base_of(i, order), dtype, n))
                        if base:
                            within = several and base["lo"] <= r["hi"] and r["lo"] <= base["hi"]
                            speed = f"{results.WITHIN_MARK if within else ''}{base['median'] / r['median']:.2f}×"
                    median = f"{r['median']:.1f}"
                    if several and r["n_runs"] >= 2 and r["median"] > 0:
                        median += " " + results.fmt_spread(
                            100 * max(r["hi"] - r["median"], r["median"] - r["lo"]) / r["median"])
                    cells += [median, f"{r['min']:.1f}", f"{r['gbps']:.0f}", speed]
                lines.append("| " + " | ".join(cells) + " |")
        text = (f"Measured side by side on the {on} by `tour --steps {group}`: the chapters' own kernels and "
                f"{group}'s step variants ([steps.cu](steps.cu)), timed by the harness as the tour times the "
                "chapters ([how these are measured](../docs/README.md#how-the-numbers-are-measured)): each repetition "
                f"running every kernel once, in turn; {flushed}; {stats}; every result checked against the CPU "
                f"reference. {intro}\n\n" + "\n".join(lines))
        fill(readme, f"results:{group}_steps", text)


# ----------------------------------------------------------------------------- single-run tables

def cpu_block(dirs):
    run = first_with(dirs, "chapters.jsonl", "cpu_300M_float.txt")
    if run is None:
        skipped("00's block", ["chapters.jsonl", "cpu_300M_float.txt"])
        return
    rows = [d for d in jsonl(os.path.join(run, "chapters.jsonl")) if d.get("chapter") == "00_cpu_baseline"]
    cells = [[f"2^{d['n'].bit_length() - 1}", m["name"], m["result"], f"{m['error']:.3g}", f"{m['ms']:.3f}",
              f"{m['gbps']:.1f}", "ok" if m["ok"] else "WRONG"] for d in rows for m in d["methods"]]
    threads = rows[0]["threads"] if rows and "threads" in rows[0] else "?"
    on = on_run(run, dirs, "chapters.jsonl", "cpu_300M_float.txt")
    text = (f"On the host of the {on}, {threads} threads, {median_text(reps_of(rows))}:\n\n"
            + table(["n (int)", "method", "result", "error", "ms", "GB/s", "check"], "compact", cells)
            + "\n\nThe float stall, `--n 300000001 --type float --reps 3`:\n\n"
            + fenced(read(os.path.join(run, "cpu_300M_float.txt"))))
    fill("00_cpu_baseline/README.md", "output:00_cpu_methods", text)


def bank_conflicts(dirs):
    names = ["ncu_04_shared_tree.csv", "ncu_04_shared_tree_strided.csv"]
    run = first_with(dirs, *names)
    if run is None:
        skipped("04's bank-conflict block", names)
        return
    rows = []
    for name, scheme in (("04_shared_tree", "sequential addressing"), ("04_shared_tree_strided", "strided index")):
        launches = ncu_table.read_launches(os.path.join(run, f"ncu_{name}.csv"))
        if not launches:
            print(f"fill_docs: ncu_{name}.csv has no launches; 04's bank-conflict block left as it was",
                  file=sys.stderr)
            return
        first = launches[0]
        num = lambda key: ncu_table.number(first.get(key, "")) or 0  # noqa: E731
        rows.append([f"`{ncu_table.short_kernel(first['Kernel Name'])}` (first launch)", scheme,
                     f"{num('l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum'):,.0f}",
                     f"{num('l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum'):,.0f}",
                     f"{num('gpu__time_duration.sum') / 1000:.1f}"])
    command = ("ncu --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,"
               "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,gpu__time_duration.sum "
               "build/release/bin/04_shared_tree --n 2^24 --reps 1 --no-flush")
    fill("04_shared_tree/README.md", "ncu:04_bank_conflicts",
         f"{on_run(run, dirs, *names)}; `{command}` for the first row, the same with `--variant strided` added for the "
         f"second, ints:\n\n" + table(["kernel", "tree", "smem load bank conflicts", "smem store bank conflicts",
                                        "time µs"], "compact", rows))


def sass(dirs):
    run = first_with(dirs, "sass_08.txt")
    if run is None:
        skipped("08's SASS block", ["sass_08.txt"])
        return
    # gpu_suite.sh wrote the command's output: "COUNT LOAD" per kind of global load.
    counts = re.findall(r"^\s*(\d+) (LDG\.E[.0-9A-Z]*)$", read(os.path.join(run, "sass_08.txt")), re.M)
    text = "\n".join(f"{int(v):7d} {k}" for v, k in sorted(counts, key=lambda c: c[1]))
    fill("08_vectorized/README.md", "sass:08_vectorized",
         f"On the {on_run(run, dirs, 'sass_08.txt')} (all instantiations: int, float, double; both launches):\n\n"
         + fenced("$ cuobjdump -sass build/release/bin/08_vectorized | grep -oE \"LDG\\.E[.0-9A-Z]*\" | sort | uniq -c\n"
                  + text))


def pitfalls(dirs):
    run = first_with(dirs, "pitfalls.txt")
    if run is None:
        skipped("docs/pitfalls.md's outputs", ["pitfalls.txt"])
        return
    on = on_run(run, dirs, "pitfalls.txt")
    text = read(os.path.join(run, "pitfalls.txt"))
    sections = re.split(r"^### (\d)\. .*$", text, flags=re.M)
    for i in range(1, len(sections), 2):
        body = sections[i + 1].strip()
        body = "\n".join(line[:400] for line in body.splitlines())
        fill("docs/pitfalls.md", f"output:{sections[i]}", f"On the {on}:\n\n" + fenced(body, "text"))
    m = re.search(r"(\$ compute-sanitizer --tool racecheck \S+06_warp_unroll --n.*?)(?=\n\$ |\Z)", text, re.S)
    s = re.search(r"(\$ compute-sanitizer --tool synccheck \S+06_warp_unroll --n.*?)(?=\n\$ |\n###|\Z)", text, re.S)
    if m and s:
        fill("06_warp_unroll/README.md", "sanitize:06_warp_unroll",
             f"On the {on} (the chapter's sanitizer tests run the same tools {sanitizer_sizes()}):\n\n"
             + fenced(m.group(1).strip() + "\n\n" + s.group(1).strip(), "text"))


def sanitizer_sizes():
    """The sizes the sanitizer tests use, from tests/CMakeLists.txt (the `set(n ...)` lines)."""
    path = os.path.join(os.path.dirname(HERE), "tests", "CMakeLists.txt")
    text = read(path) if os.path.exists(path) else ""
    start = text.find("compute-sanitizer")
    sizes = [] if start < 0 else re.findall(r"set\(n (\d+)\)", text[start:text.find("endforeach", start)])
    if not sizes:
        return "at awkward sizes"
    return "at " + (", ".join(sizes[:-1]) + " and " + sizes[-1] if len(sizes) > 1 else sizes[0]) + " elements"


def ncu_meta(run, dirs):
    return f"Nsight Compute on the {on_run(run, dirs, 'ncu_*.csv')}, `--clock-control none`; 2^24 ints."


def profiling_table(dirs):
    """docs/profiling.md: the main (first) launch of every chapter, one row each."""
    run = next((d for d in dirs if glob.glob(os.path.join(d, "ncu_*.csv"))), None)
    if run is None:
        skipped("the Nsight Compute tables", ["ncu_*.csv"])
        return
    launches = []
    for path in sorted(glob.glob(os.path.join(run, "ncu_*.csv"))):
        name = os.path.basename(path)[4:-4]
        found = ncu_table.read_launches(path)
        if found:
            first = dict(found[0])
            first["Kernel Name"] = name + ": " + ncu_table.short_kernel(first["Kernel Name"])
            launches.append(first)
    text = ncu_table.table(launches).replace("`", "").replace("| cub::", "| 10_cub: cub::")
    fill("docs/profiling.md", "ncu:all", f"{ncu_meta(run, dirs)}\n\n{text}")
    ncu_table.fill_readmes(run, ROOT, ncu_meta(run, dirs))


def tuning(dirs):
    """docs/tuning.md's two tables, each from the first run that has its file."""
    found = False
    for name in ("tune_single_pass.jsonl", "blocks.jsonl"):
        run = first_with(dirs, name)
        if run is not None:
            found = True
            for marker in tuning_tables.fill_tables(run, ROOT, on_run(run, dirs, name), only=name):
                print(f"fill_docs: docs/tuning.md: {marker}")
    if not found:
        skipped("docs/tuning.md's tables", ["tune_single_pass.jsonl", "blocks.jsonl"])


# ----------------------------------------------------------------------------- chapter 11

def link_between(topo_text, a=0, b=1):
    """The connection between GPU a and GPU b in `nvidia-smi topo -m` output, and the legend's
    words for it: ("NV18", "Connection traversing a bonded set of 18 NVLinks")."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", topo_text)
    lines = text.splitlines()
    # The header row has an empty first cell (it starts with white space); GPU a's row starts with its name.
    header = next((line.split() for line in lines if line[:1].isspace() and f"GPU{b}" in line.split()), None)
    row = next((line.split() for line in lines if line.split()[:1] == [f"GPU{a}"] and not line[:1].isspace()), None)
    if header is None or row is None or f"GPU{b}" not in header:
        return None, None
    column = header.index(f"GPU{b}")
    if column + 1 >= len(row):
        return None, None
    link = row[column + 1]
    key = re.sub(r"\d+$", "#", link)
    meaning = None
    for line in lines:
        m = re.match(r"^\s*(\S+)\s+=\s+(.*\S)\s*$", line)
        if m and m.group(1) == key:
            meaning = m.group(2)
            if "#" in key:
                meaning = meaning.replace("#", link[len(key) - 1:])
            break
    return link, meaning


def gib(nbytes):
    return nbytes / (1 << 30)


def large_run_sentence(text):
    """The sentence before the run larger than one GPU, from its own output."""
    m = re.search(r"(\d+) (int|float|double) values in (\d+) shards", text)
    memory = re.search(r"\(sm_\d+,[^)]*?([\d.]+) GiB\)", text)
    name = re.search(r"^gpu\s+\d+\s+(.+?) \(sm_", text, re.M)
    if not m:
        return "More than one GPU's memory in total:"
    n, dtype, shards = int(m.group(1)), m.group(2), int(m.group(3))
    total = gib(n * results.TYPE_BYTES[dtype])
    count = f"{n // 10 ** 9}·10^9" if n % 10 ** 9 == 0 else f"{n:,}"
    one = f"; one {name.group(1)} has {memory.group(1)} GiB" if memory and name else ""
    return (f"More than one GPU's memory in total ({count} {dtype}s = {total:.1f} GiB, "
            f"{total / shards:.1f} GiB per GPU{one}):")


def multigpu_block(results_dir):
    """11's README: scaling from 1 to 2 GPUs, the run larger than one GPU, the MPI run."""
    gpu_file = next((os.path.join(results_dir, f) for f in ("gpu_x2.txt", "gpu.txt")
                     if os.path.exists(os.path.join(results_dir, f))), None)
    if gpu_file is None or not os.path.exists(os.path.join(results_dir, "multigpu.jsonl")):
        print(f"fill_docs: {results_dir} has no gpu_x2.txt/gpu.txt or multigpu.jsonl (tools/gpu_suite.sh build "
              "multigpu)", file=sys.stderr)
        return 2
    facts = results.parse_gpu_txt(read(gpu_file))
    runs = jsonl(os.path.join(results_dir, "multigpu.jsonl"))
    name = facts.get("gpu") or (runs[0].get("device") if runs else "GPU")
    cuda = facts.get("cuda") or (runs[0].get("cuda") if runs else None)
    date = facts.get("date") or results.file_date(os.path.join(results_dir, "multigpu.jsonl"))
    gpus = max((r["gpus"] for r in runs), default=2)
    topo = os.path.join(results_dir, "topo.txt")
    link, meaning = link_between(read(topo)) if os.path.exists(topo) else (None, None)
    if link:
        between = f"`nvidia-smi topo -m` between GPU0 and GPU1: {link}" + (f", {meaning[0].lower()}{meaning[1:]}"
                                                                           if meaning else "")
    else:
        between = "the link between them not recorded: no topo.txt"
    mpi_text = read(os.path.join(results_dir, "multigpu_mpi.txt")) if os.path.exists(
        os.path.join(results_dir, "multigpu_mpi.txt")) else ""
    text_reps = re.search(r"median of (\d+), L2 (flushed|not flushed)", mpi_text)
    reps = reps_of(runs, text_reps.group(1) if text_reps else None)
    flushes = {r["flush"] for r in runs if isinstance(r.get("flush"), bool)}
    flushed = flushes == {True} if flushes else (text_reps is None or text_reps.group(2) == "flushed")
    one = {(r["type"], r["n"]): r for r in runs if r["mode"] == "one process" and r["gpus"] == 1}
    rows = []
    for r in runs:
        if r["gpus"] != 2:
            continue
        base = one.get((r["type"], r["n"]))
        if not base:
            continue
        speed = base["ms"] / r["ms"]
        mode = "" if r["mode"] == "one process" else f" ({r['mode']})"
        rows.append([f"{r['type']}{mode}", f"2^{r['n'].bit_length() - 1}", f"{base['ms']:.3f}", f"{base['gbps']:.0f}",
                     f"{r['ms']:.3f}", f"{r['gbps']:.0f}", f"{speed:.2f}×", f"{100 * speed / 2:.1f}%"])
    flush = "each GPU's L2 flushed" if flushed else "L2 not flushed"
    parts = [f"Measured on {gpus} × {name} ({between}), driver {facts.get('driver', '?')}, CUDA {cuda}, {date}; "
             f"{flush} before each run, "
             f"{median_text(reps)}, one run; every total verified against the CPU reference on every GPU. "
             "Sums, `--json`:\n\n" + table(["type", "N", "1 GPU ms", "1 GPU GB/s", "2 GPUs ms", "2 GPUs GB/s",
                                             "speed-up", "parallel efficiency"], "compact", rows)]
    large = os.path.join(results_dir, "multigpu_large.txt")
    if os.path.exists(large):
        parts.append(large_run_sentence(read(large)) + "\n\n" + fenced(read(large), "text"))
    if mpi_text:
        parts.append("One process per GPU under MPI (`mpirun -np 2 build/release/bin/11_multi_gpu_mpi --n 2^30 "
                     "--type float`):\n\n" + fenced(mpi_text, "text"))
    log = os.path.join(results_dir, "ctest_multigpu.log")
    passed = re.search(r"\d+% tests passed.*", read(log)) if os.path.exists(log) else None
    if passed:
        parts.append("`ctest --preset multigpu` on that machine: " + passed.group(0) + ".")
    fill("11_multi_gpu/README.md", "results:11_multi_gpu", "\n\n".join(parts))
    # What the job prints when rank 1 goes silent before the all-reduce (the ranks' own
    # lines, without Open MPI's MPI_Abort banner).
    silent_file = os.path.join(results_dir, "multigpu_mpi_silent_peer.txt")
    if os.path.exists(silent_file):
        silent = [line for line in read(silent_file).splitlines() if line.startswith("11_multi_gpu_mpi:")]
        fill("11_multi_gpu/README.md", "output:11_silent_peer",
             f"On {gpus} × {name}, `REDUCTION_TEST_FAIL=1:allreduce REDUCTION_NCCL_TIMEOUT=10 mpirun -np 2 "
             f"build/release/bin/11_multi_gpu_mpi --n 2^30 --type float`:\n\n" + fenced("\n".join(silent), "text"))
    return 0


# ----------------------------------------------------------------------------- docs/data and the suite's blocks

def publish_data(dirs):
    """docs/data/runK/: each run's sweep files and its facts (run.json: GPU, driver, CUDA,
    date, hashed GPU ids: what the pages say about the run). Removes what an earlier
    publication left that these runs do not replace."""
    data = os.path.join(ROOT, "docs", "data")
    os.makedirs(data, exist_ok=True)
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
        keep = {key: facts.get(key) for key in ("gpu", "driver", "cuda", "date", "memory", "gpus", "gpu_ids")}
        with open(os.path.join(target, "run.json"), "w", encoding="utf-8") as f:
            json.dump(keep, f, indent=1)
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
    steps_blocks(dirs)
    cpu_block(dirs)
    bank_conflicts(dirs)
    sass(dirs)
    pitfalls(dirs)
    profiling_table(dirs)
    tuning(dirs)
    fill_small_n.fill_suite(dirs)
