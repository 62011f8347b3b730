#!/bin/bash
# kwb's traces as FlashInfer-Bench reads them: flashinfer-bench (PyPI, in a venv this test makes,
# kept under ~/.cache/kwb-tests) loads the traces of a passing and of a NaN-writing candidate
# with its Trace and TraceSet models: the solution's name, NaN error maxima, the mean latency,
# the device's name and the libraries; its `report summary` counts them as it counts the same
# traces written by its own serializer. Where torch cannot be imported (CI: PyPI's wheel pulls
# gigabytes of CUDA libraries), flashinfer-bench's imports of torch and its kin get
# import-only placeholders (tests/fib/placeholder.py); none of that code runs here.
. "$top_srcdir/tests/lib.sh"

FIB_VERSION=0.1.2
VENV="${KWB_TEST_CACHE:-${HOME:-/tmp}/.cache/kwb-tests}/fib-$FIB_VERSION"
py="$VENV/bin/python"
if ! "$py" -c 'import flashinfer_bench.data, pydantic, filelock, docstring_parser' 2>/dev/null &&
    ! KWB_FIB_PLACEHOLDERS=1 PYTHONPATH="$top_srcdir/tests/fib" "$py" -c 'import placeholder, flashinfer_bench.data' 2>/dev/null; then
    rm -rf "$VENV"
    mkdir -p "$(dirname "$VENV")"
    sys_site=
    python3 -c 'import torch' 2>/dev/null && sys_site=--system-site-packages
    python3 -m venv $sys_site "$VENV" >"$TMP/venv.log" 2>&1 &&
        "$VENV/bin/pip" install -q --no-deps "flashinfer-bench==$FIB_VERSION" >>"$TMP/venv.log" 2>&1 &&
        "$VENV/bin/pip" install -q pydantic filelock docstring-parser >>"$TMP/venv.log" 2>&1 ||
        { cat "$TMP/venv.log" >&2; fail "cannot make the flashinfer-bench venv"; rm -rf "$VENV"; finish; }
fi
if "$py" -c 'import torch' 2>/dev/null; then
    pass "flashinfer-bench $FIB_VERSION with torch"
else
    export KWB_FIB_PLACEHOLDERS=1
    pass "flashinfer-bench $FIB_VERSION, torch imports as a placeholder"
fi

make_dataset "$TMP/ts" 1 2
make_candidate "$TMP/nan" nan_writer '{ unsigned short *p = a[nargs - 2].data; p[0] = 0x7fc0; /* a bf16 NaN */ }'
name=$(sed -n 's/.*"name": *"\([^"]*\)".*/\1/p' "$KERNELS/baseline/solution.json" | head -n 1)
mkdir -p "$TMP/ts/traces/kwb/gdn"
"$KWB" eval --dataset "$TMP/ts" --definition "$DEF" --solution "$KERNELS/baseline" --trials 1 --max-time 0.01 \
    --quiet --json --traces "$TMP/ts/traces/kwb/gdn/pass.jsonl" >"$TMP/pass.json" 2>"$TMP/pass.err"
expect_code 0 "$?" "passing candidate"
"$KWB" eval --dataset "$TMP/ts" --definition "$DEF" --solution "$TMP/nan" --trials 1 --max-time 0.01 \
    --quiet --traces "$TMP/ts/traces/kwb/gdn/nan.jsonl" >"$TMP/nan.out" 2>"$TMP/nan.err"
expect_code 1 "$?" "NaN-writing candidate"
hw=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo | head -n 1)
[ -n "$hw" ] || hw=cpu

"$py" "$top_srcdir/tests/fib/check_traces.py" "$TMP/ts" "$TMP/pass.json" "$name" nan_writer "$hw" >"$TMP/check.out" 2>&1
expect_code 0 "$?" "flashinfer-bench's models read kwb's traces"
sed 's/^/    /' "$TMP/check.out"

"$py" "$top_srcdir/tests/fib/rewrite_traces.py" "$TMP/ts" "$TMP/fib" >"$TMP/rw.out" 2>&1
expect_code 0 "$?" "the same traces written by flashinfer-bench's serializer" || cat "$TMP/rw.out" >&2
"$py" "$top_srcdir/tests/fib/summary.py" "$TMP/ts" >"$TMP/sum.kwb" 2>&1
expect_code 0 "$?" "report summary on kwb's traces"
"$py" "$top_srcdir/tests/fib/summary.py" "$TMP/fib" >"$TMP/sum.fib" 2>&1
expect_code 0 "$?" "report summary on flashinfer-bench's own"
expect_grep "'total': 4, 'passed': 2, 'failed': 2" "$TMP/sum.kwb" "report summary counts kwb's traces"
sed -i 's/^\[[0-9:]*\] //' "$TMP/sum.kwb" "$TMP/sum.fib"  # the log's clock
cmp -s "$TMP/sum.kwb" "$TMP/sum.fib" && pass "report summary: the same as for its own traces" ||
    { fail "report summary differs"; diff "$TMP/sum.kwb" "$TMP/sum.fib" >&2; }
finish
