/* A fill-reducing ordering of finite-element matrices for CHOLMOD (csc_order.h; theory.md
 * sec. 13.6).
 *
 * CHOLMOD orders the graph of the equations: on a plate of 216 543 equations (72 541 nodes, three
 * DOFs each) its nested dissection takes 0.7-0.8 s, as long as the numeric factorisation, and AMD
 * on that graph fills 32.7 M entries against nested dissection's 26.0 M. The DOFs of one node have
 * the same neighbours, so the graph of the nodes (a ninth of the edges) carries the same
 * information: AMD on it takes 0.02-0.03 s and fills 26.3 M entries (10.2 GFlop against 9.4). The
 * equations of a node are consecutive in kedyn's numbering, so consecutive columns are compared:
 * their closed neighbourhoods by a hash and their degrees. A collision or a missed pair only
 * changes the quality of the ordering, never the factor's correctness (any permutation is
 * valid). */
#include "numerics/csc_order.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A mixing function of an index (splitmix64's finaliser): neighbourhoods hash to their sum. */
static uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

cholmod_sparse csc_cholmod_view(const kd_csc* a) {
    cholmod_sparse s;
    memset(&s, 0, sizeof(s));
    s.nrow = s.ncol = (size_t)a->n;
    s.nzmax = (size_t)a->p[a->n];
    s.p = a->p, s.i = a->i, s.x = a->x;
    s.stype = 1;
    s.itype = CHOLMOD_INT, s.xtype = CHOLMOD_REAL, s.dtype = CHOLMOD_DOUBLE;
    s.sorted = 1, s.packed = 1;
    return s;
}

int csc_order_nodes(const cholmod_sparse* A, int* perm, cholmod_common* cc) {
    const int n = (int)A->nrow;
    const int *Ap = A->p, *Ai = A->i;
    uint64_t* h = malloc(sizeof(uint64_t) * (size_t)(n > 0 ? n : 1));
    int* deg = calloc((size_t)(n > 0 ? n : 1), sizeof(int));
    int* group = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));      /* equation -> node */
    int* first = malloc(sizeof(int) * ((size_t)n + 1));               /* node -> first equation */
    int* cp = malloc(sizeof(int) * ((size_t)n + 1));
    int* ci = malloc(sizeof(int) * (size_t)(Ap[n] > 0 ? Ap[n] : 1));
    int* mark = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int* cperm = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int rc = -1;
    if (!h || !deg || !group || !first || !cp || !ci || !mark || !cperm) goto done;
    /* closed neighbourhood hashes and degrees of the full pattern from the upper triangle */
    for (int j = 0; j < n; j++) h[j] = mix((uint64_t)j);
    for (int j = 0; j < n; j++)
        for (int k = Ap[j]; k < Ap[j + 1]; k++) {
            const int r = Ai[k];
            if (r == j) continue;
            h[j] += mix((uint64_t)r), h[r] += mix((uint64_t)j);
            deg[j]++, deg[r]++;
        }
    /* nodes: runs of consecutive equations with equal neighbourhoods (j - 1 and j coupled) */
    int ns = 0;
    for (int j = 0; j < n; j++) {
        int same = j > 0 && h[j] == h[j - 1] && deg[j] == deg[j - 1];
        if (same) {  /* the entry (j - 1, j): the last below the diagonal of column j */
            int k = Ap[j + 1] - 1;
            while (k >= Ap[j] && Ai[k] >= j) k--;
            same = k >= Ap[j] && Ai[k] == j - 1;
        }
        if (!same) first[ns++] = j;
        group[j] = ns - 1;
    }
    first[ns] = n;
    /* the compressed graph, upper triangle without diagonal: node s from its last equation's
     * column, which holds every neighbour numbered below it */
    for (int s = 0; s < ns; s++) mark[s] = -1;
    int nz = 0;
    for (int s = 0; s < ns; s++) {
        const int j = first[s + 1] - 1;
        cp[s] = nz;
        for (int k = Ap[j]; k < Ap[j + 1]; k++) {
            const int t = group[Ai[k]];
            if (t < s && mark[t] != s) mark[t] = s, ci[nz++] = t;
        }
    }
    cp[ns] = nz;
    cholmod_sparse C;
    memset(&C, 0, sizeof(C));
    C.nrow = C.ncol = (size_t)ns;
    C.nzmax = (size_t)(nz > 0 ? nz : 1);
    C.p = cp, C.i = ci;
    C.stype = 1;
    C.itype = CHOLMOD_INT, C.xtype = CHOLMOD_PATTERN, C.dtype = CHOLMOD_DOUBLE;
    C.sorted = 0, C.packed = 1;
    if (!cholmod_amd(&C, NULL, 0, cperm, cc)) goto done;
    int q = 0;
    for (int k = 0; k < ns; k++)
        for (int j = first[cperm[k]]; j < first[cperm[k] + 1]; j++) perm[q++] = j;
    rc = q == n ? 0 : -1;
done:
    free(h), free(deg), free(group), free(first), free(cp), free(ci), free(mark), free(cperm);
    return rc;
}

cholmod_factor* csc_order_analyze(cholmod_sparse* A, cholmod_common* cc) {
    int* perm = malloc(sizeof(int) * (A->nrow ? A->nrow : 1));
    if (!perm || csc_order_nodes(A, perm, cc)) {
        free(perm);
        return cholmod_analyze(A, cc);
    }
    const int nmethods = cc->nmethods, ordering = cc->method[0].ordering;
    cc->nmethods = 1;
    cc->method[0].ordering = CHOLMOD_GIVEN;
    cholmod_factor* L = cholmod_analyze_p(A, perm, NULL, 0, cc);
    cc->nmethods = nmethods, cc->method[0].ordering = ordering;
    free(perm);
    return L;
}
