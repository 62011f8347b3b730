#!/bin/bash
# bench/issue21-h200's dry run on the CPU (--device cpu): every part runs its steps on a small
# selection and leaves its figures in the summary (the input-check path, the sweep's workloads,
# wall, floor and ratio cut by its time box, the judge's time and verdict, the fast policy against
# a long run, kwb's per-workload wall beside FlashInfer-Bench's, which needs torch and the
# wheels), the fast run under each rule (the CI over input sets at many places and at two, the CI
# of independent samples) against a long one; the summary, the log and the parts' files are the three files in --out; a budget
# that is spent leaves the later parts "not run" instead of overrunning the device call.
. "$top_srcdir/tests/lib.sh"

bench=$top_srcdir/bench/issue21-h200
"$bench" --device cpu --out "$TMP/out" --budget 120 --long 1 --wheels "$TMP/none" >"$TMP/run.txt" 2>&1
expect_code 0 "$?" "the dry run"
s=$TMP/out/summary.txt
expect_grep '^\(e\) input check: host-digest: the host.s digest \(cpu device\); workload [0-9a-f]{8} PASSED' "$s" \
    "(e) the input-check path named"
expect_grep '^\(a\) gdn_decode_qk4_v8_d128_k_last +[1-9][0-9]* +[0-9.]+ +[0-9.]+ +[0-9.]+ ' "$s" \
    "(a) the sweep's workloads, wall, floor and ratio"
expect_grep '^\(a\) gdn_decode.*\((partial: [0-9]+ of 54 in the time box)\)$|^\(a\) gdn_decode.* 54 ' "$s" \
    "(a) a sweep cut by its time box says so"
expect_grep '^\(b\) start evaluated and promoted in [0-9.]+ s; kwb judge \(a to the verdict: .*\) [0-9.]+ s, exit [01]$' "$s" \
    "(b) the judge's time from a to the verdict"
expect_grep '^\(b\) verdict: r1-knob: (promotable|not promotable)' "$s" "(b) the verdict"
expect_grep '^\(c\) gdn_decode.* fast +[0-9.]+ us \+-[0-9.]+% .* long +[0-9.]+ us .* \|fast/long-1\| [0-9.]+%  within own CI: (yes|no), within 0.5%: (yes|no)$' \
    "$s" "(c) the fast policy against the long run"
expect_grep '^\(t\) CI sets: 1 runs: [0-9.]+ \+-[0-9.]+% \([0-9]+, [0-9]+ sets, [0-9]+ places, [0-9.]+ calls a set, [0-9.]+ s\); spread 0.00%; \|fast/long-1\| largest [0-9.]+%' \
    "$s" "(t) a fast run under the CI over input sets, against the long run"
expect_grep '^\(t\) CI two: 1 runs: [0-9.]+ \+-' "$s" "(t) ... the same with the input sets at two places"
expect_grep '^\(t\) CI fixed: 1 runs: [0-9.]+ \+-.* calls a set' "$s" "(t) ... the same with every set's calls drawn from 1-16"
expect_grep '^\(t\) CI iid: 1 runs: ' "$s" "(t) ... and under the CI of independent samples"
expect_grep '^\(d\) kwb [0-9a-f]{8} batch 1: wall [0-9.]+ s, PASSED, median [0-9.]+ us' "$s" "(d) kwb's wall per workload"
expect_grep '^\(d\) FlashInfer-Bench: not run: (no torch here|no wheels in .*/none)$' "$s" "(d) no FlashInfer-Bench here: said"
expect_grep '^part f: not run' "$s" "(f) no tmux round on the cpu"
expect_grep '^total: [0-9]+ s$' "$s" "the total time"
expect_no_grep 'stopped at its limit|budget spent' "$s" "no part stopped with 120 s"
[ "$(ls "$TMP/out" | tr '\n' ' ')" = "log.txt parts.tar.gz summary.txt " ] && pass "three files in --out" ||
    fail "files in --out: $(ls "$TMP/out")"
tar -tzf "$TMP/out/parts.tar.gz" | grep -q 'sweep/gdn_decode_qk4_v8_d128_k_last.json' && pass "the sweep's JSON kept" ||
    fail "parts.tar.gz: $(tar -tzf "$TMP/out/parts.tar.gz" | head)"
expect_grep '== summary' "$TMP/run.txt" "the summary printed last"

# A budget too small for all parts: the later ones are not run, and the call still ends in time.
t0=$(date +%s)
"$bench" --device cpu --out "$TMP/small" --budget 14 --long 1 --wheels "$TMP/none" >"$TMP/small.txt" 2>&1
expect_code 0 "$?" "the dry run with 14 s"
[ $(($(date +%s) - t0)) -le 30 ] && pass "ended near its budget" || fail "took $(($(date +%s) - t0)) s for a budget of 14"
expect_grep '^part (a|b|c|d): not run \(budget spent at [0-9]+ s\)$' "$TMP/small/summary.txt" "later parts: not run"
finish
