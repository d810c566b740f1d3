# Compiles the int8 eval sources for a Cortex-M4 without FPU (soft-float ABI)
# and fails if any object references a floating-point helper (__aeabi_f*,
# __aeabi_d*, __aeabi_[ui]2[fd], libm): eval must run on an FPU-less core
# without pulling in soft-float code.
#   cmake -DCXX=arm-none-eabi-g++ -DNM=arm-none-eabi-nm -DROOT=<repo> -DOUT=<dir> -P check_no_float.cmake
set(sources engine/src/ops/softmax_s8.cpp engine/src/ops/sdpa_s8.cpp engine/src/core/attend_s8.cpp
            engine/src/core/attend_s8_parallel.cpp engine/src/core/rope_s8.cpp
            engine/src/ops/mha_s8.cpp engine/src/ops/mha_decode_s8.cpp engine/src/ops/luong_s8.cpp engine/src/ops/bahdanau_s8.cpp)
file(GLOB_RECURSE extra ${ROOT}/engine/src/kernels/s8/*.cpp)
list(REMOVE_DUPLICATES extra)
foreach(cpu cortex-m4 cortex-m33 cortex-m55)
  # The attn/config.h a Cortex-M build of the library generates (ref float
  # kernels; the query-tiled int8 core).
  set(PROJECT_VERSION soft-float-check)
  set(ATTN_BACKEND_NAME ref)
  set(ATTN_S8_KERNELS dsp)
  set(ATTN_SDPA_S8_QUERY_TILE 4)
  set(ATTN_SDPA_S8_QTILE_BYTES 2)
  if(cpu STREQUAL "cortex-m55")
    set(ATTN_S8_KERNELS mve)
    set(ATTN_SDPA_S8_QTILE_BYTES 1)
  endif()
  set(ATTN_SDPA_QUERY_TILE 8)
  set(ATTN_PARALLEL_VALUE 0)
  configure_file(${ROOT}/engine/cmake/config.h.in ${OUT}/${cpu}/attn/config.h @ONLY)
  set(all ${sources})
  foreach(e ${extra})
    file(RELATIVE_PATH r ${ROOT} ${e})
    list(APPEND all ${r})
  endforeach()
  list(REMOVE_DUPLICATES all)
  foreach(src ${all})
    get_filename_component(abs ${src} ABSOLUTE BASE_DIR ${ROOT})
    get_filename_component(name ${src} NAME_WE)
    set(obj ${OUT}/${cpu}_${name}.o)
    execute_process(
      COMMAND ${CXX} -std=c++17 -O2 -mthumb -mcpu=${cpu} -mfloat-abi=soft -fno-exceptions -fno-rtti
              -Wall -Wextra -Werror -Wshadow -Wconversion -Wno-sign-conversion
              -I${ROOT}/engine/include -I${OUT}/${cpu} -I${ROOT}/engine/src -c ${abs} -o ${obj}
      RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "compiling ${src} for ${cpu} failed:\n${err}")
    endif()
    execute_process(COMMAND ${NM} -u ${obj} OUTPUT_VARIABLE undef)
    string(REGEX MATCHALL "__aeabi_[a-z0-9]*[fd][a-z0-9]*|[a-z_]*(sqrt|exp|frexp|round|ldexp)[f]?" bad "${undef}")
    # __aeabi_memcpy/memset/memclr are fine; keep only float helpers.
    list(FILTER bad EXCLUDE REGEX "__aeabi_mem")
    if(bad)
      message(FATAL_ERROR "${src} (${cpu}, soft float) references floating point: ${bad}")
    endif()
    message(STATUS "${cpu} ${name}: no floating-point references")
  endforeach()
endforeach()
