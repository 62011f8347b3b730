/* state.h - what the workbench remembers between runs (never the user's config): the focused pane,
 * the table's sort and filter, in $XDG_STATE_HOME/kwb/state (~/.local/state/kwb/state), written
 * atomically (mkstemp, fsync, rename; folder 0700, file 0600). A file of a newer version or one that
 * does not parse is set aside and the defaults are used. */
#ifndef KWB_TUI_STATE_H
#define KWB_TUI_STATE_H

#include "tui/workbench.h"

/* Applies the saved state to A (nothing when there is none). */
void state_load(tui_app *a);
/* Saves A's state; returns 0, or -1 when it could not be written (the workbench goes on). */
int state_save(const tui_app *a);

#endif
