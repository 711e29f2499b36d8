// input.h: the array a run reduces: generated at random, or read from the reader's
// own file (a NumPy .npy array, or raw binary values of --type).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace reduction {

// A problem with the reader's input or command line: the harness reports it and exits 2.
class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& what) : std::runtime_error(what) {}
};

enum class DType { Int, Float, Double };

const char* dtype_name(DType t);  // "int", "float", "double"
template <typename T> DType dtype_of();

// n values from random_value<T>(seed, i, n, exact) (random.h), on all CPU cores.
template <typename T>
std::vector<T> generate_input(std::size_t n, std::uint64_t seed, bool exact = false);

// Reads a .npy file (recognised by its magic bytes) or raw values of type T.
// Throws UsageError naming the problem: missing or unreadable file, wrong dtype,
// not 1-D, Fortran order, big-endian, truncated data, size not a multiple of sizeof(T).
template <typename T>
std::vector<T> load_input(const std::string& path);

// Writes a 1-D little-endian .npy file (used by the tests and handy for readers).
template <typename T>
void save_npy(const std::string& path, const std::vector<T>& values);

}  // namespace reduction
