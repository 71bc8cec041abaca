/* Meshes of plates (kedyn/desc.h): the structured rectangle mesher, node
 * sets by coordinate predicate, the element orientation check and the
 * reverse Cuthill-McKee node order that keeps band matrices narrow. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "kedyn/desc.h"

void kd_mesh_clear(kd_mesh_desc* m) {
    free(m->node_x);
    free(m->node_tag);
    free(m->elem);
    free(m->elem_line);
    m->node_x = NULL;
    m->node_tag = m->elem = m->elem_line = NULL;
    m->nnodes = m->nelems = 0;
}

kd_node_set_desc* kd_body_add_node_set(kd_body_desc* b) {
    kd_node_set_desc* p = realloc(b->node_sets, sizeof(*p) * (size_t)(b->nnode_sets + 1));
    if (!p) return NULL;
    b->node_sets = p;
    memset(&p[b->nnode_sets], 0, sizeof(*p));
    return &p[b->nnode_sets++];
}

int kd_body_find_node_set(const kd_body_desc* b, const char* name) {
    for (int i = 0; i < b->nnode_sets; i++)
        if (strcmp(b->node_sets[i].name, name) == 0) return i;
    return -1;
}

int kd_mesh_find_tag(const kd_mesh_desc* m, int tag) {
    if (tag >= 1 && tag <= m->nnodes && m->node_tag[tag - 1] == tag) return tag - 1;  /* tags 1..n in order */
    for (int i = 0; i < m->nnodes; i++)
        if (m->node_tag[i] == tag) return i;
    return -1;
}

/* The structured mesh of an a x b rectangle into nx x ny cells of
 * elements with elem_nnode nodes: 4 (bilinear), 8 (serendipity), 9
 * (Lagrange) quadrilaterals, or 3, 6 node triangles (each cell cut along
 * its diagonal from (0, 0) to (1, 1)). The grid of corner and mid-side
 * points is numbered along the shorter side first, so the bandwidth is
 * about that side's node count times the DOFs per node. */
kd_status kd_mesh_rectangle(kd_mesh_desc* m, int elem_nnode) {
    const int p = (elem_nnode == 6 || elem_nnode == 8 || elem_nnode == 9) ? 2 : 1;
    const int nx = m->divisions[0], ny = m->divisions[1];
    if (nx < 1 || ny < 1 || !(elem_nnode == 3 || elem_nnode == 4 || elem_nnode == 6 || elem_nnode == 8 || elem_nnode == 9))
        return KD_ERR_USAGE;
    const int na = p * nx + 1, nb = p * ny + 1;
    const int tri = elem_nnode == 3 || elem_nnode == 6;
    int* id = malloc(sizeof(int) * (size_t)na * (size_t)nb);
    if (!id) return KD_ERR_NOMEM;
    /* grid point (i, j) -> node; the serendipity element has no cell centres */
    const int y_fast = nb <= na;
    int n = 0;
    for (int s = 0; s < (y_fast ? na : nb); s++)
        for (int f = 0; f < (y_fast ? nb : na); f++) {
            const int i = y_fast ? s : f, j = y_fast ? f : s;
            const int centre = elem_nnode == 8 && i % 2 == 1 && j % 2 == 1;
            id[i * nb + j] = centre ? -1 : n++;
        }
    kd_mesh_clear(m);
    m->nnodes = n;
    m->elem_nnode = elem_nnode;
    m->nelems = nx * ny * (tri ? 2 : 1);
    m->node_x = malloc(sizeof(double) * 3 * (size_t)n);
    m->node_tag = malloc(sizeof(int) * (size_t)n);
    m->elem = malloc(sizeof(int) * (size_t)m->nelems * (size_t)elem_nnode);
    if (!m->node_x || !m->node_tag || !m->elem) {
        free(id);
        kd_mesh_clear(m);
        return KD_ERR_NOMEM;
    }
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++) {
            const int k = id[i * nb + j];
            if (k < 0) continue;
            m->node_x[3 * k] = m->size[0] * i / (na - 1);
            m->node_x[3 * k + 1] = m->size[1] * j / (nb - 1);
            m->node_x[3 * k + 2] = 0.0;
            m->node_tag[k] = k + 1;
        }
#define AT(di, dj) id[(pi + (di)) * nb + pj + (dj)]
    int* e = m->elem;
    for (int ci = 0; ci < nx; ci++)
        for (int cj = 0; cj < ny; cj++) {
            const int pi = p * ci, pj = p * cj;
            if (!tri) {
                const int c[9] = {AT(0, 0), AT(p, 0), AT(p, p), AT(0, p),
                                  p == 2 ? AT(1, 0) : 0, p == 2 ? AT(2, 1) : 0, p == 2 ? AT(1, 2) : 0,
                                  p == 2 ? AT(0, 1) : 0, p == 2 ? AT(1, 1) : 0};
                memcpy(e, c, sizeof(int) * (size_t)elem_nnode);
                e += elem_nnode;
            } else {
                const int t1[6] = {AT(0, 0), AT(p, 0), AT(p, p), p == 2 ? AT(1, 0) : 0, p == 2 ? AT(2, 1) : 0,
                                   p == 2 ? AT(1, 1) : 0};
                const int t2[6] = {AT(0, 0), AT(p, p), AT(0, p), p == 2 ? AT(1, 1) : 0, p == 2 ? AT(1, 2) : 0,
                                   p == 2 ? AT(0, 1) : 0};
                memcpy(e, t1, sizeof(int) * (size_t)elem_nnode);
                e += elem_nnode;
                memcpy(e, t2, sizeof(int) * (size_t)elem_nnode);
                e += elem_nnode;
            }
        }
#undef AT
    free(id);
    return KD_OK;
}

/* Corners of an element: 3 for triangles, 4 for quadrilaterals. */
static int corners(int elem_nnode) { return (elem_nnode == 3 || elem_nnode == 6) ? 3 : 4; }

int kd_mesh_check_elements(const kd_mesh_desc* m) {
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (int i = 0; i < m->nnodes; i++)
        for (int k = 0; k < 2; k++) lo[k] = fmin(lo[k], m->node_x[3 * i + k]), hi[k] = fmax(hi[k], m->node_x[3 * i + k]);
    const double size = fmax(hi[0] - lo[0], hi[1] - lo[1]);
    const int nc = corners(m->elem_nnode);
    /* a shell's mesh off the plane z = 0: det J at each corner along the element's own normal
     * (the diagonals' cross product; a triangle's edges), positive for a convex element */
    int spatial = 0;
    for (int i = 0; i < m->nnodes; i++) spatial |= m->node_x[3 * i + 2] != 0.0;
    const double size3 = spatial ? kd_mesh_size(m) : 0.0;
    for (int e = 0; e < m->nelems && spatial; e++) {
        const int* c = m->elem + (size_t)e * m->elem_nnode;
        double a[3], b[3], n[3];
        const double* p0 = &m->node_x[3 * c[0]];
        for (int k = 0; k < 3; k++) {
            a[k] = m->node_x[3 * c[nc == 4 ? 2 : 1] + k] - p0[k];
            b[k] = m->node_x[3 * c[nc == 4 ? 3 : 2] + k] - m->node_x[3 * c[nc == 4 ? 1 : 0] + k];
        }
        util_cross3(n, a, b);
        for (int k = 0; k < nc; k++) {
            const double* x0 = &m->node_x[3 * c[k]];
            const double* x1 = &m->node_x[3 * c[(k + 1) % nc]];
            const double* x2 = &m->node_x[3 * c[(k + nc - 1) % nc]];
            double e1[3], e2[3], j[3];
            for (int i = 0; i < 3; i++) e1[i] = x1[i] - x0[i], e2[i] = x2[i] - x0[i];
            util_cross3(j, e1, e2);
            if (!(util_dot3(j, n) > 1e-12 * size3 * size3 * sqrt(util_dot3(n, n)))) return e;
        }
    }
    for (int e = 0; e < m->nelems && !spatial; e++) {
        const int* c = m->elem + (size_t)e * m->elem_nnode;
        /* det J at each corner: the cross product of its two edges (theory.md: x_xi x x_eta) */
        for (int k = 0; k < nc; k++) {
            const double* x0 = &m->node_x[3 * c[k]];
            const double* x1 = &m->node_x[3 * c[(k + 1) % nc]];
            const double* x2 = &m->node_x[3 * c[(k + nc - 1) % nc]];
            const double det = (x1[0] - x0[0]) * (x2[1] - x0[1]) - (x1[1] - x0[1]) * (x2[0] - x0[0]);
            if (!(det > 1e-12 * size * size)) return e;
        }
    }
    return -1;
}

double kd_mesh_size(const kd_mesh_desc* m) {
    double s = 0;
    for (int k = 0; k < 3; k++) {
        double lo = INFINITY, hi = -INFINITY;
        for (int i = 0; i < m->nnodes; i++) lo = fmin(lo, m->node_x[3 * i + k]), hi = fmax(hi, m->node_x[3 * i + k]);
        if (m->nnodes) s = fmax(s, hi - lo);
    }
    return s;
}

kd_status kd_node_set_select(const kd_mesh_desc* m, kd_node_set_desc* s) {
    if (!s->axes) return KD_OK;  /* an explicit list */
    const double tol = s->tol > 0 ? s->tol : 1e-6 * kd_mesh_size(m);
    free(s->nodes);
    s->nnodes = 0;
    s->nodes = malloc(sizeof(int) * (size_t)(m->nnodes ? m->nnodes : 1));
    if (!s->nodes) return KD_ERR_NOMEM;
    for (int i = 0; i < m->nnodes; i++) {
        int in = 1;
        for (int k = 0; k < 3; k++)
            if (s->axes & (1u << k)) in &= m->node_x[3 * i + k] >= s->lo[k] - tol && m->node_x[3 * i + k] <= s->hi[k] + tol;
        if (in) s->nodes[s->nnodes++] = i + 1;
    }
    return KD_OK;
}

/* The node band of an order (perm: old -> new): the largest difference of
 * node numbers within an element. */
static int node_band(const kd_mesh_desc* m, const int* perm) {
    int band = 0;
    for (int e = 0; e < m->nelems; e++) {
        int lo = m->nnodes, hi = -1;
        for (int a = 0; a < m->elem_nnode; a++) {
            const int k = perm[m->elem[(size_t)e * m->elem_nnode + a]];
            lo = k < lo ? k : lo, hi = k > hi ? k : hi;
        }
        band = hi - lo > band ? hi - lo : band;
    }
    return band;
}

/* Sweep orders: nodes sorted by x (then y) or by y (then x); qsort's comparison reads them, one
 * copy per thread (models compiled at once by the cases of a parallel study). */
static _Thread_local const double* sweep_x;
static _Thread_local int sweep_axis;
static int by_coordinate(const void* a, const void* b) {
    const double* xa = &sweep_x[3 * *(const int*)a];
    const double* xb = &sweep_x[3 * *(const int*)b];
    const int k = sweep_axis, l = 1 - sweep_axis;
    if (xa[k] != xb[k]) return xa[k] < xb[k] ? -1 : 1;
    if (xa[l] != xb[l]) return xa[l] < xb[l] ? -1 : 1;
    return *(const int*)a - *(const int*)b;
}

/* Reverse Cuthill-McKee: breadth-first from a node of least degree (of each
 * connected part), neighbours by increasing degree, the order reversed; and
 * the sweeps along x and along y (which on a long or rectangular mesh give
 * a band of the nodes across it, where the breadth-first fronts of quadrilateral
 * meshes run diagonally): the order with the smallest band is kept. The node
 * arrays, the connectivity and the explicit node sets of b (NULL: none) are
 * renumbered. */
kd_status kd_mesh_reorder(kd_mesh_desc* m, kd_body_desc* b) {
    const int n = m->nnodes, ne = m->nelems, nn = m->elem_nnode;
    if (n == 0) return KD_OK;
    int* deg = calloc((size_t)n + 1, sizeof(int));
    int* adr = calloc((size_t)n + 1, sizeof(int));
    int* adj = malloc(sizeof(int) * ((size_t)ne * nn * nn + 1));
    int* order = malloc(sizeof(int) * (size_t)n);
    int* perm = malloc(sizeof(int) * (size_t)n);
    int* mark = calloc((size_t)n, sizeof(int));
    double* x = malloc(sizeof(double) * 3 * (size_t)n);
    int* tag = malloc(sizeof(int) * (size_t)n);
    kd_status st = (deg && adr && adj && order && perm && mark && x && tag) ? KD_OK : KD_ERR_NOMEM;
    if (!st) {
        /* adjacency with repeats (element pairs), then each list made unique */
        for (int e = 0; e < ne; e++)
            for (int a = 0; a < nn; a++) adr[m->elem[(size_t)e * nn + a] + 1] += nn - 1;
        for (int i = 0; i < n; i++) adr[i + 1] += adr[i];
        int* fill = deg;  /* reused as fill counters */
        for (int e = 0; e < ne; e++)
            for (int a = 0; a < nn; a++)
                for (int c = 0; c < nn; c++)
                    if (a != c) {
                        const int i = m->elem[(size_t)e * nn + a];
                        adj[adr[i] + fill[i]++] = m->elem[(size_t)e * nn + c];
                    }
        for (int i = 0; i < n; i++) {  /* unique neighbours, counted in deg */
            int cnt = 0;
            for (int k = adr[i]; k < adr[i] + fill[i]; k++) {
                const int j = adj[k];
                if (mark[j] == i + 1) continue;
                mark[j] = i + 1;
                adj[adr[i] + cnt++] = j;
            }
            deg[i] = cnt;
        }
        memset(mark, 0, sizeof(int) * (size_t)n);
        int head = 0, tail = 0;
        while (tail < n) {
            int start = -1;
            for (int i = 0; i < n; i++)
                if (!mark[i] && (start < 0 || deg[i] < deg[start])) start = i;
            mark[start] = 1;
            order[tail++] = start;
            while (head < tail) {
                const int i = order[head++];
                const int first = tail;
                for (int k = adr[i]; k < adr[i] + deg[i]; k++)
                    if (!mark[adj[k]]) mark[adj[k]] = 1, order[tail++] = adj[k];
                for (int a = first + 1; a < tail; a++) {  /* insertion sort by degree */
                    const int v = order[a];
                    int c = a - 1;
                    for (; c >= first && deg[order[c]] > deg[v]; c--) order[c + 1] = order[c];
                    order[c + 1] = v;
                }
            }
        }
        for (int k = 0; k < n; k++) perm[order[n - 1 - k]] = k;  /* old -> new */
        int best = node_band(m, perm);
        sweep_x = m->node_x;
        for (int axis = 0; axis < 2; axis++) {
            for (int i = 0; i < n; i++) order[i] = i;
            sweep_axis = axis;
            qsort(order, (size_t)n, sizeof(int), by_coordinate);
            for (int k = 0; k < n; k++) mark[order[k]] = k;  /* a candidate perm */
            const int band = node_band(m, mark);
            if (band < best) best = band, memcpy(perm, mark, sizeof(int) * (size_t)n);
        }
        for (int i = 0; i < n; i++) {
            memcpy(&x[3 * perm[i]], &m->node_x[3 * i], sizeof(double) * 3);
            tag[perm[i]] = m->node_tag[i];
        }
        memcpy(m->node_x, x, sizeof(double) * 3 * (size_t)n);
        memcpy(m->node_tag, tag, sizeof(int) * (size_t)n);
        for (size_t k = 0; k < (size_t)ne * nn; k++) m->elem[k] = perm[m->elem[k]];
        for (int s = 0; b && s < b->nnode_sets; s++)
            for (int k = 0; k < b->node_sets[s].nnodes; k++) b->node_sets[s].nodes[k] = perm[b->node_sets[s].nodes[k] - 1] + 1;
    }
    free(deg);
    free(adr);
    free(adj);
    free(order);
    free(perm);
    free(mark);
    free(x);
    free(tag);
    return st;
}
