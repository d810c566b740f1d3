#!/usr/bin/env bash
# Builds the libFuzzer targets (Clang 14, ASan + UBSan, no recovery) in
# build/fuzz and runs each for a bounded time on a copy of its seed corpus.
#
#   scripts/fuzz.sh                 every target, 30 s each (what CI runs)
#   scripts/fuzz.sh 3600            every target, one hour each (a longer run)
#   scripts/fuzz.sh 600 model npy   only these targets
#   FUZZ_ARGS="-jobs=2 -workers=2" scripts/fuzz.sh 3600   extra libFuzzer flags
#
# Targets: npy (attn_npy::load), ops_f32 (every float op's validation and
# contracts), ops_s8 (int8 softmax, sdpa and luong: prepare and eval), model (model_load
# and the float and int8 runners). New inputs libFuzzer finds go to build/fuzz/corpus/<target>
# (the seeds in tests/fuzz/corpus are never modified); a crash leaves its
# input in build/fuzz/artifacts/<target>/ and fails the script. To turn it
# into a regression test, copy it to tests/fuzz/regressions/<target>/: every
# host build replays those files (ctest -L fuzz).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-30}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=(npy ops_f32 ops_s8 model decode); fi

cxx=${FUZZ_CXX:-clang++-14}
cc=${FUZZ_CC:-clang-14}
build=build/fuzz
san="-fsanitize=address,undefined -fno-sanitize-recover=all"
t0=$(date +%s)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" -DATTN_FUZZ=ON \
  -DCMAKE_C_FLAGS="$san -fsanitize=fuzzer-no-link -fno-omit-frame-pointer" \
  -DCMAKE_CXX_FLAGS="$san -fsanitize=fuzzer-no-link -fno-omit-frame-pointer" \
  -DCMAKE_EXE_LINKER_FLAGS="$san" >/dev/null
cmake --build "$build" -j 2 --target $(printf 'attn_fuzz_%s ' "${targets[@]}")
echo "fuzz: built in $(( $(date +%s) - t0 )) s"

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=()
for t in "${targets[@]}"; do
  corpus=$build/corpus/$t
  artifacts=$build/artifacts/$t
  mkdir -p "$corpus" "$artifacts"
  seeds=(tests/fuzz/corpus/$t)
  if [ -d tests/fuzz/regressions/$t ]; then seeds+=(tests/fuzz/regressions/$t); fi
  flags=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192
         -artifact_prefix="$artifacts/" -print_final_stats=1)
  if [ -f tests/fuzz/$t.dict ]; then flags+=(-dict=tests/fuzz/$t.dict); fi
  echo "=== fuzz $t: ${seconds} s"
  # shellcheck disable=SC2086
  if ! "$build/tests/fuzz/attn_fuzz_$t" "${flags[@]}" ${FUZZ_ARGS:-} "$corpus" "${seeds[@]}" \
       >"$build/$t.log" 2>&1; then
    failed+=("$t")
    tail -n 60 "$build/$t.log"
    echo "fuzz $t: FAILED; input in $artifacts/ (reproduce: $build/tests/fuzz/attn_fuzz_$t <file>)"
  else
    grep -E "^stat::(number_of_executed_units|new_units_added)|^Done" "$build/$t.log" || true
  fi
done
echo "fuzz: total $(( $(date +%s) - t0 )) s"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: crashes in: ${failed[*]}" >&2
  exit 1
fi
