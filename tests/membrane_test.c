/* Membrane (plane-stress) elements (src/fe/element_membrane.c; theory.md
 * sec. 10.1-10.2): the quadrature rules' exactness, the patch test of every
 * kind on a distorted mesh, the mass and rigid-body modes, and degenerate
 * elements. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "plate_util.h"

static const double E = 210e9, NU = 0.3, RHO = 7800, T = 1e-3;

static const kd_interp MEMBRANES[5] = {KD_INTERP_CST, KD_INTERP_T6, KD_INTERP_Q4, KD_INTERP_Q8, KD_INTERP_Q9};

static kd_element_kind membrane(kd_interp ip) { return (kd_element_kind){KD_THEORY_MEMBRANE, ip, 0}; }

/* Every membrane kind has a table with its node count. */
static void test_tables(void** state) {
    (void)state;
    const int nodes[5] = {3, 6, 4, 8, 9};
    for (int k = 0; k < 5; k++) {
        const kd_element_family* fam = kd_element_family_of(membrane(MEMBRANES[k]));
        assert_non_null(fam);
        assert_int_equal(fam->nnode, nodes[k]);
        assert_int_equal(kd_element_kind_family(membrane(MEMBRANES[k])), KD_FAMILY_MEMBRANE);
    }
    assert_null(kd_element_family_of(membrane(KD_INTERP_CUBIC)));
    assert_null(kd_element_family_of(membrane(KD_INTERP_DKT)));
    /* every kind: 12 beam kinds (planar and 3D) and 14 two-dimensional ones,
     * each with a table whose name is unique per table */
    kd_element_kind kinds[64];
    const int n = kd_element_kinds(kinds, 64);
    assert_int_equal(n, 26);
    int n2d = 0;
    for (int i = 0; i < n; i++) {
        const kd_element_family* fam = kd_element_family_of(kinds[i]);
        assert_non_null(fam);
        if (kd_element_kind_family(kinds[i]) != KD_FAMILY_BEAM) {
            n2d++;
            assert_true(fam->domain == KD_DOMAIN_TRIANGLE || fam->domain == KD_DOMAIN_QUADRILATERAL);
        }
        for (int j = 0; j < i; j++)
            if (kd_element_family_of(kinds[j]) != fam) assert_string_not_equal(kd_element_family_of(kinds[j])->name, fam->name);
    }
    assert_int_equal(n2d, 14);
    for (int f = 0; f < KD_FAMILIES; f++) assert_non_null(kd_element_family_get((kd_family)f));
}

/* The triangle rules integrate x^i y^j, i + j <= degree, exactly
 * (int = i! j! / (i + j + 2)!), the Gauss rules to degree 2n - 1 per
 * coordinate (int over [-1, 1] of s^k = 2/(k+1) for even k). */
static double fact(int n) { return n <= 1 ? 1.0 : n * fact(n - 1); }

static void check_rule(const kd_quadrature* q, int tri, int deg) {
    for (int i = 0; i <= deg; i++)
        for (int j = 0; j <= deg; j++) {
            if (tri && i + j > deg) continue;
            double s = 0.0;
            for (int g = 0; g < q->n; g++) s += q->w[g] * pow(q->xi[g][0], i) * pow(q->xi[g][1], j);
            const double exact = tri ? fact(i) * fact(j) / fact(i + j + 2)
                                     : ((i % 2) ? 0.0 : 2.0 / (i + 1)) * ((j % 2) ? 0.0 : 2.0 / (j + 1));
            assert_true(fabs(s - exact) < 1e-15);
        }
    /* one degree more is not exact (the rule is not better than claimed) */
    double s = 0.0;
    const int d1 = deg + 1;
    for (int g = 0; g < q->n; g++) s += q->w[g] * pow(q->xi[g][0], tri ? d1 : d1 + (d1 % 2));
    const int k = tri ? d1 : d1 + (d1 % 2);
    const double exact = tri ? fact(k) / fact(k + 2) : 2.0 / (k + 1) * 2.0;
    assert_true(fabs(s - exact) > 1e-10);
}

static void test_quadrature(void** state) {
    (void)state;
    kd_element_consts c = plate_consts(E, NU, RHO, T);
    const double xt[3][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    const double xq[9][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0.5, 0, 0}, {1, 0.5, 0}, {0.5, 1, 0}, {0, 0.5, 0}, {0.5, 0.5, 0}};
    const double xt6[6][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0.5, 0, 0}, {0.5, 0.5, 0}, {0, 0.5, 0}};
    const int degree[5] = {2, 4, 3, 5, 5};
    for (int k = 0; k < 5; k++) {
        kd_element_props* p = calloc(1, sizeof(*p));
        const kd_interp ip = MEMBRANES[k];
        const double(*x)[3] = ip == KD_INTERP_CST ? xt : (ip == KD_INTERP_T6 ? xt6 : xq);
        assert_int_equal(kd_element_props_init_nodes(p, membrane(ip), &c, x), KD_OK);
        check_rule(p->family->quadrature(p), p->family->domain == KD_DOMAIN_TRIANGLE, degree[k]);
        kd_element_props_free(p), free(p);
    }
}

/* Patch test (theory.md sec. 10.2): on a distorted 3 x 3 patch, boundary
 * nodes given the linear field u = a0 + a1 x + a2 y, v = b0 + b1 x + b2 y,
 * the interior nodes come out on the same field and every quadrature point
 * has the constant strain. */
static double patch_error(kd_interp ip) {
    kd_element_consts c = plate_consts(E, NU, RHO, T);
    mesh2d m = mesh_rect(membrane(ip), 2.0, 1.5, 3, 3, 0.3);
    double* K = malloc(sizeof(double) * (size_t)m.ndof * (size_t)m.ndof);
    mesh_assemble(&m, &c, K, NULL, NULL, NULL);
    const double au[3] = {1e-3, 2e-4, -3e-4}, av[3] = {-2e-3, 1e-4, 5e-4};
    double* x = calloc((size_t)m.ndof, sizeof(double));
    double* want = calloc((size_t)m.ndof, sizeof(double));
    int* free_dof = calloc((size_t)m.ndof, sizeof(int));
    for (int a = 0; a < m.nnode; a++) {
        const double* p = m.x + 3 * a;
        want[2 * a] = au[0] + au[1] * p[0] + au[2] * p[1];
        want[2 * a + 1] = av[0] + av[1] * p[0] + av[2] * p[1];
        const int gi = a % m.gx, gj = a / m.gx;
        const int boundary = gi == 0 || gj == 0 || gi == m.gx - 1 || gj == m.gy - 1;
        if (boundary || !m.used[a]) x[2 * a] = want[2 * a], x[2 * a + 1] = want[2 * a + 1];
        else free_dof[2 * a] = free_dof[2 * a + 1] = 1;
    }
    assert_int_equal(dense_solve_bc(K, m.ndof, free_dof, NULL, x), 0);
    double err = 0.0;
    for (int i = 0; i < m.ndof; i++) err = fmax(err, fabs(x[i] - want[i]));
    /* strains at the quadrature points */
    kd_element_props* p = calloc(1, sizeof(*p));
    for (int e = 0; e < m.nelem; e++) {
        assert_int_equal(mesh_props(&m, &c, e, p), KD_OK);
        const kd_quadrature* q = p->family->quadrature(p);
        for (int g = 0; g < q->n; g++) {
            kd_element_point pt;
            p->family->eval(p, q->xi[g], &pt);
            double eps[3] = {0, 0, 0};
            for (int r = 0; r < 3; r++)
                for (int a = 0; a < p->ndof; a++) eps[r] += pt.B[r][a] * x[2 * m.conn[e * m.nen + a / 2] + a % 2];
            err = fmax(err, fabs(eps[0] - au[1]));
            err = fmax(err, fabs(eps[1] - av[2]));
            err = fmax(err, fabs(eps[2] - au[2] - av[1]));
        }
    }
    kd_element_props_free(p), free(p), free(K), free(x), free(want), free(free_dof);
    mesh_free(&m);
    return err / 1e-3;
}

static void test_patch(void** state) {
    (void)state;
    for (int k = 0; k < 5; k++) {
        const double err = patch_error(MEMBRANES[k]);
        printf("membrane patch test %s: max error / strain scale %.2e\n", kd_interp_str(MEMBRANES[k]), err);
        assert_true(err < 1e-10);
    }
}

/* Mass sums to rho t A (s_x of a unit translation), and k has exactly
 * three zero eigenvalues (two translations, one rotation) on a distorted
 * element. */
static void test_mass_and_rigid_modes(void** state) {
    (void)state;
    kd_element_consts c = plate_consts(E, NU, RHO, T);
    for (int k = 0; k < 5; k++) {
        mesh2d m = mesh_rect(membrane(MEMBRANES[k]), 0.7, 0.4, 3, 2, 0.3);
        double area = 0.0, mass = 0.0, sx = 0.0, sy = 0.0;
        kd_element_props* p = calloc(1, sizeof(*p));
        for (int e = 0; e < m.nelem; e++) {
            assert_int_equal(mesh_props(&m, &c, e, p), KD_OK);
            const kd_quadrature* q = p->family->quadrature(p);
            for (int g = 0; g < q->n; g++) {
                kd_element_point pt;
                p->family->eval(p, q->xi[g], &pt);
                area += q->w[g] * pt.measure;
            }
            mass += p->mass;
            for (int a = 0; a < p->ndof; a += 2) sx += p->s_i[0][a], sy += p->s_i[1][a + 1];
            if (e == m.nelem / 2) {
                double K[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX], ev[KD_ELEM_DOF_MAX];
                memcpy(K, p->k, sizeof(double) * (size_t)(p->ndof * p->ndof));
                assert_int_equal(LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', p->ndof, K, p->ndof, ev), 0);
                const double kmax = ev[p->ndof - 1];
                int zeros = 0;
                for (int i = 0; i < p->ndof; i++) zeros += fabs(ev[i]) < 1e-10 * kmax;
                assert_int_equal(zeros, 3);
                assert_true(ev[3] > 1e-6 * kmax);  /* no spurious zero-energy mode */
            }
        }
        assert_true(rel_err(area, 0.7 * 0.4) < 1e-13);
        assert_true(rel_err(mass, RHO * T * 0.7 * 0.4) < 1e-13);
        assert_true(rel_err(sx, mass) < 1e-13 && rel_err(sy, mass) < 1e-13);
        kd_element_props_free(p), free(p);
        mesh_free(&m);
    }
}

/* Degenerate or inverted elements and bad constants. */
static void test_degenerate(void** state) {
    (void)state;
    kd_element_consts c = plate_consts(E, NU, RHO, T);
    kd_element_props* p = calloc(1, sizeof(*p));
    const double inverted_tri[3][3] = {{0, 0, 0}, {0, 1, 0}, {1, 0, 0}};
    const double collinear_tri[3][3] = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}};
    const double good_tri[3][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    const double bent_tri[3][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0.1}};
    const double reentrant_quad[4][3] = {{0, 0, 0}, {1, 0, 0}, {0.2, 0.2, 0}, {0, 1, 0}};
    const double inverted_quad[4][3] = {{0, 0, 0}, {0, 1, 0}, {1, 1, 0}, {1, 0, 0}};
    const double good_quad[4][3] = {{0, 0, 0}, {1, 0, 0}, {1.2, 0.9, 0}, {0.1, 1, 0}};
    assert_int_equal(kd_element_props_init_nodes(p, membrane(KD_INTERP_CST), &c, inverted_tri), KD_ERR_INPUT);
    assert_int_equal(kd_element_props_init_nodes(p, membrane(KD_INTERP_CST), &c, collinear_tri), KD_ERR_INPUT);
    assert_int_equal(kd_element_props_init_nodes(p, membrane(KD_INTERP_CST), &c, bent_tri), KD_ERR_INPUT);
    assert_int_equal(kd_element_props_init_nodes(p, membrane(KD_INTERP_CST), &c, good_tri), KD_OK);
    kd_element_props_free(p);
    assert_int_equal(kd_element_props_init_nodes(p, membrane(KD_INTERP_Q4), &c, reentrant_quad), KD_ERR_INPUT);
    assert_int_equal(kd_element_props_init_nodes(p, membrane(KD_INTERP_Q4), &c, inverted_quad), KD_ERR_INPUT);
    assert_int_equal(kd_element_props_init_nodes(p, membrane(KD_INTERP_Q4), &c, good_quad), KD_OK);
    kd_element_consts bad = c;
    bad.t = 0.0;
    kd_element_props_free(p);
    assert_int_equal(kd_element_props_init_nodes(p, membrane(KD_INTERP_Q4), &bad, good_quad), KD_ERR_USAGE);
    kd_element_props_free(p), free(p);
}


/* ---- in-plane modes of a rectangle: closed form, errors and orders ------- */

/* The rectangle a x b with v = 0 on x = 0, a and u = 0 on y = 0, b has the
 * separable modes u = A cos(alpha x) sin(beta y), v = B sin(alpha x)
 * cos(beta y), alpha = m pi / a, beta = n pi / b (m, n >= 0, not both 0),
 * and rho omega^2 the eigenvalues of [C alpha^2 + G beta^2, (C nu + G)
 * alpha beta; (C nu + G) alpha beta, G alpha^2 + C beta^2], C = E/(1 - nu^2),
 * G = E / (2 (1 + nu)) (plane-stress Navier equations; theory.md sec. 10.2). */
static void inplane_closed_form(double a, double b, int count, double* out) {
    double w[200];
    int n = 0;
    const double C = E / (1 - NU * NU), G = E / (2 * (1 + NU));
    for (int i = 0; i <= 8; i++)
        for (int j = 0; j <= 8; j++) {
            if (i == 0 && j == 0) continue;
            const double al = i * PI / a, be = j * PI / b;
            const double k11 = C * al * al + G * be * be, k22 = G * al * al + C * be * be, k12 = (C * NU + G) * al * be;
            const double mean = 0.5 * (k11 + k22), dev = sqrt(0.25 * (k11 - k22) * (k11 - k22) + k12 * k12);
            /* with m = 0 or n = 0 one of the two fields vanishes: one mode */
            if (i == 0) w[n++] = sqrt(G * be * be / RHO);
            else if (j == 0) w[n++] = sqrt(G * al * al / RHO);
            else w[n++] = sqrt((mean - dev) / RHO), w[n++] = sqrt((mean + dev) / RHO);
        }
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (w[j] < w[i]) {
                const double t = w[i];
                w[i] = w[j], w[j] = t;
            }
    memcpy(out, w, sizeof(double) * (size_t)count);
}

typedef struct rect_edges {
    double a, b;
} rect_edges;

static int fix_inplane(const double x[3], kd_dof_name dof, const void* ctx) {
    const rect_edges* r = ctx;
    const double tol = 1e-9;
    if (dof == KD_DOF_V) return fabs(x[0]) < tol || fabs(x[0] - r->a) < tol;
    if (dof == KD_DOF_U) return fabs(x[1]) < tol || fabs(x[1] - r->b) < tol;
    return 0;
}

/* worst relative error of the lowest 6 frequencies on an nx x ny mesh */
static double inplane_error(kd_interp ip, int nx, int ny, double distort) {
    const double a = 0.2, b = 0.16;  /* the plate of the thesis, sec. 5.3.3 */
    kd_element_consts c = plate_consts(E, NU, RHO, T);
    mesh2d m = mesh_rect(membrane(ip), a, b, nx, ny, distort);
    rect_edges r = {a, b};
    double lam[6], ref[6], worst = 0.0;
    assert_int_equal(mesh_eigen(&m, &c, fix_inplane, &r, NULL, -1.0, 6, lam), 0);
    inplane_closed_form(a, b, 6, ref);
    for (int k = 0; k < 6; k++) worst = fmax(worst, rel_err(sqrt(lam[k]), ref[k]));
    mesh_free(&m);
    return worst;
}

/* Orders log2(e_n / e_2n) on regular meshes, measured (docs/validation.md):
 * CST and Q4 2, T6, Q8 and Q9 4; the errors on the finer mesh, and on a
 * distorted one, asserted against the measured ones. */
static void test_inplane_modes(void** state) {
    (void)state;
    const int nx[5] = {8, 4, 8, 4, 4};
    const double order_min[5] = {1.8, 3.5, 1.8, 3.6, 3.6};
    /* measured 1.96e-2, 9.9e-4, 8.1e-3, 2.9e-4, 2.9e-4; distorted 2.2e-2, 1.4e-3,
     * 1.06e-2, 5.5e-4, 4.5e-4 */
    const double tol[5] = {2.5e-2, 1.3e-3, 1e-2, 4e-4, 4e-4};
    const double tol_distorted[5] = {2.8e-2, 2e-3, 1.4e-2, 7e-4, 6e-4};
    for (int k = 0; k < 5; k++) {
        const double e1 = inplane_error(MEMBRANES[k], nx[k], nx[k], 0.0);
        const double e2 = inplane_error(MEMBRANES[k], 2 * nx[k], 2 * nx[k], 0.0);
        const double ed = inplane_error(MEMBRANES[k], 2 * nx[k], 2 * nx[k], 0.25);
        const double order = log2(e1 / e2);
        printf("in-plane modes %s: worst error of 6 %.3e (%dx%d), %.3e (%dx%d), order %.2f; distorted %.3e\n",
               kd_interp_str(MEMBRANES[k]), e1, nx[k], nx[k], e2, 2 * nx[k], 2 * nx[k], order, ed);
        assert_true(order > order_min[k]);
        assert_true(e2 < tol[k]);
        assert_true(ed < tol_distorted[k]);
    }
}

/* The membrane's own pre-stress gradients (theory.md sec. 10.9): for a
 * linear field on a distorted mesh, d^T k_g d = A sum_c grad u_c^T S
 * grad u_c with a full S. */
static void test_prestress_energy(void** state) {
    (void)state;
    const double a = 0.5, b = 0.3;
    kd_element_consts c = plate_consts(E, NU, RHO, T);
    double S[KD_GRAD_MAX * KD_GRAD_MAX] = {0};
    S[0] = 300.0, S[1] = S[3] = -120.0, S[4] = 200.0;
    const double gu[2] = {0.3, -0.2}, gv[2] = {0.5, 0.25};
    const double want = a * b * (S[0] * gu[0] * gu[0] + 2 * S[1] * gu[0] * gu[1] + S[4] * gu[1] * gu[1] +
                                 S[0] * gv[0] * gv[0] + 2 * S[1] * gv[0] * gv[1] + S[4] * gv[1] * gv[1]);
    for (int k = 0; k < 5; k++) {
        mesh2d m = mesh_rect(membrane(MEMBRANES[k]), a, b, 3, 2, 0.3);
        const int n = m.ndof;
        double* Kg = malloc(sizeof(double) * (size_t)n * (size_t)n);
        mesh_assemble(&m, &c, NULL, NULL, S, Kg);
        double* d = calloc((size_t)n, sizeof(double));
        for (int i = 0; i < m.nnode; i++) {
            const double* x = m.x + 3 * i;
            d[2 * i] = 0.01 + gu[0] * x[0] + gu[1] * x[1];
            d[2 * i + 1] = -0.02 + gv[0] * x[0] + gv[1] * x[1];
        }
        double e = 0.0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) e += d[i] * Kg[(size_t)i * n + j] * d[j];
        assert_true(rel_err(e, want) < 1e-12);
        free(Kg), free(d);
        mesh_free(&m);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables),
        cmocka_unit_test(test_quadrature),
        cmocka_unit_test(test_patch),
        cmocka_unit_test(test_mass_and_rigid_modes),
        cmocka_unit_test(test_degenerate),
        cmocka_unit_test(test_inplane_modes),
        cmocka_unit_test(test_prestress_energy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
