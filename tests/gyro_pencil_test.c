/* The gyroscopic state-space solver (src/analyses/gyro_pencil.c, kedyn/modes.h)
 * against independent references:
 *   - rotors in a rotating frame whose eigenvalues are closed forms (the
 *     isotropic rotor s = i (w_n +- Omega), also gyroscopically stabilised
 *     above w_n; the anisotropic rotor's quartic, divergent between its two
 *     critical speeds), with frequencies from 100 to 1e7 rad/s and masses
 *     from 1e-6 to 1 mixed by a dense congruence, as finite elements mix them;
 *   - the thin rotating MITC4 plate of examples/rotating_plate_bending.yaml
 *     below its divergence speed: K + k_g + k(omega) positive definite
 *     (Cholesky), so the gyroscopic system is stable (Kelvin-Tait-Chetaev);
 *     its frequencies are the singular values of the real skew matrix
 *     L^-1 [[0, K], [-K, -G]] L^-T, L L^T = diag(K, M) (a different method:
 *     Cholesky and SVD, no nonsymmetric eigensolver). The unscaled QZ solver
 *     flagged this plate unstable at each of the speeds tested. */
#include <lapacke.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gyro_svd_reference.h"
#include "kedyn/kedyn.h"

static double rel_err(double a, double b) { return fabs(a - b) / fabs(b); }

static double* at(kd_gband* g, int i, int j) { return &g->ab[g->ku + i - j + (size_t)j * (size_t)(g->kl + g->ku + 1)]; }

/* Deterministic uniform numbers in [-1, 1]. */
static double unit(unsigned* seed) {
    *seed = *seed * 1664525u + 1013904223u;
    return (double)(*seed >> 8) / (double)(1u << 23) - 1.0;
}

/* Blocks of rotors in a frame spinning at Om about their axis (theory.md
 * sec. 3): M = m I, G = 2 m Om J, K = diag(kx, ky) - m Om^2 I, mixed by
 * X^T (.) X with X = I + 0.3 R (R dense, |R_ij| <= 1 / n). */
typedef struct rotors {
    int n;
    kd_gband M, C, K;
} rotors;

static rotors make_rotors(int p, const double* m, const double* wx, const double* wy, double Om) {
    rotors r = {0};
    const int n = 2 * p;
    r.n = n;
    double* A[3];
    for (int k = 0; k < 3; k++) A[k] = calloc((size_t)n * n, sizeof(double));
    for (int b = 0; b < p; b++) {
        const int i = 2 * b, j = i + 1;
        A[0][i + (size_t)i * n] = A[0][j + (size_t)j * n] = m[b];
        A[1][j + (size_t)i * n] = 2 * m[b] * Om, A[1][i + (size_t)j * n] = -2 * m[b] * Om;
        A[2][i + (size_t)i * n] = m[b] * (wx[b] * wx[b] - Om * Om);
        A[2][j + (size_t)j * n] = m[b] * (wy[b] * wy[b] - Om * Om);
    }
    double* X = calloc((size_t)n * n, sizeof(double));
    unsigned seed = 12345u;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) X[i + (size_t)j * n] = (i == j) + 0.3 * unit(&seed) / n;
    kd_gband* out[3] = {&r.M, &r.C, &r.K};
    for (int k = 0; k < 3; k++) {
        assert_int_equal(kd_gband_init(out[k], n, n - 1, n - 1), KD_OK);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                double sum = 0;
                for (int a = 0; a < n; a++)
                    for (int b = 0; b < n; b++) sum += X[a + (size_t)i * n] * A[k][a + (size_t)b * n] * X[b + (size_t)j * n];
                *at(out[k], i, j) = sum;
            }
        free(A[k]);
    }
    free(X);
    return r;
}

static void free_rotors(rotors* r) {
    kd_gband_free(&r->M);
    kd_gband_free(&r->C);
    kd_gband_free(&r->K);
}

/* |(s^2 M + s C + K) x| / ((|s|^2 |M| + |s| |C| + |K|) |x|) of entry k. */
static double residual(const kd_gyro_ws* w, int k, const kd_gband* M, const kd_gband* C, const kd_gband* K) {
    const int n = w->n;
    double* x = malloc(sizeof(double) * 2 * (size_t)n);
    kd_gyro_shape(w, k, x, x + n);
    const double sr = w->ent[k].growth, si = w->ent[k].omega;
    const double qr = sr * sr - si * si, qi = 2 * sr * si; /* s^2 */
    double num = 0, xn = 0, nm = 0, nc = 0, nk = 0;
    for (int i = 0; i < n; i++) {
        double yr = 0, yi = 0;
        for (int j = 0; j < n; j++) {
            const int in = !(i - j > M->kl || j - i > M->ku);
            const double mij = in ? M->ab[M->ku + i - j + (size_t)j * (M->kl + M->ku + 1)] : 0;
            const double cij = in ? C->ab[C->ku + i - j + (size_t)j * (C->kl + C->ku + 1)] : 0;
            const double kij = in ? K->ab[K->ku + i - j + (size_t)j * (K->kl + K->ku + 1)] : 0;
            /* (q mij + s cij + kij) x_j, complex */
            const double ar = qr * mij + sr * cij + kij, ai = qi * mij + si * cij;
            yr += ar * x[j] - ai * x[n + j];
            yi += ar * x[n + j] + ai * x[j];
            nm = fmax(nm, fabs(mij)), nc = fmax(nc, fabs(cij)), nk = fmax(nk, fabs(kij));
        }
        num += yr * yr + yi * yi;
        xn += x[i] * x[i] + x[n + i] * x[n + i];
    }
    free(x);
    const double s2 = sr * sr + si * si;
    return sqrt(num / xn) / (n * (s2 * nm + sqrt(s2) * nc + nk));
}

/* Isotropic rotors, w_n from 100 to 1e7 rad/s, m from 1 to 1e-6, Omega =
 * 300 rad/s (the first rotor above its critical speed 100 rad/s, K
 * indefinite, gyroscopically stable): s = i |w_n +- Omega|. */
static void test_isotropic_rotors(void** state) {
    (void)state;
    enum { P = 12 };
    double m[P], wx[P];
    for (int b = 0; b < P; b++) m[b] = pow(10.0, -6.0 * b / (P - 1)), wx[b] = 100.0 * pow(10.0, 5.0 * b / (P - 1));
    const double Om = 300.0;
    rotors r = make_rotors(P, m, wx, wx, Om);
    kd_gyro_ws w;
    kd_error err;
    assert_int_equal(kd_gyro_init(&w, r.n, &err), KD_OK);
    assert_int_equal(kd_gyro_solve(&w, &r.M, &r.C, &r.K, 0.0, &err), KD_OK);
    assert_int_equal(w.nent, r.n);
    double ref[2 * P];
    for (int b = 0; b < P; b++) ref[2 * b] = wx[b] + Om, ref[2 * b + 1] = fabs(wx[b] - Om);
    for (int i = 0; i < 2 * P; i++) /* ascending */
        for (int j = i + 1; j < 2 * P; j++)
            if (ref[j] < ref[i]) {
                const double t = ref[i];
                ref[i] = ref[j], ref[j] = t;
            }
    double ew = 0, eg = 0, er = 0;
    for (int k = 0; k < w.nent; k++) {
        ew = fmax(ew, rel_err(w.ent[k].omega, ref[k]));
        eg = fmax(eg, fabs(w.ent[k].growth) / ref[k]);
        er = fmax(er, residual(&w, k, &r.M, &r.C, &r.K));
        assert_true(w.ent[k].growth <= w.ent[k].tol); /* not unstable */
    }
    print_message("isotropic rotors 100 to 1e7 rad/s: omega error %.2e, |growth| / omega %.2e, residual %.2e "
                  "(w_ref %.4g rad/s, |T| %.3g)\n", ew, eg, er, w.wref, w.tnorm);
    assert_true(ew < 1e-9);
    assert_true(eg < 1e-9);
    assert_true(er < 1e-12);
    kd_gyro_free(&w);
    free_rotors(&r);
}

/* An anisotropic rotor between its critical speeds 250 and 350 rad/s at
 * Omega = 300 rad/s among stiff isotropic ones: s^4 + (wx^2 + wy^2 +
 * 2 Om^2) s^2 + (wx^2 - Om^2)(wy^2 - Om^2) = 0 has a real pair +-a
 * (divergence) and +-i b. */
static void test_anisotropic_divergence(void** state) {
    (void)state;
    enum { P = 6 };
    double m[P], wx[P], wy[P];
    for (int b = 0; b < P; b++) m[b] = pow(10.0, -5.0 * b / (P - 1)), wx[b] = wy[b] = 1e3 * pow(10.0, 4.0 * b / (P - 1));
    wx[0] = 250.0, wy[0] = 350.0;
    const double Om = 300.0;
    rotors r = make_rotors(P, m, wx, wy, Om);
    kd_gyro_ws w;
    kd_error err;
    assert_int_equal(kd_gyro_init(&w, r.n, &err), KD_OK);
    assert_int_equal(kd_gyro_solve(&w, &r.M, &r.C, &r.K, 0.0, &err), KD_OK);
    const double P2 = wx[0] * wx[0] + wy[0] * wy[0] + 2 * Om * Om, q = (wx[0] * wx[0] - Om * Om) * (wy[0] * wy[0] - Om * Om);
    const double r1 = 0.5 * (-P2 + sqrt(P2 * P2 - 4 * q)), r2 = 0.5 * (-P2 - sqrt(P2 * P2 - 4 * q));
    const double a = sqrt(r1), bfreq = sqrt(-r2);
    /* entries ascending in omega: the real pair first (omega 0) */
    assert_true(w.ent[0].omega == 0.0);
    print_message("anisotropic rotor: growth %.10g (closed form %.10g), error %.2e; omega %.10g (%.10g), error %.2e\n",
                  w.ent[0].growth, a, rel_err(w.ent[0].growth, a), w.ent[1].omega, bfreq, rel_err(w.ent[1].omega, bfreq));
    assert_true(w.ent[0].growth > w.ent[0].tol); /* unstable */
    assert_true(rel_err(w.ent[0].growth, a) < 1e-9);
    assert_true(rel_err(w.ent[1].omega, bfreq) < 1e-9);
    assert_true(residual(&w, 0, &r.M, &r.C, &r.K) < 1e-12);
    for (int k = 1; k < w.nent; k++) assert_true(w.ent[k].growth <= w.ent[k].tol);
    kd_gyro_free(&w);
    free_rotors(&r);
}

/* The thin plate of examples/rotating_plate_bending.yaml below its
 * divergence speed (4747 rad/s): no instability where K + k_g + k(omega) is
 * positive definite, the frequencies of the skew-symmetric reference; above
 * it (one negative eigenvalue: odd index) the solver reports the divergence. */
static void test_thin_plate_not_flagged(void** state) {
    (void)state;
    kd_desc* d = NULL;
    kd_model* m = NULL;
    kd_error err;
    if (kd_load_yaml_file(KD_EXAMPLES_DIR "/rotating_plate_bending.yaml", &d, &err)) fail_msg("%s", err.msg);
    if (kd_model_compile(d, &m, &err)) fail_msg("%s", err.msg);
    kd_system s;
    if (kd_system_init(&s, m, &err)) fail_msg("%s", err.msg);
    const int body = 0, n = m->neq;
    kd_motion spin = m->body[body].motion;
    spin.angle = kd_law_constant(0.0);
    spin.angle.type = KD_LAW_SPEED;
    s.motion[body] = &spin;
    /* the unscaled QZ solver called each of these unstable (growth rates up to
     * 144 rad/s on the 1e7 rad/s shear modes) */
    const double speeds[] = {2100, 2800, 3100, 3700, 4200, 4700};
    kd_gband C = {0}, K = {0};
    assert_int_equal(kd_gband_init(&C, n, s.kd, s.kd), KD_OK);
    assert_int_equal(kd_gband_init(&K, n, s.kd, s.kd), KD_OK);
    for (size_t i = 0; i < sizeof(speeds) / sizeof(*speeds); i++) {
        spin.angle.value = speeds[i];
        assert_int_equal(kd_system_stiffness_definite(&s, 0.0), 1); /* Cholesky of (K + K^T) / 2 */
        s.have_frames = 0;
        kd_modes r;
        if (kd_modes_state_space(&s, 0.0, 15, &r, &err)) fail_msg("%s", err.msg);
        assert_int_equal(r.unstable, 0);
        s.have_frames = 0;
        int changed;
        kd_system_matrices(&s, 0.0, &C, &K, &changed);
        double asym = 0, kmax = 0, csym = 0, cmax = 0;
        for (int j = 0; j < n; j++)
            for (int a = j - s.kd > 0 ? j - s.kd : 0; a <= j; a++) {
                asym = fmax(asym, fabs(*at(&K, a, j) - *at(&K, j, a))), kmax = fmax(kmax, fabs(*at(&K, a, j)));
                csym = fmax(csym, fabs(*at(&C, a, j) + *at(&C, j, a))), cmax = fmax(cmax, fabs(*at(&C, a, j)));
            }
        assert_true(asym <= 1e-12 * kmax && csym <= 1e-12 * cmax); /* K symmetric, C skew: the reference applies */
        double* ref = gyro_svd_reference(&s.M, &C, &K, n);
        double ew = 0, eg = 0;
        for (int k = 0; k < r.count; k++) {
            ew = fmax(ew, rel_err(r.omega[k], ref[k]));
            eg = fmax(eg, fabs(r.growth[k]) / r.omega[k]);
        }
        print_message("plate at %.0f rad/s: omega_1 %.6f rad/s, 15 modes vs the skew SVD %.2e, |growth| / omega %.2e\n",
                      speeds[i], r.omega[0], ew, eg);
        assert_true(ew < 1e-8);
        assert_true(eg < 1e-9);
        free(ref);
        kd_modes_free(&r);
    }
    spin.angle.value = 4800.0;
    assert_int_equal(kd_system_stiffness_definite(&s, 0.0), 0);
    s.have_frames = 0;
    kd_modes r;
    if (kd_modes_state_space(&s, 0.0, 15, &r, &err)) fail_msg("%s", err.msg);
    print_message("plate at 4800 rad/s: unstable %d, growth %.4g 1/s\n", r.unstable, r.growth[0]);
    assert_int_equal(r.unstable, 1);
    kd_modes_free(&r);
    kd_gband_free(&C);
    kd_gband_free(&K);
    kd_system_free(&s);
    kd_model_free(&m);
    kd_desc_free(&d);
}

/* Campbell diagrams of examples/rotating_blade.yaml (4 curves, 0 to 1000
 * rad/s) and examples/rotating_plate_membrane.yaml (15 curves, 0 to 14 000
 * rad/s) against the skew-SVD frequencies at each speed. In both the lowest
 * modes do not cross (the blade's first axial mode stays above its third
 * bending mode; the membrane's in-plane modes are all Coriolis-coupled and
 * veer), so curve k is the k-th lowest frequency. The blade's axial mode is
 * Coriolis-coupled to bending in quadrature: tracked by the real part of its
 * shape alone, it was lost to the second axial mode (49 358 rad/s for
 * 16 321 rad/s at 200 rad/s). */
static void campbell_vs_reference(const char* file, const double* speeds, int nspeeds, int count) {
    kd_desc* d = NULL;
    kd_model* m = NULL;
    kd_error err;
    if (kd_load_yaml_file(file, &d, &err)) fail_msg("%s", err.msg);
    if (kd_model_compile(d, &m, &err)) fail_msg("%s", err.msg);
    kd_campbell cb;
    if (kd_campbell_run(m, 0, speeds, nspeeds, count, &cb, &err)) fail_msg("%s", err.msg);
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
    for (int i = 0; i < nspeeds; i++) {
        spin.angle.value = speeds[i];
        s.have_frames = 0;
        assert_int_equal(kd_system_stiffness_definite(&s, 0.0), 1); /* the reference applies */
        s.have_frames = 0;
        int changed;
        kd_system_matrices(&s, 0.0, &C, &K, &changed);
        double* ref = gyro_svd_reference(&s.M, &C, &K, n);
        for (int k = 0; k < count; k++) {
            const double e = rel_err(cb.omega[(size_t)i * count + k], ref[k]);
            if (e >= 1e-8)
                print_message("%s at %.0f rad/s: curve %d %.6f rad/s, reference %.6f rad/s\n", file, speeds[i], k + 1,
                              cb.omega[(size_t)i * count + k], ref[k]);
            worst = fmax(worst, e);
        }
        free(ref);
    }
    print_message("%s: %d curves at %d speeds vs the skew SVD, worst %.2e\n", file, count, nspeeds, worst);
    assert_true(worst < 1e-8);
    kd_campbell_free(&cb);
    kd_gband_free(&C);
    kd_gband_free(&K);
    kd_system_free(&s);
    kd_model_free(&m);
    kd_desc_free(&d);
}

static void test_campbell_blade(void** state) {
    (void)state;
    const double speeds[] = {0, 200, 400, 600, 800, 1000};
    campbell_vs_reference(KD_EXAMPLES_DIR "/rotating_blade.yaml", speeds, 6, 4);
}

static void test_campbell_membrane(void** state) {
    (void)state;
    double speeds[15];
    for (int i = 0; i < 15; i++) speeds[i] = 1000.0 * i;
    campbell_vs_reference(KD_EXAMPLES_DIR "/rotating_plate_membrane.yaml", speeds, 15, 15);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_isotropic_rotors),
        cmocka_unit_test(test_anisotropic_divergence),
        cmocka_unit_test(test_thin_plate_not_flagged),
        cmocka_unit_test(test_campbell_blade),
        cmocka_unit_test(test_campbell_membrane),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
