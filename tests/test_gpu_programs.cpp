// The programs end to end on a GPU: each chapter verifies a random input and prints
// the JSON keys scripts rely on; --input files are reduced; N beyond the device's
// memory is a usage error; the tour runs every chapter and checks each one.
#include <gtest/gtest.h>

#include <regex>

#include "chapter.h"
#include "chapter_list.h"
#include "gpu_test.h"
#include "input.h"
#include "program_runner.h"
#include "reference.h"

namespace reduction::testing {
namespace {

TEST(GpuPrograms, EveryChapterVerifiesAndPrintsJson) {
  REQUIRE_GPU();
  for (const Chapter& c : chapters()) {
    for (const char* type : {"int", "float", "double"}) {
      const ProgramRun run = run_program(c.id, std::string("--n 1000003 --reps 3 --json --type ") + type);
      EXPECT_EQ(run.exit_code, 0) << c.id << "\n" << run.output;
      for (const char* key : {"\"chapter\": ", "\"type\": ", "\"n\": 1000003", "\"result\": ", "\"reference\": ",
                              "\"ok\": true", "\"median_ms\": ", "\"min_ms\": ", "\"iqr_ms\": ", "\"gbps\": ",
                              "\"peak_gbps\": "}) {
        EXPECT_NE(run.output.find(key), std::string::npos) << c.id << " JSON lacks " << key << ":\n" << run.output;
      }
      EXPECT_EQ(run.output.rfind("{\"head\": true, \"device\": \"", 0), 0u) << c.id << " no run head first:\n"
                                                                          << run.output;
    }
  }
}

TEST(GpuPrograms, ReducesTheReadersNpyFile) {
  REQUIRE_GPU();
  const std::vector<float> values = generate_input<float>(123457, fresh_seed());
  const std::string path = ::testing::TempDir() + "gpu_programs_input.npy";
  save_npy(path, values);
  const Reference ref = cpu_reference(values.data(), values.size());
  for (const Chapter& c : chapters()) {
    const ProgramRun run = run_program(c.id, "--type float --reps 2 --json --input " + path);
    EXPECT_EQ(run.exit_code, 0) << c.id << "\n" << run.output;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(run.output, m, std::regex("\"reference\": ([-0-9.e+]+)"))) << run.output;
    EXPECT_NEAR(std::stod(m[1]), ref.value, 1e-9 * ref.sum_abs) << c.id;
    EXPECT_NE(run.output.find("\"n\": 123457"), std::string::npos) << run.output;
  }
}

TEST(GpuPrograms, NTooLargeForTheDeviceExitsTwo) {
  REQUIRE_GPU();
  for (const Chapter& c : chapters()) {
    // 2^38 doubles (2 TiB): past any GPU's memory, yet within 01-03's grid (2^30 blocks
    // of 256), so that the memory check, not the grid check, is the one that answers.
    const ProgramRun run = run_program(c.id, "--n 2^38 --type double");
    EXPECT_EQ(run.exit_code, 2) << c.id << "\n" << run.output;
    EXPECT_NE(run.output.find("GiB of device memory"), std::string::npos) << run.output;
  }
}

// 01-03 launch one block per B elements: an n that needs more than 2^31 - 1 blocks is a
// usage error (exit 2, with the limit), found before the input is made or allocated.
// --block 2 --n 2^32 needs 2^31 blocks; 03 takes powers of two from 32.
TEST(GpuPrograms, GridPast2To31BlocksExitsTwo) {
  REQUIRE_GPU();
  for (const char* args : {"01_global_naive --block 2 --n 2^32", "02_neighbored_less --block 5 --n 2^34",
                           "03_interleaved --block 32 --n 2^37"}) {
    const std::string line(args);
    const std::size_t space = line.find(' ');
    const ProgramRun run = run_program(line.substr(0, space), line.substr(space + 1));
    EXPECT_EQ(run.exit_code, 2) << args << "\n" << run.output;
    EXPECT_NE(run.output.find("more than a grid holds (2^31 - 1)"), std::string::npos) << args << "\n" << run.output;
  }
}

TEST(GpuPrograms, TourRunsEveryChapterOk) {
  REQUIRE_GPU();
  const ProgramRun run = run_program("tour", "--n 2^20+13 --reps 3");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  for (const Chapter& c : chapters()) {
    EXPECT_TRUE(std::regex_search(run.output, std::regex("\n" + c.id.substr(0, 2) + "_[a-z_]+.* ok")))
        << c.id << " missing or not ok in:\n" << run.output;
  }
  EXPECT_EQ(run.output.find("WRONG"), std::string::npos) << run.output;
}

}  // namespace
}  // namespace reduction::testing
