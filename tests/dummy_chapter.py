#!/usr/bin/env python3
"""CTest `cmake.dummy_chapter`: a chapter is its folder and one line of chapters.txt.

    dummy_chapter.py --cmake CMAKE --ninja NINJA --work DIR [-- CMAKE_ARGS...]

Copies the repository's build files into DIR (not the docs, not build output), adds a folder
19_dummy (a CMakeLists.txt of one line and empty sources) and one line `19_dummy array` to
chapters.txt, configures the copy, and checks that the chapter reaches everything that reads
the manifest: CMake (a target 19_dummy), the tour (X(dummy) in its chapter list), the tests
(its sanitizer and copy tests), the publishing tools (chapters.py, publish.py's blocks) and
the GPU scripts (gpu_suite.sh's chapter list). Then it removes DIR. Exit 0 when every check
passed, 1 otherwise (each failure said on one line), 2 when the copy does not configure.
"""
import argparse
import os
import shutil
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COPIED = ["CMakeLists.txt", "CMakePresets.json", "chapters.txt", "cmake", "common", "docs/demos", "tests", "tools",
          "tour"]
DUMMY = "19_dummy"


def copy_repo(work):
    if os.path.exists(work):
        shutil.rmtree(work)
    os.makedirs(work)
    skip = shutil.ignore_patterns("build*", "tmp", "__pycache__")
    for name in COPIED + sorted(d for d in os.listdir(REPO) if d[:2].isdigit() and d[2] == "_"):
        source, target = os.path.join(REPO, name), os.path.join(work, name)
        if os.path.isdir(source):
            shutil.copytree(source, target, ignore=skip)  # makes docs/ for docs/demos
        else:
            shutil.copy2(source, target)


def add_dummy(work):
    folder = os.path.join(work, DUMMY)
    os.makedirs(folder)
    files = {"CMakeLists.txt": "add_reduction_chapter(dummy)\n", "dummy.cuh": "#pragma once\n",
             "dummy.cu": '#include "dummy.cuh"\n', "main.cu": "// the chapter's description\n"}
    for name, text in files.items():
        with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
            f.write(text)
    with open(os.path.join(work, "chapters.txt"), "a", encoding="utf-8") as f:
        f.write(f"{DUMMY}           array         ncu\n")


def run(command, cwd):
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True)


def checks(work, build, cmake, ninja_program):
    """(what, passed) for each place that reads chapters.txt."""
    targets = run([ninja_program, "-C", build, "-t", "targets", "all"], work).stdout
    with open(os.path.join(build, "build.ninja"), encoding="utf-8") as f:
        ninja = f.read()
    ctest = shutil.which("ctest", path=os.path.dirname(cmake)) or "ctest"
    tests = run([ctest, "-N"], build).stdout
    listed = run([sys.executable, os.path.join("tools", "chapters.py"), "array"], work).stdout.split()
    blocks = run([sys.executable, "-c", "import sys; sys.path.insert(0, 'tools'); import publish; "
                  "print('\\n'.join(page for page, *_ in publish.BLOCKS))"], work).stdout.split()
    suite = run(["bash", "-c", "BIN=bin; eval \"$(sed -n '/^chapters() {/,/^}/p' tools/gpu_suite.sh)\"; "
                 "chapters ncu"], work).stdout.split()
    return [("CMake: a target 19_dummy", any(line.startswith(f"{DUMMY}:") for line in targets.splitlines())),
            ("the tour: X(dummy) in its chapter list", "X(dummy)" in ninja),
            ("the tests: its sanitizer tests", f"sanitize.{DUMMY}." in tests),
            ("the tests: its copy test", f"copy.{DUMMY}" in tests),
            ("tools/chapters.py array", DUMMY in listed),
            ("tools/publish.py: a results block in its README", f"{DUMMY}/README.md" in blocks),
            ("tools/gpu_suite.sh: its program among the ncu chapters", f"bin/{DUMMY}" in suite)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cmake", required=True)
    parser.add_argument("--ninja", default="ninja")
    parser.add_argument("--work", required=True)
    parser.add_argument("cmake_args", nargs="*", help="after --: passed to the copy's configure")
    args = parser.parse_args()
    work = os.path.abspath(args.work)
    copy_repo(work)
    add_dummy(work)
    build = os.path.join(work, "build")
    configure = run([args.cmake, "-S", work, "-B", build, "-G", "Ninja", f"-DCMAKE_MAKE_PROGRAM={args.ninja}"]
                    + args.cmake_args, work)
    if configure.returncode != 0:
        print(configure.stdout[-3000:] + configure.stderr[-3000:])
        print(f"dummy_chapter: the copy with {DUMMY} does not configure")
        return 2
    failed = [what for what, passed in checks(work, build, args.cmake, args.ninja) if not passed]
    for what in failed:
        print(f"dummy_chapter: {DUMMY} does not reach {what}")
    if not failed:
        print(f"dummy_chapter: {DUMMY}, one folder and one line of chapters.txt, reaches CMake, the tour, the "
              "tests, the publishing tools and gpu_suite.sh")
        shutil.rmtree(work)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
