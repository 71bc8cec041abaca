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
#include <lapacke.h>

#include "kedyn/formalism.h"
#include "fe/prestress_membrane.h"
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
        kd_element_props p = props_of(theories[th], 0.37);
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
        kd_element_props_free(&p);
    }
    print_message("placed elements: worst relative difference of the routes to the direct quadrature %.2e\n", worst);
}

/* The formalism routes on two-dimensional elements (their points from the
 * family's rule and eval, the thickness integrated by two points): membranes
 * Q4 and T6, plates MITC4, DKT, ACM and BFS, shells Q4 + MITC4 and CST + DKT,
 * at a random origin (the shells also with random axes), random frames;
 * every route's m, c, k, q against the invariants route to 1e-10 (each route
 * evaluates its own quadrature). */
static void test_plate_element_routes(void** state) {
    (void)state;
    srand(9);
    const double quad[4][3] = {{0, 0, 0}, {0.05, 0.004, 0}, {0.047, 0.041, 0}, {-0.003, 0.038, 0}};
    const double rect[4][3] = {{0, 0, 0}, {0.05, 0, 0}, {0.05, 0.04, 0}, {0, 0.04, 0}};
    const double tri[3][3] = {{0, 0, 0}, {0.05, 0.006, 0}, {0.012, 0.043, 0}};
    const double t6[6][3] = {{0, 0, 0}, {0.05, 0.006, 0}, {0.012, 0.043, 0},
                             {0.025, 0.003, 0}, {0.031, 0.0245, 0}, {0.006, 0.0215, 0}};
    const struct {
        kd_element_kind kind;
        const double (*x)[3];
    } cases[] = {
        {{KD_THEORY_MEMBRANE, KD_INTERP_Q4, 0}, quad},   {{KD_THEORY_MEMBRANE, KD_INTERP_T6, 0}, t6},
        {{KD_THEORY_MINDLIN, KD_INTERP_MITC4, 0}, quad}, {{KD_THEORY_KIRCHHOFF, KD_INTERP_DKT, 0}, tri},
        {{KD_THEORY_KIRCHHOFF, KD_INTERP_ACM, 0}, rect}, {{KD_THEORY_KIRCHHOFF, KD_INTERP_BFS, 0}, rect},
        {{KD_THEORY_SHELL, KD_INTERP_MITC4, 0}, quad},   {{KD_THEORY_SHELL, KD_INTERP_DKT, 0}, tri},
    };
    const int ncase = (int)(sizeof(cases) / sizeof(cases[0]));
    kd_element_consts c = {0};
    c.E = 2.1e11, c.G = 2.1e11 / 2.6, c.rho = 7800, c.t = 0.004;
    double worst = 0;
    for (int k = 0; k < ncase; k++) {
        kd_element_props* p = calloc(1, sizeof(*p));
        if (kd_element_props_init_nodes(p, cases[k].kind, &c, cases[k].x) != KD_OK)
            fail_msg("%s %s: no element", kd_theory_str(cases[k].kind.theory), kd_interp_str(cases[k].kind.interp));
        const int shell = cases[k].kind.theory == KD_THEORY_SHELL;
        for (int trial = 0; trial < 2; trial++) {
            const double r0[3] = {urand(), urand(), shell ? urand() : 0.0}, v[3] = {urand(), urand(), urand()};
            double R[9];
            rotation(v, R);
            kd_element_place at;
            kd_element_place_set(&at, r0, shell && trial == 1 ? R : NULL);
            kd_frame_state fs = random_frame();
            kd_element_eqs ref, e;
            kd_formalism_element(KD_FORMALISM_INVARIANTS, p, &at, &fs, &ref, NULL);
            const int n = ref.n, nn = n * n;
            for (int f = 1; f < KD_FORMALISM_COUNT; f++) {
                kd_formalism_element((kd_formalism)f, p, &at, &fs, &e, NULL);
                const double* a[4] = {e.m, e.c, e.k, e.q};
                const double* b[4] = {ref.m, ref.c, ref.k, ref.q};
                for (int j = 0; j < 4; j++) {
                    const int len = j == 3 ? n : nn;
                    double d = 0, sc = 0;
                    for (int i = 0; i < len; i++) d = fmax(d, fabs(a[j][i] - b[j][i])), sc = fmax(sc, fabs(b[j][i]));
                    const double r = sc > 0 ? d / sc : d;
                    worst = fmax(worst, r);
                    if (!(r < 1e-10))
                        fail_msg("%s %s: %s term differs by %.2e", p->family->name, kd_formalism_name((kd_formalism)f),
                                 j == 0 ? "m" : j == 1 ? "c" : j == 2 ? "k" : "q", r);
                }
            }
        }
        kd_element_props_free(p), free(p);
    }
    print_message("2D elements: worst relative difference of the routes to the invariants %.2e\n", worst);
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
    const double Id[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    const double v[3] = {0.4, -1.1, 0.7}, r0[3] = {0.25, -0.4, 0.15};
    double R[9];
    rotation(v, R);
    double worst = 0;
    /* along the body x axis: element origins from the node coordinates */
    kd_model* m = compile_beam();
    assert_null(m->elem_rot);
    worst = fmax(worst, check_system(m, Id, 0.7));
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

/* ---- two-dimensional bodies in a moving frame ------------------------------ */

/* A rectangle [0, L] x [-b/2, b/2] in the body's x-y plane, nx x ny
 * elements of `kind` (4-node quadrilaterals; ny even), built by hand into a
 * kd_model (nodes numbered across the width, so the band is narrow): E, nu,
 * rho, thickness t; the DOFs of the nodes at x = 0 whose bit is set in
 * fix_root are fixed, and additionally those in fix_one at the node (0, 0).
 * The body spins at constant speed `speed` about the global axis `axis`
 * through the origin. */
static kd_model* rectangle_by_hand(kd_element_kind kind, double L, double b, int nx, int ny, double E, double nu,
                                   double rho, double t, unsigned fix_root, unsigned fix_one, const double axis[3],
                                   double speed) {
    kd_model* m = calloc(1, sizeof(*m));
    m->nbody = 1, m->nnode = (nx + 1) * (ny + 1), m->nelem = nx * ny, m->nprop = 1;
    m->body = calloc(1, sizeof(*m->body));
    kd_body* body = &m->body[0];
    snprintf(body->name, sizeof(body->name), "plate");
    body->type = KD_BODY_BEAM;  /* an elastic body: its frame follows its motion */
    body->kind = kind;
    body->node_num = m->nnode, body->elem_num = m->nelem;
    body->rot[0] = body->rot[4] = body->rot[8] = 1.0;
    body->geometric = 1;
    body->motion.type = KD_MOTION_ROTATION;
    memcpy(body->motion.axis, axis, sizeof(body->motion.axis));
    body->motion.angle = kd_law_constant(0.0);
    body->motion.angle.type = KD_LAW_SPEED, body->motion.angle.value = speed;
    kd_element_consts c = {0};
    c.E = E, c.G = E / (2 * (1 + nu)), c.rho = rho, c.t = t;
    const double hx = L / nx, hy = b / ny;
    const double xe[4][3] = {{0, 0, 0}, {hx, 0, 0}, {hx, hy, 0}, {0, hy, 0}};
    m->prop = calloc(1, sizeof(*m->prop));
    if (kd_element_props_init_nodes(&m->prop[0], kind, &c, xe) != KD_OK) fail_msg("element record");
    m->node_x = calloc((size_t)3 * m->nnode, sizeof(double));
    m->node_body = calloc((size_t)m->nnode, sizeof(int));
    m->node_dof_adr = calloc((size_t)m->nnode, sizeof(int));
    m->node_dof_num = calloc((size_t)m->nnode, sizeof(int));
    kd_dof_name names[KD_NODE_DOF_MAX];
    const int nd = kd_element_node_dofs_at(kind, 0, names);
    m->ndof_all = nd * m->nnode;
    m->dof_name = calloc((size_t)m->ndof_all, sizeof(kd_dof_name));
    m->dof_eq = calloc((size_t)m->ndof_all, sizeof(int));
    for (int i = 0; i <= nx; i++)
        for (int j = 0; j <= ny; j++) {
            const int n = i * (ny + 1) + j;
            m->node_x[3 * n] = i * hx, m->node_x[3 * n + 1] = j * hy - 0.5 * b;
            m->node_dof_adr[n] = nd * n, m->node_dof_num[n] = nd;
            for (int a = 0; a < nd; a++) {
                const unsigned bit = 1u << names[a];
                m->dof_name[nd * n + a] = names[a];
                m->dof_eq[nd * n + a] = ((i == 0 && (fix_root & bit)) || (i == 0 && 2 * j == ny && (fix_one & bit))) ? -1 : 0;
            }
        }
    for (int k = 0; k < m->ndof_all; k++)
        if (m->dof_eq[k] == 0) m->dof_eq[k] = m->neq++;
    m->elem_node_adr = calloc((size_t)m->nelem + 1, sizeof(int));
    m->elem_node = calloc((size_t)4 * m->nelem, sizeof(int));
    m->elem_body = calloc((size_t)m->nelem, sizeof(int));
    m->elem_prop = calloc((size_t)m->nelem, sizeof(int));
    m->elem_s0 = calloc((size_t)m->nelem, sizeof(double));
    m->elem_axial = calloc((size_t)6 * m->nelem, sizeof(double));
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++) {
            const int e = i * ny + j, n0 = i * (ny + 1) + j;
            const int nodes[4] = {n0, n0 + ny + 1, n0 + ny + 2, n0 + 1};
            m->elem_node_adr[e] = 4 * e;
            memcpy(&m->elem_node[4 * e], nodes, sizeof(nodes));
            m->elem_s0[e] = i * hx;
        }
    m->elem_node_adr[m->nelem] = 4 * m->nelem;
    for (int e = 0; e < m->nelem; e++) {
        int eqs[KD_ELEM_DOF_MAX], lo = m->neq, hi = -1;
        const int n = kd_model_elem_eqs(m, e, eqs);
        for (int a = 0; a < n; a++)
            if (eqs[a] >= 0) lo = eqs[a] < lo ? eqs[a] : lo, hi = eqs[a] > hi ? eqs[a] : hi;
        if (hi - lo > m->bandwidth) m->bandwidth = hi - lo;
    }
    m->total_mass = body->mass = rho * t * L * b;
    return m;
}

/* The membrane resultants of a strip L x b spinning about the normal through
 * the middle of its root (x = 0 held in x, its middle node in y; nu = 0, so
 * the strip is a bar along x and one across): the closed form
 * N_x = rho t Omega^2 (L^2 - x^2) / 2 of a bar rotating about its end, and
 * across N_y = rho t Omega^2 (b^2 / 4 - y^2) / 2. Bilinear elements
 * reproduce bars of linear elements, whose nodal displacements are exact
 * (1D), so the resultant in each element is the closed form's mean over it:
 * rho t Omega^2 (L^2 - (x0^2 + x0 x1 + x1^2) / 3) / 2 at every quadrature
 * point, N_xy = 0. */
static void test_strip_centrifugal_stress(void** state) {
    (void)state;
    const double L = 0.8, b = 0.1, t = 2e-3, rho = 7800, Om = 300.0, E = 2.1e11;
    const double z[3] = {0, 0, 1};
    const kd_element_kind q4 = {KD_THEORY_MEMBRANE, KD_INTERP_Q4, 0};
    const int nx = 16, ny = 4;
    kd_model* m = rectangle_by_hand(q4, L, b, nx, ny, E, 0.0, rho, t, 1u << KD_DOF_U, 1u << KD_DOF_V, z, Om);
    kd_system s;
    kd_error err;
    assert_int_equal(kd_system_init(&s, m, &err), KD_OK);
    assert_non_null(s.prestress);
    kd_system_frames(&s, 0.3);
    const double* w = s.frame[0].omega_L;
    assert_true(fabs(w[2] - Om) < 1e-12 * Om);
    double worst = 0.0, Wm[9], M[9];
    kd_skew(Wm, w);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) M[3 * i + j] = Wm[3 * i] * Wm[j] + Wm[3 * i + 1] * Wm[3 + j] + Wm[3 * i + 2] * Wm[6 + j];
    const double a[3] = {0, 0, 0};
    const int ng = m->prop[0].family->quadrature(&m->prop[0])->n;
    double* S = malloc(sizeof(double) * ng * KD_GRAD_MAX * KD_GRAD_MAX);
    for (int e = 0; e < m->nelem; e++) {
        assert_true(prestress_membrane_field(s.prestress, m, e, a, M, S));
        const double x0 = m->elem_s0[e], x1 = x0 + L / nx;
        const double y0 = m->node_x[3 * m->elem_node[4 * e] + 1], y1 = y0 + b / ny;
        const double want = rho * t * Om * Om * (L * L - (x0 * x0 + x0 * x1 + x1 * x1) / 3) / 2;
        const double want_y = rho * t * Om * Om * (b * b / 4 - (y0 * y0 + y0 * y1 + y1 * y1) / 3) / 2;
        const double scale = rho * t * Om * Om * L * L / 2;
        for (int g = 0; g < ng; g++) {
            const double* Sg = S + g * KD_GRAD_MAX * KD_GRAD_MAX;
            worst = fmax(worst, fabs(Sg[0] - want) / scale);
            worst = fmax(worst, fabs(Sg[4] - want_y) / scale);
            worst = fmax(worst, fabs(Sg[1]) / scale);
        }
    }
    print_message("spinning strip: N_x against the closed form (element means), worst %.2e of rho t W^2 L^2 / 2\n", worst);
    assert_true(worst < 1e-10);
    /* a unit axial frame acceleration: N_x = -rho t a (L - x), linear: exact */
    const double ax[3] = {1.0, 0, 0}, M0[9] = {0};
    worst = 0.0;
    for (int e = 0; e < m->nelem; e++) {
        prestress_membrane_field(s.prestress, m, e, ax, M0, S);
        const double xm = m->elem_s0[e] + 0.5 * L / nx;
        worst = fmax(worst, fabs(S[0] + rho * t * (L - xm)) / (rho * t * L));
    }
    print_message("accelerated strip: N_x against -rho t a (L - x), worst %.2e of rho t a L\n", worst);
    assert_true(worst < 1e-10);
    free(S);
    kd_system_free(&s);
    kd_model_free(&m);
}

/* The lowest eigenvalues of K(t) x = w^2 M x at an instant (the symmetric
 * problem: the gyroscopic C, which couples only rotary terms here, is left
 * out), ascending, into w2[0..count). */
static void symmetric_modes(kd_system* s, double t, int count, double* w2) {
    const int n = s->n;
    kd_gband C, K;
    kd_gband_init(&C, n, s->kd, s->kd);
    kd_gband_init(&K, n, s->kd, s->kd);
    int changed;
    kd_system_matrices(s, t, &C, &K, &changed);
    double* Kd = calloc((size_t)n * n, sizeof(double));
    double* Md = calloc((size_t)n * n, sizeof(double));
    double* ev = calloc((size_t)n, sizeof(double));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            Kd[(size_t)j * n + i] = 0.5 * (band_at(&K, i, j) + band_at(&K, j, i));
            Md[(size_t)j * n + i] = band_at(&s->M, i, j);
        }
    assert_int_equal(LAPACKE_dsygv(LAPACK_COL_MAJOR, 1, 'N', 'U', n, Kd, n, Md, n, ev), 0);
    for (int k = 0; k < count; k++) w2[k] = ev[k];
    free(Kd), free(Md), free(ev);
    kd_gband_free(&C), kd_gband_free(&K);
}

/* A narrow cantilever plate (MITC4, 40 x 2 elements, nu = 0, L / b = 20,
 * L / t = 200) spinning about the normal through its root is a rotating
 * Euler-Bernoulli beam bending out of its plane of rotation: mu = w / sqrt(EI / (rho A L^4))
 * against the published table at lambda = Omega / sqrt(EI / (rho A L^4)) = 12,
 * hub 0 (13.1702, 37.6031, 79.6145: Wright et al. 1982, Hodges & Rutkowski
 * 1981; docs/validation.md, "Moving frames"), and the stiffening alone,
 * (mu^2 - mu_0^2) / lambda^2 with mu_0 the plate's own at rest, against the
 * table's (mu_0 = 3.516015, 22.034492, 61.697214). Without geometric
 * stiffness the frequencies stay those at rest. */
static void test_rotating_plate_southwell(void** state) {
    (void)state;
    const double L = 1.0, b = 0.05, t = 0.005, E = 2.1e11, rho = 7800;
    const double scale = sqrt(E * b * t * t * t / 12 / (rho * b * t * pow(L, 4)));
    const double mu_ref[3] = {13.170150, 37.603112, 79.614478}, mu0_ref[3] = {3.516015, 22.034492, 61.697214};
    const kd_element_kind kind = {KD_THEORY_MINDLIN, KD_INTERP_MITC4, 0};
    const unsigned clamp = (1u << KD_DOF_W) | (1u << KD_DOF_RX) | (1u << KD_DOF_RY);
    const double z[3] = {0, 0, 1};
    double w2[3][3];  /* at rest, spinning, spinning without geometric stiffness */
    for (int spin = 0; spin < 3; spin++) {
        kd_model* m = rectangle_by_hand(kind, L, b, 40, 2, E, 0.0, rho, t, clamp, 0, z, spin ? 12 * scale : 0.0);
        m->body[0].geometric = spin < 2;
        kd_system s;
        kd_error err;
        assert_int_equal(kd_system_init(&s, m, &err), KD_OK);
        assert_true((spin == 2) == (s.prestress == NULL));
        symmetric_modes(&s, 0.0, 3, w2[spin]);
        kd_system_free(&s);
        kd_model_free(&m);
    }
    const double tol_mu[3] = {2e-4, 3e-3, 8e-3}, tol_a[3] = {3e-4, 2e-3, 5e-3};  /* 40 x 2 bilinear elements */
    for (int k = 0; k < 3; k++) {
        const double mu0 = sqrt(w2[0][k]) / scale, mu = sqrt(w2[1][k]) / scale;
        const double a = (mu * mu - mu0 * mu0) / 144, a_ref = (mu_ref[k] * mu_ref[k] - mu0_ref[k] * mu0_ref[k]) / 144;
        print_message("mode %d: mu0 %.6f (table %.6f, %.1e), mu(12) %.6f (table %.6f, %.1e), stiffening %.6f (table "
                      "%.6f, %.1e)\n",
                      k + 1, mu0, mu0_ref[k], fabs(mu0 / mu0_ref[k] - 1), mu, mu_ref[k], fabs(mu / mu_ref[k] - 1), a,
                      a_ref, fabs(a / a_ref - 1));
        assert_true(fabs(mu / mu_ref[k] - 1) < tol_mu[k]);
        assert_true(fabs(a / a_ref - 1) < tol_a[k]);
        /* geometric_stiffness: false: no stiffening (spinning about the normal does not soften w) */
        const double mu_off = sqrt(w2[2][k]) / scale;
        assert_true(fabs(mu_off / mu0 - 1) < 1e-4);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_placed_element_routes),
        cmocka_unit_test(test_placed_system),
        cmocka_unit_test(test_plate_element_routes),
        cmocka_unit_test(test_strip_centrifugal_stress),
        cmocka_unit_test(test_rotating_plate_southwell),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
