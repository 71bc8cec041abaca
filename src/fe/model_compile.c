/* Description -> compiled model (kedyn/model.h): body frames, nodes,
 * elements, shared element invariants and the DOF map. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#include "kedyn/model.h"
#include "kedyn/model_check.h"

#define FAIL(loc, ...) kd_error_set(err, KD_ERR_INPUT, d->file, (loc), __VA_ARGS__)

void kd_model_free(kd_model** pm) {
    if (!pm || !*pm) return;
    kd_model* m = *pm;
    for (int b = 0; b < m->nbody; b++)
        if (m->body) kd_motion_free(&m->body[b].motion);
    free(m->body);
    free(m->node_s);
    free(m->node_body);
    free(m->node_dof_adr);
    free(m->node_dof_num);
    free(m->dof_name);
    free(m->dof_eq);
    free(m->elem_node);
    free(m->elem_body);
    free(m->elem_prop);
    free(m->elem_s0);
    free(m->elem_axial);
    free(m->prop);
    for (int i = 0; i < m->nnodal; i++) kd_law_free(&m->nodal[i].value);
    free(m->nodal);
    free(m);
    *pm = NULL;
}

static void normalize(double v[3]) {
    const double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int i = 0; i < 3; i++) v[i] /= n;
}

static void cross(double out[3], const double a[3], const double b[3]) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* Body frame of a beam: origin at the first point, local x towards the last
 * point, local y from y_axis (3D) or in the plane (planar); see
 * docs/model-format.md. rot holds the local axes as columns. */
static kd_status body_frame(const kd_desc* d, const kd_body_desc* bd, kd_body* b, kd_error* err) {
    double ex[3] = {1, 0, 0}, ey[3], ez[3];
    memset(b->origin, 0, sizeof(b->origin));
    b->length = bd->length;
    if (bd->npoints >= 2) {
        const double* p0 = bd->points[0].x;
        const double* p1 = bd->points[bd->npoints - 1].x;
        for (int i = 0; i < 3; i++) {
            b->origin[i] = p0[i];
            ex[i] = p1[i] - p0[i];
        }
        normalize(ex);
        /* Named points in between must lie on the axis. */
        for (int k = 1; k < bd->npoints - 1; k++) {
            double r[3], c[3];
            for (int i = 0; i < 3; i++) r[i] = bd->points[k].x[i] - p0[i];
            cross(c, ex, r);
            if (sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]) > 1e-9 * b->length)
                return FAIL(bd->points[k].loc, "point '%s' of body '%s' is not on the beam axis", bd->points[k].name,
                            bd->name);
        }
    }
    if (bd->planar) {
        if (fabs(ex[2]) > 1e-12)
            return FAIL(bd->loc, "body '%s' is planar but its axis leaves the x-y plane", bd->name);
        ey[0] = -ex[1], ey[1] = ex[0], ey[2] = 0.0;
    } else {
        const double zg[3] = {0, 0, 1};
        const double* yref = bd->y_axis;
        double tmp[3];
        if (yref[0] == 0.0 && yref[1] == 0.0 && yref[2] == 0.0) {
            cross(tmp, zg, ex);  /* default: global Z x local x */
            if (sqrt(tmp[0] * tmp[0] + tmp[1] * tmp[1] + tmp[2] * tmp[2]) < 1e-12) tmp[0] = 0, tmp[1] = 1, tmp[2] = 0;
        } else {
            const double dot = yref[0] * ex[0] + yref[1] * ex[1] + yref[2] * ex[2];
            for (int i = 0; i < 3; i++) tmp[i] = yref[i] - dot * ex[i];
            if (sqrt(tmp[0] * tmp[0] + tmp[1] * tmp[1] + tmp[2] * tmp[2]) < 1e-9)
                return FAIL(bd->loc, "body '%s': y_axis is parallel to the beam axis", bd->name);
        }
        memcpy(ey, tmp, sizeof(ey));
        normalize(ey);
    }
    cross(ez, ex, ey);
    for (int i = 0; i < 3; i++) {
        b->rot[i * 3 + 0] = ex[i];
        b->rot[i * 3 + 1] = ey[i];
        b->rot[i * 3 + 2] = ez[i];
    }
    return KD_OK;
}

/* A lower estimate of a beam's first nonzero omega^2 from the analytic
 * fixed-free formulas (the lowest of the common boundary conditions):
 * axial and torsion (pi/2L)^2 c^2, bending (1.8751/L)^4 EI/(rho A). */
static double lambda_hint(const kd_element_consts* c, kd_element_kind kind, double L) {
    const double pi = 3.14159265358979323846;
    double lam = pow(pi / (2 * L), 2) * c->E / c->rho;
    if (!kind.planar) lam = fmin(lam, pow(pi / (2 * L), 2) * c->G * c->J / (c->rho * (c->Iy + c->Iz)));
    if (kind.theory != KD_THEORY_BAR) {
        const double Ib = kind.planar ? c->Iz : fmin(c->Iy, c->Iz);
        lam = fmin(lam, pow(1.8751 / L, 4) * c->E * Ib / (c->rho * c->A));
    }
    return lam;
}

/* Index of an existing identical props record, or a new one. */
static int find_or_add_prop(kd_model* m, int* cap, kd_element_kind kind, const kd_element_consts* c, double L,
                            kd_status* st) {
    for (int i = 0; i < m->nprop; i++) {
        const kd_element_props* p = &m->prop[i];
        if (p->L == L && memcmp(&p->kind, &kind, sizeof(kind)) == 0 && memcmp(&p->c, c, sizeof(*c)) == 0) return i;
    }
    if (m->nprop == *cap) {
        const int ncap = *cap ? 2 * *cap : 4;
        kd_element_props* np = realloc(m->prop, (size_t)ncap * sizeof(*np));
        if (!np) {
            *st = KD_ERR_NOMEM;
            return -1;
        }
        m->prop = np;
        *cap = ncap;
    }
    *st = kd_element_props_init(&m->prop[m->nprop], kind, c, L);
    return *st ? -1 : m->nprop++;
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

/* Axial force of a beam under the two unit inertia load cases of its frame
 * motion (theory.md sec. 5): distributed axial load f = f0 + f1 x with
 * (f0, f1) = (-rho A, 0) for a_Ox = 1 and (0, rho A) for a unit centrifugal
 * field. The axial bar problem EA u'' = -f is solved with the body's axial
 * supports (node 1 when it has none); linear elements give exact nodal
 * values in 1D, so P at each element's start is exact, and within the
 * element P(x) = P(x0) - int_x0^x f, a quadratic in xi. */
static kd_status axial_force_cases(kd_model* m, int b) {
    const kd_body* body = &m->body[b];
    const int nn = body->node_num, ne = body->elem_num;
    const kd_element_props* p = &m->prop[m->elem_prop[body->elem_adr]];
    const double EA = p->c.E * p->c.A, rA = p->c.rho * p->c.A, h = p->L;
    double* diag = calloc((size_t)nn, sizeof(double));
    double* off = calloc((size_t)nn, sizeof(double));
    double* u = calloc((size_t)(2 * nn), sizeof(double));
    int* fixed = calloc((size_t)nn, sizeof(int));
    kd_status st = (diag && off && u && fixed) ? KD_OK : KD_ERR_NOMEM;
    int nfixed = 0;
    for (int k = 0; k < nn && !st; k++) {
        const int n = body->node_adr + k;
        fixed[k] = m->dof_eq[m->node_dof_adr[n]] < 0;  /* u is every kind's first DOF */
        nfixed += fixed[k];
    }
    if (!st && nfixed == 0) fixed[0] = 1;
    /* Tridiagonal stiffness with fixed nodes decoupled (unit diagonal, zero
     * load), and the consistent loads of both cases. */
    for (int e = 0; e < ne && !st; e++) {
        const double x0 = e * h, x1 = x0 + h;
        const double f[2][2] = {{-rA, -rA}, {rA * x0, rA * x1}};  /* f at both ends, per case */
        for (int c = 0; c < 2; c++) {
            u[c * nn + e] += h * (2 * f[c][0] + f[c][1]) / 6;
            u[c * nn + e + 1] += h * (f[c][0] + 2 * f[c][1]) / 6;
        }
        diag[e] += EA / h;
        diag[e + 1] += EA / h;
        off[e] = (fixed[e] || fixed[e + 1]) ? 0.0 : -EA / h;
    }
    for (int k = 0; k < nn && !st; k++)
        if (fixed[k]) diag[k] = 1.0, u[k] = u[nn + k] = 0.0;
    if (!st && LAPACKE_dptsv(LAPACK_COL_MAJOR, nn, 2, diag, off, u, nn) != 0) st = KD_ERR_NUMERIC;
    /* P at each element start, then the quadratic in xi. */
    for (int e = 0; e < ne && !st; e++) {
        const double x0 = e * h;
        double* pc = &m->elem_axial[6 * (body->elem_adr + e)];
        for (int c = 0; c < 2; c++) {
            const double f0 = c == 0 ? -rA : 0.0, f1 = c == 0 ? 0.0 : rA;
            const double Fe0 = h * (2 * (f0 + f1 * x0) + (f0 + f1 * (x0 + h))) / 6;
            pc[3 * c + 0] = Fe0 + EA * (u[c * nn + e + 1] - u[c * nn + e]) / h;
            pc[3 * c + 1] = -(f0 + f1 * x0) * h;
            pc[3 * c + 2] = -f1 * h * h / 2;
        }
    }
    free(diag);
    free(off);
    free(u);
    free(fixed);
    return st;
}

static kd_status alloc_arrays(kd_model* m) {
    m->body = calloc((size_t)m->nbody, sizeof(*m->body));
    m->node_s = calloc((size_t)m->nnode, sizeof(double));
    m->node_body = calloc((size_t)m->nnode, sizeof(int));
    m->node_dof_adr = calloc((size_t)m->nnode, sizeof(int));
    m->node_dof_num = calloc((size_t)m->nnode, sizeof(int));
    m->dof_name = calloc((size_t)m->ndof_all, sizeof(kd_dof_name));
    m->dof_eq = calloc((size_t)m->ndof_all, sizeof(int));
    m->elem_node = calloc((size_t)(2 * m->nelem), sizeof(int));
    m->elem_body = calloc((size_t)m->nelem, sizeof(int));
    m->elem_prop = calloc((size_t)m->nelem, sizeof(int));
    m->elem_s0 = calloc((size_t)m->nelem, sizeof(double));
    m->elem_axial = calloc((size_t)(6 * m->nelem), sizeof(double));
    if (!m->body || !m->node_s || !m->node_body || !m->node_dof_adr || !m->node_dof_num || !m->dof_name ||
        !m->dof_eq || !m->elem_node || !m->elem_body || !m->elem_prop || !m->elem_s0 || !m->elem_axial)
        return KD_ERR_NOMEM;
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
    for (int b = 0; b < d->nbodies; b++) {
        const kd_body_desc* bd = &d->bodies[b];
        if (bd->type != KD_BODY_BEAM) continue;
        kd_element_kind kind = {bd->theory, bd->interpolation, bd->planar};
        kd_dof_name dofs[KD_NODE_DOF_MAX];
        m->nnode += bd->elements + 1;
        m->nelem += bd->elements;
        m->ndof_all += (bd->elements + 1) * kd_element_node_dofs(kind, dofs);
    }
    st = alloc_arrays(m);

    /* Bodies, nodes, elements. */
    int node = 0, elem = 0, dof = 0, cap = 0;
    for (int b = 0; b < d->nbodies && !st; b++) {
        const kd_body_desc* bd = &d->bodies[b];
        kd_body* body = &m->body[b];
        snprintf(body->name, sizeof(body->name), "%s", bd->name);
        body->type = bd->type;
        body->node_adr = node;
        body->elem_adr = elem;
        if (bd->type != KD_BODY_BEAM) continue;
        st = body_frame(d, bd, body, err);
        if (st) break;
        kd_element_kind kind = {bd->theory, bd->interpolation, bd->planar};
        body->kind = kind;
        const kd_material_desc* mat = &d->materials[bd->material];
        kd_element_consts c = {0};
        c.E = mat->E;
        c.rho = mat->rho;
        c.G = mat->G > 0.0 ? mat->G : mat->E / (2.0 * (1.0 + mat->nu));
        kd_section_properties(&d->sections[bd->section], mat->nu, &c);
        body->mass = c.rho * c.A * body->length;
        body->preload = bd->preload;
        body->geometric = bd->geometric_stiffness;
        body->lambda_hint = lambda_hint(&c, kind, body->length);
        m->total_mass += body->mass;

        kd_dof_name dofs[KD_NODE_DOF_MAX];
        const int nd = kd_element_node_dofs(kind, dofs);
        const double h = body->length / bd->elements;
        body->node_num = bd->elements + 1;
        body->elem_num = bd->elements;
        for (int k = 0; k <= bd->elements; k++, node++) {
            m->node_s[node] = k * h;
            m->node_body[node] = b;
            m->node_dof_adr[node] = dof;
            m->node_dof_num[node] = nd;
            for (int a = 0; a < nd; a++) m->dof_name[dof++] = dofs[a];
        }
        const int prop = find_or_add_prop(m, &cap, kind, &c, h, &st);
        for (int k = 0; k < bd->elements && !st; k++, elem++) {
            m->elem_node[2 * elem] = body->node_adr + k;
            m->elem_node[2 * elem + 1] = body->node_adr + k + 1;
            m->elem_body[elem] = b;
            m->elem_prop[elem] = prop;
            m->elem_s0[elem] = k * h;
        }
    }

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
        if (m->body[b].type == KD_BODY_BEAM) st = axial_force_cases(m, b);

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

int kd_model_elem_eqs(const kd_model* m, int e, int* eqs) {
    int n = 0;
    for (int k = 0; k < 2; k++) {
        const int node = m->elem_node[2 * e + k];
        for (int a = 0; a < m->node_dof_num[node]; a++) eqs[n++] = m->dof_eq[m->node_dof_adr[node] + a];
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
    for (int i = 0; i < 3; i++) x[i] = b->origin[i] + b->rot[i * 3] * m->node_s[n];
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
        if (body->type != KD_BODY_BEAM) continue;
        int supported = 0;
        for (int s = 0; s < d->nsupports; s++) supported |= d->supports[s].body == b;
        if (!supported && !kd_desc_beam_in_joints(d, b))  /* an elastic link is held by its joints (kedyn/ked.h) */
            WARN(d->bodies[b].loc, "body '%s' has no support: it has %d rigid-body modes (frequency 0)", body->name,
                 body->kind.planar ? 3 : 6);
        /* Round-off in the assembled stiffness of a bending beam perturbs its
         * eigenvalues by about eps lambda_max, i.e. the lowest frequency by
         * about 1e-17 N^4 relative (measured, docs/validation.md). */
        const double roundoff = 1e-17 * pow((double)body->elem_num, 4);
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
