# Cross toolchain: Armv8-A (Cortex-A53/A72/...) Linux, Debian's g++-aarch64-linux-gnu.
# Tests run under qemu-user: `qemu-aarch64 -L /usr/aarch64-linux-gnu`.
#   cmake -B build -DCMAKE_TOOLCHAIN_FILE=toolchains/aarch64-linux-gnu.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(ATTN_TRIPLE aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${ATTN_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${ATTN_TRIPLE}-g++)

set(CMAKE_C_FLAGS_INIT "-march=armv8-a")
set(CMAKE_CXX_FLAGS_INIT "-march=armv8-a")

# Libraries come from the target's sysroot only; header-only packages and CMake
# package files may come from the host (they are architecture independent).
set(CMAKE_FIND_ROOT_PATH /usr/${ATTN_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

# ATTN_QEMU_CPU picks the emulated CPU (e.g. "max,sve-default-vector-length=32"
# to run SVE code with 256-bit vectors); the default is QEMU's own.
set(ATTN_QEMU_CPU "" CACHE STRING "qemu-aarch64 -cpu value (empty: QEMU's default)")
if(ATTN_QEMU_CPU)
  set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /usr/${ATTN_TRIPLE} -cpu ${ATTN_QEMU_CPU})
else()
  set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /usr/${ATTN_TRIPLE})
endif()

# GoogleTest for the target is built from Debian's /usr/src/googletest.
set(GTest_DIR ${CMAKE_CURRENT_LIST_DIR}/gtest CACHE PATH "GoogleTest built from source")
