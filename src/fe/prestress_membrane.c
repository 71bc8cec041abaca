/* The in-plane pre-stress of two-dimensional elements in a moving frame
 * (prestress_membrane.h; theory.md sec. 5.7).
 *
 * A body in the frame carries the d'Alembert body force
 *     f(r) = -rho (a + M r),   a = a_O,L - g_L,   M = E + W W,
 * linear in the six in-plane coefficients (a_x, a_y, M_xx, M_xy, M_yx,
 * M_yy) for points r = (x, y, 0) of a body flat in its x-y plane (the
 * out-of-plane parts bend it and give no membrane force to first order).
 * Each coefficient set to 1 is a unit load case whose consistent nodal
 * loads are the inertia invariants of membrane elements on the body's nodes
 * (s_j for a_j; X_jk = x_jk + r0_k s_j for M_jk, as in theory.md sec. 3.3);
 * the plane-stress problem K u_c = -q_c is solved once with the body's
 * in-plane supports, and the resultants N = D B u_c are kept at the
 * quadrature points of each element's own rule. At an instant the pre-stress
 * is their combination with the frame's coefficients, as the beams' axial
 * force is (sec. 5.4).
 *
 * The membrane elements: the body's own for membranes; for plates (no
 * in-plane DOFs) and shells, the membrane element on the same nodes (3
 * nodes CST, 4 Q4, 6 T6, 8 Q8, 9 Q9). In-plane supports: a node's u, v
 * where the model fixes them; on a plate, u and v where both rotations are
 * fixed (a clamped edge). A body without any is held statically
 * determinately: u, v at its first node and the transverse direction at the
 * node farthest from it.
 *
 * A shell not flat in its x-y plane takes instead the static shell problem
 * (prestress_shell.c) of twelve unit cases, a_x, a_y, a_z and the nine M_jk,
 * with its own supports (theory.md sec. 18.6). */
#include "prestress_membrane.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#include "kedyn/band.h"

static int is_2d(const kd_element_props* p) {
    return p->family->domain == KD_DOMAIN_TRIANGLE || p->family->domain == KD_DOMAIN_QUADRILATERAL;
}

/* The membrane kind on the nodes of 2D element p; -1 for none. */
static int membrane_kind(const kd_element_props* p, kd_element_kind* k) {
    k->theory = KD_THEORY_MEMBRANE;
    k->planar = p->kind.planar;
    if (p->kind.theory == KD_THEORY_MEMBRANE) {
        k->interp = p->kind.interp;
        return 0;
    }
    switch (p->nnode) {
    case 3: k->interp = KD_INTERP_CST; return 0;
    case 4: k->interp = KD_INTERP_Q4; return 0;
    case 6: k->interp = KD_INTERP_T6; return 0;
    case 8: k->interp = KD_INTERP_Q8; return 0;
    case 9: k->interp = KD_INTERP_Q9; return 0;
    default: return -1;
    }
}

/* Position of DOF `name` at node n in the all-DOF numbering, or -1. */
static int node_dof(const kd_model* m, int n, kd_dof_name name) {
    for (int a = 0; a < m->node_dof_num[n]; a++)
        if (m->dof_name[m->node_dof_adr[n] + a] == name) return m->node_dof_adr[n] + a;
    return -1;
}

/* In-plane supports of body b: fixed[2k + c] for its local node k. */
static void supports(const kd_model* m, int b, int* fixed) {
    const kd_body* body = &m->body[b];
    int any = 0;
    for (int k = 0; k < body->node_num; k++) {
        const int n = body->node_adr + k;
        const int iu = node_dof(m, n, KD_DOF_U), iv = node_dof(m, n, KD_DOF_V);
        if (iu >= 0 || iv >= 0) {
            fixed[2 * k] = iu >= 0 && m->dof_eq[iu] < 0;
            fixed[2 * k + 1] = iv >= 0 && m->dof_eq[iv] < 0;
        } else {
            const int ix = node_dof(m, n, KD_DOF_RX), iy = node_dof(m, n, KD_DOF_RY);
            fixed[2 * k] = fixed[2 * k + 1] = ix >= 0 && iy >= 0 && m->dof_eq[ix] < 0 && m->dof_eq[iy] < 0;
        }
        any |= fixed[2 * k] | fixed[2 * k + 1];
    }
    if (any || body->node_num < 2) return;
    const double* x0 = &m->node_x[3 * body->node_adr];
    int far = 1;
    double dmax = -1.0;
    for (int k = 1; k < body->node_num; k++) {
        const double* x = &m->node_x[3 * (body->node_adr + k)];
        const double d = hypot(x[0] - x0[0], x[1] - x0[1]);
        if (d > dmax) dmax = d, far = k;
    }
    const double* xf = &m->node_x[3 * (body->node_adr + far)];
    fixed[0] = fixed[1] = 1;
    if (fabs(xf[0] - x0[0]) >= fabs(xf[1] - x0[1])) fixed[2 * far + 1] = 1;
    else fixed[2 * far] = 1;
}

void prestress_membrane_free(prestress_membrane** pp) {
    if (!pp || !*pp) return;
    free((*pp)->elem_adr);
    free((*pp)->elem_shell);
    free((*pp)->N);
    free(*pp);
    *pp = NULL;
}

/* One body: the membrane problem, its six solutions (those of `need`) and the resultants at
 * each element's quadrature points (written from ps->N + *used on). */
static kd_status solve_body(const kd_model* m, int b, kd_element_props* comp, int* have_comp, prestress_membrane* ps,
                            size_t* used, int sparse, const unsigned char* need, kd_error* err) {
    const kd_body* body = &m->body[b];
    const int nn = body->node_num, e0 = body->elem_adr, ne = body->elem_num;
    if (!prestress_shell_flat(m, b))
        return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE,
                            "body '%s': the geometric stiffness of the motion needs a shell or a body flat in its x-y "
                            "plane (set geometric_stiffness: false)",
                            body->name);
    const size_t n2 = 2 * (size_t)(nn > 0 ? nn : 1);
    int* fixed = calloc(n2, sizeof(int));
    int* eq = malloc(sizeof(int) * n2);
    if (!fixed || !eq) {
        free(fixed), free(eq);
        return KD_ERR_NOMEM;
    }
    supports(m, b, fixed);
    /* the cases solved (need: those of nonzero coefficient; the others' resultants are 0) and
     * their columns of u */
    int col[PRESTRESS_CASES], nrhs = 0;
    for (int c = 0; c < PRESTRESS_CASES; c++) col[c] = !need || need[c] ? nrhs++ : -1;
    int neq = 0;
    for (int i = 0; i < 2 * nn; i++) eq[i] = fixed[i] ? -1 : neq++;
    /* companion membrane records and the bandwidth */
    kd_status st = KD_OK;
    int kd = 0;
    for (int e = e0; e < e0 + ne && !st; e++) {
        const int p = m->elem_prop[e];
        if (!have_comp[p]) {
            kd_element_kind k;
            if (membrane_kind(&m->prop[p], &k) ||
                kd_element_props_init_nodes(&comp[p], k, &m->prop[p].c, (const double(*)[3])m->prop[p].node_x) != KD_OK)
                st = kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE,
                                  "body '%s': no membrane element for the pre-stress of its elements", body->name);
            have_comp[p] = 1;
        }
        const int* nodes;
        const int nen = kd_model_elem_nodes(m, e, &nodes);
        int lo = 2 * nn, hi = -1;
        for (int a = 0; a < nen; a++)
            for (int c = 0; c < 2; c++) {
                const int q = eq[2 * (nodes[a] - body->node_adr) + c];
                if (q < 0) continue;
                lo = q < lo ? q : lo;
                hi = q > hi ? q : hi;
            }
        if (hi - lo > kd) kd = hi - lo;
    }
    /* storage: the band for small bodies, compressed columns (CHOLMOD) for large ones, whose
     * band would be wide (about 2 ny on an nx x ny mesh: 0.56 GB and 34 GFlop at 300 x 240) */
    if (sparse < 0) sparse = neq >= PRESTRESS_SPARSE_MIN;
    kd_band K = {0};
    kd_triplet Kt = {0};
    double* u = NULL;
    if (!st && neq > 0 && nrhs > 0) {
        if (!sparse) st = kd_band_init(&K, neq, kd);
        u = calloc((size_t)neq * (size_t)nrhs, sizeof(double));
        if (!st && !u) st = KD_ERR_NOMEM;
    }
    /* assembly: stiffness and the unit-case loads -q_c */
    for (int e = e0; e < e0 + ne && !st && neq > 0 && nrhs > 0; e++) {
        const kd_element_props* cp = &comp[m->elem_prop[e]];
        const int* nodes;
        const int nen = kd_model_elem_nodes(m, e, &nodes), n = cp->ndof;
        const double* r0 = &m->node_x[3 * nodes[0]];
        int eqs[KD_ELEM_DOF_MAX];
        for (int a = 0; a < nen; a++)
            for (int c = 0; c < 2; c++) eqs[2 * a + c] = eq[2 * (nodes[a] - body->node_adr) + c];
        const int ld = kd + 1;
        for (int i = 0; i < n; i++) {
            if (eqs[i] < 0) continue;
            for (int j = 0; j < n; j++) {
                if (eqs[j] < eqs[i]) continue;
                if (!sparse) K.ab[kd + eqs[i] - eqs[j] + (size_t)eqs[j] * ld] += cp->k[i * n + j];
                else if (kd_triplet_add(&Kt, eqs[i], eqs[j], cp->k[i * n + j])) st = KD_ERR_NOMEM;
            }
            double q[PRESTRESS_CASES];
            q[0] = cp->s_i[0][i], q[1] = cp->s_i[1][i];
            for (int jj = 0; jj < 2; jj++)
                for (int kk = 0; kk < 2; kk++) q[2 + 2 * jj + kk] = cp->x_ik[jj][kk][i] + r0[kk] * cp->s_i[jj][i];
            for (int c = 0; c < PRESTRESS_CASES; c++)
                if (col[c] >= 0) u[(size_t)col[c] * neq + eqs[i]] -= q[c];
        }
    }
    int singular = 0;
    if (!st && neq > 0 && nrhs > 0 && !sparse) {
        singular = LAPACKE_dpbsv(LAPACK_COL_MAJOR, 'U', neq, kd, nrhs, K.ab, kd + 1, u, neq) != 0;
    } else if (!st && neq > 0 && nrhs > 0) {
        kd_csc Kc;
        st = kd_csc_from_triplet(&Kt, neq, &Kc);
        kd_triplet_free(&Kt);
        if (!st) st = kd_csc_solve_spd(&Kc, nrhs, u);
        kd_csc_free(&Kc);
        singular = st == KD_ERR_NUMERIC;
        if (singular) st = KD_OK;
    }
    if (singular)
        st = kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE,
                          "body '%s': its membrane problem for the pre-stress of the motion is singular (in-plane "
                          "supports hold no rigid motion)",
                          body->name);
    /* resultants at the quadrature points of each element's own rule; the points of the membrane
     * element depend on the record only: evaluated once per run of elements of one record */
    int pts_prop = -1, pts_max = 0;
    kd_element_point* pts = NULL;
    for (int e = e0; e < e0 + ne && !st; e++) {
        const kd_element_props* p = &m->prop[m->elem_prop[e]];
        const kd_element_props* cp = &comp[m->elem_prop[e]];
        const kd_quadrature* rule = p->family->quadrature(p);
        const int* nodes;
        const int nen = kd_model_elem_nodes(m, e, &nodes), n = cp->ndof;
        int eqs[KD_ELEM_DOF_MAX];
        for (int a = 0; a < nen; a++)
            for (int c = 0; c < 2; c++) eqs[2 * a + c] = eq[2 * (nodes[a] - body->node_adr) + c];
        ps->elem_adr[e] = (int)*used;
        if (rule->n > ps->rule_max) ps->rule_max = rule->n;
        if (m->elem_prop[e] != pts_prop && nrhs > 0 && neq > 0) {
            if (rule->n > pts_max) {
                free(pts);
                pts_max = rule->n;
                if (!(pts = malloc(sizeof(*pts) * (size_t)pts_max))) {
                    st = KD_ERR_NOMEM;
                    break;
                }
            }
            for (int g = 0; g < rule->n; g++) cp->family->eval(cp, rule->xi[g], &pts[g]);
            pts_prop = m->elem_prop[e];
        }
        for (int g = 0; g < rule->n; g++) {
            const kd_element_point* pt = nrhs > 0 && neq > 0 ? &pts[g] : NULL;
            for (int c = 0; c < PRESTRESS_CASES; c++) {
                double eps[3] = {0, 0, 0};
                for (int r = 0; r < 3 && col[c] >= 0 && pt; r++)
                    for (int a = 0; a < n; a++)
                        if (eqs[a] >= 0) eps[r] += pt->B[r][a] * u[(size_t)col[c] * neq + eqs[a]];
                double* N = ps->N + *used + (size_t)(g * PRESTRESS_CASES + c) * 3;
                for (int r = 0; r < 3; r++) N[r] = cp->D[3 * r] * eps[0] + cp->D[3 * r + 1] * eps[1] + cp->D[3 * r + 2] * eps[2];
            }
        }
        *used += (size_t)rule->n * PRESTRESS_CASES * 3;
    }
    kd_band_free(&K);
    kd_triplet_free(&Kt);
    free(pts), free(u), free(fixed), free(eq);
    return st;
}

/* Does body b take the static shell problem: a shell not flat in its x-y plane (theory.md
 * sec. 18.6)? */
static int shell_body(const kd_model* m, int b) {
    const kd_body* body = &m->body[b];
    return body->elem_num > 0 && m->prop[m->elem_prop[body->elem_adr]].kind.theory == KD_THEORY_SHELL &&
           !prestress_shell_flat(m, b);
}

/* The d'Alembert load -q_c of the twelve unit cases at row i of element record p with origin r0
 * (theory.md sec. 18.6): -s_j for a_j, -(x_jk + r0_k s_j) for M_jk. */
static void inertia_load(const void* ctx, const kd_element_props* p, const double r0[3], int i, double* f) {
    (void)ctx;
    for (int j = 0; j < 3; j++) f[j] = -p->s_i[j][i];
    for (int j = 0; j < 3; j++)
        for (int k = 0; k < 3; k++) f[3 + 3 * j + k] = -(p->x_ik[j][k][i] + r0[k] * p->s_i[j][i]);
}

/* Shell body b not flat in its x-y plane: the static shell problem of the twelve unit cases
 * (prestress_shell.c) and each case's resultants at the quadrature points of each element, in
 * the element's own axes (written from ps->N + *used on). */
static kd_status solve_shell(const kd_model* m, int b, prestress_membrane* ps, size_t* used, kd_error* err) {
    const kd_body* body = &m->body[b];
    prestress_shell_solution sol;
    const kd_status st = prestress_shell_solve(m, b, PRESTRESS_CASES_SHELL, inertia_load, NULL, &sol);
    if (st == KD_ERR_NUMERIC)
        return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE,
                            "body '%s': its static shell problem for the pre-stress of the motion is singular (its "
                            "supports hold no rigid motion; set geometric_stiffness: false)",
                            body->name);
    if (st == KD_ERR_NOMEM) return st;
    if (st) return kd_error_set(err, st, "", KD_LOC_NONE, "body '%s': its static shell problem failed", body->name);
    for (int e = body->elem_adr; e < body->elem_adr + body->elem_num; e++) {
        const kd_element_props* p = &m->prop[m->elem_prop[e]];
        const int ng = p->family->quadrature(p)->n;
        ps->elem_adr[e] = (int)*used, ps->elem_shell[e] = 1;
        if (ng > ps->rule_max) ps->rule_max = ng;
        for (int g = 0; g < ng; g++)
            prestress_shell_point(m, e, &sol, g, ps->N + *used + (size_t)g * PRESTRESS_CASES_SHELL * 3);
        *used += (size_t)ng * PRESTRESS_CASES_SHELL * 3;
    }
    prestress_shell_free(&sol);
    return KD_OK;
}

/* Does body b carry a pre-stress of inertia: geometric stiffness on, and a
 * frame motion or gravity (a body at rest and without weight has none)? */
static int loaded(const kd_model* m, int b) {
    const kd_body* body = &m->body[b];
    const int weight = m->gravity[0] != 0.0 || m->gravity[1] != 0.0 || m->gravity[2] != 0.0;
    return body->geometric && (body->motion.type != KD_MOTION_NONE || weight);
}

kd_status prestress_membrane_solve(const kd_model* m, prestress_membrane** out, kd_error* err) {
    return prestress_membrane_solve_cases(m, -1, NULL, out, err);
}

kd_status prestress_membrane_solve_storage(const kd_model* m, int sparse, prestress_membrane** out, kd_error* err) {
    return prestress_membrane_solve_cases(m, sparse, NULL, out, err);
}

kd_status prestress_membrane_solve_cases(const kd_model* m, int sparse, const unsigned char* need,
                                         prestress_membrane** out, kd_error* err) {
    *out = NULL;
    size_t total = 0;
    for (int e = 0; e < m->nelem; e++) {
        const kd_element_props* p = &m->prop[m->elem_prop[e]];
        if (is_2d(p) && loaded(m, m->elem_body[e])) {
            const int nc = shell_body(m, m->elem_body[e]) ? PRESTRESS_CASES_SHELL : PRESTRESS_CASES;
            total += (size_t)p->family->quadrature(p)->n * (size_t)nc * 3;
        }
    }
    if (total == 0) return KD_OK;
    prestress_membrane* ps = calloc(1, sizeof(*ps));
    kd_element_props* comp = calloc((size_t)(m->nprop ? m->nprop : 1), sizeof(*comp));
    int* have_comp = calloc((size_t)m->nprop, sizeof(int));
    kd_status st = ps && comp && have_comp ? KD_OK : KD_ERR_NOMEM;
    if (!st) {
        ps->elem_adr = malloc(sizeof(int) * (size_t)m->nelem);
        ps->N = malloc(sizeof(double) * total);
        ps->elem_shell = calloc((size_t)m->nelem, 1);
        if (!ps->elem_adr || !ps->N || !ps->elem_shell) st = KD_ERR_NOMEM;
    }
    for (int e = 0; e < m->nelem && !st; e++) ps->elem_adr[e] = -1;
    size_t used = 0;
    for (int b = 0; b < m->nbody && !st; b++) {
        const kd_body* body = &m->body[b];
        if (!loaded(m, b) || body->elem_num == 0 || !is_2d(&m->prop[m->elem_prop[body->elem_adr]])) continue;
        const unsigned char* nb = need ? need + (size_t)b * PRESTRESS_CASES : NULL;
        st = shell_body(m, b) ? solve_shell(m, b, ps, &used, err)
                              : solve_body(m, b, comp, have_comp, ps, &used, sparse, nb, err);
    }
    for (int p = 0; comp && p < m->nprop; p++) kd_element_props_free(&comp[p]);
    free(comp), free(have_comp);
    if (st) {
        if (st == KD_ERR_NOMEM) kd_error_set(err, st, "", KD_LOC_NONE, "out of memory for the membrane pre-stress");
        prestress_membrane_free(&ps);
        return st;
    }
    *out = ps;
    return KD_OK;
}

int prestress_membrane_field(const prestress_membrane* ps, const kd_model* m, int e, const double a[3],
                             const double M[9], double* S) {
    if (!ps || ps->elem_adr[e] < 0) return 0;
    const kd_element_props* p = &m->prop[m->elem_prop[e]];
    const int ng = p->family->quadrature(p)->n;
    /* flat: a_x, a_y, M_xx, M_xy, M_yx, M_yy; a shell off its plane: a and all of M (sec. 18.6) */
    const int shell = ps->elem_shell[e], nc = shell ? PRESTRESS_CASES_SHELL : PRESTRESS_CASES;
    const double flat[PRESTRESS_CASES] = {a[0], a[1], M[0], M[1], M[3], M[4]};
    const double all[PRESTRESS_CASES_SHELL] = {a[0], a[1], a[2], M[0], M[1], M[2], M[3], M[4], M[5], M[6], M[7], M[8]};
    const double* coef = shell ? all : flat;
    const double* N = ps->N + ps->elem_adr[e];
    for (int g = 0; g < ng; g++) {
        double r[3] = {0, 0, 0};
        for (int c = 0; c < nc; c++)
            for (int k = 0; k < 3; k++) r[k] += coef[c] * N[(g * nc + c) * 3 + k];
        double* s = S + (size_t)g * KD_GRAD_MAX * KD_GRAD_MAX;
        memset(s, 0, sizeof(double) * KD_GRAD_MAX * KD_GRAD_MAX);
        s[0] = r[0], s[1] = s[KD_GRAD_MAX] = r[2], s[KD_GRAD_MAX + 1] = r[1];
    }
    return 1;
}
