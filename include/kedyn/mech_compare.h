/* kedyn: the formalisms compared on a mechanism model (kedyn/mech_formalism.h).
 *
 * The model's dynamics analysis is run with each formalism from the same assembled initial
 * position at rest (as `kedyn run` does). Each row records
 *   - the largest difference of the trajectory (every coordinate at every output instant) from
 *     the first formalism's, relative to that trajectory's largest coordinate;
 *   - the wall time of one evaluation of the accelerations (building and solving the equations of
 *     motion at the initial state; the fastest of several batches' means) and of the integration;
 *   - the floating-point work of one evaluation and of the integration: counted kernel calls
 *     times their known costs (kd_mbs_stats.flops), and the evaluations, steps, factorisations.
 * The model is compared as given: mechanisms have no element count to vary. A spatial mechanism
 * (`spatial: true`) runs the routes of kedyn/smech_formalism.h from its assembled position and its
 * initial velocities projected onto the velocity constraints.
 */
#ifndef KEDYN_MECH_COMPARE_H
#define KEDYN_MECH_COMPARE_H

#include "kedyn/desc.h"
#include "kedyn/mech_formalism.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kd_mech_compare_row {
    int bodies, n, nc, dof;       /* moving bodies, coordinates, constraint equations, DOF */
    kd_mech_formalism formalism;
    const char* formulation;      /* kedyn/mbs.h name (static) */
    const char* method;           /* rk4, cvode or ida */
    kd_status status;             /* KD_OK, or the failure of this run */
    char message[512];
    double max_rel_diff;          /* trajectory versus the first row's */
    double max_drift;             /* largest |Phi| over the output instants */
    double build_s;               /* one evaluation of the accelerations, s */
    double integrate_s;           /* the integration, s */
    long steps, evaluations, factorizations;
    double flops_eval;            /* one evaluation */
    double flops_run;             /* the integration (NaN for ida: SUNDIALS' own linear algebra) */
} kd_mech_compare_row;

typedef struct kd_mech_compare {
    int n, nc, dof;               /* coordinates, constraint equations, degrees of freedom */
    int nrows;
    kd_mech_compare_row* rows;
    double t_end;
    int spatial;                  /* a spatial mechanism (kedyn/smech_formalism.h): started from its
                                     initial velocities, projected; planar ones start at rest */
} kd_mech_compare;

typedef void (*kd_mech_compare_progress)(void* ctx, int done, int total, kd_mech_formalism f);

/* Compare on mechanism description d, whose dynamics analysis number `analysis` sets the
 * integration (t_end replaced by t_end_override when > 0). Numerical failures of single runs are
 * recorded in their rows; other errors are returned. out is freed with kd_mech_compare_free. */
kd_status kd_mech_compare_run(const kd_desc* d, int analysis, const kd_mech_formalism* forms, int nforms,
                              double t_end_override, kd_mech_compare_progress progress, void* progress_ctx,
                              kd_mech_compare* out, kd_error* err);
void kd_mech_compare_free(kd_mech_compare* c);

#ifdef __cplusplus
}
#endif
#endif
