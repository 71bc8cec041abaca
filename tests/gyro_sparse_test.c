/* The sparse gyroscopic eigensolver (src/numerics/eigen_gyro_sparse.c) and the sparse
 * state-space route of the modes of a moving system (src/analyses/modes_gyro_sparse.c,
 * src/fe/system_damping_csc.c; kedyn/modes_gyro_sparse.h) against independent references:
 *   - isotropic and anisotropic rotors in a rotating frame, coupled by a sparse congruence into
 *     one banded system of 600 equations: closed-form eigenvalues s = i (w_n +- Omega), the
 *     whirl direction of each mode (Y / X = +i for w_n + Omega, -i for w_n - Omega: it flips
 *     with the sign of G), the real divergent pair of an anisotropic rotor between its critical
 *     speeds (the quartic), a rotor at its critical speed (K singular: the shifted LU);
 *   - the Q4 membrane plate of the thesis (180 equations) spinning about its normal against
 *     the dense route (LAPACK dgeev on the scaled pencil of gyro_pencil.c: another algorithm
 *     and another assembly of C, K), with and without the stiffening pre-stress, below and
 *     beyond the divergence speed, and with Rayleigh damping: frequencies, growth rates, the
 *     instability flag and the complex shapes (MAC, which a sign error of G would break);
 *   - the Campbell diagram of examples/rotating_plate_membrane.yaml forced through the sparse
 *     route against the skew-symmetric SVD of L^-1 [[0, K], [-K, -G]] L^-T (Cholesky and SVD,
 *     no nonsymmetric eigensolver);
 *   - examples/rotating_plate_membrane_fine.yaml (2 640 equations, beyond the dense solver) run
 *     end to end from its file: its Campbell diagram at speed 0 against the symmetric modes at
 *     rest (CHOLMOD Lanczos), stable where K + k_g + k(omega) is positive definite. */
#include <complex.h>
#include <lapacke.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gyro_svd_reference.h"
#include "kedyn/kedyn.h"
#include "kedyn/modes_gyro_sparse.h"
#include "kedyn/modes_speed.h"
#include "kedyn/run.h"
#include "model_text.h"

static double rel_err(double a, double b) { return fabs(a - b) / fabs(b); }

/* ---- rotors ------------------------------------------------------------------------------ */

/* Dense n x n column-major matrices to a kd_csc: upper triangle (sym) or both (general). */
static void to_csc(const double* A, int n, int upper, kd_csc* out) {
    out->n = n;
    out->p = calloc((size_t)n + 1, sizeof(int));
    int nnz = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < (upper ? j + 1 : n); i++) nnz += A[i + (size_t)j * n] != 0.0 || i == j;
    out->i = malloc(sizeof(int) * (size_t)nnz);
    out->x = malloc(sizeof(double) * (size_t)nnz);
    nnz = 0;
    for (int j = 0; j < n; j++) {
        for (int i = 0; i < (upper ? j + 1 : n); i++)
            if (A[i + (size_t)j * n] != 0.0 || i == j) out->i[nnz] = i, out->x[nnz++] = A[i + (size_t)j * n];
        out->p[j + 1] = nnz;
    }
}

/* Rotors b = 0 .. p-1 (DOFs 2b, 2b+1) in a frame spinning at Om about their axis
 * (theory.md sec. 3): M = m I, G = 2 m Om [[0, -1], [1, 0]], K = diag(kx, ky) - m Om^2 I; the
 * triple congruence X^T (.) X with X = I + 0.3 U, U upper bidiagonal (entries <= 1): banded,
 * the eigenvalues unchanged, the eigenvectors x = X^-1 q. */
typedef struct rotor_set {
    int n;
    double *M, *G, *K, *X;  /* dense, column-major */
} rotor_set;

static rotor_set rotors(int p, const double* m, const double* wx, const double* wy, double Om, double gsign) {
    const int n = 2 * p;
    rotor_set r = {n, calloc((size_t)n * n, sizeof(double)), calloc((size_t)n * n, sizeof(double)),
                   calloc((size_t)n * n, sizeof(double)), calloc((size_t)n * n, sizeof(double))};
    double* A[3] = {calloc((size_t)n * n, sizeof(double)), calloc((size_t)n * n, sizeof(double)),
                    calloc((size_t)n * n, sizeof(double))};
    for (int b = 0; b < p; b++) {
        const int i = 2 * b, j = i + 1;
        A[0][i + (size_t)i * n] = A[0][j + (size_t)j * n] = m[b];
        A[1][j + (size_t)i * n] = gsign * 2 * m[b] * Om, A[1][i + (size_t)j * n] = -gsign * 2 * m[b] * Om;
        A[2][i + (size_t)i * n] = m[b] * (wx[b] * wx[b] - Om * Om);
        A[2][j + (size_t)j * n] = m[b] * (wy[b] * wy[b] - Om * Om);
    }
    for (int i = 0; i < n; i++) {
        r.X[i + (size_t)i * n] = 1.0;
        if (i + 1 < n) r.X[i + (size_t)(i + 1) * n] = 0.3 * sin(1.7 * i + 0.4);
    }
    double* out[3] = {r.M, r.G, r.K};
    for (int k = 0; k < 3; k++) {
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                double sum = 0;
                for (int a = (i > 1 ? i - 1 : 0); a <= i; a++)       /* X(a, i) != 0: a in {i-1, i} */
                    for (int b = (j > 1 ? j - 1 : 0); b <= j; b++) sum += r.X[a + (size_t)i * n] * A[k][a + (size_t)b * n] * r.X[b + (size_t)j * n];
                out[k][i + (size_t)j * n] = sum;
            }
        free(A[k]);
    }
    return r;
}

static void rotors_free(rotor_set* r) { free(r->M), free(r->G), free(r->K), free(r->X); }

/* The entry of res nearest s (re, im >= 0); its index. */
static int nearest(const kd_gyro_sparse* res, double re, double im) {
    int best = -1;
    double d = HUGE_VAL;
    for (int k = 0; k < res->nconv; k++) {
        const double e = hypot(res->re[k] - re, res->im[k] - im);
        if (e < d) d = e, best = k;
    }
    return best;
}

/* q = X x of entry k's shape, the block b part (complex). */
static void block_shape(const rotor_set* r, const kd_gyro_sparse* res, int k, int b, double complex q[2]) {
    const int n = r->n;
    for (int c = 0; c < 2; c++) {
        const int i = 2 * b + c;
        q[c] = 0;
        for (int a = i; a < n && a <= i + 1; a++)
            q[c] += r->X[i + (size_t)a * n] * (res->vre[(size_t)k * n + a] + I * res->vim[(size_t)k * n + a]);
    }
}

static void solve_rotors(const rotor_set* r, int nev, kd_gyro_sparse* res) {
    kd_csc M, G, K;
    to_csc(r->M, r->n, 1, &M);
    to_csc(r->G, r->n, 0, &G);
    to_csc(r->K, r->n, 1, &K);
    kd_error err;
    if (kd_eigen_gyro_sparse(&K, &M, &G, nev, res, &err)) fail_msg("%s", err.msg);
    kd_csc_free(&M), kd_csc_free(&G), kd_csc_free(&K);
}

/* Isotropic rotors, w_n from 300 to 1.1e5 rad/s, masses 1e-3 to 1, Omega = 50 rad/s: among the
 * 40 eigenvalues nearest 0 are i (w_n +- Omega) of the 6 lowest rotors (w_n - Omega of the 10
 * lowest and w_n + Omega of the 6 lowest are below 433 rad/s), each with its whirl. */
static void check_isotropic(double gsign, int* whirl_ok) {
    enum { P = 300 };
    double m[P], w[P];
    const double Om = 50.0;
    for (int b = 0; b < P; b++) {
        m[b] = pow(10.0, -3.0 + 3.0 * ((b * 37) % P) / (double)P);
        w[b] = b < 100 ? 300.0 * pow(1.05, b) : 300.0 * pow(1.05, 99) * (1.0 + 0.01 * (b - 99));
    }
    rotor_set r = rotors(P, m, w, w, Om, gsign);
    kd_gyro_sparse res;
    solve_rotors(&r, 40, &res);
    assert_int_equal(res.lu, 0);  /* K positive definite: Cholesky at sigma = 0 */
    double worst = 0, worst_g = 0;
    *whirl_ok = 1;
    for (int b = 0; b < 6; b++)
        for (int sgn = -1; sgn <= 1; sgn += 2) {
            const double om = w[b] + sgn * Om;
            const int k = nearest(&res, 0.0, om);
            assert_true(k >= 0);
            worst = fmax(worst, rel_err(res.im[k], om));
            worst_g = fmax(worst_g, fabs(res.re[k]) / om);
            assert_true(fabs(res.re[k]) <= res.tol[k]);
            double complex q[2];
            block_shape(&r, &res, k, b, q);
            const double complex ratio = q[1] / q[0];  /* +i for w_n + Omega, -i for w_n - Omega */
            if (cabs(ratio - sgn * I) > 1e-6) *whirl_ok = 0;
        }
    print_message("isotropic rotors (G sign %+.0f): 12 frequencies w_n +- Omega, worst %.2e, |Re s| / |s| %.2e, "
                  "whirl %s\n",
                  gsign, worst, worst_g, *whirl_ok ? "as the closed form" : "reversed");
    assert_true(worst < 1e-10);
    assert_true(worst_g < 1e-10);
    kd_gyro_sparse_free(&res);
    rotors_free(&r);
}

static void test_isotropic_rotors(void** state) {
    (void)state;
    int ok;
    check_isotropic(1.0, &ok);
    assert_true(ok);
    check_isotropic(-1.0, &ok); /* G of the wrong sign: same frequencies, whirl reversed */
    assert_false(ok);
}

/* Anisotropic rotors between their critical speeds wx < Omega < wy: K indefinite (LU), one real
 * pair s^2 = (-(a + b + 4 Om^2) + sqrt((a + b + 4 Om^2)^2 - 4 a b)) / 2, a = wx^2 - Om^2,
 * b = wy^2 - Om^2 > 0 > a, and a stable pair; a rotor at its critical speed wx = wy = Omega:
 * K singular, s = 0 (double) and +-2 i Omega. */
static void test_divergent_and_singular_rotors(void** state) {
    (void)state;
    enum { P = 200 };
    double m[P], wx[P], wy[P];
    const double Om = 1000.0;
    for (int b = 0; b < P; b++) {
        m[b] = 0.01 + 0.5 * ((b * 13) % 7) / 7.0;
        wx[b] = 3000.0 * pow(1.03, b), wy[b] = 1.2 * wx[b];
    }
    wx[0] = 800.0, wy[0] = 1300.0;  /* divergent */
    wx[1] = wy[1] = Om;             /* at its critical speed */
    rotor_set r = rotors(P, m, wx, wy, Om, 1.0);
    kd_gyro_sparse res;
    solve_rotors(&r, 16, &res);
    assert_int_equal(res.lu, 1);
    const double a = wx[0] * wx[0] - Om * Om, b = wy[0] * wy[0] - Om * Om, c = a + b + 4 * Om * Om;
    const double sp = (-c + sqrt(c * c - 4 * a * b)) / 2, sm = (-c - sqrt(c * c - 4 * a * b)) / 2;
    const double g = sqrt(sp), w = sqrt(-sm);
    int kg = nearest(&res, g, 0.0), kw = nearest(&res, 0.0, w), k0 = nearest(&res, 0.0, 2 * Om);
    print_message("divergent rotor: growth %.10g (closed form %.10g), frequency %.10g (%.10g); critical-speed rotor "
                  "%.10g (%.10g), shift %g, LU %d\n",
                  res.re[kg], g, res.im[kw], w, res.im[k0], 2 * Om, res.sigma, res.lu);
    assert_true(res.im[kg] == 0.0 && rel_err(res.re[kg], g) < 1e-10);
    assert_true(rel_err(res.im[kw], w) < 1e-10 && fabs(res.re[kw]) < 1e-10 * w);
    assert_true(rel_err(res.im[k0], 2 * Om) < 1e-10);
    assert_true(res.re[kg] > res.tol[kg]);  /* resolved from 0: unstable */
    /* -g is there too, and the double 0 of the critical-speed rotor (within its round-off bound) */
    const int kn = nearest(&res, -g, 0.0), kz = nearest(&res, 0.0, 0.0);
    assert_true(rel_err(res.re[kn], -g) < 1e-10);
    assert_true(hypot(res.re[kz], res.im[kz]) <= res.tol[kz] + 1e-6);
    kd_gyro_sparse_free(&res);
    rotors_free(&r);
}

/* ---- the membrane plate ------------------------------------------------------------------ */

static kd_model* membrane(int nx, int ny, int geometric, const char* damping) {
    char text[2048];
    snprintf(text, sizeof text,
             "kedyn: 1\n"
             "materials: {steel: {E: 210e9, rho: 7800, nu: 0.3}}\n"
             "bodies:\n"
             "  - name: plate\n"
             "    type: plate\n"
             "    theory: membrane\n"
             "    interpolation: q4\n"
             "    material: steel\n"
             "    thickness: 0.001\n"
             "    geometric_stiffness: %s\n"
             "    mesh: {rectangle: [0.2, 0.16], divisions: [%d, %d], origin: [0, -0.08, 0]}\n"
             "    node_sets:\n"
             "      root: {x: 0}\n"
             "supports:\n"
             "  - {body: plate, nodes: root, fix: [u, v]}\n"
             "motion:\n"
             "  - {body: plate, rotation: {axis: z, law: {speed: 0}}}\n"
             "%s",
             geometric ? "true" : "false", nx, ny, damping);
    return model_from_text(text);
}

/* |a^H b|^2 / (|a|^2 |b|^2) of complex shapes. */
static double mac(const double* ar, const double* ai, const double* br, const double* bi, int n) {
    double complex ab = 0;
    double aa = 0, bb = 0;
    for (int i = 0; i < n; i++) {
        const double complex x = ar[i] + I * ai[i], y = br[i] + I * bi[i];
        ab += conj(x) * y, aa += creal(conj(x) * x), bb += creal(conj(y) * y);
    }
    return creal(conj(ab) * ab) / (aa * bb);
}

/* Sparse vs dense route at one speed: the lowest `count` entries. */
static void compare_routes(kd_model* m, double speed, int count, int* unstable) {
    kd_motion spin = m->body[0].motion;
    spin.angle = kd_law_constant(0.0);
    spin.angle.type = KD_LAW_SPEED;
    spin.angle.value = speed;
    const kd_motion* motion[1] = {&spin};
    kd_error err;
    kd_modes sp, de;
    if (kd_modes_state_space_sparse(m, motion, 0.0, count, &sp, &err)) fail_msg("sparse: %s", err.msg);
    kd_system s;
    if (kd_system_init(&s, m, &err)) fail_msg("%s", err.msg);
    s.motion[0] = &spin;
    if (kd_modes_state_space(&s, 0.0, count, &de, &err)) fail_msg("dense: %s", err.msg);
    assert_int_equal(de.solver, KD_EIGEN_DENSE);
    assert_int_equal(sp.sparse, 1);
    assert_int_equal(sp.count, count);
    const int n = m->neq;
    double ew = 0, eg = 0, mw = 1;
    for (int k = 0; k < count; k++) {
        const double mag = hypot(de.omega[k], de.growth[k]);
        ew = fmax(ew, fabs(sp.omega[k] - de.omega[k]) / mag);
        eg = fmax(eg, fabs(sp.growth[k] - de.growth[k]) / mag);
        mw = fmin(mw, mac(sp.shape + (size_t)k * n, sp.shape_im + (size_t)k * n, de.shape + (size_t)k * n,
                          de.shape_im + (size_t)k * n, n));
    }
    print_message("membrane at %.0f rad/s: omega_1 %.6f, growth_1 %.6g (dense %.6f, %.6g), %d entries: |d omega| "
                  "%.2e, |d growth| %.2e of |s|, MAC >= %.10f, unstable %d / %d\n",
                  speed, sp.omega[0], sp.growth[0], de.omega[0], de.growth[0], count, ew, eg, mw, sp.unstable,
                  de.unstable);
    assert_true(ew < 1e-9);
    assert_true(eg < 1e-9);
    assert_true(mw > 1 - 1e-8);
    assert_int_equal(sp.unstable, de.unstable);
    *unstable = sp.unstable;
    kd_modes_free(&sp);
    kd_modes_free(&de);
    kd_system_free(&s);
}

static void test_membrane_against_dense(void** state) {
    (void)state;
    kd_model* m = membrane(10, 8, 1, "");
    int unstable;
    const double speeds[] = {0, 6000, 14000, 40000};
    for (int i = 0; i < 4; i++) {
        compare_routes(m, speeds[i], 12, &unstable);
        assert_int_equal(unstable, 0);  /* the pre-stress outweighs the softening (validation.md) */
    }
    kd_model_free(&m);
    /* without the pre-stress the softening -Omega^2 M wins above omega_1 at rest (15 409.8
     * rad/s): real eigenvalues beyond it (an odd index: no gyroscopic stabilisation) */
    m = membrane(10, 8, 0, "");
    const double soft[] = {10000, 20000, 40000};
    for (int i = 0; i < 3; i++) {
        compare_routes(m, soft[i], 12, &unstable);
        assert_int_equal(unstable, soft[i] > 15409.8);
    }
    kd_model_free(&m);
    /* Rayleigh damping in C (zeta = alpha / 2 omega + beta omega / 2: 0.2 % to 2 %) */
    m = membrane(10, 8, 1, "damping:\n  - {body: plate, rayleigh: {alpha: 50, beta: 2e-7}}\n");
    compare_routes(m, 14000, 12, &unstable);
    assert_int_equal(unstable, 0);
    kd_model_free(&m);
}

/* examples/rotating_plate_membrane.yaml's Campbell diagram, 0 to 14 000 rad/s, through the
 * sparse route (KEDYN_GYRO_SPARSE_MIN_DOF = 1), against the skew SVD at each speed. */
static void test_campbell_sparse_vs_svd(void** state) {
    (void)state;
    setenv("KEDYN_GYRO_SPARSE_MIN_DOF", "1", 1);
    kd_desc* d = NULL;
    kd_model* m = NULL;
    kd_error err;
    if (kd_load_yaml_file(KD_EXAMPLES_DIR "/rotating_plate_membrane.yaml", &d, &err)) fail_msg("%s", err.msg);
    if (kd_model_compile(d, &m, &err)) fail_msg("%s", err.msg);
    enum { NS = 8, COUNT = 15 };
    double speeds[NS];
    for (int i = 0; i < NS; i++) speeds[i] = 2000.0 * i;
    kd_campbell cb;
    if (kd_campbell_run(m, 0, speeds, NS, COUNT, &cb, &err)) fail_msg("%s", err.msg);
    unsetenv("KEDYN_GYRO_SPARSE_MIN_DOF");
    kd_system s;
    if (kd_system_init(&s, m, &err)) fail_msg("%s", err.msg);
    const int n = m->neq;
    kd_motion spin = m->body[0].motion;
    spin.angle = kd_law_constant(0.0);
    spin.angle.type = KD_LAW_SPEED;
    s.motion[0] = &spin;
    kd_gband C = {0}, K = {0};
    assert_int_equal(kd_gband_init(&C, n, s.kd, s.kd), KD_OK);
    assert_int_equal(kd_gband_init(&K, n, s.kd, s.kd), KD_OK);
    double worst = 0;
    for (int i = 0; i < NS; i++) {
        spin.angle.value = speeds[i];
        s.have_frames = 0;
        int changed;
        kd_system_matrices(&s, 0.0, &C, &K, &changed);
        double* ref = gyro_svd_reference(&s.M, &C, &K, n);
        for (int k = 0; k < COUNT; k++) worst = fmax(worst, rel_err(cb.omega[(size_t)i * COUNT + k], ref[k]));
        assert_int_equal(cb.unstable[i], 0);
        free(ref);
    }
    print_message("membrane Campbell diagram (sparse route), %d curves at %d speeds vs the skew SVD: worst %.2e\n",
                  COUNT, NS, worst);
    assert_true(worst < 1e-9);
    kd_campbell_free(&cb);
    kd_gband_free(&C);
    kd_gband_free(&K);
    kd_system_free(&s);
    kd_model_free(&m);
    kd_desc_free(&d);
}

/* examples/rotating_plate_membrane_fine.yaml (2 640 equations) run from its file: the modes at
 * 14 000 rad/s and the Campbell diagram take the sparse route; at speed 0 the curves are the
 * symmetric modes at rest (kd_modes_solve: CHOLMOD shift-invert Lanczos), and every speed is
 * stable (K + k_g + k(omega) positive definite at the top speed: CHOLMOD factors it). */
static void test_fine_example_end_to_end(void** state) {
    (void)state;
    kd_desc* d = NULL;
    kd_model* m = NULL;
    kd_error err;
    const char* file = KD_EXAMPLES_DIR "/rotating_plate_membrane_fine.yaml";
    if (kd_load_yaml_file(file, &d, &err)) fail_msg("%s", err.msg);
    if (kd_model_compile(d, &m, &err)) fail_msg("%s", err.msg);
    assert_true(m->neq > KD_GYRO_MAX);
    char dir[] = "/tmp/kd_gyro_sparse_XXXXXX";
    assert_non_null(mkdtemp(dir));
    kd_run_report rep;
    if (kd_run(d, m, file, dir, &rep, &err)) fail_msg("run: %s", err.msg);
    assert_int_equal(rep.complete, 1);
    const kd_modes* r = &rep.analyses[0].modes;
    assert_int_equal(r->count, 15);
    assert_int_equal(r->sparse, 1);
    assert_non_null(r->growth);
    assert_int_equal(r->unstable, 0);
    const kd_campbell* cb = &rep.analyses[1].campbell;
    assert_int_equal(cb->count, 15);
    kd_modes rest;
    if (kd_modes_solve(m, 15, KD_EIGEN_AUTO, &rest, &err)) fail_msg("%s", err.msg);
    double worst = 0;
    for (int k = 0; k < 15; k++) worst = fmax(worst, rel_err(cb->omega[k], rest.omega[k]));
    for (int i = 0; i < cb->nspeeds; i++) assert_int_equal(cb->unstable[i], 0);
    /* the top speed's row is the modes analysis at the same speed */
    const int top = cb->nspeeds - 1;
    double same = 0;
    for (int k = 0; k < 15; k++) same = fmax(same, rel_err(cb->omega[(size_t)top * 15 + k], r->omega[k]));
    kd_csc K, M;
    int gyro;
    assert_int_equal(kd_system_stiffness_csc(m, 0.0, &K, &M, &gyro, &err), KD_OK);
    double* b = calloc((size_t)m->neq, sizeof(double));
    assert_int_equal(kd_csc_solve_spd(&K, 1, b), KD_OK); /* K + k_g + k(omega) positive definite */
    print_message("fine membrane (%d equations): omega_1 at 14 000 rad/s %.6f rad/s; Campbell at speed 0 vs the "
                  "symmetric modes at rest %.2e; top row vs the modes analysis %.2e\n",
                  m->neq, r->omega[0], worst, same);
    assert_true(worst < 1e-9);
    assert_true(same < 1e-12);
    assert_true(r->omega[0] < rest.omega[0]);  /* the softening wins for mode 1 (13 411 < 15 410 at 10 x 8) */
    free(b);
    kd_csc_free(&K), kd_csc_free(&M);
    kd_modes_free(&rest);
    kd_run_report_free(&rep);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
    kd_model_free(&m);
    kd_desc_free(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_isotropic_rotors),
        cmocka_unit_test(test_divergent_and_singular_rotors),
        cmocka_unit_test(test_membrane_against_dense),
        cmocka_unit_test(test_campbell_sparse_vs_svd),
        cmocka_unit_test(test_fine_example_end_to_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
