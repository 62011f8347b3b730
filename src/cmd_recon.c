/* cmd_recon.c - `kwb recon DIRECTION`: finds DIRECTION in the skills, gathers its reference
 * folders (the skill's `references:`, --ref, the configuration's `agent.[NAME.]references`, and with
 * --definition the shipped kernels of that definition), searches them (src/recon.h) and prints
 * what a round would put into the prompt. */
#include "cmd_recon.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agentcfg.h"
#include "paths.h"
#include "recon.h"
#include "skills.h"
#include "xalloc.h"
#include "suggest.h"

static void recon_usage(FILE *f)
{
    fputs("usage: kwb recon DIRECTION [--definition NAME] [--ref DIR]... [--skills DIR] [--keywords A,B,...]\n"
          "                 [--agent NAME] [--max-hits N] [--context N]\n",
          f);
}

static void add(char ***v, int *n, char *s)
{
    *v = xrealloc(*v, (size_t)(*n + 1) * sizeof **v);
    (*v)[(*n)++] = s;
}

/* The command line. */
typedef struct recon_args {
    const char *id, *definition, *skills_dir, *keywords, *agent;
    char **refs; /* --ref folders, then the others gathered */
    int nrefs;
    recon_limits lim;
} recon_args;

/* Parses ARGV into *A; 0, 1 for --help (done), or 2 (said). */
static int parse_recon_args(int argc, char **argv, recon_args *a)
{
    static const struct option opts[] = {
        {"definition", required_argument, NULL, 'd'},
        {"ref", required_argument, NULL, 'r'},
        {"skills", required_argument, NULL, 's'},
        {"keywords", required_argument, NULL, 'k'},
        {"max-hits", required_argument, NULL, 'm'},
        {"context", required_argument, NULL, 'c'},
        {"agent", required_argument, NULL, 'a'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    *a = (recon_args){.agent = "openai", .lim = recon_limits_default()};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'd': a->definition = optarg; break;
        case 'r': add(&a->refs, &a->nrefs, xstrdup(optarg)); break;
        case 's': a->skills_dir = optarg; break;
        case 'k': a->keywords = optarg; break;
        case 'a': a->agent = optarg; break;
        case 'm':
        case 'c': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < (c == 'm' ? 1 : 0) || v > 1000) {
                fprintf(stderr, "kwb recon: --%s: '%s' is not a whole number from %d to 1000\n",
                        c == 'm' ? "max-hits" : "context", optarg, c == 'm' ? 1 : 0);
                return 2;
            }
            *(c == 'm' ? &a->lim.max_hits : &a->lim.context_lines) = (int)v;
            break;
        }
        case 'h': recon_usage(stdout); return 1;
        default:
            suggest_bad_option("recon", argv, opts);
            recon_usage(stderr);
            return 2;
        }
    }
    if (optind + 1 != argc) {
        fprintf(stderr, "kwb recon: %s\n", optind < argc ? "one DIRECTION only" : "which DIRECTION?");
        recon_usage(stderr);
        return 2;
    }
    a->id = argv[optind];
    return 0;
}

/* Direction ID in SET and, in *owner, its skill; NULL when there is none. */
static const skill_direction *find_direction(const skill_set *set, const char *id, const skill **owner)
{
    *owner = NULL;
    for (int i = 0; i < set->n; i++)
        for (int j = 0; j < set->skills[i].ndirs; j++)
            if (!strcmp(set->skills[i].dirs[j].id, id)) {
                *owner = &set->skills[i];
                return &set->skills[i].dirs[j];
            }
    return NULL;
}

/* Adds the folders of the skill OWNER, of the agent configuration and of --definition to A's. */
static void gather_references(recon_args *a, const skill *owner)
{
    if (owner)
        recon_skill_references(owner, &a->refs, &a->nrefs);
    /* the agent configuration's `agent.[NAME.]references`, as a round of that agent would use */
    agent_config cfg;
    kwb_error err = {{0}};
    if (agentcfg_load_default(a->agent, &cfg, &err) == 0) {
        const char *conf = agentcfg_value(&cfg, "references");
        if (conf)
            recon_split_list(conf, &a->refs, &a->nrefs);
        agentcfg_free(&cfg);
    } else {
        fprintf(stderr, "kwb recon: %s (its references are left out)\n", err.msg);
    }
    if (a->definition) {
        char *data = paths_dataset();
        add(&a->refs, &a->nrefs, xasprintf("%s/../kernels/%s", data, a->definition));
        free(data);
    }
}

/* Searches A's folders for the keywords of D (or --keywords) and prints what was found; the
 * exit status. */
static int search_and_print(const recon_args *a, const skill_direction *d)
{
    char **kw = NULL;
    int nkw = 0;
    if (a->keywords)
        recon_split_list(a->keywords, &kw, &nkw);
    else
        nkw = recon_keywords(d, NULL, NULL, &kw);
    recon_result r;
    kwb_error err = {{0}};
    int code = 0;
    if (recon_search((const char *const *)a->refs, a->nrefs, kw, nkw, &a->lim, &r, &err) != 0) {
        fprintf(stderr, "kwb recon: %s\n", err.msg);
        code = 1;
    } else {
        strbuf out;
        strbuf_init(&out);
        printf("direction: %s%s%s\n", a->id, d ? ": " : "", d ? d->title : "");
        recon_format(&r, (size_t)1 << 20, &out);
        fputs(out.s, stdout);
        strbuf_free(&out);
        if (a->nrefs == 0)
            fprintf(stderr, "kwb recon: no reference folder named (the skill's references:, --ref or --definition)\n");
        code = r.nconsulted == 0 ? 1 : 0;
        recon_result_free(&r);
    }
    recon_words_free(kw, nkw);
    return code;
}

int cmd_recon(int argc, char **argv)
{
    recon_args a;
    int code = parse_recon_args(argc, argv, &a);
    if (code != 0) {
        recon_words_free(a.refs, a.nrefs);
        return code == 1 ? 0 : code;
    }
    char *sdir = a.skills_dir ? xstrdup(a.skills_dir) : paths_skills();
    skill_set set = {0};
    kwb_error err = {{0}};
    const skill *owner = NULL;
    const skill_direction *d = NULL;
    if (skills_load_dir(sdir, &set, &err) != 0)
        fprintf(stderr, "kwb recon: %s\n", err.msg);
    else
        d = find_direction(&set, a.id, &owner);
    if (!d && !a.keywords) {
        fprintf(stderr, "kwb recon: no direction '%s' in the skills of %s (give --keywords to search anyway)\n", a.id,
                sdir);
        code = 2;
    } else {
        gather_references(&a, owner);
        code = search_and_print(&a, d);
    }
    recon_words_free(a.refs, a.nrefs);
    skills_set_free(&set);
    free(sdir);
    return code;
}
