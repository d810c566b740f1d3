#!/usr/bin/env bash
# Sets up, builds and runs every test on every target: the README's test
# command, and what CI runs (.ci/run).
#   tools/test.sh                 all presets, then the static checks and a
#                                 bounded fuzz run (30 s per fuzz target)
#   tools/test.sh host cortex-m4  only these presets (or: static-checks, fuzz)
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh all

all_presets=(host host-asan host-clang aarch64-linux aarch64-sve-linux armhf-linux cortex-m4 cortex-m7
  cortex-m33 cortex-m55 static-checks fuzz)
presets=("$@")
if [ ${#presets[@]} -eq 0 ]; then presets=("${all_presets[@]}"); fi
available=$(cmake --list-presets=test 2>/dev/null | sed -n 's/^ *"\([^"]*\)".*/\1/p')

jobs=$(nproc)
start=$(date +%s)
summary=()
for p in "${presets[@]}"; do
  # Not presets: tools/static-checks.sh and tools/fuzz.sh (see each script).
  if [ "$p" = static-checks ] || [ "$p" = fuzz ]; then
    t0=$(date +%s)
    echo "=== $p"
    if [ "$p" = fuzz ]; then tools/fuzz.sh 30; else tools/static-checks.sh; fi
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
  summary+=("$p: $(( $(date +%s) - t0 )) s")
done
echo "=== all presets passed in $(( $(date +%s) - start )) s"
printf '  %s\n' "${summary[@]}"
