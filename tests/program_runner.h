// program_runner.h: runs one of the built programs and captures its exit code and
// everything it printed (stdout and stderr together).
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace reduction::testing {

struct ProgramRun {
  int exit_code = -1;
  std::string output;
};

// `env` is prepended to the command line (for example "CUDA_VISIBLE_DEVICES= ").
inline ProgramRun run_program(const std::string& program, const std::string& args, const std::string& env = "") {
  const std::string command = env + std::string(REDUCTION_BIN_DIR) + "/" + program + " " + args + " 2>&1";
  ProgramRun run;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return run;
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), static_cast<int>(buffer.size()), pipe)) run.output += buffer.data();
  const int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

}  // namespace reduction::testing
