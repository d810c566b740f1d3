# Writes attn/config.h (engine/cmake/config.h.in) into the build tree's
# include directory: the float backend, the int8 kernel set and the two query
# tiles, which size the users' scratch. Needs ATTN_BACKEND_NAME (backends.cmake).
include(CheckCXXSourceCompiles)

# The int8 kernel set the compiler's target selects: the first of these whose
# predefined macros hold (the order of attn/int8/kernels_s8.h), else ref.
function(attn_detect_s8_kernels out_var)
  set(conditions
    "mve|defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)"
    "dsp|defined(__ARM_FEATURE_DSP) && defined(__ARM_FEATURE_SIMD32)"
    "neon|defined(__aarch64__) && defined(__ARM_NEON)"
    "x86|defined(__x86_64__) && defined(__GNUC__)")
  foreach(entry IN LISTS conditions)
    string(REPLACE "|" ";" entry "${entry}")
    list(GET entry 0 name)
    list(GET entry 1 condition)
    set(CMAKE_REQUIRED_QUIET ON)
    check_cxx_source_compiles("#if !(${condition})\n#error not ${name}\n#endif\nint main() { return 0; }"
      ATTN_S8_KERNELS_IS_${name})
    if(ATTN_S8_KERNELS_IS_${name})
      set(${out_var} ${name} PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out_var} ref PARENT_SCOPE)
endfunction()

attn_detect_s8_kernels(ATTN_S8_KERNELS)
# The float core's query tile: 32 with a SIMD backend, 8 with the scalar ones
# (ref, mcu), where RAM comes first.
if(ATTN_BACKEND_NAME STREQUAL "hwy" OR ATTN_BACKEND_NAME STREQUAL "xsimd")
  set(ATTN_SDPA_QUERY_TILE 32)
else()
  set(ATTN_SDPA_QUERY_TILE 8)
endif()
if(ATTN_S8_KERNELS STREQUAL "x86")
  set(ATTN_SDPA_S8_QUERY_TILE 16)
else()
  set(ATTN_SDPA_S8_QUERY_TILE 1)
endif()
set(ATTN_CONFIG_INCLUDE_DIR ${CMAKE_CURRENT_BINARY_DIR}/include)
# The parallel hook's work split (attn/parallel.h): on for hosted targets;
# off on bare metal, where it would add the task trampolines to every op's
# worst-case stack (-DATTN_PARALLEL=ON for a dual-core part, platform/PORTING.md).
if(ATTN_BARE_METAL)
  set(_attn_parallel_default OFF)
else()
  set(_attn_parallel_default ON)
endif()
option(ATTN_PARALLEL "Ops split their work over args.executor (attn/parallel.h)"
  ${_attn_parallel_default})
if(ATTN_PARALLEL)
  set(ATTN_PARALLEL_VALUE 1)
else()
  set(ATTN_PARALLEL_VALUE 0)
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/config.h.in ${ATTN_CONFIG_INCLUDE_DIR}/attn/config.h @ONLY)
message(STATUS "attn: int8 kernels ${ATTN_S8_KERNELS}; query tiles ${ATTN_SDPA_QUERY_TILE} (float), "
               "${ATTN_SDPA_S8_QUERY_TILE} (int8)")
