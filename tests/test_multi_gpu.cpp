// Chapter 11 end to end: both programs on 2+ GPUs at awkward sizes, every type and
// operator, against the CPU reference (the programs check it; these tests check that
// they say ok and exit 0); a NaN in any shard, which must make max, min and sum NaN on
// every GPU as in NumPy (through the library, both programs); 17 on several GPUs, which must
// give the bits of 17 on one GPU on every kind of data and every split; the JSON line's notes; that
// every call of the copy unit leaves the caller's current device as it found it, and refuses
// a communicator of another size than its part was prepared for; and what a cluster does to
// the MPI program, as far as one machine with two GPUs can show it:
//   - two ranks placed as if on two nodes (REDUCTION_NODE and one GPU per rank through
//     CUDA_VISIBLE_DEVICES): each is local rank 0 of its "node" and uses its GPU 0;
//   - ranks of one node with a GPU of their own each (CUDA_VISIBLE_DEVICES);
//   - more ranks on a node than it has GPUs: exit 2 with a message;
//   - a rank that fails early (REDUCTION_TEST_FAIL): an error, an exit behind MPI's
//     back, a rank that stops answering before the NCCL communicator or the all-reduce.
//     The job must end, non-zero, with the failing (or the waiting) rank's message,
//     well within a time limit: never a hang.
// Skipped, with the reason, on a machine with fewer GPUs than a test needs.
#include <gtest/gtest.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "input.h"
#include "multi_gpu.cuh"
#include "multi_gpu_harness.h"
#include "program_runner.h"
#include "reproducible_on_gpus.cuh"
#include "reproducible_sum.cuh"

namespace reduction::testing {
namespace {

int visible_gpus() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
  return count;
}

#define REQUIRE_GPUS(k)                                                                                       \
  do {                                                                                                        \
    if (visible_gpus() < (k)) GTEST_SKIP() << "needs " << (k) << " or more CUDA devices, " << visible_gpus() \
                                           << " visible";                                                     \
  } while (0)

#define REQUIRE_MPI()                                                                        \
  do {                                                                                       \
    if (!have_mpi()) GTEST_SKIP() << "11_multi_gpu_mpi was not built (no MPI found at configure time)"; \
  } while (0)

#ifdef REDUCTION_MPIRUN
bool have_mpi() { return true; }
const std::string kMpirun = std::string(REDUCTION_MPIRUN) + " --allow-run-as-root --oversubscribe";
#else
bool have_mpi() { return false; }
const std::string kMpirun;
#endif
const std::string kMpiProgram = std::string(REDUCTION_BIN_DIR) + "/11_multi_gpu_mpi";

// Every value of "key": "..." (a string) in a JSON text, in order.
std::vector<std::string> json_strings(const std::string& text, const std::string& key) {
  std::vector<std::string> values;
  const std::string marker = "\"" + key + "\": \"";
  for (std::size_t at = text.find(marker); at != std::string::npos; at = text.find(marker, at + 1)) {
    const std::size_t begin = at + marker.size();
    values.push_back(text.substr(begin, text.find('"', begin) - begin));
  }
  return values;
}

// Every value of "key": <integer> in a JSON text, in order.
std::vector<long long> json_ints(const std::string& text, const std::string& key) {
  std::vector<long long> values;
  const std::string marker = "\"" + key + "\": ";
  for (std::size_t at = text.find(marker); at != std::string::npos; at = text.find(marker, at + 1)) {
    values.push_back(std::atoll(text.c_str() + at + marker.size()));
  }
  return values;
}

struct JobRun {
  int exit_code = -1;
  std::string output;
  double seconds = 0;
  bool timed_out = false;  // killed by the time limit: the job hung
};

// Runs a shell command (an mpirun line) under coreutils' timeout: SIGTERM after
// limit_s seconds, SIGKILL 10 s later. stdout and stderr together.
JobRun run_job(const std::string& command, int limit_s) {
  // NVLink multicast stays off on shared hosts (as in tools/gpu_suite.sh), unless set.
  setenv("NCCL_NVLS_ENABLE", "0", 0);
  const std::string line = "timeout -k 10 " + std::to_string(limit_s) + " " + command + " 2>&1";
  JobRun run;
  const auto start = std::chrono::steady_clock::now();
  FILE* pipe = popen(line.c_str(), "r");
  if (!pipe) return run;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe)) run.output += buffer;
  const int status = pclose(pipe);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.timed_out = run.exit_code == 124 || run.exit_code == 137 || (WIFSIGNALED(status) && WTERMSIG(status) == 9);
  return run;
}

TEST(MultiGpu, ShardsCoverTheArrayContiguously) {
  for (std::size_t n : {0, 1, 2, 7, 1000003}) {
    for (int k : {1, 2, 3, 8}) {
      std::size_t next = 0;
      for (int i = 0; i < k; ++i) {
        const multi_gpu::Shard s = multi_gpu::shard_of(n, k, i);
        EXPECT_EQ(s.begin, next) << n << " " << k << " " << i;
        EXPECT_LE(s.count, n / k + 1);
        EXPECT_GE(s.count, n / k);
        next = s.begin + s.count;
      }
      EXPECT_EQ(next, n);
    }
  }
}

TEST(MultiGpu, EachRankTakesItsIndexAmongTheRanksThatSeeItsGpus) {
  using multi_gpu_harness::gpu_choice;
  // Four ranks that see the same two GPUs: 0 and 1 fit, 2 and 3 have none left.
  const std::vector<std::string> shared = {"A,B", "A,B", "A,B", "A,B"};
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(gpu_choice(shared, r).index, r);
    EXPECT_EQ(gpu_choice(shared, r).sharing, 4);
  }
  // A GPU of its own each (CUDA_VISIBLE_DEVICES per rank): every rank uses its GPU 0.
  const std::vector<std::string> own = {"A", "B", "C"};
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(gpu_choice(own, r).index, 0);
    EXPECT_EQ(gpu_choice(own, r).sharing, 1);
  }
  // Mixed: ranks 0 and 2 share two GPUs, rank 1 has its own.
  const std::vector<std::string> mixed = {"A,B", "C", "A,B"};
  EXPECT_EQ(gpu_choice(mixed, 0).index, 0);
  EXPECT_EQ(gpu_choice(mixed, 1).index, 0);
  EXPECT_EQ(gpu_choice(mixed, 2).index, 1);
  EXPECT_EQ(gpu_choice(mixed, 2).sharing, 2);
}

// ---------------------------------------------------------------- one GPU's launcher

// ---------------------------------------------------------------- NaN across GPUs

// Where the NaN goes: in the first shard, the last shard, both, or nowhere (the control).
enum class NanAt { First, Last, Both, None };
const char* name_of(NanAt at) {
  return at == NanAt::First ? "first shard" : at == NanAt::Last ? "last shard" : at == NanAt::Both ? "both" : "none";
}

// n small integers (exact in any order of additions), with -100 in the first shard and
// 100 in the last (so max and min must take a value across GPUs), and NaN where `at` says
// (shards of 2 GPUs: element 1 lies in the first, n - 2 in the last).
template <typename T>
std::vector<T> values_with_nan(std::size_t n, NanAt at, double* exact_sum) {
  std::mt19937_64 random(std::random_device{}());
  std::vector<T> values(n);
  for (T& x : values) x = static_cast<T>(static_cast<int>(random() % 7) - 3);
  values[2] = -100;
  values[n - 3] = 100;
  if (at == NanAt::First || at == NanAt::Both) values[1] = std::numeric_limits<T>::quiet_NaN();
  if (at == NanAt::Last || at == NanAt::Both) values[n - 2] = std::numeric_limits<T>::quiet_NaN();
  *exact_sum = 0;
  for (T x : values) *exact_sum += static_cast<double>(x);
  return values;
}

// k GPUs of this process through the copy unit: shards on the GPUs, parts and communicators.
template <typename T>
struct LocalRun {
  int k;
  std::size_t n;
  std::vector<ncclComm_t> comms;
  std::vector<multi_gpu::Part<T>> parts;
  std::vector<T*> shards;
  std::vector<std::size_t> counts;

  LocalRun(int gpus, std::size_t size) : k(gpus), n(size), comms(gpus), parts(gpus), shards(gpus), counts(gpus) {}
  ~LocalRun() {
    for (int d = 0; d < k; ++d) {
      multi_gpu::release(&parts[d]);
      if (comms[d]) ncclCommDestroy(comms[d]);
      cudaSetDevice(d);
      cudaFree(shards[d]);
    }
  }
  // As the header's block does: blocking communicators from ncclCommInitAll, then prepare.
  multi_gpu::Status set_up() {
    multi_gpu::Status status{cudaSuccess, ncclCommInitAll(comms.data(), k, nullptr)};
    for (int d = 0; d < k && status.ok(); ++d) {
      counts[d] = multi_gpu::shard_of(n, k, d).count;
      status.cuda = multi_gpu::prepare(d, k, counts[d], &parts[d]);
      if (status.ok()) status.cuda = cudaSetDevice(d);
      if (status.ok()) status.cuda = cudaMalloc(&shards[d], (counts[d] + 1) * sizeof(T));
    }
    return status;
  }
  void load(const std::vector<T>& values) {
    for (int d = 0; d < k; ++d) {
      const multi_gpu::Shard s = multi_gpu::shard_of(n, k, d);
      ASSERT_EQ(cudaSetDevice(d), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(shards[d], values.data() + s.begin, s.count * sizeof(T), cudaMemcpyHostToDevice),
                cudaSuccess);
      // From pageable memory the copy may still be landing when cudaMemcpy returns, and the
      // parts' non-blocking streams do not wait for it.
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    }
  }
  // Every GPU's total after reduce_all with Op.
  template <typename Op>
  std::vector<T> totals(multi_gpu::Status* status) {
    std::vector<const T*> inputs(shards.begin(), shards.end());
    *status = multi_gpu::reduce_all<T, Op>(inputs.data(), counts.data(), parts.data(), comms.data(), k);
    std::vector<T> each(k, T(-12345));
    for (int d = 0; d < k && status->ok(); ++d) status->cuda = multi_gpu::read_total(parts[d], &each[d]);
    return each;
  }
};

// Every GPU's total must be what NumPy says: NaN for max, min and sum when any element is
// NaN; else the max (100), the min (-100) and the exact sum.
template <typename T>
void check_nan_through_the_library(int k) {
  const std::size_t n = 100003;
  LocalRun<T> run(k, n);
  const multi_gpu::Status status = run.set_up();
  ASSERT_TRUE(status.ok()) << status.message();
  for (NanAt at : {NanAt::First, NanAt::Last, NanAt::Both, NanAt::None}) {
    double exact = 0;
    const std::vector<T> values = values_with_nan<T>(n, at, &exact);
    ASSERT_NO_FATAL_FAILURE(run.load(values));
    const bool nan = at != NanAt::None;
    multi_gpu::Status s;
    const std::vector<T> maxes = run.template totals<single_pass::Max>(&s);
    ASSERT_TRUE(s.ok()) << s.message();
    const std::vector<T> mins = run.template totals<single_pass::Min>(&s);
    ASSERT_TRUE(s.ok()) << s.message();
    const std::vector<T> sums = run.template totals<single_pass::Sum>(&s);
    ASSERT_TRUE(s.ok()) << s.message();
    for (int d = 0; d < k; ++d) {
      const std::string where = std::to_string(k) + " GPUs, NaN in " + name_of(at) + ", GPU " + std::to_string(d);
      if (nan) {
        EXPECT_TRUE(std::isnan(maxes[d])) << "max: " << maxes[d] << " (numpy: nan), " << where;
        EXPECT_TRUE(std::isnan(mins[d])) << "min: " << mins[d] << " (numpy: nan), " << where;
        EXPECT_TRUE(std::isnan(sums[d])) << "sum: " << sums[d] << " (numpy: nan), " << where;
      } else {
        EXPECT_EQ(maxes[d], T(100)) << where;
        EXPECT_EQ(mins[d], T(-100)) << where;
        EXPECT_EQ(static_cast<double>(sums[d]), exact) << where;
      }
    }
  }
}

TEST(MultiGpu, LibraryNanInAShardMatchesNumpyOnOneGpu) {
  REQUIRE_GPUS(1);
  check_nan_through_the_library<float>(1);
  check_nan_through_the_library<double>(1);
}

TEST(MultiGpu, LibraryNanInAShardMatchesNumpyAcrossGpus) {
  REQUIRE_GPUS(2);
  std::vector<int> counts = {2};
  if (visible_gpus() > 2) counts.push_back(visible_gpus());  // a middle shard too
  for (int k : counts) {
    check_nan_through_the_library<float>(k);
    check_nan_through_the_library<double>(k);
  }
}

// Every call of the copy unit switches GPUs inside and leaves the caller's current device as
// it found it: here the last GPU, which no call has a reason to end on.
TEST(MultiGpu, EveryCallLeavesTheCurrentDeviceAsItFoundIt) {
  REQUIRE_GPUS(2);
  const int k = visible_gpus();
  const std::size_t n = 100003;
  LocalRun<float> run(k, n);
  ASSERT_TRUE(run.set_up().ok());
  std::vector<float> values(n, 1.0f);
  ASSERT_NO_FATAL_FAILURE(run.load(values));
  auto current = [] {
    int device = -1;
    cudaGetDevice(&device);
    return device;
  };
  ASSERT_EQ(cudaSetDevice(k - 1), cudaSuccess);
  multi_gpu::Part<float> extra;
  EXPECT_EQ(multi_gpu::prepare(0, k, n, &extra), cudaSuccess);
  EXPECT_EQ(current(), k - 1) << "prepare";
  std::vector<const float*> inputs(run.shards.begin(), run.shards.end());
  multi_gpu::Status s = multi_gpu::gather_all<float, single_pass::Sum>(inputs.data(), run.counts.data(),
                                                                      run.parts.data(), run.comms.data(), k);
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(current(), k - 1) << "gather_all";
  EXPECT_EQ((multi_gpu::combine_all<float, single_pass::Sum>(run.parts.data(), k)), cudaSuccess);
  EXPECT_EQ(current(), k - 1) << "combine_all";
  s = multi_gpu::reduce_all<float, single_pass::Max>(inputs.data(), run.counts.data(), run.parts.data(),
                                                     run.comms.data(), k);
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(current(), k - 1) << "reduce_all";
  float total = 0;
  EXPECT_EQ(multi_gpu::read_total(run.parts[0], &total), cudaSuccess);
  EXPECT_EQ(current(), k - 1) << "read_total";
  EXPECT_EQ(total, 1.0f);  // the max, the last call on GPU 0's stream
  EXPECT_EQ(multi_gpu::release(&extra), cudaSuccess);
  EXPECT_EQ(current(), k - 1) << "release";
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  EXPECT_EQ(multi_gpu::read_total(run.parts[k - 1], &total), cudaSuccess);
  EXPECT_EQ(current(), 0) << "read_total of the last GPU";
}

// A part prepared for 2 ranks holds room for 2 totals: a communicator of one rank is refused
// (ncclInvalidArgument) before anything is enqueued, and the poisoned total stays as it was.
TEST(MultiGpu, GatherRefusesACommunicatorOfAnotherSize) {
  REQUIRE_GPUS(1);
  ncclComm_t comm = nullptr;
  ASSERT_EQ(ncclCommInitAll(&comm, 1, nullptr), ncclSuccess);
  multi_gpu::Part<float> part;
  ASSERT_EQ(multi_gpu::prepare(0, 2, 1000, &part), cudaSuccess);
  float* shard = nullptr;
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&shard, 1000 * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMemset(shard, 0, 1000 * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMemset(part.total, 0xCD, sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const float* shards[] = {shard};
  const std::size_t counts[] = {1000};
  const multi_gpu::Status s = multi_gpu::reduce_all<float, single_pass::Sum>(shards, counts, &part, &comm, 1);
  EXPECT_EQ(s.nccl, ncclInvalidArgument) << s.message();
  EXPECT_EQ(s.cuda, cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(part.stream), cudaSuccess);
  std::uint32_t bits = 0;
  ASSERT_EQ(cudaMemcpy(&bits, part.total, sizeof bits, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(bits, 0xCDCDCDCDu) << "a refused call reduced the shard";
  EXPECT_EQ(multi_gpu::release(&part), cudaSuccess);
  cudaFree(shard);
  ncclCommDestroy(comm);
}

// ---------------------------------------------------------------- 17 on several GPUs

// The kinds of data on which 17's cost and rounding differ (its windows, zeros, subnormals,
// cancellation, infinities and NaN).
enum class Kind { Uniform, Normal, HalfZeros, ZerosOrSubnormals, WideExponents, Cancelling, NonFinite };
const Kind kKinds[] = {Kind::Uniform,       Kind::Normal,     Kind::HalfZeros, Kind::ZerosOrSubnormals,
                       Kind::WideExponents, Kind::Cancelling, Kind::NonFinite};
const char* name_of(Kind kind) {
  const char* names[] = {"uniform [0, 1)", "normal(0, 1)", "50% zeros", "1% zeros or subnormals",
                         "random sign, exponents 2^-100..2^100", "cancelling pairs", "inf and nan"};
  return names[static_cast<int>(kind)];
}

std::vector<float> values_of(Kind kind, std::size_t n, std::mt19937_64& random) {
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    switch (kind) {
      case Kind::Normal: v[i] = normal(random); break;
      case Kind::HalfZeros: v[i] = random() % 2 ? unit(random) : 0.0f; break;
      case Kind::ZerosOrSubnormals:
        v[i] = random() % 100 ? unit(random) : random() % 2 ? 0.0f : std::ldexp(unit(random), -127);
        break;
      case Kind::WideExponents:
        v[i] = std::ldexp(1.0f + unit(random), static_cast<int>(random() % 201) - 100) * (random() % 2 ? 1 : -1);
        break;
      case Kind::Cancelling: v[i] = i % 2 ? -v[i - 1] * (1.0f + 0x1p-20f * unit(random)) : unit(random); break;
      default: v[i] = unit(random); break;
    }
  }
  if (kind == Kind::NonFinite && n >= 4) {  // +inf in the first shard, -inf in the last: nan (numpy)
    v[1] = std::numeric_limits<float>::infinity();
    v[n - 2] = -std::numeric_limits<float>::infinity();
  }
  return v;
}

// 17 on one GPU (GPU 0), one launch over the whole array: the bits to match.
std::uint32_t bits_on_one_gpu(const std::vector<float>& values) {
  EXPECT_EQ(cudaSetDevice(0), cudaSuccess);
  int block = 0, grid = 0;
  EXPECT_EQ(reproducible_sum::default_shape(values.size(), &block, &grid), cudaSuccess);
  const std::size_t bytes = reproducible_sum::scratch_bytes(values.size(), block, grid);
  float *input = nullptr, *result = nullptr;
  void* scratch = nullptr;
  EXPECT_EQ(cudaMalloc(&input, (values.size() + 1) * sizeof(float)), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&result, sizeof(float)), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&scratch, bytes), cudaSuccess);
  EXPECT_EQ(cudaMemset(scratch, 0, bytes), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(input, values.data(), values.size() * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(reproducible_sum::reduce(input, values.size(), result, scratch, bytes, block, grid), cudaSuccess);
  std::uint32_t bits = 0xCDCDCDCDu;
  EXPECT_EQ(cudaMemcpy(&bits, result, sizeof bits, cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(input);
  cudaFree(result);
  cudaFree(scratch);
  return bits;
}

// k GPUs, every kind of data (or those given), awkward sizes and three splits of each (even,
// uneven, all on the last GPU): every GPU's total must have 17's one-GPU bits.
void check_reproducible_on_gpus(int k, std::vector<Kind> kinds = {std::begin(kKinds), std::end(kKinds)},
                                std::vector<std::size_t> sizes = {0, 1, 4097, 1000003}) {
  std::vector<ncclComm_t> comms(k);
  ASSERT_EQ(ncclCommInitAll(comms.data(), k, nullptr), ncclSuccess);
  std::mt19937_64 random(std::random_device{}());
  for (Kind kind : kinds) {
    for (std::size_t n : sizes) {
      const std::vector<float> values = values_of(kind, n, random);
      const std::uint32_t expected = bits_on_one_gpu(values);
      for (int split = 0; split < (k > 1 ? 3 : 1); ++split) {
        std::vector<std::size_t> counts(k, 0);
        for (int d = 0; d < k; ++d) counts[d] = multi_gpu::shard_of(n, k, d).count;
        if (split == 1) {  // uneven: GPU 0 takes a third of its even share, the last GPU the rest
          counts[k - 1] += counts[0] - counts[0] / 3;
          counts[0] /= 3;
        } else if (split == 2) {  // every shard but the last empty
          counts.assign(k, 0);
          counts[k - 1] = n;
        }
        std::vector<reproducible_on_gpus::Part> parts(k);
        std::vector<float*> shards(k, nullptr);
        std::size_t begin = 0;
        for (int d = 0; d < k; ++d) {
          ASSERT_EQ(reproducible_on_gpus::prepare(d, k, counts[d], &parts[d]), cudaSuccess);
          ASSERT_EQ(cudaSetDevice(d), cudaSuccess);
          ASSERT_EQ(cudaMalloc(&shards[d], (counts[d] + 1) * sizeof(float)), cudaSuccess);
          ASSERT_EQ(cudaMemcpy(shards[d], values.data() + begin, counts[d] * sizeof(float), cudaMemcpyHostToDevice),
                    cudaSuccess);
          ASSERT_EQ(cudaMemset(parts[d].total, 0xCD, sizeof(float)), cudaSuccess);  // poison
          ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // the parts' non-blocking streams do not wait
          begin += counts[d];
        }
        std::vector<const float*> inputs(shards.begin(), shards.end());
        const multi_gpu::Status s =
            reproducible_on_gpus::sum_all(inputs.data(), counts.data(), parts.data(), comms.data(), k);
        EXPECT_TRUE(s.ok()) << s.message();
        for (int d = 0; d < k; ++d) {
          float total = 0;
          EXPECT_EQ(reproducible_on_gpus::read_total(parts[d], &total), cudaSuccess);
          std::uint32_t bits = 0;
          std::memcpy(&bits, &total, sizeof bits);
          EXPECT_EQ(bits, expected) << name_of(kind) << ", n " << n << ", " << k << " GPUs, split " << split
                                    << ", GPU " << d << ": " << total;
          EXPECT_EQ(reproducible_on_gpus::release(&parts[d]), cudaSuccess);
          cudaSetDevice(d);
          cudaFree(shards[d]);
        }
      }
    }
  }
  for (ncclComm_t comm : comms) ncclCommDestroy(comm);
}

TEST(MultiGpu, ReproducibleOnOneGpuHasTheBitsOf17) {
  REQUIRE_GPUS(1);
  check_reproducible_on_gpus(1);
}

TEST(MultiGpu, ReproducibleOnGpusHasTheBitsOf17OnOneGpu) {
  REQUIRE_GPUS(2);
  check_reproducible_on_gpus(2);
  if (visible_gpus() > 2) check_reproducible_on_gpus(visible_gpus());
}

// The same on every visible GPU, on two kinds and one size: what compute-sanitizer runs
// (sanitize.17_on_gpus.*), where the whole test above would take too long.
TEST(MultiGpu, ReproducibleOnGpusSmall) {
  REQUIRE_GPUS(2);
  check_reproducible_on_gpus(visible_gpus(), {Kind::Normal, Kind::NonFinite}, {65537});
}

// The program's input: a .npy file of `type` values with a NaN where `at` says (`test`: a
// file name of its own for each test, which ctest may run at the same time).
std::string nan_input(const std::string& test, const std::string& type, NanAt at) {
  const std::string path = ::testing::TempDir() + test + "_nan_" + type + "_" + std::to_string(int(at)) + ".npy";
  double exact = 0;
  if (type == "float") save_npy(path, values_with_nan<float>(100003, at, &exact));
  else save_npy(path, values_with_nan<double>(100003, at, &exact));
  return path;
}

// 11_multi_gpu --gpus 2 on a file with a NaN in one shard or both: NaN for max, min and
// sum, ok, exit 0, and the JSON note says why (as the text does).
TEST(MultiGpu, OneProcessNanInAShardMatchesNumpy) {
  REQUIRE_GPUS(2);
  for (const char* type : {"float", "double"}) {
    for (NanAt at : {NanAt::First, NanAt::Last, NanAt::Both}) {
      const std::string input = nan_input("multi_gpu_one_process", type, at);
      for (const char* op : {"max", "min", "sum"}) {
        const ProgramRun run = run_program("11_multi_gpu", std::string("--gpus 2 --reps 2 --json --type ") + type +
                                                               " --op " + op + " --input " + input);
        const std::string what = std::string(type) + " " + op + ", NaN in " + name_of(at) + "\n" + run.output;
        EXPECT_EQ(run.exit_code, 0) << what;
        EXPECT_NE(run.output.find("\"ok\": true"), std::string::npos) << what;
        EXPECT_NE(run.output.find("\"result\": \"nan\""), std::string::npos) << what;
        EXPECT_NE(run.output.find("\"note\": \"the input holds"), std::string::npos) << what;
      }
    }
  }
}

// ---------------------------------------------------------------- notes in the JSON line

// An int sum past the int range: the program checks the wrapped value, and its JSON line
// says so as its text does: "true_sum" and the note naming the true sum, on 1 GPU and on 2.
TEST(MultiGpu, JsonCarriesTheNoteOfAnIntSumThatWrapped) {
  REQUIRE_GPUS(1);
  std::mt19937_64 random(std::random_device{}());
  std::vector<int> values(1001);
  long long exact = 0;
  for (int& x : values) exact += x = (1 << 29) + static_cast<int>(random() % (1 << 29));  // about 8e11 in all
  const std::string input = ::testing::TempDir() + "multi_gpu_int_wraps.npy";
  save_npy(input, values);
  const std::string note = "the true sum " + std::to_string(exact) + " overflows int";
  for (int gpus : {1, 2}) {
    if (gpus > visible_gpus()) break;
    const std::string args = "--gpus " + std::to_string(gpus) + " --reps 2 --type int --op sum --input " + input;
    const ProgramRun json = run_program("11_multi_gpu", args + " --json");
    EXPECT_EQ(json.exit_code, 0) << json.output;
    EXPECT_NE(json.output.find("\"ok\": true"), std::string::npos) << json.output;
    EXPECT_EQ(json_ints(json.output, "true_sum"), (std::vector<long long>{exact})) << json.output;
    EXPECT_NE(json.output.find("\"note\": \"" + note), std::string::npos) << json.output;
    const ProgramRun text = run_program("11_multi_gpu", args);
    EXPECT_EQ(text.exit_code, 0) << text.output;
    EXPECT_NE(text.output.find("note       " + note), std::string::npos) << text.output;
  }
}

// ---------------------------------------------------------------- one process

TEST(MultiGpu, OneProcessAllReduceIsRight) {
  REQUIRE_GPUS(2);
  for (const char* type : {"int", "float", "double"}) {
    for (const char* op : {"sum", "max", "min"}) {
      for (const char* n : {"0", "1", "3", "1000003", "2^24+1"}) {
        const ProgramRun run = run_program(
            "11_multi_gpu", std::string("--gpus 2 --reps 2 --json --type ") + type + " --op " + op + " --n " + n);
        EXPECT_EQ(run.exit_code, 0) << type << " " << op << " " << n << "\n" << run.output;
        EXPECT_NE(run.output.find("\"ok\": true"), std::string::npos) << run.output;
      }
    }
  }
}

TEST(MultiGpu, OneProcessReportsEveryGpu) {
  REQUIRE_GPUS(2);
  const ProgramRun run = run_program("11_multi_gpu", "--gpus 2 --reps 2 --json --n 1000003");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(json_ints(run.output, "gpu"), (std::vector<long long>{0, 1})) << run.output;
  const std::vector<std::string> buses = json_strings(run.output, "bus_id");
  ASSERT_EQ(buses.size(), 2u) << run.output;
  EXPECT_NE(buses[0], buses[1]) << run.output;
  EXPECT_EQ(json_strings(run.output, "name").size(), 2u) << run.output;
}

TEST(MultiGpu, MoreGpusThanVisibleIsAUsageError) {
  REQUIRE_GPUS(1);
  const int too_many = visible_gpus() + 1;
  const ProgramRun run = run_program("11_multi_gpu", "--gpus " + std::to_string(too_many) + " --n 1000");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("--gpus " + std::to_string(too_many) + " but only " + std::to_string(visible_gpus()) +
                            " CUDA device(s) are visible"),
            std::string::npos)
      << run.output;
}

// ---------------------------------------------------------------- MPI, one rank per GPU

TEST(MultiGpu, MpiOneRankPerGpuIsRight) {
  REQUIRE_GPUS(2);
  REQUIRE_MPI();
  for (const char* type : {"int", "float"}) {
    for (const char* op : {"sum", "max"}) {
      const JobRun run = run_job(kMpirun + " -np 2 " + kMpiProgram + " --reps 2 --json --n 2^24+3 --type " + type +
                                     " --op " + op,
                                 300);
      EXPECT_EQ(run.exit_code, 0) << type << " " << op << "\n" << run.output;
      EXPECT_NE(run.output.find("\"ok\": true"), std::string::npos) << run.output;
      // The local rank picks the GPU: ranks 0 and 1 of one host are local ranks 0 and 1
      // and use GPUs 0 and 1, two different devices; rank 0 reports both.
      EXPECT_EQ(json_ints(run.output, "rank"), (std::vector<long long>{0, 1})) << run.output;
      EXPECT_EQ(json_ints(run.output, "local_rank"), (std::vector<long long>{0, 1})) << run.output;
      EXPECT_EQ(json_ints(run.output, "local_size"), (std::vector<long long>{2, 2})) << run.output;
      const std::vector<std::string> buses = json_strings(run.output, "bus_id");
      ASSERT_EQ(buses.size(), 2u) << run.output;
      EXPECT_NE(buses[0], buses[1]) << run.output;
    }
  }
}

// Two ranks of this machine placed as two nodes of one GPU each: REDUCTION_NODE makes
// each rank a node of its own (local rank 0 of 1), and CUDA_VISIBLE_DEVICES gives each
// "node" its own GPU 0, as a scheduler does on a real cluster.
TEST(MultiGpu, MpiRanksPlacedAsOnTwoNodes) {
  REQUIRE_GPUS(2);
  REQUIRE_MPI();
  const std::string args = " --reps 2 --json --n 2^24+5 --type float";
  const JobRun run = run_job(kMpirun + " -np 1 env CUDA_VISIBLE_DEVICES=0 REDUCTION_NODE=0 " + kMpiProgram + args +
                                 " : -np 1 env CUDA_VISIBLE_DEVICES=1 REDUCTION_NODE=1 " + kMpiProgram + args,
                             300);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("\"ok\": true"), std::string::npos) << run.output;
  EXPECT_EQ(json_ints(run.output, "local_rank"), (std::vector<long long>{0, 0})) << run.output;
  EXPECT_EQ(json_ints(run.output, "local_size"), (std::vector<long long>{1, 1})) << run.output;
  EXPECT_EQ(json_ints(run.output, "gpu"), (std::vector<long long>{0, 0})) << run.output;
  const std::vector<std::string> hosts = json_strings(run.output, "host");
  ASSERT_EQ(hosts.size(), 2u) << run.output;
  EXPECT_NE(hosts[0].find("as node 0"), std::string::npos) << run.output;
  EXPECT_NE(hosts[1].find("as node 1"), std::string::npos) << run.output;
  const std::vector<std::string> buses = json_strings(run.output, "bus_id");
  ASSERT_EQ(buses.size(), 2u) << run.output;
  EXPECT_NE(buses[0], buses[1]) << "both 'nodes' used the same physical GPU\n" << run.output;
}

TEST(MultiGpu, MpiMoreRanksPerNodeThanGpusIsAUsageError) {
  REQUIRE_GPUS(2);
  REQUIRE_MPI();
  const int gpus = visible_gpus();
  const JobRun run =
      run_job(kMpirun + " -np " + std::to_string(gpus + 1) + " " + kMpiProgram + " --reps 2 --n 1000", 120);
  EXPECT_FALSE(run.timed_out) << run.output;
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("rank " + std::to_string(gpus) + " on "), std::string::npos) << run.output;
  EXPECT_NE(run.output.find(std::to_string(gpus + 1) + " ranks on this node see the same " + std::to_string(gpus) +
                            " CUDA device(s)"),
            std::string::npos)
      << run.output;
}

// As a scheduler that gives each task its own GPU (CUDA_VISIBLE_DEVICES): two ranks of
// one node, local ranks 0 and 1, each seeing one GPU, each use their GPU 0.
TEST(MultiGpu, MpiRanksWithAGpuOfTheirOwnShareANode) {
  REQUIRE_GPUS(2);
  REQUIRE_MPI();
  const std::string args = " --reps 2 --json --n 2^24+7 --type int";
  const JobRun run = run_job(kMpirun + " -np 1 env CUDA_VISIBLE_DEVICES=0 " + kMpiProgram + args +
                                 " : -np 1 env CUDA_VISIBLE_DEVICES=1 " + kMpiProgram + args,
                             300);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("\"ok\": true"), std::string::npos) << run.output;
  EXPECT_EQ(json_ints(run.output, "local_rank"), (std::vector<long long>{0, 1})) << run.output;
  EXPECT_EQ(json_ints(run.output, "gpu"), (std::vector<long long>{0, 0})) << run.output;
  const std::vector<std::string> buses = json_strings(run.output, "bus_id");
  ASSERT_EQ(buses.size(), 2u) << run.output;
  EXPECT_NE(buses[0], buses[1]) << run.output;
}

// One rank per GPU on a file with a NaN in one shard or both: NaN for max, min and sum.
TEST(MultiGpu, MpiNanInAShardMatchesNumpy) {
  REQUIRE_GPUS(2);
  REQUIRE_MPI();
  for (const char* type : {"float", "double"}) {
    for (NanAt at : {NanAt::First, NanAt::Last, NanAt::Both}) {
      const std::string input = nan_input("multi_gpu_mpi", type, at);
      for (const char* op : {"max", "min", "sum"}) {
        const JobRun run = run_job(kMpirun + " -np 2 " + kMpiProgram + " --reps 2 --json --type " + type + " --op " +
                                       op + " --input " + input,
                                   120);
        const std::string what = std::string(type) + " " + op + ", NaN in " + name_of(at) + "\n" + run.output;
        EXPECT_EQ(run.exit_code, 0) << what;
        EXPECT_NE(run.output.find("\"ok\": true"), std::string::npos) << what;
        EXPECT_NE(run.output.find("\"result\": \"nan\""), std::string::npos) << what;
      }
    }
  }
}

// ---------------------------------------------------------------- a rank that fails

// Rank 1 fails at `stage` (REDUCTION_TEST_FAIL); NCCL steps time out after 10 s.
JobRun run_with_failing_rank(const std::string& stage) {
  return run_job("env REDUCTION_TEST_FAIL=1:" + stage + " REDUCTION_NCCL_TIMEOUT=10 " + kMpirun + " -np 2 " +
                     kMpiProgram + " --reps 2 --n 2^20",
                 150);
}

TEST(MultiGpu, MpiRankFailingDuringSetupEndsTheJobWithItsMessage) {
  REQUIRE_GPUS(2);
  REQUIRE_MPI();
  const JobRun run = run_with_failing_rank("setup");
  EXPECT_FALSE(run.timed_out) << "the job hung\n" << run.output;
  EXPECT_EQ(run.exit_code, 3) << run.output;
  EXPECT_NE(run.output.find("11_multi_gpu_mpi: rank 1 on "), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("injected failure during setup"), std::string::npos) << run.output;
}

TEST(MultiGpu, MpiRankExitingDuringSetupEndsTheJob) {
  REQUIRE_GPUS(2);
  REQUIRE_MPI();
  const JobRun run = run_with_failing_rank("exit");
  EXPECT_FALSE(run.timed_out) << "the job hung\n" << run.output;
  EXPECT_NE(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("rank 1 on "), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("exits during setup"), std::string::npos) << run.output;
}

// A rank that stops answering (a dead node, as far as its peers can tell): the other
// rank's NCCL wait gives up after REDUCTION_NCCL_TIMEOUT, says so, and ends the job.
TEST(MultiGpu, MpiRankSilentBeforeTheCommunicatorTimesOut) {
  REQUIRE_GPUS(2);
  REQUIRE_MPI();
  const JobRun run = run_with_failing_rank("init");
  EXPECT_FALSE(run.timed_out) << "the job hung\n" << run.output;
  EXPECT_EQ(run.exit_code, 3) << run.output;
  EXPECT_NE(run.output.find("rank 1 on "), std::string::npos) << run.output;  // "stops answering"
  EXPECT_NE(run.output.find("11_multi_gpu_mpi: rank 0 on "), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("creating the NCCL communicator"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("did not finish within 10 s"), std::string::npos) << run.output;
}

TEST(MultiGpu, MpiRankSilentBeforeTheAllReduceTimesOut) {
  REQUIRE_GPUS(2);
  REQUIRE_MPI();
  const JobRun run = run_with_failing_rank("allreduce");
  EXPECT_FALSE(run.timed_out) << "the job hung\n" << run.output;
  EXPECT_EQ(run.exit_code, 3) << run.output;
  EXPECT_NE(run.output.find("11_multi_gpu_mpi: rank 0 on "), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("all-reduce"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("did not finish within 10 s"), std::string::npos) << run.output;
}

// Checked before any GPU work: needs MPI, not a GPU.
TEST(MultiGpu, MpiNodeOverrideOnSomeRanksOnlyIsAUsageError) {
  REQUIRE_MPI();
  const JobRun run = run_job(kMpirun + " -np 1 env REDUCTION_NODE=0 " + kMpiProgram + " --n 1000 : -np 1 " +
                                 kMpiProgram + " --n 1000",
                             120);
  EXPECT_FALSE(run.timed_out) << run.output;
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("REDUCTION_NODE is set on 1 of 2 ranks"), std::string::npos) << run.output;
}

}  // namespace
}  // namespace reduction::testing
