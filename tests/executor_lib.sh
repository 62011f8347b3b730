# tests/executor_lib.sh - helpers for the executor tests (sourced after tests/lib.sh): real
# daemons (sshd; munged, slurmctld, slurmd) configured in $TMP, on ports of their own, started
# and stopped by the test, and the comparisons of a remote run with a local one.

DAEMON_PIDS=""
trap 'stop_daemons; remove_tmp' EXIT
# The workers run the runner through a link of this test's own (runner=$RUNNER), so that the
# relays of this test are told from another test's running at the same time.
mkdir -p "$TMP/bin"
RUNNER=$TMP/bin/kwb-runner
ln -s "$KWB_RUNNER" "$RUNNER"

# free_port: a TCP port nobody listens on now.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# need PROGRAM...: each must be installed (scripts/bootstrap installs them); else the test fails.
need() {
    local p
    for p in "$@"; do
        command -v "$p" >/dev/null 2>&1 || [ -x "/usr/sbin/$p" ] || {
            echo "FAIL: $p is not installed (scripts/bootstrap installs it)" >&2
            exit 1
        }
    done
}

# remember_daemon PIDFILE: its pid is killed (and waited for) when the test ends.
remember_daemon() {
    local i
    for i in $(seq 100); do [ -s "$1" ] && break; sleep 0.1; done
    DAEMON_PIDS="$DAEMON_PIDS $(cat "$1")"
}

# alive PID: the process runs (a zombie left to an init that does not reap does not count).
alive() {
    local st
    st=$(ps -o stat= -p "$1" 2>/dev/null) && [ "${st#Z}" = "$st" ]
}

# stop_daemons: SIGTERM then SIGKILL to every daemon the test started; none may be left.
stop_daemons() {
    local p i
    for p in $DAEMON_PIDS; do kill "$p" 2>/dev/null; done
    for p in $DAEMON_PIDS; do
        for i in $(seq 50); do alive "$p" || break; sleep 0.1; done
        kill -9 "$p" 2>/dev/null
    done
    DAEMON_PIDS=""
}

# expect_no_daemons: after stop_daemons, no process of this test's daemons (nor, when it ran the
# cluster, a step's slurmstepd) is left running.
expect_no_daemons() {
    local left p
    left=$(pgrep -f "$TMP/(ssh|slurm)/" || true)
    if [ "${SLURM_CONF:-}" = "$TMP/slurm/slurm.conf" ]; then  # this test's cluster: its steps too
        for p in $(pgrep -f '^slurmstepd: \[' || true); do alive "$p" && left="$left $p"; done
    fi
    for p in $left; do alive "$p" || left=${left/$p/}; done
    if [ -z "${left// /}" ]; then pass "no daemon left running"; else
        fail "daemons left running: $left"
        ps -o pid,cmd -p ${left// /,} >&2
    fi
}

# since T0: seconds from the date +%s.%N stamp T0 until now.
since() {
    python3 -c "print(round($(date +%s.%N) - $1, 2))"
}

# start_sshd: an sshd on 127.0.0.1 with a host key and a user key made here; the ssh client's
# config in $TMP/ssh/config names the host "kwbtest". Says how long it took to come up.
start_sshd() {
    local d=$TMP/ssh port t0
    t0=$(date +%s.%N)
    mkdir -p "$d"
    port=$(free_port)
    ssh-keygen -q -t ed25519 -N '' -f "$d/host_key"
    ssh-keygen -q -t ed25519 -N '' -f "$d/id"
    cp "$d/id.pub" "$d/authorized_keys"
    chmod 600 "$d/authorized_keys"
    cat >"$d/sshd_config" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $d/host_key
AuthorizedKeysFile $d/authorized_keys
PidFile $d/sshd.pid
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PermitRootLogin prohibit-password
EOF
    echo "[127.0.0.1]:$port $(cat "$d/host_key.pub")" >"$d/known_hosts"
    cat >"$d/config" <<EOF
Host kwbtest
  HostName 127.0.0.1
  Port $port
  IdentityFile $d/id
  IdentitiesOnly yes
  UserKnownHostsFile $d/known_hosts
  StrictHostKeyChecking yes
  BatchMode yes
  LogLevel ERROR
EOF
    [ "$(id -u)" != 0 ] || mkdir -p /run/sshd  # privilege separation directory
    /usr/sbin/sshd -f "$d/sshd_config" -E "$d/sshd.log"
    remember_daemon "$d/sshd.pid"
    for i in $(seq 100); do
        ssh -F "$d/config" kwbtest true 2>/dev/null && echo "sshd up in $(since "$t0") s" && return 0
        sleep 0.2
    done
    echo "FAIL: sshd did not come up" >&2
    cat "$d/sshd.log" >&2
    exit 1
}

# start_slurm: munged, slurmctld and slurmd for a one-node cluster of this machine, configured
# in $TMP/slurm; exports SLURM_CONF. Says how long they took to come up.
start_slurm() {
    local d=$TMP/slurm node i t0
    t0=$(date +%s.%N)
    mkdir -p "$d/munge" "$d/state" "$d/spool"
    chmod 711 "$d/munge"
    head -c 1024 /dev/urandom >"$d/munge/munge.key"
    chmod 600 "$d/munge/munge.key"
    munged -f --key-file="$d/munge/munge.key" --socket="$d/munge/sock" --pid-file="$d/munge/pid" \
        --log-file="$d/munge/log" --seed-file="$d/munge/seed"
    remember_daemon "$d/munge/pid"
    node=$(slurmd -C | head -1 | sed 's/ RealMemory=.*//')
    cat >"$d/slurm.conf" <<EOF
ClusterName=kwbtest
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/munge/sock
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
InactiveLimit=0
KillWait=2
MessageTimeout=10
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=kwb Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
    export SLURM_CONF=$d/slurm.conf
    unset SLURM_JOB_ID SLURM_NTASKS
    slurmctld -f "$SLURM_CONF" -i
    remember_daemon "$d/slurmctld.pid"
    slurmd -f "$SLURM_CONF"
    remember_daemon "$d/slurmd.pid"
    for i in $(seq 300); do
        sinfo -h -o %T 2>/dev/null | grep -q idle && echo "slurm up in $(since "$t0") s" && return 0
        sleep 0.2
    done
    echo "FAIL: the node did not come up" >&2
    cat "$d/slurmctld.log" "$d/slurmd.log" >&2
    exit 1
}

# normalized FILE KIND: what a run must have identical to a local run, one line per workload:
# KIND table: uuid, axes, status and message words; KIND traces: each trace without its
# measured figures (latencies, errors, timestamp).
normalized() {
    python3 - "$1" "$2" <<'PY'
import json, re, sys
path, kind = sys.argv[1], sys.argv[2]
for line in open(path):
    if kind == "traces":
        t = json.loads(line)
        ev = t["evaluation"]
        for k in ("timestamp", "performance", "correctness", "log"):
            ev.pop(k, None)
        print(json.dumps(t, sort_keys=True))
    else:
        f = line.split()
        if len(f) > 3 and re.match(r"w\d+-b\d+$", f[0]):
            print(f[0], f[1], f[2])
PY
}

# expect_same_as_local REMOTE LOCAL KIND WHAT
expect_same_as_local() {
    normalized "$1" "$3" >"$1.norm"
    normalized "$2" "$3" >"$2.norm"
    if [ -s "$1.norm" ] && cmp -s "$1.norm" "$2.norm"; then pass "$4"; else
        fail "$4"
        diff "$2.norm" "$1.norm" | sed 's/^/    /' >&2
    fi
}

# wait_for PATTERN FILE: until FILE matches (at most 120 s).
wait_for() {
    local i
    for i in $(seq 600); do grep -Eq -- "$1" "$2" 2>/dev/null && return 0; sleep 0.2; done
    fail "no /$1/ in $2 within 120 s"
    return 1
}

# relay_pids: the runner relays (kwb-runner --stdio) this test's workers run.
relay_pids() {
    pgrep -f "^$RUNNER --stdio" || true
}

# expect_no_relays: every runner relay of this test's workers ends (within 30 s).
expect_no_relays() {
    local i left
    for i in $(seq 150); do
        left=$(relay_pids)
        [ -z "$left" ] && break
        sleep 0.2
    done
    if [ -z "$left" ]; then pass "no runner left on the workers"; else
        fail "runners left: $left"
        ps -o pid,ppid,stat,etime,cmd -p "${left//$'\n'/,}" >&2
    fi
}

# like_local KIND EXECUTOR-OPTION...: a candidate that crashes on batch 2, hangs on batch 4 and passes
# elsewhere, run locally on two devices and through the executor: the same
# statuses, table and traces (--keep-going: the hang is not skipped after the crash), and no relay
# left on the workers.
like_local() {
    local kind=$1 name opts
    shift
    local remote=("$@")
    make_dataset "$TMP/ds" 1 2 3 4 1 3
    make_candidate "$TMP/mixed" mixed "if (B == 2) raise(SIGSEGV);
    if (B == 4) for (;;) sleep(1);"
    sed -i '1i #include <signal.h>' "$TMP/mixed/cand.c"
    for name in local "$kind"; do
        opts=("${remote[@]}")
        [ "$name" = local ] && opts=(--devices cpu,cpu)
        "$KWB" eval --dataset "$TMP/ds" --definition "$DEF" --solution "$TMP/mixed" --trials 1 --max-time 0.01 \
            --timeout 4 --keep-going --scan off --quiet --traces "$TMP/$name.traces" "${opts[@]}" \
            >"$TMP/$name.out" 2>"$TMP/$name.err"
        expect_code 1 "$?" "$name run: some workloads fail"
    done
    expect_grep '^w1-b2 .*RUNTIME_ERROR' "$TMP/$kind.out" "a crash on a $kind worker is the workload's RUNTIME_ERROR"
    expect_grep 'w3-b4 .*TIMEOUT' "$TMP/$kind.out" "a hang on a $kind worker is the workload's TIMEOUT"
    expect_same_as_local "$TMP/$kind.out" "$TMP/local.out" table "the table matches the local run's (uuid, axes, status, in order)"
    expect_same_as_local "$TMP/$kind.traces" "$TMP/local.traces" traces "the traces match the local run's"
    expect_no_relays  # and with each relay the runner it started, the hung candidate's included
}

# slow_sweep NAME EXECUTOR-OPTION...: a slow candidate on 8 workloads, table in $TMP/NAME.out.
slow_sweep() {
    local name=$1
    shift
    [ -d "$TMP/slow" ] || { make_dataset "$TMP/ds8" 1 2 3 4 1 2 3 4; make_candidate "$TMP/slow" slow 'usleep(50000);'; }
    "$KWB" eval --dataset "$TMP/ds8" --definition "$DEF" --solution "$TMP/slow" --trials 1 --max-time 0.01 \
        --scan off --quiet "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
}

# signal_mid_sweep NAME SIGNAL EXECUTOR-OPTION...: slow_sweep, with SIGNAL sent to one worker's relay
# a second after the first worker is up (its pid in $SIGNALLED); the sweep must still pass whole.
signal_mid_sweep() {
    local name=$1 sig=$2 pid
    shift 2
    slow_sweep "$name" "$@" &
    pid=$!
    wait_for 'worker [12] up' "$TMP/$name.err"
    sleep 1
    SIGNALLED=$(pgrep -n -f "^$RUNNER --stdio")  # the newest: this sweep's, not one still ending
    [ -n "$SIGNALLED" ] && kill "-$sig" "$SIGNALLED"
    wait "$pid"
    expect_code 0 "$?" "$name: SIG$sig to a worker mid-sweep, the sweep still passes"
    expect_grep '^8 workloads: 8 PASSED' "$TMP/$name.out" "every workload once"
    awk 'NF > 3 && /^w/ {print $1}' "$TMP/$name.out" | tr '\n' ' ' >"$TMP/order"
    expect_grep '^w0-b1 w1-b2 w2-b3 w3-b4 w4-b1 w5-b2 w6-b3 w7-b4 $' "$TMP/order" "results in workload order"
}
