#!/bin/bash
# The C, CUDA and header sources (kwb's and the kernels') are formatted as .clang-format says:
# clang-format's dry run finds nothing to change. Shows it notices a badly formatted file.
. "$top_srcdir/tests/lib.sh"

command -v clang-format >/dev/null || { fail "clang-format is not installed (scripts/bootstrap installs it)"; exit 1; }

# (every C, CUDA and header source: kwb's, the kernels, the corpus and fixtures; not the build's
# tests/cache/, tests/tmp/ and fuzz objects, nor a distcheck build tree)
find "$top_srcdir/src" "$top_srcdir/include" "$top_srcdir/kernels" "$top_srcdir/tests" "$top_srcdir/bench" \
    "$top_srcdir/scripts" "$top_srcdir/libexec" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) \
    -not -path '*/tests/cache/*' -not -path '*/tests/tmp/*' -not -path '*/tests/fuzz/obj/*' | sort >"$TMP/files"
count=$(wc -l <"$TMP/files")
bad=0
while read -r f; do
    if ! clang-format --style=file:"$top_srcdir/.clang-format" --dry-run --Werror "$f" >/dev/null 2>&1; then
        echo "    not formatted: ${f#"$top_srcdir"/}" >&2
        bad=$((bad + 1))
    fi
done <"$TMP/files"
[ "$bad" -eq 0 ] && pass "$count sources formatted as .clang-format says" || fail "$bad of $count sources not formatted (clang-format -i FILE)"

# the check notices a badly formatted file
printf 'int  main( void ){return 0;}\n' >"$TMP/bad.c"
if clang-format --style=file:"$top_srcdir/.clang-format" --dry-run --Werror "$TMP/bad.c" >/dev/null 2>&1; then
    fail "the check did not notice a badly formatted file"
else
    pass "the check notices a badly formatted file"
fi
[ "$failures" -eq 0 ]
