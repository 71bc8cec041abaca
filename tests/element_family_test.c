/* The element-family interface (kedyn/element.h; src/fe/element_integrate.c,
 * element_families.c): every family's table is consistent, the generic
 * quadrature gives int rho dV, a patch test of the strain rows, the
 * geometric stiffness of a pre-stress field through the generic routine
 * against the precomputed invariants, and the compiled model's nodes,
 * element connectivity and DOFs per node kind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

static const double E = 210e9, RHO = 7800, NU = 0.3;

static kd_element_consts consts_rect(double b, double h) {
    kd_section_desc s = {0};
    s.shape = KD_SHAPE_RECTANGLE, s.b = b, s.h = h;
    kd_element_consts c = {0};
    c.E = E, c.rho = RHO, c.G = E / (2 * (1 + NU));
    kd_section_properties(&s, NU, &c);
    return c;
}

/* Every valid beam kind, in a fixed order. */
static int beam_kinds(kd_element_kind* out) {
    const kd_theory th[4] = {KD_THEORY_BAR, KD_THEORY_EULER_BERNOULLI, KD_THEORY_RAYLEIGH, KD_THEORY_TIMOSHENKO};
    int n = 0;
    for (int planar = 0; planar < 2; planar++)
        for (int t = 0; t < 4; t++)
            for (int ip = 0; ip < 2; ip++) {
                if (ip == KD_INTERP_QUINTIC && (th[t] == KD_THEORY_BAR || th[t] == KD_THEORY_TIMOSHENKO)) continue;
                out[n++] = (kd_element_kind){th[t], (kd_interp)ip, planar};
            }
    return n;
}

/* Reference measure of each domain (the weights of a rule sum to it). */
static double domain_measure(kd_domain d) {
    switch (d) {
    case KD_DOMAIN_LINE: return 1.0;
    case KD_DOMAIN_TRIANGLE: return 0.5;
    case KD_DOMAIN_QUADRILATERAL: return 4.0;
    case KD_DOMAIN_HEXAHEDRON: return 8.0;
    }
    return 0.0;
}

/* Each family's table: nodes, DOFs per node kind, quadrature weights. */
static void test_family_tables(void** state) {
    (void)state;
    for (int f = 0; f < KD_FAMILIES; f++) {
        const kd_element_family* fam = kd_element_family_get((kd_family)f);
        assert_non_null(fam);
        assert_non_null(fam->name);
        assert_true(fam->nnode >= 2 && fam->nnode <= KD_ELEM_NODE_MAX);
        assert_true(fam->ntrans >= 0 && fam->ntrans <= KD_TRANS_MAX);
        assert_non_null(fam->node_dofs);
        assert_non_null(fam->init);
        assert_non_null(fam->eval);
    }
    assert_null(kd_element_family_get(KD_FAMILIES));
    kd_element_kind kinds[16];
    const int nk = beam_kinds(kinds);
    for (int i = 0; i < nk; i++) {
        assert_int_equal(kd_element_kind_family(kinds[i]), KD_FAMILY_BEAM);
        const kd_element_family* fam = kd_element_family_of(kinds[i]);
        kd_element_consts c = consts_rect(0.02, 0.03);
        kd_element_props p;
        assert_int_equal(kd_element_props_init(&p, kinds[i], &c, 0.4), KD_OK);
        assert_ptr_equal(p.family, fam);
        int ndof = 0;
        for (int a = 0; a < fam->nnode; a++) {
            kd_dof_name dofs[KD_NODE_DOF_MAX];
            const int nd = kd_element_node_dofs_at(kinds[i], a, dofs);
            assert_true(nd >= 1 && nd <= KD_NODE_DOF_MAX);
            ndof += nd;
        }
        assert_int_equal(p.ndof, ndof);
        const kd_quadrature* q = fam->quadrature(&p);
        double wsum = 0.0;
        for (int g = 0; g < q->n; g++) wsum += q->w[g];
        assert_true(fabs(wsum - domain_measure(fam->domain)) < 1e-14);
        /* the nodes of the reference domain map to the element's nodes */
        for (int a = 0; a < fam->nnode; a++) {
            kd_element_point pt;
            fam->eval(&p, fam->node_xi[a], &pt);
            for (int k = 0; k < 3; k++) assert_true(fabs(pt.x[k] - p.node_x[a][k]) < 1e-15);
        }
        kd_element_props_free(&p);
    }
}

/* The generic quadrature of int rho dV equals the family's closed form, and
 * a rigid translation gives it through m_ii. */
static void test_generic_mass(void** state) {
    (void)state;
    kd_element_kind kinds[16];
    const int nk = beam_kinds(kinds);
    const double Ls[3] = {0.013, 0.4, 3.0};
    for (int i = 0; i < nk; i++)
        for (int l = 0; l < 3; l++) {
            kd_element_consts c = consts_rect(0.02, 0.03);
            kd_element_props p;
            assert_int_equal(kd_element_props_init(&p, kinds[i], &c, Ls[l]), KD_OK);
            const kd_quadrature* q = p.family->quadrature(&p);
            double mass = 0.0;
            for (int g = 0; g < q->n; g++) {
                kd_element_point pt;
                p.family->eval(&p, q->xi[g], &pt);
                mass += p.rho0 * q->w[g] * pt.measure;
            }
            assert_true(rel_err(mass, RHO * c.A * Ls[l]) < 1e-15);
            assert_true(rel_err(p.mass, RHO * c.A * Ls[l]) < 1e-15);
            /* s_x on a unit axial translation */
            double sx = 0.0;
            kd_dof_name dofs[KD_NODE_DOF_MAX];
            const int nd = kd_element_node_dofs(kinds[i], dofs);
            for (int node = 0; node < 2; node++)
                for (int a = 0; a < nd; a++)
                    if (dofs[a] == KD_DOF_U) sx += p.s_i[0][node * nd + a];
            assert_true(rel_err(sx, p.mass) < 1e-14);
            kd_element_props_free(&p);
        }
}

/* Patch test of the strain rows: a constant axial strain u = e0 x and a
 * constant curvature v = c x^2 / 2 (theta_z = v' = c x, v'' = c, no shear)
 * are reproduced at every point, and the strain energy d^T k d equals
 * (EA e0^2 + EIz c^2) L. */
static void test_strain_patch(void** state) {
    (void)state;
    kd_element_kind kinds[16];
    const int nk = beam_kinds(kinds);
    const double L = 0.37, e0 = 1e-4, cv = 2e-3;
    for (int i = 0; i < nk; i++) {
        kd_element_consts c = consts_rect(0.02, 0.03);
        kd_element_props p;
        assert_int_equal(kd_element_props_init(&p, kinds[i], &c, L), KD_OK);
        kd_dof_name dofs[KD_NODE_DOF_MAX];
        const int nd = kd_element_node_dofs(kinds[i], dofs);
        const int bend = kinds[i].theory != KD_THEORY_BAR;
        double d[KD_ELEM_DOF_MAX] = {0};
        for (int node = 0; node < 2; node++) {
            const double x = node * L;
            for (int a = 0; a < nd; a++) {
                double* v = &d[node * nd + a];
                if (dofs[a] == KD_DOF_U) *v = e0 * x;
                if (dofs[a] == KD_DOF_V && bend) *v = 0.5 * cv * x * x;
                if (dofs[a] == KD_DOF_RZ) *v = cv * x;
                if (dofs[a] == KD_DOF_KZ) *v = cv;
            }
        }
        for (int g = 0; g <= 8; g++) {
            const double xi[3] = {g / 8.0, 0.0, 0.0};
            kd_element_point pt;
            p.family->eval(&p, xi, &pt);
            double strain[KD_STRAIN_MAX] = {0};
            for (int r = 0; r < p.nstrain; r++)
                for (int a = 0; a < p.ndof; a++) strain[r] += pt.B[r][a] * d[a];
            assert_true(fabs(strain[0] - e0) < 1e-12 * e0);
            if (bend) assert_true(fabs(strain[1] - cv) < 1e-12 * cv);
            for (int r = 2; r < p.nstrain; r++) assert_true(fabs(strain[r]) < 1e-12 * cv);
        }
        double energy = 0.0;
        for (int a = 0; a < p.ndof; a++)
            for (int b = 0; b < p.ndof; b++) energy += d[a] * p.k[a * p.ndof + b] * d[b];
        const double want = (E * c.A * e0 * e0 + (bend ? E * c.Iz * cv * cv : 0.0)) * L;
        assert_true(rel_err(energy, want) < 1e-12);
        kd_element_props_free(&p);
    }
}

/* The geometric stiffness of a pre-stress field given per quadrature point
 * (the route of families without a basis, e.g. plates) equals the basis
 * route of the beams: P = p0 + p1 xi + p2 xi^2 gives sum_k p_k g_k. */
static void test_geometric_field(void** state) {
    (void)state;
    kd_element_kind kinds[16];
    const int nk = beam_kinds(kinds);
    const double pk[3] = {1200.0, -350.0, 80.0};
    for (int i = 0; i < nk; i++) {
        kd_element_consts c = consts_rect(0.02, 0.03);
        kd_element_props p;
        assert_int_equal(kd_element_props_init(&p, kinds[i], &c, 0.6), KD_OK);
        const kd_quadrature* q = p.family->quadrature(&p);
        double S[64 * KD_GRAD_MAX * KD_GRAD_MAX] = {0};
        assert_true(q->n <= 64);
        for (int g = 0; g < q->n; g++) {
            const double xi = q->xi[g][0];
            S[g * KD_GRAD_MAX * KD_GRAD_MAX] = pk[0] + pk[1] * xi + pk[2] * xi * xi;
        }
        double kg[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
        kd_element_geometric_stiffness(&p, S, kg);
        const int n = p.ndof;
        double scale = 0.0;
        for (int a = 0; a < n * n; a++) scale = fmax(scale, fabs(kg[a]));
        if (p.ngeo == 0) {  /* a bar: no transverse slope */
            assert_true(scale == 0.0);
            kd_element_props_free(&p);
            continue;
        }
        assert_int_equal(p.ngeo, 3);
        assert_true(scale > 0.0);
        for (int a = 0; a < n * n; a++) {
            const double want = pk[0] * p.g_k[0][a] + pk[1] * p.g_k[1][a] + pk[2] * p.g_k[2][a];
            assert_true(fabs(kg[a] - want) < 1e-13 * scale);
        }
        kd_element_props_free(&p);
    }
}

/* The compiled model: nodes in the body frame, element connectivity, DOFs
 * per node from the family, node positions in the global frame. */
static void test_model_nodes(void** state) {
    (void)state;
    kd_section_desc sec = circle(0.02);
    kd_desc* d = one_beam(E, RHO, NU, sec, 1.2, 6, KD_THEORY_TIMOSHENKO, KD_INTERP_CUBIC, 0);
    kd_body_desc* bd = &d->bodies[0];
    bd->npoints = 2;
    const double p0[3] = {0.1, -0.2, 0.3}, p1[3] = {0.1 + 1.2 * 0.6, -0.2 + 1.2 * 0.8, 0.3};
    memcpy(bd->points[0].x, p0, sizeof(p0));
    memcpy(bd->points[1].x, p1, sizeof(p1));
    fix(d, 1, KD_FIX_ALL);
    kd_model* m = NULL;
    kd_error err;
    assert_int_equal(kd_model_compile(d, &m, &err), KD_OK);
    assert_int_equal(m->nnode, 7);
    assert_int_equal(m->nelem, 6);
    kd_dof_name dofs[KD_NODE_DOF_MAX];
    const int nd = kd_element_node_dofs(m->body[0].kind, dofs);
    for (int n = 0; n < m->nnode; n++) {
        assert_true(fabs(m->node_x[3 * n] - n * 0.2) < 1e-15);
        assert_true(m->node_x[3 * n + 1] == 0.0 && m->node_x[3 * n + 2] == 0.0);
        assert_int_equal(m->node_dof_num[n], nd);
        for (int a = 0; a < nd; a++) assert_int_equal(m->dof_name[m->node_dof_adr[n] + a], dofs[a]);
        double x[3];
        kd_model_node_position(m, n, x);
        const double s = n * 0.2, dir[3] = {0.6, 0.8, 0.0};
        for (int i = 0; i < 3; i++) assert_true(fabs(x[i] - (p0[i] + s * dir[i])) < 1e-14);
    }
    for (int e = 0; e < m->nelem; e++) {
        const int* nodes;
        assert_int_equal(kd_model_elem_nodes(m, e, &nodes), 2);
        assert_int_equal(nodes[0], e);
        assert_int_equal(nodes[1], e + 1);
        int eqs[KD_ELEM_DOF_MAX];
        assert_int_equal(kd_model_elem_eqs(m, e, eqs), m->prop[m->elem_prop[e]].ndof);
    }
    assert_int_equal(m->elem_node_adr[m->nelem], 12);
    kd_model_free(&m);
    kd_desc_free(&d);
}

/* The element built from its node coordinates equals the one built from its
 * length (the entry of families with other geometry). */
static void test_init_from_nodes(void** state) {
    (void)state;
    kd_element_kind kinds[16];
    const int nk = beam_kinds(kinds);
    const double L = 0.37, x[2][3] = {{0.0, 0.0, 0.0}, {0.37, 0.0, 0.0}};
    for (int i = 0; i < nk; i++) {
        kd_element_consts c = consts_rect(0.02, 0.03);
        kd_element_props a, b;
        assert_int_equal(kd_element_props_init(&a, kinds[i], &c, L), KD_OK);
        assert_int_equal(kd_element_props_init_nodes(&b, kinds[i], &c, x), KD_OK);
        assert_int_equal(a.ndof, b.ndof);
        const int nn = a.ndof * a.ndof;
        double scale = 0.0;
        for (int k = 0; k < nn; k++) scale = fmax(scale, fabs(a.k[k]));
        for (int k = 0; k < nn; k++) assert_true(fabs(a.k[k] - b.k[k]) <= 1e-15 * scale);
        for (int k = 0; k < nn; k++) assert_true(fabs(a.m_ij[1][1][k] - b.m_ij[1][1][k]) <= 1e-15 * a.mass);
        kd_element_props_free(&a), kd_element_props_free(&b);
    }
    /* a degenerate element is refused */
    const double x0[2][3] = {{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}};
    kd_element_consts c = consts_rect(0.02, 0.03);
    kd_element_props p;
    assert_int_equal(kd_element_props_init_nodes(&p, kinds[0], &c, x0), KD_ERR_USAGE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_family_tables),
        cmocka_unit_test(test_generic_mass),
        cmocka_unit_test(test_strain_patch),
        cmocka_unit_test(test_geometric_field),
        cmocka_unit_test(test_init_from_nodes),
        cmocka_unit_test(test_model_nodes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
