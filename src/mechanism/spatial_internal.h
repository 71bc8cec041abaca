/* Internal to src/mechanism: the spatial mechanism's body terms and row evaluation. */
#ifndef KEDYN_SPATIAL_INTERNAL_H
#define KEDYN_SPATIAL_INTERNAL_H

#include "kedyn/smech.h"

#define SP_SLOTS (2 * KD_SPOSE)   /* local Jacobian entries of a row: body 0's 7, body 1's 7 */

/* A point (with translation) or an axis of a body at (q, q') (theory.md S3). */
typedef struct sp_vterm {
    int body, point;
    double v[3];                  /* value (global) */
    double J[3][4];               /* d v / d p */
    double vd[3];                 /* v' */
    double acc[3];                /* 2 A(p') s: v'' at q'' = 0 */
} sp_vterm;

void sp_rot_apply(const double p[4], const double s[3], double out[3]);
void sp_rot_jac(const double p[4], const double s[3], double J[3][4]);
void sp_G(const double p[4], double G[3][4]);
void sp_E(const double p[4], double E[3][4]);
void sp_term(const kd_smech* m, int b, const double s[3], int point, const double* q, const double* qd, sp_vterm* o);
void sp_term_at(const kd_smech* m, int b, const double s[3], int point, const double* q, const double* qd, int jac,
                sp_vterm* o);
void sp_term_jac_add(const sp_vterm* t, const double w[3], double scale, int slot, double* jl);

/* Rows of joint k (or of a normalisation / driver row through sp_rows_all): phi (nrow), jl
 * (SP_SLOTS per row), gamma (nrow, needs qd); each output may be NULL. */
void sp_joint_eval(const kd_smech* m, int k, const double* q, const double* qd, double* phi, double* jl,
                   double* gamma);
/* Every row: phi (nc), jl (SP_SLOTS nc), phi_t (nc), gamma (nc); outputs may be NULL. */
void sp_rows_all(const kd_smech* m, double t, const double* q, const double* qd, double* phi, double* jl,
                 double* phi_t, double* gamma);

#endif
