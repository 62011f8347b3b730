#!/bin/bash
# The shipped demo: the fast CPU solution against the plain baseline on contest GDN decode
# workloads passes everywhere, and the table, JSON and traces say so. (Speed is measured by
# bench/cpu-demo, not asserted here: a timed test would fail on a slow day.)
. "$top_srcdir/tests/lib.sh"

# One workload per contest batch size keeps the suite quick on two cores.
filter_uuids="901e5104 ec9d2340 2640f1e3 76eec66d a8c8beff 53385c7f eaf0a285"
for u in $filter_uuids; do
    "$KWB" eval --definition "$DEF" --solution "$KERNELS/fast" --baseline "$KERNELS/baseline" --workloads "$u" \
        --trials 2 --max-time 0.05 --quiet --json >"$TMP/$u.json" 2>"$TMP/$u.err"
    code=$?
    expect_code 0 "$code" "demo $u: all PASSED"
    expect_grep '"status": "PASSED"' "$TMP/$u.json" "demo $u: JSON status"
    expect_grep '"speedup": [0-9]' "$TMP/$u.json" "demo $u: a speedup against the baseline"
done

# The default dataset is the shipped workloads/ (54 contest workloads) and the table has a row each.
"$KWB" eval --definition "$DEF" --solution "$KERNELS/fast" --workloads batch_size=1 --trials 1 --max-time 0.01 \
    --quiet --traces "$TMP/t.jsonl" >"$TMP/table.out" 2>"$TMP/table.err"
expect_code 0 "$?" "demo batch_size=1: exit 0"
expect_grep '^10 workloads: 10 PASSED; mean latency [0-9.]+ ms; speedup vs reference' "$TMP/table.out" "table summary"
[ "$(grep -c 'batch_size=1 ' "$TMP/table.out")" -eq 10 ] && pass "ten rows" || fail "ten rows"
[ "$(wc -l <"$TMP/t.jsonl")" -eq 10 ] && pass "ten trace lines" || fail "ten trace lines"
expect_grep '"definition": ?"gdn_decode_qk4_v8_d128_k_last".*"evaluation": ?\{"status": ?"PASSED"' "$TMP/t.jsonl" "trace shape"

# Graph replay (on the cpu: calls back to back, time per call) and the cost model's figures.
"$KWB" eval --definition "$DEF" --solution "$KERNELS/fast" --workloads 901e5104 --trials 1 --max-time 0.05 \
    --graph 4 --quiet --json >"$TMP/graph.json" 2>"$TMP/graph.err"
expect_code 0 "$?" "--graph 4: PASSED"
expect_grep '"timer": "clock_gettime/graph4"' "$TMP/graph.json" "--graph 4: the row says it was a replay of 4 calls"
expect_grep '"gbps": [0-9]' "$TMP/graph.json" "cost model: bandwidth"
expect_grep '"tflops": [0-9]' "$TMP/graph.json" "cost model: FLOP rate"

# The baseline passes on its own too.
"$KWB" eval --definition "$DEF" --solution "$KERNELS/baseline" --workloads batch_size=4 --trials 1 --max-time 0.01 \
    --quiet >"$TMP/base.out" 2>&1
expect_code 0 "$?" "baseline batch_size=4 passes"
finish
