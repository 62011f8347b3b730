/* recon.h - reference-first reconnaissance (DESIGN.md section 11; the paper's rule: adapt
 * existing kernels before writing new ones). Reference folders (checkouts of kernel libraries,
 * earlier sessions' promoted kernels), named in the configuration, on the command line or in a
 * skill's `references:` front matter, are searched with PCRE2 for a direction's keywords; the
 * hits (file, line, a few lines of context) go to the human and into the prompt. */
#ifndef KWB_RECON_H
#define KWB_RECON_H

#include <stddef.h>

#include "error.h"
#include "skills.h"
#include "strbuf.h"

/* One matching line. */
typedef struct recon_hit {
    char *file;    /* path as found (reference folder + relative path) */
    int line;      /* 1-based */
    char *context; /* the lines around it, each "NNNN| text\n", the hit marked with '>' */
} recon_hit;

/* What one search found. */
typedef struct recon_result {
    char **keywords; /* the words searched for */
    int nkeywords;
    char **consulted; /* the reference folders searched (missing ones are left out) */
    int nconsulted;
    char **missing; /* reference folders that could not be read */
    int nmissing;
    recon_hit *hits; /* best files first: most distinct keywords, then most hits */
    int nhits;
    int files_scanned;
} recon_result;

/* Search limits. */
typedef struct recon_limits {
    int max_hits;          /* over all files (default 12) */
    int max_per_file;      /* (default 3) */
    int context_lines;     /* each side of a hit (default 2) */
    size_t max_file_bytes; /* larger files are skipped (default 1 MiB) */
} recon_limits;

/* The defaults above. */
recon_limits recon_limits_default(void);

/* The keywords for direction D: its `keywords:` when given, else the words of its id and title
 * (lower case, three letters or more, common words left out). Returns the count; *out owns
 * strings freed with recon_words_free(). D may be NULL with ID and TITLE given instead. */
int recon_keywords(const skill_direction *d, const char *id, const char *title, char ***out);
/* Frees a word list. */
void recon_words_free(char **w, int n);
/* Appends the items of the comma-separated LIST (trimmed, empty ones left out) to *v[*n]; the
 * caller frees them with recon_words_free. */
void recon_split_list(const char *list, char ***v, int *n);

/* The reference folders of skill S, resolved against the folder of its file; appended to
 * *dirs[*n] (the caller frees them with recon_words_free). */
void recon_skill_references(const skill *s, char ***dirs, int *n);

/* Searches the text files (no NUL byte in their first 4 KiB; `.git` left out) below each of
 * DIRS for any of KEYWORDS (caseless, whole words, one PCRE2 pattern). Returns 0, or -1 with *err set when the pattern
 * cannot be compiled; unreadable folders are listed in out->missing, not errors. Free with recon_result_free(). */
int recon_search(const char *const *dirs, int ndirs, char *const *keywords, int nkeywords, const recon_limits *lim,
                 recon_result *out, kwb_error *err);
/* Frees what R owns. */
void recon_result_free(recon_result *r);

/* Appends R as text (the keywords, the folders consulted, each hit with its context) to OUT,
 * at most BUDGET bytes (the hits that do not fit are counted, not cut mid-way). */
void recon_format(const recon_result *r, size_t budget, strbuf *out);

#endif
