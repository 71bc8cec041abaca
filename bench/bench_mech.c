/* Benchmarks of the mechanism solvers (docs/performance.md, "Mechanisms"):
 *   bench_mech file MODEL.yaml STEPS   kinematics, then kinematics with both
 *                                       inverse-dynamics routes, of a model file
 *                                       over the t_end of its first analysis
 *   bench_mech chain N STEPS            an open chain of N bars, every joint driven
 *                                       by a sine law, gravity: cost per step as N
 *                                       grows (dense LAPACK: O(N^3))
 * Prints: case n nc steps kin_s kin_per_step_s inv_s inv_per_step_s; best of 5. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/load_yaml.h"
#include "kedyn/mech.h"
#include "blas_threads.h"
#include "core/util.h"

typedef struct inv_ctx {
    const kd_mech* m;
    kd_mech_work* w;
    kd_mech_reactions r1, r2;
    double sink;
} inv_ctx;

static int inverse_both(void* ctx, double t, const double* q, const double* qd, const double* qdd,
                        const kd_mech_kin_info* info) {
    (void)info;
    inv_ctx* c = ctx;
    kd_error err;
    if (kd_mech_inverse_multipliers(c->m, c->w, t, q, qd, NULL, &c->r1, &err) ||
        kd_mech_inverse_projection(c->m, c->w, t, q, qd, qdd, &c->r2, &err))
        return 1;
    c->sink += c->r1.lambda[0];
    return 0;
}

static int bench(const char* name, kd_desc* d, double t_end, int steps) {
    kd_error err;
    kd_mech* m = NULL;
    if (kd_mech_compile(d, &m, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    double best_kin = INFINITY, best_inv = INFINITY;
    for (int rep = 0; rep < 5; rep++) {
        kd_mech_kin_stats ks;
        double t0 = util_now_s();
        if (kd_mech_kinematics(m, t_end, steps, 1e12, NULL, NULL, &ks, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        best_kin = fmin(best_kin, util_now_s() - t0);
        inv_ctx c;
        memset(&c, 0, sizeof(c));
        c.m = m;
        c.w = kd_mech_work_new(m);
        kd_mech_reactions_alloc(m, &c.r1);
        kd_mech_reactions_alloc(m, &c.r2);
        t0 = util_now_s();
        if (kd_mech_kinematics(m, t_end, steps, 1e12, inverse_both, &c, &ks, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        best_inv = fmin(best_inv, util_now_s() - t0);
        kd_mech_reactions_free(&c.r1);
        kd_mech_reactions_free(&c.r2);
        kd_mech_work_free(&c.w);
    }
    printf("%s %d %d %d %.4e %.4e %.4e %.4e\n", name, m->n, m->nc, steps + 1, best_kin, best_kin / (steps + 1), best_inv,
           best_inv / (steps + 1));
    kd_mech_free(&m);
    return 0;
}

int main(int argc, char** argv) {
    app_blas_threads_default();  /* one BLAS thread unless OPENBLAS_NUM_THREADS is set */
    if (argc != 4) {
        fprintf(stderr, "usage: bench_mech file MODEL.yaml STEPS | chain N STEPS\n");
        return 2;
    }
    const int steps = atoi(argv[3]);
    kd_desc* d = NULL;
    kd_error err;
    double t_end = 1.0;
    char name[256];
    if (strcmp(argv[1], "file") == 0) {
        if (kd_load_yaml_file(argv[2], &d, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        if (d->nanalyses > 0) t_end = d->analyses[0].kinematics.t_end;
        const char* base = strrchr(argv[2], '/');
        snprintf(name, sizeof(name), "%s", base ? base + 1 : argv[2]);
    } else {
        const int n = atoi(argv[2]);
        const size_t cap = 4096 + (size_t)n * 512;
        char* y = malloc(cap);
        size_t len = (size_t)snprintf(y, cap, "kedyn: 1\nbodies:\n  - {name: g, type: ground, points: {O: [0, 0]}}\n");
        for (int i = 0; i < n; i++)
            len += (size_t)snprintf(y + len, cap - len,
                                    "  - {name: b%d, type: rigid, mass: 1, inertia: 0.0833, com: [0.5, 0], points: {O: [0, 0], E: [1, 0]},"
                                    " position: [%d, 0]}\n",
                                    i, i);
        len += (size_t)snprintf(y + len, cap - len, "joints:\n");
        for (int i = 0; i < n; i++) {
            char prev[32];
            snprintf(prev, sizeof(prev), i ? "b%d" : "g", i - 1);
            len += (size_t)snprintf(y + len, cap - len, "  - {name: j%d, type: revolute, bodies: [%s, b%d], points: [%s, O]}\n",
                                    i, prev, i, i ? "E" : "O");
        }
        len += (size_t)snprintf(y + len, cap - len, "drivers:\n");
        for (int i = 0; i < n; i++)
            len += (size_t)snprintf(y + len, cap - len, "  - {joint: j%d, law: {sine: {amplitude: 0.3, omega: %g}}}\n", i,
                                    2.0 + 0.1 * i);
        snprintf(y + len, cap - len, "forces:\n  - {type: gravity, g: [0, -9.81]}\n");
        if (kd_load_yaml_string(y, strlen(y), "chain", &d, &err)) {
            fprintf(stderr, "%d:%d %s\n", err.loc.line, err.loc.col, err.msg);
            return 1;
        }
        free(y);
        snprintf(name, sizeof(name), "chain%d", n);
    }
    const int rc = bench(name, d, t_end, steps);
    kd_desc_free(&d);
    return rc;
}
