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

// What load_input found besides the values, for the report.
struct InputInfo {
  std::string converted_from;  // the file's dtype ("int32", "float32") when it was widened to T, else ""
  std::string warning;         // "" or one line: what was odd but harmless (bytes after the data)
};

// Reads a .npy file (recognised by its magic bytes) or raw values of type T.
// A .npy file of a narrower type is converted where that is exact: int32 and float32
// to double, int32 to float when every value is a float (else the first that is not
// is named). Throws UsageError naming the problem: missing or unreadable file, not a
// regular file, wrong dtype, not 1-D, Fortran order, big-endian, a shape that does
// not fit in 64 bits, a header or data longer than the file, size not a multiple of
// sizeof(T). Sizes are checked against the file's size before anything is allocated.
template <typename T>
std::vector<T> load_input(const std::string& path, InputInfo* info = nullptr);

// Writes a 1-D little-endian .npy file (used by the tests and handy for readers).
template <typename T>
void save_npy(const std::string& path, const std::vector<T>& values);

}  // namespace reduction
