#include "device_info.h"

#include <cstdio>

#include "cuda_check.h"
#include "run_head.h"

namespace reduction {

std::string DeviceInfo::describe() const {
  char text[256];
  std::snprintf(text, sizeof text, "%s (sm_%d%d, %d SMs, %.0f MiB L2, %.1f GiB)", name.c_str(), cc_major,
                cc_minor, sm_count, l2_bytes / 1048576.0, total_bytes / 1073741824.0);
  return text;
}

bool cuda_device_available(std::string* why) {
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    if (why) {
      *why = std::string("no CUDA device: cudaGetDeviceCount returned ") +
             (status == cudaSuccess ? "0 devices" : cudaGetErrorName(status)) +
             (status == cudaSuccess ? "" : std::string(" (") + cudaGetErrorString(status) + ")");
    }
    cudaGetLastError();  // clear the recorded error so later calls start clean
    return false;
  }
  return true;
}

DeviceInfo query_device() {
  DeviceInfo info;
  CUDA_CHECK(cudaGetDevice(&info.id));
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, info.id));
  info.name = prop.name;
  info.cc_major = prop.major;
  info.cc_minor = prop.minor;
  info.sm_count = prop.multiProcessorCount;
  info.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
  // CUDA 13 removed memoryClockRate from cudaDeviceProp; the attribute remains.
  CUDA_CHECK(cudaDeviceGetAttribute(&info.memory_clock_khz, cudaDevAttrMemoryClockRate, info.id));
  CUDA_CHECK(cudaDeviceGetAttribute(&info.bus_width_bits, cudaDevAttrGlobalMemoryBusWidth, info.id));
  CUDA_CHECK(cudaMemGetInfo(&info.free_bytes, &info.total_bytes));
  return info;
}

std::string cuda_version_string() {
  const std::string driver = cuda_driver_version();
  return cuda_runtime_version() + " (driver " + (driver.empty() ? "none" : driver) + ")";
}

}  // namespace reduction
