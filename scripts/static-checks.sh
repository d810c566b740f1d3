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
#   4. clang-format-14 with the checked-in .clang-format over every tracked
#      C/C++ file but the generated ones in tests/data;
#   5. sizes: CONTRIBUTING's limits, every function (lambdas included) in
#      engine/ and platform/ at most 80 lines and every file in engine/src at
#      most 500, each offender listed; exceptions in size_exceptions below,
#      each with its reason.
#   scripts/static-checks.sh [headers|cppcheck|tidy|format|sizes]...   (default: all five)
set -euo pipefail
cd "$(dirname "$0")/.."

steps=("$@")
if [ ${#steps[@]} -eq 0 ]; then steps=(headers cppcheck tidy format sizes); fi
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

# A tool the checks need (installed by scripts/setup.sh): missing is a failure,
# never a clean pass.
require() {
  if ! command -v "$1" >/dev/null; then
    echo "static-checks: $1 not found (scripts/setup.sh installs it): FAILED" >&2
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

# Every tracked C/C++ file follows .clang-format but tests/data's, which are
# generated (tools/attn-convert, tests/model/gen_fixtures.py) and never formatted.
format_check() {
  local t0 f bad=0 n=0
  t0=$(date +%s)
  require clang-format-14 || return 1
  local files=()
  mapfile -t files < <(git ls-files -- '*.c' '*.cc' '*.cpp' '*.h' ':!tests/data/')
  for f in "${files[@]}"; do
    if ! clang-format-14 --style=file --dry-run --Werror "$f" 2>/dev/null; then
      echo "format: $f differs from .clang-format (clang-format-14 -i $f)"
      bad=$((bad + 1))
    fi
    n=$((n + 1))
  done
  echo "format: $n C/C++ files (all tracked but tests/data), $bad not formatted" \
    "($(( $(date +%s) - t0 )) s)"
  [ "$bad" -eq 0 ]
}

# CONTRIBUTING's size limits. A function's lines run from the line of its
# name to its closing brace (universal-ctags' line: and end: fields, so a
# comment above it does not count).
max_function_lines=80
max_file_lines=500
# Functions allowed over max_function_lines, as "path:name", each with its
# reason. Keep this list short: split the function instead.
size_exceptions=(
  # "path:function"  # and the reason it is longer
)

sizes() {
  local t0 out bad=0 n=0 e
  t0=$(date +%s)
  require ctags-universal || return 1
  out=$(mktemp)
  # One line per function definition: name, path, scope, line, end.
  ctags-universal -R -f - --excmd=number --languages=C,C++ --kinds-C=f --kinds-C++=f \
    --fields=+neZ engine platform |
    awk -F'\t' '{ l = ""; e = ""; sc = ""
      for (i = 4; i <= NF; ++i) {
        if ($i ~ /^line:/) l = substr($i, 6)
        else if ($i ~ /^end:/) e = substr($i, 5)
        else if ($i ~ /^scope:/) sc = substr($i, 7)
      }
      # (no empty field: read would merge the tabs around it)
      if (sc == "") sc = "-"
      if (l != "" && e != "") print $2 "\t" $1 "\t" sc "\t" l "\t" e }' >"$out"
  n=$(wc -l <"$out")
  if [ "$n" -eq 0 ]; then
    echo "sizes: ctags-universal listed no functions: FAILED"
    rm -f "$out"
    return 1
  fi
  local path name scope line end len what
  while IFS=$'\t' read -r path name scope line end; do
    len=$((end - line + 1))
    if [ "$len" -le "$max_function_lines" ]; then continue; fi
    what=$name
    # A lambda's tag is an anonymous name: say where it stands.
    if [[ $name == __anon* ]]; then what="a lambda in ${scope#*:}"; fi
    if printf '%s\n' "${size_exceptions[@]}" | grep -qxF "$path:$name"; then
      echo "sizes: $path:$line: $what is $len lines (allowed: listed in size_exceptions)"
      continue
    fi
    echo "sizes: $path:$line: $what is $len lines, over $max_function_lines"
    bad=$((bad + 1))
  done <"$out"
  for e in "${size_exceptions[@]}"; do
    local p=${e%%:*} f=${e#*:}
    if ! awk -F'\t' -v p="$p" -v f="$f" -v m="$max_function_lines" \
      '$1 == p && $2 == f && $5 - $4 + 1 > m { found = 1 } END { exit !found }' "$out"; then
      echo "sizes: $e fits now (or is gone): remove it from size_exceptions"
    fi
  done
  rm -f "$out"
  local f lines nfiles=0
  while IFS= read -r f; do
    lines=$(wc -l <"$f")
    nfiles=$((nfiles + 1))
    if [ "$lines" -gt "$max_file_lines" ]; then
      echo "sizes: $f is $lines lines, over $max_file_lines"
      bad=$((bad + 1))
    fi
  done < <(find engine/src -type f | sort)
  echo "sizes: $n functions in engine/ and platform/, $nfiles files in engine/src, $bad over" \
    "the limits ($(( $(date +%s) - t0 )) s)"
  [ "$bad" -eq 0 ]
}

for s in "${steps[@]}"; do
  case "$s" in
    headers) headers || status=1 ;;
    cppcheck) cppcheck_run || status=1 ;;
    tidy) tidy || status=1 ;;
    format) format_check || status=1 ;;
    sizes) sizes || status=1 ;;
    *) echo "static-checks: unknown step '$s' (headers, cppcheck, tidy, format, sizes)" >&2; exit 2 ;;
  esac
done
echo "static-checks: $([ $status -eq 0 ] && echo passed || echo FAILED) in $(( $(date +%s) - t_all )) s"
exit $status
