#!/bin/bash
# kwb tui through a real terminal (tmux, private server): the TERM and locale matrix
# (xterm-256color with UTF-8: box lines and 256-colour codes; screen: only the 8 colours; vt100 and
# NO_COLOR: no colour codes; LANG=C: an ASCII frame; dumb: a clear refusal), resize (80x24, "too
# small" at 40x10, back), the byte budget of one cursor move in the table (pipe-pane: under 1 KB)
# q quits, a crash (SIGSEGV) leaves with the terminal given back and the state saved in $XDG_STATE_HOME,
# SIGKILL leaves no file in TMPDIR. Polls for markers, never sleeps a fixed time.
. "$top_srcdir/tests/lib.sh"
command -v tmux >/dev/null || { echo "1..0 # SKIP tmux not found"; exit 77; }
export KWB_WORKSPACE="$TMP/ws"
"$KWB" init "$TMP/ws" >/dev/null 2>&1 || fail "init"
cp -r "$KERNELS/fast" "$TMP/start"
"$KWB" run --definition "$DEF" --workloads batch_size=16 --max-time 0.2 --solution "$TMP/start" --session t \
    --auto --rounds 1 >/dev/null 2>"$TMP/run.err" || { fail "a session to look at"; cat "$TMP/run.err" >&2; }
SOCK="kwbtest$$"
trap 'tmux -L "$SOCK" kill-server 2>/dev/null; remove_tmp' EXIT
utf8=$(locale -a 2>/dev/null | grep -i -m1 -E '^c\.utf-?8$|utf-?8$')

# wait_for PATTERN [capture flags]: polls the pane (0.1 s steps, 30 s at most) for PATTERN.
wait_for() {
    local i
    for i in $(seq 300); do
        tmux -L "$SOCK" capture-pane -p ${2:-} -t w >"$TMP/pane" 2>/dev/null
        grep -Eq -- "$1" "$TMP/pane" && return 0
        sleep 0.1
    done
    return 1
}
# start ENV...: a fresh window w at 100x30 running kwb tui with ENV.
starts=0
start() {
    tmux -L "$SOCK" kill-server 2>/dev/null
    starts=$((starts + 1))
    SOCK="kwbtest$$-$starts"   # a fresh server each time: no race with the one going away
    tmux -L "$SOCK" -f /dev/null new-session -d -s w -x 100 -y 30 \
        "env $* XDG_STATE_HOME=$TMP/state KWB_WORKSPACE=$KWB_WORKSPACE KWB_CACHE_DIR=$KWB_CACHE_DIR $KWB tui --session t 2>$TMP/stderr; echo kwb-exited-\$?; sleep 30"
    tmux -L "$SOCK" set-option -g remain-on-exit on >/dev/null 2>&1
}

if [ -n "$utf8" ]; then
    start TERM=xterm-256color LANG="$utf8"
    wait_for 'directions: a chooses' && pass "xterm-256color: the workbench is up" || fail "xterm-256color: not up"
    wait_for '│' && pass "UTF-8: box lines" || fail "UTF-8: no box lines"
    wait_for '38;5;[0-9]+' -e && pass "256 colours: 38;5;N codes" || fail "256 colours: no 38;5;N codes"

    # resize: 80x24 (the narrow layout), 40x10 (too small), back to 100x30
    tmux -L "$SOCK" resize-window -t w -x 80 -y 24
    wait_for '^ 1 workloads' && wait_for '^ 3 proposals' && pass "resize 80x24: the narrow layout" || fail "resize 80x24"
    tmux -L "$SOCK" resize-window -t w -x 40 -y 10
    wait_for 'terminal too small: 80x24 needed' && pass "resize 40x10: too small" || fail "resize 40x10"
    tmux -L "$SOCK" resize-window -t w -x 100 -y 30
    wait_for '^ 1 workloads' && pass "resize back to 100x30" || fail "resize back"

    # the byte budget: one cursor move in the workloads table
    tmux -L "$SOCK" send-keys -t w 1
    wait_for '^ 1 workloads' >/dev/null
    tmux -L "$SOCK" pipe-pane -t w -O "cat >> $TMP/bytes"
    sleep 0.3
    : >"$TMP/bytes"
    tmux -L "$SOCK" capture-pane -p -e -t w >"$TMP/before"
    tmux -L "$SOCK" send-keys -t w j
    for i in $(seq 100); do
        tmux -L "$SOCK" capture-pane -p -e -t w >"$TMP/after"
        cmp -s "$TMP/before" "$TMP/after" || break
        sleep 0.1
    done
    sleep 0.3
    move=$(stat -c %s "$TMP/bytes")
    : >"$TMP/bytes"
    tmux -L "$SOCK" send-keys -t w C-l
    sleep 0.5
    full=$(stat -c %s "$TMP/bytes")
    tmux -L "$SOCK" pipe-pane -t w
    echo "# bytes written at 100x30: cursor move (j) $move, full redraw (Ctrl-L) $full"
    [ "$move" -gt 0 ] && [ "$move" -lt 1024 ] && pass "j writes $move bytes (< 1 KB)" || fail "j writes $move bytes"
    [ "$full" -gt "$move" ] && pass "Ctrl-L repaints everything ($full bytes)" || fail "Ctrl-L: $full bytes"

    tmux -L "$SOCK" send-keys -t w q
    wait_for 'kwb-exited-0' && pass "q quits (exit 0)" || fail "q did not quit"
    [ ! -s "$TMP/stderr" ] && pass "nothing on stderr" || { fail "stderr"; cat "$TMP/stderr" >&2; }
    grep -q '^version 1' "$TMP/state/kwb/state" && [ "$(stat -c %a "$TMP/state/kwb/state")" = 600 ] &&
        pass "state saved in XDG_STATE_HOME (0600)" || fail "state file"

    # a crash: the terminal is given back (alternate screen left, cursor shown) by the signal handler
    start TERM=tmux-256color LANG="$utf8"
    wait_for 'directions: a chooses' >/dev/null
    [ "$(tmux -L "$SOCK" display -p -t w '#{alternate_on}')" = 1 ] && pass "up: the alternate screen is on" ||
        fail "up: no alternate screen"
    kwb_pid=$(pgrep -P "$(tmux -L "$SOCK" display -p -t w '#{pane_pid}')" -x kwb)
    kill -SEGV "$kwb_pid"
    wait_for 'kwb-exited-139' && pass "SIGSEGV: kwb died (139)" || fail "SIGSEGV: $(tail -3 "$TMP/pane")"
    [ "$(tmux -L "$SOCK" display -p -t w '#{alternate_on} #{cursor_flag}')" = "0 1" ] &&
        pass "SIGSEGV: the terminal is restored (alternate screen off, cursor on)" || fail "SIGSEGV: terminal not restored"

    start TERM=tmux-256color LANG="$utf8" NO_COLOR=1
    if wait_for 'directions: a chooses' -e && ! grep -Eq '\[[34][0-7]m|[34]8;5;' "$TMP/pane"; then
        pass "NO_COLOR: no colour codes"
    else
        fail "NO_COLOR: colour codes"; grep -Eo '.{20}(\[[34][0-7]m|[34]8;5;).{10}' "$TMP/pane" | head -3 >&2
    fi
else
    echo "# SKIP no UTF-8 locale: the UTF-8 and resize cases"
fi

start TERM=screen LANG=C
wait_for 'directions: a chooses' && pass "screen, LANG=C: up" || fail "screen: not up"
grep -q '│' "$TMP/pane" && fail "LANG=C: box lines" || pass "LANG=C: an ASCII frame"
wait_for '\|' && pass "LANG=C: | separators" || fail "LANG=C: no | separators"
wait_for '\[3[0-7]m|\[3[0-7];' -e && pass "screen: 8-colour codes" || fail "screen: no colour codes"
grep -q '38;5;' "$TMP/pane" && fail "screen: 256-colour codes" || pass "screen: no 256-colour codes"

mkdir -p "$TMP/tmpdir"
start TERM=vt100 LANG=C TMPDIR="$TMP/tmpdir"
wait_for "directions: a chooses" && pass "vt100: up" || { fail "vt100: not up"; cat "$TMP/pane" "$TMP/stderr" >&2; }
grep -Eq '\[3[0-7]m|38;5' "$TMP/pane" && fail "vt100: colour codes" || pass "vt100: no colour codes"
# SIGKILL (no handler runs): the file stderr went to had no name, nothing is left in TMPDIR
kill -KILL "$(pgrep -P "$(tmux -L "$SOCK" display -p -t w '#{pane_pid}')" -x kwb)"
wait_for 'kwb-exited-137' && pass "SIGKILL: kwb died (137)" || fail "SIGKILL: $(tail -3 "$TMP/pane")"
[ -z "$(ls -A "$TMP/tmpdir")" ] && pass "SIGKILL: nothing left in TMPDIR" || fail "SIGKILL: left $(ls -A "$TMP/tmpdir")"

start TERM=dumb LANG=C
wait_for 'kwb-exited' && grep -q 'kwb-exited-2' "$TMP/pane" && pass "dumb: refused (exit 2)" || fail "dumb: $(cat "$TMP/pane")"
grep -q 'cannot' "$TMP/stderr" && pass "dumb: the reason on stderr" || fail "dumb: no reason"
finish
