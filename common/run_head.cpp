#include "run_head.h"

#include <cuda_runtime.h>

#include "json.h"

namespace reduction {

std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::string cuda_runtime_version() {
  int version = 0;
  return cudaRuntimeGetVersion(&version) == cudaSuccess ? cuda_version_text(version) : "";
}

std::string cuda_driver_version() {
  int version = 0;
  return cudaDriverGetVersion(&version) == cudaSuccess && version > 0 ? cuda_version_text(version) : "";
}

std::string run_head(const DeviceInfo* device, int reps, bool flush) {
  auto text_or_null = [](const std::string& s) { return s.empty() ? std::string("null") : json_string(s); };
  JsonObject head;
  head.flag("head", true).raw("device", device ? json_string(device->name) : "null")
      .raw("cuda", text_or_null(cuda_runtime_version())).raw("driver", text_or_null(cuda_driver_version()))
      .str("date", utc_date()).raw("sms", device ? std::to_string(device->sm_count) : "null");
  if (device) head.num("peak_gbps", device->peak_gbps(), "%.3f");
  else head.raw("peak_gbps", "null");
  return head.num("reps", reps).flag("flush", flush).text();
}

}  // namespace reduction
