#!/usr/bin/env bash
# sanitize.sh SANITIZER TOOL PROGRAM ARGS...: runs PROGRAM under compute-sanitizer's
# TOOL and fails on any reported error. Exit 77 (ctest: skipped) with the reason when
# there is no GPU or no compute-sanitizer.
set -u
sanitizer=$1 tool=$2
shift 2
if ! command -v "$sanitizer" >/dev/null 2>&1; then
  echo "SKIPPED: compute-sanitizer not found ($sanitizer)"; exit 77
fi
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIPPED: no CUDA device (nvidia-smi -L failed)"; exit 77
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$sanitizer" --tool "$tool" --error-exitcode 99 "$@" >"$log" 2>&1
status=$?
cat "$log"
if [ $status -ne 0 ]; then
  echo "FAILED: $tool exit status $status"; exit 1
fi
# memcheck, synccheck and initcheck end with "ERROR SUMMARY: 0 errors"; racecheck with
# "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)". Anything else fails.
if ! grep -qE "ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards displayed \(0 errors, 0 warnings\)" "$log"; then
  echo "FAILED: no clean summary line from $tool"; exit 1
fi
exit 0
