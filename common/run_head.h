// run_head.h: the head of every program's JSON output, the one place that describes a run.
// A program that prints JSON lines prints the head as its first line; a JSON document
// written to a file holds it as its member "head". Records after it keep only their own
// fields and time themselves as median_ms, min_ms, iqr_ms.
//
//   {"head": true, "device": "NVIDIA H100 80GB HBM3", "cuda": "13.0", "driver": "13.0",
//    "date": "2026-11-28", "sms": 132, "peak_gbps": 3352.320, "reps": 30, "flush": true}
#pragma once

#include <string>

#include "device_info.h"

namespace reduction {

// A CUDA version number (cudaRuntimeGetVersion, cudaDriverGetVersion) as "13.0".
std::string cuda_version_text(int version);

// The runtime's version, "13.0", and the driver's (the CUDA version it supports,
// cudaDriverGetVersion: "13.0"; "" where no driver answers). The driver's own release,
// 580.159.04, is nvidia-smi's: tools/gpu_suite.sh records it in gpu.txt.
std::string cuda_runtime_version();
std::string cuda_driver_version();

// The head as one JSON object (no newline). device null: a run without a GPU (device,
// sms and peak_gbps null).
std::string run_head(const DeviceInfo* device, int reps, bool flush);

}  // namespace reduction
