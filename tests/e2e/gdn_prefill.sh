#!/bin/bash
# GDN prefill on the cpu device: the shipped workload file loads whole (a bad line would reject
# it) and its smallest workload passes; the plain C baseline passes against the C reference on
# every workload of total_seq_len <= 256 (56 of the 100, their blobs read by the runner);
# kwb dump gives a workload's cu_seqlens exactly as its blob holds it; a candidate that carries
# the state from one sequence into the next is caught. (Every blob's content is checked by
# tests/unit/test_gdn_prefill_reference, the long workloads by tests/gpu on a GPU.)
. "$top_srcdir/tests/lib.sh"

PDEF=gdn_prefill_qk4_v8_d128_k_last
PKERNELS="$top_srcdir/kernels/$PDEF/cpu"
WL="$KWB_DATASET/workloads/gdn/$PDEF.jsonl"

# The default dataset: all 100 lines parse; the 6-token workload runs.
"$KWB" eval --definition $PDEF --solution "$PKERNELS/baseline" --workloads 77daf91d --trials 1 --max-time 0.01 \
    --quiet >"$TMP/one.out" 2>&1
expect_code 0 "$?" "shipped file loads, 77daf91d passes"
expect_grep '^1 workloads: 1 PASSED' "$TMP/one.out" "one row"

# A TraceSet of the short workloads: the definition, their lines, the shipped blobs.
mkdir -p "$TMP/ds/definitions" "$TMP/ds/workloads"
cp "$KWB_DATASET/definitions/gdn/$PDEF.json" "$TMP/ds/definitions/"
ln -s "$KWB_DATASET/blob" "$TMP/ds/blob"
while IFS= read -r line; do
    n=${line#*\"total_seq_len\": }
    n=${n%%,*}
    if [ "$n" -le 256 ]; then printf '%s\n' "$line"; fi
done <"$WL" >"$TMP/ds/workloads/$PDEF.jsonl"
count=$(wc -l <"$TMP/ds/workloads/$PDEF.jsonl")
[ "$count" -eq 56 ] && pass "56 workloads of total_seq_len <= 256" || fail "$count short workloads, wanted 56"

"$KWB" eval --dataset "$TMP/ds" --definition $PDEF --solution "$PKERNELS/baseline" --trials 2 --max-time 0.01 \
    --quiet --json >"$TMP/short.json" 2>"$TMP/short.err"
expect_code 0 "$?" "cpu baseline on the short workloads"
passed=$(grep -c '"status": "PASSED"' "$TMP/short.json")
[ "$passed" -eq 56 ] && pass "56 PASSED" || fail "$passed PASSED of 56"
expect_grep '"num_seqs": 3' "$TMP/short.json" "workloads of up to 3 sequences among them"

# kwb dump: in.cu_seqlens is the blob's tensor, byte for byte. bytes_of FILE NAME: its data in hex.
bytes_of() {
    local n h off
    n=$(od -An -t u8 -N 8 "$1" | tr -d ' ')
    h=$(tail -c +9 "$1" | head -c "$n")
    off=$(printf '%s' "$h" | grep -o "\"$2\":{[^}]*}" | grep -o '"data_offsets":\[[0-9]*,[0-9]*\]' | grep -o '[0-9][0-9]*')
    set -- "$1" $off
    [ $# -eq 3 ] || return 1
    tail -c +$((9 + n + $2)) "$1" | head -c $(($3 - $2)) | od -An -t x1 | tr -d ' \n'
}
uuid=$(grep '"total_seq_len": 959,' "$WL" | head -n 1 | sed 's/.*"uuid": "\([^"]*\)".*/\1/')
"$KWB" dump --definition $PDEF --workloads "$uuid" --out "$TMP/dump" >"$TMP/dump.out" 2>&1
expect_code 0 "$?" "dump of a 959-token workload of 4 sequences"
blob="$KWB_DATASET/blob/workloads/gdn/$PDEF/${PDEF}_$uuid.safetensors"
want=$(bytes_of "$blob" cu_seqlens)
got=$(bytes_of "$TMP/dump/$uuid.safetensors" in.cu_seqlens)
[ ${#want} -eq 80 ] && pass "blob: 5 int64 cu_seqlens" || fail "blob cu_seqlens: '$want'"
[ -n "$got" ] && [ "$got" = "$want" ] && pass "dumped cu_seqlens = blob's" || fail "dumped cu_seqlens '$got', blob '$want'"
[ "$(bytes_of "$TMP/dump/$uuid.safetensors" in.b)" = "$(bytes_of "$blob" b)" ] && pass "dumped b = blob's" ||
    fail "dumped b differs from the blob's"

# A candidate that starts each sequence from the previous one's final state, not its own.
mkdir -p "$TMP/carry"
sed 's/memcpy(new_state + mat, state + mat,/memcpy(new_state + mat, n ? new_state + mat - (size_t)NV * D * D : state + mat,/' \
    "$PKERNELS/baseline/gdn_prefill_baseline.c" >"$TMP/carry/carry.c"
grep -q 'n ? new_state' "$TMP/carry/carry.c" && pass "carry candidate made" || fail "sed did not apply"
sed -e 's/gdn_prefill_baseline\.c/carry.c/g' -e 's/"gdn_prefill_cpu_baseline"/"gdn_prefill_cpu_carry"/' \
    "$PKERNELS/baseline/solution.json" >"$TMP/carry/solution.json"
"$KWB" eval --dataset "$TMP/ds" --definition $PDEF --solution "$TMP/carry" --workloads 2ba465c0 --trials 1 \
    --max-time 0.01 --quiet >"$TMP/carry.out" 2>&1
expect_code 1 "$?" "carrying state across sequences fails"
expect_grep 'INCORRECT_NUMERICAL' "$TMP/carry.out" "as INCORRECT_NUMERICAL"
finish
