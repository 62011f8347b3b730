# tests/tui_lib.sh - helpers for the workbench's tests (sourced after tests/lib.sh).

# golden_compare GOT NAME: GOT must equal tests/golden/NAME; with KWB_UPDATE_GOLDEN=1 it becomes it.
golden_compare() {
    local got=$1 want="$top_srcdir/tests/golden/$2"
    if [ "${KWB_UPDATE_GOLDEN:-}" = 1 ]; then
        cp "$got" "$want" && pass "golden $2 rewritten"
        return
    fi
    if diff -u "$want" "$got" >"$TMP/golden.diff" 2>&1; then
        pass "golden $2"
    else
        fail "golden $2 differs (KWB_UPDATE_GOLDEN=1 make check TESTS=... rewrites it, or: cp $got $want)"
        sed 's/^/    /' "$TMP/golden.diff" >&2
    fi
}
