#!/bin/bash
# kwb tui in script mode on a session made by kwb run: keys move the focus and the selection, /
# filters the table by a regular expression (Esc clears it), sorting, the help generated from the
# request table (with a rebinding from the config), "terminal too small", a rejected direction
# with its reason in the store and undone (the decision taken back, the log saying so), the help
# scrolled within itself, a candidate edited in $EDITOR (a fake one) and declined
# at review, bad config lines named FILE:LINE (--check-config),
# every request documented in kwb(1) and every kwb.conf(5) example parsing, and the message when
# stdin is not a terminal.
. "$top_srcdir/tests/lib.sh"
export KWB_WORKSPACE="$TMP/ws"
"$KWB" init "$TMP/ws" >/dev/null 2>&1 || fail "init"
cp -r "$KERNELS/fast" "$TMP/start"
"$KWB" run --definition "$DEF" --workloads batch_size=16 --max-time 0.2 --solution "$TMP/start" --session s \
    --auto --rounds 1 >/dev/null 2>"$TMP/run.err" || { fail "a session"; cat "$TMP/run.err" >&2; }
printf 'bind generic <F2> help\n' >"$TMP/conf"
export KWB_CONFIG="$TMP/conf"
cat >"$TMP/keys.script" <<SCRIPT
:select workloads 0
j j
:dump-model $TMP/m1
# repaint by marking: a step in the table draws the table again and nothing else
:dump-model $TMP/d1
j
:dump-model $TMP/d2
k
# sideways in the focused view, both ways, whichever it is
<Right> <Right>
:dump-model $TMP/s1
<Left>
:dump-model $TMP/s2
<Left>
:select log 0
<Right>
:dump-model $TMP/s3
<Left>
:select workloads 2
# Enter: a row in full (the whole uuid), then a bottleneck line in full
<Enter>
:dump-screen $TMP/full-row.txt
q
:select bottleneck 1
<Enter>
:dump-screen $TMP/full-bn.txt
q
:select workloads 2
# columns sized to their content; a wide terminal's extra width goes to the log and proposals
:resize 120x40
:dump-screen $TMP/w120.txt
:dump-model $TMP/w120.model
:resize 200x60
:dump-model $TMP/w200.model
:resize 80x24
/ 63d4 <Enter>
:dump-model $TMP/m2
<Esc>
:dump-model $TMP/m3
:sort speedup desc
:dump-model $TMP/m4
<Tab> <Tab>
:dump-model $TMP/m5
<F2>
:dump-screen $TMP/help.txt
<PgDn>
:dump-screen $TMP/help2.txt
:dump-model $TMP/mhelp
G
:dump-screen $TMP/help3.txt
q
:resize 60x20
:dump-screen $TMP/small.txt
:resize 80x24
:select proposals 0
x not<Space>now <Enter>
:dump-model $TMP/m6
u
:dump-model $TMP/m7
:select proposals 0
a
:dump-model $TMP/m8
e
G
:dump-screen $TMP/edited.txt
x edited<Space>away <Enter>
:dump-model $TMP/m9
:sort
:no-such-command
SCRIPT
printf '#!/bin/sh\necho "$1" >>"%s/editor.log"\nprintf "/* edited by the fake editor */\\n" >>"$1"\n' "$TMP" >"$TMP/fake-editor"
chmod +x "$TMP/fake-editor"
VISUAL= EDITOR="$TMP/fake-editor" KWB_SCRIPT="$TMP/keys.script" timeout 120 "$KWB" tui --session s >"$TMP/out" 2>"$TMP/err"
expect_code 1 "$?" "a script with a bad command exits 1"
expect_grep 'keys.script:[0-9]+: .*unknown command' "$TMP/err" "the bad command is named FILE:LINE"
expect_grep '^pane workloads rows 7 sel 2' "$TMP/m1" "j j moves the selection"
draws() { sed -n "s/^draws.* $2 \([0-9]*\).*/\1/p" "$1"; }
[ "$(($(draws "$TMP/d2" workloads) - $(draws "$TMP/d1" workloads)))" -eq 1 ] &&
    [ "$(draws "$TMP/d2" log)" = "$(draws "$TMP/d1" log)" ] && [ "$(draws "$TMP/d2" proposals)" = "$(draws "$TMP/d1" proposals)" ] &&
    [ "$(draws "$TMP/d2" bottleneck)" = "$(draws "$TMP/d1" bottleneck)" ] &&
    pass "j repaints the table's view only (views marked, not the screen)" ||
    fail "j repainted: $(grep ^draws "$TMP/d1") -> $(grep ^draws "$TMP/d2")"
expect_grep '^pane workloads rows 7 sel 2 top 0 hscroll [1-9][0-9]* ' "$TMP/s1" "Right scrolls the focused table sideways"
expect_grep '^pane diff .* hscroll 0 ' "$TMP/s1" "Right leaves the diff when the table has the focus"
expect_grep '^pane workloads .* hscroll [1-9]' "$TMP/s2" "Left scrolls back one step"
expect_grep '^pane log .* hscroll [1-9]' "$TMP/s3" "Right scrolls the focused log sideways"
expect_grep '^ workload [0-9a-f]{8}-[0-9a-f]{4}-' "$TMP/full-row.txt" "Enter: the row in full, the whole uuid"
expect_grep '^ kwb: in full' "$TMP/full-row.txt" "Enter: the detail view"
expect_grep '^ 16-16: .*roofline [0-9]+%, 7 wl, [0-9]+% of time$' "$TMP/full-bn.txt" "Enter: a bottleneck line in full"
expect_grep '^[0-9a-f]{8} batch_size=16 ' "$TMP/w120.txt" "120x40: the axes column holds the whole axes"
wl200=$(sed -n 's/^pane workloads .* width \([0-9]*\).*/\1/p' "$TMP/w200.model")
log200=$(sed -n 's/^pane log .* width \([0-9]*\).*/\1/p' "$TMP/w200.model")
[ -n "$wl200" ] && [ "$wl200" -lt 100 ] && [ "$log200" -gt 100 ] &&
    pass "200x60: the table takes what it needs ($wl200), the log the rest ($log200)" ||
    fail "200x60: table $wl200, log $log200 columns"
expect_grep '^pane workloads rows 1 ' "$TMP/m2" "/ filters the table"
expect_grep '^filter 63d4' "$TMP/m2" "the filter is kept"
expect_grep '^pane workloads rows 7 ' "$TMP/m3" "Esc clears the filter"
expect_grep '^sort speedup desc' "$TMP/m4" ":sort"
expect_grep '^focus proposals' "$TMP/m5" "Tab Tab: bottleneck, then proposals"
expect_grep '<F2> <F1> *help|\? <F1> <F2> *help|<F2>.*help' "$TMP/help.txt" "help lists the config's binding"
cat "$TMP/help.txt" "$TMP/help2.txt" "$TMP/help3.txt" >"$TMP/help-all.txt"
# one table of ':' commands: the help lists each with its arguments, the dispatch checks them
missing=""
while IFS='|' read -r name args; do
    grep -qF " :$name${args:+ $args}  " "$TMP/help-all.txt" || missing="$missing :$name"
done < <(sed -n 's/^ *X([A-Z_]*, "\([a-z-]*\)", "\([^"]*\)".*/\1|\2/p' "$top_srcdir/src/tui/command.h")
[ -z "$missing" ] && [ "$(grep -c '^ *X([A-Z_]*, "' "$top_srcdir/src/tui/command.h")" -ge 17 ] &&
    pass "the help lists every ':' command of the table with its arguments" || fail "the help lacks:$missing"
expect_grep 'keys.script:[0-9]+: :sort: usage: :sort COLUMN \[desc\]' "$TMP/err" "a command without its arguments: its usage from the table"
expect_grep 'x d +reject +reject the direction' "$TMP/help-all.txt" "help comes from the request table"
expect_grep '^ lines 1-22 of [0-9]+: ' "$TMP/help.txt" "help at 80x24: a page and where it is"
expect_grep '^ lines 2[0-9]-' "$TMP/help2.txt" "PgDn scrolls the help within itself"
expect_grep '^help 1' "$TMP/mhelp" "PgDn leaves the help open"
expect_grep '^terminal too small: 80x24 needed, 60x20 here' "$TMP/small.txt" "too small"
expect_grep '^proposal rejected .* : not now' "$TMP/m6" "x asks the reason and keeps it"
db="$TMP/ws/kwb.db"
[ "$(sqlite3 "$db" "SELECT count(*) FROM log WHERE text LIKE 'direction % rejected: not now'")" -eq 1 ] &&
    pass "store: the rejection and its reason (log)" || fail "store: rejection"
expect_grep '^proposal pending' "$TMP/m7" "u: the direction is pending again"
[ "$(sqlite3 "$db" "SELECT count(*) FROM log WHERE text LIKE 'undo: direction % rejected taken back'")" -eq 1 ] &&
    [ "$(sqlite3 "$db" "SELECT count(*) FROM decisions WHERE reason = 'not now'")" -eq 0 ] &&
    pass "store: the undo took the decision back and is in the log" || fail "store: undo"

expect_grep '^step review' "$TMP/m8" "a: the agent wrote a candidate to review"
expect_grep 'gdn_decode_fast\.c$' "$TMP/editor.log" "e: \$EDITOR got the changed file"
expect_grep 'edited by the fake editor' "$TMP/edited.txt" "e: the diff is fresh after the edit"
expect_grep '^step choose' "$TMP/m9" "x at review: back to the directions"
[ "$(sqlite3 "$db" "SELECT count(*) FROM decisions WHERE reason = 'candidate declined at review: edited away'")" -eq 1 ] &&
    pass "store: the candidate declined at review, with the reason" || fail "store: review rejection"

# config errors: FILE:LINE, the rest applies; --check-config exits 1
printf 'set diff-mode = unified\nset nope = 1\nbind diff <Bogus> accept\n' >"$TMP/bad.conf"
KWB_CONFIG="$TMP/bad.conf" "$KWB" tui --check-config 2>"$TMP/cc.err"
expect_code 1 "$?" "--check-config: exit 1 on errors"
expect_grep "bad.conf:2: set: unknown option 'nope'" "$TMP/cc.err" "config error at FILE:2"
expect_grep "bad.conf:3: bind: unknown key '<Bogus>'" "$TMP/cc.err" "config error at FILE:3"
sed -n '/^\.SH EXAMPLES/,/^\.fi/p' "$top_srcdir/man/kwb.conf.5.in" | sed '1,2d;$d' | sed 's/\\-/-/g' |
    grep -v '^source' >"$TMP/example.conf"
KWB_CONFIG="$TMP/example.conf" "$KWB" tui --check-config 2>"$TMP/ex.err"
expect_code 0 "$?" "every example of kwb.conf(5) parses"
KWB_CONFIG=/dev/null "$KWB" tui --check-config
expect_code 0 "$?" "an empty config"

# every request is documented in kwb(1)
missing=""
for r in $(sed -n 's/^ *X([A-Z_]*, "\([a-z-]*\)".*/\1/p' "$top_srcdir/src/tui/request.h"); do
    grep -q -- "$r" "$top_srcdir/man/kwb.1.in" || missing="$missing $r"
done
[ -z "$missing" ] && pass "kwb(1) documents every request" || fail "kwb(1) lacks:$missing"

# no terminal and no script: a clear message (exit 2), or the headless rounds when told what to run
unset KWB_SCRIPT
"$KWB" tui --session s </dev/null >"$TMP/nt.out" 2>"$TMP/nt.err"
expect_code 2 "$?" "no terminal: exit 2"
expect_grep 'stdin is not a terminal' "$TMP/nt.err" "no terminal: said"
"$KWB" </dev/null >/dev/null 2>"$TMP/bare.err"
expect_grep 'stdin is not a terminal' "$TMP/bare.err" "kwb alone is the workbench"
finish
