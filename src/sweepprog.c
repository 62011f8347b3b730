/* sweepprog.c - progress of a sweep while it runs: see sweepprog.h. */
#include "sweepprog.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"

#define PREFIX "kwb eval: "

void sweep_progress_start(sweep_progress *p, FILE *f, int quiet, const definition *d, int total)
{
    *p = (sweep_progress){f,         quiet ? SWEEP_QUIET : isatty(fileno(f)) ? SWEEP_LIVE : SWEEP_LINES, d, total, 0, 0,
                          proc_now()};
    if (p->mode == SWEEP_LIVE) {
        char counts[128];
        sweep_progress_counts(p, counts, sizeof counts);
        fprintf(f, "\r\033[K" PREFIX "%s", counts);
        fflush(f);
    }
}

void sweep_progress_counts(const sweep_progress *p, char *buf, size_t cap)
{
    double elapsed = proc_now() - p->start;
    int n = snprintf(buf, cap, "[%d/%d] %d passed, %d failed | %.1f s elapsed", p->done, p->total, p->passed,
                     p->done - p->passed, elapsed);
    if (p->done > 0 && p->done < p->total && n > 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, ", ~%.0f s left", elapsed / p->done * (p->total - p->done));
}

void sweep_progress_add(sweep_progress *p, const wl_result *r)
{
    p->done++;
    p->passed += r->status == ST_PASSED;
    if (p->mode == SWEEP_QUIET)
        return;
    char line[512], counts[128];
    results_line(line, sizeof line, p->d, r);
    sweep_progress_counts(p, counts, sizeof counts);
    if (p->mode == SWEEP_LIVE)
        fprintf(p->f, "\r\033[K  %s\n" PREFIX "%s", line, counts);
    else
        fprintf(p->f, PREFIX "%s | %s\n", counts, line);
    fflush(p->f);
}

void sweep_progress_end(sweep_progress *p)
{
    if (p->mode == SWEEP_LIVE)
        fputc('\n', p->f);
    p->mode = SWEEP_QUIET;
}

int sweep_progress_parse(const char *line, int *done, int *total, int *passed, int *failed)
{
    const char *s = strstr(line, PREFIX "[");
    if (!s)
        return -1;
    return sscanf(s + strlen(PREFIX), "[%d/%d] %d passed, %d failed", done, total, passed, failed) == 4 ? 0 : -1;
}
