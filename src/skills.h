/* skills.h - playbooks of bounded optimization directions (skills/NAME.md, DESIGN.md section
 * 10). A skill file is Markdown for people with a small machine-readable part:
 *
 *   ---                               front matter: `key: value` lines
 *   skill: gdn                        required, the skill's id
 *   title: ...                        required
 *   definitions: a, b                 optional: the definitions it is about (none: all)
 *   references: DIR, DIR              optional: folders of existing kernels to search first
 *                                     (relative to the skill file's folder; src/recon.h)
 *   ---
 *   ... prose ...
 *   ```kwb-direction                  one fenced block per direction
 *   id: gdn.vector-state              required, unique over all skills
 *   title: ...                        required
 *   applies: memory-bound, ...        bottleneck classes (or `any`), or `failing`: a fix
 *                                     for a best that fails a check (a replay, a workload)
 *   regimes: decode.large, ...        optional regime names (none: every regime)
 *   scope: kernels/x/cuda/GLOB        files the direction may touch (globs), required
 *   keywords: float4, coalesced       optional: what reconnaissance searches the references for
 *   ```
 *   guidance: the text after the block up to the next heading of level 1 or 2
 *
 * Errors name the file and line. */
#ifndef KWB_SKILLS_H
#define KWB_SKILLS_H

#include <stddef.h>

#include "error.h"

/* A comma-separated list, split and trimmed. */
typedef struct skill_list {
    char **items;
    int n;
} skill_list;

typedef struct skill_direction {
    char *id;
    char *title;
    skill_list applies;  /* bottleneck classes; "any" matches every class; "failing" a failing best */
    skill_list regimes;  /* empty: every regime */
    skill_list scope;    /* globs of files the direction may touch */
    char *guidance;      /* Markdown for the agent */
    skill_list keywords; /* reconnaissance search words; empty: from the id and title */
    char *file;          /* where it is declared */
    int line;            /* line of its fence */
} skill_direction;

typedef struct skill {
    char *path;
    char *id;
    char *title;
    skill_list definitions; /* empty: applies to every definition */
    skill_list references;  /* reference folders, as written (relative to the skill file's folder) */
    skill_direction *dirs;
    int ndirs;
} skill;

typedef struct skill_set {
    skill *skills;
    int n;
} skill_set;

/* The bottleneck classes a direction may name in `applies`. */
extern const char *const skills_classes[];

/* Parses TEXT (LEN bytes) of the skill file LABEL into *out. Returns 0, or -1 with *err set
 * to "LABEL:LINE: problem". */
int skills_parse(const char *text, size_t len, const char *label, skill *out, kwb_error *err);
/* Loads every *.md with front matter under DIR (README.md and files without a `---` first
 * line are skipped) in name order into *set; direction ids must be unique over the set.
 * Returns 0, or -1 with *err set (and *set empty). */
int skills_load_dir(const char *dir, skill_set *set, kwb_error *err);
/* The direction ID in SET, or NULL. */
const skill_direction *skills_find(const skill_set *set, const char *id);
/* Nonzero when direction D applies to definition DEFINITION, bottleneck class CLASS and
 * regime REGIME (NULL: any). */
int skills_applies(const skill *s, const skill_direction *d, const char *definition, const char *class,
                   const char *regime);
/* Frees what s and set own; NULL is allowed. */
void skills_free(skill *s);
void skills_set_free(skill_set *set);

#endif
