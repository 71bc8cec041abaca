/* Elements placed anywhere in a moving body (kedyn/inertia.h,
 * kd_element_place; theory.md sec. 3): an element with origin r0 and its own
 * axes R in the body, its DOFs rotated by T = diag(R^T) per node triple.
 *   - element level: every formalism route's generalized inertia force
 *     m d'' + c d' + k d - q of a spatial beam element placed at a random r0
 *     with random axes R equals a direct quadrature, written here, of
 *     int rho N^T R^T a_M dV with the point positions r0 + R (x + u) and the
 *     body DOFs rotated to the element's by hand (8 Gauss points along the
 *     element times 3 x 3 over the rectangular section), to 1e-11;
 *   - system level: a clamped spatial beam spinning up about a tilted axis
 *     under gravity, compiled once along the body x axis and once moved by
 *     hand to r0 + R x with every element's axes R (kd_model.elem_rot): M,
 *     C(t), K(t) and f(t) of the system, by every route, equal the same
 *     direct quadrature assembled by hand (with the elastic stiffness T^T k T
 *     rotated by hand), to 1e-10. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kedyn/formalism.h"
#include "kedyn/system.h"
#include "test_util.h"

static double urand(void) { return 2.0 * rand() / (double)RAND_MAX - 1.0; }

static const double sec_b = 0.03, sec_h = 0.05;  /* rectangle: b along z, h along y */

static kd_element_props props_of(kd_theory th, double L) {
    kd_section_desc s = {0};
    s.shape = KD_SHAPE_RECTANGLE, s.b = sec_b, s.h = sec_h;
    kd_element_consts c = {0};
    c.E = 70e9, c.rho = 2700, c.G = 70e9 / 2.6;
    kd_section_properties(&s, 0.3, &c);
    kd_element_props p;
    kd_element_kind kind = {th, KD_INTERP_CUBIC, 0};
    assert_int_equal(kd_element_props_init(&p, kind, &c, L), KD_OK);
    return p;
}

/* A rotation matrix (row-major) from a rotation vector (Rodrigues). */
static void rotation(const double v[3], double R[9]) {
    const double th = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    const double k[3] = {v[0] / th, v[1] / th, v[2] / th}, c = cos(th), s = sin(th);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) R[3 * i + j] = (i == j ? c : 0.0) + (1 - c) * k[i] * k[j];
    R[1] -= s * k[2], R[2] += s * k[1], R[3] += s * k[2], R[5] -= s * k[0], R[6] -= s * k[1], R[7] += s * k[0];
}

/* y = R^T x (3-vectors) */
static void rot_t(const double R[9], const double* x, double* y) {
    for (int j = 0; j < 3; j++) y[j] = R[j] * x[0] + R[3 + j] * x[1] + R[6 + j] * x[2];
}

/* y = R x */
static void rot_n(const double R[9], const double* x, double* y) {
    for (int i = 0; i < 3; i++) y[i] = R[3 * i] * x[0] + R[3 * i + 1] * x[1] + R[3 * i + 2] * x[2];
}

/* Body DOFs -> element DOFs of a 12-DOF spatial beam (u v w rx ry rz per
 * node): each triple rotated by R^T. */
static void body_to_element(const double R[9], const double* db, double* de) {
    for (int t = 0; t < 4; t++) rot_t(R, db + 3 * t, de + 3 * t);
}

/* The direct generalized inertia force, in body DOFs, of beam element p with
 * origin r0 and axes R in a body whose frame has omega, eps, origin
 * acceleration a and gravity g (body components), at body-DOF state (d, d',
 * d''): T^T int rho N_e^T R^T (a - g + (E + W W)(r0 + R (x + u)) + 2 W R u' + R u'') dV. */
static void direct_force(const kd_element_props* p, const double r0[3], const double R[9], const kd_frame_state* fs,
                         const double* d, const double* dd, const double* ddd, double* out) {
    static const double gx[8] = {0.019855071751231856, 0.10166676129318664, 0.23723379504183550, 0.40828267875217510,
                                 0.59171732124782490, 0.76276620495816450, 0.89833323870681336, 0.98014492824876814};
    static const double gw[8] = {0.050614268145188130, 0.11119051722668724, 0.15685332293894364, 0.18134189168918100,
                                 0.18134189168918100, 0.15685332293894364, 0.11119051722668724, 0.050614268145188130};
    static const double sx[3] = {-0.77459666924148338, 0.0, 0.77459666924148338};
    static const double sw[3] = {5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0};
    const int n = p->ndof;
    const int rotary = p->kind.theory != KD_THEORY_EULER_BERNOULLI;
    double de[12], dde[12], ddde[12], W[9], E[9];
    body_to_element(R, d, de);
    body_to_element(R, dd, dde);
    body_to_element(R, ddd, ddde);
    kd_skew(W, fs->omega);
    kd_skew(E, fs->eps);
    double qe[12] = {0};
    for (int g = 0; g < 8; g++) {
        double N[KD_NFIELD][KD_ELEM_DOF_MAX], dN[KD_NFIELD][KD_ELEM_DOF_MAX];
        kd_element_shape(p->kind, &p->c, p->L, gx[g], N, dN);
        for (int iy = 0; iy < 3; iy++)
            for (int iz = 0; iz < 3; iz++) {
                const double y = sx[iy] * sec_h / 2, z = sx[iz] * sec_b / 2;
                const double wt = p->c.rho * gw[g] * p->L * sw[iy] * sw[iz] * (sec_b * sec_h / 4);
                double Np[3][12];
                for (int k = 0; k < n; k++) {
                    Np[0][k] = N[KD_F_U][k] + rotary * (-y * N[KD_F_TZ][k] + z * N[KD_F_TY][k]);
                    Np[1][k] = N[KD_F_V][k] - z * N[KD_F_TX][k];
                    Np[2][k] = N[KD_F_W][k] + y * N[KD_F_TX][k];
                }
                double ue[3] = {0}, due[3] = {0}, ddue[3] = {0};
                for (int i = 0; i < 3; i++)
                    for (int k = 0; k < n; k++)
                        ue[i] += Np[i][k] * de[k], due[i] += Np[i][k] * dde[k], ddue[i] += Np[i][k] * ddde[k];
                /* body components of the point's position, velocity and acceleration relative to the frame */
                const double xe[3] = {gx[g] * p->L + ue[0], y + ue[1], z + ue[2]};
                double rb[3], dub[3], ddub[3];
                rot_n(R, xe, rb);
                for (int i = 0; i < 3; i++) rb[i] += r0[i];
                rot_n(R, due, dub);
                rot_n(R, ddue, ddub);
                double acc[3];
                for (int i = 0; i < 3; i++) {
                    acc[i] = fs->a[i] - fs->g[i] + ddub[i];
                    for (int j = 0; j < 3; j++) {
                        double ww = 0;
                        for (int k = 0; k < 3; k++) ww += W[3 * i + k] * W[3 * k + j];
                        acc[i] += (E[3 * i + j] + ww) * rb[j] + 2 * W[3 * i + j] * dub[j];
                    }
                }
                double acce[3];
                rot_t(R, acc, acce);
                for (int i = 0; i < 3; i++)
                    for (int k = 0; k < n; k++) qe[k] += wt * Np[i][k] * acce[i];
            }
    }
    /* element DOFs -> body DOFs: T^T (each triple rotated by R) */
    for (int t = 0; t < 4; t++) rot_n(R, qe + 3 * t, out + 3 * t);
}

static kd_frame_state random_frame(void) {
    kd_frame_state f;
    for (int i = 0; i < 3; i++) {
        f.omega[i] = 20 * urand(), f.eps[i] = 300 * urand();
        f.v[i] = 5 * urand(), f.a[i] = 100 * urand(), f.g[i] = 9.81 * urand();
    }
    return f;
}

static void test_placed_element_routes(void** state) {
    (void)state;
    srand(5);
    const kd_theory theories[3] = {KD_THEORY_RAYLEIGH, KD_THEORY_TIMOSHENKO, KD_THEORY_EULER_BERNOULLI};
    double worst = 0;
    for (int th = 0; th < 3; th++) {
        const kd_element_props p = props_of(theories[th], 0.37);
        assert_int_equal(p.ndof, 12);
        assert_true(kd_element_place_rotatable(&p));
        for (int trial = 0; trial < 3; trial++) {
            const double v[3] = {2 * urand(), 2 * urand(), 2 * urand()}, r0[3] = {urand(), urand(), urand()};
            double R[9];
            rotation(v, R);
            kd_element_place at;
            kd_element_place_set(&at, r0, R);
            assert_true(at.rotated);
            const kd_frame_state fs = random_frame();
            double d[12], dd[12], ddd[12], want[12];
            for (int k = 0; k < 12; k++) d[k] = 1e-3 * urand(), dd[k] = 0.1 * urand(), ddd[k] = 10 * urand();
            direct_force(&p, r0, R, &fs, d, dd, ddd, want);
            double scale = 0;
            for (int k = 0; k < 12; k++) scale = fmax(scale, fabs(want[k]));
            for (int f = 0; f < KD_FORMALISM_COUNT; f++) {
                kd_element_eqs e;
                kd_formalism_element((kd_formalism)f, &p, &at, &fs, &e, NULL);
                for (int a = 0; a < 12; a++) {
                    double got = -e.q[a];
                    for (int b = 0; b < 12; b++)
                        got += e.m[12 * a + b] * ddd[b] + e.c[12 * a + b] * dd[b] + e.k[12 * a + b] * d[b];
                    const double err = fabs(got - want[a]) / scale;
                    worst = fmax(worst, err);
                    if (!(err < 1e-11))
                        fail_msg("%s %s dof %d: route %.16g, direct %.16g", kd_theory_str(theories[th]),
                                 kd_formalism_name((kd_formalism)f), a, got, want[a]);
                }
            }
        }
    }
    print_message("placed elements: worst relative difference of the routes to the direct quadrature %.2e\n", worst);
}

/* A dense n x n entry of a general band matrix (0 outside the band). */
static double band_at(const kd_gband* A, int i, int j) {
    if (i - j > A->kl || j - i > A->ku) return 0.0;
    return A->ab[(size_t)(A->ku + i - j) + (size_t)j * (size_t)(A->kl + A->ku + 1)];
}

static kd_model* compile_beam(void) {
    kd_section_desc sec = {0};
    sec.shape = KD_SHAPE_RECTANGLE, sec.b = sec_b, sec.h = sec_h;
    kd_desc* d = one_beam(70e9, 2700, 0.3, sec, 1.2, 4, KD_THEORY_TIMOSHENKO, KD_INTERP_CUBIC, 0);
    d->bodies[0].geometric_stiffness = 0;  /* the axial force's unit cases are along the body x axis */
    fix(d, 1, KD_FIX_ALL);
    kd_motion_desc* md = kd_desc_add_motion(d);
    md->body = 0, md->motion.type = KD_MOTION_ROTATION, md->motion.hub = 0.3;
    md->motion.axis[0] = 0.3, md->motion.axis[1] = 0.4, md->motion.axis[2] = sqrt(1 - 0.25);
    md->motion.angle = kd_law_constant(0);
    md->motion.angle.type = KD_LAW_SPIN_UP, md->motion.angle.spin_omega = 40, md->motion.angle.spin_T = 2;
    kd_load_desc* g = kd_desc_add_load(d);
    g->type = KD_LOAD_GRAVITY, g->g[2] = -9.81;
    kd_error err;
    kd_model* m = NULL;
    if (kd_model_compile(d, &m, &err)) fail_msg("%s", err.msg);
    kd_desc_free(&d);
    return m;
}

/* Move every node of m's only body to r0 + R x and give every element the axes R. */
static void move_body(kd_model* m, const double r0[3], const double R[9]) {
    for (int k = 0; k < m->nnode; k++) {
        double x[3];
        rot_n(R, &m->node_x[3 * k], x);
        for (int i = 0; i < 3; i++) m->node_x[3 * k + i] = r0[i] + x[i];
    }
    m->elem_rot = malloc(sizeof(double) * 9 * (size_t)m->nelem);
    for (int e = 0; e < m->nelem; e++) memcpy(&m->elem_rot[9 * e], R, sizeof(double) * 9);
}

/* M, C(t), K(t), f(t) of every route against the direct quadrature assembled
 * by hand: element e at its first node's body position with axes R. */
static double check_system(kd_model* m, const double R[9], double t) {
    const int n = m->neq;
    double* Mr = calloc((size_t)n * n, sizeof(double));
    double* Cr = calloc((size_t)n * n, sizeof(double));
    double* Kr = calloc((size_t)n * n, sizeof(double));
    double* fr = calloc((size_t)n, sizeof(double));
    double* f = calloc((size_t)n, sizeof(double));
    double worst = 0;
    for (int route = 0; route < KD_FORMALISM_COUNT; route++) {
        kd_system s;
        kd_error err;
        assert_int_equal(kd_system_init_formalism(&s, m, (kd_formalism)route, &err), KD_OK);
        kd_gband C, K;
        kd_gband_init(&C, s.n, s.kd, s.kd);
        kd_gband_init(&K, s.n, s.kd, s.kd);
        int changed;
        kd_system_matrices(&s, t, &C, &K, &changed);
        kd_system_force(&s, t, f);
        if (route == 0) {  /* the reference, from the frame of the instant */
            const kd_frame* fr_ = &s.frame[0];
            kd_frame_state fs;
            for (int i = 0; i < 3; i++) {
                fs.omega[i] = fr_->omega_L[i], fs.eps[i] = fr_->eps_L[i], fs.a[i] = fr_->aO_L[i], fs.v[i] = 0;
                fs.g[i] = fr_->R[i] * m->gravity[0] + fr_->R[3 + i] * m->gravity[1] + fr_->R[6 + i] * m->gravity[2];
            }
            for (int e = 0; e < m->nelem; e++) {
                const kd_element_props* p = &m->prop[m->elem_prop[e]];
                const double* r0 = &m->node_x[3 * m->elem_node[m->elem_node_adr[e]]];
                int eqs[KD_ELEM_DOF_MAX];
                kd_model_elem_eqs(m, e, eqs);
                double zero[12] = {0}, unit[12] = {0}, q0[12], q[12];
                direct_force(p, r0, R, &fs, zero, zero, zero, q0);
                for (int a = 0; a < 12; a++)
                    if (eqs[a] >= 0) fr[eqs[a]] -= q0[a];
                for (int b = 0; b < 12; b++) {
                    if (eqs[b] < 0) continue;
                    unit[b] = 1.0;
                    double* dst[3] = {Mr, Cr, Kr};
                    for (int kind = 0; kind < 3; kind++) {
                        direct_force(p, r0, R, &fs, kind == 2 ? unit : zero, kind == 1 ? unit : zero,
                                     kind == 0 ? unit : zero, q);
                        for (int a = 0; a < 12; a++)
                            if (eqs[a] >= 0) dst[kind][(size_t)eqs[a] * n + eqs[b]] += q[a] - q0[a];
                    }
                    unit[b] = 0.0;
                }
                /* elastic stiffness T^T k T, by hand */
                for (int a = 0; a < 12; a++)
                    for (int b = 0; b < 12; b++) {
                        if (eqs[a] < 0 || eqs[b] < 0) continue;
                        double v = 0;
                        for (int i = 0; i < 12; i++)
                            for (int j = 0; j < 12; j++) {
                                if (i / 3 != a / 3 || j / 3 != b / 3) continue;
                                /* T[i][a] = R^T[i%3][a%3] = R[a%3][i%3] */
                                v += R[3 * (a % 3) + i % 3] * p->k[12 * i + j] * R[3 * (b % 3) + j % 3];
                            }
                        Kr[(size_t)eqs[a] * n + eqs[b]] += v;
                    }
            }
        }
        double dm = 0, dc = 0, dk = 0, df = 0, sm = 0, sc = 0, sk = 0, sf = 0;
        for (int i = 0; i < n; i++) {
            df = fmax(df, fabs(f[i] - fr[i])), sf = fmax(sf, fabs(fr[i]));
            for (int j = 0; j < n; j++) {
                const size_t ij = (size_t)i * n + j;
                dm = fmax(dm, fabs(band_at(&s.M, i, j) - Mr[ij])), sm = fmax(sm, fabs(Mr[ij]));
                dc = fmax(dc, fabs(band_at(&C, i, j) - Cr[ij])), sc = fmax(sc, fabs(Cr[ij]));
                dk = fmax(dk, fabs(band_at(&K, i, j) - Kr[ij])), sk = fmax(sk, fabs(Kr[ij]));
            }
        }
        const double r[4] = {sm > 0 ? dm / sm : dm, sc > 0 ? dc / sc : dc, sk > 0 ? dk / sk : dk, sf > 0 ? df / sf : df};
        for (int k = 0; k < 4; k++) worst = fmax(worst, r[k]);
        if (!(r[0] < 1e-10 && r[1] < 1e-10 && r[2] < 1e-10 && r[3] < 1e-10))
            fail_msg("%s at t = %g: M %.2e C %.2e K %.2e f %.2e", kd_formalism_name((kd_formalism)route), t, r[0], r[1],
                     r[2], r[3]);
        kd_gband_free(&C), kd_gband_free(&K);
        kd_system_free(&s);
    }
    free(Mr), free(Cr), free(Kr), free(fr), free(f);
    return worst;
}

static void test_placed_system(void** state) {
    (void)state;
    const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    const double v[3] = {0.4, -1.1, 0.7}, r0[3] = {0.25, -0.4, 0.15};
    double R[9];
    rotation(v, R);
    double worst = 0;
    /* along the body x axis: element origins from the node coordinates */
    kd_model* m = compile_beam();
    assert_null(m->elem_rot);
    worst = fmax(worst, check_system(m, I, 0.7));
    kd_model_free(&m);
    /* moved to r0 + R x with the element axes R */
    m = compile_beam();
    move_body(m, r0, R);
    worst = fmax(worst, check_system(m, R, 0.0));
    worst = fmax(worst, check_system(m, R, 0.7));
    free(m->elem_rot);
    m->elem_rot = NULL;
    kd_model_free(&m);
    print_message("placed system: worst relative difference of M, C, K, f to the hand assembly %.2e\n", worst);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_placed_element_routes),
        cmocka_unit_test(test_placed_system),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
