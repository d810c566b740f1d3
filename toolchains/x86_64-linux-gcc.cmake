# Native x86-64 Linux with GCC (the host preset uses the default compiler; this
# file pins GCC explicitly for reproducible builds).
#   cmake -B build -DCMAKE_TOOLCHAIN_FILE=toolchains/x86_64-linux-gcc.cmake
set(CMAKE_C_COMPILER gcc)
set(CMAKE_CXX_COMPILER g++)
