/* Benchmarks of the moving-frame dynamics (docs/performance.md):
 *   bench_dynamics bar N       the seed 001 rotating bar (1 m, 1 kg, 0.2 cm^2,
 *                              15 rad/s, tip force 10 sin(200 t)) with N bar
 *                              elements over 0.1 s, generalized-alpha,
 *                              dt = 1e-5 s (10 000 steps); best of 5.
 *   bench_dynamics step N      cost per step of a planar Euler-Bernoulli
 *                              cantilever with N elements spinning up (the
 *                              matrices change every step: assembly,
 *                              factorisation and solve), 20 steps (or the
 *                              third argument); the run includes the set-up
 *                              (system, quasi-static start), so the marginal
 *                              cost of a step is the difference of two runs.
 * Prints: case elements dof steps total_s per_step_s peak_rss_kib. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "kedyn/kedyn.h"
#include "kedyn/analysis.h"
#include "blas_threads.h"
#include "core/util.h"

static int discard(void* ctx, double t, const double* q, const double* v, const double* a, const double* e) {
    (void)t, (void)v, (void)a, (void)e;
    double* sink = ctx;
    *sink += q[0];
    return 0;
}

static kd_desc* model(int bar, int nelem, int nsteps) {
    kd_desc* d = kd_desc_new();
    kd_material_desc* mat = kd_desc_add_material(d);
    snprintf(mat->name, sizeof(mat->name), "m");
    mat->E = bar ? 210e9 : 2.8e11, mat->rho = bar ? 50000 : 12000;
    kd_section_desc* s = kd_desc_add_section(d);
    snprintf(s->name, sizeof(s->name), "s");
    s->shape = KD_SHAPE_GENERIC, s->A = bar ? 2e-5 : 1e-4, s->Iy = s->Iz = bar ? 1e-11 : 5e-8, s->J = 2 * s->Iy;
    kd_body_desc* b = kd_desc_add_body(d);
    snprintf(b->name, sizeof(b->name), "b");
    b->type = KD_BODY_BEAM, b->material = 0, b->section = 0, b->length = bar ? 1.0 : 10.0, b->elements = nelem;
    b->theory = bar ? KD_THEORY_BAR : KD_THEORY_EULER_BERNOULLI;
    kd_support_desc* sup = kd_desc_add_support(d);
    sup->body = 0, sup->node = 1, sup->fix = KD_FIX_ALL;
    kd_motion_desc* md = kd_desc_add_motion(d);
    md->body = 0, md->motion.type = KD_MOTION_ROTATION, md->motion.axis[2] = 1;
    md->motion.angle = kd_law_constant(0);
    if (bar) {
        md->motion.angle.type = KD_LAW_SPEED, md->motion.angle.value = 15;
        kd_load_desc* ld = kd_desc_add_load(d);
        ld->type = KD_LOAD_NODAL, ld->body = 0, ld->node = nelem + 1, ld->dof = KD_DOF_U;
        ld->value = kd_law_constant(0);
        ld->value.type = KD_LAW_SINE, ld->value.amplitude = 10, ld->value.omega = 200;
    } else {
        md->motion.angle.type = KD_LAW_SPIN_UP, md->motion.angle.spin_omega = 6, md->motion.angle.spin_T = 15;
    }
    kd_dynamics_desc* a = &kd_desc_add_analysis(d, KD_ANALYSIS_DYNAMICS)->dynamics;
    a->integrator = KD_INTEGRATOR_GENERALIZED_ALPHA, a->rho_inf = 1.0;
    a->t_end = bar ? 0.1 : nsteps * 1e-3, a->dt = bar ? 1e-5 : 1e-3, a->output_every = bar ? 1 : 1000;
    return d;
}

int main(int argc, char** argv) {
    app_blas_threads_default();  /* one BLAS thread unless OPENBLAS_NUM_THREADS is set */
    if (argc < 3) {
        fprintf(stderr, "usage: bench_dynamics bar|step N [steps]\n");
        return 2;
    }
    const int bar = strcmp(argv[1], "bar") == 0, nelem = atoi(argv[2]), nsteps = argc > 3 ? atoi(argv[3]) : 20;
    if (nsteps < 1) {
        fprintf(stderr, "the number of steps must be positive\n");
        return 2;
    }
    kd_desc* d = model(bar, nelem, nsteps);
    kd_error err;
    kd_model* m = NULL;
    if (kd_model_compile(d, &m, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    double best = INFINITY, sink = 0;
    long steps = 0;
    for (int r = 0; r < (bar ? 5 : 3); r++) {
        kd_integrate_stats st;
        const double t0 = util_now_s();
        if (kd_dynamics_run(m, &d->analyses[0], discard, &sink, &st, NULL, 0, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return 3;
        }
        best = fmin(best, util_now_s() - t0);
        steps = st.steps;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%s %d %d %ld %.6f %.3e %ld\n", bar ? "bar" : "step", nelem, m->neq, steps, best, best / (double)steps,
           ru.ru_maxrss);
    kd_model_free(&m);
    kd_desc_free(&d);
    return sink == 12345.678;  /* keep the sink alive */
}
