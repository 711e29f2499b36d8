#!/usr/bin/env python3
"""Merges the per-chapter answer files into one page.

    python3 tools/merge_answers.py            write docs/answers.md
    python3 tools/merge_answers.py --check    exit 1 if docs/answers.md is out of date

concatenates docs/answers/*.md in name order (00_..., 01_..., ...) under a title and a
table of contents. Each file becomes one section: its headings are shifted so that its
top heading is a level-2 heading (a file without a heading at its top gets one named
after the file; a leading "Answers:" in that heading is dropped), relative links are rewritten to work from docs/, and a link to the
chapter's README follows the section heading when that chapter folder exists.

Python 3 standard library only.
"""

import argparse
import os
import re
import sys

HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
LINK = re.compile(r"(\]\()([^)\s]+)((?:\s+\"[^\"]*\")?\))")
TITLE = "Answers to the exercises"


def outside_fences(lines):
    """Yields (index, line, inside_fence) for each line."""
    opener = None
    for i, line in enumerate(lines):
        match = FENCE.match(line)
        if opener is None and match:
            opener = match.group(1)
            yield i, line, True
            continue
        if opener is not None:
            if match and match.group(1)[0] == opener[0] and len(match.group(1)) >= len(opener) \
                    and not line[match.end():].strip():
                opener = None
            yield i, line, True
            continue
        yield i, line, False


def slug(text, seen):
    """The anchor GitHub gives a heading (lower case, punctuation dropped, spaces to hyphens)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link's text only
    text = re.sub(r"<[^>]+>", "", text)
    base = re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")
    anchor = base if base not in seen else f"{base}-{seen[base]}"
    seen[base] = seen.get(base, 0) + 1
    return anchor


def rebase_link(target, source_dir, out_dir):
    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.\-]*:", target) or target.startswith(("#", "/")):
        return target  # a URL, an anchor in the page, or a site-absolute path
    path, hash_, anchor = target.partition("#")
    if not path:
        return target
    new = os.path.relpath(os.path.normpath(os.path.join(source_dir, path)), out_dir).replace(os.sep, "/")
    return new + hash_ + anchor


def section(path, out_dir, root):
    """One answer file as a section: (heading text, lines)."""
    stem = os.path.splitext(os.path.basename(path))[0]
    with open(path, encoding="utf-8") as f:
        lines = f.read().strip("\n").splitlines()
    levels = [len(HEADING.match(line).group(1)) for _, line, fenced in outside_fences(lines)
              if not fenced and HEADING.match(line)]
    first = next((line for line in lines if line.strip()), "")
    if first and HEADING.match(first) and not FENCE.match(first):
        shift = 2 - min(levels)
        prefix = []
    else:
        shift = 3 - min(levels) if levels else 0
        prefix = [f"## {stem}", ""]
    source_dir = os.path.dirname(os.path.abspath(path))
    body = []
    for _, line, fenced in outside_fences(lines):
        if not fenced:
            match = HEADING.match(line)
            if match:
                level = max(1, min(6, len(match.group(1)) + shift))
                line = "#" * level + " " + match.group(2)
            parts = re.split(r"(`+[^`]*`+)", line)  # leave inline code alone
            line = "".join(part if part.startswith("`") else
                           LINK.sub(lambda m: m.group(1) + rebase_link(m.group(2), source_dir, out_dir) + m.group(3),
                                    part) for part in parts)
        body.append(line)
    lines = prefix + body
    heading_index = next(i for i, line in enumerate(lines) if HEADING.match(line))
    match = HEADING.match(lines[heading_index])
    # "Answers: 01 · ..." on a page titled "Answers to the exercises": drop the repeated word.
    heading = re.sub(r"^answers?\b(?:\s+to\s+[^:—–]*)?\s*[:—–-]\s*", "", match.group(2), flags=re.I) or match.group(2)
    lines[heading_index] = match.group(1) + " " + heading
    readme = os.path.join(root, stem, "README.md")
    if os.path.exists(readme):
        link = os.path.relpath(readme, out_dir).replace(os.sep, "/")
        lines[heading_index + 1:heading_index + 1] = ["", f"The exercises: [{stem}/README.md]({link})."]
    return heading, lines


def merge(answers_dir, out_path, root):
    files = sorted(f for f in os.listdir(answers_dir) if f.endswith(".md"))
    out_dir = os.path.dirname(os.path.abspath(out_path))
    sections = [section(os.path.join(answers_dir, f), out_dir, root) for f in files]
    rel_answers = os.path.relpath(os.path.abspath(answers_dir), root).replace(os.sep, "/")
    seen = {}
    slug(TITLE, seen)
    # Anchors in document order: every heading counts towards GitHub's -1, -2 suffixes.
    anchors = []
    for _, lines in sections:
        first = True
        for _, line, fenced in outside_fences(lines):
            match = None if fenced else HEADING.match(line)
            if match:
                anchor = slug(match.group(2), seen)
                if first:
                    anchors.append(anchor)
                    first = False
    out = [f"# {TITLE}", "",
           f"<!-- Generated by tools/merge_answers.py from {rel_answers}/*.md: edit those files, "
           "then run the script again. -->", "",
           "Short answers to the exercises at the end of each chapter's README. Try the exercise first.", ""]
    for (heading, _), anchor in zip(sections, anchors):
        out.append(f"- [{re.sub(r'[][]', '', heading)}](#{anchor})")
    for _, lines in sections:
        out += [""] + lines
    return "\n".join(out) + "\n"


def main(argv=None):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description="Merge docs/answers/*.md into docs/answers.md.")
    parser.add_argument("--answers", default=os.path.join(root, "docs", "answers"), help="folder of answer files")
    parser.add_argument("--out", default=os.path.join(root, "docs", "answers.md"), help="the merged page")
    parser.add_argument("--root", default=root, help="repository root (for links to chapter READMEs)")
    parser.add_argument("--check", action="store_true", help="exit 1 if the merged page is out of date")
    args = parser.parse_args(argv)
    if not os.path.isdir(args.answers):
        print(f"merge_answers.py: no folder '{args.answers}'", file=sys.stderr)
        return 2
    text = merge(args.answers, args.out, os.path.abspath(args.root))
    if args.check:
        try:
            with open(args.out, encoding="utf-8") as f:
                current = f.read()
        except OSError:
            current = None
        if current != text:
            print(f"merge_answers.py: {args.out} is out of date; run python3 tools/merge_answers.py",
                  file=sys.stderr)
            return 1
        print(f"{args.out} is up to date")
        return 0
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
