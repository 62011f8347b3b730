# tests/lib.sh - helpers for the shell-driven end-to-end tests (sourced, bash).
# The Makefile exports: top_srcdir top_builddir KWB KWB_RUNNER KWB_INCLUDE_DIR KWB_DATASET KWB_CACHE_DIR.
set -u

: "${top_srcdir:?run through make check}"
DEF=gdn_decode_qk4_v8_d128_k_last
KERNELS="$top_srcdir/kernels/$DEF/cpu"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/kwb-test.XXXXXX")
# remove_tmp: TMP removed; again a moment later when a process that was stopping (a workbench
# in a killed tmux saving its state) wrote into it meanwhile.
remove_tmp() {
    rm -rf "$TMP" 2>/dev/null || { sleep 1; rm -rf "$TMP"; }
}
trap remove_tmp EXIT
failures=0

fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

pass() {
    echo "ok: $*"
}

# expect_grep PATTERN FILE WHAT: FILE must match the extended regex PATTERN.
expect_grep() {
    if grep -Eq -- "$1" "$2"; then pass "$3"; else fail "$3 (no /$1/ in $2)"; sed 's/^/    /' "$2" >&2; fi
}

# expect_no_grep PATTERN FILE WHAT: FILE must not match PATTERN.
expect_no_grep() {
    if grep -Eq -- "$1" "$2"; then fail "$3 (/$1/ found in $2)"; sed 's/^/    /' "$2" >&2; else pass "$3"; fi
}

# expect_code WANT GOT WHAT
expect_code() {
    if [ "$1" = "$2" ]; then pass "$3 (exit $2)"; else fail "$3: exit $2, wanted $1"; fi
}

# make_dataset DIR B... : a TraceSet at DIR with the GDN decode definition and one random
# workload per batch size given, uuids "w<index>-b<B>".
make_dataset() {
    local dir=$1 i=0 b
    shift
    mkdir -p "$dir/definitions" "$dir/workloads"
    cp "$top_srcdir/workloads/definitions/gdn/$DEF.json" "$dir/definitions/"
    : >"$dir/workloads/$DEF.jsonl"
    for b in "$@"; do
        printf '{"definition": "%s", "solution": null, "workload": {"uuid": "w%d-b%d", "axes": {"batch_size": %d}, "inputs": {"scale": {"type": "scalar", "value": 0.0}}}, "evaluation": null}\n' \
            "$DEF" "$i" "$b" "$b" >>"$dir/workloads/$DEF.jsonl"
        i=$((i + 1))
    done
}

# make_candidate DIR NAME C-CODE: a C solution whose kwb_entry runs C-CODE (with B the batch
# size and `a` the arguments) and then the baseline's computation.
make_candidate() {
    local dir=$1 name=$2 code=$3
    mkdir -p "$dir"
    sed 's/\bkwb_entry\b/baseline_entry/' "$KERNELS/baseline/gdn_decode_baseline.c" >"$dir/cand.c"
    cat >>"$dir/cand.c" <<C
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int kwb_entry(const kwb_arg *a, int nargs, kwb_stream s)
{
    long long B = a[0].shape[0];
    (void)B;
    int rc = baseline_entry(a, nargs, s);
    $code
    return rc;
}
C
    cat >"$dir/solution.json" <<J
{"name": "$name", "definition": "$DEF", "author": "kwb-tests",
 "spec": {"language": "c", "target_hardware": ["cpu"], "entry_point": "cand.c::kwb_entry",
          "dependencies": [], "destination_passing_style": true, "binding": "kwb"},
 "sources": [{"path": "cand.c"}]}
J
}

# finish: prints the tally and exits non-zero on any failure.
finish() {
    if [ "$failures" -ne 0 ]; then
        echo "$failures check(s) failed"
        exit 1
    fi
    exit 0
}
