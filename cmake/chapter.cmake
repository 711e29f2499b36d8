# add_reduction_chapter(<stem> [<extra source>...] [ROWS] [USES <NN_name>...]
#                       [STEPS_FROM <NN_name>...] [UNDO <name>=<MACRO>...]), called from a chapter folder's
# CMakeLists.txt. The folder NN_name holds the copy unit <stem>.cuh + <stem>.cu, main.cu
# and the extra sources (pitfalls.cu). This makes:
#   reduction_NN_name_kernels  the copy unit and the extras; no include path into
#                              common/, so a repository header cannot creep in
#   reduction_NN_name          main.cu's description of the chapter, without main(),
#                              for the tour and the tests (tour/all_chapters.cpp)
#   NN_name                    the chapter's program
# ROWS: a rows chapter (13-18), whose main.cu is written for common/rows_harness.h, not for
# the single-array harness. USES: earlier chapters whose copy units the program also runs
# (16's whole rule runs 15's and 14's); the copy unit itself never uses them. STEPS_FROM:
# earlier chapters whose descriptions (their reduction_NN_name, which brings their copy
# units) main.cu's step variants copy: 05, 08 and 09 time each change alone by running one
# chapter's kernel at another chapter's launch rule. UNDO: a change of the chapter undone, for its
# step table where no other chapter's kernel times it: NN_name_undo_<name>, the program again
# with the copy unit compiled with -D<MACRO> (which the unit reads for that alone), out of the
# default build; `tools/gpu_suite.sh undo` builds it and runs it beside the program.
function(add_reduction_chapter stem)
  cmake_parse_arguments(PARSE_ARGV 1 arg "ROWS" "" "USES;STEPS_FROM;UNDO")
  get_filename_component(dir ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  add_library(reduction_${dir}_kernels STATIC ${stem}.cu ${arg_UNPARSED_ARGUMENTS})
  target_include_directories(reduction_${dir}_kernels PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(reduction_${dir}_kernels PUBLIC reduction_flags)
  set(uses reduction_${dir}_kernels)
  if(arg_ROWS)
    list(APPEND uses reduction_rows_common)
  else()
    list(APPEND uses reduction_common)
  endif()
  foreach(other IN LISTS arg_USES)
    list(APPEND uses reduction_${other}_kernels)
  endforeach()
  foreach(other IN LISTS arg_STEPS_FROM)
    list(APPEND uses reduction_${other})
  endforeach()

  add_library(reduction_${dir} STATIC main.cu)
  target_compile_definitions(reduction_${dir} PRIVATE REDUCTION_CHAPTER_LIBRARY)
  target_link_libraries(reduction_${dir} PUBLIC ${uses})

  add_executable(${dir} main.cu)
  target_link_libraries(${dir} PRIVATE ${uses})

  foreach(undo IN LISTS arg_UNDO)
    if(NOT undo MATCHES "^([a-z_]+)=([A-Z0-9_]+)$")
      message(FATAL_ERROR "${dir}: UNDO takes <name>=<MACRO>, not '${undo}'")
    endif()
    set(undone ${dir}_undo_${CMAKE_MATCH_1})
    add_library(reduction_${undone}_kernels STATIC EXCLUDE_FROM_ALL ${stem}.cu ${arg_UNPARSED_ARGUMENTS})
    target_include_directories(reduction_${undone}_kernels PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
    target_compile_definitions(reduction_${undone}_kernels PRIVATE ${CMAKE_MATCH_2})
    target_link_libraries(reduction_${undone}_kernels PUBLIC reduction_flags)
    list(TRANSFORM uses REPLACE "^reduction_${dir}_kernels$" reduction_${undone}_kernels OUTPUT_VARIABLE undo_uses)
    add_executable(${undone} EXCLUDE_FROM_ALL main.cu)
    target_link_libraries(${undone} PRIVATE ${undo_uses})
  endforeach()
endfunction()

# reduction_read_chapters(): reads chapters.txt, the only list of chapters (one line each:
# folder, kind, flags), into REDUCTION_CHAPTERS (every folder, in reading order),
# REDUCTION_GPU_CHAPTERS (kind array: the tour's chapters) and REDUCTION_ROWS_CHAPTERS (kind
# rows), in the caller's scope. A line whose folder is missing stops the configure.
function(reduction_read_chapters)
  file(STRINGS ${PROJECT_SOURCE_DIR}/chapters.txt lines REGEX "^[0-9][0-9]_")
  set(all "")
  set(array "")
  set(rows "")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "[ \t]+" ";" fields "${line}")
    list(GET fields 0 folder)
    list(GET fields 1 kind)
    if(NOT IS_DIRECTORY ${PROJECT_SOURCE_DIR}/${folder})
      message(FATAL_ERROR "chapters.txt names ${folder}, which is not a folder")
    endif()
    list(APPEND all ${folder})
    if(kind STREQUAL "array")
      list(APPEND array ${folder})
    elseif(kind STREQUAL "rows")
      list(APPEND rows ${folder})
    endif()
  endforeach()
  set(REDUCTION_CHAPTERS ${all} PARENT_SCOPE)
  set(REDUCTION_GPU_CHAPTERS ${array} PARENT_SCOPE)
  set(REDUCTION_ROWS_CHAPTERS ${rows} PARENT_SCOPE)
endfunction()
