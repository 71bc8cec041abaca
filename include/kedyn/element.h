/* kedyn: element families behind one interface, and the beams.
 *
 * An element kind (kd_element_kind) belongs to a family (kd_family: beams;
 * membranes, plates and shells, theory.md sec. 10; solids later), decided by
 * its theory, and within it to one table (kd_element_family), decided by its
 * interpolation (a membrane's CST, T6, Q4, Q8, Q9). A table is a set
 * of constants and functions (kd_element_family below): its reference domain,
 * nodes, DOFs per node, quadrature rule and, at a reference point xi, the
 * displacement field of a material point, the strain operator and the
 * displacement gradients a pre-stress acts on. From that table alone the
 * generic code (src/fe/element_integrate.c) computes by quadrature over the
 * domain, in element coordinates (theory.md sec. 3 and 5):
 *   - the elastic stiffness  k = int B^T D B dA            (D per unit of the
 *     domain's measure: beams EA, EIz, EIy, GJ, kappa G A; plates D(E, nu) t...)
 *   - the inertia invariants of theory.md sec. 3, over the volume:
 *       m_ij = int rho N_i^T N_j dV   (i, j = displacement components x, y, z)
 *       s_i  = int rho N_i^T dV
 *       x_ik = int rho N_i^T x_k dV   (x_k measured from the element origin)
 *     where the displacement of a material point is split over the
 *     "transverse" coordinates t_a the family integrates analytically
 *     (section y, z of a beam; thickness z of a plate; none for a solid):
 *       N_i(xi, t) = N0_i(xi) + sum_a t_a Nt_a,i(xi),
 *     position r(xi, t) = x(xi) + sum_a t_a e_a, and the family's transverse
 *     moments int rho dt, int rho t_a dt, int rho t_a t_b dt;
 *   - the geometric stiffness of a pre-stress S (a symmetric tensor of
 *     resultants over the domain's directions: beams the axial force P,
 *     plates (N_x, N_xy; N_xy, N_y)):
 *       k_g = int sum_c sum_de S_de G_d,c^T G_e,c dA,   G_d,c = d u_c / d x_d.
 *     A family whose pre-stress is a fixed combination of basis fields
 *     (beams: P = p0 + p1 xi + p2 xi^2) gets the invariants g_k of each basis
 *     field precomputed; any other family (plates: (N_x, N_y, N_xy) per
 *     quadrature point from a membrane solution) passes the field to
 *     kd_element_geometric_stiffness, the same routine.
 * Every later inertia term ([m], [c], [k(eps)], [k(omega)], q_i, [m_Oi]) is a
 * fixed combination of these invariants with the frame motion of the instant
 * (kedyn/inertia.h).
 *
 * Element DOF vectors are node 1's DOFs, then node 2's, ..., each node's in
 * the order its family gives (kd_element_family.node_dofs).
 *
 * The beams (src/fe/element_beam.c): a beam element has two nodes and six
 * kinematic fields of its axis (u, v, w, theta_x, theta_y, theta_z) whose
 * shape functions kd_element_shape gives; a section point (y, z) moves by
 *   u_p = u - y theta_z + z theta_y,  v_p = v - z theta_x,  w_p = w + y theta_x,
 * and the geometric stiffness of the axial force P quadratic along the
 * element is k_g = sum_k p_k g_k, g_k = int xi^k (v'^T v' + w'^T w') dx.
 */
#ifndef KEDYN_ELEMENT_H
#define KEDYN_ELEMENT_H

#include "kedyn/desc.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KD_NODE_DOF_MAX 8                     /* 3D quintic beam: u v w rx ry rz kz ky */
#define KD_ELEM_NODE_MAX 9                    /* nodes of one element (9-node quadrilateral) */
/* DOFs of one element: sizes the per-element scratch matrices
 * (kd_inertia_terms, the formalism routes, assembly buffers). 54 = the
 * 9-node shell (6 per node), the largest element of any family; the others:
 * 8-node shell 48, 6-node shell 36, 4-node shell 24, two quintic beam nodes
 * 16, BFS plate 16, Q9 membrane 18. A stored kd_element_props holds its
 * matrices in a block sized by its own ndof (about 80 ndof^2 bytes: 46 kB
 * for a 4-node shell), not by this bound (docs/performance.md, "Element
 * records sized by their DOFs"). */
#define KD_ELEM_DOF_MAX 54
#define KD_TRANS_MAX 2                        /* transverse coordinates (beam section y, z) */
#define KD_STRAIN_MAX 9                       /* strain rows (shell: 3 membrane, 3 bending, 2 shear,
                                                 1 drilling) */
#define KD_GRAD_MAX 3                         /* directions of the pre-stress (solids: 3) */
#define KD_ELEM_AUX_MAX 300                   /* doubles of family data per element */

/* The six kinematic fields of the beam axis. */
enum { KD_F_U = 0, KD_F_V, KD_F_W, KD_F_TX, KD_F_TY, KD_F_TZ, KD_NFIELD };

/* Element families (src/fe/element_families.c maps each to its table). */
typedef enum kd_family {
    KD_FAMILY_BEAM = 0,           /* two-node beams, bars and torsion (element_beam.c) */
    KD_FAMILY_MEMBRANE,           /* plane stress: CST, T6, Q4, Q8, Q9 (element_membrane.c) */
    KD_FAMILY_PLATE,              /* plate bending: DKT, ACM, BFS (Kirchhoff), MITC4 (Mindlin)
                                     (element_plate_*.c) */
    KD_FAMILY_SHELL,              /* flat shells: CST + DKT, Q4 + MITC4 (element_shell.c); T6, Q8,
                                     Q9 (element_shell_p2.c) */
    KD_FAMILIES
} kd_family;

/* Reference domains of element families, with their reference coordinates. */
typedef enum kd_domain {
    KD_DOMAIN_LINE = 0,           /* xi in [0, 1] */
    KD_DOMAIN_TRIANGLE,           /* (xi, eta) >= 0, xi + eta <= 1 */
    KD_DOMAIN_QUADRILATERAL,      /* [-1, 1]^2 */
    KD_DOMAIN_HEXAHEDRON          /* [-1, 1]^3 */
} kd_domain;

/* An element kind: (theory, interpolation, planar). The theory decides the
 * family (kd_element_kind_family: the theories of a family form one range
 * of kd_theory, e.g. bar..Timoshenko are beams; membrane and plate theories
 * join as new values), the interpolation the element formulation within it
 * (beams: cubic or quintic Hermite; plates later: DKT, ACM, BFS, MITC4...).
 * Three fields, so {theory, interp, planar} initialisers stay complete. */
typedef struct kd_element_kind {
    kd_theory theory;
    kd_interp interp;
    int planar;                   /* 1: displacements in the x-y plane only */
} kd_element_kind;

/* The family of a kind (KD_FAMILIES for a theory no family claims). */
kd_family kd_element_kind_family(kd_element_kind kind);

/* Two-dimensional kinds (theory, interp), their table (planar ignored):
 *   membrane:  cst, t6, q4, q8, q9       node DOFs u, v
 *   kirchhoff: dkt (3 nodes), acm, bfs   w, rx, ry (bfs: w, rx, ry, wxy)
 *   mindlin:   mitc4                     w, rx, ry
 *   shell:     dkt (3 nodes: CST + DKT), mitc4 (4 nodes: Q4 + MITC4),
 *              t6, q8, q9 (membrane + Mindlin plate, assumed shear)
 *                                        u, v, w, rx, ry, rz
 * with rx = dw/dy, ry = -dw/dx in the Kirchhoff limit (a point at height z
 * moves by u = z ry, v = -z rx) and wxy = d2w/dxdy. Any other pair has no
 * table (kd_element_family_of gives NULL). */

/* Cross-section and material constants an element needs. Two-dimensional
 * elements use E, G (Poisson's ratio nu = E / (2 G) - 1), rho and the
 * thickness t; Mindlin plates and shells also kappa_y as the transverse
 * shear correction (0: 5/6). */
typedef struct kd_element_consts {
    double E, G, rho;
    double A, Iy, Iz, J;          /* Iy: about local y (bending in x-z), Iz: about z (x-y) */
    double kappa_y, kappa_z;      /* shear coefficients for shear along y and z */
    double t;                     /* membranes, plates, shells: thickness, m (> 0) */
} kd_element_consts;

struct kd_element_family;

/* Per-element quantities, computed once (kd_element_props_init) and shared
 * by every element with the same kind, geometry and constants. Matrices are
 * row-major, ndof x ndof (row stride ndof), in element coordinates, and
 * vectors ndof long: pointers into one block (`store`) that init allocates
 * for this element's ndof and kd_element_props_free releases. A record may
 * be moved or copied bitwise (the pointers go with it); free one copy. */
typedef struct kd_element_props {
    kd_element_kind kind;
    const struct kd_element_family* family;
    kd_element_consts c;
    double L;                     /* beams: element length, m */
    int nnode;                    /* nodes */
    double node_x[KD_ELEM_NODE_MAX][3]; /* node coordinates from the element origin (node 1), m */
    int ndof;                     /* element DOFs (sum of node DOFs) */
    int ncomp;                    /* displacement components: 2 planar, 3 spatial */
    /* material of the strain operator: k = int B^T D B (family init fills) */
    int nstrain;                  /* strain rows */
    double D[KD_STRAIN_MAX * KD_STRAIN_MAX]; /* row-major nstrain x nstrain */
    /* transverse moments: int rho dt, int rho t_a dt, int rho t_a t_b dt */
    double rho0, rho1[KD_TRANS_MAX], rho2[KD_TRANS_MAX][KD_TRANS_MAX];
    /* e_a: the direction of t_a in element coordinates (the family's
     * trans_dir; a shell's: its normal) */
    double trans_dir[KD_TRANS_MAX][3];
    /* rows: the element's own axes (in-plane x, y, normal) in element
     * coordinates: the identity but for shells, whose element coordinates
     * are their body's (theory.md sec. 10.7) */
    double frame[3][3];
    /* family data computed once by init for eval (the Kirchhoff plates:
     * the coefficients of their polynomial w field) */
    double aux[KD_ELEM_AUX_MAX];
    int ngeo;                     /* precomputed pre-stress basis fields (g_k), 0: none */
    double* k;                    /* (ndof^2) elastic stiffness */
    double* m_ij[3][3];           /* (ndof^2 each) int rho N_i^T N_j dV */
    double* s_i[3];               /* (ndof each) int rho N_i^T dV */
    double* x_ik[3][3];           /* (ndof each) int rho N_i^T x_k dV */
    double* g_k[3];               /* (ndof^2 each) beams: int xi^k (v'^T v' + w'^T w') dx; NULL for a
                                     family without precomputed pre-stress fields */
    double* store;                /* the one block the pointers above point into (owned) */
    double mass;                  /* int rho dV (beams: rho A L; else by quadrature) */
} kd_element_props;

/* A quadrature rule over a reference domain: points and weights (the
 * weights sum to the domain's reference measure). */
typedef struct kd_quadrature {
    int n;
    const double (*xi)[3];
    const double* w;
} kd_quadrature;

/* What a family gives at a reference point xi (kd_element_family.eval).
 * Rows are over the element DOFs; entries a family does not use are zero. */
typedef struct kd_element_point {
    double measure;               /* d(length, area, volume) / d(reference measure): L, det J */
    double x[3];                  /* position of the point (t = 0) from the element origin */
    double N0[3][KD_ELEM_DOF_MAX];             /* displacement at t = 0, components x, y, z */
    double Nt[KD_TRANS_MAX][3][KD_ELEM_DOF_MAX]; /* d displacement / d t_a */
    double B[KD_STRAIN_MAX][KD_ELEM_DOF_MAX];  /* strain rows (generalized strains) */
    double G[KD_GRAD_MAX][3][KD_ELEM_DOF_MAX]; /* G[d][c] = d u_c / d x_d, the components a
                                                  pre-stress acts on (others zero); shells: d
                                                  and c along their own axes */
} kd_element_point;

/* An element family. One file per family (src/fe/element_<name>.c) defines
 * one of these; src/fe/element_families.c lists them by kd_family. */
typedef struct kd_element_family {
    const char* name;             /* "beam" */
    kd_domain domain;
    int nnode;                    /* nodes per element */
    const double (*node_xi)[3];   /* (nnode) reference coordinates of the nodes */
    int ntrans;                   /* transverse coordinates integrated analytically */
    double trans_dir[KD_TRANS_MAX][3]; /* e_a: the direction of t_a in element coordinates */
    /* DOF names at local node `node` of an element of this kind (the node
     * kind), in element order; returns the count (<= KD_NODE_DOF_MAX). */
    int (*node_dofs)(kd_element_kind kind, int node, kd_dof_name dofs[KD_NODE_DOF_MAX]);
    /* Check the kind, constants and geometry in p (kind, c, nnode, node_x, L
     * set) and fill ncomp, nstrain, D, the transverse moments and ngeo, and
     * mass when it has a closed form (else it is summed by the quadrature).
     * KD_ERR_USAGE for an unsupported combination or a degenerate element. */
    kd_status (*init)(kd_element_props* p);
    /* The quadrature rule of the element integrals. */
    const kd_quadrature* (*quadrature)(const kd_element_props* p);
    /* Everything at reference point xi (out is fully written). */
    void (*eval)(const kd_element_props* p, const double xi[3], kd_element_point* out);
    /* Basis field k < p->ngeo of the pre-stress at xi: S (row-major
     * KD_GRAD_MAX x KD_GRAD_MAX); NULL when ngeo is always 0. */
    void (*prestress_basis)(const kd_element_props* p, int k, const double xi[3], double S[KD_GRAD_MAX * KD_GRAD_MAX]);
} kd_element_family;

/* The default table of a family (NULL for an unknown one): beams; the
 * membrane Q4, the plate MITC4, the shell Q4 + MITC4. */
const kd_element_family* kd_element_family_get(kd_family f);

/* The table of a kind (NULL for a pair of theory and interpolation no
 * family has). */
const kd_element_family* kd_element_family_of(kd_element_kind kind);

/* Every kind with a table (two-dimensional ones with planar = 0; beams
 * both): writes up to `max` into kinds, returns the total count. */
int kd_element_kinds(kd_element_kind* kinds, int max);

/* DOF names at node `node` of an element of this kind; returns the count. */
int kd_element_node_dofs_at(kd_element_kind kind, int node, kd_dof_name dofs[KD_NODE_DOF_MAX]);

/* DOF names at the first node of an element of this kind (for beams, every
 * node); returns the count (<= KD_NODE_DOF_MAX). */
int kd_element_node_dofs(kd_element_kind kind, kd_dof_name dofs[KD_NODE_DOF_MAX]);

/* Compute stiffness, inertia invariants and precomputed geometric invariants
 * of an element of any family by quadrature over its domain, from its node
 * coordinates x (nnode x 3, from node 1, element coordinates; nodes in the
 * family's order: corners counter-clockwise, then mid-side nodes from side
 * 1-2 on, then the centre). Membranes and plates lie in the element x-y
 * plane (z = 0); shells anywhere, with their own axes from the nodes
 * (p->frame). Returns KD_ERR_USAGE for an unsupported kind or constants
 * (t <= 0, E, G or rho <= 0 for a two-dimensional element), KD_ERR_INPUT for
 * a degenerate or inverted element (det J <= 0 at a node or a quadrature
 * point, nodes off the plane); the caller reports it with the element's
 * location. */
kd_status kd_element_props_init_nodes(kd_element_props* p, kd_element_kind kind, const kd_element_consts* c,
                                      const double x[][3]);

/* The same for a two-node line element (beams) of length L along x. */
kd_status kd_element_props_init(kd_element_props* p, kd_element_kind kind, const kd_element_consts* c,
                                double L);

/* Release the matrices of a record filled by kd_element_props_init or
 * kd_element_props_init_nodes (also after a failed init; p itself is the
 * caller's). Every init allocates: free a record before filling it again. */
void kd_element_props_free(kd_element_props* p);

/* The geometric stiffness of a pre-stress field given at the quadrature
 * points of p's rule: S (rule size x KD_GRAD_MAX^2, row-major symmetric
 * tensors; two-dimensional elements: (N_x, N_xy; N_xy, N_y) in N/m along
 * the element's own in-plane axes p->frame[0], [1], which for membranes and
 * plates are the element x, y; the points' positions: family->eval at
 * family->quadrature(p)->xi). kg (ndof x ndof, row-major) is overwritten. */
void kd_element_geometric_stiffness(const kd_element_props* p, const double* S, double* kg);

/* The same from the points pts[g] = family->eval(p, quadrature(p)->xi[g]) the caller evaluated
 * once for the elements sharing record p (the same sums, the same result to the bit). */
void kd_element_geometric_stiffness_at(const kd_element_props* p, const kd_element_point* pts, const double* S,
                                       double* kg);

/* The consistent mass matrix m = sum_i m_ii (row-major ndof x ndof). */
void kd_element_mass(const kd_element_props* p, double* m);

/* Beam family: shape functions of the six fields at xi in [0, 1]: N[f][a]
 * is field f's coefficient of element DOF a; dN the derivative with respect
 * to x (= d/dxi / L). Fields a kind does not have are zero. */
void kd_element_shape(kd_element_kind kind, const kd_element_consts* c, double L, double xi,
                      double N[KD_NFIELD][KD_ELEM_DOF_MAX],
                      double dN[KD_NFIELD][KD_ELEM_DOF_MAX]);

/* Beam family: shape functions of the displacement of a section point, split
 * as N_i(x, y, z) = N0[i] + y Ny[i] + z Nz[i] (i = x, y, z components), with
 * the rotary terms dropped where the kind neglects rotary inertia of bending
 * (Euler-Bernoulli). */
void kd_element_point_shape(kd_element_kind kind, double N[KD_NFIELD][KD_ELEM_DOF_MAX],
                            double N0[3][KD_ELEM_DOF_MAX], double Ny[3][KD_ELEM_DOF_MAX],
                            double Nz[3][KD_ELEM_DOF_MAX]);

/* Shear coefficient of a section shape (Cowper, 1966); for generic sections
 * returns 0 (must be given). */
double kd_section_shear_coefficient(kd_shape shape, double nu, double d, double t);

/* Fill A, Iy, Iz, J and the shear coefficients of a section, with material
 * Poisson's ratio nu. */
void kd_section_properties(const kd_section_desc* s, double nu, kd_element_consts* c);

#ifdef __cplusplus
}
#endif
#endif
