#!/bin/bash
# kwb-runner speaks protocol 1 on descriptors 3 (job) and 4 (events): the event sequence
# of a job, samples on request, a wrong protocol version, and a solution that cannot load.
# The runner holds no definition's code: the reference is a solution the job names (kwb builds
# the definition's kwb.reference); a job without one is refused.
. "$top_srcdir/tests/lib.sh"
export KWB_CACHE_DIR="$TMP/cache"

"$KWB" eval --definition "$DEF" --solution "$KERNELS/baseline" --workloads 901e5104 --trials 1 --max-time 0.01 \
    --quiet >/dev/null 2>&1
so=$(dirname "$(ls "$KWB_CACHE_DIR"/builds/*/src/gdn_decode_baseline.c)")/../lib.so
ref=$(dirname "$(ls "$KWB_CACHE_DIR"/builds/*/src/reference.c)")/../lib.so
[ -f "$so" ] && [ -f "$ref" ] || fail "kwb eval built the baseline and the definition's reference solution"
wl=$(sed -n 1p "$top_srcdir/workloads/workloads/gdn/$DEF.jsonl" | sed 's/.*"workload": \({.*}\), "evaluation".*/\1/')
job() { # PROTO SO [REFERENCE-SO]
    local r=""
    [ -n "${3:-}" ] && r=$(printf '"reference": {"role": "reference", "name": "r", "so": "%s", "symbol": "kwb_ref_%s"}, ' "$3" "$DEF")
    printf '{"proto": %s, "type": "job", "device": "cpu", "definition": "%s", "dataset": "%s", "workloads": [%s], "solutions": [{"role": "candidate", "name": "b", "so": "%s", "symbol": "kwb_entry"}], %s"check": {"trials": 2, "atol": 0.01, "rtol": 0.01, "matched_ratio": 1.0}, "timing": {"warmup_s": 0, "min_samples": 5, "min_time_s": 0, "max_time_s": 0.05, "rsd_target": 1.0, "cold": false}, "reference_timing": {"warmup_s": 0, "min_samples": 1, "min_time_s": 0, "max_time_s": 0.01, "rsd_target": 1.0}, "seed": 7, "samples": true}\n' \
        "$1" "$top_srcdir/workloads/definitions/gdn/$DEF.json" "$top_srcdir/workloads" "$wl" "$2" "$r"
}

job 1 "$so" "$ref" >"$TMP/job1"
"$KWB_RUNNER" 3<"$TMP/job1" 4>"$TMP/ev1" >"$TMP/log1" 2>&1
expect_code 0 "$?" "runner exits 0"
sed -E 's/.*"event": ?"([a-z-]+)".*/\1/' "$TMP/ev1" | tr '\n' ' ' >"$TMP/seq1"
expect_grep '^hello workload-start check check timing timing workload-end bye $' "$TMP/seq1" "event sequence"
expect_no_grep '"proto": ?[^1]' "$TMP/ev1" "every event is protocol 1"
expect_grep '"event": ?"hello".*"runner_version"' "$TMP/ev1" "hello names the runner"
expect_grep '"event": ?"timing".*"role": ?"candidate".*"samples_ms": ?\[' "$TMP/ev1" "samples on request"
expect_grep '"event": ?"workload-end".*"status": ?"PASSED"' "$TMP/ev1" "workload passed"

job 2 "$so" "$ref" >"$TMP/job2"
"$KWB_RUNNER" 3<"$TMP/job2" 4>"$TMP/ev2" >/dev/null 2>&1
expect_code 2 "$?" "protocol 2: exit 2"
expect_grep '"event": ?"error".*protocol 2, this runner speaks 1' "$TMP/ev2" "protocol 2: said"

job 1 "$TMP/nothing.so" "$ref" >"$TMP/job3"
"$KWB_RUNNER" 3<"$TMP/job3" 4>"$TMP/ev3" >/dev/null 2>&1
expect_code 1 "$?" "unloadable solution: exit 1"
expect_grep '"event": ?"error".*cannot load' "$TMP/ev3" "unloadable solution: said"
expect_grep '"event": ?"bye"' "$TMP/ev3" "unloadable solution: still says bye"

"$KWB_RUNNER" --version >"$TMP/v" && expect_grep '^kwb-runner [0-9.]+ \(protocol 1\)$' "$TMP/v" "--version"
job 1 "$so" >"$TMP/job4"
"$KWB_RUNNER" 3<"$TMP/job4" 4>"$TMP/ev4" >/dev/null 2>&1
expect_code 1 "$?" "no reference in the job: exit 1"
expect_grep '"event": ?"error".*names no reference for definition .gdn_decode.*--reference DIR' "$TMP/ev4" \
    "no reference in the job: said, with where one comes from"
"$KWB_RUNNER" --list-references >/dev/null 2>&1
expect_code 2 "$?" "--list-references is gone: the runner has no references of its own"
nm "$KWB_RUNNER" >"$TMP/syms" 2>/dev/null || strings "$KWB_RUNNER" >"$TMP/syms"
expect_no_grep 'gdn_|dsa_|moe_|kwb_ref_' "$TMP/syms" "kwb-runner holds no per-definition code"
finish
