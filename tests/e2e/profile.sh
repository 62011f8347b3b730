#!/bin/bash
# kwb profile without a GPU: Nsight Compute is tests/fixtures/ncu/fake-ncu (it records how it was
# called, runs the eval it was given and prints a raw page), and the C solution is built by
# fake-cc, which adds a recorded ptxas report, so the whole path runs: build, kernel filter from
# the compiler's report, spawn, capture, parse, classify, print, store. Then each way ncu can fail
# (missing, error, nothing profiled, past the time limit) gives a roofline-only profile and exit 0,
# and bad arguments exit 2.
. "$top_srcdir/tests/lib.sh"
FIX="$top_srcdir/tests/fixtures/ncu"
mkdir -p "$TMP/bin"
cp "$FIX/fake-ncu" "$TMP/bin/ncu"
chmod +x "$TMP/bin/ncu"
export CC="sh $FIX/fake-cc" FAKE_NCU_LOG="$TMP/ncu.log" FAKE_NCU_CSV="$FIX/synthetic_gdn_decode.raw"
export KWB_WORKSPACE="$TMP/ws"
unset KWB_NCU
make_dataset "$TMP/ds" 1 4
prof() { "$KWB" profile --definition "$DEF" --dataset "$TMP/ds" --solution "$KERNELS/fast" --device cpu "$@"; }

# ncu found on PATH; the kernel filter from the compiler's report; the table.
PATH="$TMP/bin:$PATH" prof --workload w0-b1 >"$TMP/p.out" 2>"$TMP/p.err"
expect_code 0 "$?" "profile with ncu"
expect_grep '^-k$' "$TMP/ncu.log" "ncu: a kernel filter"
expect_grep '^regex:\^\(_Z17gdn_decode_kernelPK13__nv_bfloat16S1_S1_PKfS3_S1_S3_S1_fPS_Pf\)\$$' "$TMP/ncu.log" \
    "ncu: the filter is the compiler's kernels, by mangled name"
expect_grep '^--launch-count$' "$TMP/ncu.log" "ncu: a launch count"
expect_grep '^--clock-control$' "$TMP/ncu.log" "ncu: clock control given"
expect_grep '^MemoryWorkloadAnalysis$' "$TMP/ncu.log" "ncu: the memory section"
expect_grep '^KWB_NO_CUPTI=1$' "$TMP/ncu.log" "the eval under ncu runs without CUPTI"
expect_grep '^app exit 0$' "$TMP/ncu.log" "the eval under ncu ran and passed"
expect_grep '^w0-b1$' "$TMP/ncu.log" "the eval under ncu runs the one workload"
expect_grep '^gdn_decode_kernel +20\.51 us +24\.3 +78\.5 +78\.5 +30\.2 +41\.7 +45%/50% +2\.13 +32 +0 B$' "$TMP/p.out" \
    "a row per kernel"
expect_no_grep 'gdn_ref_kernel|kwb_l2_read' "$TMP/p.out" "the reference's and kwb's kernels are left out"
expect_grep '^ +ptxas: 32 registers' "$TMP/p.out" "the compiler's report per kernel"
expect_grep '^bottleneck: memory-bound, from ncu: sm 24%, memory 79%, dram 79%$' "$TMP/p.out" "the class and its evidence"

PATH="$TMP/bin:$PATH" prof --workload w1-b4 --launch-count 3 --json >"$TMP/p.json" 2>"$TMP/pj.err"
expect_code 0 "$?" "profile --json"
expect_grep '"tool": "ncu"' "$TMP/p.json" "json: tool ncu"
expect_grep '"class": "memory-bound"' "$TMP/p.json" "json: the class"
expect_grep '"l2_pct": 41\.7' "$TMP/p.json" "json: L2 throughput"
expect_grep '"status": "PASSED"' "$TMP/p.json" "json: the plain eval's status"
grep -A1 '^--launch-count$' "$TMP/ncu.log" | grep -q '^3$' && pass "--launch-count reaches ncu" || fail "--launch-count"

# Each way ncu can fail: a note and a roofline-only profile, exit 0.
check_fallback() {  # WHAT PATTERN [ENV...]
    local what=$1 pattern=$2
    shift 2
    env "$@" "$KWB" profile --definition "$DEF" --dataset "$TMP/ds" --solution "$KERNELS/fast" --device cpu \
        --workload w0-b1 --time-limit 5 >"$TMP/f.out" 2>"$TMP/f.err"
    expect_code 0 "$?" "$what"
    expect_grep "^note: ncu: $pattern; roofline-only profile\$" "$TMP/f.out" "$what: the note"
    expect_grep '^eval: PASSED' "$TMP/f.out" "$what: the plain eval"
    expect_grep '^ptxas: gdn_decode_kernel: 32 registers' "$TMP/f.out" "$what: the compiler's report"
}
check_fallback "ncu missing" "cannot run /nonexistent: No such file or directory" KWB_NCU=/nonexistent
check_fallback "ncu failing" "ERR_NVGPUCTRPERM - The user does not have permission.*" KWB_NCU="$TMP/bin/ncu" \
    FAKE_NCU_MODE=error
check_fallback "ncu profiling nothing" "No kernels were profiled" KWB_NCU="$TMP/bin/ncu" FAKE_NCU_MODE=empty
check_fallback "ncu past the limit" "ran past the 5 s time limit \(--time-limit\) and was killed" \
    KWB_NCU="$TMP/bin/ncu" FAKE_NCU_MODE=hang

# A solution whose build names no kernel (plain cc): nothing for ncu to profile.
CC=cc KWB_NCU="$TMP/bin/ncu" prof --workload w0-b1 --json >"$TMP/c.json" 2>/dev/null
expect_code 0 "$?" "a C solution"
expect_grep '"note": "ncu: the compiler.s report names no kernel' "$TMP/c.json" "a C solution: the note"
expect_grep '"tool": "roofline"' "$TMP/c.json" "a C solution: roofline-only"

# Stored in the session for the candidate of the same build.
"$KWB" init "$TMP/ws" >/dev/null 2>&1
"$KWB" eval --definition "$DEF" --dataset "$TMP/ds" --solution "$KERNELS/fast" --session s1 --trials 1 \
    --max-time 0.01 --quiet >/dev/null 2>&1
expect_code 0 "$?" "the candidate recorded"
KWB_NCU="$TMP/bin/ncu" prof --workload w0-b1 --session s1 >/dev/null 2>"$TMP/s.err"
expect_code 0 "$?" "profile --session"
expect_grep 'ncu profile stored in session s1' "$TMP/s.err" "stored: said so"
KWB_NCU=/nonexistent prof --workload w1-b4 --session s1 >/dev/null 2>&1
expect_code 0 "$?" "roofline profile --session"
rows=$(sqlite3 "$TMP/ws/kwb.db" "SELECT c.name || ' ' || p.tool || ' ' || p.workload_uuid || ' ' ||
    json_extract(p.data, '$.bottleneck.class') FROM profiles p JOIN candidates c ON c.id = p.candidate_id
    ORDER BY p.id" 2>&1)
# (the cpu device measures its copy bandwidth, so the roofline-only profile has a class too)
first=$(printf '%s\n' "$rows" | sed -n 1p) second=$(printf '%s\n' "$rows" | sed -n 2p)
[ "$(printf '%s\n' "$rows" | wc -l)" -eq 2 ] && [ "$first" = "gdn_decode_cpu_fast ncu w0-b1 memory-bound" ] &&
    [[ $second =~ ^gdn_decode_cpu_fast\ roofline\ w1-b4\ (latency-bound|memory-bound|speed-of-light)$ ]] &&
    pass "the store holds both profiles" || fail "store: $rows"
# The profile never takes the session: it stores while another kwb (this shell, here) holds it.
sqlite3 "$TMP/ws/kwb.db" "UPDATE sessions SET holder_pid = $$, holder_host = '$(uname -n)', holder_since = 0
    WHERE name = 's1'"
KWB_NCU="$TMP/bin/ncu" prof --workload w0-b1 --session s1 >/dev/null 2>"$TMP/held.err"
expect_code 0 "$?" "profile --session while another kwb holds the session"
[ "$(sqlite3 "$TMP/ws/kwb.db" "SELECT holder_pid FROM sessions WHERE name = 's1'")" = "$$" ] &&
    pass "the session's holder is left alone" || fail "the holder changed"

# Bad arguments: exit 2 with a message, before anything runs.
bad() {  # WHAT PATTERN ARGS...
    local what=$1 pattern=$2
    shift 2
    KWB_NCU="$TMP/bin/ncu" "$KWB" profile "$@" >/dev/null 2>"$TMP/bad.err"
    expect_code 2 "$?" "$what"
    expect_grep "$pattern" "$TMP/bad.err" "$what: the message"
}
bad "no workload" "--workload are required" --definition "$DEF" --solution "$KERNELS/fast"
bad "unknown workload" "no workload of $DEF matches 'nope'" --definition "$DEF" --dataset "$TMP/ds" \
    --solution "$KERNELS/fast" --workload nope
bad "ambiguous workload" "'w' matches 2 workloads" --definition "$DEF" --dataset "$TMP/ds" \
    --solution "$KERNELS/fast" --workload w
bad "bad device" "--device: not cpu, cuda or cuda:N" --definition "$DEF" --solution "$KERNELS/fast" \
    --workload w0 --device gpu
bad "bad time limit" "--time-limit: 'soon'" --definition "$DEF" --solution "$KERNELS/fast" --workload w0 \
    --time-limit soon
bad "unknown session" "no session 'nope'" --definition "$DEF" --dataset "$TMP/ds" --solution "$KERNELS/fast" \
    --workload w0-b1 --session nope
finish
