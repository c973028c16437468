#!/usr/bin/env bash
# The house's rules, checked on the source tree: every C++ file (and the headers shared with
# GLSL) formatted by .clang-format (clang-format 14, Debian 12's), no source file past 600 lines,
# no function past 120 (universal-ctags), no comment that cites an issue number. GLSL stages are
# kept in the same style by hand: clang-format has no GLSL mode (docs/ARCHITECTURE.md).
set -uo pipefail
cd "$1"
fail=0
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t cxx < <(git ls-files '*.cpp' '*.h')
  mapfile -t sources < <(git ls-files 'app/*' 'gpu/*' 'shaders/*' 'tests/*' | grep -E '\.(cpp|h|comp|glsl|vert|frag|sh)$')
else
  mapfile -t cxx < <(find app gpu shaders tests -name '*.cpp' -o -name '*.h')
  mapfile -t sources < <(find app gpu shaders tests -regex '.*\.\(cpp\|h\|comp\|glsl\|vert\|frag\|sh\)')
fi
if ! clang-format --dry-run --Werror "${cxx[@]}" 2>/tmp/house-format.$$; then
  echo "house_test: not formatted (clang-format -i FILE):"
  grep -o '^[^:]*:[0-9]*' /tmp/house-format.$$ | sort -u | head -20
  fail=1
fi
rm -f /tmp/house-format.$$
long_files=$(wc -l "${sources[@]}" | awk '$2 != "total" && $1 > 600 {print "  " $2 ": " $1 " lines"}')
if [ -n "$long_files" ]; then
  echo "house_test: source files over 600 lines:"; echo "$long_files"; fail=1
fi
long_functions=$(ctags --languages=C++ --kinds-C++=f --fields=+ne -x --_xformat='%{end} %{line} %{input} %{name}' \
                   "${cxx[@]}" 2>/dev/null | awk '$1 - $2 + 1 > 120 {print "  " $3 ":" $2 " " $4 ": " $1 - $2 + 1 " lines"}')
if [ -n "$long_functions" ]; then
  echo "house_test: functions over 120 lines:"; echo "$long_functions"; fail=1
fi
issues=$(grep -n -i -E '(^|[^a-z])issues? #?[0-9]' "${sources[@]}" | head -20)
if [ -n "$issues" ]; then
  echo "house_test: comments citing issue numbers (say why instead):"; echo "$issues"; fail=1
fi
[ "$fail" = 0 ] && echo "house_test: ${#cxx[@]} C++ files formatted, ${#sources[@]} sources within 600 lines, functions within 120"
exit "$fail"
