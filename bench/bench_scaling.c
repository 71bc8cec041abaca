/* Benchmark: the costs a distributed solver of one large model extrapolates from (docs/scaling.md).
 * The simply supported thesis plate (bench_plate.c's: a = 0.2, b = 0.16, t = 1 mm, steel, MITC4,
 * 3 DOF per node) on an nx x ny mesh: K and M assembled in compressed columns (upper triangle,
 * kd_assemble_stiffness_mass_csc), then the stages of the shift-invert eigen-solver of the sparse
 * path (src/numerics/eigen_cholmod.c) timed one by one: CHOLMOD's analysis (fill-reducing
 * ordering, symbolic factor), the numeric factorisation of K - sigma M (sigma = -1: positive
 * definite), one solve with the factor, one sparse product M x. Prints one line:
 *   nx ny dof nnz_K_upper assemble_s analyse_s factor_s solve_s matvec_s nnz_L flops_factor ordering peak_rss_kib
 * usage: bench_scaling NX NY   (one size per process: its peak memory is its own) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <cholmod.h>

#include "blas_threads.h"
#include "core/util.h"
#include "kedyn/kedyn.h"
#include "numerics/csc_order.h"

static const double A = 0.2, B = 0.16, T = 0.001, E = 210e9, RHO = 7800, NU = 0.3;

/* The plate with w fixed on its four edges (node sets by coordinate, as a model file's). */
static kd_desc* plate(int nx, int ny) {
    kd_desc* d = kd_desc_new();
    kd_material_desc* mat = kd_desc_add_material(d);
    snprintf(mat->name, sizeof(mat->name), "steel");
    mat->E = E, mat->rho = RHO, mat->nu = NU;
    kd_body_desc* b = kd_desc_add_body(d);
    snprintf(b->name, sizeof(b->name), "plate");
    b->type = KD_BODY_PLATE, b->material = 0, b->thickness = T, b->theory = KD_THEORY_MINDLIN;
    b->interpolation = KD_INTERP_MITC4, b->planar = 0;
    b->mesh.source = KD_MESH_RECTANGLE;
    b->mesh.size[0] = A, b->mesh.size[1] = B, b->mesh.divisions[0] = nx, b->mesh.divisions[1] = ny;
    if (kd_mesh_rectangle(&b->mesh, 4)) return NULL;
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
    const int nx = argc > 1 ? atoi(argv[1]) : 100, ny = argc > 2 ? atoi(argv[2]) : 80;
    if (nx < 1 || ny < 1) {
        fprintf(stderr, "usage: bench_scaling NX NY\n");
        return 2;
    }
    kd_error err;
    kd_desc* d = plate(nx, ny);
    kd_model* m = NULL;
    if (!d || kd_model_compile(d, &m, &err)) {
        fprintf(stderr, "bench_scaling: %s\n", d ? err.msg : "mesh");
        return 1;
    }
    kd_csc K, M;
    const double t0 = util_now_s();
    if (kd_assemble_stiffness_mass_csc(m, &K, &M, &err)) {
        fprintf(stderr, "bench_scaling: %s\n", err.msg);
        return 1;
    }
    const double t1 = util_now_s();
    const int n = K.n;
    cholmod_common cc;
    cholmod_start(&cc);
    cholmod_sparse Kv = csc_cholmod_view(&K), Mv = csc_cholmod_view(&M);
    double alpha[2] = {1, 0}, beta[2] = {1, 0};  /* K - sigma M, sigma = -1 */
    cholmod_sparse* S = cholmod_add(&Kv, &Mv, alpha, beta, 1, 1, &cc);
    const double t2 = util_now_s();
    cholmod_factor* L = S ? cholmod_analyze(S, &cc) : NULL;
    const double t3 = util_now_s();
    if (!L || !cholmod_factorize(S, L, &cc) || cc.status != CHOLMOD_OK) {
        fprintf(stderr, "bench_scaling: CHOLMOD failed (status %d)\n", cc.status);
        return 3;
    }
    const double t4 = util_now_s();
    const double flops = cc.fl, lnz = cc.lnz;
    const int ordering = L->ordering;
    cholmod_dense* b = cholmod_ones((size_t)n, 1, CHOLMOD_REAL, &cc);
    const double t5 = util_now_s();
    cholmod_dense* x = cholmod_solve(CHOLMOD_A, L, b, &cc);
    const double t6 = util_now_s();
    double* y = malloc(sizeof(double) * (size_t)n);
    const double t7 = util_now_s();
    kd_csc_matvec(&M, (const double*)x->x, y);
    const double t8 = util_now_s();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    const char* ord = ordering == CHOLMOD_METIS ? "metis" : ordering == CHOLMOD_AMD ? "amd"
                      : ordering == CHOLMOD_NESDIS ? "nesdis" : "other";
    printf("%d %d %d %d %.4f %.4f %.4f %.4f %.5f %.0f %.4g %s %ld\n", nx, ny, n, K.p[n], t1 - t0, t3 - t2, t4 - t3,
           t6 - t5, t8 - t7, lnz, flops, ord, ru.ru_maxrss);
    free(y);
    cholmod_free_dense(&x, &cc);
    cholmod_free_dense(&b, &cc);
    cholmod_free_factor(&L, &cc);
    cholmod_free_sparse(&S, &cc);
    cholmod_finish(&cc);
    kd_csc_free(&K);
    kd_csc_free(&M);
    kd_model_free(&m);
    kd_desc_free(&d);
    return 0;
}
