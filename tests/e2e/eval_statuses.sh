#!/bin/bash
# Each way a solution can fail gives its status on the workloads it fails, the other
# workloads still PASS, and the run finishes: crash, hang, wrong values, writing outside
# the output (wrong shape), a non-zero return, and a compile error.
. "$top_srcdir/tests/lib.sh"

make_dataset "$TMP/ds" 1 4 2
run_eval() { # NAME EXTRA-ARGS...: eval candidate NAME on the 3-workload dataset
    local name=$1
    shift
    "$KWB" eval --dataset "$TMP/ds" --definition "$DEF" --solution "$TMP/$name" --trials 1 --max-time 0.01 \
        --quiet "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
    echo $?
}

# B == 4 segfaults; B 1 and 2 pass, each in a fresh runner after the crash (--keep-going: by
# default the rest is skipped, tests/e2e/fail_fast.sh).
make_candidate "$TMP/crash" crash 'if (B == 4) { volatile int *p = NULL; *p = 1; }'
code=$(run_eval crash --keep-going)
expect_code 1 "$code" "crash: some workloads failed"
expect_grep '^w1-b4 .* RUNTIME_ERROR' "$TMP/crash.out" "crash: B=4 is RUNTIME_ERROR"
expect_grep 'signal 11 \(Segmentation fault\)' "$TMP/crash.out" "crash: the signal is named"
expect_grep '^w0-b1 .* PASSED' "$TMP/crash.out" "crash: B=1 before it passed"
expect_grep '^w2-b2 .* PASSED' "$TMP/crash.out" "crash: B=2 after it passed in a fresh runner"
expect_grep '^3 workloads: 2 PASSED 1 RUNTIME_ERROR' "$TMP/crash.out" "crash: summary"

# A crash that prints first: the tail of its output is shown.
make_candidate "$TMP/abort" abort 'if (B == 4) { fprintf(stderr, "tile plan invalid for B=%lld\n", B); abort(); }'
run_eval abort >/dev/null
expect_grep 'signal 6 .*tile plan invalid for B=4' "$TMP/abort.out" "abort: signal and the tail of stderr"

# B == 4 never returns: TIMEOUT after --timeout, and the run goes on (--keep-going). The hung
# runner names itself (PR_SET_NAME), so that it can be looked for afterwards.
hang_name="kwbh$$"
make_candidate "$TMP/hang" hang 'if (B == 4) { extern int prctl(int, ...); prctl(15, "'"$hang_name"'"); for (;;) { } }'
start=$(date +%s)
code=$(run_eval hang --timeout 3 --keep-going)
took=$(($(date +%s) - start))
expect_code 1 "$code" "hang: some workloads failed"
expect_grep '^w1-b4 .* TIMEOUT' "$TMP/hang.out" "hang: B=4 is TIMEOUT"
expect_grep '^w2-b2 .* PASSED' "$TMP/hang.out" "hang: the next workload ran"
[ "$took" -lt 60 ] && pass "hang: killed in time (${took}s)" || fail "hang: took ${took}s"
hung=$(for p in /proc/[0-9]*; do [ "$(cat "$p/comm" 2>/dev/null)" = "$hang_name" ] && echo "${p#/proc/}"; done)
[ -n "$hung" ] && fail "hang: runner $hung is still alive" || pass "hang: the hung runner was killed"

# Wrong values on B == 4.
make_candidate "$TMP/wrong" wrong 'if (B == 4) { uint16_t *o = a[9].data; o[7] ^= 0x4000; }'
code=$(run_eval wrong)
expect_code 1 "$code" "wrong: some workloads failed"
expect_grep '^w1-b4 .* INCORRECT_NUMERICAL' "$TMP/wrong.out" "wrong: B=4 is INCORRECT_NUMERICAL"
expect_grep "output 'output': 1 of 4096 elements .*first at index 7" "$TMP/wrong.out" "wrong: the element is named"

# Writes one element past the end of new_state on B == 4: the kernel's idea of the shape is wrong.
make_candidate "$TMP/shape" shape 'if (B == 4) { float *ns = a[10].data; ns[B * 8 * 128 * 128] = 1.0f; }'
code=$(run_eval shape)
expect_code 1 "$code" "shape: some workloads failed"
expect_grep '^w1-b4 .* INCORRECT_SHAPE' "$TMP/shape.out" "shape: B=4 is INCORRECT_SHAPE"
expect_grep "output 'new_state': wrote at byte 2097152" "$TMP/shape.out" "shape: where it wrote"

# A non-zero return code.
make_candidate "$TMP/refuse" refuse 'if (B == 4) return 7;'
run_eval refuse >/dev/null
expect_grep '^w1-b4 .* RUNTIME_ERROR' "$TMP/refuse.out" "refuse: non-zero return is RUNTIME_ERROR"
expect_grep 'candidate returned 7' "$TMP/refuse.out" "refuse: the code is shown"

# Modifying an input is caught (the reference ran on a pristine copy).
make_candidate "$TMP/scribble" scribble 'if (B == 4) { uint16_t *q = a[0].data; q[0] ^= 1; }'
run_eval scribble >/dev/null
expect_grep "^w1-b4 .* REJECTED_INTEGRITY" "$TMP/scribble.out" "scribble: modified input is REJECTED_INTEGRITY"
expect_grep "modified input 'q'" "$TMP/scribble.out" "scribble: the input is named"

# Printing protocol-shaped lines on stdout does not fool the parent.
make_candidate "$TMP/liar" liar 'printf("{\"proto\":1,\"event\":\"workload-end\",\"status\":\"PASSED\"}\n"); fflush(stdout); { uint16_t *o = a[9].data; o[0] ^= 0x4000; }'
code=$(run_eval liar)
expect_code 1 "$code" "liar: fails"
expect_grep '^3 workloads: 3 INCORRECT_NUMERICAL' "$TMP/liar.out" "liar: its stdout is a log, not results"

# Does not compile: COMPILE_ERROR on every workload with the compiler's words.
mkdir -p "$TMP/broken"
sed 's/cand.c/broken.c/' "$TMP/crash/solution.json" >"$TMP/broken/solution.json"
printf '#include "kwb/kernel.h"\nint kwb_entry(const kwb_arg *a, int n, kwb_stream s) { return undeclared_thing; }\n' >"$TMP/broken/broken.c"
code=$(run_eval broken)
expect_code 1 "$code" "broken: fails"
expect_grep '^3 workloads: 3 COMPILE_ERROR' "$TMP/broken.out" "broken: every workload is COMPILE_ERROR"
expect_grep "undeclared_thing" "$TMP/broken.out" "broken: the compiler's message is shown"

# Traces: FlashInfer-Bench statuses and blocks.
"$KWB" eval --dataset "$TMP/ds" --definition "$DEF" --solution "$TMP/scribble" --trials 1 --max-time 0.01 --quiet \
    --traces "$TMP/traces.jsonl" >/dev/null 2>&1
expect_grep '"status": ?"RUNTIME_ERROR".*REJECTED_INTEGRITY' "$TMP/traces.jsonl" "traces: integrity is RUNTIME_ERROR with the reason in log"
expect_grep '"performance": ?\{"latency_ms"' "$TMP/traces.jsonl" "traces: PASSED rows carry performance"
[ "$(wc -l <"$TMP/traces.jsonl")" -eq 3 ] && pass "traces: one line per workload" || fail "traces: line count"
finish
