#!/usr/bin/env python3
"""CTest `docs.snippets`: the README code excerpts must match the source they are cut from.

(a) `tools/snippets.py --check` passes on this repository;
(b) on a tiny repository built in a temporary folder, the checker passes when the
    excerpt matches, and fails when the excerpt is edited by hand, when the snippet is
    renamed in the source, when the file is missing, when a block is malformed, when a
    diff names a whole file, and when a diff is longer than 60 lines; --write repairs
    drift and fills an empty block.

Run: python3 tests/test_snippets.py -v   (Python 3 standard library only)
"""

import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL = os.path.join(REPO, "tools", "snippets.py")

SOURCE = textwrap.dedent("""\
    // demo.cu
    namespace {
    // [snippet:add_pairs]
    __global__ void add_pairs(int* data) {
      const unsigned tid = threadIdx.x;
      if (tid % 2 == 0) data[tid] += data[tid + 1];

      __syncthreads();
    }
    // [/snippet:add_pairs]
    }  // namespace
    """)

EXCERPT = textwrap.dedent("""\
    __global__ void add_pairs(int* data) {
      const unsigned tid = threadIdx.x;
      if (tid % 2 == 0) data[tid] += data[tid + 1];

      __syncthreads();
    }""")

README = ("# Demo\n\nThe kernel:\n\n<!-- snippet: src/demo.cu#add_pairs -->\n```cuda\n" + EXCERPT +
          "\n```\n<!-- /snippet -->\n\nMore text.\n")


def run_tool(*args, root):
    return subprocess.run([sys.executable, TOOL, "--root", root, *args], capture_output=True, text=True)


class RealRepository(unittest.TestCase):
    def test_readme_excerpts_match_the_source(self):
        result = run_tool("--check", root=REPO)
        self.assertEqual(result.returncode, 0,
                         "README excerpts differ from the source; run `python3 tools/snippets.py --write`\n"
                         + result.stdout + result.stderr)


class TinyRepository(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        os.makedirs(os.path.join(self.root, "src"))
        self.write("src/demo.cu", SOURCE)
        self.write("README.md", README)

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, relative, text):
        with open(os.path.join(self.root, relative), "w", encoding="utf-8") as f:
            f.write(text)

    def read(self, relative):
        with open(os.path.join(self.root, relative), encoding="utf-8") as f:
            return f.read()

    def check(self):
        return run_tool("--check", root=self.root)

    def assert_passes(self):
        result = self.check()
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def assert_fails(self, expected_words):
        result = self.check()
        self.assertEqual(result.returncode, 1, "expected --check to fail\n" + result.stdout + result.stderr)
        self.assertIn(expected_words, result.stderr)
        return result

    def test_matching_excerpt_passes(self):
        self.assert_passes()

    def test_excerpt_is_dedented_and_markers_excluded(self):
        indented = textwrap.indent(EXCERPT, "    ")  # blank lines stay empty
        self.write("src/demo.cu", "struct S {\n  // [snippet:add_pairs]\n" + indented +
                   "\n  // [/snippet:add_pairs]\n};\n")
        self.assert_passes()  # the same excerpt once the common 4-space indent is removed

    def test_hand_edited_excerpt_fails(self):
        self.write("README.md", README.replace("data[tid + 1]", "data[tid + 2]"))
        result = self.assert_fails("differs from the source")
        self.assertIn("README.md:5", result.stderr)  # names the file and the block's line

    def test_renamed_snippet_fails(self):
        self.write("src/demo.cu", SOURCE.replace("snippet:add_pairs", "snippet:add_neighbours"))
        self.assert_fails("no snippet 'add_pairs'")

    def test_missing_source_file_fails(self):
        os.remove(os.path.join(self.root, "src", "demo.cu"))
        self.assert_fails("not found")

    def test_unclosed_source_marker_fails(self):
        self.write("src/demo.cu", SOURCE.replace("// [/snippet:add_pairs]\n", ""))
        self.assert_fails("never closed")

    def test_malformed_block_fails(self):
        self.write("README.md", README.replace("```\n<!-- /snippet -->", "```\n\n<!-- /snippet -->"))
        self.assert_fails("malformed")
        self.write("README.md", README.replace("<!-- /snippet -->\n", ""))
        self.assert_fails("malformed")

    def test_write_repairs_drift_and_fills_empty_blocks(self):
        drifted = README.replace("data[tid + 1]", "data[tid + 2]")
        self.write("README.md", drifted + "\n<!-- snippet: src/demo.cu#add_pairs -->\n<!-- /snippet -->\n")
        self.assert_fails("differs from the source")
        result = run_tool("--write", root=self.root)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assert_passes()
        text = self.read("README.md")
        self.assertTrue(text.startswith(README))
        self.assertEqual(text.count(EXCERPT), 2)
        self.assertEqual(run_tool("--write", root=self.root).stdout.count("updated"), 0)  # idempotent

    def test_a_diff_of_two_functions_passes(self):
        self.write("src/next.cu", SOURCE.replace("tid % 2 == 0", "tid < 16"))
        self.write("README.md", README + "\n<!-- snippet: diff src/demo.cu#add_pairs src/next.cu#add_pairs -->\n"
                   "<!-- /snippet -->\n")
        self.assertEqual(run_tool("--write", root=self.root).returncode, 0)
        self.assert_passes()
        self.assertIn("+  if (tid < 16) data[tid] += data[tid + 1];", self.read("README.md"))

    def test_a_whole_file_diff_is_refused(self):
        self.write("src/next.cu", SOURCE.replace("tid % 2 == 0", "tid < 16"))
        self.write("README.md", README + "\n<!-- snippet: diff src/demo.cu src/next.cu -->\n<!-- /snippet -->\n")
        self.assert_fails("is a whole file")

    def test_a_diff_longer_than_60_lines_is_refused(self):
        body = "".join(f"  int v{i} = {i};\n" for i in range(40))
        long_a = "// [snippet:f]\nvoid f() {\n" + body + "}\n// [/snippet:f]\n"
        long_b = long_a.replace(" = ", " = 2 * ")  # every line changes: 80 diff lines and more
        self.write("src/a.cu", long_a)
        self.write("src/b.cu", long_b)
        self.write("README.md", README + "\n<!-- snippet: diff src/a.cu#f src/b.cu#f -->\n<!-- /snippet -->\n")
        self.assert_fails("(at most 60)")

    def test_markers_inside_an_example_fence_are_ignored(self):
        example = "\n~~~\n<!-- snippet: src/nowhere.cu#nothing -->\n```cuda\n```\n<!-- /snippet -->\n~~~\n"
        self.write("GUIDE.md", example)
        self.assert_passes()

    def test_build_and_hidden_folders_are_skipped(self):
        for folder in ("build", ".git"):
            os.makedirs(os.path.join(self.root, folder))
            self.write(os.path.join(folder, "stale.md"), README.replace("data[tid + 1]", "x"))
        self.assert_passes()


if __name__ == "__main__":
    unittest.main()
