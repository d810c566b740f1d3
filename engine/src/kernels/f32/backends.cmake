# Selects the float kernel backend (ATTN_SIMD=auto|ref|hwy|xsimd|mcu|mve) and
# adds its sources to the attn target. ref is always compiled: it is the oracle.
#
#   auto   hwy when Highway is found on a hosted target; on bare-metal Cortex-M
#          mve when the target has Helium with floating point, else mcu;
#          else ref
#   mcu    Cortex-M scalar FPU: register-blocked Q.K^T and P.V (4 x 4 blocks
#          in inline assembly), the shared polynomial exp, ref for the rest
#          (bare metal only; the query tile stays 8, as in ref builds)
#   mve    Cortex-M55 Helium (MVE float): every kernel of the SDPA core in
#          Helium intrinsics, the hot loops in inline assembly (bare metal,
#          -mcpu=cortex-m55; query tile 16)
#   hwy    Google Highway: runtime dispatch over SSE4/AVX2/AVX-512/AVX-512+VNNI
#          on x86, static (the compiler's baseline target) elsewhere
#   xsimd  xsimd: the architecture the compiler flags enable
#          (ATTN_XSIMD_FLAGS, default -march=native on a native x86 build)
#
# In a SIMD build (hwy or xsimd) every SIMD library found is compiled, so the
# tests and the kernel benchmarks cover all of them; ATTN_SIMD picks the one
# the ops use. ATTN_SIMD_BACKENDS (cache, internal) lists them.
set(ATTN_XSIMD_FLAGS "" CACHE STRING
  "Extra compile flags for the xsimd backend (empty: -march=native on native x86 builds)")

set(_attn_have_hwy OFF)
set(_attn_have_xsimd OFF)
# Helium with floating point: __ARM_FEATURE_MVE bit 1 (bit 0 is integer MVE).
include(CheckCXXSourceCompiles)
set(CMAKE_REQUIRED_QUIET ON)
check_cxx_source_compiles("#if !(defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2))
#error no MVE float
#endif
int main() { return 0; }" ATTN_HAVE_MVE_FLOAT)
unset(CMAKE_REQUIRED_QUIET)
set(_attn_have_mve_float ${ATTN_HAVE_MVE_FLOAT})
if(NOT ATTN_BARE_METAL AND NOT ATTN_SIMD STREQUAL "ref")
  find_package(hwy CONFIG QUIET)
  find_path(ATTN_HWY_INCLUDE_DIR hwy/highway.h)
  if(ATTN_HWY_INCLUDE_DIR)
    set(_attn_have_hwy ON)
  endif()
  find_path(ATTN_XSIMD_INCLUDE_DIR xsimd/xsimd.hpp)
  if(ATTN_XSIMD_INCLUDE_DIR)
    set(_attn_have_xsimd ON)
  endif()
endif()

if(ATTN_SIMD STREQUAL "ref")
  set(ATTN_BACKEND_NAME ref)
elseif(ATTN_SIMD STREQUAL "auto")
  if(ATTN_BARE_METAL AND _attn_have_mve_float)
    set(ATTN_BACKEND_NAME mve)
  elseif(ATTN_BARE_METAL)
    set(ATTN_BACKEND_NAME mcu)
  elseif(_attn_have_hwy)
    set(ATTN_BACKEND_NAME hwy)
  else()
    set(ATTN_BACKEND_NAME ref)
    set(_attn_have_xsimd OFF)
  endif()
elseif(ATTN_SIMD STREQUAL "hwy" OR ATTN_SIMD STREQUAL "xsimd")
  if(ATTN_BARE_METAL)
    message(FATAL_ERROR "ATTN_SIMD=${ATTN_SIMD}: no SIMD library targets bare-metal Cortex-M; use ref")
  endif()
  if(NOT _attn_have_${ATTN_SIMD})
    message(FATAL_ERROR "ATTN_SIMD=${ATTN_SIMD}: its headers were not found")
  endif()
  set(ATTN_BACKEND_NAME ${ATTN_SIMD})
elseif(ATTN_SIMD STREQUAL "mcu")
  if(NOT ATTN_BARE_METAL)
    message(FATAL_ERROR "ATTN_SIMD=mcu: the Cortex-M scalar-FPU kernels are for bare-metal builds")
  endif()
  set(ATTN_BACKEND_NAME mcu)
elseif(ATTN_SIMD STREQUAL "mve")
  if(NOT _attn_have_mve_float)
    message(FATAL_ERROR "ATTN_SIMD=mve: the compiler's target has no Helium floating point "
                        "(-mcpu=cortex-m55 with -mfloat-abi=hard)")
  endif()
  set(ATTN_BACKEND_NAME mve)
else()
  message(FATAL_ERROR "ATTN_SIMD=${ATTN_SIMD}: expected auto, ref, hwy, xsimd, mcu or mve")
endif()

set(_attn_backends ref)
attn_sources(ref kernels_f32_ref.cpp gemm_f32_ref.cpp f16_ref.cpp)
if(ATTN_BACKEND_NAME STREQUAL "mcu")
  list(APPEND _attn_backends mcu)
  attn_sources(mcu kernels_f32_mcu.cpp exp_sub_sum_f32_mcu.cpp tanh_f32_mcu.cpp add_f32_mcu.cpp)
  # Scalar register blocks by design: on Cortex-M55 GCC's vectorizer packs
  # them into Helium registers it then spills (a 1 KiB Q.K^T frame, slower).
  attn_sources(mcu qk_tile_f32_mcu.cpp pv_tile_f32_mcu.cpp OPTIONS -fno-tree-vectorize)
endif()
if(ATTN_BACKEND_NAME STREQUAL "mve")
  list(APPEND _attn_backends mve)
  attn_sources(mve kernels_f32_mve.cpp qk_tile_f32_mve.cpp softmax_f32_mve.cpp
    softmax_t_f32_mve.cpp transpose_scale_f32_mve.cpp tanh_f32_mve.cpp)
  # GCC 12 schedules the blocks' vector loads ahead of their uses before
  # register allocation, so 6 accumulators and 2 operands (all 8 Helium
  # registers) no longer fit and one accumulator lives on the stack.
  attn_sources(mve qk_tile_t_f32_mve.cpp pv_tile_f32_mve.cpp OPTIONS -fno-schedule-insns)
endif()
if(_attn_have_hwy)
  list(APPEND _attn_backends hwy)
  target_include_directories(attn SYSTEM PRIVATE ${ATTN_HWY_INCLUDE_DIR})
  set(_attn_hwy_options)
  set(_attn_core_hwy_options)
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64|i.86)$")
    # Runtime dispatch needs libhwy (CPU detection); AVX3_DL is the VNNI target
    # (and avoids Highway 1.0.3's -march=native build failure on AVX-512).
    target_compile_definitions(attn PRIVATE HWY_WANT_AVX3_DL)
    # Loops aligned to 64 bytes: the kernels' speed otherwise depends on where
    # unrelated code changes put them (Decode_d64 1024 moved between 84 and
    # 100 GFLOPS with QkRow's unchanged loop at 48 or 0 mod 64; aligned: 103).
    set(_attn_hwy_options -falign-loops=64)
    # The core's loops (below) without FMA contraction, so that their scalar
    # float code rounds as the baseline-compiled core does.
    set(_attn_core_hwy_options -ffp-contract=off)
    if(TARGET hwy::hwy)
      target_link_libraries(attn PUBLIC hwy::hwy)
    else()
      message(FATAL_ERROR "Highway headers found but not libhwy, needed for x86 runtime dispatch")
    endif()
  else()
    # Arm: the static target only (NEON, or SVE when the flags enable it);
    # header-only, so a cross build can use the build host's headers.
    target_compile_definitions(attn PRIVATE HWY_COMPILE_ONLY_STATIC)
  endif()
  attn_sources(hwy kernels_f32_hwy.cpp OPTIONS ${_attn_hwy_options})
  if(ATTN_BACKEND_NAME STREQUAL "hwy")
    # The SDPA core's loops once per Highway target (hwy/attend_f32_hwy.cpp):
    # one dispatched call per core call.
    attn_sources(hwy attend_f32_hwy.cpp OPTIONS ${_attn_core_hwy_options})
    target_compile_definitions(attn PRIVATE ATTN_F32_CORE_PER_TARGET=1)
  endif()
endif()
if(_attn_have_xsimd)
  list(APPEND _attn_backends xsimd)
  target_include_directories(attn SYSTEM PRIVATE ${ATTN_XSIMD_INCLUDE_DIR})
  set(_attn_xsimd_flags ${ATTN_XSIMD_FLAGS})
  if(NOT _attn_xsimd_flags AND NOT CMAKE_CROSSCOMPILING
     AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
    set(_attn_xsimd_flags -march=native)
  endif()
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC 12 warns inside its own avx512fintrin.h for xsimd 8.1's int shifts
    # (-Wuninitialized too once ASan instruments the intrinsics' __Y).
    list(APPEND _attn_xsimd_flags -Wno-maybe-uninitialized -Wno-uninitialized)
  endif()
  separate_arguments(_attn_xsimd_flags)
  attn_sources(xsimd kernels_f32_xsimd.cpp OPTIONS ${_attn_xsimd_flags})
endif()

set(ATTN_SIMD_BACKENDS ${_attn_backends} CACHE INTERNAL "float kernel backends compiled into attn")
set(ATTN_SELECTED_BACKEND ${ATTN_BACKEND_NAME} CACHE INTERNAL "float kernel backend the ops use")
target_compile_definitions(attn PRIVATE ATTN_BACKEND=${ATTN_BACKEND_NAME})
message(STATUS "attn: float kernels ${ATTN_BACKEND_NAME} (compiled: ${_attn_backends})")
