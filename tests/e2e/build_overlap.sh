#!/bin/bash
# kwb eval builds the candidate and the baseline while the reference's preflight runs, each in a
# thread of its own: with KWB_PHASE_TIMES the phases' start and end times (seconds) on stderr
# show the candidate's build overlapping the preflight and the baseline's build, and the sweep
# starting only once all three are done. A dataset that fails its checks while a build runs
# still exits 2 with its message and says nothing of the builds, leaving no half-made build
# folder; a candidate that does not compile is still COMPILE_ERROR on every workload.
. "$top_srcdir/tests/lib.sh"

make_dataset "$TMP/ds" 1 2 3
export KWB_CACHE_DIR="$TMP/cache" # nothing built yet, no preflight remembered
KWB_PHASE_TIMES=1 "$KWB" eval --dataset "$TMP/ds" --definition "$DEF" --solution "$KERNELS/fast" \
    --baseline "$KERNELS/baseline" --trials 1 --max-time 0.02 >"$TMP/eval.out" 2>"$TMP/eval.err"
expect_code 0 "$?" "eval with builds in the background"
at() { sed -n "s/^kwb eval: phase $1 $2 \([0-9.]*\)$/\1/p" "$TMP/eval.err"; }
cs=$(at candidate-build start) ce=$(at candidate-build end) bs=$(at baseline-build start) be=$(at baseline-build end)
ps=$(at preflight start) pe=$(at preflight end) ss=$(at sweep start)
echo "candidate build $cs-$ce, baseline build $bs-$be, preflight $ps-$pe, sweep from $ss"
overlap() { awk -v a="$1" -v b="$2" -v c="$3" -v d="$4" 'BEGIN { exit !((a > c ? a : c) < (b < d ? b : d)) }'; }
[ -n "$cs" ] && [ -n "$ce" ] && [ -n "$ps" ] && [ -n "$pe" ] && [ -n "$bs" ] && [ -n "$be" ] && [ -n "$ss" ] &&
    pass "every phase noted" || fail "phases: $(grep phase "$TMP/eval.err")"
overlap "$cs" "$ce" "$ps" "$pe" && pass "the candidate's build overlaps the reference's preflight" ||
    fail "no overlap: build $cs-$ce, preflight $ps-$pe"
overlap "$cs" "$ce" "$bs" "$be" && pass "the candidate's and the baseline's builds overlap" ||
    fail "builds one after the other: $cs-$ce, $bs-$be"
awk -v s="$ss" -v a="$ce" -v b="$be" -v c="$pe" 'BEGIN { exit !(s >= a && s >= b && s >= c) }' &&
    pass "the sweep starts after both builds and the preflight" || fail "sweep at $ss"
[ "$(grep -c '^w[0-9]-b[0-9] .* PASSED ' "$TMP/eval.out")" -eq 3 ] && pass "3 workloads PASSED" ||
    fail "table: $(cat "$TMP/eval.out")"

# The dataset fails its checks (a blob that is not there) while the builds run.
cp -r "$TMP/ds" "$TMP/bad"
printf '{"definition": "%s", "solution": null, "workload": {"uuid": "wbad", "axes": {"batch_size": 1}, "inputs": {"scale": {"type": "scalar", "value": 0.0}, "q": {"type": "safetensors", "path": "blob/missing.safetensors", "tensor_key": "q"}}}, "evaluation": null}\n' \
    "$DEF" >>"$TMP/bad/workloads/$DEF.jsonl"
KWB_CACHE_DIR="$TMP/cache2" "$KWB" eval --dataset "$TMP/bad" --definition "$DEF" --solution "$KERNELS/fast" \
    --baseline "$KERNELS/baseline" --trials 1 --max-time 0.02 >"$TMP/bad.out" 2>"$TMP/bad.err"
expect_code 2 "$?" "a dataset problem: exit 2"
expect_grep 'missing\.safetensors' "$TMP/bad.err" "the problem named"
expect_no_grep 'built|cached build|COMPILE_ERROR' "$TMP/bad.err" "nothing said of the builds it dropped"
[ -z "$(ls "$TMP/cache2/builds" 2>/dev/null | grep -vE '^[0-9a-f]{64}$')" ] && pass "no half-made build folder left" ||
    fail "left: $(ls "$TMP/cache2/builds")"

# A candidate that does not compile: COMPILE_ERROR everywhere, as before.
make_candidate "$TMP/broken" broken 'this is not C;'
"$KWB" eval --dataset "$TMP/ds" --definition "$DEF" --solution "$TMP/broken" --baseline "$KERNELS/baseline" \
    --trials 1 --max-time 0.02 >"$TMP/broken.out" 2>"$TMP/broken.err"
expect_code 1 "$?" "a compile error: exit 1"
[ "$(grep -c '^w[0-9]-b[0-9] .* COMPILE_ERROR' "$TMP/broken.out")" -eq 3 ] && pass "COMPILE_ERROR on every workload" ||
    fail "table: $(cat "$TMP/broken.out")"
finish
