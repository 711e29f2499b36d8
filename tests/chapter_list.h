// chapter_list.h: the GPU chapters for the tests that go through all of them (the test
// programs that link reduction_all_chapters, tour/all_chapters.cpp).
#pragma once

#include <string>
#include <vector>

#include "all_chapters.h"

namespace reduction::testing {

inline const std::vector<Chapter>& chapters() {
  static const std::vector<Chapter> list = all_gpu_chapters();
  return list;
}

// The indices in chapters() of the chapters that offer --op max and min (09, 10).
inline std::vector<int> operator_chapters() {
  std::vector<int> indices;
  for (std::size_t i = 0; i < chapters().size(); ++i) {
    if (chapters()[i].main().has_operators()) indices.push_back(static_cast<int>(i));
  }
  return indices;
}

inline const Chapter* find_chapter(const std::string& prefix) {
  for (const Chapter& c : chapters()) {
    if (c.id.rfind(prefix, 0) == 0) return &c;
  }
  return nullptr;
}

}  // namespace reduction::testing
