// parallel.h: split [0, n) into one contiguous chunk per hardware thread and run
// body(thread_index, begin, end) on each, on std::threads. Used to generate inputs
// and compute references fast enough for arrays of billions of elements.
#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace reduction {

inline unsigned cpu_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

// Small inputs stay on the calling thread: starting threads costs more than it saves.
template <typename Body>
unsigned parallel_chunks(std::size_t n, Body body, unsigned threads = cpu_threads()) {
  if (n < (std::size_t(1) << 16)) threads = 1;
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(n, 1)));
  std::vector<std::thread> pool;
  const std::size_t chunk = (n + threads - 1) / threads;
  for (unsigned t = 1; t < threads; ++t) {
    std::size_t begin = std::min(n, t * chunk), end = std::min(n, begin + chunk);
    pool.emplace_back(body, t, begin, end);
  }
  body(0u, std::size_t(0), std::min(n, chunk));
  for (auto& worker : pool) worker.join();
  return threads;
}

}  // namespace reduction
