/* What the planar and spatial one-way links share (src/links/link_ode.h): the link's system with
 * its joints' axial preload, its integration, its description helpers and the reactions of its
 * frame supports (theory.md sec. 7.3, 12). */
#include "link_ode.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/element.h"
#include "kedyn/inertia.h"

/* ---- the link's system ------------------------------------------------------------------- */

kd_status link_ode_init(link_ode* lo, kd_model* m, const kd_law* preload, const char* name, int fast,
                        kd_error* err) {
    memset(lo, 0, sizeof(*lo));
    lo->model = m, lo->preload_law = preload, lo->name = name, lo->preload = NAN;
    kd_status st = kd_system_init(&lo->s, m, err);
    if (!st && fast) st = link_step_new(lo, &lo->step, err);
    if (st) link_ode_free(lo);
    return st;
}

void link_ode_free(link_ode* lo) {
    link_modal_free(&lo->modal);
    link_step_free(&lo->step);
    if (lo->model) kd_system_free(&lo->s);
    memset(lo, 0, sizeof(*lo));
}

/* The joints' axial force at t into the model (the system's matrices then assemble anew). */
static void set_preload(link_ode* lo, double t) {
    double N, dN, d2N;
    kd_law_eval(lo->preload_law, t, &N, &dN, &d2N);
    if (N != lo->preload) {
        lo->model->body[0].preload = N;
        lo->preload = N;
        kd_system_invalidate(&lo->s);
    }
}

static int lo_matrices(void* ctx, double t, kd_gband* C, kd_gband* K, int* changed) {
    link_ode* lo = ctx;
    set_preload(lo, t);
    return kd_system_matrices(&lo->s, t, C, K, changed);
}

static int lo_force(void* ctx, double t, double* f) {
    link_ode* lo = ctx;
    return kd_system_force(&lo->s, t, f);
}

/* Matrices through lo_matrices, which keeps the preload current (the system's fused step knows
 * nothing of it); with the affine step, its callbacks. */
kd_ode2 link_ode_ode2(link_ode* lo) {
    if (lo->modal) return link_modal_ode2(lo->modal);
    kd_ode2 ode = kd_system_ode(&lo->s);
    ode.iteration = NULL;
    if (lo->step) {
        ode.ctx = lo->step;
        ode.matrices = link_step_matrices;
        ode.force = link_step_force;
        ode.step = link_step_solve;
    } else {
        ode.ctx = lo;
        ode.matrices = lo_matrices;
        ode.force = lo_force;
    }
    return ode;
}

kd_status link_ode_static(link_ode* lo, double t, double* q, kd_error* err) {
    const kd_ode2 ode = link_ode_ode2(lo);
    double* eta = lo->modal ? malloc(sizeof(double) * (size_t)ode.n) : q;  /* reduced: K_r eta = V^T f */
    kd_status st = eta ? kd_ode2_static(&ode, t, eta, err)
                       : kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    if (lo->modal && eta) {
        if (!st) link_modal_state(lo->modal, t, eta, NULL, NULL, q);
        free(eta);
    }
    if (st == KD_ERR_NUMERIC) {
        char msg[sizeof(err->msg) + 2 * KD_NAME_MAX];
        snprintf(msg, sizeof(msg), "link '%s' (buckled by the joints' axial force?): %s", lo->name, err->msg);
        memcpy(err->msg, msg, sizeof(err->msg) - 1);  /* a long message is cut */
        err->msg[sizeof(err->msg) - 1] = '\0';
    }
    return st;
}

typedef struct link_out {
    kd_ked_output out;
    void* ctx;
    int link;
    link_modal* modal;            /* reduced: the physical state V eta formed here */
    int n;
    double* x;                    /* (3 n) */
} link_out;

static int lo_output(void* ctx, double t, const double* q, const double* v, const double* a) {
    link_out* o = ctx;
    if (!o->modal) return o->out(o->ctx, o->link, t, q, v, a);
    const int n = o->n;
    link_modal_state(o->modal, t, q, v, a, o->x);
    return o->out(o->ctx, o->link, t, o->x, o->x + n, o->x + 2 * n);
}

kd_status link_ode_integrate(link_ode* lo, const kd_dynamics_desc* dyin, double t0, double t_end, const double* q0,
                             const double* v0, kd_ked_output out, void* ctx, int link, kd_integrate_stats* stats,
                             kd_error* err) {
    const kd_ode2 ode = link_ode_ode2(lo);
    kd_integrate_opts o;
    kd_integrate_opts_default(&o);
    kd_dynamics_desc dy = *dyin;  /* UNSET: the one-way defaults */
    kd_dynamics_resolve(&dy, KD_ROUTE_ONE_WAY);
    o.method = kd_dynamics_method(dy.integrator);
    o.t0 = t0, o.t_end = t_end, o.dt = dy.dt;
    o.beta = dy.newmark_beta, o.gamma = dy.newmark_gamma, o.alpha = dy.hht_alpha, o.rho_inf = dy.rho_inf;
    o.output_every = dy.output_every;
    link_out lout = {out, ctx, link, lo->modal, lo->s.n, NULL};
    if (!lo->modal) return kd_integrate(&ode, &o, q0, v0, lo_output, &lout, stats, err);
    /* reduced: the initial state projected, eta = V^T M x (theory.md sec. 12.11) */
    const int n = lo->s.n, r = ode.n;
    double* buf = malloc(sizeof(double) * (3 * (size_t)n + 2 * (size_t)r));
    if (!buf) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    lout.x = buf;
    double *e0 = buf + 3 * (size_t)n, *e1 = e0 + r;
    link_modal_project(lo->modal, q0, e0), link_modal_project(lo->modal, v0, e1);
    link_modal_span(lo->modal, t0, t_end);
    const kd_status st = kd_integrate(&ode, &o, e0, e1, lo_output, &lout, stats, err);
    free(buf);
    return st;
}

/* ---- the link's description ---------------------------------------------------------------- */

kd_status link_desc_support(kd_desc* d, int node, unsigned fix) {
    kd_support_desc* s = kd_desc_add_support(d);
    if (!s) return KD_ERR_NOMEM;
    s->body = 0, s->node = node, s->fix = fix;
    return KD_OK;
}

kd_status link_desc_nodal(kd_desc* d, int node, kd_dof_name dof, const kd_law* law) {
    kd_load_desc* l = kd_desc_add_load(d);
    if (!l) return KD_ERR_NOMEM;
    l->type = KD_LOAD_NODAL, l->body = 0, l->node = node, l->dof = dof;
    l->value = kd_law_constant(0.0), l->value_y = kd_law_constant(0.0);
    return kd_law_copy(&l->value, law);
}

kd_status link_preload_table(kd_law* preload, const kd_law* load, int stride, int njoint, const int* joint_node,
                             int node_u, int ns, const double* t, double* buf, kd_error* err) {
    for (int i = 0; i < ns; i++) {
        double N = 0.0;
        for (int j = 0; j < njoint; j++) {
            double f, df, d2f;
            kd_law_eval(&load[j * stride], t[i], &f, &df, &d2f);
            N += joint_node[j] > node_u ? f : (joint_node[j] < node_u ? -f : 0.0);
        }
        buf[i] = N;
    }
    return kd_law_table(preload, ns, t, buf, 0, err);
}

/* ---- post-processing --------------------------------------------------------------------- */

int link_node_dof(const kd_model* m, int n, kd_dof_name name) {
    for (int i = 0; i < m->node_dof_num[n]; i++)
        if (m->dof_name[m->node_dof_adr[n] + i] == name) return m->node_dof_adr[n] + i;
    return -1;
}

int link_elem_values(const kd_model* m, int e, const double* x, double* de) {
    int eqs[KD_ELEM_DOF_MAX];
    const int nd = kd_model_elem_eqs(m, e, eqs);
    for (int a = 0; a < nd; a++) de[a] = eqs[a] >= 0 && x ? x[eqs[a]] : 0.0;
    return nd;
}

/* The residual of the elements at all-DOF index dof of node (0-based) at frame f (theory.md
 * sec. 7.3): (m (a + alpha v) + c v + k (q + beta v) + (k_g + k(eps) + k(omega)) q + q_inertia)_dof. */
static double dof_residual(const kd_model* m, const kd_frame* f, const double acc[3], int node, int dof,
                           const double* q, const double* v, const double* a) {
    const kd_body* body = &m->body[0];
    const double om2 = f->omega_L[1] * f->omega_L[1] + f->omega_L[2] * f->omega_L[2];
    double r = 0.0;
    for (int e = 0; e < m->nelem; e++) {
        const int* en;
        const int enn = kd_model_elem_nodes(m, e, &en);
        int row = -1;  /* the DOF's row in the element: after the DOFs of the nodes before it */
        for (int s = 0, off = 0; s < enn && row < 0; off += m->node_dof_num[en[s]], s++)
            if (en[s] == node) row = off + dof - m->node_dof_adr[node];
        if (row < 0) continue;
        const kd_element_props* pr = &m->prop[m->elem_prop[e]];
        const int nd = pr->ndof;
        double dq[KD_ELEM_DOF_MAX], dv[KD_ELEM_DOF_MAX], da[KD_ELEM_DOF_MAX];
        link_elem_values(m, e, q, dq), link_elem_values(m, e, v, dv), link_elem_values(m, e, a, da);
        kd_inertia_terms it;
        double mm[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX], kg[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
        double kp[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
        kd_element_mass(pr, mm);
        const double* k = pr->k;
        int has_kg = 0;
        if (kd_element_kind_family(pr->kind) == KD_FAMILY_SHELL) {
            /* a shell at its place in the body (theory.md sec. 22, SL7): terms and matrices in body
             * DOFs; the membrane pre-stress's geometric stiffness is left out (second order) */
            kd_element_place at;
            kd_model_elem_place(m, e, &at);
            kd_inertia_terms_place(pr, &at, f->omega_L, f->eps_L, acc, &it);
            memcpy(kp, pr->k, sizeof(double) * (size_t)nd * (size_t)nd);
            kd_element_place_matrix(pr, &at, mm), kd_element_place_matrix(pr, &at, kp);
            k = kp;
        } else {
            kd_inertia_terms_eval(pr, m->elem_s0[e], f->omega_L, f->eps_L, acc, &it);
            has_kg = kd_model_elem_geometric(m, e, acc[0], om2, kg);
        }
        r += it.q[row];
        for (int b = 0; b < nd; b++) {
            const int x = row * nd + b;
            r += mm[x] * (da[b] + body->damp_alpha * dv[b]) + it.c[x] * dv[b] +
                 k[x] * (dq[b] + body->damp_beta * dv[b]) + ((has_kg ? kg[x] : 0.0) + it.k_eps[x] + it.k_omega[x]) * dq[b];
        }
    }
    return r;
}

void link_support_reactions(kd_model* m, const kd_frame* f, const kd_law* preload, const kd_law* load, int stride,
                            int njoint, const int* joint_node, int ncomp, double t, const double* q, const double* v,
                            const double* a, double* R) {
    double acc[3];
    for (int i = 0; i < 3; i++)
        acc[i] = f->aO_L[i] - (f->R[i] * m->gravity[0] + f->R[3 + i] * m->gravity[1] + f->R[6 + i] * m->gravity[2]);
    double P, dP, d2P;
    kd_law_eval(preload, t, &P, &dP, &d2P);
    const double keep = m->body[0].preload;  /* the integration's value, restored below */
    m->body[0].preload = P;                  /* the joints' axial force of the instant (k_g) */
    for (int j = 0; j < njoint; j++) {
        const int node = joint_node[j] - 1;
        int first_at_node = 1;
        for (int jj = 0; jj < j; jj++) first_at_node &= joint_node[jj] != joint_node[j];
        for (int c = 0; c < ncomp; c++) {
            R[ncomp * j + c] = 0.0;
            const int dof = link_node_dof(m, node, (kd_dof_name)(KD_DOF_U + c));
            if (!first_at_node || dof < 0 || m->dof_eq[dof] >= 0) continue;  /* a free DOF carries no reaction */
            const double r = dof_residual(m, f, acc, node, dof, q, v, a);
            /* minus the joint forces applied at this DOF: what remains is the support's share */
            double applied = 0.0;
            for (int jj = 0; jj < njoint; jj++)
                if (joint_node[jj] == joint_node[j]) {
                    double fl, df, d2f;
                    kd_law_eval(&load[jj * stride + c], t, &fl, &df, &d2f);
                    applied += fl;
                }
            R[ncomp * j + c] = r - applied;
        }
    }
    m->body[0].preload = keep;
}
