#!/usr/bin/env bash
# build_time.sh OUT.json : how long a student waits, on this machine, from a fresh clone of
# this repository to a built 04_shared_tree (the README's "Build and run"): clone, configure
# (release preset, one GPU architecture, no tests) and build of that one target, each timed.
# Run it on an idle machine; the README's figure is tools/publish.py's from docs/data/build.
set -euo pipefail
if [ $# -ne 1 ]; then
  echo "usage: tools/build_time.sh OUT.json (the file to write; its folder must exist)" >&2
  exit 2
fi
if [ ! -d "$(dirname "$1")" ]; then
  echo "build_time.sh: no folder $(dirname "$1") for $1" >&2
  exit 2
fi
out=$(realpath -m "$1")
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }
t0=$(now)
git clone -q "$repo" "$work/cuda-reduction"
t1=$(now)
cd "$work/cuda-reduction"
cmake --preset release -DCMAKE_CUDA_ARCHITECTURES=90 -DBUILD_TESTING=OFF >/dev/null
t2=$(now)
cmake --build --preset release --target 04_shared_tree >/dev/null
t3=$(now)
test -x build/release/bin/04_shared_tree
python3 - "$out" "$t0" "$t1" "$t2" "$t3" <<'PY'
import json, os, subprocess, sys, time
out, t0, t1, t2, t3 = sys.argv[1], *map(float, sys.argv[2:])
cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "")
nvcc = next(line.split("release", 1)[1].split(",")[0].strip() for line in
            subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout.splitlines() if "release" in line)
json.dump({"what": "fresh clone to a built 04_shared_tree", "cpu": cpu, "cores": os.cpu_count(), "nvcc": nvcc,
           "date": time.strftime("%Y-%m-%d", time.gmtime()), "architectures": "90",
           "clone_s": round(t1 - t0, 1), "configure_s": round(t2 - t1, 1), "build_s": round(t3 - t2, 1),
           "total_s": round(t3 - t0, 1)}, open(out, "w"))
open(out, "a").write("\n")
PY
cat "$out"
