/* Benchmark: lowest 15 modes of a simply supported rectangular Kirchhoff
 * plate (the thesis plate: a = 0.2, b = 0.16, t = 1 mm, steel) on an
 * nx x ny structured mesh of 4-node quadrilaterals, built in code (no
 * parser), timed from description to eigenpairs. Prints one line:
 *   nx ny interp dof half_bandwidth solver-factor mesh_s compile_s solve_s total_s omega1 rel_err1 peak_rss_kib
 *   cpu_s main_cpu_s
 * (cpu_s: the process's CPU time of the best run, every thread; main_cpu_s: the main thread's, the
 * wall time of an idle machine less memory contention: compare those on a loaded machine).
 * Run one size per process so that the peak memory is that size's own.
 * usage: bench_plate NX NY [acm|mitc4|bfs|dkt] [repeats] [rest|speed|step]
 *   rest   (default) the simply supported plate at rest, kd_modes_solve; rel_err1 against the
 *          closed form
 *   speed  the plate clamped at x = 0 spinning about the y axis at 1 000 rad/s: its lowest 15
 *          modes at speed with the centrifugal pre-stress (kd_modes_speed_sparse: the membrane
 *          pre-stress solve, K + k(omega) + k_g and M in compressed columns, CHOLMOD); compile_s
 *          is 0, solve_s all of it; rel_err1 is omega1 / omega1 at rest - 1 (the stiffening)
 *   step   dynamics of the simply supported plate at rest (Newmark, dt = 1e-6 s) through
 *          kd_dynamics_run: solve_s is one run of 2 steps, total_s of 12 steps; the cost of a
 *          step is (total_s - solve_s) / 10 (printed as omega1); the system uses band storage;
 *          cpu_s is the main thread's CPU time of the 2-step run (set-up), main_cpu_s its CPU
 *          time per step
 *   sparse-step  the same plate, Newmark (b = 1/4, gamma = 1/2, h = 1e-6 s) on the sparse
 *          factorisation (kd_newmark_csc: K, M in compressed columns, M + b h^2 K factored once):
 *          solve_s = assembly and factorisation, total_s = 10 steps under a unit load at the
 *          middle equation, omega1 = wall time per step; cpu_s / main_cpu_s: main-thread CPU of
 *          the set-up / per step
 *   gyro-step  the rotating plate on the sparse gyroscopic step (kd_newmark_gcsc: K + k(omega) + k_g,
 *          M and the Coriolis C in compressed columns, M + gamma h C + b h^2 K factored once by
 *          UMFPACK; Newmark b = 1/4, gamma = 1/2, h = 1e-6 s). Element `membrane`: a Q4 membrane
 *          clamped at x = 0 spinning about its normal at 1 000 rad/s (in-plane Coriolis coupling of
 *          u and v); any other: the speed case above (C = 0 on w, rx, ry). Columns as sparse-step,
 *          the half-bandwidth column printing 1 when C couples */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "kedyn/kedyn.h"
#include "kedyn/analysis.h"
#include "kedyn/modes_gyro_sparse.h"
#include "kedyn/modes_speed.h"
#include "kedyn/newmark_gyro.h"
#include "app_heap.h"
#include "blas_threads.h"
#include "core/util.h"

static const double A = 0.2, B = 0.16, T = 0.001, E = 210e9, RHO = 7800, NU = 0.3;

/* The plate with w fixed on its four edges (node sets by coordinate, as a model file's). */
static kd_desc* plate(int nx, int ny, kd_theory th, kd_interp ip, int elem_nnode, int clamped) {
    const int normal = th == KD_THEORY_MEMBRANE;  /* a membrane spins about its normal (z) */
    kd_desc* d = kd_desc_new();
    kd_material_desc* mat = kd_desc_add_material(d);
    snprintf(mat->name, sizeof(mat->name), "steel");
    mat->E = E, mat->rho = RHO, mat->nu = NU;
    kd_body_desc* b = kd_desc_add_body(d);
    snprintf(b->name, sizeof(b->name), "plate");
    b->type = KD_BODY_PLATE, b->material = 0, b->thickness = T, b->theory = th, b->interpolation = ip, b->planar = 0;
    b->mesh.source = KD_MESH_RECTANGLE;
    b->mesh.size[0] = A, b->mesh.size[1] = B, b->mesh.divisions[0] = nx, b->mesh.divisions[1] = ny;
    if (kd_mesh_rectangle(&b->mesh, elem_nnode)) return NULL;
    for (int e = 0; e < (clamped ? 1 : 4); e++) {  /* clamped: the edge x = 0 only, fixed entirely */
        kd_node_set_desc s = {0};
        s.axes = 1u << (e / 2);
        s.lo[e / 2] = s.hi[e / 2] = (e % 2) * (e / 2 ? B : A);
        if (kd_node_set_select(&b->mesh, &s)) return NULL;
        for (int k = 0; k < s.nnodes; k++) {
            kd_support_desc* sup = kd_desc_add_support(d);
            sup->body = 0, sup->node = s.nodes[k], sup->fix = clamped ? KD_FIX_ALL : 1u << KD_DOF_W;
            b = &d->bodies[0];
        }
        free(s.nodes);
    }
    if (clamped) {  /* spinning about the y axis (in the plate's plane, along the clamped edge) */
        kd_motion_desc* md = kd_desc_add_motion(d);
        md->body = 0, md->motion.type = KD_MOTION_ROTATION, md->motion.axis[normal ? 2 : 1] = 1;
        md->motion.angle = kd_law_constant(0);
        md->motion.angle.type = KD_LAW_SPEED, md->motion.angle.value = 1000;
    }
    return d;
}

static double cpu_now(clockid_t id) {
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int discard(void* ctx, double t, const double* q, const double* v, const double* a, const double* e) {
    (void)t, (void)v, (void)a, (void)e;
    *(double*)ctx += q[0];
    return 0;
}

/* One dynamics run of `steps` Newmark steps of model m (the plate at rest). */
static int dynamics(const kd_model* m, int steps, double* sink) {
    kd_desc* d = kd_desc_new();
    kd_dynamics_desc* a = &kd_desc_add_analysis(d, KD_ANALYSIS_DYNAMICS)->dynamics;
    a->integrator = KD_INTEGRATOR_NEWMARK, a->newmark_beta = 0.25, a->newmark_gamma = 0.5;
    a->dt = 1e-6, a->t_end = steps * 1e-6, a->output_every = 1000000;
    kd_integrate_stats st;
    kd_error err;
    const int rc = kd_dynamics_run(m, &d->analyses[0], discard, sink, &st, NULL, 0, &err);
    if (rc) fprintf(stderr, "bench_plate: %s\n", err.msg);
    kd_desc_free(&d);
    return rc;
}

int main(int argc, char** argv) {
    app_blas_threads_default();  /* one BLAS thread unless OPENBLAS_NUM_THREADS is set */
    app_heap_default();          /* large blocks on reused heap pages, as the command line */
    int nx = argc > 1 ? atoi(argv[1]) : 100;
    const int ny = argc > 2 ? atoi(argv[2]) : 80;
    const char* name = argc > 3 ? argv[3] : "acm";
    const int repeats = argc > 4 ? atoi(argv[4]) : 1;
    const char* what = argc > 5 ? argv[5] : "rest";
    const int speed = strcmp(what, "speed") == 0, step = strcmp(what, "step") == 0;
    const int sstep = strcmp(what, "sparse-step") == 0, gstep = strcmp(what, "gyro-step") == 0;
    if (!speed && !step && !sstep && !gstep && strcmp(what, "rest") != 0) nx = 0;
    kd_theory th = KD_THEORY_KIRCHHOFF;
    kd_interp ip = KD_INTERP_ACM;
    int nn = 4;
    if (strcmp(name, "mitc4") == 0) th = KD_THEORY_MINDLIN, ip = KD_INTERP_MITC4;
    else if (strcmp(name, "bfs") == 0) ip = KD_INTERP_BFS;
    else if (strcmp(name, "dkt") == 0) ip = KD_INTERP_DKT, nn = 3;
    else if (strcmp(name, "membrane") == 0) th = KD_THEORY_MEMBRANE, ip = KD_INTERP_Q4;
    else if (strcmp(name, "acm") != 0) nx = 0;
    if (nx < 1 || ny < 1 || repeats < 1) {
        fprintf(stderr, "usage: bench_plate NX NY [acm|mitc4|bfs|dkt|membrane] [repeats] "
                        "[rest|speed|step|sparse-step|gyro-step]\n");
        return 2;
    }
    double best_cpu = 0, best_main = 0;
    double best_mesh = INFINITY, best_compile = INFINITY, best_solve = INFINITY, best_total = INFINITY, omega1 = 0;
    int dof = 0, band = 0;
    kd_eigen_solver used = KD_EIGEN_AUTO;
    const char* factor = "";
    for (int r = 0; r < repeats; r++) {
        kd_error err;
        const double c0 = cpu_now(CLOCK_PROCESS_CPUTIME_ID), m0 = cpu_now(CLOCK_THREAD_CPUTIME_ID);
        const double t0 = util_now_s();
        kd_desc* d = plate(nx, ny, th, ip, nn, speed || gstep);
        if (!d) return 1;
        const double t1 = util_now_s();
        kd_model* m = NULL;
        if (kd_model_compile(d, &m, &err)) {
            fprintf(stderr, "bench_plate: %s\n", err.msg);
            return 1;
        }
        const double t2 = util_now_s();
        kd_modes res = {0};
        double t3;
        if (step) {  /* 2 steps, then 12: the difference is 10 steps */
            double sink = 0;
            const double mc0 = cpu_now(CLOCK_THREAD_CPUTIME_ID);
            if (dynamics(m, 2, &sink)) return 3;
            const double t21 = util_now_s(), mc1 = cpu_now(CLOCK_THREAD_CPUTIME_ID);
            if (dynamics(m, 12, &sink)) return 3;
            t3 = util_now_s();
            const double mc2 = cpu_now(CLOCK_THREAD_CPUTIME_ID);
            omega1 = fmin(omega1 > 0 ? omega1 : INFINITY, (t3 - t21 - (t21 - t2)) / 10);
            /* main-thread CPU: set-up (the 2-step run) and per step */
            best_cpu = best_cpu > 0 ? fmin(best_cpu, mc1 - mc0) : mc1 - mc0;
            best_main = best_main > 0 ? fmin(best_main, (mc2 - mc1 - (mc1 - mc0)) / 10) : (mc2 - mc1 - (mc1 - mc0)) / 10;
            best_solve = fmin(best_solve, t21 - t2);
            best_total = fmin(best_total, t3 - t21);
            dof = m->neq, band = m->bandwidth, factor = "band";
            kd_model_free(&m);
            kd_desc_free(&d);
            continue;
        }
        if (gstep) {  /* set-up, then 10 steps */
            const double mc0 = cpu_now(CLOCK_THREAD_CPUTIME_ID);
            kd_csc K, M, C = {0};
            int gyro, coupled = 0;
            kd_newmark_gcsc* nm = NULL;
            if (kd_system_stiffness_csc(m, 0.0, &K, &M, &gyro, &err) ||
                kd_system_damping_csc(m, 0.0, &K, &C, &coupled, &err) ||
                kd_newmark_gcsc_init(&K, &M, coupled ? &C : NULL, 1e-6, 0.25, 0.5, 0, 0, &nm)) {
                fprintf(stderr, "bench_plate: sparse gyroscopic Newmark set-up failed\n");
                return 3;
            }
            const int n = m->neq;
            double* q = calloc(4 * (size_t)n, sizeof(double));
            if (!q) return 3;
            q[3 * (size_t)n + (size_t)n / 2] = 1;  /* f: a unit load */
            const double t21 = util_now_s(), mc1 = cpu_now(CLOCK_THREAD_CPUTIME_ID);
            for (int k = 0; k < 10; k++)
                if (kd_newmark_gcsc_step(nm, q + 3 * (size_t)n, q, q + n, q + 2 * (size_t)n)) return 3;
            t3 = util_now_s();
            const double mc2 = cpu_now(CLOCK_THREAD_CPUTIME_ID);
            if (t3 - t21 < best_total) {
                best_cpu = mc1 - mc0, best_main = (mc2 - mc1) / 10;
                omega1 = (t3 - t21) / 10;
            }
            best_solve = fmin(best_solve, t21 - t2);
            best_total = fmin(best_total, t3 - t21);
            dof = m->neq, band = coupled, factor = "umfpack";
            free(q);
            kd_newmark_gcsc_free(&nm);
            kd_csc_free(&K), kd_csc_free(&M), kd_csc_free(&C);
            kd_model_free(&m);
            kd_desc_free(&d);
            continue;
        }
        if (sstep) {  /* set-up, then 10 steps */
            const double mc0 = cpu_now(CLOCK_THREAD_CPUTIME_ID);
            kd_csc K, M;
            kd_newmark_csc* nm = NULL;
            if (kd_assemble_stiffness_mass_csc(m, &K, &M, &err) || kd_newmark_csc_init(&K, &M, 0, 0, 1e-6, 0.25, 0.5, &nm)) {
                fprintf(stderr, "bench_plate: sparse Newmark set-up failed\n");
                return 3;
            }
            const int n = m->neq;
            double* q = calloc(4 * (size_t)n, sizeof(double));
            if (!q) return 3;
            q[3 * (size_t)n + (size_t)n / 2] = 1;  /* f: a unit load */
            const double t21 = util_now_s(), mc1 = cpu_now(CLOCK_THREAD_CPUTIME_ID);
            for (int k = 0; k < 10; k++)
                if (kd_newmark_csc_step(nm, q + 3 * (size_t)n, q, q + n, q + 2 * (size_t)n)) return 3;
            t3 = util_now_s();
            const double mc2 = cpu_now(CLOCK_THREAD_CPUTIME_ID);
            if (t3 - t21 < best_total) {
                best_cpu = mc1 - mc0, best_main = (mc2 - mc1) / 10;
                omega1 = (t3 - t21) / 10;
            }
            best_solve = fmin(best_solve, t21 - t2);
            best_total = fmin(best_total, t3 - t21);
            dof = m->neq, band = m->bandwidth, factor = "cholmod";
            free(q);
            kd_newmark_csc_free(&nm);
            kd_csc_free(&K);
            kd_csc_free(&M);
            kd_model_free(&m);
            kd_desc_free(&d);
            continue;
        }
        if (speed ? kd_modes_speed_sparse(m, 0.0, 15, &res, &err) : kd_modes_solve(m, 15, KD_EIGEN_AUTO, &res, &err)) {
            fprintf(stderr, "bench_plate: %s\n", err.msg);
            return 3;
        }
        t3 = util_now_s();
        if (t3 - t0 < best_total) {
            best_cpu = cpu_now(CLOCK_PROCESS_CPUTIME_ID) - c0;
            best_main = cpu_now(CLOCK_THREAD_CPUTIME_ID) - m0;
        }
        best_mesh = fmin(best_mesh, t1 - t0);
        best_compile = fmin(best_compile, t2 - t1);
        best_solve = fmin(best_solve, t3 - t2);
        best_total = fmin(best_total, t3 - t0);
        omega1 = res.omega[0];
        dof = m->neq;
        band = m->bandwidth;
        used = res.solver;
        factor = res.sparse ? "cholmod" : res.factor == KD_FACTOR_QR ? "qr" : "band";
        kd_modes_free(&res);
        kd_model_free(&m);
        kd_desc_free(&d);
    }
    /* Closed form (simply supported): omega_11 = pi^2 (1/a^2 + 1/b^2) sqrt(D / (rho t)). */
    const double pi = 3.14159265358979323846, D = E * T * T * T / (12 * (1 - NU * NU));
    double exact = pi * pi * (1 / (A * A) + 1 / (B * B)) * sqrt(D / (RHO * T));
    if (speed) {  /* the same cantilever at rest */
        kd_desc* d = plate(nx, ny, th, ip, nn, 1);
        d->motions[0].motion.angle.value = 0;
        kd_model* m = NULL;
        kd_error err;
        kd_modes r0;
        if (kd_model_compile(d, &m, &err) || kd_modes_speed_sparse(m, 0.0, 1, &r0, &err)) {
            fprintf(stderr, "bench_plate: %s\n", err.msg);
            return 3;
        }
        exact = r0.omega[0];
        kd_modes_free(&r0);
        kd_model_free(&m);
        kd_desc_free(&d);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    if (step || sstep || gstep) exact = omega1;
    printf("%d %d %s %d %d %s-%s %.4f %.4f %.4f %.4f %.6f %.2e %ld %.3f %.3f\n", nx, ny, name, dof, band,
           step || sstep || gstep ? "newmark" : used == KD_EIGEN_LANCZOS ? "lanczos" : "dense", factor, best_mesh, best_compile, best_solve, best_total, omega1,
           speed ? omega1 / exact - 1 : fabs(omega1 - exact) / exact, ru.ru_maxrss, best_cpu, best_main);
    return 0;
}
