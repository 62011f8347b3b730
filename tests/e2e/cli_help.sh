#!/bin/bash
# The CLI helps: an unknown definition lists the known ones and the closest; an unknown option
# suggests the nearest; an option without its value says so; --device cuda on a machine without
# that GPU is one error up front for eval and dump (exit 2, no table, no runner job); every line kwb eval and
# kwb dump write on stderr starts "kwb <command>:".
. "$top_srcdir/tests/lib.sh"

make_dataset "$TMP/ds" 1
"$KWB" eval --dataset "$TMP/ds" --definition gdn_decode_qk4_v8 --solution "$KERNELS/baseline" >"$TMP/u.out" 2>"$TMP/u.err"
expect_code 2 "$?" "unknown definition"
expect_grep "^kwb eval: .*no gdn_decode_qk4_v8.json under definitions/ \(did you mean '$DEF'\?\); known: $DEF\$" \
    "$TMP/u.err" "unknown definition: the closest and the known ones"
"$KWB" eval --dataset "$top_srcdir/tests/fixtures/fib" --definition gemm_n128_k2084 --solution x >"$TMP/u2.out" 2>"$TMP/u2.err"
expect_grep "did you mean 'gemm_n128_k2048'\?\); known: gemm_n128_k2048, rmsnorm_h128, top_k_sampling_from_probs_v129280" \
    "$TMP/u2.err" "unknown definition: a swap of digits is near"
"$KWB" eval --dataset "$TMP/ds" --definition zzzzzzzzzz --solution x >"$TMP/u3.out" 2>"$TMP/u3.err"
expect_no_grep "did you mean" "$TMP/u3.err" "nothing near: no suggestion"

for cmd in eval dump judge profile report; do
    "$KWB" $cmd --definitoin x >"$TMP/o.out" 2>"$TMP/o.err"
    expect_code 2 "$?" "$cmd: unknown option"
    if [ $cmd = report ]; then want=--dataset; typo=--datset; else want=--definition; typo=--definitoin; fi
    "$KWB" $cmd $typo x >"$TMP/o.out" 2>"$TMP/o.err"
    expect_grep "^kwb $cmd: unknown option '$typo' \(did you mean '$want'\?\)" "$TMP/o.err" "$cmd: nearest option suggested"
done
"$KWB" eval --bogus-flag >"$TMP/b.out" 2>"$TMP/b.err"
expect_grep "^kwb eval: unknown option '--bogus-flag'\$" "$TMP/b.err" "nothing near: the option alone"
"$KWB" eval --definition >"$TMP/v.out" 2>"$TMP/v.err"
expect_grep "^kwb eval: --definition needs a value" "$TMP/v.err" "a missing value is named"

# A GPU the runner does not see: one error, exit 2, before any workload runs.
"$KWB" eval --dataset "$TMP/ds" --definition "$DEF" --solution "$KERNELS/baseline" --device cuda:63 --trials 1 \
    >"$TMP/g.out" 2>"$TMP/g.err"
expect_code 2 "$?" "--device cuda:63"
expect_grep "^kwb eval: --device cuda:63: no usable GPU of that name: the runner sees cpu" "$TMP/g.err" "no GPU: said once"
[ ! -s "$TMP/g.out" ] && pass "no GPU: no table of RUNTIME_ERROR rows" || fail "no GPU: printed $(head -3 "$TMP/g.out")"
[ "$(grep -c 'no usable GPU' "$TMP/g.err")" = 1 ] && pass "no GPU: one line" || fail "no GPU: $(cat "$TMP/g.err")"
"$KWB" dump --dataset "$TMP/ds" --definition "$DEF" --device cuda:63 --out "$TMP/gd" >"$TMP/gd.out" 2>"$TMP/gd.err"
expect_code 2 "$?" "kwb dump --device cuda:63"
expect_grep "^kwb dump: --device cuda:63: no usable GPU of that name" "$TMP/gd.err" "dump, no GPU: said once, up front"
expect_no_grep "not dumped" "$TMP/gd.err" "dump, no GPU: not once per workload"

# Every stderr line of an eval (build, scan, results) and of a dump is kwb's with its command.
"$KWB" eval --dataset "$TMP/ds" --definition "$DEF" --solution "$KERNELS/baseline" --trials 1 --max-time 0.01 \
    >"$TMP/e.out" 2>"$TMP/e.err"
expect_code 0 "$?" "a plain eval"
expect_no_grep '^(kwb:|[^k])' "$TMP/e.err" "eval: every stderr line starts 'kwb eval:'"
"$KWB" dump --dataset "$TMP/ds" --definition "$DEF" --out "$TMP/d" >"$TMP/d.out" 2>"$TMP/d.err"
expect_no_grep '^(kwb:|[^k])' "$TMP/d.err" "dump: every stderr line starts 'kwb dump:'"
finish
