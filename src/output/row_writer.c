/* The rows of a dynamics history, formatted and written by a thread beside the integration
 * (row_writer.h): a ring of batches of rows' numbers, filled by the integration and emptied in
 * order by the thread, which turns them into text with io_row_history. */
#define _GNU_SOURCE  /* sched_getaffinity, CPU_COUNT */
#include "row_writer.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "fmt_num.h"

#define RING_MIN 3
#define RING_BYTES (4 << 20)      /* the ring's doubles at most (a longer history waits for the thread) */

struct io_rows {
    int n, energy, stride;        /* columns; energy balance (4 more numbers); doubles per row */
    const int* idx;
    int threaded, started, done;
    int nring, cur;               /* batches in the ring; the batch being filled */
    int* fill;                    /* (nring) rows in each batch */
    int* ready;                   /* (nring) full, for the thread (under mu) */
    double* ring;                 /* (nring IO_ROWS_BATCH stride) */
    atomic_int failed;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t work, room;    /* a batch is ready; a batch is free again */
    io_row row;                   /* the text's block (64 kB) */
};

static void format_batch(io_rows* w, int b) {
    const double* r = w->ring + (size_t)b * IO_ROWS_BATCH * (size_t)w->stride;
    for (int k = 0; k < w->fill[b]; k++, r += w->stride)
        io_row_history(&w->row, r[0], r + 1, NULL, w->n, w->energy ? r + 1 + w->n : NULL);
    atomic_store_explicit(&w->failed, w->row.failed, memory_order_relaxed);
}

static void* writer_main(void* arg) {
    io_rows* w = arg;
    pthread_mutex_lock(&w->mu);
    for (int b = 0;; b = (b + 1) % w->nring) {
        while (!w->ready[b] && !w->done) pthread_cond_wait(&w->work, &w->mu);
        if (!w->ready[b]) break;  /* closed, and every batch written */
        pthread_mutex_unlock(&w->mu);
        format_batch(w, b);
        pthread_mutex_lock(&w->mu);
        w->ready[b] = 0;
        pthread_cond_signal(&w->room);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* More than one CPU for this process (its affinity mask, not the machine's count). */
static int second_cpu(void) {
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) > 1;
}

io_rows* io_rows_open(FILE* fp, int n, const int* idx, int energy, long rows, int threaded) {
    io_rows* w = malloc(sizeof(*w));
    if (!w) return NULL;
    w->n = n, w->idx = idx, w->energy = energy != 0, w->stride = 1 + n + (energy ? 4 : 0);
    w->threaded = threaded && second_cpu(), w->started = w->done = 0, w->cur = 0;
    /* the whole history when it fits in RING_BYTES (the integration never waits), else what does;
     * the caller's thread alone fills one batch only */
    const long most = RING_BYTES / ((long)sizeof(double) * IO_ROWS_BATCH * w->stride);
    const long want = rows / IO_ROWS_BATCH + 2;
    const long nring = want < most ? want : most;
    w->nring = !w->threaded ? 1 : nring > RING_MIN ? (int)nring : RING_MIN;
    atomic_init(&w->failed, 0);
    io_row_start(&w->row, fp);
    w->fill = calloc((size_t)w->nring, sizeof(int));
    w->ready = calloc((size_t)w->nring, sizeof(int));
    w->ring = malloc(sizeof(double) * (size_t)w->nring * IO_ROWS_BATCH * (size_t)w->stride);
    if (!w->fill || !w->ready || !w->ring) {
        free(w->fill), free(w->ready), free(w->ring), free(w);
        return NULL;
    }
    return w;
}

/* batch cur is full: to the thread (started now if it is not), or formatted here */
static void hand_over(io_rows* w) {
    if (w->threaded && !w->started) {
        pthread_mutex_init(&w->mu, NULL);
        pthread_cond_init(&w->work, NULL);
        pthread_cond_init(&w->room, NULL);
        w->started = pthread_create(&w->thread, NULL, writer_main, w) == 0;
        if (!w->started) {
            pthread_cond_destroy(&w->room), pthread_cond_destroy(&w->work), pthread_mutex_destroy(&w->mu);
            w->threaded = 0;  /* the ring's first batch only, from now on */
        }
    }
    if (!w->started) {
        format_batch(w, 0);
        w->fill[0] = 0;
        return;
    }
    pthread_mutex_lock(&w->mu);
    w->ready[w->cur] = 1;
    pthread_cond_signal(&w->work);
    w->cur = (w->cur + 1) % w->nring;
    while (w->ready[w->cur]) pthread_cond_wait(&w->room, &w->mu);  /* a whole ring ahead */
    pthread_mutex_unlock(&w->mu);
    w->fill[w->cur] = 0;
}

void io_rows_push(io_rows* w, double t, const double* x, const double* e) {
    double* r = w->ring + ((size_t)w->cur * IO_ROWS_BATCH + (size_t)w->fill[w->cur]) * (size_t)w->stride;
    r[0] = t;
    for (int c = 0; c < w->n; c++) r[1 + c] = !w->idx ? x[c] : w->idx[c] < 0 ? 0.0 : x[w->idx[c]];
    for (int k = 0; k < 4 && w->energy; k++) r[1 + w->n + k] = e[k];
    if (++w->fill[w->cur] == IO_ROWS_BATCH) hand_over(w);
}

int io_rows_failed(const io_rows* w) {
    return atomic_load_explicit((atomic_int*)&w->failed, memory_order_relaxed);
}

int io_rows_close(io_rows* w) {
    if (w->started) {
        pthread_mutex_lock(&w->mu);
        w->done = 1;
        pthread_cond_signal(&w->work);
        pthread_mutex_unlock(&w->mu);
        pthread_join(w->thread, NULL);
        pthread_cond_destroy(&w->room), pthread_cond_destroy(&w->work), pthread_mutex_destroy(&w->mu);
    }
    format_batch(w, w->cur);  /* the last rows, after every batch before them */
    io_row_flush(&w->row);
    const int failed = w->row.failed;
    free(w->fill), free(w->ready), free(w->ring);
    free(w);
    return failed;
}
