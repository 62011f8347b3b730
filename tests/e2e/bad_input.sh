#!/bin/bash
# Malformed definition, workload line, solution.json and options: one line naming the
# file and line, exit 2, and nothing evaluated.
. "$top_srcdir/tests/lib.sh"

# expect_one_line_error FILE REGEX WHAT: FILE holds exactly one line, matching REGEX.
expect_one_line_error() {
    if [ "$(wc -l <"$1")" -eq 1 ] && grep -Eq -- "$2" "$1"; then pass "$3"; else
        fail "$3"
        sed 's/^/    /' "$1" >&2
    fi
}

run() { # OUT-NAME ARGS...
    local name=$1
    shift
    "$KWB" eval --quiet "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
    echo $?
}

# Definition: an unknown dtype on input 'k' (line 4 of this file).
make_dataset "$TMP/d1" 1
cat >"$TMP/d1/definitions/$DEF.json" <<J
{"name": "$DEF", "op_type": "gdn",
 "axes": {"batch_size": {"type": "var"}, "n": {"type": "const", "value": 4}},
 "inputs": {"q": {"shape": ["batch_size", "n"], "dtype": "bfloat16"},
            "k": {"shape": ["batch_size", "n"], "dtype": "bfloat17"}},
 "outputs": {"o": {"shape": ["batch_size"], "dtype": "float32"}}}
J
code=$(run d1 --dataset "$TMP/d1" --definition "$DEF" --solution "$KERNELS/fast")
expect_code 2 "$code" "bad definition: exit 2"
expect_one_line_error "$TMP/d1.err" "^kwb eval: .*/definitions/$DEF.json:4: 'k': unknown dtype 'bfloat17'\$" "bad definition: file, line, problem"
[ -s "$TMP/d1.out" ] && fail "bad definition: printed a table" || pass "bad definition: nothing evaluated"

# Definition: not JSON at all (jansson's line).
make_dataset "$TMP/d2" 1
printf '{\n  "name": "x",\n  "axes": {,\n}\n' >"$TMP/d2/definitions/$DEF.json"
code=$(run d2 --dataset "$TMP/d2" --definition "$DEF" --solution "$KERNELS/fast")
expect_code 2 "$code" "invalid JSON definition: exit 2"
expect_one_line_error "$TMP/d2.err" "$DEF.json:3: invalid JSON" "invalid JSON definition: line 3"

# Workload: line 3 names an axis the definition lacks; nothing from the file is used.
make_dataset "$TMP/w1" 1 2 4 8
sed -i '3s/"batch_size": 4/"batch_size": 4, "heads": 2/' "$TMP/w1/workloads/$DEF.jsonl"
code=$(run w1 --dataset "$TMP/w1" --definition "$DEF" --solution "$KERNELS/fast")
expect_code 2 "$code" "bad workload line: exit 2"
expect_one_line_error "$TMP/w1.err" "workloads/$DEF.jsonl:3: axis 'heads' is not an axis of $DEF\$" "bad workload line: file, line, problem"
[ -s "$TMP/w1.out" ] && fail "bad workload line: evaluated the good lines" || pass "bad workload line: nothing evaluated"

# Workload: a truncated JSON line 2.
make_dataset "$TMP/w2" 1 2
sed -i '2s/}$//' "$TMP/w2/workloads/$DEF.jsonl"
code=$(run w2 --dataset "$TMP/w2" --definition "$DEF" --solution "$KERNELS/fast")
expect_code 2 "$code" "truncated workload line: exit 2"
expect_one_line_error "$TMP/w2.err" "workloads/$DEF.jsonl:2: invalid JSON" "truncated workload line: line 2"

# solution.json: binding other than kwb, on line 4.
mkdir -p "$TMP/s1"
cp "$KERNELS/fast/gdn_decode_fast.c" "$TMP/s1/"
cat >"$TMP/s1/solution.json" <<J
{"name": "s1", "definition": "$DEF", "author": "t",
 "spec": {"language": "c",
          "entry_point": "gdn_decode_fast.c::kwb_entry",
          "binding": "tvm-ffi"},
 "sources": [{"path": "gdn_decode_fast.c"}]}
J
code=$(run s1 --definition "$DEF" --solution "$TMP/s1")
expect_code 2 "$code" "bad solution.json: exit 2"
expect_one_line_error "$TMP/s1.err" "$TMP/s1/solution.json:4: 'spec.binding' is \"tvm-ffi\"" "bad solution.json: file, line, problem"

# solution.json: a source file that is not there.
mkdir -p "$TMP/s2"
sed 's/gdn_decode_fast.c"}/missing.c"}/; s/"binding": "tvm-ffi"/"binding": "kwb"/; s/gdn_decode_fast.c::/missing.c::/' "$TMP/s1/solution.json" >"$TMP/s2/solution.json"
code=$(run s2 --definition "$DEF" --solution "$TMP/s2")
expect_code 2 "$code" "missing source: exit 2"
expect_one_line_error "$TMP/s2.err" "solution.json:5: source 'missing.c': cannot read" "missing source: named"

# A solution for another definition.
mkdir -p "$TMP/s3"
sed "s/\"definition\": \"$DEF\"/\"definition\": \"other_def\"/" "$KERNELS/fast/solution.json" >"$TMP/s3/solution.json"
cp "$KERNELS/fast/gdn_decode_fast.c" "$TMP/s3/"
code=$(run s3 --definition "$DEF" --solution "$TMP/s3")
expect_code 2 "$code" "solution for another definition: exit 2"
expect_one_line_error "$TMP/s3.err" "solution is for 'other_def', not '$DEF'" "solution for another definition: said"

# Usage errors.
code=$(run u1 --definition "$DEF")
expect_code 2 "$code" "missing --solution: exit 2"
code=$(run u2 --definition "$DEF" --solution "$KERNELS/fast" --trials zero)
expect_code 2 "$code" "bad --trials: exit 2"
expect_grep "'zero' is not a number" "$TMP/u2.err" "bad --trials: said"
code=$(run u3 --definition no_such_definition --solution "$KERNELS/fast")
expect_code 2 "$code" "unknown definition: exit 2"
expect_grep "no no_such_definition.json under definitions/" "$TMP/u3.err" "unknown definition: said"
code=$(run u4 --definition "$DEF" --solution "$KERNELS/fast" --workloads batch_size=3)
expect_code 2 "$code" "filter matching nothing: exit 2"
code=$(run u6 --definition "$DEF" --solution "$KERNELS/fast" --graph 2.5)
expect_code 2 "$code" "fractional --graph: exit 2"
expect_grep "not a whole number of calls from 1 to 1000" "$TMP/u6.err" "fractional --graph: said"
code=$(run u7 --definition "$DEF" --solution "$KERNELS/fast" --graph 0)
expect_code 2 "$code" "--graph 0: exit 2"
code=$(run u8 --definition "$DEF" --solution "$KERNELS/fast" --min-time -1)
expect_code 2 "$code" "negative --min-time: exit 2"
"$KWB" frobnicate >/dev/null 2>"$TMP/u5.err"
expect_code 2 "$?" "unknown command: exit 2"

# --traces to an unwritable place: exit 2 and no partial file.
code=$(run t1 --definition "$DEF" --solution "$KERNELS/fast" --workloads 901e5104 --trials 1 --max-time 0.01 --traces "$TMP/nodir/t.jsonl")
expect_code 2 "$code" "unwritable traces: exit 2"
[ -e "$TMP/nodir" ] && fail "unwritable traces: left something" || pass "unwritable traces: nothing half-written"
finish
