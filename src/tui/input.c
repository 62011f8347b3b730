/* input.c - keys, requests, the text field and :commands (see input.h). */
#include "tui/input.h"

#include <ctype.h>
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tui/command.h"
#include "tui/flow.h"
#include "tui/help.h"
#include "tui/model.h"
#include "tui/view.h"
#include "tui/views.h"
#include "tui/term.h"
#include "tui/words.h"
#include "xalloc.h"

void (*input_on_resize)(tui_app *a, int rows, int cols);

void input_frame(tui_app *a)
{
    view_frame(a);
    term_flush(a);
}

static void quit(tui_app *a, int force)
{
    (void)force;
    if (job_count(a->jobs, JOB_MAX) > 0) {
        a->prompt = PROMPT_QUIT;
        view_mark_bars(a);
        return;
    }
    a->quit = 1;
}

/* Opens the text field for KIND. */
static void open_prompt(tui_app *a, prompt_kind kind)
{
    a->prompt = kind, a->input[0] = 0, a->input_len = 0;
    view_mark_bars(a);
}

/* The sort of the workloads table by the next (DIR 1) or previous column; from any view. */
static void sort_step(tui_app *a, int dir)
{
    a->wl.sort_col = (a->wl.sort_col + dir + workloads_columns()) % workloads_columns();
    workloads_apply(a);
}

void input_request(tui_app *a, int req)
{
    if (view_request(a, req)) /* the focused view first, then the generic view code */
        return;
    switch (req) {
    case REQ_SEARCH: open_prompt(a, PROMPT_SEARCH); break;
    case REQ_PROMPT: open_prompt(a, PROMPT_COMMAND); break;
    case REQ_SORT_NEXT: sort_step(a, 1); break;
    case REQ_SORT_PREV: sort_step(a, -1); break;
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
    case REQ_REDRAW: view_mark_all(a, 1); break;
    case REQ_CONFIRM:
        if (a->eng.step == ROUND_VERDICT)
            flow_accept(a);
        break;
    case REQ_CANCEL:
        if (flow_cancel(a))
            app_status(a, TC_WARNING, "cancelling the work in flight");
        break;
    case REQ_DIFF_MODE:
        a->df.mode = diff_side_by_side(a) ? 2 : 1, a->view[PANE_DIFF].sel = 0;
        view_mark(a, PANE_DIFF);
        break;
    case REQ_QUIT: quit(a, 0); break;
    case REQ_QUIT_NOW: quit(a, 1); break;
    }
}

/* Finishes the text field: runs what it was for. */
static void prompt_done(tui_app *a)
{
    prompt_kind k = a->prompt;
    a->prompt = PROMPT_NONE;
    view_mark_bars(a);
    kwb_error err = {{0}};
    if (k == PROMPT_COMMAND) {
        input_command(a, a->input, NULL);
    } else if (k == PROMPT_SEARCH) {
        if (a->focus == PANE_WORKLOADS) {
            if (workloads_set_filter(a, a->input, &err) != 0)
                app_status(a, TC_ERROR, "%s", err.msg);
        }
        snprintf(a->search, sizeof a->search, "%.255s", a->input);
        if (a->focus != PANE_WORKLOADS)
            view_search(a, 1);
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
        view_mark_bars(a);
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
    view_mark_bars(a);
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
        view_focus(a, p);
        int row = ev.y - r->y - 1 - (p == PANE_WORKLOADS);
        if (row >= 0)
            view_move(a, p, a->view[p].top + row, 1);
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
        view_focus(a, key - '0');
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
        fprintf(f, "pane %s rows %d sel %d top %d hscroll %d width %d%s\n", layout_pane_names[p], view_rows(a, p),
                a->view[p].sel, a->view[p].top, a->view[p].hscroll, a->lay.pane[p].w,
                a->lay.pane[p].visible ? "" : " hidden");
    fprintf(f, "draws");
    for (int p = 1; p < PANE_COUNT; p++)
        fprintf(f, " %s %d", layout_pane_names[p], a->view[p].draws);
    fprintf(f, "\nsort %s%s\nfilter %s\nsearch %s\n", workloads_column_name(a->wl.sort_col),
            a->wl.sort_desc ? " desc" : "", a->wl.filter, a->search);
    fprintf(f, "best %s\ncandidate %s\ndiff %s lines %d\n", a->best_name, a->eng.cand_name,
            diff_side_by_side(a) ? "side-by-side" : "unified", a->df.doc.nlines);
    for (int i = 0; i < a->pr.nprops; i++)
        fprintf(f, "proposal %s %s%s%s\n", a->pr.props[i].state, a->pr.props[i].id,
                a->pr.props[i].reason[0] ? " : " : "", a->pr.props[i].reason);
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
    view_frame(a);
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
            view_focus(a, p);
            if (n >= 2)
                view_move(a, p, atoi(w[1]), 1);
            return 0;
        }
    return -1;
}

/* A configuration line typed at the prompt (set, bind, color, source), applied at once. */
static int config_command(tui_app *a, const char *line, char **w, int n, kwb_error *err)
{
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", line);
    int rc = config_apply_line(&a->cfg, ":", copy, 0, err);
    if (rc == 0 && !strcmp(w[0], "set") && n > 1 && !strcmp(w[1], "diff-mode"))
        a->df.mode = !strcmp(a->cfg.diff_mode, "side-by-side") ? 1 : !strcmp(a->cfg.diff_mode, "unified") ? 2 : 0;
    if (rc == 0) { /* applied now, not at the next start */
        term_apply_config(a);
        app_status(a, TC_NORMAL, ":%s: applied", line);
    }
    return rc;
}

static int sort_command(tui_app *a, char **w, int n)
{
    for (int c = 0; c < workloads_columns(); c++)
        if (strcmp(w[0], workloads_column_name(c)) == 0) {
            a->wl.sort_col = c, a->wl.sort_desc = n > 1 && strcmp(w[1], "desc") == 0;
            workloads_apply(a);
            return 0;
        }
    return -1;
}

/* Runs command C of the table (command.h) with its N argument words W; LINE is the whole line. */
static int run_command(tui_app *a, const tui_command *c, const char *line, char **w, int n, kwb_error *err)
{
    char **arg = w + 1;
    int nargs = n - 1, cols, rows;
    switch (c->id) {
    case CMD_SET:
    case CMD_COLOR:
    case CMD_BIND:
    case CMD_SOURCE: return config_command(a, line, w, n, err);
    case CMD_SELECT:
    case CMD_FOCUS: return select_cmd(a, arg, nargs);
    case CMD_FILTER: return workloads_set_filter(a, nargs > 0 ? arg[0] : "", err);
    case CMD_SEARCH:
        snprintf(a->search, sizeof a->search, "%s", arg[0]);
        view_search(a, 1);
        return 0;
    case CMD_SORT: return sort_command(a, arg, nargs);
    case CMD_REJECT:
        flow_reject(a);
        if (a->prompt == PROMPT_REASON) {
            a->prompt = PROMPT_NONE;
            flow_reject_with(a, arg[0]);
        }
        return 0;
    case CMD_RESIZE:
        if (sscanf(arg[0], "%dx%d", &cols, &rows) != 2 || cols <= 0 || rows <= 0)
            return -1;
        if (input_on_resize)
            input_on_resize(a, rows, cols);
        return 0;
    case CMD_DUMP_SCREEN:
    case CMD_DUMP_ATTRS:
    case CMD_DUMP_MODEL: return dump(a, c->name + 5, arg, nargs);
    case CMD_STARTUP_TIME:
        printf("startup-time: %.1f ms from the start of kwb tui to the first frame\n",
               1e3 * (a->first_frame_s - a->start_s));
        fflush(stdout);
        return 0;
    case CMD_TIME_KEYS: return time_keys(a, arg, nargs);
    case CMD_Q: input_request(a, REQ_QUIT); return 0;
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
    const tui_command *c = command_find(w[0]);
    if (req != REQ_NONE && n == 1)
        input_request(a, req);
    else if (c && n - 1 >= c->min_args)
        rc = run_command(a, c, line, w, n, &err);
    else if (c)
        rc = kwb_error_set(&err, "usage: :%s %s", c->name, c->args);
    else
        rc = kwb_error_set(&err, "unknown command '%s' (? lists the requests)", w[0]);
    if (rc != 0) {
        app_status(a, TC_ERROR, ":%s: %s", line, err.msg[0] ? err.msg : "bad arguments");
        if (failed)
            *failed = 1;
    }
    view_mark_bars(a);
}
