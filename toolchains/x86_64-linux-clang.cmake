# Native x86-64 Linux with Clang.
#   cmake -B build -DCMAKE_TOOLCHAIN_FILE=toolchains/x86_64-linux-clang.cmake
set(CMAKE_C_COMPILER clang)
set(CMAKE_CXX_COMPILER clang++)
