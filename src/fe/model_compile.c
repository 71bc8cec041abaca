/* Description -> compiled model (kedyn/model.h): body frames, nodes,
 * elements, shared element invariants and the DOF map. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/model_check.h"
#include "kedyn/modes.h"
#include "model_body.h"

#define FAIL(loc, ...) kd_error_set(err, KD_ERR_INPUT, d->file, (loc), __VA_ARGS__)

void kd_model_free(kd_model** pm) {
    if (!pm || !*pm) return;
    kd_model* m = *pm;
    for (int b = 0; b < m->nbody; b++)
        if (m->body) kd_motion_free(&m->body[b].motion);
    free(m->body);
    free(m->node_x);
    free(m->node_body);
    free(m->node_dof_adr);
    free(m->node_dof_num);
    free(m->dof_name);
    free(m->dof_eq);
    free(m->elem_node_adr);
    free(m->elem_node);
    free(m->elem_body);
    free(m->elem_prop);
    free(m->elem_s0);
    free(m->elem_axial);
    free(m->elem_rot);
    free(m->rest_adr);
    free(m->rest_S);
    for (int i = 0; m->prop && i < m->nprop; i++) kd_element_props_free(&m->prop[i]);
    free(m->prop);
    for (int i = 0; i < m->nnodal; i++) kd_law_free(&m->nodal[i].value);
    free(m->nodal);
    free(m);
    *pm = NULL;
}

/* Nodal loads on free DOFs and the gravity field. */
static kd_status compile_loads(const kd_desc* d, kd_model* m) {
    m->nodal = calloc((size_t)(d->nloads ? d->nloads : 1), sizeof(*m->nodal));
    if (!m->nodal) return KD_ERR_NOMEM;
    for (int i = 0; i < d->nloads; i++) {
        const kd_load_desc* ld = &d->loads[i];
        if (ld->type == KD_LOAD_GRAVITY) {
            for (int k = 0; k < 3; k++) m->gravity[k] += ld->g[k];
            continue;
        }
        if (ld->type != KD_LOAD_NODAL) continue;  /* mechanism forces act on rigid bodies (kedyn/mech.h) */
        const int node = m->body[ld->body].node_adr + ld->node - 1;
        int eq = -1;
        for (int a = 0; a < m->node_dof_num[node]; a++)
            if (m->dof_name[m->node_dof_adr[node] + a] == ld->dof) eq = m->dof_eq[m->node_dof_adr[node] + a];
        if (eq < 0) continue;  /* a load on a fixed DOF goes into the support */
        m->nodal[m->nnodal].eq = eq;
        if (kd_law_copy(&m->nodal[m->nnodal].value, &ld->value)) return KD_ERR_NOMEM;
        m->nnodal++;
    }
    return KD_OK;
}

/* Arrays of the nodes and elements (the DOF arrays follow the DOF count). */
static kd_status alloc_arrays(kd_model* m, int nconn) {
    m->body = calloc((size_t)m->nbody, sizeof(*m->body));
    m->node_x = calloc((size_t)(3 * m->nnode), sizeof(double));
    m->node_body = calloc((size_t)m->nnode, sizeof(int));
    m->node_dof_adr = calloc((size_t)m->nnode, sizeof(int));
    m->node_dof_num = calloc((size_t)m->nnode, sizeof(int));
    m->elem_node_adr = calloc((size_t)(m->nelem + 1), sizeof(int));
    m->elem_node = calloc((size_t)(nconn ? nconn : 1), sizeof(int));
    m->elem_body = calloc((size_t)m->nelem, sizeof(int));
    m->elem_prop = calloc((size_t)m->nelem, sizeof(int));
    m->elem_s0 = calloc((size_t)m->nelem, sizeof(double));
    m->elem_axial = calloc((size_t)(6 * m->nelem), sizeof(double));
    if (!m->body || !m->node_x || !m->node_body || !m->node_dof_adr || !m->node_dof_num || !m->elem_node_adr ||
        !m->elem_node || !m->elem_body || !m->elem_prop || !m->elem_s0 || !m->elem_axial)
        return KD_ERR_NOMEM;
    return KD_OK;
}

/* DOFs per node from the element families (the node kind: the DOFs local
 * node a of an element of kind k carries, kd_element_node_dofs_at), checked
 * to agree among the elements sharing a node; then the all-DOF numbering in
 * node order. A node of no element has no DOF. */
static kd_status node_dofs(kd_model* m) {
    kd_dof_name dofs[KD_ELEM_NODE_MAX][KD_NODE_DOF_MAX];
    int nd[KD_ELEM_NODE_MAX], last = -1;
    for (int pass = 0; pass < 2; pass++) {
        for (int e = 0; e < m->nelem; e++) {
            const int* nodes;
            const int nn = kd_model_elem_nodes(m, e, &nodes);
            if (m->elem_prop[e] != last) {  /* the node kinds of this element record */
                last = m->elem_prop[e];
                for (int a = 0; a < nn; a++) nd[a] = kd_element_node_dofs_at(m->prop[last].kind, a, dofs[a]);
            }
            for (int a = 0; a < nn; a++) {
                const int n = nodes[a];
                if (pass == 1) {
                    for (int k = 0; k < nd[a]; k++) m->dof_name[m->node_dof_adr[n] + k] = dofs[a][k];
                } else if (m->node_dof_num[n] == 0) {
                    m->node_dof_num[n] = nd[a];
                } else if (m->node_dof_num[n] != nd[a]) {
                    return KD_ERR_USAGE;  /* elements disagree on a node's DOFs */
                }
            }
        }
        if (pass == 1) break;
        for (int n = 0; n < m->nnode; n++) {
            m->node_dof_adr[n] = m->ndof_all;
            m->ndof_all += m->node_dof_num[n];
        }
        m->dof_name = calloc((size_t)(m->ndof_all ? m->ndof_all : 1), sizeof(kd_dof_name));
        m->dof_eq = calloc((size_t)(m->ndof_all ? m->ndof_all : 1), sizeof(int));
        if (!m->dof_name || !m->dof_eq) return KD_ERR_NOMEM;
    }
    return KD_OK;
}

kd_status kd_model_compile(const kd_desc* d, kd_model** out, kd_error* err) {
    *out = NULL;
    kd_status st = kd_desc_check(d, err);
    if (!st) st = kd_model_check_dofs(d, err);
    if (st) return st;

    kd_model* m = calloc(1, sizeof(*m));
    if (!m) return kd_error_set(err, KD_ERR_NOMEM, d->file, KD_LOC_NONE, "out of memory");

    /* Sizes. */
    m->nbody = d->nbodies;
    int nconn = 0;
    for (int b = 0; b < d->nbodies; b++) {
        const kd_body_desc* bd = &d->bodies[b];
        int nn = 0, ne = 0, nc = 0;
        if (bd->type == KD_BODY_BEAM) model_beam_counts(bd, &nn, &ne, &nc);
        if (bd->type == KD_BODY_PLATE) model_plate_counts(bd, &nn, &ne, &nc);
        m->nnode += nn;
        m->nelem += ne;
        nconn += nc;
    }
    st = alloc_arrays(m, nconn);

    /* Bodies, nodes, elements: each elastic body type builds its own. */
    model_cursor at = {0, 0, 0, 0};
    for (int b = 0; b < d->nbodies && !st; b++) {
        const kd_body_desc* bd = &d->bodies[b];
        kd_body* body = &m->body[b];
        snprintf(body->name, sizeof(body->name), "%s", bd->name);
        body->type = bd->type;
        body->node_adr = at.node;
        body->elem_adr = at.elem;
        if (bd->type == KD_BODY_BEAM) st = model_beam_build(d, b, m, &at, err);
        if (bd->type == KD_BODY_PLATE) st = model_plate_build(d, b, m, &at, err);
    }
    if (!st) m->elem_node_adr[m->nelem] = at.conn;
    if (!st) st = node_dofs(m);
    if (st == KD_ERR_USAGE) kd_error_set(err, st, d->file, KD_LOC_NONE, "elements sharing a node disagree on its DOFs");

    /* DOF map: supports remove DOFs, the rest are numbered in node order. */
    for (int s = 0; s < d->nsupports && !st; s++) {
        const kd_support_desc* sd = &d->supports[s];
        const int n = m->body[sd->body].node_adr + sd->node - 1;
        /* `all` is a clamp: every translation and rotation, not the
         * curvatures of quintic elements (a clamped end carries a moment). */
        const unsigned mask = sd->fix == KD_FIX_ALL ? KD_FIX_CLAMP : sd->fix;
        for (int a = 0; a < m->node_dof_num[n]; a++) {
            const int i = m->node_dof_adr[n] + a;
            if (mask & (1u << m->dof_name[i])) m->dof_eq[i] = -1;
        }
    }
    for (int i = 0; i < m->ndof_all && !st; i++)
        if (m->dof_eq[i] == 0) m->dof_eq[i] = 1;  /* mark free; numbered below */
    for (int i = 0; i < m->ndof_all && !st; i++)
        if (m->dof_eq[i] > 0) m->dof_eq[i] = m->neq++;

    /* Half-bandwidth of the reduced matrices. */
    for (int e = 0; e < m->nelem && !st; e++) {
        int eqs[KD_ELEM_DOF_MAX], lo = m->neq, hi = -1;
        const int n = kd_model_elem_eqs(m, e, eqs);
        for (int a = 0; a < n; a++) {
            if (eqs[a] < 0) continue;
            lo = eqs[a] < lo ? eqs[a] : lo;
            hi = eqs[a] > hi ? eqs[a] : hi;
        }
        if (hi - lo > m->bandwidth) m->bandwidth = hi - lo;
    }

    for (int i = 0; i < d->nmotions && !st; i++)
        st = kd_motion_copy(&m->body[d->motions[i].body].motion, &d->motions[i].motion);
    for (int i = 0; i < d->ndampings && !st; i++) {
        m->body[d->dampings[i].body].damp_alpha = d->dampings[i].alpha;
        m->body[d->dampings[i].body].damp_beta = d->dampings[i].beta;
    }
    if (!st) st = compile_loads(d, m);
    for (int b = 0; b < m->nbody && !st; b++)
        if (m->body[b].type == KD_BODY_BEAM) st = model_beam_axial_force(m, b);

    /* A rigid mechanism has no nodal DOF; its coordinates live in kd_mech (kedyn/mech.h). */
    if (st == KD_OK && m->neq == 0 && !kd_desc_is_mechanism(d)) st = FAIL(KD_LOC_START, "every DOF of the model is fixed");
    if (st) {
        if (st == KD_ERR_NOMEM) kd_error_set(err, st, d->file, KD_LOC_NONE, "out of memory");
        kd_model_free(&m);
        return st;
    }
    *out = m;
    return KD_OK;
}

int kd_model_elem_nodes(const kd_model* m, int e, const int** nodes) {
    *nodes = m->elem_node + m->elem_node_adr[e];
    return m->elem_node_adr[e + 1] - m->elem_node_adr[e];
}

int kd_model_elem_eqs(const kd_model* m, int e, int* eqs) {
    /* (hot: once per element and assembly; bounds in locals, as eqs may alias) */
    const int k0 = m->elem_node_adr[e], k1 = m->elem_node_adr[e + 1];
    int n = 0;
    for (int k = k0; k < k1; k++) {
        const int node = m->elem_node[k], nd = m->node_dof_num[node];
        const int* eq = m->dof_eq + m->node_dof_adr[node];
        for (int a = 0; a < nd; a++) eqs[n++] = eq[a];
    }
    return n;
}

int kd_model_find_body(const kd_model* m, const char* name) {
    for (int b = 0; b < m->nbody; b++)
        if (strcmp(m->body[b].name, name) == 0) return b;
    return -1;
}

void kd_model_node_position(const kd_model* m, int n, double x[3]) {
    const kd_body* b = &m->body[m->node_body[n]];
    const double* xl = &m->node_x[3 * n];
    for (int i = 0; i < 3; i++) {
        x[i] = b->origin[i] + b->rot[i * 3] * xl[0];
        if (xl[1] != 0.0) x[i] += b->rot[i * 3 + 1] * xl[1];  /* (beam nodes lie on the x axis) */
        if (xl[2] != 0.0) x[i] += b->rot[i * 3 + 2] * xl[2];
    }
}

/* Add one warning to the list when there is room; count it either way. */
#define WARN(loc, ...)                                                             \
    do {                                                                           \
        if (n < max) kd_error_set(&out[n], KD_OK, d->file, (loc), __VA_ARGS__);   \
        n++;                                                                       \
    } while (0)

int kd_model_warnings(const kd_desc* d, const kd_model* m, kd_error* out, int max) {
    int n = 0;
    for (int b = 0; b < m->nbody; b++) {
        const kd_body* body = &m->body[b];
        int supported = 0;
        for (int s = 0; s < d->nsupports; s++) supported |= d->supports[s].body == b;
        if (body->type == KD_BODY_PLATE && !supported)
            WARN(d->bodies[b].loc, "body '%s' has no support: it has rigid-body modes (frequency 0)", body->name);
        if (body->type != KD_BODY_BEAM) continue;
        if (!supported && !kd_desc_beam_in_joints(d, b))  /* an elastic link is held by its joints (kedyn/ked.h) */
            WARN(d->bodies[b].loc, "body '%s' has no support: it has %d rigid-body modes (frequency 0)", body->name,
                 body->kind.planar ? 3 : 6);
        /* Round-off in the lowest frequency of a bending beam, as the modal solver will compute
         * it: square-root QR and Rayleigh quotient for a body at rest without compression, the
         * Cholesky factorisation otherwise (kd_modes_roundoff, docs/validation.md). */
        const kd_eigen_factor f = body->motion.type == KD_MOTION_NONE && body->preload >= 0 ? KD_FACTOR_QR
                                                                                            : KD_FACTOR_CHOLESKY;
        const double roundoff = kd_modes_roundoff(f, 1, m->neq, kd_model_lambda_max(m), body->lambda_hint);
        if (body->kind.theory != KD_THEORY_BAR && roundoff > 1e-6)
            WARN(d->bodies[b].loc,
                 "body '%s': with %d elements, round-off limits the lowest frequencies to a relative accuracy of "
                 "about %.0e; fewer elements (or quintic interpolation) are more accurate",
                 body->name, body->elem_num, roundoff);
    }
    for (int i = 0; i < d->nanalyses; i++)
        if (d->analyses[i].type == KD_ANALYSIS_MODES && d->analyses[i].modes.count > m->neq)
            WARN(d->analyses[i].loc, "modes: count %d exceeds the %d free DOFs; %d modes will be computed",
                 d->analyses[i].modes.count, m->neq, m->neq);
    return n;
}
