# Cross toolchain: Armv7-A with NEON, hard-float Linux (Cortex-A7/A9/A15...),
# Debian's g++-arm-linux-gnueabihf. Tests run under `qemu-arm -L /usr/arm-linux-gnueabihf`.
#   cmake -B build -DCMAKE_TOOLCHAIN_FILE=toolchains/arm-linux-gnueabihf.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR armv7l)

set(ATTN_TRIPLE arm-linux-gnueabihf)
set(CMAKE_C_COMPILER ${ATTN_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${ATTN_TRIPLE}-g++)

# -D_FILE_OFFSET_BITS=64: 64-bit off_t/ino_t/readdir. Without it, readdir() in a
# 32-bit program fails with EOVERFLOW when the directory offsets are 64-bit
# (ext4 hash offsets, e.g. under qemu-arm on a 64-bit host).
set(CMAKE_C_FLAGS_INIT "-march=armv7-a -mfpu=neon -mfloat-abi=hard -D_FILE_OFFSET_BITS=64")
# -Wno-psabi: silences GCC's notes that the AAPCS passing of some std types
# changed in GCC 7.1 (informational; everything here is built by one compiler).
set(CMAKE_CXX_FLAGS_INIT "-march=armv7-a -mfpu=neon -mfloat-abi=hard -D_FILE_OFFSET_BITS=64 -Wno-psabi")

set(CMAKE_FIND_ROOT_PATH /usr/${ATTN_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

set(CMAKE_CROSSCOMPILING_EMULATOR qemu-arm -L /usr/${ATTN_TRIPLE})

set(GTest_DIR ${CMAKE_CURRENT_LIST_DIR}/gtest CACHE PATH "GoogleTest built from source")
