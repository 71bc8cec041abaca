/* Rotating beams (src/fe/system.c, src/analyses/modes_gyro.c, src/fe/model_beam.c axial
 * force): natural frequencies of a cantilever rotating about an axis
 * perpendicular to it, against an independent power-series (Frobenius)
 * solution of the rotating Euler-Bernoulli beam equation
 *   EI w'''' - (P w')' + rho A w_tt = 0,  P = rho A W^2 [d (L - x) + (L^2 - x^2)/2],
 * flapwise (out of the plane of rotation: stiffened by P only) and chordwise
 * (in the plane: also softened by -rho A W^2 w), and the rigid translation of
 * a free body in a rotating frame, whose exact eigenvalues are s = +-i W
 * (double), checking the gyroscopic matrix with the centrifugal one.
 * Measured errors are listed in docs/validation.md. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/analysis.h"
#include "kedyn/system.h"
#include "test_util.h"

static const double E = 70e9, RHO = 2700, NU = 0.3, L = 1.0, DIA = 0.02;

/* ---- reference: power series in xi = x/L -------------------------------
 * Non-dimensional: w'''' = lam^2 [P~ w'' + P~' w'] + mu^2 w + chord w'' term,
 * P~ = (delta + 1/2) - delta xi - xi^2/2, lam^2 = rho A W^2 L^4/EI,
 * mu^2 = rho A w^2 L^4/EI (chordwise: mu^2 -> mu^2 + lam^2). Clamped root:
 * a0 = a1 = 0; free tip: w''(1) = w'''(1) = 0 (P(L) = 0). */
#define NTERMS 160
static double tip_determinant(double lam, double delta, double mu) {
    double res[2][2];
    for (int basis = 0; basis < 2; basis++) {
        double a[NTERMS + 4] = {0};
        a[2] = basis == 0, a[3] = basis == 1;
        const double c0 = delta + 0.5, c1 = -delta, c2 = -0.5, l2 = lam * lam, m2 = mu * mu;
        for (int k = 0; k < NTERMS; k++) {
            const double rhs = l2 * (c0 * (k + 2) * (k + 1) * a[k + 2] + c1 * (k + 1) * k * a[k + 1] +
                                     c2 * k * (k - 1) * a[k] - delta * (k + 1) * a[k + 1] - k * a[k]) +
                               m2 * a[k];
            a[k + 4] = rhs / ((double)(k + 4) * (k + 3) * (k + 2) * (k + 1));
        }
        double w2 = 0, w3 = 0;
        for (int k = 2; k < NTERMS + 4; k++) {
            w2 += (double)k * (k - 1) * a[k];
            if (k >= 3) w3 += (double)k * (k - 1) * (k - 2) * a[k];
        }
        res[basis][0] = w2, res[basis][1] = w3;
    }
    return res[0][0] * res[1][1] - res[0][1] * res[1][0];
}

/* The first `count` roots mu of the determinant, by scanning and bisection. */
static void reference_mu(double lam, double delta, int count, double* mu) {
    int found = 0;
    double prev = tip_determinant(lam, delta, 0.5), x0 = 0.5;
    for (double x = 0.55; found < count && x < 200; x += 0.05) {
        const double cur = tip_determinant(lam, delta, x);
        if ((cur < 0) != (prev < 0)) {
            double lo = x0, hi = x, flo = prev;
            for (int it = 0; it < 100; it++) {
                const double mid = 0.5 * (lo + hi), fm = tip_determinant(lam, delta, mid);
                if ((fm < 0) == (flo < 0)) lo = mid, flo = fm;
                else hi = mid;
            }
            mu[found++] = 0.5 * (lo + hi);
        }
        prev = cur, x0 = x;
    }
    assert_int_equal(found, count);
}

/* ---- the finite element model -------------------------------------------- */

/* A beam along x from the origin, spinning about global z at W with hub d;
 * `keep` lists the DOFs left free at every node (the rest are fixed), node 1
 * clamped. */
static kd_model* rotating_beam(kd_section_desc sec, int planar, int nelem, double W, double hub, unsigned keep,
                               int clamp) {
    kd_desc* d = one_beam(E, RHO, NU, sec, L, nelem, KD_THEORY_EULER_BERNOULLI, KD_INTERP_QUINTIC, planar);
    if (clamp) fix(d, 1, KD_FIX_ALL);
    const unsigned mask = (planar ? 0x23u : 0x3Fu) & ~keep;  /* translations and rotations to fix */
    for (int k = 1; k <= nelem + 1 && mask; k++) fix(d, k, mask);
    kd_motion_desc* md = kd_desc_add_motion(d);
    md->body = 0;
    md->motion.type = KD_MOTION_ROTATION;
    md->motion.axis[2] = 1.0;
    md->motion.hub = hub;
    md->motion.angle = kd_law_constant(0);
    md->motion.angle.type = KD_LAW_SPEED, md->motion.angle.value = W;
    kd_error err;
    kd_model* m = NULL;
    if (kd_model_compile(d, &m, &err)) fail_msg("compile: %s", err.msg);
    kd_desc_free(&d);
    return m;
}

static kd_modes moving_modes(kd_model* m, int count) {
    kd_system s;
    kd_error err;
    assert_int_equal(kd_system_init(&s, m, &err), KD_OK);
    kd_modes r;
    if (kd_modes_state_space(&s, 0.0, count, &r, &err)) fail_msg("modes: %s", err.msg);
    kd_system_free(&s);
    return r;
}

/* A slender generic section (radius of gyration L/10^4): in the plane of
 * rotation the Coriolis coupling to the axial motion, which the reference
 * neglects, scales as (W / omega_axial)^2 ~ 1e-7 here. */
static kd_section_desc slender(void) {
    kd_section_desc s = {0};
    s.shape = KD_SHAPE_GENERIC, s.A = 1e-4, s.Iy = s.Iz = 1e-12, s.J = 2e-12;
    return s;
}

static void check_case(int chord, double lam, double delta) {
    const kd_section_desc sec = chord ? slender() : circle(DIA);
    const double A = chord ? sec.A : PI * DIA * DIA / 4, I = chord ? sec.Iz : PI * pow(DIA, 4) / 64;
    const double scale = sqrt(E * I / (RHO * A)) / (L * L);
    const double W = lam * scale;
    double mu[3];
    reference_mu(lam, delta, 3, mu);
    /* flapwise: 3D, only u, w, ry (and ky) free; chordwise: planar */
    const unsigned axial = 1u << KD_DOF_U;  /* u stays free: the axial force reaches the root */
    kd_model* m = chord ? rotating_beam(sec, 1, 12, W, delta * L, axial | (1u << KD_DOF_V) | (1u << KD_DOF_RZ), 1)
                        : rotating_beam(sec, 0, 12, W, delta * L, axial | (1u << KD_DOF_W) | (1u << KD_DOF_RY), 1);
    kd_modes r = moving_modes(m, 3);
    assert_false(r.unstable);
    for (int k = 0; k < 3; k++) {
        /* chordwise: omega^2 = omega_flap^2 - W^2 */
        const double ref = chord ? sqrt(mu[k] * mu[k] - lam * lam) * scale : mu[k] * scale;
        const double e = rel_err(r.omega[k], ref);
        print_message("%s lambda=%4.1f delta=%.1f mode %d: mu_ref=%.6f  rel. error %.1e\n", chord ? "chordwise" : "flapwise ",
                      lam, delta, k + 1, chord ? sqrt(mu[k] * mu[k] - lam * lam) : mu[k], e);
        assert_true(e < (chord ? 1e-6 : 1e-8));
    }
    kd_modes_free(&r);
    kd_model_free(&m);
}

static void test_reference_at_rest(void** state) {
    (void)state;
    double mu[3];
    reference_mu(0, 0, 3, mu);
    /* the non-rotating cantilever: (beta L)^2 */
    assert_true(fabs(mu[0] - 3.5160152) < 1e-6);
    assert_true(fabs(mu[1] - 22.0344916) < 1e-6);
}

static void test_flapwise(void** state) {
    (void)state;
    const double lams[3] = {2, 6, 12}, deltas[2] = {0, 0.5};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++) check_case(0, lams[i], deltas[j]);
}

static void test_chordwise(void** state) {
    (void)state;
    const double lams[2] = {2, 6};
    for (int i = 0; i < 2; i++) check_case(1, lams[i], 0.5);
}

/* Without geometric stiffness the chordwise cantilever loses stability
 * once W exceeds its first frequency at rest (the spurious softening). */
static void test_no_geometric_stiffness_diverges(void** state) {
    (void)state;
    const double A = PI * DIA * DIA / 4, I = PI * pow(DIA, 4) / 64, scale = sqrt(E * I / (RHO * A)) / (L * L);
    kd_desc* d = one_beam(E, RHO, NU, circle(DIA), L, 12, KD_THEORY_EULER_BERNOULLI, KD_INTERP_CUBIC, 1);
    d->bodies[0].geometric_stiffness = 0;
    fix(d, 1, KD_FIX_ALL);
    kd_motion_desc* md = kd_desc_add_motion(d);
    md->body = 0, md->motion.type = KD_MOTION_ROTATION, md->motion.axis[2] = 1.0;
    md->motion.angle = kd_law_constant(0);
    md->motion.angle.type = KD_LAW_SPEED, md->motion.angle.value = 1.2 * 3.5160152 * scale;
    kd_error err;
    kd_model* m = NULL;
    assert_int_equal(kd_model_compile(d, &m, &err), KD_OK);
    kd_modes r = moving_modes(m, 2);
    assert_true(r.unstable);
    kd_modes_free(&r);
    kd_model_free(&m);
    /* with it, the same speed is stable */
    d->bodies[0].geometric_stiffness = 1;
    assert_int_equal(kd_model_compile(d, &m, &err), KD_OK);
    r = moving_modes(m, 2);
    assert_false(r.unstable);
    kd_modes_free(&r);
    kd_model_free(&m);
    kd_desc_free(&d);
}

/* A free planar body in a frame spinning at W: its two rigid translations
 * have s = +-i W (double), i.e. two frequencies W. */
static void test_free_body_in_rotating_frame(void** state) {
    (void)state;
    const double W = 13.0;
    kd_model* m = rotating_beam(circle(DIA), 1, 4, W, 0.3, 0xFFu, 0);
    kd_modes r = moving_modes(m, 2);
    /* a defective double eigenvalue: round-off splits it by ~sqrt(eps) */
    for (int k = 0; k < 2; k++) {
        assert_true(fabs(r.omega[k] - W) < 1e-4 * W);
        assert_true(fabs(r.growth[k]) < 1e-4 * W);
    }
    assert_false(r.unstable);
    kd_modes_free(&r);
    kd_model_free(&m);
}

/* The Campbell diagram of the flapwise model follows the reference. */
static void test_campbell_flapwise(void** state) {
    (void)state;
    const double A = PI * DIA * DIA / 4, I = PI * pow(DIA, 4) / 64, scale = sqrt(E * I / (RHO * A)) / (L * L);
    kd_model* m = rotating_beam(circle(DIA), 0, 12, 0.0, 0.0, (1u << KD_DOF_U) | (1u << KD_DOF_W) | (1u << KD_DOF_RY), 1);
    const double lams[3] = {0, 3, 9};
    double speeds[3];
    for (int i = 0; i < 3; i++) speeds[i] = lams[i] * scale;
    kd_campbell c;
    kd_error err;
    assert_int_equal(kd_campbell_run(m, 0, speeds, 3, 2, &c, &err), KD_OK);
    for (int i = 0; i < 3; i++) {
        double mu[2];
        reference_mu(lams[i], 0.0, 2, mu);
        for (int k = 0; k < 2; k++) assert_true(rel_err(c.omega[i * 2 + k], mu[k] * scale) < 1e-8);
        assert_false(c.unstable[i]);
    }
    kd_campbell_free(&c);
    kd_model_free(&m);
}

/* Mode tracking: a 3D cantilever with a 10 mm (along z) by 12 mm (along y)
 * section spinning about z. Its flapwise bending (w, EI_y, the lower at
 * rest) is stiffened by the centrifugal force, its chordwise bending (v,
 * EI_z) also softened by -rho A W^2 v: omega_f^2 - omega_c^2 changes sign
 * near W = 35 rad/s. The tracked curves must stay on their own references
 * (the power series: flapwise mu(lam_f), chordwise sqrt(mu(lam_c)^2 -
 * lam_c^2), whose error grows as W^2 by the neglected Coriolis coupling with
 * the axial motion) on both sides of the crossing, where ascending order swaps them. */
static void test_campbell_tracks_crossing(void** state) {
    (void)state;
    kd_section_desc sec = {0};
    sec.shape = KD_SHAPE_RECTANGLE, sec.b = 0.010, sec.h = 0.012;
    const double A = sec.b * sec.h, Iy = sec.h * pow(sec.b, 3) / 12, Iz = sec.b * pow(sec.h, 3) / 12;
    const double sf = sqrt(E * Iy / (RHO * A)) / (L * L), sc = sqrt(E * Iz / (RHO * A)) / (L * L);
    kd_model* m = rotating_beam(sec, 0, 10, 0.0, 0.0, 0xFFu, 1);
    double speeds[9];
    for (int i = 0; i < 9; i++) speeds[i] = 10.0 * i;
    kd_campbell c;
    kd_error err;
    assert_int_equal(kd_campbell_run(m, 0, speeds, 9, 2, &c, &err), KD_OK);
    double ef = 0, ec = 0, macmin = 1;
    int swapped = 0;
    for (int i = 0; i < 9; i++) {
        double muf, muc;
        reference_mu(speeds[i] / sf, 0.0, 1, &muf);
        reference_mu(speeds[i] / sc, 0.0, 1, &muc);
        const double wf = muf * sf, wc = sqrt(muc * muc - pow(speeds[i] / sc, 2)) * sc;
        ef = fmax(ef, rel_err(c.omega[2 * i], wf));
        ec = fmax(ec, rel_err(c.omega[2 * i + 1], wc));
        swapped |= wf > wc;
        macmin = fmin(macmin, c.mac_min[i]);
    }
    print_message("tracked Campbell curves through the crossing: flapwise error %.1e, chordwise %.1e, "
                  "smallest MAC %.6f\n", ef, ec, macmin);
    assert_true(swapped);                                /* the frequencies do cross ... */
    assert_true(c.omega[16] > c.omega[17]);              /* ... and the curves with them */
    assert_true(ef < 1e-6);
    /* in the plane the reference neglects the Coriolis coupling with the
     * axial motion, of order (W / omega_axial)^2 = 9.6e-5 at 80 rad/s */
    const double w_axial = PI / (2 * L) * sqrt(E / RHO);
    assert_true(ec < 3 * pow(speeds[8] / w_axial, 2));
    assert_true(macmin > 0.99);
    kd_campbell_free(&c);
    kd_model_free(&m);
}

/* ---- cubic versus quintic elements ------------------------------------------
 * The lowest three frequencies of the rotating cantilever from the symmetric
 * problem (K + k_g + k(omega)) x = omega^2 M x, i.e. without the Coriolis
 * coupling with the axial motion, as in the reference, for cubic and quintic
 * Hermite elements, 5 to 90 of them, out of the plane (flapwise: u, w, ry
 * free) and in it (chordwise, planar), against the power series. */
static kd_band gband_upper(const kd_gband* g) {
    kd_band b;
    assert_int_equal(kd_band_init(&b, g->n, g->ku), KD_OK);
    const int ld = g->kl + g->ku + 1;
    for (int j = 0; j < g->n; j++)
        for (int i = j - g->ku > 0 ? j - g->ku : 0; i <= j; i++)  /* symmetric part */
            b.ab[g->ku + i - j + (size_t)j * (g->ku + 1)] =
                0.5 * (g->ab[g->ku + i - j + (size_t)j * ld] + g->ab[g->ku + j - i + (size_t)i * ld]);
    return b;
}

static void symmetric_freqs(kd_interp ip, int chord, int nelem, double lam, double delta, double* mu) {
    const double A = PI * DIA * DIA / 4, I = PI * pow(DIA, 4) / 64, scale = sqrt(E * I / (RHO * A)) / (L * L);
    kd_desc* d = one_beam(E, RHO, NU, circle(DIA), L, nelem, KD_THEORY_EULER_BERNOULLI, ip, chord);
    fix(d, 1, KD_FIX_ALL);
    if (!chord)  /* flapwise: keep u, w, ry (and ky) */
        for (int k = 1; k <= nelem + 1; k++)
            fix(d, k, BIT(KD_DOF_V) | BIT(KD_DOF_RX) | BIT(KD_DOF_RZ) | (ip == KD_INTERP_QUINTIC ? BIT(KD_DOF_KZ) : 0));
    kd_motion_desc* md = kd_desc_add_motion(d);
    md->body = 0, md->motion.type = KD_MOTION_ROTATION, md->motion.axis[2] = 1.0, md->motion.hub = delta * L;
    md->motion.angle = kd_law_constant(0);
    md->motion.angle.type = KD_LAW_SPEED, md->motion.angle.value = lam * scale;
    kd_error err;
    kd_model* m = NULL;
    assert_int_equal(kd_model_compile(d, &m, &err), KD_OK);
    kd_system s;
    assert_int_equal(kd_system_init(&s, m, &err), KD_OK);
    kd_gband C, K;
    assert_int_equal(kd_gband_init(&C, s.n, s.kd, s.kd), KD_OK);
    assert_int_equal(kd_gband_init(&K, s.n, s.kd, s.kd), KD_OK);
    int changed;
    kd_system_matrices(&s, 0.0, &C, &K, &changed);
    kd_band Kb = gband_upper(&K), Mb = gband_upper(&s.M);
    kd_modes r;
    const double sigma = -0.1 * pow(3.5 * scale, 2);
    if (kd_eigen_solve(&Kb, &Mb, 3, KD_EIGEN_AUTO, sigma, &r, &err)) fail_msg("%s", err.msg);
    for (int k = 0; k < 3; k++) mu[k] = r.omega[k] / scale;
    kd_modes_free(&r);
    kd_band_free(&Kb);
    kd_band_free(&Mb);
    kd_gband_free(&C);
    kd_gband_free(&K);
    kd_system_free(&s);
    kd_model_free(&m);
    kd_desc_free(&d);
}

static void test_cubic_versus_quintic(void** state) {
    (void)state;
    const int ns[5] = {5, 10, 20, 45, 90};
    const double cases[3][2] = {{0, 0}, {2, 0.5}, {12, 0.5}};  /* lambda, delta */
    for (int chord = 0; chord <= 1; chord++)
        for (int c = 0; c < 3; c++) {
            const double lam = cases[c][0], delta = cases[c][1];
            if (chord && lam == 0) continue;  /* at rest both planes are the same */
            double ref[3];
            reference_mu(lam, delta, 3, ref);
            if (chord)
                for (int k = 0; k < 3; k++) ref[k] = sqrt(ref[k] * ref[k] - lam * lam);
            double cubic90[3] = {0, 0, 0};
            for (int ip = 0; ip <= 1; ip++) {
                double e[5][3];
                for (int i = 0; i < 5; i++) {
                    double mu[3];
                    symmetric_freqs((kd_interp)ip, chord, ns[i], lam, delta, mu);
                    for (int k = 0; k < 3; k++) e[i][k] = rel_err(mu[k], ref[k]);
                }
                print_message("%s lam=%4.1f delta=%.1f %-7s", chord ? "chord" : "flap ", lam, delta, ip ? "quintic" : "cubic");
                for (int i = 0; i < 5; i++) print_message("  n=%2d: %.1e %.1e %.1e", ns[i], e[i][0], e[i][1], e[i][2]);
                print_message("\n");
                if (ip == 0) {
                    /* cubic: O(h^4) on every mode from 10 to 20 elements */
                    for (int k = 0; k < 3; k++) assert_true(fabs(log2(e[1][k] / e[2][k]) - 4.0) < 0.3);
                    assert_true(e[4][0] < 3e-8 && e[4][2] < 1e-6);
                    for (int k = 0; k < 3; k++) cubic90[k] = e[4][k];
                } else {
                    /* quintic: O(h^8) until round-off; 10 quintic elements beat 90 cubic ones */
                    assert_true(log2(e[0][2] / e[1][2]) > 7.0);
                    for (int k = 0; k < 3; k++) assert_true(e[1][k] < 1e-7 && e[1][k] < cubic90[k]);
                }
            }
        }
}

/* Critical speeds of a planar cantilever spinning in its plane: with
 * geometric stiffness the bending is stiffened and the axial motion loses
 * stiffness first, at its own first frequency (pi/2L) sqrt(E/rho) (to the
 * O(h^2) of linear bar elements); without it, the bending does, at the first
 * bending frequency at rest (1.8751/L)^2 sqrt(EI/rho A). Neither depends on
 * the hub. */
static void test_stability_map(void** state) {
    (void)state;
    const double A = PI * DIA * DIA / 4, I = PI * pow(DIA, 4) / 64;
    for (int geometric = 1; geometric >= 0; geometric--) {
        kd_desc* d = one_beam(E, RHO, NU, circle(DIA), L, 40, KD_THEORY_EULER_BERNOULLI, KD_INTERP_CUBIC, 1);
        d->bodies[0].geometric_stiffness = geometric;
        fix(d, 1, KD_FIX_ALL);
        kd_motion_desc* md = kd_desc_add_motion(d);
        md->body = 0, md->motion.type = KD_MOTION_ROTATION, md->motion.axis[2] = 1.0;
        md->motion.angle = kd_law_constant(0);
        md->motion.angle.type = KD_LAW_SPEED;
        const double hubs[2] = {0.0, 0.5}, lengths[2] = {1.0, 2.0};
        kd_stability_map map;
        kd_error err;
        assert_int_equal(kd_stability_run(d, 0, hubs, 2, lengths, 2, 1e5, &map, &err), KD_OK);
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 2; j++) {
                const double Lj = lengths[j];
                const double ref = geometric ? PI / (2 * Lj) * sqrt(E / RHO)
                                             : pow(1.8751040687 / Lj, 2) * sqrt(E * I / (RHO * A));
                const double e = rel_err(map.omega_cr[i * 2 + j], ref);
                print_message("%s k_g: hub %.1f L %.1f omega_cr %.6g rad/s, reference %.6g, rel. error %.1e\n",
                              geometric ? "with" : "without", hubs[i], Lj, map.omega_cr[i * 2 + j], ref, e);
                assert_true(e < (geometric ? 2e-4 : 1e-6));
            }
        kd_stability_free(&map);
        kd_desc_free(&d);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_at_rest),
        cmocka_unit_test(test_flapwise),
        cmocka_unit_test(test_chordwise),
        cmocka_unit_test(test_no_geometric_stiffness_diverges),
        cmocka_unit_test(test_free_body_in_rotating_frame),
        cmocka_unit_test(test_campbell_flapwise),
        cmocka_unit_test(test_stability_map),
        cmocka_unit_test(test_campbell_tracks_crossing),
        cmocka_unit_test(test_cubic_versus_quintic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
