// all_chapters.h: every GPU chapter, in reading order, for the tour and the tests
// (all_chapters.cpp: the chapters of kind array in chapters.txt).
#pragma once

#include <vector>

#include "chapter.h"

namespace reduction {

std::vector<Chapter> all_gpu_chapters();

}  // namespace reduction
