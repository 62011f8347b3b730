#!/bin/bash
# --executor ssh: workers reached through a real sshd on localhost (its own port, host key and
# user key, made here). The table and the traces match a local run's (a crash and a hang
# included); a worker killed mid-sweep and a worker that falls silent cost only their workloads
# in flight, dealt again to the other worker; nothing is left running.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/executor_lib.sh"
need sshd ssh ssh-keygen python3

t0=$(date +%s.%N)
start_sshd
echo "sshd up in $(python3 -c "print(round($(date +%s.%N) - $t0, 2))") s"
SSH="ssh=ssh -F $TMP/ssh/config"

# A candidate that crashes on batch 2, hangs on batch 4 (its pid in a file) and passes elsewhere.
make_dataset "$TMP/ds" 1 2 3 4 1 3
make_candidate "$TMP/mixed" mixed "if (B == 2) raise(SIGSEGV);
    if (B == 4) { FILE *f = fopen(\"$TMP/hang.pid\", \"w\"); fprintf(f, \"%d\\n\", getpid()); fclose(f); for (;;) sleep(1); }"
sed -i '1i #include <signal.h>' "$TMP/mixed/cand.c"
run_mixed() {
    "$KWB" eval --dataset "$TMP/ds" --definition "$DEF" --solution "$TMP/mixed" --trials 1 --max-time 0.01 \
        --timeout 4 --scan off --quiet --traces "$TMP/$1.traces" "${@:2}" >"$TMP/$1.out" 2>"$TMP/$1.err"
}
run_mixed local --devices cpu,cpu
expect_code 1 "$?" "local run: some workloads fail"
run_mixed ssh --executor "ssh:kwbtest,kwbtest,$SSH"
expect_code 1 "$?" "ssh run: the same"
expect_grep '^w1-b2 .*RUNTIME_ERROR' "$TMP/ssh.out" "a crash over ssh is the workload's RUNTIME_ERROR"
expect_grep 'w3-b4 .*TIMEOUT' "$TMP/ssh.out" "a hang over ssh is the workload's TIMEOUT"
expect_same_as_local "$TMP/ssh.out" "$TMP/local.out" table "the table matches the local run's (uuid, axes, status, in order)"
expect_same_as_local "$TMP/ssh.traces" "$TMP/local.traces" traces "the traces match the local run's"
expect_grep 'worker 1 up on .* \(kwbtest\)' "$TMP/ssh.err" "each worker says where it is"
expect_grep 'worker 2 up on .* \(kwbtest\)' "$TMP/ssh.err" "both workers"
sleep 1
if kill -0 "$(cat "$TMP/hang.pid")" 2>/dev/null; then fail "the hung candidate still runs after its TIMEOUT"; else
    pass "the hung candidate was killed on the worker"
fi

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

# Kills mid-sweep: a slow candidate, two workers; one relay killed, then one stopped (silent).
make_dataset "$TMP/ds8" 1 2 3 4 1 2 3 4
make_candidate "$TMP/slow" slow 'usleep(50000);'
sweep() {
    "$KWB" eval --dataset "$TMP/ds8" --definition "$DEF" --solution "$TMP/slow" --trials 1 --max-time 0.01 \
        --scan off --quiet --executor "ssh:kwbtest,kwbtest,$SSH,$2" >"$TMP/$1.out" 2>"$TMP/$1.err"
}
sweep killed silence=60 &
sweep_pid=$!
wait_for 'worker 2 up|worker 1 up' "$TMP/killed.err"
sleep 1
victim=$(relay_pids | head -1)
[ -n "$victim" ] && kill -9 "$victim"
wait "$sweep_pid"
expect_code 0 "$?" "a worker killed mid-sweep: the sweep still passes"
expect_grep '^8 workloads: 8 PASSED' "$TMP/killed.out" "every workload once"
expect_grep 'lost: the link to the worker broke.*dealt again' "$TMP/killed.err" "the lost worker's workloads were dealt again"
awk 'NF > 3 && /^w/ {print $1}' "$TMP/killed.out" | tr '\n' ' ' >"$TMP/order"
expect_grep '^w0-b1 w1-b2 w2-b3 w3-b4 w4-b1 w5-b2 w6-b3 w7-b4 $' "$TMP/order" "results in workload order"

sweep silent silence=8 &
sweep_pid=$!
wait_for 'worker 2 up|worker 1 up' "$TMP/silent.err"
sleep 1
stopped=$(relay_pids | head -1)
[ -n "$stopped" ] && kill -STOP "$stopped"
wait "$sweep_pid"
expect_code 0 "$?" "a worker that falls silent: the sweep still passes"
expect_grep 'lost: no word from the worker for 8 s.*dealt again' "$TMP/silent.err" "killed after the silence limit, its workloads dealt again"
expect_grep '^8 workloads: 8 PASSED' "$TMP/silent.out" "every workload once"
[ -n "$stopped" ] && kill -9 "$stopped" 2>/dev/null
expect_no_relays

stop_daemons
expect_no_daemons
finish
