/* store.c - the session store on SQLite. See store.h for the contract.
 *
 * Durability: the file is in WAL mode with synchronous=NORMAL. A commit appends the
 * transaction to the WAL with write(); it reaches the disk at the next checkpoint. A killed
 * process (SIGKILL, a crash) loses nothing committed, because the data is already in the
 * operating system's page cache, which outlives the process; only a power cut or kernel crash
 * can roll back the last transactions, and even then the database stays consistent (WAL
 * frames are checksummed). With one transaction per recorded event that is exactly "a killed
 * process loses at most the evaluation in flight", without an fsync per workload row.
 *
 * Values are always bound (sqlite3_bind_*), never formatted into SQL. Statements are prepared
 * once per store and cached in st->q. */
#include "store.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pidlive.h"
#include "store_schema.h"
#include "secrets.h"
#include "strbuf.h"
#include "xalloc.h"

#define BUSY_TIMEOUT_MS 5000
/* PRAGMA application_id: "kwb1" in ASCII, so that `file` and sqlite3 tell kwb stores apart. */
#define KWB_APPLICATION_ID 0x6b776231
/* The outcome of a round whose kwb ended (killed, or out of time) before the round did. */
#define CUT_OFF "cut off: the kwb running it ended before it did"

/* ---- schema ------------------------------------------------------------------------------ */

/* ---- statements --------------------------------------------------------------------------- */

#define CAND_COLS                                                                                                      \
    "id, session_id, parent_id, coalesce(writer, origin), state, name, solution_dir, commit_oid, created_at"
#define RUN_COLS                                                                                                       \
    "id, session_id, candidate_id, round_id, device, runner_version, state, n_workloads, n_done, "                     \
    "n_passed, mean_latency_ms, started_at, ended_at"
#define ROUND_COLS                                                                                                     \
    "id, number, title, state, candidate_id, outcome, started_at, ended_at, best_mean_ms, "                            \
    "best_candidate_id"

#define QUERIES(X)                                                                                                     \
    X(BEGIN, "BEGIN IMMEDIATE")                                                                                        \
    X(COMMIT, "COMMIT")                                                                                                \
    X(ROLLBACK, "ROLLBACK")                                                                                            \
    X(SAVEPOINT, "SAVEPOINT event")                                                                                    \
    X(RELEASE, "RELEASE event")                                                                                        \
    X(ROLLBACK_TO, "ROLLBACK TO event")                                                                                \
    X(USER_VERSION, "PRAGMA user_version")                                                                             \
    X(APPLICATION_ID, "PRAGMA application_id")                                                                         \
    X(SCHEMA_COUNT, "SELECT count(*) FROM sqlite_master")                                                              \
    X(JOURNAL_WAL, "PRAGMA journal_mode = WAL")                                                                        \
    X(LOG_ADD, "INSERT INTO log (session_id, round_id, candidate_id, time, kind, text) VALUES ("                       \
               "coalesce(?1, (SELECT session_id FROM rounds WHERE id = ?2),"                                           \
               " (SELECT session_id FROM candidates WHERE id = ?3)), ?2, ?3, ?4, ?5, ?6)")                             \
    X(LOG_LIST, "SELECT id, time, kind, round_id, candidate_id, text FROM log"                                         \
                " WHERE session_id = ? AND id > ? ORDER BY id DESC LIMIT ?")                                           \
    X(SESSION_ADD, "INSERT INTO sessions (name, definition, created_at) VALUES (?, ?, ?)")                             \
    X(SESSION_FIND, "SELECT id FROM sessions WHERE name = ?")                                                          \
    X(SESSION_GET, "SELECT id, name, definition, created_at, holder_pid, holder_host, holder_since"                    \
                   " FROM sessions WHERE id = ?")                                                                      \
    X(SESSION_LIST, "SELECT id, name, definition, created_at, holder_pid, holder_host, holder_since"                   \
                    " FROM sessions ORDER BY id")                                                                      \
    X(SESSION_HOLDER, "SELECT name, holder_pid, holder_host, holder_start, holder_since FROM sessions WHERE id = ?")   \
    X(SESSION_HOLD, "UPDATE sessions SET holder_pid = ?, holder_host = ?, holder_start = ?, holder_since = ?"          \
                    " WHERE id = ?")                                                                                   \
    X(SESSION_UNHOLD, "UPDATE sessions SET holder_pid = NULL, holder_host = NULL, holder_start = NULL,"                \
                      " holder_since = NULL WHERE id = ? AND holder_pid = ?")                                          \
    X(RUNS_INTERRUPT, "UPDATE eval_runs SET state = 'interrupted', ended_at = ?2"                                      \
                      " WHERE session_id = ?1 AND state = 'running'")                                                  \
    X(ROUNDS_INTERRUPT, "UPDATE rounds SET state = 'interrupted', ended_at = ?2, best_mean_ms = ?3,"                   \
                        " best_candidate_id = ?4, outcome = ?5 WHERE session_id = ?1 AND state = 'running'")           \
    X(ROUND_NEXT, "SELECT coalesce(max(number), 0) + 1 FROM rounds WHERE session_id = ?")                              \
    X(ROUND_ADD, "INSERT INTO rounds (session_id, number, title, started_at) VALUES (?, ?, ?, ?)")                     \
    X(ROUND_SESSION, "SELECT session_id, number FROM rounds WHERE id = ?")                                             \
    X(ROUND_SET_CAND, "UPDATE rounds SET candidate_id = ? WHERE id = ?")                                               \
    X(ROUND_END, "UPDATE rounds SET state = ?, outcome = ?, ended_at = ?, best_mean_ms = ?,"                           \
                 " best_candidate_id = ? WHERE id = ? AND state IN ('running', 'interrupted')")                        \
    X(ROUND_REOPEN, "UPDATE rounds SET state = 'running', ended_at = NULL WHERE id = ?"                                \
                    " AND state IN ('done', 'interrupted')")                                                           \
    X(ROUND_LIST, "SELECT " ROUND_COLS " FROM rounds WHERE session_id = ? ORDER BY number DESC LIMIT ?")               \
    X(DIR_ADD, "INSERT INTO directions (session_id, round_id, skill, title, rationale, created_at)"                    \
               " VALUES (?, ?, ?, ?, ?, ?)")                                                                           \
    X(DIR_DECIDE, "UPDATE directions SET state = ? WHERE id = ?")                                                      \
    X(DIR_SESSION, "SELECT session_id, round_id FROM directions WHERE id = ?")                                         \
    X(DIR_DECISION, "INSERT INTO decisions (session_id, direction_id, decision, reason, decided_at)"                   \
                    " SELECT session_id, id, ?, ?, ? FROM directions WHERE id = ?")                                    \
    X(DIR_LIST, "SELECT d.id, d.round_id, d.skill, d.title, d.rationale, d.state,"                                     \
                " (SELECT reason FROM decisions WHERE direction_id = d.id ORDER BY id DESC LIMIT 1),"                  \
                " d.created_at FROM directions d"                                                                      \
                " WHERE d.session_id = ?1 AND (?2 IS NULL OR d.round_id = ?2) ORDER BY d.id")                          \
    X(CAND_ADD, "INSERT INTO candidates (session_id, parent_id, origin, writer, name, solution_dir, commit_oid,"       \
                " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")                                                        \
    X(CAND_STATE, "UPDATE candidates SET state = ? WHERE id = ?")                                                      \
    X(CAND_EVALUATED, "UPDATE candidates SET state = 'evaluated' WHERE id = ? AND state = 'new'")                      \
    X(CAND_DECISION, "INSERT INTO decisions (session_id, candidate_id, decision, reason, decided_at)"                  \
                     " SELECT session_id, id, ?, ?, ? FROM candidates WHERE id = ?")                                   \
    X(CAND_GET, "SELECT " CAND_COLS " FROM candidates WHERE id = ?")                                                   \
    X(CAND_BY_NAME, "SELECT " CAND_COLS " FROM candidates WHERE session_id = ? AND name = ?")                          \
    X(CAND_BY_COMMIT, "SELECT " CAND_COLS " FROM candidates WHERE session_id = ?1"                                     \
                      " AND commit_oid >= ?2 AND commit_oid < ?2 || 'g' LIMIT 2")                                      \
    X(CAND_BEST, "SELECT e.candidate_id, e.mean_latency_ms FROM eval_runs e"                                           \
                 " JOIN candidates c ON c.id = e.candidate_id"                                                         \
                 " WHERE e.session_id = ? AND e.mean_latency_ms IS NOT NULL AND c.state <> 'rejected'"                 \
                 " ORDER BY e.n_workloads DESC, e.mean_latency_ms, e.id LIMIT 1")                                      \
    X(CAND_PROMOTED, "SELECT c.id FROM candidates c JOIN decisions d ON d.candidate_id = c.id"                         \
                     " WHERE c.session_id = ? AND c.state = 'promoted' ORDER BY d.decided_at DESC, d.id DESC LIMIT 1") \
    X(CAND_EVIDENCE, "SELECT e.id, e.n_done, CASE WHEN e.n_passed = e.n_done THEN e.latency_sum_ms / e.n_done END,"    \
                     " (SELECT max(n_workloads) FROM eval_runs WHERE session_id = e.session_id) FROM eval_runs e"      \
                     " WHERE e.candidate_id = ? AND e.n_done > 0"                                                      \
                     " ORDER BY e.n_done DESC, e.state = 'complete' DESC, e.id DESC LIMIT 1")                          \
    X(CAND_FAILURE, "SELECT v.status, v.workload_uuid, json_extract(r.options, '$.trials') FROM evaluations v"         \
                    " JOIN eval_runs r ON r.id = v.eval_run_id WHERE r.candidate_id = ? AND v.status != 'PASSED'"      \
                    " ORDER BY v.id DESC LIMIT 1")                                                                     \
    X(CAND_CURRENT_ROUND, "SELECT candidate_id FROM rounds WHERE session_id = ? AND candidate_id IS NOT NULL"          \
                          " ORDER BY number DESC LIMIT 1")                                                             \
    X(CAND_NEWEST, "SELECT id FROM candidates WHERE session_id = ? ORDER BY id DESC LIMIT 1")                          \
    X(CAND_NAME, "SELECT name FROM candidates WHERE id = ?")                                                           \
    X(CAND_COMMITS, "SELECT commit_oid FROM candidates WHERE session_id = ? ORDER BY id")                              \
    X(BUILD_ADD, "INSERT INTO builds (candidate_id, hash, command, log, ok, seconds, created_at)"                      \
                 " VALUES (?, ?, ?, ?, ?, ?, ?)")                                                                      \
    X(BUILD_LATEST, "SELECT id, candidate_id, hash, command, log, ok, seconds, created_at FROM builds"                 \
                    " WHERE candidate_id = ? ORDER BY id DESC LIMIT 1")                                                \
    X(RUN_ADD, "INSERT INTO eval_runs (session_id, candidate_id, round_id, device, runner_version,"                    \
               " n_workloads, started_at) SELECT session_id, id, ?2, ?3, ?4, ?5, ?6 FROM candidates"                   \
               " WHERE id = ?1")                                                                                       \
    X(RUN_COUNT, "UPDATE eval_runs SET n_done = n_done + 1, n_passed = n_passed + ?2,"                                 \
                 " latency_sum_ms = latency_sum_ms + ?3"                                                               \
                 " WHERE id = ?1 AND state = 'running' AND n_done < n_workloads")                                      \
    X(RUN_TALLY, "SELECT state, n_workloads, n_done, n_passed, latency_sum_ms, candidate_id"                           \
                 " FROM eval_runs WHERE id = ?")                                                                       \
    X(RUN_FINISH, "UPDATE eval_runs SET state = ?, ended_at = ?, mean_latency_ms = ? WHERE id = ?")                    \
    X(RUN_RESUME, "UPDATE eval_runs SET state = 'running', ended_at = NULL WHERE id = ? AND state = 'interrupted'")    \
    X(RUN_GET, "SELECT " RUN_COLS " FROM eval_runs WHERE id = ?")                                                      \
    X(RUN_SET_OPTIONS, "UPDATE eval_runs SET options = ? WHERE id = ?")                                                \
    X(RUN_OPTIONS, "SELECT options FROM eval_runs WHERE id = ?")                                                       \
    X(RUN_LIST, "SELECT " RUN_COLS " FROM eval_runs WHERE session_id = ?1 AND (?2 IS NULL OR state = ?2)"              \
                " ORDER BY id")                                                                                        \
    X(ROW_ADD, "INSERT INTO evaluations (eval_run_id, workload_uuid, status, message, log, max_abs,"                   \
               " max_rel, matched_ratio, cand_median, cand_mean, cand_min, cand_iqr, cand_count,"                      \
               " base_median, base_mean, base_min, base_iqr, base_count, ref_median, ref_mean, ref_min,"               \
               " ref_iqr, ref_count, baseline_status, timer, gbps, verdict, ratio, ratio_lo, ratio_hi,"                \
               " created_at, tflops, roofline) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"             \
               " ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")                                                     \
    X(ROW_UUIDS, "SELECT workload_uuid FROM evaluations WHERE eval_run_id = ? ORDER BY id")                            \
    X(ROW_TABLE, "SELECT id, workload_uuid, status, message, cand_median, base_median, ref_median, max_abs,"           \
                 " max_rel, matched_ratio, verdict, roofline, gbps, timer, ratio, ratio_lo, ratio_hi FROM evaluations" \
                 " WHERE eval_run_id = ? ORDER BY id")                                                                 \
    X(SAMPLES_ADD, "INSERT OR REPLACE INTO samples (evaluation_id, role, ms) VALUES (?, ?, ?)")                        \
    X(SAMPLES_GET, "SELECT ms FROM samples WHERE evaluation_id = ? AND role = ?")                                      \
    X(PROFILE_ADD, "INSERT INTO profiles (candidate_id, workload_uuid, tool, data, created_at)"                        \
                   " VALUES (?, ?, ?, ?, ?)")                                                                          \
    X(PROFILE_LATEST, "SELECT data FROM profiles WHERE candidate_id = ?1 AND tool = ?3"                                \
                      " AND workload_uuid IS ?2 ORDER BY id DESC LIMIT 1")                                             \
    X(AGENT_ADD, "INSERT INTO agent_calls (session_id, round_id, provider, model, tokens_in, tokens_out,"              \
                 " cost, duration_s, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")                       \
    X(AGENT_TOTALS, "SELECT count(*), coalesce(sum(max(tokens_in, 0)), 0), coalesce(sum(max(tokens_out, 0)), 0),"      \
                    " coalesce(sum(cost), 0), coalesce(sum(duration_s), 0) FROM agent_calls WHERE session_id = ?")     \
    X(NOTE_ADD, "INSERT INTO notes (session_id, round_id, candidate_id, text, created_at)"                             \
                " VALUES (?, ?, ?, ?, ?)")                                                                             \
    X(DIR_SET_ROUND, "UPDATE directions SET round_id = ? WHERE id = ?")                                                \
    X(CAND_ROUND, "SELECT coalesce(max(id), 0) FROM rounds WHERE candidate_id = ?")                                    \
    X(DEC_OLDER, "SELECT d.id, coalesce(d.direction_id, 0), coalesce(d.candidate_id, 0), d.decision, d.reason,"        \
                 " dr.skill, dr.title, dr.rationale, coalesce(dr.round_id,"                                            \
                 "  (SELECT max(id) FROM rounds WHERE candidate_id = d.candidate_id), 0)"                              \
                 " FROM decisions d LEFT JOIN directions dr ON dr.id = d.direction_id"                                 \
                 " WHERE d.session_id = ? AND d.id < ? ORDER BY d.id DESC LIMIT 1")                                    \
    X(DEC_DELETE, "DELETE FROM decisions WHERE id = ?")                                                                \
    X(VERDICT_ADD, "INSERT INTO verdicts (session_id, candidate_id, eval_run_id, promote, stage, reason, created_at)"  \
                   " VALUES (?, ?, (SELECT max(id) FROM eval_runs WHERE candidate_id = ?2), ?, ?, ?, ?)")              \
    X(VERDICT_LAST, "SELECT v.promote, v.stage, v.reason FROM verdicts v WHERE v.candidate_id = ?1"                    \
                    " AND v.eval_run_id = (SELECT max(id) FROM eval_runs WHERE candidate_id = ?1)"                     \
                    " AND NOT EXISTS (SELECT 1 FROM eval_runs WHERE candidate_id = ?1 AND state = 'running')"          \
                    " ORDER BY v.id DESC LIMIT 1")                                                                     \
    X(REDO_ADD, "INSERT INTO redo (session_id, grp, direction_id, candidate_id, decision, reason, skill, title,"       \
                " rationale, round_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")                                         \
    X(REDO_TOP, "SELECT coalesce(max(grp), 0) FROM redo WHERE session_id = ?")                                         \
    X(REDO_GROUP, "SELECT id, coalesce(direction_id, 0), coalesce(candidate_id, 0), decision, reason, skill, title,"   \
                  " rationale, coalesce(round_id, 0) FROM redo WHERE session_id = ? AND grp = ? ORDER BY id")          \
    X(REDO_DROP, "DELETE FROM redo WHERE session_id = ? AND grp >= ?")                                                 \
    X(CAND_REASON, "SELECT reason FROM decisions WHERE candidate_id = ? ORDER BY id DESC LIMIT 1")                     \
    X(ROUND_REBEST, "UPDATE rounds SET best_candidate_id = ?2, best_mean_ms = ?3"                                      \
                    " WHERE id = (SELECT max(id) FROM rounds WHERE candidate_id = ?1) AND state != 'running'")         \
    X(DIR_RESTATE, "UPDATE directions SET state = coalesce((SELECT decision FROM decisions"                            \
                   " WHERE direction_id = ?1 ORDER BY id DESC LIMIT 1), 'proposed') WHERE id = ?1")                    \
    X(CAND_RESTATE, "UPDATE candidates SET state = coalesce((SELECT decision FROM decisions"                           \
                    " WHERE candidate_id = ?1 ORDER BY id DESC LIMIT 1), CASE WHEN EXISTS (SELECT 1 FROM"              \
                    " eval_runs WHERE candidate_id = ?1 AND state = 'complete') THEN 'evaluated' ELSE 'new' END)"      \
                    " WHERE id = ?1")                                                                                  \
    X(CAND_UNDECIDED, "SELECT id FROM candidates WHERE session_id = ? AND state IN ('new', 'evaluated')"               \
                      " ORDER BY id DESC LIMIT 1")

#define AS_ENUM(name, sql) Q_##name,
#define AS_SQL(name, sql) sql,
#define AS_NAME(name, sql) #name,
enum query { QUERIES(AS_ENUM) Q_COUNT };
static const char *const query_sql[Q_COUNT] = {QUERIES(AS_SQL)};
static const char *const query_name[Q_COUNT] = {QUERIES(AS_NAME)};

struct store {
    sqlite3 *db;
    char *path;
    int readonly;
    int stale;   /* opened read-only on an older schema (check_kind refused it) */
    int batch;   /* inside store_batch_begin/commit */
    int last_rc; /* extended result code of the last failed step */
    char host[256];
    sqlite3_stmt *q[Q_COUNT];
};

/* ---- small helpers ------------------------------------------------------------------------ */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int db_error(store *st, kwb_error *err)
{
    int code = sqlite3_errcode(st->db) & 0xff, sys = sqlite3_system_errno(st->db);
    if (code == SQLITE_FULL || code == SQLITE_IOERR || code == SQLITE_CANTOPEN || code == SQLITE_READONLY)
        return kwb_error_set(err, "%s: %s%s%s%s", st->path, sqlite3_errmsg(st->db), sys ? " (" : "",
                             sys ? strerror(sys) : "", sys ? ")" : ""); /* which file, and why */
    return kwb_error_set(err, "%s", sqlite3_errmsg(st->db));
}

/* *err prefixed with the store's path, unless it names it already. */
static int prefix_path(store *st, kwb_error *err)
{
    if (err && strncmp(err->msg, st->path, strlen(st->path)) == 0)
        return -1;
    return prefix_path(st, err);
}

/* 0 when VALUE is one of the NULL-terminated LIST, else -1 with "unknown WHAT 'VALUE'". */
static int one_of(const char *value, const char *const *list, const char *what, kwb_error *err)
{
    for (int i = 0; value && list[i]; i++)
        if (strcmp(value, list[i]) == 0)
            return 0;
    strbuf sb;
    strbuf_init(&sb);
    for (int i = 0; list[i]; i++)
        strbuf_printf(&sb, "%s%s", i ? ", " : "", list[i]);
    kwb_error_set(err, "unknown %s '%s' (one of: %s)", what, value ? value : "(null)", sb.s);
    strbuf_free(&sb);
    return -1;
}

static char *col_str(sqlite3_stmt *s, int i)
{
    const unsigned char *t = sqlite3_column_text(s, i);
    return t ? xstrdup((const char *)t) : NULL;
}

static void col_buf(sqlite3_stmt *s, int i, char *buf, size_t cap)
{
    const char *t = (const char *)sqlite3_column_text(s, i);
    size_t n = t ? strnlen(t, cap - 1) : 0;
    memcpy(buf, t ? t : "", n);
    buf[n] = '\0';
}

/* Grows *arr (of *cap elements of SIZE bytes) to hold N + 1. */
static void *grow(void *arr, int n, int *cap, size_t size)
{
    if (n < *cap)
        return arr;
    *cap = *cap ? 2 * *cap : 16;
    return xrealloc(arr, (size_t)*cap * size);
}

static void format_time(double t, char *buf, size_t cap)
{
    time_t secs = (time_t)t;
    struct tm tm;
    if (!localtime_r(&secs, &tm) || !strftime(buf, cap, "%Y-%m-%d %H:%M:%S", &tm))
        snprintf(buf, cap, "%.0f", t);
}

/* ---- binding and stepping ------------------------------------------------------------------- */

/* Binds from parameter FIRST on, one value per letter of FMT: 'i' int64_t, 'o' optional id
 * (int64_t; 0 binds NULL), 'k' int, 'd' double, 'D' double (NaN binds NULL), 't' text (NULL
 * binds NULL; the text must outlive the step), 'b' blob (const void *, size_t). */
static int bind_va(sqlite3_stmt *s, int first, const char *fmt, va_list ap)
{
    int rc = SQLITE_OK;
    for (int i = first; *fmt && rc == SQLITE_OK; fmt++, i++) {
        switch (*fmt) {
        case 'i': rc = sqlite3_bind_int64(s, i, va_arg(ap, int64_t)); break;
        case 'o': {
            int64_t v = va_arg(ap, int64_t);
            rc = v > 0 ? sqlite3_bind_int64(s, i, v) : sqlite3_bind_null(s, i);
            break;
        }
        case 'k': rc = sqlite3_bind_int(s, i, va_arg(ap, int)); break;
        case 'd': rc = sqlite3_bind_double(s, i, va_arg(ap, double)); break;
        case 'D': {
            double v = va_arg(ap, double);
            rc = isnan(v) ? sqlite3_bind_null(s, i) : sqlite3_bind_double(s, i, v);
            break;
        }
        case 't': {
            const char *t = va_arg(ap, const char *);
            /* no key kwb knows is ever stored (a reason, a log line, an agent's message) */
            if (t && secrets_contains_key(t))
                rc = sqlite3_bind_text(s, i, secrets_redact(t), -1, free);
            else
                rc = t ? sqlite3_bind_text(s, i, t, -1, SQLITE_STATIC) : sqlite3_bind_null(s, i);
            break;
        }
        case 'b': {
            const void *p = va_arg(ap, const void *);
            size_t n = va_arg(ap, size_t);
            rc = sqlite3_bind_blob64(s, i, p, (sqlite3_uint64)n, SQLITE_STATIC);
            break;
        }
        default: rc = SQLITE_MISUSE;
        }
    }
    return rc;
}

static int bind_at(sqlite3_stmt *s, int first, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = bind_va(s, first, fmt, ap);
    va_end(ap);
    return rc;
}

/* The cached statement Q, reset, with FMT's values bound from parameter 1; NULL on error. */
static sqlite3_stmt *prep_va(store *st, kwb_error *err, enum query q, const char *fmt, va_list ap)
{
    sqlite3_stmt *s = st->q[q];
    if (!s) {
        if (sqlite3_prepare_v2(st->db, query_sql[q], -1, &s, NULL) != SQLITE_OK) {
            st->last_rc = sqlite3_extended_errcode(st->db);
            kwb_error_set(err, "preparing %s: %s", query_name[q], sqlite3_errmsg(st->db));
            sqlite3_finalize(s);
            return NULL;
        }
        st->q[q] = s;
    }
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    if (bind_va(s, 1, fmt, ap) != SQLITE_OK) {
        kwb_error_set(err, "binding %s: %s", query_name[q], sqlite3_errmsg(st->db));
        return NULL;
    }
    return s;
}

static sqlite3_stmt *prep(store *st, kwb_error *err, enum query q, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sqlite3_stmt *s = prep_va(st, err, q, fmt, ap);
    va_end(ap);
    return s;
}

/* Steps S: 1 on a row (the caller resets S when done with it), 0 when done, -1 on error. */
static int step(store *st, sqlite3_stmt *s, kwb_error *err)
{
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        return 1;
    if (rc != SQLITE_DONE) {
        st->last_rc = sqlite3_extended_errcode(st->db);
        db_error(st, err);
    }
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Runs Q to completion; returns 0 or -1. sqlite3_changes() tells how many rows it changed. */
static int exec(store *st, kwb_error *err, enum query q, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sqlite3_stmt *s = prep_va(st, err, q, fmt, ap);
    va_end(ap);
    if (!s)
        return -1;
    int rc = step(st, s, err);
    sqlite3_reset(s);
    return rc < 0 ? -1 : 0;
}

/* Runs Q, an UPDATE that must change a row; -1 with "no such WHAT" when it changed none. */
static int exec_one(store *st, kwb_error *err, const char *what, enum query q, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sqlite3_stmt *s = prep_va(st, err, q, fmt, ap);
    va_end(ap);
    if (!s || step(st, s, err) < 0)
        return -1;
    sqlite3_reset(s);
    return sqlite3_changes(st->db) ? 0 : kwb_error_set(err, "no such %s", what);
}

/* Runs Q, an INSERT; *id (when not NULL) gets the new row's id. */
static int insert(store *st, kwb_error *err, int64_t *id, enum query q, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sqlite3_stmt *s = prep_va(st, err, q, fmt, ap);
    va_end(ap);
    if (!s || step(st, s, err) < 0)
        return -1;
    sqlite3_reset(s);
    if (id)
        *id = sqlite3_last_insert_rowid(st->db);
    return 0;
}

/* Runs Q, a SELECT: 1 with *out on its first row (reset it after reading), 0 when it has no
 * row, -1 on error. */
static int row(store *st, kwb_error *err, sqlite3_stmt **out, enum query q, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sqlite3_stmt *s = prep_va(st, err, q, fmt, ap);
    va_end(ap);
    *out = s;
    return s ? step(st, s, err) : -1;
}

/* Reads every row of the bound S with READ_ONE into a growing array of SIZE-byte elements. On
 * error the caller frees what was read. */
static int collect(store *st, sqlite3_stmt *s, void **arr, int *n, size_t size,
                   void (*read_one)(sqlite3_stmt *, void *), kwb_error *err)
{
    int cap = 0, rc;
    *arr = NULL;
    *n = 0;
    while ((rc = step(st, s, err)) == 1) {
        *arr = grow(*arr, *n, &cap, size);
        read_one(s, (char *)*arr + (size_t)(*n)++ * size);
    }
    return rc;
}

/* Runs every statement of the script SQL (no values: schema and pragmas only). */
static int run_script(store *st, const char *sql, kwb_error *err)
{
    while (sql && *sql) {
        sqlite3_stmt *s = NULL;
        const char *tail = NULL;
        if (sqlite3_prepare_v2(st->db, sql, -1, &s, &tail) != SQLITE_OK)
            return db_error(st, err);
        int rc = SQLITE_DONE;
        while (s && (rc = sqlite3_step(s)) == SQLITE_ROW)
            ;
        sqlite3_finalize(s);
        if (rc != SQLITE_DONE)
            return db_error(st, err);
        sql = tail;
    }
    return 0;
}

/* ---- transactions ----------------------------------------------------------------------- */

/* Starts one event: a transaction, or a savepoint inside a batch. */
static int tx_begin(store *st, kwb_error *err)
{
    if (st->readonly)
        return kwb_error_set(err, "the store %s is open read-only", st->path);
    return exec(st, err, st->batch ? Q_SAVEPOINT : Q_BEGIN, "");
}

static int tx_commit(store *st, kwb_error *err)
{
    return exec(st, err, st->batch ? Q_RELEASE : Q_COMMIT, "");
}

/* Undoes the event in progress (if any) and prefixes *err with the formatted context. */
static int tx_fail(store *st, kwb_error *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int tx_fail(store *st, kwb_error *err, const char *fmt, ...)
{
    if (st->batch) {
        exec(st, NULL, Q_ROLLBACK_TO, "");
        exec(st, NULL, Q_RELEASE, "");
    } else if (!sqlite3_get_autocommit(st->db)) {
        exec(st, NULL, Q_ROLLBACK, "");
    }
    if (err) {
        char ctx[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ctx, sizeof ctx, fmt, ap);
        va_end(ap);
        kwb_error_prefix(err, "%s", ctx);
    }
    return -1;
}

/* Appends a line to the session log (SESSION 0: the session of ROUND or CANDIDATE). */
static int log_event(store *st, kwb_error *err, int64_t session, int64_t round, int64_t candidate, const char *kind,
                     const char *fmt, ...) __attribute__((format(printf, 7, 8)));
static int log_event(store *st, kwb_error *err, int64_t session, int64_t round, int64_t candidate, const char *kind,
                     const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *text = xmalloc(len > 0 ? (size_t)len + 1 : 1);
    text[0] = '\0';
    va_start(ap, fmt);
    if (len > 0)
        vsnprintf(text, (size_t)len + 1, fmt, ap);
    va_end(ap);
    int rc = insert(st, err, NULL, Q_LOG_ADD, "ooodtt", session, round, candidate, now(), kind, text);
    free(text);
    return rc;
}

/* Candidate ID's name into buf ("#ID" when it has none). */
static void cand_name(store *st, int64_t id, char *buf, size_t cap)
{
    sqlite3_stmt *s;
    if (row(st, NULL, &s, Q_CAND_NAME, "i", id) == 1)
        col_buf(s, 0, buf, cap);
    else
        snprintf(buf, cap, "#%lld", (long long)id);
    if (s)
        sqlite3_reset(s);
}

/* ---- lifecycle ------------------------------------------------------------------------------ */

int store_schema_version(void)
{
    return store_schema_steps;
}

int store_is_readonly(const store *st)
{
    return st->readonly;
}

static int pragma_int(store *st, enum query q, int *v, kwb_error *err)
{
    sqlite3_stmt *s;
    int rc = row(st, err, &s, q, "");
    if (rc == 1)
        *v = sqlite3_column_int(s, 0);
    if (s)
        sqlite3_reset(s);
    return rc == 1 ? 0 : (rc == 0 ? kwb_error_set(err, "%s returned nothing", query_sql[q]) : -1);
}

/* Refuses a file that is not a kwb store this code can use; *version gets its version. */
static int check_kind(store *st, int *version, kwb_error *err)
{
    int app = 0, objects = 0;
    if (pragma_int(st, Q_USER_VERSION, version, err) || pragma_int(st, Q_APPLICATION_ID, &app, err) ||
        pragma_int(st, Q_SCHEMA_COUNT, &objects, err)) {
        if (st->last_rc == SQLITE_NOTADB)
            return kwb_error_set(err, "%s is not a kwb store (not an SQLite database)", st->path);
        return prefix_path(st, err);
    }
    if (app != 0 && app != KWB_APPLICATION_ID)
        return kwb_error_set(err,
                             "%s is an SQLite database of another program (application id 0x%08x), "
                             "not a kwb store",
                             st->path, (unsigned)app);
    if (app == 0 && objects > 0)
        return kwb_error_set(err, "%s is an SQLite database but not a kwb store", st->path);
    if (*version > store_schema_steps)
        return kwb_error_set(err,
                             "%s: store schema version %d is newer than this kwb understands (%d); "
                             "use a newer kwb",
                             st->path, *version, store_schema_steps);
    st->stale = st->readonly && *version >= 1 && *version < store_schema_steps; /* 0: an empty file, left alone */
    if (st->readonly && *version < store_schema_steps)
        return kwb_error_set(err,
                             "%s: store schema version %d must be migrated to %d; a command that "
                             "writes (kwb eval --session) migrates it",
                             st->path, *version, store_schema_steps);
    return 0;
}

/* Applies the missing migrations, each in its own transaction; safe against a concurrent
 * opener (the version is read again under the write lock). */
static int migrate(store *st, kwb_error *err)
{
    for (;;) {
        int v = 0, after = 0;
        if (exec(st, err, Q_BEGIN, "") || pragma_int(st, Q_USER_VERSION, &v, err))
            return tx_fail(st, err, "%s: migrating", st->path);
        if (v >= store_schema_steps) {
            if (v > store_schema_steps)
                kwb_error_set(err, "schema version %d is newer than this kwb understands (%d)", v, store_schema_steps);
            return v > store_schema_steps ? tx_fail(st, err, "%s", st->path) : tx_commit(st, err);
        }
        if (run_script(st, store_schema[v], err) || pragma_int(st, Q_USER_VERSION, &after, err))
            return tx_fail(st, err, "%s: migrating from schema version %d", st->path, v);
        if (after != v + 1) {
            kwb_error_set(err, "migration %d left user_version at %d", v, after);
            return tx_fail(st, err, "%s", st->path);
        }
        if (tx_commit(st, err))
            return tx_fail(st, err, "%s: migrating from schema version %d", st->path, v);
    }
}

/* Connection settings. synchronous=NORMAL: see the durability note at the top. */
static int configure(store *st, kwb_error *err)
{
    sqlite3_extended_result_codes(st->db, 1);
    sqlite3_busy_timeout(st->db, BUSY_TIMEOUT_MS);
    if (run_script(st, "PRAGMA foreign_keys = ON;", err))
        return prefix_path(st, err);
    if (st->readonly)
        return 0;
    sqlite3_stmt *s;
    char mode[16] = "";
    if (row(st, err, &s, Q_JOURNAL_WAL, "") == 1)
        col_buf(s, 0, mode, sizeof mode);
    if (s)
        sqlite3_reset(s);
    if (strcmp(mode, "wal") != 0)
        return kwb_error_set(err, "%s: cannot use WAL mode there (journal mode '%s')", st->path, mode);
    if (run_script(st, "PRAGMA synchronous = NORMAL;", err))
        return prefix_path(st, err);
    return 0;
}

static store *reopen_migrated(const char *path, kwb_error *err);

store *store_open(const char *path, int readonly, kwb_error *err)
{
    if (readonly && access(path, F_OK) != 0) {
        kwb_error_set(err, "%s: no such store", path);
        return NULL;
    }
    store *st = xcalloc(1, sizeof *st);
    st->path = xstrdup(path);
    st->readonly = readonly;
    if (gethostname(st->host, sizeof st->host - 1) != 0)
        snprintf(st->host, sizeof st->host, "unknown");
    /* NOMUTEX: the caller serializes use of a store (see store.h), so SQLite's own lock per
     * call is not needed. */
    int flags = SQLITE_OPEN_NOMUTEX | (readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    int version = 0;
    if (sqlite3_open_v2(path, &st->db, flags, NULL) != SQLITE_OK) {
        kwb_error_set(err, "%s: %s", path, st->db ? sqlite3_errmsg(st->db) : "cannot open");
        store_close(st);
        return NULL;
    }
    /* The kind is checked before any setting that writes (journal_mode writes the header). */
    if (check_kind(st, &version, err) || configure(st, err) ||
        (!readonly && version < store_schema_steps && migrate(st, err))) {
        int migrate_first = st->stale && access(path, W_OK) == 0;
        store_close(st);
        return migrate_first ? reopen_migrated(path, err) : NULL;
    }
    return st;
}

/* A read-only opener met an older schema in a file it may write (an archived workspace, a
 * store of an older kwb): migrated by a read-write open, then opened read-only again. */
static store *reopen_migrated(const char *path, kwb_error *err)
{
    memset(err, 0, sizeof *err);
    store *rw = store_open(path, 0, err);
    if (!rw)
        return NULL;
    store_close(rw);
    return store_open(path, 1, err);
}

void store_close(store *st)
{
    if (!st)
        return;
    if (st->batch)
        store_batch_abort(st);
    for (int i = 0; i < Q_COUNT; i++)
        sqlite3_finalize(st->q[i]);
    sqlite3_close(st->db);
    free(st->path);
    free(st);
}

int store_batch_begin(store *st, kwb_error *err)
{
    if (st->batch)
        return kwb_error_set(err, "a batch is already open");
    if (tx_begin(st, err))
        return -1;
    st->batch = 1;
    return 0;
}

int store_batch_commit(store *st, kwb_error *err)
{
    if (!st->batch)
        return kwb_error_set(err, "no batch is open");
    st->batch = 0;
    if (exec(st, err, Q_COMMIT, ""))
        return tx_fail(st, err, "committing a batch");
    return 0;
}

void store_batch_abort(store *st)
{
    if (!st->batch)
        return;
    st->batch = 0;
    if (!sqlite3_get_autocommit(st->db))
        exec(st, NULL, Q_ROLLBACK, "");
}

/* ---- sessions ------------------------------------------------------------------------------- */

static void read_session(sqlite3_stmt *s, void *out)
{
    store_session *x = out;
    x->id = sqlite3_column_int64(s, 0);
    x->name = col_str(s, 1);
    x->definition = col_str(s, 2);
    x->created = sqlite3_column_double(s, 3);
    x->holder_pid = sqlite3_column_int64(s, 4);
    x->holder_host = col_str(s, 5);
    x->holder_since = sqlite3_column_double(s, 6);
}

int store_session_create(store *st, const char *name, const char *def_name, int64_t *id, kwb_error *err)
{
    int64_t sid = 0;
    if (tx_begin(st, err))
        return tx_fail(st, err, "creating session '%s'", name);
    if (insert(st, err, &sid, Q_SESSION_ADD, "ttd", name, def_name, now())) {
        if (st->last_rc == SQLITE_CONSTRAINT_UNIQUE)
            kwb_error_set(err, "session '%s' already exists", name);
        return tx_fail(st, err, "creating session '%s'", name);
    }
    if (log_event(st, err, sid, 0, 0, "session", "session '%s' created for %s", name, def_name) || tx_commit(st, err))
        return tx_fail(st, err, "creating session '%s'", name);
    if (id)
        *id = sid;
    return 0;
}

int store_session_find(store *st, const char *name, int64_t *id, kwb_error *err)
{
    sqlite3_stmt *s;
    int rc = row(st, err, &s, Q_SESSION_FIND, "t", name);
    if (rc == 1) {
        *id = sqlite3_column_int64(s, 0);
        sqlite3_reset(s);
    }
    return rc < 0 ? kwb_error_prefix(err, "finding session '%s'", name) : rc;
}

int store_session_get(store *st, int64_t id, store_session *out, kwb_error *err)
{
    sqlite3_stmt *s;
    memset(out, 0, sizeof *out);
    int rc = row(st, err, &s, Q_SESSION_GET, "i", id);
    if (rc == 1) {
        read_session(s, out);
        sqlite3_reset(s);
        return 0;
    }
    if (rc == 0)
        kwb_error_set(err, "no such session");
    return kwb_error_prefix(err, "reading session %lld", (long long)id);
}

int store_session_list(store *st, store_session **out, int *n, kwb_error *err)
{
    sqlite3_stmt *s = prep(st, err, Q_SESSION_LIST, "");
    *out = NULL;
    *n = 0;
    if (!s || collect(st, s, (void **)out, n, sizeof **out, read_session, err) < 0) {
        store_session_list_free(*out, *n);
        *out = NULL;
        *n = 0;
        return kwb_error_prefix(err, "listing sessions");
    }
    return 0;
}

void store_session_free(store_session *s)
{
    free(s->name);
    free(s->definition);
    free(s->holder_host);
    memset(s, 0, sizeof *s);
}

void store_session_list_free(store_session *s, int n)
{
    for (int i = 0; i < n; i++)
        store_session_free(&s[i]);
    free(s);
}

/* 1 when the holder recorded as PID (started at START, may be NULL) on HOST still runs. WAL
 * needs shared memory, so every process using the file runs on this host: a holder recorded
 * on another host (a copied file, a renamed host) is stale. */
static int holder_alive(const store *st, int64_t pid, const char *host, const char *start)
{
    if (pid <= 0 || !host || strcmp(host, st->host) != 0)
        return 0;
    if (kill((pid_t)pid, 0) != 0 && errno != EPERM)
        return 0;
    if (pidlive_dying((pid_t)pid))
        return 0; /* killed, not yet gone (or not yet reaped): it holds nothing */
    char now_start[32];
    if (start && pidlive_start_time((pid_t)pid, now_start, sizeof now_start) == 0 && strcmp(now_start, start) != 0)
        return 0; /* the pid was reused by another process */
    return 1;
}

/* Inside the acquire transaction: 1 with the message in *err when a live other process holds
 * SESSION, 0 when it is free to take (*old: the previous holder's pid or 0), -1 on error. */
static int check_holder(store *st, int64_t session, pid_t pid, char *name, size_t cap, int64_t *old, kwb_error *err)
{
    sqlite3_stmt *s;
    int rc = row(st, err, &s, Q_SESSION_HOLDER, "i", session);
    if (rc <= 0)
        return rc == 0 ? kwb_error_set(err, "no such session") : -1;
    col_buf(s, 0, name, cap);
    int64_t hpid = sqlite3_column_int64(s, 1);
    char host[256], start[32], since[64];
    col_buf(s, 2, host, sizeof host);
    col_buf(s, 3, start, sizeof start);
    format_time(sqlite3_column_double(s, 4), since, sizeof since);
    int null_start = sqlite3_column_type(s, 3) == SQLITE_NULL;
    sqlite3_reset(s);
    *old = hpid;
    if (hpid == 0 || hpid == (int64_t)pid || !holder_alive(st, hpid, host, null_start ? NULL : start))
        return 0;
    kwb_error_set(err,
                  "session '%s' is held by kwb pid %lld on %s since %s; it stays readable "
                  "(kwb log, show, report open it read-only)",
                  name, (long long)hpid, host, since);
    return 1;
}

/* 1 when SESSION's recorded holder is gone (killed, or out of time: it never released it): what
 * the session shows running was left by that kwb (a holder records itself before anything runs
 * and releases after everything ended). */
static int session_orphaned(store *st, int64_t session)
{
    sqlite3_stmt *s;
    kwb_error ignored;
    if (row(st, &ignored, &s, Q_SESSION_HOLDER, "i", session) != 1)
        return 0;
    int64_t hpid = sqlite3_column_int64(s, 1);
    char host[256], start[32];
    col_buf(s, 2, host, sizeof host);
    col_buf(s, 3, start, sizeof start);
    int null_start = sqlite3_column_type(s, 3) == SQLITE_NULL;
    sqlite3_reset(s);
    return hpid > 0 && !holder_alive(st, hpid, host, null_start ? NULL : start);
}

int store_session_acquire(store *st, int64_t session, pid_t pid, kwb_error *err)
{
    char name[256] = "", start[32];
    int64_t old = 0;
    const char *startp = pidlive_start_time(pid, start, sizeof start) == 0 ? start : NULL;
    int held = 0;
    if (tx_begin(st, err) || (held = check_holder(st, session, pid, name, sizeof name, &old, err)) != 0) {
        if (held > 0)
            return tx_fail(st, NULL, "%s", name); /* the message names the holder; no prefix */
        return tx_fail(st, err, "acquiring session %lld", (long long)session);
    }
    if (exec(st, err, Q_SESSION_HOLD, "ittdi", (int64_t)pid, st->host, startp, now(), session) ||
        (old != (int64_t)pid && log_event(st, err, session, 0, 0, "session", "held by pid %lld on %s%s", (long long)pid,
                                          st->host, old ? " (took over from a holder that is gone)" : "")) ||
        tx_commit(st, err))
        return tx_fail(st, err, "acquiring session '%s'", name);
    return 0;
}

int store_session_release(store *st, int64_t session, pid_t pid, kwb_error *err)
{
    if (tx_begin(st, err) || exec(st, err, Q_SESSION_UNHOLD, "ii", session, (int64_t)pid))
        return tx_fail(st, err, "releasing session %lld", (long long)session);
    if (sqlite3_changes(st->db) && log_event(st, err, session, 0, 0, "session", "released by pid %lld", (long long)pid))
        return tx_fail(st, err, "releasing session %lld", (long long)session);
    if (tx_commit(st, err))
        return tx_fail(st, err, "releasing session %lld", (long long)session);
    return 0;
}

int store_candidate_evidence(store *st, int64_t candidate, store_evidence *out, kwb_error *err)
{
    sqlite3_stmt *s;
    *out = (store_evidence){.mean_ms = NAN};
    int rc = row(st, err, &s, Q_CAND_EVIDENCE, "i", candidate);
    if (rc != 1)
        return rc < 0 ? kwb_error_prefix(err, "reading the evaluation of candidate %lld", (long long)candidate) : 0;
    out->eval_run = sqlite3_column_int64(s, 0);
    out->n_done = sqlite3_column_int(s, 1);
    if (sqlite3_column_type(s, 2) != SQLITE_NULL)
        out->mean_ms = sqlite3_column_double(s, 2);
    out->n_session = sqlite3_column_int(s, 3);
    sqlite3_reset(s);
    return 1;
}

int store_candidate_failure(store *st, int64_t candidate, char *what, size_t cap, kwb_error *err)
{
    sqlite3_stmt *s;
    what[0] = '\0';
    int rc = row(st, err, &s, Q_CAND_FAILURE, "i", candidate);
    if (rc != 1)
        return rc < 0 ? kwb_error_prefix(err, "reading the evaluations of candidate %lld", (long long)candidate) : 0;
    char status[32], uuid[16], trials[64] = "";
    col_buf(s, 0, status, sizeof status);
    col_buf(s, 1, uuid, 9);
    long long n = sqlite3_column_int64(s, 2); /* 0: the default trials */
    if (n > 0)
        snprintf(trials, sizeof trials, " (%lld trials)", n);
    sqlite3_reset(s);
    snprintf(what, cap, "%s on workload %s%s", status, uuid, trials);
    return 1;
}

int store_candidate_promoted(store *st, int64_t session, int64_t *id, double *mean_ms, kwb_error *err)
{
    sqlite3_stmt *s;
    int rc = row(st, err, &s, Q_CAND_PROMOTED, "i", session);
    *id = 0;
    if (mean_ms)
        *mean_ms = NAN;
    if (rc != 1)
        return rc;
    *id = sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
    store_evidence ev;
    if (store_candidate_evidence(st, *id, &ev, err) < 0)
        return -1;
    if (mean_ms)
        *mean_ms = ev.mean_ms;
    return 1;
}

/* The best candidate (see store_candidate_best) without a transaction of its own. */
static int best_of(store *st, int64_t session, int64_t *id, double *mean, kwb_error *err)
{
    int rc = store_candidate_promoted(st, session, id, mean, err);
    if (rc != 0)
        return rc; /* the decisions say which is best */
    sqlite3_stmt *s;
    rc = row(st, err, &s, Q_CAND_BEST, "i", session);
    if (rc == 1) {
        *id = sqlite3_column_int64(s, 0);
        *mean = sqlite3_column_double(s, 1);
        sqlite3_reset(s);
    }
    return rc;
}

int store_session_mark_interrupted(store *st, int64_t session, int *n_evals, int *n_rounds, kwb_error *err)
{
    int64_t best = 0;
    double mean = NAN, t = now();
    int ne = 0, nr = 0;
    if (tx_begin(st, err) || exec(st, err, Q_RUNS_INTERRUPT, "id", session, t))
        return tx_fail(st, err, "marking session %lld interrupted", (long long)session);
    ne = sqlite3_changes(st->db);
    if (best_of(st, session, &best, &mean, err) < 0 ||
        exec(st, err, Q_ROUNDS_INTERRUPT, "idDot", session, t, mean, best, CUT_OFF))
        return tx_fail(st, err, "marking session %lld interrupted", (long long)session);
    nr = sqlite3_changes(st->db);
    if (((ne || nr) && log_event(st, err, session, 0, 0, "session",
                                 "resumed: %d evaluation(s) and %d round(s) were interrupted", ne, nr)) ||
        tx_commit(st, err))
        return tx_fail(st, err, "marking session %lld interrupted", (long long)session);
    if (n_evals)
        *n_evals = ne;
    if (n_rounds)
        *n_rounds = nr;
    return 0;
}

/* ---- rounds ------------------------------------------------------------------------------ */

static const char *const round_end_states[] = {"done", "rejected", "interrupted", NULL};

static void read_round(sqlite3_stmt *s, void *out)
{
    store_round *r = out;
    r->id = sqlite3_column_int64(s, 0);
    r->number = sqlite3_column_int(s, 1);
    r->title = col_str(s, 2);
    col_buf(s, 3, r->state, sizeof r->state);
    r->candidate = sqlite3_column_int64(s, 4);
    r->outcome = col_str(s, 5);
    r->started = sqlite3_column_double(s, 6);
    r->ended = sqlite3_column_double(s, 7);
    r->best_mean_ms = sqlite3_column_double(s, 8);
    r->best_candidate = sqlite3_column_int64(s, 9);
}

int store_round_begin(store *st, int64_t session, const char *title, int64_t *id, int *number, kwb_error *err)
{
    sqlite3_stmt *s;
    int64_t rid = 0;
    int num = 0;
    if (tx_begin(st, err) || row(st, err, &s, Q_ROUND_NEXT, "i", session) < 0)
        return tx_fail(st, err, "starting a round of session %lld", (long long)session);
    num = sqlite3_column_int(s, 0);
    sqlite3_reset(s);
    if (insert(st, err, &rid, Q_ROUND_ADD, "iktd", session, num, title, now()) ||
        log_event(st, err, session, rid, 0, "round", "round %d started: %s", num, title) || tx_commit(st, err))
        return tx_fail(st, err, "starting a round of session %lld", (long long)session);
    if (id)
        *id = rid;
    if (number)
        *number = num;
    return 0;
}

int store_round_set_candidate(store *st, int64_t round, int64_t candidate, kwb_error *err)
{
    char name[256];
    if (tx_begin(st, err) || exec_one(st, err, "round", Q_ROUND_SET_CAND, "ii", candidate, round))
        return tx_fail(st, err, "setting the candidate of round %lld", (long long)round);
    cand_name(st, candidate, name, sizeof name);
    if (log_event(st, err, 0, round, candidate, "round", "candidate '%s'", name) || tx_commit(st, err))
        return tx_fail(st, err, "setting the candidate of round %lld", (long long)round);
    return 0;
}

int store_round_reopen(store *st, int64_t round, const char *why, kwb_error *err)
{
    sqlite3_stmt *s;
    int rc;
    if (tx_begin(st, err) || (rc = row(st, err, &s, Q_ROUND_SESSION, "i", round)) < 0 ||
        (rc == 0 && kwb_error_set(err, "no such round")))
        return tx_fail(st, err, "reopening round %lld", (long long)round);
    int64_t session = sqlite3_column_int64(s, 0);
    int num = sqlite3_column_int(s, 1);
    sqlite3_reset(s);
    if (exec_one(st, err, "finished round", Q_ROUND_REOPEN, "i", round) ||
        log_event(st, err, session, round, 0, "round", "round %d continues: %s", num, why) || tx_commit(st, err))
        return tx_fail(st, err, "reopening round %lld", (long long)round);
    return 0;
}

int store_round_end(store *st, int64_t round, const char *state, const char *outcome, kwb_error *err)
{
    sqlite3_stmt *s;
    int64_t session = 0, best = 0;
    double mean = NAN;
    int num = 0, rc;
    if (one_of(state, round_end_states, "round state", err) || tx_begin(st, err) ||
        (rc = row(st, err, &s, Q_ROUND_SESSION, "i", round)) < 0 || (rc == 0 && kwb_error_set(err, "no such round")))
        return tx_fail(st, err, "ending round %lld", (long long)round);
    session = sqlite3_column_int64(s, 0);
    num = sqlite3_column_int(s, 1);
    sqlite3_reset(s);
    if (best_of(st, session, &best, &mean, err) < 0 ||
        exec_one(st, err, "running round", Q_ROUND_END, "ttdDoi", state, outcome, now(), mean, best, round) ||
        log_event(st, err, session, round, 0, "round", "round %d %s%s%s", num, state, outcome ? ": " : "",
                  outcome ? outcome : "") ||
        tx_commit(st, err))
        return tx_fail(st, err, "ending round %lld", (long long)round);
    return 0;
}

/* Rounds of SESSION still running with nobody holding it were cut off: shown as interrupted,
 * as the next kwb to write the session records them. */
static void show_cut_off_rounds(store *st, int64_t session, store_round *r, int n)
{
    int running = 0;
    for (int i = 0; i < n; i++)
        running |= strcmp(r[i].state, "running") == 0;
    if (!running || !session_orphaned(st, session))
        return;
    for (int i = 0; i < n; i++)
        if (strcmp(r[i].state, "running") == 0) {
            snprintf(r[i].state, sizeof r[i].state, "interrupted");
            free(r[i].outcome);
            r[i].outcome = xstrdup(CUT_OFF);
        }
}

int store_trajectory(store *st, int64_t session, int last_n, store_round **out, int *n, kwb_error *err)
{
    int64_t best = 0;
    double mean = NAN;
    int running = 0;
    *out = NULL;
    *n = 0;
    sqlite3_stmt *s = prep(st, err, Q_ROUND_LIST, "ik", session, last_n > 0 ? last_n : -1);
    if (!s || collect(st, s, (void **)out, n, sizeof **out, read_round, err) < 0)
        goto fail;
    for (int i = 0; i < *n / 2; i++) { /* newest first -> number order */
        store_round t = (*out)[i];
        (*out)[i] = (*out)[*n - 1 - i];
        (*out)[*n - 1 - i] = t;
    }
    for (int i = 0; i < *n; i++)
        running |= strcmp((*out)[i].state, "running") == 0;
    if (running && best_of(st, session, &best, &mean, err) < 0)
        goto fail;
    for (int i = 0; running && i < *n; i++)
        if (strcmp((*out)[i].state, "running") == 0) {
            (*out)[i].best_candidate = best;
            (*out)[i].best_mean_ms = best ? mean : 0;
        }
    show_cut_off_rounds(st, session, *out, *n); /* their best is the current one too, as when marked */
    return 0;
fail:
    store_round_list_free(*out, *n);
    *out = NULL;
    *n = 0;
    return kwb_error_prefix(err, "reading the rounds of session %lld", (long long)session);
}

void store_round_list_free(store_round *r, int n)
{
    for (int i = 0; i < n; i++) {
        free(r[i].title);
        free(r[i].outcome);
    }
    free(r);
}

/* ---- directions ------------------------------------------------------------------------- */

static const char *const direction_decisions[] = {"accepted", "rejected", NULL};

static void read_direction(sqlite3_stmt *s, void *out)
{
    store_direction *d = out;
    d->id = sqlite3_column_int64(s, 0);
    d->round = sqlite3_column_int64(s, 1);
    d->skill = col_str(s, 2);
    d->title = col_str(s, 3);
    d->rationale = col_str(s, 4);
    col_buf(s, 5, d->state, sizeof d->state);
    d->reason = col_str(s, 6);
    d->created = sqlite3_column_double(s, 7);
}

int store_direction_add(store *st, int64_t session, int64_t round, const char *skill, const char *title,
                        const char *rationale, int64_t *id, kwb_error *err)
{
    int64_t did = 0;
    if (tx_begin(st, err) ||
        insert(st, err, &did, Q_DIR_ADD, "iotttd", session, round, skill, title, rationale, now()) ||
        log_event(st, err, session, round, 0, "direction", "proposed %s: %s", skill, title) || tx_commit(st, err))
        return tx_fail(st, err, "recording direction '%s'", title ? title : "(null)");
    if (id)
        *id = did;
    return 0;
}

int store_direction_decide(store *st, int64_t direction, const char *decision, const char *reason, kwb_error *err)
{
    sqlite3_stmt *s;
    int64_t session = 0, round = 0;
    if (one_of(decision, direction_decisions, "direction decision", err) || tx_begin(st, err) ||
        exec_one(st, err, "direction", Q_DIR_DECIDE, "ti", decision, direction) ||
        insert(st, err, NULL, Q_DIR_DECISION, "ttdi", decision, reason, now(), direction) ||
        row(st, err, &s, Q_DIR_SESSION, "i", direction) < 0)
        return tx_fail(st, err, "deciding direction %lld", (long long)direction);
    session = sqlite3_column_int64(s, 0);
    round = sqlite3_column_int64(s, 1);
    sqlite3_reset(s);
    if (log_event(st, err, session, round, 0, "decision", "direction %lld %s%s%s", (long long)direction, decision,
                  reason ? ": " : "", reason ? reason : "") ||
        tx_commit(st, err))
        return tx_fail(st, err, "deciding direction %lld", (long long)direction);
    return 0;
}

int store_direction_list(store *st, int64_t session, int64_t round, store_direction **out, int *n, kwb_error *err)
{
    sqlite3_stmt *s = prep(st, err, Q_DIR_LIST, "io", session, round);
    *out = NULL;
    *n = 0;
    if (!s || collect(st, s, (void **)out, n, sizeof **out, read_direction, err) < 0) {
        store_direction_list_free(*out, *n);
        *out = NULL;
        *n = 0;
        return kwb_error_prefix(err, "listing directions of session %lld", (long long)session);
    }
    return 0;
}

void store_direction_list_free(store_direction *d, int n)
{
    for (int i = 0; i < n; i++) {
        free(d[i].skill);
        free(d[i].title);
        free(d[i].rationale);
        free(d[i].reason);
    }
    free(d);
}

/* ---- candidates -------------------------------------------------------------------------- */

static const char *const origins[] = {"baseline", "human", "tuner", "llm", "command", NULL};
static const char *const cand_states[] = {"new", "evaluated", "promoted", "rejected", NULL};
static const char *const cand_decisions[] = {"promoted", "rejected", NULL};

int store_writer_known(const char *origin)
{
    for (int i = 1; origin && origins[i]; i++) /* origins[0] is the start's */
        if (strcmp(origins[i], origin) == 0)
            return 1;
    return 0;
}

static void read_candidate(sqlite3_stmt *s, void *out)
{
    store_candidate *c = out;
    c->id = sqlite3_column_int64(s, 0);
    c->session = sqlite3_column_int64(s, 1);
    c->parent = sqlite3_column_int64(s, 2);
    col_buf(s, 3, c->origin, sizeof c->origin);
    col_buf(s, 4, c->state, sizeof c->state);
    c->name = col_str(s, 5);
    c->solution_dir = col_str(s, 6);
    c->commit = col_str(s, 7);
    c->created = sqlite3_column_double(s, 8);
}

int store_candidate_add(store *st, int64_t session, int64_t parent, const char *origin, const char *name,
                        const char *dir, const char *commit, int64_t *id, kwb_error *err)
{
    int64_t cid = 0;
    if (one_of(origin, origins, "origin", err) || tx_begin(st, err))
        return tx_fail(st, err, "recording candidate '%s'", name ? name : "(null)");
    /* origin keeps schema 3's values for an older kwb reading the store: an LLM's or a command
     * agent's candidate is an 'agent' one there; writer tells them apart */
    const char *legacy = strcmp(origin, "llm") == 0 || strcmp(origin, "command") == 0 ? "agent" : origin;
    if (insert(st, err, &cid, Q_CAND_ADD, "iotttttd", session, parent, legacy, origin, name, dir, commit, now())) {
        if (st->last_rc == SQLITE_CONSTRAINT_UNIQUE)
            kwb_error_set(err, "the session already has a candidate of that name");
        return tx_fail(st, err, "recording candidate '%s'", name ? name : "(null)");
    }
    if (log_event(st, err, session, 0, cid, "candidate", "candidate '%s' (%s%s%.12s)", name, origin,
                  commit ? ", commit " : "", commit ? commit : "") ||
        tx_commit(st, err))
        return tx_fail(st, err, "recording candidate '%s'", name);
    if (id)
        *id = cid;
    return 0;
}

int store_candidate_set_state(store *st, int64_t id, const char *state, kwb_error *err)
{
    if (one_of(state, cand_states, "candidate state", err) || tx_begin(st, err) ||
        exec_one(st, err, "candidate", Q_CAND_STATE, "ti", state, id) ||
        log_event(st, err, 0, 0, id, "candidate", "state %s", state) || tx_commit(st, err))
        return tx_fail(st, err, "setting the state of candidate %lld", (long long)id);
    return 0;
}

/* After a decision on CANDIDATE (made or taken back): its round's "best after" becomes the
 * candidate promoted last, so that log and report follow the decisions. */
static int rebest_round(store *st, int64_t candidate, kwb_error *err)
{
    sqlite3_stmt *s;
    int64_t session = 0, best = 0;
    double mean = NAN;
    int rc = row(st, err, &s, Q_CAND_GET, "i", candidate);
    if (rc == 1) {
        session = sqlite3_column_int64(s, 1);
        sqlite3_reset(s);
    }
    if (rc < 0 || store_candidate_promoted(st, session, &best, &mean, err) < 0)
        return -1;
    return exec(st, err, Q_ROUND_REBEST, "ioD", candidate, best, mean);
}

/* Inside a transaction: a new decision on CANDIDATE makes its session's redo stack stale. */
static int drop_redo_of(store *st, int64_t candidate, kwb_error *err)
{
    sqlite3_stmt *s;
    int rc = row(st, err, &s, Q_CAND_GET, "i", candidate);
    if (rc != 1)
        return rc < 0 ? -1 : kwb_error_set(err, "no such candidate");
    int64_t session = sqlite3_column_int64(s, 1);
    sqlite3_reset(s);
    return exec(st, err, Q_REDO_DROP, "ii", session, (int64_t)0);
}

/* Decides candidate ID; KEEP_REDO when the decision is a redo (the caller drops its group). */
static int decide(store *st, int64_t id, const char *decision, const char *reason, int keep_redo, kwb_error *err)
{
    char name[256];
    if (one_of(decision, cand_decisions, "candidate decision", err) || tx_begin(st, err) ||
        exec_one(st, err, "candidate", Q_CAND_STATE, "ti", decision, id) ||
        insert(st, err, NULL, Q_CAND_DECISION, "ttdi", decision, reason, now(), id) || rebest_round(st, id, err) ||
        (!keep_redo && drop_redo_of(st, id, err)))
        return tx_fail(st, err, "deciding candidate %lld", (long long)id);
    cand_name(st, id, name, sizeof name);
    if (log_event(st, err, 0, 0, id, "decision", "candidate '%s' %s%s%s", name, decision, reason ? ": " : "",
                  reason ? reason : "") ||
        tx_commit(st, err))
        return tx_fail(st, err, "deciding candidate %lld", (long long)id);
    return 0;
}

int store_candidate_decide(store *st, int64_t id, const char *decision, const char *reason, kwb_error *err)
{
    return decide(st, id, decision, reason, 0, err);
}

int store_candidate_redecide(store *st, int64_t id, const char *decision, const char *reason, kwb_error *err)
{
    return decide(st, id, decision, reason, 1, err);
}

/* After row() on a candidate SELECT returned RC: reads S into *out when RC is 1. */
static int one_candidate(int rc, sqlite3_stmt *s, store_candidate *out)
{
    if (rc == 1) {
        read_candidate(s, out);
        sqlite3_reset(s);
    }
    return rc;
}

int store_candidate_get(store *st, int64_t id, store_candidate *out, kwb_error *err)
{
    sqlite3_stmt *s;
    memset(out, 0, sizeof *out);
    int rc = row(st, err, &s, Q_CAND_GET, "i", id);
    rc = one_candidate(rc, s, out);
    if (rc == 0)
        kwb_error_set(err, "no such candidate");
    return rc == 1 ? 0 : kwb_error_prefix(err, "reading candidate %lld", (long long)id);
}

/* REF lowered into buf when it is 4 to 64 hex digits; 0, or -1 when it is not a prefix. */
static int commit_prefix(const char *ref, char *buf, size_t cap)
{
    size_t n = strlen(ref);
    if (n < 4 || n >= cap)
        return -1;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && !isxdigit((unsigned char)ref[i]))
            return -1;
        buf[i] = (char)tolower((unsigned char)ref[i]);
    }
    return 0;
}

int store_candidate_find(store *st, int64_t session, const char *ref, store_candidate *out, kwb_error *err)
{
    sqlite3_stmt *s;
    char prefix[72];
    memset(out, 0, sizeof *out);
    int rc = row(st, err, &s, Q_CAND_BY_NAME, "it", session, ref);
    rc = one_candidate(rc, s, out);
    if (rc != 0 || commit_prefix(ref, prefix, sizeof prefix) != 0)
        return rc < 0 ? kwb_error_prefix(err, "finding candidate '%s'", ref) : rc;
    rc = row(st, err, &s, Q_CAND_BY_COMMIT, "it", session, prefix);
    if (rc == 1) {
        read_candidate(s, out);
        rc = step(st, s, err) == 0 ? 1 : -1; /* LIMIT 2: a second row means ambiguous */
        sqlite3_reset(s);
        if (rc < 0) {
            store_candidate_free(out);
            return kwb_error_set(err, "commit prefix '%s' is ambiguous in the session", ref);
        }
    }
    return rc < 0 ? kwb_error_prefix(err, "finding candidate '%s'", ref) : rc;
}

int store_candidate_best(store *st, int64_t session, int64_t *id, double *mean_ms, kwb_error *err)
{
    int64_t best;
    double mean;
    int rc = best_of(st, session, &best, &mean, err);
    if (rc < 0)
        return kwb_error_prefix(err, "finding the best candidate of session %lld", (long long)session);
    if (rc == 1) {
        *id = best;
        if (mean_ms)
            *mean_ms = mean;
    }
    return rc;
}

int store_candidate_current(store *st, int64_t session, int64_t *id, kwb_error *err)
{
    sqlite3_stmt *s;
    int rc = row(st, err, &s, Q_CAND_CURRENT_ROUND, "i", session);
    if (rc == 0)
        rc = row(st, err, &s, Q_CAND_NEWEST, "i", session);
    if (rc == 1) {
        *id = sqlite3_column_int64(s, 0);
        sqlite3_reset(s);
    }
    return rc < 0 ? kwb_error_prefix(err, "finding the current candidate of session %lld", (long long)session) : rc;
}

void store_candidate_free(store_candidate *c)
{
    free(c->name);
    free(c->solution_dir);
    free(c->commit);
    memset(c, 0, sizeof *c);
}

/* ---- builds ----------------------------------------------------------------------------- */

int store_build_add(store *st, int64_t candidate, const char *hash, const char *command, const char *log, int ok,
                    double seconds, int64_t *id, kwb_error *err)
{
    int64_t bid = 0;
    char name[256];
    if (tx_begin(st, err) ||
        insert(st, err, &bid, Q_BUILD_ADD, "itttkdd", candidate, hash, command, log, ok ? 1 : 0, seconds, now()))
        return tx_fail(st, err, "recording a build of candidate %lld", (long long)candidate);
    cand_name(st, candidate, name, sizeof name);
    if (log_event(st, err, 0, 0, candidate, "build", "'%s' %s in %.2f s (%.12s)", name, ok ? "built" : "COMPILE_ERROR",
                  seconds, hash ? hash : "") ||
        tx_commit(st, err))
        return tx_fail(st, err, "recording a build of candidate %lld", (long long)candidate);
    if (id)
        *id = bid;
    return 0;
}

int store_build_latest(store *st, int64_t candidate, store_build *out, kwb_error *err)
{
    sqlite3_stmt *s;
    memset(out, 0, sizeof *out);
    int rc = row(st, err, &s, Q_BUILD_LATEST, "i", candidate);
    if (rc == 1) {
        out->id = sqlite3_column_int64(s, 0);
        out->candidate = sqlite3_column_int64(s, 1);
        out->hash = col_str(s, 2);
        out->command = col_str(s, 3);
        out->log = col_str(s, 4);
        out->ok = sqlite3_column_int(s, 5);
        out->seconds = sqlite3_column_double(s, 6);
        out->created = sqlite3_column_double(s, 7);
        sqlite3_reset(s);
    }
    return rc < 0 ? kwb_error_prefix(err, "reading the builds of candidate %lld", (long long)candidate) : rc;
}

void store_build_free(store_build *b)
{
    free(b->hash);
    free(b->command);
    free(b->log);
    memset(b, 0, sizeof *b);
}

/* ---- evaluations ------------------------------------------------------------------------ */

static void read_run(sqlite3_stmt *s, void *out)
{
    store_eval_run *r = out;
    r->id = sqlite3_column_int64(s, 0);
    r->session = sqlite3_column_int64(s, 1);
    r->candidate = sqlite3_column_int64(s, 2);
    r->round = sqlite3_column_int64(s, 3);
    r->device = col_str(s, 4);
    r->runner_version = col_str(s, 5);
    col_buf(s, 6, r->state, sizeof r->state);
    r->n_workloads = sqlite3_column_int(s, 7);
    r->n_done = sqlite3_column_int(s, 8);
    r->n_passed = sqlite3_column_int(s, 9);
    r->mean_latency_ms = sqlite3_column_double(s, 10);
    r->started = sqlite3_column_double(s, 11);
    r->ended = sqlite3_column_double(s, 12);
}

int store_eval_begin(store *st, int64_t candidate, int64_t round, const char *device, const char *runner_version,
                     int n_workloads, int64_t *id, kwb_error *err)
{
    int64_t rid = 0;
    char name[256];
    if (tx_begin(st, err) ||
        insert(st, err, &rid, Q_RUN_ADD, "iottkd", candidate, round, device, runner_version, n_workloads, now()))
        return tx_fail(st, err, "starting an evaluation of candidate %lld", (long long)candidate);
    if (sqlite3_changes(st->db) == 0) {
        kwb_error_set(err, "no such candidate");
        return tx_fail(st, err, "starting an evaluation of candidate %lld", (long long)candidate);
    }
    cand_name(st, candidate, name, sizeof name);
    if (log_event(st, err, 0, round, candidate, "eval", "evaluating '%s' on %d workload(s), %s", name, n_workloads,
                  device ? device : "?") ||
        tx_commit(st, err))
        return tx_fail(st, err, "starting an evaluation of candidate %lld", (long long)candidate);
    if (id)
        *id = rid;
    return 0;
}

/* Binds one role's latency summary at parameters FIRST..FIRST+4 (NULLs when not timed). */
static int bind_summary(sqlite3_stmt *s, int first, int has, const stats_summary *x)
{
    if (!has)
        return bind_at(s, first, "ttttt", (const char *)NULL, (const char *)NULL, (const char *)NULL,
                       (const char *)NULL, (const char *)NULL);
    return bind_at(s, first, "ddddi", x->median, x->mean, x->min, x->iqr, (int64_t)x->n);
}

/* Inserts the evaluations row of R into RUN. */
static int insert_row(store *st, int64_t run, const wl_result *r, int64_t *id, kwb_error *err)
{
    sqlite3_stmt *s = prep(st, err, Q_ROW_ADD, "ittttddd", run, r->wl->uuid, status_name(r->status), r->message, r->log,
                           r->max_abs, r->max_rel, r->matched_ratio);
    if (!s)
        return -1;
    if (bind_summary(s, 9, r->has_candidate, &r->candidate) != SQLITE_OK ||
        bind_summary(s, 14, r->has_baseline, &r->baseline) != SQLITE_OK ||
        bind_summary(s, 19, r->has_reference, &r->reference) != SQLITE_OK ||
        bind_at(s, 24, "ttdtdddddd", r->has_baseline_status ? status_name(r->baseline_status) : NULL,
                r->timer[0] ? r->timer : NULL, r->gbps, r->verdict[0] ? r->verdict : NULL, r->ratio, r->ratio_lo,
                r->ratio_hi, now(), r->tflops, r->roofline) != SQLITE_OK)
        return db_error(st, err);
    if (step(st, s, err) < 0)
        return -1;
    *id = sqlite3_last_insert_rowid(st->db);
    return 0;
}

/* An eval run's counters, as the RUN_TALLY query reads them. */
typedef struct run_tally {
    char state[16];
    int planned, done, passed;
    double latency_sum_ms;
    int64_t candidate;
} run_tally;

static int read_tally(store *st, int64_t run, run_tally *t, kwb_error *err)
{
    sqlite3_stmt *s;
    int rc = row(st, err, &s, Q_RUN_TALLY, "i", run);
    if (rc <= 0)
        return rc == 0 ? kwb_error_set(err, "no such eval run") : -1;
    col_buf(s, 0, t->state, sizeof t->state);
    t->planned = sqlite3_column_int(s, 1);
    t->done = sqlite3_column_int(s, 2);
    t->passed = sqlite3_column_int(s, 3);
    t->latency_sum_ms = sqlite3_column_double(s, 4);
    t->candidate = sqlite3_column_int64(s, 5);
    sqlite3_reset(s);
    return 0;
}

/* Why RUN refused a row: it is missing, not running, or already full. */
static int row_refused(store *st, int64_t run, kwb_error *err)
{
    run_tally t;
    if (read_tally(st, run, &t, err))
        return -1;
    if (strcmp(t.state, "running") != 0)
        return kwb_error_set(err, "eval run %lld is %s, not running", (long long)run, t.state);
    return kwb_error_set(err, "eval run %lld already has all %d planned workloads", (long long)run, t.planned);
}

int store_eval_add(store *st, int64_t eval_run, const wl_result *r, int64_t *row_id, kwb_error *err)
{
    int64_t id = 0;
    const char *uuid = r->wl && r->wl->uuid ? r->wl->uuid : "(none)";
    int timed_pass = r->status == ST_PASSED && r->has_candidate;
    if (!r->wl || !r->wl->uuid) {
        kwb_error_set(err, "the result has no workload uuid");
        return kwb_error_prefix(err, "recording a result in eval run %lld", (long long)eval_run);
    }
    if (tx_begin(st, err) ||
        exec(st, err, Q_RUN_COUNT, "ikd", eval_run, timed_pass, timed_pass ? r->candidate.median : 0.0))
        return tx_fail(st, err, "recording workload %s in eval run %lld", uuid, (long long)eval_run);
    if (sqlite3_changes(st->db) == 0) {
        row_refused(st, eval_run, err);
        return tx_fail(st, err, "recording workload %s", uuid);
    }
    if (insert_row(st, eval_run, r, &id, err)) {
        if (st->last_rc == SQLITE_CONSTRAINT_UNIQUE)
            kwb_error_set(err, "eval run %lld already has it", (long long)eval_run);
        return tx_fail(st, err, "recording workload %s", uuid);
    }
    if (tx_commit(st, err))
        return tx_fail(st, err, "recording workload %s in eval run %lld", uuid, (long long)eval_run);
    if (row_id)
        *row_id = id;
    return 0;
}

/* Checks finishing T's run as STATE; *mean gets its mean latency, NaN unless it is complete
 * with every planned workload PASSED. */
static int finish_ok(const run_tally *t, const char *state, double *mean, kwb_error *err)
{
    int complete = strcmp(state, "complete") == 0;
    *mean = NAN;
    if (strcmp(t->state, "complete") == 0)
        return kwb_error_set(err, "it is already complete");
    if (complete && t->done < t->planned)
        return kwb_error_set(err, "it has %d of its %d workloads; finish it as interrupted", t->done, t->planned);
    if (complete && t->planned > 0 && t->passed == t->planned)
        *mean = t->latency_sum_ms / t->planned;
    return 0;
}

int store_eval_finish(store *st, int64_t eval_run, const char *state, kwb_error *err)
{
    static const char *const states[] = {"complete", "interrupted", NULL};
    run_tally t;
    double mean = NAN;
    char tail[64] = "";
    if (one_of(state, states, "eval run state", err) || tx_begin(st, err) || read_tally(st, eval_run, &t, err) ||
        finish_ok(&t, state, &mean, err) || exec(st, err, Q_RUN_FINISH, "tdDi", state, now(), mean, eval_run) ||
        (strcmp(state, "complete") == 0 && exec(st, err, Q_CAND_EVALUATED, "i", t.candidate)))
        return tx_fail(st, err, "finishing eval run %lld", (long long)eval_run);
    if (!isnan(mean))
        snprintf(tail, sizeof tail, ", mean %.4g ms", mean);
    if (log_event(st, err, 0, 0, t.candidate, "eval", "eval run %lld %s: %d of %d workload(s), %d PASSED%s",
                  (long long)eval_run, state, t.done, t.planned, t.passed, tail) ||
        tx_commit(st, err))
        return tx_fail(st, err, "finishing eval run %lld", (long long)eval_run);
    return 0;
}

int store_eval_resume(store *st, int64_t eval_run, kwb_error *err)
{
    store_eval_run r;
    if (tx_begin(st, err) || exec_one(st, err, "interrupted eval run", Q_RUN_RESUME, "i", eval_run) ||
        store_eval_run_get(st, eval_run, &r, err))
        return tx_fail(st, err, "resuming eval run %lld", (long long)eval_run);
    int rc = log_event(st, err, r.session, r.round, r.candidate, "eval", "eval run %lld resumed (%d of %d done)",
                       (long long)eval_run, r.n_done, r.n_workloads) ||
             tx_commit(st, err);
    store_eval_run_free(&r);
    return rc ? tx_fail(st, err, "resuming eval run %lld", (long long)eval_run) : 0;
}

static void read_uuid(sqlite3_stmt *s, void *out)
{
    *(char **)out = col_str(s, 0);
}

int store_eval_uuids(store *st, int64_t eval_run, char ***uuids, int *n, kwb_error *err)
{
    sqlite3_stmt *s = prep(st, err, Q_ROW_UUIDS, "i", eval_run);
    *uuids = NULL;
    *n = 0;
    if (!s || collect(st, s, (void **)uuids, n, sizeof **uuids, read_uuid, err) < 0) {
        store_strings_free(*uuids, *n);
        *uuids = NULL;
        *n = 0;
        return kwb_error_prefix(err, "reading the workloads of eval run %lld", (long long)eval_run);
    }
    return 0;
}

int store_candidate_commits(store *st, int64_t session, char ***oids, int *n, kwb_error *err)
{
    sqlite3_stmt *s = prep(st, err, Q_CAND_COMMITS, "i", session);
    *oids = NULL;
    *n = 0;
    if (!s || collect(st, s, (void **)oids, n, sizeof **oids, read_uuid, err) < 0) {
        store_strings_free(*oids, *n);
        *oids = NULL;
        *n = 0;
        return kwb_error_prefix(err, "reading the commits of session %lld", (long long)session);
    }
    return 0;
}

void store_strings_free(char **s, int n)
{
    for (int i = 0; i < n; i++)
        free(s[i]);
    free(s);
}

/* Eval runs of SESSION still running with nobody holding it were cut off: shown as
 * interrupted. Returns how many of the N were. */
static int show_cut_off_runs(store *st, int64_t session, store_eval_run *r, int n)
{
    int running = 0, cut = 0;
    for (int i = 0; i < n; i++)
        running |= strcmp(r[i].state, "running") == 0;
    if (!running || !session_orphaned(st, session))
        return 0;
    for (int i = 0; i < n; i++)
        if (strcmp(r[i].state, "running") == 0) {
            snprintf(r[i].state, sizeof r[i].state, "interrupted");
            cut++;
        }
    return cut;
}

int store_eval_run_get(store *st, int64_t id, store_eval_run *out, kwb_error *err)
{
    sqlite3_stmt *s;
    memset(out, 0, sizeof *out);
    int rc = row(st, err, &s, Q_RUN_GET, "i", id);
    if (rc == 1) {
        read_run(s, out);
        sqlite3_reset(s);
        show_cut_off_runs(st, out->session, out, 1);
        return 0;
    }
    if (rc == 0)
        kwb_error_set(err, "no such eval run");
    return kwb_error_prefix(err, "reading eval run %lld", (long long)id);
}

int store_eval_set_options(store *st, int64_t eval_run, const char *options, kwb_error *err)
{
    if (exec_one(st, err, "eval run", Q_RUN_SET_OPTIONS, "ti", options, eval_run) != 0)
        return kwb_error_prefix(err, "recording the options of eval run %lld", (long long)eval_run);
    return 0;
}

int store_eval_options(store *st, int64_t eval_run, char **options, kwb_error *err)
{
    sqlite3_stmt *s;
    *options = NULL;
    int rc = row(st, err, &s, Q_RUN_OPTIONS, "i", eval_run);
    if (rc == 1) {
        *options = col_str(s, 0);
        sqlite3_reset(s);
        return 0;
    }
    if (rc == 0)
        kwb_error_set(err, "no such eval run");
    return kwb_error_prefix(err, "reading the options of eval run %lld", (long long)eval_run);
}

int store_eval_run_list(store *st, int64_t session, const char *state, store_eval_run **out, int *n, kwb_error *err)
{
    sqlite3_stmt *s = prep(st, err, Q_RUN_LIST, "it", session, state);
    *out = NULL;
    *n = 0;
    if (!s || collect(st, s, (void **)out, n, sizeof **out, read_run, err) < 0) {
        store_eval_run_list_free(*out, *n);
        *out = NULL;
        *n = 0;
        return kwb_error_prefix(err, "listing the eval runs of session %lld", (long long)session);
    }
    if (show_cut_off_runs(st, session, *out, *n) && state && strcmp(state, "running") == 0) {
        store_eval_run_list_free(*out, *n); /* none of them runs any more */
        *out = NULL;
        *n = 0;
    }
    return 0;
}

void store_eval_run_free(store_eval_run *r)
{
    free(r->device);
    free(r->runner_version);
    memset(r, 0, sizeof *r);
}

void store_eval_run_list_free(store_eval_run *r, int n)
{
    for (int i = 0; i < n; i++)
        store_eval_run_free(&r[i]);
    free(r);
}

static void read_wl_row(sqlite3_stmt *s, void *out)
{
    store_wl_row *w = out;
    w->id = sqlite3_column_int64(s, 0);
    w->uuid = col_str(s, 1);
    col_buf(s, 2, w->status, sizeof w->status);
    w->message = col_str(s, 3);
    w->median_ms = sqlite3_column_double(s, 4);
    w->baseline_median_ms = sqlite3_column_double(s, 5);
    w->ref_median_ms = sqlite3_column_double(s, 6);
    w->max_abs = sqlite3_column_double(s, 7);
    w->max_rel = sqlite3_column_double(s, 8);
    w->matched_ratio = sqlite3_column_double(s, 9);
    col_buf(s, 10, w->verdict, sizeof w->verdict);
    w->roofline = sqlite3_column_double(s, 11);
    w->gbps = sqlite3_column_double(s, 12);
    col_buf(s, 13, w->timer, sizeof w->timer);
    w->ratio = sqlite3_column_type(s, 14) == SQLITE_NULL ? 0 : sqlite3_column_double(s, 14);
    w->ratio_lo = sqlite3_column_type(s, 15) == SQLITE_NULL ? 0 : sqlite3_column_double(s, 15);
    w->ratio_hi = sqlite3_column_type(s, 16) == SQLITE_NULL ? 0 : sqlite3_column_double(s, 16);
    double vs = w->baseline_median_ms > 0 ? w->baseline_median_ms : w->ref_median_ms;
    w->speedup = w->median_ms > 0 && vs > 0 ? vs / w->median_ms : 0;
}

/* The rows of eval run RUN (its state shown as store_eval_run_get shows it) into OUT. */
static int wl_table_of_run(store *st, int64_t run, store_wl_table *out, kwb_error *err)
{
    store_eval_run r;
    if (store_eval_run_get(st, run, &r, err) != 0)
        return -1;
    out->eval_run = run;
    out->planned = r.n_workloads;
    snprintf(out->state, sizeof out->state, "%s", r.state);
    store_eval_run_free(&r);
    sqlite3_stmt *s = prep(st, err, Q_ROW_TABLE, "i", run);
    return !s || collect(st, s, (void **)&out->rows, &out->n, sizeof *out->rows, read_wl_row, err) < 0 ? -1 : 0;
}

/* OUT for CANDIDATE from eval run RUN (0: none, then 0 is returned); 1, or -1 with *err. */
static int wl_table_fill(store *st, int64_t candidate, int64_t run, store_wl_table *out, kwb_error *err)
{
    memset(out, 0, sizeof *out);
    out->candidate = candidate;
    if (run && wl_table_of_run(st, run, out, err) != 0) {
        store_wl_table_free(out);
        return kwb_error_prefix(err, "reading the evaluation of candidate %lld", (long long)candidate);
    }
    return run ? 1 : 0;
}

int store_wl_table_get(store *st, int64_t candidate, store_wl_table *out, kwb_error *err)
{
    store_evidence ev = {0};
    memset(out, 0, sizeof *out);
    if (store_candidate_evidence(st, candidate, &ev, err) < 0)
        return -1;
    return wl_table_fill(st, candidate, ev.eval_run, out, err);
}

int store_wl_table_best(store *st, int64_t session, store_wl_table *out, kwb_error *err)
{
    int64_t id = 0;
    store_evidence ev = {0};
    memset(out, 0, sizeof *out);
    int rc = store_candidate_best(st, session, &id, NULL, err);
    if (rc == 1 && store_candidate_evidence(st, id, &ev, err) < 0)
        return -1;
    return rc == 1 ? wl_table_fill(st, id, ev.eval_run, out, err) : rc;
}

int store_wl_table_current(store *st, int64_t session, store_wl_table *out, kwb_error *err)
{
    int64_t id = 0;
    memset(out, 0, sizeof *out);
    int rc = store_candidate_current(st, session, &id, err);
    return rc == 1 ? store_wl_table_get(st, id, out, err) : rc;
}

void store_wl_table_free(store_wl_table *t)
{
    for (int i = 0; i < t->n; i++) {
        free(t->rows[i].uuid);
        free(t->rows[i].message);
    }
    free(t->rows);
    memset(t, 0, sizeof *t);
}

/* ---- samples ---------------------------------------------------------------------------- */

static const char *const sample_roles[] = {"candidate", "baseline", "reference", NULL};

int store_samples_add(store *st, int64_t row_id, const char *role, const double *ms, size_t n, kwb_error *err)
{
    unsigned char *blob = xmalloc(n * 8 + 1);
    for (size_t i = 0; i < n; i++) { /* little-endian, whatever the host */
        uint64_t u;
        memcpy(&u, &ms[i], 8);
        for (int b = 0; b < 8; b++)
            blob[8 * i + (size_t)b] = (unsigned char)(u >> (8 * b));
    }
    int rc = one_of(role, sample_roles, "sample role", err) || tx_begin(st, err) ||
             exec(st, err, Q_SAMPLES_ADD, "itb", row_id, role, (const void *)blob, n * 8) || tx_commit(st, err);
    free(blob);
    return rc ? tx_fail(st, err, "recording samples of evaluation %lld", (long long)row_id) : 0;
}

int store_samples_get(store *st, int64_t row_id, const char *role, double **ms, size_t *n, kwb_error *err)
{
    sqlite3_stmt *s;
    *ms = NULL;
    *n = 0;
    int rc = row(st, err, &s, Q_SAMPLES_GET, "it", row_id, role);
    if (rc < 0)
        return kwb_error_prefix(err, "reading samples of evaluation %lld", (long long)row_id);
    if (rc == 0)
        return 0;
    const unsigned char *blob = sqlite3_column_blob(s, 0);
    *n = (size_t)sqlite3_column_bytes(s, 0) / 8;
    *ms = xmalloc(*n * sizeof **ms + 1);
    for (size_t i = 0; i < *n; i++) {
        uint64_t u = 0;
        for (int b = 0; b < 8; b++)
            u |= (uint64_t)blob[8 * i + (size_t)b] << (8 * b);
        memcpy(&(*ms)[i], &u, 8);
    }
    sqlite3_reset(s);
    return 1;
}

/* ---- profiles, agent calls, notes, log --------------------------------------------------- */

int store_profile_add(store *st, int64_t candidate, const char *uuid, const char *tool, const char *json, int64_t *id,
                      kwb_error *err)
{
    int64_t pid = 0;
    if (tx_begin(st, err) || insert(st, err, &pid, Q_PROFILE_ADD, "itttd", candidate, uuid, tool, json, now()) ||
        log_event(st, err, 0, 0, candidate, "profile", "%s profile%s%s", tool ? tool : "?", uuid ? " of " : "",
                  uuid ? uuid : "") ||
        tx_commit(st, err))
        return tx_fail(st, err, "recording a profile of candidate %lld", (long long)candidate);
    if (id)
        *id = pid;
    return 0;
}

int store_profile_latest(store *st, int64_t candidate, const char *uuid, const char *tool, char **json, kwb_error *err)
{
    sqlite3_stmt *s;
    *json = NULL;
    int rc = row(st, err, &s, Q_PROFILE_LATEST, "itt", candidate, uuid, tool);
    if (rc == 1) {
        *json = col_str(s, 0);
        sqlite3_reset(s);
    }
    return rc < 0 ? kwb_error_prefix(err, "reading profiles of candidate %lld", (long long)candidate) : rc;
}

int store_agent_call_add(store *st, const store_agent_call *c, int64_t *id, kwb_error *err)
{
    int64_t aid = 0;
    if (tx_begin(st, err) ||
        insert(st, err, &aid, Q_AGENT_ADD, "iottiiddtd", c->session, c->round, c->provider, c->model, c->tokens_in,
               c->tokens_out, c->cost, c->duration_s, c->status, now()) ||
        log_event(st, err, c->session, c->round, 0, "agent", "%s/%s %s: %lld in, %lld out, %.4f, %.1f s",
                  c->provider ? c->provider : "?", c->model ? c->model : "?", c->status ? c->status : "?",
                  (long long)c->tokens_in, (long long)c->tokens_out, c->cost, c->duration_s) ||
        tx_commit(st, err))
        return tx_fail(st, err, "recording an agent call");
    if (id)
        *id = aid;
    return 0;
}

int store_agent_totals_get(store *st, int64_t session, store_agent_totals *out, kwb_error *err)
{
    sqlite3_stmt *s;
    memset(out, 0, sizeof *out);
    int rc = row(st, err, &s, Q_AGENT_TOTALS, "i", session);
    if (rc == 1) {
        out->calls = sqlite3_column_int(s, 0);
        out->tokens_in = sqlite3_column_int64(s, 1);
        out->tokens_out = sqlite3_column_int64(s, 2);
        out->cost = sqlite3_column_double(s, 3);
        out->duration_s = sqlite3_column_double(s, 4);
        sqlite3_reset(s);
    }
    return rc < 0 ? kwb_error_prefix(err, "summing agent calls of session %lld", (long long)session) : 0;
}

int store_note_add(store *st, int64_t session, int64_t round, int64_t candidate, const char *text, int64_t *id,
                   kwb_error *err)
{
    int64_t nid = 0;
    if (tx_begin(st, err) || insert(st, err, &nid, Q_NOTE_ADD, "iootd", session, round, candidate, text, now()) ||
        log_event(st, err, session, round, candidate, "note", "%s", text) || tx_commit(st, err))
        return tx_fail(st, err, "recording a note");
    if (id)
        *id = nid;
    return 0;
}

static void read_log(sqlite3_stmt *s, void *out)
{
    store_log_entry *e = out;
    e->id = sqlite3_column_int64(s, 0);
    e->time = sqlite3_column_double(s, 1);
    col_buf(s, 2, e->kind, sizeof e->kind);
    e->round = sqlite3_column_int64(s, 3);
    e->candidate = sqlite3_column_int64(s, 4);
    e->text = col_str(s, 5);
}

int store_log_list(store *st, int64_t session, int64_t after, int limit, store_log_entry **out, int *n, kwb_error *err)
{
    sqlite3_stmt *s = prep(st, err, Q_LOG_LIST, "iik", session, after, limit > 0 ? limit : -1);
    *out = NULL;
    *n = 0;
    if (!s || collect(st, s, (void **)out, n, sizeof **out, read_log, err) < 0) {
        store_log_list_free(*out, *n);
        *out = NULL;
        *n = 0;
        return kwb_error_prefix(err, "reading the log of session %lld", (long long)session);
    }
    for (int i = 0; i < *n / 2; i++) { /* newest first -> oldest first */
        store_log_entry t = (*out)[i];
        (*out)[i] = (*out)[*n - 1 - i];
        (*out)[*n - 1 - i] = t;
    }
    return 0;
}

void store_log_list_free(store_log_entry *e, int n)
{
    for (int i = 0; i < n; i++)
        free(e[i].text);
    free(e);
}

/* ---- taking decisions back (the round engine's undo) ---------------------------------------- */

int store_direction_set_round(store *st, int64_t direction, int64_t round, kwb_error *err)
{
    if (tx_begin(st, err) || exec_one(st, err, "direction", Q_DIR_SET_ROUND, "oi", round, direction) ||
        tx_commit(st, err))
        return tx_fail(st, err, "setting the round of direction %lld", (long long)direction);
    return 0;
}

int store_candidate_round(store *st, int64_t candidate, int64_t *round, kwb_error *err)
{
    sqlite3_stmt *s;
    int rc = row(st, err, &s, Q_CAND_ROUND, "i", candidate);
    *round = rc == 1 ? sqlite3_column_int64(s, 0) : 0;
    if (rc == 1)
        sqlite3_reset(s);
    return rc < 0 ? -1 : 0;
}

int store_candidate_undecided(store *st, int64_t session, int64_t *id, kwb_error *err)
{
    sqlite3_stmt *s;
    int rc = row(st, err, &s, Q_CAND_UNDECIDED, "i", session);
    *id = rc == 1 ? sqlite3_column_int64(s, 0) : 0;
    if (rc == 1)
        sqlite3_reset(s);
    return rc;
}

static void decision_free(store_decision *d)
{
    free(d->reason);
    free(d->skill);
    free(d->title);
    free(d->rationale);
}

/* The decision of SESSION just older than BEFORE into *d: 1, 0 when none, -1 on error. */
/* One decision row (a decision's or a kept redo's: id, direction, candidate, decision, reason,
 * the direction's skill, title and rationale, round) into OUT. */
static void read_decision(sqlite3_stmt *s, void *out)
{
    store_decision *d = out;
    memset(d, 0, sizeof *d);
    d->id = sqlite3_column_int64(s, 0);
    d->direction = sqlite3_column_int64(s, 1);
    d->candidate = sqlite3_column_int64(s, 2);
    col_buf(s, 3, d->decision, sizeof d->decision);
    d->reason = col_str(s, 4);
    d->skill = col_str(s, 5);
    d->title = col_str(s, 6);
    d->rationale = col_str(s, 7);
    d->round = sqlite3_column_int64(s, 8);
}

static int decision_older(store *st, int64_t session, int64_t before, store_decision *d, kwb_error *err)
{
    sqlite3_stmt *s;
    int rc = row(st, err, &s, Q_DEC_OLDER, "ii", session, before);
    if (rc != 1)
        return rc;
    read_decision(s, d);
    sqlite3_reset(s);
    return 1;
}

int store_decision_undo(store *st, int64_t session, store_decision **out, int *n, kwb_error *err)
{
    *out = NULL;
    *n = 0;
    if (tx_begin(st, err))
        return -1;
    store_decision d;
    int64_t before = INT64_MAX, round = -1;
    int rc;
    while ((rc = decision_older(st, session, before, &d, err)) == 1) {
        if (round >= 0 && (round == 0 || d.round != round)) { /* another group's */
            decision_free(&d);
            break;
        }
        round = d.round;
        before = d.id;
        *out = xrealloc(*out, (size_t)(*n + 1) * sizeof **out);
        (*out)[(*n)++] = d;
        char name[256] = "";
        if (d.candidate)
            cand_name(st, d.candidate, name, sizeof name);
        if (exec(st, err, Q_DEC_DELETE, "i", d.id) ||
            exec(st, err, d.direction ? Q_DIR_RESTATE : Q_CAND_RESTATE, "i", d.direction ? d.direction : d.candidate) ||
            (d.candidate && rebest_round(st, d.candidate, err)) ||
            log_event(st, err, session, 0, d.candidate, "decision", "undo: %s '%s' %s taken back",
                      d.direction ? "direction" : "candidate", d.direction ? d.title : name, d.decision)) {
            rc = -1;
            break;
        }
        if (d.candidate) /* a candidate's decision closes its group (its direction's came after it) */
            break;
    }
    if (rc < 0 || tx_commit(st, err)) {
        store_decision_list_free(*out, *n);
        *out = NULL;
        *n = 0;
        return tx_fail(st, err, "taking back the last decision of session %lld", (long long)session);
    }
    return 0;
}

void store_decision_list_free(store_decision *d, int n)
{
    for (int i = 0; i < n; i++)
        decision_free(&d[i]);
    free(d);
}

int store_verdict_add(store *st, int64_t session, int64_t candidate, int promote, const char *stage, const char *reason,
                      kwb_error *err)
{
    if (tx_begin(st, err) ||
        insert(st, err, NULL, Q_VERDICT_ADD, "iikttd", session, candidate, promote, stage, reason, now()) ||
        tx_commit(st, err))
        return tx_fail(st, err, "recording the verdict on candidate %lld", (long long)candidate);
    return 0;
}

int store_verdict_last(store *st, int64_t candidate, int *promote, char *stage, size_t stage_cap, char **reason,
                       kwb_error *err)
{
    sqlite3_stmt *s;
    int rc = row(st, err, &s, Q_VERDICT_LAST, "i", candidate);
    *reason = NULL;
    if (rc != 1)
        return rc;
    *promote = sqlite3_column_int(s, 0);
    col_buf(s, 1, stage, stage_cap);
    *reason = col_str(s, 2);
    sqlite3_reset(s);
    return 1;
}

/* The newest redo group's number of SESSION (0: none) into *grp. */
static int redo_top(store *st, int64_t session, int64_t *grp, kwb_error *err)
{
    sqlite3_stmt *s;
    int rc = row(st, err, &s, Q_REDO_TOP, "i", session);
    *grp = rc == 1 ? sqlite3_column_int64(s, 0) : 0;
    if (rc == 1)
        sqlite3_reset(s);
    return rc < 0 ? -1 : 0;
}

int store_redo_push(store *st, int64_t session, const store_decision *d, int n, kwb_error *err)
{
    int64_t grp = 0;
    if (tx_begin(st, err) || redo_top(st, session, &grp, err))
        return tx_fail(st, err, "keeping the undone decisions for redo");
    for (int i = 0; i < n; i++)
        if (insert(st, err, NULL, Q_REDO_ADD, "iioottttto", session, grp + 1, d[i].direction, d[i].candidate,
                   d[i].decision, d[i].reason, d[i].skill, d[i].title, d[i].rationale, d[i].round))
            return tx_fail(st, err, "keeping the undone decisions for redo");
    if (tx_commit(st, err))
        return tx_fail(st, err, "keeping the undone decisions for redo");
    return 0;
}

int store_redo_top(store *st, int64_t session, store_decision **out, int *n, kwb_error *err)
{
    int64_t grp = 0;
    *out = NULL;
    *n = 0;
    if (redo_top(st, session, &grp, err))
        return -1;
    if (grp == 0)
        return 0;
    sqlite3_stmt *s = prep(st, err, Q_REDO_GROUP, "ii", session, grp);
    if (!s || collect(st, s, (void **)out, n, sizeof **out, read_decision, err) < 0) {
        store_decision_list_free(*out, *n);
        *out = NULL, *n = 0;
        return -1;
    }
    return 0;
}

int store_redo_drop(store *st, int64_t session, int all, kwb_error *err)
{
    int64_t grp = 0;
    if (!all && redo_top(st, session, &grp, err))
        return -1;
    if (tx_begin(st, err) || exec(st, err, Q_REDO_DROP, "ii", session, all ? (int64_t)0 : grp) || tx_commit(st, err))
        return tx_fail(st, err, "dropping the redo of session %lld", (long long)session);
    return 0;
}

int store_candidate_reason(store *st, int64_t candidate, char **reason, kwb_error *err)
{
    sqlite3_stmt *s;
    int rc = row(st, err, &s, Q_CAND_REASON, "i", candidate);
    *reason = rc == 1 ? col_str(s, 0) : NULL;
    if (rc == 1)
        sqlite3_reset(s);
    return rc < 0 ? -1 : 0;
}
