// rows_cli.cpp: the rows harness's names (of types, operators and methods), the lanes'
// plan and depth that the chapters' describe and depth use, and the command line: the
// methods a program takes, with their launchers and refusals, the usage text and the
// parsing of argv. Host code, compiled without nvcc.
#include "rows_harness.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <sstream>

#include "cli.h"
#include "cub_rows.h"
#include "input.h"
#include "rows_internal.h"

namespace reduction::rows_harness {

using internal::kMaxDimension;
using internal::partner_dimension;

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

namespace internal {

// The other dimension of a matrix of about 2^26 elements (for 0, the other's default).
std::size_t partner_dimension(std::size_t given, std::size_t default_other) {
  if (given == 0) return default_other;
  return std::max<std::size_t>(1, static_cast<std::size_t>(std::llround(double(kDefaultElements) / double(given))));
}

}  // namespace internal

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
  bool out_given = false;
  parse_flags(argc, argv, options, [&](const std::string& arg, const std::function<std::string()>& value) {
    if (arg == "--rows") {
      options.rows = parse_count(arg, value(), kMaxDimension);
      options.rows_given = true;
    } else if (arg == "--cols") {
      options.cols = parse_count(arg, value(), kMaxDimension);
      options.cols_given = true;
    } else if (arg == "--type") {
      options.type = pick(program.id, arg, value(), program.types, element_name);
    } else if (arg == "--op") {
      options.op = pick(program.id, arg, value(), program.ops, op_name);
    } else if (arg == "--method") {
      options.method = pick(program.id, arg, value(), methods_of(program), method_name);
    } else if (arg == "--input") {
      options.input = value();
      if (options.input.empty()) throw UsageError("--input needs a file name");
    } else if (arg == "--sweep") {
      options.sweep = true;
    } else if (arg == "--out") {
      options.out_dir = value();
      out_given = true;
    } else if (arg == "--n" || arg == "--block" || arg == "--grid" || arg == "--variant") {
      throw UsageError(arg + " does not apply: " + program.id +
                       " takes --rows and --cols (and picks its launch with --method)");
    } else {
      return false;
    }
    return true;
  });
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
  return options;
}

}  // namespace reduction::rows_harness
