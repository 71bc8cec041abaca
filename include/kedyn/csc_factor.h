/* A kept sparse Cholesky factor of a symmetric positive definite kd_csc (kedyn/band.h), for
 * repeated solves with one right-hand side: CHOLMOD's factor and its solve workspaces are kept, so
 * a solve after the first allocates nothing (kd_csc_factor_new does one solve to set them up).
 * The reduced shells' membrane relaxation (theory.md sec. 22, SL10) solves with it in every
 * evaluation. */
#ifndef KEDYN_CSC_FACTOR_H
#define KEDYN_CSC_FACTOR_H

#include "kedyn/band.h"
#include "kedyn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kd_csc_factor kd_csc_factor;
/* Factor a (not kept by reference). KD_ERR_NUMERIC when a is not positive definite,
 * KD_ERR_NOMEM when out of memory. */
kd_status kd_csc_factor_new(const kd_csc* a, kd_csc_factor** out);
/* b = A^-1 b (n entries) in place. */
kd_status kd_csc_factor_solve(kd_csc_factor* f, double* b);
void kd_csc_factor_free(kd_csc_factor** f);

#ifdef __cplusplus
}
#endif
#endif
