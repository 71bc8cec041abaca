/* kedyn: analyses of elastic bodies in moving frames (theory.md sec. 3, 5).
 *
 *   campbell   natural frequencies of the moving system (gyroscopic,
 *              state-space) while one body spins at each of a list of
 *              constant speeds;
 *   stability  over a grid of hub distances and beam lengths, the critical
 *              speed at which the effective stiffness K + k_g + k(omega) of
 *              the spinning body stops being positive definite (bisection
 *              on a banded Cholesky test);
 *   dynamics   the transient response, integrated by kd_integrate
 *              (kedyn/integrate.h), with an energy and work balance.
 * The results are returned to the caller; writing them is kedyn_io's job.
 */
#ifndef KEDYN_ANALYSIS_H
#define KEDYN_ANALYSIS_H

#include "kedyn/modes.h"
#include "kedyn/system.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kd_campbell {
    int nspeeds, count;
    double* speed;            /* (nspeeds) rad/s */
    double* omega;            /* (nspeeds x count) rad/s, ascending per speed */
    double* growth;           /* (nspeeds x count) 1/s */
    int* unstable;            /* (nspeeds) */
} kd_campbell;

/* Frequencies of model m while `body` spins about its motion's axis at each
 * speed (a constant-speed law replaces its own). */
kd_status kd_campbell_run(const kd_model* m, int body, const double* speeds, int nspeeds, int count,
                          kd_campbell* out, kd_error* err);
void kd_campbell_free(kd_campbell* c);

typedef struct kd_stability_map {
    int nhubs, nlengths;
    double* hub;              /* (nhubs) m */
    double* length;           /* (nlengths) m */
    double* omega_cr;         /* (nhubs x nlengths) rad/s; INFINITY when stable up to omega_max */
    double omega_max;
} kd_stability_map;

/* The critical speed of body `body` of description d for every (hub,
 * length), each a recompiled copy of the model, to a relative tolerance of
 * 1e-6. */
kd_status kd_stability_run(const kd_desc* d, int body, const double* hubs, int nhubs, const double* lengths,
                           int nlengths, double omega_max, kd_stability_map* out, kd_error* err);
void kd_stability_free(kd_stability_map* s);

/* Is the symmetric part of the effective stiffness K(t) of the system
 * positive definite at t? Returns 1 yes, 0 no, -1 out of memory. */
int kd_system_stiffness_definite(kd_system* s, double t);

#ifdef __cplusplus
}
#endif
#endif
