/* Beam bodies of the model compiler (model_body.h): frame, nodes along the
 * axis, two-node elements of the beam family, and the axial force of the
 * unit inertia load cases for the geometric stiffness. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#include "model_body.h"

#define FAIL(loc, ...) kd_error_set(err, KD_ERR_INPUT, d->file, (loc), __VA_ARGS__)

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

void model_beam_counts(const kd_body_desc* bd, int* nnode, int* nelem, int* nconn) {
    *nnode = bd->elements + 1;
    *nelem = bd->elements;
    *nconn = 2 * bd->elements;
}

/* A beam body: its frame, material and section constants, N + 1 nodes along
 * its x axis at body-frame (k h, 0, 0) and N two-node elements of length h
 * sharing one element record. */
kd_status model_beam_build(const kd_desc* d, int b, kd_model* m, model_cursor* at, kd_error* err) {
    const kd_body_desc* bd = &d->bodies[b];
    kd_body* body = &m->body[b];
    kd_status st = body_frame(d, bd, body, err);
    if (st) return st;
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

    const double h = body->length / bd->elements;
    body->node_num = bd->elements + 1;
    body->elem_num = bd->elements;
    for (int k = 0; k <= bd->elements; k++, at->node++) {
        double* x = &m->node_x[3 * at->node];
        x[0] = k * h, x[1] = 0.0, x[2] = 0.0;
        m->node_body[at->node] = b;
    }
    const int prop = model_find_or_add_prop(m, &at->prop_cap, kind, &c, h, &st);
    for (int k = 0; k < bd->elements && !st; k++, at->elem++) {
        m->elem_node_adr[at->elem] = at->conn;
        m->elem_node[at->conn++] = body->node_adr + k;
        m->elem_node[at->conn++] = body->node_adr + k + 1;
        m->elem_body[at->elem] = b;
        m->elem_prop[at->elem] = prop;
        m->elem_s0[at->elem] = k * h;
    }
    return st;
}

/* Axial force of a beam under the two unit inertia load cases of its frame
 * motion (theory.md sec. 5): distributed axial load f = f0 + f1 x with
 * (f0, f1) = (-rho A, 0) for a_Ox = 1 and (0, rho A) for a unit centrifugal
 * field. The axial bar problem EA u'' = -f is solved with the body's axial
 * supports (node 1 when it has none); linear elements give exact nodal
 * values in 1D, so P at each element's start is exact, and within the
 * element P(x) = P(x0) - int_x0^x f, a quadratic in xi. */
kd_status model_beam_axial_force(kd_model* m, int b) {
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
