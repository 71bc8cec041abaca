/* Assembly of the global stiffness K (elastic + geometric of the body's axial force at rest) and
 * consistent mass M in band storage (kedyn/model.h); an element with its own axes
 * (kd_model.elem_rot) enters in body DOFs, T^T k T (kedyn/inertia.h). */
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/inertia.h"
#include "kedyn/model.h"
#include "assemble_csc.h"

/* Scatter the upper triangle of a row-major element matrix into the band. */
static void scatter(kd_band* a, const double* ke, const int* eqs, int n) {
    const int ld = a->kd + 1;
    for (int p = 0; p < n; p++) {
        if (eqs[p] < 0) continue;
        for (int q = 0; q < n; q++) {
            const int i = eqs[p], j = eqs[q];
            if (j < 0 || i > j) continue;
            a->ab[a->kd + i - j + (size_t)j * (size_t)ld] += ke[p * n + q];
        }
    }
}

/* k_g = sum_k p_k g_k with the axial force P(xi) = a_x P_a + Omega^2 P_c + preload
 * (theory.md sec. 5). */
int kd_model_elem_geometric(const kd_model* m, int e, double ax, double omega2, double* kg) {
    const kd_body* body = &m->body[m->elem_body[e]];
    const kd_element_props* pr = &m->prop[m->elem_prop[e]];
    if (!body->geometric || pr->ngeo == 0) return 0;  /* e.g. a bar: no transverse slope */
    const double* pc = &m->elem_axial[6 * e];
    const double pk[3] = {ax * pc[0] + omega2 * pc[3] + body->preload, ax * pc[1] + omega2 * pc[4],
                          ax * pc[2] + omega2 * pc[5]};
    const int nn = pr->ndof * pr->ndof;
    for (int i = 0; i < nn; i++) kg[i] = pk[0] * pr->g_k[0][i] + pk[1] * pr->g_k[1][i] + pk[2] * pr->g_k[2][i];
    return 1;
}

/* At rest: beams by their axial force, 2D elements by the pre-stress of gravity stored at
 * compilation (kedyn/model.h; theory.md sec. 14.2). */
int kd_model_elem_rest_geometric(const kd_model* m, int e, double* kg) {
    if (m->rest_adr && m->rest_adr[e] >= 0) {
        kd_element_geometric_stiffness(&m->prop[m->elem_prop[e]], m->rest_S + m->rest_adr[e], kg);
        return 1;
    }
    return kd_model_elem_geometric(m, e, kd_model_rest_axial_acceleration(m, m->elem_body[e]), 0.0, kg);
}

/* A body at rest feels gravity as the frame acceleration a = -R^T g (theory.md sec. 5). */
double kd_model_rest_axial_acceleration(const kd_model* m, int b) {
    const double* R = m->body[b].rot;
    const double* g = m->gravity;
    return -(R[0] * g[0] + R[3] * g[1] + R[6] * g[2]);
}

/* Element e's mass into mo in body DOFs (placed when the element has its own axes), its
 * equations into eqs; returns its DOF count. me holds the unplaced mass of element record
 * *last_prop (recomputed when the record changes). */
static int element_mass(const kd_model* m, int e, double* me, int* last_prop, double* mo, int* eqs) {
    const int n = kd_model_elem_eqs(m, e, eqs);
    const kd_element_props* p = &m->prop[m->elem_prop[e]];
    if (m->elem_prop[e] != *last_prop) {
        kd_element_mass(p, me);
        *last_prop = m->elem_prop[e];
    }
    memcpy(mo, me, sizeof(double) * (size_t)n * (size_t)n);
    kd_element_place at;
    if (m->elem_rot && (kd_model_elem_place(m, e, &at), at.rotated)) kd_element_place_matrix(p, &at, mo);
    return n;
}

/* Element e's stiffness at rest (k + k_g) into ke and mass into mo, both in body DOFs, as
 * element_mass. */
static int element_stiffness_mass(const kd_model* m, int e, double* me, int* last_prop, double* ke, double* mo,
                                  int* eqs) {
    const int n = element_mass(m, e, me, last_prop, mo, eqs);
    const kd_element_props* p = &m->prop[m->elem_prop[e]];
    if (kd_model_elem_rest_geometric(m, e, ke))
        for (int i = 0; i < n * n; i++) ke[i] += p->k[i];
    else
        memcpy(ke, p->k, sizeof(double) * (size_t)n * (size_t)n);
    kd_element_place at;
    if (m->elem_rot && (kd_model_elem_place(m, e, &at), at.rotated)) kd_element_place_matrix(p, &at, ke);
    return n;
}

void kd_assemble_stiffness_mass(const kd_model* m, kd_band* K, kd_band* M) {
    kd_band_zero(K);
    kd_band_zero(M);
    double me[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX], mo[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
    double ke[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
    int last_prop = -1;
    for (int e = 0; e < m->nelem; e++) {
        int eqs[KD_ELEM_DOF_MAX];
        const int n = element_stiffness_mass(m, e, me, &last_prop, ke, mo, eqs);
        scatter(K, ke, eqs, n);
        scatter(M, mo, eqs, n);
    }
}

/* Position of row i in column j of a (rows ascending). */
static int csc_find(const kd_csc* a, int i, int j) {
    int lo = a->p[j], hi = a->p[j + 1] - 1;
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (a->i[mid] < i) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The upper-triangle pattern of the element couplings: column j holds every free equation
 * i <= j that shares an element with j. Counted with repeats, filled, then each column sorted
 * and its repeats dropped. */
static kd_status csc_pattern(const kd_model* m, kd_csc* a) {
    const int n = m->neq;
    a->n = n;
    a->p = calloc((size_t)n + 1, sizeof(int));
    int* mark = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!a->p || !mark) {
        free(mark);
        return KD_ERR_NOMEM;
    }
    long long total = 0;
    for (int e = 0; e < m->nelem; e++) {
        int eqs[KD_ELEM_DOF_MAX];
        const int ne = kd_model_elem_eqs(m, e, eqs);
        for (int q = 0; q < ne; q++)
            for (int r = 0; r < ne && eqs[q] >= 0; r++)
                if (eqs[r] >= 0 && eqs[r] <= eqs[q]) a->p[eqs[q] + 1]++, total++;
    }
    if (total >= 0x7fffffffLL) {
        free(mark);
        return KD_ERR_NOMEM;
    }
    for (int j = 0; j < n; j++) a->p[j + 1] += a->p[j];
    a->i = malloc(sizeof(int) * (size_t)(total > 0 ? total : 1));
    int* next = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!a->i || !next) {
        free(mark);
        free(next);
        return KD_ERR_NOMEM;
    }
    memcpy(next, a->p, sizeof(int) * (size_t)n);
    for (int e = 0; e < m->nelem; e++) {
        int eqs[KD_ELEM_DOF_MAX];
        const int ne = kd_model_elem_eqs(m, e, eqs);
        for (int q = 0; q < ne; q++)
            for (int r = 0; r < ne && eqs[q] >= 0; r++)
                if (eqs[r] >= 0 && eqs[r] <= eqs[q]) a->i[next[eqs[q]]++] = eqs[r];
    }
    free(next);
    /* per column: drop repeats (mark), sort (insertion: a few dozen rows), compact */
    for (int j = 0; j < n; j++) mark[j] = -1;
    int out = 0;
    for (int j = 0; j < n; j++) {
        const int start = out;
        for (int k = a->p[j]; k < a->p[j + 1]; k++) {
            const int i = a->i[k];
            if (mark[i] == j) continue;
            mark[i] = j;
            int t = out++;
            for (; t > start && a->i[t - 1] > i; t--) a->i[t] = a->i[t - 1];
            a->i[t] = i;
        }
        a->p[j] = start;
    }
    a->p[n] = out;
    free(mark);
    int* shrunk = realloc(a->i, sizeof(int) * (size_t)(out > 0 ? out : 1));
    if (shrunk) a->i = shrunk;
    return KD_OK;
}

/* The pattern alone, for assemblies of other element matrices (assemble_csc.h). */
kd_status kd_assemble_csc_pattern(const kd_model* m, kd_csc* a) { return csc_pattern(m, a); }

/* Add the upper triangles of the row-major element matrices ke and mo into K and M, which share
 * one pattern: each entry's position is searched once for both. */
void kd_assemble_csc_scatter(kd_csc* K, kd_csc* M, const double* ke, const double* mo, const int* eqs, int n) {
    for (int q = 0; q < n; q++) {
        const int j = eqs[q];
        if (j < 0) continue;
        for (int r = 0; r < n; r++) {
            const int i = eqs[r];
            if (i < 0 || i > j) continue;
            const int at = csc_find(K, i, j);
            K->x[at] += ke[r * n + q];
            M->x[at] += mo[r * n + q];
        }
    }
}

kd_status kd_assemble_stiffness_mass_csc(const kd_model* m, kd_csc* K, kd_csc* M, kd_error* err) {
    memset(K, 0, sizeof(*K));
    memset(M, 0, sizeof(*M));
    kd_status st = csc_pattern(m, K);
    const size_t nnz = st ? 0 : (size_t)K->p[K->n];
    if (!st) {
        M->n = K->n;
        M->p = malloc(sizeof(int) * ((size_t)K->n + 1));
        M->i = malloc(sizeof(int) * (nnz ? nnz : 1));
        K->x = calloc(nnz ? nnz : 1, sizeof(double));
        M->x = calloc(nnz ? nnz : 1, sizeof(double));
        if (!M->p || !M->i || !K->x || !M->x) st = KD_ERR_NOMEM;
    }
    if (st) {
        kd_csc_free(K);
        kd_csc_free(M);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the sparse global matrices");
    }
    memcpy(M->p, K->p, sizeof(int) * ((size_t)K->n + 1));
    memcpy(M->i, K->i, sizeof(int) * nnz);
    double me[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX], mo[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
    double ke[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
    int last_prop = -1;
    for (int e = 0; e < m->nelem; e++) {
        int eqs[KD_ELEM_DOF_MAX];
        const int n = element_stiffness_mass(m, e, me, &last_prop, ke, mo, eqs);
        kd_assemble_csc_scatter(K, M, ke, mo, eqs, n);
    }
    return KD_OK;
}

void kd_assemble_mass(const kd_model* m, kd_band* M) {
    kd_band_zero(M);
    double me[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX], mo[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
    int last_prop = -1;
    for (int e = 0; e < m->nelem; e++) {
        int eqs[KD_ELEM_DOF_MAX];
        const int n = element_mass(m, e, me, &last_prop, mo, eqs);
        scatter(M, mo, eqs, n);
    }
}

/* Rows r (nr of them, each n long, row-major) with r^T r = a for a symmetric positive
 * semidefinite a (n x n, row-major): a = D S D with D = diag(a)^1/2 (so that S has a unit
 * diagonal, whatever the units of the DOFs), S = V L V^T, r = L^1/2 V^T D without the null
 * eigenvalues (|l| <= 64 n eps l_max: the element's rigid-body motions, which then have no
 * energy to round-off accuracy). Returns -1 when a has a negative eigenvalue beyond that
 * (compression in k_g), 0 otherwise. */
static int psd_square_root(const double* a, int n, double* r, int* nr) {
    double s[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX], d[KD_ELEM_DOF_MAX], l[KD_ELEM_DOF_MAX];
    for (int i = 0; i < n; i++) {
        if (a[i * n + i] < 0) return -1;
        d[i] = sqrt(a[i * n + i]);
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) s[i * n + j] = d[i] > 0 && d[j] > 0 ? a[i * n + j] / (d[i] * d[j]) : 0.0;
    if (LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'U', n, s, n, l) != 0) return -1;
    const double lmax = l[n - 1], tol = 64.0 * n * DBL_EPSILON * lmax;
    *nr = 0;
    for (int k = 0; k < n; k++) {
        if (l[k] < -tol) return -1;
        if (l[k] <= tol) continue;
        const double sl = sqrt(l[k]);
        for (int j = 0; j < n; j++) r[*nr * n + j] = sl * s[j * n + k] * d[j];  /* column k of V */
        (*nr)++;
    }
    return 0;
}

/* Append the rows r (nr x n) of an element, at its free equations, to t. */
static kd_status add_rows(kd_triplet* t, const double* r, int nr, int n, const int* eqs) {
    kd_status st = KD_OK;
    const int row0 = t->nrow;
    for (int k = 0; k < nr && !st; k++)
        for (int j = 0; j < n && !st; j++)
            if (eqs[j] >= 0 && r[k * n + j] != 0.0) st = kd_triplet_add(t, row0 + k, eqs[j], r[k * n + j]);
    if (!st) t->nrow = row0 + nr;
    return st;
}

/* Rows r (nr x n) of an element placed at `at`: each row r_k T into out. */
static void place_rows(const kd_element_props* p, const kd_element_place* at, const double* r, int nr, int n,
                       double* out) {
    memcpy(out, r, sizeof(double) * (size_t)nr * (size_t)n);
    for (int k = 0; k < nr; k++) kd_element_place_vector(p, at, out + (size_t)k * n);
}

kd_status kd_assemble_square_roots(const kd_model* m, kd_triplet* A, kd_triplet* C, kd_error* err) {
    memset(A, 0, sizeof(*A));
    A->ncol = m->neq;
    if (C) memset(C, 0, sizeof(*C)), C->ncol = m->neq;
    /* element factors, recomputed only when the element record or its axial force changes */
    double rk[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX], rm[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
    double rg[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX], kg[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
    double kg_last[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
    int nk = 0, nm = 0, ng = 0, last_prop = -1, last_g = -1, have_g = 0;
    kd_status st = KD_OK;
    for (int e = 0; e < m->nelem && !st; e++) {
        int eqs[KD_ELEM_DOF_MAX];
        const int n = kd_model_elem_eqs(m, e, eqs);
        const int p = m->elem_prop[e];
        if (p != last_prop) {
            double me[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
            kd_element_mass(&m->prop[p], me);
            if (psd_square_root(m->prop[p].k, n, rk, &nk) || (C && psd_square_root(me, n, rm, &nm)))
                return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "element %d: k or m is not positive semidefinite",
                                    e + 1);
            last_prop = p;
        }
        /* k_g of the pre-stress at rest, factored apart from k: each has its own null space */
        const int geo = kd_model_elem_rest_geometric(m, e, kg);
        if (geo && (p != last_g || !have_g || memcmp(kg, kg_last, sizeof(double) * (size_t)(n * n)) != 0)) {
            memcpy(kg_last, kg, sizeof(double) * (size_t)(n * n));
            last_g = p, have_g = 1;
            if (psd_square_root(kg, n, rg, &ng))
                return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                                    "element %d: the geometric stiffness is indefinite (axial compression)", e + 1);
        }
        kd_element_place at;
        if (m->elem_rot && (kd_model_elem_place(m, e, &at), at.rotated)) {
            /* element DOFs to body DOFs: r^T r = k gives (r T)^T (r T) = T^T k T (kedyn/inertia.h) */
            double pk[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX], pm[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX],
                pg[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
            place_rows(&m->prop[p], &at, rk, nk, n, pk);
            if (geo) place_rows(&m->prop[p], &at, rg, ng, n, pg);
            if (C) place_rows(&m->prop[p], &at, rm, nm, n, pm);
            st = add_rows(A, pk, nk, n, eqs);
            if (!st && geo) st = add_rows(A, pg, ng, n, eqs);
            if (!st && C) st = add_rows(C, pm, nm, n, eqs);
            continue;
        }
        st = add_rows(A, rk, nk, n, eqs);
        if (!st && geo) st = add_rows(A, rg, ng, n, eqs);
        if (!st && C) st = add_rows(C, rm, nm, n, eqs);
    }
    if (st) {
        kd_triplet_free(A);
        if (C) kd_triplet_free(C);
        return kd_error_set(err, st, "", KD_LOC_NONE, "out of memory for the square-root factors");
    }
    return KD_OK;
}


/* The rigid-body displacement of the element's DOFs (names dn, node offsets dx from its first
 * node, row-major 3 per DOF) for translation t and small rotation phi:
 * u = t + phi x dx at the translations, phi at the rotations, 0 at curvatures. */
static long double rigid_value(kd_dof_name dn, const double* dx, const long double* t, const long double* phi) {
    switch (dn) {
    case KD_DOF_U: return t[0] + phi[1] * dx[2] - phi[2] * dx[1];
    case KD_DOF_V: return t[1] + phi[2] * dx[0] - phi[0] * dx[2];
    case KD_DOF_W: return t[2] + phi[0] * dx[1] - phi[1] * dx[0];
    case KD_DOF_RX: return phi[0];
    case KD_DOF_RY: return phi[1];
    case KD_DOF_RZ: return phi[2];
    default: return 0.0L;
    }
}

/* Element e's DOF names and node offsets from its first node; returns the DOF count. */
static int element_dofs(const kd_model* m, int e, kd_dof_name* dn, double* dx, int* eqs) {
    const int* nodes;
    const int nn = kd_model_elem_nodes(m, e, &nodes);
    int n = 0;
    for (int a = 0; a < nn; a++)
        for (int i = m->node_dof_adr[nodes[a]]; i < m->node_dof_adr[nodes[a]] + m->node_dof_num[nodes[a]]; i++, n++) {
            dn[n] = m->dof_name[i];
            eqs[n] = m->dof_eq[i];
            for (int c = 0; c < 3; c++) dx[3 * n + c] = m->node_x[3 * nodes[a] + c] - m->node_x[3 * nodes[0] + c];
        }
    return n;
}

/* Do the rigid-body motions of rigid_value lie in the null space of element e's k (to round-off)?
 * (They do for every beam element; the check guards the DOF conventions.) */
static int rigid_null_space(const kd_model* m, int e) {
    kd_dof_name dn[KD_ELEM_DOF_MAX];
    double dx[3 * KD_ELEM_DOF_MAX];
    int eqs[KD_ELEM_DOF_MAX];
    const int n = element_dofs(m, e, dn, dx, eqs);
    const double* k = m->prop[m->elem_prop[e]].k;
    double kmax = 0, h = 0;
    for (int i = 0; i < n * n; i++) kmax = fmax(kmax, fabs(k[i]));
    for (int i = 0; i < 3 * n; i++) h = fmax(h, fabs(dx[i]));
    for (int mode = 0; mode < 6; mode++) {
        long double t[3] = {0, 0, 0}, phi[3] = {0, 0, 0};
        if (mode < 3) t[mode] = 1;
        else phi[mode - 3] = 1.0L / (h > 0 ? h : 1.0);
        long double r[KD_ELEM_DOF_MAX];
        double rmax = 0;
        for (int i = 0; i < n; i++) r[i] = rigid_value(dn[i], dx + 3 * i, t, phi), rmax = fmax(rmax, fabsl(r[i]));
        for (int i = 0; i < n; i++) {
            long double s = 0;
            for (int j = 0; j < n; j++) s += k[i * n + j] * r[j];
            if (fabsl(s) > 1e-9 * kmax * rmax) return 0;
        }
    }
    return 1;
}

/* x_v^T a x_v in long double for a symmetric a, from its upper triangle (half the products),
 * for RQ_MODES vectors x_v at once (x[j * RQ_MODES + v]): each matrix entry is read once for all
 * of them and their sums are independent chains; each vector's sum is formed in the order of a
 * one-vector loop. X is long double (the deformations) or double (the displacements themselves,
 * which are doubles: cheaper loads for the x87 unit, the same products). */
#define RQ_MODES 4
#define QUADRATIC_FORMS(name, X)                                                                  \
    static void name(const double* a, const X* x, int n, long double* s) {                        \
        long double s0 = 0, s1 = 0, s2 = 0, s3 = 0;                                                \
        for (int i = 0; i < n; i++) {                                                              \
            long double r0 = 0, r1 = 0, r2 = 0, r3 = 0;                                            \
            for (int j = i + 1; j < n; j++) {                                                      \
                const long double aij = a[i * n + j];                                              \
                const X* xj = x + j * RQ_MODES;                                                    \
                r0 += aij * xj[0], r1 += aij * xj[1], r2 += aij * xj[2], r3 += aij * xj[3];        \
            }                                                                                      \
            const long double aii = a[i * n + i];                                                  \
            const X* xi = x + i * RQ_MODES;                                                        \
            s0 += xi[0] * (aii * xi[0] + 2 * r0), s1 += xi[1] * (aii * xi[1] + 2 * r1);            \
            s2 += xi[2] * (aii * xi[2] + 2 * r2), s3 += xi[3] * (aii * xi[3] + 2 * r3);            \
        }                                                                                          \
        s[0] = s0, s[1] = s1, s[2] = s2, s[3] = s3;                                                \
    }
QUADRATIC_FORMS(quadratic_forms, long double)
QUADRATIC_FORMS(quadratic_forms_d, double)

int kd_model_rest_rayleigh(const kd_model* m, const double* x, int count, double* lambda) {
    long double* energy = calloc((size_t)(2 * count), sizeof(long double));
    if (!energy) return -1;
    long double* mass = energy + count;
    double me[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX], kg[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
    int last_prop = -1, ok = 1;
    for (int e = 0; e < m->nelem && ok; e++) {
        const int p = m->elem_prop[e];
        if (p != last_prop) {
            ok = rigid_null_space(m, e);
            kd_element_mass(&m->prop[p], me);
            last_prop = p;
        }
        kd_dof_name dn[KD_ELEM_DOF_MAX];
        double dx[3 * KD_ELEM_DOF_MAX];
        int eqs[KD_ELEM_DOF_MAX];
        const int n = element_dofs(m, e, dn, dx, eqs);
        const int geo = kd_model_elem_rest_geometric(m, e, kg);
        /* an element with its own axes: k, m and k_g to body DOFs (the rigid motions below are
         * in body components) */
        const double *ke = m->prop[p].k, *mm = me;
        double kp[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX], mp[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
        kd_element_place at;
        if (m->elem_rot && (kd_model_elem_place(m, e, &at), at.rotated)) {
            memcpy(kp, ke, sizeof(double) * (size_t)n * (size_t)n);
            memcpy(mp, me, sizeof(double) * (size_t)n * (size_t)n);
            kd_element_place_matrix(&m->prop[p], &at, kp);
            kd_element_place_matrix(&m->prop[p], &at, mp);
            if (geo) kd_element_place_matrix(&m->prop[p], &at, kg);
            ke = kp, mm = mp;
        }
        for (int k0 = 0; k0 < count; k0 += RQ_MODES) {  /* modes k0 .. k0 + RQ_MODES - 1 (beyond count: zero) */
            long double xd[KD_ELEM_DOF_MAX * RQ_MODES], q[RQ_MODES];
            double xs[KD_ELEM_DOF_MAX * RQ_MODES];  /* the modes at the element's DOFs */
            long double t[RQ_MODES][3], phi[RQ_MODES][3];
            for (int v = 0; v < RQ_MODES; v++) {
                const double* xk = k0 + v < count ? x + (size_t)(k0 + v) * (size_t)m->neq : NULL;
                for (int c = 0; c < 3; c++) t[v][c] = phi[v][c] = 0;
                for (int i = 0; i < n; i++) {
                    const double xi = xk && eqs[i] >= 0 ? xk[eqs[i]] : 0.0;
                    xs[i * RQ_MODES + v] = xi;
                    const int first = dx[3 * i] == 0 && dx[3 * i + 1] == 0 && dx[3 * i + 2] == 0;  /* the first node */
                    if (first && dn[i] <= KD_DOF_W) t[v][dn[i]] = xi;
                    if (first && dn[i] >= KD_DOF_RX && dn[i] <= KD_DOF_RZ) phi[v][dn[i] - KD_DOF_RX] = xi;
                }
            }
            const int nv = count - k0 < RQ_MODES ? count - k0 : RQ_MODES;
            /* k: the deformation x - rigid motion of the first node (small where x is smooth, and
             * free of the cancellation that makes x^T k x lose (L/h)^4 eps) */
            for (int i = 0; i < n; i++)
                for (int v = 0; v < RQ_MODES; v++)
                    xd[i * RQ_MODES + v] = xs[i * RQ_MODES + v] - rigid_value(dn[i], dx + 3 * i, t[v], phi[v]);
            quadratic_forms(ke, xd, n, q);
            for (int v = 0; v < nv; v++) energy[k0 + v] += q[v];
            /* k_g: only translations are in its null space */
            if (geo) {
                const long double zero[3] = {0, 0, 0};
                for (int i = 0; i < n; i++)
                    for (int v = 0; v < RQ_MODES; v++)
                        xd[i * RQ_MODES + v] = xs[i * RQ_MODES + v] - rigid_value(dn[i], dx + 3 * i, t[v], zero);
                quadratic_forms(kg, xd, n, q);
                for (int v = 0; v < nv; v++) energy[k0 + v] += q[v];
            }
            quadratic_forms_d(mm, xs, n, q);
            for (int v = 0; v < nv; v++) mass[k0 + v] += q[v];
        }
    }
    for (int k = 0; k < count && ok; k++) ok = mass[k] > 0;
    for (int k = 0; k < count && ok; k++) lambda[k] = (double)(energy[k] / mass[k]);
    free(energy);
    return ok ? 0 : -1;
}
