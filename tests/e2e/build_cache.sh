#!/bin/bash
# Builds are cached by a hash of sources and flags: a second eval compiles nothing, a
# changed source builds anew, and a failed build leaves no cache entry behind. The definition's
# reference is a solution folder built into the same cache, its hash covering the headers of the
# folders its kwb.reference includes.
. "$top_srcdir/tests/lib.sh"
export KWB_CACHE_DIR="$TMP/cache"
args=(--definition "$DEF" --workloads 901e5104 --trials 1 --max-time 0.01)

make_candidate "$TMP/c" cachetest ''
"$KWB" eval "${args[@]}" --solution "$TMP/c" >/dev/null 2>"$TMP/1.err"
expect_grep '^kwb eval: cachetest: built [0-9a-f]{12} in ' "$TMP/1.err" "first eval builds"
n=$(ls "$KWB_CACHE_DIR/builds" | wc -l)
[ "$n" -eq 2 ] && pass "two cache entries: the candidate and the reference" || fail "cache entries: $n"
entry=$(basename "$(dirname "$(dirname "$(ls "$KWB_CACHE_DIR"/builds/*/src/cand.c)")")")
[ -f "$KWB_CACHE_DIR"/builds/*/src/reference.c ] && pass "the reference built as a solution" || fail "no reference build"
[ -f "$KWB_CACHE_DIR/builds/$entry/lib.so" ] && pass "entry holds lib.so" || fail "no lib.so"
expect_grep '^cc .*-shared -fPIC' "$KWB_CACHE_DIR/builds/$entry/command" "flags recorded with the build"

"$KWB" eval "${args[@]}" --solution "$TMP/c" >/dev/null 2>"$TMP/2.err"
expect_grep "^kwb eval: cachetest: cached build ${entry:0:12}" "$TMP/2.err" "second eval uses the cache"

echo '/* a comment changes the hash */' >>"$TMP/c/cand.c"
"$KWB" eval "${args[@]}" --solution "$TMP/c" >/dev/null 2>"$TMP/3.err"
expect_grep '^kwb eval: cachetest: built ' "$TMP/3.err" "a changed source builds again"
[ "$(ls "$KWB_CACHE_DIR/builds" | wc -l)" -eq 3 ] && pass "one more entry" || fail "one more entry"

CC="cc -DKWB_TEST_FLAG" "$KWB" eval "${args[@]}" --solution "$TMP/c" >/dev/null 2>"$TMP/4.err"
expect_grep '^kwb eval: cachetest: built ' "$TMP/4.err" "another compiler command builds again"

echo 'this is not C' >>"$TMP/c/cand.c"
"$KWB" eval "${args[@]}" --solution "$TMP/c" >/dev/null 2>"$TMP/5.err"
expect_grep 'COMPILE_ERROR' "$TMP/5.err" "broken source: COMPILE_ERROR"
# (the other compiler built the candidate and the reference again: 5 entries)
[ "$(ls "$KWB_CACHE_DIR/builds" | wc -l)" -eq 5 ] && pass "failed build cached nothing" || fail "failed build left an entry"
ls "$KWB_CACHE_DIR/builds" | grep -qvE '^[0-9a-f]{64}$' && fail "temporary build folder left" || pass "no temporary folder left"

# A header of the definition's include folders (kwb's kernels folder, $KWB_KERNELS, here a copy)
# is part of the hash of every build for it: changed, the reference and the candidate build again;
# unchanged, nothing does.
mkdir -p "$TMP/kernels"
cp -r "$top_srcdir/kernels/$DEF" "$top_srcdir/kernels/include" "$TMP/kernels/"
export KWB_KERNELS="$TMP/kernels" KWB_CACHE_DIR="$TMP/cache2"
make_candidate "$TMP/d" cachetest2 ''
"$KWB" eval "${args[@]}" --solution "$TMP/d" >/dev/null 2>"$TMP/6.err"
"$KWB" eval "${args[@]}" --solution "$TMP/d" >/dev/null 2>"$TMP/7.err"
[ "$(ls "$KWB_CACHE_DIR/builds" | wc -l)" -eq 2 ] && pass "the reference's build is cached" || fail "reference built twice"
echo '/* a comment in a header the reference includes */' >>"$TMP/kernels/include/gdn_common.h"
"$KWB" eval "${args[@]}" --solution "$TMP/d" >/dev/null 2>"$TMP/8.err"
expect_code 0 "$?" "eval with the changed header"
[ "$(ls "$KWB_CACHE_DIR/builds" | wc -l)" -eq 4 ] &&
    pass "a changed include header builds the reference and the candidate (which may include it) again" ||
    fail "include header not in the builds' hash: $(ls "$KWB_CACHE_DIR/builds" | wc -l) entries"

# A killed kwb's work folder (kwb-build-HOST-PID-START-XXXXXX, named as owntmp names them) is swept
# by the next build once its process is gone and it has been left a minute; a young one, or a live
# process's, stays.
true &
gone=$!
wait $gone
b=$KWB_CACHE_DIR/builds host=$(uname -n | sed 's/[^A-Za-z0-9.]/_/g') start=$(awk '{ print $22 }' /proc/$$/stat)
mkdir -p "$b/kwb-build-$host-$gone-123-aaaaaa/src" "$b/kwb-build-$host-$gone-123-bbbbbb" "$b/kwb-build-$host-$$-$start-cccccc"
touch -d '2 hours ago' "$b/kwb-build-$host-$gone-123-aaaaaa" "$b/kwb-build-$host-$$-$start-cccccc"
echo '/* one more change: a build, not the cache */' >>"$TMP/d/cand.c"
"$KWB" eval "${args[@]}" --solution "$TMP/d" >/dev/null 2>"$TMP/9.err"
expect_code 0 "$?" "eval beside left work folders"
[ ! -e "$b/kwb-build-$host-$gone-123-aaaaaa" ] && pass "an old work folder of a gone process swept" || fail "stale work folder left"
[ -d "$b/kwb-build-$host-$gone-123-bbbbbb" ] && pass "a young work folder kept" || fail "young work folder removed"
[ -d "$b/kwb-build-$host-$$-$start-cccccc" ] && pass "a live process's work folder kept" || fail "live process's work folder removed"
[ "$(stat -c %a "$(dirname "$(ls "$b"/*/src/cand.c | head -1)")/..")" = 755 ] && pass "a build entry is mode 755" ||
    fail "build entry mode: $(stat -c %a "$(dirname "$(ls "$b"/*/src/cand.c | head -1)")/..")"
finish
