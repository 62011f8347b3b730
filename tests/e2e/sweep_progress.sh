#!/bin/bash
# Progress while a sweep runs, and the reference's outputs cached across evaluations:
# - off a terminal, one line per finished workload on stderr with the counts so far
#   ("kwb eval: [2/3] 2 passed, 0 failed | ... s elapsed, ~... s left | UUID ..."), the policy in
#   force first; --quiet: none of it;
# - on a terminal (script(1) gives kwb a pty), each finished workload's row above a live line
#   redrawn in place (carriage return, erase to end of line);
# - the policy is recorded with the eval run in the store, and each row's JSON carries its
#   median's CI half-width (with --max-time 0.3: a 0.02 s cap leaves too few input sets for one)
#   and the sets it was bootstrapped over, the places its input sets were drawn from (3 or more; two
#   with KWB_INPUT_PLACES=2), and the document how inputs were seen unchanged (input_check);
# - KWB_STOP_AFTER=S: no workload starts after S seconds, the rest are "not run";
# - a second evaluation of the same workloads (another candidate) takes every checked trial's
#   reference outputs from the cache kwb serves, with the sandbox on: the runner's count of
#   reference calls is zero there.
. "$top_srcdir/tests/lib.sh"

make_dataset "$TMP/ds" 1 2 3
args=(--dataset "$TMP/ds" --definition "$DEF" --trials 2 --max-time 0.02)

# Off a terminal: a line per workload, as each finishes.
"$KWB" eval "${args[@]}" --solution "$KERNELS/baseline" >"$TMP/lines.out" 2>"$TMP/lines.err"
expect_code 0 "$?" "eval off a terminal"
expect_grep '^kwb eval: timing: warm; .*CI within \+-0\.5% over input sets .*, at least 10 samples' "$TMP/lines.err" "the policy in force"
[ "$(grep -c '^kwb eval: \[[0-9]/3\] ' "$TMP/lines.err")" -eq 3 ] && pass "one progress line per workload" ||
    fail "one progress line per workload: $(cat "$TMP/lines.err")"
for k in 1 2 3; do
    expect_grep "^kwb eval: \[$k/3\] $k passed, 0 failed \| [0-9.]+ s elapsed.* \| w[0-9]-b[0-9] +batch_size=[0-9]  PASSED  [0-9.]+ (us|ms)" \
        "$TMP/lines.err" "line $k: counts, elapsed, the workload's row"
done
expect_grep '^kwb eval: \[1/3\] .*~[0-9]+ s left' "$TMP/lines.err" "an estimate of the time left"
expect_no_grep $'\r|\033' "$TMP/lines.err" "no terminal controls off a terminal"
expect_grep '^w0-b1 ' "$TMP/lines.out" "the final table still comes, in workload order"

"$KWB" eval "${args[@]}" --solution "$KERNELS/baseline" --quiet >/dev/null 2>"$TMP/quiet.err"
expect_no_grep 'kwb eval: \[|kwb eval: timing' "$TMP/quiet.err" "--quiet: no progress and no policy line"

# On a terminal: rows above a live line redrawn in place.
script -qec "$KWB eval ${args[*]} --solution $KERNELS/baseline >$TMP/tty.out" /dev/null >"$TMP/tty.raw" 2>&1
expect_code 0 "$?" "eval on a terminal"
sed 's/\r\x1b\[K/\n/g' "$TMP/tty.raw" | tr -d '\r' >"$TMP/tty.txt"  # each redraw on a line of its own
expect_grep $'\r\033\\[K' "$TMP/tty.raw" "the live line is redrawn in place"
for u in w0-b1 w1-b2 w2-b3; do
    expect_grep "^  $u +batch_size=[0-9]  PASSED" "$TMP/tty.txt" "row of $u above the live line"
done
expect_grep 'kwb eval: \[3/3\] 3 passed, 0 failed \| [0-9.]+ s elapsed$' "$TMP/tty.txt" "the live line's last counts"

# The policy recorded with the eval run; the CI half-width in the JSON.
"$KWB" init "$TMP/ws" >/dev/null
"$KWB" eval "${args[@]}" --max-time 0.3 --solution "$KERNELS/baseline" --workspace "$TMP/ws" --session s --json \
    --quiet >"$TMP/rec.json" 2>"$TMP/rec.err"
expect_code 0 "$?" "recorded eval"
sqlite3 "$TMP/ws/kwb.db" 'SELECT runner_version FROM eval_runs' >"$TMP/policy.txt" 2>&1
expect_grep "^kwb-runner .*; warm; .*CI within \+-0\.5%" "$TMP/policy.txt" "the store keeps the policy with the eval run"
expect_grep '"ci_rel": [0-9.e-]+' "$TMP/rec.json" "the JSON gives each median's CI half-width"
expect_grep '"ci_sets": [0-9]+' "$TMP/rec.json" "... and the input sets it was bootstrapped over"
expect_grep '"policy": "warm; .*CI within \+-0\.5%' "$TMP/rec.json" "the JSON names the policy"
expect_grep '"input_check": "host-digest"' "$TMP/rec.json" "the JSON says how inputs were seen unchanged (cpu: host digest)"
# The input sets are drawn from many places (KWB_INPUT_PLACES=2: two, as before they were drawn).
places() { python3 -c 'import json,sys; print(" ".join(str(w["cost"]["input_places"]) for w in json.load(open(sys.argv[1]))["workloads"]))' "$1"; }
p=$(places "$TMP/rec.json")
[ -n "$p" ] && [ -z "$(echo "$p" | tr ' ' '\n' | awk '$1 < 3')" ] && pass "input sets at 3 or more places ($p)" ||
    fail "input sets' places: '$p'"
KWB_INPUT_PLACES=2 "$KWB" eval "${args[@]}" --max-time 0.3 --solution "$KERNELS/baseline" --json --quiet >"$TMP/two.json" 2>/dev/null
p=$(places "$TMP/two.json")
[ "$p" = "2 2 2" ] && pass "KWB_INPUT_PLACES=2: two places" || fail "KWB_INPUT_PLACES=2 gave places '$p'"

# A bench's time box (KWB_STOP_AFTER, bench/sweep-speed): no workload starts after it; those that
# finished keep their rows, the rest are "not run".
KWB_STOP_AFTER=0.001 "$KWB" eval "${args[@]}" --solution "$KERNELS/baseline" --json --quiet >"$TMP/stop.json" 2>"$TMP/stop.err"
expect_code 1 "$?" "stopped early: not every workload passed"
[ "$(jq -r '[.workloads[] | .status + ":" + (.message // "" | .[0:7])] | join(",")' "$TMP/stop.json")" = \
    "PASSED:,RUNTIME_ERROR:not run,RUNTIME_ERROR:not run" ] && pass "KWB_STOP_AFTER: the first row kept, the rest not run" ||
    fail "KWB_STOP_AFTER: $(jq -c '[.workloads[] | .status]' "$TMP/stop.json")"
expect_grep '^kwb eval: stopped after KWB_STOP_AFTER=0.001 s' "$TMP/stop.err" "KWB_STOP_AFTER: said on stderr"

# The reference's outputs: computed by the first evaluation, read back by the second, with the
# sandbox on (the default): Landlock keeps the runner out of the cache folder, so kwb keeps it and
# serves it (ref-want / ref-out events, the files through the runner's scratch folder); each
# workload's reference is called for 2 trials and once for the time limit's probe.
export KWB_CACHE_DIR="$TMP/cache" KWB_REF_CACHE=always
runs() { # JSON -> "RUNS CACHED" summed over the workloads
    python3 -c 'import json,sys; w=json.load(open(sys.argv[1]))["workloads"]
print(sum(x["cost"]["reference_runs"] for x in w), sum(x["cost"]["reference_cached"] for x in w))' "$1"
}
"$KWB" eval "${args[@]}" --solution "$KERNELS/baseline" --json --quiet >"$TMP/c1.json" 2>"$TMP/c1.err"
expect_code 0 "$?" "first evaluation"
# A timed call checked on inputs whose outputs were already verified passes by its outputs' digests
# (a deterministic solution gives the same bits), and the others are compared in full.
audits=$(python3 -c 'import json,sys; w=json.load(open(sys.argv[1]))["workloads"]
print(sum(x["cost"]["audits"] for x in w), sum(x["cost"]["quick_audits"] for x in w))' "$TMP/c1.json")
set -- $audits
[ "$2" -gt 0 ] && [ "$2" -lt "$1" ] && pass "audits by digest: $2 of $1 checked timed calls" || fail "audits: $audits"
# (the dataset's preflight, a dump of the smallest workload's first trial, may have computed one already)
case "$(runs "$TMP/c1.json")" in
"9 0" | "8 1") pass "first: 3 workloads x 3 calls computed (or one by the preflight)" ;;
*) fail "first: $(runs "$TMP/c1.json")" ;;
esac
"$KWB" eval "${args[@]}" --solution "$KERNELS/fast" --json --quiet >"$TMP/c2.json" 2>"$TMP/c2.err"
expect_code 0 "$?" "second evaluation (another candidate)"
[ "$(runs "$TMP/c2.json")" = "0 9" ] && pass "second, sandbox on: every trial's reference outputs from the cache" ||
    fail "second: $(runs "$TMP/c2.json")"
if "$KWB_RUNNER" --sandbox-info 2>&1 | grep -q 'file system (Landlock ABI'; then
    pass "Landlock in force here: the runner alone could not have read the cache folder"
else
    echo "note: no Landlock on this kernel; the served cache is still what was used"
fi
"$KWB" eval "${args[@]}" --solution "$KERNELS/baseline" --json --quiet --sandbox off >"$TMP/c2off.json" 2>/dev/null
[ "$(runs "$TMP/c2off.json")" = "0 9" ] && pass "sandbox off: the same cache, served the same way" ||
    fail "sandbox off: $(runs "$TMP/c2off.json")"
"$KWB" eval "${args[@]}" --solution "$KERNELS/fast" --json --quiet --seed 2 >"$TMP/c3.json" 2>/dev/null
[ "$(runs "$TMP/c3.json" | cut -d' ' -f1)" -ge 8 ] && pass "another seed: other inputs, computed again" || fail "seed 2: $(runs "$TMP/c3.json")"
KWB_REF_CACHE=off "$KWB" eval "${args[@]}" --solution "$KERNELS/fast" --json --quiet >"$TMP/c4.json" 2>/dev/null
[ "$(runs "$TMP/c4.json")" = "9 0" ] && pass "KWB_REF_CACHE=off: computed" || fail "off: $(runs "$TMP/c4.json")"
# Another definition text (it says how inputs are made) is another key.
echo >>"$TMP/ds/definitions/$DEF.json"
"$KWB" eval "${args[@]}" --solution "$KERNELS/fast" --json --quiet >"$TMP/c6.json" 2>/dev/null
[ "$(runs "$TMP/c6.json" | cut -d' ' -f1)" -ge 8 ] && pass "the definition changed: computed again" ||
    fail "definition changed: $(runs "$TMP/c6.json")"
# A cache file that does not match (truncated) is not used.
for f in "$TMP"/cache/references/*.bin; do head -c 20 "$f" >"$f.t" && mv "$f.t" "$f"; done
"$KWB" eval "${args[@]}" --solution "$KERNELS/fast" --json --quiet >"$TMP/c5.json" 2>/dev/null
expect_code 0 "$?" "a damaged cache: still PASSED"
[ "$(runs "$TMP/c5.json" | cut -d' ' -f1)" -ge 8 ] && pass "a damaged cache file is computed again" || fail "damaged: $(runs "$TMP/c5.json")"
# The cache's size is bounded: the least recently used files go first.
KWB_CACHE_DIR="$TMP/small" KWB_REF_CACHE_MAX_MB=1 "$KWB" eval "${args[@]}" --solution "$KERNELS/fast" --json --quiet \
    >/dev/null 2>&1
n=$(ls "$TMP/small/references" | wc -l)
[ "$n" -ge 1 ] && [ "$n" -lt 6 ] && pass "KWB_REF_CACHE_MAX_MB=1: $n of 6 files kept" || fail "cache bound: $n files"
finish
