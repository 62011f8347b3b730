#!/bin/bash
# The human decides, through a real terminal (tmux): kwb tui --definition --solution in a fresh
# workspace starts session "demo" on the CPU demo; round 2 chooses a direction, edits the candidate
# in a real vi typed through send-keys (the start's 20 ms sleep deleted: a verdict to promote that
# no machine noise reverses), measures again, overrules the verdict (reject, with a reason), undoes
# and redoes that, accepts the verdict, undoes and redoes the promotion; round 3 rejects a direction,
# undoes and redoes it, then edits the next candidate slow (a verdict to reject) and overrules it
# (promote). After each step the screen's title and status line, kwb log, kwb propose and
# kwb report agree with the store and the archive (tags, rejected refs). Last, kwb tui is killed
# (kill -9) in the middle of a judge and started again: it resumes at that judge; killed after the
# verdict, it shows that verdict without judging again; killed after an undo, it can still redo.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/tui_lib.sh"
command -v tmux >/dev/null || fail "tmux not found (scripts/bootstrap installs it)"
command -v vi >/dev/null || fail "vi not found (scripts/bootstrap installs vim-tiny)"
mkdir -p "$TMP/fresh"
cd "$TMP/fresh" || fail "cd"
"$KWB" init "$TMP/fresh" >/dev/null 2>&1 || fail "init"
export KWB_WORKSPACE="$TMP/fresh"
cp -r "$KERNELS/fast" "$TMP/start"
src="$TMP/start/gdn_decode_fast.c"
sed -i 's/^#define LANES 8 /#define LANES 1 /' "$src"
# a 20 ms sleep that round 2 deletes, and a slot that round 3 turns into a 20 ms sleep: verdicts
# that the noise of a loaded machine (rsd over 50 % seen) does not turn
sed -i 's|^    (void)stream;$|    (void)stream;\n    usleep(20000); /* kwb-test-sleep */\n    /* kwb-test-slot */|' "$src"
grep -q 'kwb-test-sleep' "$src" && grep -q 'kwb-test-slot' "$src" || fail "the start's test lines"
db="$TMP/fresh/kwb.db"
sql() { sqlite3 "$db" "$1"; }
SOCK="kwbdecide$$"
# at the end: the tmux server, kwb tui and what it started (a judge may still write into $TMP)
trap 'tmux -L "$SOCK" kill-server 2>/dev/null; t=$(cat "$TMP/tui.pid" 2>/dev/null); [ -n "$t" ] && kill -9 $(descendants "$t") "$t" 2>/dev/null; sleep 0.5; remove_tmp' EXIT

wait_for() { tmux_wait "$1" "${2:-240}"; }
keys() { tmux -L "$SOCK" send-keys -t w "$@"; }
# starts kwb tui in a fresh tmux server (the pid of kwb tui in $TMP/tui.pid)
start_tui() {
    tmux -L "$SOCK" kill-server 2>/dev/null
    SOCK="kwbdecide$$-$1"
    tmux -L "$SOCK" -f /dev/null new-session -d -s w -x 200 -y 50 \
        "sh -c 'echo \$\$ >$TMP/tui.pid; exec env TERM=xterm-256color VISUAL=vi XDG_STATE_HOME=$TMP/state KWB_WORKSPACE=$KWB_WORKSPACE KWB_CACHE_DIR=$KWB_CACHE_DIR $KWB tui --definition $DEF --solution $TMP/start --workloads batch_size=16 --max-time 0.3 2>$TMP/stderr'"
    tmux -L "$SOCK" set-option -g remain-on-exit on >/dev/null 2>&1
}
# agree STEP: the title's verdict and the status line's say the same
agree() {
    local t s
    wait_for 'the judge advises (promote|reject)' 60 >/dev/null # the whole frame, not half of it
    t=$(head -1 "$TMP/pane" | grep -oE '(promote|reject) advised' | cut -d' ' -f1)
    s=$(grep -oE 'the judge advises (promote|reject)' "$TMP/pane" | head -1 | awk '{print $4}')
    [ -n "$t" ] && [ "$t" = "$s" ] && pass "$1: title and status line say '$t'" || fail "$1: title '$t', status '$s'"
}
cand_state() { sql "SELECT state FROM candidates WHERE name = '$1'"; }
archive_refs() { git --git-dir="$TMP/fresh/candidates.git" show-ref 2>/dev/null; }
propose_has() { "$KWB" propose --session demo 2>/dev/null | grep -qF -- "$1"; }
logq() { "$KWB" log demo >"$TMP/log.out" 2>&1; grep -Eq -- "$1" "$TMP/log.out"; }
report() { "$KWB" report demo --format md --output "$TMP/report.md" >/dev/null 2>&1; }

start_tui 1
wait_for 'round 2: choose a direction' && pass "a fresh workspace: kwb tui --definition --solution started session demo" ||
    fail "no session started"
[ "$(sql "SELECT name FROM sessions")" = demo ] && pass "store: session demo" || fail "store: session"
[ "$(cand_state start)" = promoted ] && pass "store: the start promoted" || fail "store: the start"

# round 2: choose the first direction, edit it in vi (delete the sleep), read the fresh diff
keys Enter
wait_for 'written: a accepts' && pass "choose: the candidate is written" || fail "choose"
cand=$(sql "SELECT title FROM directions WHERE state = 'proposed' ORDER BY id DESC LIMIT 1")
name="r2-$(echo "$cand" | tr '.=' '--')"
[ -d "$TMP/fresh/run/demo/$name" ] && [ ! -e "$TMP/fresh/run/demo/$name.part" ] &&
    pass "the candidate folder $name is whole (written under .part, renamed)" || fail "candidate folder $name"
keys e
wait_for 'gdn_decode_fast.c" [0-9]+L' && pass "edit: vi shows the candidate's source on the terminal" || fail "edit: vi not up"
keys ':g/kwb-test-sleep/d' Enter
keys ':wq' Enter
wait_for 'edited: the diff is fresh' && pass "edit: back in the workbench, rediffed" || fail "edit: no rediff"
grep -q 'kwb-test-sleep' "$TMP/fresh/run/demo/$name/gdn_decode_fast.c" && fail "edit: the line is still there" ||
    pass "edit: vi's change is in the candidate"

# judge: the title names the step and its counts; the candidate's rows fill in as its sweep's
# workloads finish (not all at the verdict); the verdict is advice; title and status agree
keys a
if wait_for 'judge sweep [4-6]/7, [4-6] passed, 0 failed' 400; then
    pass "judge: the title names the step with its counts"
    rows=$(grep -cE '^[0-9a-f]{8} +batch_size=16 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+x' "$TMP/pane")
    [ "$rows" -ge 2 ] && [ "$rows" -lt 7 ] && pass "judge: $rows of 7 candidate rows in while the sweep runs" ||
        fail "judge: $rows candidate rows at '$(head -1 "$TMP/pane" | grep -oE 'judge sweep [0-9/]+')'"
else
    fail "judge: no step and counts in the title"
fi
wait_for "the judge's verdict" 400 && pass "judge: a verdict" || fail "judge: no verdict"
agree "judge"
grep -q 'promote advised' "$TMP/pane" && pass "judge: promote advised (20 ms less per call)" || fail "judge: not promote"
[ "$(cand_state "$name")" = evaluated ] && pass "store: undecided while the human reads" || fail "store: decided early"
runs=$(sql "SELECT count(*) FROM eval_runs r JOIN candidates c ON c.id = r.candidate_id WHERE c.name = '$name'")

# measure again
keys m
wait_for 'measure again' && wait_for "the judge's verdict" 400 && pass "measure again: a fresh verdict" ||
    fail "measure again"
agree "measure again"
[ "$(sql "SELECT count(*) FROM eval_runs r JOIN candidates c ON c.id = r.candidate_id WHERE c.name = '$name'")" -gt "$runs" ] &&
    pass "measure again: new eval runs of the same candidate" || fail "measure again: no new eval run"

# overrule the promote advice: reject, with a reason
keys o
keys 'noise suspected' Enter
wait_for "$name rejected \(the judge overruled\)" && pass "overrule: rejected" || fail "overrule: not rejected"
[ "$(cand_state "$name")" = rejected ] && pass "store: rejected" || fail "store: not rejected"
logq "candidate '$name' rejected: override: the judge advised promote .*the human decided reject: noise suspected" &&
    pass "kwb log: the override with verdict and decision" || fail "kwb log: no override"
report && grep -q "$name, rejected (override)" "$TMP/report.md" && pass "kwb report: marked override" ||
    fail "kwb report: no override mark"
archive_refs | grep -q "refs/kwb/rejected/demo-$name" && pass "archive: rejected ref" || fail "archive: no rejected ref"

# undo the override: the verdict is in front again; redo it
keys u
wait_for "undone: candidate $name rejected" && pass "undo: the rejection taken back" || fail "undo"
wait_for "promote advised" && agree "undo" || fail "undo: the verdict is not in front"
[ "$(cand_state "$name")" = evaluated ] && pass "store: evaluated again" || fail "store: $(cand_state "$name")"
archive_refs | grep -q "refs/kwb/rejected/demo-$name" && fail "archive: rejected ref still there" ||
    pass "archive: the rejected ref is gone"
logq "undo: candidate '$name' rejected taken back" && pass "kwb log: the undo" || fail "kwb log: no undo"
keys U
wait_for "redone: candidate $name rejected" && pass "redo: rejected again" || fail "redo"
[ "$(cand_state "$name")" = rejected ] && archive_refs | grep -q "refs/kwb/rejected/demo-$name" &&
    pass "store and archive: rejected again" || fail "redo: store or archive"
keys u
wait_for "undone: candidate $name rejected" || fail "undo again"

# accept the verdict: promoted; undo and redo the promotion
keys a
wait_for "$name promoted[;,]" && pass "accept: promoted as advised" || fail "accept"
[ "$(cand_state "$name")" = promoted ] && pass "store: promoted" || fail "store: not promoted"
wait_for "best $name" && pass "title: the best is $name" || fail "title: best"
ntags=$(archive_refs | grep -c 'refs/tags/')
[ "$ntags" -ge 2 ] && pass "archive: promotion tags ($ntags)" || fail "archive: $ntags tags"
report && grep -q "$name, promoted" "$TMP/report.md" && pass "kwb report: promoted" || fail "kwb report: promoted"
propose_has "${cand%%=*}=" && pass "kwb propose: goes on from $name" || fail "kwb propose"
keys u
wait_for "undone: candidate $name promoted" && pass "undo: the promotion taken back" || fail "undo promotion"
wait_for "best start" && pass "title: the best is start again" || fail "title: best after undo"
[ "$(cand_state "$name")" = evaluated ] && pass "store: evaluated" || fail "store: $(cand_state "$name")"
[ "$(archive_refs | grep -c 'refs/tags/')" -eq $((ntags - 1)) ] && pass "archive: the promotion tag is gone" ||
    fail "archive: tag still there"
report && ! grep -q "$name, promoted" "$TMP/report.md" && pass "kwb report: no longer claims it" ||
    fail "kwb report: still claims the undone promotion"
logq "^2 .* start +[0-9.]+" && pass "kwb log: round 2's best after is start" || fail "kwb log: best after"
keys U
wait_for "redone: candidate $name promoted" && pass "redo: promoted again" || fail "redo promotion"
[ "$(cand_state "$name")" = promoted ] && [ "$(archive_refs | grep -c 'refs/tags/')" -eq "$ntags" ] &&
    pass "store and archive: promoted again" || fail "redo: store or archive"
wait_for 'round 3: choose a direction' && pass "round 3: one numbering (title)" || fail "round 3"
logq "^2 +$cand +done +$name" && pass "kwb log: round 2 is $name's" || fail "kwb log: numbering"

# round 3: reject a direction, undo, redo
keys x
keys 'not now' Enter
wait_for 'rejected: not now' || fail "reject a direction"
dir3=$(sql "SELECT title FROM directions WHERE state = 'rejected' AND id = (SELECT max(id) FROM directions)")
propose_has "$dir3" && fail "kwb propose still offers $dir3" || pass "reject: kwb propose leaves $dir3 out"
keys u
wait_for "undone: direction $dir3 rejected" && pass "undo: the direction's rejection taken back" || fail "undo direction"
propose_has "$dir3" && pass "kwb propose offers $dir3 again" || fail "kwb propose: $dir3 missing after undo"
wait_for "pending +$dir3 " && pass "screen: $dir3 pending again" || fail "screen: $dir3 not pending"
keys U
wait_for "redone: direction $dir3 rejected" && pass "redo: rejected again" || fail "redo direction"
propose_has "$dir3" && fail "kwb propose offers $dir3 after redo" || pass "kwb propose leaves $dir3 out again"

# the next direction: edit it slow (6 ms sleep), the judge advises reject, overrule: promote
wait_for 'round 3: choose a direction' || fail "round 3 choose"
keys Enter
wait_for 'written: a accepts' || fail "round 3: written"
keys e
wait_for 'gdn_decode_fast.c" [0-9]+L' || fail "round 3: vi"
keys ':%s/\/\* kwb-test-slot \*\//usleep(20000);/' Enter
keys ':wq' Enter
wait_for 'edited: the diff is fresh' || fail "round 3: rediff"
keys a
wait_for 'reject advised' 400 && pass "judge: reject advised (20 ms more per call)" || fail "judge: not reject"
agree "round 3 judge"
name3=$(sql "SELECT name FROM candidates WHERE state = 'evaluated' ORDER BY id DESC LIMIT 1")
keys o
keys 'trust me' Enter
wait_for "$name3 promoted \(the judge overruled\)" && pass "overrule: promoted against the advice" || fail "overrule promote"
logq "candidate '$name3' promoted: override: the judge advised reject" && pass "kwb log: override" || fail "kwb log"
report && grep -q "$name3, promoted (override)" "$TMP/report.md" && pass "kwb report: override" || fail "kwb report"

# kill -9 in the middle of a judge: kwb tui starts again at that judge
wait_for 'round 4: choose a direction' || fail "round 4"
keys Enter
wait_for 'written: a accepts' || fail "round 4: written"
before=$(sql "SELECT count(*) FROM eval_runs")
keys a
wait_for 'build and judge' || fail "round 4: judging"
for i in $(seq 1200); do # until the judge's gate is recording (the candidate is in the store)
    [ "$(sql "SELECT count(*) FROM eval_runs")" -gt "$before" ] && break
    sleep 0.2
done
tui=$(cat "$TMP/tui.pid")
kids=$(descendants "$tui")
kill -9 "$tui" $kids
name4=$(sql "SELECT name FROM candidates ORDER BY id DESC LIMIT 1")
[ "$(cand_state "$name4")" = new ] || [ "$(cand_state "$name4")" = evaluated ] &&
    pass "kill -9: $name4 is undecided in the store" || fail "kill -9: $name4 is $(cand_state "$name4")"
start_tui 2
wait_for "resuming: $name4 \(round 4\) is judged again" && pass "kill -9: resumed at the judge of $name4" ||
    fail "kill -9: not resumed"
wait_for "the judge's verdict" 400 && pass "kill -9: the verdict comes" || fail "kill -9: no verdict"
agree "resumed"

# kill -9 after the verdict: kwb tui shows the verdict recorded before, it does not judge again
runs=$(sql "SELECT count(*) FROM eval_runs")
tui=$(cat "$TMP/tui.pid")
kill -9 "$tui" $(descendants "$tui")
start_tui 3
wait_for "resuming: $name4 \(round 4\) at the verdict recorded before kwb stopped" &&
    pass "kill -9 after the verdict: resumed at the recorded verdict" || fail "kill -9 after the verdict: not at it"
agree "resumed at the verdict"
if grep -q 'judge: started' "$TMP/pane" || [ "$(sql "SELECT count(*) FROM eval_runs")" != "$runs" ]; then
    fail "resumed at the verdict: judged again (eval runs $runs -> $(sql "SELECT count(*) FROM eval_runs"))"
else
    pass "resumed at the verdict: no evaluation ran again"
fi

# undo, kill -9, start again: the redo stack is in the store, so redo still works
keys a
wait_for "$name4 (promoted|rejected)[;,]" || fail "round 4: decided"
decided=$(cand_state "$name4")
keys u
wait_for "undone: candidate $name4 $decided" || fail "round 4: undo"
[ "$(sql "SELECT count(*) FROM redo")" -ge 1 ] && pass "store: the undone decision is kept for redo" || fail "store: no redo rows"
tui=$(cat "$TMP/tui.pid")
kill -9 "$tui" $(descendants "$tui")
start_tui 4
wait_for "resuming: $name4 \(round 4\) at the verdict recorded" || fail "after undo and kill -9: not at the verdict"
keys U
wait_for "redone: candidate $name4 $decided" && pass "redo after kill -9 and a restart: $name4 $decided again" ||
    fail "redo after a restart"
[ "$(cand_state "$name4")" = "$decided" ] && [ "$(sql "SELECT count(*) FROM redo")" = 0 ] &&
    pass "store: $name4 $decided, the redo stack empty" || fail "store after redo: $(cand_state "$name4"), redo rows $(sql "SELECT count(*) FROM redo")"
keys U
wait_for "nothing to redo" && pass "redo again: nothing to redo" || fail "redo again"
finish
