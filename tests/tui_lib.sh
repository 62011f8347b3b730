# tests/tui_lib.sh - helpers for the workbench's tests (sourced after tests/lib.sh).

# golden_compare GOT NAME: GOT must equal tests/golden/NAME (bottleneck classes aside); with
# KWB_UPDATE_GOLDEN=1 it becomes it.
golden_compare() {
    local got=$1 want="$top_srcdir/tests/golden/$2"
    if [ "${KWB_UPDATE_GOLDEN:-}" = 1 ]; then
        cp "$got" "$want" && pass "golden $2 rewritten"
        return
    fi
    # The bottleneck class follows the measured roofline share, which moves with the machine's load:
    # a class and the rest of its pane's line (cut at another length) compare as "<class>...".
    local classes='s/((latency|memory|compute|launch)-bound|speed-of-light)[^|]*/<class>.../g'
    sed -E "$classes" "$want" >"$TMP/golden.want"
    sed -E "$classes" "$got" >"$TMP/golden.got"
    if diff -u "$TMP/golden.want" "$TMP/golden.got" >"$TMP/golden.diff" 2>&1; then
        pass "golden $2"
    else
        fail "golden $2 differs (KWB_UPDATE_GOLDEN=1 make check TESTS=... rewrites it, or: cp $got $want)"
        sed 's/^/    /' "$TMP/golden.diff" >&2
    fi
}
