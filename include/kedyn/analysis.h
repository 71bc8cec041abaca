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
 * The results are returned to the caller; writing them is src/output and src/run's job.
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
    double* omega;            /* (nspeeds x count) rad/s; curve k (column k) follows one mode:
                                 ascending at the first speed, then tracked */
    double* growth;           /* (nspeeds x count) 1/s, same order */
    int* unstable;            /* (nspeeds) */
    double* mac_min;          /* (nspeeds) smallest MAC linking a curve to the previous speed
                                 (1 at the first); low values flag ambiguous tracking */
} kd_campbell;

/* Frequencies of model m while `body` spins about its motion's axis at each
 * speed (a constant-speed law replaces its own). The first speed's modes are
 * taken in ascending order; at each next speed, count + 4 modes are computed
 * and each curve takes the one whose shape (real part, modes.csv) has the
 * largest modal assurance criterion MAC = (a.b)^2 / ((a.a)(b.b)) with the
 * curve's shape at the previous speed (pairs assigned greedily, largest
 * MAC first), so curves of modes that cross do not swap. */
kd_status kd_campbell_run(const kd_model* m, int body, const double* speeds, int nspeeds, int count,
                          kd_campbell* out, kd_error* err);
void kd_campbell_free(kd_campbell* c);
/* The parts of kd_campbell_run for a scheduler of independent cases: begin (arrays and the
 * tracking state), the modes at one speed (kd_campbell_modes_wanted of them; its own system, safe
 * on several threads at once), and add: the modes of speed i, given in speed order, tracked. */
typedef struct kd_campbell_track {
    int n, count, extra;
    double* prev;             /* (2 x count x n) shapes followed at the previous speed: real
                                 parts, then imaginary parts */
    double* macs;
    int* pick;
} kd_campbell_track;
kd_status kd_campbell_begin(const kd_model* m, const double* speeds, int nspeeds, int count, kd_campbell* out,
                            kd_campbell_track* t, kd_error* err);
int kd_campbell_modes_wanted(const kd_campbell_track* t, int i);
kd_status kd_campbell_modes_at(const kd_model* m, int body, double speed, int nmodes, kd_modes* r, kd_error* err);
void kd_campbell_add(kd_campbell* out, kd_campbell_track* t, int i, const kd_modes* r);
void kd_campbell_track_free(kd_campbell_track* t);

typedef struct kd_stability_map {
    int nhubs, nlengths;
    double* hub;              /* (nhubs) m */
    double* length;           /* (nlengths) m */
    double* omega_cr;         /* (nhubs x nlengths [x nthick]) rad/s, [hub][length][thickness];
                                 INFINITY when stable up to omega_max */
    double omega_max;
    int nthick;               /* plates: thicknesses of a third axis (0: none, the body's own) */
    double* thickness;        /* (nthick) m, or NULL */
} kd_stability_map;

/* The critical speed of body `body` of description d for every (hub,
 * length), each a recompiled copy of the model, to a relative tolerance of
 * 1e-6. */
kd_status kd_stability_run(const kd_desc* d, int body, const double* hubs, int nhubs, const double* lengths,
                           int nlengths, double omega_max, kd_stability_map* out, kd_error* err);
void kd_stability_free(kd_stability_map* s);
/* The parts of kd_stability_run for a scheduler of independent cases: the map's arrays (omega_cr
 * left to fill), and the critical speed at one (hub, length), safe to call on several threads at
 * once. */
kd_status kd_stability_map_init(kd_stability_map* out, const double* hubs, int nhubs, const double* lengths,
                                int nlengths, double omega_max, kd_error* err);
kd_status kd_stability_point(const kd_desc* d, int body, double hub, double length, double omega_max,
                             double* omega_cr, kd_error* err);
/* The third axis of a plate's map (theory.md sec. 14.8): kd_stability_map_thicknesses sets it on a
 * map from kd_stability_map_init (omega_cr resized to nhubs x nlengths x n); the point at a
 * thickness t (> 0; 0 keeps the body's own) is kd_stability_point_thickness. */
kd_status kd_stability_map_thicknesses(kd_stability_map* out, const double* t, int n, kd_error* err);
kd_status kd_stability_point_thickness(const kd_desc* d, int body, double hub, double length, double thickness,
                                       double omega_max, double* omega_cr, kd_error* err);

/* Called at every output instant of a dynamics analysis with the state and,
 * when the analysis asks for it, energy = {kinetic 1/2 v^T M v, strain
 * 1/2 q^T K q (elastic K), work W of all other terms (loads, inertia of the
 * frame, gyroscopic, geometric, damping; trapezoidal in the output
 * instants), balance = kinetic + strain - initial - W}; else NULL. Return
 * nonzero to stop. */
typedef int (*kd_dynamics_output)(void* ctx, double t, const double* q, const double* v, const double* a,
                                  const double* energy);

/* The integrator of kedyn/integrate.h an analysis' choice names; -1 for
 * UNSET and rk4 (not an integrator of elastic models). */
kd_integrator kd_dynamics_method(kd_dynamics_integrator i);

/* Integrate the model's equations from t = 0 to t_end with the options of
 * the dynamics analysis ad (UNSET choices: kd_dynamics_resolve, elastic
 * route) (integrator, dt, tolerances, initial state: zero or quasi-static,
 * plus a scaled mode shape and prescribed nodal values q, q').
 * `warning` (size nwarning) receives a note when the effective stiffness is
 * not positive definite at t = 0 or t_end (above a critical speed). On a
 * numerical failure returns KD_ERR_NUMERIC; every state before it has been
 * passed to `out`. */
kd_status kd_dynamics_run(const kd_model* m, const kd_analysis_desc* ad, kd_dynamics_output out, void* ctx,
                          kd_integrate_stats* stats, char* warning, int nwarning, kd_error* err);

/* Does kd_dynamics_run integrate this analysis on the sparse route (bodies at rest or turning at a
 * constant speed, the Newmark / alpha family, one sparse factorisation; docs/architecture.md)
 * rather than in band storage? 1 yes, 0 no. */
int kd_dynamics_sparse_route(const kd_model* m, const kd_analysis_desc* ad);

/* Is the symmetric part of the effective stiffness K(t) of the system
 * positive definite at t? Returns 1 yes, 0 no, -1 out of memory. */
int kd_system_stiffness_definite(kd_system* s, double t);

#ifdef __cplusplus
}
#endif
#endif
