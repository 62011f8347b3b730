/* test_tui.c - the workbench's pure modules: the layout over a sweep of sizes (no overlap, on the
 * screen, hidden rather than broken), diff pairing and word marks, key names, the config and theme
 * parsers (errors name FILE:LINE), colour downgrades, the surface and its dumps. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/columns.h"
#include "tui/conf.h"
#include "tui/diffview.h"
#include "tui/layout.h"
#include "tui/request.h"
#include "tui/surface.h"
#include "tui/theme.h"

static int overlap(const layout_rect *a, const layout_rect *b)
{
    return a->x < b->x + b->w && b->x < a->x + a->w && a->y < b->y + b->h && b->y < a->y + a->h;
}

static void test_layout_sweep(void **state)
{
    (void)state;
    for (int rows = 5; rows <= 100; rows += 1)
        for (int cols = 20; cols <= 300; cols += 7)
            for (int bottom = PANE_DIFF; bottom <= PANE_HISTORY; bottom++)
                for (int zoom = 0; zoom < 4; zoom++) {
                    static const int wants[] = {0, 60, 100, 400}; /* the table's width: any */
                    layout l = layout_compute(rows, cols, bottom, zoom & 1, wants[(rows + cols + zoom) % 4]);
                    if (rows < LAYOUT_MIN_ROWS || cols < LAYOUT_MIN_COLS) {
                        assert_true(l.too_small);
                        continue;
                    }
                    assert_false(l.too_small);
                    assert_true(l.pane[PANE_WORKLOADS].visible);
                    assert_true(l.pane[PANE_PROPOSALS].visible);
                    for (int p = 1; p < PANE_COUNT; p++) {
                        const layout_rect *r = &l.pane[p];
                        if (!r->visible)
                            continue;
                        assert_true(r->x >= 0 && r->y >= 1 && r->x + r->w <= cols && r->y + r->h <= rows - 2);
                        for (int q = p + 1; q < PANE_COUNT; q++)
                            if (l.pane[q].visible)
                                assert_false(overlap(r, &l.pane[q]));
                        if (l.sep_x >= 0 && r->y <= l.sep_y1 && r->y + r->h > l.sep_y0)
                            assert_true(l.sep_x < r->x || l.sep_x >= r->x + r->w);
                    }
                    if (!l.wide)
                        assert_true(l.pane[bottom].visible);
                }
}

/* A wide terminal's extra width goes to the right (log, proposals) once the table has what it wants;
 * the table gets what it wants between two fifths and two thirds of the width. */
static void test_layout_widths(void **state)
{
    (void)state;
    layout l = layout_compute(60, 200, PANE_LOG, 0, 80);
    assert_true(l.wide);
    assert_int_equal(l.pane[PANE_WORKLOADS].w, 80);
    assert_int_equal(l.pane[PANE_LOG].w, 119);
    assert_int_equal(l.pane[PANE_PROPOSALS].w, 119);
    assert_int_equal(layout_compute(60, 200, PANE_LOG, 0, 0).pane[PANE_WORKLOADS].w, 120);   /* unknown: 3/5 */
    assert_int_equal(layout_compute(60, 200, PANE_LOG, 0, 300).pane[PANE_WORKLOADS].w, 133); /* at most 2/3 */
    assert_int_equal(layout_compute(60, 200, PANE_LOG, 0, 20).pane[PANE_WORKLOADS].w, 80);   /* at least 2/5 */
    assert_int_equal(layout_compute(40, 120, PANE_LOG, 0, 100).pane[PANE_WORKLOADS].w, 80);
    assert_int_equal(layout_compute(40, 120, PANE_LOG, 0, 75).pane[PANE_WORKLOADS].w, 75);
}

/* Columns get what they want when it fits; otherwise the widest give way first, never below
 * their minimum. */
static void test_columns_fit(void **state)
{
    (void)state;
    int want[4] = {8, 40, 9, 20}, min[4] = {8, 6, 9, 6}, out[4];
    assert_int_equal(columns_fit(want, min, 4, 1, 100, out), 80);
    assert_memory_equal(out, want, sizeof want);
    assert_int_equal(columns_fit(want, min, 4, 1, 50, out), 50);
    int expect[4] = {8, 15, 9, 15};
    assert_memory_equal(out, expect, sizeof expect);
    assert_int_equal(columns_fit(want, min, 4, 1, 10, out), 32); /* the minimums do not fit */
    int mins[4] = {8, 6, 9, 6};
    assert_memory_equal(out, mins, sizeof mins);
}

static char *dump_text(const surface *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    surface_dump_text(s, f);
    fclose(f);
    return buf;
}

/* A row written column by column: cut cells end with the glyph, right alignment, and the row
 * scrolled sideways by SKIP columns. */
static void test_column_line(void **state)
{
    (void)state;
    surface s = {0};
    s.g = tui_glyphs_for(0);
    surface_resize(&s, 2, 24);
    for (int y = 0; y < 2; y++) {
        column_line l = column_line_start(&s, y, 1, 23, y == 0 ? 0 : 6);
        column_put(&l, "63d4cb66", 8, 0, TC_NORMAL, 1);
        column_put(&l, "batch_size=16", 6, 0, TC_NORMAL, 1);
        column_put(&l, "1.5x", 6, 1, TC_SPEEDUP_FASTER, 1);
        column_put(&l, "PASSED", 0, 0, TC_STATUS_PASSED, 0);
    }
    char *text = dump_text(&s);
    /* the first row ends at the pane's edge after the speedup; scrolled, the status is cut there */
    assert_string_equal(text, " 63d4cb66 batch~   1.5x\n 66 batch~   1.5x PASS~\n");
    free(text);
    surface_free(&s);
}

static const char *const patch =
    "--- a/k.c\n+++ b/k.c\n@@ -1,4 +1,5 @@\n int a;\n-#define LANES 1 /* knob */\n+#define LANES 2 /* knob */\n"
    " int b;\n-only deleted\n+added one\n+added two\n";

static void test_diff_pairs(void **state)
{
    (void)state;
    diff_doc d;
    diff_parse(patch, &d);
    assert_int_equal(d.nlines, 9); /* file, hunk, 7 lines */
    assert_int_equal(d.lines[0].kind, 'F');
    assert_int_equal(d.lines[3].kind, '-');
    assert_int_equal(d.lines[3].old_no, 2);
    assert_int_equal(d.lines[4].new_no, 2);
    /* the changed word of the pair: "1" -> "2" only */
    assert_string_equal(d.lines[3].text + d.lines[3].emph_lo, "1 /* knob */");
    assert_int_equal(d.lines[3].emph_hi - d.lines[3].emph_lo, 1);
    assert_int_equal(d.lines[4].emph_hi - d.lines[4].emph_lo, 1);
    /* rows: file, hunk, context, pair, context, pair, addition with a filler */
    assert_int_equal(d.nrows, 7);
    assert_int_equal(d.rows[3].left, 3);
    assert_int_equal(d.rows[3].right, 4);
    assert_int_equal(d.rows[6].left, -1);
    assert_int_equal(d.rows[6].right, 8);
    /* every line appears once, in order, on its side */
    int seen_left = -1, seen_right = -1;
    for (int r = 0; r < d.nrows; r++) {
        if (d.rows[r].left >= 0 && d.rows[r].left != d.rows[r].right)
            assert_true(d.rows[r].left > seen_left), seen_left = d.rows[r].left;
        if (d.rows[r].right >= 0 && d.rows[r].left != d.rows[r].right)
            assert_true(d.rows[r].right > seen_right), seen_right = d.rows[r].right;
    }
    assert_int_equal(diff_next_hunk(&d, 1, 0, 1), 0);
    assert_int_equal(diff_next_hunk(&d, 1, 2, 1), -1);
    surface s = {0};
    s.g = tui_glyphs_for(0);
    surface_resize(&s, 8, 60);
    diff_draw(&d, &s, 0, 0, 8, 60, 0, 0, 1);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    surface_dump_text(&s, f);
    fclose(f);
    assert_non_null(strstr(buf, "  2 -#define LANES 1 /* knob~|  2 +#define LANES 2 /* knob ~"));
    free(buf);
    surface_free(&s);
    diff_free(&d);
}

static void test_keys(void **state)
{
    (void)state;
    const char *names[] = {"<Enter>", "<Esc>", "<C-l>", "<F5>", "<S-Tab>", "j", "<PgDn>", "<lt>", "?"};
    int codes[] = {TUI_KEY_ENTER, TUI_KEY_ESC, 12, KEY_F(5), KEY_BTAB, 'j', KEY_NPAGE, '<', '?'};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        const char *p = names[i];
        assert_int_equal(key_parse(&p), codes[i]);
        assert_int_equal(*p, '\0');
    }
    const char *bad = "<Nope>";
    assert_int_equal(key_parse(&bad), -1);
    keymap km;
    keymap_defaults(&km);
    assert_int_equal(keymap_lookup(&km, PANE_DIFF, 'a'), REQ_ACCEPT);
    assert_int_equal(keymap_lookup(&km, 0, 'x'), REQ_REJECT);
    assert_int_equal(keymap_lookup(&km, 0, KEY_F(1)), REQ_HELP);
    char buf[64];
    assert_string_equal(keymap_keys_of(&km, REQ_UNDO, buf, sizeof buf), "u z");
}

static void test_config(void **state)
{
    (void)state;
    tui_config c;
    config_init(&c);
    config_apply_text(&c, "test.conf",
                      "set diff-mode = unified\nbind diff x accept\nset nope = 1\ncolor diff-add green default bold\n"
                      "bind generic <Bad> quit\ncolor no-such red default\n",
                      0);
    assert_string_equal(c.diff_mode, "unified");
    assert_int_equal(keymap_lookup(&c.keys, PANE_DIFF, 'x'), REQ_ACCEPT);
    assert_int_equal(keymap_lookup(&c.keys, PANE_LOG, 'x'), REQ_REJECT);
    assert_int_equal(c.nerrors, 3);
    assert_non_null(strstr(c.errors.s, "test.conf:3: set: unknown option 'nope'"));
    assert_non_null(strstr(c.errors.s, "test.conf:5: bind: unknown key '<Bad>'"));
    assert_non_null(strstr(c.errors.s, "test.conf:6: color: unknown class 'no-such'"));
    assert_int_equal(c.ncolors, 1);
    config_free(&c);
    /* the shipped default parses cleanly */
    config_init(&c);
    config_apply_text(&c, "kwb.conf", tui_default_config, 0);
    assert_int_equal(c.nerrors, 0);
    config_free(&c);
}

static void test_themes(void **state)
{
    (void)state;
    const char *names[] = {"default-256", "default-8", "mono"};
    int need[] = {256, 8, 0};
    for (int i = 0; i < 3; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/themes/%s.theme", TOP_SRCDIR, names[i]);
        theme t;
        kwb_error err = {{0}};
        assert_int_equal(theme_load_file(path, &t, &err), 0);
        assert_int_equal(t.need_colors, need[i]);
    }
    theme t;
    kwb_error err = {{0}};
    assert_int_equal(theme_pick(TOP_SRCDIR "/themes", "default-256 default-8 mono", 8, 0, &t, &err), 0);
    assert_string_equal(t.name, "default-8");
    assert_int_equal(theme_pick(TOP_SRCDIR "/themes", "default-256 default-8 mono", 256, 0, &t, &err), 0);
    assert_string_equal(t.name, "default-256");
    assert_int_equal(theme_pick(TOP_SRCDIR "/themes", "default-256", 256, 1, &t, &err), 0);
    assert_string_equal(t.name, "mono");
    assert_true(t.style[TC_DIFF_ADD_EMPH].attrs & TA_REVERSE);
    int bold;
    assert_int_equal(theme_downgrade(-1, 8, &bold), -1);
    assert_int_equal(theme_downgrade(9, 8, &bold), 1); /* bright red: red and bold */
    assert_true(bold);
    assert_int_equal(theme_downgrade(196, 8, &bold), 1);
    assert_int_equal(theme_downgrade(28, 8, &bold), 2);
    assert_int_equal(theme_downgrade(28, 256, &bold), 28);
}

static void test_surface(void **state)
{
    (void)state;
    surface s = {0};
    s.g = tui_glyphs_for(1);
    surface_resize(&s, 2, 10);
    surface_text(&s, 0, 0, 10, 0, "héllo wide words", TC_DIFF_ADD);
    surface_text(&s, 1, 2, 6, 2, "abcdef", TC_LOG_ERROR);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    surface_dump_text(&s, f);
    surface_dump_attrs(&s, f);
    fclose(f);
    assert_string_equal(buf, "héllo wid…\n  cdef\n0: 0-9 diff-add\n1: 2-5 log-error\n");
    free(buf);
    assert_int_equal(tui_text_width("h\xc3\xa9"), 2);
    surface_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout_sweep),  cmocka_unit_test(test_diff_pairs),  cmocka_unit_test(test_keys),
        cmocka_unit_test(test_config),        cmocka_unit_test(test_themes),      cmocka_unit_test(test_surface),
        cmocka_unit_test(test_layout_widths), cmocka_unit_test(test_columns_fit), cmocka_unit_test(test_column_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
