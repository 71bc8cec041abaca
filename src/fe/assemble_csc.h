/* The compressed-column pattern of a model's element couplings and the scatter into it (internal
 * to src/fe). */
#ifndef KEDYN_FE_ASSEMBLE_CSC_H
#define KEDYN_FE_ASSEMBLE_CSC_H

#include "kedyn/model.h"

/* a->n = m->neq, a->p and a->i: the upper triangle of every free equation pair that shares an
 * element, rows ascending in each column; a->x is left NULL. KD_ERR_NOMEM (a partly filled: free
 * it with kd_csc_free). */
kd_status kd_assemble_csc_pattern(const kd_model* m, kd_csc* a);
/* Add the upper triangles of the row-major n x n element matrices ke and mo (equations eqs, -1:
 * fixed) into K and M, which share the pattern above: each entry's position searched once. */
void kd_assemble_csc_scatter(kd_csc* K, kd_csc* M, const double* ke, const double* mo, const int* eqs, int n);

#endif
