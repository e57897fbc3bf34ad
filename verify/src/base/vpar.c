/* vpar: the verifier's parallel parts; see vpar.h. */
#include "vpar.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "mism.h"
#include "vutil.h"

static int g_jobs = 1;
static pthread_t g_owner;
static int g_owner_set;

int vp_default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    return n > VP_MAX_JOBS ? VP_MAX_JOBS : (int)n;
}

void vp_set_jobs(int n)
{
    g_jobs = n < 1 ? vp_default_jobs() : n > VP_MAX_JOBS ? VP_MAX_JOBS : n;
    g_owner = pthread_self();
    g_owner_set = 1;
}

int vp_jobs(void)
{
    return g_jobs;
}

/* the thread that set the jobs (the main one): only it runs vp_for in
 * parallel, so that a spawned task's loops do not add threads */
static int is_owner(void)
{
    return !g_owner_set || pthread_equal(pthread_self(), g_owner);
}

typedef struct {
    size_t n;
    vp_fn fn;
    void *ctx;
    atomic_size_t next;
    mm_capture **caps;
} vp_loop;

static void *loop_worker(void *arg)
{
    vp_loop *l = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&l->next, 1);
        if (i >= l->n)
            break;
        l->caps[i] = mm_capture_begin();
        l->fn(l->ctx, i);
        mm_capture_end();
    }
    return NULL;
}

void vp_for(size_t n, vp_fn fn, void *ctx)
{
    size_t t = (size_t)g_jobs;
    if (t > n)
        t = n;
    if (t <= 1 || !is_owner()) {
        for (size_t i = 0; i < n; i++)
            fn(ctx, i);
        return;
    }
    vp_loop l = {n, fn, ctx, 0, vu_xcalloc(n, sizeof(mm_capture *))};
    pthread_t *th = vu_xcalloc(t, sizeof *th);
    size_t started = 0;
    for (size_t k = 1; k < t; k++)
        if (pthread_create(&th[started], NULL, loop_worker, &l) == 0)
            started++;
    loop_worker(&l); /* the caller is one of the workers */
    for (size_t k = 0; k < started; k++)
        pthread_join(th[k], NULL);
    for (size_t i = 0; i < n; i++)
        mm_capture_replay(l.caps[i]);
    free(l.caps);
    free(th);
}

struct vp_task {
    void (*fn)(void *);
    void *ctx;
    int threaded, idle, joining; /* joining: vp_join has begun (under mu) */
    pthread_mutex_t mu;
    pthread_t th;
    mm_capture *cap;
};

static void *task_main(void *arg)
{
    vp_task *t = arg;
    if (t->idle) { /* best effort: at worst the task competes as before */
        struct sched_param sp = {0};
        pthread_mutex_lock(&t->mu);
        if (!t->joining) /* else it is waited for already: it stays at the normal priority */
            pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp);
        pthread_mutex_unlock(&t->mu);
    }
    t->cap = mm_capture_begin();
    t->fn(t->ctx);
    mm_capture_end();
    return NULL;
}

static vp_task *spawn(void (*fn)(void *ctx), void *ctx, int idle)
{
    vp_task *t = vu_xcalloc(1, sizeof *t);
    t->fn = fn;
    t->ctx = ctx;
    t->idle = idle;
    pthread_mutex_init(&t->mu, NULL);
    if (g_jobs > 1 && pthread_create(&t->th, NULL, task_main, t) == 0)
        t->threaded = 1;
    return t;
}

vp_task *vp_spawn(void (*fn)(void *ctx), void *ctx)
{
    return spawn(fn, ctx, 0);
}

vp_task *vp_spawn_idle(void (*fn)(void *ctx), void *ctx)
{
    return spawn(fn, ctx, 1);
}

void vp_join(vp_task *t)
{
    if (!t)
        return;
    if (t->threaded) {
        if (t->idle) { /* what is left is waited for: at the normal priority, so that other processes do not starve it */
            struct sched_param sp = {0};
            pthread_mutex_lock(&t->mu);
            t->joining = 1;
            pthread_setschedparam(t->th, SCHED_OTHER, &sp);
            pthread_mutex_unlock(&t->mu);
        }
        pthread_join(t->th, NULL);
        mm_capture_replay(t->cap);
    } else {
        t->fn(t->ctx);
    }
    pthread_mutex_destroy(&t->mu);
    free(t);
}
