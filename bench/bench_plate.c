/* Benchmark: lowest 15 modes of a simply supported rectangular Kirchhoff
 * plate (the thesis plate: a = 0.2, b = 0.16, t = 1 mm, steel) on an
 * nx x ny structured mesh of 4-node quadrilaterals, built in code (no
 * parser), timed from description to eigenpairs. Prints one line:
 *   nx ny interp dof half_bandwidth solver-factor mesh_s compile_s solve_s total_s omega1 rel_err1 peak_rss_kib
 * Run one size per process so that the peak memory is that size's own.
 * usage: bench_plate NX NY [acm|mitc4|bfs|dkt] [repeats]  (best of repeats, default 1) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "kedyn/kedyn.h"
#include "blas_threads.h"
#include "core/util.h"

static const double A = 0.2, B = 0.16, T = 0.001, E = 210e9, RHO = 7800, NU = 0.3;

/* The plate with w fixed on its four edges (node sets by coordinate, as a model file's). */
static kd_desc* plate(int nx, int ny, kd_theory th, kd_interp ip, int elem_nnode) {
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
    for (int e = 0; e < 4; e++) {
        kd_node_set_desc s = {0};
        s.axes = 1u << (e / 2);
        s.lo[e / 2] = s.hi[e / 2] = (e % 2) * (e / 2 ? B : A);
        if (kd_node_set_select(&b->mesh, &s)) return NULL;
        for (int k = 0; k < s.nnodes; k++) {
            kd_support_desc* sup = kd_desc_add_support(d);
            sup->body = 0, sup->node = s.nodes[k], sup->fix = 1u << KD_DOF_W;
            b = &d->bodies[0];
        }
        free(s.nodes);
    }
    return d;
}

int main(int argc, char** argv) {
    app_blas_threads_default();  /* one BLAS thread unless OPENBLAS_NUM_THREADS is set */
    int nx = argc > 1 ? atoi(argv[1]) : 100;
    const int ny = argc > 2 ? atoi(argv[2]) : 80;
    const char* name = argc > 3 ? argv[3] : "acm";
    const int repeats = argc > 4 ? atoi(argv[4]) : 1;
    kd_theory th = KD_THEORY_KIRCHHOFF;
    kd_interp ip = KD_INTERP_ACM;
    int nn = 4;
    if (strcmp(name, "mitc4") == 0) th = KD_THEORY_MINDLIN, ip = KD_INTERP_MITC4;
    else if (strcmp(name, "bfs") == 0) ip = KD_INTERP_BFS;
    else if (strcmp(name, "dkt") == 0) ip = KD_INTERP_DKT, nn = 3;
    else if (strcmp(name, "acm") != 0) nx = 0;
    if (nx < 1 || ny < 1 || repeats < 1) {
        fprintf(stderr, "usage: bench_plate NX NY [acm|mitc4|bfs|dkt] [repeats]\n");
        return 2;
    }
    double best_mesh = INFINITY, best_compile = INFINITY, best_solve = INFINITY, best_total = INFINITY, omega1 = 0;
    int dof = 0, band = 0;
    kd_eigen_solver used = KD_EIGEN_AUTO;
    const char* factor = "";
    for (int r = 0; r < repeats; r++) {
        kd_error err;
        const double t0 = util_now_s();
        kd_desc* d = plate(nx, ny, th, ip, nn);
        if (!d) return 1;
        const double t1 = util_now_s();
        kd_model* m = NULL;
        if (kd_model_compile(d, &m, &err)) {
            fprintf(stderr, "bench_plate: %s\n", err.msg);
            return 1;
        }
        const double t2 = util_now_s();
        kd_modes res;
        if (kd_modes_solve(m, 15, KD_EIGEN_AUTO, &res, &err)) {
            fprintf(stderr, "bench_plate: %s\n", err.msg);
            return 3;
        }
        const double t3 = util_now_s();
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
    const double exact = pi * pi * (1 / (A * A) + 1 / (B * B)) * sqrt(D / (RHO * T));
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%d %d %s %d %d %s-%s %.4f %.4f %.4f %.4f %.6f %.2e %ld\n", nx, ny, name, dof, band,
           used == KD_EIGEN_LANCZOS ? "lanczos" : "dense", factor, best_mesh, best_compile, best_solve, best_total, omega1,
           fabs(omega1 - exact) / exact, ru.ru_maxrss);
    return 0;
}
