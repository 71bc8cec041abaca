/* The in-plane pre-stress of two-dimensional elements in a moving frame
 * (internal to src/fe; theory.md sec. 5.7): the membrane resultants
 * (N_x, N_y, N_xy) of six unit inertia load cases, solved once, combined at
 * each instant with the frame's a and M = E + W W into the pre-stress whose
 * geometric stiffness kd_element_geometric_stiffness gives. */
#ifndef KEDYN_FE_PRESTRESS_MEMBRANE_H
#define KEDYN_FE_PRESTRESS_MEMBRANE_H

#include "kedyn/model.h"

/* The unit cases: a_x, a_y, then M_xx, M_xy, M_yx, M_yy (body components). */
#define PRESTRESS_CASES 6

/* The unit cases of a shell not flat in its x-y plane (theory.md sec. 18.6): a_x, a_y, a_z, then
 * M_jk row by row (the nine components). */
#define PRESTRESS_CASES_SHELL 12

typedef struct prestress_membrane {
    int* elem_adr;                /* (nelem) first entry of element e in N, -1: none */
    double* N;                    /* per element with one: (rule points x PRESTRESS_CASES x 3)
                                     resultants N_x, N_y, N_xy, N/m, in the element's own axes;
                                     PRESTRESS_CASES_SHELL cases where elem_shell[e] */
    unsigned char* elem_shell;    /* (nelem) 1: the element's body took the static shell problem */
    int rule_max;                 /* the most quadrature points of any such element */
} prestress_membrane;

/* Solve the unit cases for every two-dimensional body of m with geometric
 * stiffness and a frame motion or gravity; *out is NULL when there is none. A shell not flat in
 * its x-y plane (warped, folded, curved) takes the static shell problem of its twelve unit cases
 * (theory.md sec. 18.6) instead of the membrane problem. KD_ERR_INPUT (err filled) for a body that
 * is neither flat nor a shell, or whose problem is singular. */
kd_status prestress_membrane_solve(const kd_model* m, prestress_membrane** out, kd_error* err);

/* The same with the storage of the membrane stiffness chosen: sparse = 0 the band (LAPACK's
 * dpbsv), 1 compressed columns (CHOLMOD's sparse Cholesky), -1 by size (the band below
 * PRESTRESS_SPARSE_MIN equations: prestress_membrane_solve). */
#define PRESTRESS_SPARSE_MIN 5000
kd_status prestress_membrane_solve_storage(const kd_model* m, int sparse, prestress_membrane** out, kd_error* err);

/* The same for one instant: only the unit cases c of body b with need[b * PRESTRESS_CASES + c]
 * set are solved (those whose coefficient is nonzero then: a plate spinning about an axis in its
 * plane needs M_xx alone, one right-hand side instead of six); the others' resultants are 0, so
 * prestress_membrane_field is exact for coefficients that vanish where need is 0. need NULL: all. */
kd_status prestress_membrane_solve_cases(const kd_model* m, int sparse, const unsigned char* need,
                                         prestress_membrane** out, kd_error* err);

void prestress_membrane_free(prestress_membrane** p);

/* The static shell problem of body b (prestress_shell.c; theory.md sec. 14.7, 18.6): K U = F over
 * its u, v, w, rx, ry, rz with its own supports, nrhs (<= PRESTRESS_CASES_SHELL) load columns;
 * load(ctx, p, r0, i, f) gives row i of element record p (origin r0, body components) of every
 * column, f[c]. */
typedef void (*prestress_shell_load)(const void* ctx, const kd_element_props* p, const double r0[3], int i,
                                     double* f);
typedef struct prestress_shell_solution {
    int body, nrhs, neq;
    int* eq;                      /* (6 x body nodes) equation of each DOF, -1: supported */
    double* u;                    /* (neq x nrhs) column-major */
} prestress_shell_solution;
/* KD_ERR_NUMERIC when the supports hold no rigid motion (singular), KD_ERR_NOMEM. */
kd_status prestress_shell_solve(const kd_model* m, int b, int nrhs, prestress_shell_load load, const void* ctx,
                                prestress_shell_solution* s);
/* The resultants N_x, N_y, N_xy (element axes) of every column at quadrature point g of element
 * e of the body: N[3 c + r]. */
void prestress_shell_point(const kd_model* m, int e, const prestress_shell_solution* s, int g, double* N);
void prestress_shell_free(prestress_shell_solution* s);
/* Is body b flat in its x-y plane (|z| <= 1e-9 of its in-plane extent at every node)? */
int prestress_shell_flat(const kd_model* m, int b);

/* The pre-stress of element e at the quadrature points of its rule for frame
 * acceleration a (a_O,L - g_L) and M = E + W W (body components, row-major):
 * S (rule points x KD_GRAD_MAX^2, symmetric tensors). Returns 0 when e has
 * none. */
int prestress_membrane_field(const prestress_membrane* ps, const kd_model* m, int e, const double a[3],
                             const double M[9], double* S);

#endif
