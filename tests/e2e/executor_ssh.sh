#!/bin/bash
# --executor ssh: workers reached through a real sshd on localhost (its own port, host key and
# user key, made here). The table and the traces match a local run's (a crash and a hang
# included); files=ship sends the job's files to a cache on the worker's host; a worker killed mid-sweep and a worker that falls silent cost only their workloads
# in flight, dealt again to the other worker; nothing is left running.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/executor_lib.sh"
need sshd ssh ssh-keygen python3

start_sshd
SSH="ssh=ssh -F $TMP/ssh/config,runner=$RUNNER"

like_local ssh --executor "ssh:kwbtest,kwbtest,$SSH"
expect_grep 'worker 1 up on .* \(kwbtest\)' "$TMP/ssh.err" "each worker says where it is"
expect_grep 'worker 2 up on .* \(kwbtest\)' "$TMP/ssh.err" "both workers"

# Each result names its worker (--json); kwb judge passes --executor to its kwb eval children.
"$KWB" eval --dataset "$TMP/ds" --definition "$DEF" --solution "$KERNELS/fast" --trials 1 --max-time 0.01 --scan off \
    --quiet --json --executor "ssh:kwbtest,$SSH" >"$TMP/json.out" 2>"$TMP/json.err"
expect_code 0 "$?" "--json over ssh"
expect_grep '"worker": *"[^"]+: cpu"' "$TMP/json.out" "each result records its worker's host and device"
export KWB_WORKSPACE="$TMP/ws"
"$KWB" init "$TMP/ws" >/dev/null 2>&1 || fail "init"
"$KWB" eval --dataset "$TMP/ds" --definition "$DEF" --solution "$KERNELS/baseline" --trials 1 --max-time 0.01 \
    --scan off --quiet --session j --name base >/dev/null 2>&1 || fail "the session's first eval"
"$KWB" judge --session j --solution "$KERNELS/fast" --name c1 --dataset "$TMP/ds" --max-time 0.01 \
    --executor "ssh:kwbtest,$SSH" >"$TMP/judge.out" 2>"$TMP/judge.err"
expect_code 0 "$?" "kwb judge --executor ssh"
expect_grep 'worker 1 up on .* \(kwbtest\)' "$TMP/judge.err" "its evals ran on the ssh worker"
"$KWB" eval --dataset "$TMP/ds" --definition "$DEF" --solution "$KERNELS/fast" --executor "ssh:" >"$TMP/bad.out" 2>&1
expect_code 2 "$?" "an executor without hosts"
expect_grep '^kwb eval: --executor ssh:: no host' "$TMP/bad.out" "is refused, saying why"
KWB_EXECUTOR=slurm:workers=0 "$KWB" eval --dataset "$TMP/ds" --definition "$DEF" --solution "$KERNELS/fast" >"$TMP/bad.out" 2>&1
expect_code 2 "$?" "a bad \$KWB_EXECUTOR"
expect_grep "^kwb eval: \\\$KWB_EXECUTOR: --executor slurm:workers=0: workers='0' is not a whole number" "$TMP/bad.out" "is refused, naming it"

# files=ship: the library, the reference's library, the definition and the workloads' blobs go
# through the channel into a cache on the worker's host (by SHA-256), sent once; the worker runs
# the copies.
shipc="$TMP/shipped"
ship_eval() {
    "$KWB" eval --definition "$2" --solution "$3" --workloads "$4" --trials 1 --max-time 0.01 --scan off --quiet \
        --executor "ssh:kwbtest,$SSH,files=ship,ship_cache=$shipc" >"$TMP/$1.out" 2>"$TMP/$1.err"
}
PDEF=gdn_prefill_qk4_v8_d128_k_last
ship_eval ship1 "$PDEF" "$top_srcdir/kernels/$PDEF/cpu/baseline" 77daf91d
expect_code 0 "$?" "files=ship: a workload with a blob input passes"
expect_grep 'files=ship: 4 of 4 file\(s\) sent' "$TMP/ship1.err" "the definition, the libraries and the blob sent"
refso=$(dirname "$(grep -l "kwb_ref_$PDEF" "${KWB_CACHE_DIR:-$HOME/.cache/kwb}"/builds/*/src/reference.c | head -1)")/../lib.so
[ -f "$shipc/files/$(sha256sum <"$refso" | cut -d' ' -f1)/lib.so" ] && pass "the reference's library shipped too" ||
    fail "the reference's library ($refso) is not in $shipc/files"
lib=$(ls "$shipc"/files/*/lib.so | head -1)
[ -n "$lib" ] && [ "$(sha256sum <"$lib" | cut -d' ' -f1)" = "$(basename "$(dirname "$lib")")" ] &&
    pass "stored under their SHA-256" || fail "no lib.so under its SHA-256 in $shipc/files"
ls "$shipc"/roots/*/blob/workloads/gdn/$PDEF/*.safetensors >/dev/null 2>&1 && pass "the blob at its place under a root" ||
    fail "no blob under $shipc/roots"
ship_eval ship2 "$PDEF" "$top_srcdir/kernels/$PDEF/cpu/baseline" 77daf91d
expect_grep 'files=ship: 0 of 4 file\(s\) sent' "$TMP/ship2.err" "the second time nothing is sent: the host's cache has it"
echo corrupted >"$lib"
ship_eval ship3 "$PDEF" "$top_srcdir/kernels/$PDEF/cpu/baseline" 77daf91d
expect_code 1 "$?" "a corrupted copy in the worker's cache"
expect_grep "cannot load: $shipc/files/[0-9a-f]{64}/lib.so" "$TMP/ship3.out" "fails to load there: the worker runs the shipped copy"

# A worker's relay killed mid-sweep, then one stopped (silent): its workloads are dealt again.
signal_mid_sweep killed KILL --executor "ssh:kwbtest,kwbtest,$SSH"
expect_grep 'lost: the link to the worker broke.*dealt again' "$TMP/killed.err" "the lost worker's workloads were dealt again"
signal_mid_sweep silent STOP --executor "ssh:kwbtest,kwbtest,$SSH,silence=8"
expect_grep 'lost: no word from the worker for 8 s.*dealt again' "$TMP/silent.err" "killed after the silence limit, its workloads dealt again"
[ -n "$SIGNALLED" ] && kill -9 "$SIGNALLED" 2>/dev/null
expect_no_relays

stop_daemons
expect_no_daemons
finish
