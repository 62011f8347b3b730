/* prompt.h - the prompt an agent gets for one direction (DESIGN.md section 11): the skill's
 * guidance, the definition (its JSON, reference included), the current kernel's sources, the
 * per-workload table with bottleneck evidence, the previous attempts of the session, the
 * reconnaissance hits and the edit format. Each part has a byte budget; a part over it keeps
 * its head and tail around a visible marker. */
#ifndef KWB_PROMPT_H
#define KWB_PROMPT_H

#include <stddef.h>

#include "error.h"
#include "solution.h"
#include "strbuf.h"

/* The inputs (any may be NULL or empty, except KERNEL). */
typedef struct prompt_parts {
    const char *direction_id;
    const char *direction_title;
    const char *rationale;       /* why the controller chose it */
    const char *predicted;       /* its predicted effect */
    const char *guidance;        /* the skill's guidance for the direction (Markdown) */
    const char *definition_json; /* the definition file's text */
    const solution *kernel;      /* the current best: its sources are shown and are editable */
    const char *const *scope;    /* the direction's scope globs (further editable files) */
    int nscope;
    const char *context;  /* per-workload table with bottleneck evidence */
    const char *attempts; /* previous attempts of the session, one line each */
    const char *recon;    /* reconnaissance hits (recon_format) */
} prompt_parts;

/* Byte budgets per part. */
typedef struct prompt_budget {
    size_t guidance, definition, kernel, context, attempts, recon;
} prompt_budget;

/* Budgets that keep a prompt near 64 KiB. */
prompt_budget prompt_budget_default(void);

/* Appends TEXT to OUT; when it is longer than BUDGET bytes, its head and tail (together about
 * BUDGET bytes, cut at line ends where one is near) around the line
 * "[... N bytes (L lines) cut by kwb ...]". */
void prompt_clip(const char *text, size_t budget, strbuf *out);

/* The system prompt: the agent's role, the rules and the edit format, naming the files it may
 * edit. Appended to OUT. */
void prompt_system(const prompt_parts *p, strbuf *out);
/* The user prompt: every part under its budget, each under a "## " heading. Appended to OUT. */
void prompt_user(const prompt_parts *p, const prompt_budget *b, strbuf *out);
/* The follow-up turn after edits that did not apply: REPORT (from edits_apply) and the request
 * to resend only the failed blocks against the current files. Appended to OUT. */
void prompt_retry(const char *report, strbuf *out);

#endif
