#!/usr/bin/env python3
"""The tour's sweeps of one or more runs -> docs/results.md's blocks, the plots results_{int,float}.svg and the
README blocks results:main and results:NN_name; and what every page writer shares (fill_file, write_blocks,
table, median_over_machines, and a block's first line: caption, describe_runs, run_facts, machine, differs).

A run folder holds sweep_{int,float}.json (`tour --sweep`), directly or in data/ (tools/gpu_suite.sh), and
the run's facts: gpu.txt or run.json (docs/data/sweep/runK). Each run is one separately started machine; a
point's published time is the median over the runs of each run's median (median_over_machines). check() finds the suspect points (the noise
model below); remeasure() puts the tour's --json rows in place of a sweep's. tools/publish.py runs them.
"""

import datetime
import hashlib
import itertools
import json
import os
import re
import statistics
import sys

TYPES = ("int", "float")
PAGE_BLOCKS = ("runs", "int", "float", "suspects")  # docs/results.md's blocks (page_block)
TYPE_BYTES = {"int": 4, "float": 4, "double": 8}
TABLE_POWERS = (16, 20, 24, 28, 30)
MAIN_POWERS = (24, 28)
CPU, FIRST_GPU, CUB = "00_cpu_baseline", "01_global_naive", "10_cub"
FLOOR = "read-only floor"  # the tour's kernel that only reads the input: a yardstick, not a chapter
REPRODUCE = "build/release/bin/tour --sweep --type int --out build/sweep"
SUSPECT_MARK = " †"
WITHIN_MARK = "≈"
LARGE_SPREAD = 10.0  # percent: a ratio against a time spread wider than this is printed as a range
WRONG_NOTE = "⚠: the chapter's result was WRONG at that size; the time is shown but does not count."
SUSPECT_NOTE = (f"{SUSPECT_MARK.strip()}: a suspect point (`tools/publish.py check`: spread or neighbours out of "
                "line), published only because --allow-suspect was given; docs/results.md lists the reasons.")
LARGE_SPREAD_NOTE = (f"A ratio involving a time whose spread is over {LARGE_SPREAD:.0f}% is given as the range its "
                     "runs allow (from the farthest run medians of the two times), not as one number.")
DECLARED = None  # publish.py: the (page, marker) pairs of BLOCKS the running job may fill


class DataError(Exception):
    """A sweep file that is missing, unreadable or not in the tour's format."""


def read_jsonl(path):
    """The objects of a JSON-lines file: its lines that start with "{" (anything else, such as a launcher's
    message on stdout, is passed over). DataError when it cannot be read or a line is not JSON."""
    try:
        with open(path, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip().startswith("{")]
    except OSError as e:
        raise DataError(f"cannot read {path}: {e.strerror}")
    except ValueError as e:
        raise DataError(f"{path}: not JSON lines ({e})")


def joined_head(document):
    """A JSON document that holds the run head as its member "head" (common/run_head.h: device, cuda, driver,
    date, sms, peak_gbps, reps, flush), with the head's fields at its top level instead, as the readers take them."""
    head = document.get("head") if isinstance(document, dict) else None
    if not isinstance(head, dict):
        return document
    return {**{k: v for k, v in head.items() if k != "head"}, **{k: v for k, v in document.items() if k != "head"}}


def read_records(path):
    """The records of a JSON-lines file of one or more program runs (read_jsonl), each with the fields of the run
    head before it (the line {"head": true, ...}: common/run_head.h) joined in; the record's own fields win."""
    head, records = {}, []
    for obj in read_jsonl(path):
        if obj.get("head") is True:
            head = {k: v for k, v in obj.items() if k != "head"}
        else:
            records.append({**head, **obj})
    return records


# ----------------------------------------------------------------------------- reading

def index_rows(sweep):
    """Adds table (chapter -> n -> row), floor (n -> row), chapters and sizes to a sweep."""
    table = {}
    for row in sweep["rows"]:
        table.setdefault(row["chapter"], {})[row["n"]] = row
    sweep["floor"] = table.pop(FLOOR, {})  # older sweeps have none
    sweep["table"] = table
    sweep["chapters"] = sorted(table)
    sweep["sizes"] = sorted({row["n"] for row in sweep["rows"]})
    return sweep


def load_sweep(path, dtype):
    """One sweep file, checked against the tour's format and indexed (index_rows)."""
    try:
        with open(path, encoding="utf-8") as f:
            sweep = json.load(f)
    except OSError as e:
        raise DataError(f"cannot read {path}: {e.strerror}")
    except json.JSONDecodeError as e:
        raise DataError(f"{path} is not valid JSON: {e}")
    if not isinstance(sweep, dict):
        raise DataError(f"{path}: not a JSON object (is this a tour --sweep file?)")
    sweep = joined_head(sweep)
    number = (int, float)
    for key, kind in {"device": str, "cuda": str, "date": str, "peak_gbps": number, "type": str, "rows": list}.items():
        if not isinstance(sweep.get(key), kind):
            raise DataError(f"{path}: missing or mistyped key '{key}' (is this a tour --sweep file?)")
    for k, row in enumerate(sweep["rows"]):
        for key, kind in {"n": int, "chapter": str, "median_ms": number, "gbps": number, "ok": bool}.items():
            if not isinstance(row.get(key), kind):
                raise DataError(f"{path}: row {k} has no valid '{key}'")
    if not sweep["rows"]:
        raise DataError(f"{path}: no rows")
    if sweep["type"] != dtype:
        raise DataError(f"{path} holds type '{sweep['type']}', expected '{dtype}'")
    sweep["path"] = path
    return index_rows(sweep)


def sweep_dir(run_dir):
    """Where a run's sweep files lie: RUN_DIR/data (tools/gpu_suite.sh's layout) or RUN_DIR."""
    data = os.path.join(run_dir, "data")
    return data if any(os.path.exists(os.path.join(data, f"sweep_{t}.json")) for t in TYPES) else run_dir


def load_all(data_dir):
    """The sweeps of one run: {type: sweep}."""
    sweeps = {}
    for dtype in TYPES:
        path = os.path.join(sweep_dir(data_dir), f"sweep_{dtype}.json")
        if os.path.exists(path):
            sweeps[dtype] = load_sweep(path, dtype)
    if not sweeps:
        raise DataError(f"no sweep_int.json or sweep_float.json in '{data_dir}' (nor in its data/); "
                        f"make them with: {REPRODUCE}")
    return sweeps


def gpu_id(uuid):
    """A GPU's UUID as the docs keep it: a short hash, enough to tell GPUs apart, never the UUID."""
    return hashlib.sha256(uuid.encode()).hexdigest()[:12]


def parse_gpu_txt(text):
    """tools/gpu_suite.sh's gpu.txt (nvidia-smi's CSV with its header, `nvcc --version`, "cpu: MODEL", "date:
    YYYY-MM-DD") -> what it finds of gpu, driver, memory, cuda, cpu, date, gpu_ids (one per GPU, hashed), gpus."""
    facts, lines = {}, text.splitlines()
    for i, line in enumerate(lines):
        columns = [c.strip().split(" ")[0] for c in line.split(",")]
        if columns[0] != "name" or "driver_version" not in columns:
            continue
        gpus = []
        for data in lines[i + 1:]:
            cells = [c.strip() for c in data.split(",")]
            if len(cells) < len(columns) or not cells[0] or cells[0].startswith(("Cuda", "nvcc", "Built", "date")):
                break
            gpus.append(dict(zip(columns, cells)))
        if gpus:
            facts.update(gpu=gpus[0].get("name"), driver=gpus[0].get("driver_version"),
                         memory=gpus[0].get("memory.total"), gpus=len(gpus))
            ids = [gpu_id(g["uuid"]) for g in gpus if g.get("uuid")]
            if ids:
                facts["gpu_ids"] = ids
        break
    for key, pattern in (("cuda", r"release (\d+\.\d+)"), ("date", r"^date: (\d{4}-\d\d-\d\d)"),
                         ("cpu", r"^cpu: (\S.*?)\s*$")):
        m = re.search(pattern, text, re.M)
        if m:
            facts[key] = m.group(1)
    return facts


def file_date(path):
    """The UTC date a file was last written (tar keeps it): the fallback for a run's date."""
    return datetime.datetime.fromtimestamp(os.path.getmtime(path), datetime.timezone.utc).strftime("%Y-%m-%d")


def run_facts(run_dir, sweeps=None):
    """What a run was measured on: gpu, driver, cuda, date, gpu_ids. First found wins per key: run.json,
    gpu.txt, the sweep (device, cuda); the date is the sweep's, else gpu.txt's, else gpu.txt's file date."""
    facts, folder, date_file = {}, sweep_dir(run_dir), None
    for path in (os.path.join(run_dir, "run.json"), os.path.join(folder, "run.json")):
        if os.path.exists(path):
            try:
                with open(path, encoding="utf-8") as f:
                    facts.update({k: v for k, v in json.load(f).items() if v is not None})
            except (OSError, json.JSONDecodeError) as e:
                raise DataError(f"{path}: {e}")
            break
    for path in (os.path.join(run_dir, "gpu.txt"), os.path.join(os.path.dirname(os.path.abspath(folder)), "gpu.txt")):
        if os.path.exists(path):
            with open(path, encoding="utf-8", errors="replace") as f:
                for key, value in parse_gpu_txt(f.read()).items():
                    facts.setdefault(key, value)
            date_file = path
            break
    if sweeps:
        first = sweeps.get("int") or next(iter(sweeps.values()))
        facts["date"] = first["date"]  # the day the sweep ran (the tour writes it), before gpu.txt's
        facts.setdefault("gpu", first["device"])
        facts.setdefault("cuda", first["cuda"])
        facts["device"] = first["device"]
    if "date" not in facts and date_file:
        facts["date"] = file_date(date_file)
    facts["dir"] = run_dir
    return facts


def cpu_note(facts):
    """What 00's times ran on, for the captions of tables that hold them: the host's CPU of the machines."""
    if facts and all(f.get("cpu") for f in facts):
        return "00 on the host's CPU, " + " / ".join(dict.fromkeys(f["cpu"] for f in facts))
    return "00 on the host's CPU (its model not recorded in these runs)"


def caption(facts, what, page, root):
    """The first line of every generated block: the machines (describe_runs of each run's facts), what ran,
    and the link to docs/README.md, which says once how everything is timed (30 repetitions, L2 flushed,
    the median of the machines' medians). `what` names the program and only what differs from that."""
    return f"On {describe_runs(facts)}: {what} ([how these are measured]({how_link(page, root)}))."


REPS = 30  # the repetitions that docs/README.md's "How the numbers are measured" takes for granted


def differs(reps=REPS, flushed=True, one_run=True):
    """The end of a caption's `what`: where the measuring differs from docs/README.md's ("one run", a median
    of other than REPS repetitions, "L2 not flushed"); reps None: not recorded, nothing said."""
    parts = ["one run"] * one_run + [f"median of {reps}"] * (reps is not None and str(reps) != str(REPS))
    return "".join(", " + part for part in parts + ["L2 not flushed"] * (not flushed))


def reps_of(records):
    """The records' "reps" ("30", or "30 / 100" where they differ); None where none has one."""
    return " / ".join(map(str, sorted({r["reps"] for r in records if isinstance(r.get("reps"), int)}))) or None


def machine(folder, program):
    """What a run was measured on, for results.caption: results.run_facts of its folder (gpu.txt: the driver's
    own version, not the CUDA version it supports), the program's date; its GPU and CUDA without a gpu.txt."""
    facts = dict(run_facts(folder), date=program["date"])
    facts.setdefault("gpu", program["device"])
    facts.setdefault("cuda", program["cuda"].split(" (")[0])
    return facts


def write_blocks(blocks, root, who):
    """Fills each (page, marker, text) of blocks; text None leaves the block as it was. Returns what it
    wrote; says on stderr what it could not."""
    written = []
    for path, marker, text in blocks:
        if text is None:
            print(f"{who}: no data for {marker}; block left as it was", file=sys.stderr)
        elif fill_file(path, marker, text.rstrip() + "\n"):
            written.append(f"{path} ({marker})")
        else:
            print(f"{who}: no block {marker} in {os.path.relpath(path, root)}", file=sys.stderr)
    return written


def ms_to_us(ms):
    """A time in ms as µs, rounded to 1e-6 µs: a time stored as µs text (3 decimals) reads back as that number."""
    return round(ms * 1000, 6)


def median_over_machines(values):
    """What every table publishes for a quantity measured on several separately started machines: the median
    of the machines' values (each machine's own median time, GB/s, ratio ...); with two machines their mean."""
    return statistics.median(values)


def load_runs(run_dirs):
    """Every run: [{"dir", "sweeps": {type: sweep}, "facts": {...}}], in the order given."""
    runs = []
    for run_dir in run_dirs:
        sweeps = load_all(run_dir)
        runs.append({"dir": run_dir, "sweeps": sweeps, "facts": run_facts(run_dir, sweeps)})
    return runs


# ----------------------------------------------------------------------------- combining runs

def combine(runs):
    """One sweep per type from several runs. A row's ms is the median over the runs of each run's median
    (gbps and percent_of_peak follow); added: run_ms (None where a run lacks the point), lo, hi, n_runs,
    iqr_ms (the median of the runs'), remeasured (1-based runs)."""
    devices = sorted({s["device"] for run in runs for s in run["sweeps"].values()})
    if len(devices) > 1:
        raise DataError("the runs were measured on different GPUs (" + ", ".join(devices) + "): "
                        "combine runs of one GPU model only")
    combined = {}
    for dtype in TYPES:
        present = [(k, run) for k, run in enumerate(runs) if dtype in run["sweeps"]]
        if not present:
            continue
        sweeps = [run["sweeps"][dtype] for _, run in present]
        peak = median_over_machines(s["peak_gbps"] for s in sweeps)
        points = {}  # (n, chapter) -> each run's row, in the order first seen
        for slot, sweep in enumerate(sweeps):
            for row in sweep["rows"]:
                points.setdefault((row["n"], row["chapter"]), [None] * len(sweeps))[slot] = row
        rows = []
        for (n, chapter), per_run in sorted(points.items(), key=lambda item: item[0][0]):
            found = [r for r in per_run if r is not None]
            times = [r["median_ms"] for r in found]
            ms = median_over_machines(times)
            if len(found) == 1:
                gbps = found[0]["gbps"]
            else:
                gbps = n * TYPE_BYTES.get(dtype, 4) / (ms * 1e6) if ms > 0 else 0.0
            iqrs = [r["iqr_ms"] for r in found if isinstance(r.get("iqr_ms"), (int, float))]
            rows.append({
                "n": n, "chapter": chapter, "median_ms": ms, "gbps": gbps,
                "percent_of_peak": 0.0 if chapter == CPU or peak <= 0 else 100 * gbps / peak,
                "ok": all(r["ok"] for r in found), "iqr_ms": median_over_machines(iqrs) if iqrs else None,
                "run_ms": [None if r is None else r["median_ms"] for r in per_run],
                "lo": min(times), "hi": max(times), "n_runs": len(found),
                "remeasured": [present[slot][0] + 1 for slot, r in enumerate(per_run) if r and r.get("remeasured")],
            })
        reps = sorted({s.get("reps") for s in sweeps if isinstance(s.get("reps"), int)})
        facts = [dict(run["facts"], number=k + 1, reps=s.get("reps")) for (k, run), s in zip(present, sweeps)]
        combined[dtype] = index_rows({
            "device": devices[0], "peak_gbps": peak, "type": dtype, "rows": rows,
            "reps": reps[0] if len(reps) == 1 else None, "reps_all": reps,
            "flush": {s.get("flush", True) for s in sweeps} == {True}, "runs": facts,
            "paths": [s["path"] for s in sweeps], "path": sweeps[0]["path"],
            "cuda": facts[0].get("cuda", sweeps[0]["cuda"]), "date": facts[0].get("date", sweeps[0]["date"])})
    return combined


def describe_runs(facts):
    """The machines behind a set of runs: "GPU, CUDA 13.0, driver 580.159.04, 2026-11-22" for one run; for
    several, the values that differ joined by " / ", then how many runs on how many GPUs (machines, for runs of
    several GPUs) and their dates."""
    def field(key, prefix=""):
        values = list(dict.fromkeys(f[key] for f in facts if f.get(key)))  # each value once, in order
        return prefix + " / ".join(values) if values else None

    parts = [field("gpu") or "the GPU", field("cuda", "CUDA "), field("driver", "driver ")]
    machine = ", ".join(p for p in parts if p)
    dates = sorted({f["date"] for f in facts if f.get("date")})
    if len(facts) < 2:
        return machine + (", " + dates[0] if dates else "")
    ids = [(f.get("gpu_ids") or [None])[0] for f in facts]
    count = f"{len(facts)} runs"
    if all(ids):  # a run of several GPUs is told apart by its first: a machine
        distinct = len(set(ids))
        noun = "machine" if any((f.get("gpus") or 1) > 1 for f in facts) else "GPU"
        count += f" on {distinct} different {noun}{'s' if distinct != 1 else ''}"
    when = ", ".join(dates[:-1]) + " and " + dates[-1] if len(dates) > 1 else "".join(dates)
    return f"{machine}; {count}" + (", " + when if when else "")


# ----------------------------------------------------------------------------- noise and suspect points
#
# The noise model comes from the reference run (docs/data as of 2026-11-22: an H100, 30 repetitions per
# point, N = 2^10 .. 2^30). GPU rows (01-10, the floor): the IQR of the repetitions is at most 1.15 µs under
# 20 µs (launch and event jitter) and exceeds that by at most 0.75 % of the median above: noise(ms) = 1.2 µs
# + 0.75 % of ms. The CPU row (host threads on a shared machine): IQR up to 41 % of the median. Between runs
# a GPU point also moves with the machine: 09 at 2^30 ints took 1371-1395 µs (1.7 %) on four H100 instances.
# A point is suspect where a difference exceeds SUSPECT_FACTOR = 2 times the noise (of two medians, the
# larger one's); on the reference run the largest ratio to the noise is 0.99. The CPU row is left out of int
# vs float: its wide accumulator (int64 vs double) makes float up to 2.4 times slower, a property, not noise.

NOISE_MODEL = {"gpu": (0.0012, 0.0075), "cpu": (0.0, 0.41)}  # (constant part in ms, share of the median)
BETWEEN_RUNS_SHARE = 0.017
SUSPECT_FACTOR = 2.0


def noise_ms(chapter, ms, between_runs=False):
    """How much a median of this chapter at this time moves by noise alone (see above)."""
    constant, share = NOISE_MODEL["cpu" if chapter == CPU else "gpu"]
    if between_runs and chapter != CPU:
        share = max(share, BETWEEN_RUNS_SHARE)
    return constant + share * ms


def check(runs, combined=None):
    """The suspect points of a set of runs: dicts of kind, type, chapter, n, n2 (the pair's other size),
    run (1-based, within a run), why, marks ((type, chapter, n) to mark), sizes ((type, n) to measure)."""
    combined = combine(runs) if combined is None else combined
    suspects = []

    def add(kind, dtype, chapter, n, why, run=None, n2=None, marks=None, sizes=None):
        suspects.append({"kind": kind, "type": dtype, "chapter": chapter, "n": n, "n2": n2, "run": run, "why": why,
                         "marks": marks or [(dtype, chapter, n)], "sizes": sizes or [(dtype, n)]})

    def us(ms):
        return fmt_time(ms) if ms and ms > 0 else "0"

    def lines(sweep):
        return list(sweep["table"].items()) + [(FLOOR, sweep["floor"])]

    def limit(chapter, a, b, factor_a=1):
        return SUSPECT_FACTOR * max(noise_ms(chapter, b["median_ms"]), factor_a * noise_ms(chapter, a["median_ms"]))

    for k, run in enumerate(runs):  # 1. within a run: the repetitions of one point spread too far
        for dtype, sweep in run["sweeps"].items():
            for row in sweep["rows"]:
                iqr = row.get("iqr_ms")
                if isinstance(iqr, (int, float)) and row["median_ms"] > 0 and iqr > limit(row["chapter"], row, row):
                    add("spread within the run", dtype, row["chapter"], row["n"],
                        f"IQR {us(iqr)} = {100 * iqr / row['median_ms']:.1f}% of the median {us(row['median_ms'])} "
                        f"(limit {us(limit(row['chapter'], row, row))})", run=k + 1)
    for dtype, sweep in combined.items():  # 2. between runs: the runs' medians of one point spread too far
        for row in sweep["rows"]:
            if row.get("n_runs", 1) < 2 or row["median_ms"] <= 0:
                continue
            most = SUSPECT_FACTOR * noise_ms(row["chapter"], row["median_ms"], between_runs=True)
            if row["hi"] - row["lo"] > most:
                medians = ", ".join("—" if t is None else fmt_time(t) for t in row["run_ms"])
                add("spread between runs", dtype, row["chapter"], row["n"],
                    f"the runs' medians {medians} differ by {us(row['hi'] - row['lo'])} (limit {us(most)})")
    if "int" in combined and "float" in combined:  # 3. the same bytes, so a memory-bound kernel takes the same time
        for chapter, points in lines(combined["int"]):
            other = combined["float"]["floor"] if chapter == FLOOR else combined["float"]["table"].get(chapter, {})
            for n, a in sorted(points.items()):
                b = other.get(n)
                if chapter == CPU or b is None or a["median_ms"] <= 0 or b["median_ms"] <= 0:
                    continue
                if abs(a["median_ms"] - b["median_ms"]) > limit(chapter, a, b):
                    add("int and float disagree", "int", chapter, n,
                        f"int {fmt_time(a['median_ms'])}, float {fmt_time(b['median_ms'])}: "
                        f"{a['median_ms'] / b['median_ms']:.2f}× for the same "
                        f"bytes (limit: a difference of {us(limit(chapter, a, b))})",
                        marks=[("int", chapter, n), ("float", chapter, n)], sizes=[("int", n), ("float", n)])
    for dtype, sweep in combined.items():  # 4. N against 2N: the time must not fall, nor more than double
        for chapter, points in lines(sweep):
            for n, a in sorted(points.items()):
                b = points.get(2 * n)
                if b is None or a["median_ms"] <= 0 or b["median_ms"] <= 0:
                    continue
                pair = dict(n2=2 * n, marks=[(dtype, chapter, n), (dtype, chapter, 2 * n)],
                            sizes=[(dtype, n), (dtype, 2 * n)])
                at, at2 = power_label(n), power_label(2 * n)
                if a["median_ms"] - b["median_ms"] > limit(chapter, a, b):
                    add("time falls when N doubles", dtype, chapter, n, f"{fmt_time(a['median_ms'])} at {at}, "
                        f"{fmt_time(b['median_ms'])} at {at2} (limit: a fall of {us(limit(chapter, a, b))})", **pair)
                if b["median_ms"] - 2 * a["median_ms"] > limit(chapter, a, b, 2):
                    add("GB/s drops when N doubles", dtype, chapter, n,
                        f"{fmt_gbps(a['gbps'])} GB/s at {at}, {fmt_gbps(b['gbps'])} GB/s at {at2}: the time grows "
                        f"{b['median_ms'] / a['median_ms']:.2f}× (limit: twice plus {us(limit(chapter, a, b, 2))})",
                        **pair)
    return suspects


def describe_suspect(s):
    where = power_label(s["n"]) + (f" and {power_label(s['n2'])}" if s.get("n2") else "")
    run = f" (run {s['run']})" if s.get("run") else ""
    return f"{s['type']} {s['chapter']} at N = {where}: {s['kind']}{run}: {s['why']}"


# ----------------------------------------------------------------------------- formatting

def fixed(x, *limits):
    """x with one decimal more for each limit it is under: fixed(x, 100, 10) keeps three digits."""
    return f"{x:.{sum(x < limit for limit in limits)}f}"


def fmt_time(ms):
    if ms is None or ms <= 0:
        return "—"
    value, unit = (ms * 1000, "µs") if ms < 1 else (ms, "ms") if ms < 1000 else (ms / 1000, "s")
    return f"{fixed(value, 100, 10)} {unit}"


def fmt_gbps(gbps):
    return "—" if gbps is None else fixed(gbps, 100, 1)


def fmt_percent(p):
    return "—" if p is None else f"{p:.1f}%" if p >= 1 else f"{p:.2f}%"


def value_range(values, fmt):
    """The range of the machines' values with fmt ("1.96–1.99"), or one value where they agree."""
    lo, hi = fmt.format(min(values)), fmt.format(max(values))
    return lo if lo == hi else f"{lo}–{hi}"


def fmt_spread(p):
    return "—" if p is None else f"±{fixed(p, 9.95, 0.095)}%"


def power_label(n):
    k = n.bit_length() - 1
    return f"2^{k}" if n == 1 << k else str(n)


def spread_percent(row):
    """The spread of a published time, as a share of it: across runs, the run median farthest
    from the published one; with one run, half the interquartile range of its repetitions."""
    if row is None or row["median_ms"] <= 0:
        return None
    if row.get("n_runs", 1) >= 2:
        return 100 * max(row["hi"] - row["median_ms"], row["median_ms"] - row["lo"]) / row["median_ms"]
    iqr = row.get("iqr_ms")
    return None if not isinstance(iqr, (int, float)) else 100 * iqr / 2 / row["median_ms"]


def band(row):
    """The interval a published time stands for: the runs' medians, or the middle half of one run's repetitions."""
    if row.get("n_runs", 1) >= 2:
        return row["lo"], row["hi"]
    half = row["iqr_ms"] / 2 if isinstance(row.get("iqr_ms"), (int, float)) else 0.0
    return row["median_ms"] - half, row["median_ms"] + half


def within_spread(a_row, b_row):
    """True when two published times cannot be told apart: their bands overlap."""
    if a_row is None or b_row is None:
        return False
    (a_lo, a_hi), (b_lo, b_hi) = band(a_row), band(b_row)
    return a_lo <= b_hi and b_lo <= a_hi


def large_spread(a_row, b_row):
    """True when a ratio of the two times is shown as a range (LARGE_SPREAD)."""
    if a_row is None or b_row is None or a_row is b_row:
        return False
    return any((spread_percent(row) or 0) > LARGE_SPREAD for row in (a_row, b_row))


def marked_ratio(a_row, b_row):
    """a's time over b's, with ≈ when within the spread; the range the bands allow past LARGE_SPREAD."""
    if a_row is None or b_row is None or b_row["median_ms"] <= 0:
        return "—"
    (a_lo, a_hi), (b_lo, b_hi) = band(a_row), band(b_row)
    if large_spread(a_row, b_row) and b_lo > 0 and b_hi > 0:
        return f"{fixed(a_lo / b_hi, 100, 10)}–{fixed(a_hi / b_lo, 100, 10)}×"
    within = a_row is not b_row and within_spread(a_row, b_row)
    return (WITHIN_MARK if within else "") + f"{a_row['median_ms'] / b_row['median_ms']:.2f}×"


def percent_of_peak(row, sweep):
    return None if row is None or row["chapter"] == CPU or sweep["peak_gbps"] <= 0 else row["percent_of_peak"]


def flags(row, marks, dtype):
    """The WRONG and suspect marks after a cell."""
    if row is None:
        return ""
    return (" ⚠" if not row["ok"] else "") + (SUSPECT_MARK if (dtype, row["chapter"], row["n"]) in marks else "")


def timed(row, marks, dtype):
    """A time cell: the time, its spread, the marks."""
    if row is None:
        return "—"
    p = spread_percent(row)
    return fmt_time(row["median_ms"]) + ("" if p is None else f" {fmt_spread(p)}") + flags(row, marks, dtype)


def rel_link(from_file, target):
    return os.path.relpath(target, os.path.dirname(os.path.abspath(from_file))).replace(os.sep, "/")


def how_link(page, root):
    """The link from a page to docs/README.md's "how the numbers are measured"."""
    return rel_link(page, os.path.join(root, "docs", "README.md")) + "#how-the-numbers-are-measured"


def chapter_name(chapter, root, from_file):
    """The chapter linked to its README (where there is one), with (CPU) or (yardstick)."""
    readme = os.path.join(root, chapter, "README.md")
    link = f"[{chapter}]({rel_link(from_file, readme)})" if os.path.exists(readme) else chapter
    return link + (" (CPU)" if chapter == CPU else " (yardstick)" if chapter == CUB else "")


def method_note(sweep):
    """differs() of a combined sweep: its repetitions, L2 flush and number of runs."""
    return differs(sweep.get("reps") or " / ".join(map(str, sweep.get("reps_all") or [])) or None, sweep["flush"],
                   len(sweep["runs"]) < 2)


def gpu_and_rest(sweep):
    """describe_runs of a combined sweep's runs, split after the GPU: ("NVIDIA H100 ...", ", CUDA ...")."""
    facts = describe_runs(sweep["runs"])
    gpu = facts.split(",")[0]
    return gpu, facts[len(gpu):]


def remeasured_note(sweeps):
    """The sizes each run measured again (tools/gpu_suite.sh's sweep step: its suspect points, with the tour)."""
    found = {}
    for dtype, sweep in sweeps.items():
        for row in sweep["rows"]:
            for run in row.get("remeasured") or []:
                found.setdefault(run, {}).setdefault(dtype, set()).add(row["n"])
    if not found:
        return []
    parts = [f"run {run}: " + ", ".join(f"{t} at N = {', '.join(power_label(n) for n in sorted(sizes))}"
                                        for t, sizes in types.items()) for run, types in sorted(found.items())]
    return ["Measured again, every chapter, with the tour after the sweep (the points the sweep step of "
            "tools/gpu_suite.sh found suspect): " + "; ".join(parts) + ".", ""]


def notes(rows, marked):
    """The WRONG and suspect notes, where the rows need them."""
    return ([WRONG_NOTE, ""] if any(not r["ok"] for r in rows) else []) + ([SUSPECT_NOTE, ""] if marked else [])


def table(header, aligns, rows):
    """A Markdown table, the one every page writer uses. aligns: one rule cell per column ("---", "---:");
    None: the first column left, the others right; "compact": the rule |---|---|."""
    if aligns == "compact":
        rule = "|" + "---|" * len(header)
    else:
        rule = "| " + " | ".join(aligns or ["---"] + ["---:"] * (len(header) - 1)) + " |"
    return "\n".join(["| " + " | ".join(header) + " |", rule] + ["| " + " | ".join(map(str, r)) + " |" for r in rows])


# ----------------------------------------------------------------------------- results.md

def page_block(key, sweeps, root, page, suspects=()):
    """A block of docs/results.md (PAGE_BLOCKS): runs (the run files and machines), int or float (the type's
    plot and tables), suspects (the suspect points). None where there is no sweep of that type."""
    marks = {mark for s in suspects for mark in s["marks"]}
    if key in TYPES:
        return "\n".join(section(key, sweeps[key], root, page, marks)) if key in sweeps else None
    if key == "suspects" and not suspects:
        return "None: `python3 tools/publish.py check` finds no suspect point in these runs."
    if key == "suspects":
        return "\n".join(["Published with --allow-suspect; `python3 tools/publish.py check` on the runs lists them:",
                          ""] + [f"- {describe_suspect(s)}" for s in suspects])
    first = next(iter(sweeps.values()))
    out = []
    for k, facts in enumerate(first["runs"]):
        links = []
        for sweep in sweeps.values():
            path = sweep["paths"][k] if k < len(sweep["paths"]) else sweep["path"]
            name, inside = os.path.basename(path), not os.path.relpath(os.path.abspath(path), root).startswith("..")
            links.append(f"[{name}]({rel_link(page, path)})" if inside else f"`{name}`")
        out.append(f"- run {k + 1}: {', '.join(links)}: {describe_runs([facts])}{method_note(sweep)}")
    return "\n".join(out + [""] + remeasured_note(sweeps)
                     + notes([r for s in sweeps.values() for r in s["rows"]], marks))


def section(dtype, sweep, root, page, marks):
    """One type's part of results.md: the plot (every size), time and bandwidth at TABLE_POWERS."""
    sizes = [1 << k for k in TABLE_POWERS]
    plot = rel_link(page, os.path.join(root, "docs", "images", f"results_{dtype}.svg"))

    def grid(cell):
        return table(["chapter"] + [f"N = {power_label(n)}" for n in sizes], None,
                     [[chapter_name(c, root, page)] + [cell(sweep["table"][c].get(n)) for n in sizes]
                      for c in sweep["chapters"]])

    def bandwidth(row):
        p = percent_of_peak(row, sweep)
        return fmt_gbps(row["gbps"]) + ("" if p is None else f" ({fmt_percent(p)})") + flags(row, marks, dtype)

    return [f"![GB/s against N for every chapter, {dtype}]({plot})", "",
            f"### Time (median{' of the runs' if len(sweep['runs']) >= 2 else ''}, ± spread), {dtype}", "",
            grid(lambda row: timed(row, marks, dtype)), "", f"### Bandwidth, {dtype}: GB/s (% of peak)", "",
            grid(lambda row: "—" if row is None else bandwidth(row))]


# ----------------------------------------------------------------------------- README blocks

def main_block(sweeps, root, readme, suspects=()):
    """The top README's tables at MAIN_POWERS: every chapter's time, bandwidth and speed-ups (int)."""
    marks = {mark for s in suspects for mark in s["marks"]}
    dtype = "int" if "int" in sweeps else next(iter(sweeps))
    sweep = sweeps[dtype]
    page = rel_link(readme, os.path.join(root, "docs", "results.md"))
    out = [caption(sweep["runs"], f"`{dtype}` sums by `tour --sweep`{method_note(sweep)}; peak "
                   f"{sweep['peak_gbps']:.0f} GB/s; {cpu_note(sweep['runs'])}", readme, root) + " \"vs previous\" is the speed-up over the "
           f"row above, \"vs 01\" over chapter 01. Every size and `float`: [docs/results.md]({page}).", ""]
    out += notes(sweep["rows"], marks)
    wide = False
    for k in MAIN_POWERS:
        n = 1 << k
        present = [c for c in sweep["chapters"] if n in sweep["table"][c]]
        if not present:
            out += [f"N = 2^{k}: not measured (the sweep stopped before this size).", ""]
            continue
        first = sweep["table"].get(FIRST_GPU, {}).get(n)
        floor = sweep["floor"].get(n)
        rows, previous = [], None
        for chapter in present:
            row = sweep["table"][chapter][n]
            of_floor = None
            if floor is not None and chapter != CPU and floor["gbps"] > 0:
                of_floor = 100 * row["gbps"] / floor["gbps"]
            rows.append([chapter_name(chapter, root, readme), fmt_time(row["median_ms"]) + flags(row, marks, dtype),
                         fmt_spread(spread_percent(row)), fmt_gbps(row["gbps"]),
                         fmt_percent(percent_of_peak(row, sweep)),
                         (WITHIN_MARK if of_floor is not None and within_spread(row, floor) else "")
                         + fmt_percent(of_floor), marked_ratio(previous, row), marked_ratio(first, row)])
            wide = wide or large_spread(previous, row) or large_spread(first, row)
            previous = row
        mib = n * TYPE_BYTES[dtype] >> 20
        size = f"{mib >> 10} GiB" if mib >= 1024 else f"{mib} MiB"
        out += [f"**N = 2^{k} {dtype}s ({size})**", "",
                table(["chapter", "time", "spread", "GB/s", "% of peak", "% of floor", "vs previous", "vs 01"], None,
                      rows), ""]
        if floor:
            out += [f"The read-only floor: {fmt_time(floor['median_ms'])} {fmt_spread(spread_percent(floor))}, "
                    f"{fmt_gbps(floor['gbps'])} GB/s, {fmt_percent(100 * floor['gbps'] / sweep['peak_gbps'])} of peak.",
                    ""]
    plot = rel_link(readme, os.path.join(root, "docs", "images", f"results_{dtype}.svg"))
    out += [LARGE_SPREAD_NOTE, ""] if wide else []
    return "\n".join(out + [f"![GB/s against N for every chapter ({dtype})]({plot})"])


def chapter_block(chapter, sweeps, root, readme, suspects=()):
    """A chapter's results table at TABLE_POWERS of the first type that has it: its time beside the
    previous chapter's and CUB's, its bandwidth and the two speed-ups. None where no sweep has it."""
    marks = {mark for s in suspects for mark in s["marks"]}
    present = {t: s for t, s in sweeps.items() if chapter in s["table"]}
    if not present:
        return None
    dtype, sweep = next(iter(present.items()))
    points = sweep["table"][chapter]
    page = rel_link(readme, os.path.join(root, "docs", "results.md"))
    on_cpu = f"; {cpu_note(sweep['runs'])}" if chapter == CPU else ""
    out = [caption(sweep["runs"], f"`{dtype}` sums by `tour --sweep`{method_note(sweep)}{on_cpu}", readme, root)
           + f" `float` and every size: [docs/results.md]({page}).", ""]
    out += notes(points.values(), any((dtype, chapter, n) in marks for n in points))
    # The chapter before it in reading order, leaving out CUB and, for the GPU chapters but the first, the CPU.
    before = sweep["chapters"][:sweep["chapters"].index(chapter)]
    previous = next((c for c in reversed(before) if c != CUB and (c != CPU or chapter == FIRST_GPU)), None)
    cub = CUB if chapter not in (CUB, CPU) and CUB in sweep["table"] else None
    columns = [c for c in (previous, chapter, cub) if c]
    others = [c for c in (previous, cub) if c]
    header = [f"N ({dtype}s)"] + [f"**{c}**" if c == chapter else c for c in columns] + ["GB/s"]
    header += ([] if chapter == CPU else ["% of peak"]) + [f"vs {c[:2]}" if c == previous else "vs CUB" for c in others]
    rows, wide = [], False
    for k in TABLE_POWERS:
        row = points.get(1 << k)
        cells = [f"2^{k}"] + [timed(sweep["table"][c].get(1 << k), marks, dtype) for c in columns]
        cells.append(fmt_gbps(row["gbps"] if row else None))
        cells += [] if chapter == CPU else [fmt_percent(percent_of_peak(row, sweep))]
        cells += [marked_ratio(sweep["table"][c].get(1 << k), row) for c in others]
        wide = wide or any(large_spread(sweep["table"][c].get(1 << k), row) for c in others)
        rows.append(cells)
    out += [table(header, ["---:"] * len(header), rows)]
    if others:  # 00's table has no "vs" column
        out += ["", "\"vs\" is how many times faster this chapter is." + (f" {LARGE_SPREAD_NOTE}" if wide else "")]
    return "\n".join(out)


# ----------------------------------------------------------------------------- marker blocks

def fill_text(text, marker, content):
    """Replaces the inside of every `<!-- MARKER -->` ... `<!-- /KIND -->` block of text, the content between
    blank lines (empty: the markers on adjacent lines). Returns (new text, number of blocks); ValueError for a
    block that is not closed."""
    kind = marker.split(":", 1)[0]
    start = re.compile(r"^\s*<!--\s*" + re.escape(marker) + r"\s*-->\s*$")
    end = re.compile(r"^\s*<!--\s*/" + re.escape(kind) + r"\s*-->\s*$")
    lines = text.split("\n")
    inner = [""] + content.strip("\n").split("\n") + [""] if content.strip() else []
    out, count, i = [], 0, 0
    while i < len(lines):
        out.append(lines[i])
        if start.match(lines[i]):
            j = i + 1
            while j < len(lines) and not end.match(lines[j]) and not start.match(lines[j]):
                j += 1
            if j >= len(lines) or not end.match(lines[j]):
                raise ValueError(f"the block '<!-- {marker} -->' (line {i + 1}) has no '<!-- /{kind} -->' after it")
            out.extend(inner)
            count += 1
            i = j
            continue
        i += 1
    return "\n".join(out), count


def fill_file(path, marker, content):
    """Fills every block MARKER of a file. Returns the number of blocks; writes only on change."""
    if DECLARED is not None and (os.path.abspath(path), marker) not in DECLARED:
        raise ValueError(f"{path}: block {marker} is not in tools/publish.py's BLOCKS for this kind of run")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    new_text, count = fill_text(text, marker, content)
    if new_text != text:
        with open(path, "w", encoding="utf-8") as f:
            f.write(new_text)
    return count


# ----------------------------------------------------------------------------- the plot

PALETTE = ["#d62728", "#ff7f0e", "#bcbd22", "#2ca02c", "#17becf", "#1f77b4", "#9467bd", "#8c564b", "#e377c2",
           "#393b79"]


def plot(dtype, sweep, path):
    """GB/s against N from 2^10, one line per chapter, CUB thickest; with several runs, the runs' range
    as a light band around each line (tools/plots.py)."""
    import plots
    runs = len(sweep["runs"])
    gpu, rest = gpu_and_rest(sweep)
    how = f"the median of {runs} runs' medians (band: their range)" if runs >= 2 else "one run"
    method = f"every chapter at its default launch shape; {how}{method_note(sweep)}"
    palette = itertools.cycle(PALETTE)
    series = []
    for chapter in sweep["chapters"]:
        color = "#111111" if chapter == CUB else "#8a8a8a" if chapter == CPU else next(palette)
        points = [(n, r) for n, r in sorted(sweep["table"][chapter].items()) if n >= 1 << 10]
        ranges = [(n * TYPE_BYTES[dtype] / (r["hi"] * 1e6), n * TYPE_BYTES[dtype] / (r["lo"] * 1e6))
                  if r.get("n_runs", 1) >= 2 and r["lo"] > 0 else (float("nan"),) * 2 for n, r in points]
        series.append({
            "x": [n for n, _ in points], "y": [r["gbps"] for _, r in points], "color": color,
            "label": chapter + (" (CPU)" if chapter == CPU else " (CUB)" if chapter == CUB else ""),
            "width": 3.2 if chapter == CUB else 1.6, "style": ":" if chapter == CPU else "-",
            "marker_size": 4.5 if chapter == CUB else 3.2, "bold": chapter == CUB,
            "lo": [lo for lo, _ in ranges] if runs >= 2 else None, "hi": [hi for _, hi in ranges],
            "wrong": [not r["ok"] for _, r in points]})
    order = [s["label"] for s in series]  # the legend's order
    series.sort(key=lambda s: s["bold"])  # CUB drawn last, on top
    extra = [("peak bandwidth", {"color": "#555555", "linewidth": 1.2, "linestyle": (0, (6, 4))})]
    if any(not r["ok"] for r in sweep["rows"]):
        extra.append(("WRONG result", {"color": plots.WRONG_COLOR, "marker": "x", "markersize": 9,
                                       "markeredgewidth": 2.2, "linestyle": "none"}))
    top = max([sweep["peak_gbps"]] + [r["gbps"] for r in sweep["rows"]])
    plots.line_plot(path, f"{dtype} sum, GB/s against N: {gpu}", [rest.lstrip(", "), method], series,
                    "N (elements, log scale)", "GB/s (input bytes / median time)", [1 << k for k in range(10, 31, 2)],
                    plots.power_labels(2, range(10, 31, 2)), (0, top * 1.08), peak=sweep["peak_gbps"],
                    legend_title="chapter", extra_legend=extra, legend_order=order)


# ----------------------------------------------------------------------------- commands

def update(data_dirs, root, blocks):
    """Writes the plots and the blocks [(page under root, marker)] from one or more runs, the
    suspect points marked (publish.py has refused them unless --allow-suspect). Returns what it wrote: the
    plots' paths and "PAGE (MARKER)" of each block, as write_blocks does."""
    import plots
    runs = load_runs(data_dirs)
    sweeps = combine(runs)
    suspects = check(runs, sweeps)
    images = os.path.join(root, "docs", "images")
    os.makedirs(images, exist_ok=True)
    written = plots.draw([(path, plot, (dtype, sweep, path)) for dtype, sweep in sweeps.items()
                          for path in [os.path.join(images, f"results_{dtype}.svg")]], "results.py")
    warnings = []
    for path, marker in blocks:
        path, key = os.path.join(root, path), marker.split(":", 1)[1]
        if not os.path.exists(path):
            continue
        if key == "main":
            content = main_block(sweeps, root, path, suspects)
        elif key in PAGE_BLOCKS:  # docs/results.md's
            content = page_block(key, sweeps, root, path, suspects)
        else:
            content = chapter_block(key, sweeps, root, path, suspects)
        if content is None:
            print(f"note: {os.path.relpath(path, root)}: no sweep data for '{key}'; block left as it was")
            continue
        try:
            if fill_file(path, marker, content):
                written.append(f"{path} ({marker})")
            else:
                warnings.append(f"{os.path.relpath(path, root)}: no block {marker}")
        except ValueError as e:
            warnings.append(f"{os.path.relpath(path, root)}: {e}")
    for w in warnings:
        print("warning:", w, file=sys.stderr)
    bad = [f"{t} {r['chapter']} at N = {r['n']}" for t, s in sweeps.items() for r in s["rows"] if not r["ok"]]
    if bad:
        print("warning: WRONG results in the sweep (marked ⚠): " + "; ".join(bad), file=sys.stderr)
    if suspects:
        print(f"warning: {len(suspects)} suspect point(s) published with the mark †:", file=sys.stderr)
        for s in suspects:
            print("  " + describe_suspect(s), file=sys.stderr)
    return written


def remeasure(run_dir, tour_files, attempt=1):
    """Puts the rows of `tour --json` outputs in place of the sweep's rows at their type and N (the old
    time kept as sweep_ms, the row marked remeasured: attempt). Returns (replaced points, warnings)."""
    replaced, warnings, by_type = [], [], {}
    for path in tour_files:
        try:
            tour = read_records(path)[0]  # the run head, then the tour's one record
            dtype, n, rows = tour["type"], int(tour["n"]), tour["rows"]
        except (DataError, IndexError, ValueError, KeyError, TypeError) as e:
            warnings.append(f"{path}: not a tour --json output ({e.__class__.__name__}); skipped")
            continue
        by_type.setdefault(dtype, []).append((path, tour, n, rows))
    for dtype, found in by_type.items():
        path = os.path.join(sweep_dir(run_dir), f"sweep_{dtype}.json")
        try:
            with open(path, encoding="utf-8") as f:
                sweep = json.load(f)
        except (OSError, ValueError) as e:
            warnings.append(f"{path}: cannot read ({e}); {len(found)} re-measurement(s) of {dtype} not used")
            continue
        head = joined_head(sweep)
        peak = head.get("peak_gbps") or 0
        for source, tour, n, rows in found:
            if tour.get("device") != head.get("device"):
                warnings.append(f"{source}: measured on '{tour.get('device')}', the sweep on "
                                f"'{head.get('device')}'; skipped")
                continue
            if tour.get("reps") != head.get("reps"):
                warnings.append(f"{source}: {tour.get('reps')} repetitions where the sweep has {head.get('reps')}")
            index = {(r["n"], r["chapter"]): r for r in sweep["rows"]}
            for new in rows:
                old = index.get((n, new.get("chapter")))
                if old is None:
                    warnings.append(f"{source}: {new.get('chapter')} at n = {n} is not in the sweep; not added")
                    continue
                old.setdefault("sweep_ms", old["median_ms"])
                if "iqr_ms" in old:
                    old.setdefault("sweep_iqr_ms", old["iqr_ms"])
                old.update({k: new[k] for k in ("median_ms", "min_ms", "iqr_ms", "gbps", "ok")
                            if new.get(k) is not None})
                old["percent_of_peak"] = 0 if old["chapter"] == CPU or peak <= 0 else 100 * old["gbps"] / peak
                old["remeasured"] = attempt
                replaced.append((dtype, new["chapter"], n))
            new_chapters = {x.get("chapter") for x in rows}
            missing = [r["chapter"] for r in sweep["rows"] if r["n"] == n and r["chapter"] not in new_chapters]
            if missing:
                warnings.append(f"{source}: no new row for {', '.join(missing)} at n = {n}; kept the sweep's")
        head = json.dumps({k: v for k, v in sweep.items() if k != "rows"})  # the tour's layout: a row per line
        with open(path, "w", encoding="utf-8") as f:
            f.write(head[:-1] + ", \"rows\": [" + ",".join("\n  " + json.dumps(r) for r in sweep["rows"]) + "\n]}\n")
        csv = path[:-len(".json")] + ".csv"  # the tour's CSV beside it, where there is one
        if os.path.exists(csv):
            with open(csv, "w", encoding="utf-8") as f:
                f.write("type,n,chapter,median_ms,min_ms,iqr_ms,gbps,percent_of_peak,ok\n")
                f.writelines(f"{sweep['type']},{r['n']},{r['chapter']},{r['median_ms']},{r.get('min_ms', '')},"
                             f"{r.get('iqr_ms', '')},{r['gbps']},{r.get('percent_of_peak', '')},"
                             f"{'ok' if r['ok'] else 'WRONG'}\n" for r in sweep["rows"])
    return replaced, warnings
