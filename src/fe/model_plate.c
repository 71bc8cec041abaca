/* Plate bodies of the model compiler (model_body.h): frame from the mesh's
 * origin and axes, nodes at the mesh's body-frame coordinates (in the mesh's
 * order: along the shorter side of a rectangle, reverse Cuthill-McKee for a
 * Gmsh file, so the band stays narrow), elements of the body's family
 * (membrane, plate or shell) with records shared by elements of identical
 * shape. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "element_family_list.h"
#include "model_body.h"

#define FAIL(loc, ...) kd_error_set(err, KD_ERR_INPUT, d->file, (loc), __VA_ARGS__)

void model_plate_counts(const kd_body_desc* bd, int* nnode, int* nelem, int* nconn) {
    *nnode = bd->mesh.nnodes;
    *nelem = bd->mesh.nelems;
    *nconn = bd->mesh.nelems * bd->mesh.elem_nnode;
}

/* Body frame: origin at the mesh origin, x along x_axis, z along the normal
 * (defaults: global x and z); x_axis is made normal to z. */
static kd_status plate_frame(const kd_desc* d, const kd_body_desc* bd, kd_body* body, kd_error* err) {
    const kd_mesh_desc* ms = &bd->mesh;
    double ex[3] = {1, 0, 0}, ez[3] = {0, 0, 1}, ey[3];
    if (util_dot3(ms->x_axis, ms->x_axis) > 0) memcpy(ex, ms->x_axis, sizeof ex);
    if (util_dot3(ms->normal, ms->normal) > 0) memcpy(ez, ms->normal, sizeof ez);
    const double nz = sqrt(util_dot3(ez, ez));
    for (int i = 0; i < 3; i++) ez[i] /= nz;
    const double dot = util_dot3(ex, ez);
    for (int i = 0; i < 3; i++) ex[i] -= dot * ez[i];
    const double nx = sqrt(util_dot3(ex, ex));
    if (!(nx > 1e-9)) return FAIL(ms->loc, "body '%s': the mesh's x_axis is parallel to its normal", bd->name);
    for (int i = 0; i < 3; i++) ex[i] /= nx;
    util_cross3(ey, ez, ex);
    memcpy(body->origin, ms->origin, sizeof body->origin);
    for (int i = 0; i < 3; i++) {
        body->rot[i * 3 + 0] = ex[i];
        body->rot[i * 3 + 1] = ey[i];
        body->rot[i * 3 + 2] = ez[i];
    }
    body->length = kd_mesh_size(ms);
    return KD_OK;
}

/* 1 when record p has this kind, constants and shape: node coordinates
 * equal to round-off (1e-12 of the element's size; the nodes of a
 * structured mesh are products i a / n, whose differences vary in the last
 * bits). */
static int same_element(const kd_element_props* p, kd_element_kind kind, const kd_element_consts* c,
                        const double x[][3], int nn) {
    if (memcmp(&p->kind, &kind, sizeof kind) != 0 || memcmp(&p->c, c, sizeof *c) != 0 || p->nnode != nn) return 0;
    double size = 0;
    for (int a = 0; a < nn; a++)
        for (int i = 0; i < 3; i++) size = fmax(size, fabs(x[a][i]));
    for (int a = 0; a < nn; a++)
        for (int i = 0; i < 3; i++)
            if (fabs(p->node_x[a][i] - x[a][i]) > 1e-12 * size) return 0;
    return 1;
}

/* The record of an element of this kind and shape: among this body's
 * records (the first and the last few: a structured mesh has one or two
 * shapes, a Gmsh mesh mostly its own per element), else a new one. */
static int plate_prop(kd_model* m, int* cap, int first, kd_element_kind kind, const kd_element_consts* c,
                      const double x[][3], int nn, kd_status* st) {
    for (int i = m->nprop - 1; i >= first && i >= m->nprop - 8; i--)
        if (same_element(&m->prop[i], kind, c, x, nn)) return i;
    if (first < m->nprop && same_element(&m->prop[first], kind, c, x, nn)) return first;
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
    *st = kd_element_props_init_nodes(&m->prop[m->nprop], kind, c, x);
    return *st ? -1 : m->nprop++;
}

/* A lower estimate of the first nonzero omega^2 of the plate: the smaller
 * of a cantilever strip of the longest side in bending, (1.8751/L)^4
 * D/(rho t) with D = E t^3 / (12 (1 - nu^2)), and in-plane, (pi/2L)^2 E/rho.
 * It sets the shift of the eigensolvers below the spectrum. */
static double plate_lambda_hint(const kd_element_consts* c, double nu, double t, double L) {
    const double pi = 3.14159265358979323846;
    const double D = c->E * t * t * t / (12 * (1 - nu * nu));
    return fmin(pow(1.8751 / L, 4) * D / (c->rho * t), pow(pi / (2 * L), 2) * c->E / c->rho);
}

kd_status model_plate_build(const kd_desc* d, int b, kd_model* m, model_cursor* at, kd_error* err) {
    const kd_body_desc* bd = &d->bodies[b];
    const kd_mesh_desc* ms = &bd->mesh;
    kd_body* body = &m->body[b];
    kd_status st = plate_frame(d, bd, body, err);
    if (st) return st;
    const kd_element_kind kind = {bd->theory, bd->interpolation, 0};
    body->kind = kind;
    const kd_element_family* fam = kd_element_family_of(kind);
    if (!fam || fam->nnode != ms->elem_nnode)
        return FAIL(bd->loc, "body '%s': theory %s with interpolation %s takes no %d-node elements", bd->name,
                    kd_theory_str(bd->theory), kd_interp_str(bd->interpolation), ms->elem_nnode);
    const kd_material_desc* mat = &d->materials[bd->material];
    kd_element_consts c = {0};
    c.E = mat->E;
    c.rho = mat->rho;
    c.G = mat->G > 0.0 ? mat->G : mat->E / (2.0 * (1.0 + mat->nu));
    c.t = bd->thickness;
    body->geometric = bd->geometric_stiffness;
    body->lambda_hint = plate_lambda_hint(&c, mat->nu, bd->thickness, kd_mesh_size(ms));
    body->node_num = ms->nnodes;
    body->elem_num = ms->nelems;
    for (int k = 0; k < ms->nnodes; k++, at->node++) {
        memcpy(&m->node_x[3 * at->node], &ms->node_x[3 * k], sizeof(double) * 3);
        m->node_body[at->node] = b;
    }
    const int first = m->nprop, nn = ms->elem_nnode;
    for (int e = 0; e < ms->nelems && !st; e++, at->elem++) {
        const int* en = ms->elem + (size_t)e * nn;
        double x[KD_ELEM_NODE_MAX][3];
        const double* x0 = &ms->node_x[3 * en[0]];
        for (int a = 0; a < nn; a++)
            for (int i = 0; i < 3; i++) x[a][i] = ms->node_x[3 * en[a] + i] - x0[i];
        const int prop = plate_prop(m, &at->prop_cap, first, kind, &c, (const double(*)[3])x, nn, &st);
        const double warp = bd->theory != KD_THEORY_SHELL || nn == 3 ? 0.0  /* theory.md sec. 14.6, 18.3 */
                            : nn == 4 ? shell_quad_warping((const double(*)[3])x)
                                      : shell_p2_warping(nn, (const double(*)[3])x);
        if (st == KD_ERR_INPUT && warp > SHELL_WARP_LIMIT)
            return FAIL(ms->loc, "body '%s': element %d is warped beyond the limit of a flat shell (node offset from "
                        "the mean plane %.3g sqrt(A) > %g sqrt(A))", bd->name, e + 1, warp, SHELL_WARP_LIMIT);
        if (st == KD_ERR_INPUT || st == KD_ERR_USAGE)
            return FAIL(ms->loc, "body '%s': element %d is degenerate or inverted (zero or negative Jacobian)", bd->name, e + 1);
        if (st) return st;
        m->elem_node_adr[at->elem] = at->conn;
        for (int a = 0; a < nn; a++) m->elem_node[at->conn++] = body->node_adr + en[a];
        m->elem_body[at->elem] = b;
        m->elem_prop[at->elem] = prop;
        /* the inertia terms of a moving frame place an element by its axial
         * offset only (kedyn/model.h, elem_s0): a plate at rest needs none */
        m->elem_s0[at->elem] = x0[0];
        body->mass += m->prop[prop].mass;
    }
    m->total_mass += body->mass;
    return st;
}
