// chapter.h: how the harness, the tour and the tests see a chapter.
//
// A chapter's kernels live in its copy unit (NN_name/<stem>.cuh + <stem>.cu), which
// knows nothing of this repository: free functions in a namespace named after the
// chapter (reduce, scratch_bytes, default_grid, kDefaultBlock). The chapter's main.cu
// describes it to the harness with a Chapter: its name and summary, and, for each
// runnable version (the chapter's own kernel, then any step, each of the chapter's changes
// made alone, and any pitfall from pitfalls.cu), a
// Variant that points at the copy unit's functions and adds what only the harness
// needs: the launch shapes it accepts (with the message for the ones it does not), and
// the chain length behind the float tolerance.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

#include "op.h"

namespace reduction {

// A chapter's launcher for one element type and operator: every launch from the input
// to the result in device memory, on `stream`; returns the first CUDA error.
template <typename T>
using Launcher = cudaError_t (*)(T* data, std::size_t n, T* result, void* scratch, std::size_t scratch_bytes,
                                 int block, int grid, cudaStream_t stream);

// One runnable version of a chapter.
struct Variant {
  std::string chapter;  // "04_shared_tree"
  std::string name;     // "" for the chapter's own kernel, else the --variant name
  std::string summary;  // one line, printed by the program
  // One change of the chapter made alone, for `tour --steps NN`: a kernel of steps.cu
  // beside the copy unit (04, 06), or an existing copy unit's kernel at another chapter's
  // launch rule (05, 08, 09); false for the chapter's own kernel and its pitfalls.
  bool step = false;
  // A step whose change is the launch rule itself (05, 08, 09): `tour --steps` then runs
  // every row at its own default shape, never at one grid shared by the rows, which would
  // erase the very difference the step times.
  bool times_shape = false;
  bool in_place = false;       // the launcher overwrites its input (01-03)
  bool chooses_shape = false;  // the library picks its own launch shape (CUB): no --block/--grid
  int default_block = 256;
  // "" when the chapter can run block x grid (0 = the default), else why not; never
  // touches the device.
  std::string (*check_shape)(int block, int grid) = nullptr;
  // Where n too limits the shape (01-03: one block per B elements, at most 2^31 - 1 of
  // them): "" when the chapter can reduce n elements with blocks of `block` threads,
  // else why not. Null: every n. Never touches the device.
  std::string (*check_n)(std::size_t n, int block) = nullptr;
  // The copy unit's default grid for n elements and this block size (reads the device).
  cudaError_t (*default_grid)(std::size_t n, int block, int* grid) = nullptr;
  // Where the block size too depends on n (09): the whole default shape; used when
  // neither --block nor --grid is given. Null: default_block and default_grid.
  cudaError_t (*default_shape)(std::size_t n, int* block, int* grid) = nullptr;
  // Device scratch the launcher needs, zeroed once before the first call; the launcher is
  // told its size and refuses (cudaErrorInvalidValue) a scratch too small for the call.
  std::size_t (*scratch_bytes)(std::size_t n, int block, int grid) = nullptr;
  // An upper bound on the additions any one input value passes through (reference.h
  // derives the float tolerance from it).
  std::size_t (*chain_length)(std::size_t n, int block, int grid) = nullptr;

  std::array<Launcher<int>, 3> int_launchers{};  // indexed by Op; null: not offered
  std::array<Launcher<float>, 3> float_launchers{};
  std::array<Launcher<double>, 3> double_launchers{};

  // Sets the launchers of `op` from a generic lambda without captures, written as
  //   [](auto* data, std::size_t n, auto* result, void* scratch, std::size_t bytes, int block, int grid,
  //      cudaStream_t stream) { return name::reduce(data, n, result, scratch, bytes, block, grid, stream); }
  // which converts to a Launcher of each element type.
  template <typename Generic>
  void set_launcher(Op op, Generic launch) {
    const int i = static_cast<int>(op);
    int_launchers[i] = launch;
    float_launchers[i] = launch;
    double_launchers[i] = launch;
  }

  template <typename T>
  Launcher<T> launcher(Op op) const {
    const int i = static_cast<int>(op);
    if constexpr (std::is_same_v<T, int>) return int_launchers[i];
    else if constexpr (std::is_same_v<T, float>) return float_launchers[i];
    else return double_launchers[i];
  }

  // Whether --op max and --op min apply (09 and 10).
  bool has_operators() const { return int_launchers[static_cast<int>(Op::Max)] != nullptr; }

  std::string label() const { return name.empty() ? chapter : chapter + " --variant " + name; }
};

// A step of `chapter` that times a launch rule (05, 08, 09): `kernel`, the description of
// the chapter whose kernel it runs (its launchers, shapes, scratch and error bound stay
// right for that kernel), under the step's name; the caller then sets the rule it times
// (default_block, default_grid, default_shape).
inline Variant shape_step(Variant kernel, const std::string& chapter, const std::string& name,
                          const std::string& summary) {
  kernel.chapter = chapter;
  kernel.name = name;
  kernel.summary = summary;
  kernel.step = true;
  kernel.times_shape = true;
  return kernel;
}

// A chapter: its own kernel first, then any step and pitfall variants.
struct Chapter {
  std::string id;
  std::vector<Variant> variants;
  const Variant& main() const { return variants.front(); }
};

}  // namespace reduction
