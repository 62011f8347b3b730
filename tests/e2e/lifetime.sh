#!/bin/bash
# Nothing outlives kwb (issue 20, item 1): candidates that fork a child that calls setsid(),
# double-fork, daemon(), or ignore every signal and spin; kwb ending normally, on a TIMEOUT,
# and killed by SIGTERM or SIGKILL at random points. Afterwards no process of the job exists:
# every process kwb starts carries a marker in its environment (the candidates' strays also
# take a marked name), and /proc is searched for both. The next kwb removes the temporary folders
# the killed ones left. The fork-based cases run with
# --sandbox off (the sandbox refuses the fork itself, checked by sandbox.sh). KWB_TEST_DEVICE=cuda
# runs it on the GPU (tests/gpu/sandbox).
. "$top_srcdir/tests/lib.sh"

. "$top_srcdir/tests/sandbox_lib.sh"
NAME="kwbz$$"                 # the strays' process name (15 characters at most)
ENVMARK="KWB_LIFETIME_MARK=$NAME-$RANDOM"

# cand NAME CODE: a copy kernel that runs CODE first, with linger() (a renamed sleeper) and
# spin() (a renamed spinner that ignores every catchable signal) at hand.
cand() {
    copy_candidate "$TMP/$1" "life_$1" "
static void linger(void)
{
    prctl(PR_SET_NAME, \"$NAME\");
    for (int i = 0; i < 300; i++)
        sleep(1);
    _exit(0);
}

static void spin(void)
{
    signal(SIGTERM, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    signal(SIGALRM, SIG_IGN);
    prctl(PR_SET_NAME, \"$NAME\");
    for (volatile unsigned long n = 0;; n++)
        ;
}" "(void)linger; (void)spin; $2"
}

# job_left: the pids of processes of the job (marked environment or name), one per line.
job_left() {
    local p
    for p in /proc/[0-9]*; do
        if grep -qz "^$ENVMARK\$" "$p/environ" 2>/dev/null || [ "$(cat "$p/comm" 2>/dev/null)" = "$NAME" ]; then
            echo "${p#/proc/}"
        fi
    done
}

# none_left WHAT: no process of the job is left (allowing the kernel 10 s to finish the kills).
none_left() {
    local i
    for i in $(seq 1 100); do
        [ -z "$(job_left)" ] && { pass "$1: no process of the job is left"; return; }
        sleep 0.1
    done
    fail "$1: processes left: $(job_left | tr '\n' ' ')"
    ps -o pid,ppid,pgid,sid,stat,comm -p "$(job_left | paste -sd, -)" >&2
    job_left | xargs -r kill -9
}

# run NAME [EXTRA...]: evaluates NAME on c-4k to the end; table in $TMP/NAME.out
run() {
    local name=$1
    shift
    env "$ENVMARK" "$KWB" eval --device "$TEST_DEVICE" --dataset "$DS" --definition $COPY --solution "$TMP/$name" \
        --workloads c-4k --trials 1 --max-time 0.02 --quiet "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
}

cand setsid 'if (fork() == 0) { setsid(); linger(); }'
cand double 'if (fork() == 0) { if (fork() == 0) { setsid(); linger(); } _exit(0); }'
cand daemon 'if (fork() == 0) { if (daemon(0, 0) == 0) linger(); _exit(0); }'
cand spin 'spin();'
cand both 'if (fork() == 0) { setsid(); linger(); } spin();'
cand honest_after ''

for c in setsid double daemon; do
    run $c --sandbox off
    expect_grep '^c-4k .* REJECTED_INTEGRITY' "$TMP/$c.out" "$c: REJECTED_INTEGRITY"
    expect_grep 'the call started a process' "$TMP/$c.out" "$c: the reason"
    none_left "$c (kwb ended normally)"
done

run spin --timeout 2
expect_grep '^c-4k .* TIMEOUT' "$TMP/spin.out" "spin: TIMEOUT"
none_left "spin (TIMEOUT)"
run both --timeout 2 --sandbox off
expect_grep '^c-4k .* TIMEOUT' "$TMP/both.out" "setsid child + spin: TIMEOUT"
none_left "setsid child + spin (TIMEOUT, sandbox off)"

# kwb ended by a signal at a random point, the candidate spinning with signals ignored; their
# temporary folders in a TMPDIR of their own.
mkdir -p "$TMP/tmpdir"
for i in 1 2 3 4 5 6; do
    sig=TERM
    [ $((i % 2)) = 0 ] && sig=KILL
    sandbox=off
    [ $((i % 3)) = 0 ] && sandbox=on
    env "$ENVMARK" TMPDIR="$TMP/tmpdir" "$KWB" eval --device "$TEST_DEVICE" --dataset "$DS" --definition $COPY \
        --solution "$TMP/both" --workloads c-4k --trials 1 --quiet --sandbox $sandbox >/dev/null 2>&1 &
    kwb=$!
    sleep "$(awk -v r=$RANDOM 'BEGIN { printf "%.2f", 0.3 + r / 32768 * 1.7 }')"
    kill -$sig $kwb 2>/dev/null
    wait $kwb 2>/dev/null
    none_left "kwb killed by SIG$sig at a random point (sandbox $sandbox, run $i)"
done
# What the SIGKILLed ones left there, the next kwb takes away (their owners are gone) once it
# has been left unchanged for a minute (a folder in use is never taken): aged here.
stale=$(ls "$TMP/tmpdir" | grep -c '^kwb-')
find "$TMP/tmpdir" -maxdepth 1 -name 'kwb-*' -exec touch -h -d '2 minutes ago' {} +
TMPDIR="$TMP/tmpdir" run honest_after
[ -z "$(ls -A "$TMP/tmpdir")" ] && pass "the next kwb removed the $stale folder(s) the killed ones left" ||
    fail "left in TMPDIR after the next kwb: $(ls -A "$TMP/tmpdir")"

# kwb run's children (its kwb eval steps and their runners) die with it, whenever it is killed
# (issue 19, item 2: they held the session lock for seconds after a kill -9).
if [ "$TEST_DEVICE" = cpu ]; then
    "$KWB" init "$TMP/ws" >/dev/null 2>&1
    for i in 1 2 3; do
        env "$ENVMARK" KWB_WORKSPACE="$TMP/ws" "$KWB" run --definition "$DEF" --workloads batch_size=16 --max-time 0.3 \
            --solution "$KERNELS/fast" --session k$i --auto --agent tuner --rounds 3 >/dev/null 2>&1 &
        run_pid=$!
        sleep "$(awk -v r=$RANDOM 'BEGIN { printf "%.2f", 0.5 + r / 32768 * 2.5 }')"
        kill -KILL $run_pid 2>/dev/null
        wait $run_pid 2>/dev/null
        none_left "kwb run killed by SIGKILL at a random point (run $i)"
    done
fi

finish
