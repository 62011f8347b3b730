#!/bin/bash
# Builds are cached by a hash of sources and flags: a second eval compiles nothing, a
# changed source builds anew, and a failed build leaves no cache entry behind.
. "$top_srcdir/tests/lib.sh"
export KWB_CACHE_DIR="$TMP/cache"
args=(--definition "$DEF" --workloads 901e5104 --trials 1 --max-time 0.01)

make_candidate "$TMP/c" cachetest ''
"$KWB" eval "${args[@]}" --solution "$TMP/c" >/dev/null 2>"$TMP/1.err"
expect_grep '^kwb eval: cachetest: built [0-9a-f]{12} in ' "$TMP/1.err" "first eval builds"
n=$(ls "$KWB_CACHE_DIR/builds" | wc -l)
[ "$n" -eq 1 ] && pass "one cache entry" || fail "cache entries: $n"
entry=$(ls "$KWB_CACHE_DIR/builds")
[ -f "$KWB_CACHE_DIR/builds/$entry/lib.so" ] && pass "entry holds lib.so" || fail "no lib.so"
expect_grep '^cc .*-shared -fPIC' "$KWB_CACHE_DIR/builds/$entry/command" "flags recorded with the build"

"$KWB" eval "${args[@]}" --solution "$TMP/c" >/dev/null 2>"$TMP/2.err"
expect_grep "^kwb eval: cachetest: cached build ${entry:0:12}" "$TMP/2.err" "second eval uses the cache"

echo '/* a comment changes the hash */' >>"$TMP/c/cand.c"
"$KWB" eval "${args[@]}" --solution "$TMP/c" >/dev/null 2>"$TMP/3.err"
expect_grep '^kwb eval: cachetest: built ' "$TMP/3.err" "a changed source builds again"
[ "$(ls "$KWB_CACHE_DIR/builds" | wc -l)" -eq 2 ] && pass "two entries" || fail "two entries"

CC="cc -DKWB_TEST_FLAG" "$KWB" eval "${args[@]}" --solution "$TMP/c" >/dev/null 2>"$TMP/4.err"
expect_grep '^kwb eval: cachetest: built ' "$TMP/4.err" "another compiler command builds again"

echo 'this is not C' >>"$TMP/c/cand.c"
"$KWB" eval "${args[@]}" --solution "$TMP/c" >/dev/null 2>"$TMP/5.err"
expect_grep 'COMPILE_ERROR' "$TMP/5.err" "broken source: COMPILE_ERROR"
[ "$(ls "$KWB_CACHE_DIR/builds" | wc -l)" -eq 3 ] && pass "failed build cached nothing" || fail "failed build left an entry"
ls "$KWB_CACHE_DIR/builds" | grep -q tmp && fail "temporary build folder left" || pass "no temporary folder left"
finish
