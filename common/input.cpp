#include "input.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <type_traits>

#include "parallel.h"
#include "random.h"

namespace reduction {

const char* dtype_name(DType t) {
  switch (t) {
    case DType::Int: return "int";
    case DType::Float: return "float";
    case DType::Double: return "double";
  }
  return "?";
}

template <> DType dtype_of<int>() { return DType::Int; }
template <> DType dtype_of<float>() { return DType::Float; }
template <> DType dtype_of<double>() { return DType::Double; }

template <typename T>
std::vector<T> generate_input(std::size_t n, std::uint64_t seed, bool exact) {
  std::vector<T> values(n);
  parallel_chunks(n, [&](unsigned, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) values[i] = random_value<T>(seed, i, n, exact);
  });
  return values;
}

namespace {

// The NumPy descr string of each supported type, little-endian.
template <typename T> const char* npy_descr();
template <> const char* npy_descr<int>() { return "<i4"; }
template <> const char* npy_descr<float>() { return "<f4"; }
template <> const char* npy_descr<double>() { return "<f8"; }

// What --type a .npy dtype corresponds to, for the error message.
std::string suggest_type(const std::string& descr) {
  if (descr == "<i4") return " (use --type int)";
  if (descr == "<f4") return " (use --type float)";
  if (descr == "<f8") return " (use --type double)";
  return " (supported: <i4 int32, <f4 float32, <f8 float64)";
}

// Whether a .npy array of dtype descr can be read as T: its own dtype, or one that
// converts to T exactly (int32 to float or double, float32 to double; int32 to float
// is checked value by value).
template <typename T>
bool reads_as(const std::string& descr) {
  return descr == npy_descr<T>() || (descr == "<i4" && !std::is_same_v<T, int>) ||
         (descr == "<f4" && std::is_same_v<T, double>);
}

constexpr char kNpyMagic[] = "\x93NUMPY";

const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a pipe (FIFO)";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device file";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string dict_value(const std::string& header, const std::string& key, const std::string& path) {
  // Matches 'key': value up to the next top-level comma or closing brace; the shape
  // value is a parenthesised tuple, matched whole.
  std::regex pattern("'" + key + "'\\s*:\\s*(\\([^)]*\\)|'[^']*'|[A-Za-z]+)");
  std::smatch match;
  if (!std::regex_search(header, match, pattern)) {
    throw UsageError(path + ": not a valid .npy file: header has no '" + key + "' entry");
  }
  return match[1];
}

// The decimal length of a 1-D shape, refused when it does not fit in 64 bits.
std::uint64_t parse_length(const std::string& digits, const std::string& path) {
  std::uint64_t n = 0;
  for (char c : digits) {
    const std::uint64_t d = static_cast<std::uint64_t>(c - '0');
    if (n > (UINT64_MAX - d) / 10) {
      throw UsageError(path + ": not a valid .npy file: its shape, a number of " + std::to_string(digits.size()) +
                       " digits, does not fit in 64 bits");
    }
    n = n * 10 + d;
  }
  return n;
}

void read_header_bytes(std::FILE* file, void* into, std::size_t bytes, const std::string& path) {
  if (std::fread(into, 1, bytes, file) != bytes) throw UsageError(path + ": not a valid .npy file: truncated header");
}

// count values of type T; the caller has checked that the file holds them.
template <typename T>
std::vector<T> read_values(std::FILE* file, std::size_t count, const std::string& path, const char* what) {
  std::vector<T> values(count);
  std::size_t got = count ? std::fread(values.data(), sizeof(T), count, file) : 0;
  if (got != count) {
    throw UsageError(path + ": " + what + " truncated: expected " + std::to_string(count) + " values, found " +
                     std::to_string(got));
  }
  return values;
}

// count values stored as From, converted to T. Only int32 to float can lose a value:
// it refuses the first one that a float cannot hold exactly.
template <typename From, typename T>
std::vector<T> read_converted(std::FILE* file, std::size_t count, const std::string& path) {
  const std::vector<From> stored = read_values<From>(file, count, path, ".npy data");
  std::vector<T> values(count);
  for (std::size_t i = 0; i < count; ++i) {
    values[i] = static_cast<T>(stored[i]);
    if (std::is_same_v<From, int> && static_cast<double>(values[i]) != static_cast<double>(stored[i])) {
      throw UsageError(path + ": value " + std::to_string(stored[i]) + " at index " + std::to_string(i) +
                       " is not exactly a float (a float holds integers exactly up to 2^24 = 16777216); use "
                       "--type double or --type int");
    }
  }
  return values;
}

}  // namespace

NpyHeader read_npy_header(std::FILE* file, std::uint64_t file_bytes, const std::string& path) {
  unsigned char version[2] = {};
  read_header_bytes(file, version, 2, path);
  if (version[0] < 1 || version[0] > 3) {
    throw UsageError(path + ": unsupported .npy format version " + std::to_string(version[0]));
  }
  unsigned char len[4] = {};
  const std::size_t len_bytes = version[0] == 1 ? 2 : 4;
  read_header_bytes(file, len, len_bytes, path);
  const std::uint64_t header_len = len[0] | (len[1] << 8) | (len[2] << 16) | (std::uint64_t(len[3]) << 24);
  NpyHeader npy;
  npy.data_offset = 8 + len_bytes + header_len;
  if (npy.data_offset > file_bytes) {
    throw UsageError(path + ": not a valid .npy file: truncated header (it claims " + std::to_string(header_len) +
                     " bytes, the file has " + std::to_string(file_bytes) + ")");
  }
  std::string header(header_len, '\0');
  read_header_bytes(file, &header[0], header_len, path);
  npy.descr = dict_value(header, "descr", path);
  npy.descr = npy.descr.substr(1, npy.descr.size() - 2);  // strip the quotes
  if (npy.descr.size() == 3 && npy.descr[0] == '|') npy.descr[0] = '<';  // one-byte order mark: no order
  if (!npy.descr.empty() && npy.descr[0] == '>') {
    throw UsageError(path + ": big-endian data ('" + npy.descr + "') is not supported; save it little-endian");
  }
  npy.fortran_order = dict_value(header, "fortran_order", path) != "False";
  npy.shape = dict_value(header, "shape", path);
  return npy;
}

std::uint64_t parse_npy_dimension(const std::string& digits, const std::string& path) {
  return parse_length(digits, path);
}

namespace {

template <typename T>
std::vector<T> read_npy(std::FILE* file, std::uint64_t file_bytes, const std::string& path, InputInfo& info) {
  const NpyHeader npy = read_npy_header(file, file_bytes, path);
  const std::string& descr = npy.descr;
  const std::uint64_t data_offset = npy.data_offset;
  if (!reads_as<T>(descr)) {
    throw UsageError(path + ": holds dtype '" + descr + "' but --type " + dtype_name(dtype_of<T>()) +
                     " expects '" + npy_descr<T>() + "'" + suggest_type(descr));
  }
  if (npy.fortran_order) throw UsageError(path + ": Fortran-ordered arrays are not supported; save a C-ordered 1-D array");
  const std::string& shape = npy.shape;
  std::smatch dims;
  if (!std::regex_match(shape, dims, std::regex("\\(\\s*(\\d+)\\s*,\\s*\\)"))) {
    throw UsageError(path + ": array has shape " + shape + "; only 1-D arrays are accepted (shape (N,))");
  }
  const std::uint64_t n = parse_length(dims[1], path);
  const std::uint64_t element_bytes = descr == "<f8" ? 8 : 4;
  const std::uint64_t data_bytes = file_bytes - data_offset;
  if (n > data_bytes / element_bytes) {
    throw UsageError(path + ": .npy data truncated: expected " + std::to_string(n) + " values, found " +
                     std::to_string(data_bytes / element_bytes));
  }
  if (data_bytes > n * element_bytes) {
    info.warning = path + ": " + std::to_string(data_bytes - n * element_bytes) + " bytes after the " +
                   std::to_string(n) + " values of the array are ignored";
  }
  if (descr == npy_descr<T>()) return read_values<T>(file, n, path, ".npy data");
  info.converted_from = descr == "<i4" ? "int32" : "float32";
  if (descr == "<i4") return read_converted<int, T>(file, n, path);
  return read_converted<float, T>(file, n, path);
}

}  // namespace

template <typename T>
std::vector<T> load_input(const std::string& path, InputInfo* info) {
  InputInfo found;
  // stat() first: opening a pipe would block, and a directory or device has no length.
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) {
    throw UsageError("cannot open input file '" + path + "': " + std::strerror(errno));
  }
  if (!S_ISREG(status.st_mode)) {
    throw UsageError("input file '" + path + "' is " + file_kind(status.st_mode) +
                     "; --input expects a regular file (a .npy array or raw values)");
  }
  const std::uint64_t file_bytes = static_cast<std::uint64_t>(status.st_size);
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) throw UsageError("cannot open input file '" + path + "': " + std::strerror(errno));

  char magic[6] = {};
  const std::size_t got = std::fread(magic, 1, 6, file.get());
  std::vector<T> values;
  if (got == 6 && std::memcmp(magic, kNpyMagic, 6) == 0) {
    values = read_npy<T>(file.get(), file_bytes, path, found);
  } else if (path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0) {
    throw UsageError(path + ": not a valid .npy file: it does not start with the NumPy magic bytes");
  } else {
    // Raw binary: the file size gives N.
    if (file_bytes % sizeof(T) != 0) {
      throw UsageError(path + ": raw file of " + std::to_string(file_bytes) + " bytes is not a whole number of " +
                       dtype_name(dtype_of<T>()) + " values (" + std::to_string(sizeof(T)) +
                       " bytes each); check --type, or save a .npy file");
    }
    std::rewind(file.get());
    values = read_values<T>(file.get(), file_bytes / sizeof(T), path, "raw data");
  }
  if (info) *info = found;
  return values;
}

void write_npy_header(std::ostream& out, const std::string& descr, const std::string& shape) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces so that magic + version + length + header + '\n' is a multiple of 64.
  std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  out.write(kNpyMagic, 6);
  const char version[2] = {1, 0};
  out.write(version, 2);
  const unsigned char len[2] = {static_cast<unsigned char>(header.size() & 0xFF),
                                static_cast<unsigned char>(header.size() >> 8)};
  out.write(reinterpret_cast<const char*>(len), 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
}

template <typename T>
void save_npy(const std::string& path, const std::vector<T>& values) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw UsageError("cannot write '" + path + "'");
  write_npy_header(out, npy_descr<T>(), "(" + std::to_string(values.size()) + ",)");
  out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(T)));
  if (!out) throw UsageError("cannot write '" + path + "'");
}

#define REDUCTION_INSTANTIATE(T)                                                          \
  template std::vector<T> generate_input<T>(std::size_t, std::uint64_t, bool);           \
  template std::vector<T> load_input<T>(const std::string&, InputInfo*);                 \
  template void save_npy<T>(const std::string&, const std::vector<T>&);
REDUCTION_INSTANTIATE(int)
REDUCTION_INSTANTIATE(float)
REDUCTION_INSTANTIATE(double)
#undef REDUCTION_INSTANTIATE

}  // namespace reduction
