/* cmd_propose.c - `kwb propose`: the session's next directions, best first, as a table or as
 * JSON for the workbench (the contract is in kwb(1)). */
#include "cmd_propose.h"

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roundctx.h"
#include "suggest.h"

static void usage(FILE *f)
{
    fputs("usage: kwb propose --session NAME [--workspace DIR] [--agent NAME] [--limit N] [--json]\n", f);
}

static json_t *list_json(const skill_list *l)
{
    json_t *a = json_array();
    for (int i = 0; i < l->n; i++)
        json_array_append_new(a, json_string(l->items[i]));
    return a;
}

static json_t *direction_json(const direction *d)
{
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:f}", "id", d->id, "title", d->title, "source", d->source,
                          "rationale", d->rationale, "predicted", d->predicted, "score", d->score);
    json_object_set_new(o, "skill", d->skill ? json_string(d->skill->path) : json_null());
    json_object_set_new(o, "scope", d->sd ? list_json(&d->sd->scope) : json_array());
    json_object_set_new(o, "guidance", d->sd && d->sd->guidance ? json_string(d->sd->guidance) : json_null());
    return o;
}

static void print_json(const round_ctx *c, const direction *d, int n)
{
    json_t *doc = json_object();
    json_object_set_new(doc, "session", json_string(c->session_name));
    json_object_set_new(doc, "definition", json_string(c->definition));
    json_object_set_new(
        doc, "best",
        c->best_name ? json_pack("{s:s, s:s?, s:f}", "name", c->best_name, "dir", c->best_dir, "mean_ms", c->best_ms)
                     : json_null());
    json_object_set_new(doc, "class", json_string(c->cls));
    json_object_set_new(doc, "roofline", json_real(c->roofline));
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, direction_json(&d[i]));
    json_object_set_new(doc, "directions", a);
    json_dumpf(doc, stdout, JSON_INDENT(1));
    fputc('\n', stdout);
    json_decref(doc);
}

static void print_table(const round_ctx *c, const direction *d, int n)
{
    printf("session %s (%s); best %s, %.4f ms, %s", c->session_name, c->definition,
           c->best_name ? c->best_name : "(none)", c->best_ms, c->cls);
    if (c->roofline > 0)
        printf(", roofline share %.0f%%", 100 * c->roofline);
    printf("\n");
    if (n == 0)
        printf("no untried direction left\n");
    for (int i = 0; i < n; i++)
        printf("%2d. %-28s %-6s %6.2f  %s\n      expect: %s\n      why: %s\n", i + 1, d[i].id, d[i].source, d[i].score,
               d[i].title, d[i].predicted, d[i].rationale);
}

int cmd_propose(int argc, char **argv)
{
    static const struct option opts[] = {
        {"session", required_argument, NULL, 'S'},
        {"workspace", required_argument, NULL, 'W'},
        {"agent", required_argument, NULL, 'a'},
        {"limit", required_argument, NULL, 'l'},
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *session = NULL, *ws_dir = NULL, *agent = "tuner";
    int limit = 0, json = 0, c;
    char *end;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'S': session = optarg; break;
        case 'W': ws_dir = optarg; break;
        case 'a': agent = optarg; break;
        case 'j': json = 1; break;
        case 'l':
            limit = (int)strtol(optarg, &end, 10);
            if (*end || limit < 0) {
                fprintf(stderr, "kwb propose: --limit wants a count, not '%s'\n", optarg);
                return 2;
            }
            break;
        case 'h': usage(stdout); return 0;
        default:
            suggest_bad_option("propose", argv, opts);
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "kwb propose: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return 2;
    }
    round_ctx rc;
    if (round_ctx_open_for("kwb propose", ws_dir, session, agent, 1, &rc) != 0)
        return 2;
    kwb_error err = {{0}};
    direction *d = NULL;
    tuner_knob *k = NULL;
    int n = 0, nk = 0, code = 0;
    if (round_ctx_propose(&rc, agent, limit, &d, &n, &k, &nk, &err) != 0) {
        fprintf(stderr, "kwb propose: %s\n", err.msg);
        code = 1;
    } else if (json) {
        print_json(&rc, d, n);
    } else {
        print_table(&rc, d, n);
    }
    free(d);
    tuner_knobs_free(k, nk);
    round_ctx_close(&rc);
    return code;
}
