/* Benchmark of the wiper cycle of a spatial mechanism (docs/performance.md): the rigid cycle
 * (kinematics and the joint reactions by the multipliers at STEPS + 1 instants) and the one-way
 * elastic links (on that rigid cycle, each beam body's link built and integrated over the cycle
 * with dt, generalized-alpha), by the affine step, by the plain moving-frame system's step
 * (kd_sked_link.plain_step) and projected on MODES modes with static corrections
 * (kd_sked_link_spec.modes, theory.md sec. 12.11) in turn in the same run. Best of REPEATS
 * wall-clock times.
 * usage: bench_sked MODEL T_END STEPS DT REPEATS [MODES] (DT = 0: the rigid cycle alone; MODES
 * default 8) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/blas_threads.h"
#include "kedyn/load_yaml.h"
#include "kedyn/sdesc.h"
#include "kedyn/sked.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int sink(void* ctx, int link, double t, const double* q, const double* v, const double* a) {
    (void)link, (void)t, (void)v, (void)a;
    double* x = ctx;
    *x += q[0];
    return 0;
}

/* Build and integrate every beam body's link over the rigid cycle r; plain: the moving-frame
 * system's step (every step assembled and factorised), else modes > 0: the modal link, else the
 * affine step. Returns 0 or 1. */
static int elastic(const kd_desc* d, const kd_smech* m, const kd_sked_rigid* r, double dt, int plain, int modes,
                   double* dummy,
                   int* nlinks, int* neq, long* isteps, long* nfact) {
    const kd_sdesc* sd = d->sdesc;
    kd_error err;
    *nlinks = *neq = 0, *isteps = *nfact = 0;
    for (int b = 0, mb = 0; b < sd->nbodies; b++) {
        const kd_sbody_desc* B = &sd->bodies[b];
        if (B->ground) continue;
        if (B->beam) {
            kd_sked_link_spec sp;
            kd_sked_link_spec_of(d, b, mb, &sp);
            sp.modes = modes, sp.statics = 1;
            kd_sked_link* L = NULL;
            if (kd_sked_link_new(m, r, &sp, &L, &err)) {
                fprintf(stderr, "%s\n", err.msg);
                return 1;
            }
            L->plain_step = plain;
            kd_analysis_desc ad;
            kd_analysis_desc_init(&ad, KD_ANALYSIS_DYNAMICS);
            ad.dynamics.dt = dt, ad.dynamics.output_every = 1000000;
            kd_integrate_stats is;
            memset(&is, 0, sizeof(is));
            if (kd_sked_link_dynamics(L, &ad.dynamics, sink, dummy, &is, &err)) {
                fprintf(stderr, "%s\n", err.msg);
                return 1;
            }
            *isteps += is.steps, *nfact += is.factorizations, ++*nlinks, *neq += L->model->neq;
            kd_sked_link_free(&L);
        }
        mb++;
    }
    return 0;
}

int main(int argc, char** argv) {
    app_blas_threads_default();
    if (argc < 6) {
        fprintf(stderr, "usage: bench_sked MODEL T_END STEPS DT REPEATS [MODES]\n");
        return 2;
    }
    const double t_end = atof(argv[2]), dt = atof(argv[4]);
    const int steps = atoi(argv[3]), rep = atoi(argv[5]), modes = argc > 6 ? atoi(argv[6]) : 8;
    kd_desc* d = NULL;
    kd_smech* m = NULL;
    kd_error err;
    if (kd_load_yaml_file(argv[1], &d, &err) || kd_smech_compile(d, &m, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    double best_rigid = INFINITY, best_elastic = INFINITY, best_plain = INFINITY, best_modal = INFINITY, dummy = 0;
    long isteps = 0, nfact = 0, nfact_plain = 0;
    int nlinks = 0, neq = 0;
    for (int k = 0; k < rep; k++) {
        kd_sked_rigid r;
        double t0 = now();
        if (kd_sked_rigid_solve(m, t_end, steps, 1e8, &r, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        best_rigid = fmin(best_rigid, now() - t0);
        /* the links alone (the rigid cycle above): the affine step, the plain step and the
         * modal link in turn */
        for (int kind = 0; kind < 3 && dt > 0; kind++) {
            long is = 0, nf = 0;
            int nl, ne;
            t0 = now();
            if (elastic(d, m, &r, dt, kind == 1, kind == 2 ? modes : 0, &dummy, &nl, &ne, &is, &nf)) return 1;
            const double el = now() - t0;
            if (kind == 1) best_plain = fmin(best_plain, el), nfact_plain = nf;
            else if (kind == 2) best_modal = fmin(best_modal, el);
            else best_elastic = fmin(best_elastic, el), nfact = nf, isteps = is, nlinks = nl, neq = ne;
        }
        kd_sked_rigid_free(&r);
    }
    /* model coordinates steps rigid_s links equations link_steps dt elastic_s factorisations,
     * then the plain step's elastic_s and factorisations, and the ratio plain / affine, then the
     * modal links' elastic_s and the ratio affine / modal */
    printf("wiper %d %d %.6f %d %d %ld %.2e %.6f %ld plain %.6f %ld ratio %.2f modal %d %.6f ratio %.2f\n", m->n, steps,
           best_rigid, nlinks, neq, isteps, dt, best_elastic, nfact, best_plain, nfact_plain, best_plain / best_elastic,
           modes, best_modal, best_elastic / best_modal);
    kd_smech_free(&m);
    kd_desc_free(&d);
    return dummy == 12345.0;
}
