/* Benchmark of spatial rigid mechanisms (docs/performance.md):
 *   bench_spatial chain N [STEPS]  a spatial chain of N rods (7 Euler-parameter coordinates each)
 *                                  hanging from ground by spherical joints, released bent out of
 *                                  its plane with a spin, under gravity: cost per rk4 step of the
 *                                  augmented formulation with projection (4 evaluations, each a
 *                                  block Cholesky of the 7 x 7 mass blocks and a sparse Cholesky
 *                                  of Phi_q M^-1 Phi_q^T), best of 3. STEPS default 100, 20, 5
 *                                  for N < 1000, < 10 000, >= 10 000.
 * Prints: case N n nc steps total_s per_step_s per_body_step_us drift energy_rel peak_rss_kib. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

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

int main(int argc, char** argv) {
    app_blas_threads_default();
    if (argc < 3 || strcmp(argv[1], "chain")) {
        fprintf(stderr, "usage: bench_spatial chain N [STEPS]\n");
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
    /* released at rest (the dense velocity projection of kd_smech_solve_velocity is for small
     * mechanisms; the forward solver projects sparsely) */
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
