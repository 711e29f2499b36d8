#!/usr/bin/env python3
"""CTest `docs.tools`: the documentation scripts in tools work, and what they made is current.

- draw_schemes.py: each scheme adds the right pairs and ends with the sum; draw_rows.py's merge-path
  corners (19) are those of a plain merge; the SVGs in docs/images are what draw_schemes.py, draw_rows.py
  and accuracy/draw_chain.py draw;
- publish.py (results.py): on a made-up sweep (written to a temporary folder, never to the repo) it
  writes the blocks of results.md and the READMEs and the plots, and leaves other blocks and text alone;
  fill_file replaces one marker block; the plots (matplotlib, tools/plots.py) are the same bytes
  when drawn again, and without matplotlib the blocks are written, no plot, one line says so;
- several runs (results.py combine, publish.py RUN_DIR...): the published time of a point is
  the median of the runs' medians and its spread the run farthest from it, with two and three
  made-up runs; a ratio against a time whose spread is over 10 % is printed as the range the
  runs allow;
- the check (publish.py check): an outlier within a run and between runs, int and float
  disagreeing, a time that falls and a GB/s that drops when N doubles are each flagged, and
  clean runs pass; `remeasure` replaces a point and records it;
- publish.py refuses to publish a suspect point (exit 1, nothing written) unless
  --allow-suspect, and takes every run fact (GPU, driver, CUDA, date, repetitions, link type)
  from the run's files: filled from made-up runs with made-up values, the output shows those
  values and none of a real run's;
- publish.py's BLOCKS and the docs agree: every generated block of every *.md is listed, and
  every listed block is in its page; a folder without some kinds of input says which blocks
  it left; every block written is said in a "wrote" line; 17's table from bench_reproducible files.
- 19's table (`tools/gpu_suite.sh ragged`: bench_ragged and 18's rule beside it, a kind of run of its own): the
  median of three machines' medians and the farthest, each share of the bound, the bench's order, a WRONG result
  marked in its cell and its ratio, one run's spread, a run without a field refused, the plots drawn again the
  same; its step table from the bench's lines of 19 without a step (staged, tile_per_block, binary_search); its profile in
  docs/tuning.md from the one run with Nsight Compute's files (ragged_ncu_*.csv), stored with that run;
- 19 on one segment as n grows (`tools/gpu_suite.sh ragged_n`, a kind of run of its own): the machines' median of
  19's time, of the floor's and of each machine's difference, 18's rule beside it, only the n every machine
  measured, a WRONG result marked, a run without 19's records refused;
- the step tables (`tour --steps NN`: steps.jsonl, a kind of run of its own): 04's and 06's in their own words,
  05's, 08's and 09's with the launch shapes read from the records, over several runs; a README without the
  block is passed over;
- docs/data's layout: a folder per kind, runK in it, each run found as its kind alone; runs from
  outside docs/data (a tools/gpu_suite.sh folder, a bench_reproducible file, a multi-GPU run)
  replace their kind's runs there, as run1, run2, ... in the order given.
Everything is written to temporary copies of the repository's Markdown, never to the repo.

Run: python3 tests/test_doc_tools.py -v   (Python 3 standard library; matplotlib for the plot checks)
"""

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.dom.minidom

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = os.path.join(REPO, "tools")
sys.path.insert(0, TOOLS)

import draw_rows  # noqa: E402
import draw_schemes  # noqa: E402
import fill_rows  # noqa: E402
import plots  # noqa: E402
import results  # noqa: E402
import snippets  # noqa: E402

try:
    plots.pyplot()
    HAVE_MATPLOTLIB = True
except ImportError:  # CI: the plots are skipped, the Markdown is still written
    HAVE_MATPLOTLIB = False

def run(script, *args, stdin=None):
    return subprocess.run([sys.executable, os.path.join(TOOLS, script), *args], capture_output=True, text=True,
                          input=stdin)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


class Schemes(unittest.TestCase):
    def test_every_tree_adds_the_right_pairs_and_ends_with_the_sum(self):
        for block in (2, 4, 16, 64):
            values = draw_schemes.example_values(block)
            neighbored = draw_schemes.block_steps("neighbored", block)
            less = draw_schemes.block_steps("neighbored_less", block)
            interleaved = draw_schemes.block_steps("interleaved", block)
            for steps in (neighbored, less, interleaved):
                self.assertEqual(draw_schemes.simulate(values, steps, False)[-1][0], sum(values))
            for k, (a, b) in enumerate(zip(neighbored, less)):
                stride = 1 << k
                # 01: thread t with t % 2s == 0 writes element t; 02: the same pairs, thread t writes 2*s*t.
                self.assertEqual(sorted((d, s) for d, s, _ in a.pairs), sorted((d, s) for d, s, _ in b.pairs))
                self.assertTrue(all(d == t and t % (2 * stride) == 0 and s == d + stride for d, s, t in a.pairs))
                self.assertTrue(all(d == 2 * stride * t for d, _, t in b.pairs))
                self.assertEqual(b.working, set(range(len(b.pairs))))  # contiguous threads
            for k, step in enumerate(interleaved):
                stride = block >> (k + 1)
                self.assertEqual(step.pairs, [(t, t + stride, t) for t in range(stride)])

    def test_padded_and_unrolled_trees_end_with_the_sum(self):
        for block in (1, 33, 64, 100, 128):  # 05: pairs only where the partner exists
            values = draw_schemes.example_values(block)
            steps = draw_schemes.padded_steps(block)
            self.assertEqual(draw_schemes.simulate(values, steps, False)[-1][0] if steps else values[0], sum(values))
            for step in steps:
                self.assertTrue(all(s < block for _, s, _ in step.pairs))
        first = draw_schemes.padded_steps(100)[0]
        self.assertEqual([t for _, _, t in first.pairs], list(range(36)))
        self.assertEqual(first.no_source, list(range(36, 64)))
        for block in (128, 256, 1024):  # 06: block-wide steps down to 64, then warp 0
            values = draw_schemes.example_values(block)
            wide = draw_schemes.unroll_block_steps(block)
            fold = draw_schemes.warp_fold_steps()
            self.assertEqual(len(wide[-1].pairs), 64)
            self.assertEqual([len(s.pairs) for s in fold], [32, 16, 8, 4, 2, 1])
            self.assertEqual(draw_schemes.simulate(values, wide + fold, False)[-1][0], sum(values))

    def test_warp_shuffle_ends_with_the_sum_in_lane_0(self):
        for lanes in (8, 32):
            values = draw_schemes.example_values(lanes)
            steps = draw_schemes.shuffle_steps(lanes)
            self.assertEqual([s.pairs[0][1] for s in steps], [lanes >> (k + 1) for k in range(len(steps))])
            self.assertEqual(draw_schemes.simulate(values, steps, True)[-1][0], sum(values))

    def test_merge_path_corners_are_those_of_a_plain_merge(self):
        for lengths in ([2, 0, 1, 13, 1, 1, 4], [5, 0, 1, 13, 2, 1, 4], [0, 0, 3], [7], [0], [1, 9, 0, 0, 2, 30, 1]):
            for tile in (1, 3, 8):
                offsets, items, corners = draw_rows.ragged_path(lengths, tile)
                self.assertEqual(len(items), sum(lengths) + len(lengths))
                for b, corner in enumerate(corners):  # the items before boundary b, counted
                    before = items[:b * tile]
                    self.assertEqual(corner, (sum(kind == "end" for kind, _, _ in before),
                                              sum(kind == "element" for kind, _, _ in before)), (lengths, tile, b))
                self.assertEqual(corners[-1], (len(lengths), sum(lengths)))

    def test_committed_diagrams_are_current(self):
        with tempfile.TemporaryDirectory() as out:
            for script in ("draw_schemes.py", "draw_rows.py", os.path.join("accuracy", "draw_chain.py")):
                result = run(script, "--out", out)
                self.assertEqual(result.returncode, 0, result.stderr)
                for path in result.stdout.split():  # each script prints the files it wrote
                    name = os.path.basename(path)
                    drawn = read(path)
                    xml.dom.minidom.parseString(drawn.encode("utf-8"))  # well-formed
                    committed = os.path.join(REPO, "docs", "images", name)
                    self.assertTrue(os.path.exists(committed), f"docs/images/{name} is missing")
                    self.assertEqual(read(committed), drawn, f"docs/images/{name} differs from what {script} "
                                     f"draws; run python3 tools/{script}")
            self.assertEqual(len(os.listdir(out)), 17)  # 10 scheme diagrams, 6 rows pictures, the chain

    def test_bad_block_size_is_a_usage_error(self):
        with tempfile.TemporaryDirectory() as out:
            for block in ("12", "64"):  # not a power of two; more than one warp
                self.assertEqual(run("draw_schemes.py", "--block", block, "--out", out).returncode, 2)


def run_head(device="Test GPU", cuda="77.7", date="2031-02-03", sms=None, peak_gbps=None, reps=None, flush=True):
    """A made-up run head (common/run_head.h): the first JSON line of a program's output, a document's "head"."""
    return {"head": True, "device": device, "cuda": cuda, "driver": None, "date": date, "sms": sms,
            "peak_gbps": peak_gbps, "reps": reps, "flush": flush}


def headed_lines(pairs):
    """JSON lines as programs print them, run after run: each (head, record) as two lines."""
    return "".join(json.dumps(head) + "\n" + json.dumps(record) + "\n" for head, record in pairs)


def made_up_sweep(dtype):
    """A synthetic sweep (made-up numbers, for this test only)."""
    chapters = ["00_cpu_baseline", "01_global_naive", "04_shared_tree", "10_cub"]
    rows = []
    for k in range(10, 31):
        n = 1 << k
        for i, chapter in enumerate(chapters):
            ms = 0.005 + n * 4e-9 / (i + 1)
            gbps = n * 4 / (ms * 1e6)
            rows.append({"n": n, "chapter": chapter, "median_ms": ms, "gbps": gbps,
                         "percent_of_peak": 0.0 if i == 0 else 100 * gbps / 3000.0,
                         "ok": not (chapter == "04_shared_tree" and k == 12)})
    return {"head": run_head(cuda="99.9", date="2000-01-02", peak_gbps=3000.0, reps=7), "type": dtype, "rows": rows}


class Results(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = os.path.join(self.tmp.name, "repo")
        self.data = os.path.join(self.tmp.name, "data")
        os.makedirs(self.data)
        for dtype in ("int", "float"):
            write(os.path.join(self.data, f"sweep_{dtype}.json"), json.dumps(made_up_sweep(dtype)))
        write(os.path.join(self.root, "README.md"),
              "# Top\n\n## Results\n\n<!-- results:main -->\n<!-- /results -->\n\nAfter.\n")
        write(os.path.join(self.root, "04_shared_tree", "README.md"),
              "# 04\n\n<!-- results:04_shared_tree -->\nstale\n<!-- /results -->\n\n"
              "<!-- ncu:04_shared_tree -->\nkeep me\n<!-- /ncu -->\n")
        write(os.path.join(self.root, "docs", "results.md"), "# Results\n\n" + "".join(
            f"<!-- results:{key} -->\n<!-- /results -->\n\n" for key in results.PAGE_BLOCKS) + "How to reproduce.\n")
        self.blocks = [("README.md", "results:main"), ("04_shared_tree/README.md", "results:04_shared_tree")] + [
            ("docs/results.md", f"results:{key}") for key in results.PAGE_BLOCKS]

    def tearDown(self):
        self.tmp.cleanup()

    def test_update_writes_the_page_the_plots_and_the_blocks(self):
        result = run("publish.py", self.data, "--root", self.root)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        page = read(os.path.join(self.root, "docs", "results.md"))
        self.assertIn("Test GPU", page)
        self.assertIn("CUDA 99.9", page)
        self.assertIn("2000-01-02", page)
        self.assertNotIn("Measured again", page)  # no point was re-measured
        self.assertIn("None: `python3 tools/publish.py check` finds no suspect point", page)
        self.assertTrue(page.endswith("<!-- /results -->\n\nHow to reproduce.\n"))  # the page's own text kept
        self.assertIn("⚠", page)  # the WRONG point is flagged
        for dtype in ("int", "float"):
            path = os.path.join(self.root, "docs", "images", f"results_{dtype}.svg")
            if not HAVE_MATPLOTLIB:
                self.assertFalse(os.path.exists(path))
                self.assertIn("apt install python3-matplotlib", result.stderr)
                continue
            plot = read(path)
            xml.dom.minidom.parseString(plot.encode("utf-8"))
            self.assertIn("Test GPU", plot)
        top = read(os.path.join(self.root, "README.md"))
        self.assertIn("N = 2^24", top)
        self.assertIn("N = 2^28", top)
        self.assertIn("](docs/images/results_int.svg)", top)
        self.assertTrue(top.endswith("<!-- /results -->\n\nAfter.\n"))
        chapter = read(os.path.join(self.root, "04_shared_tree", "README.md"))
        self.assertNotIn("stale", chapter)
        self.assertIn("](../docs/results.md)", chapter)
        self.assertIn("| 2^30 |", chapter)
        self.assertIn("<!-- ncu:04_shared_tree -->\nkeep me\n<!-- /ncu -->", chapter)
        # Running again changes nothing.
        before = read(os.path.join(self.root, "04_shared_tree", "README.md"))
        run("publish.py", self.data, "--root", self.root)
        self.assertEqual(read(os.path.join(self.root, "04_shared_tree", "README.md")), before)

    @unittest.skipUnless(HAVE_MATPLOTLIB, "matplotlib is not importable")
    def test_plots_are_the_same_bytes_when_drawn_again(self):
        run("publish.py", self.data, "--root", self.root)
        path = os.path.join(self.root, "docs", "images", "results_int.svg")
        first = read(path)
        run("publish.py", self.data, "--root", self.root)
        self.assertEqual(read(path), first)

    def test_without_matplotlib_the_blocks_are_written_and_no_plot(self):
        import contextlib
        import io
        from unittest import mock
        err = io.StringIO()
        with mock.patch.object(plots, "pyplot", side_effect=ImportError("no matplotlib")), \
                contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            results.update([self.data], self.root, self.blocks)
        self.assertFalse(os.path.exists(os.path.join(self.root, "docs", "images", "results_int.svg")))
        lines = [line for line in err.getvalue().splitlines() if "matplotlib" in line]
        self.assertEqual(len(lines), 1, err.getvalue())
        self.assertIn("results_int.svg", lines[0])
        self.assertIn("apt install python3-matplotlib", lines[0])
        self.assertIn("Test GPU", read(os.path.join(self.root, "docs", "results.md")))
        self.assertIn("| 2^30 |", read(os.path.join(self.root, "04_shared_tree", "README.md")))

    def test_fill_replaces_one_marker_block(self):
        path = os.path.join(self.root, "04_shared_tree", "README.md")
        self.assertEqual(results.fill_file(path, "ncu:04_shared_tree", "| metric | value |\n"), 1)
        text = read(path)
        self.assertIn("<!-- ncu:04_shared_tree -->\n\n| metric | value |\n\n<!-- /ncu -->", text)
        self.assertIn("stale", text)  # the results block is not touched
        self.assertEqual(results.fill_file(path, "ncu:05_pow2ceil", "x"), 0)

    def test_fill_text_needs_a_closing_marker(self):
        with self.assertRaises(ValueError):
            results.fill_text("<!-- ncu:x -->\nno end\n", "ncu:x", "text")

    def test_missing_or_bad_data_is_a_usage_error(self):
        self.assertEqual(run("publish.py", os.path.join(self.tmp.name, "nowhere"), "--root", self.root).returncode, 2)
        write(os.path.join(self.data, "sweep_int.json"), "{}")
        self.assertEqual(run("publish.py", self.data, "--root", self.root).returncode, 2)


# ----------------------------------------------------------------------------- several runs, the check, fill_docs

CHAPTERS = ["00_cpu_baseline", "01_global_naive", "04_shared_tree", "10_cub"]
N24 = 1 << 24


def clean_ms(chapter_index, n):
    """The made-up time of a chapter at n (ms): a launch cost plus n at a chapter's own speed;
    it rises with n, never more than doubles when n doubles, and is the same for int and float."""
    return 0.005 + n * 4e-9 / (chapter_index + 1)


def clean_sweep(dtype, factor=1.0, date="2000-01-02", reps=7):
    """A made-up sweep of one run that the check passes (times scaled by factor; IQR 1 %)."""
    rows = []
    for k in range(10, 31):
        n = 1 << k
        for i, chapter in enumerate(CHAPTERS + [results.FLOOR]):
            ms = factor * clean_ms(i, n)
            gbps = n * 4 / (ms * 1e6)
            rows.append({"n": n, "chapter": chapter, "median_ms": ms, "min_ms": 0.98 * ms, "iqr_ms": 0.01 * ms,
                         "gbps": gbps,
                         "percent_of_peak": 0.0 if i == 0 else 100 * gbps / 3000.0, "ok": True})
    return {"head": run_head(cuda="99.9", date=date, peak_gbps=3000.0, reps=reps), "type": dtype, "rows": rows}


def scale_point(sweep, chapter, n, factor):
    for row in sweep["rows"]:
        if row["chapter"] == chapter and row["n"] == n:
            row["median_ms"] *= factor
            row["min_ms"] *= factor
            row["iqr_ms"] *= factor
            row["gbps"] /= factor


def in_memory_runs(factors, change=None):
    """Runs as results.load_runs returns them; change(run_index, dtype, sweep) alters a sweep."""
    runs = []
    for k, factor in enumerate(factors):
        sweeps = {}
        for dtype in ("int", "float"):
            sweep = clean_sweep(dtype, factor)
            if change:
                change(k, dtype, sweep)
            sweep["path"] = f"run{k + 1}/sweep_{dtype}.json"
            sweeps[dtype] = results.index_rows(results.joined_head(sweep))  # as load_sweep reads it
        runs.append({"dir": f"run{k + 1}", "sweeps": sweeps, "facts": {"gpu": "Test GPU", "date": "2000-01-02"}})
    return runs


GPU_TXT = ("name, driver_version, memory.total [MiB], clocks.max.memory [MHz], uuid\n"
           "Test GPU, {driver}, 1024 MiB, 1000 MHz, {uuid}\n"
           "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release {cuda}, V{cuda}.1\n"
           "date: {date}\n")


def write_run(path, factor=1.0, date="2031-02-03", driver="999.1.2", cuda="77.7", uuid="GPU-test-1", reps=7,
              change=None):
    """A made-up results folder as tools/gpu_suite.sh leaves it: data/sweep_*.json and gpu.txt."""
    for dtype in ("int", "float"):
        sweep = clean_sweep(dtype, factor, date, reps)
        if change:
            change(dtype, sweep)
        write(os.path.join(path, "data", f"sweep_{dtype}.json"), json.dumps(sweep))
    write(os.path.join(path, "gpu.txt"), GPU_TXT.format(driver=driver, uuid=uuid, cuda=cuda, date=date))
    return path


def copy_markdown(root):
    """The repository's Markdown files (the real marker blocks) in a temporary root."""
    for path in snippets.find_markdown(REPO):
        target = os.path.join(root, os.path.relpath(path, REPO))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy(path, target)


def block(text, marker):
    """The inside of the first <!-- MARKER --> ... <!-- /KIND --> block of text."""
    start = text.index(f"<!-- {marker} -->")
    return text[start:text.index(f"<!-- /{marker.split(':')[0]} -->", start)]


class RepoCopy(unittest.TestCase):
    """A test that publishes into a temporary copy of the repository's Markdown (self.root)."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = os.path.join(self.tmp.name, "repo")
        copy_markdown(self.root)

    def tearDown(self):
        self.tmp.cleanup()


class Combining(RepoCopy):
    def test_three_runs_publish_the_median_of_the_run_medians_and_the_farthest_run(self):
        factors = (1.02, 0.99, 1.00)  # median 1.00 (the third run), mean 1.0033, farthest 2 % away
        dirs = [write_run(os.path.join(self.tmp.name, f"r{k}"), f, date=f"2031-02-0{k + 1}", uuid=f"GPU-{k}")
                for k, f in enumerate(factors)]
        combined = results.combine(results.load_runs(dirs))
        base = clean_ms(2, N24)  # 04_shared_tree at 2^24: 0.005 + 16777216 * 4e-9 / 3 = 0.027369621 ms
        self.assertAlmostEqual(base, 0.027369621, places=9)
        row = combined["int"]["table"]["04_shared_tree"][N24]
        self.assertAlmostEqual(row["median_ms"], base, places=12)
        for got, factor in zip(row["run_ms"], factors):
            self.assertAlmostEqual(got, factor * base, places=12)
        self.assertAlmostEqual(results.spread_percent(row), 2.0, places=9)
        self.assertAlmostEqual(row["gbps"], N24 * 4 / (base * 1e6), places=9)
        self.assertEqual(row["n_runs"], 3)

        result = run("publish.py", *dirs, "--root", self.root)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        readme = block(read(os.path.join(self.root, "README.md")), "results:main")
        # 27.37 µs published (the mean would print 27.5 µs, the first run 27.9 µs), ±2.0 %.
        self.assertIn("| [04_shared_tree](04_shared_tree/README.md) | 27.4 µs | ±2.0% |", readme)
        self.assertIn("3 runs on 3 different GPUs, 2031-02-01, 2031-02-02 and 2031-02-03", readme)
        page = read(os.path.join(self.root, "docs", "results.md"))
        self.assertIn("| [04_shared_tree](../04_shared_tree/README.md) | 5.09 µs ±2.0% | 6.40 µs ±2.0% | 27.4 µs ±2.0% |",
                      page)
        self.assertIn("| 656 (21.9%) | 2452 (81.7%) |", page)
        for k in range(1, 4):
            self.assertTrue(os.path.exists(os.path.join(self.root, "docs", "data", "sweep", f"run{k}",
                                                        "sweep_int.json")))
        chapter = block(read(os.path.join(self.root, "04_shared_tree", "README.md")), "results:04_shared_tree")
        # Beside the previous chapter in the test's list (01) and CUB, with the two speed-ups.
        self.assertIn("| N (ints) | 01_global_naive | **04_shared_tree** | 10_cub | GB/s | % of peak | vs 01 | vs CUB |",
                      chapter)
        self.assertIn("| 2^24 | 38.6 µs ±2.0% | 27.4 µs ±2.0% | 21.8 µs ±2.0% | 2452 | 81.7% | 1.41× | 0.80× |", chapter)
        self.assertIn("[how these are measured](../docs/README.md#how-the-numbers-are-measured)", chapter)
        # Regenerating from docs/data/sweep/run* gives the same pages.
        before = read(os.path.join(self.root, "docs", "results.md"))
        result = run("publish.py", os.path.join(self.root, "docs", "data"), "--root", self.root)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(read(os.path.join(self.root, "docs", "results.md")), before)

    def test_two_runs_publish_the_mean_of_the_two(self):
        dirs = [write_run(os.path.join(self.tmp.name, f"r{k}"), f) for k, f in enumerate((1.00, 1.04))]
        row = results.combine(results.load_runs(dirs))["float"]["table"]["10_cub"][1 << 28]
        base = clean_ms(3, 1 << 28)
        self.assertAlmostEqual(row["median_ms"], 1.02 * base, places=12)
        self.assertAlmostEqual(row["lo"], base, places=12)
        self.assertAlmostEqual(row["hi"], 1.04 * base, places=12)
        self.assertAlmostEqual(results.spread_percent(row), 100 * 0.02 / 1.02, places=9)

    def test_a_ratio_against_a_widely_spread_time_is_a_range(self):
        # One run's CPU time at 2^24 is 1.5 times the others': a spread of 50 %, over the 10 % past
        # which a ratio is printed as the range the runs allow instead of one number.
        def change(k, dtype, sweep):
            if k == 2:
                scale_point(sweep, "00_cpu_baseline", N24, 1.5)
        combined = results.combine(in_memory_runs([1.0, 1.0, 1.0], change))
        block = results.main_block(combined, self.root, os.path.join(self.root, "README.md"))
        self.assertIn(results.LARGE_SPREAD_NOTE, block)
        at_24, at_28 = block.split("**N = 2^28")
        # 00: 0.0721 ms (runs 0.0721, 0.0721, 0.1082), 01: 0.0386 ms: 00 / 01 from 1.87 to 2.81.
        self.assertIn("| [01_global_naive](01_global_naive/README.md) | 38.6 µs | ±0.00% | 1741 | 58.0% | 47.8% "
                      "| 1.87–2.81× | 1.00× |", at_24)
        self.assertIn("| 72.1 µs | ±50% | 931 | — | — | — | 0.36–0.53× |", at_24)  # the CPU row's "vs 01": 01 / 00
        self.assertNotIn("–", at_28)  # no spread over 10 % at 2^28: single ratios

    def test_within_the_spread_is_said(self):
        a = {"median_ms": 1.0, "lo": 0.98, "hi": 1.03, "n_runs": 3}
        b = {"median_ms": 1.02, "lo": 1.01, "hi": 1.05, "n_runs": 3}
        c = {"median_ms": 1.10, "lo": 1.08, "hi": 1.12, "n_runs": 3}
        self.assertTrue(results.within_spread(a, b))
        self.assertFalse(results.within_spread(a, c))
        one = {"median_ms": 1.0, "iqr_ms": 0.04}  # one run: the middle half of the repetitions, 0.98 .. 1.02
        self.assertTrue(results.within_spread(one, {"median_ms": 1.03, "iqr_ms": 0.02}))
        self.assertFalse(results.within_spread(one, {"median_ms": 1.04, "iqr_ms": 0.02}))

    def test_step_tables_combine_the_runs(self):
        import fill_docs
        first = {("06", "05", "int", N24): {"median": 40.0, "min": 39.0, "gbps": 1600.0, "ok": True}}
        second = {("06", "05", "int", N24): {"median": 44.0, "min": 38.0, "gbps": 1500.0, "ok": True}}
        third = {("06", "05", "int", N24): {"median": 41.0, "min": 40.0, "gbps": 1550.0, "ok": True}}
        row = fill_docs.combine_steps([first, second, third])[("06", "05", "int", N24)]
        self.assertEqual((row["median"], row["min"], row["lo"], row["hi"], row["n_runs"]), (41.0, 38.0, 40.0, 44.0, 3))


class Check(unittest.TestCase):
    def kinds(self, suspects, dtype=None, chapter=None, n=None):
        return {s["kind"] for s in suspects if (dtype is None or s["type"] == dtype)
                and (chapter is None or s["chapter"] == chapter) and (n is None or s["n"] == n)}

    def test_clean_runs_pass(self):
        self.assertEqual(results.check(in_memory_runs([1.0])), [])
        self.assertEqual(results.check(in_memory_runs([1.02, 0.99, 1.0])), [])

    def test_a_large_spread_within_a_run_is_flagged(self):
        def change(k, dtype, sweep):
            if k == 1 and dtype == "int":
                for row in sweep["rows"]:
                    if row["chapter"] == "04_shared_tree" and row["n"] == N24:
                        row["iqr_ms"] = 0.3 * row["median_ms"]  # limit: 2 x (1.2 µs + 0.75 %) = 3.2 µs of 27 µs
        suspects = results.check(in_memory_runs([1.0, 1.0, 1.0], change))
        self.assertEqual([(s["kind"], s["type"], s["chapter"], s["n"], s["run"]) for s in suspects],
                         [("spread within the run", "int", "04_shared_tree", N24, 2)])

    def test_an_outlier_between_runs_is_flagged(self):
        def change(k, dtype, sweep):
            if k == 1 and dtype == "int":
                scale_point(sweep, "04_shared_tree", N24, 1.3)
        suspects = results.check(in_memory_runs([1.02, 0.99, 1.0], change))
        self.assertEqual([(s["kind"], s["type"], s["chapter"], s["n"]) for s in suspects],
                         [("spread between runs", "int", "04_shared_tree", N24)])

    def test_int_and_float_disagreeing_is_flagged(self):
        def change(k, dtype, sweep):
            if dtype == "float":
                scale_point(sweep, "04_shared_tree", 1 << 26, 1.10)  # 9.4 µs more, limit 4.0 µs
        suspects = results.check(in_memory_runs([1.0], change))
        self.assertEqual([(s["kind"], s["chapter"], s["n"]) for s in suspects],
                         [("int and float disagree", "04_shared_tree", 1 << 26)])
        self.assertEqual(sorted(suspects[0]["sizes"]), [("float", 1 << 26), ("int", 1 << 26)])

    def test_the_cpu_row_is_not_compared_across_types(self):
        def change(k, dtype, sweep):
            if dtype == "float":
                for n in (1 << k for k in range(10, 31)):
                    scale_point(sweep, "00_cpu_baseline", n, 2.0)  # the host's double adds: not memory-bound
        self.assertEqual(results.check(in_memory_runs([1.0], change)), [])

    def test_a_time_that_falls_when_n_doubles_is_flagged(self):
        def change(k, dtype, sweep):
            scale_point(sweep, "04_shared_tree", 1 << 26, 0.8 * clean_ms(2, 1 << 25) / clean_ms(2, 1 << 26))
        suspects = results.check(in_memory_runs([1.0], change))
        for dtype in ("int", "float"):
            self.assertIn("time falls when N doubles", self.kinds(suspects, dtype, "04_shared_tree", 1 << 25))
            # and from the too-fast point to the next the time grows more than twice: GB/s drops
            self.assertIn("GB/s drops when N doubles", self.kinds(suspects, dtype, "04_shared_tree", 1 << 26))
        self.assertEqual(self.kinds(suspects), {"time falls when N doubles", "GB/s drops when N doubles"})

    def test_gbps_that_jumps_and_falls_back_is_flagged(self):
        def change(k, dtype, sweep):
            scale_point(sweep, "04_shared_tree", N24, 0.6)  # still slower than 2^23, but GB/s peaks at 2^24
        suspects = results.check(in_memory_runs([1.0], change))
        self.assertEqual({(s["kind"], s["type"], s["chapter"], s["n"]) for s in suspects},
                         {("GB/s drops when N doubles", t, "04_shared_tree", N24) for t in ("int", "float")})

    def test_check_command_lists_the_sizes_to_measure_again(self):
        with tempfile.TemporaryDirectory() as tmp:
            clean = write_run(os.path.join(tmp, "clean"))
            result = run("publish.py", "check", clean, "--list")
            self.assertEqual((result.returncode, result.stdout), (0, ""), result.stderr)

            def change(dtype, sweep):
                if dtype == "float":
                    scale_point(sweep, "04_shared_tree", 1 << 26, 1.10)
            bad = write_run(os.path.join(tmp, "bad"), change=change)
            result = run("publish.py", "check", bad, "--list")
            self.assertEqual(result.returncode, 1, result.stderr)
            self.assertEqual(result.stdout.split("\n"), [f"float {1 << 26} 7", f"int {1 << 26} 7", ""])
            result = run("publish.py", "check", bad)
            self.assertEqual(result.returncode, 1)
            self.assertIn("float 04_shared_tree", result.stdout.replace("int 04_shared_tree at N = 2^26: int and float",
                                                                         "float 04_shared_tree"))

            # A new tour --json at that size replaces the rows, is recorded, and the check passes.
            fresh = clean_sweep("float", 1.0, "2031-02-03")
            tour = {"type": "float", "n": 1 << 26, "rows": [
                dict(r, result=1, note="", percent_of_peak=None) for r in fresh["rows"] if r["n"] == 1 << 26]}
            write(os.path.join(tmp, "tour.json"), headed_lines([(run_head(reps=7), tour)]))
            write(os.path.join(tmp, "broken.json"), "{\"device\": ")
            result = run("publish.py", "remeasure", bad, os.path.join(tmp, "tour.json"),
                         os.path.join(tmp, "broken.json"), "--attempt", "2")
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertIn("broken.json: not a tour --json output", result.stderr)
            sweep = json.loads(read(os.path.join(bad, "data", "sweep_float.json")))
            row = next(r for r in sweep["rows"] if r["chapter"] == "04_shared_tree" and r["n"] == 1 << 26)
            self.assertEqual(row["remeasured"], 2)
            self.assertAlmostEqual(row["median_ms"], clean_ms(2, 1 << 26), places=12)
            self.assertAlmostEqual(row["sweep_ms"], 1.10 * clean_ms(2, 1 << 26), places=12)
            self.assertEqual(run("publish.py", "check", bad).returncode, 0)
            sweeps = results.combine(results.load_runs([bad]))
            self.assertEqual(results.remeasured_note(sweeps)[0].split(": ", 1)[1], "run 1: float at N = 2^26.")


class FillDocs(RepoCopy):
    def test_a_suspect_point_is_refused_unless_allowed(self):
        def change(dtype, sweep):
            if dtype == "float":
                scale_point(sweep, "04_shared_tree", 1 << 24, 1.25)
        bad = write_run(os.path.join(self.tmp.name, "bad"), change=change)
        readme = read(os.path.join(self.root, "README.md"))
        result = run("publish.py", bad, "--root", self.root)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertIn("int 04_shared_tree at N = 2^24: int and float disagree", result.stderr)
        self.assertEqual(read(os.path.join(self.root, "README.md")), readme)  # nothing written
        self.assertFalse(os.path.exists(os.path.join(self.root, "docs", "data", "sweep", "run1")))
        result = run("publish.py", bad, "--root", self.root, "--allow-suspect")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        page = read(os.path.join(self.root, "docs", "results.md"))
        # Both sides of the disagreement are marked: int 27.4 µs, float 34.2 µs (x 1.25).
        self.assertIn("| 6.40 µs ±0.5% | 27.4 µs ±0.5% † | 363 µs ±0.5% |", page)
        self.assertIn("| 6.40 µs ±0.5% | 34.2 µs ±0.5% † | 363 µs ±0.5% |", page)
        self.assertIn("## Suspect points", page)
        self.assertIn("- int 04_shared_tree at N = 2^24: int and float disagree", page)
        # A second machine's run beside the one published: both given, both in docs/data (run1 kept, run2 new).
        again = write_run(os.path.join(self.tmp.name, "again"), uuid="GPU-test-2", change=change)
        sweep = os.path.join(self.root, "docs", "data", "sweep")
        result = run("publish.py", os.path.join(sweep, "run1"), again, "--root", self.root)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)  # still suspect: refused
        self.assertEqual(os.listdir(sweep), ["run1"])
        result = run("publish.py", os.path.join(sweep, "run1"), again, "--root", self.root, "--allow-suspect")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("publish: docs/data/sweep holds the 2 runs given: docs/data/sweep/run1, docs/data/sweep/run2",
                      result.stdout)
        self.assertIn("| 6.40 µs ±0.00% | 34.2 µs ±0.00% † |", read(os.path.join(self.root, "docs", "results.md")))

    def test_run_facts_come_from_the_files(self):
        run_dir = write_run(os.path.join(self.tmp.name, "run"), reps=13)
        write(os.path.join(run_dir, "chapters.jsonl"), headed_lines([(run_head(device=None, reps=13), {
            "chapter": "00_cpu_baseline", "n": N24, "threads": 5, "methods": [
                {"name": "plain loop", "result": "12", "error": 0.0, "median_ms": 1.5, "gbps": 44.7, "ok": True}]})]))
        write(os.path.join(run_dir, "cpu_300M_float.txt"), "made-up output\n")
        # steps.jsonl: one `tour --steps NN --json` object per line (tools/gpu_suite.sh steps).
        records = []
        for group, rows in (("06", (("05_pow2ceil", ""), ("06_warp_unroll", "tree_only"),
                                    ("06_warp_unroll", "loop_only"), ("06_warp_unroll", ""))),
                            ("04", (("03_interleaved", ""), ("04_shared_tree", "one_each"), ("04_shared_tree", "")))):
            for dtype in ("int", "float"):
                records.append((run_head(sms=3, reps=11), {
                    "steps": {"06": "06_warp_unroll", "04": "04_shared_tree"}[group], "type": dtype, "n": N24,
                    "block": 128, "same_grid": group == "06", "ok": True, "rows": [
                        {"chapter": chapter, "variant": variant, "block": 128,
                         "grid": 6 if group == "06" or (chapter, variant) == ("04_shared_tree", "") else 131072,
                         "median_ms": (50.0 - i) / 1000, "min_ms": (49.0 - i) / 1000, "iqr_ms": 0.0001,
                         "gbps": 1300.0 + i, "ok": True} for i, (chapter, variant) in enumerate(rows)]}))
        write(os.path.join(run_dir, "steps.jsonl"), headed_lines(records))
        result = run("publish.py", run_dir, "--root", self.root)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        for written in ("06_warp_unroll/README.md (results:06_steps)", "04_shared_tree/README.md (results:04_steps)",
                        "00_cpu_baseline/README.md (output:00_cpu_methods)", "README.md (results:main)"):
            self.assertEqual(result.stdout.count(f"\nwrote {written}\n"), 1, result.stdout)
        blocks = {
            "README.md": block(read(os.path.join(self.root, "README.md")), "results:main"),
            "00": block(read(os.path.join(self.root, "00_cpu_baseline", "README.md")), "output:00_cpu_methods"),
            "06": block(read(os.path.join(self.root, "06_warp_unroll", "README.md")), "results:06_steps"),
            "04": block(read(os.path.join(self.root, "04_shared_tree", "README.md")), "results:04_steps"),
            "page": read(os.path.join(self.root, "docs", "results.md")),
        }
        for name, text in blocks.items():
            self.assertIn("CUDA 77.7", text, name)
            self.assertIn("driver 999.1.2", text, name)
            self.assertIn("2031-02-03", text, name)
            for real in ("CUDA 13.0", "2026-11-22", "580.159.04", "median of 30", "H100"):
                self.assertNotIn(real, text, name)
        self.assertIn("one run, median of 13", blocks["README.md"])
        self.assertIn(", 5 threads, one run, median of 13 ([how these are measured]", blocks["00"])
        self.assertIn(": `tour --steps 06`, the chapters' own kernels and 06's step variants ([steps.cu](steps.cu)), "
                      "one run, median of 11 ([how these are measured]", blocks["06"])
        self.assertIn(": `tour --steps 04`, the chapters' own kernels", blocks["04"])
        self.assertIn("one run, median of 11", blocks["04"])
        self.assertIn("(128 threads, the smallest of the four kernels' default grids", blocks["06"])
        self.assertIn("Grid: 6 blocks of 128 (2 per SM), then 1 block.", blocks["06"])
        self.assertIn("04's grid: 6 blocks of 128, then 1 block; 03 and the step between: one block per 128 elements "
                      "in each launch (131072 in the first at 2^24)", blocks["04"])
        for name in ("06", "04"):
            self.assertNotIn("tune_steps", blocks[name])
            self.assertNotIn("tools/tuning", blocks[name])
        # The tables: every row, its speed-up over 05 (06) or over the row above (04).
        self.assertIn(
            "| kernel | type | 2^24 median µs | 2^24 min µs | 2^24 GB/s | 2^24 vs 05 |\n|---|---|---|---|---|---|\n"
            "| 05: one load per trip, 05's tree (a loop, a `__syncthreads()` per step) | int | 50.0 | 49.0 | 1300 | — |\n"
            "| `--variant tree_only`: 05's loop + 06's tree (written out, warp 0 with `__syncwarp()`) | int | 49.0 | "
            "48.0 | 1301 | 1.02× |\n"
            "| `--variant loop_only`: 06's loop (four loads per trip) + 05's tree | int | 48.0 | 47.0 | 1302 | 1.04× |\n"
            "| 06: both changes | int | 47.0 | 46.0 | 1303 | 1.06× |\n"
            "| 05: one load per trip, 05's tree (a loop, a `__syncthreads()` per step) | float | 50.0 | 49.0 | 1300 | — |",
            blocks["06"])
        self.assertIn(
            "| kernel | type | 2^24 median µs | 2^24 min µs | 2^24 GB/s | 2^24 vs above |\n|---|---|---|---|---|---|\n"
            "| 03: one element per thread, tree in place in global memory, a launch per pass | int | 50.0 | 49.0 | "
            "1300 | — |\n"
            "| `--variant one_each`, the step between: 04's tree in shared memory, one element per thread, a launch "
            "per pass | int | 49.0 | 48.0 | 1301 | 1.02× |\n"
            "| 04: grid-stride sums in registers + the shared-memory tree, two launches | int | 48.0 | 47.0 | 1302 | "
            "1.02× |\n", blocks["04"])
        self.assertEqual(blocks["04"].count(" | float | "), 3)
        self.assertEqual(blocks["06"].count(" | float | "), 4)
        data = os.path.join(self.root, "docs", "data")
        self.assertIn(f"{1 << 24}", read(os.path.join(data, "sweep", "run1", "sweep_int.json")))
        facts = json.loads(read(os.path.join(data, "sweep", "run1", "run.json")))
        self.assertEqual((facts["cuda"], facts["driver"], facts["date"]), ("77.7", "999.1.2", "2031-02-03"))
        self.assertNotIn("GPU-test-1", read(os.path.join(data, "sweep", "run1", "run.json")))
        # The suite's files of the same folder: docs/data/suite/run1, its gpu.txt without the GPU's UUID; the
        # steps, a kind of their own: docs/data/steps/run1, with the same gpu.txt.
        self.assertEqual(sorted(os.listdir(os.path.join(data, "suite", "run1"))),
                         ["chapters.jsonl", "cpu_300M_float.txt", "gpu.txt"])
        self.assertEqual(sorted(os.listdir(os.path.join(data, "steps", "run1"))), ["gpu.txt", "steps.jsonl"])
        for kind in ("suite", "steps"):
            self.assertNotIn("GPU-test-1", read(os.path.join(data, kind, "run1", "gpu.txt")))

    def steps_run(self, name, factor, uuid):
        """A made-up steps run (tools/gpu_suite.sh steps: gpu.txt, steps.jsonl) of 05, 08 and 09: four rows each,
        the previous chapter's kernel, two steps, the chapter's; each row at its own shape (09's follow n)."""
        path = os.path.join(self.tmp.name, name)
        write(os.path.join(path, "gpu.txt"), GPU_TXT.format(driver="999.1.2", uuid=uuid, cuda="77.7",
                                                            date="2031-02-03"))
        # Per chapter: the rows (chapter, variant), and per N each row's (block, grid).
        small = {1 << 16: [(512, 4), (512, 4), (128, 8), (128, 8)],
                 1 << 20: [(512, 6), (512, 6), (128, 16), (128, 16)]}
        groups = {
            "05_pow2ceil": ([("04_shared_tree", ""), ("05_pow2ceil", "tree_only"), ("05_pow2ceil", "grid_only"),
                             ("05_pow2ceil", "")],
                            {n: [(128, 12), (128, 12), (128, 6), (128, 6)] for n in (N24, 1 << 28)}),
            "08_vectorized": ([("07_warp_shuffle", ""), ("08_vectorized", "block_only"),
                               ("08_vectorized", "loads_only"), ("08_vectorized", "")],
                              {n: [(128, 6), (512, 3), (128, 9), (512, 3)] for n in (N24, 1 << 28)}),
            "09_single_pass": ([("08_vectorized", ""), ("09_single_pass", "ticket_only"),
                                ("09_single_pass", "shape_only"), ("09_single_pass", "")],
                               {**small, 1 << 28: [(512, 3)] * 4})}
        records = []
        for folder, (rows, shapes) in groups.items():
            for dtype in ("int", "float"):
                for n, shape in shapes.items():
                    records.append((run_head(sms=3, reps=11), {
                        "steps": folder, "type": dtype, "n": n, "block": shape[-1][0], "same_block": False,
                        "same_grid": False, "ok": True, "rows": [
                            {"chapter": chapter, "variant": variant, "block": block_size, "grid": grid,
                             "median_ms": factor * (40.0 - 2 * i) / 1000, "min_ms": (39.0 - 2 * i) / 1000,
                             "iqr_ms": 0.0001, "gbps": 1300.0 + i, "ok": True}
                            for i, ((chapter, variant), (block_size, grid)) in enumerate(zip(rows, shape))]}))
        write(os.path.join(path, "steps.jsonl"), headed_lines(records))
        return path

    def test_the_steps_of_05_08_and_09_are_written_from_their_records(self):
        import publish
        runs = [self.steps_run(f"steps{k}", factor, f"GPU-s{k}") for k, factor in enumerate((1.0, 1.02, 0.99))]
        self.assertEqual(publish.kinds_of(runs[0]), ["steps"])  # a kind of its own, not the suite
        readme05 = os.path.join(self.root, "05_pow2ceil", "README.md")
        untouched = read(os.path.join(self.root, "04_shared_tree", "README.md"))
        result = run("publish.py", *runs, "--root", self.root)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        for folder in ("05_pow2ceil", "08_vectorized", "09_single_pass"):
            self.assertEqual(result.stdout.count(f"\nwrote {folder}/README.md (results:{folder[:2]}_steps)\n"), 1,
                             result.stdout)
        self.assertEqual(read(os.path.join(self.root, "04_shared_tree", "README.md")), untouched)  # no 04 records
        data = os.path.join(self.root, "docs", "data", "steps")
        self.assertEqual(sorted(os.listdir(data)), ["run1", "run2", "run3"])
        for k in (1, 2, 3):
            self.assertEqual(sorted(os.listdir(os.path.join(data, f"run{k}"))), ["gpu.txt", "steps.jsonl"])
            self.assertNotIn(f"GPU-s{k - 1}", read(os.path.join(data, f"run{k}", "gpu.txt")))
        blocks = {c: block(read(os.path.join(self.root, folder, "README.md")), f"results:{c}_steps")
                  for c, folder in (("05", "05_pow2ceil"), ("08", "08_vectorized"), ("09", "09_single_pass"))}
        for c, text in blocks.items():
            self.assertIn("On Test GPU, CUDA 77.7, driver 999.1.2; 3 runs on 3 different GPUs, 2031-02-03: "
                          f"`tour --steps {c}`, the chapters' own kernels and {c}'s step variants "
                          "([main.cu](main.cu)), median of 11 ([how these are measured]", text)
            self.assertEqual(text.count(" | float | "), 4, c)
        # The intro: each row's shape at the largest N, and at smaller N where one differs (09's rules follow n).
        self.assertIn("05's changes, each alone on top of 04, then 05: each step runs one chapter's kernel at another "
                      "chapter's launch rule, and every row runs at its own default shape", blocks["05"])
        self.assertIn("At 2^28, 04 runs 12 blocks of 128, `tree_only` 12 blocks of 128, `grid_only` 6 blocks of 128 "
                      "and 05 6 blocks of 128. \"vs 04\" is 04's median time over the row's.", blocks["05"])
        self.assertIn("At 2^28, 07 runs 6 blocks of 128, `block_only` 3 blocks of 512, `loads_only` 9 blocks of 128 "
                      "and 08 3 blocks of 512. \"vs 07\"", blocks["08"])
        self.assertIn("At 2^16, 08 runs 4 blocks of 512, `ticket_only` 4 blocks of 512, `shape_only` 8 blocks of 128 "
                      "and 09 8 blocks of 128. At 2^20, 08 runs 6 blocks of 512, `ticket_only` 6 blocks of 512, "
                      "`shape_only` 16 blocks of 128 and 09 16 blocks of 128. At 2^28, 08 runs 3 blocks of 512,",
                      blocks["09"])
        self.assertNotIn("At 2^24", blocks["05"])  # the same shapes as at 2^28: said once
        # The tables: the speed-up of every row over the first (the previous chapter), the medians of three runs.
        self.assertIn("| kernel | type | 2^24 median µs | 2^24 min µs | 2^24 GB/s | 2^24 vs 04 | 2^28 median µs |",
                      blocks["05"])
        self.assertIn("| kernel | type | 2^16 median µs | 2^16 min µs | 2^16 GB/s | 2^16 vs 08 | 2^20 median µs |",
                      blocks["09"])
        self.assertIn("| `--variant grid_only`: 04's kernel at 05's grid rule (the occupancy calculator) | int | "
                      "36.0 ±2.0% | 35.0 | 1302 | 1.11× |", blocks["05"])
        self.assertIn("| `--variant block_only`: 07's kernel and grid rule at 08's block | int | 38.0 ±2.0% | 37.0 | "
                      "1301 | 1.05× |", blocks["08"])
        self.assertIn("| 09: one launch (the ticket) at 09's shape per n | float | 34.0 ±2.0% | 33.0 | 1303 | "
                      "1.18× |", blocks["09"])
        self.assertIn("| 05: both changes, 05's kernel at 05's grid rule | int |", blocks["05"])
        # A README without the marker: its block is not written, and nothing fails.
        write(readme05, read(readme05).replace(blocks["05"] + "<!-- /results -->\n", ""))
        result = run("publish.py", *[os.path.join(data, f"run{k}") for k in (1, 2, 3)], "--root", self.root)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("no block results:05_steps in 05_pow2ceil/README.md; not filled", result.stderr)
        self.assertIn("\nwrote 09_single_pass/README.md (results:09_steps)\n", result.stdout)
        self.assertNotIn("results:05_steps", read(readme05))

    def test_the_undo_tables_are_written_from_their_runs(self):
        import publish
        runs = []
        for k, factor in enumerate((1.0, 1.02, 0.99)):  # 16: three columns per shape (rows); 17: two (n)
            path = os.path.join(self.tmp.name, f"undo{k}")
            write(os.path.join(path, "gpu.txt"), GPU_TXT.format(driver="999.1.2", uuid=f"GPU-u{k}", cuda="77.7",
                                                                date="2031-02-03"))
            records = [(run_head(reps=11), {"chapter": "16_short_rows", "rows": 1 << 22, "cols": 16, "type": dtype,
                                            "median_ms": factor * ms, "min_ms": ms, "gbps": 100.0, "ok": True,
                                            "step": step, "change": change})
                       for dtype in ("float", "bf16") for step, change, ms in (
                           ("15's groups", "", 0.120), ("staged, no spare words", "staging", 0.100),
                           ("staged with spare words (16)", "spare words", 0.080))]
            records += [(run_head(reps=11), {"chapter": "17_reproducible", "n": n, "type": "float",
                                             "median_ms": factor * ms * n / N24, "gbps": 100.0, "ok": True,
                                             "step": step, "change": change})
                        for n in (N24, 1 << 28) for step, change, ms in (
                            ("loads in their own trip", "", 0.050), ("loads a trip early (17)", "early loads", 0.040))]
            write(os.path.join(path, "undo.jsonl"), headed_lines(records))
            runs.append(path)
        self.assertEqual(publish.kinds_of(runs[0]), ["undo"])
        result = run("publish.py", *runs, "--root", self.root)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("\nwrote 16_short_rows/README.md (results:16_undo)\n", result.stdout)
        self.assertIn("\nwrote docs/tuning.md (results:17_undo)\n", result.stdout)  # fill_docs.UNDO_PAGES
        data = os.path.join(self.root, "docs", "data", "undo")
        self.assertEqual(sorted(os.listdir(os.path.join(data, "run1"))), ["gpu.txt", "undo.jsonl"])
        text16 = block(read(os.path.join(self.root, "16_short_rows", "README.md")), "results:16_undo")
        self.assertIn("3 runs on 3 different GPUs, 2031-02-03: `tools/gpu_suite.sh undo`, `16_short_rows` and "
                      "`16_short_rows_undo_spare_words` at each shape, median of 11", text16)
        self.assertIn("\"staged, no spare words\" is `16_short_rows_undo_spare_words`, the program with its copy unit "
                      "built with `-DSHORT_ROWS_UNDO_SPARE_WORDS`", text16)
        self.assertIn("| type | M × K | 15's groups µs | staged, no spare words µs | staged with spare words (16) µs "
                      "| × staging | × spare words |", text16)
        self.assertIn("| bf16 | 4194304 × 16 | 120.0 ±2.0% | 100.0 ±2.0% | 80.0 ±2.0% | 1.20× | 1.25× |", text16)
        text17 = block(read(os.path.join(self.root, "docs", "tuning.md")), "results:17_undo")
        self.assertIn("| float | 2^28 | 800.0 ±2.0% | 640.0 ±2.0% | 1.25× |", text17)
        # A WRONG result anywhere: no undo block is written.
        path = os.path.join(runs[0], "undo.jsonl")
        write(path, read(path).replace('"ok": true', '"ok": false', 1))
        result = run("publish.py", *runs, "--root", self.root)
        self.assertIn("undo.jsonl has WRONG results", result.stderr)

    def test_multigpu_facts_come_from_the_files(self):
        mg = os.path.join(self.tmp.name, "mg")
        gpus = GPU_TXT.format(driver="999.1.2", uuid="GPU-a", cuda="77.7", date="2031-02-03")
        write(os.path.join(mg, "gpu_x2.txt"), gpus.replace("date:", "Test GPU, 999.1.2, 1024 MiB, 1000 MHz, GPU-b\n"
                                                           "date:", 0))
        write(os.path.join(mg, "topo.txt"),
              "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\nGPU0\t X \tNV7\t0-7\t0\nGPU1\tNV7\t X \t0-7\t0\n\nLegend:\n\n"
              "  X    = Self\n  SYS  = Connection traversing PCIe as well as the SMP interconnect\n"
              "  NV#  = Connection traversing a bonded set of # NVLinks\n")
        records = [(run_head(reps=17), {"chapter": "11_multi_gpu", "mode": "one process", "gpus": g, "type": "float",
                                        "n": 1 << 30, "median_ms": 2.0 / g, "gbps": 2000.0 * g}) for g in (1, 2)]
        write(os.path.join(mg, "multigpu.jsonl"), headed_lines(records))
        write(os.path.join(mg, "multigpu_large.txt"),
              "11_multi_gpu (one process): 3000000000 float values in 2 shards, one per GPU; 09 on each\n"
              "gpu 0      Test GPU (sm_90, 2 SMs, 1 MiB L2, 1.0 GiB) (0000:00:06.0), peak 100 GB/s, shard [0, 1)\n")
        write(os.path.join(mg, "multigpu_mpi.txt"), "time 1 ms (median of 17, L2 flushed)\n")
        result = run("publish.py", mg, "--root", self.root)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("\nwrote 11_multi_gpu/README.md (results:11_multi_gpu)\n", result.stdout)
        # No reproducible_gpus.jsonl, no silent peer: those blocks are not said to be written.
        self.assertEqual(result.stdout.count("wrote 11_multi_gpu/README.md"), 1, result.stdout)
        self.assertNotIn("wrote 17_reproducible", result.stdout)
        copy = os.path.join(self.root, "docs", "data", "multigpu", "run1")
        self.assertEqual(sorted(os.listdir(copy)), ["gpu_x2.txt", "multigpu.jsonl", "multigpu_large.txt",
                                                    "multigpu_mpi.txt", "topo.txt"])
        self.assertNotIn("GPU-a", read(os.path.join(copy, "gpu_x2.txt")))  # the UUIDs hashed
        text = block(read(os.path.join(self.root, "11_multi_gpu", "README.md")), "results:11_multi_gpu")
        for wanted in ("2 × Test GPU", "between GPU0 and GPU1: NV7, connection traversing a bonded set of 7 NVLinks",
                       "driver 999.1.2", "CUDA 77.7", "2031-02-03", "median of 17", "| float | 2^30 | 2.000 |",
                       "(3·10^9 floats = 11.2 GiB, 5.6 GiB per GPU; one Test GPU has 1.0 GiB)"):
            self.assertIn(wanted, text)
        for real in ("NV18", "2026-11-22", "CUDA 13.0", "median of 30", "H200", "141.6"):
            self.assertNotIn(real, text)

    def test_one_median_over_the_machines(self):
        for script in ("fill_docs.py", "fill_rows.py", "fill_reproducible.py", "fill_accuracy.py", "fill_ragged.py",
                       "publish.py"):
            self.assertNotIn("statistics", read(os.path.join(TOOLS, script)), f"{script}: use "
                             "results.median_over_machines")
        self.assertEqual(results.median_over_machines([3.0, 1.0, 2.0]), 2.0)
        self.assertEqual(results.median_over_machines(x for x in (1.0, 2.0)), 1.5)  # two machines: their mean

    def test_the_scripts_type_no_run_facts(self):
        # The code of the docs scripts, without docstrings and comment lines (which may name examples).
        for script in ("publish.py", "fill_docs.py", "results.py", "ncu_table.py", "fill_reproducible.py",
                       "fill_ragged.py"):
            source = read(os.path.join(TOOLS, script))
            docs = set()
            for node in ast.walk(ast.parse(source)):
                body = getattr(node, "body", None)
                if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                        and isinstance(getattr(body[0], "value", None), ast.Constant) \
                        and isinstance(body[0].value.value, str):
                    docs.update(range(body[0].lineno, body[0].end_lineno + 1))
            code = "\n".join(line for number, line in enumerate(source.splitlines(), 1)
                             if number not in docs and not line.lstrip().startswith("#"))
            for fact in ("CUDA 13", "2026-", "NV18", "median of 30", "580.1", "H100", "H200", "132 SMs", "396"):
                self.assertNotIn(fact, code, f"{script} types '{fact}'")

    def test_the_list_of_blocks_and_the_docs_agree(self):
        import publish
        listed = {(page, marker) for page, marker, _, _ in publish.BLOCKS}
        self.assertEqual(len(listed), len(publish.BLOCKS), "a block listed twice")
        found = set()
        for path in snippets.find_markdown(REPO):
            for marker in re.findall(r"^\s*<!--\s*(\w+:[\w-]+)\s*-->\s*$", read(path), re.M):
                if not marker.startswith("snippet:"):  # tools/snippets.py's, not a run's
                    found.add((os.path.relpath(path, REPO).replace(os.sep, "/"), marker))
        self.assertEqual(found - listed, set(), "generated blocks missing from tools/publish.py's BLOCKS")
        self.assertEqual(listed - found, set(), "BLOCKS entries whose marker is not in their page")
        for _, _, function, _ in publish.BLOCKS:  # the writer each entry names exists
            module, name = function.split(".")
            self.assertTrue(hasattr(__import__(module), name), f"BLOCKS names {function}, which does not exist")

    def test_the_profiling_page_shows_the_metrics_the_tables_read(self):
        import ncu_table  # what tools/gpu_suite.sh and tools/accuracy_study.sh collect: `python3 tools/ncu_table.py`
        page = read(os.path.join(REPO, "docs", "profiling.md"))
        command = re.search(r"^ncu --metrics (.*?) *\\?\n +--clock-control", page, re.M | re.S).group(1)
        shown = set(command.replace(",\\\n", ",").split(","))
        self.assertEqual(shown, {m for key, _, _ in ncu_table.COLUMNS for m in key.split()})

    def test_a_folder_without_some_inputs_says_which_blocks_it_left(self):
        run_dir = write_run(os.path.join(self.tmp.name, "run"))
        result = run("publish.py", run_dir, "--root", self.root)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        for kind in ("steps", "rows", "accuracy", "reproducible", "multigpu"):
            self.assertIn(f"publish: no {kind} run among the inputs; left as they were:", result.stdout)
        self.assertIn("results:17_reproducible", result.stdout)


# ----------------------------------------------------------------------------- 17's yardsticks

def reproducible_run(path, factor):
    """A made-up bench_reproducible output on two kinds of data at 2^16 and 2^30: 17 takes `factor` times 09's
    time, CUB's gpu_to_gpu twice 17's; on the first kind 17 also at blocks of 256 and 1024, and at 2^16 09 and 17
    over one float a thread, where 17 takes half its extra time."""
    lines = [run_head(peak_gbps=1000.0, reps=7)]
    for data in ("uniform [0, 1)", "normal(0, 1)"):
        for n in (1 << 16, 1 << 30):
            for job, us in (("09_single_pass", 10.0), ("17_reproducible", 10.0 * factor),
                            ("cub_gpu_to_gpu", 20.0 * factor), ("read-only floor", 9.0)):
                lines.append({"data": data, "n": n, "job": job, "block": 256, "grid": 1, "median_ms": us / 1000,
                              "min_ms": us / 1000, "iqr_ms": 0.0001, "gbps": 1.0, "result": "1",
                              "ok": None if job == "read-only floor" else job != "cub_gpu_to_gpu" or n < 1 << 30})
            if data.startswith("uniform"):
                for block, us in ((256, 10.0 * factor), (1024, 9.0 * factor)):
                    lines.append({"data": data, "n": n, "job": "17_reproducible", "block": block, "grid": 1,
                                  "median_ms": us / 1000, "min_ms": us / 1000, "iqr_ms": 0.0001, "gbps": 1.0,
                                  "result": "1", "ok": True,
                                  "block_sweep": True})
            if data.startswith("uniform") and n < 1 << 30:  # one float a thread at n's shapes: half the gap
                for job, us in (("09_single_pass", 8.0), ("17_reproducible", 8.0 + 5.0 * (factor - 1))):
                    lines.append({"data": data, "n": 256, "job": job, "block": 256, "grid": 1, "median_ms": us / 1000,
                                  "shape_of_n": n, "fixed_cost": True, "ok": True})
            lines.append({"data": data, "n": n, "job": "09_single_pass", "shapes": 5, "distinct_results": 2})
            lines.append({"data": data, "n": n, "job": "17_reproducible", "shapes": 5, "distinct_results": 1,
                          "exact_bits": "0x3f800000", "exact": True})
    write(path, "".join(json.dumps(line) + "\n" for line in lines))


class Rows(unittest.TestCase):
    def test_the_caption_takes_the_machine_from_the_run(self):
        with tempfile.TemporaryDirectory() as tmp:
            sweep = {"head": dict(run_head(peak_gbps=3000.0, reps=7), driver="78.0"), "chapter": "13_rows",
                     "elements": 1 << 26,
                     "rows": [{"type": "float", "k": 8, "m": 1 << 23, "op": "sum", "method": "auto", "median_ms": 0.1,
                               "gbps": 2684.4, "ok": True}]}
            write(os.path.join(tmp, "rows", "13_rows", "rows_sweep.json"), json.dumps(sweep))

            def first_line():
                rows = fill_rows.combine([fill_rows.load_sweep(tmp, "13_rows")])
                return fill_rows.intro(rows, os.path.join(tmp, "13_rows", "README.md"), tmp, "")[0]
            # No gpu.txt: the sweep's GPU and CUDA, not the CUDA version the driver supports; what differs from
            # docs/README.md's defaults (one machine, 7 repetitions) said, the rest linked.
            self.assertEqual(first_line(), "On Test GPU, CUDA 77.7, 2031-02-03: `13_rows --sweep`, M × K = 2^26 "
                             "elements, one run, median of 7 ([how these are measured]"
                             "(../docs/README.md#how-the-numbers-are-measured)). ")
            write(os.path.join(tmp, "rows", "gpu.txt"),
                  GPU_TXT.format(driver="999.1.2", uuid="GPU-a", cuda="77.7", date="2031-02-03"))
            self.assertIn("On Test GPU, CUDA 77.7, driver 999.1.2, 2031-02-03: `13_rows --sweep`", first_line())


class Accuracy(RepoCopy):
    def test_the_blocks_take_the_machine_from_the_run(self):
        run_dir = os.path.join(self.tmp.name, "run")
        shutil.copytree(os.path.join(REPO, "docs", "data", "accuracy", "run1", "accuracy"),
                        os.path.join(run_dir, "accuracy"))
        write(os.path.join(run_dir, "gpu.txt"),
              GPU_TXT.format(driver="999.1.2", uuid="GPU-a", cuda="77.7", date="2031-02-03"))
        result = run("publish.py", run_dir, "--root", self.root)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        tuning = read(os.path.join(self.root, "docs", "tuning.md"))
        # The date is the study's (device.json); the GPU, CUDA and driver gpu.txt's.
        for marker in ("accuracy:errors", "accuracy:time", "accuracy:repro"):
            self.assertIn("On Test GPU, CUDA 77.7, driver 999.1.2, 2026-11-27: 12_accuracy/bench/error_study.cu",
                          block(tuning, marker))
        self.assertIn("on the positive data, one run ([how these are measured](README.md#how-the-numbers-are-"
                      "measured)). Times in µs", block(tuning, "accuracy:time"))
        self.assertIn("On Test GPU, CUDA 77.7, driver 999.1.2, 2026-11-27: Nsight Compute, 2^24 floats",
                      block(read(os.path.join(self.root, "12_accuracy", "README.md")), "accuracy:ncu"))


class Reproducible(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        write(os.path.join(self.root, "17_reproducible", "README.md"),
              "# 17\n<!-- results:17_reproducible -->\n<!-- /results -->\n")
        write(os.path.join(self.root, "docs", "tuning.md"), "# t\n<!-- results:17_blocks -->\n<!-- /results -->\n"
              "<!-- results:17_fixed -->\n<!-- /results -->\n")

    def tearDown(self):
        self.tmp.cleanup()

    def test_runs_fill_the_table(self):
        runs = [os.path.join(self.root, f"run{k}.jsonl") for k in (1, 2)]
        reproducible_run(runs[0], 1.2)
        reproducible_run(runs[1], 1.6)
        result = run("publish.py", *runs, "--root", self.root)
        self.assertEqual(result.returncode, 0, result.stderr)
        table = block(read(os.path.join(self.root, "17_reproducible", "README.md")), "results:17_reproducible")
        self.assertIn("| uniform [0, 1) | 2^16 | 10.0 | 14.0 | 28.0 | 9.0 | 1.20–1.60× | 66 % | 2.0× | 2 / 1 ✓ |", table)
        self.assertIn("| normal(0, 1) | 2^16 |", table)
        self.assertIn("|  | 2^30 | 10.0 | 14.0 | 28.0 ✗ |", table)
        self.assertIn("✗: outside the harness's check (a loose bound for CUB's gpu_to_gpu, which states none): "
                      "uniform [0, 1) at 2^30 (1 on every machine; the exact sum 1); normal(0, 1) at 2^30 (1 on every "
                      "machine; the exact sum 1).", table)
        self.assertIn("On Test GPU, CUDA 77.7; 2 runs, 2031-02-03: `bench_reproducible` ([bench/bench.cu](bench/bench.cu)), "
                      "float sums, median of 7 ([how these are measured]", table)
        tuning = block(read(os.path.join(self.root, "docs", "tuning.md")), "results:17_blocks")
        self.assertIn("| 2^16 | 10.0 | 14.0 (1.20–1.60×) | 12.6 (1.08–1.44×) | 256 |", tuning)
        self.assertIn("uniform [0, 1), 17 at each block with its default grid, median of 7", tuning)
        fixed = block(read(os.path.join(self.root, "docs", "tuning.md")), "results:17_fixed")
        self.assertIn("| 2^16 | 256 × 1 / 256 × 1 | 10.0 | 14.0 | 4.0 | 256 | 8.0 | 10.0 | 2.0 | 50 % |", fixed)
        self.assertNotIn("| 2^30 |", fixed)
        # The launch shapes the caption names are the bench's own (17_reproducible/bench/bench.cu).
        source = read(os.path.join(REPO, "17_reproducible", "bench", "bench.cu"))
        listed = re.search(r"shapes\[\]\[2\] = \{\{block, grid\}, (.*?)\};", source).group(1)
        shapes = re.findall(r"\{(\d+), (\d+)\}", listed)
        self.assertIn("(its default, " + ", ".join(f"{b} × {g}" for b, g in shapes) + ")", table)

    def test_runs_from_outside_replace_the_kinds_runs_in_docs_data(self):
        first, second = os.path.join(self.root, "first.jsonl"), os.path.join(self.root, "second.jsonl")
        reproducible_run(first, 1.2)
        reproducible_run(second, 1.6)
        data = os.path.join(self.root, "docs", "data", "reproducible")
        readme = os.path.join(self.root, "17_reproducible", "README.md")
        result = run("publish.py", first, "--root", self.root)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(os.listdir(data), ["run1"])
        self.assertEqual(read(os.path.join(data, "run1", "reproducible.jsonl")), read(first))
        self.assertIn("| uniform [0, 1) | 2^16 | 10.0 | 12.0 |", read(readme))
        # Another run alone replaces it.
        result = run("publish.py", second, "--root", self.root)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(os.listdir(data), ["run1"])
        self.assertEqual(read(os.path.join(data, "run1", "reproducible.jsonl")), read(second))
        self.assertIn("| uniform [0, 1) | 2^16 | 10.0 | 16.0 |", read(readme))
        # The published run and a new one, given together: run1 and run2, the table the median of both.
        result = run("publish.py", os.path.join(data, "run1"), first, "--root", self.root)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("\nwrote 17_reproducible/README.md (results:17_reproducible)\n", result.stdout)
        self.assertEqual(sorted(os.listdir(data)), ["run1", "run2"])
        self.assertEqual(read(os.path.join(data, "run2", "reproducible.jsonl")), read(first))
        self.assertIn("| uniform [0, 1) | 2^16 | 10.0 | 14.0 | 28.0 | 9.0 | 1.20–1.60× |", read(readme))
        # docs/data gives the same pages again.
        pages = read(readme), read(os.path.join(self.root, "docs", "tuning.md"))
        result = run("publish.py", os.path.join(self.root, "docs", "data"), "--root", self.root)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual((read(readme), read(os.path.join(self.root, "docs", "tuning.md"))), pages)

    def test_a_run_folder_on_two_gpus_fills_the_table_on_gpus_and_the_profile(self):
        folders = [os.path.join(self.tmp.name, f"results{k}") for k in (1, 2)]
        with open(os.path.join(self.root, "17_reproducible", "README.md"), "a", encoding="utf-8") as f:
            f.write("<!-- results:17_on_gpus -->\n<!-- /results -->\n")
        with open(os.path.join(self.root, "docs", "tuning.md"), "a", encoding="utf-8") as f:
            f.write("<!-- results:17_profile -->\n<!-- /results -->\n")
        for k, folder in enumerate(folders):  # as gpu_suite.sh's reproducible and reproducible_gpus steps leave them
            reproducible_run(os.path.join(folder, "reproducible.jsonl"), 1.2)
            two = GPU_TXT.format(driver="999.1.2", uuid=f"GPU-x{k}", cuda="77.7", date="2031-02-03")
            two = two.replace("\nnvcc", f"\nTest GPU, 999.1.2, 1024 MiB, 1000 MHz, GPU-y{k}\nnvcc", 1)  # its second GPU
            write(os.path.join(folder, "gpu_x2.txt"), two)
            lines = [run_head(peak_gbps=1000.0, reps=7), {"gpus_visible": 2}]
            for job, one in (("11_multi_gpu", 4.0), ("17_reproducible", 4.4 + k)):
                for gpus in (1, 2):
                    lines.append({"job": job, "gpus": gpus, "n": 1 << 30, "data": "uniform [0, 1)",
                                  "median_ms": one / gpus, "same_on_every_gpu": True, "same_as_one_gpu": True})
            write(os.path.join(folder, "reproducible_gpus.jsonl"), "".join(json.dumps(x) + "\n" for x in lines))
        # Nsight Compute's raw CSV (two header rows, then a launch a row) on the first machine only.
        names = ["ID", "Kernel Name", "Grid Size", "Block Size", "gpu__time_duration.sum",
                 "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",
                 "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
                 "smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio",
                 "smsp__average_warps_issue_stalled_selected_per_issue_active.ratio"]
        for chapter, ns, barrier in (("09_single_pass", 5000, 1.0), ("17_reproducible", 8000, 6.0)):
            rows = [names, ["", "", "", "", "ns", "", "", "", ""],
                    ["0", f"void {chapter}_kernel<float>(const float *)", "(16, 1, 1)", "(256, 1, 1)", str(ns),
                     str(barrier), "3.0", "0.2", "1.0"]]
            write(os.path.join(folders[0], f"per_call_{chapter}_16.csv"),
                  "".join(",".join(f'"{c}"' for c in row) + "\n" for row in rows))
        result = run("publish.py", *folders, "--root", self.root)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("\nwrote 17_reproducible/README.md (results:17_on_gpus)\n", result.stdout)
        self.assertIn("\nwrote docs/tuning.md (results:17_profile)\n", result.stdout)
        # Two kinds in each folder, each copied to its own folder of docs/data.
        data = os.path.join(self.root, "docs", "data")
        self.assertEqual(sorted(os.listdir(os.path.join(data, "reproducible", "run1"))),
                         ["per_call_09_single_pass_16.csv", "per_call_17_reproducible_16.csv", "reproducible.jsonl"])
        self.assertEqual(sorted(os.listdir(os.path.join(data, "reproducible_gpus", "run2"))),
                         ["gpu_x2.txt", "reproducible_gpus.jsonl"])
        self.assertNotIn("GPU-x0", read(os.path.join(data, "reproducible_gpus", "run1", "gpu_x2.txt")))
        on_gpus = block(read(os.path.join(self.root, "17_reproducible", "README.md")), "results:17_on_gpus")
        # Runs of two GPUs each are told apart by machine.
        self.assertIn("On 2 × Test GPU, CUDA 77.7, driver 999.1.2; 2 runs on 2 different machines, 2031-02-03: "
                      "`bench_reproducible_gpus`", on_gpus)
        # 17 on 1 GPU: 4.4 and 5.4 ms (median 4.9), on 2: 2.2 and 2.7; 11 on 2: 2.0.
        self.assertIn("| uniform [0, 1) | 2^30 | 4.000 | 2.000 | 4.900 | 2.450 | 2.00× | 1.10–1.35× | yes |", on_gpus)
        profile = block(read(os.path.join(self.root, "docs", "tuning.md")), "results:17_profile")
        self.assertIn("one run", profile)
        # The stall reasons shown: those that made up a tenth of some kernel's wait, the largest share first
        # (long scoreboard: 3.0 of 09's 4.2, barrier: 6.0 of 17's 9.2); branch resolving (at most 0.2 / 4.2) left
        # out, and "selected" (the issue itself, not a wait); a metric the CSV lacks is a dash.
        self.assertIn("| issue slots busy % | stall: long scoreboard | stall: barrier |", profile)
        self.assertNotIn("branch", profile)
        self.assertNotIn("selected", profile)
        self.assertIn("| 2^16 | 09_single_pass | 256 × 16 | 5.0 | — | — | — | 3.0 | 1.0 |", profile)
        self.assertIn("| 2^16 | 17_reproducible | 256 × 16 | 8.0 | — | — | — | 3.0 | 6.0 |", profile)

    def test_missing_or_bad_runs_are_a_usage_error(self):
        self.assertEqual(run("publish.py", os.path.join(self.root, "nowhere.jsonl"),
                             "--root", self.root).returncode, 2)
        bad = os.path.join(self.root, "bad.jsonl")
        write(bad, "{}\n")
        result = run("publish.py", bad, "--root", self.root)  # not the bench's output: refused, and said
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("bad.jsonl holds no run files that a block reads", result.stderr)
        self.assertEqual(run("publish.py", "--root", self.root).returncode, 2)


# ----------------------------------------------------------------------------- 19's table

RAGGED_N = 1 << 20
# The made-up distributions of a ragged run: (the bench's name, segments, longest); the last one of equal rows.
RAGGED_DISTS = [("uniform 1..2048", 1000, 2048), ("one n/2, rest 1..8", 9000, RAGGED_N // 2),
                ("equal rows M=64", 64, RAGGED_N // 64)]


def ragged_run(path, factor, uuid, wrong=()):
    """A made-up `tools/gpu_suite.sh ragged` folder: bench_ragged's lines for RAGGED_DISTS, float and bf16, every
    operator of 19 (merge_path at 100 µs, and as the bench prints them too staged at 150 µs, tile_per_block at
    120 µs and binary_search at 110 µs; meanvar's three_blocks at 130 µs), CUB's (no meanvar) at 200 µs,
    the floor at 50 µs, every time `factor` times that, each method's bytes 1.2 times the input's; 18's rule on the
    equal rows at 60 µs. wrong: the (dist, type, op, method) whose ok is false."""
    lines = [run_head(peak_gbps=1000.0, reps=7)]
    for dist, segments, longest in RAGGED_DISTS:
        for dtype, size in (("float", 4), ("bf16", 2)):
            jobs = [(op, m, us) for m, us in (("merge_path", 100.0), ("staged", 150.0), ("tile_per_block", 120.0),
                                              ("binary_search", 110.0), ("cub_segmented", 200.0))
                    for op in ("sum", "max", "argmax", "meanvar") if (m, op) != ("cub_segmented", "meanvar")]
            jobs.append(("meanvar", "three_blocks", 130.0))
            for op, method, us in jobs + [("-", "floor", 50.0)]:
                floor, ms, input_bytes = 0.050 * factor, us * factor / 1000, RAGGED_N * size
                bytes_ = input_bytes if method == "floor" else input_bytes * 6 // 5
                lines.append({"dist": dist, "n": RAGGED_N, "segments": segments, "longest": longest, "type": dtype,
                              "offsets": "int32", "op": op, "method": method, "median_ms": ms, "min_ms": ms,
                              "iqr_ms": ms / 100, "bytes": bytes_, "input_bytes": input_bytes, "gbps": 1.0,
                              "floor_ms": floor, "percent_of_read_floor": 100 * floor / ms,
                              "percent_of_bound": 100 * floor * bytes_ / input_bytes / ms,
                              "ok": None if method == "floor" else (dist, dtype, op, method) not in wrong,
                              "seed": 1})
    write(os.path.join(path, "ragged.jsonl"), "".join(json.dumps(line) + "\n" for line in lines))
    records = [(run_head(reps=11), {"chapter": "18_split_rows", "rows": 64, "cols": RAGGED_N // 64, "type": dtype,
                                    "op": op, "method": "auto", "median_ms": 0.060 * factor, "iqr_ms": 0.0006,
                                    "ok": True, "input_bytes": RAGGED_N * size, "output_bytes": 64 * 4})
               for dtype, size in (("float", 4), ("bf16", 2)) for op in ("sum", "max", "argmax", "meanvar")]
    write(os.path.join(path, "ragged_rows.jsonl"), headed_lines(records))
    write(os.path.join(path, "gpu.txt"), GPU_TXT.format(driver="999.1.2", uuid=uuid, cuda="77.7", date="2031-02-03"))
    return path


class Ragged(unittest.TestCase):
    """19's Results table, its step table, its plots and docs/tuning.md's every operator from `tools/gpu_suite.sh
    ragged` runs (made up), in a temporary root with the three blocks."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = os.path.join(self.tmp.name, "repo")
        self.readme = os.path.join(self.root, "19_ragged_segments", "README.md")
        self.tuning = os.path.join(self.root, "docs", "tuning.md")
        write(self.readme, "# 19\n\n<!-- results:19_ragged_segments -->\n<!-- /results -->\n\n"
              "<!-- results:19_steps -->\n<!-- /results -->\n\nAfter.\n")
        write(self.tuning, "# t\n\n<!-- results:ragged_ops -->\n<!-- /results -->\n\n"
              "<!-- results:ragged_meanvar -->\n<!-- /results -->\n")

    def tearDown(self):
        self.tmp.cleanup()

    def runs(self, wrong=()):
        """Three machines at 1.02, 0.99 and 1.00 times the made-up times: the median is the third, not the mean;
        wrong: the (dist, type, op, method) WRONG on the second."""
        return [ragged_run(os.path.join(self.tmp.name, f"results{k}"), factor, f"GPU-r{k}", wrong if k == 1 else ())
                for k, factor in enumerate((1.02, 0.99, 1.00))]

    def test_three_runs_fill_the_table_with_the_median_of_the_machines(self):
        import publish
        runs = self.runs()
        self.assertEqual(publish.kinds_of(runs[0]), ["ragged"])
        result = run("publish.py", *runs, "--root", self.root)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("\nwrote 19_ragged_segments/README.md (results:19_ragged_segments)\n", result.stdout)
        self.assertIn("\nwrote docs/tuning.md (results:ragged_ops)\n", result.stdout)
        text = block(read(self.readme), "results:19_ragged_segments")
        self.assertIn("On Test GPU, CUDA 77.7, driver 999.1.2; 3 runs on 3 different GPUs, 2031-02-03: "
                      "`tools/gpu_suite.sh ragged`: `bench_ragged` ([bench.cu](bench/bench.cu)), the sums of n = 2^20 "
                      "elements with int32 offsets, and `18_split_rows --method auto --json` on its equal rows, median "
                      "of 7 / 11 ([how these are measured](../docs/README.md#how-the-numbers-are-measured)).", text)
        self.assertIn("| lengths | segments | longest | 19 µs (% of bound) | CUB µs (% of bound) | 19 × faster than CUB "
                      "| 18's rule µs (% of bound) | 19 ÷ 18's rule | floor µs |", text)
        # The median of the three machines' medians (the third's), ± the farthest (2 %); the bound: each machine's
        # floor scaled to 1.2 times the input, over its time; 18's: the floor scaled to the input and 64 floats.
        self.assertIn("| uniform 1..2048 | 1000 | 2048 | 100.0 ±2.0% (60%) | 200.0 ±2.0% (30%) | 2.00× | — | — | "
                      "50.0 |", text)
        self.assertIn("| equal rows M=64 | 64 | 16384 | 100.0 ±2.0% (60%) | 200.0 ±2.0% (30%) | 2.00× | "
                      "60.0 ±2.0% (83%) | 1.67× | 50.0 |", text)
        # In the bench's order, float first, each type with its plot.
        self.assertLess(text.index("| uniform 1..2048 |"), text.index("| one n/2, rest 1..8 |"))
        self.assertLess(text.index("**float**"), text.index("**bf16**"))
        self.assertIn("](../docs/images/ragged_bf16.svg)", text)
        self.assertNotIn("⚠", text)
        ops = block(read(self.tuning), "results:ragged_ops")
        self.assertIn("| lengths | sum: % of bound (× CUB) | max: % of bound (× CUB) | argmax: % of bound (× CUB) | "
                      "meanvar: % of bound |", ops)
        self.assertIn("| one n/2, rest 1..8 | 60% (2.00×) | 60% (2.00×) | 60% (2.00×) | 60% |", ops)
        self.assertIn("[bench.cu](../19_ragged_segments/bench/bench.cu)), every operator of n = 2^20 elements with int32 "
                      "offsets, median of 7 ([how", ops)  # 18's runs are not in it
        # Stored as docs/data/ragged/run1..3, from which the same pages are written again.
        data = os.path.join(self.root, "docs", "data", "ragged")
        self.assertEqual(sorted(os.listdir(data)), ["run1", "run2", "run3"])
        self.assertEqual(sorted(os.listdir(os.path.join(data, "run1"))),
                         ["gpu.txt", "ragged.jsonl", "ragged_rows.jsonl"])
        pages = read(self.readme), read(self.tuning)
        result = run("publish.py", os.path.join(self.root, "docs", "data"), "--root", self.root)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual((read(self.readme), read(self.tuning)), pages)
        for dtype in ("float", "bf16"):
            path = os.path.join(self.root, "docs", "images", f"ragged_{dtype}.svg")
            self.assertEqual(os.path.exists(path), HAVE_MATPLOTLIB)
            if HAVE_MATPLOTLIB:
                plot = read(path)
                xml.dom.minidom.parseString(plot.encode("utf-8"))
                self.assertIn(f"{dtype} sums of ragged segments, n = 2^20: Test GPU", plot)
                run("publish.py", *runs, "--root", self.root)
                self.assertEqual(read(path), plot)  # the same bytes when drawn again

    def published(self, wrong, page, marker):
        """The block `marker` of `page` as publish.py writes it from three runs, `wrong` WRONG on the second."""
        result = run("publish.py", *self.runs(wrong=wrong), "--root", self.root)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn(f"\nwrote {os.path.relpath(page, self.root)} ({marker})\n", result.stdout)
        return block(read(page), marker)

    def assert_left_without(self, methods, page, marker):
        """Runs without the bench's lines of `methods` leave the block `marker` of `page` as it was."""
        before, runs = block(read(page), marker), self.runs()
        for path in runs:
            lines = read(os.path.join(path, "ragged.jsonl")).splitlines(keepends=True)
            write(os.path.join(path, "ragged.jsonl"),
                  "".join(line for line in lines if all(f'"{m}"' not in line for m in methods)))
        result = run("publish.py", *runs, "--root", self.root)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn(f"fill_ragged: no data for {marker}; block left as it was", result.stderr)
        self.assertEqual(block(read(page), marker), before)

    def test_the_step_table_is_19_then_each_build_without_a_step(self):
        text = self.published([("equal rows M=64", "bf16", "meanvar", "staged")], self.readme, "results:19_steps")
        self.assertIn("every operator of n = 2^20 elements with int32 offsets, median of 7 ([how", text)  # no 18
        self.assertIn("| lengths | sum | max | argmax | meanvar |", text)
        self.assertIn("In order: without the register path: every tile of ends staged ([staged.cu](bench/staged.cu)); "
                      "without ranges: a block per tile ([tile_per_block.cu](bench/tile_per_block.cu)); without the "
                      "partition's 4-way search: a binary search, one probe a step "
                      "([binary_search.cu](bench/binary_search.cu)).", text)
        self.assertIn("| uniform 1..2048 | " + " | ".join(["60% (1.50×, 1.20×, 1.10×)"] * 4) + " |", text)
        self.assertIn("| equal rows M=64 | " + " | ".join(["60% (1.50×, 1.20×, 1.10×)"] * 3) + " | 60% (1.50× ⚠, 1.20×, 1.10×) |",
                      text[text.index("**bf16**"):])
        self.assertEqual(text.count("| one n/2, rest 1..8 |"), 2)  # float and bf16
        self.assertTrue(read(self.readme).endswith("<!-- /results -->\n\nAfter.\n"))
        self.assert_left_without(("staged", "tile_per_block", "binary_search"), self.readme, "results:19_steps")

    def test_meanvar_at_three_blocks_beside_19(self):
        text = self.published([("uniform 1..2048", "bf16", "meanvar", "three_blocks")], self.tuning,
                              "results:ragged_meanvar")
        self.assertIn("[bench.cu](../19_ragged_segments/bench/bench.cu)), MeanVar of n = 2^20 elements with int32 "
                      "offsets, median of 7 ([how", text)
        self.assertIn("gathering 8 ([three_blocks.cu](../19_ragged_segments/bench/three_blocks.cu)) over 19's", text)
        self.assertIn("| lengths | float: % of bound (3 blocks ÷ 4) | bf16: % of bound (3 blocks ÷ 4) |", text)
        self.assertIn("| uniform 1..2048 | 60% (1.30×) | 60% (1.30× ⚠) |", text)
        self.assertIn("| equal rows M=64 | 60% (1.30×) | 60% (1.30×) |", text)
        self.assertIn("⚠: a WRONG result; its time is shown but does not count.", text)
        self.assert_left_without(("three_blocks",), self.tuning, "results:ragged_meanvar")

    def test_the_profile_comes_from_the_run_with_nsight_compute_files(self):
        write(self.tuning, read(self.tuning) + "\n<!-- results:ragged_profile -->\n<!-- /results -->\n")
        runs = self.runs()
        metrics = ["gpu__time_duration.sum", "sm__inst_executed.sum", "smsp__issue_active.avg.per_cycle_active",
                   "dram__throughput.avg.pct_of_peak_sustained_elapsed",
                   "sm__warps_active.avg.pct_of_peak_sustained_active",
                   "smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct",
                   "smsp__warp_issue_stalled_barrier_per_warp_active.pct"]
        # 19_ragged_segments's own lines, then ncu's CSV: names, units, the kernel's one launch (n = 2^20). The sum's
        # files, then one of ArgMax's (uniform lengths: its row in the every-operator table; M = 64 has none).
        for file, name, segments, values in (
                ("float_equal_64", "equal rows M=64", "64 segments", ["50,000", "131,072", "0.12", "79.4", "48.5", "77.6", "12.1"]),
                ("float_uniform", "uniform 1..2048", "1000 segments", ["120,500", "1,048,576", "0.51", "44.0", "47.0", "18.0", "26.4"]),
                ("argmax_float_uniform", "uniform 1..2048", "1000 segments", ["200,000", "2,097,152", "0.6", "30.0", "46.2", "10.0", "20.0"]),
                ("float_equal_1", "equal rows M=1", "1 segment", ["1", "2", "3", "4", "5", "6", "7"])):
            csv = "".join('"' + '","'.join(row) + '"\n' for row in (
                ["ID", "Kernel Name", "Grid Size", "Block Size"] + metrics, ["", "", "", ""] + ["x"] * len(metrics),
                ["0", "void ragged_tiles<float, int, Sum>(...)", "(32, 1, 1)", "(256, 1, 1)"] + values))
            write(os.path.join(runs[1], f"ragged_ncu_{file}.csv"),
                  f"==PROF== Connected\ninput      1048576 float (random), 4.0 MiB, in {segments} ({name}, longest 9), "
                  f"int32 offsets\n" + csv * (file != "float_equal_1"))  # equal_1: ncu measured nothing
        result = run("publish.py", *runs, "--root", self.root)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("\nwrote docs/tuning.md (results:ragged_profile)\n", result.stdout)
        text = block(read(self.tuning), "results:ragged_profile")
        self.assertIn("On Test GPU, CUDA 77.7, driver 999.1.2, 2031-02-03: `tools/gpu_suite.sh ragged_ncu`: ", text)
        self.assertIn("| lengths | time µs | instructions per element | issued a cycle | DRAM % of peak | occupancy % | "
                      "waiting on memory % | waiting at a barrier % |", text)
        # In the step's order (uniform first); instructions per element: warp instructions x 32 / n.
        self.assertIn("| uniform 1..2048 | 120.5 | 32.0 | 0.51 | 44 | 47 | 18 | 26 |\n"
                      "| equal rows M=64 | 50.0 | 4.0 | 0.12 | 79 | 48 | 78 | 12 |", text)
        # Every operator of float: a row where some operator besides the sum was measured; "—" where none.
        self.assertIn("**float, every operator:** instructions per element (occupancy %)\n\n"
                      "| lengths | sum | max | argmax | meanvar |\n| --- | ---: | ---: | ---: | ---: |\n"
                      "| uniform 1..2048 | 32.0 (47%) | — | 64.0 (46%) | — |\n\n", text + "\n\n")
        self.assertNotIn("M=1 |", text)
        self.assertNotIn("**bf16**", text)
        data = os.path.join(self.root, "docs", "data", "ragged")
        self.assertIn("ragged_ncu_float_uniform.csv", os.listdir(os.path.join(data, "run2")))
        self.assertNotIn("ragged_ncu_float_uniform.csv", os.listdir(os.path.join(data, "run1")))
        page = read(self.tuning)
        result = run("publish.py", os.path.join(self.root, "docs", "data"), "--root", self.root)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual(read(self.tuning), page)

    def test_the_n_table_comes_from_ragged_n_runs(self):
        import publish
        write(self.tuning, read(self.tuning) + "\n<!-- results:ragged_n -->\n<!-- /results -->\n")
        runs = []
        for k, factor in enumerate((1.02, 0.99, 1.00)):
            # 19 at 2^20 and 2^22: the floor 50 µs x 4^i, 19 60 µs x 4^i + 5 µs; 18 at 55 µs x 4^i (not at 2^22 on
            # the second machine), every time factor times that; 19's 2^24 on the first machine only, its 2^20
            # WRONG on the third.
            records = []
            for i, n in enumerate((1 << 20, 1 << 22, 1 << 24)):
                floor, ours = 0.050 * 4 ** i * factor, (0.060 * 4 ** i + 0.005) * factor
                if n < 1 << 24 or k == 0:
                    records.append((run_head(reps=30), {
                        "chapter": "19_ragged_segments", "n": n, "segments": 1, "type": "float", "op": "sum",
                        "median_ms": ours, "iqr_ms": ours / 100, "floor_ms": floor,
                        "percent_of_bound": 100 * floor / ours, "ok": (k, n) != (2, 1 << 20)}))
                if n < 1 << 24 and (k, n) != (1, 1 << 22):
                    rule = 0.055 * 4 ** i * factor
                    records.append((run_head(reps=30), {
                        "chapter": "18_split_rows", "rows": 1, "cols": n, "type": "float", "op": "sum",
                        "median_ms": rule, "iqr_ms": rule / 100, "percent_of_floor": 100 * floor / rule,
                        "ok": True}))
            path = os.path.join(self.tmp.name, f"n{k}")
            write(os.path.join(path, "ragged_n.jsonl"), headed_lines(records))
            write(os.path.join(path, "gpu.txt"), GPU_TXT.format(driver="999.1.2", uuid=f"GPU-n{k}", cuda="77.7",
                                                               date="2031-02-03"))
            runs.append(path)
        self.assertEqual(publish.kinds_of(runs[0]), ["ragged_n"])
        result = run("publish.py", *runs, "--root", self.root)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("\nwrote docs/tuning.md (results:ragged_n)\n", result.stdout)
        text = block(read(self.tuning), "results:ragged_n")
        self.assertIn("On Test GPU, CUDA 77.7, driver 999.1.2; 3 runs on 3 different GPUs, 2031-02-03: "
                      "`tools/gpu_suite.sh ragged_n`: `19_ragged_segments --lengths equal --rows 1 --n N --type float "
                      "--op sum` and `18_split_rows --rows 1 --cols N --method auto`", text)
        self.assertIn("| n | floor µs | 19 µs (% of bound) | 19 less the floor µs | 18's rule µs (% of floor) |", text)
        # The medians of the three machines (factor 1.00); 2^24 was not measured on every machine; 18 at 2^22
        # not on the second; the third machine's 19 at 2^20 WRONG.
        self.assertIn("| 2^20 | 50.0 | 65.0 ±2.0% ⚠ (77%) | 15.0 | 55.0 ±2.0% (91%) |\n"
                      "| 2^22 | 200.0 | 245.0 ±2.0% (82%) | 45.0 | — |", text)
        self.assertNotIn("2^24", text)
        self.assertIn("⚠: a WRONG result; its time is shown but does not count.", text)
        page = read(self.tuning)
        result = run("publish.py", os.path.join(self.root, "docs", "data"), "--root", self.root)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual(read(self.tuning), page)
        write(os.path.join(runs[1], "ragged_n.jsonl"), headed_lines([(run_head(), {"chapter": "18_split_rows"})]))
        result = run("publish.py", *runs, "--root", self.root)
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        self.assertIn("is this `tools/gpu_suite.sh ragged_n`'s?", result.stderr)

    def test_a_wrong_result_is_marked(self):
        runs = self.runs(wrong=[("one n/2, rest 1..8", "float", "sum", "cub_segmented"),
                                ("uniform 1..2048", "bf16", "argmax", "merge_path")])
        result = run("publish.py", *runs, "--root", self.root)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        text = block(read(self.readme), "results:19_ragged_segments")
        self.assertIn("| one n/2, rest 1..8 | 9000 | 524288 | 100.0 ±2.0% (60%) | 200.0 ±2.0% ⚠ (30%) | 2.00× ⚠ |",
                      text)
        self.assertIn("⚠: a WRONG result; its time is shown but does not count.", text)
        self.assertEqual(text.count("⚠"), 3)  # the cell, the ratio, the note; bf16's argmax is not in the table
        ops = block(read(self.tuning), "results:ragged_ops")
        self.assertIn("| uniform 1..2048 | 60% (2.00×) | 60% (2.00×) | 60% ⚠ (2.00× ⚠) | 60% |",
                      ops[ops.index("**bf16**"):])
        self.assertIn("⚠: a WRONG result", ops)
        if HAVE_MATPLOTLIB:  # a red cross on the float plot's CUB bar, said in its legend; bf16's argmax not drawn
            images = os.path.join(self.root, "docs", "images")
            self.assertIn("WRONG result", read(os.path.join(images, "ragged_float.svg")))
            self.assertNotIn("WRONG result", read(os.path.join(images, "ragged_bf16.svg")))

    def test_one_run_shows_half_its_interquartile_range_as_spread(self):
        result = run("publish.py", self.runs()[2], "--root", self.root)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        text = block(read(self.readme), "results:19_ragged_segments")
        self.assertIn("one run, median of 7 / 11", text)
        self.assertIn("| uniform 1..2048 | 1000 | 2048 | 100.0 ±0.5% (60%) | 200.0 ±0.5% (30%) | 2.00× |", text)

    def test_a_run_without_a_field_is_refused(self):
        path = ragged_run(os.path.join(self.tmp.name, "bad"), 1.0, "GPU-b")
        write(os.path.join(path, "ragged.jsonl"), read(os.path.join(path, "ragged.jsonl")).replace('"floor_ms"',
                                                                                                    '"floor"'))
        result = run("publish.py", path, "--root", self.root)
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        self.assertIn("ragged.jsonl: no floor_ms", result.stderr)
        self.assertNotIn("wrote 19_ragged_segments", result.stdout)


class CpuNamed(unittest.TestCase):
    def test_00s_captions_name_the_cpu_where_the_runs_recorded_it(self):
        facts = results.parse_gpu_txt(GPU_TXT.format(driver="999.1.2", uuid="GPU-a", cuda="77.7", date="2031-02-03")
                                      + "cpu: Test CPU 9000\n")
        self.assertEqual(facts["cpu"], "Test CPU 9000")
        self.assertEqual(results.cpu_note([facts, dict(facts)]), "00 on the host's CPU, Test CPU 9000")
        self.assertEqual(results.cpu_note([facts, {"gpu": "Test GPU"}]),
                         "00 on the host's CPU (its model not recorded in these runs)")


class BuildTime(RepoCopy):
    def test_a_missing_or_unwritable_output_is_a_usage_error(self):
        script = os.path.join(TOOLS, "build_time.sh")
        result = subprocess.run(["bash", script], capture_output=True, text=True)
        self.assertEqual((result.returncode, result.stdout), (2, ""))
        self.assertIn("usage: tools/build_time.sh OUT.json", result.stderr)
        result = subprocess.run(["bash", script, os.path.join(self.tmp.name, "nowhere", "b.json")],
                                capture_output=True, text=True)
        self.assertEqual(result.returncode, 2)
        self.assertIn("build_time.sh: no folder", result.stderr)

    def test_the_readme_says_the_wait_from_a_clone_to_04(self):
        runs = []
        for k, build in enumerate((10.0, 30.0, 20.0), 1):
            runs.append(os.path.join(self.tmp.name, f"b{k}"))
            write(os.path.join(runs[-1], "build_time.json"), json.dumps(
                {"what": "fresh clone to a built 04_shared_tree", "cpu": "Test CPU", "cores": 3, "nvcc": "77.7",
                 "date": "2031-02-03", "architectures": "42", "clone_s": 1.0, "configure_s": 4.0,
                 "build_s": build, "total_s": build + 5.0}) + "\n")
        result = run("publish.py", *runs, "--root", self.root)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("\nwrote README.md (results:build_time)\n", result.stdout)
        text = block(read(os.path.join(self.root, "README.md")), "results:build_time")
        self.assertIn("on 3 cores of an Test CPU without a GPU, nvcc 77.7, for one GPU architecture (sm_42) and "
                      "without the tests: 25 s (configure 4 s, build 20 s); the median of 3 runs, 2031-02-03", text)
        self.assertEqual(sorted(os.listdir(os.path.join(self.root, "docs", "data", "build"))), ["run1", "run2", "run3"])


class Layout(unittest.TestCase):
    def test_rows_bench_refuses_a_chapter_that_is_not_a_rows_chapter(self):
        with tempfile.TemporaryDirectory() as tmp:  # refused before any build or GPU query
            result = subprocess.run(["bash", os.path.join(REPO, "tools", "rows_bench.sh"), "13_rows", "09_single_pass"],
                                    capture_output=True, text=True, env=dict(os.environ, RESULTS=tmp))
            self.assertEqual(result.returncode, 2, result.stderr)
            self.assertIn("rows_bench.sh: 09_single_pass is not a rows chapter of chapters.txt (those: 13_rows",
                          result.stderr)
            self.assertEqual(os.listdir(tmp), [])

    def test_docs_data_holds_a_folder_per_kind_and_in_it_the_runs(self):
        import publish
        data = os.path.join(REPO, "docs", "data")
        by_kind, unknown = publish.classify([data])
        self.assertEqual(unknown, [])
        self.assertEqual(sorted(by_kind), sorted(os.listdir(data)))
        self.assertEqual(set(by_kind), {"sweep", "suite", "steps", "undo", "sass", "rows", "split_rows", "accuracy",
                                        "reproducible", "reproducible_gpus", "multigpu", "ragged", "ragged_n", "build"})
        for kind, runs in by_kind.items():  # each run found as its own kind only, numbered from 1
            self.assertEqual(runs, publish.data_runs(REPO, kind))
            self.assertEqual(sorted(os.listdir(os.path.join(data, kind))), sorted(f"run{k}" for k in
                                                                                  range(1, len(runs) + 1)))

    def test_a_gpu_suite_folder_is_copied_kind_by_kind(self):
        import contextlib
        import io
        import publish
        with tempfile.TemporaryDirectory() as tmp:
            folder = write_run(os.path.join(tmp, "gpu-results"))  # data/sweep_*.json, gpu.txt
            for name in ("steps.jsonl", "build.log", "summary.txt", "rows/gpu.txt", "rows/13_rows/rows_sweep.json",
                         "rows/13_rows/sweep.log", "accuracy_study.txt", "accuracy/errors.jsonl", "multigpu.jsonl",
                         "multigpu.err"):
                write(os.path.join(folder, name), "{}\n")
            kinds = publish.kinds_of(folder)
            self.assertEqual(kinds, ["sweep", "steps", "rows", "accuracy", "multigpu"])
            root = os.path.join(tmp, "repo")
            by_kind = {kind: [folder] for kind in kinds}
            with contextlib.redirect_stdout(io.StringIO()):
                publish.copy_in(by_kind, root)
            files = {kind: sorted(os.path.relpath(os.path.join(d, f), found[0]) for d, _, names in os.walk(found[0])
                                  for f in names) for kind, found in by_kind.items()}
            self.assertEqual(files, {
                "sweep": ["run.json", "sweep_float.json", "sweep_int.json"], "steps": ["gpu.txt", "steps.jsonl"],
                "rows": ["rows/13_rows/rows_sweep.json", "rows/gpu.txt"],
                "accuracy": ["accuracy/errors.jsonl", "accuracy_study.txt", "gpu.txt"],
                "multigpu": ["gpu.txt", "multigpu.jsonl"]})
            for kind, found in by_kind.items():
                self.assertEqual(found, [os.path.join(root, "docs", "data", kind, "run1")])
                self.assertEqual(publish.kinds_of(found[0]), [kind])


class SmallNAndTuning(RepoCopy):
    """09's small-n tables (tune_small_n.jsonl of several runs) and docs/tuning.md's single-pass
    table (tune_single_pass.jsonl), from made-up bench output."""

    def small_n_run(self, name, factor, uuid):
        path = os.path.join(self.tmp.name, name)
        write(os.path.join(path, "gpu.txt"), GPU_TXT.format(driver="999.1.2", uuid=uuid, cuda="77.7", date="2031-02-03"))
        lines = [run_head(sms=2, reps=100)]
        jobs = [("09 default", 64, 3, 10.0), ("09 B=256 V=1", 256, 9, 8.0), ("09 threadfence", 64, 3, 11.0),
                ("10 CUB", 0, 0, 12.0), ("floor default", 256, 2, 5.0), ("floor B=256 wave", 256, 4, 4.0),
                ("stage partials", 64, 3, 6.0), ("stage ticket", 64, 3, 7.0), ("stage relaxed", 64, 3, 6.5),
                ("empty 09-shape", 64, 3, 2.0), ("empty 1x32", 32, 1, 1.5)]
        for k in (12, 16, 20):
            for job, block_size, grid, us in jobs:
                lines.append({"type": "int", "n": 1 << k, "job": job, "block": block_size, "grid": grid,
                              "reps": 100 if k < 20 else 30, "median_ms": us * factor * (k - 11) / 1000,
                              "min_ms": 0.0, "iqr_ms": 0.0, "check": "ok"})
        write(os.path.join(path, "tune_small_n.jsonl"), "\n".join(json.dumps(line) for line in lines) + "\n")
        return path

    def test_small_n_tables_take_the_median_over_the_runs(self):
        runs = [self.small_n_run(f"run{i}", factor, f"GPU-{i}") for i, factor in enumerate((1.0, 1.5, 3.0))]
        result = run("publish.py", *runs, "--root", self.root)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        text = block(read(os.path.join(self.root, "09_single_pass", "README.md")), "results:09_small_n")
        self.assertIn("On Test GPU, CUDA 77.7, driver 999.1.2; 3 runs on 3 different GPUs, 2031-02-03: `tune_small_n`", text)
        self.assertIn("µs, median of 100 (30 from 2^20 up) ([how these are measured]", text)
        # 2^12, 2^16, 2^20: 09's default (10 µs x 1, 5, 9) times the middle run's factor 1.5.
        self.assertIn("| ... and step 3: 09, the last block's combine | 15.00 | 75.00 | 135.00 |", text)
        self.assertIn("| 09's default shape (grid × block) | 3 × 64 | 3 × 64 | 3 × 64 |", text)
        self.assertIn("| the read-only floor (its fastest shape) | 6.00 | 30.00 | 54.00 |", text)
        shape = block(read(os.path.join(self.root, "docs", "tuning.md")), "results:09_shape")
        self.assertIn("| 2^16 | 3 × 64 | 75.00 | 9 × 256 (1 vector per thread) | 60.00 |", shape)

    def test_single_pass_table_from_the_bench_lines(self):
        path = os.path.join(self.tmp.name, "tuning")
        write(os.path.join(path, "gpu.txt"), GPU_TXT.format(driver="999.1.2", uuid="GPU-t", cuda="77.7",
                                                            date="2031-02-03"))
        lines = [run_head(reps=30)] + [{"variant": v, "n": 1 << k, "median_ms": us * k / 1000, "ok": v != "bad"}
                                       for v, us in (("cub", 1.0), ("gs K4", 0.5), ("bad", 2.0)) for k in (16, 20)]
        write(os.path.join(path, "tune_single_pass.jsonl"), "\n".join(json.dumps(line) for line in lines) + "\n")
        result = run("publish.py", path, "--root", self.root)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        text = block(read(os.path.join(self.root, "docs", "tuning.md")), "results:tuning_single_pass")
        self.assertIn("Test GPU, CUDA 77.7, driver 999.1.2, 2031-02-03", text)
        for row in ("| variant | 2^16 | 2^20 |", "| cub | 16.00 | 20.00 |", "| gs K4 | 8.00 | 10.00 |",
                    "| bad | wrong | wrong |"):
            self.assertIn(row, text)


if __name__ == "__main__":
    unittest.main()
