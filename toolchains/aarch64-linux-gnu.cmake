# Cross toolchain: Armv8-A (Cortex-A53/A72/...) Linux, Debian's g++-aarch64-linux-gnu.
# Tests run under qemu-user: `qemu-aarch64 -L /usr/aarch64-linux-gnu`.
#   cmake -B build -DCMAKE_TOOLCHAIN_FILE=toolchains/aarch64-linux-gnu.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(ATTN_TRIPLE aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${ATTN_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${ATTN_TRIPLE}-g++)

# ATTN_AARCH64_MARCH is the -march value: armv8-a (NEON) by default;
# e.g. armv8.2-a+sve (preset aarch64-sve-linux) makes Highway's static target SVE.
set(ATTN_AARCH64_MARCH "armv8-a" CACHE STRING "-march for the aarch64 build")
set(CMAKE_C_FLAGS_INIT "-march=${ATTN_AARCH64_MARCH}")
set(CMAKE_CXX_FLAGS_INIT "-march=${ATTN_AARCH64_MARCH}")

# Libraries come from the target's sysroot only; header-only packages and CMake
# package files may come from the host (they are architecture independent).
set(CMAKE_FIND_ROOT_PATH /usr/${ATTN_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

# ATTN_QEMU_CPU picks the emulated CPU (e.g. "max,sve-default-vector-length=32"
# to run SVE code with 256-bit vectors); the default is QEMU's own.
# ATTN_QEMU (without -cpu) lets the tests register extra runs with their own
# -cpu (tests/CMakeLists.txt: attn_add_sve_vl_tests).
set(ATTN_QEMU_CPU "" CACHE STRING "qemu-aarch64 -cpu value (empty: QEMU's default)")
set(ATTN_QEMU qemu-aarch64 -L /usr/${ATTN_TRIPLE})
if(ATTN_QEMU_CPU)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${ATTN_QEMU} -cpu ${ATTN_QEMU_CPU})
else()
  set(CMAKE_CROSSCOMPILING_EMULATOR ${ATTN_QEMU})
endif()

# GoogleTest for the target is built from Debian's /usr/src/googletest.
set(GTest_DIR ${CMAKE_CURRENT_LIST_DIR}/gtest CACHE PATH "GoogleTest built from source")
