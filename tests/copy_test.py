#!/usr/bin/env python3
"""The copy test: a chapter's copy unit works alone, as a student would use it.

    copy_test.py --nvcc NVCC --chapter NN_name --work DIR

copies the chapter's <stem>.cuh and <stem>.cu (and nothing else) into the empty folder
DIR, compiles the unit with `nvcc -std=c++17 -c <stem>.cu` (no include path, no flag of
the repository), writes a driver whose body is the "Use it in your code" block at the
top of <stem>.cuh, and links the two. The driver (DIR/driver) then runs that block on
fresh random data at awkward sizes and compares each sum with the exact one: the values
are small integers stored as floats, so every order of additions gives the exact sum.
Without a CUDA device it prints SKIPPED and exits 77 (ctest: skipped).

    copy_test.py --cxx CXX [--nvcc NVCC] --chapter 00_cpu_baseline --work DIR

does the same for the CPU chapter, whose copy unit is cpu_sums.h + cpu_sums.cpp (plain
C++): `CXX -std=c++17 -c cpu_sums.cpp` (and, with --nvcc, `nvcc -std=c++17 -c` too),
then a driver that runs its block on the CPU (no device needed, so it runs in CI too)
and checks every float sum the block makes against the exact sum.

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

// The block, verbatim: it reads n floats at `input` (device memory) and leaves the sum
// in `sum` and the first CUDA error in `status`.
static int check(float* input, std::size_t n, double expected) {{
{body}
  if (status != cudaSuccess) {{
    std::fprintf(stderr, "n = %zu: CUDA error %s (%s)\n", n, cudaGetErrorName(status), cudaGetErrorString(status));
    return 1;
  }}
  if (static_cast<double>(sum) != expected) {{
    std::fprintf(stderr, "n = %zu: the block gave %.1f, the exact sum is %.1f\n", n, sum, expected);
    return 1;
  }}
  std::printf("n = %zu: sum %.1f, exact\n", n, sum);
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
    std::vector<float> host(n);
    double expected = 0;
    for (float& x : host) {{
      x = static_cast<float>(static_cast<int>(random() % 7) - 3);
      expected += x;
    }}
    float* input = nullptr;
    if (cudaMalloc(&input, (n ? n : 1) * sizeof(float)) != cudaSuccess ||
        cudaMemcpy(input, host.data(), n * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess) {{
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

// The block, verbatim: it reads n floats at `input` (host memory) and makes the sums
// {names}.
static int check(const float* input, std::size_t n, double expected) {{
{body}
  const struct {{
    const char* name;
    float value;
  }} sums[] = {{{checks}}};
  int failures = 0;
  for (const auto& s : sums) {{
    if (static_cast<double>(s.value) != expected) {{
      std::fprintf(stderr, "n = %zu: %s is %.1f, the exact sum is %.1f\n", n, s.name, s.value, expected);
      ++failures;
    }}
  }}
  if (!failures) std::printf("n = %zu: %s exact (%.1f)\n", n, "{names}", expected);
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
    std::vector<float> host(n);
    double expected = 0;
    for (float& x : host) {{
      x = static_cast<float>(static_cast<int>(random() % 7) - 3);
      expected += x;
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

// The block, verbatim: it reads n_rows x n_cols floats at `input` (device memory) and
// leaves one sum per row in `sums` and the first CUDA error in `status`.
static int check(const float* input, std::size_t n_rows, std::size_t n_cols, const std::vector<double>& expected) {{
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
    std::vector<float> host(n_rows * n_cols);
    std::vector<double> expected(n_rows, 0.0);
    for (std::size_t i = 0; i < host.size(); ++i) {{
      host[i] = static_cast<float>(static_cast<int>(random() % 7) - 3);
      expected[i / n_cols] += host[i];
    }}
    float* input = nullptr;
    if (cudaMalloc(&input, (host.empty() ? 1 : host.size()) * sizeof(float)) != cudaSuccess ||
        cudaMemcpy(input, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess) {{
      std::fprintf(stderr, "could not set up the input\n");
      return 1;
    }}
    failures += check(input, n_rows, n_cols, expected);
    cudaFree(input);
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

// The block, verbatim: k GPUs, shard[d] holds count[d] floats on GPU d; it leaves the
// total in `sum` and what went wrong, if anything, in `status`.
static int check(int k, const std::vector<float*>& shard, const std::vector<std::size_t>& count, std::size_t n,
                 double expected) {{
{body}
  if (!status.ok()) {{
    std::fprintf(stderr, "n = %zu over %d GPUs: %s\n", n, k, status.message().c_str());
    return 1;
  }}
  if (static_cast<double>(sum) != expected) {{
    std::fprintf(stderr, "n = %zu over %d GPUs: the block gave %.1f, the exact sum is %.1f\n", n, k, sum, expected);
    return 1;
  }}
  std::printf("n = %zu over %d GPUs: sum %.1f, exact\n", n, k, sum);
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
    std::vector<float> host(n);
    double expected = 0;
    for (float& x : host) {{
      x = static_cast<float>(static_cast<int>(random() % 7) - 3);
      expected += x;
    }}
    std::vector<float*> shard(k, nullptr);
    std::vector<std::size_t> count(k, 0);
    for (int d = 0; d < k; ++d) {{
      const multi_gpu::Shard s = multi_gpu::shard_of(n, k, d);
      count[d] = s.count;
      if (cudaSetDevice(d) != cudaSuccess || cudaMalloc(&shard[d], (s.count ? s.count : 1) * sizeof(float)) != cudaSuccess ||
          cudaMemcpy(shard[d], host.data() + s.begin, s.count * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess) {{
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


def run(command, cwd):
    print("$ " + " ".join(command), flush=True)
    done = subprocess.run(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(done.stdout, end="")
    if done.returncode != 0:
        fail(f"'{' '.join(command)}' exited {done.returncode}")


def cpu_chapter(args, header, source, includes, body):
    """00_cpu_baseline: compile cpu_sums.cpp alone with the C++ compiler (and nvcc), then
    link and run the driver: the block needs no GPU."""
    cxx = args.cxx or "c++"
    name, cpp = os.path.basename(header), os.path.basename(source)
    stem = cpp[:-4]
    run([cxx, "-std=c++17", "-c", cpp], args.work)
    if args.nvcc:
        run([args.nvcc, "-std=c++17", "-c", cpp, "-o", stem + "_nvcc.o"], args.work)
    names = [m.group(1) for line in body
             for m in [re.match(r"\s*(?:const\s+)?float\s+(\w+)\s*=\s*cpu_baseline::", line)] if m]
    if not names:
        fail("the block makes no 'float NAME = cpu_baseline::...' sum for the driver to check")
    with open(os.path.join(args.work, "driver.cpp"), "w", encoding="utf-8") as f:
        f.write(CPU_DRIVER.format(header=name, includes="\n".join(includes), names=", ".join(names),
                                  checks=", ".join(f'{{"{n}", {n}}}' for n in names),
                                  body="\n".join("  " + line for line in body)))
    run([cxx, "-std=c++17", "driver.cpp", stem + ".o", "-o", "driver", "-pthread"], args.work)
    print(f"copy_test: {name} + {cpp} compile alone and link with the block's driver")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nvcc", default="nvcc")
    parser.add_argument("--cxx", default="", help="00_cpu_baseline: the C++ compiler (its .cpp copy unit); "
                                                  "with it, --nvcc compiles the unit a second time")
    parser.add_argument("--chapter", required=True, help="the chapter folder")
    parser.add_argument("--work", required=True, help="an empty folder to work in (emptied first)")
    parser.add_argument("--nccl-include", default="", help="11_multi_gpu: where nccl.h is, if not on nvcc's path")
    parser.add_argument("--nccl-library", default="", help="11_multi_gpu: libnccl to link the driver with")
    args = parser.parse_args()

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

    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    for path in (header, source):
        shutil.copy(path, args.work)
    if source.endswith(".cpp"):
        cpu_chapter(args, header, source, includes, body)
        return
    stem = os.path.basename(source)[:-3]
    # Exactly the command in the header's "Compile:" line, in a folder that holds only the two files.
    # 11_multi_gpu also needs NCCL: its header's folder, if nvcc does not search it, and
    # the library for the driver.
    nccl = os.path.basename(header) == "multi_gpu.cuh"
    include = ["-I" + args.nccl_include] if nccl and args.nccl_include else []
    run([args.nvcc, "-std=c++17", "-c", os.path.basename(source)] + include, args.work)

    name = os.path.basename(header)
    driver = MULTI_GPU_DRIVER if name == "multi_gpu.cuh" else ROWS_DRIVER if name in ROWS_SHAPES else DRIVER
    with open(os.path.join(args.work, "driver.cu"), "w", encoding="utf-8") as f:
        f.write(driver.format(header=name, includes="\n".join(includes), shapes=ROWS_SHAPES.get(name, ""),
                              body="\n".join("  " + line for line in body)))
    link = []
    if nccl:
        library = args.nccl_library
        link = ([library, "-Xlinker", "-rpath=" + os.path.dirname(library)] if library else ["-lnccl"])
    run([args.nvcc, "-std=c++17", "driver.cu", stem + ".o", "-o", "driver"] + include + link, args.work)
    print(f"copy_test: {stem}.cuh + {stem}.cu compile alone and link with the block's driver")


if __name__ == "__main__":
    main()
