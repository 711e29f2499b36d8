// program.cpp: the host-only part of the harness (harness.h) that every program shares, the
// CPU chapter's among them: formatting, the input of a run, the exit code of an error. Plain
// C++, so that 00_cpu_baseline builds without compiling a CUDA file.
#include <cstdio>
#include <filesystem>
#include <new>

#include "harness.h"

namespace reduction {

// ---------------------------------------------------------------- formatting

std::string json_non_finite(const Reference& ref) {
  return JsonObject().num("nan", ref.nans).num("inf", ref.pos_infs).num("-inf", ref.neg_infs).text();
}

std::string sweep_folder(const std::string& out_dir) {
  const std::string dir = out_dir.empty() ? "." : out_dir;
  std::error_code error;
  std::filesystem::create_directories(dir, error);  // nothing to do when it exists
  if (error) throw UsageError("cannot create the folder '" + dir + "' for the sweep files: " + error.message());
  return dir;
}

std::string format_ms(double ms) {
  char text[32];
  std::snprintf(text, sizeof text, ms < 1.0 ? "%.4f" : "%.3f", ms);
  return text;
}

// ---------------------------------------------------------------- inputs

template <typename T>
std::vector<T> read_input_file(const std::string& program, const std::string& path, std::string* converted_from) {
  InputInfo info;
  std::vector<T> values = load_input<T>(path, &info);
  if (!info.warning.empty()) std::fprintf(stderr, "%s: warning: %s\n", program.c_str(), info.warning.c_str());
  if (converted_from) *converted_from = info.converted_from;
  return values;
}

template <typename T>
std::vector<T> make_input(const Options& options, const std::string& program, std::string* converted_from) {
  if (!options.input.empty()) return read_input_file<T>(program, options.input, converted_from);
  return generate_input<T>(options.n, options.seed);
}

#define REDUCTION_INSTANTIATE(T)                                                                      \
  template std::vector<T> read_input_file<T>(const std::string&, const std::string&, std::string*); \
  template std::vector<T> make_input<T>(const Options&, const std::string&, std::string*);
REDUCTION_INSTANTIATE(int)
REDUCTION_INSTANTIATE(float)
REDUCTION_INSTANTIATE(double)
#undef REDUCTION_INSTANTIATE

std::string describe_input(const Options& options, std::size_t n, const std::string& converted_from) {
  const std::string size = "n = " + std::to_string(n) + " " + dtype_name(options.type);
  if (options.input.empty()) return size + " (random, --seed " + std::to_string(options.seed) + ")";
  return size + " from " + options.input +
         (converted_from.empty() ? "" : " (" + converted_from + " values, converted exactly on load)");
}

// ---------------------------------------------------------------- errors

int report_exception(const std::string& program, const std::exception& error) {
  if (dynamic_cast<const UsageError*>(&error)) {
    std::fprintf(stderr, "%s: %s\n", program.c_str(), error.what());
    return 2;
  }
  if (dynamic_cast<const std::bad_alloc*>(&error)) {
    std::fprintf(stderr, "%s: not enough host memory for this N (std::bad_alloc)\n", program.c_str());
    return 2;
  }
  std::fprintf(stderr, "%s: %s\n", program.c_str(), error.what());
  return 3;
}

}  // namespace reduction
