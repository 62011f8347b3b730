#!/bin/bash
# tests/gpu/conformance --shipped, the GPU box's check of every shipped reference against its
# definition's PyTorch source (--against torch), run here against the references themselves
# (--against own: no PyTorch on this machine): the workloads are chosen and kwb eval runs each
# reference folder as the candidate; a reference that disagrees is a FAIL with kwb's table.
. "$top_srcdir/tests/lib.sh"
CONF="$top_srcdir/tests/gpu/conformance"
TK=dsa_topk_indexer_fp8_h64_d128_topk2048_ps64

"$CONF" --shipped --against own --count 2 --definitions "$DEF,$TK" >"$TMP/own.out" 2>&1
expect_code 0 "$?" "the shipped cpu references, each against itself"
expect_grep "^PASS $DEF \(cpu reference against own, workloads [0-9a-f]{8}\|[0-9a-f]{8}\)$" "$TMP/own.out" \
    "GDN decode: its two smallest workloads"
expect_grep "^PASS $TK " "$TMP/own.out" "the DSA top-k (its own check and K cache) passes"
expect_grep '^2 passed, 0 failed$' "$TMP/own.out" "two definitions, no others"

# A reference that disagrees with the definition's: the candidate comes from --kernels (a copy
# whose GDN decode reference doubles its output), the definition's own reference from beside it.
mkdir -p "$TMP/ds/definitions/gdn" "$TMP/ds/workloads/gdn" "$TMP/kb"
cp "$top_srcdir/workloads/definitions/gdn/$DEF.json" "$TMP/ds/definitions/gdn/"
cp "$top_srcdir/workloads/workloads/gdn/$DEF.jsonl" "$TMP/ds/workloads/gdn/"
cp -r "$top_srcdir/kernels/$DEF" "$top_srcdir/kernels/include" "$TMP/ds/definitions/gdn/"
cp -r "$top_srcdir/kernels/$DEF" "$top_srcdir/kernels/include" "$TMP/kb/"
sed -i 's/^    gdn_state_out(/    ((uint16_t *)args[ARG_OUTPUT].data)[pair * GDN_D] ^= 0x4000;\n    gdn_state_out(/' \
    "$TMP/kb/$DEF/reference/cpu/reference.c"
cmp -s "$top_srcdir/kernels/$DEF/reference/cpu/reference.c" "$TMP/kb/$DEF/reference/cpu/reference.c" &&
    fail "the planted change did not apply"
"$CONF" --shipped --against own --count 1 --dataset "$TMP/ds" --kernels "$TMP/kb" >"$TMP/bad.out" 2>&1
expect_code 1 "$?" "a reference that disagrees fails"
expect_grep "^FAIL $DEF \(cpu reference against own, workloads [0-9a-f]{8}\): kwb eval exit 1$" "$TMP/bad.out" \
    "named, with kwb's exit"
expect_grep 'INCORRECT_NUMERICAL' "$TMP/bad.out" "kwb's table says why"
expect_grep '^0 passed, 1 failed$' "$TMP/bad.out" "counted"
finish
