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

# descendants PID: PID's children, theirs, ... (each child kwb starts leads its own process group,
# so killing a group misses them; a test that kills kwb "with everything it started" uses this).
descendants() {
    local c
    for c in $(ps -o pid= --ppid "$1"); do
        echo "$c"
        descendants "$c"
    done
}

# tmux_wait PATTERN [SECONDS] [capture flags]: polls the tmux pane w of server $SOCK (0.2 s steps,
# 240 s at most by default) until PATTERN shows; the last capture is in $TMP/pane, shown on a miss.
tmux_wait() {
    local i
    for i in $(seq $((${2:-240} * 5))); do
        tmux -L "$SOCK" capture-pane -p ${3:-} -t w >"$TMP/pane" 2>/dev/null
        grep -Eq -- "$1" "$TMP/pane" && return 0
        sleep 0.2
    done
    echo "    waited for '$1'; the screen:" >&2
    sed 's/^/    | /' "$TMP/pane" >&2
    return 1
}
