#!/usr/bin/env python3
"""CTest `docs.tools`: the documentation scripts in tools work, and what they made is current.

- draw_schemes.py: each scheme adds the right pairs and ends with the sum; the SVGs in
  docs/images are what the script draws with its defaults;
- results.py: on a made-up sweep (written to a temporary folder, never to the repo) it
  writes results.md, the plots and the README blocks, and leaves other blocks alone;
  `fill` replaces one marker block;
- merge_answers.py: merges answer files with a table of contents; docs/answers.md is current.

Run: python3 tests/test_doc_tools.py -v   (Python 3 standard library only)
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest
import xml.dom.minidom

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = os.path.join(REPO, "tools")
sys.path.insert(0, TOOLS)

import draw_schemes  # noqa: E402
import results  # noqa: E402

SCHEMES = ("neighbored.svg", "neighbored_less.svg", "interleaved.svg", "shared_tree.svg", "pow2ceil.svg",
           "warp_unroll.svg", "grid_stride.svg", "warp_shuffle.svg")


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

    def test_committed_diagrams_are_current(self):
        with tempfile.TemporaryDirectory() as out:
            result = run("draw_schemes.py", "--out", out)
            self.assertEqual(result.returncode, 0, result.stderr)
            for name in SCHEMES:
                drawn = read(os.path.join(out, name))
                xml.dom.minidom.parseString(drawn.encode("utf-8"))  # well-formed
                committed = os.path.join(REPO, "docs", "images", name)
                self.assertTrue(os.path.exists(committed), f"docs/images/{name} is missing")
                self.assertEqual(read(committed), drawn,
                                 f"docs/images/{name} differs from what the script draws; "
                                 "run python3 tools/draw_schemes.py")

    def test_bad_block_size_is_a_usage_error(self):
        with tempfile.TemporaryDirectory() as out:
            self.assertEqual(run("draw_schemes.py", "--block", "12", "--out", out).returncode, 2)


def made_up_sweep(dtype):
    """A synthetic sweep (made-up numbers, for this test only)."""
    chapters = ["00_cpu_baseline", "01_global_naive", "04_shared_tree", "10_cub"]
    rows = []
    for k in range(10, 31):
        n = 1 << k
        for i, chapter in enumerate(chapters):
            ms = 0.005 + n * 4e-9 / (i + 1)
            gbps = n * 4 / (ms * 1e6)
            rows.append({"n": n, "chapter": chapter, "ms": ms, "gbps": gbps,
                         "percent_of_peak": 0.0 if i == 0 else 100 * gbps / 3000.0,
                         "ok": not (chapter == "04_shared_tree" and k == 12)})
    return {"device": "Test GPU", "cuda": "99.9", "date": "2000-01-02", "peak_gbps": 3000.0, "type": dtype,
            "reps": 7, "flush": True, "rows": rows}


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

    def tearDown(self):
        self.tmp.cleanup()

    def test_update_writes_the_page_the_plots_and_the_blocks(self):
        result = run("results.py", self.data, "--root", self.root)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        page = read(os.path.join(self.root, "docs", "results.md"))
        self.assertIn("Test GPU", page)
        self.assertIn("CUDA 99.9", page)
        self.assertIn("2000-01-02", page)
        self.assertIn("<details>", page)
        self.assertIn("tour --sweep --type int --out docs/data", page)
        self.assertIn("⚠", page)  # the WRONG point is flagged
        for dtype in ("int", "float"):
            plot = read(os.path.join(self.root, "docs", "images", f"results_{dtype}.svg"))
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
        run("results.py", self.data, "--root", self.root)
        self.assertEqual(read(os.path.join(self.root, "04_shared_tree", "README.md")), before)

    def test_fill_replaces_one_marker_block(self):
        path = os.path.join(self.root, "04_shared_tree", "README.md")
        result = run("results.py", "fill", path, "ncu:04_shared_tree", stdin="| metric | value |\n")
        self.assertEqual(result.returncode, 0, result.stderr)
        text = read(path)
        self.assertIn("<!-- ncu:04_shared_tree -->\n\n| metric | value |\n\n<!-- /ncu -->", text)
        self.assertIn("stale", text)  # the results block is not touched
        self.assertEqual(run("results.py", "fill", path, "ncu:05_pow2ceil", stdin="x").returncode, 1)

    def test_fill_text_needs_a_closing_marker(self):
        with self.assertRaises(ValueError):
            results.fill_text("<!-- ncu:x -->\nno end\n", "ncu:x", "text")

    def test_missing_or_bad_data_is_a_usage_error(self):
        self.assertEqual(run("results.py", os.path.join(self.tmp.name, "nowhere"), "--root", self.root).returncode, 2)
        write(os.path.join(self.data, "sweep_int.json"), "{}")
        self.assertEqual(run("results.py", self.data, "--root", self.root).returncode, 2)


class Answers(unittest.TestCase):
    def test_merge_with_contents(self):
        with tempfile.TemporaryDirectory() as tmp:
            write(os.path.join(tmp, "docs", "answers", "01_a.md"), "# Answers: 01 · First\n\n1. One [x](../../01_a/y.cu).\n")
            write(os.path.join(tmp, "docs", "answers", "00_b.md"), "No heading.\n")
            out = os.path.join(tmp, "docs", "answers.md")
            result = run("merge_answers.py", "--root", tmp, "--answers", os.path.join(tmp, "docs", "answers"),
                         "--out", out)
            self.assertEqual(result.returncode, 0, result.stderr)
            text = read(out)
            self.assertTrue(text.startswith("# Answers to the exercises\n"))
            self.assertLess(text.index("## 00_b"), text.index("## 01 · First"))
            self.assertIn("- [01 · First](#01--first)", text)
            self.assertIn("[x](../01_a/y.cu)", text)
            self.assertEqual(run("merge_answers.py", "--root", tmp, "--answers", os.path.join(tmp, "docs", "answers"),
                                 "--out", out, "--check").returncode, 0)

    def test_committed_answers_page_is_current(self):
        if not os.path.exists(os.path.join(REPO, "docs", "answers.md")):
            self.skipTest("docs/answers.md not generated yet")
        result = run("merge_answers.py", "--check")
        self.assertEqual(result.returncode, 0, result.stderr)


if __name__ == "__main__":
    unittest.main()
