/* Benchmark of the wiper cycle of a spatial mechanism (docs/performance.md): the rigid cycle
 * (kinematics and the joint reactions by the multipliers at STEPS + 1 instants) and the one-way
 * elastic links (the rigid cycle, each beam body's link built and integrated over the cycle with
 * dt, generalized-alpha). Best of REPEATS wall-clock times.
 * usage: bench_sked MODEL T_END STEPS DT REPEATS */
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

int main(int argc, char** argv) {
    app_blas_threads_default();
    if (argc < 6) {
        fprintf(stderr, "usage: bench_sked MODEL T_END STEPS DT REPEATS\n");
        return 2;
    }
    const double t_end = atof(argv[2]), dt = atof(argv[4]);
    const int steps = atoi(argv[3]), rep = atoi(argv[5]);
    kd_desc* d = NULL;
    kd_smech* m = NULL;
    kd_error err;
    if (kd_load_yaml_file(argv[1], &d, &err) || kd_smech_compile(d, &m, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    const kd_sdesc* sd = d->sdesc;
    double best_rigid = INFINITY, best_elastic = INFINITY, dummy = 0;
    long isteps = 0;
    int nlinks = 0, neq = 0;
    for (int k = 0; k < rep; k++) {
        kd_sked_rigid r;
        double t0 = now();
        if (kd_sked_rigid_solve(m, t_end, steps, 1e8, &r, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        best_rigid = fmin(best_rigid, now() - t0);
        kd_sked_rigid_free(&r);
        t0 = now();
        if (kd_sked_rigid_solve(m, t_end, steps, 1e8, &r, &err)) return 1;
        nlinks = neq = 0, isteps = 0;
        for (int b = 0, mb = 0; b < sd->nbodies; b++) {
            const kd_sbody_desc* B = &sd->bodies[b];
            if (B->ground) continue;
            if (B->beam) {
                kd_sked_link_spec sp;
                memset(&sp, 0, sizeof(sp));
                snprintf(sp.name, sizeof(sp.name), "%s", B->name);
                sp.body = mb;
                memcpy(sp.p1, B->p1, sizeof(sp.p1));
                sp.length = B->length, sp.elements = B->elements, sp.theory = B->theory;
                sp.frame_node = B->frame_node;
                sp.material = d->materials[B->material], sp.section = d->sections[B->section];
                for (int i = 0; i < sd->nforces; i++)
                    if (sd->forces[i].kind == KD_SF_GRAVITY) memcpy(sp.g, sd->forces[i].g, sizeof(sp.g));
                kd_sked_link* L = NULL;
                if (kd_sked_link_new(m, &r, &sp, &L, &err)) {
                    fprintf(stderr, "%s\n", err.msg);
                    return 1;
                }
                kd_analysis_desc ad;
                kd_analysis_desc_init(&ad, KD_ANALYSIS_DYNAMICS);
                ad.dynamics.dt = dt, ad.dynamics.output_every = 1000000;
                kd_integrate_stats is;
                memset(&is, 0, sizeof(is));
                if (kd_sked_link_dynamics(L, &ad.dynamics, sink, &dummy, &is, &err)) {
                    fprintf(stderr, "%s\n", err.msg);
                    return 1;
                }
                isteps += is.steps, nlinks++, neq += L->model->neq;
                kd_sked_link_free(&L);
            }
            mb++;
        }
        best_elastic = fmin(best_elastic, now() - t0);
        kd_sked_rigid_free(&r);
    }
    /* model coordinates steps rigid_s links equations link_steps dt elastic_s */
    printf("wiper %d %d %.6f %d %d %ld %.2e %.6f\n", m->n, steps, best_rigid, nlinks, neq, isteps, dt, best_elastic);
    kd_smech_free(&m);
    kd_desc_free(&d);
    return dummy == 12345.0;
}
