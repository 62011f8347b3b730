#!/bin/bash
# The man pages keep step with the command line: every command `kwb --help` lists is described
# in the COMMANDS part of kwb(1) (a .SS of its own or a "kwb NAME" entry there), and every long
# option a command's --help shows (and kwb-runner's) appears in kwb(1) or kwb-runner(1) (the
# synopsis counts). Reads the programs' own help, so a new command or option with no
# documentation fails here.
. "$top_srcdir/tests/lib.sh"
man="$top_srcdir/man/kwb.1.in"
runner_man="$top_srcdir/man/kwb-runner.1.in"

# documented PAGE OPTION: OPTION (without its dashes) appears as \-\-OPTION in the roff source PAGE.
documented() {
    local escaped
    escaped=$(printf '%s' "$2" | sed 's/-/\\\\-/g')
    grep -q -- "\\\\-\\\\-$escaped\\b" "$1"
}

# options_of HELP_FILE: the long options a help text shows, one per line.
options_of() {
    grep -oE -- '--[a-z][a-z-]*' "$1" | sed 's/^--//' | sort -u
}

"$KWB" --help >"$TMP/help" 2>&1
commands=$(awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }' "$TMP/help")
[ "$(echo "$commands" | wc -w)" -ge 10 ] && pass "kwb --help lists $(echo "$commands" | wc -w) commands" ||
    fail "kwb --help lists too few commands: $commands"
# the COMMANDS part of kwb(1): from its .SH to the next .SH
awk '/^\.SH / { on = ($0 ~ /^\.SH COMMANDS/) } on' "$man" >"$TMP/commands.roff"
missing=
for c in $commands; do
    grep -Eq "^\\.SS $c\$|^\\.BI? \"?kwb $c\\b" "$TMP/commands.roff" || missing="$missing $c"
    "$KWB" "$c" --help >"$TMP/$c.help" 2>&1
    for o in $(options_of "$TMP/$c.help"); do
        documented "$man" "$o" || missing="$missing $c:--$o"
    done
done
[ -z "$missing" ] && pass "kwb(1) describes every command under COMMANDS and shows every option their help shows" ||
    fail "not in kwb(1):$missing"

"$KWB_RUNNER" --help >"$TMP/runner.help" 2>&1
missing=
for o in $(options_of "$TMP/runner.help"); do
    documented "$runner_man" "$o" || missing="$missing --$o"
done
[ -z "$missing" ] && pass "kwb-runner(1) describes every option of kwb-runner --help" ||
    fail "not in kwb-runner(1):$missing"

# the check itself can fail: an option nobody documented is found
printf 'usage: kwb frobnicate [--no-such-option-documented]\n' >"$TMP/fake.help"
undocumented=0
for o in $(options_of "$TMP/fake.help"); do documented "$man" "$o" || undocumented=1; done
[ $undocumented = 1 ] && pass "an undocumented option is noticed" || fail "the check misses an undocumented option"
grep -Eq "^\\.SS frobnicate\$|^\\.BI? \"?kwb frobnicate\\b" "$TMP/commands.roff" &&
    fail "the check misses an undocumented command" || pass "an undocumented command is noticed"
finish
