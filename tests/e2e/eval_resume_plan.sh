#!/bin/bash
# kwb eval --session S --resume finishes exactly the interrupted run's planned, missing workloads
# with the options it recorded (filter, seed, trials, ...), and needs neither --definition nor
# --solution (README's own example). Killed after its 2nd result, at a random point in it.
. "$top_srcdir/tests/lib.sh"
export KWB_WORKSPACE="$TMP/ws"
make_dataset "$TMP/ds" 1 1 1 64 64 64 64 1
"$KWB" init "$TMP/ws" >/dev/null 2>&1 || fail "init"
db="$TMP/ws/kwb.db"
setsid "$KWB" eval --dataset "$TMP/ds" --definition "$DEF" --solution "$KERNELS/baseline" --session s \
    --workloads batch_size=64 --trials 2 --seed 11 --min-time 0.25 --max-time 0.3 --quiet >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 1200); do
    n=$(sqlite3 "$db" "SELECT count(*) FROM evaluations" 2>/dev/null || echo 0)
    [ "${n:-0}" -ge 2 ] && break
    sleep 0.05
done
sleep "0.$((RANDOM % 4))"
kill -KILL -- "-$pid" 2>/dev/null
wait "$pid" 2>/dev/null
before=$(sqlite3 "$db" "SELECT count(*) FROM evaluations")
[ "$before" -ge 2 ] && [ "$before" -lt 4 ] && pass "killed with $before of 4 recorded" || fail "killed with $before recorded"
# The README's example: no --definition, no --solution; a plan option given is replaced, said so.
(cd "$TMP" && "$KWB" eval --session s --resume --trials 5 >"$TMP/out" 2>"$TMP/err")
expect_code 0 "$?" "kwb eval --session s --resume"
expect_grep 'trials 5 replaced by the interrupted run.s 2' "$TMP/err" "the recorded --trials is used, and said"
rows=$(sqlite3 "$db" "SELECT group_concat(workload_uuid, ' ') FROM (SELECT workload_uuid FROM evaluations ORDER BY workload_uuid)")
[ "$rows" = "w3-b64 w4-b64 w5-b64 w6-b64" ] && pass "exactly the planned workloads recorded" || fail "recorded: $rows"
state=$(sqlite3 "$db" "SELECT state || ' ' || n_done || '/' || n_workloads FROM eval_runs")
[ "$state" = "complete 4/4" ] && pass "the run is complete 4/4" || fail "run: $state"
opts=$(sqlite3 "$db" "SELECT json_extract(options, '$.seed') || ' ' || json_extract(options, '$.trials') || ' ' || json_extract(options, '$.workloads') FROM eval_runs")
[ "$opts" = "11 2 batch_size=64" ] && pass "options recorded with the run" || fail "options: $opts"
n=$(grep -c 'b64' "$TMP/out")
[ "$n" -eq $((4 - before)) ] && pass "the table shows the $n resumed workloads" || fail "table rows: $n"
"$KWB" eval --session s --resume >"$TMP/again" 2>&1
expect_code 2 "$?" "a second resume"
expect_grep 'nothing to resume' "$TMP/again" "says there is nothing to resume"
"$KWB" eval --session nosuch --resume >"$TMP/none" 2>&1
expect_code 2 "$?" "resume of an unknown session"
expect_grep "kwb eval: no session 'nosuch'" "$TMP/none" "names it"
finish
