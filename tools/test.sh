#!/usr/bin/env bash
# Sets up, builds and runs every test on every target: the README's test
# command, and what CI runs (.ci/run).
#   tools/test.sh                 all presets
#   tools/test.sh host cortex-m4  only these presets
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh all

all_presets=(host aarch64-linux armhf-linux cortex-m4 cortex-m7 cortex-m33 cortex-m55)
presets=("$@")
if [ ${#presets[@]} -eq 0 ]; then presets=("${all_presets[@]}"); fi
available=$(cmake --list-presets=test 2>/dev/null | sed -n 's/^ *"\([^"]*\)".*/\1/p')

jobs=$(nproc)
start=$(date +%s)
summary=()
for p in "${presets[@]}"; do
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
