/* layout.h - where the panes go: a pure function from the terminal size, the focused pane and
 * the pane shown in the shared bottom slot to rectangles. Panes never overlap, stay on the
 * screen, and hide rather than break; below the minimum size nothing but a notice is shown. */
#ifndef KWB_TUI_LAYOUT_H
#define KWB_TUI_LAYOUT_H

/* The panes, numbered as their key-binding scopes (0 is the generic scope). */
enum { PANE_NONE = 0, PANE_WORKLOADS, PANE_BOTTLENECK, PANE_PROPOSALS, PANE_DIFF, PANE_LOG, PANE_HISTORY, PANE_COUNT };

#define LAYOUT_MIN_COLS 80
#define LAYOUT_MIN_ROWS 24

/* A pane's rectangle: its title row is Y, its content rows Y+1 .. Y+H-1. */
typedef struct layout_rect {
    int y, x, h, w;
    int visible;
} layout_rect;

typedef struct layout {
    int rows, cols;
    int too_small; /* only the "terminal too small" line is drawn */
    int wide;      /* every pane has its own place */
    int title_row, status_row, keybar_row;
    layout_rect pane[PANE_COUNT];
    int sep_x, sep_y0, sep_y1; /* the vertical separator in the wide layout (sep_x -1: none) */
} layout;

/* The pane name as bindings and dumps write it ("workloads"); index 0 is "generic". */
extern const char *const layout_pane_names[PANE_COUNT + 1];
/* Computes the layout for ROWS x COLS; narrow layouts show BOTTOM (diff, log or history) in the
 * shared slot; wide layouts with DIFF_ZOOM give the diff the whole width (history and log hide).
 * WANT_LEFT is the width the workloads table's content takes (0: unknown): a wide layout's left
 * column gets that, between two fifths and two thirds of the width, the right column the rest. */
layout layout_compute(int rows, int cols, int bottom, int diff_zoom, int want_left);

#endif
