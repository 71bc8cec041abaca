/* kedyn: the formalisms of analytical mechanics on a spatial rigid mechanism (kedyn/smech.h;
 * docs/formalisms.md "Spatial routes"; theory.md sec. 11 and "Formalism routes on spatial
 * mechanisms").
 *
 * The five routes of kedyn/mech_formalism.h, each derived its own way on Euler-parameter bodies:
 *
 *   newton-euler  M(q) q'' + Phi_q^T lambda = Q with M = diag(m I, 4 G^T J G + c p p^T) and the
 *                 quadratic-velocity force 8 G(p')^T J G(p') p of kd_smech_force; multipliers by
 *                 the Schur complement (formulation augmented, or ida);
 *   maggi         coordinate partitioning, A^T M A w'' = A^T (Q - M b) (formulation maggi);
 *   kane          partial velocities v_r = dr/du_r and partial angular velocities
 *                 w_r = 2 E(p) dp/du_r (global) of every body from the columns of A; generalised
 *                 active forces F_r = sum (F . v_r + n . w_r) from the applied resultants, inertia
 *                 forces F*_r = -sum (m a . v_r + (J_g alpha + w x J_g w) . w_r) with J_g = R J R^T
 *                 (formulation maggi with kd_smech_kane_reduced);
 *   gibbs-appell  the acceleration energy in body axes
 *                 S = sum 1/2 m |r''|^2 + 1/2 alpha_b . J alpha_b + alpha_b . (w_b x J w_b),
 *                 w_b = 2 G(p) p', alpha_b = 2 G(p) p'', and the acceleration work P = Q_a . q'' of
 *                 the applied generalised forces, differentiated in the independent accelerations by
 *                 hyper-dual numbers (formulation maggi with kd_smech_gibbs_appell_reduced);
 *   lagrange      Lagrange's equations of the first kind from T = 1/2 m r'.r' + 2 p'^T G^T J G p'
 *                 differentiated automatically (hyper-dual): M_L = d2T/dq'2 and
 *                 h = (d/dq (dT/dq')) q' - dT/dq, M_L q'' + h + Phi_q^T lambda = Q_a. At a single
 *                 state the singular M_L is taken as it is, in [M_L Phi_q^T; Phi_q 0] by LU;
 *                 integrated (formulation ida) with c p p^T added to M_L and -c p (p'.p') to the
 *                 force, which changes only the normalisation multipliers (kd_smech_lagrange_cms).
 */
#ifndef KEDYN_SMECH_FORMALISM_H
#define KEDYN_SMECH_FORMALISM_H

#include "kedyn/cms_rows.h"
#include "kedyn/mbs.h"
#include "kedyn/mech_formalism.h"
#include "kedyn/smech.h"

#ifdef __cplusplus
extern "C" {
#endif

/* opts for formalism f on spatial mechanism m: the formulation (kd_mech_formalism_formulation,
 * keeping a compatible one opts holds) and, for kane and gibbs-appell with maggi, the reduced
 * equations of this file (borrowing m). */
void kd_smech_formalism_opts(kd_mech_formalism f, const kd_smech* m, kd_mbs_opts* opts);
/* The system the formalism integrates: Lagrange's (kd_smech_lagrange_cms) or kd_smech_cms. */
void kd_smech_formalism_cms(kd_mech_formalism f, const kd_smech* m, kd_cms* cms);
/* The same without redundant rows of Phi_q at (t, q) (as many as the rank of Phi_q falls short:
 * those where the dependencies among the rows, the left null space of Phi_q, are largest, by QR
 * with column pivoting: the best-conditioned rows are kept; kedyn/cms_rows.h): every
 * formulation then works on an over-constrained mechanism (Bricard's linkage). *rows gets the
 * view (NULL: no redundant row, cms is kd_smech_formalism_cms's), freed by kd_cms_rows_free after
 * cms is done with; kd_cms_rows_expand maps the multipliers back onto m's nc rows. A redundant
 * driver row (an over-driven mechanism) is not dropped: the solvers report it. */
kd_status kd_smech_formalism_system(kd_mech_formalism f, const kd_smech* m, double t, const double* q, kd_cms* cms,
                                   kd_cms_rows** rows, kd_error* err);

/* kd_mbs_opts.reduced contract; ctx is the kd_smech. */
int kd_smech_kane_reduced(void* ctx, double t, const double* q, const double* qd, int f, const double* A,
                          const double* b, const double* Q, double* Mh, double* rh, double* flops);
int kd_smech_gibbs_appell_reduced(void* ctx, double t, const double* q, const double* qd, int f, const double* A,
                                  const double* b, const double* Q, double* Mh, double* rh, double* flops);

/* Lagrange's terms of body b by hyper-dual differentiation of its kinetic energy: ML (7 x 7,
 * column-major) = d2T/dq'2, h (7) = (d2T/dq' dq) q' - dT/dq (qd may be NULL: h not formed). */
void kd_smech_lagrange_terms(const kd_smech* m, int b, const double* q, const double* qd, double* ML, double* h);
/* kd_smech_cms with mass blocks M_L + c p p^T and force Q_a - h - c p (p'.p') from those terms. */
void kd_smech_lagrange_cms(const kd_smech* m, kd_cms* cms);

/* One route at single states (as kd_mech_route): q'' at consistent (t, q, q') and its work; the
 * redundant rows at (t0, q0) left out (kd_smech_formalism_system; lagrange: from its augmented
 * matrix). */
typedef struct kd_smech_route kd_smech_route;
kd_status kd_smech_route_new(kd_mech_formalism f, const kd_smech* m, double t0, const double* q0,
                             kd_smech_route** out, kd_error* err);
kd_status kd_smech_route_eval(kd_smech_route* r, double t, const double* q, const double* qd, double* qdd,
                              kd_error* err);
void kd_smech_route_work(const kd_smech_route* r, long* evaluations, double* flops);
void kd_smech_route_free(kd_smech_route** r);

#ifdef __cplusplus
}
#endif
#endif
