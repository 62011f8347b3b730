/* words.h - splitting a config, theme or script line into words: blanks separate, "double
 * quotes" group (with \" and \\ inside), an unquoted # starts a comment. */
#ifndef KWB_TUI_WORDS_H
#define KWB_TUI_WORDS_H

/* Splits LINE in place into at most MAX words stored in W; returns how many. */
int words_split(char *line, char **w, int max);

#endif
