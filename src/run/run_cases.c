/* The scheduler of the cases of a study (run_cases.h): serially, by a pool of POSIX threads that
 * take the next case index as they become free (cases differ in cost), or with the ranks of an MPI
 * launch, served by rank 0's computing threads between their cases (kd_case_backend.serve_poll);
 * the results committed in case order on
 * the calling thread, each appended to the study's journal (the record of complete cases that
 * --resume reads). */
#include "run_cases.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "kedyn/atomic_file.h"

/* ---- bytes ------------------------------------------------------------------ */

void run_buf_put(run_buf* b, const void* p, size_t n) {
    if (b->failed) return;
    if (b->size + n > b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 256;
        while (cap < b->size + n) cap *= 2;
        unsigned char* q = realloc(b->data, cap);
        if (!q) {
            b->failed = 1;
            return;
        }
        b->data = q, b->cap = cap;
    }
    if (n) memcpy(b->data + b->size, p, n);
    b->size += n;
}

void run_buf_put_int(run_buf* b, int v) { run_buf_put(b, &v, sizeof(v)); }
void run_buf_put_doubles(run_buf* b, const double* v, size_t n) {
    if (n) run_buf_put(b, v, sizeof(double) * n);
}

void run_buf_free(run_buf* b) {
    free(b->data);
    memset(b, 0, sizeof(*b));
}

void run_get(run_reader* r, void* out, size_t n) {
    if (r->bad || n > r->left) {
        r->bad = 1;
        if (n) memset(out, 0, n);
        return;
    }
    if (n) memcpy(out, r->p, n);
    r->p += n, r->left -= n;
}

int run_get_int(run_reader* r) {
    int v;
    run_get(r, &v, sizeof(v));
    return v;
}

void run_get_doubles(run_reader* r, double* v, size_t n) {
    if (n) run_get(r, v, sizeof(double) * n);
}

/* A case as it travels and is recorded: its status, its message, the driver's bytes (one
 * allocation of the exact size). */
static void wrap_case(kd_status st, const kd_error* err, const run_buf* payload, run_buf* out) {
    const int len = st ? (int)strnlen(err->msg, sizeof(err->msg)) : 0;
    const size_t total = 2 * sizeof(int) + (size_t)len + payload->size;
    out->data = malloc(total);
    if (!out->data) {
        out->failed = 1;
        return;
    }
    out->cap = total, out->size = 0;
    run_buf_put_int(out, (int)st);
    run_buf_put_int(out, len);
    run_buf_put(out, err->msg, (size_t)len);
    run_buf_put(out, payload->data, payload->size);
}

/* ---- the journal: OUTDIR/.kedyn-cases/analysisN.journal --------------------- */

#define JOURNAL_MAGIC 0x4b444331u /* "KDC1" */

static uint64_t fnv1a(uint64_t h, const void* p, size_t n) {
    const unsigned char* c = p;
    for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 1099511628211ull;
    return h;
}

typedef struct journal_head {
    uint32_t magic;
    int32_t ncases, index;
    uint32_t pad;
    uint64_t key;  /* the model file and the study (run_context.model_key) */
} journal_head;

typedef struct journal_rec {
    uint32_t magic;
    int32_t icase;
    uint64_t size;
} journal_rec;

static void journal_path(const char* outdir, int index, char* buf, size_t n) {
    snprintf(buf, n, "%s/.kedyn-cases/analysis%d.journal", outdir, index + 1);
}

/* Reads the valid records of a journal into data/size (cases marked done); cuts the file after the
 * last whole record. Returns an fd open for appending, or -1. */
static int journal_open(const char* outdir, int index, int ncases, uint64_t key, int resume, unsigned char** data,
                        size_t* size, char* done, int* nresumed) {
    char dir[1200], path[1300];
    snprintf(dir, sizeof(dir), "%s/.kedyn-cases", outdir);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) return -1;
    journal_path(outdir, index, path, sizeof(path));
    const journal_head head = {JOURNAL_MAGIC, ncases, index, 0, key};
    *nresumed = 0;
    if (resume) {
        FILE* fp = fopen(path, "rb");
        off_t valid = 0;
        if (fp) {
            journal_head h;
            if (fread(&h, sizeof(h), 1, fp) == 1 && memcmp(&h, &head, sizeof(h)) == 0) {
                valid = (off_t)sizeof(h);
                journal_rec r;
                while (fread(&r, sizeof(r), 1, fp) == 1) {
                    if (r.magic != JOURNAL_MAGIC || r.icase < 0 || r.icase >= ncases || r.size > ((uint64_t)1 << 40))
                        break;
                    unsigned char* p = malloc(r.size ? (size_t)r.size : 1);
                    uint64_t sum;
                    if (!p || fread(p, 1, (size_t)r.size, fp) != (size_t)r.size || fread(&sum, sizeof(sum), 1, fp) != 1 ||
                        sum != fnv1a(fnv1a(14695981039346656037ull, &r, sizeof(r)), p, (size_t)r.size)) {
                        free(p);  /* cut by a kill: not trusted */
                        break;
                    }
                    if (done[r.icase]) free(data[r.icase]);
                    else (*nresumed)++;
                    data[r.icase] = p, size[r.icase] = (size_t)r.size, done[r.icase] = 2;  /* resumed */
                    valid = ftello(fp);
                }
            }
            fclose(fp);
        }
        if (valid > 0) {
            int fd = open(path, O_WRONLY | O_CLOEXEC);
            if (fd >= 0 && ftruncate(fd, valid) == 0 && lseek(fd, 0, SEEK_END) == valid) return fd;
            if (fd >= 0) close(fd);
        }
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) return -1;
    if (write(fd, &head, sizeof(head)) != (ssize_t)sizeof(head)) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Records of committed cases gathered in `batch`, written to the journal by journal_flush in one
 * write: a kill leaves the last whole or cut (and then not trusted). Nothing once a stop was asked:
 * a case that ran then may have stopped short (a sweep run at its next row). */
static void journal_add(run_buf* batch, int fd, int i, const unsigned char* data, size_t size) {
    if (fd < 0) return;
    const journal_rec r = {JOURNAL_MAGIC, i, size};
    const uint64_t sum = fnv1a(fnv1a(14695981039346656037ull, &r, sizeof(r)), data, size);
    run_buf_put(batch, &r, sizeof(r));
    run_buf_put(batch, data, size);
    run_buf_put(batch, &sum, sizeof(sum));
}

static int journal_flush(run_buf* batch, int fd) {
    int rc = 0;
    if (fd >= 0 && batch->size && !kd_interrupted())
        rc = batch->failed || write(fd, batch->data, batch->size) != (ssize_t)batch->size ? -1 : 0;
    batch->size = 0, batch->failed = 0;
    return rc;
}

/* OUTDIR seen by the other ranks of an MPI launch (docs/cli.md, "Parallel studies"): rank 0 marks
 * it with its process id and the model's key (OUTDIR/.kedyn-cases/rank0) before it hands out a
 * case; a rank that reads the same mark there (a rank on rank 0's machine, or one that shares
 * OUTDIR's file system) writes its cases' files in a directory of its own beside the journals
 * (OUTDIR/.kedyn-cases/rankR-PID) and sends their paths, which rank 0 renames into OUTDIR when it
 * commits the case (a case lost with its rank leaves no file under a final name); another rank
 * ships the files' bytes to rank 0. */
static void root_mark_path(const char* outdir, char* buf, size_t n) { snprintf(buf, n, "%s/.kedyn-cases/rank0", outdir); }

static void root_mark_write(const char* outdir, uint64_t key) {
    char path[1300], tmp[1340], text[64];
    root_mark_path(outdir, path, sizeof(path));
    snprintf(tmp, sizeof(tmp), "%s.tmp%d", path, (int)getpid());
    const int len = snprintf(text, sizeof(text), "%d %016llx\n", (int)getpid(), (unsigned long long)key);
    const int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) return;
    const int ok = write(fd, text, (size_t)len) == (ssize_t)len;
    close(fd);
    if (!ok || rename(tmp, path) != 0) unlink(tmp);
}

static int root_mark_matches(const char* outdir, int root_pid, uint64_t key) {
    char path[1300], text[64], want[64];
    root_mark_path(outdir, path, sizeof(path));
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || root_pid <= 0) {
        if (fd >= 0) close(fd);
        return 0;
    }
    const ssize_t got = read(fd, text, sizeof(text) - 1);
    close(fd);
    const int len = snprintf(want, sizeof(want), "%d %016llx\n", root_pid, (unsigned long long)key);
    return got == len && memcmp(text, want, (size_t)len) == 0;
}

/* The files of dir, then dir. */
static void remove_dir(const char* dir) {
    DIR* dp = opendir(dir);
    if (!dp) return;
    struct dirent* e;
    char path[1800];
    while ((e = readdir(dp)))
        if (e->d_name[0] != '.') {
            const int n = snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
            if (n > 0 && n < (int)sizeof(path)) unlink(path);
        }
    closedir(dp);
    rmdir(dir);
}

void run_cases_forget(const char* outdir) {
    char dir[1200], path[1500];
    root_mark_path(outdir, path, sizeof(path));
    unlink(path);
    snprintf(dir, sizeof(dir), "%s/.kedyn-cases", outdir);
    DIR* dp = opendir(dir);
    if (!dp) return;
    struct dirent* e;
    while ((e = readdir(dp))) {
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        if (strstr(e->d_name, ".journal")) unlink(path);
        else if (strncmp(e->d_name, "rank", 4) == 0) remove_dir(path);  /* a rank's files (a lost rank's) */
    }
    closedir(dp);
    rmdir(dir);
}

void run_cases_clean_temps(const char* outdir) {
    DIR* dp = opendir(outdir);
    if (!dp) return;
    struct dirent* e;
    char path[1500];
    while ((e = readdir(dp))) {
        /* NAME.tmpPID.N (kd_atomic_open) */
        const char* t = strstr(e->d_name, ".tmp");
        if (!t || t == e->d_name) continue;
        const char* p = t + 4;
        int digits = 0, dot = 0;
        for (; *p; p++) {
            if (*p == '.' && digits && !dot) dot = 1, digits = 0;
            else if (*p >= '0' && *p <= '9') digits++;
            else break;
        }
        if (*p || !dot || !digits) continue;
        snprintf(path, sizeof(path), "%s/%s", outdir, e->d_name);
        unlink(path);
    }
    closedir(dp);
}

/* ---- the timeline (KEDYN_MPI_TRACE) ------------------------------------------- */

/* KEDYN_MPI_TRACE=1: the cases of each study computed and committed by this process, with times,
 * written to stderr when the study ends as `trace RANK SECONDS EVENT CASE 0` lines (S/E: a case
 * computed here starts/ends, M/N: a commit starts/ends, B/Z: the study, C: the process's CPU
 * time in microseconds at B and Z), SECONDS on
 * CLOCK_MONOTONIC like the MPI module's own events (bench/mpi_timeline.py). */
enum { CTRACE_MAX = 1 << 15 };
typedef struct ctrace {
    struct {
        double t;
        int ev, i;
    }* e;
    atomic_int n;
} ctrace;

static void ctrace_add(ctrace* tr, int ev, int i) {
    if (!tr->e) return;
    if (ev == 'B' || ev == 'Z') {  /* the process's CPU time (us) at the study's start and end */
        struct timespec cpu;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
        ctrace_add(tr, 'C', (int)(cpu.tv_sec * 1000000 + cpu.tv_nsec / 1000));
    }
    const int k = atomic_fetch_add(&tr->n, 1);
    if (k >= CTRACE_MAX) return;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    tr->e[k].t = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec, tr->e[k].ev = ev, tr->e[k].i = i;
}

static void ctrace_dump(ctrace* tr, int rank) {
    if (!tr->e) return;
    const int n = atomic_load(&tr->n) < CTRACE_MAX ? atomic_load(&tr->n) : CTRACE_MAX;
    for (int k = 0; k < n; k++) fprintf(stderr, "trace %d %.6f %c %d 0\n", rank, tr->e[k].t, tr->e[k].ev, tr->e[k].i);
    free(tr->e);
    tr->e = NULL;
}

/* ---- the scheduler ------------------------------------------------------------ */

/* Chunks of cases (docs/performance.md, "Chunks of cheap cases"): a thread takes several
 * consecutive cases at once, a share of what is left (guided self-scheduling: the last chunks are
 * small, so the threads finish together), at most about CHUNK_S of work by the cases' measured
 * mean cost and at most CHUNK_MAX cases: cheap cases (a stability point, 0.1 ms) then cost the
 * scheduler one lock, one wake-up and one journal write per chunk rather than per case, while
 * expensive ones (a sweep run, 10 ms) still go one at a time. */
#define CHUNK_S 0.004
#define CHUNK_MAX 64
/* The committing thread writes the journal records of the cases it committed at most every
 * JOURNAL_S (and whenever it waits), so that a kill loses little more than the cases running. */
#define JOURNAL_S 0.002
/* MPI: the committing thread serves the other ranks at least this often (ns; serve_some). */
#define SERVE_BACKSTOP_NS 1000000

typedef struct sched {
    const run_context* c;
    const run_case_set* set;
    pthread_mutex_t mu;
    pthread_cond_t cv;       /* the committing thread waits for the next case here */
    pthread_cond_t cv_work;  /* threads wait for the window here */
    int n, next, committed, window, stop, jobs;
    int outstanding;  /* handed out, not back */
    int ndone;        /* back (computed or resumed) */
    int main_waiting, work_waiting;
    double cost_s;    /* wall time of the cases computed by threads, and their number */
    long cost_n;
    pthread_mutex_t serve_mu;  /* MPI: the thread handling the other ranks' messages */
    atomic_int serving;        /* MPI: the study not over yet for the other ranks */
    int serve_rc;              /* MPI: -1: the communication failed (under serve_mu) */
    int remote_failed;         /* the same, under mu */
    unsigned char** data;
    size_t* size;
    char* done;
    ctrace tr;
} sched;

/* Case i computed into *data (malloc'd, NULL: out of memory); payload: the thread's scratch for
 * the driver's bytes, reused from case to case. */
static kd_status compute_case(const sched* s, int i, const char* outdir, int remote, run_buf* payload,
                              unsigned char** data, size_t* size) {
    run_buf out = {0};
    kd_error err;
    kd_error_clear(&err);
    payload->size = 0, payload->failed = 0;
    kd_status st = s->set->compute(s->set->ctx, i, outdir, remote, payload, &err);
    if (payload->failed && !st) st = kd_error_set(&err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for a case");
    if (payload->failed) payload->size = 0;
    wrap_case(st, &err, payload, &out);
    if (out.failed) {
        run_buf_free(&out);
        *data = NULL, *size = 0;
        return KD_ERR_NOMEM;
    }
    *data = out.data, *size = out.size;
    return KD_OK;
}

/* The next case to hand out to a rank, or -1 (under the lock). */
static int take_locked(sched* s) {
    while (s->next < s->n && s->done[s->next]) s->next++;  /* resumed */
    if (s->stop || s->next >= s->n) return -1;
    s->outstanding++;
    return s->next++;
}

/* The next chunk [i0, *i1) for a thread, or -1 (under the lock; next below the window). */
static int take_chunk_locked(sched* s, int* i1) {
    while (s->next < s->n && s->done[s->next]) s->next++;  /* resumed */
    if (s->stop || s->next >= s->n) return -1;
    int c = (s->n - s->next) / (2 * s->jobs);
    const double mean = s->cost_n ? s->cost_s / (double)s->cost_n : 0.0;
    const double by_cost = mean > 0 ? CHUNK_S / mean : s->cost_n ? CHUNK_MAX : 1;  /* first: measure one */
    if (c > by_cost) c = (int)by_cost;
    if (c > CHUNK_MAX) c = CHUNK_MAX;
    if (c < 1) c = 1;
    int end = s->next + c;
    if (end > s->committed + s->window) end = s->committed + s->window;
    if (end > s->n) end = s->n;
    if (end <= s->next) end = s->next + 1;
    const int i0 = s->next;
    for (int i = i0; i < end; i++) s->outstanding += !s->done[i];
    s->next = end;
    *i1 = end;
    return i0;
}

static void wake_main_locked(sched* s) {
    if (s->main_waiting && s->committed < s->n && s->done[s->committed]) pthread_cond_signal(&s->cv);
}

/* The backend's side of rank 0 (kd_case_backend.serve_poll). */
static int remote_next(void* arg) {
    sched* s = arg;
    pthread_mutex_lock(&s->mu);
    const int i = take_locked(s);
    pthread_mutex_unlock(&s->mu);
    return i;
}

static void remote_deliver(void* arg, int i, const unsigned char* data, size_t size) {
    sched* s = arg;
    unsigned char* copy = malloc(size ? size : 1);
    if (copy && size) memcpy(copy, data, size);
    pthread_mutex_lock(&s->mu);
    if (i >= 0 && i < s->n && !s->done[i]) {
        s->data[i] = copy, s->size[i] = copy ? size : 0, s->done[i] = 1;
        s->outstanding--, s->ndone++;
        wake_main_locked(s);
    } else {
        free(copy);
    }
    pthread_mutex_unlock(&s->mu);
}

/* Rank 0 under MPI: the other ranks' messages handled (cases handed out, results delivered:
 * kd_case_backend.serve_poll) by a thread that computes cases, one thread at a time, so that no
 * thread of its own polls beside them: between two cases without waiting (skipped while another
 * thread serves), and, waiting wait_s at most for a message, by a thread with no case to compute.
 * 1 while the study is not over for the other ranks. */
static int serve_some(sched* s, double wait_s) {
    if (!atomic_load(&s->serving)) return 0;
    if (wait_s > 0) pthread_mutex_lock(&s->serve_mu);
    else if (pthread_mutex_trylock(&s->serve_mu)) return 1;
    if (atomic_load(&s->serving)) {
        const kd_case_backend* b = s->c->opts->backend;
        const int r = b->serve_poll(b->impl, s->c->index, s, remote_next, remote_deliver, wait_s);
        if (r) {
            atomic_store(&s->serving, 0);
            if (r < 0) {  /* the cases held by the other ranks will not come: the study stops */
                s->serve_rc = -1;
                pthread_mutex_lock(&s->mu);
                s->stop = 1, s->remote_failed = 1;
                pthread_cond_broadcast(&s->cv);
                pthread_cond_broadcast(&s->cv_work);
                pthread_mutex_unlock(&s->mu);
            }
        }
    }
    const int on = atomic_load(&s->serving);
    pthread_mutex_unlock(&s->serve_mu);
    return on;
}

static void* worker_main(void* arg) {
    sched* s = arg;
    run_buf payload = {0};
    pthread_mutex_lock(&s->mu);
    for (;;) {
        /* memory bounded: at most `window` cases ahead of the last committed */
        while (!s->stop && s->next < s->n && s->next >= s->committed + s->window) {
            if (atomic_load(&s->serving)) {  /* the window may wait for another rank's result */
                pthread_mutex_unlock(&s->mu);
                serve_some(s, 0.001);
                pthread_mutex_lock(&s->mu);
                continue;
            }
            s->work_waiting++;
            pthread_cond_wait(&s->cv_work, &s->mu);
            s->work_waiting--;
        }
        int i1 = 0;
        const int i0 = take_chunk_locked(s, &i1);
        if (i0 < 0) break;
        pthread_mutex_unlock(&s->mu);
        /* the cases of the chunk; their done marks (2: resumed) were set before the threads began
         * or are set by this thread only */
        const double t0 = util_now_s();
        int computed = 0, i = i0;
        for (; i < i1 && !kd_interrupted(); i++) {
            if (s->done[i]) continue;
            serve_some(s, 0.0);
            ctrace_add(&s->tr, 'S', i);
            compute_case(s, i, s->c->outdir, 0, &payload, &s->data[i], &s->size[i]);  /* NULL: no memory */
            ctrace_add(&s->tr, 'E', i);
            computed++;
        }
        const int reached = i;  /* the cases before it are back */
        const double dt = util_now_s() - t0;
        pthread_mutex_lock(&s->mu);
        for (int k = i0; k < i1; k++)
            if (!s->done[k]) {
                s->outstanding--;
                if (k < reached) s->done[k] = 1, s->ndone++;
            }
        if (computed) s->cost_s += dt, s->cost_n += computed;
        wake_main_locked(s);
    }
    pthread_mutex_unlock(&s->mu);
    while (serve_some(s, 0.05)) {  /* no case left here: the other ranks' until they are done */
    }
    run_buf_free(&payload);
    return NULL;
}

/* Commit case i from its wrapped bytes; *record: how many of them its journal record keeps (0: no
 * record, the case failed as a case, e.g. lost with an MPI rank: --resume computes it again). */
static kd_status commit_case(const sched* s, int i, size_t* record, kd_error* err) {
    *record = s->size[i];
    if (!s->data[i]) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for case %d", i + 1);
    run_reader r = {s->data[i], s->size[i], 0, s->data[i], 0};
    const kd_status cst = (kd_status)run_get_int(&r);
    int len = run_get_int(&r);
    char msg[sizeof(err->msg)];
    if (len < 0 || (size_t)len >= sizeof(msg)) len = 0, r.bad = 1;
    run_get(&r, msg, (size_t)len);
    msg[len] = '\0';
    if (r.bad) return kd_error_set(err, KD_ERR_IO, "", KD_LOC_NONE, "case %d: a damaged result", i + 1);
    const kd_status st = s->set->commit(s->set->ctx, i, cst, msg, &r, err);
    if (r.record && r.record <= s->size[i]) *record = r.record;
    if (cst) *record = 0;
    return st;
}

/* summary.json rewritten at most once a second while the study runs (run_context.checkpoint). */
static void checkpoint(const sched* s, double* t_last) {
    const double t = util_now_s();
    if (!s->c->checkpoint || t - *t_last < 1.0) return;
    *t_last = t;
    s->c->checkpoint(s->c->checkpoint_ctx, s->committed, s->n);
}

static void progress(const sched* s) {
    const kd_run_options* o = s->c->opts;
    if (o && o->progress && s->n > 0)
        o->progress(o->progress_ctx, s->c->index, s->c->count, s->set->name, (double)s->ndone / s->n);
}

int run_cases_worker(const run_context* c) { return c->opts && c->opts->backend && c->opts->backend->rank > 0; }

/* An MPI rank other than 0: the cases rank 0 sends, computed with their files in a directory of
 * this rank's own (removed after), shipped in the bytes. */
typedef struct remote_ctx {
    sched* s;
    char dir[512];
    run_buf payload;  /* scratch, reused */
    int shared;       /* OUTDIR marked by rank 0 (root_mark_matches) found here: 1, not: 0, not looked: -1 */
    char sdir[1300];  /* shared: this rank's directory beside the journals */
} remote_ctx;

static int remote_compute(void* arg, int i, unsigned char** data, size_t* size) {
    remote_ctx* rc = arg;
    const run_context* c = rc->s->c;
    if (rc->shared < 0) {  /* at the first case: rank 0 marked OUTDIR before it handed out one */
        const kd_case_backend* b = c->opts->backend;
        rc->shared = c->shared_outdir && root_mark_matches(c->shared_outdir, b->root_pid, c->model_key);
        if (rc->shared) {
            snprintf(rc->sdir, sizeof(rc->sdir), "%s/.kedyn-cases/rank%d-%d", c->shared_outdir, b->rank, (int)getpid());
            rc->shared = mkdir(rc->sdir, 0777) == 0 || errno == EEXIST;
        }
    }
    const char* dir = rc->shared ? rc->sdir : rc->dir;
    return compute_case(rc->s, i, dir, rc->shared ? 2 : 1, &rc->payload, data, size) == KD_OK ? 0 : -1;
}

static kd_status run_remote(sched* s, kd_error* err) {
    const kd_case_backend* b = s->c->opts->backend;
    remote_ctx rc = {s, "", {0}, -1, ""};
    const char* tmp = getenv("TMPDIR");
    snprintf(rc.dir, sizeof(rc.dir), "%s/kedyn-rank%d-XXXXXX", tmp && tmp[0] ? tmp : "/tmp", b->rank);
    if (!mkdtemp(rc.dir)) return kd_error_set(err, KD_ERR_IO, "", KD_LOC_NONE, "cannot create '%s'", rc.dir);
    const int r = b->work(b->impl, s->c->index, &rc, remote_compute);
    run_buf_free(&rc.payload);
    rmdir(rc.dir);
    if (r < 0) return kd_error_set(err, KD_ERR_IO, "", KD_LOC_NONE, "rank %d: the communication failed", b->rank);
    if (r > 0) return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "rank 0 ended the run");
    return KD_OK;
}

kd_status run_cases(const run_context* c, const run_case_set* set, kd_error* err) {
    sched s;
    memset(&s, 0, sizeof(s));
    s.c = c, s.set = set, s.n = set->ncases;
    const int n = s.n;
    s.data = calloc((size_t)(n ? n : 1), sizeof(*s.data));
    s.size = calloc((size_t)(n ? n : 1), sizeof(*s.size));
    s.done = calloc((size_t)(n ? n : 1), 1);
    if (!s.data || !s.size || !s.done) {
        free(s.data), free(s.size), free(s.done);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for %d cases", n);
    }
    const char* te = getenv("KEDYN_MPI_TRACE");
    if (te && te[0] && strcmp(te, "0") != 0) s.tr.e = malloc(sizeof(*s.tr.e) * CTRACE_MAX);
    ctrace_add(&s.tr, 'B', n);
    kd_status st = KD_OK;
    if (run_cases_worker(c)) {
        st = run_remote(&s, err);
        ctrace_add(&s.tr, 'Z', n);
        ctrace_dump(&s.tr, c->opts->backend->rank);
        free(s.data), free(s.size), free(s.done);
        return st;
    }
    const kd_run_options* o = c->opts;
    int nres = 0;
    /* a journal for the studies of a run, not for those inside a sweep's runs (no options) */
    const int jfd = o ? journal_open(c->outdir, c->index, n, c->model_key, o->resume, s.data, s.size, s.done, &nres) : -1;
    s.ndone = nres;
    const int remote = o && o->backend && o->backend->size > 1;
    int jobs = o && o->jobs > 1 ? o->jobs : 1;
    if (jobs > n - nres) jobs = n - nres > 0 ? n - nres : 1;
    s.jobs = jobs + (remote ? o->backend->size - 1 : 0);
    s.window = 4 * (jobs + (remote ? o->backend->size : 0)) + 2 * jobs * CHUNK_MAX;
    if (remote && jfd >= 0) root_mark_write(c->outdir, c->model_key);
    double t_ck = util_now_s();
    run_buf jbatch = {0};               /* journal records not yet written */
    double t_flush = util_now_s();      /* when the last were */
    progress(&s);

    if (jobs == 1 && !remote) {  /* serial: the same cases, on this thread */
        run_buf payload = {0};
        for (int i = 0; i < n && !st; i++) {
            if (!s.done[i]) {
                if (kd_interrupted()) {
                    st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "interrupted after %d of %d cases", i, n);
                    break;
                }
                ctrace_add(&s.tr, 'S', i);
                compute_case(&s, i, c->outdir, 0, &payload, &s.data[i], &s.size[i]);
                ctrace_add(&s.tr, 'E', i);
                s.ndone++;
                s.done[i] = 1;
            }
            size_t rec = 0;
            ctrace_add(&s.tr, 'M', i);
            if (!st) st = commit_case(&s, i, &rec, err);
            ctrace_add(&s.tr, 'N', i);
            /* the record after the case's files and rows: complete on disk */
            if (!st && s.done[i] == 1 && rec) {
                journal_add(&jbatch, jfd, i, s.data[i], rec);
                if (util_now_s() - t_flush >= JOURNAL_S) {
                    t_flush = util_now_s();
                    if (journal_flush(&jbatch, jfd))
                        st = kd_error_set(err, KD_ERR_IO, "", KD_LOC_NONE, "cannot write the journal of %s", set->name);
                }
            }
            free(s.data[i]), s.data[i] = NULL;
            s.committed = i + 1;
            progress(&s);
            checkpoint(&s, &t_ck);
        }
        run_buf_free(&payload);
    } else {
        pthread_mutex_init(&s.mu, NULL);
        pthread_cond_init(&s.cv, NULL);
        pthread_cond_init(&s.cv_work, NULL);
        pthread_mutex_init(&s.serve_mu, NULL);
        atomic_init(&s.serving, remote);
        pthread_t* th = calloc((size_t)jobs, sizeof(*th));
        int nth = 0;
        if (th)
            for (; nth < jobs; nth++)
                if (pthread_create(&th[nth], NULL, worker_main, &s)) break;
        if (!th || nth == 0) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "cannot start threads");
        int reported = -1;  /* ndone at the last progress report */
        pthread_mutex_lock(&s.mu);
        if (st) s.stop = 1;
        while (s.committed < n) {
            if (s.done[s.committed]) {  /* every case back from here on, committed in one go */
                const int i0 = s.committed;
                int i1 = i0;
                while (i1 < n && s.done[i1]) i1++;
                pthread_mutex_unlock(&s.mu);
                kd_status cst = KD_OK;
                for (int i = i0; i < i1; i++) {
                    if (!st && !cst) {
                        size_t rec = 0;
                        ctrace_add(&s.tr, 'M', i);
                        cst = commit_case(&s, i, &rec, err);
                        ctrace_add(&s.tr, 'N', i);
                        /* the record after the case's files and rows: complete on disk */
                        if (!cst && s.done[i] == 1 && rec) journal_add(&jbatch, jfd, i, s.data[i], rec);
                    }
                    free(s.data[i]), s.data[i] = NULL;
                }
                if (!st && !cst && jbatch.size && util_now_s() - t_flush >= JOURNAL_S) {
                    t_flush = util_now_s();
                    if (journal_flush(&jbatch, jfd))
                        cst = kd_error_set(err, KD_ERR_IO, "", KD_LOC_NONE, "cannot write the journal of %s", set->name);
                }
                pthread_mutex_lock(&s.mu);
                if (cst) st = cst, s.stop = 1;
                s.committed = i1;
                if (s.work_waiting || s.stop) pthread_cond_broadcast(&s.cv_work);
                pthread_mutex_unlock(&s.mu);
                progress(&s);
                if (!st) checkpoint(&s, &t_ck);
                serve_some(&s, 0.0);
                pthread_mutex_lock(&s.mu);
                continue;
            }
            if (s.stop && (s.outstanding == 0 || s.remote_failed)) break;  /* nothing more will come */
            if (jbatch.size) {  /* waiting: the records written meanwhile */
                pthread_mutex_unlock(&s.mu);
                const int jr = journal_flush(&jbatch, jfd);
                pthread_mutex_lock(&s.mu);
                if (jr && !st) {
                    st = kd_error_set(err, KD_ERR_IO, "", KD_LOC_NONE, "cannot write the journal of %s", set->name);
                    s.stop = 1;
                    pthread_cond_broadcast(&s.cv_work);
                }
                continue;
            }
            /* MPI: every SERVE_BACKSTOP_NS this thread serves the other ranks too (without
             * waiting), should the computing threads be inside long cases */
            const int backstop = atomic_load(&s.serving);
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += backstop ? SERVE_BACKSTOP_NS : 100000000;
            if (ts.tv_nsec >= 1000000000) ts.tv_sec++, ts.tv_nsec -= 1000000000;
            s.main_waiting = 1;
            pthread_cond_timedwait(&s.cv, &s.mu, &ts);
            s.main_waiting = 0;
            if (kd_interrupted() && !s.stop) {
                s.stop = 1;
                pthread_cond_broadcast(&s.cv_work);
            }
            const int ndone = s.ndone;
            pthread_mutex_unlock(&s.mu);
            if (backstop) serve_some(&s, 0.0);
            if (!backstop || ndone != reported) progress(&s), reported = ndone;
            pthread_mutex_lock(&s.mu);
        }
        s.stop = 1;
        pthread_cond_broadcast(&s.cv_work);
        const int committed = s.committed;
        pthread_mutex_unlock(&s.mu);
        for (int k = 0; k < nth; k++) pthread_join(th[k], NULL);
        free(th);
        pthread_cond_destroy(&s.cv);
        pthread_cond_destroy(&s.cv_work);
        pthread_mutex_destroy(&s.mu);
        pthread_mutex_destroy(&s.serve_mu);
        if (!st && s.serve_rc)
            st = kd_error_set(err, KD_ERR_IO, "", KD_LOC_NONE, "%s: lost contact with a rank after %d of %d cases",
                              set->name, committed, n);
        if (!st && committed < n)
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "interrupted after %d of %d cases", committed, n);
    }
    /* the records of the cases committed complete, also after a later error (not once a stop was
     * asked: journal_flush) */
    if (journal_flush(&jbatch, jfd) && !st)
        st = kd_error_set(err, KD_ERR_IO, "", KD_LOC_NONE, "cannot write the journal of %s", set->name);
    run_buf_free(&jbatch);
    ctrace_add(&s.tr, 'Z', n);
    ctrace_dump(&s.tr, o && o->backend ? o->backend->rank : 0);
    for (int i = 0; i < n; i++) free(s.data[i]);
    free(s.data), free(s.size), free(s.done);
    if (jfd >= 0) close(jfd);
    return st;
}
