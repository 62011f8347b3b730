#!/bin/bash
# The workbench's configuration takes effect, through a real terminal (tmux): each documented
# `set` (line-graphics, mouse, theme, diff-mode) and `color` line from a file ($KWB_CONFIG) and from
# the `:` prompt, checked on the screen: ASCII borders, the pane's mouse flags, the theme's colour
# codes and a colour override in `capture-pane -e`. An unknown theme is refused with FILE:LINE
# (and at the prompt by name); --check-config prints what it loaded. TERM=vt100 gets ASCII borders
# and a clean screen after quitting.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/tui_lib.sh"
command -v tmux >/dev/null || fail "tmux not found (scripts/bootstrap installs it)"
utf8=$(locale -a 2>/dev/null | grep -i -m1 -E '^c\.utf-?8$|utf-?8$')
[ -n "$utf8" ] || utf8=C.UTF-8
SOCK="kwbconf$$"
trap 'tmux -L "$SOCK" kill-server 2>/dev/null; remove_tmp' EXIT

wait_for() { tmux_wait "$1" 120 "${2:-}"; } # PATTERN [capture flags]
starts=0
start() { # ENV...: kwb tui in a fresh tmux server at 120x32
    tmux -L "$SOCK" kill-server 2>/dev/null
    starts=$((starts + 1))
    SOCK="kwbconf$$-$starts"
    "$KWB" init "$TMP/ws$starts" >/dev/null 2>&1 || fail "init" # a workspace each: no session shared
    tmux -L "$SOCK" -f /dev/null new-session -d -s w -x 120 -y 32 \
        "env LANG=$utf8 $* XDG_STATE_HOME=$TMP/state KWB_WORKSPACE=$TMP/ws$starts KWB_CACHE_DIR=$KWB_CACHE_DIR $KWB tui --definition $DEF --solution $KERNELS/fast --workloads batch_size=16 --max-time 0.05 2>$TMP/stderr; echo kwb-exited-\$?; sleep 60"
    tmux -L "$SOCK" set-option -g remain-on-exit on >/dev/null 2>&1
    wait_for ' 1 workloads' || fail "the workbench did not come up ($*)"
    wait_for 'choose a direction' || fail "the start was not judged ($*)" # nothing in flight from here
}
mouse() { tmux -L "$SOCK" display -p -t w '#{mouse_any_flag}#{mouse_button_flag}#{mouse_standard_flag}'; }
cmd() { tmux -L "$SOCK" send-keys -t w ":$1" Enter; }
# the title bar (class status-line) with its escapes
status_row() { tmux -L "$SOCK" capture-pane -p -e -t w | head -1; }

# from a file
cat >"$TMP/a.conf" <<'CONF'
set line-graphics = ascii
set mouse = yes
set theme = default-8
set diff-mode = unified
color status-line yellow magenta bold
CONF
KWB_CONFIG="$TMP/a.conf" "$KWB" tui --check-config >"$TMP/cc.out" 2>"$TMP/cc.err"
expect_code 0 "$?" "--check-config: the file parses"
expect_grep '^set line-graphics = ascii$' "$TMP/cc.out" "--check-config prints line-graphics"
expect_grep '^set mouse = yes$' "$TMP/cc.out" "--check-config prints mouse"
expect_grep '^set theme = default-8$' "$TMP/cc.out" "--check-config prints the theme"
expect_grep '^set diff-mode = unified$' "$TMP/cc.out" "--check-config prints diff-mode"
expect_grep '^color status-line ' "$TMP/cc.out" "--check-config prints the colour override"
start TERM=xterm-256color KWB_CONFIG="$TMP/a.conf"
grep -q '│' "$TMP/pane" && fail "file: line-graphics = ascii, yet UTF-8 borders" || pass "file: ASCII borders"
grep -q '|' "$TMP/pane" && pass "file: '|' borders" || fail "file: no borders"
[ "$(mouse)" != 000 ] && pass "file: mouse = yes sets the pane's mouse flags ($(mouse))" || fail "file: mouse flags $(mouse)"
tmux -L "$SOCK" capture-pane -p -e -t w >"$TMP/esc"
grep -q '38;5;' "$TMP/esc" && fail "file: theme default-8, yet 256-colour codes" || pass "file: theme default-8 (no 38;5;N)"
status_row | grep -Eq $'\e\\[[0-9;]*33[;m]' && status_row | grep -Eq $'\e\\[[0-9;]*45[;m]' &&
    pass "file: color status-line yellow magenta" || fail "file: the status line's colours: $(status_row | od -c | head -3)"

# from the prompt, starting from the defaults
printf '' >"$TMP/empty.conf"
start TERM=xterm-256color KWB_CONFIG="$TMP/empty.conf"
wait_for '│' && pass "defaults: UTF-8 borders" || fail "defaults: borders"
[ "$(mouse)" = 000 ] && pass "defaults: no mouse" || fail "defaults: mouse flags $(mouse)"
wait_for '38;5;' -e && pass "defaults: theme default-256" || fail "defaults: no 256-colour codes"
cmd 'set line-graphics = ascii'
wait_for 'line-graphics = ascii: applied' && ! grep -q '│' "$TMP/pane" && pass ":set line-graphics = ascii: ASCII borders" ||
    fail ":set line-graphics = ascii"
cmd 'set mouse = yes'
wait_for 'mouse = yes: applied' && [ "$(mouse)" != 000 ] && pass ":set mouse = yes: mouse flags on" || fail ":set mouse $(mouse)"
cmd 'set mouse = no'
wait_for 'mouse = no: applied' && [ "$(mouse)" = 000 ] && pass ":set mouse = no: mouse flags off" || fail ":set mouse = no $(mouse)"
cmd 'set theme = default-8'
wait_for 'theme = default-8: applied' && sleep 0.5 && tmux -L "$SOCK" capture-pane -p -e -t w >"$TMP/esc" &&
    ! grep -q '38;5;' "$TMP/esc" && pass ":set theme = default-8: 8-colour codes only" || fail ":set theme"
cmd 'color status-line yellow magenta'
wait_for 'status-line yellow magenta: applied' && status_row | grep -Eq $'\e\\[[0-9;]*45[;m]' &&
    pass ":color status-line: applied" || fail ":color status-line"
cmd 'set diff-mode = unified'
wait_for 'diff-mode = unified: applied' && pass ":set diff-mode = unified" || fail ":set diff-mode"
cmd 'set theme = nosuch'
wait_for "unknown theme 'nosuch'" && pass ":set theme = nosuch: refused by name" || fail ":set theme = nosuch"

# an unknown theme in a file: FILE:LINE
printf 'set mouse = no\nset theme = nosuch default-8\n' >"$TMP/bad.conf"
KWB_CONFIG="$TMP/bad.conf" "$KWB" tui --check-config >/dev/null 2>"$TMP/bad.err"
expect_code 1 "$?" "--check-config: an unknown theme exits 1"
expect_grep "bad.conf:2: set theme: unknown theme 'nosuch'" "$TMP/bad.err" "the unknown theme named at FILE:LINE"

# vt100: ASCII borders, and the screen clean after quitting
start TERM=vt100 KWB_CONFIG="$TMP/empty.conf"
grep -q '│' "$TMP/pane" && fail "vt100: UTF-8 borders" || pass "vt100: ASCII borders"
tmux -L "$SOCK" send-keys -t w q
sleep 0.5
tmux -L "$SOCK" send-keys -t w y
wait_for 'kwb-exited-' && ! grep -q 'workloads' "$TMP/pane" && pass "vt100: the screen is clean after quitting" ||
    fail "vt100: the workbench stayed on the screen"
finish
