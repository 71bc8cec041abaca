/* kedyn_mpi.so: the ranks of an MPI launch sharing the cases of a study (kd_case_backend,
 * kedyn/run.h; docs/cli.md, "Parallel studies"). Built apart (-DKEDYN_MPI=ON) and loaded by
 * `kedyn run` only when it is started by mpirun, so that ordinary runs never load libmpi.
 *
 * Dynamic load balancing: rank 0 hands out case indices from the counter its own threads take
 * cases from, a few per message for cheap cases; a rank sends back the cases' bytes in one
 * message and is sent more as its results come. Messages (tags): READY (rank -> 0: [set]), RESULT
 * (rank -> 0: [set, n, seconds, n x (case, 0, bytes)], the bytes), CASE (0 -> rank: [set, n,
 * cases...], n = 0: this study is over), FINISH (0 -> rank: the run is over). Only one thread of a
 * process calls MPI at a time (MPI_THREAD_SERIALIZED): on rank 0, during a study, one of the
 * threads that compute cases, between two cases (serve_poll), or the one with no case left, or
 * the committing thread; the main thread outside. */
#include <errno.h>
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/resource.h>
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

/* KEDYN_MPI_TRACE=1: this rank's timeline (docs/performance.md, "Where 2 MPI ranks lost time"):
 * events kept in memory (no output while the study runs) and written to stderr at the end as
 * `trace RANK SECONDS EVENT A B` lines, SECONDS on CLOCK_MONOTONIC (one clock for every process of
 * a machine), read by bench/mpi_timeline.py. Rank 0's events here are taken under serve_mu (one
 * thread at a time); its cases' are traced by run_cases.c. */
enum { TRACE_MAX = 1 << 16 };
static struct {
    struct trace_ev {
        double t;
        int ev, a, b;
    }* e;
    int n, on;
} tr;

static double mono_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void trace(int ev, int a, int b) {
    if (!tr.on || tr.n >= TRACE_MAX) return;
    tr.e[tr.n++] = (struct trace_ev){mono_s(), ev, a, b};
}

/* The process's CPU time (user, system; us) as a trace event 'U' and its context switches
 * (voluntary: each sleep of a wait; involuntary) as 'W', at the open and the close: what a rank
 * spends beside its cases, e.g. waiting (bench/mpi_timeline.py, tests/mpi_test.sh). */
static void trace_cpu(void) {
    if (!tr.on) return;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    trace('U', (int)(ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec), (int)(ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec));
    trace('W', (int)ru.ru_nvcsw, (int)ru.ru_nivcsw);
}

static void trace_dump(int rank) {
    for (int k = 0; k < tr.n; k++)
        fprintf(stderr, "trace %d %.6f %c %d %d\n", rank, tr.e[k].t, tr.e[k].ev, tr.e[k].a, tr.e[k].b);
    free(tr.e);
    memset(&tr, 0, sizeof(tr));
}

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
 * core) for spin_us, then with sleeps growing from 10 us to SLEEP_SOON_US for the first
 * SOON_S (a rank's first cases come a few milliseconds after it is ready: rank 0 starts the
 * study later), then to max_us, rather than in a blocking call, which would keep a core busy that
 * the cases need (Open MPI's shared-memory transport polls in MPI_Probe and MPI_Recv, also with
 * `mpi_yield_when_idle`); for at most limit_s seconds (< 0: no limit). A long wait (a rank with
 * nothing to do while rank 0 runs alone, writes files or computes a long case) sleeps longer, by
 * idle_sleep_us, so that an idle rank costs about no CPU. since: when the wait began (its
 * length sets the sleeps; a wait made of several calls passes the same). 1 when nothing came. */
#define SLEEP_SOON_US 100
#define SOON_S 0.05
/* The sleep of a wait that has lasted waited_s, at least floor_us: IDLE_SHARE of the wait (a
 * message is noticed at most that share of the wait late), at most IDLE_SLEEP_MAX_US (a poll,
 * MPI_Iprobe and nanosleep, costs about 20 us of CPU: polls every 1 ms cost a waiting rank 2 % of
 * a core, docs/performance.md, "Ranks that wait without spinning"). */
#define IDLE_SHARE 0.01
#define IDLE_SLEEP_MAX_US 20000
static long idle_sleep_us(double waited_s, long floor_us) {
    const double us = IDLE_SHARE * waited_s * 1e6;
    return us <= (double)floor_us ? floor_us : us >= IDLE_SLEEP_MAX_US ? IDLE_SLEEP_MAX_US : (long)us;
}

static int wait_message_for(int src, MPI_Status* stt, double spin_us, long max_us, double limit_s, double since) {
    const double t0 = MPI_Wtime();
    long ns = 10000;
    for (;;) {
        int flag = 0;
        if (MPI_Iprobe(src, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, stt) != MPI_SUCCESS) return -1;
        if (flag) return 0;
        const double now = MPI_Wtime();
        if (limit_s >= 0 && now - t0 > limit_s) return 1;
        if ((now - since) * 1e6 < spin_us) {
            sched_yield();
            continue;
        }
        const struct timespec ts = {ns / 1000000000, ns % 1000000000};
        nanosleep(&ts, NULL);
        const long most = now - since < SOON_S && max_us > SLEEP_SOON_US ? SLEEP_SOON_US : idle_sleep_us(now - since, max_us);
        ns = ns < 1000 * most ? ns + ns / 2 : 1000 * most;
    }
}

/* Cases per message and messages in flight per rank (docs/cli.md, "Parallel studies"): a rank's
 * next cases wait at the rank while it computes, so that it never waits for rank 0 (which serves
 * between its own cases). Cases of more than BATCH_S / 2 (by the rank's measured time per case;
 * not measured yet: the first messages) go one per message; cheaper ones as many per message as
 * cover BATCH_S of the rank's time (at most BATCH_MAX), their results back in one message.
 * DEPTH_MIN messages in flight: one computed, one waiting (more would leave a rank with cases
 * still to compute when the others have none: the end of a study waits for them); a rank that
 * reports it waited for its cases anyway (rank 0 slow to serve: a loaded machine) gets one more,
 * up to DEPTH_MAX (a rank that dies loses at most DEPTH_MAX messages' cases). */
enum { DEPTH_MIN = 2, DEPTH_MAX = 3, BATCH_MAX = 64, FLIGHT_MAX = 2 * BATCH_MAX };
#define BATCH_S 0.001
/* Rank 0 waiting for a message (no case of its own left): it polls without sleeping for SPIN_S
 * after the last one, since a rank's next result often follows closely. */
#define SPIN_S 50e-6

/* The cases per message for a rank whose cases take per_case_s seconds (0: not measured yet), at
 * most most (KEDYN_MPI_BATCH, 1 to BATCH_MAX). */
static int batch_for(double per_case_s, int most) {
    if (!(per_case_s > 0)) return 1;
    const double b = BATCH_S / per_case_s;
    return b < 1 ? 1 : b > most ? most : (int)b;
}

/* A silent rank: the deadline of a rank with cases in flight since its last message
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

/* Rank 0's side of the study being served (serve_poll), kept from call to call. */
typedef void (*deliver_fn)(void* sched, int i, const unsigned char* data, size_t size);
static struct server {
    int on, set, size;
    void* sched;
    int (*next)(void* sched);
    deliver_fn deliver;
    int* out;          /* (size) messages in flight per rank */
    int* ended;        /* (size) told the study is over (or gone) */
    int* nfl;          /* (size) cases in flight per rank */
    int* fl;           /* (size * FLIGHT_MAX) the cases in flight */
    double* heard;     /* (size) last message from each rank (or its first case) */
    double* per_case;  /* (size) each rank's time per case (mean, as the rank measured it) */
    int* depth;        /* (size) messages in flight to each rank (DEPTH_MIN to DEPTH_MAX: take_result) */
    char* ready;       /* (size) the rank said it works on this study */
    int* msg;          /* a CASE message: [set, n, cases...] */
    unsigned char* buf;
    int cap, active;   /* ranks not yet told that the study is over */
    int batch_max;     /* KEDYN_MPI_BATCH, else BATCH_MAX */
    double limit, t_check, t_msg, t_alive;
} srv;

static void server_stop(void) {
    free(srv.out), free(srv.ended), free(srv.nfl), free(srv.fl), free(srv.heard), free(srv.per_case), free(srv.depth), free(srv.ready);
    free(srv.msg), free(srv.buf);
    memset(&srv, 0, sizeof(srv));
}

/* Sends rank r its next cases, as many as batch (none left: the end of the study, n = 0). */
static void send_next(int r, int batch) {
    int n = 0;
    while (n < batch && srv.nfl[r] < FLIGHT_MAX) {
        const int i = srv.next(srv.sched);
        if (i < 0) break;
        srv.msg[2 + n++] = i;
        srv.fl[r * FLIGHT_MAX + srv.nfl[r]++] = i;
    }
    srv.msg[0] = srv.set, srv.msg[1] = n;
    MPI_Send(srv.msg, 2 + n, MPI_INT, r, TAG_CASE, MPI_COMM_WORLD);
    trace('c', r, n ? srv.msg[2] : -1);
    if (n == 0) {
        srv.ended[r] = 1, srv.active--;
        return;
    }
    srv.out[r]++;
}

/* Rank r's messages in flight topped up. */
static void top_up(int r) {
    const int batch = batch_for(srv.per_case[r], srv.batch_max), depth = srv.depth[r];
    while (!srv.ended[r] && srv.out[r] < depth && srv.nfl[r] + batch <= FLIGHT_MAX) send_next(r, batch);
}

/* Rank r is gone (its process ended without a word: killed, crashed): each case it held is
 * delivered as a failed case with the reason, so that the study reports it and goes on
 * (kedyn's scheduler never records a failed case: --resume computes it again). */
static void lose_rank(int r, const char* why) {
    self.dead[r] = 1;
    const int nlost = srv.nfl[r];
    char list[128] = "";
    for (int k = 0; k < nlost; k++) {
        const int i = srv.fl[r * FLIGHT_MAX + k];
        char msg[160];
        int len = snprintf(msg, sizeof(msg), "lost: MPI rank %d (process %d) %s before returning case %d", r,
                           self.pid[r], why, i + 1);
        if (len >= (int)sizeof(msg)) len = (int)sizeof(msg) - 1;
        unsigned char buf[2 * sizeof(int) + sizeof(msg)];
        const int st = KD_ERR_IO;
        memcpy(buf, &st, sizeof(int));
        memcpy(buf + sizeof(int), &len, sizeof(int));
        memcpy(buf + 2 * sizeof(int), msg, (size_t)len);
        srv.deliver(srv.sched, i, buf, 2 * sizeof(int) + (size_t)len);
        const size_t at = strlen(list);
        if (at + 16 < sizeof(list)) snprintf(list + at, sizeof(list) - at, "%s%d", k ? ", " : "", i + 1);
        else if (at + 4 < sizeof(list) && list[at - 1] != '.') snprintf(list + at, sizeof(list) - at, "...");
    }
    fprintf(stderr, "kedyn: MPI: rank %d (process %d) %s; %d case%s it held %s lost%s%s\n", r, self.pid[r],
            strcmp(why, "ended") == 0 ? "ended without a word" : why, nlost, nlost == 1 ? "" : "s",
            nlost == 1 ? "is" : "are", nlost ? ": case " : "", list);
    srv.nfl[r] = 0, srv.out[r] = 0;
    if (!srv.ended[r]) srv.ended[r] = 1, srv.active--;
}

static int server_start(int set, void* sched, int (*next)(void* sched), deliver_fn deliver) {
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    srv.size = size, srv.set = set, srv.sched = sched, srv.next = next, srv.deliver = deliver;
    srv.out = calloc((size_t)size, sizeof(int));
    srv.ended = calloc((size_t)size, sizeof(int));
    srv.nfl = calloc((size_t)size, sizeof(int));
    srv.fl = malloc(sizeof(int) * (size_t)size * FLIGHT_MAX);
    srv.heard = calloc((size_t)size, sizeof(double));
    srv.per_case = calloc((size_t)size, sizeof(double));
    srv.depth = malloc(sizeof(int) * (size_t)size);
    srv.ready = calloc((size_t)size, 1);
    srv.msg = malloc(sizeof(int) * (2 + BATCH_MAX));
    if (!srv.out || !srv.ended || !srv.nfl || !srv.fl || !srv.heard || !srv.per_case || !srv.depth || !srv.ready || !srv.msg) {
        server_stop();
        return -1;
    }
    srv.on = 1;
    const char* env = getenv("KEDYN_MPI_BATCH");
    const long bm = env && env[0] ? strtol(env, NULL, 10) : BATCH_MAX;
    srv.batch_max = bm < 1 ? 1 : bm > BATCH_MAX ? BATCH_MAX : (int)bm;
    srv.limit = silence_limit();
    srv.t_check = srv.t_msg = srv.t_alive = MPI_Wtime();
    for (int r = 0; r < size; r++) srv.heard[r] = srv.t_check, srv.depth[r] = DEPTH_MIN;
    for (int r = 1; r < size; r++) {
        if (self.dead && self.dead[r]) srv.ended[r] = 1;
        else srv.active++;
    }
    /* every rank's first cases sent at once, not on its READY: they wait at the rank, which works
     * on the studies in the same order (each was told the last one is over), while rank 0
     * computes its first case */
    for (int r = 1; r < size; r++) {
        if (self.early && self.early[r] == set) srv.ready[r] = 1, self.early[r] = -1;
        if (!srv.ended[r]) top_up(r);
    }
    return 0;
}

/* A RESULT from rank r: [set, n, seconds, waited (doubles), n x (case, 0, bytes (uint64))] and
 * the n cases' bytes one after the other; waited: how long the rank waited for these cases
 * after its previous ones (0 for its first of the study). A rank that waited more than a
 * quarter of a case is sent one more message ahead, up to DEPTH_MAX. */
static void take_result(int r, const unsigned char* m, int count, double now) {
    int head[2];
    double t, waited;
    const size_t hsize = 2 * sizeof(int) + 2 * sizeof(double), esize = 2 * sizeof(int) + sizeof(uint64_t);
    if ((size_t)count < hsize) return;
    memcpy(head, m, sizeof(head));
    memcpy(&t, m + sizeof(head), sizeof(t));
    memcpy(&waited, m + sizeof(head) + sizeof(t), sizeof(waited));
    const int n = head[1];
    if (n < 1 || n > BATCH_MAX || (size_t)count < hsize + (size_t)n * esize) return;
    if (srv.nfl[r] > 0) {
        const double wait = now - srv.heard[r];
        if (wait > longest_wait) longest_wait = wait;
    }
    const double pc = t / n;
    srv.per_case[r] = srv.per_case[r] > 0 ? 0.75 * srv.per_case[r] + 0.25 * pc : pc;
    if (waited > 0.25 * pc && srv.depth[r] < DEPTH_MAX) srv.depth[r]++;
    size_t at = hsize + (size_t)n * esize;
    for (int k = 0; k < n; k++) {
        int i;
        uint64_t sz;
        memcpy(&i, m + hsize + (size_t)k * esize, sizeof(int));
        memcpy(&sz, m + hsize + (size_t)k * esize + 2 * sizeof(int), sizeof(sz));
        if (sz > (uint64_t)count - at) sz = 0;  /* damaged: an empty result, reported failed */
        int held = 0;
        for (int j = 0; j < srv.nfl[r]; j++)
            if (srv.fl[r * FLIGHT_MAX + j] == i) {
                srv.fl[r * FLIGHT_MAX + j] = srv.fl[r * FLIGHT_MAX + --srv.nfl[r]];
                held = 1;
                break;
            }
        if (held) srv.deliver(srv.sched, i, m + at, (size_t)sz);
        at += (size_t)sz;
    }
    if (srv.out[r] > 0) srv.out[r]--;
    top_up(r);
}

/* The message from rank r probed (count bytes) into srv.buf: 1, 0 when r died before it came
 * whole (a large message comes once rank 0 takes it: its sender gone, a blocking receive would
 * wait forever), -1 on a failure. */
static int receive(int r, int tag, int count) {
    MPI_Request req;
    trace('p', r, count);
    if (MPI_Irecv(srv.buf, count, MPI_BYTE, r, tag, MPI_COMM_WORLD, &req) != MPI_SUCCESS) return -1;
    const double t0 = MPI_Wtime();
    double t_check = t0;
    for (;;) {
        int done = 0;
        if (MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return -1;
        if (done) {
            trace('v', r, tag);
            return 1;
        }
        const double now = MPI_Wtime();
        if (now - t_check > 0.5 && self.dead) {
            t_check = now;
            char why[96] = "ended";
            if (now - t0 > srv.limit)
                snprintf(why, sizeof(why), "was silent for %.0f s (the limit: %.0f s)", now - srv.heard[r], srv.limit);
            if (!alive(r) || now - t0 > srv.limit) {
                if (!self.dead[r]) lose_rank(r, why);
                srv.buf = NULL, srv.cap = 0;  /* left to the request, which never completes */
                return 0;
            }
        }
        sched_yield();
    }
}

/* Rank 0: the messages that came for study `set` handled (the cases handed out from next, the
 * results delivered), waiting for one at most wait_s seconds (0: not waiting), polling (yielding
 * the core for SPIN_S after a message, then with sleeps of 10 to 200 us); the first call for a study starts it. 1 once every other rank has been
 * told the study is over and every case it held is back (or lost); 0 before; -1: the
 * communication failed. Called by one thread at a time (kd_case_backend.serve_poll). */
static int serve_poll(void* impl, int set, void* sched, int (*next)(void* sched), deliver_fn deliver, double wait_s) {
    (void)impl;
    if (!srv.on && server_start(set, sched, next, deliver)) return -1;
    if (wait_s > 0) trace('l', (int)(wait_s * 1e6), 0);
    const double t0 = MPI_Wtime();
    long ns = 10000;
    int handled = 0;
    for (;;) {
        int busy = 0;
        for (int r = 1; r < srv.size; r++) busy += srv.nfl[r];
        if (srv.active == 0 && busy == 0) {
            server_stop();
            return 1;
        }
        int flag = 0;
        MPI_Status stt;
        if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &stt) != MPI_SUCCESS) {
            server_stop();
            return -1;
        }
        const double now = MPI_Wtime();
        if (now - srv.t_check >= 0.5) {  /* a rank with cases in flight silent beyond the deadline is lost */
            srv.t_check = now;
            for (int r = 1; r < srv.size; r++)
                if (srv.nfl[r] > 0 && srv.ready[r] && self.dead && !self.dead[r] && now - srv.heard[r] > srv.limit) {
                    char why[96];
                    snprintf(why, sizeof(why), "was silent for %.0f s (the limit: %.0f s)", now - srv.heard[r],
                             srv.limit);
                    lose_rank(r, why);
                }
        }
        if (!flag && now - srv.t_msg >= 0.5 && now - srv.t_alive >= 0.5) {  /* nothing for half a second */
            srv.t_alive = now;
            for (int r = 1; r < srv.size; r++)
                if (!srv.ended[r] && self.dead && !alive(r)) lose_rank(r, "ended");
            continue;
        }
        if (!flag) {
            if (handled || now - t0 >= wait_s) return 0;
            if (now - srv.t_msg < SPIN_S) {  /* waiting, just after a message: the next comes soon */
                sched_yield();
                continue;
            }
            const struct timespec ts = {ns / 1000000000, ns % 1000000000};
            nanosleep(&ts, NULL);
            long most = idle_sleep_us(now - srv.t_msg, 200);  /* rank 0 with no case of its own */
            const double left_us = (wait_s - (now - t0)) * 1e6;
            if (most > left_us) most = left_us > 10 ? (long)left_us : 10;
            ns = ns < 1000 * most ? ns + ns / 2 : 1000 * most;
            continue;
        }
        int count;
        MPI_Get_count(&stt, MPI_BYTE, &count);
        if (count > srv.cap) {
            unsigned char* nb = realloc(srv.buf, (size_t)count);
            if (!nb) {
                server_stop();
                return -1;
            }
            srv.buf = nb, srv.cap = count;
        }
        const int r = stt.MPI_SOURCE;
        const int got = receive(r, stt.MPI_TAG, count);
        if (got < 0) {
            server_stop();
            return -1;
        }
        if (got == 0) continue;  /* the rank died while its message came: lost */
        handled = 1;
        srv.t_msg = now;
        int head = -1;
        if (count >= (int)sizeof(int)) memcpy(&head, srv.buf, sizeof(int));
        if (head != set) {  /* a rank ready for the next study already */
            if (stt.MPI_TAG == TAG_READY && self.early) self.early[r] = head;
            continue;
        }
        if (self.dead && self.dead[r]) continue;  /* its cases were reported lost */
        if (stt.MPI_TAG == TAG_RESULT) take_result(r, srv.buf, count, now);
        else if (stt.MPI_TAG == TAG_READY) srv.ready[r] = 1, top_up(r);
        srv.heard[r] = now;
    }
}

/* Rank 0 serving study `set` alone until it is over (kd_case_backend.serve). */
static int serve(void* impl, int set, void* sched, int (*next)(void* sched), deliver_fn deliver) {
    int r;
    while ((r = serve_poll(impl, set, sched, next, deliver, 0.5)) == 0) {
    }
    return r < 0 ? -1 : 0;
}

/* A message from rank 0, while rank 0 is there (-1: gone, or an error). */
static int wait_rank0(MPI_Status* stt, double spin_us) {
    const double since = MPI_Wtime();
    for (;;) {
        const int w = wait_message_for(0, stt, spin_us, 1000, 1.0, since);
        if (w <= 0) return w;
        if (!alive(0)) {
            if (!self.orphan)
                fprintf(stderr, "kedyn: MPI: rank 0 (process %d) ended without a word; this rank stops\n", self.pid[0]);
            self.orphan = 1;
            return -1;
        }
    }
}

/* Other ranks: the results sent without blocking (a rank goes on with its next cases while rank 0
 * takes them: a large result waits for its receiver), at most NSEND at a time. */
enum { NSEND = 4 };
typedef struct sends {
    MPI_Request req[NSEND];
    unsigned char* buf[NSEND];
    int n;
} sends;

/* The sends done freed; all: until every one is (or rank 0 is gone: -1, the buffers left with
 * their requests, the process ends without MPI); else until fewer than NSEND are left. */
static int sends_wait(sends* q, int all) {
    double t_check = MPI_Wtime();
    for (;;) {
        for (int k = 0; k < q->n;) {
            int done = 0;
            if (MPI_Test(&q->req[k], &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return -1;
            if (!done) {
                k++;
                continue;
            }
            free(q->buf[k]);
            q->n--;
            q->req[k] = q->req[q->n], q->buf[k] = q->buf[q->n];
        }
        if (q->n == 0 || (!all && q->n < NSEND)) return 0;
        const struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
        if (MPI_Wtime() - t_check > 1.0) {
            t_check = MPI_Wtime();
            if (!alive(0)) {
                fprintf(stderr, "kedyn: MPI: rank 0 (process %d) ended without a word; this rank stops\n", self.pid[0]);
                self.orphan = 1;
                return -1;
            }
        }
    }
}

static int work(void* impl, int set, void* ctx, int (*compute)(void* ctx, int i, unsigned char** data, size_t* size)) {
    (void)impl;
    MPI_Send(&set, 1, MPI_INT, 0, TAG_READY, MPI_COMM_WORLD);
    trace('w', set, 0);
    sends q = {.n = 0};
    int msg[2 + BATCH_MAX];
    unsigned char* data[BATCH_MAX];
    size_t size[BATCH_MAX];
    const size_t hsize = 2 * sizeof(int) + 2 * sizeof(double), esize = 2 * sizeof(int) + sizeof(uint64_t);
    int first = 1;
    for (;;) {
        MPI_Status stt;
        int count = 0;
        const double t_wait = MPI_Wtime();
        if (wait_rank0(&stt, 100.0) || MPI_Get_count(&stt, MPI_INT, &count) != MPI_SUCCESS || count < 2 ||
            count > 2 + BATCH_MAX || MPI_Recv(msg, count, MPI_INT, 0, stt.MPI_TAG, MPI_COMM_WORLD, &stt) != MPI_SUCCESS)
            return -1;
        if (stt.MPI_TAG == TAG_FINISH) {
            self.orphan |= msg[1] == 1;  /* a rank died: no MPI_Finalize */
            sends_wait(&q, 1);
            return self.finished = 1;
        }
        const int n = msg[1];
        trace('r', n, n > 0 ? msg[2] : -1);
        if (stt.MPI_TAG != TAG_CASE || msg[0] != set || n < 0 || n > count - 2) return -1;
        if (n == 0) return sends_wait(&q, 1) ? -1 : 0;  /* the study is over */
        const double t0 = MPI_Wtime(), waited = first ? 0.0 : t0 - t_wait;
        first = 0;
        size_t total = hsize + (size_t)n * esize;
        for (int k = 0; k < n; k++) {
            data[k] = NULL, size[k] = 0;
            trace('s', msg[2 + k], 0);
            if (compute(ctx, msg[2 + k], &data[k], &size[k]) != 0) size[k] = 0;
            trace('e', msg[2 + k], (int)size[k]);
            total += size[k];
        }
        const double t = MPI_Wtime() - t0;
        /* an empty result (out of memory on this rank): rank 0 reports the case as failed */
        unsigned char* out = total <= INT32_MAX ? malloc(total) : NULL;
        if (out) {
            memcpy(out, msg, 2 * sizeof(int));
            memcpy(out + 2 * sizeof(int), &t, sizeof(t));
            memcpy(out + 2 * sizeof(int) + sizeof(t), &waited, sizeof(waited));
            size_t at = hsize + (size_t)n * esize;
            for (int k = 0; k < n; k++) {
                const int e[2] = {msg[2 + k], 0};
                const uint64_t sz = size[k];
                memcpy(out + hsize + (size_t)k * esize, e, sizeof(e));
                memcpy(out + hsize + (size_t)k * esize + sizeof(e), &sz, sizeof(sz));
                if (size[k]) memcpy(out + at, data[k], size[k]);
                at += size[k];
            }
        }
        for (int k = 0; k < n; k++) free(data[k]);
        if (!out) return -1;
        if (MPI_Isend(out, (int)total, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD, &q.req[q.n]) != MPI_SUCCESS) {
            free(out);
            return -1;
        }
        q.buf[q.n++] = out;
        trace('i', n, (int)total);
        if (sends_wait(&q, 0)) return -1;
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
    /* Every rank on this machine (Open MPI's launch variables): the point-to-point layer ob1
     * (shared memory) chosen outright unless the user chose one; MPI_Init then does not try the
     * others (UCX, cm), which cost each rank 15-20 ms of CPU at start (docs/performance.md,
     * "Ranks that wait without spinning"). Across machines Open MPI's own choice stands. */
    const char* ws = getenv("OMPI_COMM_WORLD_SIZE");
    const char* ls = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    if (ws && ls && strcmp(ws, ls) == 0 && !getenv("OMPI_MCA_pml")) setenv("OMPI_MCA_pml", "ob1", 0);
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
    const char* te = getenv("KEDYN_MPI_TRACE");
    if (te && te[0] && strcmp(te, "0") != 0 && (tr.e = malloc(sizeof(*tr.e) * TRACE_MAX))) tr.on = 1;
    trace('o', 0, 0);
    trace_cpu();
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
    b->root_pid = self.pid ? self.pid[0] : 0;
    b->serve = serve;
    b->serve_poll = serve_poll;
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
    trace_cpu();
    trace('z', 0, 0);
    if (tr.on) trace_dump(b->rank);
    free(self.early);
    free(self.pid), free(self.local), free(self.dead);
    self.early = NULL, self.pid = NULL, self.local = NULL, self.dead = NULL;
    if (!self.orphan) MPI_Finalize();
}
