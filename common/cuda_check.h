// cuda_check.h: error checks for the harness, the tools and the tests (the copy units
// return their first CUDA error instead, and include no repository header).
//
// CUDA_CHECK(call) runs a CUDA runtime call and, if it fails, throws
// reduction::CudaError naming the call, the file and the line. CUDA_CHECK_LAUNCH()
// goes right after every <<<...>>> launch: a bad launch configuration is only
// reported by cudaGetLastError(), never by the launch itself.
//
// Throwing (rather than exit()) lets the harness turn the error into exit code 3
// and lets the tests report it as a failure instead of dying.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace reduction {

class CudaError : public std::runtime_error {
 public:
  explicit CudaError(const std::string& what) : std::runtime_error(what) {}
};

inline void cuda_check(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) {
    throw CudaError(std::string("CUDA error: ") + call + " failed at " + file + ":" +
                    std::to_string(line) + ": " + cudaGetErrorName(status) + " (" +
                    cudaGetErrorString(status) + ")");
  }
}

}  // namespace reduction

#define CUDA_CHECK(call) ::reduction::cuda_check((call), #call, __FILE__, __LINE__)
#define CUDA_CHECK_LAUNCH() ::reduction::cuda_check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
