/* A fill-reducing ordering of finite-element matrices for CHOLMOD (csc_order.c). */
#ifndef KEDYN_CSC_ORDER_H
#define KEDYN_CSC_ORDER_H

#include <cholmod.h>

#include "kedyn/band.h"   /* kd_csc */

/* A kd_csc (upper triangle, sorted, packed) seen as a CHOLMOD symmetric matrix: no copy. */
cholmod_sparse csc_cholmod_view(const kd_csc* a);

/* perm (A->nrow entries) for the symmetric A (upper triangle stored, packed, int indices):
 * approximate minimum degree on the graph of the nodes rather than of the equations. Consecutive
 * equations with the same neighbours (the DOFs of one node) form one vertex of the compressed
 * graph (a third of the vertices and a ninth of the edges of a plate's), CHOLMOD's AMD orders that
 * graph, and each vertex expands to its equations in order. Returns 0, or -1 when out of memory
 * or AMD fails (perm is then undefined). */
int csc_order_nodes(const cholmod_sparse* A, int* perm, cholmod_common* cc);

/* CHOLMOD's symbolic analysis of A with the ordering of csc_order_nodes (postordered by CHOLMOD);
 * with CHOLMOD's default choice of orderings when that fails. NULL when out of memory. Leaves
 * cc's ordering methods as it found them. */
cholmod_factor* csc_order_analyze(cholmod_sparse* A, cholmod_common* cc);

#endif
