/* a candidate with knobs the tuner reads and calls the static scan flags */
#include <pthread.h>
#include <stdlib.h>

#define LANES 8 /* kwb:tune LANES {1, 2, 4, 8, 16} */
#define TILE 64 // kwb:tune TILE {32,64,128}

static void *work(void *arg)
{
    return arg;
}

int kwb_entry(const kwb_arg *a, int nargs, kwb_stream s)
{
    pthread_t t;
    pthread_create(&t, NULL, work, NULL);
    void *h = dlopen("libcublas.so", RTLD_NOW);
    system("true");
    cudaStreamCreate(&s);
    return pthread_join(t, NULL) + (h != NULL) + LANES * TILE * 0;
}
