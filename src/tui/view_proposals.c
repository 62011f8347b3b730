/* view_proposals.c - the directions: pending ones from kwb propose, then those decided earlier,
 * with the selected one's rationale below (see views.h). Enter on a pending direction while one
 * is to be chosen chooses it. */
#include "tui/views.h"

#include <stdio.h>
#include <string.h>

#include "tui/columns.h"
#include "tui/flow.h"
#include "tui/view.h"
#include "xalloc.h"

static int state_class(const char *state)
{
    return strcmp(state, "rejected") == 0  ? TC_PROPOSAL_REJECTED
           : strcmp(state, "pending") == 0 ? TC_PROPOSAL_PENDING
                                           : TC_PROPOSAL_ACCEPTED;
}

/* The rationale of the selected direction on the last two rows (DETAIL rows), the second
 * continuing the first. */
static void draw_rationale(tui_app *a, tui_view *v, int y)
{
    const layout_rect *r = &a->lay.pane[v->pane];
    const proposal *p = &a->pr.props[v->sel];
    char line[1200];
    snprintf(line, sizeof line, "%s%s%s", p->source, p->source[0] ? ": " : "",
             p->rationale[0] ? p->rationale : p->title);
    surface_text(&a->scr, y, r->x, r->x + r->w, 0, line, TC_NORMAL);
    if (tui_text_width(line) > r->w)
        surface_text(&a->scr, y + 1, r->x, r->x + r->w, r->w - 1, line, TC_NORMAL);
    else
        surface_text(&a->scr, y + 1, r->x, r->x + r->w, 0, p->reason, TC_NORMAL);
}

static void draw(tui_app *a, tui_view *v)
{
    const layout_rect *r = &a->lay.pane[v->pane];
    const proposal_list *pl = &a->pr;
    char extra[64];
    int pending = 0, want[3] = {5, 2, 0}, min[3] = {5, 8, 0}, width[3];
    for (int i = 0; i < pl->nprops; i++) {
        int sw = (int)strlen(pl->props[i].state), iw = tui_text_width(pl->props[i].id);
        pending += strcmp(pl->props[i].state, "pending") == 0;
        want[0] = sw > want[0] ? sw : want[0];
        want[1] = iw > want[1] ? iw : want[1];
    }
    snprintf(extra, sizeof extra, "(%d pending of %d)", pending, pl->nprops);
    view_draw_title(a, v, extra);
    int h = view_height(a, v->pane), rationale = h >= 5 && pl->nprops > 0 ? 2 : 0;
    columns_fit(want, min, 3, 1, r->w * 3 / 4, width); /* a quarter at least for what is predicted */
    int hl = h - rationale;
    if (v->sel < v->top)
        v->top = v->sel;
    if (v->sel >= v->top + hl)
        v->top = v->sel - hl + 1;
    for (int i = 0; i < hl && v->top + i < pl->nprops; i++) {
        const proposal *p = &pl->props[v->top + i];
        int y = r->y + 1 + i, cls = state_class(p->state);
        column_line l = column_line_start(&a->scr, y, r->x, r->x + r->w, v->hscroll);
        column_put(&l, p->state, width[0], 0, cls, 1);
        column_put(&l, p->id, width[1], 0, cls, 1);
        column_put(&l, p->predicted[0] ? p->predicted : p->reason, 0, 0, cls, 0);
        view_draw_cursor(a, v, v->top + i, y);
    }
    if (rationale && v->sel < pl->nprops)
        draw_rationale(a, v, r->y + h - 1);
}

static int rows(const tui_app *a, const tui_view *v)
{
    (void)v;
    return a->pr.nprops;
}

static const char *row_text(const tui_app *a, const tui_view *v, int row, char *buf, size_t cap)
{
    (void)v;
    const proposal *p = &a->pr.props[row];
    snprintf(buf, cap, "%s %s %s", p->id, p->title, p->reason);
    return buf;
}

static char *detail(const tui_app *a, const tui_view *v, int row)
{
    (void)v;
    const proposal *p = &a->pr.props[row];
    return xasprintf("direction %s (%s)\nstate: %s\ntitle: %s\nreason: %s\nwhy: %s\npredicted: %s", p->id, p->source,
                     p->state, p->title, p->reason[0] ? p->reason : "-", p->rationale[0] ? p->rationale : "-",
                     p->predicted[0] ? p->predicted : "-");
}

/* Enter on a pending direction while one is to be chosen: choose it. */
static int request(tui_app *a, tui_view *v, int req)
{
    if (req != REQ_ENTER || a->eng.step != ROUND_CHOOSE || v->sel >= a->pr.nprops ||
        strcmp(a->pr.props[v->sel].state, "pending") != 0)
        return 0;
    flow_accept(a);
    return 1;
}

const view_ops view_proposals_ops = {"proposals", 0, NULL, draw, request, NULL, NULL, rows, row_text, detail, NULL};
