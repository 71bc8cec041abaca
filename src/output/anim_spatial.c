/* A spatial mechanism in the animation (kedyn/report.h, src/output/anim_spatial.h): the drawing
 * of each body from its named points and joints (in its frame; the ground's global), and its pose
 * at each recorded instant from the coordinates of kd_smech (r_G and Euler parameters per body,
 * kedyn/smech.h, theory.md sec. 11). */
#include "anim_spatial.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/sdesc.h"
#include "kedyn/sked.h"

/* ---- poses ----------------------------------------------------------------- */

void anim_spatial_pose(const kd_desc* d, const kd_smech* m, const double* q, double* pose) {
    static const double identity[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    const kd_sdesc* s = d->sdesc;
    for (int b = 0, k = 0; b < s->nbodies; b++) {
        double* P = pose + 12 * (size_t)b;
        memcpy(P, identity, sizeof(identity));
        if (s->bodies[b].ground || k >= m->nbody) continue;
        const double* e = q + KD_SPOSE * k + 3;  /* Euler parameters, normalised for the drawing */
        const double n = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3]);
        const double p[4] = {e[0] / n, e[1] / n, e[2] / n, e[3] / n};
        kd_rot_from_quat(p, P + 3);
        const double* c = m->com + 3 * k;  /* origin = r_G - A com */
        for (int r = 0; r < 3; r++) P[r] = q[KD_SPOSE * k + r] - (P[3 + 3 * r] * c[0] + P[4 + 3 * r] * c[1] + P[5 + 3 * r] * c[2]);
        k++;
    }
}

/* Largest element count of an elastic link drawn through its nodes (kd_anim_shape capacity). */
#define LINK_ELEMENTS_DRAWN (KD_ANIM_SHAPE_POINTS / 2 - 1)

static int link_drawn(const kd_sbody_desc* b) {
    return b->beam && b->elements >= 1 && b->elements <= LINK_ELEMENTS_DRAWN;
}

#define NOMEM() kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory")

kd_status anim_spatial_init(anim_spatial* a, kd_anim_recorder* rec, const kd_desc* d, const kd_smech* m,
                            kd_error* err) {
    memset(a, 0, sizeof(*a));
    if (!rec || !d->sdesc) return KD_OK;
    const kd_sdesc* s = d->sdesc;
    a->pose = malloc(sizeof(double) * 12 * (size_t)(s->nbodies ? s->nbodies : 1));
    if (!a->pose) return NOMEM();
    a->rec = rec, a->d = d, a->m = m;
    int links = 0;
    for (int b = 0; b < s->nbodies; b++) links |= link_drawn(&s->bodies[b]);
    if (!links) return KD_OK;
    /* the links' shape points get displacements (the recorder keeps them per instant) */
    kd_anim_shape* shapes = calloc((size_t)s->nbodies, sizeof(*shapes));
    int* np = calloc((size_t)s->nbodies, sizeof(int));
    a->disp_adr = calloc((size_t)s->nbodies + 1, sizeof(int));
    a->desc_body = calloc((size_t)(m->nbody ? m->nbody : 1), sizeof(int));
    a->q = calloc((size_t)(m->n ? m->n : 1), sizeof(double));
    kd_status st = shapes && np && a->disp_adr && a->desc_body && a->q ? KD_OK : NOMEM();
    if (!st) {
        kd_anim_smech_shapes(d, shapes, NULL);
        for (int b = 0, k = 0; b < s->nbodies; b++) {
            np[b] = link_drawn(&s->bodies[b]) ? shapes[b].npoints : 0;
            a->disp_adr[b + 1] = a->disp_adr[b] + np[b];
            if (!s->bodies[b].ground && k < m->nbody) a->desc_body[k++] = b;
        }
        a->disp = calloc(3 * (size_t)a->disp_adr[s->nbodies], sizeof(double));
        st = a->disp ? kd_anim_recorder_pose_points(rec, np, err) : NOMEM();
    }
    free(shapes);
    free(np);
    if (st) anim_spatial_free(a);
    return st;
}

void anim_spatial_offer(anim_spatial* a, double t, const double* q) {
    if (!a || !a->rec || !kd_anim_recorder_due(a->rec, t)) return;
    anim_spatial_pose(a->d, a->m, q, a->pose);
    kd_anim_record_pose(a->rec, t, a->pose, NULL);
}

void anim_spatial_free(anim_spatial* a) {
    if (!a) return;
    free(a->pose), free(a->disp), free(a->disp_adr), free(a->desc_body), free(a->q);
    memset(a, 0, sizeof(*a));
}

/* The rigid solution at t: cubic Hermite through the samples bracketing t (exact at them). */
static void rigid_at(anim_spatial* a, const kd_sked_rigid* r, double t) {
    const int n = r->n;
    if (r->nsamples < 2) {
        memcpy(a->q, r->q, sizeof(double) * (size_t)n);
        return;
    }
    int i = a->cursor < r->nsamples - 1 && r->t[a->cursor] <= t ? a->cursor : 0;
    while (i + 2 < r->nsamples && r->t[i + 1] <= t) i++;
    a->cursor = i;
    const double h = r->t[i + 1] - r->t[i];
    const double u = h > 0 ? fmin(fmax((t - r->t[i]) / h, 0.0), 1.0) : 0.0;
    const double h00 = (1 + 2 * u) * (1 - u) * (1 - u), h10 = u * (1 - u) * (1 - u);
    const double h01 = u * u * (3 - 2 * u), h11 = u * u * (u - 1);
    const double *q0 = r->q + (size_t)i * n, *q1 = q0 + n;
    const double *v0 = r->qd + (size_t)i * n, *v1 = v0 + n;
    for (int c = 0; c < n; c++) a->q[c] = h00 * q0[c] + h10 * h * v0[c] + h01 * q1[c] + h11 * h * v1[c];
}

void anim_spatial_link(anim_spatial* a, double t, int body, const double* u6, int nnode, const kd_sked_rigid* r) {
    if (!a || !a->rec || !a->disp || !kd_anim_recorder_due(a->rec, t)) return;
    if (body >= 0 && body < a->m->nbody) {
        const int b = a->desc_body[body];
        const int np = a->disp_adr[b + 1] - a->disp_adr[b];
        double* d = a->disp + 3 * (size_t)a->disp_adr[b];
        for (int n = 0; n < nnode && n < np; n++)  /* shape point n = node n + 1 */
            for (int c = 0; c < 3; c++) d[3 * n + c] = u6[6 * n + c];
    }
    if (!r) return;
    rigid_at(a, r, t);
    anim_spatial_pose(a->d, a->m, a->q, a->pose);
    kd_anim_record_pose(a->rec, t, a->pose, a->disp);
}

/* ---- shapes ---------------------------------------------------------------- */

/* Index of the point x in s, added when new; -1 when s is full. */
static int add_point(kd_anim_shape* s, const double x[3], int merge) {
    for (int i = 0; merge && i < s->npoints; i++)
        if (fabs(s->point[i][0] - x[0]) <= 1e-12 && fabs(s->point[i][1] - x[1]) <= 1e-12 &&
            fabs(s->point[i][2] - x[2]) <= 1e-12)
            return i;
    if (s->npoints >= KD_ANIM_SHAPE_POINTS) return -1;
    memcpy(s->point[s->npoints], x, 3 * sizeof(double));
    return s->npoints++;
}

static void add_path(kd_anim_shape* s, const int* idx, int n) {
    const int at = s->path_start[s->npaths];
    if (s->npaths >= KD_ANIM_SHAPE_PATHS || at + n > 2 * KD_ANIM_SHAPE_POINTS) return;
    for (int i = 0; i < n; i++)
        if (idx[i] < 0) return;
    memcpy(s->path_index + at, idx, sizeof(int) * (size_t)n);
    s->path_start[++s->npaths] = at + n;
}

static void add_mark(int* marks, int* n, int idx) {
    if (idx < 0) return;
    for (int i = 0; i < *n; i++)
        if (marks[i] == idx) return;
    if (*n < KD_ANIM_SHAPE_MARKS) marks[(*n)++] = idx;
}

/* A ring of radius r about c, perpendicular to the unit vector u (16 sides, closed by
 * repeating its first point); returns the index of its first point. */
static int add_ring(kd_anim_shape* s, const double c[3], const double u[3], double r) {
    /* e1, e2: an orthonormal pair perpendicular to u */
    const double a[3] = {fabs(u[0]) < 0.9 ? 1.0 : 0.0, fabs(u[0]) < 0.9 ? 0.0 : 1.0, 0.0};
    double e1[3] = {a[1] * u[2] - a[2] * u[1], a[2] * u[0] - a[0] * u[2], a[0] * u[1] - a[1] * u[0]};
    const double n1 = sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
    for (int k = 0; k < 3; k++) e1[k] /= n1;
    const double e2[3] = {u[1] * e1[2] - u[2] * e1[1], u[2] * e1[0] - u[0] * e1[2], u[0] * e1[1] - u[1] * e1[0]};
    int idx[17];
    for (int k = 0; k < 16; k++) {
        const double t = 2 * 3.14159265358979323846 * k / 16, ct = cos(t), st = sin(t);
        const double x[3] = {c[0] + r * (ct * e1[0] + st * e2[0]), c[1] + r * (ct * e1[1] + st * e2[1]),
                             c[2] + r * (ct * e1[2] + st * e2[2])};
        idx[k] = add_point(s, x, 0);
    }
    idx[16] = idx[0];
    add_path(s, idx, 17);
    return idx[0];
}

int kd_anim_smech_shapes(const kd_desc* d, kd_anim_shape* shapes, int* rods) {
    const kd_sdesc* sd = d->sdesc;
    int nrods = 0;
    for (int b = 0; b < sd->nbodies; b++) {
        kd_anim_shape* s = &shapes[b];
        memset(s, 0, sizeof(*s));
        const kd_sbody_desc* bd = &sd->bodies[b];
        if (!bd->ground) {
            if (link_drawn(bd)) {  /* an elastic link: its nodes along the body's x axis, in order */
                int idx[LINK_ELEMENTS_DRAWN + 1];
                for (int i = 0; i <= bd->elements; i++) {
                    const double x[3] = {bd->p1[0] + bd->length * i / bd->elements, bd->p1[1], bd->p1[2]};
                    idx[i] = add_point(s, x, 0);
                }
                add_path(s, idx, bd->elements + 1);
            }
            const int n0 = s->npoints;
            for (int p = 0; p < bd->npoints; p++) add_point(s, bd->points[p].x, 1);
            const int n = s->npoints;
            if (n == 2) {  /* (a link, n0 > 0, has its path through the nodes) */
                const int idx[2] = {0, 1};
                add_path(s, idx, 2);
            } else if (n == 3 || n == 4) {  /* every pair: a triangle, a tetrahedron's edges */
                for (int i = 0; i < n; i++)
                    for (int j = i + 1; j < n; j++) {
                        const int idx[2] = {i, j};
                        add_path(s, idx, 2);
                    }
            } else if (n > 4 && n0 == 0) {
                int idx[KD_POINTS_MAX + 1];
                for (int i = 0; i < n; i++) idx[i] = i;
                idx[n] = 0;
                add_path(s, idx, n + 1);
            } else if (n0 == 0) {  /* one point or none: a bar to the centre of mass and a ring about it */
                const int ic = add_point(s, bd->com, 0);
                double u[3] = {0, 0, 1}, len = 0;
                if (n == 1) {
                    for (int k = 0; k < 3; k++) u[k] = bd->com[k] - s->point[0][k], len += u[k] * u[k];
                    len = sqrt(len);
                }
                if (len > 0) {
                    for (int k = 0; k < 3; k++) u[k] /= len;
                    const int idx[2] = {0, ic};
                    add_path(s, idx, 2);
                } else {
                    u[0] = 0, u[1] = 0, u[2] = 1;
                }
                /* with a spoke from the centre of mass: the spin shows */
                const int spoke[2] = {ic, add_ring(s, bd->com, u, len > 0 ? 0.5 * len : 0.05)};
                add_path(s, spoke, 2);
                if (n == 0) add_mark(s->joint, &s->njoints, ic);
            }
            /* named points where no joint is: their paths are drawn */
            for (int p = 0; p < bd->npoints; p++) {
                int used = 0;
                for (int j = 0; j < sd->njoints && !used; j++)
                    for (int k = 0; k < 2; k++) used |= sd->joints[j].body[k] == b && sd->joints[j].point[k] == p;
                if (!used) add_mark(s->trace, &s->ntrace, add_point(s, bd->points[p].x, 1));
            }
        }
        /* joints of the body: dots; the ground's hatched */
        for (int j = 0; j < sd->njoints; j++)
            for (int k = 0; k < 2; k++) {
                if (sd->joints[j].body[k] != b || sd->joints[j].point[k] < 0) continue;
                const int idx = add_point(s, bd->points[sd->joints[j].point[k]].x, 1);
                add_mark(s->joint, &s->njoints, idx);
                if (bd->ground) add_mark(s->hatch, &s->nhatch, idx);
            }
    }
    /* the rods of distance joints, between the two bodies' joint points */
    for (int j = 0; j < sd->njoints; j++) {
        const kd_sjoint_desc* jd = &sd->joints[j];
        if (jd->type != KD_SJOINT_DISTANCE || jd->point[0] < 0 || jd->point[1] < 0) continue;
        if (rods) {
            int* r = rods + 4 * nrods;
            for (int k = 0; k < 2; k++)
                r[2 * k] = jd->body[k],
                r[2 * k + 1] = add_point(&shapes[jd->body[k]], sd->bodies[jd->body[k]].points[jd->point[k]].x, 1);
        }
        nrods++;
    }
    return nrods;
}
