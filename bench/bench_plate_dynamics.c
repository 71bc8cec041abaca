/* One time step of a plate's dynamics analysis from a model file (docs/performance.md):
 *   bench_plate_dynamics MODEL.yaml
 * loads and compiles the model, runs its first analysis (a dynamics one) through kd_dynamics_run
 * and times, on the wall clock, the set-up (until the state at t = 0 is out) and each step (from
 * one output to the next: the loads, the solve, the update and the energy columns). Prints
 *   neq sparse_route compile_s setup_s best_step_s median_step_s steps w_centre_end peak_rss_kib */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "core/util.h"
#include "kedyn/analysis.h"
#include "kedyn/load_yaml.h"

#define MAXSTEPS 1000

typedef struct clock_ctx {
    double t_last, step[MAXSTEPS];
    int n;
    double q_last;
    int eq;
} clock_ctx;

static int on_out(void* ctx, double t, const double* q, const double* v, const double* a, const double* e) {
    (void)t, (void)v, (void)a, (void)e;
    clock_ctx* c = ctx;
    const double now = util_now_s();
    if (c->n < MAXSTEPS && c->t_last > 0) c->step[c->n++] = now - c->t_last;
    if (c->eq >= 0) c->q_last = q[c->eq];
    c->t_last = util_now_s();
    return 0;
}

static int cmp(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: bench_plate_dynamics MODEL.yaml\n");
        return 2;
    }
    kd_error err;
    kd_desc* d = NULL;
    kd_model* m = NULL;
    const double t0 = util_now_s();
    if (kd_load_yaml_file(argv[1], &d, &err) || kd_model_compile(d, &m, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    const double t1 = util_now_s();
    clock_ctx c = {.eq = -1};
    for (int nd = 0; nd < m->nnode; nd++)  /* w of the node nearest the plate's centre of (0.1, 0.08) */
        if (fabs(m->node_x[3 * nd] - 0.1) < 1e-9 && fabs(m->node_x[3 * nd + 1] - 0.08) < 1e-9)
            for (int i = m->node_dof_adr[nd]; i < m->node_dof_adr[nd] + m->node_dof_num[nd]; i++)
                if (m->dof_name[i] == KD_DOF_W) c.eq = m->dof_eq[i];
    kd_integrate_stats st;
    const int sparse = kd_dynamics_sparse_route(m, &d->analyses[0]);
    if (kd_dynamics_run(m, &d->analyses[0], on_out, &c, &st, NULL, 0, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    (void)t1;
    double setup = 0;
    /* set-up: from the compiled model to the output at t = 0 */
    double total_steps = 0;
    for (int k = 0; k < c.n; k++) total_steps += c.step[k];
    setup = c.t_last - t1 - total_steps;
    double sorted[MAXSTEPS];
    memcpy(sorted, c.step, sizeof(double) * (size_t)c.n);
    qsort(sorted, (size_t)c.n, sizeof(double), cmp);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%d %d %.3f %.3f %.4f %.4f %ld %.6e %ld\n", m->neq, sparse, t1 - t0, setup, c.n ? sorted[0] : 0.0,
           c.n ? sorted[c.n / 2] : 0.0, st.steps, c.q_last, ru.ru_maxrss);
    kd_model_free(&m);
    kd_desc_free(&d);
    return 0;
}
