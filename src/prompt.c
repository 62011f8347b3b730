/* prompt.c - building the system and user prompts of one round from their parts, each part
 * clipped to its budget (see prompt.h). */
#include "prompt.h"

#include <string.h>

prompt_budget prompt_budget_default(void)
{
    return (prompt_budget){
        .guidance = 6000, .definition = 12000, .kernel = 32000, .context = 6000, .attempts = 3000, .recon = 8000};
}

/* Moves CUT (a byte offset in TEXT of LEN) to just after the nearest line end within SLACK
 * bytes, looking backwards when BACK, forwards otherwise. */
static size_t at_line_end(const char *text, size_t len, size_t cut, size_t slack, int back)
{
    for (size_t k = 0; k <= slack; k++) {
        size_t at = back ? (cut >= k ? cut - k : 0) : cut + k;
        if (at == 0 || at >= len)
            break;
        if (text[at - 1] == '\n')
            return at;
    }
    return cut;
}

void prompt_clip(const char *text, size_t budget, strbuf *out)
{
    if (!text)
        return;
    size_t len = strlen(text);
    if (len <= budget) {
        strbuf_add(out, text, len);
        return;
    }
    size_t head = at_line_end(text, len, budget * 2 / 3, budget / 8, 1);
    size_t tail = at_line_end(text, len, len - (budget - head), budget / 8, 0);
    if (tail < head)
        tail = head;
    int lines = 0;
    for (size_t i = head; i < tail; i++)
        lines += text[i] == '\n';
    strbuf_add(out, text, head);
    if (head && text[head - 1] != '\n')
        strbuf_puts(out, "\n");
    strbuf_printf(out, "[... %zu bytes (%d lines) cut by kwb ...]\n", tail - head, lines);
    strbuf_add(out, text + tail, len - tail);
}

/* A fence long enough not to occur in TEXT. */
static const char *fence_for(const char *text)
{
    return strstr(text, "````") ? "``````" : strstr(text, "```") ? "````" : "```";
}

void prompt_system(const prompt_parts *p, strbuf *out)
{
    strbuf_puts(out,
                "You are a GPU kernel engineer improving one kernel inside kwb, a kernel workbench. kwb builds your "
                "candidate, checks it against the reference on every workload, times it paired against the current "
                "best and promotes it only when it is correct everywhere, faster somewhere and slower nowhere.\n\n"
                "Rules:\n"
                "- Make the one bounded change the direction asks for; keep the entry point and its signature.\n"
                "- Do not special-case inputs, cache outputs or skip work the reference does: kwb checks every "
                "output against the reference with fresh inputs.\n"
                "- Edit only these files (paths relative to the solution folder):");
    for (int i = 0; p->kernel && i < p->kernel->nsources; i++)
        strbuf_printf(out, " %s", p->kernel->sources[i].path);
    if (p->nscope > 0) {
        strbuf_puts(out, "; new files only where the direction's scope allows:");
        for (int i = 0; i < p->nscope; i++)
            strbuf_printf(out, " %s", p->scope[i]);
    }
    strbuf_puts(out, ".\n\nEdit format: answer with a short explanation, then one or more SEARCH/REPLACE blocks. Each "
                     "block is the file's path alone on a line, then:\n"
                     "<<<<<<< SEARCH\n"
                     "lines copied exactly from the current file (enough of them to match once)\n"
                     "=======\n"
                     "the lines that replace them\n"
                     ">>>>>>> REPLACE\n"
                     "Blocks apply in order, all or nothing; a SEARCH part that matches nothing, or more than one "
                     "place, fails the whole edit. To create a new file, leave the SEARCH part empty. Only if the "
                     "change rewrites most of a file, send the whole file instead in one code fence whose info "
                     "string is the language and the path (```c path); never abbreviate with placeholders such as "
                     "\"rest unchanged\".\n");
}

static void section(strbuf *out, const char *title, const char *text, size_t budget)
{
    if (!text || !*text)
        return;
    strbuf_printf(out, "\n## %s\n\n", title);
    prompt_clip(text, budget, out);
    if (out->len && out->s[out->len - 1] != '\n')
        strbuf_puts(out, "\n");
}

/* The current sources, each in a fence, under one budget shared in proportion to their sizes. */
static void kernel_section(strbuf *out, const solution *k, size_t budget)
{
    if (!k)
        return;
    size_t total = 0;
    for (int i = 0; i < k->nsources; i++)
        total += k->sources[i].len;
    strbuf_puts(out, "\n## The current kernel (the session's best)\n");
    for (int i = 0; i < k->nsources; i++) {
        const solution_source *s = &k->sources[i];
        size_t share = total > budget ? (size_t)((double)budget * (double)s->len / (double)total) : s->len;
        const char *fence = fence_for(s->content);
        strbuf_printf(out, "\n%s\n%s%s %s\n", s->path, fence,
                      k->language && !strcmp(k->language, "cuda") ? "cuda" : "c", s->path);
        prompt_clip(s->content, share, out);
        if (out->len && out->s[out->len - 1] != '\n')
            strbuf_puts(out, "\n");
        strbuf_printf(out, "%s\n", fence);
    }
}

void prompt_user(const prompt_parts *p, const prompt_budget *b, strbuf *out)
{
    prompt_budget d = b ? *b : prompt_budget_default();
    strbuf_printf(out, "# Direction %s: %s\n", p->direction_id ? p->direction_id : "?",
                  p->direction_title ? p->direction_title : "");
    if (p->rationale && *p->rationale)
        strbuf_printf(out, "\nWhy this direction: %s\n", p->rationale);
    if (p->predicted && *p->predicted)
        strbuf_printf(out, "Predicted effect: %s\n", p->predicted);
    section(out, "Guidance (the skill's playbook for this direction)", p->guidance, d.guidance);
    section(out, "Measurements of the current best (per workload, with bottleneck evidence)", p->context, d.context);
    section(out, "Previous attempts in this session", p->attempts, d.attempts);
    section(out, "Reference code found for this direction (adapt it before writing new code)", p->recon, d.recon);
    if (p->definition_json && *p->definition_json) {
        strbuf_puts(out, "\n## The definition (axes, inputs, outputs and the reference implementation)\n\n```json\n");
        prompt_clip(p->definition_json, d.definition, out);
        if (out->len && out->s[out->len - 1] != '\n')
            strbuf_puts(out, "\n");
        strbuf_puts(out, "```\n");
    }
    kernel_section(out, p->kernel, d.kernel);
    strbuf_puts(out, "\nWrite the change now as SEARCH/REPLACE blocks against the files above.\n");
}

void prompt_retry(const char *report, strbuf *out)
{
    strbuf_puts(out, "Your edit did not apply, so nothing was changed (edits apply all or nothing). What kwb found, "
                     "block by block:\n\n");
    prompt_clip(report ? report : "", 8000, out);
    if (out->len && out->s[out->len - 1] != '\n')
        strbuf_puts(out, "\n");
    strbuf_puts(out, "\nSend the complete edit again: every block, with the failed ones corrected so that each "
                     "SEARCH part is copied exactly from the current file (the closest lines are quoted above with "
                     "their numbers; leave the numbers out).\n");
}
