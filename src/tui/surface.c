/* surface.c - the cell grid every pane draws into (see surface.h). */
#define _GNU_SOURCE
#include "tui/surface.h"

#include <stdlib.h>

#include <string.h>
#include <wchar.h>

#include "tui/theme_classes.h"
#include "xalloc.h"

tui_glyphs tui_glyphs_for(int utf8)
{
    if (utf8)
        return (tui_glyphs){0x2502, 0x2500, 0x253c, 0x2026, 0x2588, 0x258c, 0x25b2, 0x25bc};
    return (tui_glyphs){'|', '-', '+', '~', '#', '=', '^', 'v'};
}

void surface_resize(surface *s, int rows, int cols)
{
    s->rows = rows < 1 ? 1 : rows;
    s->cols = cols < 1 ? 1 : cols;
    free(s->cells);
    s->cells = xcalloc((size_t)s->rows * (size_t)s->cols, sizeof *s->cells);
    surface_clear(s);
}

void surface_free(surface *s)
{
    free(s->cells);
    s->cells = NULL;
    s->rows = s->cols = 0;
}

void surface_clear(surface *s)
{
    for (int i = 0; i < s->rows * s->cols; i++)
        s->cells[i] = (tui_cell){' ', TC_NORMAL};
}

void surface_fill(surface *s, int y, int x, int w, uint32_t ch, int cls)
{
    if (y < 0 || y >= s->rows)
        return;
    for (int i = x < 0 ? 0 : x; i < x + w && i < s->cols; i++)
        s->cells[y * s->cols + i] = (tui_cell){ch, (uint8_t)cls};
}

void surface_paint(surface *s, int y, int x, int w, int cls)
{
    if (y < 0 || y >= s->rows)
        return;
    for (int i = x < 0 ? 0 : x; i < x + w && i < s->cols; i++)
        s->cells[y * s->cols + i].cls = (uint8_t)cls;
}

int tui_utf8_decode(const char *p, uint32_t *cp)
{
    const unsigned char *u = (const unsigned char *)p;
    int n = u[0] < 0x80 ? 1 : (u[0] & 0xe0) == 0xc0 ? 2 : (u[0] & 0xf0) == 0xe0 ? 3 : (u[0] & 0xf8) == 0xf0 ? 4 : 0;
    if (n == 1) {
        *cp = u[0];
        return 1;
    }
    if (n == 0)
        goto bad;
    uint32_t v = u[0] & (0x7f >> n);
    for (int i = 1; i < n; i++) {
        if ((u[i] & 0xc0) != 0x80)
            goto bad;
        v = (v << 6) | (u[i] & 0x3f);
    }
    *cp = v;
    return n;
bad:
    *cp = '?';
    return 1;
}

int tui_utf8_encode(uint32_t cp, char *out)
{
    int n;
    if (cp < 0x80)
        out[0] = (char)cp, n = 1;
    else if (cp < 0x800)
        out[0] = (char)(0xc0 | (cp >> 6)), out[1] = (char)(0x80 | (cp & 0x3f)), n = 2;
    else if (cp < 0x10000)
        out[0] = (char)(0xe0 | (cp >> 12)), out[1] = (char)(0x80 | ((cp >> 6) & 0x3f)),
        out[2] = (char)(0x80 | (cp & 0x3f)), n = 3;
    else
        out[0] = (char)(0xf0 | (cp >> 18)), out[1] = (char)(0x80 | ((cp >> 12) & 0x3f)),
        out[2] = (char)(0x80 | ((cp >> 6) & 0x3f)), out[3] = (char)(0x80 | (cp & 0x3f)), n = 4;
    out[n] = '\0';
    return n;
}

/* Columns a code point takes: 0..2 (control characters are shown as one '?'). */
static int cp_width(uint32_t cp)
{
    if (cp < 0x20 || cp == 0x7f)
        return 1;
    if (cp < 0x7f)
        return 1;
    int w = wcwidth((wchar_t)cp);
    return w < 0 ? 1 : w;
}

int tui_text_width(const char *text)
{
    int w = 0;
    while (*text) {
        uint32_t cp;
        text += tui_utf8_decode(text, &cp);
        w += cp_width(cp);
    }
    return w;
}

static int put_text(surface *s, int y, int x, int limit, int skip, const char *text, int cls, int mark)
{
    if (y < 0 || y >= s->rows)
        return x;
    if (limit > s->cols)
        limit = s->cols;
    int col = 0;
    while (*text && x < limit) {
        uint32_t cp;
        text += tui_utf8_decode(text, &cp);
        if (cp < 0x20 || cp == 0x7f)
            cp = cp == '\t' ? ' ' : '?';
        int w = cp_width(cp);
        if (col < skip) {
            col += w;
            continue;
        }
        col += w;
        if (x + w > limit || (mark && *text && x + w == limit)) {
            if (mark)
                s->cells[y * s->cols + limit - 1] = (tui_cell){s->g.trunc, (uint8_t)cls};
            return limit;
        }
        if (x >= 0) {
            s->cells[y * s->cols + x] = (tui_cell){cp, (uint8_t)cls};
            if (w == 2)
                s->cells[y * s->cols + x + 1] = (tui_cell){0, (uint8_t)cls};
        }
        x += w;
    }
    return x;
}

int surface_text(surface *s, int y, int x, int limit, int skip, const char *text, int cls)
{
    return put_text(s, y, x, limit, skip, text, cls, 1);
}

int surface_text_clip(surface *s, int y, int x, int limit, const char *text, int cls)
{
    return put_text(s, y, x, limit, 0, text, cls, 0);
}

void surface_dump_text(const surface *s, FILE *f)
{
    char buf[8];
    for (int y = 0; y < s->rows; y++) {
        int end = s->cols;
        while (end > 0 && s->cells[y * s->cols + end - 1].ch == ' ')
            end--;
        for (int x = 0; x < end; x++) {
            uint32_t ch = s->cells[y * s->cols + x].ch;
            if (ch == 0)
                continue;
            tui_utf8_encode(ch, buf);
            fputs(buf, f);
        }
        fputc('\n', f);
    }
}

void surface_dump_attrs(const surface *s, FILE *f)
{
    for (int y = 0; y < s->rows; y++) {
        const tui_cell *row = s->cells + y * s->cols;
        int printed = 0;
        for (int x = 0; x < s->cols;) {
            int cls = row[x].cls, end = x;
            while (end < s->cols && row[end].cls == cls)
                end++;
            if (cls != TC_NORMAL) {
                if (!printed)
                    fprintf(f, "%d:", y);
                fprintf(f, " %d-%d %s", x, end - 1, tui_class_name(cls));
                printed = 1;
            }
            x = end;
        }
        if (printed)
            fputc('\n', f);
    }
}
