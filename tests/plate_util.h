/* Test-local helpers of the two-dimensional element tests (membrane_test,
 * plate_test, shell_test): structured meshes of a rectangle for every
 * element kind, a dense assembler of k, m and k_g over the family tables
 * (kedyn/element.h), and dense solvers (LAPACK). Independent of the model
 * compiler on purpose: these tests check the elements alone. */
#ifndef KEDYN_TESTS_PLATE_UTIL_H
#define KEDYN_TESTS_PLATE_UTIL_H

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

/* A mesh of a rectangle [0, a] x [0, b] on a (2 nx + 1) x (2 ny + 1) grid of
 * node positions (corners at even indices, mid-sides and centres at odd
 * ones); nodes an element does not use stay unconnected. */
typedef struct mesh2d {
    kd_element_kind kind;
    int nx, ny, gx, gy;           /* elements along x, y; grid points gx = 2 nx + 1, gy */
    int nnode, nen, nelem;
    double* x;                    /* (nnode x 3) */
    int* conn;                    /* (nelem x nen) */
    int nd;                       /* DOFs per node */
    int ndof;                     /* nnode * nd */
    int* used;                    /* (nnode) 1 if an element has the node */
} mesh2d;

static inline int grid_id(const mesh2d* m, int i, int j) { return j * m->gx + i; }

/* Deterministic offsets in [-1, 1] for the distortion of interior nodes. */
static inline double hash_unit(int i, int j, int k) {
    unsigned h = (unsigned)i * 73856093u ^ (unsigned)j * 19349663u ^ (unsigned)k * 83492791u;
    h ^= h >> 13, h *= 0x5bd1e995u, h ^= h >> 15;
    return (double)(h % 20001u) / 10000.0 - 1.0;
}

/* Structured mesh; interior corner nodes moved by up to `distort` times the
 * element size in each direction (0: a regular grid). Mid-side nodes at the
 * middle of straight sides; Q9 centres at the mean of the corners, T6
 * diagonal nodes at the middle of the diagonal 1-3. */
static inline mesh2d mesh_rect(kd_element_kind kind, double a, double b, int nx, int ny, double distort) {
    mesh2d m = {0};
    m.kind = kind;
    m.nx = nx, m.ny = ny, m.gx = 2 * nx + 1, m.gy = 2 * ny + 1;
    m.nnode = m.gx * m.gy;
    m.x = calloc((size_t)m.nnode * 3, sizeof(double));
    m.used = calloc((size_t)m.nnode, sizeof(int));
    const double hx = a / nx, hy = b / ny;
    for (int j = 0; j <= ny; j++)
        for (int i = 0; i <= nx; i++) {
            double* p = m.x + 3 * grid_id(&m, 2 * i, 2 * j);
            p[0] = i * hx, p[1] = j * hy;
            /* rectangles (ACM, BFS): whole grid lines move */
            const int rect = kind.interp == KD_INTERP_ACM || kind.interp == KD_INTERP_BFS;
            if (i > 0 && i < nx) p[0] += distort * hx * hash_unit(i, rect ? 0 : j, 1);
            if (j > 0 && j < ny) p[1] += distort * hy * hash_unit(rect ? 0 : i, j, 2);
        }
    const int tri = kind.interp == KD_INTERP_CST || kind.interp == KD_INTERP_T6 || kind.interp == KD_INTERP_DKT;
    for (int GJ = 0; GJ < m.gy; GJ++)
        for (int GI = 0; GI < m.gx; GI++) {
            if (GI % 2 == 0 && GJ % 2 == 0) continue;
            double* p = m.x + 3 * grid_id(&m, GI, GJ);
            if (GI % 2 && GJ % 2) {
                const double* c1 = m.x + 3 * grid_id(&m, GI - 1, GJ - 1);
                const double* c2 = m.x + 3 * grid_id(&m, GI + 1, GJ - 1);
                const double* c3 = m.x + 3 * grid_id(&m, GI + 1, GJ + 1);
                const double* c4 = m.x + 3 * grid_id(&m, GI - 1, GJ + 1);
                for (int k = 0; k < 2; k++) p[k] = tri ? 0.5 * (c1[k] + c3[k]) : 0.25 * (c1[k] + c2[k] + c3[k] + c4[k]);
            } else {
                const double* c1 = m.x + 3 * grid_id(&m, GI % 2 ? GI - 1 : GI, GJ % 2 ? GJ - 1 : GJ);
                const double* c2 = m.x + 3 * grid_id(&m, GI % 2 ? GI + 1 : GI, GJ % 2 ? GJ + 1 : GJ);
                for (int k = 0; k < 2; k++) p[k] = 0.5 * (c1[k] + c2[k]);
            }
        }
    const kd_element_family* fam = kd_element_family_of(kind);
    m.nen = fam->nnode;
    m.nelem = tri ? 2 * nx * ny : nx * ny;
    m.conn = malloc(sizeof(int) * (size_t)m.nelem * (size_t)m.nen);
    int e = 0;
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            const int GI = 2 * i, GJ = 2 * j;
            const int c1 = grid_id(&m, GI, GJ), c2 = grid_id(&m, GI + 2, GJ), c3 = grid_id(&m, GI + 2, GJ + 2),
                      c4 = grid_id(&m, GI, GJ + 2);
            const int m12 = grid_id(&m, GI + 1, GJ), m23 = grid_id(&m, GI + 2, GJ + 1), m34 = grid_id(&m, GI + 1, GJ + 2),
                      m41 = grid_id(&m, GI, GJ + 1), mc = grid_id(&m, GI + 1, GJ + 1);
            int* c = m.conn + (size_t)e * m.nen;
            if (tri) {
                const int t1[6] = {c1, c2, c3, m12, m23, mc}, t2[6] = {c1, c3, c4, mc, m34, m41};
                memcpy(c, t1, sizeof(int) * (size_t)m.nen);
                memcpy(c + m.nen, t2, sizeof(int) * (size_t)m.nen);
                e += 2;
            } else {
                const int q[9] = {c1, c2, c3, c4, m12, m23, m34, m41, mc};
                memcpy(c, q, sizeof(int) * (size_t)m.nen);
                e += 1;
            }
        }
    for (int k = 0; k < m.nelem * m.nen; k++) m.used[m.conn[k]] = 1;
    kd_dof_name dofs[KD_NODE_DOF_MAX];
    m.nd = kd_element_node_dofs(kind, dofs);
    m.ndof = m.nnode * m.nd;
    return m;
}

static inline void mesh_free(mesh2d* m) {
    free(m->x), free(m->conn), free(m->used);
    memset(m, 0, sizeof(*m));
}

/* Local index of a DOF name at the mesh's nodes, -1 if absent. */
static inline int mesh_dof(const mesh2d* m, kd_dof_name name) {
    kd_dof_name dofs[KD_NODE_DOF_MAX];
    const int n = kd_element_node_dofs(m->kind, dofs);
    for (int k = 0; k < n; k++)
        if (dofs[k] == name) return k;
    return -1;
}

/* Element props of element e (coordinates from its node 1); status. */
static inline kd_status mesh_props(const mesh2d* m, const kd_element_consts* c, int e, kd_element_props* p) {
    double x[KD_ELEM_NODE_MAX][3];
    const int* cn = m->conn + (size_t)e * m->nen;
    for (int a = 0; a < m->nen; a++)
        for (int k = 0; k < 3; k++) x[a][k] = m->x[3 * cn[a] + k] - m->x[3 * cn[0] + k];
    kd_element_props_free(p);
    return kd_element_props_init_nodes(p, m->kind, c, (const double(*)[3])x);
}

/* Dense K, M (ndof x ndof, either may be NULL) and, when S is given (one
 * pre-stress tensor for every quadrature point, KD_GRAD_MAX^2), Kg. Unused
 * nodes get unit diagonals in K and M so the dense systems stay regular. */
static inline void mesh_assemble(const mesh2d* m, const kd_element_consts* c, double* K, double* M, const double* S,
                                 double* Kg) {
    const int n = m->ndof;
    if (K) memset(K, 0, sizeof(double) * (size_t)n * (size_t)n);
    if (M) memset(M, 0, sizeof(double) * (size_t)n * (size_t)n);
    if (Kg) memset(Kg, 0, sizeof(double) * (size_t)n * (size_t)n);
    kd_element_props* p = calloc(1, sizeof(*p));
    double me[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX], kg[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
    double* Sq = NULL;
    for (int e = 0; e < m->nelem; e++) {
        if (mesh_props(m, c, e, p) != KD_OK) fail_msg("element %d: props failed", e);
        const int ne = p->ndof;
        int eq[KD_ELEM_DOF_MAX];
        const int* cn = m->conn + (size_t)e * m->nen;
        for (int a = 0; a < m->nen; a++)
            for (int k = 0; k < m->nd; k++) eq[a * m->nd + k] = cn[a] * m->nd + k;
        kd_element_mass(p, me);
        if (S) {
            const kd_quadrature* q = p->family->quadrature(p);
            Sq = realloc(Sq, sizeof(double) * (size_t)q->n * KD_GRAD_MAX * KD_GRAD_MAX);
            for (int g = 0; g < q->n; g++) memcpy(Sq + (size_t)g * KD_GRAD_MAX * KD_GRAD_MAX, S, sizeof(double) * KD_GRAD_MAX * KD_GRAD_MAX);
            kd_element_geometric_stiffness(p, Sq, kg);
        }
        for (int i = 0; i < ne; i++)
            for (int j = 0; j < ne; j++) {
                const size_t at = (size_t)eq[i] * (size_t)n + (size_t)eq[j];
                if (K) K[at] += p->k[i * ne + j];
                if (M) M[at] += me[i * ne + j];
                if (Kg && S) Kg[at] += kg[i * ne + j];
            }
    }
    for (int a = 0; a < m->nnode; a++)
        if (!m->used[a])
            for (int k = 0; k < m->nd; k++) {
                const size_t d = (size_t)(a * m->nd + k) * (size_t)n + (size_t)(a * m->nd + k);
                if (K) K[d] = 1.0;
                if (M) M[d] = 1.0;
            }
    free(Sq);
    kd_element_props_free(p), free(p);
}

/* Keep the rows and columns with keep[i] (A n x n -> r x r); returns r. */
static inline int reduce(const double* A, int n, const int* keep, double* out) {
    int r = 0;
    for (int i = 0; i < n; i++) r += keep[i] != 0;
    int ii = 0;
    for (int i = 0; i < n; i++) {
        if (!keep[i]) continue;
        int jj = 0;
        for (int j = 0; j < n; j++)
            if (keep[j]) out[(size_t)ii * r + (size_t)jj++] = A[(size_t)i * n + (size_t)j];
        ii++;
    }
    return r;
}

/* Lowest `count` eigenvalues of K x = lambda M x (symmetric, M positive
 * definite), ascending; 0 on success. */
static inline int dense_eigen(double* K, double* M, int n, int count, double* lambda) {
    double* w = malloc(sizeof(double) * (size_t)n);
    const lapack_int info = LAPACKE_dsygv(LAPACK_ROW_MAJOR, 1, 'N', 'U', n, K, n, M, n, w);
    for (int k = 0; k < count && k < n; k++) lambda[k] = w[k];
    free(w);
    return (int)info;
}

/* Solve K x = f for the free DOFs (free[i]) given prescribed values x on the
 * others; f is the load (may be NULL for none). 0 on success. */
static inline int dense_solve_bc(const double* K, int n, const int* free_dof, const double* f, double* x) {
    int r = 0;
    for (int i = 0; i < n; i++) r += free_dof[i] != 0;
    double* A = malloc(sizeof(double) * (size_t)r * (size_t)r);
    double* rhs = malloc(sizeof(double) * (size_t)(r ? r : 1));
    reduce(K, n, free_dof, A);
    int ii = 0;
    for (int i = 0; i < n; i++) {
        if (!free_dof[i]) continue;
        double s = f ? f[i] : 0.0;
        for (int j = 0; j < n; j++)
            if (!free_dof[j]) s -= K[(size_t)i * n + (size_t)j] * x[j];
        rhs[ii++] = s;
    }
    const lapack_int info = r ? LAPACKE_dposv(LAPACK_ROW_MAJOR, 'U', r, 1, A, r, rhs, 1) : 0;
    ii = 0;
    for (int i = 0; i < n; i++)
        if (free_dof[i]) x[i] = rhs[ii++];
    free(A);
    free(rhs);
    return (int)info;
}

/* Eigenvalues by the inverted, shifted problem M x = mu (K - sigma M) x
 * (sigma < 0; M may be singular, e.g. massless drilling rotations), as
 * kedyn's dense solver does; the lowest `count`, ascending; 0 on success. */
static inline int dense_eigen_shift(double* K, double* M, int n, int count, double sigma, double* lambda) {
    for (size_t i = 0; i < (size_t)n * (size_t)n; i++) K[i] -= sigma * M[i];
    double* w = malloc(sizeof(double) * (size_t)n);
    const lapack_int info = LAPACKE_dsygv(LAPACK_ROW_MAJOR, 1, 'N', 'U', n, M, n, K, n, w);
    /* mu descending = lambda ascending; mu = 0 (massless) are infinite */
    for (int k = 0; k < count && k < n; k++) lambda[k] = sigma + 1.0 / w[n - 1 - k];
    free(w);
    return (int)info;
}

/* Which DOFs a boundary condition fixes: 1 to fix DOF `dof` at a node at x. */
typedef int (*fix_fn)(const double x[3], kd_dof_name dof, const void* ctx);

/* The lowest `count` eigenvalues of (K + Kg) x = lambda M x with the DOFs
 * `fix` selects removed (S: a uniform pre-stress, or NULL); shift sigma
 * (0: plain dsygv, M must be regular). 0 on success. */
static inline int mesh_eigen(const mesh2d* m, const kd_element_consts* c, fix_fn fixed, const void* ctx, const double* S,
                             double sigma, int count, double* lambda) {
    const int n = m->ndof;
    double* K = malloc(sizeof(double) * (size_t)n * (size_t)n);
    double* M = malloc(sizeof(double) * (size_t)n * (size_t)n);
    double* Kg = S ? malloc(sizeof(double) * (size_t)n * (size_t)n) : NULL;
    mesh_assemble(m, c, K, M, S, Kg);
    if (Kg)
        for (size_t i = 0; i < (size_t)n * (size_t)n; i++) K[i] += Kg[i];
    kd_dof_name dofs[KD_NODE_DOF_MAX];
    kd_element_node_dofs(m->kind, dofs);
    int* keep = calloc((size_t)n, sizeof(int));
    for (int a = 0; a < m->nnode; a++)
        for (int k = 0; k < m->nd; k++) keep[a * m->nd + k] = m->used[a] && !(fixed && fixed(m->x + 3 * a, dofs[k], ctx));
    double* Kr = malloc(sizeof(double) * (size_t)n * (size_t)n);
    double* Mr = malloc(sizeof(double) * (size_t)n * (size_t)n);
    const int r = reduce(K, n, keep, Kr);
    reduce(M, n, keep, Mr);
    const int info = sigma != 0.0 ? dense_eigen_shift(Kr, Mr, r, count, sigma, lambda)
                                  : dense_eigen(Kr, Mr, r, count, lambda);
    free(K), free(M), free(Kg), free(keep), free(Kr), free(Mr);
    return info;
}

/* Constants of an isotropic plate of thickness t. */
static inline kd_element_consts plate_consts(double E, double nu, double rho, double t) {
    kd_element_consts c = {0};
    c.E = E, c.G = E / (2.0 * (1.0 + nu)), c.rho = rho, c.t = t;
    return c;
}

#endif
