#!/bin/bash
# Issue 19 item 9: a timing pattern that load can fake (calls on repeated inputs faster than on
# fresh ones) condemns a candidate only when a fresh runner, re-measuring the workload alone,
# sees it again. A candidate that caches results only in the first process it runs in (as an
# honest kernel looks to a loaded machine once) is not condemned, and the message says what the
# first measurement saw; the corpus's cache cheat is condemned with both measurements named.
. "$top_srcdir/tests/lib.sh"
ADV="$top_srcdir/tests/adversarial"
cp -rL "$ADV/cpu/03_cache_by_fingerprint" "$TMP/once"
marker="$TMP/cached-once"
make_once() {   # caching only while MARKER does not exist; the first process creates it
    sed -i 's|^int kwb_entry(const kwb_arg \*a, int nargs, kwb_stream s)$|#include <fcntl.h>\n#include <unistd.h>\nint kwb_entry(const kwb_arg *a, int nargs, kwb_stream s)|' "$1"
    sed -i "s|^    uint64_t k = fingerprint(a, nargs);|    static int cheat = -1;\n    if (cheat < 0) {\n        cheat = access(\"$marker\", F_OK) != 0;\n        if (cheat)\n            close(open(\"$marker\", O_CREAT \| O_WRONLY, 0644));\n    }\n    if (!cheat)\n        return gdn_baseline_entry(a, nargs, s);\n    uint64_t k = fingerprint(a, nargs);|" "$1"
}
make_once "$TMP/once/cache.c"
grep -q 'cheat = access' "$TMP/once/cache.c" && pass "the once-caching candidate is made" || fail "patch"
# --sandbox off: the once-caching candidate keeps its marker outside the runner's scratch folder
# (which the sandbox refuses, tests/e2e/sandbox.sh), so that the second runner sees it.
ev() {
    "$KWB" eval --dataset "$ADV/dataset" --definition gdn_decode_qk4_v8_d128_k_last --solution "$1" --trials 3 \
        --max-time 1 --timeout 60 --quiet --sandbox off >"$2.out" 2>"$2.err"
}
ev "$TMP/once" "$TMP/once"
expect_code 0 "$?" "cached in its first process only: not condemned"
expect_grep '^g-b16 .* PASSED' "$TMP/once.out" "g-b16 PASSED"
expect_grep 'not condemned: the first measurement showed candidate timing: calls on repeated inputs ran [0-9.]+x faster than calls on fresh inputs .*; re-measured alone it did not' \
    "$TMP/once.out" "the message says what the first measurement saw"
[ -e "$marker" ] && pass "the first process did cache" || fail "the candidate never cached"
ev "$ADV/cpu/03_cache_by_fingerprint" "$TMP/cheat"
expect_code 1 "$?" "the cache cheat"
expect_grep '^g-b16 .* REJECTED_INTEGRITY' "$TMP/cheat.out" "the cheat is condemned"
expect_grep 'calls on repeated inputs ran [0-9.]+x faster .*; seen again when re-measured alone: calls on repeated inputs ran' \
    "$TMP/cheat.out" "both measurements are named"
finish
