#!/bin/bash
# Issue 19 item 7: a bad dataset is the dataset's error, found before any candidate is built or
# run: exit 2 naming the file and line (and the blob and tensor). Sizes that overflow int64,
# absurd memory, every safetensors defect (truncated, not safetensors, missing tensor, wrong
# dtype, wrong shape), cu_seqlens out of range, len_cu_seqlens disagreeing with num_seqs, and a
# definition whose shapes disagree with its reference.
. "$top_srcdir/tests/lib.sh"
PDEF=gdn_prefill_qk4_v8_d128_k_last
PSOL="$top_srcdir/kernels/$PDEF/cpu/baseline"

# st_write FILE NAME DTYPE SHAPE-JSON BYTES(printf escapes) [DATA-LENGTH]: a one-tensor safetensors file
st_write() {
    local file=$1 name=$2 dtype=$3 shape=$4 bytes=$5 n
    n=$(printf "$bytes" | wc -c)
    local header="{\"$name\":{\"dtype\":\"$dtype\",\"shape\":$shape,\"data_offsets\":[0,${6:-$n}]}}"
    local hl=${#header}
    mkdir -p "$(dirname "$file")"
    { printf "$(printf '\\x%02x\\x%02x\\x00\\x00\\x00\\x00\\x00\\x00' $((hl & 255)) $((hl >> 8)))"; printf '%s' "$header"; printf "$bytes"; } >"$file"
}
i64() { local v; for v in "$@"; do printf '\\x%02x\\x00\\x00\\x00\\x00\\x00\\x00\\x00' "$v"; done; }

# prefill: one workload per case, each in its own dataset
prefill() {   # DIR TOTAL NUMSEQS LEN CU-FILE-RELATIVE
    mkdir -p "$1/definitions" "$1/workloads"
    cp "$top_srcdir/workloads/definitions/gdn/$PDEF.json" "$1/definitions/"
    printf '\n{"definition": "%s", "solution": null, "workload": {"uuid": "p1", "axes": {"total_seq_len": %d, "num_seqs": %d, "len_cu_seqlens": %d}, "inputs": {"scale": {"type": "scalar", "value": 0.1}, "cu_seqlens": {"type": "safetensors", "path": "blob/%s", "tensor_key": "cu_seqlens"}}}, "evaluation": null}\n' \
        "$PDEF" "$2" "$3" "$4" "$5" >"$1/workloads/$PDEF.jsonl"
}
# case NAME EXPECTED-REGEX [DATASET [DEF [SOLUTION]]]
case_() {
    "$KWB" eval --dataset "${3:-$TMP/$1}" --definition "${4:-$PDEF}" --solution "${5:-$PSOL}" --trials 1 \
        --max-time 0.02 >"$TMP/$1.out" 2>"$TMP/$1.err"
    expect_code 2 "$?" "$1"
    expect_grep "$2" "$TMP/$1.err" "$1: named"
    expect_no_grep 'built|cached build|RUNTIME_ERROR' "$TMP/$1.err" "$1: no candidate built or run"
}
good="$(i64 0 3 6)"
prefill "$TMP/ok" 6 2 3 cu.safetensors; st_write "$TMP/ok/blob/cu.safetensors" cu_seqlens I64 '[3]' "$good"
"$KWB" eval --dataset "$TMP/ok" --definition "$PDEF" --solution "$PSOL" --trials 1 --max-time 0.02 >"$TMP/ok.out" 2>&1
expect_code 0 "$?" "a good prefill workload with a cu_seqlens blob passes"

prefill "$TMP/range" 6 2 3 cu.safetensors; st_write "$TMP/range/blob/cu.safetensors" cu_seqlens I64 '[3]' "$(i64 0 3 9)"
case_ range "$PDEF.jsonl:2: workload p1: .*cu.safetensors: tensor 'cu_seqlens': cu_seqlens ends at 9, but total_seq_len is 6"
prefill "$TMP/down" 6 2 3 cu.safetensors; st_write "$TMP/down/blob/cu.safetensors" cu_seqlens I64 '[3]' "$(i64 0 5 4)"
case_ down "cu_seqlens\[2\] = 4 is below cu_seqlens\[1\] = 5"
prefill "$TMP/start" 6 2 3 cu.safetensors; st_write "$TMP/start/blob/cu.safetensors" cu_seqlens I64 '[3]' "$(i64 1 3 6)"
case_ start "cu_seqlens\[0\] is 1, not 0"
prefill "$TMP/len" 6 2 4 cu.safetensors; st_write "$TMP/len/blob/cu.safetensors" cu_seqlens I64 '[4]' "$(i64 0 3 6 6)"
case_ len "axis len_cu_seqlens is 4 but num_seqs is 2"
prefill "$TMP/dtype" 6 2 3 cu.safetensors; st_write "$TMP/dtype/blob/cu.safetensors" cu_seqlens I32 '[6]' "$good"
case_ dtype "cu.safetensors: tensor 'cu_seqlens' is int32 \[6\]; input 'cu_seqlens' needs int64 \[3\]"
prefill "$TMP/shape" 6 2 3 cu.safetensors; st_write "$TMP/shape/blob/cu.safetensors" cu_seqlens I64 '[1,3]' "$good"
case_ shape "tensor 'cu_seqlens' is int64 \[1, 3\]; input 'cu_seqlens' needs int64 \[3\]"
prefill "$TMP/key" 6 2 3 cu.safetensors; st_write "$TMP/key/blob/cu.safetensors" other I64 '[3]' "$good"
case_ key "cu.safetensors: no tensor 'cu_seqlens' \(input 'cu_seqlens'\)"
prefill "$TMP/trunc" 6 2 3 cu.safetensors; st_write "$TMP/trunc/blob/cu.safetensors" cu_seqlens I64 '[3]' "$good" 48
case_ trunc "input 'cu_seqlens': .*cu.safetensors"
prefill "$TMP/garbage" 6 2 3 cu.safetensors; mkdir -p "$TMP/garbage/blob"; echo "not safetensors at all" >"$TMP/garbage/blob/cu.safetensors"
case_ garbage "input 'cu_seqlens': .*cu.safetensors"
prefill "$TMP/missing" 6 2 3 nosuch.safetensors
case_ missing "input 'cu_seqlens': .*nosuch.safetensors"

# decode: sizes that overflow int64 and sizes past memory
make_dataset "$TMP/huge" 4611686018427387904
case_ huge "$DEF.jsonl:1: workload w0-b4611686018427387904: input '[a-z]+': its (element count|size in bytes) overflows" \
    "$TMP/huge" "$DEF" "$KERNELS/baseline"
make_dataset "$TMP/big" 68719476736
case_ big "workload w0-b68719476736: its inputs and outputs need [0-9.]+ GiB, more than" "$TMP/big" "$DEF" "$KERNELS/baseline"

# a definition whose shapes disagree with its reference (head_size 64 for a 128 reference)
make_dataset "$TMP/refdef" 2
sed -i 's/"value": 128/"value": 64/' "$TMP/refdef/definitions/$DEF.json"
case_ refdef "$DEF.jsonl:1: workload w0-b2: the reference of .*$DEF.json fails on it, alone, before any candidate ran" \
    "$TMP/refdef" "$DEF" "$KERNELS/baseline"
finish
