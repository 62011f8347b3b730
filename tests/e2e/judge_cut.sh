#!/bin/bash
# A kwb judge killed mid-sweep (SIGKILL, as a machine's time limit does), then the workbench's
# truth: kwb log, report and show say the round and its sweep were cut off (interrupted), never
# running, though nothing wrote the store since; a hand promotion of the cut candidate makes it
# the best in log and report, flagged partial (N of 6 workloads); a plain kwb decide drops the
# persistent redo stack (kwb decide --redo, the workbench's redo, keeps it); the next judge
# records the cut-off as interrupted. Real store, real archive, CPU device.
. "$top_srcdir/tests/lib.sh"
export KWB_WORKSPACE="$TMP/ws"
"$KWB" init "$TMP/ws" >/dev/null 2>&1 || fail "init"
make_dataset "$TMP/ds" 1 1 1 8 8 8  # small: the gate decides in seconds on a busy CI
make_candidate "$TMP/start" start 'usleep(8000);'
make_candidate "$TMP/cut" cut 'usleep(1000);'
make_candidate "$TMP/next" next 'usleep(1000);'
common=(--dataset "$TMP/ds" --max-time 0.1)
db="$TMP/ws/kwb.db"
q() { sqlite3 -cmd ".timeout 5000" "$db" "$1"; }
"$KWB" eval --definition "$DEF" --solution "$TMP/start" --session s --name start "${common[@]}" >/dev/null 2>&1
"$KWB" decide start promote --session s --reason "start" >/dev/null 2>&1 || fail "start promoted"

# The judge, killed with its whole process group once its sweep (6 workloads) has more results
# than its gate (2): the sweep is then what speaks for the candidate.
setsid "$KWB" judge --session s --solution "$TMP/cut" --name cut "${common[@]}" >/dev/null 2>&1 &
pid=$!
sweep=""
for _ in $(seq 1 2400); do  # (up to 2 min on a loaded machine; the judge's end stops it)
    kill -0 "$pid" 2>/dev/null || break
    sweep=$(q "SELECT r.id FROM eval_runs r JOIN candidates c ON c.id = r.candidate_id
               WHERE c.name = 'cut' AND r.n_workloads = 6 AND r.state = 'running' AND r.n_done >= 3" 2>/dev/null)
    [ -n "$sweep" ] && break
    sleep 0.05
done
kill -KILL -- "-$pid" 2>/dev/null
wait "$pid" 2>/dev/null
[ -n "$sweep" ] && pass "the judge was killed mid-sweep" || fail "the sweep never started"
done_n=$(q "SELECT n_done FROM eval_runs WHERE id = $sweep")
[ "$(q "SELECT state FROM eval_runs WHERE id = $sweep")" = running ] &&
    pass "the store still says running (nobody wrote it since)" || fail "sweep state $(q "SELECT state FROM eval_runs WHERE id = $sweep")"

"$KWB" log s >"$TMP/log1" 2>&1
expect_code 0 "$?" "kwb log after the kill"
expect_grep '^2 +human +interrupted +cut +start .*cut off: ' "$TMP/log1" "log: the round is interrupted, cut off"
expect_no_grep '  running  ' "$TMP/log1" "log: nothing shows running"
"$KWB" report s --dataset "$TMP/ds" --format json --output "$TMP/r1.json" >/dev/null 2>"$TMP/r1.err"
expect_code 0 "$?" "report after the kill"
[ "$(jq -r '.rounds[1].state' "$TMP/r1.json")" = interrupted ] && pass "report: the round is interrupted" ||
    fail "report: round state $(jq -r '.rounds[1].state' "$TMP/r1.json")"
"$KWB" show cut >"$TMP/show1" 2>&1
expect_code 0 "$?" "kwb show of the cut candidate"
expect_grep "^evaluation \(interrupted, $done_n of 6 workloads\):" "$TMP/show1" "show: the cut sweep speaks for it"

# The cut candidate promoted by hand: it is the best, flagged partial.
"$KWB" decide cut promote --session s --reason "faster where measured" >/dev/null 2>&1
expect_code 0 "$?" "cut promoted by hand"
"$KWB" log s >"$TMP/log2" 2>&1
expect_grep "^best: cut, mean [0-9.]+ ms \(partial: $done_n of 6 workloads\)" "$TMP/log2" "log: best is cut, partial"
expect_grep "^2 +human +interrupted +cut +cut +[0-9.]+ \(partial: $done_n of 6 workloads\)" "$TMP/log2" \
    "log: round 2's best after is cut, partial"
"$KWB" report s --dataset "$TMP/ds" --format md --output "$TMP/r2.md" >/dev/null 2>&1
expect_grep "^- best: cut, mean [0-9.]+ ms \(partial: $done_n of 6 workloads\)" "$TMP/r2.md" "report: best is cut, partial"
"$KWB" report s --dataset "$TMP/ds" --format json --output "$TMP/r2.json" >/dev/null 2>&1
[ "$(jq -r '"\(.best.name) \(.best.workloads) \(.best.of)"' "$TMP/r2.json")" = "cut $done_n 6" ] &&
    pass "report json: best cut, $done_n of 6" || fail "report json best: $(jq -c .best "$TMP/r2.json")"
[ "$(jq '.workloads | length' "$TMP/r2.json")" = "$done_n" ] && pass "report: the best's workloads are its sweep's" ||
    fail "report: $(jq '.workloads | length' "$TMP/r2.json") workloads"

# The redo stack: a plain decision drops it, the workbench's redo (--redo) keeps it.
push_redo() { q "INSERT INTO redo (session_id, grp, candidate_id, decision, reason)
                 SELECT session_id, 1, id, 'promoted', 'undone' FROM candidates WHERE name = 'start'"; }
push_redo
"$KWB" decide start promote --session s --reason "redo" --redo >/dev/null 2>&1 || fail "decide --redo"
[ "$(q "SELECT count(*) FROM redo")" = 1 ] && pass "decide --redo keeps the redo stack" || fail "redo dropped by --redo"
"$KWB" decide cut promote --session s --reason "again" >/dev/null 2>&1 || fail "decide cut"
[ "$(q "SELECT count(*) FROM redo")" = 0 ] && pass "a plain decide drops the redo stack" ||
    fail "redo rows left: $(q "SELECT count(*) FROM redo")"

# The next judge takes the session over and records the cut-off.
"$KWB" judge --session s --solution "$TMP/next" --name next "${common[@]}" >/dev/null 2>"$TMP/next.err"
[ $? -le 1 ] && pass "the next judge runs" || { fail "the next judge"; cat "$TMP/next.err"; }
[ "$(q "SELECT state FROM eval_runs WHERE id = $sweep")" = interrupted ] && pass "store: the sweep recorded interrupted" ||
    fail "store: sweep $(q "SELECT state FROM eval_runs WHERE id = $sweep")"
[ "$(q "SELECT outcome FROM rounds WHERE number = 2")" = "cut off: the kwb running it ended before it did" ] &&
    pass "store: the round recorded cut off" || fail "store: round 2 outcome $(q "SELECT outcome FROM rounds WHERE number = 2")"

# The workbench's title says it too (a real terminal: tmux).
command -v tmux >/dev/null || fail "tmux not found (scripts/bootstrap installs it)"
SOCK="kwbcut$$"
trap 'tmux -L "$SOCK" kill-server 2>/dev/null; remove_tmp' EXIT
tmux -L "$SOCK" -f /dev/null new-session -d -s w -x 180 -y 30 \
    "env TERM=xterm-256color XDG_STATE_HOME=$TMP/state KWB_WORKSPACE=$TMP/ws $KWB tui --session s 2>$TMP/tui.err; sleep 60"
for _ in $(seq 150); do
    tmux -L "$SOCK" capture-pane -p -t w >"$TMP/pane" 2>/dev/null
    grep -q ' ms.* | ' "$TMP/pane" && break
    sleep 0.2
done
expect_grep "best cut [0-9.]+ ms \(partial: $done_n of 6\)" "$TMP/pane" "tui: the title flags the best partial"
tmux -L "$SOCK" send-keys -t w q 2>/dev/null
finish
