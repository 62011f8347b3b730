/* help.h - the help screen's text and the ':' prompt's completion, both generated from the
 * request table (request.h, with the user's bindings) and the table of ':' commands (command.h), so the
 * help lists every request and every command with its arguments, grouped. */
#ifndef KWB_TUI_HELP_H
#define KWB_TUI_HELP_H

#include <stddef.h>

#include "tui/request.h"

/* The help's lines for keymap KM into *lines (free with help_free); returns their count. */
int help_build(const keymap *km, char ***lines);
/* TEXT cut into lines of at most WIDTH columns at blanks (its own newlines kept) into *lines
 * (free with help_free); returns their count. */
int help_wrap(const char *text, int width, char ***lines);
/* Frees lines from help_build or help_wrap. */
void help_free(char **lines, int n);
/* Completes the ':' prompt's INPUT in place (CAP bytes): the command or request name being
 * typed, or the option after "set "; writes the choices left into CHOICES (CHOICES_CAP bytes,
 * "" when one was completed). Returns how many names matched. */
int help_complete(char *input, size_t cap, char *choices, size_t choices_cap);

#endif
