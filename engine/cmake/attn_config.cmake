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
# (ref, mcu), where RAM comes first; 16 with Helium (mve), the smallest tile
# of the transposed layout (queries along the vector).
if(ATTN_BACKEND_NAME STREQUAL "hwy" OR ATTN_BACKEND_NAME STREQUAL "xsimd")
  set(ATTN_SDPA_QUERY_TILE 32)
elseif(ATTN_BACKEND_NAME STREQUAL "mve")
  set(ATTN_SDPA_QUERY_TILE 16)
else()
  set(ATTN_SDPA_QUERY_TILE 8)
endif()
# The int8 core's query tile: 16 on x86 (VNNI GEMMs) and AArch64 (SDOT /
# USMMLA GEMMs where the CPU has them), 4 with the Cortex-M
# DSP and Helium kernels (2 x 2 SMLAD / VMLADAVA blocks; RAM first), 1 (the
# one-row core) elsewhere, Armv7-A's DSP set included (kernel_set_dsp.h).
# A MinSizeRel (-Os) Cortex-M build keeps the one-row core: the tiled core
# and its kernels cost about 4.3 KB of flash per int8 attention op.
# The DSP set packs the query tile as int16 (2 bytes an element).
set(ATTN_SDPA_S8_QTILE_BYTES 1)
if(ATTN_S8_KERNELS STREQUAL "x86" OR ATTN_S8_KERNELS STREQUAL "neon")
  set(ATTN_SDPA_S8_QUERY_TILE 16)
elseif(CMAKE_BUILD_TYPE STREQUAL "MinSizeRel")
  set(ATTN_SDPA_S8_QUERY_TILE 1)
elseif(ATTN_S8_KERNELS STREQUAL "dsp" AND ATTN_BARE_METAL)
  set(ATTN_SDPA_S8_QUERY_TILE 4)
  set(ATTN_SDPA_S8_QTILE_BYTES 2)
elseif(ATTN_S8_KERNELS STREQUAL "mve")
  set(ATTN_SDPA_S8_QUERY_TILE 4)
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
