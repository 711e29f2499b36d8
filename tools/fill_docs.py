#!/usr/bin/env python3
"""fill_docs.py: the blocks a gpu_suite run's own files fill, for tools/publish.py (its BLOCKS says which).

steps_blocks(dirs): the step table of every chapter in steps.jsonl (`tour --steps NN`), combined over the runs.
undo_blocks(dirs): the step table of every chapter in undo.jsonl (a change undone in a second build), likewise.
fill_suite(dirs): 09's small-n tables, combined over the runs that have their files; from the first run that
has theirs, 00's CPU table, the ncu, SASS, sanitizer and pitfalls outputs and docs/tuning.md's tables.
multigpu_block(dirs): chapter 11 on several GPUs. build_time_block(dirs): the README's wait from a fresh clone
to a built 04. All return what they wrote ("PAGE (MARKER)", as results.write_blocks). Every block opens with
results.caption (the machines, from the run files, never typed here); a block whose files no run has is left as
it was, and one line says so. ROOT is the repository written (publish.py sets it).
"""
import glob
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)  # publish.py --root changes it (tests fill a copy of the repository)
sys.path.insert(0, HERE)
import ncu_table  # noqa: E402
import results  # noqa: E402
from results import (differs, median_over_machines, ms_to_us, power_label, read_records, reps_of,  # noqa: E402
                     table, value_range)

def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def fenced(text):
    return f"```text\n{text.rstrip()}\n```"


def say(message):
    print("fill_docs: " + message, file=sys.stderr)


def fill(page, marker, facts, what, body):
    """Fills the block MARKER of page (under ROOT): results.caption(facts, what), then body. Returns
    ["PAGE (MARKER)"] where it filled the block, else []."""
    path = os.path.join(ROOT, page)
    text = results.caption(facts, what, path, ROOT) + "\n\n" + body.rstrip() + "\n"
    if os.path.exists(path) and results.fill_file(path, marker, text):
        return [f"{path} ({marker})"]
    say(f"no block {marker} in {page}; not filled")
    return []


# ----------------------------------------------------------------------------- one change at a time

# The rows of `tour --steps NN`, keyed "chapter" or "chapter_variant" (two-digit chapter): what kernel, at what
# launch shape. A chapter's own kernel has one label, as the last row of its own table and as the first of the
# next chapter's (04's and 08's are both), except where OWN_ROW_LABELS gives its own table other words.
STEP_LABELS = {
    "05": "05: one load per trip, 05's tree (a loop, a `__syncthreads()` per step)",
    "06_tree_only": "`--variant tree_only`: 05's loop + 06's tree (written out, warp 0 with `__syncwarp()`)",
    "06_loop_only": "`--variant loop_only`: 06's loop (four loads per trip) + 05's tree",
    "06": "06: both changes",
    "03": "03: one element per thread, tree in place in global memory, a launch per pass",
    "04_one_each": "`--variant one_each`, the step between: 04's tree in shared memory, one element per thread, "
                   "a launch per pass",
    "04": "04: grid-stride sums in registers + the shared-memory tree, two launches",
    "05_tree_only": "`--variant tree_only`: 05's kernel (the `pow2ceil` tree) at 04's grid rule (threads per SM / B)",
    "05_grid_only": "`--variant grid_only`: 04's kernel at 05's grid rule (the occupancy calculator)",
    "07": "07: one element per load, 07's block and grid rule",
    "08_block_only": "`--variant block_only`: 07's kernel and grid rule at 08's block",
    "08_loads_only": "`--variant loads_only`: 08's kernel (16-byte loads, head and tail peeled) and grid rule at "
                     "07's block",
    "08": "08: 16-byte loads, two launches, 08's block and grid rule",
    "09_ticket_only": "`--variant ticket_only`: 09's kernel (one launch, the ticket) at 08's block and grid rule",
    "09_shape_only": "`--variant shape_only`: 08's kernel (two launches) at 09's shape per n",
    "09": "09: one launch (the ticket) at 09's shape per n",
}
# 05 as the first row of 06's table (loops and trees) and as the last of its own (its tree and its grid rule).
OWN_ROW_LABELS = {"05": "05: both changes, 05's kernel at 05's grid rule"}
SOURCE = os.path.dirname(HERE)  # the repository these tools belong to (ROOT may be a copy of its Markdown only)


def step_key(row):
    """A `tour --steps` row's key: "04" for a chapter's own kernel, "04_one_each" for a variant."""
    return row["chapter"][:2] + (f"_{row['variant']}" if row.get("variant") else "")


def combine_steps(runs):
    """Several runs' `tour --steps` rows ({key: row} per run): per key the median of the medians (with lo, hi,
    n_runs), the smallest min and the median GB/s."""
    combined = {}
    for key in dict.fromkeys(key for rows in runs for key in rows):
        found = [rows[key] for rows in runs if key in rows]
        medians = [r["median"] for r in found]
        combined[key] = {"median": median_over_machines(medians), "min": min(r["min"] for r in found),
                         "gbps": median_over_machines(r["gbps"] for r in found), "ok": all(r["ok"] for r in found),
                         "lo": min(medians), "hi": max(medians), "n_runs": len(found)}
    return combined


def row_name(key):
    """How a step intro names a row: "04" or "`tree_only`"."""
    return key if "_" not in key else f"`{key.split('_', 1)[1]}`"


def row_shapes(record):
    """The launch shapes of a record's rows, in words: "04 runs 1056 blocks of 256, `tree_only` ... and 05 ..."."""
    shapes = [f"{row_name(step_key(r))}{' runs' * (i == 0)} {r['grid']} block{'s' * (r['grid'] != 1)} of "
              f"{r['block']}" for i, r in enumerate(record["rows"])]
    return ", ".join(shapes[:-1]) + " and " + shapes[-1]


def step_intro(group, first, records):
    """The launch shapes of a step table and what its columns mean. 04 and 06 (first: the record of its smallest
    N): their own words. 05, 08, 09: generated from records (the first run's of this chapter), each row's shape at
    the largest N, and at any other N where a shape differs."""
    block, grids = first["block"], [row["grid"] for row in first["rows"]]
    columns = " Min µs: the fastest repetition of any run; GB/s: the median of the runs'."
    if group == "06":
        per_sm = f" ({grids[-1] // first['sms']} per SM)" if first.get("sms") else ""
        return (f"06's two changes, each alone on top of 05, then both: the same launch for all four ({block} "
                f"threads, the smallest of the four kernels' default grids, each one full wave from the occupancy "
                f"calculator, then one block over the partials). Grid: {grids[-1]} blocks of {block}{per_sm}, then "
                "1 block. \"vs 05\" is 05's median time over the row's." + columns)
    if group == "04":
        return ("From 03 to 04 in two steps: first the tree moves to shared memory (one element per thread, a "
                "launch per pass, as in 03), then the grid-stride loop and the fixed grid arrive. 04's grid: "
                f"{grids[-1]} blocks of {block}, then 1 block; 03 and the step between: one block per "
                f"{block} elements in each launch ({grids[0]} in the first at {power_label(first['n'])}), a launch "
                "per pass until one value is left. \"vs above\" is the median time of the row above over the row's."
                + columns)
    base = step_key(first["rows"][0])
    by_n = {r["n"]: row_shapes(r) for r in records}
    largest = max(by_n)  # and the other sizes where a shape differs (a rule that follows n)
    shapes = " ".join(f"At {power_label(n)}, {by_n[n]}." for n in sorted(by_n)
                      if n == largest or by_n[n] != by_n[largest])
    return (f"{group}'s changes, each alone on top of {base}, then {group}: each step runs one chapter's kernel at "
            "another chapter's launch rule, and every row runs at its own default shape (the grid of its first "
            f"launch; a second launch, where there is one, is one block). {shapes} \"vs {base}\" is {base}'s "
            "median time over the row's." + columns)


def step_cells(r, base, several):
    """One size's cells of a step row: median µs (± the spread over runs), min µs, GB/s, speed-up over base."""
    if r is None:
        return ["—"] * 4
    within = base and several and base["lo"] <= r["hi"] and r["lo"] <= base["hi"]  # the run ranges overlap
    speed = f"{results.WITHIN_MARK if within else ''}{base['median'] / r['median']:.2f}×" if base else "—"
    median = f"{r['median']:.1f}"
    if several and r["n_runs"] >= 2 and r["median"] > 0:
        median += " " + results.fmt_spread(100 * max(r["hi"] - r["median"], r["median"] - r["lo"]) / r["median"])
    return [median, f"{r['min']:.1f}", f"{r['gbps']:.0f}", speed]


def checked_runs(rows, parsed, name, blocks):
    """What the caption says of the runs' repetitions and flush (results.differs), or None, said, where a combined
    row is WRONG on some run (then no block of these is written)."""
    wrong = [" ".join(map(str, k)) for k, r in rows.items() if not r["ok"]]
    if wrong:
        say(f"{name} has WRONG results, {blocks} left as they were: " + "; ".join(wrong))
        return None
    records = [r for found in parsed for r in found]
    return differs(reps_of(records), all(r.get("flush") for r in records), len(parsed) < 2)


def steps_blocks(runs):
    """Each change of a chapter timed alone by `tour --steps NN` (steps.jsonl): for every chapter in the
    records, its README's block results:NN_steps, with the speed-up of each row over the one it builds on (04:
    the row above; the others: the first row, the previous chapter), combined over the runs."""
    parsed = [read_records(os.path.join(d, "steps.jsonl")) for d in runs]  # each run's `tour --steps NN --json`
    rows = combine_steps([{(record["steps"][:2], step_key(row), record["type"], record["n"]): {
        "median": 1000 * row["median_ms"], "min": 1000 * row["min_ms"], "gbps": row["gbps"], "ok": row["ok"]}
        for record in records for row in record["rows"]} for records in parsed])
    how = checked_runs(rows, parsed, "steps.jsonl", "step blocks")
    if how is None:
        return []
    records = [r for found in parsed for r in found]
    written = []
    for folder in sorted({r["steps"] for r in records}):
        group = folder[:2]
        mine = [r for r in parsed[0] if r["steps"] == folder]  # the launch shapes: the first run's
        if not mine:
            say(f"no `tour --steps {group}` record in the first run's steps.jsonl; its step table left as it was")
            continue
        first = min(mine, key=lambda r: r["n"])
        order = [step_key(row) for row in first["rows"]]
        vs = "vs above" if group == "04" else f"vs {order[0]}"
        sizes = sorted({k[3] for k in rows if k[0] == group})
        cells = []
        for dtype in [t for t in ("int", "float", "double") if any(k[0] == group and k[2] == t for k in rows)]:
            for i, key in enumerate(order):
                base = None if i == 0 else order[i - 1] if group == "04" else order[0]
                label = OWN_ROW_LABELS.get(key) if key == group else None
                cells.append([label or STEP_LABELS.get(key, key), dtype] + [c for n in sizes for c in step_cells(
                    rows.get((group, key, dtype, n)), rows.get((group, base, dtype, n)), len(runs) >= 2)])
        header = ["kernel", "type"] + [f"{power_label(n)} {c}" for n in sizes
                                       for c in ("median µs", "min µs", "GB/s", vs)]
        # Where the step variants live: steps.cu beside the copy unit (04, 06), else main.cu (05, 08, 09).
        source = "steps.cu" if os.path.exists(os.path.join(SOURCE, folder, "steps.cu")) else "main.cu"
        written += fill(f"{folder}/README.md", f"results:{group}_steps", [results.run_facts(d) for d in runs],
                        f"`tour --steps {group}`, the chapters' own kernels and {group}'s step variants "
                        f"([{source}]({source})){how}",
                        step_intro(group, first, [r for r in mine if r["type"] == first["type"]]) + "\n\n"
                        + table(header, "compact", cells))
    return written


# Where a chapter's undo table goes when not in its README: 17's README is at its length cap, and its early loads
# are a tuning of its kernel, beside its block size in docs/tuning.md.
UNDO_PAGES = {"17_reproducible": "docs/tuning.md"}


def undo_blocks(runs):
    """Each change a chapter times alone by a second build of its program without it (undo.jsonl, from
    `tools/gpu_suite.sh undo`): for every chapter in the records, its README's block results:NN_undo, a row per
    type and size with each step's median over the runs and the speed-up each step's change brings over the step
    before it (≈ where the runs' ranges overlap)."""
    parsed = [read_records(os.path.join(d, "undo.jsonl")) for d in runs]

    def size_of(record):  # a rows program's (M, K), a single-array program's n
        return (record["rows"], record["cols"]) if "cols" in record else (1, record["n"])
    rows = combine_steps([{(r["chapter"], r["step"], r["type"], size_of(r)): {
        "median": 1000 * r["median_ms"], "min": 1000 * r.get("min_ms", r["median_ms"]), "gbps": r["gbps"],
        "ok": r["ok"]}
        for r in records} for records in parsed])
    how = checked_runs(rows, parsed, "undo.jsonl", "undo blocks")
    if how is None:
        return []
    several, written = len(runs) >= 2, []
    for folder in dict.fromkeys(r["chapter"] for r in parsed[0]):
        mine = [r for r in parsed[0] if r["chapter"] == folder]
        steps = list(dict.fromkeys(r["step"] for r in mine))  # the columns, in the order they ran
        changes = {r["step"]: r["change"] for r in mine}
        cmake = read(os.path.join(SOURCE, folder, "CMakeLists.txt"))
        name, macro = re.search(r"UNDO (\w+)=(\w+)", cmake).groups()
        rows_kind = "cols" in mine[0]
        cells = []
        for dtype, size in dict.fromkeys((r["type"], size_of(r)) for r in mine):
            found = [rows.get((folder, step, dtype, size)) for step in steps]
            shape = f"{size[0]} × {size[1]}" if rows_kind else power_label(size[1])
            times = [step_cells(r, None, several)[0] for r in found]
            speed = [step_cells(r, before, several)[3] if r and before else "—"
                     for before, r in zip(found, found[1:])]
            cells.append([dtype, shape] + times + speed)
        header = ["type", "M × K" if rows_kind else "n"] + [f"{step} µs" for step in steps] + \
            [f"× {changes[step]}" for step in steps[1:]]
        # The change undone is the one the last column adds: the column before it is the build without it.
        intro = (f"Each row's runs followed each other on one GPU; \"{steps[-2]}\" is `{folder}_undo_{name}`, the "
                 f"program with its copy unit built with `-D{macro}`. \"× …\" is the column before's median time "
                 "over the column's: what that change buys alone.")
        written += fill(UNDO_PAGES.get(folder, f"{folder}/README.md"), f"results:{folder[:2]}_undo",
                        [results.run_facts(d) for d in runs],
                        f"`tools/gpu_suite.sh undo`, `{folder}` and `{folder}_undo_{name}` at each shape{how}",
                        intro + "\n\n" + table(header, "compact", cells))
    return written


# ----------------------------------------------------------------------------- one run's outputs

def cpu_block(runs):
    """00's README: every CPU method at each size (chapters.jsonl), then the float stall's output."""
    rows = [d for d in read_records(os.path.join(runs[0], "chapters.jsonl")) if d.get("chapter") == "00_cpu_baseline"]
    cells = [[power_label(d["n"]), m["name"], m["result"], f"{m['error']:.3g}", f"{m['median_ms']:.3f}",
              f"{m['gbps']:.1f}",
              "ok" if m["ok"] else "WRONG"] for d in rows for m in d["methods"]]
    facts = results.run_facts(runs[0])
    model = facts.get("cpu", "its model not recorded in this run")
    return fill("00_cpu_baseline/README.md", "output:00_cpu_methods", [facts],
                f"`00_cpu_baseline --n N --json` on the host's CPU ({model}), {rows[0]['threads']} threads"
                f"{differs(reps_of(rows))}",
                table(["n (int)", "method", "result", "error", "ms", "GB/s", "check"], "compact", cells)
                + "\n\nThe float stall, `--n 300000001 --type float --reps 3`:\n\n"
                + fenced(read(os.path.join(runs[0], "cpu_300M_float.txt"))))


def sass(runs):
    """08's README: its global loads by width (sass_08.txt: "COUNT LOAD" per kind, from gpu_suite.sh)."""
    counts = re.findall(r"^\s*(\d+) (LDG\.E[.0-9A-Z]*)$", read(os.path.join(runs[0], "sass_08.txt")), re.M)
    command = "cuobjdump -sass build/release/bin/08_vectorized | grep -oE \"LDG\\.E[.0-9A-Z]*\" | sort | uniq -c"
    loads = "\n".join(f"{int(v):7d} {k}" for v, k in sorted(counts, key=lambda c: c[1]))
    return fill("08_vectorized/README.md", "sass:08_vectorized", [results.run_facts(runs[0])],
                "the build's SASS, all instantiations (int, float, double), both launches",
                fenced(f"$ {command}\n" + loads))


def pitfalls(runs):
    """docs/pitfalls.md's outputs, one per "### N." section of pitfalls.txt, and 06's sanitizer output."""
    facts, text = [results.run_facts(runs[0])], read(os.path.join(runs[0], "pitfalls.txt"))
    sections, written = re.split(r"^### (\d)\. .*$", text, flags=re.M), []
    for number, body in zip(sections[1::2], sections[2::2]):
        written += fill("docs/pitfalls.md", f"output:{number}", facts, "the commands above (tools/pitfalls.sh), one "
                        "run", fenced("\n".join(line[:400] for line in body.strip().splitlines())))
    found = [re.search(rf"(\$ compute-sanitizer --tool {tool} \S+06_warp_unroll --n.*?)(?={end}|\Z)", text, re.S)
             for tool, end in (("racecheck", r"\n\$ "), ("synccheck", r"\n\$ |\n###"))]
    if all(found):
        written += fill("06_warp_unroll/README.md", "sanitize:06_warp_unroll", facts,
                        "racecheck and synccheck on the chapter's kernel (its sanitizer tests, in "
                        "[tests/CMakeLists.txt](../tests/CMakeLists.txt), run them at awkward sizes)",
                        fenced("\n\n".join(m.group(1).strip() for m in found)))
    return written


def ncu_blocks(runs):
    """docs/profiling.md: the first launch of every chapter; each chapter's README: all its launches; 04's too:
    the bank conflicts of its first launch, with sequential addressing and with the strided index."""
    facts, chapters, written = [results.run_facts(runs[0])], ncu_table.chapter_tables(runs[0]), []
    for chapter, launches in chapters.items():
        if os.path.exists(os.path.join(ROOT, chapter, "README.md")):
            written += fill(f"{chapter}/README.md", f"ncu:{chapter}", facts, "`ncu` with [these metrics]"
                            f"(../docs/profiling.md#nsight-compute-one-command-per-chapter) on `build/release/bin/"
                            f"{chapter} --n 2^24 --reps 1 --no-flush`, one run",
                            ncu_table.table(launches, ncu_table.columns_for(chapter, launches)))
    first = {chapter: found[0] for chapter, found in chapters.items()}
    launches = [dict(launch, **{"Kernel Name": f"{c}: {ncu_table.short_kernel(launch['Kernel Name'])}"})
                for c, launch in first.items()]
    written += fill("docs/profiling.md", "ncu:all", facts, "the command above on each chapter, its first launch, "
                    "one run", ncu_table.table(launches).replace("`", "").replace("| cub::", "| 10_cub: cub::"))
    trees = [("04_shared_tree", "sequential addressing"), ("04_shared_tree_strided", "strided index")]
    if not all(chapter in first for chapter, _ in trees):
        say("no ncu_04_shared_tree{,_strided}.csv with launches; 04's bank conflicts left as they were")
        return written
    metrics = ["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
               "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "gpu__time_duration.sum"]
    rows = []
    for chapter, tree in trees:
        ld, st, ns = (ncu_table.number(first[chapter].get(key, "")) or 0 for key in metrics)
        rows.append([f"`{ncu_table.short_kernel(first[chapter]['Kernel Name'])}` (first launch)", tree,
                     f"{ld:,.0f}", f"{st:,.0f}", f"{ns / 1000:.1f}"])
    command = f"ncu --metrics {','.join(metrics)} build/release/bin/04_shared_tree --n 2^24 --reps 1 --no-flush"
    return written + fill("04_shared_tree/README.md", "ncu:04_bank_conflicts", facts,
                          f"`{command}` for the first row, the same with `--variant strided` added for the second, "
                          "ints, one run", table(["kernel", "tree", "smem load bank conflicts",
                                                  "smem store bank conflicts", "time µs"], "compact", rows))


def single_pass(runs):
    """docs/tuning.md: tune_single_pass.jsonl's median µs per variant and size."""
    records = read_records(os.path.join(runs[0], "tune_single_pass.jsonl"))
    times, sizes = {}, sorted({d["n"] for d in records})
    for d in records:
        times.setdefault(d["variant"], {})[d["n"]] = f"{ms_to_us(d['median_ms']):.2f}" if d["ok"] else "wrong"
    return fill("docs/tuning.md", "results:tuning_single_pass", [results.run_facts(runs[0])],
                f"`tune_single_pass`, µs{differs(reps_of(records))}", table(
                    ["variant"] + [power_label(n) for n in sizes], "compact",
                    [[name] + [row.get(n, "—") for n in sizes] for name, row in times.items()]))


def block_sizes(runs):
    """docs/tuning.md: 01-03's --json runs at each block size (blocks.jsonl), µs per (block, n)."""
    records = read_records(os.path.join(runs[0], "blocks.jsonl"))
    times, blocks, sizes = {}, sorted({d["block"] for d in records}), sorted({d["n"] for d in records})
    for d in records:
        times.setdefault(d["chapter"], {})[(d["block"], d["n"])] = f"{d['median_ms'] * 1000:.1f}"
    return fill("docs/tuning.md", "results:tuning_blocks", [results.run_facts(runs[0])],
                "the chapters' `--json` runs at each block size, µs"
                + differs(reps_of(records), all(d.get("flush") is not False for d in records)),
                table(["chapter"] + [f"B={b}, {power_label(n)}" for n in sizes for b in blocks], "compact",
                      [[c] + [row.get((b, n), "—") for n in sizes for b in blocks]
                       for c, row in sorted(times.items())]))


# ----------------------------------------------------------------------------- 09 at small n

# The rows of 09's breakdown: (label, tune_small_n's job; "floor": the fastest of its floor jobs).
BREAKDOWN = [("an empty kernel at that shape: the launch", "empty 09-shape"),
             ("the read-only floor (its fastest shape)", "floor"),
             ("09 cut after step 1: read, block_reduce, partial stored", "stage partials"),
             ("... and step 2: the ticket (acquire-release)", "stage ticket"),
             ("(the ticket drawn relaxed: no ordering, not correct)", "stage relaxed"),
             ("... and step 3: 09, the last block's combine", "09 default"),
             ("09 with the classic ticket (`__threadfence` + `atomicInc`)", "09 threadfence"), ("CUB", "10 CUB")]


def small_n(runs):
    """09's README: where its time goes at 2^12, 2^16 and 2^20; docs/tuning.md: its default shape against the
    fastest found. From tune_small_n.jsonl (09_single_pass/bench/small_n.cu): the median over the runs."""
    times, shapes, reps = {}, {}, {}
    for run in runs:
        for r in read_records(os.path.join(run, "tune_small_n.jsonl")):
            if r["type"] != "int":
                continue
            times.setdefault((r["n"], r["job"]), []).append(ms_to_us(r["median_ms"]))
            shapes.setdefault((r["n"], r["job"]), f"{r['grid']} × {r['block']}")
            reps.setdefault(r["n"], set()).add(r["reps"])

    def med(n, job):
        if job == "floor":
            return min(med(n, j) for m, j in times if m == n and j.startswith("floor"))
        return median_over_machines(times[(n, job)])

    def how(sizes):
        """", median of 100 (30 from 2^24 up)": the repetitions at these sizes, smallest first."""
        counts = [("/".join(map(str, sorted(reps[n]))), n) for n in sorted(sizes)]
        changes = [f"{c} from {power_label(n)} up" for (b, _), (c, n) in zip(counts, counts[1:]) if c != b]
        return differs(counts[0][0] + (f" ({', '.join(changes)})" if changes else ""), one_run=len(runs) < 2)

    facts, sizes = [results.run_facts(run) for run in runs], [1 << 12, 1 << 16, 1 << 20]
    rows = [["09's default shape (grid × block)"] + [shapes[(n, "09 default")] for n in sizes]]
    rows += [[label] + [f"{med(n, job):.2f}" for n in sizes] for label, job in BREAKDOWN]
    written = fill("09_single_pass/README.md", "results:09_small_n", facts,
                   f"`tune_small_n` ([bench/small_n.cu](bench/small_n.cu)), int sums, µs{how(sizes)}",
                   table(["ints", "2^12", "2^16", "2^20"], "compact", rows) + "\n\nAt 2^12 the default grid is one "
                   "block, which writes the result without a ticket: its steps 2 and 3 are skipped by 09 itself, "
                   "while the cut-short kernels above still run them.")
    rows = []
    for n in sorted({n for n, _ in times}):
        best = min([j for m, j in times if m == n and j.startswith("09 B=")] + ["09 default"], key=lambda j: med(n, j))
        found = "the default"
        if best != "09 default":
            per_thread = int(best.split("V=")[1])
            found = f"{shapes[(n, best)]} ({per_thread} vector{'s' if per_thread != 1 else ''} per thread)"
        rows.append([power_label(n), shapes[(n, "09 default")], f"{med(n, '09 default'):.2f}", found,
                     f"{med(n, best):.2f}"])
    return written + fill("docs/tuning.md", "results:09_shape", facts, "`tune_small_n`, 09 at 256 and 1024 threads "
                          "per block, each with grids for 1, 2, 4 or 8 16-byte vectors per thread (at most one full "
                          f"wave; a shape that repeats the default is timed once), int sums, µs{how(reps)}",
                          table(["ints", "default grid × block", "default µs", "fastest shape found", "its µs"],
                                "compact", rows))


# ----------------------------------------------------------------------------- chapter 11

def link_between(topo_text):
    """The connection between GPU0 and GPU1 in `nvidia-smi topo -m` output, and the legend's
    words for it: ("NV18", "Connection traversing a bonded set of 18 NVLinks"); (None, None)."""
    lines = re.sub(r"\x1b\[[0-9;]*m", "", topo_text).splitlines()
    # The header row has an empty first cell (it starts with white space); GPU0's row starts with its name.
    header = next((line.split() for line in lines if line[:1].isspace() and "GPU1" in line.split()), [])
    row = next((line.split() for line in lines if line.startswith("GPU0")), [])
    if "GPU1" not in header or header.index("GPU1") + 1 >= len(row):
        return None, None
    link = row[header.index("GPU1") + 1]
    key = re.sub(r"\d+$", "#", link)  # NVk -> NV#, as the legend names it
    legend = re.search(rf"^\s*{re.escape(key)}\s+=\s+(.*\S)\s*$", "\n".join(lines), re.M)
    return link, legend.group(1).replace("#", link[len(key) - 1:]) if legend else None


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


def build_time_block(dirs):
    """The README's time from a fresh clone to a built 04 (tools/build_time.sh: build_time.json per run): the
    median of the runs of each step, the machine and the date from the files."""
    runs = [json.loads(read(os.path.join(d, "build_time.json"))) for d in dirs]
    first = runs[0]

    def seconds(key):
        return f"{median_over_machines(r[key] for r in runs):.0f} s"
    how = "one run" if len(runs) == 1 else f"the median of {len(runs)} runs"
    text = (f"From a fresh clone (of a local copy: no download) to a built 04, on {first['cores']} cores of an "
            f"{first['cpu']} without a GPU, nvcc {first['nvcc']}, for one GPU architecture (sm_"
            f"{first['architectures']}) and without the tests: {seconds('total_s')} (configure "
            f"{seconds('configure_s')}, build {seconds('build_s')}); {how}, {first['date']} "
            "([tools/build_time.sh](tools/build_time.sh)). The run itself is not timed there: it needs the GPU.\n")
    path = os.path.join(ROOT, "README.md")
    return [f"{path} (results:build_time)"] if results.fill_file(path, "results:build_time", text) else []


def multigpu_block(dirs):
    """11's README: scaling from 1 to 2 GPUs (the median of the machines' medians, and the range of their
    speed-ups), the run larger than one GPU, the MPI runs. One folder per separately started machine
    (tools/gpu_suite.sh multigpu on the first, scaling on the others); DataError when a folder lacks
    gpu_x2.txt/gpu.txt or multigpu.jsonl."""
    def text_of(folder, name):  # "" where the file is missing
        path = os.path.join(folder, name)
        return read(path) if os.path.exists(path) else ""

    def first(name):  # the file's text in the first folder that has it
        return next((text_of(d, name) for d in dirs if text_of(d, name)), "")

    machines = []  # per folder: its facts and its runs
    for folder in dirs:
        gpu_text, jsonl = text_of(folder, "gpu_x2.txt") or text_of(folder, "gpu.txt"), \
            os.path.join(folder, "multigpu.jsonl")
        if not gpu_text or not os.path.exists(jsonl):
            raise results.DataError(f"{folder} has no gpu_x2.txt/gpu.txt or multigpu.jsonl "
                                    "(tools/gpu_suite.sh multigpu or scaling)")
        mpi = os.path.join(folder, "multigpu_mpi.jsonl")  # the MPI program's run (gpu_suite.sh multigpu)
        runs = read_records(jsonl) + (read_records(mpi) if os.path.exists(mpi) else [])
        facts = results.parse_gpu_txt(gpu_text)
        facts["gpu"] = f"{max((r['gpus'] for r in runs), default=2)} × {facts.get('gpu') or runs[0]['device']}"
        machines.append((facts, runs))
    all_facts = [f for f, _ in machines]
    link, meaning = link_between(first("topo.txt"))
    between = (f"`nvidia-smi topo -m` between GPU0 and GPU1: {link}" + (f", {meaning[0].lower()}{meaning[1:]}"
               if meaning else "")) if link else "the link between them not recorded: no topo.txt"
    every = [r for _, runs in machines for r in runs]
    how = differs(reps_of(every), all(r.get("flush") is not False for r in every), one_run=len(machines) < 2)
    keys = list(dict.fromkeys((r["type"], r["n"], r["mode"]) for r in every if r["gpus"] == 2))
    rows = []
    for dtype, n, mode in keys:
        one, two = [], []  # per machine that has both
        for _, runs in machines:
            base = next((r for r in runs if (r["type"], r["n"], r["mode"], r["gpus"]) ==
                         (dtype, n, "one process", 1)), None)
            pair = next((r for r in runs if (r["type"], r["n"], r["mode"], r["gpus"]) == (dtype, n, mode, 2)), None)
            if base and pair:
                one.append(base)
                two.append(pair)
        if not one:
            continue
        ms1, ms2 = median_over_machines(r["median_ms"] for r in one), median_over_machines(r["median_ms"] for r in two)
        speeds = [a["median_ms"] / b["median_ms"] for a, b in zip(one, two)]
        label = dtype + ("" if mode == "one process" else f" ({mode})")
        rows.append([label, power_label(n), f"{ms1:.3f}", f"{median_over_machines(r['gbps'] for r in one):.0f}",
                     f"{ms2:.3f}", f"{median_over_machines(r['gbps'] for r in two):.0f}",
                     value_range(speeds, "{:.2f}") + "×", value_range([50 * x for x in speeds], "{:.1f}") + "%"])
    parts = [table(["type", "N", "1 GPU ms", "1 GPU GB/s", "2 GPUs ms", "2 GPUs GB/s", "speed-up",
                    "parallel efficiency"], "compact", rows)]
    if len(machines) > 1:
        parts.append("ms and GB/s: the median of the machines' medians; speed-up and efficiency: the range of "
                     "the machines' own.")
    large = first("multigpu_large.txt")
    if large:
        parts.append(large_run_sentence(large) + "\n\n" + fenced(large))
    if first("multigpu_mpi.txt"):
        parts.append("One process per GPU under MPI (`mpirun -np 2 build/release/bin/11_multi_gpu_mpi --n 2^30 "
                     "--type float`):\n\n" + fenced(first("multigpu_mpi.txt")))
    passed = re.search(r"\d+% tests passed.*", first("ctest_multigpu.log"))
    if passed:
        parts.append("`ctest --preset multigpu` on the first machine: " + passed.group(0) + ".")
    written = fill("11_multi_gpu/README.md", "results:11_multi_gpu", all_facts,
                   f"`11_multi_gpu --json` sums of the default random input ({between}), "
                   f"every total verified against the CPU reference on every GPU{how}", "\n\n".join(parts))
    # When rank 1 goes silent before the all-reduce: the ranks' own lines, without Open MPI's MPI_Abort banner.
    silent = first("multigpu_mpi_silent_peer.txt")
    if silent:
        written += fill("11_multi_gpu/README.md", "output:11_silent_peer", all_facts[:1],
                        "`REDUCTION_TEST_FAIL=1:allreduce REDUCTION_NCCL_TIMEOUT=10 mpirun -np 2 "
                        "build/release/bin/11_multi_gpu_mpi --n 2^30 --type float`",
                        fenced("\n".join(line for line in silent.splitlines() if line.startswith("11_multi_gpu_mpi:"))))
    return written


# ----------------------------------------------------------------------------- the suite's blocks

# Each writer of fill_suite and the files it needs (glob patterns): the runs that have them all are its input.
SUITE = [(small_n, "tune_small_n.jsonl"),
         (cpu_block, "chapters.jsonl cpu_300M_float.txt"), (pitfalls, "pitfalls.txt"), (ncu_blocks, "ncu_*.csv"),
         (single_pass, "tune_single_pass.jsonl"), (block_sizes, "blocks.jsonl")]


def fill_suite(dirs):
    """Every block of a gpu_suite run's own files (see the docstring). Returns what it wrote."""
    written = []
    for write, names in SUITE:
        runs = [d for d in dirs if all(glob.glob(os.path.join(d, name)) for name in names.split())]
        if runs:
            written += write(runs)
        else:
            say(f"no run has {names}; the blocks of {write.__name__} left as they were")
    return written
