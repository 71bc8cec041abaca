/* kedyn: the formalisms compared on a user's model (theory.md sec. 4).
 *
 * For each element count in a list (applied to every beam body; supports
 * and nodal loads move to the node nearest their old position along the
 * body), the model's dynamics analysis is run with each formalism's route
 * (kedyn/formalism.h): the invariants route first, as the reference, then
 * the others with the same integrator (Hamilton's with its canonical
 * counterpart, kd_analysis_use_formalism). Each row records
 *   - the largest difference of the trajectory (every DOF at every output
 *     instant) from the reference, relative to the reference's largest
 *     displacement;
 *   - the wall time of one assembly of the equations (C, K, f at t = 0; the
 *     mean over repetitions) and of the integration;
 *   - the work of one assembly: element builds, quadrature-point
 *     evaluations, differentiations, flops (kd_formalism_ops).
 */
#ifndef KEDYN_COMPARE_H
#define KEDYN_COMPARE_H

#include "kedyn/analysis.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kd_compare_row {
    int elements;                 /* elements per beam body */
    int neq;                      /* equations */
    kd_formalism formalism;
    int integrator;               /* kd_integrator used */
    kd_status status;             /* KD_OK, or the failure of this run */
    char message[512];
    double max_rel_diff;          /* trajectory versus the invariants route (0 for it) */
    double build_s;               /* one assembly of C, K, f, s */
    double integrate_s;           /* the integration, s */
    long steps;
    kd_formalism_ops ops;         /* work of one assembly */
} kd_compare_row;

typedef struct kd_compare {
    int nrows;
    kd_compare_row* rows;         /* (nelements x nformalisms), element count major */
    double t_end;                 /* the simulated time */
} kd_compare;

/* Called before each run with the runs done and the total (may be NULL). */
typedef void (*kd_compare_progress)(void* ctx, int done, int total, int elements, kd_formalism f);

/* Compare on description d, whose dynamics analysis number `analysis` sets
 * the integration (t_end replaced by t_end_override when > 0). Numerical
 * failures of single runs are recorded in their rows; other errors (bad
 * element counts, out of memory) are returned. out is freed with
 * kd_compare_free. */
kd_status kd_compare_run(const kd_desc* d, int analysis, const int* elements, int nelements,
                         const kd_formalism* formalisms, int nformalisms, double t_end_override,
                         kd_compare_progress progress, void* progress_ctx, kd_compare* out, kd_error* err);
void kd_compare_free(kd_compare* c);

#ifdef __cplusplus
}
#endif
#endif
