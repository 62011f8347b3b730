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

/* Splits a comma list into *v. */
static void add_list(char ***v, int *n, const char *list)
{
    char *copy = xstrdup(list), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        while (*t == ' ')
            t++;
        size_t len = strlen(t);
        while (len && t[len - 1] == ' ')
            t[--len] = '\0';
        if (*t)
            add(v, n, xstrdup(t));
    }
    free(copy);
}

int cmd_recon(int argc, char **argv)
{
    static const struct option opts[] = {
        {"definition", required_argument, NULL, 'd'}, {"ref", required_argument, NULL, 'r'},
        {"skills", required_argument, NULL, 's'},     {"keywords", required_argument, NULL, 'k'},
        {"max-hits", required_argument, NULL, 'm'},   {"context", required_argument, NULL, 'c'},
        {"agent", required_argument, NULL, 'a'},      {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *definition = NULL, *skills_dir = NULL, *keywords = NULL, *agent = "openai";
    char **refs = NULL;
    int nrefs = 0, c;
    recon_limits lim = recon_limits_default();
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'd': definition = optarg; break;
        case 'r': add(&refs, &nrefs, xstrdup(optarg)); break;
        case 's': skills_dir = optarg; break;
        case 'k': keywords = optarg; break;
        case 'a': agent = optarg; break;
        case 'm':
        case 'c': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < (c == 'm' ? 1 : 0) || v > 1000) {
                fprintf(stderr, "kwb recon: --%s: '%s' is not a whole number from %d to 1000\n",
                        c == 'm' ? "max-hits" : "context", optarg, c == 'm' ? 1 : 0);
                recon_words_free(refs, nrefs);
                return 2;
            }
            *(c == 'm' ? &lim.max_hits : &lim.context_lines) = (int)v;
            break;
        }
        case 'h': recon_usage(stdout); recon_words_free(refs, nrefs); return 0;
        default: recon_usage(stderr); recon_words_free(refs, nrefs); return 2;
        }
    }
    if (optind + 1 != argc) {
        fprintf(stderr, "kwb recon: %s\n", optind < argc ? "one DIRECTION only" : "which DIRECTION?");
        recon_usage(stderr);
        recon_words_free(refs, nrefs);
        return 2;
    }
    const char *id = argv[optind];
    char *sdir = skills_dir ? xstrdup(skills_dir) : paths_skills();
    skill_set set = {0};
    kwb_error err = {{0}};
    const skill_direction *d = NULL;
    const skill *owner = NULL;
    if (skills_load_dir(sdir, &set, &err) != 0) {
        fprintf(stderr, "kwb recon: %s\n", err.msg);
    } else if ((d = skills_find(&set, id)) != NULL) {
        for (int i = 0; i < set.n && !owner; i++)
            for (int j = 0; j < set.skills[i].ndirs; j++)
                if (&set.skills[i].dirs[j] == d)
                    owner = &set.skills[i];
    }
    if (!d && !keywords) {
        fprintf(stderr, "kwb recon: no direction '%s' in the skills of %s (give --keywords to search anyway)\n", id, sdir);
        free(sdir);
        skills_set_free(&set);
        recon_words_free(refs, nrefs);
        return 2;
    }
    if (owner)
        recon_skill_references(owner, &refs, &nrefs);
    /* the agent configuration's `agent.[NAME.]references`, as a round of that agent would use */
    agent_config cfg;
    kwb_error cerr = {{0}};
    if (agentcfg_load_default(agent, &cfg, &cerr) == 0) {
        const char *conf = agentcfg_value(&cfg, "references");
        if (conf)
            add_list(&refs, &nrefs, conf);
        agentcfg_free(&cfg);
    } else {
        fprintf(stderr, "kwb recon: %s (its references are left out)\n", cerr.msg);
    }
    if (definition) {
        char *data = paths_dataset();
        add(&refs, &nrefs, xasprintf("%s/../kernels/%s", data, definition));
        free(data);
    }
    char **kw = NULL;
    int nkw = 0;
    if (keywords)
        add_list(&kw, &nkw, keywords);
    else
        nkw = recon_keywords(d, NULL, NULL, &kw);
    recon_result r;
    int code = 0;
    if (recon_search((const char *const *)refs, nrefs, kw, nkw, &lim, &r, &err) != 0) {
        fprintf(stderr, "kwb recon: %s\n", err.msg);
        code = 1;
    } else {
        strbuf out;
        strbuf_init(&out);
        printf("direction: %s%s%s\n", id, d ? ": " : "", d ? d->title : "");
        recon_format(&r, (size_t)1 << 20, &out);
        fputs(out.s, stdout);
        strbuf_free(&out);
        if (nrefs == 0)
            fprintf(stderr, "kwb recon: no reference folder named (the skill's references:, --ref or --definition)\n");
        code = r.nconsulted == 0 ? 1 : 0;
        recon_result_free(&r);
    }
    recon_words_free(kw, nkw);
    recon_words_free(refs, nrefs);
    skills_set_free(&set);
    free(sdir);
    return code;
}
