# Builds and runs one of examples/ the way a user does, outside the library's
# build. Arguments (-D):
#   EXAMPLE    firmware | host-cmake | host-make | decode-stream | decode-firmware
#   MODE       find_package (installs BUILD_DIR into a scratch prefix first) |
#              add_subdirectory (the source tree, with no CMAKE_BUILD_TYPE: the
#              engine's compile commands must carry the Release flags) |
#              pkg-config (host-make)
#   SOURCE_DIR, BUILD_DIR, WORK_DIR
#   FLAGS      '|'-separated cache settings for the example (compiler, flags)
#   CPU, QEMU, QEMU_MACHINE   firmware only
# Output check: firmware and host-cmake print the seed's table, compared with
# the seed's printed values (NumPy, float64) within 1e-6 (6 printed decimals:
# 5e-7, float32 result: 3e-7); host-make and decode-stream check themselves
# (exit code); decode-firmware (on the host, or on the board when CPU is set)
# prints one line per token that must equal examples/decode-firmware/
# expected_output.txt, the NumPy int8 reference's lines.
string(REPLACE "|" ";" flags "${FLAGS}")
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

function(run out_var)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out
                  INPUT_FILE /dev/null)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

# The seed's table, in units of 1e-8.
set(seed_rows "98522025;174174051;75652026" "90965265;140965265;50000000"
              "99851226;175849334;75998108" "99560386;190407309;90846923")
function(check_seed_table output)
  string(REGEX MATCHALL "[-0-9]+\\.[0-9][0-9][0-9][0-9][0-9][0-9]" values "${output}")
  list(LENGTH values n)
  if(NOT n EQUAL 12)
    message(FATAL_ERROR "expected 12 numbers (4 x 3, %.6f), got ${n}:\n${output}")
  endif()
  set(i 0)
  foreach(row IN LISTS seed_rows)
    string(REPLACE ";" " " row_text "${row}")
    foreach(want IN LISTS row)
      list(GET values ${i} got)
      string(REPLACE "." "" got_micro "${got}")
      math(EXPR diff "${got_micro} * 100 - ${want}")
      if(diff GREATER 100 OR diff LESS -100)
        message(FATAL_ERROR "value ${i}: ${got}, seed ${want}e-8 (off by more than 1e-6)\n${output}")
      endif()
      math(EXPR i "${i} + 1")
    endforeach()
  endforeach()
endfunction()

# The engine's objects get the Release flags when the consumer sets no build
# type; the consumer's own files keep its (empty) choice.
function(check_engine_flags build_dir)
  file(READ ${build_dir}/compile_commands.json json)
  string(JSON count LENGTH "${json}")
  math(EXPR last "${count} - 1")
  set(engine_ok 0)
  foreach(i RANGE ${last})
    string(JSON file GET "${json}" ${i} file)
    string(JSON command GET "${json}" ${i} command)
    if(file MATCHES "/engine/src/" AND NOT command MATCHES " -O3 -DNDEBUG")
      message(FATAL_ERROR "no build type, but the engine compiles without the Release flags:\n${command}")
    elseif(file MATCHES "/engine/src/")
      math(EXPR engine_ok "${engine_ok} + 1")
    elseif(file MATCHES "/examples/" AND command MATCHES " -O3")
      message(FATAL_ERROR "the example's own file got the engine's flags:\n${command}")
    endif()
  endforeach()
  if(engine_ok EQUAL 0)
    message(FATAL_ERROR "no engine source in ${build_dir}/compile_commands.json")
  endif()
  message(STATUS "no build type: ${engine_ok} engine sources compile with -O3 -DNDEBUG")
endfunction()

set(src ${SOURCE_DIR}/examples/${EXAMPLE})
set(prefix ${WORK_DIR}/prefix)
if(MODE STREQUAL "find_package" OR MODE STREQUAL "pkg-config")
  run(out ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
endif()

if(EXAMPLE STREQUAL "host-make")
  # Plain make + pkg-config, no CMake and no -D: the installed attn/config.h
  # alone must give the library's scratch sizes.
  set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig)
  file(COPY ${src}/ DESTINATION ${WORK_DIR}/src)
  run(out make -C ${WORK_DIR}/src ${flags})
  run(out ${WORK_DIR}/src/scratch_check)
  message(STATUS "${out}")
  # Control: a config.h that disagrees with the library (a float query tile of
  # 8 against the library's, or 32 against a ref library) must be caught.
  file(COPY ${prefix}/include/attn DESTINATION ${WORK_DIR}/wrong/include)
  file(READ ${WORK_DIR}/wrong/include/attn/config.h config)
  string(REGEX MATCH "#define ATTN_SDPA_QUERY_TILE ([0-9]+)" _ "${config}")
  if(CMAKE_MATCH_1 EQUAL 8)
    set(wrong 32)
  else()
    set(wrong 8)
  endif()
  string(REGEX REPLACE "#define ATTN_SDPA_QUERY_TILE [0-9]+" "#define ATTN_SDPA_QUERY_TILE ${wrong}"
         config "${config}")
  file(WRITE ${WORK_DIR}/wrong/include/attn/config.h "${config}")
  run(out make -C ${WORK_DIR}/src clean)
  list(TRANSFORM flags REPLACE "^CXXFLAGS=(.*)" "CXXFLAGS=-I${WORK_DIR}/wrong/include \\1")
  if(NOT flags MATCHES "CXXFLAGS=")
    list(APPEND flags "CXXFLAGS=-I${WORK_DIR}/wrong/include")
  endif()
  run(out make -C ${WORK_DIR}/src ${flags})
  execute_process(COMMAND ${WORK_DIR}/src/scratch_check RESULT_VARIABLE rc OUTPUT_VARIABLE out)
  if(rc EQUAL 0)
    message(FATAL_ERROR "control: a config.h with query tile ${wrong} was not caught:\n${out}")
  endif()
  message(STATUS "control (query tile ${wrong}) caught: ${out}")
  return()
endif()

set(configure ${CMAKE_COMMAND} -S ${src} -B ${WORK_DIR}/build -G Ninja ${flags})
set(board OFF)
if(EXAMPLE STREQUAL "firmware" OR (EXAMPLE STREQUAL "decode-firmware" AND CPU))
  set(board ON)
endif()
if(board)
  if(MODE STREQUAL "find_package")
    # The installed toolchain file, and a board script outside the library:
    # the shipped board's memory map, from the application's own tree.
    list(APPEND configure -DCMAKE_TOOLCHAIN_FILE=${prefix}/share/attn/toolchains/arm-none-eabi.cmake
         -DATTN_LINKER_SCRIPT=${WORK_DIR}/my-board.ld)
    file(READ ${SOURCE_DIR}/platform/ld/${QEMU_MACHINE}.ld board)
    file(WRITE ${WORK_DIR}/my-board.ld "/* A board script kept by the application. */\n${board}")
  else()
    list(APPEND configure -DCMAKE_TOOLCHAIN_FILE=${SOURCE_DIR}/toolchains/arm-none-eabi.cmake)
  endif()
  list(APPEND configure -DATTN_CPU=${CPU})
endif()
if(MODE STREQUAL "find_package")
  list(APPEND configure -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
else()
  list(APPEND configure -DATTN_SOURCE_DIR=${SOURCE_DIR} -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)
  if(EXAMPLE STREQUAL "host-cmake")
    list(APPEND configure -DATTN_SIMD=ref)
  endif()
endif()
run(out ${configure})
if(MODE STREQUAL "add_subdirectory")
  check_engine_flags(${WORK_DIR}/build)
endif()
run(out ${CMAKE_COMMAND} --build ${WORK_DIR}/build)
if(EXAMPLE STREQUAL "decode-firmware")
  if(board)
    run(out ${QEMU} -M ${QEMU_MACHINE} -nographic -semihosting-config enable=on,target=native
        -kernel ${WORK_DIR}/build/decode.elf)
  else()
    run(out ${WORK_DIR}/build/decode)
  endif()
  string(REGEX MATCHALL "token[^\n]*\n" lines "${out}")
  string(JOIN "" got ${lines})
  file(READ ${src}/expected_output.txt want)
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "decode-firmware: the output differs from expected_output.txt:\n${out}")
  endif()
  list(LENGTH lines n)
  message(STATUS "decode-firmware: ${n} token lines equal expected_output.txt")
  return()
elseif(EXAMPLE STREQUAL "firmware")
  # The README's command line; the semihosting console writes to stderr.
  run(out ${QEMU} -M ${QEMU_MACHINE} -nographic -semihosting-config enable=on,target=native
      -kernel ${WORK_DIR}/build/app.elf)
elseif(EXAMPLE STREQUAL "decode-stream")
  run(out ${WORK_DIR}/build/decode_stream)
  message(STATUS "${out}")
  return()
else()
  run(out ${WORK_DIR}/build/seed)
endif()
message(STATUS "${out}")
check_seed_table("${out}")
