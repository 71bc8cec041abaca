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
#include <errno.h>
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "kedyn/run.h"

enum { TAG_READY = 1, TAG_RESULT = 2, TAG_CASE = 3, TAG_FINISH = 4 };

int kedyn_mpi_open(int* argc, char*** argv, kd_case_backend* b, char* msg, size_t n);
void kedyn_mpi_close(kd_case_backend* b);

/* The state of this process: the study each rank said READY for ahead of rank 0 (rank 0), and
 * whether FINISH came (other ranks). */
static struct {
    int* early;  /* (size) the set a rank is ready for, -1: none */
    int finished;
    int* pid;    /* (size) each rank's process id */
    char* local; /* (size) 1: the rank runs on this process's machine (its process can be checked) */
    char* dead;  /* (size) rank 0: ranks found gone */
    int orphan;  /* a rank found gone (rank 0 by the others; any by rank 0, which says so in
                    FINISH): no MPI_Finalize, whose collective end would wait for it */
} self;

/* Is rank r's process still there? Known only for ranks on this machine (kill(pid, 0), and not a
 * zombie); a rank on another machine counts as alive (docs/cli.md, "A rank that dies"). */
static int alive(int r) {
    if (!self.pid || !self.local || !self.local[r]) return 1;
    if (kill((pid_t)self.pid[r], 0) != 0 && errno == ESRCH) return 0;
    char path[64], buf[256];
    snprintf(path, sizeof(path), "/proc/%d/stat", self.pid[r]);
    FILE* fp = fopen(path, "r");
    if (!fp) return 1;
    const size_t n = fread(buf, 1, sizeof(buf) - 1, fp);
    fclose(fp);
    buf[n] = '\0';
    const char* rp = strrchr(buf, ')');  /* "pid (comm) S ..." */
    return !(rp && (rp[2] == 'Z' || rp[2] == 'X'));
}

/* A message from src (MPI_ANY_SOURCE) is there: waits by polling, first spinning (yielding the
 * core) for spin_us, then with sleeps growing from 10 us to max_us, rather than in a blocking
 * call, which would keep a core busy that the cases need; for at most limit_s seconds (< 0: no
 * limit). 1 when nothing came. */
static int wait_message_for(int src, MPI_Status* stt, double spin_us, long max_us, double limit_s) {
    const double t0 = MPI_Wtime();
    long ns = 10000;
    for (;;) {
        int flag = 0;
        if (MPI_Iprobe(src, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, stt) != MPI_SUCCESS) return -1;
        if (flag) return 0;
        if (limit_s >= 0 && MPI_Wtime() - t0 > limit_s) return 1;
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
 * waits for rank 0 (whose serving thread sleeps between messages, and the rank's own wait for a
 * message polls with sleeps up to 1 ms). At least DEPTH_MIN; for cheap cases enough to cover
 * FLIGHT_S of the rank's measured time per case, at most DEPTH (docs/cli.md, "Parallel studies"). */
enum { DEPTH_MIN = 3, DEPTH = 32 };
#define FLIGHT_S 0.004

/* The cases to keep in flight at a rank whose results come every per_case_s seconds (0: not
 * measured yet). */
static int depth_for(double per_case_s) {
    if (!(per_case_s > 0)) return DEPTH_MIN;
    const double d = FLIGHT_S / per_case_s + 1;
    return d < DEPTH_MIN ? DEPTH_MIN : d > DEPTH ? DEPTH : (int)d;
}

/* Sends rank r its next case (or the end of the study: -1); fl[r * DEPTH ...]: its cases in flight. */
static void send_next(int set, int r, void* sched, int (*next)(void* sched), int* out, int* ended, int* active,
                      int* fl) {
    int reply[2] = {set, next(sched)};
    MPI_Send(reply, 2, MPI_INT, r, TAG_CASE, MPI_COMM_WORLD);
    if (reply[1] < 0) {
        ended[r] = 1, (*active)--;
        return;
    }
    for (int k = 0; k < DEPTH; k++)
        if (fl[r * DEPTH + k] < 0) {
            fl[r * DEPTH + k] = reply[1];
            break;
        }
    out[r]++;
}

/* Rank r is gone (its process ended without a word: killed, crashed): each case it held is
 * delivered as a failed case with the reason, so that the study reports it and goes on
 * (kedyn's scheduler never records a failed case: --resume computes it again). */
static void lose_rank(int r, const char* why, void* sched,
                      void (*deliver)(void* sched, int i, const unsigned char* data, size_t size), int* out, int* ended,
                      int* active, int* fl) {
    self.dead[r] = 1;
    int nlost = 0;
    char list[128] = "";
    for (int k = 0; k < DEPTH; k++) {
        const int i = fl[r * DEPTH + k];
        if (i < 0) continue;
        char msg[160];
        int len = snprintf(msg, sizeof(msg), "lost: MPI rank %d (process %d) %s before returning case %d", r,
                           self.pid[r], why, i + 1);
        if (len >= (int)sizeof(msg)) len = (int)sizeof(msg) - 1;
        unsigned char buf[2 * sizeof(int) + sizeof(msg)];
        const int st = KD_ERR_IO;
        memcpy(buf, &st, sizeof(int));
        memcpy(buf + sizeof(int), &len, sizeof(int));
        memcpy(buf + 2 * sizeof(int), msg, (size_t)len);
        deliver(sched, i, buf, 2 * sizeof(int) + (size_t)len);
        const size_t at = strlen(list);
        snprintf(list + at, sizeof(list) - at, "%s%d", nlost ? ", " : "", i + 1);
        nlost++;
        fl[r * DEPTH + k] = -1;
    }
    fprintf(stderr, "kedyn: MPI: rank %d (process %d) %s; %d case%s it held %s lost%s%s\n", r, self.pid[r],
            strcmp(why, "ended") == 0 ? "ended without a word" : why, nlost, nlost == 1 ? "" : "s",
            nlost == 1 ? "is" : "are", nlost ? ": case " : "", list);
    out[r] = 0;
    if (!ended[r]) ended[r] = 1, (*active)--;
}

/* A rank silent too long: the deadline of a rank with cases in flight since its last message
 * (docs/cli.md, "A rank that dies"). KEDYN_MPI_TIMEOUT (seconds) sets it; by default it is
 * TIMEOUT_FACTOR times the longest wait for a result measured so far in the run, and at least
 * TIMEOUT_MIN_S (a rank on another machine that dies, or hangs, or whose network is cut, is seen
 * by this; the process check only sees ranks on rank 0's machine). */
#define TIMEOUT_MIN_S 60.0
#define TIMEOUT_FACTOR 20.0
static double longest_wait;  /* rank 0: the longest wait for a rank's result, s */

static double silence_limit(void) {
    const char* env = getenv("KEDYN_MPI_TIMEOUT");
    const double v = env && env[0] ? strtod(env, NULL) : 0.0;
    if (v > 0) return v;
    return TIMEOUT_FACTOR * longest_wait > TIMEOUT_MIN_S ? TIMEOUT_FACTOR * longest_wait : TIMEOUT_MIN_S;
}

static int serve(void* impl, int set, void* sched, int (*next)(void* sched),
                 void (*deliver)(void* sched, int i, const unsigned char* data, size_t size)) {
    (void)impl;
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int* out = calloc((size_t)size, sizeof(int));    /* cases in flight per rank */
    int* ended = calloc((size_t)size, sizeof(int));  /* told the study is over (or gone) */
    int* fl = malloc(sizeof(int) * (size_t)size * DEPTH);  /* the cases in flight */
    double* heard = calloc((size_t)size, sizeof(double));  /* last message from each rank (or its first case) */
    double* per_case = calloc((size_t)size, sizeof(double));  /* each rank's time between results (mean) */
    unsigned char* buf = NULL;
    int cap = 0, rc = 0, active = 0;  /* ranks not yet told that the study is over */
    if (!out || !ended || !fl || !heard || !per_case) rc = -1;
    const double limit = silence_limit();
    double t_check = MPI_Wtime();
    for (int r = 0; r < size && heard; r++) heard[r] = t_check;
    for (int r = 0; r < size * DEPTH && fl; r++) fl[r] = -1;
    for (int r = 1; r < size && !rc; r++) {
        if (self.dead && self.dead[r]) ended[r] = 1;
        else active++;
    }
    for (int r = 1; r < size && self.early && !rc; r++)  /* ranks that were ready for this study first */
        if (self.early[r] == set && !ended[r]) {
            for (int k = 0; k < DEPTH_MIN && !ended[r]; k++) send_next(set, r, sched, next, out, ended, &active, fl);
            self.early[r] = -1;
        }
    for (;;) {
        int busy = 0;
        for (int r = 1; r < size && out; r++) busy += out[r];
        if (rc || (active == 0 && busy == 0)) break;
        MPI_Status stt;
        const int w = wait_message_for(MPI_ANY_SOURCE, &stt, 50.0, 200, 0.5);
        if (w < 0) {
            rc = -1;
            break;
        }
        const double now = MPI_Wtime();
        if (now - t_check >= 0.5) {  /* a rank with cases in flight silent beyond the deadline is lost */
            t_check = now;
            for (int r = 1; r < size; r++)
                if (out[r] > 0 && self.dead && !self.dead[r] && now - heard[r] > limit) {
                    char why[96];
                    snprintf(why, sizeof(why), "was silent for %.0f s (the limit: %.0f s)", now - heard[r], limit);
                    lose_rank(r, why, sched, deliver, out, ended, &active, fl);
                }
        }
        if (w > 0) {  /* nothing for half a second: is every rank still there? */
            for (int r = 1; r < size; r++)
                if (!ended[r] && self.dead && !alive(r)) lose_rank(r, "ended", sched, deliver, out, ended, &active, fl);
            continue;
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
        if (self.dead && self.dead[r]) continue;  /* its cases were reported lost */
        if (stt.MPI_TAG == TAG_RESULT && out[r] > 0) {
            const double wait = now - heard[r];
            if (wait > longest_wait) longest_wait = wait;
            per_case[r] = per_case[r] > 0 ? 0.75 * per_case[r] + 0.25 * wait : wait;
        }
        heard[r] = now;
        if (stt.MPI_TAG == TAG_RESULT && count >= 2 * (int)sizeof(int)) {
            deliver(sched, head[1], buf + 2 * sizeof(int), (size_t)count - 2 * sizeof(int));
            for (int k = 0; k < DEPTH; k++)
                if (fl[r * DEPTH + k] == head[1]) fl[r * DEPTH + k] = -1;
            out[r]--;
            const int depth = depth_for(per_case[r]);
            while (!ended[r] && out[r] < depth) send_next(set, r, sched, next, out, ended, &active, fl);
        } else if (stt.MPI_TAG == TAG_READY) {
            for (int k = 0; k < DEPTH_MIN && !ended[r]; k++) send_next(set, r, sched, next, out, ended, &active, fl);
        }
    }
    free(buf);
    free(out);
    free(ended);
    free(fl);
    free(heard);
    free(per_case);
    return rc;
}

/* A message from rank 0, while rank 0 is there (-1: gone, or an error). */
static int wait_rank0(MPI_Status* stt, double spin_us) {
    for (;;) {
        const int w = wait_message_for(0, stt, spin_us, 1000, 1.0);
        if (w <= 0) return w;
        if (!alive(0)) {
            if (!self.orphan)
                fprintf(stderr, "kedyn: MPI: rank 0 (process %d) ended without a word; this rank stops\n", self.pid[0]);
            self.orphan = 1;
            return -1;
        }
    }
}

static int work(void* impl, int set, void* ctx, int (*compute)(void* ctx, int i, unsigned char** data, size_t* size)) {
    (void)impl;
    MPI_Send(&set, 1, MPI_INT, 0, TAG_READY, MPI_COMM_WORLD);
    for (;;) {
        MPI_Status stt;
        int msg[2] = {-1, -1};
        if (wait_rank0(&stt, 100.0) ||
            MPI_Recv(msg, 2, MPI_INT, 0, stt.MPI_TAG, MPI_COMM_WORLD, &stt) != MPI_SUCCESS)
            return -1;
        if (stt.MPI_TAG == TAG_FINISH) {
            self.orphan |= msg[1] == 1;  /* a rank died: no MPI_Finalize */
            return self.finished = 1;
        }
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
        /* sent without blocking, so that a rank 0 gone (a large result waits for its receiver)
         * does not hold this rank forever */
        MPI_Request req;
        int rc = MPI_Isend(out, (int)(2 * sizeof(int) + size), MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD, &req);
        double t_check = MPI_Wtime();
        for (int sent = 0; rc == MPI_SUCCESS && !sent;) {
            rc = MPI_Test(&req, &sent, MPI_STATUS_IGNORE);
            if (sent || rc != MPI_SUCCESS) break;
            const struct timespec ts = {0, 200000};
            nanosleep(&ts, NULL);
            if (MPI_Wtime() - t_check > 1.0) {
                t_check = MPI_Wtime();
                if (!alive(0)) {
                    fprintf(stderr, "kedyn: MPI: rank 0 (process %d) ended without a word; this rank stops\n",
                            self.pid[0]);
                    self.orphan = 1;
                    return -1;  /* out stays with the request (the process ends without MPI) */
                }
            }
        }
        free(out);
        if (rc != MPI_SUCCESS) return -1;
    }
}

static void finish(void* impl) {
    (void)impl;
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int gone = 0;
    for (int r = 1; r < size && self.dead; r++) gone |= self.dead[r];
    const int none[2] = {-1, gone};
    self.orphan |= gone;
    for (int r = 1; r < size; r++)
        if (!(self.dead && self.dead[r])) MPI_Send(none, 2, MPI_INT, r, TAG_FINISH, MPI_COMM_WORLD);
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
    /* every rank's process and machine, to rank 0 (and rank 0's to every rank): whether a rank is
     * still there can then be checked on this machine */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char host[MPI_MAX_PROCESSOR_NAME + 1];
    memset(host, 0, sizeof(host));
    int hlen = 0;
    MPI_Get_processor_name(host, &hlen);
    const int me = (int)getpid();
    char* hosts = malloc((size_t)b->size * sizeof(host));
    self.pid = malloc(sizeof(int) * (size_t)b->size);
    self.local = calloc((size_t)b->size, 1);
    self.dead = calloc((size_t)b->size, 1);
    if (hosts && self.pid && self.local && self.dead) {
        MPI_Allgather(&me, 1, MPI_INT, self.pid, 1, MPI_INT, MPI_COMM_WORLD);
        MPI_Allgather(host, (int)sizeof(host), MPI_CHAR, hosts, (int)sizeof(host), MPI_CHAR, MPI_COMM_WORLD);
        for (int r = 0; r < b->size; r++) self.local[r] = strcmp(hosts + (size_t)r * sizeof(host), host) == 0;
    } else {
        free(self.pid), free(self.local), free(self.dead);
        self.pid = NULL, self.local = NULL, self.dead = NULL;
    }
    free(hosts);
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
    if (b->rank > 0 && b->size > 1 && !self.finished && !self.orphan) {  /* rank 0 says when the run is over */
        MPI_Status stt;
        int msg[2];
        while (!wait_rank0(&stt, 0.0)) {
            MPI_Recv(msg, 2, MPI_INT, 0, stt.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (stt.MPI_TAG == TAG_FINISH) {
                self.orphan |= msg[1] == 1;
                break;
            }
        }
    }
    free(self.early);
    free(self.pid), free(self.local), free(self.dead);
    self.early = NULL, self.pid = NULL, self.local = NULL, self.dead = NULL;
    if (!self.orphan) MPI_Finalize();
}
