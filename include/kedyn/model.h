/* kedyn: the compiled, immutable model.
 *
 * kd_model_compile() checks a description (kedyn/desc.h) for consistency and
 * turns it into flat arrays: bodies, nodes, elements, the DOF map and the
 * per-element invariants. Elements of identical kind, length, material and
 * section share one kd_element_props record, so a uniform beam of 100 000
 * elements stores its invariants once. Nothing in a kd_model changes after
 * compilation; analyses keep what changes in their own state.
 *
 * Nodes carry body-frame coordinates (node_x). Element e has
 * elem_node_adr[e+1] - elem_node_adr[e] nodes, elem_node[elem_node_adr[e]..]
 * in its family's local node order (kd_model_elem_nodes); its kind, family
 * and invariants are in prop[elem_prop[e]].
 *
 * DOF numbering: node n owns node_dof_num[n] consecutive DOFs starting at
 * node_dof_adr[n] ("all DOFs", fixed ones included), named by its node kind:
 * the DOFs its elements' family puts at that local node
 * (kd_element_node_dofs_at). dof_eq maps each to its equation number in the
 * reduced (supported) system, or -1 when fixed. Nodes are numbered body by
 * body along each beam, so the reduced matrices are banded with
 * half-bandwidth `bandwidth`.
 *
 * Ownership: kd_model_compile allocates; kd_model_free releases and clears.
 */
#ifndef KEDYN_MODEL_H
#define KEDYN_MODEL_H

#include "kedyn/band.h"
#include "kedyn/desc.h"
#include "kedyn/element.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kd_body {
    char name[KD_NAME_MAX];
    kd_body_type type;
    kd_element_kind kind;         /* element kind of a beam body (its family: kd_element_family_of) */
    int node_adr, node_num;       /* first node and node count */
    int elem_adr, elem_num;       /* first element and element count */
    double length;                /* m */
    double origin[3];             /* global position of node 1, m */
    double rot[9];                /* body axes in global components, row-major:
                                     column j = local axis j (x along the beam) */
    double mass;                  /* kg */
    double lambda_hint;           /* a lower estimate of its first nonzero eigenvalue
                                     (omega^2) from the analytic beam formulas; sets
                                     the shift of sparse eigensolvers */
    kd_motion motion;             /* prescribed frame motion (KD_MOTION_NONE: fixed frame) */
    double damp_alpha, damp_beta; /* Rayleigh damping C = alpha M + beta K of the body */
    double preload;               /* static axial force, N (tension > 0) */
    int geometric;                /* 1: geometric stiffness of the axial force is included */
} kd_body;

/* A load on one free DOF, a law of time. */
typedef struct kd_nodal_load {
    int eq;                       /* reduced equation (loads on fixed DOFs are dropped) */
    kd_law value;                 /* owned */
} kd_nodal_load;

typedef struct kd_model {
    /* sizes */
    int nbody, nnode, nelem, nprop;
    int ndof_all;                 /* all nodal DOFs, fixed ones included */
    int neq;                      /* free DOFs = equations of the reduced system */
    int bandwidth;                /* half-bandwidth of reduced matrices */

    kd_body* body;                /* (nbody) */

    /* nodes */
    double* node_x;               /* (nnode x 3) position in the body frame, m (beams: (s, 0, 0)) */
    int* node_body;               /* (nnode) owning body */
    int* node_dof_adr;            /* (nnode) first DOF in all-DOF numbering */
    int* node_dof_num;            /* (nnode) DOF count */
    kd_dof_name* dof_name;        /* (ndof_all) local name of each DOF */
    int* dof_eq;                  /* (ndof_all) reduced equation, -1 when fixed */

    /* elements */
    int* elem_node_adr;           /* (nelem + 1) first entry of each element in elem_node */
    int* elem_node;               /* (elem_node_adr[nelem]) nodes of each element, in order */
    int* elem_body;               /* (nelem) owning body */
    int* elem_prop;               /* (nelem) index into prop */
    double* elem_s0;              /* (nelem) position of the element origin (its first node)
                                     along the body's x axis, m (beams: the x of node_x; the
                                     moving-frame terms take the whole origin r0 = node_x of the
                                     first node, kd_model_elem_place, kedyn/inertia.h) */
    double* elem_rot;             /* (nelem x 9) or NULL: the axes of each element in body
                                     components (row-major, column j = element axis j), for
                                     elements whose coordinates are not the body's (a flat shell
                                     element in 3D); NULL: every element's axes are the body's.
                                     The element's node 1 is its origin (node_x), its invariants
                                     and DOFs are element components (kedyn/inertia.h,
                                     kd_element_place). Every body type compiled today leaves
                                     it NULL; one that sets it frees it in kd_model_free */
    double* elem_axial;           /* (nelem x 2 x 3) axial force in the element per unit
                                     load case, P(xi) = p0 + p1 xi + p2 xi^2: case 0 a unit
                                     axial frame acceleration a_Ox = 1 m/s^2, case 1 a unit
                                     centrifugal field omega_y^2 + omega_z^2 = 1 rad^2/s^2
                                     (theory.md sec. 5) */

    kd_element_props* prop;       /* (nprop) shared per-element invariants */

    double total_mass;            /* kg */

    /* loads */
    int nnodal;
    kd_nodal_load* nodal;         /* (nnodal) */
    double gravity[3];            /* m/s^2, global */

    /* the in-plane pre-stress of two-dimensional elements at rest under
     * gravity (theory.md sec. 14.2), for their geometric stiffness in
     * kd_assemble_*: element e's symmetric tensors S (rule points x
     * KD_GRAD_MAX^2, as kd_element_geometric_stiffness takes them) from
     * rest_S + rest_adr[e]; rest_adr NULL or rest_adr[e] = -1: none. The
     * compiler leaves them NULL; kd_model_rest_prestress fills them (the
     * modes at rest do so on a shallow copy of the model) */
    int* rest_adr;                /* (nelem) or NULL */
    double* rest_S;
} kd_model;

/* Check a description and compile it. On an input error returns
 * KD_ERR_INPUT with err filled (file, line, column of the item); *out is
 * left NULL. */
kd_status kd_model_compile(const kd_desc* d, kd_model** out, kd_error* err);

/* Warnings about a valid model that is likely not what the user meant: a
 * beam without supports (rigid-body modes), more modes requested than free
 * DOFs, and bending beams so finely meshed that double-precision round-off
 * in their lowest frequency, as the modal solver will compute it
 * (kd_modes_roundoff), exceeds 1e-6. Fills up to `max` reports (status KD_OK,
 * located at the item) and returns how many there are in all. */
int kd_model_warnings(const kd_desc* d, const kd_model* m, kd_error* out, int max);

/* Assemble the stiffness K and consistent mass M of the reduced system at
 * rest: sum over elements of their k + k_g and m at the free DOFs, k_g the
 * geometric stiffness of the body's preload and of gravity (a body at rest
 * feels gravity as the frame acceleration -R^T g; theory.md sec. 5), the
 * same stiffness kd_system builds for a body without motion. Both must be
 * initialised with n = m->neq and kd = m->bandwidth. */
void kd_assemble_stiffness_mass(const kd_model* m, kd_band* K, kd_band* M);
/* The same K and M in compressed columns (kedyn/band.h, kd_csc: upper
 * triangle, one shared pattern: the entries that any element couples), for
 * the sparse solver of plate models. Returns KD_ERR_NOMEM (K and M then
 * empty) when the memory runs out. */
kd_status kd_assemble_stiffness_mass_csc(const kd_model* m, kd_csc* K, kd_csc* M, kd_error* err);

/* The geometric stiffness k_g of element e (row-major, its ndof x ndof) for
 * an axial frame acceleration ax (m/s^2, gravity included) and a centrifugal
 * field omega2 = Omega_y^2 + Omega_z^2 (rad^2/s^2), plus the body's preload:
 * k_g = sum_k p_k g_k with P(xi) = ax P_a + omega2 P_c + preload (theory.md
 * sec. 5). Returns 0 (kg untouched) when the element has none (a bar, or a
 * body without geometric_stiffness). */
int kd_model_elem_geometric(const kd_model* m, int e, double ax, double omega2, double* kg);

/* Fill m->rest_adr and m->rest_S when gravity has a component in the plane
 * of a flat 2D body with geometric stiffness (its membrane problem solved,
 * theory.md sec. 14.2), or acts on a shell with geometric stiffness that is
 * not flat or is loaded normal to its plane (the static shell problem,
 * sec. 14.7); both NULL otherwise. KD_ERR_INPUT (err filled) when such a
 * body's supports cannot hold it. The caller frees both. */
kd_status kd_model_rest_prestress(kd_model* m, kd_error* err);

/* The geometric stiffness at rest of element e (row-major, in element DOFs,
 * placed like its k): beams from the axial force of gravity and preload
 * (kd_model_elem_geometric with kd_model_rest_axial_acceleration), 2D
 * elements from their in-plane pre-stress under gravity (rest_S; theory.md
 * sec. 14.2). Returns 0 (kg untouched) when the element has none. */
int kd_model_elem_rest_geometric(const kd_model* m, int e, double* kg);

/* The axial frame acceleration body b feels at rest: -(R^T g)_x. */
double kd_model_rest_axial_acceleration(const kd_model* m, int b);

/* The consistent mass M alone (as kd_assemble_stiffness_mass). */
void kd_assemble_mass(const kd_model* m, kd_band* M);

/* Square-root factors of the stiffness at rest and of the mass, never
 * forming K: A^T A = K (k + k_g of kd_assemble_stiffness_mass) and
 * C^T C = M, one block of rows per element (theory.md sec. 3.6): each
 * element matrix scaled to a unit diagonal, decomposed into eigenpairs, its null space (rigid-body motions) dropped; k and k_g
 * factored apart. Returns KD_ERR_NUMERIC (err says which element) when an
 * element matrix is indefinite (a compressed k_g), A and C then empty. */
kd_status kd_assemble_square_roots(const kd_model* m, kd_triplet* A, kd_triplet* C, kd_error* err);
/* (C may be NULL: A alone.) */

/* The Rayleigh quotients x^T K x / x^T M x of the stiffness at rest
 * (kd_assemble_stiffness_mass) for `count` vectors of the reduced equations
 * (x: count x neq, row by row) into lambda, summed element by element in
 * long double, each element's k applied to its deformation (x less the
 * rigid motion of its first node), so that each is accurate to about eps
 * instead of eps lambda_max / lambda (theory.md sec. 3.6). Returns -1 (lambda
 * untouched) when an element does not annihilate rigid motions as beams do,
 * or out of memory. */
int kd_model_rest_rayleigh(const kd_model* m, const double* x, int count, double* lambda);

/* An upper bound of the largest eigenvalue of K x = lambda M x (elastic K):
 * the largest over the element records of lambda_max(k_e, m_e). */
double kd_model_lambda_max(const kd_model* m);

/* Free a model; clears *m. NULL is allowed. */
void kd_model_free(kd_model** m);

/* The element DOFs of element e as reduced equation numbers (-1 = fixed).
 * Returns the element DOF count. */
int kd_model_elem_eqs(const kd_model* m, int e, int* eqs);

/* The nodes of element e (*nodes points into m->elem_node); returns their
 * count. */
int kd_model_elem_nodes(const kd_model* m, int e, const int** nodes);

/* The index of a body by name, or -1. */
int kd_model_find_body(const kd_model* m, const char* name);

/* Global position of node n (undeformed), m. */
void kd_model_node_position(const kd_model* m, int n, double x[3]);

#ifdef __cplusplus
}
#endif
#endif
