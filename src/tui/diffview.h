/* diffview.h - a unified diff read into lines and paired rows for the diff pane: deletions are
 * paired with the additions that follow them, the changed words of a pair are marked, line numbers
 * are kept for each side. Drawn side by side (both halves scroll together) or unified. */
#ifndef KWB_TUI_DIFFVIEW_H
#define KWB_TUI_DIFFVIEW_H

#include "tui/surface.h"

typedef struct diff_line {
    char kind;            /* ' ' context, '-' deleted, '+' added, '@' hunk header, 'F' file header */
    char *text;           /* without the marker */
    int old_no, new_no;   /* 0 when the side has none */
    int emph_lo, emph_hi; /* bytes of text that changed against its pair; lo == hi: none */
} diff_line;

/* A side-by-side row: a line index for each half (-1: filler), or SPAN for a header line across both. */
typedef struct diff_row {
    int left, right, span;
} diff_row;

typedef struct diff_doc {
    diff_line *lines;
    int nlines;
    diff_row *rows;
    int nrows;
    int gutter; /* digits of the largest line number (at least 3) */
} diff_doc;

/* Reads unified diff TEXT into D (free with diff_free); an empty text gives an empty document. */
void diff_parse(const char *text, diff_doc *d);
/* Frees what D holds and empties it. */
void diff_free(diff_doc *d);
/* Rows the document takes in MODE (1 side by side, 0 unified). */
int diff_row_count(const diff_doc *d, int side_by_side);
/* Index of the first hunk header at or after row FROM (DIR 1) or before it (DIR -1); -1 when none. */
int diff_next_hunk(const diff_doc *d, int side_by_side, int from, int dir);
/* Text of row ROW (for search): the line of the right half, else the left. */
const char *diff_row_text(const diff_doc *d, int side_by_side, int row);
/* Draws rows TOP.. into the H x W rectangle at Y, X of S, scrolled HSCROLL columns. */
void diff_draw(const diff_doc *d, surface *s, int y, int x, int h, int w, int top, int hscroll, int side_by_side);

#endif
