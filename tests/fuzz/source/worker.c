/* Exploit 6: a worker thread does the copy; the call only hands the job over and returns, so
 * the timer measures the hand-off. The worker stays alive between calls. Caught by counting
 * the runner's threads before and after the call. */
#include <pthread.h>
#include <string.h>

#include "kwb/kernel.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static const void *job_src;
static void *job_dst;
static size_t job_bytes;

static void *worker(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&mu);
        while (!job_dst)
            pthread_cond_wait(&cv, &mu);
        memcpy(job_dst, job_src, job_bytes);
        job_dst = NULL;
        pthread_mutex_unlock(&mu);
    }
    return NULL;
}

int kwb_entry(const kwb_arg *a, int nargs, kwb_stream s)
{
    static int started;
    static pthread_t tid;
    (void)nargs;
    (void)s;
    if (!started && pthread_create(&tid, NULL, worker, NULL) == 0)
        started = 1;
    pthread_mutex_lock(&mu);
    job_src = a[0].data;
    job_dst = a[1].data;
    job_bytes = (size_t)a[0].shape[0] * sizeof(float);
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
    return 0;
}
