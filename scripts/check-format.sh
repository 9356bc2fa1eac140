#!/usr/bin/env bash
# check-format.sh [--fix] [BASE]: fails when C/C++ lines changed since BASE
# are not formatted as .clang-format says, printing clang-format's
# complaints; with --fix (`make format`) it formats those lines in place.
#
# Runs `clang-format-14 --dry-run --Werror` on every C/C++ file that differs
# from BASE (committed, staged or not), limited with --lines to the lines
# that changed: the tree predates the check and about 680 older lines in
# ~100 files are not in clang-format's layout, so checking whole files would
# fail an author for lines they never touched. FORMAT_WHOLE_FILES=1 checks
# the changed files whole instead.
#
# BASE defaults to $LINT_BASE, else the merge base with main when HEAD is a
# branch other than main (a worktree before it lands), else HEAD~1 (CI: a
# fresh clone of main checks the commit it runs on; when CI knows the last
# commit it passed, it sets LINT_BASE to it so a landing of several commits
# is checked whole). clang-format is pinned to 14 (Debian 12's): other
# versions lay out some constructs differently.
set -euo pipefail
cd "$(dirname "$0")/.."

CLANG_FORMAT=${CLANG_FORMAT:-clang-format-14}
mode=(--dry-run --Werror)
if [ "${1:-}" = --fix ]; then
  mode=(-i)
  shift
fi
base=${1:-${LINT_BASE:-}}
if [ -z "$base" ]; then
  branch=$(git rev-parse --abbrev-ref HEAD)
  if [ "$branch" != main ] && git rev-parse -q --verify main >/dev/null; then
    base=$(git merge-base HEAD main)
  else
    base=HEAD~1
  fi
fi
if ! git rev-parse -q --verify "$base^{commit}" >/dev/null; then
  echo "check-format: cannot resolve base '$base' (a shallow clone? set LINT_BASE)" >&2
  exit 2
fi

files=$(git diff --name-only --diff-filter=ACMR "$base" -- '*.h' '*.hpp' '*.cc' '*.cpp' '*.c')
status=0
checked=0
for f in $files; do
  [ -f "$f" ] || continue
  args=()
  if [ "${FORMAT_WHOLE_FILES:-0}" != 1 ]; then
    # Hunk headers of a zero-context diff: "@@ -a,b +start,count @@".
    while read -r start count; do
      [ "$count" = 0 ] && continue
      args+=("--lines=$start:$((start + count - 1))")
    done < <(git diff -U0 "$base" -- "$f" |
             sed -n 's/^@@ -[0-9,]* +\([0-9]*\)\(,\([0-9]*\)\)\{0,1\} @@.*/\1 \3/p' |
             awk '{ print $1, ($2 == "" ? 1 : $2) }')
    [ ${#args[@]} -eq 0 ] && continue  # only deletions
  fi
  checked=$((checked + 1))
  if ! "$CLANG_FORMAT" "${mode[@]}" --style=file "${args[@]}" "$f"; then
    status=1
  fi
done
if [ $status -ne 0 ]; then
  echo "check-format: changed lines are not formatted; run \`make format\` (or" \
       "$CLANG_FORMAT -i on the file) and commit the result" >&2
else
  echo "check-format: $checked changed file(s) since $(git rev-parse --short "$base") formatted"
fi
exit $status
