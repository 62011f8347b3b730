#!/bin/bash
# Issue 19 item 10: --quiet silences the build and scan notes; "binding": 5 is refused; a solution
# for another definition names solution.json's line; kwb.conf's `source DIR` says "is a folder".
. "$top_srcdir/tests/lib.sh"
make_dataset "$TMP/ds" 1
make_candidate "$TMP/scanned" scanned 'if (B < 0) { FILE *f = fopen("/etc/hostname", "r"); if (f) fclose(f); }'
ev() { "$KWB" eval --dataset "$TMP/ds" --definition "$DEF" --trials 1 --max-time 0.02 "$@"; }
ev --solution "$TMP/scanned" >"$TMP/loud" 2>&1
expect_grep 'kwb eval: scan: ' "$TMP/loud" "without --quiet the scan's findings are shown"
ev --solution "$TMP/scanned" --quiet >"$TMP/quiet.out" 2>"$TMP/quiet.err"
expect_code 0 "$?" "--quiet eval"
expect_no_grep 'cached build|built [0-9a-f]+ in|scan' "$TMP/quiet.err" "--quiet: no build or scan notes"
[ -s "$TMP/quiet.out" ] && pass "the table is still printed" || fail "no table with --quiet"

cp -r "$KERNELS/baseline" "$TMP/bind"
sed -i 's/"binding": "kwb"/"binding": 5/' "$TMP/bind/solution.json"
ev --solution "$TMP/bind" >"$TMP/bind.out" 2>&1
expect_code 2 "$?" '"binding": 5'
line=$(grep -n '"binding"' "$TMP/bind/solution.json" | cut -d: -f1)
expect_grep "solution.json:$line: 'spec.binding' must be the string \"kwb\"" "$TMP/bind.out" "names file, line and problem"

cp -r "$KERNELS/baseline" "$TMP/other"
sed -i 's/"definition": "[^"]*"/"definition": "some_other_def"/' "$TMP/other/solution.json"
ev --solution "$TMP/other" >"$TMP/other.out" 2>&1
expect_code 2 "$?" "a solution for another definition"
line=$(grep -n '"definition"' "$TMP/other/solution.json" | cut -d: -f1)
expect_grep "solution.json:$line: solution is for 'some_other_def'" "$TMP/other.out" "names the line"

mkdir -p "$TMP/home/.config/kwb"
printf 'source %s\n' "$TMP" >"$TMP/conf"
KWB_CONFIG="$TMP/conf" HOME="$TMP/home" "$KWB" tui --check-config >"$TMP/conf.out" 2>&1
expect_grep "conf:1: source $TMP: is a folder, not a file" "$TMP/conf.out" "source DIR: is a folder"
finish
