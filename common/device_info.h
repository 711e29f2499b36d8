// device_info.h: what the harness needs to know about the GPU, read off the device.
#pragma once

#include <cstddef>
#include <string>

namespace reduction {

struct DeviceInfo {
  int id = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  std::size_t l2_bytes = 0;
  std::size_t total_bytes = 0, free_bytes = 0;
  int memory_clock_khz = 0;
  int bus_width_bits = 0;
  // Theoretical peak DRAM bandwidth: the memory transfers data on both clock edges
  // (double data rate), bus_width_bits / 8 bytes at a time.
  double peak_gbps() const { return 2.0 * memory_clock_khz * 1e3 * (bus_width_bits / 8.0) / 1e9; }
  std::string describe() const;  // "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 50 MiB L2, 79.1 GiB)"
};

// True when a CUDA device can be used; otherwise *why says what went wrong
// ("no CUDA device: cudaGetDeviceCount returned cudaErrorNoDevice ...").
bool cuda_device_available(std::string* why);

// Reads the properties of the current device (throws CudaError on failure).
DeviceInfo query_device();

// The CUDA runtime and driver versions, "13.0 (driver 13.0)".
std::string cuda_version_string();

}  // namespace reduction
