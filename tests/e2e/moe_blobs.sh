#!/bin/bash
# The MoE routing blobs: scripts/gen_moe_routing, run on a copy of the definition and the
# contest's workload file, writes the very bytes shipped under workloads/blob/ (so the rule in
# workloads/README.md is what made them), says what each workload's routing gives its rank, and
# refuses a dataset without the definition.
. "$top_srcdir/tests/lib.sh"

MOE=moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048
GEN="$top_builddir/scripts/gen_moe_routing"
mkdir -p "$TMP/ds/definitions" "$TMP/ds/workloads"
cp "$top_srcdir/workloads/definitions/moe/$MOE.json" "$TMP/ds/definitions/"
cp "$top_srcdir/workloads/workloads/moe/$MOE.jsonl" "$TMP/ds/workloads/"

"$GEN" "$TMP/ds" >"$TMP/gen.out" 2>"$TMP/gen.err"
expect_code 0 "$?" "gen_moe_routing"
[ "$(wc -l <"$TMP/gen.out")" -eq 19 ] && pass "a line per workload" || fail "$(wc -l <"$TMP/gen.out") lines, wanted 19"
expect_grep '^e05c6c03  seq_len=1 .* local_pairs=[1-9]' "$TMP/gen.out" "seq_len 1 routes its token to the rank"
expect_grep '^5e8dc11c  seq_len=14107 .* active_experts=32 ' "$TMP/gen.out" "seq_len 14107 reaches all local experts"
expect_no_grep 'local_pairs=0 ' "$TMP/gen.out" "no workload leaves its rank idle"

same=0
for f in "$top_srcdir"/workloads/blob/workloads/moe/$MOE/*.safetensors; do
    if cmp -s "$f" "$TMP/ds/blob/workloads/moe/$MOE/$(basename "$f")"; then
        same=$((same + 1))
    else
        fail "$(basename "$f") differs from the generator's"
    fi
done
[ "$same" -eq 19 ] && pass "the 19 shipped blobs are the generator's, byte for byte" || fail "$same of 19 blobs equal"

"$GEN" "$TMP/none" >/dev/null 2>"$TMP/none.err"
expect_code 1 "$?" "no definition"
expect_grep "^gen_moe_routing: .*$MOE" "$TMP/none.err" "the error names the definition"
"$GEN" >/dev/null 2>"$TMP/usage.err"
expect_code 2 "$?" "usage"

finish
