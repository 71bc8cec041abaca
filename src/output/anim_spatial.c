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
    return (b->beam && b->elements >= 1 && b->elements <= LINK_ELEMENTS_DRAWN) ||
           (b->plate && b->shell && b->shell->mesh.nnodes > 0 && b->shell->mesh.nelems > 0);
}

/* The mesh node (0-based) whose displacement shape point x of body b takes: a beam link's point
 * n < elements + 1 is node n; a plate link's point is the mesh node at it (a joint is at a node);
 * -1 otherwise (drawn rigid with its body). */
static int point_node(const kd_sbody_desc* b, int p, const double x[3]) {
    if (b->beam) return p <= b->elements ? p : -1;
    return kd_splate_node_at(b->shell, x) - 1;
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
        const size_t npts = (size_t)a->disp_adr[s->nbodies];
        a->disp = calloc(3 * npts, sizeof(double));
        a->node = malloc(sizeof(int) * (npts ? npts : 1));
        st = a->disp && a->node ? kd_anim_recorder_pose_points(rec, np, err) : NOMEM();
        for (int b = 0; b < s->nbodies && !st; b++)
            for (int p = 0; p < np[b]; p++)
                a->node[a->disp_adr[b] + p] = point_node(&s->bodies[b], p, shapes[b].point[p]);
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
    free(a->pose), free(a->disp), free(a->node), free(a->disp_adr), free(a->desc_body), free(a->q);
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
        const int* node = a->node + a->disp_adr[b];
        for (int p = 0; p < np; p++)  /* shape point p takes node node[p]'s u, v, w */
            for (int c = 0; c < 3; c++) d[3 * p + c] = node[p] >= 0 && node[p] < nnode ? u6[6 * node[p] + c] : 0.0;
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

/* ---- plate links: the mesh ----------------------------------------------------
 * Bounded to the shape's capacity: at most KD_ANIM_SHAPE_POINTS less the body's named points are
 * mesh nodes (each drawn with its own displacement). A rectangle mesh is drawn as the lines of a
 * lattice of its cell corners, every cell's edges when they fit, else every k-th line with the
 * outline (a coarse grid: straight chords between the lattice's nodes); all rows are one path
 * (back and forth, up the sides) and all columns another. A mesh from a file is drawn as its
 * elements' corner edges chained into paths when its corners fit, else as its outline (the edges
 * of one element) through every k-th node. */

/* The shape point of mesh node n (body frame), added when new; -1 when full. */
static int mesh_point(kd_anim_shape* s, const kd_mesh_desc* g, int* pt, int n) {
    if (pt[n] < 0) pt[n] = add_point(s, g->node_x + 3 * (size_t)n, 0);
    return pt[n];
}

/* The nodes (1-based) of the rectangle mesh of p at the points of a kx x ky lattice of its cell
 * corners, row by row; 0 when a lattice point is at no node. */
static int rect_lattice(const kd_body_desc* p, int kx, int ky, int* node) {
    const kd_mesh_desc* g = &p->mesh;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int n = 0; n < g->nnodes; n++)
        for (int c = 0; c < 3; c++)
            lo[c] = fmin(lo[c], g->node_x[3 * n + c]), hi[c] = fmax(hi[c], g->node_x[3 * n + c]);
    const int nx = g->divisions[0], ny = g->divisions[1];
    for (int j = 0; j < ky; j++)
        for (int i = 0; i < kx; i++) {
            /* cell corner (ci, cj), evenly spread over the cells */
            const int ci = (int)lround((double)i * nx / (kx - 1)), cj = (int)lround((double)j * ny / (ky - 1));
            const double x[3] = {lo[0] + (hi[0] - lo[0]) * ci / nx, lo[1] + (hi[1] - lo[1]) * cj / ny, lo[2]};
            if (!(node[j * kx + i] = kd_splate_node_at(p, x))) return 0;
        }
    return 1;
}

static int cmp_edge(const void* a, const void* b) {
    const int *x = a, *y = b;
    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* The edges e (pairs) chained into paths of shape points: from a node of odd degree when there is
 * one, along unused edges while there are. keep > 1: only every keep-th node of a path (and its
 * last) is drawn. 0 when they did not all fit in s (or out of memory). */
static int chain_edges(kd_anim_shape* s, const kd_mesh_desc* g, int* pt, int* e, int ne, int keep) {
    int ok = 0;
    const int nn = g->nnodes;
    int* deg = calloc((size_t)nn + 1, sizeof(int));
    int* adj = malloc(sizeof(int) * 2 * (size_t)(ne ? ne : 1));
    unsigned char* used = calloc((size_t)ne + 1, 1);
    int* idx = malloc(sizeof(int) * ((size_t)ne + 2));
    if (!deg || !adj || !used || !idx) goto done;
    for (int k = 0; k < ne; k++) deg[e[2 * k] + 1]++, deg[e[2 * k + 1] + 1]++;
    for (int n = 0; n < nn; n++) deg[n + 1] += deg[n];  /* deg[n]: first of node n's edges in adj */
    int* fill = calloc((size_t)nn, sizeof(int));
    if (!fill) goto done;
    for (int k = 0; k < ne; k++)
        for (int c = 0; c < 2; c++) adj[deg[e[2 * k + c]] + fill[e[2 * k + c]]++] = k;
    free(fill);
    for (int pass = 0; pass < 2; pass++)  /* odd-degree starts first: fewer paths */
        for (int n0 = 0; n0 < nn; n0++) {
            if (pass == 0 && (deg[n0 + 1] - deg[n0]) % 2 == 0) continue;
            int n = n0, len = 0, walked = 0, free_edges = 0;
            for (int a = deg[n0]; a < deg[n0 + 1]; a++) free_edges += !used[adj[a]];
            if (!free_edges) continue;
            for (;;) {
                int k = -1;
                for (int a = deg[n]; a < deg[n + 1] && k < 0; a++)
                    if (!used[adj[a]]) k = adj[a];
                if (walked % keep == 0 || k < 0) {
                    const int ip = mesh_point(s, g, pt, n);
                    if (ip < 0) goto done;
                    idx[len++] = ip;
                }
                if (k < 0) break;
                used[k] = 1, walked++;
                n = e[2 * k] == n ? e[2 * k + 1] : e[2 * k];
            }
            if (len >= 2) {
                const int np = s->npaths;
                add_path(s, idx, len);
                if (s->npaths == np) goto done;  /* no room */
            }
            for (int a = deg[n0]; a < deg[n0 + 1]; a++)
                if (!used[adj[a]]) {  /* edges left at n0: walk again from it */
                    n0--;
                    break;
                }
        }
    ok = 1;
done:
    free(deg), free(adj), free(used), free(idx);
    return ok;
}

static void plate_shape(kd_anim_shape* s, const kd_sbody_desc* bd) {
    const kd_body_desc* p = bd->shell;
    const kd_mesh_desc* g = &p->mesh;
    const int budget = KD_ANIM_SHAPE_POINTS - bd->npoints;
    int* pt = malloc(sizeof(int) * (size_t)g->nnodes);
    if (!pt || budget < 4) {
        free(pt);
        return;
    }
    for (int n = 0; n < g->nnodes; n++) pt[n] = -1;
    if (g->source == KD_MESH_RECTANGLE && g->divisions[0] >= 1 && g->divisions[1] >= 1) {
        int kx = g->divisions[0] + 1, ky = g->divisions[1] + 1;
        while (kx * ky > budget) {  /* the coarse grid: fewer lines along the side with more */
            if ((kx - 1) * g->size[1] >= (ky - 1) * g->size[0] && kx > 2) kx--;
            else ky--;  /* (budget >= 4: never below 2 x 2) */
        }
        int lat[KD_ANIM_SHAPE_POINTS], idx[KD_ANIM_SHAPE_POINTS];
        if (kx >= 2 && rect_lattice(p, kx, ky, lat)) {
            for (int i = 0; i < kx * ky; i++) lat[i] = mesh_point(s, g, pt, lat[i] - 1);
            for (int j = 0, k = 0; j < ky; j++)  /* the rows, back and forth */
                for (int i = 0; i < kx; i++) idx[k++] = lat[j * kx + (j % 2 ? kx - 1 - i : i)];
            add_path(s, idx, kx * ky);
            for (int i = 0, k = 0; i < kx; i++)  /* the columns */
                for (int j = 0; j < ky; j++) idx[k++] = lat[(i % 2 ? ky - 1 - j : j) * kx + i];
            add_path(s, idx, kx * ky);
            free(pt);
            return;
        }
    }
    /* the elements' corner edges (counter-clockwise corners first), each once; count: how many
     * elements share it */
    const int nc = g->elem_nnode == 3 || g->elem_nnode == 6 ? 3 : 4;
    int* e = malloc(sizeof(int) * 2 * (size_t)g->nelems * nc);
    int* cnt = malloc(sizeof(int) * (size_t)g->nelems * nc);
    if (e && cnt) {
        int ne = 0, corners = 0;
        for (int el = 0; el < g->nelems; el++)
            for (int c = 0; c < nc; c++) {
                const int* en = g->elem + (size_t)el * g->elem_nnode;
                const int a = en[c], b = en[(c + 1) % nc];
                e[2 * ne] = a < b ? a : b, e[2 * ne + 1] = a < b ? b : a, ne++;
                if (pt[a] == -1) pt[a] = -2, corners++;
            }
        for (int n = 0; n < g->nnodes; n++) pt[n] = -1;
        qsort(e, (size_t)ne, 2 * sizeof(int), cmp_edge);
        int nu = 0;
        for (int k = 0; k < ne; k++) {
            if (nu && e[2 * nu - 2] == e[2 * k] && e[2 * nu - 1] == e[2 * k + 1]) {
                cnt[nu - 1]++;
                continue;
            }
            e[2 * nu] = e[2 * k], e[2 * nu + 1] = e[2 * k + 1], cnt[nu++] = 1;
        }
        if (corners > budget || !chain_edges(s, g, pt, e, nu, 1)) {  /* the outline: the edges of one element */
            memset(s, 0, sizeof(*s));
            for (int n = 0; n < g->nnodes; n++) pt[n] = -1;
            int nb = 0;
            for (int k = 0; k < nu; k++)
                if (cnt[k] == 1) e[2 * nb] = e[2 * k], e[2 * nb + 1] = e[2 * k + 1], nb++;
            chain_edges(s, g, pt, e, nb, (nb + budget - 1) / (budget > 1 ? budget - 1 : 1));
        }
    }
    free(e), free(cnt), free(pt);
}

int kd_anim_smech_shapes(const kd_desc* d, kd_anim_shape* shapes, int* rods) {
    const kd_sdesc* sd = d->sdesc;
    int nrods = 0;
    for (int b = 0; b < sd->nbodies; b++) {
        kd_anim_shape* s = &shapes[b];
        memset(s, 0, sizeof(*s));
        const kd_sbody_desc* bd = &sd->bodies[b];
        if (!bd->ground) {
            if (link_drawn(bd) && bd->plate) {
                plate_shape(s, bd);  /* a plate link: its mesh, points and paths */
            } else if (link_drawn(bd)) {  /* an elastic link: its nodes along the body's x axis, in order */
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
            if (bd->plate && n0 > 0) {
                /* a plate's named points are marks on its mesh */
            } else if (n == 2) {  /* (a link, n0 > 0, has its path through the nodes) */
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
