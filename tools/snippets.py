#!/usr/bin/env python3
"""Keep the code excerpts in the Markdown files in sync with the compiled source.

In a source file, a region is marked by two lines (the marker lines themselves are
not part of the excerpt):

    // [snippet:block_sums]
    ...code...
    // [/snippet:block_sums]

In a Markdown file, an excerpt of it is a block of four parts, each on its own line:

    <!-- snippet: 04_shared_tree/shared_tree.cu#block_sums -->
    ```cuda
    ...the region, dedented by its common leading whitespace...
    ```
    <!-- /snippet -->

The path is relative to the repository root. A block may start out empty (the
start marker directly followed by the end marker): --write fills it in.

A block can also show what changed between two sources, as a unified diff (the
"What changed" section of each chapter README):

    <!-- snippet: diff 03_interleaved/interleaved.cu 04_shared_tree/shared_tree.cu -->
    ```diff
    ...the lines that differ, with two lines of context...
    ```
    <!-- /snippet -->

Each side is PATH#NAME, one region: a lesson shows the diff of the functions that
changed, never of a whole file. A diff longer than MAX_DIFF_LINES (60) lines is refused:
a change that long is more than one change (split the chapter, or show its parts).

    python3 tools/snippets.py --write   rewrite every block from the source
    python3 tools/snippets.py --check   exit 1 listing every block that differs
                                             from the source, every reference to a
                                             missing file or snippet, every malformed
                                             block; exit 0 when all match

Every *.md file under the root is scanned (folders named build and hidden folders
such as .git are skipped), or only the files named on the command line. Snippet
markers inside an ordinary fenced code block are ignored, so a page can show the
syntax by wrapping an example in a ~~~ or ```` fence.

Python 3 standard library only.
"""

import argparse
import difflib
import os
import re
import sys

# A source marker line: `// [snippet:NAME]` or `// [/snippet:NAME]` (`#` comments too,
# for CMake and Python files).
SOURCE_MARKER = re.compile(r"^\s*(?://|#)\s*\[(/?)snippet:([A-Za-z0-9_.\-]+)\]\s*$")
# The Markdown block markers.
MD_START = re.compile(r"^\s*<!--\s*snippet:\s*(\S+?|diff \S+ \S+)\s*-->\s*$")
MD_END = re.compile(r"^\s*<!--\s*/snippet\s*-->\s*$")
# A fence line (CommonMark: up to three spaces of indentation, 3+ backticks or tildes).
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")

SKIP_DIRS = {"build", "node_modules", "__pycache__"}
# The longest diff a block may show (its lines, the two file-name lines included).
MAX_DIFF_LINES = 60

LANGUAGE_BY_EXTENSION = {
    ".cu": "cuda", ".cuh": "cuda", ".cpp": "cpp", ".cc": "cpp", ".h": "cpp", ".hpp": "cpp",
    ".py": "python", ".cmake": "cmake", ".sh": "bash", ".json": "json",
}


class SnippetError(Exception):
    """A problem in a source file's markers (unclosed, duplicated, nested)."""


def dedent(lines):
    """Removes the leading whitespace common to all non-blank lines (the same characters, not
    only the same length); blank lines become empty."""
    leads = [line[:len(line) - len(line.lstrip(" \t"))] for line in lines if line.strip()]
    prefix = os.path.commonprefix(leads) if leads else ""
    return [line[len(prefix):] if line.strip() else "" for line in lines]


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return f.read().splitlines()


def parse_source(path):
    """Returns {name: [excerpt lines]} for one source file; raises SnippetError on bad markers."""
    snippets = {}
    open_name, open_line, body = None, 0, []
    for number, line in enumerate(read_lines(path), start=1):
        match = SOURCE_MARKER.match(line)
        if not match:
            if open_name is not None:
                body.append(line.rstrip())
            continue
        closing, name = match.group(1) == "/", match.group(2)
        if not closing:
            if open_name is not None:
                raise SnippetError(f"{path}:{number}: snippet '{name}' starts inside snippet "
                                   f"'{open_name}' (line {open_line}); nesting is not supported")
            if name in snippets:
                raise SnippetError(f"{path}:{number}: snippet '{name}' is defined twice")
            open_name, open_line, body = name, number, []
        else:
            if open_name != name:
                what = f"snippet '{open_name}' (line {open_line}) is open" if open_name else "no snippet is open"
                raise SnippetError(f"{path}:{number}: end marker for '{name}' but {what}")
            snippets[name] = dedent(body)
            open_name = None
    if open_name is not None:
        raise SnippetError(f"{path}:{open_line}: snippet '{open_name}' is never closed "
                           f"(add a line `// [/snippet:{open_name}]`)")
    return snippets


class SourceCache:
    """Parses each referenced source file once."""

    def __init__(self, root):
        self.root = root
        self.files = {}

    def diff(self, reference):
        """The unified diff between the two regions of a 'diff A#NAME B#NAME' reference."""
        sides = []
        for side in reference.split()[1:]:
            if "#" not in side:
                return None, (f"diff side '{side}' is a whole file: name the function that changed "
                              "(PATH#NAME), a lesson never shows a whole-file diff")
            lines, why = self.lookup(side)
            if why:
                return None, why
            sides.append((side, lines))
        (name_a, a), (name_b, b) = sides
        diff = list(difflib.unified_diff(a, b, name_a, name_b, lineterm="", n=2))
        if len(diff) > MAX_DIFF_LINES:
            return None, (f"the diff {reference} is {len(diff)} lines (at most {MAX_DIFF_LINES}): show the "
                          "functions that changed one at a time, or split the change")
        return diff, None

    def lookup(self, reference):
        """Returns (excerpt lines, None) or (None, why it cannot be found)."""
        if reference.startswith("diff "):
            return self.diff(reference)
        if "#" not in reference:
            return None, f"reference '{reference}' has no '#NAME' (expected PATH#NAME)"
        path, name = reference.rsplit("#", 1)
        if path not in self.files:
            full = os.path.join(self.root, path)
            if os.path.isabs(path) or not os.path.isfile(full):
                self.files[path] = f"source file '{path}' not found (paths are relative to the repository root)"
            else:
                try:
                    self.files[path] = parse_source(full)
                except SnippetError as e:
                    self.files[path] = str(e)
                except (OSError, UnicodeDecodeError) as e:
                    self.files[path] = f"cannot read '{path}': {e}"
        parsed = self.files[path]
        if isinstance(parsed, str):
            return None, parsed
        if name not in parsed:
            known = ", ".join(sorted(parsed)) or "none"
            return None, f"no snippet '{name}' in '{path}' (snippets there: {known})"
        return parsed[name], None


class Block:
    """One snippet block found in a Markdown file (line indices are 0-based)."""

    def __init__(self, start, end, reference, fence_open, body, language):
        self.start, self.end = start, end  # the start and end marker lines
        self.reference = reference
        self.fence_open = fence_open  # the opening fence line, or None for an empty block
        self.body = body  # the lines between the fences
        self.language = language


def parse_markdown(lines):
    """Returns (blocks, problems): problems are (0-based line, message) for malformed blocks."""
    blocks, problems = [], []
    i = 0
    while i < len(lines):
        line = lines[i]
        start = MD_START.match(line)
        if start:
            block, why, i = parse_block(lines, i, start.group(1))
            if block:
                blocks.append(block)
            else:
                problems.append(why)
            continue
        if MD_END.match(line):
            problems.append((i, "'<!-- /snippet -->' without a '<!-- snippet: PATH#NAME -->' before it"))
            i += 1
            continue
        fence = FENCE.match(line)
        if fence and not (fence.group(1)[0] == "`" and "`" in fence.group(2)):
            i = skip_fenced(lines, i, fence.group(1))  # an ordinary code block: markers inside are text
            continue
        i += 1
    return blocks, problems


def is_closing_fence(line, opener):
    match = FENCE.match(line)
    return bool(match and match.group(1)[0] == opener[0] and len(match.group(1)) >= len(opener)
                and not match.group(2).strip())


def skip_fenced(lines, i, opener):
    """Returns the index just past the fence that closes the one opened at line i."""
    j = i + 1
    while j < len(lines) and not is_closing_fence(lines[j], opener):
        j += 1
    return j + 1


def parse_block(lines, i, reference):
    """Parses the block whose start marker is line i. Returns (Block or None, problem, next i)."""
    j = i + 1
    if j < len(lines) and MD_END.match(lines[j]):  # empty block: --write fills it
        return Block(i, j, reference, None, [], None), None, j + 1
    fence = FENCE.match(lines[j]) if j < len(lines) else None
    if not fence:
        return None, (i, f"snippet block '{reference}': the line after the start marker must open a code "
                         "fence (```cuda) or be '<!-- /snippet -->'"), i + 1
    opener = fence.group(1)
    k = j + 1
    while k < len(lines) and not is_closing_fence(lines[k], opener):
        if MD_START.match(lines[k]) or MD_END.match(lines[k]):
            break
        k += 1
    if k >= len(lines) or not is_closing_fence(lines[k], opener):
        return None, (i, f"snippet block '{reference}': its code fence is not closed before "
                         "the next snippet marker or the end of the file"), k
    end = k + 1
    if end >= len(lines) or not MD_END.match(lines[end]):
        return None, (i, f"snippet block '{reference}': the code fence must be followed directly by "
                         "'<!-- /snippet -->'"), end
    return Block(i, end, reference, lines[j], lines[j + 1:k], fence.group(2).strip()), None, end + 1


def render(block, excerpt):
    """The lines that go between the start and end markers for this excerpt."""
    language = block.language
    if language is None and block.reference.startswith("diff "):
        language = "diff"
    if language is None:  # a new block: guess from the file's extension
        path = block.reference.rsplit("#", 1)[0]
        language = LANGUAGE_BY_EXTENSION.get(os.path.splitext(path)[1], "")
    longest = max([len(run) for line in excerpt for run in re.findall(r"`+", line)] + [0])
    fence = "`" * max(3, longest + 1)
    if block.fence_open is not None and FENCE.match(block.fence_open).group(1)[0] == "~":
        longest = max([len(run) for line in excerpt for run in re.findall(r"~+", line)] + [0])
        fence = "~" * max(3, longest + 1)
    return [fence + language] + list(excerpt) + [fence]


def find_markdown(root):
    found = []
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if d not in SKIP_DIRS and not d.startswith("."))
        found.extend(os.path.join(directory, f) for f in sorted(files) if f.endswith(".md"))
    return found


def process(path, root, sources, write):
    """Checks (or rewrites) one Markdown file. Returns a list of problem messages."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        return [f"{path}: cannot read: {e}"]
    lines = text.splitlines()
    shown = os.path.relpath(path, root)
    blocks, malformed = parse_markdown(lines)
    problems = [(line, f"{shown}:{line + 1}: malformed: {why}") for line, why in malformed]
    replacements = []
    for block in blocks:
        excerpt, why = sources.lookup(block.reference)
        where = f"{shown}:{block.start + 1}"
        if why:
            problems.append((block.start, f"{where}: {why}"))
            continue
        if block.fence_open is not None and block.body == excerpt:
            continue
        if write:
            replacements.append((block, render(block, excerpt)))
        else:
            diff = list(difflib.unified_diff(block.body, excerpt, "in " + shown, "in " + block.reference.rsplit("#", 1)[0],
                                             lineterm="", n=1))
            shown_diff = "\n".join("    " + d for d in diff[:40])
            more = f"\n    ... ({len(diff) - 40} more diff lines)" if len(diff) > 40 else ""
            state = "is empty" if block.fence_open is None else "differs from the source"
            problems.append((block.start, f"{where}: snippet {block.reference} {state}\n{shown_diff}{more}"))
    if write and replacements:
        for block, new_inner in reversed(replacements):  # from the bottom, so indices stay valid
            lines[block.start + 1:block.end] = new_inner
        new_text = "\n".join(lines) + ("\n" if text.endswith("\n") or not text else "")
        with open(path, "w", encoding="utf-8") as f:
            f.write(new_text)
        print(f"updated {shown} ({len(replacements)} block{'s' if len(replacements) != 1 else ''})")
    return [message for _, message in sorted(problems, key=lambda p: p[0])]


def main(argv=None):
    default_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description="Sync the code excerpts in Markdown files with the source.")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="report drift, missing snippets, malformed blocks; exit 1 if any")
    mode.add_argument("--write", action="store_true", help="rewrite every block from the source")
    parser.add_argument("--root", default=default_root, help="repository root (default: this script's repository)")
    parser.add_argument("files", nargs="*", help="Markdown files (default: every *.md under the root)")
    args = parser.parse_args(argv)

    root = os.path.abspath(args.root)
    files = [os.path.abspath(f) for f in args.files] if args.files else find_markdown(root)
    sources = SourceCache(root)
    problems, blocks_seen = [], 0
    for path in files:
        problems += process(path, root, sources, args.write)
        try:
            with open(path, encoding="utf-8") as f:
                blocks_seen += len(parse_markdown(f.read().splitlines())[0])
        except (OSError, UnicodeDecodeError):
            pass
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        hint = "" if args.write else "; run `python3 tools/snippets.py --write` to update excerpts from the source"
        print(f"snippets: {len(problems)} problem{'s' if len(problems) != 1 else ''} in {len(files)} "
              f"Markdown file{'s' if len(files) != 1 else ''}{hint}", file=sys.stderr)
        return 1
    verb = "written" if args.write else "match the source"
    print(f"snippets: {blocks_seen} block{'s' if blocks_seen != 1 else ''} in {len(files)} Markdown file{'s' if len(files) != 1 else ''} {verb}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
