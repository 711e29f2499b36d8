#!/usr/bin/env python3
"""fill_docs.py RESULTS_DIR: puts one GPU run's measurements (tools/gpu_suite.sh) into the docs.

Every number in the chapter READMEs, docs/results.md, docs/profiling.md, docs/pitfalls.md
and docs/tuning.md comes from here, from the files of one run:
  data/sweep_{int,float}.json  -> docs/data/, docs/results.md, plots, README result blocks
  ncu_*.csv                    -> the <!-- ncu:NN_name --> blocks, docs/profiling.md
  sass_08.txt                  -> 08's <!-- sass:08_vectorized --> block
  pitfalls.txt                 -> docs/pitfalls.md's <!-- output:N --> blocks, 06's sanitizer block
  chapters.jsonl, cpu_300M_float.txt -> 00's block; seed_kernels.txt -> 01-06: against the articles' kernels
  tune_single_pass.txt, blocks.jsonl -> docs/tuning.md
  gpu.txt                      -> the "measured on" lines
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from results import fill_file  # noqa: E402
import ncu_table  # noqa: E402


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def fill(relpath, marker, text):
    count = fill_file(os.path.join(ROOT, relpath), marker, text.rstrip() + "\n")
    if not count:
        print(f"fill_docs: no block {marker} in {relpath}", file=sys.stderr)


def measured_on(results):
    gpu = read(os.path.join(results, "gpu.txt")).splitlines()
    name, driver = [x.strip() for x in gpu[1].split(",")[:2]]
    cuda = re.search(r"release (\d+\.\d+)", read(os.path.join(results, "gpu.txt"))).group(1)
    sweep = json.load(open(os.path.join(results, "data", "sweep_int.json")))
    return f"{name}, CUDA {cuda}, driver {driver}, {sweep['date']}"


def fenced(text, lang=""):
    return f"```{lang}\n{text.rstrip()}\n```"


def jsonl(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip().startswith("{")]


def sweep_rows(results, dtype):
    sweep = json.load(open(os.path.join(results, "data", f"sweep_{dtype}.json")))
    rows = {}
    for r in sweep["rows"]:
        rows.setdefault(r["chapter"], {})[r["n"]] = r
    return sweep, rows


def seed_blocks(results, on):
    """01-06: our chapter against the source article's kernel (docs/README.md#sources), both measured in this run."""
    seed_file = os.path.join(results, "seed_kernels.txt")
    if not os.path.exists(seed_file):
        return
    seed = {}
    for line in read(seed_file).splitlines():
        m = re.match(r"seed (\w+) 2\^(\d+) ([\d.]+)", line)
        if m:
            seed[(m.group(1), int(m.group(2)))] = float(m.group(3))
    blocks = {}
    for d in jsonl(os.path.join(results, "blocks.jsonl")):
        blocks[(d["chapter"], d["block"], d["n"].bit_length() - 1)] = d["ms"] * 1000
    _, rows = sweep_rows(results, "int")
    pairs = {"01_global_naive": "reduceNeighbored", "02_neighbored_less": "reduceNeighboredLess",
             "03_interleaved": "reduceInterleaved"}
    for chapter, kernel in pairs.items():
        lines = ["| 16M / 256M ints | 2^24 µs | vs the article's | 2^28 µs | vs the article's |",
                 "|---|---|---|---|---|"]
        lines.append(f"| `{kernel}` of the Professional CUDA C Programming notes, as written, block 512, "
                     f"first launch only | {seed[(kernel, 24)]:.1f} | | "
                     f"{seed[(kernel, 28)]:.1f} | |")
        for block in (512, 256):
            label = f"this chapter, block {block}, every launch" + (" (the default)" if block == 256 else "")
            t24, t28 = blocks[(chapter, block, 24)], blocks[(chapter, block, 28)]
            lines.append(f"| {label} | {t24:.1f} | {100 * (t24 / seed[(kernel, 24)] - 1):+.1f}% | {t28:.1f} | "
                         f"{100 * (t28 / seed[(kernel, 28)] - 1):+.1f}% |")
        text = (f"Measured side by side on the {on}; L2 flushed before each run, input restored, median of 30.\n\n"
                + "\n".join(lines))
        fill(f"{chapter}/README.md", f"results:{chapter[:2]}_seed", text)
    for chapter, kernel, shape in (("04_shared_tree", "reduce2", "256 blocks × 256, then 1 × 256"),
                                   ("06_warp_unroll", "reduce4", "396 blocks (3 × SMs) × 256, then 1 × 396")):
        t24, t28 = rows[chapter][1 << 24]["ms"] * 1000, rows[chapter][1 << 28]["ms"] * 1000
        text = (f"Measured side by side on the {on}; L2 flushed before each run, median of 30.\n\n"
                f"| ints | 2^24 µs | 2^28 µs |\n|---|---|---|\n"
                f"| `{kernel}` of blakewoo's reduce analysis, as written ({shape}) | {seed[(kernel, 24)]:.1f} | "
                f"{seed[(kernel, 28)]:.1f} |\n"
                f"| this chapter, default shape | {t24:.1f} ({seed[(kernel, 24)] / t24:.2f}× faster) | "
                f"{t28:.1f} ({seed[(kernel, 28)] / t28:.2f}× faster) |")
        fill(f"{chapter}/README.md", f"results:{chapter[:2]}_seed", text)


STEP_LABELS = {
    "a_05": "05: one load per trip, 05's tree (a loop, a `__syncthreads()` per step)",
    "b_06tree": "05's loop + 06's tree (written out, warp 0 with `__syncwarp()`)",
    "c_06loop": "06's loop (four loads per trip) + 05's tree",
    "d_06": "06: both changes",
    "a_03": "03: one element per thread, tree in place in global memory, a launch per pass",
    "b_shared1": "the step between: 04's tree in shared memory, one element per thread, a launch per pass",
    "c_04": "04: grid-stride sums in registers + the shared-memory tree, two launches",
}


def parse_steps(path):
    """tools/tuning/steps.cu's output: {"key": value} from its "key: value" lines, and
    {(group, variant, type, n): {"median": µs, "min": µs, "gbps": GB/s, "ok": bool}}."""
    meta, rows = {}, {}
    for line in read(path).splitlines():
        m = re.match(r"^(\d\d)\s+(\w+)\s+(int|float)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(ok|WRONG)\s*$", line)
        if m:
            rows[(m.group(1), m.group(2), m.group(3), int(m.group(4)))] = {
                "median": float(m.group(5)), "min": float(m.group(6)), "gbps": float(m.group(7)),
                "ok": m.group(8) == "ok"}
            continue
        m = re.match(r"^(\w+): (.*)$", line)
        if m and m.group(1) != "shape":
            meta[m.group(1)] = m.group(2).strip()
        elif m:
            meta.setdefault("shapes", []).append(m.group(2).strip())
    return meta, rows


def steps_blocks(results, on):
    """04 and 06: each change of the chapter timed alone (tools/tuning/steps.cu), with the
    speed-up of each step over the one it builds on (the row above for 04; 05 for 06's three)."""
    path = os.path.join(results, "tune_steps.txt")
    if not os.path.exists(path):
        return
    meta, rows = parse_steps(path)
    wrong = [" ".join(map(str, k)) for k, r in rows.items() if not r["ok"]]
    if wrong:
        print("fill_docs: tune_steps.txt has WRONG results, step blocks left as they were: " + "; ".join(wrong),
              file=sys.stderr)
        return
    sizes = sorted({k[3] for k in rows})
    # The launch shapes, from the bench's "shape: int 2^K: ..." lines.
    shapes = {int(m.group(1)): m.group(2) for m in
              (re.match(r"int 2\^(\d+): (.*)", s) for s in meta.get("shapes", [])) if m}
    first = shapes.get(sizes[0].bit_length() - 1, "") if sizes else ""
    m06 = re.search(r"06's group (\d+) x (\d+) \((\d+) per SM\)", first)
    m04 = re.search(r"c_04 (\d+) x (\d+)", first)
    passes = [(k, re.search(r"(\d+) launches", v)) for k, v in sorted(shapes.items())]
    shape06 = f" Grid: {m06.group(1)} blocks of {m06.group(2)} ({m06.group(3)} per SM), then 1 block." if m06 else ""
    shape04 = ""
    if m04:
        shape04 = (f" 04's grid: {m04.group(1)} blocks of {m04.group(2)}, then 1 block; 03 and the step between: "
                   "one block per 256 elements per launch, "
                   + ", ".join(f"{p.group(1)} launches at 2^{k}" for k, p in passes if p) + ".")
    reps = re.search(r"min of (\d+)", meta.get("method", ""))
    stats = f"median and min of {reps.group(1)}" if reps else "median and min"
    for group, order, base_of, readme, intro in (
            ("06", ["a_05", "b_06tree", "c_06loop", "d_06"], lambda i, order: order[0],
             "06_warp_unroll/README.md",
             "06's two changes, each alone on top of 05, then both: the same launch for all four "
             "(256 threads, one full wave from the occupancy calculator, then one block over the partials)."
             + shape06 + " \"vs 05\" is 05's median time over the row's."),
            ("04", ["a_03", "b_shared1", "c_04"], lambda i, order: order[i - 1],
             "04_shared_tree/README.md",
             "From 03 to 04 in two steps: first the tree moves to shared memory (one element per thread, a launch "
             "per pass, as in 03), then the grid-stride loop and the fixed grid arrive." + shape04
             + " \"vs above\" is the median time of the row above over the row's.")):
        vs = "vs 05" if group == "06" else "vs above"
        header = ["kernel", "type"]
        for n in sizes:
            k = n.bit_length() - 1
            header += [f"2^{k} median µs", f"2^{k} min µs", f"2^{k} GB/s", f"2^{k} {vs}"]
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        for dtype in ("int", "float"):
            for i, variant in enumerate(order):
                cells = [STEP_LABELS[variant], dtype]
                for n in sizes:
                    r = rows.get((group, variant, dtype, n))
                    if r is None:
                        cells += ["—"] * 4
                        continue
                    speed = "—"
                    if i > 0:
                        base = rows.get((group, base_of(i, order), dtype, n))
                        speed = f"{base['median'] / r['median']:.2f}×" if base else "—"
                    cells += [f"{r['median']:.1f}", f"{r['min']:.1f}", f"{r['gbps']:.0f}", speed]
                lines.append("| " + " | ".join(cells) + " |")
        text = (f"Measured side by side on the {on} by `tune_steps` ([tools/tuning/steps.cu]"
                f"(../tools/tuning/steps.cu)): the chapters' kernels copied into one program, each repetition "
                f"running every kernel once, in turn; L2 flushed before each run; {stats}; every result checked "
                f"against the CPU sum. {intro}\n\n" + "\n".join(lines))
        fill(readme, f"results:{group}_steps", text)


def vs_cub(results, on):
    lines = ["| N | type | 09 µs | CUB µs | 09's speed-up | target |", "|---|---|---|---|---|---|"]
    targets = {16: "≥ 1.3×", 20: "≥ 1.3×", 22: "≥ 1.2×", 24: "≥ 1×", 26: "≥ 1×", 28: "≥ 1×", 30: "≥ 1×, ≥ 93% of peak"}
    for dtype in ("int", "float"):
        sweep, rows = sweep_rows(results, dtype)
        for k, target in targets.items():
            a, c = rows["09_single_pass"][1 << k], rows["10_cub"][1 << k]
            speed = c["ms"] / a["ms"]
            need = float(re.search(r"([\d.]+)×", target).group(1))
            met = speed >= need and (k != 30 or a["percent_of_peak"] >= 93)
            extra = f" ({a['percent_of_peak']:.1f}% of peak; CUB {c['percent_of_peak']:.1f}%)" if k == 30 else ""
            lines.append(f"| 2^{k} | {dtype} | {a['ms'] * 1000:.1f} | {c['ms'] * 1000:.1f} | {speed:.2f}×{extra} | "
                         f"{target}: {'met' if met else '**missed**'} |")
    fill("09_single_pass/README.md", "results:09_vs_cub",
         f"From the sweep of docs/results.md ({on}), each size one `tour` run, median of 30:\n\n" + "\n".join(lines))


def cpu_block(results, on):
    rows = [d for d in jsonl(os.path.join(results, "chapters.jsonl")) if d["chapter"] == "00_cpu_baseline"]
    lines = ["| n (int) | method | result | error | ms | GB/s | check |", "|---|---|---|---|---|---|---|"]
    for d in rows:
        for m in d["methods"]:
            lines.append(f"| 2^{d['n'].bit_length() - 1} | {m['name']} | {m['result']} | {m['error']:.3g} | "
                         f"{m['ms']:.3f} | {m['gbps']:.1f} | {'ok' if m['ok'] else 'WRONG'} |")
    text = (f"On the host of the {on} ({rows[0]['threads'] if rows else '?'} threads), median of 30:\n\n"
            + "\n".join(lines) + "\n\nThe float stall, `--n 300000001 --type float --reps 3`:\n\n"
            + fenced(read(os.path.join(results, "cpu_300M_float.txt"))))
    fill("00_cpu_baseline/README.md", "output:00_cpu_methods", text)


def bank_conflicts(results, on):
    lines = ["| kernel | tree | smem load bank conflicts | smem store bank conflicts | time µs |", "|---|---|---|---|---|"]
    for name, scheme in (("04_shared_tree", "sequential addressing"), ("04_shared_tree_strided", "strided index")):
        launches = ncu_table.read_launches(os.path.join(results, f"ncu_{name}.csv"))
        first = launches[0]
        num = lambda key: ncu_table.number(first.get(key, "")) or 0  # noqa: E731
        lines.append(f"| `{ncu_table.short_kernel(first['Kernel Name'])}` (first launch) | {scheme} | "
                     f"{num('l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum'):,.0f} | "
                     f"{num('l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum'):,.0f} | "
                     f"{num('gpu__time_duration.sum') / 1000:.1f} |")
    command = ("ncu --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,"
               "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,gpu__time_duration.sum "
               "build/release/bin/04_shared_tree --n 2^24 --reps 1 --no-flush")
    fill("04_shared_tree/README.md", "ncu:04_bank_conflicts",
         f"{on}; `{command}` for the first row, the same with `--variant strided` added for the "
         f"second, ints:\n\n" + "\n".join(lines))


def sass(results, on):
    counts = {}
    for m in re.findall(r"LDG\.E[.0-9A-Z]*", read(os.path.join(results, "sass_08.txt"))):
        counts[m] = counts.get(m, 0) + 1
    text = "\n".join(f"{v:7d} {k}" for k, v in sorted(counts.items()))
    fill("08_vectorized/README.md", "sass:08_vectorized",
         f"On the {on} (all instantiations: int, float, double; both launches):\n\n"
         + fenced("$ cuobjdump -sass build/release/bin/08_vectorized | grep -oE \"LDG\\.E[.0-9A-Z]*\" | sort | uniq -c\n"
                  + text))


def pitfalls(results, on):
    text = read(os.path.join(results, "pitfalls.txt"))
    sections = re.split(r"^### (\d)\. .*$", text, flags=re.M)
    for i in range(1, len(sections), 2):
        body = sections[i + 1].strip()
        body = "\n".join(l[:400] for l in body.splitlines())
        fill("docs/pitfalls.md", f"output:{sections[i]}", f"On the {on}:\n\n" + fenced(body, "text"))
    m = re.search(r"(\$ compute-sanitizer --tool racecheck \S+06_warp_unroll --n.*?)(?=\n\$ |\Z)", text, re.S)
    s = re.search(r"(\$ compute-sanitizer --tool synccheck \S+06_warp_unroll --n.*?)(?=\n\$ |\n###|\Z)", text, re.S)
    if m and s:
        fill("06_warp_unroll/README.md", "sanitize:06_warp_unroll",
             f"On the {on} (the chapter's sanitizer tests run the same tools at 4097, 65537 and 1000 elements):\n\n"
             + fenced(m.group(1).strip() + "\n\n" + s.group(1).strip(), "text"))


def profiling_table(results, on):
    """docs/profiling.md: the main (first) launch of every chapter, one row each."""
    launches = []
    for path in sorted(glob.glob(os.path.join(results, "ncu_*.csv"))):
        name = os.path.basename(path)[4:-4]
        found = ncu_table.read_launches(path)
        if found:
            first = dict(found[0])
            first["Kernel Name"] = name + ": " + ncu_table.short_kernel(first["Kernel Name"])
            launches.append(first)
    text = ncu_table.table(launches).replace("`", "").replace("| cub::", "| 10_cub: cub::")
    fill("docs/profiling.md", "ncu:all", f"Nsight Compute on the {on}, `--clock-control none`; 2^24 ints.\n\n{text}")


def multigpu_block(results):
    """11's README: scaling from 1 to 2 GPUs, the run larger than one GPU, the MPI run."""
    gpu = read(os.path.join(results, "gpu_x2.txt")).splitlines()
    name, driver = [x.strip() for x in gpu[1].split(",")[:2]]
    runs = jsonl(os.path.join(results, "multigpu.jsonl"))
    one = {(r["type"], r["n"]): r for r in runs if r["mode"] == "one process" and r["gpus"] == 1}
    lines = ["| type | N | 1 GPU ms | 1 GPU GB/s | 2 GPUs ms | 2 GPUs GB/s | speed-up | parallel efficiency |",
             "|---|---|---|---|---|---|---|---|"]
    for r in runs:
        if r["gpus"] != 2:
            continue
        base = one.get((r["type"], r["n"]))
        if not base:
            continue
        speed = base["ms"] / r["ms"]
        mode = "" if r["mode"] == "one process" else f" ({r['mode']})"
        lines.append(f"| {r['type']}{mode} | 2^{r['n'].bit_length() - 1} | {base['ms']:.3f} | {base['gbps']:.0f} | "
                     f"{r['ms']:.3f} | {r['gbps']:.0f} | {speed:.2f}× | {100 * speed / 2:.1f}% |")
    text = (f"Measured on 2 × {name} (NVLink between them, `nvidia-smi topo -m`: NV18), driver {driver}, "
            f"CUDA 13.0, 2026-11-22; each GPU's L2 flushed before each run, median of 30; every total verified "
            f"against the CPU reference on every GPU. Sums, `--json`:\n\n" + "\n".join(lines)
            + "\n\nMore than one GPU's memory in total (38·10^9 floats = 141.6 GiB, 70.8 GiB per GPU; one H200 "
            "has 139.8 GiB):\n\n" + fenced(read(os.path.join(results, "multigpu_large.txt")), "text")
            + "\n\nOne process per GPU under MPI (`mpirun -np 2 build/release/bin/11_multi_gpu_mpi --n 2^30 --type float`):\n\n"
            + fenced(read(os.path.join(results, "multigpu_mpi.txt")), "text")
            + "\n\n`ctest --preset multigpu` on that machine: "
            + re.search(r"\d+% tests passed.*", read(os.path.join(results, "ctest_multigpu.log"))).group(0) + ".")
    fill("11_multi_gpu/README.md", "results:11_multi_gpu", text)
    # What the job prints when rank 1 goes silent before the all-reduce (the ranks' own
    # lines, without Open MPI's MPI_Abort banner).
    silent = [l for l in read(os.path.join(results, "multigpu_mpi_silent_peer.txt")).splitlines()
              if l.startswith("11_multi_gpu_mpi:")]
    fill("11_multi_gpu/README.md", "output:11_silent_peer",
         f"On 2 × {name}, `REDUCTION_TEST_FAIL=1:allreduce REDUCTION_NCCL_TIMEOUT=10 mpirun -np 2 "
         f"build/release/bin/11_multi_gpu_mpi --n 2^30 --type float`:\n\n" + fenced("\n".join(silent), "text"))


def main():
    if sys.argv[1] == "--multigpu":
        multigpu_block(sys.argv[2])
        return 0
    results = sys.argv[1]
    on = measured_on(results)
    os.makedirs(os.path.join(ROOT, "docs", "data"), exist_ok=True)
    for f in glob.glob(os.path.join(results, "data", "sweep_*.json")):
        shutil.copy(f, os.path.join(ROOT, "docs", "data"))
    subprocess.run([sys.executable, os.path.join(HERE, "results.py"), os.path.join(ROOT, "docs/data")],
                   check=True)
    subprocess.run([sys.executable, os.path.join(HERE, "ncu_table.py"), results, "--fill", "--meta",
                    f"Nsight Compute on the {on}, `--clock-control none`; 2^24 ints."], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run([sys.executable, os.path.join(HERE, "tuning", "tables.py"), results], check=True)
    seed_blocks(results, on)
    steps_blocks(results, on)
    vs_cub(results, on)
    cpu_block(results, on)
    bank_conflicts(results, on)
    sass(results, on)
    pitfalls(results, on)
    profiling_table(results, on)
    return 0


if __name__ == "__main__":
    sys.exit(main())
