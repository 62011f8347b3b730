/* input.c - keys, requests, the text field and :commands (see input.h). */
#include "tui/input.h"

#include <ctype.h>
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tui/flow.h"
#include "tui/help.h"
#include "tui/model.h"
#include "tui/panes.h"
#include "tui/term.h"
#include "tui/words.h"
#include "xalloc.h"

void (*input_on_resize)(tui_app *a, int rows, int cols);

void input_frame(tui_app *a)
{
    panes_draw(a);
    term_flush(a);
    a->dirty = 0;
}

static void move_sel(tui_app *a, int pane, int delta, int absolute)
{
    pane_state *p = &a->ps[pane];
    int n = pane_rows(a, pane);
    int v = absolute ? delta : p->sel + delta;
    if (v >= n)
        v = n - 1;
    if (v < 0)
        v = 0;
    p->sel = v;
    a->dirty = 1;
}

static int visible_pane(const tui_app *a, int p)
{
    return a->lay.too_small || a->lay.pane[p].visible || p == PANE_DIFF || p == PANE_LOG || p == PANE_HISTORY;
}

static void focus_pane(tui_app *a, int p)
{
    if (p < 1 || p >= PANE_COUNT)
        return;
    a->focus = p;
    if (p == PANE_DIFF || p == PANE_LOG || p == PANE_HISTORY)
        a->bottom = p;
    a->dirty = 1;
}

static void cycle_focus(tui_app *a, int dir)
{
    int p = a->focus;
    do
        p = (p - 1 + dir + PANE_COUNT - 1) % (PANE_COUNT - 1) + 1;
    while (!visible_pane(a, p) && p != a->focus);
    focus_pane(a, p);
}

/* h/l: the pane whose rectangle lies nearest to the left or right of the focused one. */
static void side_focus(tui_app *a, int dir)
{
    const layout_rect *f = &a->lay.pane[a->focus];
    int best = 0, bestd = 1 << 30;
    for (int p = 1; p < PANE_COUNT; p++) {
        const layout_rect *r = &a->lay.pane[p];
        if (p == a->focus || !r->visible)
            continue;
        int dx = dir > 0 ? r->x - (f->x + f->w) : f->x - (r->x + r->w);
        int overlap = r->y < f->y + f->h && f->y < r->y + r->h;
        if (dx >= 0 && overlap && dx < bestd)
            best = p, bestd = dx;
    }
    if (best)
        focus_pane(a, best);
    else
        cycle_focus(a, dir);
}

static void search_step(tui_app *a, int dir)
{
    if (!a->search[0])
        return;
    int ec;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)a->search, PCRE2_ZERO_TERMINATED, PCRE2_CASELESS, &ec, &off, NULL);
    if (!re) {
        app_status(a, TC_ERROR, "search /%s/: not a regular expression", a->search);
        return;
    }
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    int n = pane_rows(a, a->focus), found = -1;
    for (int k = 1; k <= n && found < 0; k++) {
        int row = ((a->ps[a->focus].sel + dir * k) % n + n) % n;
        char buf[1024];
        pane_row_text(a, a->focus, row, buf, sizeof buf);
        if (pcre2_match(re, (PCRE2_SPTR)buf, PCRE2_ZERO_TERMINATED, 0, 0, md, NULL) >= 0)
            found = row;
    }
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    if (found >= 0)
        move_sel(a, a->focus, found, 1);
    else
        app_status(a, TC_WARNING, "/%s: no match in %s", a->search, layout_pane_names[a->focus]);
}

/* Closes the help or the detail view. */
static void close_overlay(tui_app *a)
{
    a->help_open = 0;
    free(a->detail);
    a->detail = NULL;
    a->full_redraw = a->dirty = 1;
}

/* Enter: the selected line of the focused pane in full (log line, proposal, workload row). */
static void open_detail(tui_app *a, int pane)
{
    int i = a->ps[pane].sel;
    char *text = NULL;
    if (pane == PANE_LOG && i < a->nlog) {
        text = xstrdup(a->log[i].text);
    } else if (pane == PANE_PROPOSALS && i < a->nprops) {
        const proposal *p = &a->props[i];
        text = xasprintf("direction %s (%s)\nstate: %s\ntitle: %s\nreason: %s\nwhy: %s\npredicted: %s", p->id,
                         p->source, p->state, p->title, p->reason[0] ? p->reason : "-",
                         p->rationale[0] ? p->rationale : "-", p->predicted[0] ? p->predicted : "-");
    } else if (pane == PANE_WORKLOADS && i < a->norder) {
        const wl_line *w = &a->rows[a->order[i]];
        text = xasprintf("workload %s\naxes: %s\nbaseline %.4f ms, best %.4f ms, candidate %.4f ms\nspeedup %.3fx, "
                         "roofline %.0f%%\nstatus: %s\nverdict: %s",
                         w->uuid, w->axes, w->base_ms, w->best_ms, w->cand_ms, w->speedup, 100 * w->roofline, w->status,
                         w->verdict[0] ? w->verdict : "-");
    }
    if (a->eng.step == ROUND_VERDICT && pane != PANE_LOG && pane != PANE_PROPOSALS) { /* the verdict in full */
        char *v = xasprintf("%s\n\nthe judge's verdict on %s: %s at the %s:\n%s", text ? text : "", a->eng.cand_name,
                            a->eng.verdict_promote ? "promote" : "reject", a->eng.verdict_stage, a->eng.verdict_reason);
        free(text);
        text = v;
    }
    if (!text) {
        app_status(a, TC_WARNING, "nothing selected to open");
        return;
    }
    free(a->detail);
    a->detail = text;
    a->help_open = 1, a->help_top = 0, a->full_redraw = a->dirty = 1;
}

static void quit(tui_app *a, int force)
{
    if (a->help_open && !force) {
        close_overlay(a);
        return;
    }
    if (job_count(a->jobs, JOB_MAX) > 0) {
        a->prompt = PROMPT_QUIT;
        a->dirty = 1;
        return;
    }
    a->quit = 1;
}

static void diff_request(tui_app *a, int req)
{
    if ((req == REQ_SCROLL_LEFT || req == REQ_SCROLL_RIGHT) && a->focus == PANE_LOG) { /* the log scrolls too */
        pane_state *lp = &a->ps[PANE_LOG];
        int step = a->lay.pane[PANE_LOG].w / 2 > 0 ? a->lay.pane[PANE_LOG].w / 2 : 1;
        lp->hscroll = req == REQ_SCROLL_RIGHT ? lp->hscroll + step : lp->hscroll > step ? lp->hscroll - step : 0;
        a->dirty = 1;
        return;
    }
    int sbs = pane_diff_side_by_side(a);
    pane_state *p = &a->ps[PANE_DIFF];
    int half = a->lay.pane[PANE_DIFF].w / (sbs ? 4 : 2);
    if (req == REQ_SCROLL_RIGHT)
        p->hscroll += half;
    else if (req == REQ_SCROLL_LEFT)
        p->hscroll = p->hscroll > half ? p->hscroll - half : 0;
    else {
        int r = diff_next_hunk(&a->diff, sbs, p->sel + (req == REQ_NEXT_HUNK ? 1 : -1), req == REQ_NEXT_HUNK ? 1 : -1);
        if (r >= 0)
            p->sel = r, p->top = r;
    }
    a->dirty = 1;
}

void input_request(tui_app *a, int req)
{
    int pane = a->focus, page = pane_height(a, pane) > 1 ? pane_height(a, pane) - 1 : 1;
    if (a->help_open) { /* the help scrolls within itself; another request closes it */
        int step = req == REQ_PAGE_DOWN ? a->scr.rows - 3 : req == REQ_PAGE_UP ? -(a->scr.rows - 3) : 0;
        if (req == REQ_PAGE_DOWN || req == REQ_PAGE_UP || req == REQ_FIRST || req == REQ_LAST) {
            a->help_top = req == REQ_FIRST ? 0 : req == REQ_LAST ? 1 << 20 : a->help_top + step;
            a->help_top = a->help_top < 0 ? 0 : a->help_top; /* the end is clamped when drawn */
            a->dirty = 1;
            return;
        }
        if (req != REQ_QUIT && req != REQ_QUIT_NOW && req != REQ_CANCEL && req != REQ_DOWN && req != REQ_UP &&
            req != REQ_REDRAW)
            close_overlay(a);
    }
    switch (req) {
    case REQ_DOWN:
        if (a->help_open)
            a->help_top++, a->dirty = 1;
        else
            move_sel(a, pane, 1, 0);
        break;
    case REQ_UP:
        if (a->help_open)
            a->help_top -= a->help_top > 0, a->dirty = 1;
        else
            move_sel(a, pane, -1, 0);
        break;
    case REQ_PAGE_DOWN: move_sel(a, pane, page, 0); break;
    case REQ_PAGE_UP: move_sel(a, pane, -page, 0); break;
    case REQ_FIRST: move_sel(a, pane, 0, 1); break;
    case REQ_LAST: move_sel(a, pane, pane_rows(a, pane) - 1, 1); break;
    case REQ_NEXT_PANE: cycle_focus(a, 1); break;
    case REQ_PREV_PANE: cycle_focus(a, -1); break;
    case REQ_PANE_LEFT: side_focus(a, -1); break;
    case REQ_PANE_RIGHT: side_focus(a, 1); break;
    case REQ_ENTER:
        if (pane == PANE_PROPOSALS && a->eng.step == ROUND_CHOOSE && a->ps[pane].sel < a->nprops &&
            strcmp(a->props[a->ps[pane].sel].state, "pending") == 0)
            flow_accept(a);
        else if (pane == PANE_DIFF || pane == PANE_HISTORY || pane == PANE_BOTTLENECK)
            focus_pane(a, PANE_DIFF);
        else
            open_detail(a, pane);
        break;
    case REQ_SEARCH: a->prompt = PROMPT_SEARCH, a->input[0] = 0, a->input_len = 0, a->dirty = 1; break;
    case REQ_SEARCH_NEXT: search_step(a, 1); break;
    case REQ_SEARCH_PREV: search_step(a, -1); break;
    case REQ_SORT_NEXT:
    case REQ_SORT_PREV: {
        int col = (a->sort_col + (req == REQ_SORT_NEXT ? 1 : -1) + model_columns()) % model_columns();
        a->sort_col = col;
        model_apply_view(a);
        break;
    }
    case REQ_HELP:
        free(a->detail);
        a->detail = NULL;
        a->help_open = 1, a->help_top = 0, a->full_redraw = a->dirty = 1;
        break;
    case REQ_PROMPT: a->prompt = PROMPT_COMMAND, a->input[0] = 0, a->input_len = 0, a->dirty = 1; break;
    case REQ_ACCEPT: flow_accept(a); break;
    case REQ_REJECT: flow_reject(a); break;
    case REQ_EDIT: flow_edit(a, term_suspend, term_resume); break;
    case REQ_UNDO: flow_undo(a); break;
    case REQ_REDO: flow_redo(a); break;
    case REQ_OVERRULE: flow_overrule(a); break;
    case REQ_AGAIN: flow_again(a); break;
    case REQ_PROFILE: flow_profile(a); break;
    case REQ_REFRESH:
        model_reload(a);
        app_status(a, TC_NORMAL, "reloaded from the store");
        break;
    case REQ_REDRAW: a->full_redraw = a->dirty = 1; break;
    case REQ_CONFIRM:
        if (a->eng.step == ROUND_VERDICT)
            flow_accept(a);
        break;
    case REQ_CANCEL:
        if (a->help_open)
            close_overlay(a);
        else if (flow_cancel(a))
            app_status(a, TC_WARNING, "cancelling the work in flight");
        else if (a->filter[0] && pane == PANE_WORKLOADS)
            model_set_filter(a, "", NULL);
        a->dirty = 1;
        break;
    case REQ_DIFF_MODE: a->diff_mode = pane_diff_side_by_side(a) ? 2 : 1, a->ps[PANE_DIFF].sel = 0, a->dirty = 1; break;
    case REQ_SCROLL_LEFT:
    case REQ_SCROLL_RIGHT:
    case REQ_NEXT_HUNK:
    case REQ_PREV_HUNK: diff_request(a, req); break;
    case REQ_QUIT: quit(a, 0); break;
    case REQ_QUIT_NOW: quit(a, 1); break;
    }
}

/* Finishes the text field: runs what it was for. */
static void prompt_done(tui_app *a)
{
    prompt_kind k = a->prompt;
    a->prompt = PROMPT_NONE;
    a->dirty = 1;
    kwb_error err = {{0}};
    if (k == PROMPT_COMMAND) {
        input_command(a, a->input, NULL);
    } else if (k == PROMPT_SEARCH) {
        if (a->focus == PANE_WORKLOADS) {
            if (model_set_filter(a, a->input, &err) != 0)
                app_status(a, TC_ERROR, "%s", err.msg);
        }
        snprintf(a->search, sizeof a->search, "%.255s", a->input);
        if (a->focus != PANE_WORKLOADS)
            search_step(a, 1);
    } else if (k == PROMPT_REASON) {
        flow_reject_with(a, a->input);
    }
}

static void prompt_key(tui_app *a, int key)
{
    if (a->prompt == PROMPT_QUIT) {
        a->prompt = PROMPT_NONE;
        if (key == 'y' || key == 'Y') {
            flow_cancel(a);
            a->quit = 1;
        }
        a->dirty = 1;
        return;
    }
    if (key == TUI_KEY_ESC) {
        a->prompt = PROMPT_NONE;
    } else if (key == TUI_KEY_ENTER || key == KEY_ENTER) {
        prompt_done(a);
    } else if (key == KEY_BACKSPACE || key == 8 || key == 127) {
        while (a->input_len > 0 && ((unsigned char)a->input[--a->input_len] & 0xc0) == 0x80)
            ;
        a->input[a->input_len] = '\0';
    } else if (key == 21) { /* Ctrl-U */
        a->input_len = 0, a->input[0] = '\0';
    } else if (key == TUI_KEY_TAB && a->prompt == PROMPT_COMMAND) {
        char choices[400];
        int matches = help_complete(a->input, sizeof a->input, choices, sizeof choices);
        a->input_len = (int)strlen(a->input);
        if (matches > 1)
            app_status(a, TC_NORMAL, "%s", choices);
        else if (matches == 0)
            app_status(a, TC_WARNING, "nothing completes '%s'", a->input);
    } else if (key >= 32 && key < 0x110000 && key != 127 && a->input_len + 5 < (int)sizeof a->input) {
        a->input_len += tui_utf8_encode((uint32_t)key, a->input + a->input_len);
    }
    a->dirty = 1;
}

/* A click (set mouse = yes): focuses the pane under it and selects the row clicked. */
static void mouse_click(tui_app *a)
{
    MEVENT ev;
    if (!term_active() || getmouse(&ev) != OK || !(ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED)))
        return;
    for (int p = 1; p < PANE_COUNT; p++) {
        const layout_rect *r = &a->lay.pane[p];
        if (!r->visible || ev.y < r->y || ev.y >= r->y + r->h || ev.x < r->x || ev.x >= r->x + r->w)
            continue;
        focus_pane(a, p);
        int row = ev.y - r->y - 1 - (p == PANE_WORKLOADS);
        if (row >= 0)
            move_sel(a, p, a->ps[p].top + row, 1);
        return;
    }
}

void input_key(tui_app *a, int key)
{
    if (key == KEY_MOUSE) {
        mouse_click(a);
        return;
    }
    if (key == KEY_RESIZE) {
        if (input_on_resize)
            input_on_resize(a, 0, 0);
        return;
    }
    if (a->prompt != PROMPT_NONE) {
        prompt_key(a, key);
        return;
    }
    int req = keymap_lookup(&a->cfg.keys, a->focus, key);
    if (req == REQ_NONE && key >= '1' && key <= '6')
        focus_pane(a, key - '0');
    else if (req != REQ_NONE)
        input_request(a, req);
}

/* ---- :commands ------------------------------------------------------------------------ */

static void dump_model(tui_app *a, FILE *f)
{
    static const char *const steps[] = {"idle",   "starting", "proposing", "choose",   "writing",
                                        "review", "judging",  "verdict",   "deciding", "done"};
    fprintf(f, "size %dx%d%s\nfocus %s\nstep %s\nround %d\n", a->scr.cols, a->scr.rows,
            a->lay.too_small ? " too-small"
            : a->lay.wide    ? " wide"
                             : " narrow",
            layout_pane_names[a->focus], steps[a->eng.step], a->eng.number);
    for (int p = 1; p < PANE_COUNT; p++)
        fprintf(f, "pane %s rows %d sel %d top %d hscroll %d%s\n", layout_pane_names[p], pane_rows(a, p), a->ps[p].sel,
                a->ps[p].top, a->ps[p].hscroll, a->lay.pane[p].visible ? "" : " hidden");
    fprintf(f, "sort %s%s\nfilter %s\nsearch %s\n", model_column_name(a->sort_col), a->sort_desc ? " desc" : "",
            a->filter, a->search);
    fprintf(f, "best %s\ncandidate %s\ndiff %s lines %d\n", a->best_name, a->eng.cand_name,
            pane_diff_side_by_side(a) ? "side-by-side" : "unified", a->diff.nlines);
    for (int i = 0; i < a->nprops; i++)
        fprintf(f, "proposal %s %s%s%s\n", a->props[i].state, a->props[i].id, a->props[i].reason[0] ? " : " : "",
                a->props[i].reason);
    fprintf(f, "jobs %d\nprompt %d\nhelp %d\n", job_count(a->jobs, JOB_MAX), a->prompt, a->help_open);
}

/* Replaces the volatile parts of a dumped line with tokens, so goldens stay stable: every number
 * standing alone that varies from run to run (decimals, "12%", "1.25x", pids, run ids, counts after "on", with the
 * blanks before it) becomes " <n>", bar glyphs vanish and runs of blanks become one. Numbers inside
 * names (r1-LANES-2, 63d4cb66) stay. */
static void normalise(char *line)
{
    char out[8192];
    size_t o = 0;
    for (const char *p = line; *p && o + 8 < sizeof out;) {
        const char *q = p;
        while (*q == ' ')
            q++;
        const char *d = q;
        while (isdigit((unsigned char)*d))
            d++;
        if (*d == '.' && isdigit((unsigned char)d[1]))
            for (d++; isdigit((unsigned char)*d); d++)
                ;
        if (d > q && (*d == '%' || (*d == 'x' && !isalnum((unsigned char)d[1]))))
            d++;
        int cut = d > q && (*d == '~' || (*d == '.' && d[1] == '~')); /* a number cut by the pane edge */
        if (cut)
            d += *d == '.' ? 2 : 1;
        char before = q > line ? q[-1] : ' ';
        int volatile_kind = d > q && (cut || memchr(q, '.', (size_t)(d - q)) || d[-1] == '%' || d[-1] == 'x' ||
                                      (q - line >= 4 && (!strncmp(q - 4, "pid ", 4) || !strncmp(q - 4, "run ", 4))) ||
                                      (q - line >= 3 && !strncmp(q - 3, "on ", 3)) ||
                                      (q - line >= 5 && !strncmp(q - 5, "mean ", 5))); /* a mean that came out whole */
        int alone = volatile_kind && !isalnum((unsigned char)*d) && *d != '_' && *d != '-' &&
                    (q == line || strchr(" ([{|:,/=#", before) || (unsigned char)before == 0x88); /* after a bar */
        if (alone) {
            memcpy(out + o, " <n>", 4), o += 4;
            p = d;
            continue;
        }
        if (!strncmp(p, "\xe2\x96\x88", 3) || (*p == '#' && (p[1] == '#' || p[1] == ' '))) {
            int utf = *p != '#';
            while (utf ? !strncmp(p, "\xe2\x96\x88", 3) : *p == '#')
                p += utf ? 3 : 1;
            continue;
        }
        size_t hex = strspn(p, "0123456789abcdef");
        if (hex >= 12 && (p == line || !isalnum((unsigned char)p[-1])) && !isalnum((unsigned char)p[hex])) {
            memcpy(out + o, "<id>", 4), o += 4; /* commits: they hold the time */
            p += hex;
            continue;
        }
        if (q > p) { /* a run of blanks not before a number: one blank (bars and widths vary) */
            out[o++] = ' ';
            p = q;
            continue;
        }
        out[o++] = *p++;
    }
    out[o] = '\0';
    size_t k = 0; /* the bars' blanks too: one blank per run */
    for (size_t i = 0; i < o; i++)
        if (!(out[i] == ' ' && k > 0 && line[k - 1] == ' '))
            line[k++] = out[i];
    line[k] = '\0';
}

static int dump(tui_app *a, const char *what, char **w, int n)
{
    int norm = n >= 2 && strcmp(w[0], "--normalize") == 0;
    const char *path = n >= 1 ? w[n - 1] : NULL;
    if (!path || (n >= 2 && !norm))
        return -1;
    panes_draw(a);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    if (strcmp(what, "model") == 0) {
        dump_model(a, f);
    } else if (strcmp(what, "attrs") == 0) {
        surface_dump_attrs(&a->scr, f);
    } else if (!norm) {
        surface_dump_text(&a->scr, f);
    } else {
        char *buf = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&buf, &len);
        surface_dump_text(&a->scr, mem);
        fclose(mem);
        for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
            char copy[8192];
            snprintf(copy, sizeof copy, "%s", line);
            normalise(copy);
            fprintf(f, "%s\n", copy);
        }
        free(buf);
    }
    fclose(f);
    return 0;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* time-keys N KEY: N presses of KEY, each followed by a frame; prints the mean and worst ms. */
static int time_keys(tui_app *a, char **w, int n)
{
    if (n != 2 || atoi(w[0]) <= 0)
        return -1;
    const char *p = w[1];
    int key = key_parse(&p), count = atoi(w[0]);
    if (key < 0)
        return -1;
    double total = 0, worst = 0;
    for (int i = 0; i < count; i++) {
        double t0 = now_ms();
        input_key(a, key);
        input_frame(a);
        double dt = now_ms() - t0;
        total += dt;
        worst = dt > worst ? dt : worst;
    }
    printf("time-keys %d %s: mean %.3f ms, worst %.3f ms per keystroke to frame (%s)\n", count, w[1], total / count,
           worst, term_active() ? "curses frame on a virtual terminal" : "surface only");
    fflush(stdout);
    app_log(a, TC_LOG_INFO, "time-keys %d %s: mean %.3f ms, worst %.3f ms", count, w[1], total / count, worst);
    return 0;
}

static int select_cmd(tui_app *a, char **w, int n)
{
    for (int p = 1; p < PANE_COUNT && n >= 1; p++)
        if (strcmp(w[0], layout_pane_names[p]) == 0) {
            focus_pane(a, p);
            if (n >= 2)
                move_sel(a, p, atoi(w[1]), 1);
            return 0;
        }
    return -1;
}

void input_command(tui_app *a, const char *line, int *failed)
{
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", line);
    char *w[16];
    int n = words_split(copy, w, 16), rc = 0;
    if (n == 0)
        return;
    kwb_error err = {{0}};
    int req = request_find(w[0]);
    if (req != REQ_NONE && n == 1) {
        input_request(a, req);
    } else if (strcmp(w[0], "q") == 0) {
        input_request(a, REQ_QUIT);
    } else if (!strncmp(w[0], "dump-", 5)) {
        rc = dump(a, w[0] + 5, w + 1, n - 1);
    } else if (strcmp(w[0], "resize") == 0 && n == 2) {
        int cols, rows;
        rc = sscanf(w[1], "%dx%d", &cols, &rows) == 2 && cols > 0 && rows > 0 ? 0 : -1;
        if (rc == 0 && input_on_resize)
            input_on_resize(a, rows, cols);
    } else if (strcmp(w[0], "select") == 0 || strcmp(w[0], "focus") == 0) {
        rc = select_cmd(a, w + 1, n - 1);
    } else if (strcmp(w[0], "filter") == 0) {
        rc = model_set_filter(a, n > 1 ? w[1] : "", &err);
    } else if (strcmp(w[0], "search") == 0 && n == 2) {
        snprintf(a->search, sizeof a->search, "%s", w[1]);
        search_step(a, 1);
    } else if (strcmp(w[0], "sort") == 0 && n >= 2) {
        rc = -1;
        for (int c = 0; c < model_columns(); c++)
            if (strcmp(w[1], model_column_name(c)) == 0)
                a->sort_col = c, a->sort_desc = n > 2 && strcmp(w[2], "desc") == 0, rc = 0;
        model_apply_view(a);
    } else if (strcmp(w[0], "reject") == 0 && n >= 2) {
        flow_reject(a);
        if (a->prompt == PROMPT_REASON) {
            a->prompt = PROMPT_NONE;
            flow_reject_with(a, w[1]);
        }
    } else if (strcmp(w[0], "startup-time") == 0) {
        printf("startup-time: %.1f ms from the start of kwb tui to the first frame\n",
               1e3 * (a->first_frame_s - a->start_s));
        fflush(stdout);
    } else if (strcmp(w[0], "time-keys") == 0) {
        rc = time_keys(a, w + 1, n - 1);
    } else if (!strcmp(w[0], "set") || !strcmp(w[0], "bind") || !strcmp(w[0], "color") || !strcmp(w[0], "source")) {
        snprintf(copy, sizeof copy, "%s", line);
        rc = config_apply_line(&a->cfg, ":", copy, 0, &err);
        if (rc == 0 && !strcmp(w[0], "set") && n > 1 && !strcmp(w[1], "diff-mode"))
            a->diff_mode = !strcmp(a->cfg.diff_mode, "side-by-side") ? 1 : !strcmp(a->cfg.diff_mode, "unified") ? 2 : 0;
        if (rc == 0) { /* applied now, not at the next start */
            term_apply_config(a);
            app_status(a, TC_NORMAL, ":%s: applied", line);
        }
    } else {
        rc = kwb_error_set(&err, "unknown command '%s' (? lists the requests)", w[0]);
    }
    if (rc != 0) {
        app_status(a, TC_ERROR, ":%s: %s", line, err.msg[0] ? err.msg : "bad arguments");
        if (failed)
            *failed = 1;
    }
    a->dirty = 1;
}
