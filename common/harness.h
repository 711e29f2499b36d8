// harness.h: turns a chapter's launcher into a complete program, and the measuring
// machinery the tour and the tests share with it.
//
// One measurement (Bench::run) follows the rules of docs/README.md, "How the numbers are measured":
//   1. poison the result, run once, check it against the CPU reference (this run
//      is also the first warm-up; a second untimed run follows);
//   2. R timed repetitions: before each, outside the timed region, restore the
//      input (in-place chapters), flush the L2 cache by reading a buffer twice
//      its size (l2_flush.h), and poison the result with a second pattern; CUDA events around
//      the launcher alone;
//   3. check the result of the last repetition too, and report the median time.
//
// --json prints one object. JSON has no numbers for NaN and infinity: a result,
// reference, error or tolerance that is not finite is written as the string "nan",
// "inf" or "-inf" (json_number).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "chapter.h"
#include "cli.h"
#include "device_buffer.h"
#include "device_info.h"
#include "json.h"
#include "l2_flush.h"
#include "reference.h"
#include "timer.h"

namespace reduction {

struct Measurement {
  std::string label;
  int block = 0, grid = 0;
  std::string result_text;   // printed exactly in its own type
  Verdict verdict;
  std::size_t chain_length = 0;
  Spread times;             // of the timed repetitions (timer.h)
  double median_ms = 0;     // times.median
  double gbps = 0;           // bytes of input read once / median time
  int reps = 0;
  bool flush = true;
};

template <typename T>
class Bench {
 public:
  // Copies the input to the device. keep_pristine: keep a second copy so that
  // in-place chapters can be given their input back before every run.
  Bench(const std::vector<T>& host, const DeviceInfo& device, bool keep_pristine);

  Measurement run(const Variant& variant, Op op, int block, int grid, int reps, bool flush, const Reference& ref);

  // Several variants on this input, their timed repetitions interleaved: repetition r
  // times every job once, in turn (the tour and the sweep).
  struct Job {
    const Variant* variant;
    Op op;
    int block, grid;
    bool check = true;  // false: timed only (the tour's read-only floor computes nothing)
  };
  std::vector<Measurement> run_interleaved(const std::vector<Job>& jobs, int reps, bool flush, const Reference& ref);

  // Device bytes a run of n elements needs besides scratch, for the memory check.
  static std::size_t bytes_needed(std::size_t n, bool keep_pristine, const DeviceInfo& device);

 private:
  std::size_t n_;
  DeviceInfo device_;
  DeviceBuffer<T> input_, pristine_;
  L2Flusher flush_;
  bool dirty_ = false;  // an in-place kernel has overwritten input_
};

// Fills in the default block and grid (0 = default), which may read the device; throws
// UsageError when n is too large for that block (check_n). The shape as given is
// checked before (Variant::check_shape, or resolve_shape).
void fill_shape(const Variant& variant, std::size_t n, int& block, int& grid);
// Checks the shape as given (UsageError with the chapter's reason when it cannot run it),
// then fill_shape.
void resolve_shape(const Variant& variant, std::size_t n, int& block, int& grid);

// Throws UsageError when n elements (plus scratch) do not fit in the device's free memory.
void check_fits(const Variant& variant, std::size_t n, std::size_t element_bytes, std::size_t other_bytes,
                int block, int grid, const DeviceInfo& device);

// The reader's --input file (load_input); its warning goes to stderr, after the
// program's name; *converted_from names the file's dtype when it was widened to T.
template <typename T>
std::vector<T> read_input_file(const std::string& program, const std::string& path, std::string* converted_from);

// The input a run reduces: the --input file, or n random values from --seed.
template <typename T>
std::vector<T> make_input(const Options& options, const std::string& program, std::string* converted_from = nullptr);

// "n = 1000 float from data.npy (int32 values, converted exactly on load)", or
// "n = 16777216 int (random, --seed 42)": the input line of the reports.
std::string describe_input(const Options& options, std::size_t n, const std::string& converted_from);

// Picks the variant named by --variant (the chapter's own when none is given).
const Variant& select_variant(const Chapter& chapter, const std::string& name);

// The input's non-finite values as a JSON object: {"nan": 1, "inf": 0, "-inf": 2}.
std::string json_non_finite(const Reference& ref);
std::string format_ms(double ms);

// The folder --sweep writes to (--out DIR, "." when not given), created with its parents
// when it does not exist yet; UsageError (exit 2) saying why when it cannot be.
std::string sweep_folder(const std::string& out_dir);

// The main() of every GPU chapter.
int run_chapter(const Chapter& chapter, int argc, char** argv);

// Prints the message for an exception and returns the exit code it maps to
// (UsageError 2, CudaError 3, bad_alloc 2, anything else 3).
int report_exception(const std::string& program, const std::exception& error);

}  // namespace reduction
