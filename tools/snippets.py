#!/usr/bin/env python3
"""Keep the code excerpts in the Markdown files in sync with the compiled source.

    python3 tools/snippets.py --write   rewrite every block from the source
    python3 tools/snippets.py --check   exit 1 listing every block that differs from the source,
                                        every missing file or snippet, every malformed block

A source file marks a region with the lines `// [snippet:NAME]` and `// [/snippet:NAME]` (or `#`
comments). Every *.md file under the root (build and hidden folders skipped) shows it, dedented,
in a block like the one below; a block may start out empty (the start marker directly followed
by the end marker) and --write fills it in. Paths are relative to the repository root.

    <!-- snippet: 04_shared_tree/shared_tree.cu#block_sums -->
    ```cuda
    ...the region...
    ```
    <!-- /snippet -->

`<!-- snippet: diff A#NAME B#NAME -->` shows the unified diff of two regions instead (a chapter's
"What changed"); whole-file diffs and diffs over MAX_DIFF_LINES lines are refused. Markers inside
an ordinary code fence (```` or ~~~) are text, so a page can show the syntax.
"""

import argparse
import collections
import difflib
import os
import re
import sys

SOURCE_MARKER = re.compile(r"^\s*(?://|#)\s*\[(/?)snippet:([A-Za-z0-9_.\-]+)\]\s*$")
MD_START = re.compile(r"^\s*<!--\s*snippet:\s*(\S+?|diff \S+ \S+)\s*-->\s*$")
MD_END = re.compile(r"^\s*<!--\s*/snippet\s*-->\s*$")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")  # CommonMark: up to 3 spaces, 3+ backticks or tildes, info
SKIP_DIRS = {"build", "node_modules", "__pycache__"}
MAX_DIFF_LINES = 60  # a diff's lines, its two file-name lines included
LANGUAGES = {".cu": "cuda", ".cuh": "cuda", ".cpp": "cpp", ".cc": "cpp", ".h": "cpp", ".hpp": "cpp",
             ".py": "python", ".cmake": "cmake", ".sh": "bash", ".json": "json"}
# A Markdown block: its start and end marker lines (0-based), reference, the language its fence
# names and the lines between the fences (None while the block is empty).
Block = collections.namedtuple("Block", "start end reference language body")


class SnippetError(Exception):
    """A source file that is missing, unreadable, or whose markers are unclosed, duplicated or nested."""


def dedent(lines):
    """Removes the leading whitespace common to all non-blank lines (the same characters, not
    only the same length); blank lines become empty."""
    leads = [line[:len(line) - len(line.lstrip(" \t"))] for line in lines if line.strip()]
    prefix = os.path.commonprefix(leads) if leads else ""
    return [line[len(prefix):] if line.strip() else "" for line in lines]


def parse_source(root, path):
    """Returns {name: [excerpt lines]} for one source file; raises SnippetError."""
    full = os.path.join(root, path)
    if os.path.isabs(path) or not os.path.isfile(full):
        raise SnippetError(f"source file '{path}' not found (paths are relative to the repository root)")
    try:
        with open(full, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise SnippetError(f"cannot read '{path}': {e}")
    snippets, open_name, open_line, body = {}, None, 0, []
    for number, line in enumerate(lines, start=1):
        match = SOURCE_MARKER.match(line)
        if not match:
            body.append(line.rstrip())
            continue
        name, where = match.group(2), f"{full}:{number}"
        if not match.group(1):  # a start marker
            if open_name is not None:
                raise SnippetError(f"{where}: snippet '{name}' starts inside snippet '{open_name}' "
                                   f"(line {open_line}); nesting is not supported")
            if name in snippets:
                raise SnippetError(f"{where}: snippet '{name}' is defined twice")
            open_name, open_line, body = name, number, []
        elif open_name != name:
            what = f"snippet '{open_name}' (line {open_line}) is open" if open_name else "no snippet is open"
            raise SnippetError(f"{where}: end marker for '{name}' but {what}")
        else:
            snippets[name], open_name = dedent(body), None
    if open_name is not None:
        raise SnippetError(f"{full}:{open_line}: snippet '{open_name}' is never closed "
                           f"(add a line `// [/snippet:{open_name}]`)")
    return snippets


def lookup(reference, root):
    """Returns (excerpt lines, None) or (None, why it cannot be found)."""
    if reference.startswith("diff "):
        names, sides = reference.split()[1:], []
        for side in names:
            if "#" not in side:
                return None, (f"diff side '{side}' is a whole file: name the function that changed "
                              "(PATH#NAME), a lesson never shows a whole-file diff")
            excerpt, why = lookup(side, root)
            if why:
                return None, why
            sides.append(excerpt)
        diff = list(difflib.unified_diff(*sides, *names, lineterm="", n=2))
        if len(diff) > MAX_DIFF_LINES:
            return None, (f"the diff {reference} is {len(diff)} lines (at most {MAX_DIFF_LINES}): show the "
                          "functions that changed one at a time, or split the change")
        return diff, None
    if "#" not in reference:
        return None, f"reference '{reference}' has no '#NAME' (expected PATH#NAME)"
    path, name = reference.rsplit("#", 1)
    try:
        parsed = parse_source(root, path)
    except SnippetError as e:
        return None, str(e)
    if name not in parsed:
        return None, f"no snippet '{name}' in '{path}' (snippets there: {', '.join(sorted(parsed)) or 'none'})"
    return parsed[name], None


def closes(line, opener):
    """Whether line is a fence that closes the code block opened with the fence opener."""
    match = FENCE.match(line)
    return bool(match and match.group(1)[0] == opener[0] and len(match.group(1)) >= len(opener)
                and not match.group(2).strip())


def parse_markdown(lines):
    """Yields a Block for each snippet block, and (0-based line, why) for each malformed one."""
    lines, i = lines + [""], 0  # a blank line at the end spares the bounds checks
    while i < len(lines):
        start, fence = MD_START.match(lines[i]), FENCE.match(lines[i])
        if start:
            i, found = parse_block(lines, i, start.group(1))
            yield found
            continue
        if MD_END.match(lines[i]):
            yield i, "'<!-- /snippet -->' without a '<!-- snippet: PATH#NAME -->' before it"
        elif fence and not (fence.group(1)[0] == "`" and "`" in fence.group(2)):
            # an ordinary code block: the markers inside it are text
            i = next((k for k in range(i + 1, len(lines)) if closes(lines[k], fence.group(1))), len(lines))
        i += 1


def parse_block(lines, i, reference):
    """Parses the block whose start marker is line i. Returns (next i, Block or (i, why it is malformed))."""
    if MD_END.match(lines[i + 1]):  # an empty block: --write fills it, in the language of the file's extension
        path = reference.rsplit("#", 1)[0]
        language = "diff" if reference.startswith("diff ") else LANGUAGES.get(os.path.splitext(path)[1], "")
        return i + 2, Block(i, i + 1, reference, language, None)
    fence = FENCE.match(lines[i + 1])
    if not fence:
        return i + 1, (i, f"snippet block '{reference}': the line after the start marker must open a code "
                          "fence (```cuda) or be '<!-- /snippet -->'")
    k = next((k for k in range(i + 2, len(lines)) if closes(lines[k], fence.group(1))
              or MD_START.match(lines[k]) or MD_END.match(lines[k])), len(lines))
    if k == len(lines) or not closes(lines[k], fence.group(1)):
        return k, (i, f"snippet block '{reference}': its code fence is not closed before "
                      "the next snippet marker or the end of the file")
    if not MD_END.match(lines[k + 1]):
        return k + 1, (i, f"snippet block '{reference}': the code fence must be followed directly by "
                          "'<!-- /snippet -->'")
    return k + 2, Block(i, k + 1, reference, fence.group(2).strip(), lines[i + 2:k])


def find_markdown(root):
    """Returns the paths of every *.md file under root, build and hidden folders skipped."""
    found = []
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if d not in SKIP_DIRS and not d.startswith("."))
        found.extend(os.path.join(directory, f) for f in sorted(files) if f.endswith(".md"))
    return found


def plural(count, word):
    return f"{count} {word}{'' if count == 1 else 's'}"


def process(path, root, write):
    """Checks (or rewrites) one Markdown file. Returns (problem messages, number of blocks)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lines, shown = text.splitlines(), os.path.relpath(path, root)
    problems, blocks, updates = [], 0, []
    for block in parse_markdown(lines):
        if not isinstance(block, Block):
            problems.append(f"{shown}:{block[0] + 1}: malformed: {block[1]}")
            continue
        blocks += 1
        excerpt, why = lookup(block.reference, root)
        if why:
            problems.append(f"{shown}:{block.start + 1}: {why}")
        elif block.body == excerpt:
            continue
        elif write:
            fence = "`" * max([3] + [len(run) + 1 for line in excerpt for run in re.findall("`+", line)])
            updates.insert(0, (block, [fence + block.language] + excerpt + [fence]))  # the last block first
        else:
            diff = list(difflib.unified_diff(block.body or [], excerpt, "in " + shown,
                                             "in " + block.reference.rsplit("#", 1)[0], lineterm="", n=1))
            more = f"\n    ... ({len(diff) - 40} more diff lines)" if len(diff) > 40 else ""
            state = "is empty" if block.body is None else "differs from the source"
            problems.append(f"{shown}:{block.start + 1}: snippet {block.reference} {state}\n"
                            + "\n".join("    " + d for d in diff[:40]) + more)
    for block, new in updates:  # from the bottom up, so that the line numbers above stay valid
        lines[block.start + 1:block.end] = new
    if updates:
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + ("\n" if text.endswith("\n") else ""))
        print(f"updated {shown} ({plural(len(updates), 'block')})")
    return problems, blocks


def main(argv=None):
    parser = argparse.ArgumentParser(description="Sync the code excerpts in Markdown files with the source.")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true",
                      help="report drift, missing snippets, malformed blocks; exit 1 if any")
    mode.add_argument("--write", action="store_true", help="rewrite every block from the source")
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        help="repository root (default: this script's repository)")
    args = parser.parse_args(argv)
    root = os.path.abspath(args.root)
    files = find_markdown(root)
    problems, blocks = [], 0
    for path in files:
        found, count = process(path, root, args.write)
        problems, blocks = problems + found, blocks + count
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        hint = "" if args.write else "; run `python3 tools/snippets.py --write` to update excerpts from the source"
        print(f"snippets: {plural(len(problems), 'problem')} in {plural(len(files), 'Markdown file')}{hint}",
              file=sys.stderr)
        return 1
    verb = "written" if args.write else "match the source"
    print(f"snippets: {plural(blocks, 'block')} in {plural(len(files), 'Markdown file')} {verb}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
