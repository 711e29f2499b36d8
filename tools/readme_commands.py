#!/usr/bin/env python3
"""readme_commands.py [--skip REGEX]... [--only REGEX]... [--timeout S]: runs every command the docs show.

Collects the lines of every ```sh / ```bash block in README.md, the chapters' READMEs and
docs/*.md (a line ending in a backslash continues on the next; # comments are dropped),
runs each one as written with bash from the repository root, in order, and prints one
line per command: its exit code, the seconds it took, the file and the command. A command
that matches a --skip pattern is listed as skipped with the pattern, not run. Exit code 0
when every command that ran exited 0, else 1. Python 3 standard library.

  python3 tools/readme_commands.py --skip 'mpirun' --skip '--gpus 2'
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def documents():
    return (["README.md"] + sorted(glob.glob("[0-9][0-9]_*/README.md")) + sorted(glob.glob("docs/*.md")))


def commands(path):
    """The commands of one Markdown file, continuation lines joined."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        text = f.read()
    found = []
    for block in re.finditer(r"```(?:sh|bash)\n(.*?)```", text, re.S):
        pending = ""
        for line in block.group(1).splitlines():
            line = line.rstrip()
            if pending:
                line = pending + line  # as bash joins them: backslash and newline removed, nothing else
                pending = ""
            if line.endswith("\\"):
                pending = line[:-1]
                continue
            stripped = line.strip()
            if stripped and not stripped.startswith("#"):
                found.append(stripped)
    return found


def main():
    parser = argparse.ArgumentParser(description="Run every command shown in the docs, as written.")
    parser.add_argument("--skip", action="append", default=[], help="regular expression: commands to list, not run")
    parser.add_argument("--only", action="append", default=[],
                        help="regular expression: run only the commands that match one (the rest are not listed)")
    parser.add_argument("--timeout", type=float, default=300, help="seconds per command (default 300)")
    parser.add_argument("--log", help="append every command's output to this file (default: discarded)")
    args = parser.parse_args()
    failed = 0
    for path in documents():
        for command in commands(path):
            if args.only and not any(re.search(p, command) for p in args.only):
                continue
            skip = next((p for p in args.skip if re.search(p, command)), None)
            if skip:
                print(f"skipped ({skip})  {path}: {command}", flush=True)
                continue
            start = time.time()
            log = open(args.log, "a", encoding="utf-8") if args.log else None
            if log:
                log.write(f"\n$ {command}\n")
                log.flush()
            try:
                rc = subprocess.run(["bash", "-c", command], cwd=ROOT, stdout=log or subprocess.DEVNULL,
                                    stderr=subprocess.STDOUT if log else subprocess.DEVNULL,
                                    timeout=args.timeout).returncode
            except subprocess.TimeoutExpired:
                rc = "timeout"
            if log:
                log.write(f"[exit {rc}]\n")
                log.close()
            failed += rc != 0
            print(f"exit {rc}  {time.time() - start:.0f} s  {path}: {command}", flush=True)
    print(f"{failed} command(s) exited non-zero")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
