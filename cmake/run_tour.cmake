# Runs the tour for `cmake --build --preset tour`. Exit 3 (no CUDA device) is not a
# build failure: the tour has already printed the CPU baseline and the reason.
execute_process(COMMAND ${TOUR} RESULT_VARIABLE status)
if(status EQUAL 3)
  message(STATUS "tour: the GPU chapters need a CUDA GPU (see the message above)")
elseif(NOT status EQUAL 0)
  message(FATAL_ERROR "tour: exit code ${status}")
endif()
