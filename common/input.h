// input.h: the array a run reduces: generated at random, or read from the reader's
// own file (a NumPy .npy array, or raw binary values of --type).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <ostream>
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

// The header of a .npy file, read from `file` just past its 6 magic bytes: the dtype
// ("<f4"; a one-byte type's "|" made "<"), the order, the shape as written ("(3, 4)") and
// where the data starts. Throws UsageError for an unknown version, a header longer than
// the file (file_bytes), big-endian data, a missing entry. load_input and 13_rows's
// load_matrix both read their headers with it, then check the dtype and shape they need.
struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::string shape;
  std::uint64_t data_offset = 0;
};
NpyHeader read_npy_header(std::FILE* file, std::uint64_t file_bytes, const std::string& path);

// One dimension of a .npy shape, refused (UsageError) when it does not fit in 64 bits.
std::uint64_t parse_npy_dimension(const std::string& digits, const std::string& path);

// Writes the magic bytes and a version 1.0 header (C order; shape as "(3, 4)") to `out`.
void write_npy_header(std::ostream& out, const std::string& descr, const std::string& shape);

// Writes a 1-D little-endian .npy file (used by the tests and handy for readers).
template <typename T>
void save_npy(const std::string& path, const std::vector<T>& values);

}  // namespace reduction
