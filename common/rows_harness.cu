#include "rows_harness.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <limits>
#include <memory>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include "cli.h"
#include "cub_rows.h"
#include "cuda_check.h"
#include "device_buffer.h"
#include "device_info.h"
#include "harness.h"
#include "input.h"
#include "l2_flush.h"
#include "parallel.h"
#include "random.h"
#include "read_floor.h"
#include "reference.h"
#include "timer.h"

namespace reduction::rows_harness {

// ---------------------------------------------------------------- names

const char* element_name(ElementType type) {
  switch (type) {
    case ElementType::Float: return "float";
    case ElementType::Half: return "half";
    case ElementType::BFloat16: return "bf16";
  }
  return "?";
}

std::size_t element_bytes(ElementType type) { return type == ElementType::Float ? 4 : 2; }

const char* op_name(RowOp op) {
  switch (op) {
    case RowOp::Sum: return "sum";
    case RowOp::Max: return "max";
    case RowOp::ArgMax: return "argmax";
    case RowOp::MeanVar: return "meanvar";
  }
  return "?";
}

const char* method_name(RowMethod method) {
  switch (method) {
    case RowMethod::Auto: return "auto";
    case RowMethod::Thread: return "thread";
    case RowMethod::Group: return "group";
    case RowMethod::Warp: return "warp";
    case RowMethod::Block: return "block";
    case RowMethod::Split: return "split";
    case RowMethod::Cluster: return "cluster";
    case RowMethod::Previous: return "previous";
    case RowMethod::SinglePass: return "single_pass";
    case RowMethod::CubSegmented: return "cub_segmented";
    case RowMethod::CubBlock: return "cub_block";
  }
  return "?";
}

std::size_t result_bytes(RowOp op) {
  switch (op) {
    case RowOp::Sum:
    case RowOp::Max: return 4;
    case RowOp::ArgMax: return 8;   // ValueIndex: a float and an int32
    case RowOp::MeanVar: return 8;  // MeanVariance: two floats
  }
  return 16;
}

namespace {

constexpr std::size_t kDefaultElements = std::size_t(1) << 26;
constexpr std::uint64_t kMaxDimension = std::uint64_t(1) << 40;
constexpr std::uint64_t kMaxReps = 100000;
template <typename Enum, typename Name>
std::string names_of(const std::vector<Enum>& values, Name name) {
  std::string text;
  for (Enum v : values) text += (text.empty() ? "" : "|") + std::string(name(v));
  return text;
}

// The value of --flag among `values` (by name), or a UsageError naming the choices.
template <typename Enum, typename Name>
Enum pick(const std::string& program, const std::string& flag, const std::string& text,
          const std::vector<Enum>& values, Name name) {
  for (Enum v : values) {
    if (text == name(v)) return v;
  }
  throw UsageError(flag + " expects " + names_of(values, name) + " in " + program + ", not '" + text + "'");
}

// The other dimension of a matrix of about 2^26 elements (for 0, the other's default).
std::size_t partner_dimension(std::size_t given, std::size_t default_other) {
  if (given == 0) return default_other;
  return std::max<std::size_t>(1, static_cast<std::size_t>(std::llround(double(kDefaultElements) / double(given))));
}

}  // namespace

std::string lanes_plan(int threads, bool block) {
  if (block) return "one block of " + std::to_string(threads) + " threads per row";
  if (threads == 32) return "one warp (32 lanes) per row";
  return "a group of " + std::to_string(threads) + " lanes per row";
}

std::size_t lanes_depth(std::size_t cols, ElementType type, int threads, bool block) {
  auto ceil_div = [](std::size_t a, std::size_t b) { return (a + b - 1) / b; };
  auto ceil_log2 = [](std::size_t x) {
    std::size_t k = 0;
    while ((std::size_t(1) << k) < x) ++k;
    return k;
  };
  const std::size_t per_vector = 16 / element_bytes(type), lanes = std::size_t(threads);
  const std::size_t trips = ceil_div(ceil_div(ceil_div(cols, per_vector), lanes), 4) + 1;
  const std::size_t scalars = 2 * ceil_div(per_vector - 1, std::min<std::size_t>(lanes, 32));
  return ceil_log2(per_vector) + 2 + trips + scalars + (block ? 10 : ceil_log2(lanes));
}

// ---------------------------------------------------------------- command line

std::vector<RowMethod> methods_of(const RowsProgram& program) {
  std::vector<RowMethod> methods = program.methods;
  methods.push_back(RowMethod::CubSegmented);
  methods.push_back(RowMethod::CubBlock);
  return methods;
}

namespace {
bool is_cub(RowMethod method) { return method == RowMethod::CubSegmented || method == RowMethod::CubBlock; }
}  // namespace

RowLaunch launcher_of(const RowsProgram& program, RowMethod method, ElementType type, RowOp op) {
  return is_cub(method) ? cub_rows::launcher(method, type, op) : program.launcher(method, type, op);
}

std::string refusal(const RowsProgram& program, RowMethod method, RowOp op, std::size_t rows, std::size_t cols,
                    ElementType type) {
  if (!launcher_of(program, method, type, op).launch) {
    return std::string("--method ") + method_name(method) + " does not offer --op " + op_name(op) + " --type " +
           element_name(type);
  }
  // Every argmax and meanvar here counts columns in 32 bits (CUB's segmented argmax refuses
  // more, in cub_rows::refuse).
  if ((op == RowOp::ArgMax || op == RowOp::MeanVar) && cols > std::size_t(INT_MAX)) {
    return std::string("--op ") + op_name(op) + " takes rows of at most 2^31 - 1 columns (a 32-bit column or count)";
  }
  return is_cub(method) ? cub_rows::refuse(method, op, rows, cols) : program.refuse(method, op, rows, cols, type);
}

std::string describe_of(const RowsProgram& program, RowMethod method, std::size_t rows, std::size_t cols,
                        ElementType type) {
  return is_cub(method) ? cub_rows::describe(method, rows, cols, type) : program.describe(method, rows, cols, type);
}

std::size_t depth_of(const RowsProgram& program, RowMethod method, std::size_t rows, std::size_t cols,
                     ElementType type) {
  return is_cub(method) ? cub_rows::depth(method, rows, cols, type) : program.depth(method, rows, cols, type);
}

namespace {

const char* op_help(RowOp op) {
  switch (op) {
    case RowOp::Sum: return "sum (default)";
    case RowOp::Max: return "max";
    case RowOp::ArgMax: return "argmax (value and first column)";
    case RowOp::MeanVar: return "meanvar (mean and population variance)";
  }
  return "?";
}

const char* method_help(RowMethod method) {
  switch (method) {
    case RowMethod::Auto: return "auto (the chapter's rule)";
    case RowMethod::Thread: return "thread";
    case RowMethod::Group: return "group";
    case RowMethod::Warp: return "warp";
    case RowMethod::Block: return "block";
    case RowMethod::Split: return "split (a row over several blocks)";
    case RowMethod::Cluster: return "cluster (a row's blocks as one thread-block cluster; compute capability 9.0)";
    case RowMethod::Previous: return "previous (the previous chapter's auto)";
    case RowMethod::SinglePass: return "single_pass (09's sum of one row)";
    case RowMethod::CubSegmented: return "cub_segmented (cub::DeviceSegmentedReduce; no meanvar)";
    case RowMethod::CubBlock: return "cub_block (cub::WarpReduce, cub::BlockReduce)";
  }
  return "?";
}

// "a, b, c", wrapped for the usage text.
template <typename Enum, typename Help>
std::string described(const std::vector<Enum>& values, Help help) {
  std::string text, line;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::string item = std::string(help(values[i])) + (i + 1 < values.size() ? ", " : "");
    if (line.size() + item.size() > 80) {
      text += line.substr(0, line.size() - 1) + "\n               ";  // without the trailing space
      line.clear();
    }
    line += item;
  }
  return text + line;
}

}  // namespace

std::string rows_usage(const RowsProgram& program) {
  std::ostringstream out;
  std::string sweep_types;
  for (ElementType type : {ElementType::Float, ElementType::BFloat16}) {
    if (std::find(program.types.begin(), program.types.end(), type) == program.types.end()) continue;
    sweep_types += (sweep_types.empty() ? "" : " and ") + std::string(element_name(type));
  }
  std::string ks;
  for (std::size_t k : program.sweep_cols) ks += (ks.empty() ? "" : ", ") + std::to_string(k);
  out << "usage: " << program.id << " [--rows M] [--cols K] [--type " << names_of(program.types, element_name)
      << "]\n       [--op " << names_of(program.ops, op_name) << "] [--method "
      << names_of(methods_of(program), method_name) << "]\n"
      << "       [--input FILE.npy] [--reps R] [--seed S] [--no-flush] [--json] [--sweep] [--out DIR] [--help]\n\n"
      << "  --rows M     rows of the row-major matrix (default 65536; with --cols alone, about 2^26 / K)\n"
      << "  --cols K     elements per row (default 1024; with --rows alone, about 2^26 / M); 2^K+C is accepted\n"
      << "  --type T     element type (default float); results are float either way\n"
      << "  --op OP      " << described(program.ops, op_help) << "\n"
      << "  --method X   " << described(methods_of(program), method_help) << "\n"
      << "  --input FILE reduce the rows of FILE: a 2-D .npy array (C order) of float32, float16 or float64\n"
      << "  --reps R     timed repetitions; the median is reported (default 30)\n"
      << "  --seed S     seed of the random input, any 64-bit value (default: a fresh one, printed)\n"
      << "  --no-flush   do not flush the L2 cache before each timed repetition\n"
      << "  --json       print one JSON object instead of the report\n"
      << "  --sweep      M x K = 2^26 at K = " << ks << ", " << sweep_types << ":\n"
      << "               every method, CUB and the read-only floor interleaved, and each operator at some K;\n"
      << "               writes rows_sweep.csv and rows_sweep.json\n"
      << "  --out DIR    folder for the --sweep files, created if missing (default: the current folder)\n"
      << "\nEvery row is checked against a CPU reference in double, and the read-only floor (a kernel that\n"
      << "only reads the input) is timed in the same run.\n"
      << "\nexit codes: 0 verified, 1 wrong result, 2 bad usage or input, 3 no CUDA device or a CUDA error\n";
  return out.str();
}

RowsOptions parse_rows_options(const RowsProgram& program, int argc, const char* const* argv) {
  RowsOptions options;
  auto value_of = [&](int& i, const std::string& flag) -> std::string {
    if (i + 1 >= argc) throw UsageError(flag + " needs a value");
    return argv[++i];
  };
  std::set<std::string> seen;
  bool out_given = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i] == std::string("-h") ? "--help" : argv[i];
    if (!seen.insert(arg).second) throw UsageError(arg + " given twice; give each option once");
    if (arg == "--help") {
      options.help = true;
    } else if (arg == "--rows") {
      options.rows = parse_count(arg, value_of(i, arg), kMaxDimension);
      options.rows_given = true;
    } else if (arg == "--cols") {
      options.cols = parse_count(arg, value_of(i, arg), kMaxDimension);
      options.cols_given = true;
    } else if (arg == "--type") {
      options.type = pick(program.id, arg, value_of(i, arg), program.types, element_name);
    } else if (arg == "--op") {
      options.op = pick(program.id, arg, value_of(i, arg), program.ops, op_name);
    } else if (arg == "--method") {
      options.method = pick(program.id, arg, value_of(i, arg), methods_of(program), method_name);
    } else if (arg == "--input") {
      options.input = value_of(i, arg);
      if (options.input.empty()) throw UsageError("--input needs a file name");
    } else if (arg == "--reps") {
      const std::uint64_t reps = parse_count(arg, value_of(i, arg), kMaxReps);
      if (reps == 0) throw UsageError("--reps must be at least 1");
      options.reps = static_cast<int>(reps);
    } else if (arg == "--seed") {
      options.seed = parse_count(arg, value_of(i, arg), ~std::uint64_t(0));
      options.seed_given = true;
    } else if (arg == "--no-flush") {
      options.flush = false;
    } else if (arg == "--json") {
      options.json = true;
    } else if (arg == "--sweep") {
      options.sweep = true;
    } else if (arg == "--out") {
      options.out_dir = value_of(i, arg);
      out_given = true;
    } else if (arg == "--n" || arg == "--block" || arg == "--grid" || arg == "--variant") {
      throw UsageError(arg + " does not apply: " + program.id +
                       " takes --rows and --cols (and picks its launch with --method)");
    } else {
      throw UsageError("unknown option '" + arg + "' (run with --help for the list)");
    }
  }
  if (!options.input.empty() && (options.rows_given || options.cols_given)) {
    throw UsageError(std::string(options.rows_given ? "--rows" : "--cols") +
                     " and --input both given: the input file's shape sets M and K");
  }
  if (options.sweep) {
    if (!options.input.empty()) throw UsageError("--sweep generates its inputs: drop --input");
    if (options.json) throw UsageError("--json does not apply to --sweep: it writes rows_sweep.json (see --help)");
    if (options.rows_given || options.cols_given) throw UsageError("--sweep sets M and K itself: drop --rows and --cols");
  } else if (out_given) {
    throw UsageError("--out applies to --sweep only");
  }
  if (options.rows_given && !options.cols_given) options.cols = partner_dimension(options.rows, RowsOptions{}.cols);
  if (options.cols_given && !options.rows_given) options.rows = partner_dimension(options.cols, RowsOptions{}.rows);
  if (options.cols != 0 && options.rows > kMaxDimension / options.cols) {
    throw UsageError("--rows " + std::to_string(options.rows) + " x --cols " + std::to_string(options.cols) +
                     " is more than 2^40 elements");
  }
  if (!options.seed_given) options.seed = (std::uint64_t(std::random_device{}()) << 32) ^ std::random_device{}();
  return options;
}

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

// ---------------------------------------------------------------- the bounds for mean and variance

// [snippet:meanvar_bound]
// The error bound of MeanVar, first order in u = 2^-24 (float), written with
// gamma(k) = k*u / (1 - k*u) so that the higher orders are covered too. D = depth: the
// most merges of (count, mean, M2) on the way from an element (or from a set of up to
// 32 elements, a vector or a trip of four, whose state a thread computes directly) to
// the row's result; A = max |x|.
//   Mean. A merge computes mean_a + (mean_b - mean_a) * w, w = nb / n: a weighted
//   average of its two inputs, so their errors do not grow (the weights add to 1), plus
//   new rounding: at most u*|mean| + 3u*w*|mean_b - mean_a| <= u*A + 6u*A = 7u*A. A
//   set's own mean (a pairwise sum of N <= 32 values, 5 levels at most, times 1/N,
//   exact for N a power of two) is off by at most 5u*A.
//     |mean - exact| <= gamma(5 + 7D) * A = E.
//   M2. A merge adds three non-negative terms, M2a + M2b + delta^2 * na*nb/n: rounding
//   costs at most 8u of the exact node's M2 (each of its terms carries at most 6
//   roundings, and the two additions). The means entering delta are off by at most E
//   each, which changes delta^2 * na*nb/n by at most 4E*|delta|*na*nb/n <= 2E*sqrt(n*M2)
//   (because na*nb/n <= n/4 and delta^2 * na*nb/n <= M2). The nodes at one depth hold
//   disjoint elements, so their M2 add up to at most the row's M2, and by Cauchy-Schwarz
//   their sqrt(n_i * M2_i) to at most sqrt(K * M2). A set's own M2 (the pairwise sum of
//   N <= 32 squared deviations from its computed mean: 3u for each square, 5 levels)
//   is off by 8u <= 10u of itself, plus N * e^2 because it is taken around a mean that
//   is off by e <= 5u*A: at most (gamma(5) * A)^2 on the row's variance (the sets' N add
//   up to at most K). Over D depths, and after M2 / K:
//     |variance - exact| <= gamma(11 + 8D) * variance + 2D * E * sqrt(variance) + (gamma(5) * A)^2.
// (Chan, Golub and LeVeque bound the pairwise algorithm the same way: an error growing
// with the depth of the tree, times the condition number sqrt(1 + mean^2 / variance).)
static double gamma_float(double k) {
  const double ku = k * 0x1.0p-24;
  return ku >= 1.0 ? std::numeric_limits<double>::infinity() : ku / (1.0 - ku);
}

double mean_error_bound(std::size_t depth, double max_abs) {
  return gamma_float(5.0 + 7.0 * double(depth)) * max_abs;
}

double variance_error_bound(std::size_t depth, double max_abs, double variance) {
  const double shift = gamma_float(5.0) * max_abs;  // a set's M2 taken around its computed mean
  return gamma_float(11.0 + 8.0 * double(depth)) * variance +
         2.0 * double(depth) * mean_error_bound(depth, max_abs) * std::sqrt(variance) + shift * shift;
}
// [/snippet:meanvar_bound]

// ---------------------------------------------------------------- the CPU reference of a row, and the checks

namespace {

constexpr double kDoubleU = 0x1.0p-53;

struct RowFacts {
  std::size_t nans = 0, pos_infs = 0, neg_infs = 0;
  detail::Compensated sum, sum_abs;
  float max = -std::numeric_limits<float>::infinity();
  std::int64_t argmax = -1;  // the first NaN, else the first largest value; -1 for K = 0
  float argmax_value = -std::numeric_limits<float>::infinity();
  double max_abs = 0;
  double mean = 0, m2 = 0;
};

// Everything an operator's check needs about one row, in double.
RowFacts facts_of(const float* x, std::size_t cols, RowOp op) {
  RowFacts f;
  bool seen_nan = false;
  for (std::size_t j = 0; j < cols; ++j) {
    const float v = x[j];
    if (std::isnan(v)) {
      ++f.nans;
      if (!seen_nan) {
        seen_nan = true;
        f.argmax = static_cast<std::int64_t>(j);
        f.argmax_value = v;
      }
      continue;
    }
    if (std::isinf(v)) ++(v > 0 ? f.pos_infs : f.neg_infs);
    if (!seen_nan && (f.argmax < 0 || v > f.argmax_value)) {
      f.argmax = static_cast<std::int64_t>(j);
      f.argmax_value = v;
    }
    f.max = std::max(f.max, v);
    if (std::isfinite(v)) {
      f.sum.add(v);
      f.sum_abs.add(std::fabs(v));
      f.max_abs = std::max(f.max_abs, double(std::fabs(v)));
    }
  }
  if (f.nans) f.max = std::numeric_limits<float>::quiet_NaN();
  if (op == RowOp::MeanVar && cols > 0) {
    f.mean = f.sum.value() / double(cols);
    detail::Compensated m2;
    for (std::size_t j = 0; j < cols; ++j) {
      const double d = double(x[j]) - f.mean;
      m2.add(d * d);
    }
    f.m2 = m2.value();
  }
  return f;
}

std::string text(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.9g", x);
  return buffer;
}

struct RowVerdict {
  bool ok = true;
  double ratio = 0;  // error / tolerance
  std::string result, reference, why;
};

// One row's result against its reference. The float bounds: reference.h's
// sum_error_bound for sums (chains of `depth` additions in float), the bounds above for
// mean and variance; max and argmax must match exactly.
RowVerdict verdict_of(const RowFacts& f, std::size_t cols, RowOp op, const unsigned char* result, std::size_t depth) {
  RowVerdict v;
  auto tolerance_check = [&](double got, double exact, double tolerance, const char* what) {
    const double error = std::fabs(got - exact);
    if (!std::isfinite(got)) {
      v.ok = false;
      v.why = std::string(what) + " is " + text(got) + " but every input is finite";
    } else if (std::isinf(tolerance)) {
      v.ok = false;
      v.why = std::string("no error bound for ") + what + ": chains of " + std::to_string(depth) + " steps are too long";
    } else if (error > tolerance) {
      v.ok = false;
      v.why = std::string(what) + " off by " + text(error) + ", tolerance " + text(tolerance);
    }
    if (tolerance > 0 && std::isfinite(tolerance)) v.ratio = std::max(v.ratio, error / tolerance);
    else if (error > 0) v.ratio = std::numeric_limits<double>::infinity();
  };
  const bool any_inf = f.pos_infs + f.neg_infs > 0;
  switch (op) {
    case RowOp::Sum: {
      float got = 0;
      std::memcpy(&got, result, 4);
      double exact = f.sum.value();
      if (f.nans || (f.pos_infs && f.neg_infs)) exact = std::numeric_limits<double>::quiet_NaN();
      else if (f.pos_infs) exact = std::numeric_limits<double>::infinity();
      else if (f.neg_infs) exact = -std::numeric_limits<double>::infinity();
      v.result = text(got);
      v.reference = text(exact);
      if (!std::isfinite(exact)) {
        v.ok = same_non_finite(got, exact);
        if (!v.ok) v.why = "the row holds NaN or inf, so its sum is " + text(exact);
      } else {
        tolerance_check(got, exact, sum_error_bound(0x1.0p-24, 0x1.0p-24, depth, f.sum_abs.value(), exact), "the sum");
      }
      break;
    }
    case RowOp::Max: {
      float got = 0;
      std::memcpy(&got, result, 4);
      v.result = text(got);
      v.reference = text(f.max);
      v.ok = std::isnan(f.max) ? std::isnan(got) : got == f.max;
      if (!v.ok) v.why = "max must match exactly";
      break;
    }
    case RowOp::ArgMax: {
      float value = 0;
      std::int32_t index = 0;
      std::memcpy(&value, result, 4);
      std::memcpy(&index, result + 4, 4);
      v.result = text(value) + " at column " + std::to_string(index);
      v.reference = text(f.argmax_value) + " at column " + std::to_string(f.argmax);
      const bool same_value = std::isnan(f.argmax_value) ? std::isnan(value) : value == f.argmax_value;
      v.ok = index == f.argmax && same_value;
      if (!v.ok) v.why = "argmax must match exactly (first column on ties, the first NaN wins)";
      break;
    }
    case RowOp::MeanVar: {
      float mean = 0, variance = 0;
      std::memcpy(&mean, result, 4);
      std::memcpy(&variance, result + 4, 4);
      const double exact_variance = cols ? f.m2 / double(cols) : 0.0;
      v.result = "mean " + text(mean) + ", variance " + text(variance);
      if (cols == 0 || f.nans) {
        v.reference = "mean nan, variance nan";
        v.ok = std::isnan(mean) && std::isnan(variance);
        if (!v.ok) v.why = cols ? "the row holds NaN" : "a row of no columns has no mean";
      } else if (any_inf) {  // as numpy: the mean is the infinity (NaN for both signs), the variance NaN
        const float exact_mean = f.pos_infs && f.neg_infs ? std::numeric_limits<float>::quiet_NaN()
                                 : f.pos_infs             ? std::numeric_limits<float>::infinity()
                                                          : -std::numeric_limits<float>::infinity();
        v.reference = "mean " + text(exact_mean) + ", variance nan";
        v.ok = same_non_finite(mean, exact_mean) && std::isnan(variance);
        if (!v.ok) v.why = "the row holds an infinity";
      } else {
        v.reference = "mean " + text(f.mean) + ", variance " + text(exact_variance);
        // The reference's own error (compensated sums in double) is added to each bound.
        tolerance_check(mean, f.mean, mean_error_bound(depth, f.max_abs) + 4 * kDoubleU * f.max_abs, "the mean");
        if (v.ok) {
          tolerance_check(variance, exact_variance,
                          variance_error_bound(depth, f.max_abs, exact_variance) +
                              (double(cols) + 4) * kDoubleU * exact_variance,
                          "the variance");
        }
      }
      break;
    }
  }
  return v;
}

}  // namespace

RowsCheck check_rows(const HostMatrix& matrix, RowOp op, const void* results, std::size_t depth) {
  const std::size_t stride = result_bytes(op);
  const unsigned char* bytes = static_cast<const unsigned char*>(results);
  struct Part {
    std::size_t wrong = 0, first = SIZE_MAX;
    std::string first_text;
    double worst = 0;
  };
  std::vector<Part> parts(cpu_threads());
  parallel_chunks(matrix.rows, [&](unsigned t, std::size_t begin, std::size_t end) {
    Part p;
    for (std::size_t r = begin; r < end; ++r) {
      const RowFacts f = facts_of(matrix.values.data() + r * matrix.cols, matrix.cols, op);
      const RowVerdict v = verdict_of(f, matrix.cols, op, bytes + r * stride, depth);
      p.worst = std::max(p.worst, v.ratio);
      if (!v.ok) {
        if (p.wrong++ == 0) {
          p.first = r;
          p.first_text = "row " + std::to_string(r) + ": " + v.result + ", reference " + v.reference + " (" + v.why + ")";
        }
      }
    }
    parts[t] = p;
  });
  RowsCheck check;
  std::size_t first = SIZE_MAX;
  for (const Part& p : parts) {
    check.wrong_rows += p.wrong;
    check.worst = std::max(check.worst, p.worst);
    if (p.wrong && p.first < first) {
      first = p.first;
      check.first_wrong = p.first_text;
    }
  }
  check.ok = check.wrong_rows == 0;
  if (matrix.rows > 0) {
    const RowVerdict v = verdict_of(facts_of(matrix.values.data(), matrix.cols, op), matrix.cols, op, bytes, depth);
    check.row0_result = v.result;
    check.row0_reference = v.reference;
  }
  return check;
}

// ---------------------------------------------------------------- timing, interleaved

namespace {

struct Job {
  RowMethod method = RowMethod::Auto;
  RowOp op = RowOp::Sum;
  bool floor = false;  // the read-only floor: timed, not checked
  std::string label, plan;
  std::size_t depth = 0;
  RowLaunch launch;
};

struct Measurement {
  Job job;
  Spread times;
  double gbps = 0, traffic_gbps = 0;
  RowsCheck check;
  bool ok = false;
};

std::string today() {
  char buffer[16];
  const std::time_t now = std::time(nullptr);
  std::strftime(buffer, sizeof buffer, "%Y-%m-%d", std::gmtime(&now));
  return buffer;
}

double mib(double bytes) { return bytes / 1048576.0; }

// The read-only floor (common/read_floor.cu) at its default block and grid, over the
// input's bytes read as floats: a half or bf16 input of odd length leaves its last 2
// bytes unread. The grid is asked once per size (a run times many repetitions of one).
cudaError_t floor_launch(const void* data, std::size_t bytes, void* scratch, cudaStream_t stream) {
  static const Variant floor = read_floor_variant();
  static std::size_t grid_for_floats = SIZE_MAX;
  static int grid = 0;
  const std::size_t floats = bytes / sizeof(float);
  if (floats != grid_for_floats) {
    const cudaError_t status = floor.default_grid(floats, floor.default_block, &grid);
    if (status != cudaSuccess) return status;
    grid_for_floats = floats;
  }
  float* input = static_cast<float*>(const_cast<void*>(data));  // only read
  return floor.launcher<float>(Op::Sum)(input, floats, nullptr, scratch, sizeof(unsigned), floor.default_block, grid, stream);
}

// Device memory a run of these jobs needs besides the flush buffer: the input, one
// output array of the widest result, each job's CUB storage.
std::size_t device_bytes(const HostMatrix& m, std::size_t widest_result, std::size_t temp) {
  return m.bytes.size() + m.rows * widest_result + temp;
}

// Times every job on one matrix as every measurement is (time_in_turns, timer.h), its
// output poisoned first; the last repetition of each job is checked again before the next
// job overwrites the shared output array.
std::vector<Measurement> run_jobs(const RowsProgram& program, const HostMatrix& m, const std::vector<Job>& jobs,
                                  int reps, bool flush, const DeviceInfo& device) {
  cudaStream_t stream = nullptr;
  std::size_t widest = 4;
  for (const Job& job : jobs) widest = std::max(widest, job.floor ? 0 : result_bytes(job.op));
  std::vector<DeviceBuffer<unsigned char>> temps;
  std::size_t temp_total = 0;
  for (const Job& job : jobs) {
    std::size_t bytes = job.floor ? sizeof(unsigned) : 0;  // the floor's sink
    if (!job.floor && job.launch.temp_bytes_for) CUDA_CHECK(job.launch.temp_bytes_for(m.rows, m.cols, &bytes));
    temps.emplace_back(bytes);
    temp_total += bytes;
    if (bytes) CUDA_CHECK(cudaMemset(temps.back().get(), 0, bytes));
  }
  const double need = double(device_bytes(m, widest, temp_total)) + 2.0 * device.l2_bytes;
  if (need > double(device.free_bytes) - 64.0 * 1048576.0) {
    char message[256];
    std::snprintf(message, sizeof message,
                  "%zu x %zu %s needs %.2f GiB of device memory (input, results, L2 flush buffer) but %s has %.2f GiB free",
                  m.rows, m.cols, element_name(m.type), need / 1073741824.0, device.name.c_str(),
                  device.free_bytes / 1073741824.0);
    throw UsageError(message);
  }
  DeviceBuffer<uint4> input((m.bytes.size() + 15) / 16);  // 16-byte aligned, as cudaMalloc's pointers are
  if (!m.bytes.empty()) CUDA_CHECK(cudaMemcpy(input.get(), m.bytes.data(), m.bytes.size(), cudaMemcpyHostToDevice));
  DeviceBuffer<unsigned char> output(m.rows * widest);
  L2Flusher flusher(device.l2_bytes);
  std::vector<unsigned char> host_results(m.rows * widest);

  auto prepare = [&](std::size_t j, unsigned char poison) {
    if (!jobs[j].floor && output.bytes()) CUDA_CHECK(cudaMemsetAsync(output.get(), poison, output.bytes(), stream));
  };
  auto launch = [&](std::size_t j) {
    const Job& job = jobs[j];
    if (job.floor) CUDA_CHECK(floor_launch(input.get(), m.bytes.size(), temps[j].get(), stream));
    else CUDA_CHECK(job.launch.launch(input.get(), m.rows, m.cols, output.get(), temps[j].get(), temps[j].bytes(), stream));
  };
  std::vector<Measurement> measurements(jobs.size());
  auto checked = [&](std::size_t j, bool after_last) {
    Measurement& mm = measurements[j];
    if (jobs[j].floor || (after_last && !mm.check.ok)) return;
    const std::size_t bytes = m.rows * result_bytes(jobs[j].op);
    if (bytes) CUDA_CHECK(cudaMemcpy(host_results.data(), output.get(), bytes, cudaMemcpyDeviceToHost));
    const RowsCheck check = check_rows(m, jobs[j].op, host_results.data(), jobs[j].depth);
    if (!after_last) {
      mm.check = check;
    } else if (!check.ok) {
      mm.check = check;
      mm.check.first_wrong = "the first run was right but the last timed one was not: " + check.first_wrong;
    }
  };
  for (std::size_t j = 0; j < jobs.size(); ++j) measurements[j].job = jobs[j];
  const std::vector<std::vector<double>> times =
      time_in_turns(jobs.size(), reps, flush ? &flusher : nullptr, prepare, launch, checked);
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    Measurement& mm = measurements[j];
    mm.times = summarize(times[j]);
    const double seconds = mm.times.median * 1e-3;
    const double out_bytes = jobs[j].floor ? 0.0 : double(m.rows * result_bytes(jobs[j].op));
    mm.gbps = seconds > 0 ? double(m.bytes.size()) / seconds / 1e9 : 0.0;
    mm.traffic_gbps = seconds > 0 ? (double(m.bytes.size()) + out_bytes) / seconds / 1e9 : 0.0;
    mm.ok = jobs[j].floor || mm.check.ok;
  }
  return measurements;
}

Job make_job(const RowsProgram& program, RowMethod method, RowOp op, const HostMatrix& m) {
  Job job;
  job.method = method;
  job.op = op;
  job.label = method_name(method);
  job.plan = describe_of(program, method, m.rows, m.cols, m.type);
  job.depth = depth_of(program, method, m.rows, m.cols, m.type);
  job.launch = launcher_of(program, method, m.type, op);
  return job;
}

Job floor_job() {
  Job job;
  job.floor = true;
  job.label = "floor";
  job.plan = "the read-only floor: reads the input with 16-byte loads, computes nothing";
  return job;
}

// ---------------------------------------------------------------- the report of one run

void print_report(const RowsProgram& program, const RowsOptions& options, const DeviceInfo& device, const HostMatrix& m,
                  const Measurement& run, const Measurement& floor) {
  const double peak = device.peak_gbps();
  const double of_floor = run.times.median > 0 ? 100.0 * floor.times.median / run.times.median : 0.0;
  const std::string wrong = run.check.ok ? "" : std::to_string(run.check.wrong_rows) + " of " + std::to_string(m.rows);
  if (options.json) {
    JsonObject json;
    json.str("chapter", program.id).num("rows", m.rows).num("cols", m.cols).str("type", element_name(m.type))
        .str("op", op_name(run.job.op)).str("method", method_name(run.job.method)).str("plan", run.job.plan)
        .num("depth", run.job.depth).flag("ok", run.ok).num("wrong_rows", run.check.wrong_rows)
        .str("first_wrong", run.check.first_wrong).raw("worst_error_over_tolerance", json_number(text(run.check.worst)))
        .str("row0_result", run.check.row0_result).str("row0_reference", run.check.row0_reference)
        .num("ms", run.times.median, "%.6f").num("min_ms", run.times.min, "%.6f").num("iqr_ms", run.times.iqr, "%.6f")
        .num("gbps", run.gbps, "%.3f").num("traffic_gbps", run.traffic_gbps, "%.3f").num("peak_gbps", peak, "%.3f")
        .num("percent_of_peak", peak > 0 ? 100.0 * run.gbps / peak : 0.0, "%.2f")
        .num("floor_ms", floor.times.median, "%.6f").num("floor_gbps", floor.gbps, "%.3f")
        .num("percent_of_floor", of_floor, "%.2f").num("input_bytes", m.bytes.size())
        .num("output_bytes", m.rows * result_bytes(run.job.op)).num("reps", options.reps).flag("flush", options.flush)
        .num("seed", options.seed).str("input", options.input).str("device", device.name)
        .str("cuda", cuda_version_string());
    std::printf("%s\n", json.text().c_str());
    return;
  }
  std::printf("%s: %s\n", program.id.c_str(), program.summary.c_str());
  std::printf("device     %s, peak %.1f GB/s, CUDA %s\n", device.describe().c_str(), peak, cuda_version_string().c_str());
  std::printf("input      %zu x %zu %s (%s), %.1f MiB\n", m.rows, m.cols, element_name(m.type), m.source.c_str(),
              mib(double(m.bytes.size())));
  std::printf("operator   %s, one result per row\n", op_name(run.job.op));
  std::printf("method     %s: %s\n", method_name(run.job.method), run.job.plan.c_str());
  if (m.rows > 0) {
    std::printf("row 0      %s (reference %s)\n", run.check.row0_result.c_str(), run.check.row0_reference.c_str());
  }
  const char* kind = run.job.op == RowOp::Max || run.job.op == RowOp::ArgMax ? "exact match required"
                                                                               : "float bounds, depth";
  if (run.job.op == RowOp::Max || run.job.op == RowOp::ArgMax) {
    std::printf("check      every row against the CPU reference (%s): %s\n", kind,
                run.check.ok ? "ok" : ("WRONG in " + wrong + " rows").c_str());
  } else {
    std::printf("check      every row against the CPU reference (%s %zu; largest error %.2f of its tolerance): %s\n",
                kind, run.job.depth, run.check.worst, run.check.ok ? "ok" : ("WRONG in " + wrong + " rows").c_str());
  }
  if (!run.check.ok) std::printf("first      %s\n", run.check.first_wrong.c_str());
  std::printf("time       %s ms (median of %d, min %s, spread %.1f%%, L2 %s)  %.1f GB/s  %.1f%% of peak\n",
              format_ms(run.times.median).c_str(), options.reps, format_ms(run.times.min).c_str(),
              run.times.median > 0 ? 100.0 * run.times.iqr / run.times.median : 0.0,
              options.flush ? "flushed" : "not flushed", run.gbps, peak > 0 ? 100.0 * run.gbps / peak : 0.0);
  std::printf("floor      %s ms, %.1f GB/s: a kernel that only reads the input; this run takes %.1f%% of the floor's "
              "bandwidth\n",
              format_ms(floor.times.median).c_str(), floor.gbps, of_floor);
  std::printf("output     %.1f MiB of results written (%.1f GB/s counting them with the input)\n",
              mib(double(m.rows * result_bytes(run.job.op))), run.traffic_gbps);
}

// ---------------------------------------------------------------- the sweep

constexpr ElementType kSweepTypes[] = {ElementType::Float, ElementType::BFloat16};

int sweep(const RowsProgram& program, const RowsOptions& options, const DeviceInfo& device) {
  const std::string dir = sweep_folder(options.out_dir);
  std::ofstream csv(dir + "/rows_sweep.csv"), json(dir + "/rows_sweep.json");
  if (!csv || !json) throw UsageError("cannot write the sweep files in '" + dir + "'");
  csv << "type,k,m,op,method,plan,ms,min_ms,iqr_ms,gbps,traffic_gbps,percent_of_peak,percent_of_floor,ok\n";
  JsonObject head;
  head.str("chapter", program.id).str("device", device.name).str("cuda", cuda_version_string()).str("date", today())
      .num("peak_gbps", device.peak_gbps()).num("elements", kDefaultElements).num("reps", options.reps)
      .flag("flush", options.flush).num("seed", options.seed);
  std::vector<std::string> items;  // the rows, one line each
  bool all_ok = true;
  for (ElementType type : kSweepTypes) {
    if (std::find(program.types.begin(), program.types.end(), type) == program.types.end()) continue;
    for (std::size_t k : program.sweep_cols) {
      const std::size_t m_rows = partner_dimension(k, 1);
      const HostMatrix m = random_matrix(m_rows, k, type, options.seed + 1000 * std::size_t(type) + k);
      std::vector<Job> jobs;
      for (RowMethod method : methods_of(program)) {
        if (refusal(program, method, RowOp::Sum, m.rows, m.cols, m.type).empty()) {
          jobs.push_back(make_job(program, method, RowOp::Sum, m));
        }
      }
      if (std::find(program.ops_cols.begin(), program.ops_cols.end(), k) != program.ops_cols.end()) {
        for (RowOp op : program.ops) {
          if (op != RowOp::Sum) jobs.push_back(make_job(program, RowMethod::Auto, op, m));
        }
      }
      jobs.push_back(floor_job());
      const std::vector<Measurement> results = run_jobs(program, m, jobs, options.reps, options.flush, device);
      const double floor_ms = results.back().times.median;
      for (const Measurement& r : results) {
        const double percent_of_floor = r.times.median > 0 ? 100.0 * floor_ms / r.times.median : 0.0;
        const double percent_of_peak = device.peak_gbps() > 0 ? 100.0 * r.gbps / device.peak_gbps() : 0.0;
        const std::string op = r.job.floor ? "-" : op_name(r.job.op);
        csv << element_name(type) << ',' << k << ',' << m_rows << ',' << op << ',' << r.job.label << ",\""
            << r.job.plan << "\"," << r.times.median << ',' << r.times.min << ',' << r.times.iqr << ',' << r.gbps << ','
            << r.traffic_gbps << ',' << percent_of_peak << ',' << percent_of_floor << ',' << (r.ok ? "ok" : "WRONG")
            << '\n';
        items.push_back(JsonObject().str("type", element_name(type)).num("k", k).num("m", m_rows).str("op", op)
                            .str("method", r.job.label).str("plan", r.job.plan).num("ms", r.times.median)
                            .num("min_ms", r.times.min).num("iqr_ms", r.times.iqr).num("gbps", r.gbps)
                            .num("traffic_gbps", r.traffic_gbps).num("percent_of_peak", percent_of_peak)
                            .num("percent_of_floor", percent_of_floor).flag("ok", r.ok).text());
        if (!r.ok) {
          all_ok = false;
          std::fprintf(stderr, "%s: %s --op %s WRONG at %s K = %zu: %s\n", program.id.c_str(), r.job.label.c_str(),
                       op.c_str(), element_name(type), k, r.check.first_wrong.c_str());
        }
      }
      std::fprintf(stderr, "%s: %s K = %zu done\n", program.id.c_str(), element_name(type), k);
    }
  }
  json << head.raw("rows", json_list(items, ",\n  ")).text() << "\n";
  if (!csv || !json) throw UsageError("cannot write the sweep files in '" + dir + "'");
  std::printf("wrote %s/rows_sweep.csv and %s/rows_sweep.json\n", dir.c_str(), dir.c_str());
  return all_ok ? 0 : 1;
}

}  // namespace

// ---------------------------------------------------------------- main

int run_rows_program(const RowsProgram& program, int argc, char** argv) {
  try {
    const RowsOptions options = parse_rows_options(program, argc, argv);
    if (options.help) {
      std::printf("%s: %s\n\n%s", program.id.c_str(), program.summary.c_str(), rows_usage(program).c_str());
      return 0;
    }
    std::string why;
    if (options.sweep) {
      if (!cuda_device_available(&why)) throw CudaError(why);
      const DeviceInfo device = query_device();
      std::printf("device %s, peak %.1f GB/s, CUDA %s\n", device.describe().c_str(), device.peak_gbps(),
                  cuda_version_string().c_str());
      return sweep(program, options, device);
    }
    // Everything about the command line and the input is checked before the device.
    HostMatrix m;
    if (!options.input.empty()) {
      m = load_matrix(options.input, options.type);
    } else {
      m.rows = options.rows;
      m.cols = options.cols;
      m.type = options.type;
    }
    const std::string refused = refusal(program, options.method, options.op, m.rows, m.cols, m.type);
    if (!refused.empty()) throw UsageError(refused);
    if (!cuda_device_available(&why)) throw CudaError(why);
    const DeviceInfo device = query_device();
    const double need = double(m.rows) * double(m.cols) * double(element_bytes(m.type)) +
                        double(m.rows) * double(result_bytes(options.op)) + 2.0 * device.l2_bytes;
    if (need > double(device.free_bytes) - 64.0 * 1048576.0) {  // before allocating the host copy
      char message[256];
      std::snprintf(message, sizeof message,
                    "--rows %zu --cols %zu needs %.2f GiB of device memory (input, results, L2 flush buffer) but %s "
                    "has %.2f GiB free",
                    m.rows, m.cols, need / 1073741824.0, device.name.c_str(), device.free_bytes / 1073741824.0);
      throw UsageError(message);
    }
    if (options.input.empty()) m = random_matrix(options.rows, options.cols, options.type, options.seed);
    const std::vector<Job> jobs = {make_job(program, options.method, options.op, m), floor_job()};
    const std::vector<Measurement> results = run_jobs(program, m, jobs, options.reps, options.flush, device);
    print_report(program, options, device, m, results[0], results[1]);
    return results[0].ok ? 0 : 1;
  } catch (const std::exception& error) {
    return report_exception(program.id, error);
  }
}

}  // namespace reduction::rows_harness
