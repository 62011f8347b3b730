#!/bin/bash
# --devices spreads workloads over several runners (one per device, each in its own thread
# of kwb) and merges the results in workload order; the GPU checks skip with their reason
# where no GPU is present.
. "$top_srcdir/tests/lib.sh"

make_dataset "$TMP/ds" 1 2 4 1 2
"$KWB" eval --dataset "$TMP/ds" --definition "$DEF" --solution "$KERNELS/fast" --devices cpu,cpu,cpu --trials 1 \
    --max-time 0.01 --quiet >"$TMP/three.out" 2>"$TMP/three.err"
expect_code 0 "$?" "three runners: all PASSED"
awk 'NR > 1 && NF > 3 { print $1 }' "$TMP/three.out" | head -5 | tr '\n' ' ' >"$TMP/order"
expect_grep '^w0-b1 w1-b2 w2-b4 w3-b1 w4-b2 $' "$TMP/order" "results in workload order"
expect_grep '^5 workloads: 5 PASSED' "$TMP/three.out" "every workload once"

"$KWB" eval --dataset "$TMP/ds" --definition "$DEF" --solution "$KERNELS/fast" --devices cpu,nosuchdevice \
    --trials 1 --max-time 0.01 --quiet >"$TMP/bad.out" 2>&1
expect_code 1 "$?" "an unknown device fails its share"
expect_grep "unknown device 'nosuchdevice'" "$TMP/bad.out" "and says why"
expect_grep '^w0-b1 .* PASSED' "$TMP/bad.out" "the other device's share still ran"

# tests/gpu/run-all with this build: on a machine without a GPU it skips, saying why.
PATH="$top_builddir/src:$PATH" KWB="$KWB" KWB_RUNNER_BIN="$KWB_RUNNER" bash "$top_srcdir/tests/gpu/run-all" >"$TMP/gpu.out" 2>&1
if grep -q '^SKIP: no GPU' "$TMP/gpu.out"; then
    cat "$TMP/gpu.out"
    [ "$failures" -eq 0 ] || finish
    exit 77
fi
expect_grep ' 0 failed$' "$TMP/gpu.out" "GPU checks pass"
finish
