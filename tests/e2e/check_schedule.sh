#!/bin/bash
# The timed calls' check schedule, read from the marks of one long CPU run (KWB_DEBUG_TIMING=samples):
# until the evidence is in (16 checked calls on repeated inputs, 16 on fresh ones, 8 plain) every
# fresh set's first call is checked (mark 2) and a call is checked one in 8; after it a call is checked
# one in 32 and a fresh set's first call one in 4, the others starting their set as plain calls (mark 4).
# The shares after the evidence are checked; the point where it is in is placed at the latest (the
# warm-up's calls, checked alike but not sampled, count toward it too).
# Thinning the checks is what let the DSA top-k's sets-bound workloads keep most samples (RESULTS).
. "$top_srcdir/tests/lib.sh"

u=$(head -1 "$KWB_DATASET/workloads/gdn/$DEF.jsonl" | sed 's/.*"uuid": *"\([^"]*\)".*/\1/')
KWB_DEBUG_TIMING=samples "$KWB" eval --definition "$DEF" --solution "$KERNELS/fast" --workloads "$u" \
    --precision 0 --min-time 0.3 --max-time 10 --quiet >"$TMP/out.txt" 2>"$TMP/err.txt" ||
    fail "kwb eval exited $?: $(tail -3 "$TMP/err.txt")"
grep -m1 "^kwb: samples candidate" "$TMP/err.txt" | tr ' ' '\n' | sed -n 's/^[0-9.e+-]*:\([0-9]\)$/\1/p' >"$TMP/marks"
[ -s "$TMP/marks" ] || fail "no samples with marks on stderr"
# the calls after the point where the evidence is in: checked ones, and sets with their first call checked
read -r after_calls after_checked after_sets after_fresh_checked <<<"$(awk '
    { m = $1 }
    !in_ { r += m == 1; f += m == 2; p += m == 0 || m == 4; if (r >= 16 && f >= 16 && p >= 8) in_ = 1; next }
    { n++; c += m == 1; s += m == 2 || m == 4; fc += m == 2 }
    END { print n + 0, c + 0, s + 0, fc + 0 }' "$TMP/marks")"
echo "after the evidence: $after_calls calls, $after_checked checked, $after_sets sets ($after_fresh_checked checked)"
# what the parent's comparison of fresh and repeated inputs needs is among the samples
fresh=$(grep -c '^2$' "$TMP/marks")
[ "$fresh" -ge 16 ] && pass "$fresh checked calls on fresh inputs among the samples" ||
    fail "only $fresh checked calls on fresh inputs among the samples"
[ "$after_calls" -ge 1000 ] || fail "too few calls after the evidence to judge the schedule ($after_calls)"
# one in 32 (3.1 %), drawn: well under the one in 8 (12.5 %) of before
[ $((after_checked * 100)) -le $((after_calls * 7)) ] && [ "$after_checked" -ge 1 ] &&
    pass "after the evidence $after_checked of $after_calls calls checked" ||
    fail "after the evidence $after_checked of $after_calls calls checked (one in 32 asked)"
# one in 4 of the sets (25 %), drawn
[ "$after_sets" -ge 40 ] && [ $((after_fresh_checked * 100)) -ge $((after_sets * 10)) ] &&
    [ $((after_fresh_checked * 100)) -le $((after_sets * 45)) ] &&
    pass "after the evidence $after_fresh_checked of $after_sets sets checked" ||
    fail "after the evidence $after_fresh_checked of $after_sets sets checked (one in 4 asked)"
finish
