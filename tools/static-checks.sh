#!/usr/bin/env bash
# Static checks of engine/ and platform/ (what CI runs):
#   1. every public header compiles on its own (included alone, twice, with
#      the engine's warning flags) with g++, clang++ and arm-none-eabi-g++ for
#      a Cortex-M4;
# A tool missing (cppcheck, clang-tidy, a compiler) fails its step.
#   2. cppcheck (warning, style, performance, portability), documented
#      suppressions below;
#   3. clang-tidy with the checked-in .clang-tidy, over every engine and
#      platform source of a host build that compiles all float backends
#      (ATTN_SIMD=hwy: ref + Highway + xsimd), configured in build/static;
#   4. clang-format-14 with the checked-in .clang-format over the directories
#      in format_dirs (those formatted so far), and a count of the lines a
#      format of every other C/C++ file would change (informational).
#   tools/static-checks.sh [headers|cppcheck|tidy|format]...   (default: all four)
set -euo pipefail
cd "$(dirname "$0")/.."

steps=("$@")
if [ ${#steps[@]} -eq 0 ]; then steps=(headers cppcheck tidy format); fi
jobs=2
status=0
t_all=$(date +%s)

# The build tree the checks read: its compile commands (clang-tidy) and the
# generated attn/config.h the public headers include.
configure_static() {
  cmake -S . -B build/static -G Ninja -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
    -DATTN_SIMD=hwy -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
}
config_include=build/static/engine/include

headers() {
  local t0 tmp n=0 bad=0
  t0=$(date +%s)
  configure_static
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  local flags=(-std=c++17 -fsyntax-only -fno-exceptions -fno-rtti -Wall -Wextra -Werror -Wshadow
               -Wconversion -Wno-sign-conversion -Wcast-align -Iengine/include -I"$config_include"
               -Iplatform/include)
  local compilers=("g++" "clang++-14" "arm-none-eabi-g++")
  for cxx in "${compilers[@]}"; do require "$cxx" || return 1; done
  local h rel
  while IFS= read -r h; do
    case "$h" in
      engine/include/*) rel=${h#engine/include/} ;;
      platform/include/*) rel=${h#platform/include/} ;;
    esac
    printf '#include "%s"\n#include "%s"\n' "$rel" "$rel" >"$tmp/t.cpp"
    for cxx in "${compilers[@]}"; do
      local extra=()
      if [ "$cxx" = arm-none-eabi-g++ ]; then extra=(-mcpu=cortex-m4 -mthumb -mfloat-abi=hard); fi
      if ! "$cxx" "${flags[@]}" "${extra[@]}" "$tmp/t.cpp" 2>"$tmp/err"; then
        echo "headers: $h does not compile on its own with $cxx:"
        head -20 "$tmp/err"
        bad=$((bad + 1))
      fi
    done
    n=$((n + 1))
  done < <(find engine/include platform/include -name '*.h' | sort)
  echo "headers: $n public headers x ${#compilers[@]} compilers, $bad failure(s) ($(( $(date +%s) - t0 )) s)"
  [ "$bad" -eq 0 ]
}

# A tool the checks need (installed by tools/setup.sh): missing is a failure,
# never a clean pass.
require() {
  if ! command -v "$1" >/dev/null; then
    echo "static-checks: $1 not found (tools/setup.sh installs it): FAILED" >&2
    return 1
  fi
}

cppcheck_run() {
  local t0 out rc=0
  t0=$(date +%s)
  require cppcheck || return 1
  configure_static
  out=$(mktemp)
  # Suppressions:
  #   useStlAlgorithm: raw loops are the house style in freestanding code.
  #   knownConditionTrueFalse: cppcheck 2.10's value flow misjudges clamped
  #     loop remainders (nk = min(n - j, 8) "is less than 1") and helpers
  #     analysed per call site; the compilers' -Wtautological-* cover the rest.
  #   shadowFunction: a function-local static named like the accessor that
  #     returns it (-Wshadow, which the build enforces, accepts it).
  #   cppcheckError in model_load.cpp: cppcheck 2.10's own "Cyclic reverse
  #     analysis" internal limit, not a finding.
  #   missingIncludeSystem: system headers are not given to cppcheck.
  #   uninitvar and unusedStructMember in kernels/f32/mcu and mve: the register blocks
  #     fill their operand arrays in loops bounded by template parameters and
  #     read PvTile / PvArgs through templates, which cppcheck 2.10 does not follow
  #     (GCC's -Wall -Wextra -Werror, -Wmaybe-uninitialized included, and the
  #     kernels' tests against ref cover them).
  cppcheck --force --quiet --inline-suppr --std=c++17 --language=c++ \
    --enable=warning,style,performance,portability \
    --template='{file}:{line}:{column}: {severity}: {message} [{id}]' \
    -Iengine/include -I"$config_include" -Iengine/src -Iplatform/include -Iplatform/src \
    --suppress=missingIncludeSystem --suppress=useStlAlgorithm \
    --suppress=knownConditionTrueFalse --suppress=shadowFunction \
    --suppress=cppcheckError:engine/src/model/model_load.cpp \
    --suppress='uninitvar:engine/src/kernels/f32/mcu/*' \
    --suppress='unusedStructMember:engine/src/kernels/f32/mcu/*' \
    --suppress='uninitvar:engine/src/kernels/f32/mve/*' \
    --suppress='unusedStructMember:engine/src/kernels/f32/mve/*' \
    engine/src platform/src >"$out" 2>&1 || rc=$?
  # --error-exitcode ignores style findings: any reported line fails, and so
  # does a nonzero exit (cppcheck could not run).
  if [ "$rc" -ne 0 ] || grep -qE '^[^ ]+:[0-9]+:[0-9]+: ' "$out"; then
    cat "$out"
    rm -f "$out"
    echo "cppcheck: FAILED (exit $rc, $(( $(date +%s) - t0 )) s)"
    return 1
  fi
  rm -f "$out"
  echo "cppcheck: clean ($(( $(date +%s) - t0 )) s)"
}

tidy() {
  local t0 out
  t0=$(date +%s)
  require clang-tidy-14 || return 1
  require run-clang-tidy-14 || return 1
  configure_static
  out=$(mktemp)
  # run-clang-tidy exits nonzero on any diagnostic (WarningsAsErrors: '*').
  if ! run-clang-tidy-14 -p build/static -j "$jobs" -quiet "$PWD/(engine|platform)/" >"$out" 2>&1; then
    grep -E "(warning|error):" "$out" | sed 's/\x1b\[[0-9;]*m//g' | sort -u
    rm -f "$out"
    echo "clang-tidy: FAILED ($(( $(date +%s) - t0 )) s)"
    return 1
  fi
  rm -f "$out"
  echo "clang-tidy: clean ($(( $(date +%s) - t0 )) s)"
}

# Directories whose C/C++ files already follow .clang-format: add one here when
# it is formatted (tests/data holds generated files and is never formatted).
format_dirs=(bench/baremetal examples platform/include tests/hardening tests/host tests/platform
  tests/threads tools/convert)

format_check() {
  local t0 f bad=0 n=0 changed=0 others=0
  t0=$(date +%s)
  require clang-format-14 || return 1
  local files=()
  mapfile -t files < <(git ls-files "${format_dirs[@]}" | grep -E '\.(c|cc|cpp|h)$')
  for f in "${files[@]}"; do
    if ! clang-format-14 --style=file --dry-run --Werror "$f" 2>/dev/null; then
      echo "format: $f differs from .clang-format (clang-format-14 -i $f)"
      bad=$((bad + 1))
    fi
    n=$((n + 1))
  done
  # What a format of the whole tree would change, for whoever applies it.
  while IFS= read -r f; do
    local d
    d=$(clang-format-14 --style=file "$f" | diff "$f" - | grep -c '^[<>]' || true)
    changed=$((changed + d))
    if [ "$d" -gt 0 ]; then others=$((others + 1)); fi
  done < <(git ls-files | grep -E '\.(c|cc|cpp|h)$')
  echo "format: $n files in ${format_dirs[*]}, $bad not formatted; the whole tree:" \
    "$changed changed lines (diff +/-) in $others files ($(( $(date +%s) - t0 )) s)"
  [ "$bad" -eq 0 ]
}

for s in "${steps[@]}"; do
  case "$s" in
    headers) headers || status=1 ;;
    cppcheck) cppcheck_run || status=1 ;;
    tidy) tidy || status=1 ;;
    format) format_check || status=1 ;;
    *) echo "static-checks: unknown step '$s' (headers, cppcheck, tidy, format)" >&2; exit 2 ;;
  esac
done
echo "static-checks: $([ $status -eq 0 ] && echo passed || echo FAILED) in $(( $(date +%s) - t_all )) s"
exit $status
