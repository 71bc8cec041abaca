/* kedyn: a constrained system without some of its constraint equations (kedyn/cms.h;
 * theory.md sec. 11.2).
 *
 * An over-constrained mechanism (Bricard's linkage: Gruebler 0, mobility 1) has rows of Phi_q that
 * are linear combinations of the others all along its motion. The solvers that need Phi_q of full
 * row rank (the Schur complement of augmented, the coordinate partitioning of maggi, the DAE of
 * ida) then take this view of the system without those rows: with the rank of Phi_q constant
 * near the motion, the remaining equations imply the dropped ones there, so the motion is the
 * same; the multipliers of the dropped rows are zero (one of the statically indeterminate
 * distributions of the reactions). The coefficients of the dependencies move along the motion, so
 * the rows left out are revisited as the motion goes (src/constrained/cms_rows.c): the view is
 * meant for small over-constrained mechanisms (a dense Cholesky of Phi_O Phi_O^T per Jacobian). Which rows to
 * leave out at the start is the caller's (kd_smech_formalism_system: the best-conditioned choice).
 *
 * Ownership: kd_cms_rows_new allocates the view (its pattern and one work buffer), borrowing the
 * base system, which must outlive it; the callbacks allocate nothing.
 */
#ifndef KEDYN_CMS_ROWS_H
#define KEDYN_CMS_ROWS_H

#include "kedyn/cms.h"
#include "kedyn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kd_cms_rows kd_cms_rows;

/* The view of base without its rows drop[0 .. ndrop) (distinct, in 0 .. base->nc, ndrop <= 64;
 * redundant at (t, q), a configuration of base): *cms gets it (n, masses and forces those of
 * base; nc - ndrop constraint rows; its ctx the view). At every Jacobian the rows left out are
 * checked and, when the kept ones are losing their rank, chosen again (the file's header). base may alias cms (it is copied first). */
kd_status kd_cms_rows_new(const kd_cms* base, double t, const double* q, const int* drop, int ndrop,
                          kd_cms_rows** out, kd_cms* cms, kd_error* err);
/* Multipliers of the view's rows (nc - ndrop) onto the base's rows (nc), zero at the rows left out
 * at the last Jacobian. r may be NULL (nothing dropped): a copy of the base's nc values. */
void kd_cms_rows_expand(const kd_cms_rows* r, int nc_base, const double* lambda, double* full);
/* The view behind cms (its ctx when cms is a view made by kd_cms_rows_new), or NULL. */
kd_cms_rows* kd_cms_rows_of(const kd_cms* cms);
/* Deferred (on = 1): the Jacobian keeps the rows left out as they are, and they change only in
 * kd_cms_rows_revise, which a solver with a history of the multipliers (ida) calls at its accepted
 * steps and then restarts from a consistent state. Revise: the check of the Jacobian at (t, q);
 * returns 1 when the rows left out changed, 0 when not, -1 when the Jacobian failed. */
void kd_cms_rows_defer(kd_cms_rows* r, int on);
int kd_cms_rows_revise(kd_cms_rows* r, double t, const double* q);
/* How many times the rows left out have changed. */
long kd_cms_rows_switches(const kd_cms_rows* r);
void kd_cms_rows_free(kd_cms_rows** r);

#ifdef __cplusplus
}
#endif
#endif
