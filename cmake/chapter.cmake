# add_reduction_chapter(<dir> <stem> <Struct> [<VariantStruct>...])
#
# A chapter folder <dir> holds <stem>.cuh (the kernel struct's declaration),
# <stem>.cu (kernels and launcher) and main.cu. This makes:
#   - reduction_<dir>: a static library with the launcher, linked by the tests and the tour;
#   - <dir>:           the chapter's executable (main.cu + the common harness).
# The structs are recorded so that finish_reduction_chapters() can generate the list
# of all chapters (all_chapters.cu) that the tests and the tour iterate over.
function(add_reduction_chapter dir stem)
  set(lib reduction_${dir})
  add_library(${lib} STATIC ${dir}/${stem}.cu)
  target_include_directories(${lib} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/${dir})
  target_link_libraries(${lib} PUBLIC reduction_kernel_support)
  add_executable(${dir} ${dir}/main.cu)
  target_link_libraries(${dir} PRIVATE ${lib} reduction_common)

  list(JOIN ARGN ", " structs)
  set_property(GLOBAL APPEND PROPERTY REDUCTION_CHAPTER_LIBS ${lib})
  set_property(GLOBAL APPEND PROPERTY REDUCTION_CHAPTER_NAMES ${dir})
  set_property(GLOBAL APPEND PROPERTY REDUCTION_CHAPTER_INCLUDES "#include \"${stem}.cuh\"")
  set_property(GLOBAL APPEND PROPERTY REDUCTION_CHAPTER_MAKERS "      make_chapter<${structs}>(),")
endfunction()

# Generates all_chapters.cu and the library reduction_all_chapters that holds it.
function(finish_reduction_chapters)
  get_property(libs GLOBAL PROPERTY REDUCTION_CHAPTER_LIBS)
  get_property(includes GLOBAL PROPERTY REDUCTION_CHAPTER_INCLUDES)
  get_property(makers GLOBAL PROPERTY REDUCTION_CHAPTER_MAKERS)
  list(JOIN includes "\n" REDUCTION_INCLUDES)
  list(JOIN makers "\n" REDUCTION_MAKERS)
  configure_file(${CMAKE_CURRENT_SOURCE_DIR}/cmake/all_chapters.cu.in ${CMAKE_CURRENT_BINARY_DIR}/all_chapters.cu @ONLY)
  add_library(reduction_all_chapters STATIC ${CMAKE_CURRENT_BINARY_DIR}/all_chapters.cu)
  target_link_libraries(reduction_all_chapters PUBLIC reduction_common ${libs})
endfunction()
