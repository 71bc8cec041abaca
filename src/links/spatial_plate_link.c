/* Shells as one-way elastic links of a spatial mechanism (kedyn/sked.h; theory.md sec. 22): the
 * rigid mass properties of a shell mesh, the joints' nodes on the mesh and the link's body in its
 * moving frame (the mesh in the body frame, a node set clamped to it). The frame motion, the joint
 * loads, the integration and the frequencies along the motion are the beam links' (spatial_one_way.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/element.h"
#include "kedyn/frame.h"
#include "kedyn/inertia.h"
#include "link_ode.h"
#include "spatial_plate_link.h"

/* Accumulate the mass moments of the flat triangle (a, b, c), surface density mu = rho t, thickness
 * t: m0 += mu A, m1 += mu int x dA, m2 += mu int x x^T dA + mu t^2 / 12 A n n^T (the edge-midpoint
 * rule, exact for quadratics; the through-thickness term along the normal n: theory.md sec. 22). */
static void tri_moments(const double* a, const double* b, const double* c, double mu, double t, double* m0,
                        double m1[3], double m2[9]) {
    const double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    const double nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]), A = 0.5 * nn;
    if (!(nn > 0)) return;
    for (int k = 0; k < 3; k++) n[k] /= nn;
    const double* v[3] = {a, b, c};
    *m0 += mu * A;
    for (int e = 0; e < 3; e++) {
        const double *p = v[e], *q = v[(e + 1) % 3];
        const double mid[3] = {0.5 * (p[0] + q[0]), 0.5 * (p[1] + q[1]), 0.5 * (p[2] + q[2])};
        for (int k = 0; k < 3; k++) {
            m1[k] += mu * A / 3 * mid[k];
            for (int l = 0; l < 3; l++) m2[3 * k + l] += mu * A / 3 * mid[k] * mid[l];
        }
    }
    for (int k = 0; k < 3; k++)
        for (int l = 0; l < 3; l++) m2[3 * k + l] += mu * t * t / 12 * A * n[k] * n[l];
}

int kd_splate_mass(const kd_body_desc* p, double rho, double* mass, double com[3], double inertia[6]) {
    const kd_mesh_desc* g = &p->mesh;
    const int tri = g->elem_nnode == 3 || g->elem_nnode == 6;
    double m0 = 0, m1[3] = {0, 0, 0}, m2[9] = {0};
    const double mu = rho * p->thickness;
    for (int e = 0; e < g->nelems; e++) {
        const int* c = g->elem + (size_t)e * g->elem_nnode;  /* corners first, counter-clockwise */
        const double *x0 = g->node_x + 3 * c[0], *x1 = g->node_x + 3 * c[1], *x2 = g->node_x + 3 * c[2];
        tri_moments(x0, x1, x2, mu, p->thickness, &m0, m1, m2);
        if (!tri) tri_moments(x0, x2, g->node_x + 3 * c[3], mu, p->thickness, &m0, m1, m2);
    }
    if (!(m0 > 0)) return 1;
    for (int k = 0; k < 3; k++) com[k] = m1[k] / m0;
    double S[9];  /* second moments about the centre of mass */
    for (int k = 0; k < 3; k++)
        for (int l = 0; l < 3; l++) S[3 * k + l] = m2[3 * k + l] - m0 * com[k] * com[l];
    const double tr = S[0] + S[4] + S[8];
    /* J = tr(S) I - S: Ixx, Iyy, Izz, Ixy, Iyz, Izx (the tensor's entries) */
    inertia[0] = tr - S[0], inertia[1] = tr - S[4], inertia[2] = tr - S[8];
    inertia[3] = -S[1], inertia[4] = -S[5], inertia[5] = -S[6];
    *mass = m0;
    return 0;
}

int kd_splate_node_at(const kd_body_desc* p, const double x[3]) {
    const kd_mesh_desc* g = &p->mesh;
    const double tol = 1e-6 * fmax(kd_mesh_size(g), 1e-12);
    int best = -1;
    double dbest = INFINITY;
    for (int i = 0; i < g->nnodes; i++) {
        const double* y = g->node_x + 3 * i;
        const double d = sqrt((x[0] - y[0]) * (x[0] - y[0]) + (x[1] - y[1]) * (x[1] - y[1]) +
                              (x[2] - y[2]) * (x[2] - y[2]));
        if (d < dbest) dbest = d, best = i;
    }
    return dbest <= tol ? best + 1 : 0;
}

kd_status splate_link_joints(const kd_smech* m, kd_sked_link* L, kd_error* err) {
    const kd_sked_link_spec* sp = &L->spec;
    const double* com = m->com + 3 * sp->body;
    for (int j = 0; j < m->njoint; j++)
        for (int side = 0; side < 2; side++) {
            const kd_sjoint* sj = &m->joint[j];
            if (sj->body[side] != sp->body) continue;
            /* the joint point in the body frame (the link's frame) */
            const double x[3] = {sj->s[side][0] + com[0], sj->s[side][1] + com[1], sj->s[side][2] + com[2]};
            const int node = kd_splate_node_at(sp->shell, x);
            if (!node)
                return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE,
                                    "joint '%s' is not at a node of the mesh of the plate link '%s'", sj->name,
                                    sp->name);
            if (L->njoint == KD_KED_LINK_JOINTS)
                return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "link '%s' has more than %d joints", sp->name,
                                    KD_KED_LINK_JOINTS);
            L->joint[L->njoint] = j;
            L->joint_node[L->njoint] = node;
            L->joint_sign[L->njoint] = side == 1 ? 1.0 : -1.0;
            L->njoint++;
        }
    if (L->njoint == 0)
        return kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "elastic link '%s' is in no joint", sp->name);
    return KD_OK;
}

/* The link's plate body (body 0 of ld, material 0): a copy of the mesh in the body frame, the
 * support set's nodes clamped to the frame (every translation and rotation). */
kd_status splate_link_body(kd_desc* ld, const kd_sked_link_spec* sp, kd_body_desc* b) {
    const kd_body_desc* p = sp->shell;
    const kd_mesh_desc* g = &p->mesh;
    b->type = KD_BODY_PLATE;
    b->material = 0, b->section = -1;
    b->theory = p->theory, b->interpolation = p->interpolation, b->thickness = p->thickness;
    b->planar = 0, b->geometric_stiffness = 1;
    b->mesh = *g;
    memset(b->mesh.origin, 0, sizeof(b->mesh.origin));
    memset(b->mesh.x_axis, 0, sizeof(b->mesh.x_axis));
    memset(b->mesh.normal, 0, sizeof(b->mesh.normal));
    const size_t nn = (size_t)g->nnodes, ne = (size_t)g->nelems * (size_t)g->elem_nnode;
    b->mesh.node_x = malloc(sizeof(double) * 3 * nn);
    b->mesh.node_tag = malloc(sizeof(int) * nn);
    b->mesh.elem = malloc(sizeof(int) * ne);
    b->mesh.elem_line = g->elem_line ? malloc(sizeof(int) * (size_t)g->nelems) : NULL;
    if (!b->mesh.node_x || !b->mesh.node_tag || !b->mesh.elem || (g->elem_line && !b->mesh.elem_line))
        return KD_ERR_NOMEM;
    memcpy(b->mesh.node_x, g->node_x, sizeof(double) * 3 * nn);
    memcpy(b->mesh.node_tag, g->node_tag, sizeof(int) * nn);
    memcpy(b->mesh.elem, g->elem, sizeof(int) * ne);
    if (g->elem_line) memcpy(b->mesh.elem_line, g->elem_line, sizeof(int) * (size_t)g->nelems);
    const kd_node_set_desc* s = &p->node_sets[sp->support_set];
    const unsigned all = (1u << KD_DOF_U) | (1u << KD_DOF_V) | (1u << KD_DOF_W) | (1u << KD_DOF_RX) |
                         (1u << KD_DOF_RY) | (1u << KD_DOF_RZ);
    for (int i = 0; i < s->nnodes; i++)
        if (link_desc_support(ld, s->nodes[i], all)) return KD_ERR_NOMEM;
    return KD_OK;
}

kd_status splate_link_model(const kd_sked_link_spec* sp, int geometric, kd_desc** ld, kd_model** md, kd_error* err) {
    *md = NULL;
    *ld = kd_desc_new();
    kd_material_desc* mat = *ld ? kd_desc_add_material(*ld) : NULL;
    kd_body_desc* b = *ld ? kd_desc_add_body(*ld) : NULL;
    if (!mat || !b) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    snprintf((*ld)->title, sizeof((*ld)->title), "shell link %s", sp->name);
    snprintf(b->name, sizeof(b->name), "%s", sp->name);
    *mat = sp->material;
    if (splate_link_body(*ld, sp, b)) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    b->geometric_stiffness = geometric;
    return kd_model_compile(*ld, md, err);
}

/* Plate link stresses at the element centres (theory.md sec. 22, SL5): the shell's strain rows at the
 * centre, resultants (N_x, N_y, N_xy) = D_m eps (rows 0-2), (M_x, M_y, M_xy) = D_b kappa (rows 3-5),
 * the surface stresses sigma = N / t +- 6 M / t^2 and the larger von Mises stress of the two. */
void kd_sked_plate_stress(const kd_sked_link* L, const double* q, double* out) {
    const kd_model* m = L->model;
    for (int e = 0; e < m->nelem; e++) {
        const kd_element_props* pr = &m->prop[m->elem_prop[e]];
        double* o = out + (size_t)KD_PLATE_STRESS * e;
        memset(o, 0, sizeof(double) * KD_PLATE_STRESS);
        if (kd_element_kind_family(pr->kind) != KD_FAMILY_SHELL) continue;
        int eqs[KD_ELEM_DOF_MAX];
        double de[KD_ELEM_DOF_MAX];
        const int nd = kd_model_elem_eqs(m, e, eqs);
        for (int a = 0; a < nd; a++) de[a] = eqs[a] >= 0 ? q[eqs[a]] : 0.0;
        const double xi[3] = {pr->family->domain == KD_DOMAIN_TRIANGLE ? 1.0 / 3 : 0.0,
                              pr->family->domain == KD_DOMAIN_TRIANGLE ? 1.0 / 3 : 0.0, 0.0};
        kd_element_point pt;
        pr->family->eval(pr, xi, &pt);
        double s[6];
        for (int r = 0; r < 6; r++) {
            s[r] = 0.0;
            for (int a = 0; a < nd; a++) s[r] += pt.B[r][a] * de[a];
        }
        for (int r = 0; r < 6; r++) {
            o[r] = 0.0;
            for (int c = 0; c < 6; c++) o[r] += pr->D[r * pr->nstrain + c] * s[c];
        }
        const double t = pr->c.t;
        for (int side = -1; side <= 1; side += 2) {
            const double sx = o[0] / t + side * 6 * o[3] / (t * t), sy = o[1] / t + side * 6 * o[4] / (t * t),
                         txy = o[2] / t + side * 6 * o[5] / (t * t);
            o[6] = fmax(o[6], sqrt(sx * sx + sy * sy - sx * sy + 3 * txy * txy));
        }
    }
}

/* The support set's wrench on a plate link at (t, q, v, a) (theory.md sec. 22, SL7): at each node of
 * the set the residual of the elements at its u .. rz (link_support_reactions with no joint load
 * subtracted), summed as a force and a moment about the frame origin, frame components. */
void kd_sked_plate_support(const kd_sked_link* L, double t, const double* q, const double* v, const double* a,
                           double w[6]) {
    const kd_body* body = &L->model->body[0];
    kd_frame f;
    kd_motion_eval(&body->motion, body->rot, body->origin, t, &f);
    const kd_body_desc* p = L->spec.shell;
    const kd_node_set_desc* s = &p->node_sets[L->spec.support_set];
    kd_law zero[6];
    for (int c = 0; c < 6; c++) zero[c] = kd_law_constant(0.0);
    memset(w, 0, sizeof(double) * 6);
    for (int i = 0; i < s->nnodes; i++) {
        double r[6];
        const int node = s->nodes[i];
        link_support_reactions(L->model, &f, &L->preload, zero, 6, 1, &node, 6, t, q, v, a, r);
        const double* x = p->mesh.node_x + 3 * (node - 1);
        for (int c = 0; c < 3; c++) w[c] += r[c];
        w[3] += x[1] * r[2] - x[2] * r[1] + r[3];
        w[4] += x[2] * r[0] - x[0] * r[2] + r[4];
        w[5] += x[0] * r[1] - x[1] * r[0] + r[5];
    }
}

/* The support set's force on a reduced plate link by mode acceleration (theory.md sec. 22, SL7):
 * the translation rows of the element residual summed over every node, with the stiffness left out
 * (its rows sum to zero over a rigid translation), less the loads applied at the free DOFs,
 *     F_S = sum_all (M (a + alpha v) + C_g v + (k(eps) + k(omega)) q + q_inertia) - sum_free f,
 * the loads minus the inertia of the expanded field: no derivative of the truncated displacement. */
static void splate_support_force_ma(const kd_sked_link* L, double t, const double* q, const double* v,
                                    const double* a, double F[3]) {
    const kd_model* m = L->model;
    const kd_body* body = &m->body[0];
    kd_frame f;
    kd_motion_eval(&body->motion, body->rot, body->origin, t, &f);
    double acc[3];
    for (int i = 0; i < 3; i++)
        acc[i] = f.aO_L[i] - (f.R[i] * m->gravity[0] + f.R[3 + i] * m->gravity[1] + f.R[6 + i] * m->gravity[2]);
    F[0] = F[1] = F[2] = 0.0;
    for (int e = 0; e < m->nelem; e++) {
        const kd_element_props* pr = &m->prop[m->elem_prop[e]];
        if (kd_element_kind_family(pr->kind) != KD_FAMILY_SHELL) continue;
        const int nd = pr->ndof;
        double dq[KD_ELEM_DOF_MAX], dv[KD_ELEM_DOF_MAX], da[KD_ELEM_DOF_MAX];
        double mm[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
        kd_inertia_terms it;
        kd_element_place at;
        link_elem_values(m, e, q, dq), link_elem_values(m, e, v, dv), link_elem_values(m, e, a, da);
        kd_model_elem_place(m, e, &at);
        kd_inertia_terms_place(pr, &at, f.omega_L, f.eps_L, acc, &it);
        kd_element_mass(pr, mm);
        kd_element_place_matrix(pr, &at, mm);
        const int* en;
        const int enn = kd_model_elem_nodes(m, e, &en);
        for (int s = 0, row = 0; s < enn; s++)
            for (int i = 0; i < m->node_dof_num[en[s]]; i++, row++) {
                const int c = (int)m->dof_name[m->node_dof_adr[en[s]] + i] - (int)KD_DOF_U;
                if (c < 0 || c > 2) continue;
                double r = it.q[row];
                for (int b = 0; b < nd; b++) {
                    const int x = row * nd + b;
                    r += mm[x] * (da[b] + body->damp_alpha * dv[b]) + it.c[x] * dv[b] +
                         (it.k_eps[x] + it.k_omega[x]) * dq[b];
                }
                F[c] += r;
            }
    }
    for (int l = 0; l < m->nnodal; l++)
        for (int d = 0; d < m->ndof_all; d++) {
            if (m->dof_eq[d] != m->nodal[l].eq) continue;
            const int c = (int)m->dof_name[d] - (int)KD_DOF_U;
            double fl, df, d2f;
            kd_law_eval(&m->nodal[l].value, t, &fl, &df, &d2f);
            if (c >= 0 && c <= 2) F[c] -= fl;
            break;
        }
}

/* The elastic joint forces of a plate link (SL7): the support set's force less the joints' loads
 * at its nodes, on the first joint at a node of the set (frame components; the other joints 0);
 * a reduced link's support force by mode acceleration (splate_support_force_ma). */
void splate_link_reactions(const kd_sked_link* L, double t, const double* q, const double* v, const double* a,
                           double* R) {
    const kd_node_set_desc* s = &L->spec.shell->node_sets[L->spec.support_set];
    double w[6];
    kd_sked_plate_support(L, t, q, v, a, w);
    if (L->spec.modes > 0) splate_support_force_ma(L, t, q, v, a, w);
    int first = -1;
    for (int j = 0; j < L->njoint; j++) {
        int in = 0;
        for (int i = 0; i < s->nnodes && !in; i++) in = s->nodes[i] == L->joint_node[j];
        for (int c = 0; c < 3; c++) R[3 * j + c] = 0.0;
        if (!in) continue;
        if (first < 0) first = j;
        for (int c = 0; c < 3; c++) {
            double fl, df, d2f;
            kd_law_eval(&L->load[j][c], t, &fl, &df, &d2f);
            w[c] -= fl;
        }
    }
    if (first >= 0)
        for (int c = 0; c < 3; c++) R[3 * first + c] = w[c];
}
