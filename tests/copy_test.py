#!/usr/bin/env python3
"""The copy test: a chapter's copy unit works alone, as a student would use it.

    copy_test.py --nvcc NVCC --cxx CXX --chapter NN_name --work DIR

copies the chapter's <stem>.cuh and <stem>.cu (and nothing else) into the empty folder
DIR and builds, each from a copy of the two files alone:
  driver            the unit compiled with `nvcc -std=c++17 -c <stem>.cu` (no include path,
                    no flag of the repository) and a driver whose body is the "Use it in
                    your code" block at the top of <stem>.cuh. The driver is a .cpp compiled
                    by the host compiler CXX with only the CUDA include folder (what CMake's
                    CUDA::cudart gives), so the header must read as host C++;
  driver_fast_math  the same unit compiled with `--use_fast_math` too, and the same driver;
  driver_recipe     where the header offers another element type (a line "// Another
                    element type, e.g. TYPE: add `CODE` at the end of FILE." and, where the
                    unit is built on another, "and `CODE2` at the end of FILE2"): each CODE
                    added at the end of its file, and the block run with TYPE in place of
                    float (of the input type, for the rows and segments chapters).
A unit built on another chapter's unit that lies beside it in the folder (11_multi_gpu, on 09's)
is copied and compiled with it, as its "Compile:" line says.
Then

    copy_test.py --run --work DIR

runs each driver built there: it reduces fresh random data at awkward sizes (the rows
chapters: shapes; 19_ragged_segments: segment lengths) and compares each sum with the exact
one (the values are small integers, so every order of additions gives the exact sum).
Without a CUDA device it prints SKIPPED and exits 77 (ctest: skipped).

    copy_test.py --cxx CXX [--nvcc NVCC] --chapter 00_cpu_baseline --work DIR

does the same for the CPU chapter, whose copy unit is cpu_sums.h + cpu_sums.cpp (plain
C++): `CXX -std=c++17 -c cpu_sums.cpp` (and, with --nvcc, `nvcc -std=c++17 -c` too),
its recipe, and drivers that run on the CPU (no device needed, so they run in CI too).

    copy_test.py --nvcc NVCC --cxx CXX --rule FILE#NAME... --units DIR... --work DIR

the rows chapters' whole rule as their READMEs print it (16's whole_rule, a snippet of its
main.cu; 18's whole_rule_split, a block of its README after `<!-- rule: NAME -->`): the code
in one header after the units' headers, with the units alone in one folder, each compiled
alone; a .cpp driver calls the rule with one typed output per operator (no void*) and, on a
GPU, checks its row sums at shapes that reach every unit.

Exit 0 when all of it worked, 1 with the reason otherwise. Python 3 standard library.
"""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

MAX_BLOCK_LINES = 15  # the block a student copies is at most 15 lines

DRIVER = r"""// Written by tests/copy_test.py from the "Use it in your code" block of {header}.
#include <cstdio>
#include <random>
#include <vector>

{includes}

// The block, verbatim: it reads n values of type {type} at `input` (device memory) and
// leaves the sum in `sum` and the first CUDA error in `status`.
static int check({type}* input, std::size_t n, double expected) {{
{body}
  if (status != cudaSuccess) {{
    std::fprintf(stderr, "n = %zu: CUDA error %s (%s)\n", n, cudaGetErrorName(status), cudaGetErrorString(status));
    return 1;
  }}
  if (static_cast<double>(sum) != expected) {{
    std::fprintf(stderr, "n = %zu: the block gave %.1f, the exact sum is %.1f\n", n, static_cast<double>(sum),
                 expected);
    return 1;
  }}
  std::printf("n = %zu: sum %.1f, exact ({type})\n", n, static_cast<double>(sum));
  return 0;
}}

int main() {{
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {{
    std::printf("SKIPPED: no CUDA device: the copy unit compiled and linked, but cannot run here\n");
    return 77;
  }}
  std::mt19937_64 random(std::random_device{{}}());
  int failures = 0;
  for (std::size_t n : {{std::size_t(1000003), std::size_t(4097), std::size_t(33), std::size_t(1), std::size_t(0)}}) {{
    // Integers from -3 to 3: every partial sum stays far below 2^24, so float adds
    // them exactly in any order and the block's result must match to the bit.
    std::vector<{type}> host(n);
    double expected = 0;
    for ({type}& x : host) {{
      x = static_cast<{type}>(static_cast<int>(random() % 7) - 3);
      expected += static_cast<double>(x);
    }}
    {type}* input = nullptr;
    if (cudaMalloc(&input, (n ? n : 1) * sizeof({type})) != cudaSuccess ||
        cudaMemcpy(input, host.data(), n * sizeof({type}), cudaMemcpyHostToDevice) != cudaSuccess) {{
      std::fprintf(stderr, "could not set up the input\n");
      return 1;
    }}
    failures += check(input, n, expected);
    cudaFree(input);
  }}
  return failures ? 1 : 0;
}}
"""


# 00_cpu_baseline's block runs on the CPU: it reads n floats at `input` (host memory)
# and makes one or more float sums (`float NAME = cpu_baseline::...;`), each checked.
CPU_DRIVER = r"""// Written by tests/copy_test.py from the "Use it in your code" block of {header}.
#include <cstdio>
#include <random>
#include <vector>

{includes}

// The block, verbatim: it reads n values of type {type} at `input` (host memory) and makes
// the sums {names}.
static int check(const {type}* input, std::size_t n, double expected) {{
{body}
  const struct {{
    const char* name;
    {type} value;
  }} sums[] = {{{checks}}};
  int failures = 0;
  for (const auto& s : sums) {{
    if (static_cast<double>(s.value) != expected) {{
      std::fprintf(stderr, "n = %zu: %s is %.1f, the exact sum is %.1f\n", n, s.name, static_cast<double>(s.value),
                   expected);
      ++failures;
    }}
  }}
  if (!failures) std::printf("n = %zu: %s exact (%.1f, {type})\n", n, "{names}", expected);
  return failures;
}}

int main() {{
  std::mt19937_64 random(std::random_device{{}}());
  int failures = 0;
  // 65537 and 1000003 are past 2^16, where threaded_sum starts its other threads.
  for (std::size_t n : {{std::size_t(1000003), std::size_t(65537), std::size_t(4097), std::size_t(33),
                        std::size_t(1), std::size_t(0)}}) {{
    // Integers from -3 to 3: every partial sum stays far below 2^24, so float adds
    // them exactly in any order and each sum must match the double one to the bit.
    std::vector<{type}> host(n);
    double expected = 0;
    for ({type}& x : host) {{
      x = static_cast<{type}>(static_cast<int>(random() % 7) - 3);
      expected += static_cast<double>(x);
    }}
    failures += check(host.data(), n, expected);
  }}
  return failures ? 1 : 0;
}}
"""


# The rows chapters reduce each row of a matrix: their block leaves one sum per row in
# `sums`, at the shapes of ROWS_SHAPES (16_short_rows takes rows of at most 32 floats).
ROWS_DRIVER = r"""// Written by tests/copy_test.py from the "Use it in your code" block of {header}.
#include <cstdio>
#include <random>
#include <vector>

{includes}

// The block, verbatim: it reads n_rows x n_cols values of type {type} at `input` (device
// memory) and leaves one float sum per row in `sums` and the first CUDA error in `status`.
static int check(const {type}* input, std::size_t n_rows, std::size_t n_cols, const std::vector<double>& expected) {{
{body}
  if (status != cudaSuccess) {{
    std::fprintf(stderr, "%zu x %zu: CUDA error %s (%s)\n", n_rows, n_cols, cudaGetErrorName(status),
                 cudaGetErrorString(status));
    return 1;
  }}
  for (std::size_t r = 0; r < n_rows; ++r) {{
    if (static_cast<double>(sums[r]) != expected[r]) {{
      std::fprintf(stderr, "%zu x %zu: row %zu: the block gave %.1f, the exact sum is %.1f\n", n_rows, n_cols, r,
                   sums[r], expected[r]);
      return 1;
    }}
  }}
  std::printf("%zu x %zu: every row sum exact\n", n_rows, n_cols);
  return 0;
}}

int main() {{
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {{
    std::printf("SKIPPED: no CUDA device: the copy unit compiled and linked, but cannot run here\n");
    return 77;
  }}
  std::mt19937_64 random(std::random_device{{}}());
  int failures = 0;
  const std::size_t shapes[][2] = {shapes};
  for (const auto& shape : shapes) {{
    const std::size_t n_rows = shape[0], n_cols = shape[1];
    // Integers from -3 to 3: every partial sum stays far below 2^24, so float adds
    // them exactly in any order and each row's sum must match to the bit.
    std::vector<{type}> host(n_rows * n_cols);
    std::vector<double> expected(n_rows, 0.0);
    for (std::size_t i = 0; i < host.size(); ++i) {{
      const int value = static_cast<int>(random() % 7) - 3;
      host[i] = static_cast<{type}>(static_cast<float>(value));
      expected[i / n_cols] += value;
    }}
    {type}* input = nullptr;
    if (cudaMalloc(&input, (host.empty() ? 1 : host.size()) * sizeof({type})) != cudaSuccess ||
        cudaMemcpy(input, host.data(), host.size() * sizeof({type}), cudaMemcpyHostToDevice) != cudaSuccess) {{
      std::fprintf(stderr, "could not set up the input\n");
      return 1;
    }}
    failures += check(input, n_rows, n_cols, expected);
    cudaFree(input);
  }}
  return failures ? 1 : 0;
}}
"""


# 19_ragged_segments reduces the segments of a ragged array, given by CSR offsets: its block
# leaves one float sum per segment in `host` (host memory), for lengths awkward for its cut.
SEGMENTS_DRIVER = r"""// Written by tests/copy_test.py from the "Use it in your code" block of {header}.
#include <cstdio>
#include <random>
#include <vector>

{includes}

// The block, verbatim: it reads n values of type {type} at `input` and segments + 1 int offsets
// at `offsets` (device memory; segment i is input[offsets[i], offsets[i + 1])) and leaves one
// float sum per segment in `host` (host memory) and the first CUDA error in `status`.
static int check(const char* lengths, const {type}* input, std::size_t n, const int* offsets, std::size_t segments,
                 const std::vector<double>& expected) {{
{body}
  if (status != cudaSuccess) {{
    std::fprintf(stderr, "%s (n = %zu, %zu segments): CUDA error %s (%s)\n", lengths, n, segments,
                 cudaGetErrorName(status), cudaGetErrorString(status));
    return 1;
  }}
  for (std::size_t i = 0; i < segments; ++i) {{
    if (static_cast<double>(host[i]) != expected[i]) {{
      std::fprintf(stderr, "%s (n = %zu, %zu segments): segment %zu: the block gave %.1f, the exact sum is %.1f\n",
                   lengths, n, segments, i, static_cast<double>(host[i]), expected[i]);
      return 1;
    }}
  }}
  std::printf("%s (n = %zu, %zu segments): every segment sum exact\n", lengths, n, segments);
  return 0;
}}

// Each case's segment lengths: empty segments, one element each, one segment far longer than the
// rest, a few long ones, random lengths.
static const char* const cases[] = {{
    "n = 0, one segment", "all empty", "one element each", "a mix with empty segments",
    "one of 1000003 beside many of 1..8", "3 of 300007", "uniform 0..2048"}};

static std::vector<std::size_t> lengths_of(int which, std::mt19937_64& random) {{
  std::vector<std::size_t> lengths;
  switch (which) {{
    case 0: lengths.assign(1, 0); break;
    case 1: lengths.assign(100003, 0); break;
    case 2: lengths.assign(65537, 1); break;
    case 3:  // half of them empty, the others 1..7 long; the first and the last empty
      for (int i = 0; i < 100003; ++i) lengths.push_back(random() % 2 ? 0 : 1 + random() % 7);
      lengths.front() = lengths.back() = 0;
      break;
    case 4:
      for (int i = 0; i < 100000; ++i) lengths.push_back(1 + random() % 8);
      lengths.insert(lengths.begin() + 50000, 1000003);
      break;
    case 5: lengths.assign(3, 300007); break;
    default:  // about 2^21 elements
      for (std::size_t n = 0; n < (std::size_t(1) << 21); n += lengths.back()) lengths.push_back(random() % 2049);
  }}
  return lengths;
}}

int main() {{
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {{
    std::printf("SKIPPED: no CUDA device: the copy unit compiled and linked, but cannot run here\n");
    return 77;
  }}
  std::mt19937_64 random(std::random_device{{}}());
  int failures = 0;
  for (int which = 0; which < int(sizeof(cases) / sizeof(cases[0])); ++which) {{
    const std::vector<std::size_t> lengths = lengths_of(which, random);
    const std::size_t segments = lengths.size();
    std::vector<int> offsets(segments + 1, 0);
    for (std::size_t i = 0; i < segments; ++i) offsets[i + 1] = offsets[i] + static_cast<int>(lengths[i]);
    const std::size_t n = static_cast<std::size_t>(offsets[segments]);
    // Integers from -3 to 3: every partial sum stays far below 2^24, so float adds
    // them exactly in any order and each segment's sum must match to the bit (0 if empty).
    std::vector<{type}> values(n);
    std::vector<double> expected(segments, 0.0);
    for (std::size_t i = 0; i < segments; ++i) {{
      for (int j = offsets[i]; j < offsets[i + 1]; ++j) {{
        const int value = static_cast<int>(random() % 7) - 3;
        values[j] = static_cast<{type}>(static_cast<float>(value));
        expected[i] += value;
      }}
    }}
    {type}* input = nullptr;
    int* device_offsets = nullptr;
    if (cudaMalloc(&input, (n ? n : 1) * sizeof({type})) != cudaSuccess ||
        cudaMemcpy(input, values.data(), n * sizeof({type}), cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMalloc(&device_offsets, offsets.size() * sizeof(int)) != cudaSuccess ||
        cudaMemcpy(device_offsets, offsets.data(), offsets.size() * sizeof(int), cudaMemcpyHostToDevice) !=
            cudaSuccess) {{
      std::fprintf(stderr, "could not set up the input\n");
      return 1;
    }}
    failures += check(cases[which], input, n, device_offsets, segments, expected);
    cudaFree(input);
    cudaFree(device_offsets);
  }}
  return failures ? 1 : 0;
}}
"""


# 11_multi_gpu's block reduces shards that lie on k GPUs (every visible one): shard[d]
# holds count[d] floats on GPU d; it leaves the total in `sum` and a multi_gpu::Status.
MULTI_GPU_DRIVER = r"""// Written by tests/copy_test.py from the "Use it in your code" block of {header}.
#include <cstdio>
#include <random>
#include <vector>

{includes}

// The block, verbatim: k GPUs, shard[d] holds count[d] values of type {type} on GPU d; it
// leaves the total in `sum` and what went wrong, if anything, in `status`.
static int check(int k, const std::vector<{type}*>& shard, const std::vector<std::size_t>& count, std::size_t n,
                 double expected) {{
{body}
  if (!status.ok()) {{
    std::fprintf(stderr, "n = %zu over %d GPUs: %s\n", n, k, status.message().c_str());
    return 1;
  }}
  if (static_cast<double>(sum) != expected) {{
    std::fprintf(stderr, "n = %zu over %d GPUs: the block gave %.1f, the exact sum is %.1f\n", n, k,
                 static_cast<double>(sum), expected);
    return 1;
  }}
  std::printf("n = %zu over %d GPUs: sum %.1f, exact ({type})\n", n, k, static_cast<double>(sum));
  return 0;
}}

int main() {{
  int k = 0;
  if (cudaGetDeviceCount(&k) != cudaSuccess || k == 0) {{
    std::printf("SKIPPED: no CUDA device: the copy unit compiled and linked, but cannot run here\n");
    return 77;
  }}
  std::mt19937_64 random(std::random_device{{}}());
  int failures = 0;
  for (std::size_t n : {{std::size_t(1000003), std::size_t(4097), std::size_t(33), std::size_t(1), std::size_t(0)}}) {{
    // Integers from -3 to 3: float adds them exactly in any order (see DRIVER).
    std::vector<{type}> host(n);
    double expected = 0;
    for ({type}& x : host) {{
      x = static_cast<{type}>(static_cast<int>(random() % 7) - 3);
      expected += static_cast<double>(x);
    }}
    std::vector<{type}*> shard(k, nullptr);
    std::vector<std::size_t> count(k, 0);
    for (int d = 0; d < k; ++d) {{
      const multi_gpu::Shard s = multi_gpu::shard_of(n, k, d);
      count[d] = s.count;
      if (cudaSetDevice(d) != cudaSuccess || cudaMalloc(&shard[d], (s.count ? s.count : 1) * sizeof({type})) != cudaSuccess ||
          cudaMemcpy(shard[d], host.data() + s.begin, s.count * sizeof({type}), cudaMemcpyHostToDevice) != cudaSuccess ||
          cudaDeviceSynchronize() != cudaSuccess) {{  // the parts' non-blocking streams do not wait for the copy
        std::fprintf(stderr, "could not set up the input\n");
        return 1;
      }}
    }}
    failures += check(k, shard, count, n, expected);
    for (int d = 0; d < k; ++d) {{
      cudaSetDevice(d);
      cudaFree(shard[d]);
    }}
  }}
  return failures ? 1 : 0;
}}
"""


# The shapes (rows, cols) each rows chapter's driver reduces, in C++ braces.
LONG_ROWS = "{{65537, 3}, {1000, 33}, {3, 4097}, {1, 1000003}, {7, 0}}"
ROWS_SHAPES = {"rows.cuh": LONG_ROWS, "row_stats.cuh": LONG_ROWS, "lane_groups.cuh": LONG_ROWS,
               "short_rows.cuh": "{{65537, 3}, {1000, 32}, {4099, 17}, {1, 1}, {7, 0}}",
               "split_rows.cuh": "{{65537, 3}, {3, 4097}, {1, 1000003}, {2, 300007}, {7, 0}}"}


# The whole rule's drivers: ROWS_DRIVER with this body (one float sum per row through the
# rule) and, compiled but not run, a typed call of every operator with 16-bit input, so that
# a result type that differs between the units fails to compile.
RULE_SHAPES = "{{65537, 3}, {1000, 33}, {5000, 300}, {3, 4097}, {1, 1000003}, {7, 0}}"
RULE_CODE = {
    "whole_rule": ([
        "std::vector<float> sums(n_rows);",
        "float* row_sums = nullptr;",
        "cudaError_t status = cudaMalloc(&row_sums, (n_rows ? n_rows : 1) * sizeof(float));",
        "if (status == cudaSuccess) status = whole_rule::reduce_rows<float, whole_rule::Sum>(input, n_rows, n_cols, "
        "row_sums);"]),
    "whole_rule_split": ([
        "std::size_t bytes = 0;",
        "cudaError_t status = whole_rule_split::scratch_bytes<float, whole_rule_split::Sum>(n_rows, n_cols, &bytes);",
        "void* scratch = nullptr;",
        "std::vector<float> sums(n_rows);",
        "float* row_sums = nullptr;",
        "if (status == cudaSuccess && bytes) status = cudaMalloc(&scratch, bytes);",
        "if (status == cudaSuccess && bytes) status = cudaMemset(scratch, 0, bytes);",
        "if (status == cudaSuccess) status = cudaMalloc(&row_sums, (n_rows ? n_rows : 1) * sizeof(float));",
        "if (status == cudaSuccess) status = whole_rule_split::reduce_rows<float, whole_rule_split::Sum>(input, n_rows, "
        "n_cols, row_sums, scratch, bytes);",
        "cudaFree(scratch);"]),
}
RULE_END = ["if (status == cudaSuccess) status = cudaDeviceSynchronize();",
            "if (status == cudaSuccess && n_rows) status = cudaMemcpy(sums.data(), row_sums, n_rows * sizeof(float), "
            "cudaMemcpyDeviceToHost);",
            "cudaFree(row_sums);"]
RULE_TYPED = """
// Not run: one typed call per operator, 16-bit input, one output type each.
[[maybe_unused]] static cudaError_t typed_calls(const __nv_bfloat16* input, std::size_t rows, std::size_t cols,
                                                void* scratch, std::size_t bytes) {{
  float* sums = nullptr;
  {ns}::ArgMax::Result* argmax = nullptr;
  {ns}::MeanVar::Result* meanvar = nullptr;
  cudaError_t status = cudaSuccess;
  {calls}
  return status;
}}
"""


def rule_code(spec):
    """The code of FILE#NAME: the region between `// [snippet:NAME]` and `// [/snippet:NAME]`
    of a source file, or the fenced block after `<!-- rule: NAME -->` in a Markdown file."""
    path, _, name = spec.partition("#")
    lines = open(path, encoding="utf-8").read().splitlines()
    if path.endswith(".md"):
        start = lines.index(f"<!-- rule: {name} -->") if f"<!-- rule: {name} -->" in lines else None
        if start is None or not lines[start + 1].startswith("```"):
            fail(f"{path} has no code block after <!-- rule: {name} -->")
        end = next(i for i in range(start + 2, len(lines)) if lines[i].startswith("```"))
        return name, lines[start + 2:end]
    marks = [i for i, line in enumerate(lines) if line.strip() in (f"// [snippet:{name}]", f"// [/snippet:{name}]")]
    if len(marks) != 2:
        fail(f"{path} has no region // [snippet:{name}]")
    return name, lines[marks[0] + 1:marks[1]]


def rule_test(args):
    """--rule: the whole rule's code in one header with the units it dispatches to, in one folder."""
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    folder = os.path.join(args.work, "units")
    os.makedirs(folder)
    objects, headers = [], []
    for unit_dir in args.units:
        header, source = copy_unit(unit_dir)
        for path in (header, source):
            shutil.copy(path, folder)
        headers.append(f'#include "{os.path.basename(header)}"')
        run([args.nvcc, "-std=c++17", "-c", os.path.basename(source)], folder)
        objects.append(os.path.join(folder, os.path.basename(source)[:-3] + ".o"))
    code = []
    for spec in args.rule:
        ns, lines = rule_code(spec)
        code += lines + [""]
    if ns not in RULE_CODE:
        fail(f"no driver for the rule {ns}")
    with open(os.path.join(folder, "rule.cuh"), "w", encoding="utf-8") as f:
        f.write("\n".join(["// Written by tests/copy_test.py: the rule as the README prints it, after the units.",
                           "#pragma once", "#include <cuda_runtime.h>", "#include <cstddef>"] + headers + [""] + code))
    extra = ", scratch, bytes" if ns == "whole_rule_split" else ""
    calls = "\n  ".join(
        f"if (status == cudaSuccess) status = {ns}::reduce_rows<__nv_bfloat16, {ns}::{op}>(input, rows, cols, "
        f"{out}{extra});" for op, out in (("Sum", "sums"), ("Max", "sums"), ("ArgMax", "argmax"),
                                         ("MeanVar", "meanvar")))
    includes = ['#include "rule.cuh"', "#include <cuda_bf16.h>", RULE_TYPED.format(ns=ns, calls=calls)]
    with open(os.path.join(args.work, "driver.cpp"), "w", encoding="utf-8") as f:
        f.write(ROWS_DRIVER.format(header="the README's " + ns, includes="\n".join(includes), shapes=RULE_SHAPES,
                                   type="float", body="\n".join("  " + line for line in RULE_CODE[ns] + RULE_END)))
    run([args.cxx, "-std=c++17", "-I" + cuda_include(args.nvcc), "-I" + folder, "-c", "driver.cpp", "-o",
         "driver.o"], args.work)
    run([args.nvcc, "-std=c++17", "driver.o"] + objects + ["-o", "driver"], args.work)
    write_drivers(args.work, ["driver"])
    print(f"copy_test: {ns}, as the README prints it, and its units compile alone, and a typed call of every "
          f"operator compiles as host C++")


def fail(message):
    print(f"copy_test: {message}", file=sys.stderr)
    sys.exit(1)


def copy_unit(chapter_dir):
    """The copy unit's header and source: the folder's .cuh with the "Use it in your code"
    block (its only .cuh, except in 13_rows, which also holds its CUB yardsticks') and the
    .cu beside it."""
    headers = glob.glob(os.path.join(chapter_dir, "*.cuh"))
    if not headers:  # the CPU chapter: <stem>.h + <stem>.cpp
        headers = [h for h in glob.glob(os.path.join(chapter_dir, "*.h"))
                   if "// Use it in your code" in open(h, encoding="utf-8").read()]
        if len(headers) == 1:
            source = headers[0][:-2] + ".cpp"
            if not os.path.isfile(source):
                fail(f"{os.path.basename(headers[0])} has no {os.path.basename(source)} beside it")
            return headers[0], source
    if len(headers) > 1:
        headers = [h for h in headers if "// Use it in your code" in open(h, encoding="utf-8").read()]
    if len(headers) > 1:  # 11: 09's unit beside its own; the unit is the header the other does not include
        headers = [h for h in headers if not any(f'#include "{os.path.basename(h)}"' in open(o, encoding="utf-8").read()
                                                 for o in headers if o != h)]
    if len(headers) != 1:
        fail(f"{chapter_dir} must hold exactly one .cuh with a 'Use it in your code' block (the copy unit's "
             f"header), found {len(headers)}")
    header = headers[0]
    source = header[:-1]  # <stem>.cuh -> <stem>.cu
    if not os.path.isfile(source):
        fail(f"{os.path.basename(header)} has no {os.path.basename(source)} beside it")
    return header, source


def usage_block(header):
    """The lines of the "Use it in your code" comment block, without the comment marks."""
    lines = open(header, encoding="utf-8").read().splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("// Use it in your code")), None)
    if start is None:
        fail(f"{os.path.basename(header)} has no '// Use it in your code' block")
    block = []
    for line in lines[start + 1:]:
        if not line.startswith("//   "):
            break
        block.append(line[len("//   "):])
    if not block:
        fail("the 'Use it in your code' block is empty")
    if len(block) > MAX_BLOCK_LINES:
        fail(f"the 'Use it in your code' block has {len(block)} lines, more than {MAX_BLOCK_LINES}")
    return block


RECIPE = re.compile(r"^// Another element type, e\.g\. (?P<type>[^:]+): (?P<edits>add `[^`]+` at the end of [\w.]+"
                    r"(?: and `[^`]+` at the end of [\w.]+)*)\.$")
EDIT = re.compile(r"`(?P<code>[^`]+)` at the end of (?P<file>[\w.]+)")


def recipe(header, sources):
    """The header's "another element type" line as (type, [(file, code), ...]), or None where
    it offers none ("// Another element type: none (...)"). Any other wording fails: the test
    applies the recipe, so it must say exactly what to add and where (one of `sources`)."""
    lines = [line for line in open(header, encoding="utf-8").read().splitlines()
             if line.startswith("// Another element type")]
    if len(lines) != 1:
        fail(f"{os.path.basename(header)} must have one '// Another element type' line, found {len(lines)}")
    if lines[0].startswith("// Another element type: none ("):
        return None
    m = RECIPE.match(lines[0])
    if not m:
        fail(f"{os.path.basename(header)}: the recipe must read '// Another element type, e.g. TYPE: add `CODE` "
             f"at the end of FILE.', not: {lines[0]}")
    names = [os.path.basename(path) for path in sources]
    edits = [(e.group("file"), e.group("code")) for e in EDIT.finditer(m.group("edits"))]
    for file, _ in edits:
        if file not in names:
            fail(f"the recipe adds to {file}, but the unit's sources are {', '.join(names)}")
    return m.group("type").strip(), edits


def with_type(body, type_name, rows):
    """The block with another element type: every float (the single-array chapters, whose
    block holds only the element type), or the input type of reduce_rows<float, ...>,
    default_plan<float, ...> and reduce_segments<float, ...> (the rows and segments chapters,
    whose results stay float)."""
    if rows:
        typed = [line.replace("<float,", f"<{type_name},") for line in body]
        if typed == body:
            fail(f"the recipe's {type_name} has no place in the block: no '<float,' (the input type) to replace")
        return typed
    return [re.sub(r"\bfloat\b", type_name, line) for line in body]


def run(command, cwd):
    print("$ " + " ".join(command), flush=True)
    done = subprocess.run(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(done.stdout, end="")
    if done.returncode != 0:
        fail(f"'{' '.join(command)}' exited {done.returncode}")


def copy_into(folder, files, edits=None):
    """A folder holding only the unit's files (each edit's code added at the end of its file)."""
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    for path in files:
        shutil.copy(path, folder)
    for file, code in edits or []:
        with open(os.path.join(folder, file), "a", encoding="utf-8") as f:
            f.write("\n" + code + "\n")


def cpu_chapter(args, header, source, includes, body, found):
    """00_cpu_baseline: compile cpu_sums.cpp alone with the C++ compiler (and nvcc), then
    link the drivers (float, and the recipe's type): the block needs no GPU."""
    cxx = args.cxx or "c++"
    name, cpp = os.path.basename(header), os.path.basename(source)
    stem = cpp[:-4]
    builds = [("driver", "float", body, None)]
    if found:
        builds.append(("driver_recipe", found[0], with_type(body, found[0], False), found[1]))
    for driver, type_name, lines, code in builds:
        folder = os.path.join(args.work, driver + "_unit")
        copy_into(folder, [header, source], code)
        run([cxx, "-std=c++17", "-c", cpp], folder)
        if args.nvcc and code is None:
            run([args.nvcc, "-std=c++17", "-c", cpp, "-o", stem + "_nvcc.o"], folder)
        names = [m.group(1) for line in lines
                 for m in [re.match(r"\s*(?:const\s+)?" + re.escape(type_name) + r"\s+(\w+)\s*=\s*cpu_baseline::",
                                    line)] if m]
        if not names:
            fail(f"the block makes no '{type_name} NAME = cpu_baseline::...' sum for the driver to check")
        with open(os.path.join(args.work, driver + ".cpp"), "w", encoding="utf-8") as f:
            f.write(CPU_DRIVER.format(header=name, includes="\n".join(includes), names=", ".join(names),
                                      type=type_name, checks=", ".join(f'{{"{n}", {n}}}' for n in names),
                                      body="\n".join("  " + line for line in lines)))
        run([cxx, "-std=c++17", "-I" + folder, driver + ".cpp", os.path.join(folder, stem + ".o"), "-o", driver,
             "-pthread"], args.work)
    write_drivers(args.work, [b[0] for b in builds])
    print(f"copy_test: {name} + {cpp} compile alone and link with the block's drivers "
          f"({', '.join(b[0] for b in builds)})")


def write_drivers(work, drivers):
    with open(os.path.join(work, "drivers.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(drivers) + "\n")


def run_drivers(work):
    """--run: every driver the compile step built, in turn; 77 where there is no device."""
    path = os.path.join(work, "drivers.txt")
    if not os.path.isfile(path):
        fail(f"no {path}: run the compile step first")
    skipped = False
    for driver in open(path, encoding="utf-8").read().split():
        print(f"$ {driver}", flush=True)
        done = subprocess.run([os.path.join(work, driver)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True)
        print(done.stdout, end="")
        if done.returncode == 77:
            skipped = True
        elif done.returncode != 0:
            fail(f"{driver} exited {done.returncode}")
    if skipped:
        sys.exit(77)


def cuda_include(nvcc):
    """The CUDA include folder (cuda_runtime.h), as CMake's CUDA::cudart gives it: beside
    nvcc's bin folder. Not include/cccl, which nvcc adds for itself but a host compiler
    does not see."""
    folder = os.path.normpath(os.path.join(os.path.dirname(os.path.realpath(shutil.which(nvcc) or nvcc)), "..",
                                           "include"))
    if not os.path.isfile(os.path.join(folder, "cuda_runtime.h")):
        fail(f"no cuda_runtime.h in {folder}, beside {nvcc}")
    return folder


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nvcc", default="nvcc")
    parser.add_argument("--cxx", default="c++", help="the host compiler: the drivers are .cpp files, and "
                                                     "00_cpu_baseline's copy unit is one too")
    parser.add_argument("--chapter", help="the chapter folder")
    parser.add_argument("--work", required=True, help="an empty folder to work in (emptied first)")
    parser.add_argument("--run", action="store_true", help="run the drivers the compile step built in --work")
    parser.add_argument("--rule", nargs="+", help="the rows chapters' whole rule: FILE#NAME of its code, in "
                                                  "order (with --units)")
    parser.add_argument("--units", nargs="*", default=[], help="with --rule: the chapter folders of its units")
    parser.add_argument("--nccl-include", default="", help="11_multi_gpu: where nccl.h is, if not on nvcc's path")
    parser.add_argument("--nccl-library", default="", help="11_multi_gpu: libnccl to link the driver with")
    args = parser.parse_args()
    if args.run:
        run_drivers(args.work)
        return
    if args.rule:
        rule_test(args)
        return
    if not args.chapter:
        fail("--chapter is needed, except with --run and --rule")

    header, source = copy_unit(args.chapter)
    block = usage_block(header)
    includes = [line for line in block if line.startswith("#include")]
    body = [line for line in block if not line.startswith("#include")]
    own = f'#include "{os.path.basename(header)}"'
    if own not in includes:
        fail(f"the block must start with {own}")
    for line in body:
        if re.search(r"\bmalloc\(|\bnew\b", line):
            fail(f"the block allocates host memory it never frees: {line}")
        if re.search(r"\bstd::vector\b", line) and "#include <vector>" not in includes:
            fail(f"the block uses std::vector without #include <vector>: {line}")
    # The units it is built on, beside it in the folder (11: 09's): (header, source) of each header
    # of the folder that it includes and that has a source beside it.
    folder_of = os.path.dirname(header)
    base = [(h, h[:-1]) for h in sorted(glob.glob(os.path.join(folder_of, "*.cuh")))
            if h != header and os.path.isfile(h[:-1]) and f'#include "{os.path.basename(h)}"' in open(header).read()]
    sources = [unit[1] for unit in base] + [source]
    found = recipe(header, sources)

    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    if source.endswith(".cpp"):
        cpu_chapter(args, header, source, includes, body, found)
        return
    name = os.path.basename(header)
    stem = os.path.basename(source)[:-3]
    # 11_multi_gpu also needs NCCL: its header's folder, if nvcc does not search it, and
    # the library for the driver.
    nccl = name == "multi_gpu.cuh"
    nccl_include = ["-I" + args.nccl_include] if nccl and args.nccl_include else []
    link = []
    if nccl:
        library = args.nccl_library
        link = ([library, "-Xlinker", "-rpath=" + os.path.dirname(library)] if library else ["-lnccl"])
    rows = name in ROWS_SHAPES
    segments = name == "ragged_segments.cuh"  # 19: one sum per segment (SEGMENTS_DRIVER)
    template = MULTI_GPU_DRIVER if nccl else SEGMENTS_DRIVER if segments else ROWS_DRIVER if rows else DRIVER

    # Each build: the unit alone in a folder, compiled exactly as the header's "Compile:"
    # line says (plus --use_fast_math, or the recipe's code), and a driver for it.
    builds = [("driver", [], "float", body, None), ("driver_fast_math", ["--use_fast_math"], "float", body, None)]
    if found:
        builds.append(("driver_recipe", [], found[0], with_type(body, found[0], rows or segments), found[1]))
    host_include = "-I" + cuda_include(args.nvcc)
    for driver, flags, type_name, lines, code in builds:
        folder = os.path.join(args.work, driver + "_unit")
        copy_into(folder, [path for unit in base for path in unit] + [header, source], code)
        run([args.nvcc, "-std=c++17"] + flags + ["-c"] + [os.path.basename(path) for path in sources] + nccl_include,
            folder)
        with open(os.path.join(args.work, driver + ".cpp"), "w", encoding="utf-8") as f:
            f.write(template.format(header=name, includes="\n".join(includes), shapes=ROWS_SHAPES.get(name, ""),
                                    type=type_name, body="\n".join("  " + line for line in lines)))
        # The driver is host code: the host compiler with only the CUDA include folder.
        run([args.cxx, "-std=c++17", host_include, "-I" + folder] + nccl_include +
            ["-c", driver + ".cpp", "-o", driver + ".o"], args.work)
        objects = [os.path.join(folder, os.path.basename(path)[:-3] + ".o") for path in sources]
        run([args.nvcc, "-std=c++17", driver + ".o"] + objects + ["-o", driver] + link, args.work)
    write_drivers(args.work, [b[0] for b in builds])
    beside = "".join(" + " + os.path.basename(u[0]) for u in base)
    print(f"copy_test: {stem}.cuh + {stem}.cu{beside} compile alone (also with --use_fast_math"
          f"{', and with the recipe for ' + found[0] if found else ''}) and link with the block's drivers; "
          f"the drivers compile as host C++ with only {host_include[2:]}")


if __name__ == "__main__":
    main()
