/* diffview.c - diff parsing, pairing, word marks and drawing (see diffview.h). */
#include "tui/diffview.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/theme_classes.h"
#include "xalloc.h"

static void add_line(diff_doc *d, char kind, const char *text, size_t len, int old_no, int new_no)
{
    d->lines = xrealloc(d->lines, (size_t)(d->nlines + 1) * sizeof *d->lines);
    d->lines[d->nlines++] = (diff_line){kind, xstrndup(text, len), old_no, new_no, 0, 0};
}

static void add_row(diff_doc *d, int left, int right, int span)
{
    d->rows = xrealloc(d->rows, (size_t)(d->nrows + 1) * sizeof *d->rows);
    d->rows[d->nrows++] = (diff_row){left, right, span};
}

/* Length in bytes of the word starting at P: a run of letters, digits and '_', else one byte. */
static size_t word_len(const char *p)
{
    size_t n = 0;
    while (isalnum((unsigned char)p[n]) || p[n] == '_')
        n++;
    return n ? n : 1;
}

/* Marks the changed words of a deleted/added pair: everything between the common leading and
 * trailing words. */
static void mark_words(diff_line *del, diff_line *add)
{
    const char *a = del->text, *b = add->text;
    size_t la = strlen(a), lb = strlen(b), pre = 0;
    while (pre < la && pre < lb) {
        size_t wa = word_len(a + pre), wb = word_len(b + pre);
        if (wa != wb || memcmp(a + pre, b + pre, wa) != 0)
            break;
        pre += wa;
    }
    size_t sa = la, sb = lb;
    while (sa > pre && sb > pre && a[sa - 1] == b[sb - 1])
        sa--, sb--;
    /* widen each changed piece to whole words */
    while (sa > pre && sa < la && isalnum((unsigned char)a[sa - 1]) && isalnum((unsigned char)a[sa]))
        sa++;
    while (sb > pre && sb < lb && isalnum((unsigned char)b[sb - 1]) && isalnum((unsigned char)b[sb]))
        sb++;
    del->emph_lo = (int)pre, del->emph_hi = (int)sa;
    add->emph_lo = (int)pre, add->emph_hi = (int)sb;
    if (sa - pre > la * 3 / 4 + 1 && la > 8) /* nothing similar: no word marks */
        del->emph_hi = del->emph_lo, add->emph_hi = add->emph_lo;
}

/* Pairs the run of deletions [D0, D1) with the additions [A0, A1) into rows. */
static void pair_run(diff_doc *d, int d0, int d1, int a0, int a1)
{
    int nd = d1 - d0, na = a1 - a0, n = nd > na ? nd : na;
    for (int i = 0; i < n; i++) {
        int l = i < nd ? d0 + i : -1, r = i < na ? a0 + i : -1;
        if (l >= 0 && r >= 0)
            mark_words(&d->lines[l], &d->lines[r]);
        add_row(d, l, r, -1);
    }
}

static void build_rows(diff_doc *d)
{
    for (int i = 0; i < d->nlines;) {
        char k = d->lines[i].kind;
        if (k == '@' || k == 'F') {
            add_row(d, -1, -1, i++);
        } else if (k == ' ') {
            add_row(d, i, i, -1);
            i++;
        } else {
            int d0 = i;
            while (i < d->nlines && d->lines[i].kind == '-')
                i++;
            int a0 = i;
            while (i < d->nlines && d->lines[i].kind == '+')
                i++;
            pair_run(d, d0, a0, a0, i);
        }
    }
}

void diff_parse(const char *text, diff_doc *d)
{
    memset(d, 0, sizeof *d);
    int old_no = 0, new_no = 0, maxno = 0;
    for (const char *p = text ? text : ""; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len >= 2 && p[0] == '@' && p[1] == '@') {
            int a = 0, b = 0;
            sscanf(p, "@@ -%d%*[^+]+%d", &a, &b);
            old_no = a, new_no = b;
            add_line(d, '@', p, len, 0, 0);
        } else if (!strncmp(p, "diff ", 5) || !strncmp(p, "--- ", 4) || !strncmp(p, "+++ ", 4) ||
                   !strncmp(p, "index ", 6) || !strncmp(p, "new file", 8) || !strncmp(p, "deleted file", 12)) {
            if (!strncmp(p, "+++ ", 4)) { /* diff(1) adds a tab and the file's time */
                size_t name = strcspn(p + 4, "\t\n");
                add_line(d, 'F', p + 4, name < len - 4 ? name : len - 4, 0, 0);
            }
        } else if (len > 0 && (p[0] == '-' || p[0] == '+' || p[0] == ' ')) {
            char k = p[0];
            add_line(d, k, p + 1, len - 1, k != '+' ? old_no : 0, k != '-' ? new_no : 0);
            old_no += k != '+';
            new_no += k != '-';
        } else if (len == 0 && nl && nl[1]) {
            add_line(d, ' ', "", 0, old_no++, new_no++);
        }
        maxno = old_no > maxno ? old_no : maxno;
        maxno = new_no > maxno ? new_no : maxno;
        p += len + (nl ? 1 : 0);
    }
    d->gutter = 3;
    for (int v = maxno; v >= 1000; v /= 10)
        d->gutter++;
    build_rows(d);
}

void diff_free(diff_doc *d)
{
    for (int i = 0; i < d->nlines; i++)
        free(d->lines[i].text);
    free(d->lines);
    free(d->rows);
    memset(d, 0, sizeof *d);
}

int diff_row_count(const diff_doc *d, int side_by_side)
{
    return side_by_side ? d->nrows : d->nlines;
}

static int row_is_hunk(const diff_doc *d, int sbs, int row)
{
    int li = sbs ? d->rows[row].span : row;
    return li >= 0 && (d->lines[li].kind == '@' || d->lines[li].kind == 'F');
}

int diff_next_hunk(const diff_doc *d, int side_by_side, int from, int dir)
{
    int n = diff_row_count(d, side_by_side);
    for (int r = from; r >= 0 && r < n; r += dir)
        if (row_is_hunk(d, side_by_side, r))
            return r;
    return -1;
}

const char *diff_row_text(const diff_doc *d, int side_by_side, int row)
{
    if (!side_by_side)
        return d->lines[row].text;
    const diff_row *r = &d->rows[row];
    int li = r->span >= 0 ? r->span : r->right >= 0 ? r->right : r->left;
    return li >= 0 ? d->lines[li].text : "";
}

/* Draws line L (or a filler when NULL) into W columns at Y, X: gutter, marker, text with its
 * changed words emphasised, scrolled HS columns. USE_OLD picks the old line number. */
static void draw_half(const diff_doc *d, surface *s, const diff_line *l, int y, int x, int w, int hs, int use_old)
{
    int limit = x + w;
    if (!l) {
        surface_fill(s, y, x, w, ' ', TC_DIFF_FILLER);
        return;
    }
    char num[16] = "";
    int no = use_old ? l->old_no : l->new_no;
    if (no > 0)
        snprintf(num, sizeof num, "%*d", d->gutter, no);
    surface_fill(s, y, x, d->gutter, ' ', TC_DIFF_LINENO);
    surface_text_clip(s, y, x, limit, num, TC_DIFF_LINENO);
    int cx = x + d->gutter + 1;
    int base = l->kind == '+' ? TC_DIFF_ADD : l->kind == '-' ? TC_DIFF_DEL : TC_DIFF_CONTEXT;
    int emph = l->kind == '+' ? TC_DIFF_ADD_EMPH : TC_DIFF_DEL_EMPH;
    char marker[2] = {l->kind, 0};
    surface_text_clip(s, y, cx, limit, marker, l->kind == ' ' ? TC_DIFF_CONTEXT : TC_DIFF_MARKER);
    cx += 1;
    if (base != TC_DIFF_CONTEXT)
        surface_paint(s, y, cx, limit - cx, base);
    /* three pieces: before, changed, after; the skip of each follows the columns before it */
    const char *t = l->text;
    int lo = l->emph_lo, hi = l->emph_hi, skip = hs;
    char *pieces[3] = {xstrndup(t, (size_t)lo), xstrndup(t + lo, (size_t)(hi - lo)), xstrdup(t + hi)};
    int cls[3] = {base, hi > lo ? emph : base, base};
    for (int i = 0; i < 3 && cx < limit; i++) {
        int pw = tui_text_width(pieces[i]);
        if (skip >= pw) {
            skip -= pw;
            continue;
        }
        cx = surface_text(s, y, cx, limit, skip, pieces[i], cls[i]);
        skip = 0;
        if (cx >= limit)
            break;
    }
    for (int i = 0; i < 3; i++)
        free(pieces[i]);
}

void diff_draw(const diff_doc *d, surface *s, int y, int x, int h, int w, int top, int hscroll, int side_by_side)
{
    int n = diff_row_count(d, side_by_side);
    int half = (w - 1) / 2;
    for (int i = 0; i < h && top + i < n; i++) {
        int row = top + i;
        if (!side_by_side) {
            const diff_line *l = &d->lines[row];
            if (l->kind == '@' || l->kind == 'F')
                surface_text(s, y + i, x, x + w, hscroll, l->text, TC_DIFF_HUNK);
            else
                draw_half(d, s, l, y + i, x, w, hscroll, l->kind == '-');
            continue;
        }
        const diff_row *r = &d->rows[row];
        if (r->span >= 0) {
            surface_paint(s, y + i, x, w, TC_DIFF_HUNK);
            surface_text(s, y + i, x, x + w, 0, d->lines[r->span].text, TC_DIFF_HUNK);
            continue;
        }
        draw_half(d, s, r->left >= 0 ? &d->lines[r->left] : NULL, y + i, x, half, hscroll, 1);
        surface_fill(s, y + i, x + half, 1, s->g.vline, TC_BORDER);
        draw_half(d, s, r->right >= 0 ? &d->lines[r->right] : NULL, y + i, x + half + 1, w - half - 1, hscroll, 0);
    }
}
