/* Modal identification (src/signal/peaks.c, lscf.c, lsfd.c) and the MAC (mac.c) against known
 * modal models (docs/theory.md, "Signal processing and modal identification"):
 *   - peak picking on the closed-form receptance of an SDOF: the natural frequency and the
 *     half-power damping;
 *   - LSCF on six accelerances of a synthetic structure with three close modes (100, 103 and
 *     107 Hz; zeta 1 %, 1.5 %, 0.8 %) and two modes outside the band, with complex noise of 1 %
 *     of each channel's RMS: frequencies within 0.5 %, damping within 10 %, shapes of MAC > 0.99
 *     with the true ones, the stabilisation diagram's poles stable in frequency at the modes;
 *   - LSFD of exact poles on noise-free FRFs: the residues phi_o phi_in / (2 i w_d) exactly;
 *   - MAC: 0 for orthogonal vectors, 1 for vectors differing by a complex factor, symmetric,
 *     real against complex; Hungarian pairing against the brute-force optimum. */
#include <complex.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/signal.h"

#define PI 3.14159265358979323846

static uint64_t rng_state = 0xD1B54A32D192ED03ull;
static double urand(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return ((double)(rng_state >> 11) + 0.5) / 9007199254740992.0;
}
static double grand(void) { return sqrt(-2.0 * log(urand())) * cos(2.0 * PI * urand()); }

/* The synthetic structure: unit modal masses, real shapes phi_r(x) = sin(r pi x) at six
 * channels x_c = (c + 0.5) / 6, force at x = 0.13; receptance
 * H_o(w) = sum_r phi_r(x_o) phi_r(x_in) / (w_r^2 - w^2 + 2 i zeta_r w_r w). */
#define NMODE 5
#define NCH 6
static const double MODE_F[NMODE] = {100.0, 103.0, 107.0, 220.0, 40.0};
static const double MODE_Z[NMODE] = {0.01, 0.015, 0.008, 0.01, 0.02};
static const double XIN = 0.13;

static double phi(int r, double x) { return sin((r + 1) * PI * x); }
static double xch(int c) { return (c + 0.5) / NCH; }

static double complex receptance(int c, double f)
{
    double w = 2.0 * PI * f;
    double complex h = 0.0;
    for (int r = 0; r < NMODE; r++) {
        double wr = 2.0 * PI * MODE_F[r];
        h += phi(r, xch(c)) * phi(r, XIN) / (wr * wr - w * w + 2.0 * I * MODE_Z[r] * wr * w);
    }
    return h;
}

static void peak_picking_sdof(void** state)
{
    (void)state;
    double fn = 50.0, zeta = 0.01, wn = 2.0 * PI * fn;
    int nf = 4001;
    double* f = malloc(sizeof(double) * (size_t)nf);
    double* mag = malloc(sizeof(double) * (size_t)nf);
    for (int k = 0; k < nf; k++) {
        f[k] = 0.025 * k;
        double w = 2.0 * PI * f[k];
        mag[k] = 1.0 / cabs(wn * wn - w * w + 2.0 * I * zeta * wn * w);
    }
    kd_peak p[3];
    int np = 0;
    assert_int_equal(kd_peak_pick(f, mag, nf, 10.0, 90.0, 0.05, p, 3, &np, NULL), KD_OK);
    assert_int_equal(np, 1);
    /* the receptance peaks at wn sqrt(1 - 2 zeta^2); the half-power points give zeta to
     * O(zeta^2) */
    if (getenv("KD_TEST_VERBOSE"))
        printf("sdof peak: f err %.2e Hz, zeta err %.2e rel\n", p[0].f_hz - fn * sqrt(1.0 - 2.0 * zeta * zeta),
               p[0].damping_ratio / zeta - 1.0);
    assert_true(fabs(p[0].f_hz - fn * sqrt(1.0 - 2.0 * zeta * zeta)) < 1e-3);
    assert_true(fabs(p[0].damping_ratio - zeta) < 0.002 * zeta);
    free(f);
    free(mag);
}

/* Accelerances -w^2 H of the structure on lines df apart up to fmax, with complex noise of
 * `noise` times each channel's RMS over [f1, f2] on every line. frf[NCH x nf]. */
static double* make_frfs(double df, int nf, double noise, double f1, double f2)
{
    double* frf = malloc(sizeof(double) * 2 * NCH * (size_t)nf);
    for (int c = 0; c < NCH; c++) {
        double rms = 0.0;
        int nb = 0;
        for (int k = 0; k < nf; k++) {
            double f = k * df, w = 2.0 * PI * f;
            double complex a = -w * w * receptance(c, f);
            frf[2 * ((size_t)c * nf + k)] = creal(a);
            frf[2 * ((size_t)c * nf + k) + 1] = cimag(a);
            if (f >= f1 && f <= f2) {
                rms += creal(a * conj(a));
                nb++;
            }
        }
        rms = sqrt(rms / nb);
        for (int k = 0; k < nf; k++) {
            frf[2 * ((size_t)c * nf + k)] += noise * rms * grand() / sqrt(2.0);
            frf[2 * ((size_t)c * nf + k) + 1] += noise * rms * grand() / sqrt(2.0);
        }
    }
    return frf;
}

static void lscf_three_close_modes(void** state)
{
    (void)state;
    double df = 0.05;
    int nf = 4001; /* 0 .. 200 Hz */
    double f1 = 60.0, f2 = 160.0;
    double* f = malloc(sizeof(double) * (size_t)nf);
    for (int k = 0; k < nf; k++)
        f[k] = k * df;
    double* frf = make_frfs(df, nf, 0.01, f1, f2);
    kd_lscf_opts o = {f1, f2, 2, 40, 0, 0, 0, 0, 0, KD_FRF_ACCELERATION};
    kd_modal_fit m;
    kd_error err;
    kd_status st = kd_lscf(f, frf, nf, NCH, &o, &m, &err);
    assert_int_equal(st, KD_OK);
    assert_int_equal(m.nchan, NCH);
    assert_int_equal(m.nmodes, 3);
    for (int r = 0; r < 3; r++) {
        double ef = fabs(m.f_hz[r] - MODE_F[r]) / MODE_F[r];
        double ez = fabs(m.zeta[r] - MODE_Z[r]) / MODE_Z[r];
        double truth[NCH];
        for (int c = 0; c < NCH; c++)
            truth[c] = phi(r, xch(c));
        double mac = kd_mac(m.shape + 2 * (size_t)r * NCH, 1, truth, 0, NCH);
        if (getenv("KD_TEST_VERBOSE"))
            printf("mode %d: f %.4f (err %.2e) zeta %.5f (err %.2e) MAC %.6f\n", r, m.f_hz[r], ef, m.zeta[r], ez, mac);
        assert_true(ef < 0.005);
        assert_true(ez < 0.10);
        assert_true(mac > 0.99);
    }
    /* the diagram: poles at every order from 2 to 40, some stable in everything near each mode */
    assert_true(m.npoles > 0);
    assert_int_equal(m.poles[0].order >= 2, 1);
    assert_true(m.poles[m.npoles - 1].order <= 40);
    for (int r = 0; r < 3; r++) {
        int nstable = 0;
        for (int i = 0; i < m.npoles; i++)
            if (m.poles[i].flags == (KD_STAB_FREQ | KD_STAB_DAMP | KD_STAB_SHAPE) &&
                fabs(m.poles[i].f_hz - MODE_F[r]) < 0.005 * MODE_F[r])
                nstable++;
        assert_true(nstable >= 5);
    }
    /* every flag follows its definition against the nearest pole of the previous order */
    int nchecked = 0;
    for (int i = 0; i < m.npoles; i++) {
        const kd_stab_pole* p = &m.poles[i];
        int best = -1;
        for (int j = 0; j < m.npoles; j++)
            if (m.poles[j].order == p->order - 1 &&
                (best < 0 || fabs(m.poles[j].f_hz - p->f_hz) < fabs(m.poles[best].f_hz - p->f_hz)))
                best = j;
        int ff = best >= 0 && fabs(m.poles[best].f_hz - p->f_hz) <= 0.01 * p->f_hz;
        int fd = ff && fabs(m.poles[best].zeta - p->zeta) <= 0.05 * p->zeta;
        assert_int_equal(!!(p->flags & KD_STAB_FREQ), ff);
        assert_int_equal(!!(p->flags & KD_STAB_DAMP), fd);
        if (p->flags & KD_STAB_SHAPE)
            assert_true(fd);
        nchecked += ff && !fd; /* stable in frequency only: the damping test does something */
    }
    assert_true(nchecked > 0);
    kd_modal_fit_free(&m);
    assert_null(m.f_hz);
    /* bad input */
    o.order_max = 1;
    assert_int_equal(kd_lscf(f, frf, nf, NCH, &o, &m, &err), KD_ERR_USAGE);
    free(f);
    free(frf);
}

static void lsfd_exact_residues(void** state)
{
    (void)state;
    double df = 0.1;
    int nf = 2001;
    double* f = malloc(sizeof(double) * (size_t)nf);
    for (int k = 0; k < nf; k++)
        f[k] = k * df;
    double* frf = make_frfs(df, nf, 0.0, 60.0, 160.0);
    double shape[2 * 3 * NCH];
    assert_int_equal(kd_lsfd(f, frf, nf, NCH, 60.0, 160.0, KD_FRF_ACCELERATION, MODE_F, MODE_Z, 3, shape, NULL),
                     KD_OK);
    /* A_or = phi_o phi_in / (2 i w_d): the modes outside the band are left to the residuals,
     * which represent them only approximately, so the residues are close, not exact */
    for (int r = 0; r < 3; r++) {
        double wd = 2.0 * PI * MODE_F[r] * sqrt(1.0 - MODE_Z[r] * MODE_Z[r]);
        for (int c = 0; c < NCH; c++) {
            double complex a = phi(r, xch(c)) * phi(r, XIN) / (2.0 * I * wd);
            double complex g = shape[2 * (r * NCH + c)] + I * shape[2 * (r * NCH + c) + 1];
            assert_true(cabs(g - a) < 0.01 * fabs(phi(r, XIN)) / (2.0 * wd));
        }
    }
    /* all five poles: exact */
    double shape5[2 * NMODE * NCH];
    assert_int_equal(kd_lsfd(f, frf, nf, NCH, 0.0, 0.0, KD_FRF_ACCELERATION, MODE_F, MODE_Z, NMODE, shape5, NULL),
                     KD_OK);
    for (int r = 0; r < NMODE; r++) {
        double wd = 2.0 * PI * MODE_F[r] * sqrt(1.0 - MODE_Z[r] * MODE_Z[r]);
        for (int c = 0; c < NCH; c++) {
            double complex a = phi(r, xch(c)) * phi(r, XIN) / (2.0 * I * wd);
            double complex g = shape5[2 * (r * NCH + c)] + I * shape5[2 * (r * NCH + c) + 1];
            assert_true(cabs(g - a) < 1e-8 / (2.0 * wd));
        }
    }
    /* a pole without damping estimate is refused */
    double zbad[3] = {MODE_Z[0], NAN, MODE_Z[2]};
    kd_error err;
    assert_int_equal(kd_lsfd(f, frf, nf, NCH, 60.0, 160.0, KD_FRF_ACCELERATION, MODE_F, zbad, 3, shape, &err),
                     KD_ERR_USAGE);
    /* a real shape from a complex one */
    double real[NCH];
    kd_shape_realize(shape5 + 2 * NCH, NCH, real);
    double big = 0.0;
    for (int c = 0; c < NCH; c++)
        big = fmax(big, fabs(phi(1, xch(c))));
    /* the residues of mode 2 are phi_o phi_in / (2 i w_d): real up to one phase, so the real
     * shape is phi / max |phi| up to sign, and the largest component is +1 */
    double sgn = real[0] * phi(1, xch(0)) > 0.0 ? 1.0 : -1.0, top = 0.0;
    for (int c = 0; c < NCH; c++) {
        assert_true(fabs(real[c] - sgn * phi(1, xch(c)) / big) < 1e-8);
        top = fmax(top, real[c]);
    }
    assert_true(fabs(top - 1.0) < 1e-12);
    free(f);
    free(frf);
}

static void mac_properties(void** state)
{
    (void)state;
    double a[3] = {1, 2, 3}, b[3] = {2, -1, 0}; /* orthogonal */
    assert_true(fabs(kd_mac(a, 0, b, 0, 3)) < 1e-15);
    double c[6]; /* (0.3 - 2i) a */
    for (int k = 0; k < 3; k++) {
        c[2 * k] = 0.3 * a[k];
        c[2 * k + 1] = -2.0 * a[k];
    }
    assert_true(fabs(kd_mac(a, 0, c, 1, 3) - 1.0) < 1e-14);
    assert_true(fabs(kd_mac(c, 1, a, 0, 3) - 1.0) < 1e-14);
    double d[3] = {1, 1, 0};
    /* (a . d)^2 / (|a|^2 |d|^2) = 9 / (14 * 2) */
    assert_true(fabs(kd_mac(a, 0, d, 0, 3) - 9.0 / 28.0) < 1e-15);
    assert_true(fabs(kd_mac(d, 0, a, 0, 3) - 9.0 / 28.0) < 1e-15);
    double z[3] = {0, 0, 0};
    assert_true(kd_mac(a, 0, z, 0, 3) == 0.0);
    double A[6] = {1, 2, 3, 1, 1, 0}, M[4];
    assert_int_equal(kd_mac_matrix(A, 0, 2, A, 0, 2, 3, M), KD_OK);
    assert_true(fabs(M[0] - 1.0) < 1e-15 && fabs(M[3] - 1.0) < 1e-15 && fabs(M[1] - M[2]) < 1e-15);
}

/* Hungarian pairing: a case greedy gets wrong, then random rectangular matrices against the
 * brute-force maximum over all assignments. */
static double best_sum(const double* mac, int na, int nb, int row, unsigned used)
{
    if (row == na)
        return 0.0;
    double best = best_sum(mac, na, nb, row + 1, used); /* row unpaired */
    for (int j = 0; j < nb; j++)
        if (!(used & (1u << j))) {
            double s = mac[row * nb + j] + best_sum(mac, na, nb, row + 1, used | (1u << j));
            if (s > best)
                best = s;
        }
    return best;
}

static void mac_pairing(void** state)
{
    (void)state;
    double g[4] = {0.9, 0.8, 0.85, 0.1};
    int pair[5];
    assert_int_equal(kd_mac_pair(g, 2, 2, 0.0, pair, NULL), KD_OK);
    assert_int_equal(pair[0], 1); /* greedy would take (0, 0) = 0.9 and leave (1, 1) = 0.1 */
    assert_int_equal(pair[1], 0);
    assert_int_equal(kd_mac_pair(g, 2, 2, 0.82, pair, NULL), KD_OK);
    assert_int_equal(pair[0], -1); /* 0.8 below min_mac */
    assert_int_equal(pair[1], 0);
    for (int trial = 0; trial < 40; trial++) {
        int na = 1 + trial % 5, nb = 1 + (trial / 5) % 6;
        double mac[30];
        for (int i = 0; i < na * nb; i++)
            mac[i] = urand();
        assert_int_equal(kd_mac_pair(mac, na, nb, 0.0, pair, NULL), KD_OK);
        double s = 0.0;
        unsigned used = 0;
        int npaired = 0;
        for (int i = 0; i < na; i++)
            if (pair[i] >= 0) {
                assert_false(used & (1u << pair[i]));
                used |= 1u << pair[i];
                s += mac[i * nb + pair[i]];
                npaired++;
            }
        assert_int_equal(npaired, na < nb ? na : nb);
        assert_true(fabs(s - best_sum(mac, na, nb, 0, 0)) < 1e-12);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(peak_picking_sdof),
        cmocka_unit_test(lscf_three_close_modes),
        cmocka_unit_test(lsfd_exact_residues),
        cmocka_unit_test(mac_properties),
        cmocka_unit_test(mac_pairing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
