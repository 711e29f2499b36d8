# ctest build.one_chapter (tests/CMakeLists.txt): building one chapter builds only what it
# uses. Reads the build graph (ninja -t commands TARGET: every command the target needs from
# scratch) and fails when 00_cpu_baseline would compile a CUDA file, or 04_shared_tree (a
# single-array chapter) anything of the rows chapters or the read-only floor.
# Run as: cmake -DNINJA=... -DBUILD_DIR=... -P one_chapter_build.cmake
function(commands_of target out)
  execute_process(COMMAND ${NINJA} -C ${BUILD_DIR} -t commands ${target} OUTPUT_VARIABLE text
                  RESULT_VARIABLE status ERROR_VARIABLE error)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "ninja -t commands ${target} failed: ${error}")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

commands_of(00_cpu_baseline cpu)
if(cpu MATCHES "nvcc[^\n]* -c [^\n]*\\.cu")
  message(FATAL_ERROR "00_cpu_baseline compiles a CUDA file:\n${CMAKE_MATCH_0}")
endif()
commands_of(04_shared_tree array)
foreach(file rows_harness.cu rows_cli.cpp rows_input.cpp rows_check.cpp cub_rows.cu read_floor.cu)
  if(array MATCHES "${file}")
    message(FATAL_ERROR "04_shared_tree compiles ${file}, which only other programs use")
  endif()
endforeach()
if(NOT array MATCHES "shared_tree\\.cu")
  message(FATAL_ERROR "04_shared_tree's commands do not compile shared_tree.cu: the check reads the wrong graph")
endif()
message(STATUS "00_cpu_baseline compiles no CUDA file; 04_shared_tree compiles nothing of the rows chapters")
