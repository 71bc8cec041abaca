/* Internal to src/mechanism: the solver workspace and dense helpers. */
#ifndef KEDYN_MECH_INTERNAL_H
#define KEDYN_MECH_INTERNAL_H

#include "joints.h"
#include "kedyn/mech.h"

/* Constraint rows of a joint type. */
int mech_joint_rows(kd_joint_type t);

/* The joint equations (src/mechanism/joints.c) of a description's joint type. */
joint_type mech_joint_type(kd_joint_type t);

/* Local Jacobian rows: jl[JOINT_SLOTS r + slot], slot 0..JOINT_SLOTS-1 = the slots (x, y, phi,
 * then u, v, rz, zero for a rigid body; kedyn/body.h) of the joint's first point, then of its
 * second, for every row r (nc x JOINT_SLOTS). */
void mech_jacobian_local(const kd_mech* m, double t, const double* q, double* jl);

struct kd_mech_work {
    int n, nc, nc_joint, ndriver;
    double* jac;                  /* (jac_nnz) */
    double* A;                    /* (ld_A x max(n, nc)) dense Phi_q, column-major */
    int ld_A;                     /* max(n, nc) */
    double* rhs;                  /* (max(n, nc) + n + nc) */
    double* phi;                  /* (nc) */
    double* s;                    /* (n + nc) singular values */
    double* K;                    /* ((n + nc)^2) augmented matrix / SVD scratch */
    double* x;                    /* (n + nc) */
    double* VT;                   /* (n x n) right singular vectors */
    double* P;                    /* (n x ndriver) partial velocities; then scratch */
    double* C;                    /* (ndriver^2) */
    double* R;                    /* (n) M q'' - Q */
    double* Q;                    /* (n) */
    double* jl;                   /* (JOINT_SLOTS nc) local Jacobian rows */
    int* ipiv;                    /* (n + nc) */
    int* iwork;                   /* (n + nc) */
    int lu_valid;                 /* 1: A holds the LU factors of the last Phi_q solved */
    double* rs;                   /* (nc) row scales of the equilibrated Phi_q */
    double* cs;                   /* (n) column scales: 1 for x, y; 1 / L for phi */
    int det_sign;                 /* sign of det(Phi_q) at the last LU, 0 when not square */
    double* work;                 /* LAPACK workspace */
    int lwork;
    int rank_expected;            /* rank of Phi_q at assembly (kinematics) */
};

/* Minimum-norm least-squares solution of A x = b by the SVD (LAPACK dgelss).
 * A: rows x cols column-major with leading dimension lda (destroyed); b: on
 * entry the rhs (length >= max(rows, cols)), on exit x in its first cols
 * entries. s gets min(rows, cols) singular values, *rank the numerical rank
 * with relative tolerance rcond. Returns 0, or nonzero when LAPACK fails. */
int mech_lsq(kd_mech_work* w, int rows, int cols, double* A, int lda, double* b, double rcond, double* s, int* rank);

/* Condition number s_1 / s_rank of the first `rank` singular values (inf
 * when rank exceeds the count or s_rank is 0). */
double mech_cond(const double* s, int ns, int rank);

#endif
