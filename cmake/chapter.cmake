# add_reduction_chapter(<stem> [<extra source>...]), called from a chapter folder's
# CMakeLists.txt. The folder NN_name holds the copy unit <stem>.cuh + <stem>.cu, main.cu
# and the extra sources (pitfalls.cu). This makes:
#   reduction_NN_name_kernels  the copy unit and the extras; no include path into
#                              common/, so a repository header cannot creep in
#   reduction_NN_name          main.cu's description of the chapter, without main(),
#                              for the tour and the tests (common/all_chapters.cpp)
#   NN_name                    the chapter's program
function(add_reduction_chapter stem)
  get_filename_component(dir ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  add_library(reduction_${dir}_kernels STATIC ${stem}.cu ${ARGN})
  target_include_directories(reduction_${dir}_kernels PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(reduction_${dir}_kernels PUBLIC reduction_flags)

  add_library(reduction_${dir} STATIC main.cu)
  target_compile_definitions(reduction_${dir} PRIVATE REDUCTION_CHAPTER_LIBRARY)
  target_link_libraries(reduction_${dir} PUBLIC reduction_${dir}_kernels reduction_common)

  add_executable(${dir} main.cu)
  target_link_libraries(${dir} PRIVATE reduction_${dir}_kernels reduction_common)
endfunction()
