/* kedyn_mpi.so: the ranks of an MPI launch sharing the cases of a study (kd_case_backend,
 * kedyn/run.h; docs/cli.md, "Parallel studies"). Built apart (-DKEDYN_MPI=ON) and loaded by
 * `kedyn run` only when it is started by mpirun, so that ordinary runs never load libmpi.
 *
 * Dynamic load balancing: rank 0 hands out one case index at a time to the rank that asks (its
 * own threads take cases from the same counter); a rank sends back the case's bytes and with them
 * asks for the next. Messages (tags): READY (rank -> 0: [set]), RESULT (rank -> 0: [set, case,
 * bytes...]), CASE (0 -> rank: [set, case], case -1: this study is over), FINISH (0 -> rank: the
 * run is over). Only one thread of a process calls MPI at a time (MPI_THREAD_SERIALIZED): on rank 0
 * the serving thread during a study, the main thread outside. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <time.h>

#include "kedyn/run.h"

enum { TAG_READY = 1, TAG_RESULT = 2, TAG_CASE = 3, TAG_FINISH = 4 };

int kedyn_mpi_open(int* argc, char*** argv, kd_case_backend* b, char* msg, size_t n);
void kedyn_mpi_close(kd_case_backend* b);

/* The state of this process: the study each rank said READY for ahead of rank 0 (rank 0), and
 * whether FINISH came (other ranks). */
static struct {
    int* early;  /* (size) the set a rank is ready for, -1: none */
    int finished;
} self;

/* A message from src (MPI_ANY_SOURCE) is there: waits by polling, first spinning (yielding the
 * core) for spin_us, then with sleeps growing from 10 us to max_us, rather than in a blocking
 * call, which would keep a core busy that the cases need. */
static int wait_message(int src, MPI_Status* stt, double spin_us, long max_us) {
    const double t0 = MPI_Wtime();
    long ns = 10000;
    for (;;) {
        int flag = 0;
        if (MPI_Iprobe(src, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, stt) != MPI_SUCCESS) return -1;
        if (flag) return 0;
        if ((MPI_Wtime() - t0) * 1e6 < spin_us) {
            sched_yield();
            continue;
        }
        const struct timespec ts = {0, ns};
        nanosleep(&ts, NULL);
        if (ns < 1000 * max_us) ns += ns / 2;
    }
}

/* Cases in flight per rank: the next ones wait at the rank while it computes, so that it never
 * waits for rank 0 (whose serving thread sleeps between messages). */
enum { DEPTH = 3 };

/* Sends rank r its next case (or the end of the study: -1). */
static void send_next(int set, int r, void* sched, int (*next)(void* sched), int* out, int* ended, int* active) {
    int reply[2] = {set, next(sched)};
    MPI_Send(reply, 2, MPI_INT, r, TAG_CASE, MPI_COMM_WORLD);
    if (reply[1] < 0) ended[r] = 1, (*active)--;
    else out[r]++;
}

static int serve(void* impl, int set, void* sched, int (*next)(void* sched),
                 void (*deliver)(void* sched, int i, const unsigned char* data, size_t size)) {
    (void)impl;
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int active = size - 1;  /* ranks not yet told that the study is over */
    int* out = calloc((size_t)size, sizeof(int));    /* cases in flight per rank */
    int* ended = calloc((size_t)size, sizeof(int));  /* told the study is over */
    unsigned char* buf = NULL;
    int cap = 0, rc = 0;
    if (!out || !ended) rc = -1;
    for (int r = 1; r < size && self.early && !rc; r++)  /* ranks that were ready for this study first */
        if (self.early[r] == set) {
            for (int k = 0; k < DEPTH && !ended[r]; k++) send_next(set, r, sched, next, out, ended, &active);
            self.early[r] = -1;
        }
    for (;;) {
        int busy = 0;
        for (int r = 1; r < size && out; r++) busy += out[r];
        if (rc || (active == 0 && busy == 0)) break;
        MPI_Status stt;
        if (wait_message(MPI_ANY_SOURCE, &stt, 50.0, 200)) {
            rc = -1;
            break;
        }
        int count;
        MPI_Get_count(&stt, MPI_BYTE, &count);
        if (count > cap) {
            unsigned char* nb = realloc(buf, (size_t)count);
            if (!nb) {
                rc = -1;
                break;
            }
            buf = nb, cap = count;
        }
        if (MPI_Recv(buf, count, MPI_BYTE, stt.MPI_SOURCE, stt.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
            rc = -1;
            break;
        }
        const int r = stt.MPI_SOURCE;
        int head[2] = {-1, -1};
        if (count >= (int)sizeof(int)) memcpy(head, buf, sizeof(int) * (count >= 2 * (int)sizeof(int) ? 2 : 1));
        if (head[0] != set) {  /* a rank ready for the next study already */
            if (stt.MPI_TAG == TAG_READY && self.early) self.early[r] = head[0];
            continue;
        }
        if (stt.MPI_TAG == TAG_RESULT && count >= 2 * (int)sizeof(int)) {
            deliver(sched, head[1], buf + 2 * sizeof(int), (size_t)count - 2 * sizeof(int));
            out[r]--;
            if (!ended[r]) send_next(set, r, sched, next, out, ended, &active);
        } else if (stt.MPI_TAG == TAG_READY) {
            for (int k = 0; k < DEPTH && !ended[r]; k++) send_next(set, r, sched, next, out, ended, &active);
        }
    }
    free(buf);
    free(out);
    free(ended);
    return rc;
}

static int work(void* impl, int set, void* ctx, int (*compute)(void* ctx, int i, unsigned char** data, size_t* size)) {
    (void)impl;
    MPI_Send(&set, 1, MPI_INT, 0, TAG_READY, MPI_COMM_WORLD);
    for (;;) {
        MPI_Status stt;
        int msg[2] = {-1, -1};
        if (wait_message(0, &stt, 100.0, 1000) ||
            MPI_Recv(msg, 2, MPI_INT, 0, stt.MPI_TAG, MPI_COMM_WORLD, &stt) != MPI_SUCCESS)
            return -1;
        if (stt.MPI_TAG == TAG_FINISH) return self.finished = 1;
        if (stt.MPI_TAG != TAG_CASE || msg[0] != set) return -1;
        if (msg[1] < 0) return 0;
        unsigned char* data = NULL;
        size_t size = 0;
        if (compute(ctx, msg[1], &data, &size) != 0) size = 0;
        unsigned char* out = malloc(2 * sizeof(int) + size);
        if (!out) {
            free(data);
            return -1;
        }
        memcpy(out, msg, 2 * sizeof(int));
        if (size) memcpy(out + 2 * sizeof(int), data, size);
        free(data);
        /* an empty result (out of memory on this rank): rank 0 reports the case as failed */
        const int rc = MPI_Send(out, (int)(2 * sizeof(int) + size), MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
        free(out);
        if (rc != MPI_SUCCESS) return -1;
    }
}

static void finish(void* impl) {
    (void)impl;
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int none[2] = {-1, -1};
    for (int r = 1; r < size; r++) MPI_Send(none, 2, MPI_INT, r, TAG_FINISH, MPI_COMM_WORLD);
}

int kedyn_mpi_open(int* argc, char*** argv, kd_case_backend* b, char* msg, size_t n) {
    int provided = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
        snprintf(msg, n, "MPI_Init_thread failed");
        return -1;
    }
    if (provided < MPI_THREAD_SERIALIZED) {
        snprintf(msg, n, "this MPI library does not allow calls from more than one thread (level %d)", provided);
        MPI_Finalize();
        return -1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &b->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &b->size);
    self.finished = 0;
    if (b->rank == 0) {
        self.early = malloc(sizeof(int) * (size_t)b->size);
        for (int r = 0; self.early && r < b->size; r++) self.early[r] = -1;
    }
    b->impl = NULL;
    b->serve = serve;
    b->work = work;
    b->finish = finish;
    return 0;
}

void kedyn_mpi_close(kd_case_backend* b) {
    if (b->rank > 0 && b->size > 1 && !self.finished) {  /* rank 0 says when the run is over */
        MPI_Status stt;
        int msg[2];
        while (!wait_message(0, &stt, 0.0, 1000)) {
            MPI_Recv(msg, 2, MPI_INT, 0, stt.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (stt.MPI_TAG == TAG_FINISH) break;
        }
    }
    free(self.early);
    self.early = NULL;
    MPI_Finalize();
}
