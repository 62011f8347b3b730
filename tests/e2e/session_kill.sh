#!/bin/bash
# SIGKILL at random points of a CPU-device session, 20 times: after each, the store passes
# PRAGMA integrity_check, the archive passes git fsck, every decision made before the kill
# is there, and the session resumes (--resume finishes the interrupted evaluation).
. "$top_srcdir/tests/lib.sh"
export KWB_WORKSPACE="$TMP/ws"
make_dataset "$TMP/ds" 1 2 4 8 1 2
"$KWB" init "$TMP/ws" >/dev/null 2>&1 || fail "init"
ev() { "$KWB" eval --dataset "$TMP/ds" --definition "$DEF" --trials 1 --max-time 0.02 --quiet --session s "$@"; }
ev --solution "$KERNELS/baseline" --name base >/dev/null 2>&1 || fail "baseline"

decisions=0 resumed=0
RANDOM=7
for i in $(seq 1 20); do
    # A decision before the kill: it must survive.
    "$KWB" decide base reject --reason "reason-$i" >/dev/null 2>&1 && decisions=$((decisions + 1))
    setsid "$KWB" eval --dataset "$TMP/ds" --definition "$DEF" --trials 1 --max-time 0.02 --quiet --session s \
        --solution "$KERNELS/fast" --name "try$i" >/dev/null 2>&1 &
    pid=$!
    sleep "0.$((RANDOM % 9))$((RANDOM % 10))"
    kill -KILL -- "-$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    ok=$(sqlite3 "$TMP/ws/kwb.db" "PRAGMA integrity_check" 2>&1)
    [ "$ok" = "ok" ] || fail "kill $i: integrity_check says $ok"
    git -C "$TMP/ws/candidates.git" fsck --strict >"$TMP/fsck" 2>&1 || { fail "kill $i: git fsck"; cat "$TMP/fsck"; }
    n=$(sqlite3 "$TMP/ws/kwb.db" "SELECT count(*) FROM decisions WHERE reason LIKE 'reason-%'" 2>&1)
    [ "$n" = "$decisions" ] || fail "kill $i: $n decisions recorded, $decisions made"
    if ev --resume >"$TMP/resume.$i" 2>&1; then
        resumed=$((resumed + 1))
    elif ! grep -q 'nothing to resume' "$TMP/resume.$i"; then
        fail "kill $i: resume failed"
        cat "$TMP/resume.$i"
    fi
done
pass "20 kills: integrity_check ok, git fsck clean, $decisions decisions kept, $resumed evaluations resumed"
left=$(sqlite3 "$TMP/ws/kwb.db" "SELECT count(*) FROM eval_runs WHERE state != 'complete'" 2>&1)
[ "$left" = "0" ] && pass "every evaluation finished after its resume" || fail "$left evaluation(s) not complete"
[ "$resumed" -gt 0 ] && pass "at least one kill landed mid-evaluation" || fail "no kill landed mid-evaluation"
# A kill after the last result but before the run was closed: --resume closes it.
sqlite3 "$TMP/ws/kwb.db" "UPDATE eval_runs SET state = 'interrupted' WHERE id = (SELECT max(id) FROM eval_runs);
    UPDATE rounds SET state = 'interrupted' WHERE id = (SELECT round_id FROM eval_runs ORDER BY id DESC LIMIT 1)"
ev --resume >"$TMP/closing" 2>&1
expect_code 0 "$?" "resume with nothing left to run"
expect_grep 'nothing left to run' "$TMP/closing" "resume says so"
left=$(sqlite3 "$TMP/ws/kwb.db" "SELECT count(*) FROM eval_runs WHERE state != 'complete'" 2>&1)
[ "$left" = "0" ] && pass "and the run is complete" || fail "$left run(s) still open"
"$KWB" log s >"$TMP/log" 2>&1
expect_grep 'interrupted|done' "$TMP/log" "the log shows the rounds"
finish
