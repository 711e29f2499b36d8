#!/usr/bin/env python3
"""CTest `docs.lessons`: every chapter is a lesson a student finishes in one sitting.

(a) every chapter README is at most 400 lines (09_single_pass at most 350);
(b) every copy unit, the header with the "Use it in your code" block and the .cu beside
    it, is at most 450 lines of code together, blank and comment lines not counted (11's own,
    built on 09's unit, at most 250, and the copy of 09's unit beside it byte for byte 09's);
(c) every README names its next chapter (or says it is the last) and links its answers;
(d) every relative link of every Markdown page leads to a file, and its #anchor to a heading there;
(e) chapters.txt, the only list of chapters, names every chapter folder, in order, and only folders;
(f) the pieces of 06's kernel that its variants reuse (variant_parts.cuh) are the chapter's own lines;
(g) a constant main.cu restates from its copy unit ("kName (file.cu), restated") has the copy unit's value.
Whole-file diffs and diffs longer than 60 lines are refused by tools/snippets.py
(tests/test_snippets.py runs it).

Run: python3 tests/test_lessons.py -v   (Python 3 standard library only)
"""

import glob
import os
import re
import sys
import unittest

sys.dont_write_bytecode = True
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

README_CAP = 400
README_CAPS = {"09_single_pass": 350}
COPY_UNIT_CAP = 450
# Copy units built on an earlier chapter's unit, used as it is (its two files copied beside
# them, unchanged, so that the folder holds all a student copies): the earlier chapter and
# the cap of this chapter's own two files.
BUILT_ON = {"11_multi_gpu": ("09_single_pass", 250)}


def chapters():
    return sorted(d for d in os.listdir(REPO) if re.fullmatch(r"\d\d_\w+", d) and os.path.isdir(os.path.join(REPO, d)))


def copy_unit(chapter):
    """The copy unit's two files: the header with the "Use it in your code" block, and its .cu
    (.cpp for the CPU chapter). Where two headers have one (11: 09's unit copied beside its
    own), the one that the other does not include."""
    folder = os.path.join(REPO, chapter)
    headers = []
    for header in sorted(glob.glob(os.path.join(folder, "*.cuh")) + glob.glob(os.path.join(folder, "*.h"))):
        with open(header, encoding="utf-8") as f:
            headers.append((header, f.read()))
    with_block = [h for h, text in headers if "// Use it in your code" in text]
    top = [h for h in with_block
           if not any(f'#include "{os.path.basename(h)}"' in text for other, text in headers
                      if other != h and other in with_block)]
    for header in top[:1]:
        stem = os.path.splitext(header)[0]
        sources = [stem + ext for ext in (".cu", ".cpp") if os.path.isfile(stem + ext)]
        return [header] + sources
    return []


# 06's variant_parts.cuh: each function's body, as warp_unroll.cu has it under another name.
VARIANT_PARTS = {"pow2ceil": "pow2ceil", "tree_slots": "tree_slots", "four_loads_per_trip": "grid_stride_sum",
                 "halve_to_64": "block_sums_unrolled", "two_launches": "reduce"}
# What the parts name otherwise: the kernel they are given, the chapter's scratch rule from outside its namespace.
VARIANT_RENAMES = (("kernel<<<", "block_sums_unrolled<<<"), ("warp_unroll::scratch_bytes", "scratch_bytes"))


def code_lines(text):
    """The lines of code, each without its // comment and outer blanks; empty lines dropped."""
    return [line for line in (re.sub(r"\s*//.*", "", raw).strip() for raw in text.splitlines()) if line]


def function_body(text, name):
    """The code lines between the braces of the function `name` defines (the first definition)."""
    match = re.search(r"\b" + re.escape(name) + r"\([^;{]*\)\s*\{", text)
    if not match:
        return None
    depth, start = 0, match.end() - 1
    for end in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[end], 0)
        if depth == 0:
            return code_lines(text[start + 1:end])
    return None


def lines_of(path):
    with open(path, encoding="utf-8") as f:
        return f.read().count("\n")


def code_lines_of(path):
    """The lines that hold code: not blank, not only a // comment (the copy unit's cap, ../shared/GUIDE.md)."""
    with open(path, encoding="utf-8") as f:
        return sum(1 for line in f if line.strip() and not line.strip().startswith("//"))


class Lessons(unittest.TestCase):
    def test_there_are_chapters(self):
        self.assertGreaterEqual(len(chapters()), 14)

    def test_the_manifest_lists_every_chapter_folder(self):
        sys.path.insert(0, os.path.join(REPO, "tools"))
        import chapters as manifest  # tools/chapters.py
        listed = [folder for folder, _, _ in manifest.manifest(REPO)]
        kinds = {"cpu", "array", "multi_gpu", "rows", "reproducible", "segments"}
        for folder, kind, flags in manifest.manifest(REPO):
            with self.subTest(folder=folder):
                self.assertTrue(os.path.isdir(os.path.join(REPO, folder)), f"chapters.txt names {folder}, no folder")
                self.assertIn(kind, kinds, f"chapters.txt: {folder} has an unknown kind {kind}")
                self.assertLessEqual(flags, {"ncu", "steps", "undo"}, f"chapters.txt: {folder} has an unknown flag")
                if "steps" in flags:  # `tour --steps NN` runs the tour's chapters only
                    self.assertEqual(kind, "array", f"chapters.txt: {folder} has steps but is not of kind array")
                # undo: the program built again with a change undone, from its CMakeLists' UNDO (gpu_suite.sh)
                with open(os.path.join(REPO, folder, "CMakeLists.txt"), encoding="utf-8") as f:
                    cmake = f.read()
                self.assertEqual("undo" in flags, " UNDO " in cmake,
                                 f"chapters.txt: {folder}'s flag undo and its CMakeLists' UNDO go together")
        self.assertEqual(listed, chapters(), "chapters.txt must name every chapter folder, once, in reading order")

    def test_every_readme_fits_one_sitting(self):
        for chapter in chapters():
            cap = README_CAPS.get(chapter, README_CAP)
            with self.subTest(chapter=chapter):
                self.assertLessEqual(lines_of(os.path.join(REPO, chapter, "README.md")), cap,
                                     f"{chapter}/README.md is longer than {cap} lines: cut what the student does "
                                     "not need for this chapter's one change (tuning and history go to "
                                     "docs/tuning.md)")

    def test_every_copy_unit_is_short_enough_to_read(self):
        for chapter in chapters():
            unit = copy_unit(chapter)
            with self.subTest(chapter=chapter):
                if chapter in BUILT_ON:
                    earlier, cap = BUILT_ON[chapter]
                    with open(unit[0], encoding="utf-8") as f:
                        header = f.read()
                    for path in copy_unit(earlier):
                        base = os.path.basename(path)
                        copy = os.path.join(REPO, chapter, base)
                        self.assertTrue(os.path.isfile(copy), f"{chapter} must hold {earlier}'s {base} beside its unit")
                        with open(path, "rb") as a, open(copy, "rb") as b:
                            self.assertEqual(a.read(), b.read(), f"{chapter}/{base} must equal {earlier}/{base}")
                    self.assertIn(f'#include "{os.path.basename(copy_unit(earlier)[0])}"', header)
                    total = sum(code_lines_of(path) for path in unit)
                    self.assertLessEqual(total, cap, f"{chapter}'s own files are {total} lines of code (at most {cap})")
                    continue
                self.assertEqual(len(unit), 2, f"{chapter}: no header with a 'Use it in your code' block and "
                                               "its source beside it")
                total = sum(code_lines_of(path) for path in unit)
                names = " + ".join(os.path.basename(p) for p in unit)
                self.assertLessEqual(total, COPY_UNIT_CAP,
                                     f"{chapter}: {names} is {total} lines of code (at most {COPY_UNIT_CAP}): a "
                                     "chapter that needs more changes more than one thing")

    def test_06_variant_parts_are_the_chapters_lines(self):
        with open(os.path.join(REPO, "06_warp_unroll", "variant_parts.cuh"), encoding="utf-8") as f:
            parts = f.read()
        for old, new in VARIANT_RENAMES:
            parts = parts.replace(old, new)
        with open(os.path.join(REPO, "06_warp_unroll", "warp_unroll.cu"), encoding="utf-8") as f:
            chapter = f.read()
        for part, original in VARIANT_PARTS.items():
            with self.subTest(part=part):
                mine, theirs = function_body(parts, part), function_body(chapter, original)
                self.assertIsNotNone(mine, f"variant_parts.cuh defines no {part}")
                self.assertIsNotNone(theirs, f"warp_unroll.cu defines no {original}")
                at = 0  # every line of the part, in its order, among the chapter's
                for line in mine:
                    self.assertIn(line, theirs[at:], f"{part}: this line is not {original}'s (in this order): {line}")
                    at = theirs.index(line, at) + 1

    def test_a_constant_restated_in_main_has_the_copy_units_value(self):
        # main.cu may restate a constant of its copy unit that the harness needs (the chain-length bound),
        # saying so in a comment: "kName (file.cu), restated". The copy unit's value is the one that counts.
        restated = re.compile(r"// (k\w+) \((\w+\.cu)\), restated.*\n\s*constexpr [\w:]+ \1 = (\w+);")
        found = 0
        for chapter in chapters():
            path = os.path.join(REPO, chapter, "main.cu")
            if not os.path.exists(path):
                continue
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for name, unit, value in restated.findall(text):
                found += 1
                with self.subTest(chapter=chapter, constant=name), \
                        open(os.path.join(REPO, chapter, unit), encoding="utf-8") as f:
                    theirs = re.search(rf"constexpr [\w:]+ {name} = (\w+);", f.read())
                    self.assertIsNotNone(theirs, f"{unit} defines no {name}, which {chapter}/main.cu restates")
                    self.assertEqual(value, theirs.group(1), f"{chapter}/main.cu restates {name} as {value}, "
                                     f"but {unit} has {theirs.group(1)}")
        self.assertGreater(found, 0, "no restated constant found: the pattern no longer matches main.cu's comments")

    def test_every_readme_links_its_answers_and_the_next_chapter(self):
        names = chapters()
        for index, chapter in enumerate(names):
            with open(os.path.join(REPO, chapter, "README.md"), encoding="utf-8") as f:
                text = f.read()
            with self.subTest(chapter=chapter):
                if index + 1 < len(names):
                    self.assertIn(f"../{names[index + 1]}/README.md", text, f"{chapter} does not link the next "
                                                                            "chapter")
                if os.path.exists(os.path.join(REPO, "docs", "answers", chapter + ".md")):
                    self.assertIn(f"docs/answers/{chapter}.md", text, f"{chapter} does not link its answers")

    def test_every_link_leads_to_a_file_and_a_heading(self):
        pages = [os.path.join(folder, name) for folder, subfolders, names in os.walk(REPO) for name in names
                 if name.endswith(".md") and not re.search(r"(^|/)(\.[^/]|build)", os.path.relpath(folder, REPO))]
        for page in pages:
            with open(page, encoding="utf-8") as f:
                text = re.sub(r"(?ms)^ {0,3}(`{3,}|~{3,}).*?^ {0,3}\1", "", f.read())  # links in code are text
            for target in re.findall(r"\]\(([^)\s]+)\)", text):
                path, _, anchor = target.partition("#")
                destination = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
                with self.subTest(page=os.path.relpath(page, REPO), link=target):
                    if re.match(r"[a-z]+:", target):
                        continue  # https:, mailto:
                    self.assertTrue(os.path.exists(destination), "no such file")
                    if anchor and destination.endswith(".md"):
                        self.assertIn(anchor, headings(destination), "no such heading")


def headings(page):
    """The anchors GitHub gives the headings of a page: lower case, punctuation dropped, spaces as hyphens,
    -1, -2 ... after a repeated one; headings inside code fences are not headings."""
    with open(page, encoding="utf-8") as f:
        text = re.sub(r"(?ms)^ {0,3}(`{3,}|~{3,}).*?^ {0,3}\1", "", f.read())
    found, seen = set(), {}
    for title in re.findall(r"^#{1,6} +(.*?) *#*$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", title.replace("`", "").replace("**", "").lower()).replace(" ", "-")
        found.add(slug + (f"-{seen[slug]}" if seen.get(slug) else ""))
        seen[slug] = seen.get(slug, 0) + 1
    return found


if __name__ == "__main__":
    unittest.main()
