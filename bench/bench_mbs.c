/* Benchmarks of the forward dynamics of constrained systems (docs/performance.md):
 *   bench_mbs chain N [STEPS]  a planar chain of N pendulum bars (body coordinates, revolute
 *                              joints, gravity): cost per rk4 step of the augmented formulation
 *                              (4 evaluations, each a sparse Cholesky refactorisation of
 *                              Phi_q M^-1 Phi_q^T), best of 3; STEPS (default 200, 50, 10 for
 *                              N < 1000, < 10 000, >= 10 000) sets the number of steps.
 *   bench_mbs ida-chain N      the same chain (0.1 kg, 0.1 m bars, released from a bent shape)
 *                              over 0.1 s with the ida formulation (rtol 1e-8, atol 1e-10):
 *                              cost per IDA step (sparse Newton matrix, KLU), best of 3.
 *   bench_mbs linkage FORM     a closed-loop mechanism of 7 moving bars (three four-bar loops in
 *                              series, 10 revolute joints, one degree of freedom) over 0.03 s of
 *                              motion from a spinning crank under gravity, with the formulation
 *                              FORM (augmented, udwadia-kalaba, maggi, ida), best of 5.
 * Prints: case size n nc steps evaluations total_s per_step_s drift energy_rel peak_rss_kib. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "kedyn/mbs.h"
#include "blas_threads.h"
#include "core/util.h"

#define G 9.81
#define PI 3.14159265358979323846

/* ---- planar bars with revolute joints (body coordinates x, y, phi) ---- */
typedef struct joint {
    int bi, bj;                   /* bj = -1: ground */
    double si, sjx, sjy;          /* joint point: x in body i; in body j (x) or ground (x, y) */
} joint;

typedef struct rig {
    int nb, nj;
    double* m;                    /* (nb) */
    joint* jt;                    /* (nj) */
    double* mass;                 /* (3 nb) */
    int *rowptr, *col;
    kd_cms cms;
} rig;

static int rig_phi(void* ctx, double t, const double* q, double* phi) {
    (void)t;
    const rig* r = ctx;
    for (int k = 0; k < r->nj; k++) {
        const joint* j = &r->jt[k];
        const double* a = q + 3 * j->bi;
        double x = a[0] + cos(a[2]) * j->si, y = a[1] + sin(a[2]) * j->si;
        if (j->bj >= 0) {
            const double* b = q + 3 * j->bj;
            x -= b[0] + cos(b[2]) * j->sjx, y -= b[1] + sin(b[2]) * j->sjx;
        } else x -= j->sjx, y -= j->sjy;
        phi[2 * k] = x, phi[2 * k + 1] = y;
    }
    return 0;
}

static int rig_jac(void* ctx, double t, const double* q, double* jac) {
    (void)t;
    const rig* r = ctx;
    int p = 0;
    for (int k = 0; k < r->nj; k++) {
        const joint* j = &r->jt[k];
        const double pi = q[3 * j->bi + 2];
        const double bi[2] = {-sin(pi) * j->si, cos(pi) * j->si};
        double bj[2] = {0, 0};
        if (j->bj >= 0) bj[0] = -sin(q[3 * j->bj + 2]) * j->sjx, bj[1] = cos(q[3 * j->bj + 2]) * j->sjx;
        for (int c = 0; c < 2; c++) {
            if (j->bj < 0) jac[p++] = 1, jac[p++] = bi[c];
            else if (j->bi < j->bj) jac[p++] = 1, jac[p++] = bi[c], jac[p++] = -1, jac[p++] = -bj[c];
            else jac[p++] = -1, jac[p++] = -bj[c], jac[p++] = 1, jac[p++] = bi[c];
        }
    }
    return 0;
}

static int rig_phit(void* ctx, double t, const double* q, double* pt) {
    (void)t, (void)q;
    memset(pt, 0, sizeof(double) * 2 * ((const rig*)ctx)->nj);
    return 0;
}

static int rig_gamma(void* ctx, double t, const double* q, const double* qd, double* g) {
    (void)t;
    const rig* r = ctx;
    for (int k = 0; k < r->nj; k++) {
        const joint* j = &r->jt[k];
        const double pi = q[3 * j->bi + 2], wi = qd[3 * j->bi + 2];
        g[2 * k] = cos(pi) * j->si * wi * wi, g[2 * k + 1] = sin(pi) * j->si * wi * wi;
        if (j->bj >= 0) {
            const double pj = q[3 * j->bj + 2], wj = qd[3 * j->bj + 2];
            g[2 * k] -= cos(pj) * j->sjx * wj * wj, g[2 * k + 1] -= sin(pj) * j->sjx * wj * wj;
        }
    }
    return 0;
}

static int rig_force(void* ctx, double t, const double* q, const double* qd, double* Q) {
    (void)t, (void)q, (void)qd;
    const rig* r = ctx;
    for (int b = 0; b < r->nb; b++) Q[3 * b] = 0, Q[3 * b + 1] = -r->m[b] * G, Q[3 * b + 2] = 0;
    return 0;
}

static void rig_init(rig* r, int nb, int nj) {
    r->nb = 0, r->nj = 0;
    r->m = malloc(sizeof(double) * nb);
    r->jt = malloc(sizeof(joint) * nj);
    r->mass = malloc(sizeof(double) * 3 * nb);
    r->rowptr = malloc(sizeof(int) * (2 * nj + 1));
    r->col = malloc(sizeof(int) * 8 * nj);
}

static void add_bar(rig* r, double m, double L) {
    r->m[r->nb] = m;
    r->mass[3 * r->nb] = r->mass[3 * r->nb + 1] = m, r->mass[3 * r->nb + 2] = m * L * L / 12;
    r->nb++;
}

static void add_joint(rig* r, int bi, double si, int bj, double sjx, double sjy) {
    r->jt[r->nj++] = (joint){bi, bj, si, sjx, sjy};
}

static void rig_finish(rig* r) {
    int p = 0;
    for (int k = 0; k < r->nj; k++) {
        const joint* j = &r->jt[k];
        for (int c = 0; c < 2; c++) {
            r->rowptr[2 * k + c] = p;
            int lo = j->bi, hi = j->bj;
            if (hi >= 0 && hi < lo) lo = j->bj, hi = j->bi;
            r->col[p++] = 3 * lo + c, r->col[p++] = 3 * lo + 2;
            if (hi >= 0) r->col[p++] = 3 * hi + c, r->col[p++] = 3 * hi + 2;
        }
    }
    r->rowptr[2 * r->nj] = p;
    r->cms = (kd_cms){.n = 3 * r->nb, .nc = 2 * r->nj, .mass = r->mass, .jac_nnz = p, .jac_rowptr = r->rowptr,
                      .jac_col = r->col, .ctx = r, .phi = rig_phi, .jacobian = rig_jac, .phi_t = rig_phit,
                      .gamma = rig_gamma, .force = rig_force};
}

static void rig_free(rig* r) { free(r->m), free(r->jt), free(r->mass), free(r->rowptr), free(r->col); }

static void place(double* q, int b, const double* P, const double* Q) {
    q[3 * b] = 0.5 * (P[0] + Q[0]), q[3 * b + 1] = 0.5 * (P[1] + Q[1]), q[3 * b + 2] = atan2(Q[1] - P[1], Q[0] - P[0]);
}

/* the point C with |C - B| = b, |C - D| = c, on the left of B -> D */
static void circles(const double* B, double b, const double* D, double c, double* C) {
    const double dx = D[0] - B[0], dy = D[1] - B[1], e = hypot(dx, dy);
    const double l = (b * b - c * c + e * e) / (2 * e), h = sqrt(b * b - l * l);
    C[0] = B[0] + l * dx / e - h * dy / e, C[1] = B[1] + l * dy / e + h * dx / e;
}

/* ---- outputs: keep the largest drift and energy-balance error ---- */
typedef struct sink {
    double T0, drift, eerr, escale;
    int n;
} sink;

static int keep(void* ctx, const kd_mbs_sample* s) {
    sink* k = ctx;
    if (k->n++ == 0) k->T0 = s->kinetic;
    k->drift = fmax(k->drift, s->drift_pos);
    k->eerr = fmax(k->eerr, fabs(s->kinetic - k->T0 - s->work));
    k->escale = fmax(k->escale, fmax(fabs(s->work), s->kinetic));
    return 0;
}

static long peak_rss_kib(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static int run(const char* name, int size, rig* r, kd_mbs_opts* o, const double* q, const double* qd, int reps,
               int per_eval) {
    double best = INFINITY;
    kd_mbs_stats st;
    sink k;
    for (int rep = 0; rep < reps; rep++) {
        memset(&k, 0, sizeof(k));
        kd_error err;
        const double t0 = util_now_s();
        if (kd_mbs_forward(&r->cms, o, q, qd, keep, &k, &st, &err)) {
            fprintf(stderr, "bench_mbs: %s\n", err.msg);
            return 1;
        }
        best = fmin(best, util_now_s() - t0);
    }
    printf("%s %d %d %d %ld %ld %.6g %.4g %.2e %.2e %ld\n", name, size, r->cms.n, r->cms.nc, st.steps, st.evaluations,
           best, per_eval ? best / (double)st.steps : best / (double)st.steps, k.drift, k.eerr / k.escale,
           peak_rss_kib());
    return 0;
}

static int chain(int N, int nsteps, int ida) {
    rig r;
    const double l = 0.1;
    rig_init(&r, N, N);
    for (int k = 0; k < N; k++) add_bar(&r, 0.1, l);
    add_joint(&r, 0, -l / 2, -1, 0, 0);
    for (int k = 1; k < N; k++) add_joint(&r, k - 1, l / 2, k, -l / 2, 0);
    rig_finish(&r);
    double* q = malloc(sizeof(double) * 3 * N);
    double* qd = calloc(3 * N, sizeof(double));
    double P[2] = {0, 0};
    for (int k = 0; k < N; k++) {
        const double a = -PI / 2 + 0.8 * cos(0.3 * k);
        const double Q[2] = {P[0] + l * cos(a), P[1] + l * sin(a)};
        place(q, k, P, Q);
        P[0] = Q[0], P[1] = Q[1];
    }
    kd_mbs_opts o;
    kd_mbs_opts_default(&o);
    o.dt = 1e-4;
    const int steps = nsteps > 0 ? nsteps : N >= 10000 ? 10 : N >= 1000 ? 50 : 200;
    o.t_end = steps * o.dt;
    o.output_every = steps;
    if (ida) {
        o.formulation = KD_MBS_IDA;
        o.t_end = 0.1, o.dt = 1e-3, o.output_every = 10;
        o.rtol = 1e-8, o.atol = 1e-10;
    }
    const int st = run(ida ? "ida-chain" : "chain", N, &r, &o, q, qd, 3, 1);
    free(q), free(qd), rig_free(&r);
    return st;
}

static int linkage(const char* form) {
    rig r;
    rig_init(&r, 7, 10);
    const double a = 0.2, b = 0.6, c = 0.5, D = 0.6;
    /* crank 0; loop k = 1..3: coupler 2k-1, rocker 2k (ground pivots at x = k D) */
    add_bar(&r, 0.5, a);
    for (int k = 1; k <= 3; k++) add_bar(&r, 1.0, b), add_bar(&r, 0.8, c);
    add_joint(&r, 0, -a / 2, -1, 0, 0);
    add_joint(&r, 0, a / 2, 1, -b / 2, 0);
    for (int k = 1; k <= 3; k++) {
        const int cp = 2 * k - 1, rk = 2 * k;
        if (k > 1) add_joint(&r, cp, -b / 2, rk - 2, 0, 0);    /* coupler from the previous rocker's middle */
        add_joint(&r, cp, b / 2, rk, c / 2, 0);
        add_joint(&r, rk, -c / 2, -1, k * D, 0);
    }
    rig_finish(&r);
    double q[21], qd[21] = {0};
    const double O[2] = {0, 0}, B[2] = {a * cos(1.0), a * sin(1.0)};
    place(q, 0, O, B);
    double start[2] = {B[0], B[1]};
    for (int k = 1; k <= 3; k++) {
        const double Dk[2] = {k * D, 0};
        double C[2];
        circles(start, b, Dk, c, C);
        place(q, 2 * k - 1, start, C);
        place(q, 2 * k, Dk, C);
        start[0] = 0.5 * (Dk[0] + C[0]), start[1] = 0.5 * (Dk[1] + C[1]);
    }
    qd[2] = 20.0;                 /* crank at 20 rad/s, made consistent by the initial projection */
    kd_mbs_opts o;
    kd_mbs_opts_default(&o);
    const int f = kd_mbs_formulation_parse(form);
    if (f < 0) {
        fprintf(stderr, "bench_mbs: unknown formulation %s\n", form);
        return 2;
    }
    o.formulation = (kd_mbs_formulation)f;
    o.t_end = 0.03, o.dt = 1e-4, o.output_every = 10;
    o.rtol = 1e-8, o.atol = 1e-10;
    if (o.formulation == KD_MBS_MAGGI) o.stabilization = KD_MBS_STAB_NONE;
    char name[64];
    snprintf(name, sizeof(name), "linkage-%s", form);
    const int st = run(name, 7, &r, &o, q, qd, 5, 0);
    rig_free(&r);
    return st;
}

int main(int argc, char** argv) {
    app_blas_threads_default();  /* one BLAS thread unless OPENBLAS_NUM_THREADS is set */
    if ((argc == 3 || argc == 4) && strcmp(argv[1], "chain") == 0) return chain(atoi(argv[2]), argc == 4 ? atoi(argv[3]) : 0, 0);
    if (argc == 3 && strcmp(argv[1], "ida-chain") == 0) return chain(atoi(argv[2]), 0, 1);
    if (argc == 3 && strcmp(argv[1], "linkage") == 0) return linkage(argv[2]);
    fprintf(stderr, "usage: bench_mbs chain N [STEPS] | bench_mbs ida-chain N | bench_mbs linkage augmented|udwadia-kalaba|maggi|ida\n");
    return 2;
}
