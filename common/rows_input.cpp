// rows_input.cpp: a matrix on the host (HostMatrix, rows_harness.h): generated at random,
// read from a 2-D .npy file, or written to one. Host code, compiled without nvcc: the half
// and bfloat16 conversions of cuda_fp16.h and cuda_bf16.h work on the host too.
#include "rows_harness.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <regex>

#include "input.h"
#include "parallel.h"
#include "random.h"
#include "rows_internal.h"

namespace reduction::rows_harness {

using internal::kMaxDimension;

// ---------------------------------------------------------------- elements on the host

namespace {

// Rounds a value to `type` and returns the stored bits and the value they hold.
struct Rounded {
  std::uint32_t bits;  // float bits, or the 16 bits of a half / bfloat16
  float value;
};

Rounded round_to(ElementType type, double x) {
  Rounded r{};
  if (type == ElementType::Float) {
    r.value = static_cast<float>(x);
    std::memcpy(&r.bits, &r.value, 4);
  } else if (type == ElementType::Half) {
    const __half h = __double2half(x);
    r.bits = __half_as_ushort(h);
    r.value = __half2float(h);
  } else {
    const __nv_bfloat16 b = __double2bfloat16(x);
    r.bits = __bfloat16_as_ushort(b);
    r.value = __bfloat162float(b);
  }
  return r;
}

void store(std::vector<unsigned char>& bytes, std::size_t i, ElementType type, std::uint32_t bits) {
  if (type == ElementType::Float) std::memcpy(&bytes[4 * i], &bits, 4);
  else {
    const std::uint16_t half_bits = static_cast<std::uint16_t>(bits);
    std::memcpy(&bytes[2 * i], &half_bits, 2);
  }
}

HostMatrix empty_matrix(std::size_t rows, std::size_t cols, ElementType type) {
  HostMatrix m;
  m.rows = rows;
  m.cols = cols;
  m.type = type;
  m.bytes.resize(rows * cols * element_bytes(type));
  m.values.resize(rows * cols);
  return m;
}

}  // namespace

HostMatrix random_matrix(std::size_t rows, std::size_t cols, ElementType type, std::uint64_t seed) {
  HostMatrix m = empty_matrix(rows, cols, type);
  const std::size_t n = rows * cols;
  parallel_chunks(n, [&](unsigned, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const Rounded r = round_to(type, random_value<float>(seed, i, n));
      store(m.bytes, i, type, r.bits);
      m.values[i] = r.value;
    }
  });
  m.source = "random, --seed " + std::to_string(seed);
  return m;
}

// ---------------------------------------------------------------- 2-D .npy files

namespace {

constexpr char kNpyMagic[] = "\x93NUMPY";

}  // namespace

HostMatrix load_matrix(const std::string& path, ElementType type) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) {
    throw UsageError("cannot open input file '" + path + "': " + std::strerror(errno));
  }
  if (!S_ISREG(status.st_mode)) throw UsageError("input file '" + path + "' is not a regular file");
  const std::uint64_t file_bytes = static_cast<std::uint64_t>(status.st_size);
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) throw UsageError("cannot open input file '" + path + "': " + std::strerror(errno));
  auto read_exactly = [&](void* into, std::size_t bytes, const char* what) {
    if (bytes && std::fread(into, 1, bytes, file.get()) != bytes) throw UsageError(path + ": " + what);
  };

  char magic[6] = {};
  if (std::fread(magic, 1, 6, file.get()) != 6 || std::memcmp(magic, kNpyMagic, 6) != 0) {
    throw UsageError(path + ": not a .npy file (it does not start with the NumPy magic bytes); save the matrix "
                            "with numpy.save");
  }
  const NpyHeader npy = read_npy_header(file.get(), file_bytes, path);
  const std::string& descr = npy.descr;
  const std::uint64_t data_offset = npy.data_offset;
  if (descr != "<f4" && descr != "<f2" && descr != "<f8") {
    throw UsageError(path + ": holds dtype '" + descr + "'; 13_rows reads float32 '<f4', float16 '<f2' or float64 "
                            "'<f8' (convert with array.astype(numpy.float32))");
  }
  if (npy.fortran_order) {
    throw UsageError(path + ": Fortran-ordered arrays are not supported; save numpy.ascontiguousarray(matrix)");
  }
  const std::string& shape = npy.shape;
  std::smatch dims;
  if (!std::regex_match(shape, dims, std::regex("\\(\\s*(\\d+)\\s*,\\s*(\\d+)\\s*,?\\s*\\)"))) {
    throw UsageError(path + ": array has shape " + shape + "; 13_rows expects a 2-D array (M, K), one row per result");
  }
  const std::uint64_t rows = parse_npy_dimension(dims[1], path), cols = parse_npy_dimension(dims[2], path);
  if (cols != 0 && rows > kMaxDimension / cols) throw UsageError(path + ": shape " + shape + " is more than 2^40 elements");
  const std::uint64_t stored_bytes = descr == "<f8" ? 8 : descr == "<f4" ? 4 : 2;
  const std::uint64_t count = rows * cols;
  if (count > (file_bytes - data_offset) / stored_bytes) {
    throw UsageError(path + ": .npy data truncated: the shape " + shape + " needs " + std::to_string(count * stored_bytes) +
                     " bytes, the file holds " + std::to_string(file_bytes - data_offset));
  }

  HostMatrix m = empty_matrix(rows, cols, type);
  std::vector<unsigned char> stored(count * stored_bytes);
  read_exactly(stored.data(), stored.size(), ".npy data truncated");
  bool rounded = false;
  for (std::size_t i = 0; i < count; ++i) {
    double x = 0;
    if (stored_bytes == 8) {
      std::memcpy(&x, &stored[8 * i], 8);
    } else if (stored_bytes == 4) {
      float f = 0;
      std::memcpy(&f, &stored[4 * i], 4);
      x = f;
    } else {
      std::uint16_t bits = 0;
      std::memcpy(&bits, &stored[2 * i], 2);
      x = __half2float(__ushort_as_half(bits));
    }
    const Rounded r = round_to(type, x);
    rounded = rounded || (static_cast<double>(r.value) != x && !(std::isnan(x) && std::isnan(r.value)));
    store(m.bytes, i, type, r.bits);
    m.values[i] = r.value;
  }
  const std::string from = stored_bytes == 8 ? "float64" : stored_bytes == 4 ? "float32" : "float16";
  const bool same_type =
      (from == "float32" && type == ElementType::Float) || (from == "float16" && type == ElementType::Half);
  if (rounded) {
    m.source = path + ": " + from + " values rounded to " + element_name(type) +
               " (to nearest; the reference uses the rounded values)";
  } else {
    m.source = path + (same_type ? ": " + from : ": " + from + " values, converted exactly");
  }
  return m;
}

void save_matrix_npy(const std::string& path, std::size_t rows, std::size_t cols, const std::vector<float>& values,
                     bool float16) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw UsageError("cannot write '" + path + "'");
  write_npy_header(out, float16 ? "<f2" : "<f4", "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")");
  for (std::size_t i = 0; i < rows * cols; ++i) {
    if (float16) {
      const std::uint16_t bits = __half_as_ushort(__float2half_rn(values[i]));
      out.write(reinterpret_cast<const char*>(&bits), 2);
    } else {
      out.write(reinterpret_cast<const char*>(&values[i]), 4);
    }
  }
  if (!out) throw UsageError("cannot write '" + path + "'");
}

}  // namespace reduction::rows_harness
