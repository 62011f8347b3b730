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

start_slurm
EXE="slurm:workers=2,gres=none,silence=10,runner=$RUNNER"

like_local slurm --executor "$EXE"
expect_grep 'slurm: allocation [0-9]+ for 2 worker' "$TMP/slurm.err" "kwb asked for an allocation"
expect_grep 'worker 2 up on .* \(slurm job [0-9]+\)' "$TMP/slurm.err" "each worker says where it is"
job=$(sed -n 's/.*allocation \([0-9]*\) for.*/\1/p' "$TMP/slurm.err")
for i in $(seq 50); do squeue -h -j "$job" 2>/dev/null | grep -q . || break; sleep 0.2; done
squeue -h -j "$job" 2>/dev/null | grep -q . && fail "allocation $job still there after kwb ended" || pass "kwb cancelled its allocation"

# files=ship through the steps: the files go over srun's stdin into the node's cache.
"$KWB" eval --dataset "$TMP/ds" --definition "$DEF" --solution "$KERNELS/fast" --trials 1 --max-time 0.01 --scan off \
    --quiet --executor "$EXE,files=ship,ship_cache=$TMP/shipped" >"$TMP/ship.out" 2>"$TMP/ship.err"
expect_code 0 "$?" "files=ship over Slurm steps"
expect_grep 'files=ship: [0-3] of 3 file\(s\) sent' "$TMP/ship.err" "the library, the reference's and the definition went to the node"
ls "$TMP"/shipped/files/*/lib.so >/dev/null 2>&1 && pass "into its cache" || fail "nothing in $TMP/shipped/files"

# A worker's step killed mid-sweep (its relay, the step's task).
signal_mid_sweep killed KILL --executor "$EXE"
expect_grep 'lost: .*dealt again' "$TMP/killed.err" "the lost worker's workloads were dealt again"

# The node's Slurm lost mid-sweep (slurmd and every step's slurmstepd killed): the workers are
# lost, kwb says so; slurmd comes back and --resume finishes the session's evaluation.
export KWB_WORKSPACE="$TMP/ws"
"$KWB" init "$TMP/ws" >/dev/null 2>&1 || fail "init"
slow_sweep lost --executor "$EXE" --session s --name slow &
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
slow_sweep resumed --executor "$EXE" --session s --resume
expect_code 0 "$?" "slurmd back: --resume completes the sweep"
n=$(grep -cE '^w[0-9]-b[0-9] ' "$TMP/resumed.out")
[ "$n" -ge 1 ] && [ "$n" -lt 8 ] && pass "what was recorded before the loss is kept ($n of 8 ran again)" ||
    fail "the resume ran $n of 8 workloads"
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
