#define _GNU_SOURCE
#include "dispatch.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

/* One worker's share of a round. */
typedef struct share {
    runclient *client;
    workload_set set; /* shallow copies of the shared workloads */
    int *index;       /* set.items[k] is the shared workload index[k] */
    wl_result *res;
    int status;
    kwb_error err;
} share;

/* What every remote worker's hello must match: the first one's device facts. */
typedef struct identity {
    pthread_mutex_t mu;
    char *first; /* "gpu, driver D, cuda_runtime C" of the first hello, NULL until then */
    int up;      /* workers that said hello */
} identity;

/* One remote worker's hello context. */
typedef struct worker_ctx {
    identity *id;
    int k;
    const char *where;
    int announced;
} worker_ctx;

static void *share_thread(void *arg)
{
    share *s = arg;
    s->status = runclient_run(s->client, &s->set, s->res, &s->err);
    return NULL;
}

/* The facts of a hello that must not differ between the workers of one run. */
static char *hello_facts(json_t *hello)
{
    const char *keys[] = {"gpu", "driver", "cuda_runtime"};
    const char *gpu = json_string_value(json_object_get(hello, "gpu"));
    const char *dev = json_string_value(json_object_get(hello, "device"));
    char *s = xstrdup(gpu ? gpu : dev ? dev : "?");
    for (int i = 1; i < 3; i++) {
        json_t *v = json_object_get(hello, keys[i]);
        char *t = json_is_integer(v)  ? xasprintf("%s, %s %lld", s, keys[i], (long long)json_integer_value(v))
                  : json_is_string(v) ? xasprintf("%s, %s %s", s, keys[i], json_string_value(v))
                                      : xstrdup(s);
        free(s);
        s = t;
    }
    return s;
}

/* A remote worker's hello: refused when its device differs from the first hello's; the first
 * time each worker says hello, a line saying where it is (what the workbench shows). */
static int check_hello(void *ctx, json_t *hello, char *why, size_t cap)
{
    worker_ctx *w = ctx;
    identity *id = w->id;
    char *facts = hello_facts(hello);
    int bad = 0;
    pthread_mutex_lock(&id->mu);
    if (!id->first)
        id->first = xstrdup(facts);
    else if (strcmp(id->first, facts) != 0) {
        snprintf(why, cap, "its device (%s) differs from the run's (%s): results of different devices are never mixed",
                 facts, id->first);
        bad = 1;
    }
    if (!bad && !w->announced) {
        w->announced = 1;
        const char *host = json_string_value(json_object_get(hello, "host"));
        fprintf(stderr, "kwb: worker %d up on %s (%s): %s; %d worker(s) up\n", w->k + 1, host ? host : "?", w->where,
                facts, ++id->up);
    }
    pthread_mutex_unlock(&id->mu);
    free(facts);
    return bad;
}

/* Deals PENDING (NP shared indices, ascending) round-robin over the live workers. */
static int deal(share *sh, runclient *const *clients, int n, const int *pending, int np, const workload_set *set)
{
    int live = 0;
    for (int k = 0; k < n; k++) {
        memset(&sh[k], 0, sizeof sh[k]);
        sh[k].client = clients[k];
        if (!clients[k]->remote || !clients[k]->remote->lost) {
            sh[k].set.items = xcalloc((size_t)np + 1, sizeof *sh[k].set.items);
            sh[k].index = xcalloc((size_t)np + 1, sizeof *sh[k].index);
            sh[k].res = xcalloc((size_t)np + 1, sizeof *sh[k].res);
            live++;
        }
    }
    for (int i = 0, k = 0; live && i < np; i++, k++) {
        while (!sh[k % n].res)
            k++;
        share *s = &sh[k % n];
        s->index[s->set.count] = pending[i];
        s->set.items[s->set.count++] = set->items[pending[i]];
    }
    return live;
}

/* Copies a round's final results into RES; the workloads a lost worker left go back to
 * PENDING (ascending). Returns the count pending. */
static int gather(share *sh, char *const *where, int n, const workload_set *set, wl_result *res, int *pending)
{
    int np = 0;
    for (int k = 0; k < n; k++) {
        runclient_remote *r = sh[k].client->remote;
        int upto = r && r->lost ? r->lost_from : sh[k].set.count;
        char *facts = r && sh[k].client->hello ? hello_facts(sh[k].client->hello) : NULL;
        const char *host = facts ? json_string_value(json_object_get(sh[k].client->hello, "host")) : NULL;
        for (int j = 0; j < sh[k].set.count; j++) {
            int i = sh[k].index[j];
            if (j < upto) {
                res[i] = sh[k].res[j];
                res[i].wl = &set->items[i];
                if (facts)
                    snprintf(res[i].worker, sizeof res[i].worker, "%s: %s", host ? host : "?", facts);
            } else
                pending[np++] = i;
        }
        if (r && r->lost && sh[k].set.count > 0)
            fprintf(stderr, "kwb: worker %d (%s) lost: %s; %d workload(s) dealt again\n", k + 1,
                    where && where[k] ? where[k] : "?", r->why, sh[k].set.count - upto);
        free(facts);
        free(sh[k].set.items);
        free(sh[k].index);
        free(sh[k].res);
    }
    for (int a = 1; a < np; a++) /* ascending, so that each worker runs its share in order */
        for (int b = a; b > 0 && pending[b - 1] > pending[b]; b--) {
            int t = pending[b];
            pending[b] = pending[b - 1];
            pending[b - 1] = t;
        }
    return np;
}

int dispatch_run(runclient *const *clients, char *const *where, int n, const workload_set *set, wl_result *res,
                 kwb_error *err)
{
    identity id = {PTHREAD_MUTEX_INITIALIZER, NULL, 0};
    worker_ctx *wc = xcalloc((size_t)n + 1, sizeof *wc);
    for (int k = 0; k < n; k++)
        if (clients[k]->remote) {
            wc[k] = (worker_ctx){&id, k, where && where[k] ? where[k] : "?", 0};
            clients[k]->remote->hello_check = check_hello;
            clients[k]->remote->hello_ctx = &wc[k];
        }
    int *pending = xcalloc((size_t)set->count + 1, sizeof *pending), np = set->count, rc = 0;
    for (int i = 0; i < np; i++)
        pending[i] = i;
    share *sh = xcalloc((size_t)n, sizeof *sh);
    pthread_t *threads = xcalloc((size_t)n, sizeof *threads);
    while (np > 0 && rc == 0) {
        if (deal(sh, clients, n, pending, np, set) == 0) {
            rc = kwb_error_set(err, "every worker was lost, %d workload(s) left without a result%s%s", np,
                               n && clients[0]->remote ? ": " : "",
                               n && clients[0]->remote ? clients[0]->remote->why : "");
            break;
        }
        for (int k = 0; k < n; k++)
            if (sh[k].set.count)
                pthread_create(&threads[k], NULL, share_thread, &sh[k]);
        for (int k = 0; k < n; k++)
            if (sh[k].set.count) {
                pthread_join(threads[k], NULL);
                if (sh[k].status != 0 && rc == 0) {
                    *err = sh[k].err;
                    rc = -1;
                }
            }
        np = gather(sh, where, n, set, res, pending);
    }
    free(sh);
    free(threads);
    free(pending);
    free(wc);
    free(id.first);
    return rc;
}
