/* Benchmark of spatial rigid mechanisms (docs/performance.md):
 *   bench_spatial chain N [STEPS]  a spatial chain of N rods (7 Euler-parameter coordinates each)
 *                                  hanging from ground by spherical joints, released bent out of
 *                                  its plane with a spin, under gravity: cost per rk4 step of the
 *                                  augmented formulation with projection (4 evaluations, each a
 *                                  block Cholesky of the 7 x 7 mass blocks and a sparse Cholesky
 *                                  of Phi_q M^-1 Phi_q^T), best of 3. STEPS default 100, 20, 5
 *                                  for N < 1000, < 10 000, >= 10 000.
 *   bench_spatial kin N [STEPS [dense|sparse]]  a driven spatial chain of N rods on revolute
 *                                  joints (axes alternately x and y, each driven at its own
 *                                  speed, scaled by 10 / N above 10 bodies): kinematics (kd_smech_kinematics) over STEPS steps
 *                                  (default 20) with the joint reactions by the multipliers
 *                                  (kd_smech_inverse_multipliers) at every instant, on the sparse
 *                                  LU of Phi_q or the dense SVD path; best of 3.
 *   bench_spatial mob N [dense|sparse]  an undriven chain of N rods hanging on spherical joints
 *                                  (Phi_q 4N x 7N, mobility 3N): the mobility (rank and redundant
 *                                  rows, kd_smech_mobility_at) and the projection of a velocity
 *                                  guess onto Phi_q q' = -Phi_t (kd_smech_solve_velocity), on the
 *                                  sparse QR of Phi_q^T or the dense route; best of 3.
 * mob prints: mob N n nc path dof redundant mobility_s projection_s per_body_us (both, wall)
 * per_body_cpu_us (the process's CPU time) constraint_residual peak_rss_kib.
 * Prints: case N n nc steps total_s per_step_s per_body_step_us drift energy_rel peak_rss_kib;
 * kin: kin N n path steps total_s per_instant_s per_body_instant_us per_body_instant_cpu_us max_cond drive0
 * newton_iterations_per_instant peak_rss_kib (times: best of 3, wall and the thread's CPU time). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "ball_chain.h"
#include "blas_threads.h"
#include "core/util.h"
#include "kedyn/mbs.h"
#include "kedyn/smech.h"

typedef struct rec {
    const kd_smech* m;
    double E0, dE, drift;
    int first;
} rec;

static int out(void* ctx, const kd_mbs_sample* s) {
    rec* r = ctx;
    const double E = kd_smech_kinetic(r->m, s->q, s->qd) + kd_smech_potential(r->m, s->q);
    if (r->first) r->E0 = E, r->first = 0;
    r->dE = fmax(r->dE, fabs(E - r->E0));
    r->drift = fmax(r->drift, s->drift_pos);
    return 0;
}

static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static double proc_cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

typedef struct kin_rec {
    const kd_smech* m;
    kd_smech_reactions re;
    double drive0;
    int bad;
    long iters, instants;
} kin_rec;

static int kin_sink(void* ctx, double t, const double* q, const double* qd, const double* qdd,
                    const kd_smech_info* info) {
    (void)qdd;
    kin_rec* k = ctx;
    k->iters += info->iterations, k->instants++;
    kd_error err;
    if (kd_smech_inverse_multipliers(k->m, t, q, qd, NULL, &k->re, &err)) return k->bad = 1;
    k->drive0 = k->re.drive[0];
    return 0;
}

/* A driven chain: rod b hangs from rod b - 1 (ground for b = 0) on a revolute joint about x or y,
 * driven at (0.5 + 0.1 (b mod 3)) min(1, 10 / N) rad/s from the straight pose (the chain's total
 * bend the same for every N, so that the motion per step, and Newton's work, are comparable). */
static int kin(int N, int steps, int dense) {
    const double L = 0.1, mass = 0.1;
    const double I6[6] = {mass * L * L / 12, mass * L * L / 12, 1e-6, 0, 0, 0};
    double J[9];
    kd_inertia_tensor(I6, J);
    kd_smech* m = kd_smech_new();
    const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, com[3] = {0, 0, -L / 2};
    for (int b = 0; b < N; b++) {
        const double top[3] = {0, 0, -L * b}, P0[3] = {0, 0, b == 0 ? 0 : -L}, P1[3] = {0, 0, 0};
        const double ax[3] = {b % 2 ? 1.0 : 0.0, b % 2 ? 0.0 : 1.0, 0};
        kd_smech_add_body(m, "rod", mass, J, com, top, I3);
        const int j = kd_smech_add_joint(m, "R", KD_SJOINT_REVOLUTE, b - 1, b, P0, P1, ax, NULL, 0);
        const kd_law law = {.type = KD_LAW_SPEED, .value = (0.5 + 0.1 * (b % 3)) * (N > 10 ? 10.0 / N : 1.0)};
        kd_smech_add_driver(m, j, &law, 0.0);
    }
    m->g[2] = -9.81;
    m->linalg = dense ? KD_SMECH_LINALG_DENSE : KD_SMECH_LINALG_SPARSE;
    kd_error err;
    if (kd_smech_finish(m, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    kin_rec k = {m, {0}, 0, 0, 0, 0};
    if (kd_smech_reactions_alloc(m, &k.re)) return 1;
    double best = INFINITY, best_cpu = INFINITY, cmax = 0;
    for (int rep = 0; rep < 3; rep++) {
        const double t0 = util_now_s(), c0 = cpu_now();
        if (kd_smech_kinematics(m, 0.01 * steps, steps, 1e12, kin_sink, &k, &cmax, &err) || k.bad) {
            fprintf(stderr, "%s\n", k.bad ? "inverse dynamics failed" : err.msg);
            return 1;
        }
        best = fmin(best, util_now_s() - t0), best_cpu = fmin(best_cpu, cpu_now() - c0);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("kin %d %d %s %d %.4f %.6g %.4g %.4g %.3g %.9g %.2f %ld\n", N, m->n, dense ? "dense" : "sparse", steps,
           best, best / (steps + 1), 1e6 * best / (steps + 1) / N, 1e6 * best_cpu / (steps + 1) / N, cmax, k.drive0,
           (double)k.iters / k.instants, ru.ru_maxrss);
    kd_smech_reactions_free(&k.re);
    kd_smech_free(&m);
    return 0;
}

static int mob(int N, int dense) {
    kd_smech* m = ball_chain(N);
    kd_error err;
    if (kd_smech_finish(m, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    m->linalg = dense ? KD_SMECH_LINALG_DENSE : KD_SMECH_LINALG_SPARSE;
    const int n = m->n;
    double* v = malloc(sizeof(double) * (size_t)n);
    double* res = malloc(sizeof(double) * (size_t)(m->nc + 1));
    double* jac = malloc(sizeof(double) * (size_t)(m->jac_nnz + 1));
    if (!v || !res || !jac) return 1;
    kd_smech_mobility mb;
    double best_m = INFINITY, best_p = INFINITY, best_cpu = INFINITY;
    for (int rep = 0; rep < 3; rep++) {
        for (int i = 0; i < n; i++) v[i] = 0.3 * sin(1.7 * i + 0.4) + 0.1 * cos(0.3 * i);
        const double t0 = util_now_s(), c0 = proc_cpu_now();
        if (kd_smech_mobility_at(m, 0.0, m->q0, &mb, &err)) break;
        const double t1 = util_now_s();
        if (kd_smech_solve_velocity(m, 0.0, m->q0, v, 1, &err)) break;
        const double t2 = util_now_s();
        best_m = fmin(best_m, t1 - t0), best_p = fmin(best_p, t2 - t1), best_cpu = fmin(best_cpu, proc_cpu_now() - c0);
    }
    if (!isfinite(best_m) || !isfinite(best_p)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    /* |Phi_q q' + Phi_t| after the projection */
    kd_smech_jacobian(m, 0.0, m->q0, jac);
    kd_smech_phi_t(m, 0.0, m->q0, res);
    double r = 0;
    for (int i = 0; i < m->nc; i++) {
        double a = res[i];
        for (int k = m->jac_rowptr[i]; k < m->jac_rowptr[i + 1]; k++) a += jac[k] * v[m->jac_col[k]];
        r = fmax(r, fabs(a));
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("mob %d %d %d %s %d %d %.6g %.6g %.4g %.4g %.2e %ld\n", N, n, m->nc, dense ? "dense" : "sparse", mb.dof,
           mb.nredundant, best_m, best_p, 1e6 * (best_m + best_p) / N, 1e6 * best_cpu / N, r, ru.ru_maxrss);
    free(v), free(res), free(jac);
    kd_smech_free(&m);
    return 0;
}

int main(int argc, char** argv) {
    app_blas_threads_default();
    if (argc >= 3 && !strcmp(argv[1], "mob")) return mob(atoi(argv[2]), argc > 3 && !strcmp(argv[3], "dense"));
    if (argc >= 3 && !strcmp(argv[1], "kin"))
        return kin(atoi(argv[2]), argc > 3 ? atoi(argv[3]) : 20, argc > 4 && !strcmp(argv[4], "dense"));
    if (argc < 3 || strcmp(argv[1], "chain")) {
        fprintf(stderr, "usage: bench_spatial chain N [STEPS] | kin N [STEPS [dense|sparse]] | mob N [dense|sparse]\n");
        return 2;
    }
    const int N = atoi(argv[2]);
    const int steps = argc > 3 ? atoi(argv[3]) : N < 1000 ? 100 : N < 10000 ? 20 : 5;
    const double L = 0.1, mass = 0.1;
    const double I6[6] = {mass * L * L / 12, mass * L * L / 12, 1e-6, 0, 0, 0};
    double J[9];
    kd_inertia_tensor(I6, J);
    kd_smech* m = kd_smech_new();
    const double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    /* rods along z (body axes), hanging down; each tilted a little alternately about x and y */
    double top[3] = {0, 0, 0};
    for (int b = 0; b < N; b++) {
        double R[9];
        const double ax[3] = {b % 2 ? 1.0 : 0.0, b % 2 ? 0.0 : 1.0, 0};
        kd_rot_axis_angle(ax, 0.2 * sin(0.7 * b), R);
        (void)I3;
        const double com[3] = {0, 0, -L / 2};
        kd_smech_add_body(m, "rod", mass, J, com, top, R);
        const double P0[3] = {0, 0, b == 0 ? 0 : -L}, P1[3] = {0, 0, 0};
        kd_smech_add_joint(m, "S", KD_SJOINT_SPHERICAL, b - 1, b, b == 0 ? top : P0, P1, NULL, NULL, 0);
        for (int i = 0; i < 3; i++) top[i] += R[3 * i + 2] * (-L);
    }
    m->g[2] = -9.81;
    kd_error err;
    if (kd_smech_finish(m, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    /* released at rest (the velocity projection of kd_smech_solve_velocity: case `mob`) */
    kd_cms cms;
    kd_smech_cms(m, &cms);
    kd_mbs_opts o;
    kd_mbs_opts_default(&o);
    o.dt = 1e-4, o.t_end = steps * o.dt, o.output_every = steps;
    o.stabilization = KD_MBS_STAB_PROJECTION;
    double best = INFINITY;
    rec r = {0};
    for (int rep = 0; rep < 3; rep++) {
        r = (rec){m, 0, 0, 0, 1};
        const double t0 = util_now_s();
        if (kd_mbs_forward(&cms, &o, m->q0, m->qd0, out, &r, NULL, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        best = fmin(best, util_now_s() - t0);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("chain %d %d %d %d %.4f %.6g %.4g %.2e %.2e %ld\n", N, m->n, m->nc, steps, best, best / steps,
           1e6 * best / steps / N, r.drift, r.dE / fmax(fabs(r.E0), 1e-30), ru.ru_maxrss);
    kd_smech_free(&m);
    return 0;
}
