#!/bin/bash
# Issue 19 item 8: a full disk. The workspace lives on a small tmpfs (CI runs as root; a machine
# that cannot mount one fails this test). An eval that fills the disk stops early, prints the
# table of what it has, names the file that could not be written and exits 2; the store passes
# integrity_check and the archive holds no candidate the store does not know. A candidate ref the
# store never recorded (a kwb stopped between commit and record) is removed at the next start.
. "$top_srcdir/tests/lib.sh"
MNT="$TMP/mnt"
mkdir -p "$MNT"
if ! mount -t tmpfs -o size=6m kwbtest "$MNT" 2>"$TMP/mount.err"; then
    fail "cannot mount a tmpfs for the full-disk test (run as root): $(cat "$TMP/mount.err")"
    finish
fi
trap 'umount "$MNT" 2>/dev/null; remove_tmp' EXIT
export KWB_WORKSPACE="$MNT/ws"
sizes=$(for i in $(seq 1 40); do echo 1; done)
make_dataset "$TMP/ds" $sizes
"$KWB" init "$MNT/ws" >/dev/null 2>&1 || fail "init"
ev() { "$KWB" eval --dataset "$TMP/ds" --definition "$DEF" --trials 1 --max-time 0.01 --min-time 0 --quiet --session s "$@"; }
ev --solution "$KERNELS/baseline" --name base --workloads 'w0-b1|w1-b1' >/dev/null 2>&1 || fail "a first eval"
# fill the disk, then leave a little room: the next eval runs out of it part way
dd if=/dev/zero of="$MNT/fill" bs=64k >/dev/null 2>&1
truncate -s -256K "$MNT/fill"
ev --solution "$KERNELS/fast" --name fast >"$TMP/full.out" 2>"$TMP/full.err"
code=$?
expect_code 2 "$code" "an eval that fills the disk"
expect_grep "$MNT/ws/kwb.db(-wal)?: (database or disk is full|disk I/O error \(No space left on device\))|$MNT/ws/[^ ]+: .*No space left" "$TMP/full.err" \
    "the full file is named"
rows=$(grep -c '^w[0-9]*-b1 ' "$TMP/full.out")
notrun=$(grep -c 'not run: the evaluation stopped early' "$TMP/full.out")
expect_grep 'kwb eval: stopped early: [0-9]+ result\(s\) could not be recorded: ' "$TMP/full.err" "it says it stopped early"
[ "$rows" = 40 ] && pass "the table is printed ($rows rows)" || fail "table rows: $rows"
[ "$notrun" -gt 0 ] && [ "$notrun" -lt 40 ] && pass "it stopped early ($notrun of 40 workloads not run)" ||
    fail "$notrun workloads not run"
rm -f "$MNT/fill"
[ "$(sqlite3 "$MNT/ws/kwb.db" 'PRAGMA integrity_check')" = ok ] && pass "store integrity_check ok" || fail "store damaged"
git -C "$MNT/ws/candidates.git" fsck --strict >"$TMP/fsck" 2>&1 && pass "git fsck clean" || fail "git fsck"
in_store() { sqlite3 "$MNT/ws/kwb.db" "SELECT commit_oid FROM candidates" | sort; }
in_archive() { git -C "$MNT/ws/candidates.git" for-each-ref --format='%(objectname)' refs/kwb/s/ | sort; }
# a ref the store never recorded, as a kill between commit and record leaves it
base=$(git -C "$MNT/ws/candidates.git" rev-parse refs/kwb/s/base)
ghost=$(git -C "$MNT/ws/candidates.git" commit-tree -m ghost "$base^{tree}")
git -C "$MNT/ws/candidates.git" update-ref refs/kwb/s/ghost "$ghost"
ev --resume >"$TMP/resume.out" 2>"$TMP/resume.err" || ev --solution "$KERNELS/fast" --name again --workloads w0-b1 \
    >"$TMP/resume.out" 2>>"$TMP/resume.err"
expect_grep 'archived candidate\(s\) the store never recorded removed' "$TMP/resume.err" "the unrecorded ref is removed, and said"
git -C "$MNT/ws/candidates.git" rev-parse -q --verify refs/kwb/s/ghost >/dev/null && fail "the ghost ref is still there" ||
    pass "the ghost ref is gone"
extra=$(comm -13 <(in_store) <(in_archive))
[ -z "$extra" ] && pass "every archived candidate is in the store" || fail "archived but not recorded: $extra"
finish
