#include "input.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>

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

constexpr char kNpyMagic[] = "\x93NUMPY";

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

}  // namespace

template <typename T>
std::vector<T> load_input(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) throw UsageError("cannot open input file '" + path + "': " + std::strerror(errno));

  char magic[6] = {};
  std::size_t got = std::fread(magic, 1, 6, file.get());
  if (got == 6 && std::memcmp(magic, kNpyMagic, 6) == 0) {
    unsigned char version[2] = {};
    if (std::fread(version, 1, 2, file.get()) != 2) throw UsageError(path + ": not a valid .npy file: truncated header");
    std::size_t header_len = 0;
    if (version[0] == 1) {
      unsigned char len[2];
      if (std::fread(len, 1, 2, file.get()) != 2) throw UsageError(path + ": not a valid .npy file: truncated header");
      header_len = len[0] | (len[1] << 8);
    } else if (version[0] == 2 || version[0] == 3) {
      unsigned char len[4];
      if (std::fread(len, 1, 4, file.get()) != 4) throw UsageError(path + ": not a valid .npy file: truncated header");
      header_len = len[0] | (len[1] << 8) | (len[2] << 16) | (std::size_t(len[3]) << 24);
    } else {
      throw UsageError(path + ": unsupported .npy format version " + std::to_string(version[0]));
    }
    std::string header(header_len, '\0');
    if (std::fread(&header[0], 1, header_len, file.get()) != header_len) {
      throw UsageError(path + ": not a valid .npy file: truncated header");
    }
    std::string descr = dict_value(header, "descr", path);
    descr = descr.substr(1, descr.size() - 2);  // strip the quotes
    if (descr == "|i4" || descr == "|f4" || descr == "|f8") descr[0] = '<';
    if (!descr.empty() && descr[0] == '>') {
      throw UsageError(path + ": big-endian data ('" + descr + "') is not supported; save it little-endian");
    }
    if (descr != npy_descr<T>()) {
      throw UsageError(path + ": holds dtype '" + descr + "' but --type " + dtype_name(dtype_of<T>()) +
                       " expects '" + npy_descr<T>() + "'" + suggest_type(descr));
    }
    if (dict_value(header, "fortran_order", path) != "False") {
      throw UsageError(path + ": Fortran-ordered arrays are not supported; save a C-ordered 1-D array");
    }
    std::string shape = dict_value(header, "shape", path);
    std::smatch dims;
    if (!std::regex_match(shape, dims, std::regex("\\(\\s*(\\d+)\\s*,\\s*\\)"))) {
      throw UsageError(path + ": array has shape " + shape + "; only 1-D arrays are accepted (shape (N,))");
    }
    std::size_t n = std::stoull(dims[1]);
    std::vector<T> values = read_values<T>(file.get(), n, path, ".npy data");
    return values;
  }

  if (path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0) {
    throw UsageError(path + ": not a valid .npy file: it does not start with the NumPy magic bytes");
  }
  // Raw binary: the file size gives N.
  if (std::fseek(file.get(), 0, SEEK_END) != 0) throw UsageError("cannot read input file '" + path + "'");
  long long bytes = std::ftell(file.get());
  if (bytes < 0) throw UsageError("cannot read input file '" + path + "'");
  if (bytes % static_cast<long long>(sizeof(T)) != 0) {
    throw UsageError(path + ": raw file of " + std::to_string(bytes) + " bytes is not a whole number of " +
                     dtype_name(dtype_of<T>()) + " values (" + std::to_string(sizeof(T)) +
                     " bytes each); check --type, or save a .npy file");
  }
  std::fseek(file.get(), 0, SEEK_SET);
  return read_values<T>(file.get(), static_cast<std::size_t>(bytes) / sizeof(T), path, "raw data");
}

template <typename T>
void save_npy(const std::string& path, const std::vector<T>& values) {
  std::ostringstream dict;
  dict << "{'descr': '" << npy_descr<T>() << "', 'fortran_order': False, 'shape': (" << values.size() << ",), }";
  std::string header = dict.str();
  // Pad with spaces so that magic + version + length + header + '\n' is a multiple of 64.
  std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::ofstream out(path, std::ios::binary);
  if (!out) throw UsageError("cannot write '" + path + "'");
  out.write(kNpyMagic, 6);
  const char version[2] = {1, 0};
  out.write(version, 2);
  const unsigned char len[2] = {static_cast<unsigned char>(header.size() & 0xFF),
                                static_cast<unsigned char>(header.size() >> 8)};
  out.write(reinterpret_cast<const char*>(len), 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * sizeof(T)));
  if (!out) throw UsageError("cannot write '" + path + "'");
}

#define REDUCTION_INSTANTIATE(T)                                                          \
  template std::vector<T> generate_input<T>(std::size_t, std::uint64_t, bool);           \
  template std::vector<T> load_input<T>(const std::string&);                             \
  template void save_npy<T>(const std::string&, const std::vector<T>&);
REDUCTION_INSTANTIATE(int)
REDUCTION_INSTANTIATE(float)
REDUCTION_INSTANTIATE(double)
#undef REDUCTION_INSTANTIATE

}  // namespace reduction
