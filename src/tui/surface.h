/* surface.h - the screen as a grid of cells (a character and a semantic class). Every pane draws
 * into a surface; the terminal front end copies changed rows to curses, and script mode dumps the
 * surface itself, so the same drawing code serves both and tests need no terminal. */
#ifndef KWB_TUI_SURFACE_H
#define KWB_TUI_SURFACE_H

#include <stdint.h>
#include <stdio.h>

/* One cell: a Unicode code point (0 for the right half of a double-width character) and a class. */
typedef struct tui_cell {
    uint32_t ch;
    uint8_t cls;
} tui_cell;

/* The line-graphics set in use (TUI-NOTES section 4). */
typedef struct tui_glyphs {
    uint32_t vline, hline, cross, trunc, bar_full, bar_half, up, down;
} tui_glyphs;

typedef struct surface {
    int rows, cols;
    tui_cell *cells; /* rows * cols, row major */
    tui_glyphs g;
} surface;

/* The glyphs for UTF-8 (1) or ASCII (0). */
tui_glyphs tui_glyphs_for(int utf8);
/* Sizes S to ROWS x COLS (at least 1 x 1) and blanks it; the glyph set is kept. */
void surface_resize(surface *s, int rows, int cols);
/* Frees the cells. */
void surface_free(surface *s);
/* Blanks every cell (space, class normal). */
void surface_clear(surface *s);
/* Fills W cells of row Y from column X with CH in class CLS (clipped to the surface). */
void surface_fill(surface *s, int y, int x, int w, uint32_t ch, int cls);
/* Sets the class of W cells of row Y from X, leaving the characters. */
void surface_paint(surface *s, int y, int x, int w, int cls);
/* Writes UTF-8 TEXT at row Y from column X in class CLS, skipping the first SKIP columns of the text
 * (horizontal scroll) and stopping before column LIMIT; a text cut at LIMIT ends with the truncation
 * glyph. Control characters show as '?', tabs as spaces. Returns the column after the last cell written. */
int surface_text(surface *s, int y, int x, int limit, int skip, const char *text, int cls);
/* Same without a truncation mark (for text that may be cut silently). */
int surface_text_clip(surface *s, int y, int x, int limit, const char *text, int cls);
/* Display width of UTF-8 TEXT in columns (tabs count 1; invalid bytes count 1 each). */
int tui_text_width(const char *text);
/* Decodes one UTF-8 code point at P into *cp; returns the bytes used (1 for an invalid byte, which
 * decodes to '?'). */
int tui_utf8_decode(const char *p, uint32_t *cp);
/* Encodes CP as UTF-8 into OUT (at least 5 bytes, NUL-terminated); returns its length. */
int tui_utf8_encode(uint32_t cp, char *out);
/* Writes each row of S as text, trailing blanks trimmed. */
void surface_dump_text(const surface *s, FILE *f);
/* Writes each row's runs of classes other than "normal": "Y: X0-X1 class ...". */
void surface_dump_attrs(const surface *s, FILE *f);

#endif
