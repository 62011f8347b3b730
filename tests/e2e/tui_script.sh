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
:no-such-command
SCRIPT
printf '#!/bin/sh\necho "$1" >>"%s/editor.log"\nprintf "/* edited by the fake editor */\\n" >>"$1"\n' "$TMP" >"$TMP/fake-editor"
chmod +x "$TMP/fake-editor"
VISUAL= EDITOR="$TMP/fake-editor" KWB_SCRIPT="$TMP/keys.script" timeout 120 "$KWB" tui --session s >"$TMP/out" 2>"$TMP/err"
expect_code 1 "$?" "a script with a bad command exits 1"
expect_grep 'keys.script:[0-9]+: .*unknown command' "$TMP/err" "the bad command is named FILE:LINE"
expect_grep '^pane workloads rows 7 sel 2' "$TMP/m1" "j j moves the selection"
expect_grep '^pane workloads rows 1 ' "$TMP/m2" "/ filters the table"
expect_grep '^filter 63d4' "$TMP/m2" "the filter is kept"
expect_grep '^pane workloads rows 7 ' "$TMP/m3" "Esc clears the filter"
expect_grep '^sort speedup desc' "$TMP/m4" ":sort"
expect_grep '^focus proposals' "$TMP/m5" "Tab Tab: bottleneck, then proposals"
expect_grep '<F2> <F1> *help|\? <F1> <F2> *help|<F2>.*help' "$TMP/help.txt" "help lists the config's binding"
cat "$TMP/help.txt" "$TMP/help2.txt" >"$TMP/help-all.txt"
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
