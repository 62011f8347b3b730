#!/bin/bash
# The HTML session report in a real browser: headless Chromium takes a screenshot of the page and
# dumps its DOM, which must hold the two charts and one table row per workload. The page comes
# from tests/unit/test_report (REPORT_HTML_OUT) until `kwb report` exists; the checks are
# functions so that the `kwb report` version can reuse them. Skips without chromium.
# KWB_KEEP_SCREENSHOT=PATH keeps a copy of the screenshot.
. "$top_srcdir/tests/lib.sh"

# The realistic model's workloads (tests/unit/test_report.c, realistic_workload).
REPORT_UUIDS="901e5104-3c1f-4f0a-9d3e-1a2b3c4d5e6f a47c2e19-88d0-4b61-b1c2-7f3e9a0d4c21
0f3d9b2a-5e71-4c8a-a6d4-2b9e8f1c7a30 6b8e1f47-0a2d-4d93-8c5b-e4f7a1b2c3d4 c2d4e6f8-1a3b-4c5d-9e7f-0a1b2c3d4e5f
3e5f7a9b-2c4d-4e6f-8a0b-1c2d3e4f5a6b d9c8b7a6-5f4e-4d3c-ab2a-190817263544 77aa88bb-99cc-4dde-8eff-001122334455"

# find_chromium: sets CHROMIUM to chromium or chromium-browser; returns 1 when neither is on PATH.
find_chromium() {
    CHROMIUM=$(command -v chromium || command -v chromium-browser) || return 1
}

# chromium_run ARGS...: headless Chromium with a throwaway profile under $TMP, at most 120 s.
chromium_run() {
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --user-data-dir="$TMP/chromium-profile" \
        --window-size=1200,1600 "$@"
}

# check_report_static HTML: self-contained (no scripts, no external references) and the ids present.
check_report_static() {
    expect_no_grep '<script|https?:|src=|href=|@import|url\(' "$1" "the page is self-contained"
    expect_grep 'id="speedup-chart"' "$1" "the page has the speedup chart"
    expect_grep 'id="latency-bars"' "$1" "the page has the latency bars"
    expect_grep '<table id="workloads">' "$1" "the page has the workloads table"
}

# check_report_screenshot HTML PNG: Chromium renders HTML to PNG, which must be over 10 KB.
check_report_screenshot() {
    chromium_run --screenshot="$2" "file://$1" >"$TMP/screenshot.log" 2>&1
    local size
    size=$(stat -c %s "$2" 2>/dev/null || echo 0)
    if [ "$size" -gt 10240 ]; then
        pass "screenshot $2 ($size bytes)"
    else
        fail "screenshot $2: $size bytes"
        tail -5 "$TMP/screenshot.log" >&2
    fi
}

# check_report_dom HTML DOM UUID...: the DOM Chromium builds from HTML has both svgs (with drawn
# content) and one workloads row per UUID.
check_report_dom() {
    local html=$1 dom=$2 uuid rows
    shift 2
    chromium_run --dump-dom "file://$html" >"$dom" 2>"$TMP/dom.log"
    expect_grep '<svg id="speedup-chart"' "$dom" "the DOM has the speedup chart"
    expect_grep '<svg id="latency-bars"' "$dom" "the DOM has the latency bars"
    expect_grep '<path class="step"' "$dom" "the speedup chart has its step line"
    expect_grep '<rect class="bar-best" x="[0-9.]+" y="[0-9.]+" width="[0-9.]+"' "$dom" "the latency chart has bars"
    for uuid in "$@"; do
        expect_grep "<tr class=\"st-(pass|fail)\" data-uuid=\"$uuid\">" "$dom" "a table row for $uuid"
    done
    rows=$(grep -o '<tr class="st-' "$dom" | wc -l)
    if [ "$rows" -eq "$#" ]; then pass "$rows workload rows"; else fail "$rows workload rows, wanted $#"; fi
}

# check_report_labels HTML WHAT: no two text labels of any chart overlap, as Chromium lays the page
# out (tests/fixtures/label_overlap.js, injected into a copy, measures every label's box).
check_report_labels() {
    python3 -c 'import sys; h = open(sys.argv[1]).read(); j = open(sys.argv[2]).read()
open(sys.argv[3], "w").write(h.replace("</body>", "<script>" + j + "</script></body>"))' \
        "$1" "$top_srcdir/tests/fixtures/label_overlap.js" "$TMP/probe.html"
    chromium_run --virtual-time-budget=5000 --dump-dom "file://$TMP/probe.html" >"$TMP/probe.dom" 2>"$TMP/probe.log"
    sed -n '/<pre id="overlaps">/,/<\/pre>/p' "$TMP/probe.dom" >"$TMP/overlaps"
    if grep -q '<pre id="overlaps">none</pre>' "$TMP/overlaps"; then
        pass "$2: no chart labels overlap"
    else
        fail "$2: overlapping labels: $(cat "$TMP/overlaps")"
    fi
}

if ! find_chromium; then
    echo "SKIP: no chromium"
    exit 77
fi

REPORT_HTML_OUT="$TMP/report.html" "$top_builddir/tests/unit/test_report" >"$TMP/unit.out" 2>&1
expect_code 0 "$?" "test_report writes the realistic report"
check_report_static "$TMP/report.html"
# shellcheck disable=SC2086
check_report_dom "$TMP/report.html" "$TMP/report.dom" $REPORT_UUIDS
check_report_screenshot "$TMP/report.html" "$TMP/r.png"
check_report_labels "$TMP/report.html" "realistic report"
REPORT_HTML_CROWDED_OUT="$TMP/crowded.html" "$top_builddir/tests/unit/test_report" >"$TMP/unit2.out" 2>&1
expect_code 0 "$?" "test_report writes the crowded report"
check_report_labels "$TMP/crowded.html" "twenty rounds on plateaus"

# The same checks on `kwb report` of a real session: two evaluations recorded in a workspace.
export KWB_WORKSPACE="$TMP/ws"
make_dataset "$TMP/ds" 1 2 4
"$KWB" init "$TMP/ws" >/dev/null 2>&1
for s in baseline fast; do
    "$KWB" eval --dataset "$TMP/ds" --definition "$DEF" --solution "$KERNELS/$s" --trials 1 --max-time 0.01 --quiet \
        --session s1 >/dev/null 2>&1 || fail "session evaluation of $s"
done
"$KWB" report s1 --dataset "$TMP/ds" --format html --output "$TMP/session.html" >/dev/null 2>&1
expect_code 0 "$?" "kwb report --format html"
check_report_static "$TMP/session.html"
check_report_dom "$TMP/session.html" "$TMP/session.dom" w0-b1 w1-b2 w2-b4
check_report_screenshot "$TMP/session.html" "$TMP/session.png"
check_report_labels "$TMP/session.html" "kwb report of a session"
# The candidates table fills each candidate's mean latency (over its PASSED workloads).
sed -n '/<table id="candidates">/,/<\/table>/p' "$TMP/session.html" | grep '^<tr><td' >"$TMP/cands"
[ "$(wc -l <"$TMP/cands")" = 2 ] && pass "two candidate rows" || fail "candidate rows: $(cat "$TMP/cands")"
expect_no_grep '<td class="num"></td></tr>$|&mdash;</td></tr>$' "$TMP/cands" "every candidate's mean is filled"
expect_grep '<td class="num">[0-9.e-]+</td></tr>$' "$TMP/cands" "the mean is a number"
[ -n "${KWB_KEEP_SCREENSHOT:-}" ] && cp "$TMP/session.png" "${KWB_KEEP_SCREENSHOT%.png}-session.png"
if [ -n "${KWB_KEEP_SCREENSHOT:-}" ]; then
    cp "$TMP/r.png" "$KWB_KEEP_SCREENSHOT"
fi
finish
