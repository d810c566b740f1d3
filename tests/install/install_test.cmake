# Installs the build tree into a scratch prefix, then configures, builds and
# runs the consumer project against it (find_package) and against the source
# tree (add_subdirectory). Arguments: BUILD_DIR, SOURCE_DIR, WORK_DIR, MODE,
# FLAGS ('|'-separated cache settings of the parent build: compiler, flags).
string(REPLACE "|" ";" flags "${FLAGS}")
file(REMOVE_RECURSE ${WORK_DIR})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()
set(consumer ${CMAKE_CURRENT_LIST_DIR}/consumer)
if(MODE STREQUAL "find_package")
  run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
  run(${CMAKE_COMMAND} -S ${consumer} -B ${WORK_DIR}/build ${flags}
      -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
else()
  run(${CMAKE_COMMAND} -S ${consumer} -B ${WORK_DIR}/build ${flags} -DATTN_SOURCE_DIR=${SOURCE_DIR}
      -DATTN_BUILD_TESTS=OFF -DATTN_BUILD_TOOLS=OFF)
endif()
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/consumer)
