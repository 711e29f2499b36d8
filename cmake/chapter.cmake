# add_reduction_chapter(<stem> [<extra source>...]), called from a chapter folder's
# CMakeLists.txt. The folder NN_name holds the copy unit <stem>.cuh + <stem>.cu, main.cu
# and the extra sources (pitfalls.cu). This makes:
#   reduction_NN_name_kernels  the copy unit and the extras; no include path into
#                              common/, so a repository header cannot creep in
#   reduction_NN_name          main.cu's description of the chapter, without main(),
#                              for the tour and the tests (tour/all_chapters.cpp)
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

# add_rows_chapter(<stem> [<NN_name>...]), for the rows chapters (13-16): the same three
# targets, with main.cu written for common/rows_harness.h. The chapters named after the
# stem are earlier rows chapters whose copy units the program also runs (its --method
# previous, and 16's whole rule); the copy unit itself never uses them.
function(add_rows_chapter stem)
  get_filename_component(dir ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  add_library(reduction_${dir}_kernels STATIC ${stem}.cu)
  target_include_directories(reduction_${dir}_kernels PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(reduction_${dir}_kernels PUBLIC reduction_flags)
  set(uses reduction_${dir}_kernels reduction_rows_common)
  foreach(other IN LISTS ARGN)
    list(APPEND uses reduction_${other}_kernels)
  endforeach()

  add_library(reduction_${dir} STATIC main.cu)
  target_compile_definitions(reduction_${dir} PRIVATE REDUCTION_CHAPTER_LIBRARY)
  target_link_libraries(reduction_${dir} PUBLIC ${uses})

  add_executable(${dir} main.cu)
  target_link_libraries(${dir} PRIVATE ${uses})
endfunction()
