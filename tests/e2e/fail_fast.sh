#!/bin/bash
# Fail fast (issue 20, item 3): after a TIMEOUT or a crash the candidate's remaining workloads
# are not run but skipped with the same status and the reason (the table counts them), unless
# --keep-going; the default time limit follows from the reference's time and is printed.
. "$top_srcdir/tests/lib.sh"

ADV="$top_srcdir/tests/adversarial"
DS="$ADV/dataset"
COPY=bench_copy_f32

# run CASE OUT [EXTRA...] (without the timed-call defences, which a loaded machine can fool on the
# tiny c-4k copy; they are not what is checked here)
run() {
    local name=$1 out=$2
    shift 2
    "$KWB" eval --dataset "$DS" --definition $COPY --solution "$ADV/cpu/$name" --trials 1 --max-time 0.001 --no-defences \
        "$@" >"$TMP/$out.out" 2>"$TMP/$out.err"
}

# 12c hangs on c-odd (the second of three workloads); the default limit applies (no --timeout).
run 12c_host_sleep hang --quiet
expect_grep '^c-4k .* PASSED' "$TMP/hang.out" "hang: the first workload passes"
expect_grep '^c-odd .* TIMEOUT' "$TMP/hang.out" "hang: TIMEOUT on c-odd"
expect_grep 'no result within [1-9][0-9][0-9.]* s: the runner was killed' "$TMP/hang.out" "hang: the default limit (10 s or more)"
expect_grep '^c-1m .* TIMEOUT' "$TMP/hang.out" "hang: c-1m gets the same status"
expect_grep 'skipped: workload c-odd ended TIMEOUT .*--keep-going runs the rest' "$TMP/hang.out" "hang: c-1m skipped, why"
expect_grep '^3 workloads: 1 PASSED 2 TIMEOUT \(1 of them skipped after a TIMEOUT or a crash' "$TMP/hang.out" \
    "hang: the table says how many were skipped"
run 12c_host_sleep hang_keep --timeout 2 --keep-going --quiet
expect_grep '^c-1m .* PASSED' "$TMP/hang_keep.out" "--keep-going: c-1m runs and passes"
expect_no_grep 'skipped' "$TMP/hang_keep.out" "--keep-going: nothing skipped"

# A crash (segfault on c-odd) fails fast too; JSON and traces carry it.
run 12a_segfault crash --timeout 20 --quiet --json --traces "$TMP/crash.traces"
expect_grep '"skipped": true' "$TMP/crash.out" "crash: JSON marks the skipped workload"
expect_grep '"skipped": 1' "$TMP/crash.out" "crash: JSON summary counts it"
expect_grep '"uuid": ?"c-1m".*"status": ?"RUNTIME_ERROR"' "$TMP/crash.traces" "crash: the trace has a FlashInfer-Bench status"

# The default limit is printed.
run 00_honest honest
expect_grep '^kwb eval: timeout per workload: the larger of 10 s and 50x the reference' "$TMP/honest.err" \
    "the default time limit is printed"
expect_grep '^3 workloads: 3 PASSED' "$TMP/honest.out" "honest: 3 PASSED under the default limit"

finish
