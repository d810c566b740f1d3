# Cross toolchain: bare-metal Cortex-M with Debian's gcc-arm-none-eabi and newlib.
#
#   cmake -B build -DCMAKE_TOOLCHAIN_FILE=toolchains/arm-none-eabi.cmake -DATTN_CPU=cortex-m55
#
# ATTN_CPU selects the core and its floating-point / vector unit:
#   cortex-m4   Armv7E-M, DSP, single-precision FPU (fpv4-sp-d16)
#   cortex-m7   Armv7E-M, DSP, double-precision FPU (fpv5-d16)
#   cortex-m33  Armv8-M Mainline, DSP, single-precision FPU (fpv5-sp-d16)
#   cortex-m55  Armv8.1-M Mainline, Helium (MVE integer + float), FPU
# All use the hard-float ABI, so the matching newlib multilib is picked.
# ATTN_BOARD (the QEMU machine the tests run on) defaults from the CPU:
#   cortex-m4 -> mps2-an386, cortex-m7 -> mps2-an500, cortex-m33 -> mps2-an505,
#   cortex-m55 -> mps3-an547. The linker script is platform/ld/<board>.ld, or
#   ATTN_LINKER_SCRIPT (a board script anywhere; see platform/PORTING.md).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(ATTN_CPU "cortex-m4" CACHE STRING "Cortex-M core: cortex-m4, cortex-m7, cortex-m33, cortex-m55")
set_property(CACHE ATTN_CPU PROPERTY STRINGS cortex-m4 cortex-m7 cortex-m33 cortex-m55)
# try_compile projects re-read this file: hand them the choice.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES ATTN_CPU)

if(ATTN_CPU STREQUAL "cortex-m4")
  set(_attn_cpu_flags "-mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard")
  set(_attn_board mps2-an386)
elseif(ATTN_CPU STREQUAL "cortex-m7")
  set(_attn_cpu_flags "-mcpu=cortex-m7 -mfpu=fpv5-d16 -mfloat-abi=hard")
  set(_attn_board mps2-an500)
elseif(ATTN_CPU STREQUAL "cortex-m33")
  set(_attn_cpu_flags "-mcpu=cortex-m33 -mfpu=fpv5-sp-d16 -mfloat-abi=hard")
  set(_attn_board mps2-an505)
elseif(ATTN_CPU STREQUAL "cortex-m55")
  # -mcpu=cortex-m55 enables MVE integer and float (Helium) and the FPU.
  set(_attn_cpu_flags "-mcpu=cortex-m55 -mfloat-abi=hard")
  set(_attn_board mps3-an547)
else()
  message(FATAL_ERROR "ATTN_CPU=${ATTN_CPU}: expected cortex-m4, cortex-m7, cortex-m33 or cortex-m55")
endif()
set(ATTN_BOARD "${_attn_board}" CACHE STRING "Board (QEMU machine) whose linker script and start-up are used")

set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
set(CMAKE_AR arm-none-eabi-ar)
set(CMAKE_RANLIB arm-none-eabi-ranlib)
set(CMAKE_OBJCOPY arm-none-eabi-objcopy CACHE FILEPATH "")
set(CMAKE_SIZE arm-none-eabi-size CACHE FILEPATH "")
set(CMAKE_NM arm-none-eabi-nm CACHE FILEPATH "")

# No OS to link a test program against during configuration.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(_attn_common "-mthumb ${_attn_cpu_flags} -ffunction-sections -fdata-sections")
set(CMAKE_C_FLAGS_INIT "${_attn_common}")
set(CMAKE_CXX_FLAGS_INIT "${_attn_common} -fno-exceptions -fno-rtti")
set(CMAKE_ASM_FLAGS_INIT "${_attn_common}")
# Our own reset handler (platform/) replaces crt0; newlib-nano keeps libc small.
set(CMAKE_EXE_LINKER_FLAGS_INIT "--specs=nano.specs -nostartfiles -Wl,--gc-sections")

set(CMAKE_FIND_ROOT_PATH /usr/lib/arm-none-eabi)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
# Packages: both the sysroot and the host paths, so that an installed attn (or
# another cross-built package) is found through CMAKE_PREFIX_PATH or <Pkg>_DIR
# as on a native build; ONLY would re-root those paths under the sysroot.
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
