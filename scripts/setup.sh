#!/usr/bin/env bash
# Installs the Debian packages the project needs, skipping those already
# installed. Usage: scripts/setup.sh [host|all]   (default: all)
#   host  compiler, CMake, GoogleTest, Benchmark, Highway, xsimd, Eigen, CLI11,
#         nlohmann-json, pkg-config, NumPy, PyTorch, matplotlib, clang (+ libFuzzer),
#         clang-tidy, clang-format, cppcheck, universal-ctags (the function sizes
#         scripts/static-checks.sh checks), OpenBLAS (a second BLAS alternative:
#         scripts/test.sh runs the Python reference tests under it and under Debian's
#         reference BLAS), llvm-19 (llvm-mca with the znver4 / sapphirerapids
#         models, for scripts/mca_f32.py), ocl-icd-opencl-dev (Debian's oneDNN CMake
#         package asks for OpenCL; libdnnl-dev only recommends it)
#   all   host + Arm cross compilers, newlib, QEMU
set -euo pipefail

host_pkgs=(g++ cmake ninja-build git libgtest-dev libbenchmark-dev libhwy-dev libxsimd-dev
  libeigen3-dev libdnnl-dev ocl-icd-opencl-dev libopenblas-dev libcli11-dev nlohmann-json3-dev pkgconf
  python3-numpy python3-mpmath python3-torch python3-matplotlib clang libclang-rt-14-dev clang-tidy clang-format cppcheck
  universal-ctags libopenblas0-pthread llvm-19)
cross_pkgs=(g++-aarch64-linux-gnu g++-arm-linux-gnueabihf gcc-arm-none-eabi
  libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib qemu-user qemu-system-arm)

pkgs=("${host_pkgs[@]}")
if [ "${1:-all}" = all ]; then pkgs+=("${cross_pkgs[@]}"); fi

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#pkgs[@]} packages present"
  exit 0
fi
echo "setup: installing ${missing[*]}"
sudo=()
if [ "$(id -u)" != 0 ]; then sudo=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
