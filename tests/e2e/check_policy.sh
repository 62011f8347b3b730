#!/bin/bash
# kwb eval's check policy: FlashInfer-Bench's defaults, then the definition's "kwb": {"check": ...}
# (the contest's per-definition settings), then --atol, --rtol and --matched-ratio. A candidate
# that gets one output element of 1024 wrong fails the defaults, passes under a definition that
# asks for a matched ratio of 0.99 or an atol of 10, and fails again when the user tightens it.
. "$top_srcdir/tests/lib.sh"

make_dataset "$TMP/plain" 1
make_candidate "$TMP/one" one_wrong '{ uint16_t *o = a[9].data; o[7] ^= 0x0040; }'

# with_check DIR JSON: a copy of the plain dataset whose definition carries "check": JSON.
with_check() {
    cp -r "$TMP/plain" "$1"
    sed -i "s|^  \"kwb\": {|  \"kwb\": {\"check\": $2,|" "$1/definitions/$DEF.json"
}
with_check "$TMP/ratio" '{"matched_ratio": 0.99}'
with_check "$TMP/atol" '{"atol": 10, "rtol": 0}'

# run NAME DATASET [OPTION...]: kwb eval of the candidate; output in $TMP/NAME.out, exit code echoed.
run() {
    local name=$1 ds=$2
    shift 2
    "$KWB" eval --definition "$DEF" --dataset "$ds" --solution "$TMP/one" --trials 1 --max-time 0.05 --quiet "$@" \
        >"$TMP/$name.out" 2>&1
    echo $?
}

expect_code 1 "$(run plain "$TMP/plain")" "defaults: atol = rtol = 1e-2, every element"
expect_grep 'INCORRECT_NUMERICAL' "$TMP/plain.out" "defaults: one element fails the workload"
expect_grep 'atol 0.01 / rtol 0.01 .*matched ratio 0.999023 < 1' "$TMP/plain.out" "defaults: named in the message"
expect_code 0 "$(run ratio "$TMP/ratio")" "definition's matched ratio 0.99"
expect_grep ' PASSED ' "$TMP/ratio.out" "definition's ratio: PASSED"
expect_code 1 "$(run ratio1 "$TMP/ratio" --matched-ratio 1)" "--matched-ratio 1 overrides the definition"
expect_grep 'matched ratio 0.999023 < 1' "$TMP/ratio1.out" "--matched-ratio 1: named in the message"
expect_code 0 "$(run atol "$TMP/atol")" "definition's atol 10"
expect_code 1 "$(run atol1 "$TMP/atol" --atol 0.001)" "--atol overrides the definition"
expect_grep 'atol 0.001 / rtol 0 ' "$TMP/atol1.out" "--atol 0.001 with the definition's rtol 0"

"$KWB" eval --definition "$DEF" --dataset "$TMP/plain" --solution "$TMP/one" --matched-ratio 1.5 >"$TMP/bad.out" 2>&1
expect_code 2 "$?" "--matched-ratio 1.5 refused"
expect_grep 'not a ratio from 0 to 1' "$TMP/bad.out" "--matched-ratio 1.5: why"
"$KWB" eval --definition "$DEF" --dataset "$TMP/plain" --solution "$TMP/one" --atol -1 >"$TMP/bad.out" 2>&1
expect_code 2 "$?" "--atol -1 refused"
finish
