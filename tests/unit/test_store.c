/* test_store.c - the session store: schema and migrations, every record and query, foreign
 * keys, the holder lock, interruption and resume, the best candidate, batches. Each test works
 * in its own folder under /tmp and ends with PRAGMA integrity_check and foreign_key_check. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store.h"

#define NWL 6

typedef struct fixture {
    char dir[64];
    char path[96];
    char uuid[NWL][16];
    workload wl[NWL];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/kwb-test-store-XXXXXX");
    if (!f || !mkdtemp(f->dir))
        return -1;
    snprintf(f->path, sizeof f->path, "%s/kwb.db", f->dir);
    for (int i = 0; i < NWL; i++) {
        snprintf(f->uuid[i], sizeof f->uuid[i], "wl-%d", i);
        f->wl[i].uuid = f->uuid[i];
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    static const char *const suffix[] = {"", "-wal", "-shm", "-journal"};
    char p[128];
    for (size_t i = 0; i < sizeof suffix / sizeof *suffix; i++) {
        snprintf(p, sizeof p, "%s%s", f->path, suffix[i]);
        unlink(p);
    }
    snprintf(p, sizeof p, "%s/other.db", f->dir);
    unlink(p);
    rmdir(f->dir);
    free(f);
    return 0;
}

/* ---- direct SQLite access, for what the API does not show ------------------------------------ */

/* Runs SQL (one statement) on PATH with a connection of its own; the first column of the first
 * row as text into buf ("" when no row). */
static void sql_text(const char *path, const char *sql, char *buf, size_t cap)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *s = NULL;
    buf[0] = '\0';
    if (sqlite3_open(path, &db) != SQLITE_OK || sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(db));
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW && sqlite3_column_text(s, 0))
        snprintf(buf, cap, "%s", (const char *)sqlite3_column_text(s, 0));
    else if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        fail_msg("%s: %s", sql, sqlite3_errmsg(db));
    sqlite3_finalize(s);
    sqlite3_close(db);
}

static long long sql_int(const char *path, const char *sql)
{
    char buf[64];
    sql_text(path, sql, buf, sizeof buf);
    return atoll(buf);
}

static void sql_exec(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    char *msg = NULL;
    if (sqlite3_open(path, &db) != SQLITE_OK || sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s: %s", sql, msg ? msg : sqlite3_errmsg(db));
    sqlite3_close(db);
}

static void check_integrity(const char *path)
{
    char buf[256];
    sql_text(path, "PRAGMA integrity_check", buf, sizeof buf);
    assert_string_equal(buf, "ok");
    sql_text(path, "PRAGMA foreign_key_check", buf, sizeof buf);
    assert_string_equal(buf, "");
}

#define assert_contains(hay, needle)                                                                                   \
    do {                                                                                                               \
        if (!strstr((hay), (needle)))                                                                                  \
            fail_msg("'%s' does not contain '%s'", (hay), (needle));                                                   \
    } while (0)

/* CALL must return 0; otherwise the test fails with err's message (err is in scope). */
#define OK(call)                                                                                                       \
    do {                                                                                                               \
        if ((call) != 0)                                                                                               \
            fail_msg("%s failed: %s", #call, err.msg);                                                                 \
    } while (0)

static store *open_rw(fixture *f)
{
    kwb_error err = {{0}};
    store *st = store_open(f->path, 0, &err);
    if (!st)
        fail_msg("store_open: %s", err.msg);
    return st;
}

/* A result for workload W: PASSED results carry candidate MED and a baseline of 2 * MED. */
static wl_result result(const workload *w, eval_status status, double med)
{
    static char msg[] = "3 of 64 elements differ";
    wl_result r;
    memset(&r, 0, sizeof r);
    r.wl = w;
    r.status = status;
    if (status == ST_PASSED) {
        r.has_candidate = r.has_baseline = 1;
        r.candidate = (stats_summary){.n = 20, .mean = med * 1.01, .median = med, .min = med * 0.9, .iqr = med * 0.05};
        r.baseline = (stats_summary){.n = 21, .mean = 2 * med, .median = 2 * med, .min = 1.8 * med, .iqr = 0.1 * med};
        r.has_baseline_status = 1;
        r.baseline_status = ST_PASSED;
        snprintf(r.timer, sizeof r.timer, "cupti");
        snprintf(r.verdict, sizeof r.verdict, "faster");
        r.gbps = 1234.5;
        r.ratio = 0.5, r.ratio_lo = 0.49, r.ratio_hi = 0.51;
    } else if (status == ST_INCORRECT_NUMERICAL) {
        r.message = msg;
        r.max_abs = 0.25, r.max_rel = 0.125, r.matched_ratio = 0.953125;
    }
    r.has_reference = status != ST_TIMEOUT;
    r.reference = (stats_summary){.n = 5, .median = 10 * med, .mean = 10 * med};
    return r;
}

/* A session with one candidate, evaluated completely over NW workloads with candidate medians
 * MED[i] (a negative one records INCORRECT_NUMERICAL). Returns the candidate's id. */
static int64_t evaluated(store *st, fixture *f, int64_t session, const char *name, int nw, const double *med,
                         const char *finish)
{
    kwb_error err = {{0}};
    int64_t cand = 0, run = 0;
    OK(store_candidate_add(st, session, 0, "llm", name, NULL, NULL, &cand, &err));
    OK(store_eval_begin(st, cand, 0, "cpu", "kwb-runner 1", nw, &run, &err));
    for (int i = 0; i < nw; i++) {
        wl_result r = result(&f->wl[i], med[i] < 0 ? ST_INCORRECT_NUMERICAL : ST_PASSED, fabs(med[i]));
        OK(store_eval_add(st, run, &r, NULL, &err));
    }
    if (finish)
        OK(store_eval_finish(st, run, finish, &err));
    return cand;
}

/* ---- schema and opening --------------------------------------------------------------------- */

static void test_schema_new_file(void **state)
{
    fixture *f = *state;
    store *st = open_rw(f);
    assert_false(store_is_readonly(st));
    store_close(st);
    assert_true(store_schema_version() >= 1);
    assert_int_equal(sql_int(f->path, "PRAGMA user_version"), store_schema_version());
    assert_int_equal(sql_int(f->path, "PRAGMA application_id"), 0x6b776231);
    char mode[16];
    sql_text(f->path, "PRAGMA journal_mode", mode, sizeof mode);
    assert_string_equal(mode, "wal");
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM sqlite_master WHERE type = 'table'"),
                     15); /* 13, verdicts and redo */
    /* The indexes the TUI's queries rely on. */
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name IN "
                                      "('eval_runs_best', 'eval_runs_candidate', 'log_session')"),
                     3);
    /* No place to put a credential. */
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM pragma_table_info('agent_calls') WHERE name LIKE "
                                      "'%key%' OR name LIKE '%secret%' OR name LIKE '%auth%'"),
                     0);
    check_integrity(f->path);
}

static void test_reopen_idempotent(void **state)
{
    fixture *f = *state;
    kwb_error err = {{0}};
    int64_t id = 0, again = 0;
    store *st = open_rw(f);
    OK(store_session_create(st, "s1", "gdn", &id, &err));
    store_close(st);
    long long objects = sql_int(f->path, "SELECT count(*) FROM sqlite_master");
    for (int i = 0; i < 3; i++) {
        st = open_rw(f);
        assert_int_equal(store_session_find(st, "s1", &again, &err), 1);
        assert_int_equal(again, id);
        store_close(st);
    }
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM sqlite_master"), objects);
    assert_int_equal(sql_int(f->path, "PRAGMA user_version"), store_schema_version());
    st = store_open(f->path, 1, &err);
    assert_non_null(st);
    assert_true(store_is_readonly(st));
    assert_int_equal(store_session_find(st, "s1", &again, &err), 1);
    store_close(st);
    check_integrity(f->path);
}

/* An empty file (what a crash right after creating it leaves) is migrated from version 0. */
static void test_migrate_from_empty_file(void **state)
{
    fixture *f = *state;
    kwb_error err = {{0}};
    FILE *fp = fopen(f->path, "w");
    assert_non_null(fp);
    fclose(fp);
    assert_null(store_open(f->path, 1, &err));
    assert_contains(err.msg, "must be migrated");
    assert_contains(err.msg, "a command that writes (kwb eval --session) migrates it");
    store *st = open_rw(f);
    store_close(st);
    assert_int_equal(sql_int(f->path, "PRAGMA user_version"), store_schema_version());
    check_integrity(f->path);
}

/* A read-only opener (kwb log, kwb report) of an older store it may write migrates it first
 * instead of refusing: an archived workspace opens with a newer kwb. */
static void test_readonly_open_migrates(void **state)
{
    fixture *f = *state;
    kwb_error err = {{0}};
    store *st = open_rw(f);
    store_close(st);
    sql_exec(f->path, "ALTER TABLE candidates DROP COLUMN writer; DROP TABLE verdicts; DROP TABLE redo;"
                      " PRAGMA user_version = 3;");
    st = store_open(f->path, 1, &err);
    assert_non_null(st);
    assert_true(store_is_readonly(st));
    store_close(st);
    assert_int_equal(sql_int(f->path, "PRAGMA user_version"), store_schema_version());
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM sqlite_master WHERE name IN ('verdicts', 'redo')"), 2);
}

/* A schema 3 store, where every candidate but the start says 'human' (or 'agent'), is migrated:
 * who wrote each is told from the direction decided in its round ('tuner' for knob changes, a
 * skill's for an agent) and the session's agent calls (only command ones: a command agent). */
static void test_migrate_writer_from_3(void **state)
{
    fixture *f = *state;
    kwb_error err = {{0}};
    store *st = open_rw(f);
    store_close(st);
    sql_exec(
        f->path,
        "ALTER TABLE candidates DROP COLUMN writer; DROP TABLE verdicts; DROP TABLE redo; PRAGMA user_version = 3;"
        "INSERT INTO sessions (id, name, definition, created_at) VALUES (1, 'a', 'd', 0), (2, 'b', 'd', 0),"
        " (3, 'c', 'd', 0);"
        "INSERT INTO candidates (id, session_id, parent_id, origin, name, created_at) VALUES"
        " (1, 1, NULL, 'baseline', 'start', 0), (2, 1, 1, 'human', 'r2-tune', 0), (3, 1, 1, 'human', 'r3-skill', 0),"
        " (4, 2, NULL, 'baseline', 'start', 0), (5, 2, 4, 'human', 'r2-skill', 0),"
        " (6, 3, NULL, 'baseline', 'start', 0), (7, 3, 6, 'human', 'mine', 0), (8, 1, 1, 'agent', 'old', 0);"
        "INSERT INTO rounds (id, session_id, number, title, candidate_id, started_at) VALUES"
        " (1, 1, 2, 't', 2, 0), (2, 1, 3, 's', 3, 0), (3, 2, 2, 's', 5, 0), (4, 3, 2, 'm', 7, 0);"
        "INSERT INTO directions (session_id, round_id, skill, title, created_at) VALUES"
        " (1, 1, 'tuner', 'tune.X=2', 0), (1, 2, 'memory', 'coalesce', 0), (2, 3, 'memory', 'coalesce', 0);"
        "INSERT INTO agent_calls (session_id, provider, model, tokens_in, tokens_out, cost, duration_s, status,"
        " created_at) VALUES (1, 'openai', 'm', 1, 1, 0, 1, 'ok', 0), (2, 'command', 'c', 0, 0, 0, 1, 'ok', 0);");
    st = open_rw(f);
    static const char *const want[] = {NULL,      "baseline", "tuner", "llm", "baseline",
                                       "command", "baseline", "human", "llm"};
    for (int64_t id = 1; id <= 8; id++) {
        store_candidate c;
        OK(store_candidate_get(st, id, &c, &err));
        if (strcmp(c.origin, want[id]) != 0)
            fail_msg("candidate %lld (%s): origin '%s', want '%s'", (long long)id, c.name, c.origin, want[id]);
        store_candidate_free(&c);
    }
    store_close(st);
    assert_int_equal(sql_int(f->path, "PRAGMA user_version"), store_schema_version());
    check_integrity(f->path);
}

static void test_future_version_refused(void **state)
{
    fixture *f = *state;
    kwb_error err = {{0}};
    store *st = open_rw(f);
    store_close(st);
    sql_exec(f->path, "PRAGMA user_version = 99");
    for (int ro = 0; ro <= 1; ro++) {
        memset(&err, 0, sizeof err);
        assert_null(store_open(f->path, ro, &err));
        assert_contains(err.msg, f->path);
        assert_contains(err.msg, "version 99 is newer than this kwb understands");
    }
    assert_int_equal(sql_int(f->path, "PRAGMA user_version"), 99);
}

static void test_not_a_store(void **state)
{
    fixture *f = *state;
    kwb_error err = {{0}};
    char other[128];
    snprintf(other, sizeof other, "%s/other.db", f->dir);

    assert_null(store_open(f->path, 1, &err)); /* read-only never creates */
    assert_contains(err.msg, "no such store");
    assert_int_equal(access(f->path, F_OK), -1);

    FILE *fp = fopen(other, "w");
    assert_non_null(fp);
    fputs("this is a text file, long enough to be looked at as a database header.......\n", fp);
    fclose(fp);
    assert_null(store_open(other, 0, &err));
    assert_contains(err.msg, "not a kwb store");
    unlink(other);

    sql_exec(other, "CREATE TABLE notes (x)");
    assert_null(store_open(other, 0, &err));
    assert_contains(err.msg, "SQLite database but not a kwb store");
    unlink(other);

    sql_exec(other, "PRAGMA application_id = 42");
    assert_null(store_open(other, 0, &err));
    assert_contains(err.msg, "another program");
}

static void test_readonly_refuses_writes(void **state)
{
    fixture *f = *state;
    kwb_error err = {{0}};
    store *st = open_rw(f);
    store_close(st);
    st = store_open(f->path, 1, &err);
    assert_non_null(st);
    assert_int_equal(store_session_create(st, "s", "d", NULL, &err), -1);
    assert_contains(err.msg, "read-only");
    int64_t id;
    assert_int_equal(store_session_find(st, "s", &id, &err), 0);
    store_close(st);
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM sessions"), 0);
}

/* ---- records and queries ---------------------------------------------------------------------- */

static void test_sessions(void **state)
{
    fixture *f = *state;
    kwb_error err = {{0}};
    static const char odd[] = "it's\"; DROP TABLE sessions; --";
    int64_t a = 0, b = 0, found = 0;
    store *st = open_rw(f);
    OK(store_session_create(st, "first", "gdn_decode", &a, &err));
    OK(store_session_create(st, odd, "def'2", &b, &err));
    assert_true(a > 0 && b > a);
    assert_int_equal(store_session_create(st, "first", "x", NULL, &err), -1);
    assert_contains(err.msg, "session 'first' already exists");
    assert_int_equal(store_session_find(st, odd, &found, &err), 1);
    assert_int_equal(found, b);
    assert_int_equal(store_session_find(st, "missing", &found, &err), 0);

    store_session s;
    OK(store_session_get(st, b, &s, &err));
    assert_string_equal(s.name, odd);
    assert_string_equal(s.definition, "def'2");
    assert_int_equal(s.holder_pid, 0);
    assert_null(s.holder_host);
    assert_true(s.created > 1.6e9);
    store_session_free(&s);
    assert_int_equal(store_session_get(st, 999, &s, &err), -1);
    assert_contains(err.msg, "no such session");

    store_session *list = NULL;
    int n = 0;
    OK(store_session_list(st, &list, &n, &err));
    assert_int_equal(n, 2);
    assert_string_equal(list[0].name, "first");
    assert_string_equal(list[1].name, odd);
    store_session_list_free(list, n);
    store_close(st);
    check_integrity(f->path);
}

static void test_candidates(void **state)
{
    fixture *f = *state;
    kwb_error err = {{0}};
    int64_t s = 0, base = 0, child = 0, other = 0;
    store *st = open_rw(f);
    OK(store_session_create(st, "s", "d", &s, &err));
    OK(store_candidate_add(st, s, 0, "baseline", "base", "/k/base", "abcdef0123456789", &base, &err));
    OK(store_candidate_add(st, s, base, "llm", "fast", "/k/fast", "abcd99aa00", &child, &err));
    OK(store_candidate_add(st, s, child, "tuner", "tuned", NULL, NULL, &other, &err));

    store_candidate c;
    OK(store_candidate_get(st, child, &c, &err));
    assert_int_equal(c.session, s);
    assert_int_equal(c.parent, base);
    assert_string_equal(c.origin, "llm");
    assert_string_equal(c.state, "new");
    assert_string_equal(c.name, "fast");
    assert_string_equal(c.solution_dir, "/k/fast");
    assert_string_equal(c.commit, "abcd99aa00");
    store_candidate_free(&c);
    OK(store_candidate_get(st, other, &c, &err));
    assert_null(c.solution_dir);
    assert_null(c.commit);
    assert_int_equal(c.parent, child);
    store_candidate_free(&c);
    assert_int_equal(store_candidate_get(st, 999, &c, &err), -1);
    assert_contains(err.msg, "no such candidate");

    assert_int_equal(store_candidate_find(st, s, "fast", &c, &err), 1);
    assert_int_equal(c.id, child);
    store_candidate_free(&c);
    assert_int_equal(store_candidate_find(st, s, "ABCDEF01", &c, &err), 1); /* a commit prefix */
    assert_int_equal(c.id, base);
    store_candidate_free(&c);
    assert_int_equal(store_candidate_find(st, s, "abcd", &c, &err), -1);
    assert_contains(err.msg, "ambiguous");
    assert_int_equal(store_candidate_find(st, s, "abc", &c, &err), 0); /* too short */
    assert_int_equal(store_candidate_find(st, s, "nothing", &c, &err), 0);
    assert_int_equal(store_candidate_find(st, s + 1, "fast", &c, &err), 0); /* other session */

    assert_int_equal(store_candidate_add(st, s, 0, "llm", "fast", NULL, NULL, NULL, &err), -1);
    assert_contains(err.msg, "already has a candidate of that name");
    assert_int_equal(store_candidate_add(st, s, 0, "robot", "x", NULL, NULL, NULL, &err), -1);
    assert_contains(err.msg, "unknown origin 'robot'");
    assert_int_equal(store_candidate_add(st, s, 0, "agent", "x", NULL, NULL, NULL, &err), -1); /* which agent? */
    assert_contains(err.msg, "unknown origin 'agent'");
    /* who wrote it, read back as written; origin keeps schema 3's word for an older kwb */
    static const char *const writers[] = {"human", "tuner", "llm", "command"};
    for (int i = 0; i < 4; i++) {
        char name[16];
        int64_t id = 0;
        snprintf(name, sizeof name, "w%d", i);
        OK(store_candidate_add(st, s, base, writers[i], name, NULL, NULL, &id, &err));
        OK(store_candidate_get(st, id, &c, &err));
        assert_string_equal(c.origin, writers[i]);
        store_candidate_free(&c);
    }
    store_close(st);
    assert_int_equal(
        sql_int(f->path, "SELECT count(*) FROM candidates WHERE origin = 'agent' AND name IN ('w2', 'w3')"), 2);
    st = open_rw(f);

    OK(store_candidate_set_state(st, child, "evaluated", &err));
    assert_int_equal(store_candidate_set_state(st, child, "bogus", &err), -1);
    assert_contains(err.msg, "unknown candidate state 'bogus'");
    assert_int_equal(store_candidate_set_state(st, 999, "evaluated", &err), -1);
    assert_contains(err.msg, "no such candidate");

    OK(store_candidate_decide(st, child, "promoted", "2x on every workload", &err));
    OK(store_candidate_decide(st, other, "rejected", NULL, &err));
    assert_int_equal(store_candidate_decide(st, other, "accepted", NULL, &err), -1);
    OK(store_candidate_get(st, child, &c, &err));
    assert_string_equal(c.state, "promoted");
    store_candidate_free(&c);
    store_close(st);
    char reason[64];
    sql_text(f->path, "SELECT reason FROM decisions WHERE decision = 'promoted'", reason, sizeof reason);
    assert_string_equal(reason, "2x on every workload");
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM decisions WHERE decided_at > 1.6e9"), 2);
    check_integrity(f->path);
}

static void test_foreign_keys(void **state)
{
    fixture *f = *state;
    kwb_error err = {{0}};
    int64_t s = 0, c = 0;
    store *st = open_rw(f);
    OK(store_session_create(st, "s", "d", &s, &err));
    OK(store_candidate_add(st, s, 0, "baseline", "base", NULL, NULL, &c, &err));

    assert_int_equal(store_candidate_add(st, s, 999, "llm", "orphan", NULL, NULL, NULL, &err), -1);
    assert_contains(err.msg, "FOREIGN KEY");
    assert_int_equal(store_candidate_add(st, 999, 0, "llm", "nosession", NULL, NULL, NULL, &err), -1);
    assert_contains(err.msg, "FOREIGN KEY");
    assert_int_equal(store_build_add(st, 999, "h", "cc", "", 1, 0.5, NULL, &err), -1);
    assert_contains(err.msg, "FOREIGN KEY");
    assert_int_equal(store_eval_begin(st, 999, 0, "cpu", "1", 3, NULL, &err), -1);
    assert_contains(err.msg, "no such candidate");
    assert_int_equal(store_eval_begin(st, c, 999, "cpu", "1", 3, NULL, &err), -1);
    assert_contains(err.msg, "FOREIGN KEY");
    assert_int_equal(store_round_set_candidate(st, 999, c, &err), -1);
    assert_int_equal(store_note_add(st, s, 999, 0, "x", NULL, &err), -1);
    assert_contains(err.msg, "FOREIGN KEY");
    double one = 1;
    assert_int_equal(store_samples_add(st, 999, "candidate", &one, 1, &err), -1);
    assert_contains(err.msg, "FOREIGN KEY");
    assert_int_equal(store_profile_add(st, 999, NULL, "ncu", "{}", NULL, &err), -1);
    store_agent_call call = {.session = 999, .provider = "openai", .model = "m", .status = "ok"};
    assert_int_equal(store_agent_call_add(st, &call, NULL, &err), -1);
    assert_int_equal(store_direction_add(st, 999, 0, "sk", "t", NULL, NULL, &err), -1);
    store_close(st);
    /* Nothing of the refused events remains, log lines included. */
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM candidates"), 1);
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM eval_runs"), 0);
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM log"), 2);
    check_integrity(f->path);
}

static void test_builds(void **state)
{
    fixture *f = *state;
    kwb_error err = {{0}};
    int64_t s = 0, c = 0, b1 = 0, b2 = 0;
    store *st = open_rw(f);
    OK(store_session_create(st, "s", "d", &s, &err));
    OK(store_candidate_add(st, s, 0, "human", "h", NULL, NULL, &c, &err));
    store_build b;
    assert_int_equal(store_build_latest(st, c, &b, &err), 0);
    OK(store_build_add(st, c, "aa11", "cc -O3 -march=native x.c", "", 1, 1.25, &b1, &err));
    OK(store_build_add(st, c, "bb22", "cc -O2 x.c", "x.c:3: error: expected ';'", 0, 0.5, &b2, &err));
    assert_int_equal(store_build_latest(st, c, &b, &err), 1);
    assert_int_equal(b.id, b2);
    assert_int_equal(b.candidate, c);
    assert_string_equal(b.hash, "bb22");
    assert_string_equal(b.command, "cc -O2 x.c");
    assert_string_equal(b.log, "x.c:3: error: expected ';'");
    assert_int_equal(b.ok, 0);
    assert_true(b.seconds == 0.5);
    store_build_free(&b);
    store_close(st);
    check_integrity(f->path);
}

static void test_eval_roundtrip(void **state)
{
    fixture *f = *state;
    kwb_error err = {{0}};
    int64_t s = 0, c = 0, run = 0, row0 = 0;
    store *st = open_rw(f);
    OK(store_session_create(st, "s", "d", &s, &err));
    OK(store_candidate_add(st, s, 0, "llm", "a", NULL, NULL, &c, &err));
    OK(store_eval_begin(st, c, 0, "NVIDIA H200 (GPU-1234)", "kwb-runner 1", 4, &run, &err));
    wl_result r0 = result(&f->wl[0], ST_PASSED, 0.5);
    wl_result r1 = result(&f->wl[1], ST_INCORRECT_NUMERICAL, 1);
    wl_result r2 = result(&f->wl[2], ST_TIMEOUT, 1);
    wl_result r3 = result(&f->wl[3], ST_PASSED, 1.5);
    OK(store_eval_add(st, run, &r0, &row0, &err));
    OK(store_eval_add(st, run, &r1, NULL, &err));
    OK(store_eval_add(st, run, &r2, NULL, &err));
    assert_int_equal(store_eval_add(st, run, &r0, NULL, &err), -1);
    assert_contains(err.msg, "already has it");
    assert_contains(err.msg, "wl-0");
    wl_result nouuid = result(NULL, ST_PASSED, 1);
    assert_int_equal(store_eval_add(st, run, &nouuid, NULL, &err), -1);
    assert_int_equal(store_eval_finish(st, run, "complete", &err), -1);
    assert_contains(err.msg, "3 of its 4 workloads");
    assert_int_equal(store_eval_finish(st, run, "paused", &err), -1);

    store_wl_table t;
    assert_int_equal(store_wl_table_get(st, c, &t, &err), 1); /* the running run, being the only one */
    assert_int_equal(t.eval_run, run);
    assert_string_equal(t.state, "running");
    assert_int_equal(t.n, 3);
    assert_int_equal(t.rows[0].id, row0);
    assert_string_equal(t.rows[0].uuid, "wl-0");
    assert_string_equal(t.rows[0].status, "PASSED");
    assert_null(t.rows[0].message);
    assert_true(t.rows[0].median_ms == 0.5 && t.rows[0].baseline_median_ms == 1.0);
    assert_true(t.rows[0].ref_median_ms == 5.0 && t.rows[0].speedup == 2.0);
    assert_string_equal(t.rows[0].verdict, "faster");
    assert_string_equal(t.rows[1].status, "INCORRECT_NUMERICAL");
    assert_string_equal(t.rows[1].message, "3 of 64 elements differ");
    assert_true(t.rows[1].max_abs == 0.25 && t.rows[1].max_rel == 0.125 && t.rows[1].matched_ratio == 0.953125);
    assert_true(t.rows[1].median_ms == 0 && t.rows[1].speedup == 0 && t.rows[1].ref_median_ms == 10);
    assert_string_equal(t.rows[1].verdict, "");
    assert_string_equal(t.rows[2].status, "TIMEOUT");
    assert_true(t.rows[2].ref_median_ms == 0);
    store_wl_table_free(&t);

    OK(store_eval_add(st, run, &r3, NULL, &err));
    wl_result extra = result(&f->wl[4], ST_PASSED, 1);
    assert_int_equal(store_eval_add(st, run, &extra, NULL, &err), -1);
    assert_contains(err.msg, "already has all 4 planned workloads");
    OK(store_eval_finish(st, run, "complete", &err));
    assert_int_equal(store_eval_add(st, run, &extra, NULL, &err), -1);
    assert_contains(err.msg, "is complete, not running");
    assert_int_equal(store_eval_finish(st, run, "complete", &err), -1);
    assert_contains(err.msg, "already complete");

    store_eval_run er;
    OK(store_eval_run_get(st, run, &er, &err));
    assert_int_equal(er.session, s);
    assert_int_equal(er.candidate, c);
    assert_int_equal(er.round, 0);
    assert_string_equal(er.device, "NVIDIA H200 (GPU-1234)");
    assert_string_equal(er.runner_version, "kwb-runner 1");
    assert_string_equal(er.state, "complete");
    assert_int_equal(er.n_workloads, 4);
    assert_int_equal(er.n_done, 4);
    assert_int_equal(er.n_passed, 2);
    assert_true(er.mean_latency_ms == 0); /* not all PASSED */
    assert_true(er.ended >= er.started && er.started > 1.6e9);
    store_eval_run_free(&er);

    char **uuids = NULL;
    int n = 0;
    OK(store_eval_uuids(st, run, &uuids, &n, &err));
    assert_int_equal(n, 4);
    assert_string_equal(uuids[0], "wl-0");
    assert_string_equal(uuids[3], "wl-3");
    store_strings_free(uuids, n);

    store_eval_run *runs = NULL;
    OK(store_eval_run_list(st, s, "complete", &runs, &n, &err));
    assert_int_equal(n, 1);
    store_eval_run_list_free(runs, n);
    OK(store_eval_run_list(st, s, "running", &runs, &n, &err));
    assert_int_equal(n, 0);
    store_eval_run_list_free(runs, n);

    store_candidate cand;
    OK(store_candidate_get(st, c, &cand, &err));
    assert_string_equal(cand.state, "evaluated");
    store_candidate_free(&cand);
    store_close(st);

    /* Every stored column of the PASSED row, as written. */
    char buf[256];
    sql_text(f->path,
             "SELECT printf('%g %g %g %g %d|%g %g %g %g %d|%g %g %d|%s %s %g %s %g %g %g', cand_median, cand_mean,"
             " cand_min, cand_iqr, cand_count, base_median, base_mean, base_min, base_iqr, base_count, ref_median,"
             " ref_mean, ref_count, baseline_status, timer, gbps, verdict, ratio, ratio_lo, ratio_hi)"
             " FROM evaluations WHERE workload_uuid = 'wl-0'",
             buf, sizeof buf);
    assert_string_equal(buf, "0.5 0.505 0.45 0.025 20|1 1 0.9 0.05 21|5 5 5|PASSED cupti 1234.5 faster 0.5 0.49 0.51");
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM evaluations WHERE workload_uuid = 'wl-2'"
                                      " AND cand_median IS NULL AND ref_count IS NULL AND verdict IS NULL"),
                     1);
    check_integrity(f->path);
}

static void test_samples(void **state)
{
    fixture *f = *state;
    kwb_error err = {{0}};
    int64_t s = 0, c = 0, run = 0, row = 0;
    store *st = open_rw(f);
    OK(store_session_create(st, "s", "d", &s, &err));
    OK(store_candidate_add(st, s, 0, "llm", "a", NULL, NULL, &c, &err));
    OK(store_eval_begin(st, c, 0, "cpu", "1", 1, &run, &err));
    wl_result r = result(&f->wl[0], ST_PASSED, 1);
    OK(store_eval_add(st, run, &r, &row, &err));
    const double ms[] = {0.001234, 1e-300, 12345.678, -0.0, 3.0};
    double *got = NULL;
    size_t n = 0;
    assert_int_equal(store_samples_get(st, row, "candidate", &got, &n, &err), 0);
    OK(store_samples_add(st, row, "candidate", ms, 5, &err));
    OK(store_samples_add(st, row, "baseline", ms, 2, &err));
    assert_int_equal(store_samples_get(st, row, "candidate", &got, &n, &err), 1);
    assert_int_equal(n, 5);
    assert_memory_equal(got, ms, sizeof ms);
    free(got);
    OK(store_samples_add(st, row, "candidate", ms + 2, 1, &err)); /* replaces */
    assert_int_equal(store_samples_get(st, row, "candidate", &got, &n, &err), 1);
    assert_int_equal(n, 1);
    assert_true(got[0] == 12345.678);
    free(got);
    assert_int_equal(store_samples_add(st, row, "warmup", ms, 1, &err), -1);
    assert_contains(err.msg, "unknown sample role");
    store_close(st);
    check_integrity(f->path);
}

static void test_profiles_agents_notes_log(void **state)
{
    fixture *f = *state;
    kwb_error err = {{0}};
    int64_t s = 0, s2 = 0, c = 0, round = 0;
    store *st = open_rw(f);
    OK(store_session_create(st, "s", "d", &s, &err));
    OK(store_session_create(st, "s2", "d", &s2, &err));
    OK(store_candidate_add(st, s, 0, "llm", "a", NULL, NULL, &c, &err));
    OK(store_round_begin(st, s, "vectorize loads", &round, NULL, &err));

    char *json = NULL;
    assert_int_equal(store_profile_latest(st, c, "wl-0", "ncu", &json, &err), 0);
    OK(store_profile_add(st, c, "wl-0", "ncu", "{\"sm\": 41}", NULL, &err));
    OK(store_profile_add(st, c, "wl-0", "ncu", "{\"sm\": 77}", NULL, &err));
    OK(store_profile_add(st, c, NULL, "ncu", "{\"all\": true}", NULL, &err));
    assert_int_equal(store_profile_latest(st, c, "wl-0", "ncu", &json, &err), 1);
    assert_string_equal(json, "{\"sm\": 77}");
    free(json);
    assert_int_equal(store_profile_latest(st, c, NULL, "ncu", &json, &err), 1);
    assert_string_equal(json, "{\"all\": true}");
    free(json);
    assert_int_equal(store_profile_latest(st, c, "wl-0", "nsys", &json, &err), 0);

    store_agent_call a = {.session = s,
                          .round = round,
                          .provider = "anthropic",
                          .model = "claude",
                          .tokens_in = 1000,
                          .tokens_out = 200,
                          .cost = 0.25,
                          .duration_s = 12.5,
                          .status = "ok"};
    OK(store_agent_call_add(st, &a, NULL, &err));
    a.round = 0, a.tokens_in = 10, a.tokens_out = 5, a.cost = 0.5, a.duration_s = 1, a.status = "error: 429";
    OK(store_agent_call_add(st, &a, NULL, &err));
    store_agent_totals tot;
    OK(store_agent_totals_get(st, s, &tot, &err));
    assert_int_equal(tot.calls, 2);
    assert_int_equal(tot.tokens_in, 1010);
    assert_int_equal(tot.tokens_out, 205);
    assert_true(tot.cost == 0.75 && tot.duration_s == 13.5);
    OK(store_agent_totals_get(st, s2, &tot, &err));
    assert_int_equal(tot.calls, 0);

    OK(store_note_add(st, s, round, c, "looks memory-bound", NULL, &err));
    OK(store_note_add(st, s2, 0, 0, "other session", NULL, &err));

    store_log_entry *e = NULL;
    int n = 0;
    OK(store_log_list(st, s, 0, 0, &e, &n, &err));
    /* session, candidate, round, 3 profiles, 2 agent calls, note */
    assert_int_equal(n, 9);
    assert_string_equal(e[0].kind, "session");
    assert_string_equal(e[1].kind, "candidate");
    assert_int_equal(e[1].candidate, c);
    assert_string_equal(e[2].kind, "round");
    assert_int_equal(e[2].round, round);
    assert_contains(e[2].text, "round 1 started: vectorize loads");
    assert_string_equal(e[6].kind, "agent");
    assert_contains(e[6].text, "anthropic/claude ok");
    assert_string_equal(e[8].kind, "note");
    assert_string_equal(e[8].text, "looks memory-bound");
    for (int i = 1; i < n; i++)
        assert_true(e[i].id > e[i - 1].id && e[i].time >= e[i - 1].time);
    int64_t last = e[n - 1].id, third_last = e[n - 3].id;
    store_log_list_free(e, n);
    OK(store_log_list(st, s, 0, 3, &e, &n, &err)); /* the newest 3, oldest first */
    assert_int_equal(n, 3);
    assert_int_equal(e[0].id, third_last);
    assert_int_equal(e[2].id, last);
    store_log_list_free(e, n);
    OK(store_log_list(st, s, last, 0, &e, &n, &err)); /* nothing new */
    assert_int_equal(n, 0);
    store_log_list_free(e, n);
    store_close(st);
    check_integrity(f->path);
}

static void test_rounds_and_directions(void **state)
{
    fixture *f = *state;
    kwb_error err = {{0}};
    int64_t s = 0, r1 = 0, r2 = 0, d1 = 0, d2 = 0;
    int num = 0;
    store *st = open_rw(f);
    OK(store_session_create(st, "s", "d", &s, &err));
    const double base_ms[] = {2, 2}, fast_ms[] = {1, 1};
    int64_t base = evaluated(st, f, s, "base", 2, base_ms, "complete");
    OK(store_round_begin(st, s, "unroll", &r1, &num, &err));
    assert_int_equal(num, 1);
    OK(store_direction_add(st, s, r1, "unroll-k", "Unroll the K loop", "compute-bound at 20%", &d1, &err));
    OK(store_direction_add(st, s, 0, "general", "Try fp32 accumulation", NULL, &d2, &err));
    OK(store_direction_decide(st, d1, "accepted", "highest rank", &err));
    assert_int_equal(store_direction_decide(st, d2, "promoted", NULL, &err), -1);
    assert_contains(err.msg, "unknown direction decision 'promoted'");
    assert_int_equal(store_direction_decide(st, 999, "accepted", NULL, &err), -1);
    assert_contains(err.msg, "no such direction");
    int64_t fast = evaluated(st, f, s, "fast", 2, fast_ms, "complete");
    OK(store_round_set_candidate(st, r1, fast, &err));
    assert_int_equal(store_round_end(st, r1, "finished", NULL, &err), -1);
    OK(store_round_end(st, r1, "done", "2x faster", &err));
    assert_int_equal(store_round_end(st, r1, "done", NULL, &err), -1);
    assert_contains(err.msg, "no such running round");
    OK(store_round_begin(st, s, "tile", &r2, &num, &err));
    assert_int_equal(num, 2);

    store_direction *d = NULL;
    int n = 0;
    OK(store_direction_list(st, s, 0, &d, &n, &err));
    assert_int_equal(n, 2);
    assert_int_equal(d[0].id, d1);
    assert_int_equal(d[0].round, r1);
    assert_string_equal(d[0].skill, "unroll-k");
    assert_string_equal(d[0].title, "Unroll the K loop");
    assert_string_equal(d[0].rationale, "compute-bound at 20%");
    assert_string_equal(d[0].state, "accepted");
    assert_string_equal(d[0].reason, "highest rank");
    assert_string_equal(d[1].state, "proposed");
    assert_null(d[1].reason);
    assert_null(d[1].rationale);
    assert_int_equal(d[1].round, 0);
    store_direction_list_free(d, n);
    OK(store_direction_list(st, s, r1, &d, &n, &err));
    assert_int_equal(n, 1);
    store_direction_list_free(d, n);

    store_round *r = NULL;
    OK(store_trajectory(st, s, 0, &r, &n, &err));
    assert_int_equal(n, 2);
    assert_int_equal(r[0].id, r1);
    assert_int_equal(r[0].number, 1);
    assert_string_equal(r[0].title, "unroll");
    assert_string_equal(r[0].state, "done");
    assert_string_equal(r[0].outcome, "2x faster");
    assert_int_equal(r[0].candidate, fast);
    assert_int_equal(r[0].best_candidate, fast);
    assert_true(r[0].best_mean_ms == 1.0);
    assert_true(r[0].ended >= r[0].started);
    assert_string_equal(r[1].state, "running");
    assert_int_equal(r[1].candidate, 0);
    assert_null(r[1].outcome);
    assert_int_equal(r[1].best_candidate, fast); /* live for a running round */
    store_round_list_free(r, n);

    /* The live value follows decisions; so does the best-after of the round whose candidate was
     * decided: it becomes the candidate promoted last (none here), not the rejected one. */
    OK(store_candidate_decide(st, fast, "rejected", "replay failed", &err));
    OK(store_trajectory(st, s, 1, &r, &n, &err));
    assert_int_equal(n, 1);
    assert_int_equal(r[0].number, 2);
    assert_int_equal(r[0].best_candidate, base);
    assert_true(r[0].best_mean_ms == 2.0);
    store_round_list_free(r, n);
    OK(store_trajectory(st, s, 0, &r, &n, &err));
    assert_int_equal(r[0].best_candidate, 0);
    store_round_list_free(r, n);
    store_close(st);
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM decisions WHERE direction_id IS NOT NULL"), 1);
    check_integrity(f->path);
}

/* store_decision_undo takes back the newest decision group: a candidate's decision with its
 * round's direction decisions (and nothing older), restoring states and logging it; then a lone
 * direction's; nothing left says so (0 taken back). */
static void test_decision_undo(void **state)
{
    fixture *f = *state;
    kwb_error err = {{0}};
    int64_t s = 0, r1 = 0, dir = 0, bar = 0, lone = 0;
    store *st = open_rw(f);
    OK(store_session_create(st, "s", "d", &s, &err));
    const double base_ms[] = {2, 2}, fast_ms[] = {1, 1};
    int64_t base = evaluated(st, f, s, "start", 2, base_ms, "complete");
    OK(store_candidate_decide(st, base, "promoted", "starting point", &err));
    OK(store_direction_add(st, s, 0, "tuner", "tune.K=1", "set K 1", &lone, &err));
    OK(store_direction_decide(st, lone, "rejected", "not now", &err));
    OK(store_round_begin(st, s, "tune.K=2", &r1, NULL, &err));
    int64_t fast = evaluated(st, f, s, "r2-tune-K-2", 2, fast_ms, "complete");
    OK(store_round_set_candidate(st, r1, fast, &err));
    OK(store_round_end(st, r1, "done", NULL, &err));
    OK(store_direction_add(st, s, 0, "tuner", "tune.K=2", "set K 2", &dir, &err));
    OK(store_candidate_decide(st, fast, "promoted", "faster", &err));
    int64_t round = 0;
    OK(store_candidate_round(st, fast, &round, &err));
    assert_int_equal(round, r1);
    OK(store_direction_set_round(st, dir, round, &err));
    OK(store_direction_decide(st, dir, "accepted", "faster", &err));
    OK(store_direction_add(st, s, round, "tuner", "tune.K=8", "back", &bar, &err));
    OK(store_direction_decide(st, bar, "rejected", "cycle", &err));
    int64_t best = 0;
    assert_int_equal(store_candidate_promoted(st, s, &best, NULL, &err), 1);
    assert_int_equal(best, fast);

    store_decision *d = NULL;
    int n = 0;
    OK(store_decision_undo(st, s, &d, &n, &err));
    assert_int_equal(n, 3); /* the bar, the direction, the candidate: newest first */
    assert_int_equal(d[0].direction, bar);
    assert_int_equal(d[1].direction, dir);
    assert_int_equal(d[2].candidate, fast);
    assert_string_equal(d[2].decision, "promoted");
    assert_string_equal(d[2].reason, "faster");
    store_decision_list_free(d, n);
    assert_int_equal(store_candidate_promoted(st, s, &best, NULL, &err), 1);
    assert_int_equal(best, base);
    store_candidate c;
    OK(store_candidate_get(st, fast, &c, &err));
    assert_string_equal(c.state, "evaluated");
    store_candidate_free(&c);
    int64_t undecided = 0;
    assert_int_equal(store_candidate_undecided(st, s, &undecided, &err), 1);
    assert_int_equal(undecided, fast);
    store_round *r = NULL;
    OK(store_trajectory(st, s, 0, &r, &n, &err));
    assert_int_equal(r[0].best_candidate, base); /* the round's best-after follows the undo */
    store_round_list_free(r, n);

    OK(store_decision_undo(st, s, &d, &n, &err)); /* the lone direction, alone */
    assert_int_equal(n, 1);
    assert_int_equal(d[0].direction, lone);
    store_decision_list_free(d, n);
    store_close(st);
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM directions WHERE state = 'proposed'"), 3);
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM decisions"), 1); /* the start's */
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM log WHERE text LIKE 'undo: %'"), 4);
    check_integrity(f->path);
}

/* The round engine's state that outlives a process: undone groups stay for redo across a reopen,
 * newest first, and a verdict counts only for the eval run it was given on. */
static void test_redo_and_verdicts(void **state)
{
    fixture *f = *state;
    kwb_error err = {{0}};
    int64_t s = 0, d1 = 0, d2 = 0, run = 0;
    store *st = open_rw(f);
    OK(store_session_create(st, "s", "d", &s, &err));
    const double ms[] = {1, 1};
    int64_t cand = evaluated(st, f, s, "r2-x", 2, ms, "complete");
    OK(store_direction_add(st, s, 0, "tuner", "tune.A=1", "a", &d1, &err));
    OK(store_direction_add(st, s, 0, "tuner", "tune.B=1", "b", &d2, &err));
    store_decision g1[1] = {{.direction = d1, .decision = "rejected", .reason = "one", .title = "tune.A=1"}};
    store_decision g2[2] = {{.direction = d2, .decision = "accepted", .reason = "two", .title = "tune.B=1"},
                            {.candidate = cand, .decision = "promoted", .reason = "faster"}};
    OK(store_redo_push(st, s, g1, 1, &err));
    OK(store_redo_push(st, s, g2, 2, &err));
    OK(store_verdict_add(st, s, cand, 1, "end", "gate passed", &err));
    store_close(st);

    st = open_rw(f); /* a restarted kwb */
    store_decision *d = NULL;
    int n = 0, promote = 0;
    OK(store_redo_top(st, s, &d, &n, &err));
    assert_int_equal(n, 2); /* the newest undo, in the order it was kept */
    assert_int_equal(d[0].direction, d2);
    assert_string_equal(d[0].reason, "two");
    assert_int_equal(d[1].candidate, cand);
    assert_string_equal(d[1].decision, "promoted");
    store_decision_list_free(d, n);
    OK(store_redo_drop(st, s, 0, &err));
    OK(store_redo_top(st, s, &d, &n, &err));
    assert_int_equal(n, 1);
    assert_string_equal(d[0].title, "tune.A=1");
    store_decision_list_free(d, n);
    OK(store_redo_push(st, s, g2, 2, &err));
    OK(store_redo_drop(st, s, 1, &err)); /* a new decision: nothing to redo */
    OK(store_redo_top(st, s, &d, &n, &err));
    assert_int_equal(n, 0);

    char stage[16], *reason = NULL;
    assert_int_equal(store_verdict_last(st, cand, &promote, stage, sizeof stage, &reason, &err), 1);
    assert_int_equal(promote, 1);
    assert_string_equal(stage, "end");
    assert_string_equal(reason, "gate passed");
    free(reason);
    OK(store_eval_begin(st, cand, 0, "cpu", "kwb-runner 1", 2, &run, &err)); /* measured again */
    assert_int_equal(store_verdict_last(st, cand, &promote, stage, sizeof stage, &reason, &err), 0);
    assert_null(reason);
    store_close(st);
    check_integrity(f->path);
}

static void test_best_candidate(void **state)
{
    fixture *f = *state;
    kwb_error err = {{0}};
    int64_t s = 0, best = 0;
    double mean = 0;
    store *st = open_rw(f);
    OK(store_session_create(st, "s", "d", &s, &err));
    assert_int_equal(store_candidate_best(st, s, &best, &mean, &err), 0);
    store_wl_table t;
    assert_int_equal(store_wl_table_best(st, s, &t, &err), 0);

    const double base_ms[] = {2, 4, 6}, a_ms[] = {1, 2, 3}, fail_ms[] = {0.1, -0.1, 0.1};
    const double low_ms[] = {0.1, 0.1, 0.1}, subset_ms[] = {0.01};
    int64_t base = evaluated(st, f, s, "base", 3, base_ms, "complete");
    assert_int_equal(store_candidate_best(st, s, &best, &mean, &err), 1);
    assert_int_equal(best, base);
    assert_true(mean == 4.0);
    int64_t a = evaluated(st, f, s, "a", 3, a_ms, "complete");
    evaluated(st, f, s, "fails", 3, fail_ms, "complete");         /* not all PASSED */
    evaluated(st, f, s, "interrupted", 3, low_ms, "interrupted"); /* not complete */
    evaluated(st, f, s, "running", 3, low_ms, NULL);              /* not finished */
    evaluated(st, f, s, "subset", 1, subset_ms, "complete");      /* fewer workloads */
    assert_int_equal(store_candidate_best(st, s, &best, &mean, &err), 1);
    assert_int_equal(best, a);
    assert_true(mean == 2.0);

    assert_int_equal(store_wl_table_best(st, s, &t, &err), 1);
    assert_int_equal(t.candidate, a);
    assert_int_equal(t.n, 3);
    assert_string_equal(t.state, "complete");
    assert_true(t.rows[2].median_ms == 3.0);
    store_wl_table_free(&t);

    /* A later running evaluation of the best does not hide its complete one. */
    int64_t run = 0;
    OK(store_eval_begin(st, a, 0, "cpu", "1", 3, &run, &err));
    assert_int_equal(store_wl_table_get(st, a, &t, &err), 1);
    assert_int_equal(t.n, 3);
    assert_true(t.eval_run != run);
    store_wl_table_free(&t);

    OK(store_candidate_decide(st, a, "rejected", NULL, &err));
    assert_int_equal(store_candidate_best(st, s, &best, NULL, &err), 1);
    assert_int_equal(best, base);
    store_close(st);
    check_integrity(f->path);
}

/* A pid that has ended and been reaped (a holder that is gone). */
static pid_t gone_pid(void)
{
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0)
        _exit(0);
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    return child;
}

/* A kwb killed mid-evaluation leaves its round and eval run "running" and its pid as the holder:
 * read, they show as interrupted (the round "cut off"), not running; the next writer records it. */
static void test_cut_off_shows_interrupted(void **state)
{
    fixture *f = *state;
    kwb_error err = {{0}};
    int64_t s = 0, round = 0, n_ev = 0;
    store *st = open_rw(f);
    OK(store_session_create(st, "s", "d", &s, &err));
    OK(store_session_acquire(st, s, gone_pid(), &err)); /* the judge's eval, killed */
    OK(store_round_begin(st, s, "sweep", &round, NULL, &err));
    const double ms[] = {1, 1};
    int64_t cand = evaluated(st, f, s, "cut", 2, ms, NULL);
    OK(store_round_set_candidate(st, round, cand, &err));
    store_round *r = NULL;
    int n = 0;
    OK(store_trajectory(st, s, 0, &r, &n, &err));
    assert_int_equal(n, 1);
    assert_string_equal(r[0].state, "interrupted");
    assert_non_null(strstr(r[0].outcome, "cut off"));
    store_round_list_free(r, n);
    store_eval_run *runs = NULL;
    OK(store_eval_run_list(st, s, NULL, &runs, &n, &err));
    assert_int_equal(n, 1);
    assert_string_equal(runs[0].state, "interrupted");
    n_ev = runs[0].id;
    store_eval_run_list_free(runs, n);
    OK(store_eval_run_list(st, s, "running", &runs, &n, &err));
    assert_int_equal(n, 0); /* nothing runs any more */
    store_eval_run_list_free(runs, n);
    store_eval_run one;
    OK(store_eval_run_get(st, n_ev, &one, &err));
    assert_string_equal(one.state, "interrupted");
    store_eval_run_free(&one);
    store_close(st);
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM rounds WHERE state = 'running'"), 1); /* only shown */

    st = open_rw(f); /* the next kwb to write the session records it */
    int ne = 0, nr = 0;
    OK(store_session_acquire(st, s, getpid(), &err));
    OK(store_session_mark_interrupted(st, s, &ne, &nr, &err));
    assert_int_equal(ne, 1);
    assert_int_equal(nr, 1);
    OK(store_session_release(st, s, getpid(), &err));
    store_close(st);
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM rounds WHERE state = 'interrupted' AND outcome LIKE "
                                      "'cut off:%'"),
                     1);
    check_integrity(f->path);
}

/* The best follows decisions: the candidate promoted last is the best even when its evaluation
 * was cut short (its evidence: the sweep's 2 of 3 workloads, not its complete 1-workload gate);
 * taking the promotion back gives the best back. */
static void test_best_follows_decisions(void **state)
{
    fixture *f = *state;
    kwb_error err = {{0}};
    int64_t s = 0, best = 0, sweep = 0;
    double mean = 0;
    store *st = open_rw(f);
    OK(store_session_create(st, "s", "d", &s, &err));
    const double base_ms[] = {4, 4, 4}, cut_ms[] = {1, 3};
    int64_t base = evaluated(st, f, s, "base", 3, base_ms, "complete");
    OK(store_candidate_decide(st, base, "promoted", "start", &err));
    int64_t cut = evaluated(st, f, s, "cut", 1, cut_ms, "complete");          /* the gate */
    OK(store_eval_begin(st, cut, 0, "cpu", "kwb-runner 1", 3, &sweep, &err)); /* the sweep, cut short */
    for (int i = 0; i < 2; i++) {
        wl_result r = result(&f->wl[i], ST_PASSED, cut_ms[i]);
        OK(store_eval_add(st, sweep, &r, NULL, &err));
    }
    OK(store_eval_finish(st, sweep, "interrupted", &err));
    assert_int_equal(store_candidate_best(st, s, &best, NULL, &err), 1);
    assert_int_equal(best, base); /* undecided: the decisions say base */
    OK(store_candidate_decide(st, cut, "promoted", "by hand", &err));
    assert_int_equal(store_candidate_best(st, s, &best, &mean, &err), 1);
    assert_int_equal(best, cut);
    assert_true(mean == 2.0);
    store_evidence ev;
    assert_int_equal(store_candidate_evidence(st, cut, &ev, &err), 1);
    assert_int_equal(ev.eval_run, sweep);
    assert_int_equal(ev.n_done, 2);
    assert_int_equal(ev.n_session, 3);
    store_wl_table t;
    assert_int_equal(store_wl_table_best(st, s, &t, &err), 1);
    assert_int_equal(t.candidate, cut);
    assert_int_equal(t.n, 2);
    assert_string_equal(t.state, "interrupted");
    store_wl_table_free(&t);
    store_decision *d = NULL;
    int n = 0;
    OK(store_decision_undo(st, s, &d, &n, &err));
    store_decision_list_free(d, n);
    assert_int_equal(store_candidate_best(st, s, &best, &mean, &err), 1);
    assert_int_equal(best, base);
    assert_true(mean == 4.0);
    store_close(st);
    check_integrity(f->path);
}

/* A decision outside the round engine drops the redo stack in its own transaction; the same
 * decision made by a redo keeps it (the redo drops the group it made). */
static void test_decision_drops_redo(void **state)
{
    fixture *f = *state;
    kwb_error err = {{0}};
    int64_t s = 0;
    store *st = open_rw(f);
    OK(store_session_create(st, "s", "d", &s, &err));
    const double ms[] = {1, 1};
    int64_t a = evaluated(st, f, s, "a", 2, ms, "complete"), b = evaluated(st, f, s, "b", 2, ms, "complete");
    store_decision g[1] = {{.candidate = a, .decision = "promoted", .reason = "faster"}};
    OK(store_redo_push(st, s, g, 1, &err));
    OK(store_candidate_redecide(st, a, "promoted", "faster", &err));
    store_decision *d = NULL;
    int n = 0;
    OK(store_redo_top(st, s, &d, &n, &err));
    assert_int_equal(n, 1);
    store_decision_list_free(d, n);
    OK(store_candidate_decide(st, b, "rejected", "by hand", &err));
    OK(store_redo_top(st, s, &d, &n, &err));
    assert_int_equal(n, 0);
    store_close(st);
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM redo"), 0);
    check_integrity(f->path);
}

static void test_current_candidate(void **state)
{
    fixture *f = *state;
    kwb_error err = {{0}};
    int64_t s = 0, x = 0, y = 0, z = 0, cur = 0, round = 0;
    store *st = open_rw(f);
    OK(store_session_create(st, "s", "d", &s, &err));
    assert_int_equal(store_candidate_current(st, s, &cur, &err), 0);
    store_wl_table t;
    assert_int_equal(store_wl_table_current(st, s, &t, &err), 0);
    OK(store_candidate_add(st, s, 0, "baseline", "x", NULL, NULL, &x, &err));
    assert_int_equal(store_candidate_current(st, s, &cur, &err), 1);
    assert_int_equal(cur, x);
    assert_int_equal(store_wl_table_current(st, s, &t, &err), 0); /* not evaluated yet */
    const double ms[] = {1, 1};
    y = evaluated(st, f, s, "y", 2, ms, "complete");
    OK(store_round_begin(st, s, "r", &round, NULL, &err));
    OK(store_round_set_candidate(st, round, y, &err));
    OK(store_candidate_add(st, s, y, "human", "z", NULL, NULL, &z, &err));
    OK(store_round_begin(st, s, "r2", &round, NULL, &err)); /* no candidate yet */
    assert_int_equal(store_candidate_current(st, s, &cur, &err), 1);
    assert_int_equal(cur, y);
    assert_int_equal(store_wl_table_current(st, s, &t, &err), 1);
    assert_int_equal(t.candidate, y);
    assert_int_equal(t.n, 2);
    store_wl_table_free(&t);
    OK(store_round_set_candidate(st, round, z, &err));
    OK(store_round_begin(st, s, "r3", NULL, NULL, &err));
    assert_int_equal(store_candidate_current(st, s, &cur, &err), 1);
    assert_int_equal(cur, z);
    store_close(st);
    check_integrity(f->path);
}

/* ---- the holder lock -------------------------------------------------------------------------- */

static void test_lock_alive_holder(void **state)
{
    fixture *f = *state;
    kwb_error err = {{0}};
    int64_t s = 0;
    char want[64], host[256] = "";
    gethostname(host, sizeof host - 1);
    store *st = open_rw(f);
    OK(store_session_create(st, "tuning", "d", &s, &err));
    OK(store_session_acquire(st, s, getppid(), &err)); /* the parent: alive */
    assert_int_equal(store_session_acquire(st, s, getpid(), &err), -1);
    snprintf(want, sizeof want, "is held by kwb pid %d on ", (int)getppid());
    assert_contains(err.msg, "session 'tuning'");
    assert_contains(err.msg, want);
    assert_contains(err.msg, host);
    assert_contains(err.msg, " since ");
    assert_contains(err.msg, "(kwb log, show, report open it read-only)");

    store *ro = store_open(f->path, 1, &err); /* read-only while held */
    assert_non_null(ro);
    store_session ss;
    OK(store_session_get(ro, s, &ss, &err));
    assert_int_equal(ss.holder_pid, getppid());
    assert_string_equal(ss.holder_host, host);
    assert_true(ss.holder_since > 1.6e9);
    store_session_free(&ss);
    assert_int_equal(store_session_acquire(ro, s, getpid(), &err), -1);
    assert_contains(err.msg, "read-only");
    store_close(ro);

    OK(store_session_release(st, s, getpid(), &err)); /* not the holder: no effect */
    assert_int_equal(store_session_acquire(st, s, getpid(), &err), -1);
    OK(store_session_release(st, s, getppid(), &err));
    OK(store_session_acquire(st, s, getpid(), &err));
    OK(store_session_acquire(st, s, getpid(), &err)); /* again: its own */
    assert_int_equal(store_session_acquire(st, 999, getpid(), &err), -1);
    assert_contains(err.msg, "no such session");
    store_close(st);
    check_integrity(f->path);
}

static void test_lock_stale_holder(void **state)
{
    fixture *f = *state;
    kwb_error err = {{0}};
    int64_t s = 0;
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0)
        _exit(0);
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    store *st = open_rw(f);
    OK(store_session_create(st, "s", "d", &s, &err));
    OK(store_session_acquire(st, s, child, &err));    /* records a pid that is gone */
    OK(store_session_acquire(st, s, getpid(), &err)); /* taken over */
    store_session ss;
    OK(store_session_get(st, s, &ss, &err));
    assert_int_equal(ss.holder_pid, getpid());
    store_session_free(&ss);
    store_close(st);

    char sql[256];
    /* A live pid recorded on another host: WAL cannot be shared across hosts, so it is stale. */
    snprintf(sql, sizeof sql, "UPDATE sessions SET holder_pid = %d, holder_host = 'elsewhere'", (int)getppid());
    sql_exec(f->path, sql);
    st = open_rw(f);
    OK(store_session_acquire(st, s, getpid(), &err));
    store_close(st);
    /* A live pid whose start time differs from the holder's: the pid was reused. */
    snprintf(sql, sizeof sql, "UPDATE sessions SET holder_pid = %d, holder_start = '1'", (int)getppid());
    sql_exec(f->path, sql);
    st = open_rw(f);
    OK(store_session_acquire(st, s, getpid(), &err));
    store_log_entry *e = NULL;
    int n = 0;
    OK(store_log_list(st, s, 0, 0, &e, &n, &err));
    assert_contains(e[n - 1].text, "took over");
    store_log_list_free(e, n);
    store_close(st);
    check_integrity(f->path);
}

/* ---- interruption, resume, a killed writer ------------------------------------------------------ */

static void test_interrupt_and_resume(void **state)
{
    fixture *f = *state;
    kwb_error err = {{0}};
    int64_t s = 0, c = 0, round = 0, run = 0, done_run = 0;
    int ne = -1, nr = -1;
    store *st = open_rw(f);
    OK(store_session_create(st, "s", "d", &s, &err));
    const double ms[] = {1, 1};
    evaluated(st, f, s, "done", 2, ms, "complete");
    OK(store_candidate_add(st, s, 0, "llm", "a", NULL, NULL, &c, &err));
    OK(store_round_begin(st, s, "r", &round, NULL, &err));
    OK(store_eval_begin(st, c, round, "cpu", "1", 3, &run, &err));
    wl_result r0 = result(&f->wl[0], ST_PASSED, 1), r1 = result(&f->wl[1], ST_PASSED, 1);
    wl_result r2 = result(&f->wl[2], ST_PASSED, 1);
    OK(store_eval_add(st, run, &r0, NULL, &err));
    store_close(st);

    st = open_rw(f); /* the restart */
    OK(store_session_mark_interrupted(st, s, &ne, &nr, &err));
    assert_int_equal(ne, 1);
    assert_int_equal(nr, 1);
    assert_int_equal(store_eval_add(st, run, &r1, NULL, &err), -1);
    assert_contains(err.msg, "is interrupted, not running");
    store_eval_run *runs = NULL;
    int n = 0;
    OK(store_eval_run_list(st, s, "interrupted", &runs, &n, &err));
    assert_int_equal(n, 1);
    assert_int_equal(runs[0].id, run);
    assert_int_equal(runs[0].round, round);
    assert_int_equal(runs[0].n_done, 1);
    store_eval_run_list_free(runs, n);
    OK(store_eval_run_list(st, s, NULL, &runs, &n, &err));
    assert_int_equal(n, 2);
    done_run = runs[0].id;
    store_eval_run_list_free(runs, n);
    assert_int_equal(store_eval_resume(st, done_run, &err), -1); /* complete: not resumable */

    OK(store_eval_resume(st, run, &err));
    char **uuids = NULL;
    OK(store_eval_uuids(st, run, &uuids, &n, &err));
    assert_int_equal(n, 1);
    assert_string_equal(uuids[0], "wl-0");
    store_strings_free(uuids, n);
    OK(store_eval_add(st, run, &r1, NULL, &err));
    OK(store_eval_add(st, run, &r2, NULL, &err));
    OK(store_eval_finish(st, run, "complete", &err));
    OK(store_round_end(st, round, "done", NULL, &err)); /* from interrupted */
    OK(store_session_mark_interrupted(st, s, &ne, &nr, &err));
    assert_int_equal(ne, 0);
    assert_int_equal(nr, 0);
    store_close(st);
    check_integrity(f->path);
}

/* The writer of test_killed_writer, in a child process: takes the session, commits three
 * workload rows, says so on TELL, waits for a byte on HEAR, records a fourth row inside a
 * transaction left open, says so again and waits to be killed. It exits by itself when HEAR
 * reaches end of file (the test failed early and its process ended). */
static void killed_writer_child(fixture *f, int64_t s, int tell, int hear)
{
    kwb_error err = {{0}};
    int64_t c = 0, run = 0;
    char byte = 'x';
    store *w = store_open(f->path, 0, &err);
    if (!w || store_session_acquire(w, s, getpid(), &err) ||
        store_candidate_add(w, s, 0, "llm", "a", NULL, NULL, &c, &err) ||
        store_eval_begin(w, c, 0, "cpu", "1", 5, &run, &err))
        _exit(3);
    for (int i = 0; i < 4; i++) {
        if (i == 3 && (write(tell, &byte, 1) != 1 || read(hear, &byte, 1) != 1 || store_batch_begin(w, &err)))
            _exit(4);
        wl_result r = result(&f->wl[i], ST_PASSED, 1);
        if (store_eval_add(w, run, &r, NULL, &err))
            _exit(5);
    }
    if (write(tell, &byte, 1) != 1)
        _exit(6);
    while (read(hear, &byte, 1) > 0)
        ;
    _exit(7);
}

/* A second process is refused the session while the writer lives (and may read it); the
 * writer killed with SIGKILL mid-evaluation keeps every row it committed and loses only the
 * one in flight; the restart takes the session over and marks the evaluation interrupted. */
static void test_killed_writer(void **state)
{
    fixture *f = *state;
    kwb_error err = {{0}};
    int64_t s = 0;
    int up[2], down[2];
    char byte = 0, want[64];
    store *st = open_rw(f);
    OK(store_session_create(st, "s", "d", &s, &err));
    store_close(st);
    assert_int_equal(pipe(up), 0);
    assert_int_equal(pipe(down), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        close(up[0]);
        close(down[1]);
        killed_writer_child(f, s, up[1], down[0]);
    }
    close(up[1]);
    close(down[0]);
    assert_int_equal(read(up[0], &byte, 1), 1); /* three rows committed */

    st = open_rw(f);
    assert_int_equal(store_session_acquire(st, s, getpid(), &err), -1);
    snprintf(want, sizeof want, "held by kwb pid %d", (int)child);
    assert_contains(err.msg, want);
    store_close(st);
    store *ro = store_open(f->path, 1, &err);
    assert_non_null(ro);
    store_eval_run *runs = NULL;
    int n = 0;
    OK(store_eval_run_list(ro, s, "running", &runs, &n, &err));
    assert_int_equal(n, 1);
    assert_int_equal(runs[0].n_done, 3);
    store_eval_run_list_free(runs, n);
    store_close(ro);

    assert_int_equal(write(down[1], &byte, 1), 1);
    assert_int_equal(read(up[0], &byte, 1), 1); /* the fourth row is in flight */
    assert_int_equal(kill(child, SIGKILL), 0);
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    close(up[0]);
    close(down[1]);

    st = open_rw(f);
    OK(store_session_acquire(st, s, getpid(), &err)); /* its holder is gone */
    OK(store_eval_run_list(st, s, "running", &runs, &n, &err));
    assert_int_equal(n, 1);
    assert_int_equal(runs[0].n_done, 3);
    store_eval_run_list_free(runs, n);
    int ne = 0;
    OK(store_session_mark_interrupted(st, s, &ne, NULL, &err));
    assert_int_equal(ne, 1);
    store_close(st);
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM evaluations"), 3);
    check_integrity(f->path);
}

static void test_batch(void **state)
{
    fixture *f = *state;
    kwb_error err = {{0}};
    int64_t s = 0;
    store *st = open_rw(f);
    assert_int_equal(store_batch_commit(st, &err), -1);
    OK(store_batch_begin(st, &err));
    assert_int_equal(store_batch_begin(st, &err), -1);
    OK(store_session_create(st, "s", "d", &s, &err));
    OK(store_candidate_add(st, s, 0, "llm", "a", NULL, NULL, NULL, &err));
    assert_int_equal(store_candidate_add(st, s, 0, "llm", "a", NULL, NULL, NULL, &err), -1); /* undone alone */
    OK(store_candidate_add(st, s, 0, "llm", "b", NULL, NULL, NULL, &err));
    OK(store_batch_commit(st, &err));
    OK(store_batch_begin(st, &err));
    OK(store_candidate_add(st, s, 0, "llm", "c", NULL, NULL, NULL, &err));
    store_batch_abort(st);
    OK(store_batch_begin(st, &err));
    OK(store_candidate_add(st, s, 0, "llm", "d", NULL, NULL, NULL, &err));
    store_close(st); /* an open batch is rolled back */
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM candidates"), 2);
    assert_int_equal(sql_int(f->path, "SELECT count(*) FROM log WHERE kind = 'candidate'"), 2);
    check_integrity(f->path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_schema_new_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reopen_idempotent, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migrate_from_empty_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migrate_writer_from_3, setup, teardown),
        cmocka_unit_test_setup_teardown(test_readonly_open_migrates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_future_version_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_a_store, setup, teardown),
        cmocka_unit_test_setup_teardown(test_readonly_refuses_writes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sessions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_candidates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_foreign_keys, setup, teardown),
        cmocka_unit_test_setup_teardown(test_builds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_eval_roundtrip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_samples, setup, teardown),
        cmocka_unit_test_setup_teardown(test_profiles_agents_notes_log, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rounds_and_directions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_decision_undo, setup, teardown),
        cmocka_unit_test_setup_teardown(test_redo_and_verdicts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cut_off_shows_interrupted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_best_follows_decisions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_decision_drops_redo, setup, teardown),
        cmocka_unit_test_setup_teardown(test_best_candidate, setup, teardown),
        cmocka_unit_test_setup_teardown(test_current_candidate, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lock_alive_holder, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lock_stale_holder, setup, teardown),
        cmocka_unit_test_setup_teardown(test_interrupt_and_resume, setup, teardown),
        cmocka_unit_test_setup_teardown(test_killed_writer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_batch, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
