#!/usr/bin/env bash
# Sets up, builds and runs every test on every target: the README's test
# command, and what CI runs (.ci/run).
#   scripts/test.sh                 all presets, then the static checks and a
#                                 bounded fuzz run (30 s per fuzz target)
#   scripts/test.sh host cortex-m4  only these presets (or: static-checks, fuzz)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh all

all_presets=(host host-asan host-tsan host-clang aarch64-linux aarch64-sve-linux armhf-linux cortex-m4 cortex-m7
  cortex-m33 cortex-m55 static-checks fuzz)
presets=("$@")
if [ ${#presets[@]} -eq 0 ]; then presets=("${all_presets[@]}"); fi
available=$(cmake --list-presets=test 2>/dev/null | sed -n 's/^ *"\([^"]*\)".*/\1/p')

# The Python-reference tests (ctest label "python": NumPy/PyTorch outputs)
# once under each of Debian's libblas.so.3 alternatives (reference BLAS and
# OpenBLAS sum in different orders), LAPACK switched along; the original
# selection is restored afterwards. Switching needs root.
python_tests_per_blas() {
  local preset=$1 blas=libblas.so.3-x86_64-linux-gnu lapack=liblapack.so.3-x86_64-linux-gnu
  if [ "$(id -u)" != 0 ]; then
    echo "test.sh: not root: Python-reference tests ran under the current BLAS only"
    return 0
  fi
  local restore="" alt rc=0
  for name in "$blas" "$lapack"; do
    if [ "$(update-alternatives --query "$name" | sed -n 's/^Status: //p')" = auto ]; then
      restore+="update-alternatives --quiet --auto $name; "
    else
      restore+="update-alternatives --quiet --set $name $(update-alternatives --query "$name" |
        sed -n 's/^Value: //p'); "
    fi
  done
  for alt in $(update-alternatives --list "$blas"); do
    echo "=== $preset: Python-reference tests with $alt"
    update-alternatives --quiet --set "$blas" "$alt"
    local lp="${alt%/libblas.so.3}/liblapack.so.3"
    if [ -e "$lp" ]; then update-alternatives --quiet --set "$lapack" "$lp"; fi
    ctest --preset "$preset" -L python -j "$jobs" || { rc=1; break; }
  done
  eval "$restore"
  return $rc
}

jobs=$(nproc)
start=$(date +%s)
summary=()
for p in "${presets[@]}"; do
  # Not presets: scripts/static-checks.sh and scripts/fuzz.sh (see each script).
  if [ "$p" = static-checks ] || [ "$p" = fuzz ]; then
    t0=$(date +%s)
    echo "=== $p"
    if [ "$p" = fuzz ]; then scripts/fuzz.sh 30; else scripts/static-checks.sh; fi
    summary+=("$p: $(( $(date +%s) - t0 )) s")
    continue
  fi
  if ! grep -qx "$p" <<<"$available"; then
    echo "test.sh: no test preset '$p' (available: $(echo $available))" >&2
    exit 2
  fi
  t0=$(date +%s)
  echo "=== $p: configure, build, test"
  cmake --preset "$p" >/dev/null
  cmake --build --preset "$p" -j "$jobs"
  ctest --preset "$p" -j "$jobs"
  if [ "$p" = host ]; then
    # The kernel levels this machine ran (the allocation test forces each).
    echo "=== $p: kernel levels run on this machine"
    "build/$p/tests/host/attn_alloc_test" --gtest_filter='Levels/*.FloatOps/*' |
      grep -E 'forced:|lacks'
    python_tests_per_blas "$p"
  fi
  summary+=("$p: $(( $(date +%s) - t0 )) s")
done
echo "=== all presets passed in $(( $(date +%s) - start )) s"
printf '  %s\n' "${summary[@]}"
