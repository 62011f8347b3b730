#!/bin/bash
# --executor slurm: a one-node Slurm cluster of this machine (munged, slurmctld, slurmd from
# Debian, configured in a temp dir, started and stopped here), CPU-device workers as srun steps
# of an allocation kwb asks for with salloc. The table and traces match a local run's (a crash
# and a hang included); a worker step killed mid-sweep costs only its workloads in flight; the
# node's Slurm lost mid-sweep (slurmd and the steps killed) loses the workers, and once slurmd
# is back `kwb eval --session S --resume` completes the sweep; a sweep sent to sbatch records
# into its session; no daemon is left running.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/executor_lib.sh"
need munged slurmctld slurmd salloc srun scancel sinfo python3

t0=$(date +%s.%N)
start_slurm
echo "slurm up in $(python3 -c "print(round($(date +%s.%N) - $t0, 2))") s"
EXE="slurm:workers=2,gres=none,silence=10"

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
run_mixed slurm --executor "$EXE"
expect_code 1 "$?" "slurm run: the same"
expect_grep '^w1-b2 .*RUNTIME_ERROR' "$TMP/slurm.out" "a crash in a step is the workload's RUNTIME_ERROR"
expect_grep 'w3-b4 .*TIMEOUT' "$TMP/slurm.out" "a hang in a step is the workload's TIMEOUT"
expect_same_as_local "$TMP/slurm.out" "$TMP/local.out" table "the table matches the local run's (uuid, axes, status, in order)"
expect_same_as_local "$TMP/slurm.traces" "$TMP/local.traces" traces "the traces match the local run's"
expect_grep 'slurm: allocation [0-9]+ for 2 worker' "$TMP/slurm.err" "kwb asked for an allocation"
expect_grep 'worker 2 up on .* \(slurm job [0-9]+\)' "$TMP/slurm.err" "each worker says where it is"
sleep 1
if kill -0 "$(cat "$TMP/hang.pid")" 2>/dev/null; then fail "the hung candidate still runs after its TIMEOUT"; else
    pass "the hung candidate was killed in its step"
fi
job=$(sed -n 's/.*allocation \([0-9]*\) for.*/\1/p' "$TMP/slurm.err")
for i in $(seq 50); do squeue -h -j "$job" 2>/dev/null | grep -q . || break; sleep 0.2; done
squeue -h -j "$job" 2>/dev/null | grep -q . && fail "allocation $job still there after kwb ended" || pass "kwb cancelled its allocation"

# A worker's step killed mid-sweep.
make_dataset "$TMP/ds8" 1 2 3 4 1 2 3 4
make_candidate "$TMP/slow" slow 'usleep(50000);'
sweep() {
    "$KWB" eval --dataset "$TMP/ds8" --definition "$DEF" --solution "$TMP/slow" --trials 1 --max-time 0.01 \
        --scan off --quiet --executor "$EXE" "${@:2}" >"$TMP/$1.out" 2>"$TMP/$1.err"
}
sweep killed &
sweep_pid=$!
wait_for 'worker 2 up|worker 1 up' "$TMP/killed.err"
sleep 1
victim=$(relay_pids | head -1)
[ -n "$victim" ] && kill -9 "$victim"
wait "$sweep_pid"
expect_code 0 "$?" "a worker step killed mid-sweep: the sweep still passes"
expect_grep '^8 workloads: 8 PASSED' "$TMP/killed.out" "every workload once"
expect_grep 'lost: .*dealt again' "$TMP/killed.err" "the lost worker's workloads were dealt again"
awk 'NF > 3 && /^w/ {print $1}' "$TMP/killed.out" | tr '\n' ' ' >"$TMP/order"
expect_grep '^w0-b1 w1-b2 w2-b3 w3-b4 w4-b1 w5-b2 w6-b3 w7-b4 $' "$TMP/order" "results in workload order"

# The node's Slurm lost mid-sweep (slurmd and every step's slurmstepd killed): the workers are
# lost, kwb says so; slurmd comes back and --resume finishes the session's evaluation.
export KWB_WORKSPACE="$TMP/ws"
"$KWB" init "$TMP/ws" >/dev/null 2>&1 || fail "init"
sweep lost --session s --name slow &
sweep_pid=$!
wait_for 'worker 2 up|worker 1 up' "$TMP/lost.err"
sleep 1
job=$(sed -n 's/.*allocation \([0-9]*\) for.*/\1/p' "$TMP/lost.err")
steps=$(pgrep -f "^slurmstepd: \[$job\." || true)
kill -9 "$(cat "$TMP/slurm/slurmd.pid")" $steps
wait "$sweep_pid"
expect_code 2 "$?" "the node's Slurm lost: kwb eval fails"
expect_grep 'every worker was lost' "$TMP/lost.err" "saying every worker was lost"
rm -f "$TMP/slurm/slurmd.pid"
slurmd -f "$SLURM_CONF"
remember_daemon "$TMP/slurm/slurmd.pid"
for i in $(seq 300); do sinfo -h -o %T 2>/dev/null | grep -Eq '^idle$' && break; sleep 0.2; done
sweep resumed --session s --resume
expect_code 0 "$?" "slurmd back: --resume completes the sweep"
expect_grep 'resuming: [1-9][0-9]* workload\(s\) recorded before' "$TMP/resumed.err" "what was recorded before the loss is kept"
"$KWB" show slow >"$TMP/show.out" 2>&1
n=$(grep -cE '^ *w[0-9]-b[0-9] .*PASSED' "$TMP/show.out")
[ "$n" = 8 ] && pass "the session holds all 8 results" || { fail "the session holds $n results"; cat "$TMP/show.out" >&2; }
# A long sweep sent to sbatch (batch=yes): kwb eval submits itself and returns; the batch job runs
# it in its own allocation and records into the session, which kwb show then reads.
(cd "$TMP" && "$KWB" eval --dataset "$TMP/ds8" --definition "$DEF" --solution "$TMP/slow" --trials 1 --max-time 0.01 \
    --scan off --quiet --executor "$EXE,batch=yes" --session b --name batched >"$TMP/sbatch.out" 2>"$TMP/sbatch.err")
expect_code 0 "$?" "batch=yes: submitted"
job=$(head -1 "$TMP/sbatch.out")
expect_grep 'submitted batch job [0-9]+' "$TMP/sbatch.err" "kwb says which job"
for i in $(seq 600); do squeue -h -j "$job" 2>/dev/null | grep -q . || break; sleep 0.2; done
expect_grep '^8 workloads: 8 PASSED' "$TMP/slurm-$job.out" "the batch job ran the sweep on its workers"
expect_grep 'worker 2 up' "$TMP/slurm-$job.out" "in its own allocation's steps"
"$KWB" show batched >"$TMP/show-b.out" 2>&1
n=$(grep -cE '^ *w[0-9]-b[0-9] .*PASSED' "$TMP/show-b.out")
[ "$n" = 8 ] && pass "the session holds the batch job's 8 results" || { fail "the session holds $n"; cat "$TMP/show-b.out" >&2; }
"$KWB" eval --dataset "$TMP/ds8" --definition "$DEF" --solution "$TMP/slow" --executor "$EXE,batch=yes" >"$TMP/nob.out" 2>&1
expect_code 2 "$?" "batch=yes without --session"
expect_grep 'batch=yes needs --session' "$TMP/nob.out" "is refused"

expect_no_relays

stop_daemons
expect_no_daemons
finish
