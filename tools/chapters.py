#!/usr/bin/env python3
"""chapters.py: chapters.txt, the only list of chapters, for the publishing tools.

    python3 tools/chapters.py [KIND|FLAG...]   the folders of those kinds or flags, one per line
                                               (all of them without an argument; for shell scripts)
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def manifest(root=ROOT):
    """[(folder, kind, flags)] in reading order, from root/chapters.txt."""
    rows = []
    with open(os.path.join(root, "chapters.txt"), encoding="utf-8") as f:
        for line in f:
            fields = line.split("#", 1)[0].split()
            if fields:
                rows.append((fields[0], fields[1], set(fields[2:])))
    return rows


def folders(*kinds_or_flags, root=ROOT):
    """The folders whose kind or one of whose flags is among kinds_or_flags (every folder when none)."""
    wanted = set(kinds_or_flags)
    return [folder for folder, kind, flags in manifest(root)
            if not wanted or kind in wanted or flags & wanted]


if __name__ == "__main__":
    print("\n".join(folders(*sys.argv[1:])))
