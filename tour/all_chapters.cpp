// all_chapters.cpp: every GPU chapter in reading order, for the tour and the tests: the
// chapters of kind array in chapters.txt, which tour/CMakeLists.txt passes here as
// REDUCTION_TOUR_CHAPTERS, X(name) for each NN_name. Each name_chapter() is defined in its
// chapter's main.cu.
#include "all_chapters.h"

namespace reduction {

#define X(name) Chapter name##_chapter();
REDUCTION_TOUR_CHAPTERS
#undef X

std::vector<Chapter> all_gpu_chapters() {
#define X(name) name##_chapter(),
  return {REDUCTION_TOUR_CHAPTERS};
#undef X
}

}  // namespace reduction
