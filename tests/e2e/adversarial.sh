#!/bin/bash
# The CPU part of the adversarial corpus (tests/adversarial/cpu): each candidate attempts one
# exploit of issue 11's list and must get the expected status, with the reason, on the
# workloads it attacks; the honest control must pass; the run always finishes.
. "$top_srcdir/tests/lib.sh"

ADV="$top_srcdir/tests/adversarial"
DS="$ADV/dataset"
COPY=bench_copy_f32
GDN=gdn_decode_qk4_v8_d128_k_last

# adv CASE DEFINITION EXTRA-ARGS...: evaluates the case; output in $TMP/CASE.out, .err
adv() {
    local name=$1 def=$2
    shift 2
    "$KWB" eval --dataset "$DS" --definition "$def" --solution "$ADV/cpu/$name" --trials 3 --max-time 0.05 \
        --timeout 20 "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
}

# expect CASE UUID STATUS REASON-REGEX
expect() {
    expect_grep "^$2 .* $3" "$TMP/$1.out" "$1: $2 is $3"
    [ -n "$4" ] && expect_grep "$4" "$TMP/$1.out" "$1: the reason says /$4/"
}

adv 00_honest $COPY
expect_grep '^3 workloads: 3 PASSED' "$TMP/00_honest.out" "00_honest: the control passes"
expect_no_grep 'kwb eval: scan:' "$TMP/00_honest.err" "00_honest: no scan finding"

adv 01_stale_output $COPY
expect 01_stale_output c-4k INCORRECT_NUMERICAL "output 'y': 40[0-9]+ of 4096 elements"

adv 02_partial_tail $COPY
expect 02_partial_tail c-odd INCORRECT_NUMERICAL "163 of 100003 elements .*first at index 99840"
expect 02_partial_tail c-1m PASSED ""

adv 03_cache_by_fingerprint $GDN --max-time 1  # enough fresh calls (8 or more) for a finding, even under load
expect 03_cache_by_fingerprint g-b16 REJECTED_INTEGRITY "calls on repeated inputs ran .*faster than calls on fresh inputs"

adv 05_modify_inputs $COPY
expect 05_modify_inputs c-odd REJECTED_INTEGRITY "modified input 'x'"

adv 06_background_thread $COPY
expect 06_background_thread c-1m REJECTED_INTEGRITY "left 1 thread\\(s\\) running"
expect_grep 'kwb eval: scan: .*worker.c:[0-9]+: thread: ' "$TMP/06_background_thread.err" "06_background_thread: the scan names FILE:LINE"

adv 08_count_calls $COPY
expect_grep '^3 workloads: 3 REJECTED_INTEGRITY' "$TMP/08_count_calls.out" "08_count_calls: every workload rejected"
expect 08_count_calls c-odd REJECTED_INTEGRITY "timed call [0-9]+.*differs from the reference"

adv 09_half_precision $COPY
expect 09_half_precision c-4k INCORRECT_NUMERICAL "got -?inf"

adv 10_hardcoded_shapes $COPY
expect_grep '^3 workloads: 3 PASSED' "$TMP/10_hardcoded_shapes.out" "10_hardcoded_shapes: passes the shapes it was shown"
adv 10_hardcoded_shapes $COPY --held-out
expect 10_hardcoded_shapes h-77k INCORRECT_NUMERICAL "first at index 4096"
expect 10_hardcoded_shapes h-512k INCORRECT_NUMERICAL "first at index 100003"

adv 11_fake_clock $COPY
expect 11_fake_clock c-1m REJECTED_INTEGRITY "faster than physics: .* under the roofline floor"

# Each of 12a-12d takes the runner down on c-odd; --keep-going makes the next workload run in a
# fresh runner (without it the rest is skipped: tests/e2e/fail_fast.sh).
adv 12a_segfault $COPY --keep-going
expect 12a_segfault c-odd RUNTIME_ERROR "signal 11"
expect 12a_segfault c-1m PASSED ""

adv 12b_exit0 $COPY --keep-going
expect 12b_exit0 c-odd RUNTIME_ERROR "the runner died: exit code 0"
expect 12b_exit0 c-1m PASSED ""

adv 12c_host_sleep $COPY --timeout 3 --keep-going
expect 12c_host_sleep c-odd TIMEOUT "no result within 3 s"
expect 12c_host_sleep c-1m PASSED ""

adv 12d_huge_alloc $COPY --keep-going
expect 12d_huge_alloc c-odd RUNTIME_ERROR "signal 6"
expect 12d_huge_alloc c-1m PASSED ""

# The sandbox refuses the fork itself (issue 20); without it the child is found after the call.
adv 12e_fork $COPY
expect 12e_fork c-4k REJECTED_INTEGRITY "the sandbox refused system call 'clone' \\(a new process\\)"
adv 12e_fork $COPY --sandbox off
expect 12e_fork c-4k REJECTED_INTEGRITY "the call started a process"

adv 14a_forge_events $COPY
expect 14a_forge_events c-4k REJECTED_INTEGRITY "the result channel carried an event without the job's tag"
expect_grep '^3 workloads: 3 REJECTED_INTEGRITY' "$TMP/14a_forge_events.out" "14a_forge_events: the next workloads ran (fresh runners)"

adv 14b_interpose_symbol $COPY
expect 14b_interpose_symbol c-4k REJECTED_INTEGRITY "defines 'clock_gettime'"

# --scan block rejects on findings without running; --scan off says nothing.
adv 12e_fork $COPY --scan block
expect 12e_fork c-4k REJECTED_INTEGRITY "static scan \\(--scan block\\): .*fork.c:14: process"
adv 06_background_thread $COPY --scan off
expect_no_grep 'kwb eval: scan:' "$TMP/06_background_thread.err" "--scan off: no findings shown"

# The defences can be switched off for the overhead bench only: then the counting cheat's
# timed calls go unchecked (it is caught by physics on the large workload at most).
adv 08_count_calls $COPY --no-defences
expect_no_grep 'timed call [0-9]+.*differs' "$TMP/08_count_calls.out" "--no-defences: timed calls unchecked"

# A baseline caught while timed does not sink an honest candidate: it is timed alone.
adv 00_honest $COPY --baseline "$ADV/cpu/08_count_calls"
expect_grep '^3 workloads: 3 PASSED' "$TMP/00_honest.out" "honest candidate against a cheating baseline passes"

# Over 10x faster than the baseline (the current best): PASSED, flagged for a human.
mkdir -p "$TMP/sleepy"
sed 's/adv_honest/adv_sleepy/' "$ADV/cpu/00_honest/solution.json" >"$TMP/sleepy/solution.json"
sed 's|    memcpy(|    usleep(2000);\n    memcpy(|; s|#include <string.h>|#include <string.h>\n#include <unistd.h>|' \
    "$ADV/cpu/00_honest/copy.c" >"$TMP/sleepy/copy.c"
"$KWB" eval --dataset "$DS" --definition $COPY --solution "$ADV/cpu/00_honest" --baseline "$TMP/sleepy" \
    --workloads c-4k --trials 1 --max-time 0.05 --quiet >"$TMP/flag.out" 2>&1
expect_grep '^c-4k .* PASSED' "$TMP/flag.out" "10x: still PASSED"
expect_grep 'FLAGGED for a human: [0-9.]+x faster than the baseline' "$TMP/flag.out" "10x: flagged for a human"

# The human sees REJECTED_INTEGRITY and its reason in every view: the store (kwb show), the
# reports, and FlashInfer-Bench traces (RUNTIME_ERROR with the reason in the log).
"$KWB" init "$TMP/ws" >/dev/null 2>&1
"$KWB" eval --workspace "$TMP/ws" --session adv --name forger --dataset "$DS" --definition $COPY \
    --solution "$ADV/cpu/05_modify_inputs" --trials 1 --max-time 0.02 --quiet >/dev/null 2>&1
"$KWB" show --workspace "$TMP/ws" forger >"$TMP/show.out" 2>&1
expect_grep "c-odd .*REJECTED_INTEGRITY" "$TMP/show.out" "store: kwb show has the status"
expect_grep "modified input 'x'" "$TMP/show.out" "store: kwb show has the reason"
for f in md traces; do
    "$KWB" report --workspace "$TMP/ws" adv --dataset "$DS" --format $f --output "$TMP/r.$f" >/dev/null 2>&1
done
expect_grep "REJECTED_INTEGRITY" "$TMP/r.md" "md report: the status"
expect_grep '"status": ?"RUNTIME_ERROR".*REJECTED_INTEGRITY: modified input' "$TMP/r.traces" "traces: RUNTIME_ERROR with the reason"

finish
