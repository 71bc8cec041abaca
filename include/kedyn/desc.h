/* kedyn: the model description.
 *
 * A plain-data description of a model, as written in a model file
 * (docs/model-format.md): materials, sections, bodies, supports, analyses,
 * output requests. It is produced by the YAML loader (kedyn/load_yaml.h) or
 * built directly in code (the demo, tests, benchmarks), and consumed by the
 * compiler (kedyn/model.h), which checks its consistency and produces the
 * immutable compiled model. Every item keeps the location it was read from so
 * that errors found later still point into the model file.
 *
 * Ownership: a kd_desc owns all its arrays; free it with kd_desc_free().
 * Names are fixed-size, NUL-terminated strings.
 */
#ifndef KEDYN_DESC_H
#define KEDYN_DESC_H

#include <stddef.h>

#include "kedyn/frame.h"
#include "kedyn/law.h"
#include "kedyn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KD_NAME_MAX 64

/* ---- materials ---------------------------------------------------------- */

typedef struct kd_material_desc {
    char name[KD_NAME_MAX];
    double E;      /* Young's modulus, Pa (> 0) */
    double rho;    /* density, kg/m^3 (> 0) */
    double nu;     /* Poisson's ratio (default 0.3), -1 < nu < 0.5 */
    double G;      /* shear modulus, Pa; 0 means E / (2 (1 + nu)) */
    kd_loc loc;
} kd_material_desc;

/* ---- sections ----------------------------------------------------------- */

typedef enum kd_shape {
    KD_SHAPE_CIRCLE = 0,    /* d */
    KD_SHAPE_TUBE,          /* d (outer), t (wall) */
    KD_SHAPE_RECTANGLE,     /* b (along local z), h (along local y) */
    KD_SHAPE_GENERIC        /* A, Iy, Iz, J, shear_y, shear_z */
} kd_shape;

typedef struct kd_section_desc {
    char name[KD_NAME_MAX];
    kd_shape shape;
    double d, t, b, h;           /* dimensions used by the shape, m */
    double A, Iy, Iz, J;         /* generic: area m^2, second moments m^4, torsion constant m^4 */
    double shear_y, shear_z;     /* shear coefficients kappa; 0 = from shape (generic: required
                                    only by timoshenko bodies) */
    kd_loc loc;
} kd_section_desc;

/* ---- bodies ------------------------------------------------------------- */

typedef enum kd_body_type {
    KD_BODY_GROUND = 0,
    KD_BODY_BEAM,
    KD_BODY_RIGID,                /* planar rigid body of a mechanism (kedyn/mech.h) */
    KD_BODY_PLATE                 /* a mesh of 2D elements: membrane, plate or shell */
} kd_body_type;

typedef enum kd_theory {
    KD_THEORY_BAR = 0,            /* axial only (3D: axial and torsion) */
    KD_THEORY_EULER_BERNOULLI,    /* bending without rotary inertia or shear */
    KD_THEORY_RAYLEIGH,           /* + rotary inertia of the section */
    KD_THEORY_TIMOSHENKO,         /* + shear deformation */
    /* two-dimensional elements (kedyn/element.h; theory.md sec. 10) */
    KD_THEORY_MEMBRANE,           /* plane stress: in-plane u, v */
    KD_THEORY_KIRCHHOFF,          /* thin plate bending: w, theta_x, theta_y */
    KD_THEORY_MINDLIN,            /* thick plate bending with transverse shear */
    KD_THEORY_SHELL,              /* flat shell: membrane + bending in 3D, 6 DOFs per node */
    KD_THEORIES
} kd_theory;

typedef enum kd_interp {
    KD_INTERP_CUBIC = 0,          /* beams: nodal v, v' */
    KD_INTERP_QUINTIC,            /* beams: nodal v, v', v'' */
    /* membranes */
    KD_INTERP_CST,                /* 3-node constant-strain triangle */
    KD_INTERP_T6,                 /* 6-node quadratic triangle */
    KD_INTERP_Q4,                 /* 4-node bilinear quadrilateral */
    KD_INTERP_Q8,                 /* 8-node serendipity quadrilateral */
    KD_INTERP_Q9,                 /* 9-node Lagrange quadrilateral */
    /* plates (and the bending part of shells) */
    KD_INTERP_DKT,                /* 9-DOF discrete Kirchhoff triangle (Batoz, Bathe, Ho 1980) */
    KD_INTERP_ACM,                /* 12-DOF rectangle (Adini, Clough, Melosh) */
    KD_INTERP_BFS,                /* 16-DOF conforming rectangle (Bogner, Fox, Schmit) */
    KD_INTERP_MITC4,              /* 4-node Mindlin quadrilateral (Bathe, Dvorkin 1985) */
    KD_INTERPS
} kd_interp;

#define KD_POINTS_MAX 16

/* ---- meshes and node sets (plates) ----------------------------------------
 * A plate's mesh lies in the x-y plane of its body frame. It is either a
 * structured rectangle (size, divisions) or read from a Gmsh file; either
 * way, once loaded (kd_mesh_rectangle for a rectangle, the Gmsh reader of
 * src/load for a file) it holds its nodes and elements. Node numbers of a
 * model file (`node: N`) are the mesh's node tags (a rectangle: 1..n in mesh
 * order; a Gmsh file: its node tags); inside a description, nodes are
 * 1-based positions in the mesh arrays. */

typedef enum kd_mesh_source {
    KD_MESH_RECTANGLE = 0,        /* structured a x b into nx x ny cells */
    KD_MESH_FILE                  /* Gmsh 4 ASCII file */
} kd_mesh_source;

typedef struct kd_mesh_desc {
    kd_mesh_source source;
    double size[2];               /* rectangle: a (along x), b (along y), m */
    int divisions[2];             /* rectangle: nx, ny cells */
    char file[1024];              /* file: the path as given in the model file */
    double origin[3];             /* global position of the mesh's (0, 0, 0), m */
    double x_axis[3], normal[3];  /* global directions of the body's x and z axes
                                     (all zero: global x and z) */
    /* nodes and elements, filled by the mesher or the file reader (owned) */
    int nnodes;
    double* node_x;               /* (nnodes x 3) body-frame coordinates, m */
    int* node_tag;                /* (nnodes) the node numbers of the model file */
    int nelems, elem_nnode;       /* elements and nodes per element */
    int* elem;                    /* (nelems x elem_nnode) 0-based node indices, counter-
                                     clockwise corners first, then mid-sides, then centre */
    int* elem_line;               /* file: (nelems) the line of each element in the file */
    kd_loc loc;
} kd_mesh_desc;

typedef struct kd_node_set_desc {
    char name[KD_NAME_MAX];
    unsigned axes;                /* coordinate predicate: bit k set = coordinate k in [lo, hi] */
    double lo[3], hi[3];          /* body-frame coordinates, m */
    double tol;                   /* tolerance of the predicate, m (0: 1e-6 of the mesh size) */
    int nnodes;
    int* nodes;                   /* (nnodes) selected nodes, 1-based mesh positions (owned);
                                     a Gmsh physical group or the predicate's result */
    kd_loc loc;
} kd_node_set_desc;

typedef struct kd_point_desc {
    char name[KD_NAME_MAX];
    double x[3];                  /* global coordinates, m (z = 0 when given in 2D) */
    kd_loc loc;
} kd_point_desc;

typedef struct kd_body_desc {
    char name[KD_NAME_MAX];
    kd_body_type type;
    int material;                 /* index into kd_desc.materials (beam), -1 otherwise */
    int section;                  /* index into kd_desc.sections (beam), -1 otherwise */
    double length;                /* m; for beams given by points: distance first..last */
    int npoints;                  /* named points in file order (0 when given by length) */
    kd_point_desc points[KD_POINTS_MAX];
    int elements;                 /* number of finite elements (beam, >= 1) */
    kd_theory theory;
    kd_interp interpolation;
    int planar;                   /* 1: planar element (u, v, rz); 0: 3D (12 DOF family) */
    int geometric_stiffness;      /* 1: include stress stiffening of axial pre-stress */
    double y_axis[3];             /* 3D beams: requested direction of the local y axis
                                     (all zero = default, see docs/model-format.md) */
    double preload;               /* static axial force (tension > 0), N, added to the
                                     axial force of the rigid motion in k_g */
    int frame_node;               /* beam in a mechanism (joints on its points): 0 = chord
                                     frame (x axis through its first and last joint nodes);
                                     N >= 1 = the frame of node N (root frame) */
    kd_loc loc_frame;
    int modes;                    /* beam in a mechanism: > 0 projects the one-way link on its lowest
                                     `modes` constrained modes at rest (theory.md sec. 12.11) */
    int statics;                  /* with modes, the static correction: 0 none, 1 at the output
                                     instants (default), 2 in the basis */
    /* rigid bodies (points are then in the body frame; ground points are global) */
    double mass;                  /* kg (> 0) */
    double inertia;               /* about the centre of mass, kg m^2 (> 0) */
    double com[3];                /* centre of mass in the body frame, m */
    double position[3];           /* initial guess of the body frame origin (global), m */
    double angle;                 /* initial guess of the body frame angle, rad */
    /* plates */
    double thickness;             /* m (> 0) */
    kd_mesh_desc mesh;            /* owned arrays */
    int nnode_sets;
    kd_node_set_desc* node_sets;  /* (nnode_sets) owned */
    kd_loc loc;
    kd_loc loc_material, loc_section;  /* where the references were written */
} kd_body_desc;

/* ---- supports ----------------------------------------------------------- */

/* Degree-of-freedom names at a node, in the body's local frame. The bit
 * values form a mask in kd_support_desc.fix. */
typedef enum kd_dof_name {
    KD_DOF_U = 0, KD_DOF_V, KD_DOF_W,     /* translations along x, y, z */
    KD_DOF_RX, KD_DOF_RY, KD_DOF_RZ,      /* rotations about x, y, z */
    KD_DOF_KZ, KD_DOF_KY,                 /* curvatures v'', w'' (quintic) */
    KD_DOF_WXY,                           /* twist d2w/dxdy (BFS plate) */
    KD_DOF_NAMES
} kd_dof_name;

/* `fix: all`: a clamp, i.e. every translation and rotation the node has
 * (KD_FIX_CLAMP); the curvature DOFs kz, ky of quintic elements stay free,
 * since a clamped end carries a bending moment. Fix them by name if needed. */
#define KD_FIX_ALL 0xFF
#define KD_FIX_CLAMP 0x3Fu

typedef struct kd_support_desc {
    int body;                     /* index into kd_desc.bodies */
    int node;                     /* 1-based node number on that body */
    unsigned fix;                 /* bit mask of (1 << kd_dof_name), or KD_FIX_ALL */
    kd_loc loc;
    kd_loc loc_node, loc_fix;
} kd_support_desc;

/* ---- joints and drivers (mechanisms, kedyn/mech.h) ----------------------- */

typedef enum kd_joint_type {
    KD_JOINT_REVOLUTE = 0,        /* points coincide (2 equations) */
    KD_JOINT_PRISMATIC,           /* second point slides along `axis` of the first body,
                                     relative angle fixed (2) */
    KD_JOINT_FIXED,               /* weld: points coincide, relative angle fixed (3) */
    KD_JOINT_DISTANCE,            /* rigid link of `length` between the points (1) */
    KD_JOINT_ROLLING,             /* second body, a disc of `radius` centred on its point,
                                     rolls without slipping on the line of the first body
                                     through its point along `axis` (2) */
    KD_JOINT_TYPES
} kd_joint_type;

typedef struct kd_joint_desc {
    char name[KD_NAME_MAX];
    kd_joint_type type;
    int body[2];                  /* indices into kd_desc.bodies (ground or rigid) */
    int point[2];                 /* index of the named point on each body */
    double axis[3];               /* prismatic, rolling: direction in the first body's frame */
    double length;                /* distance: m; 0 = the distance in the initial guess */
    double radius;                /* rolling: m (> 0) */
    kd_loc loc;
} kd_joint_desc;

typedef struct kd_driver_desc {
    int joint;                    /* index into kd_desc.joints (revolute or prismatic) */
    kd_law law;                   /* relative angle (rad) or displacement (m) = initial + law(t); owned */
    double initial;               /* added to the law, rad or m */
    kd_loc loc;
} kd_driver_desc;

/* ---- analyses ----------------------------------------------------------- */

/* ---- frame motion, damping, loads (moving-frame analyses) --------------- */

typedef struct kd_motion_desc {
    int body;                     /* index into kd_desc.bodies (a beam) */
    kd_motion motion;             /* owned (laws may own tables) */
    kd_loc loc;
} kd_motion_desc;

typedef struct kd_damping_desc {
    int body;                     /* index into kd_desc.bodies */
    double alpha, beta;           /* Rayleigh damping C = alpha M + beta K of the body */
    kd_loc loc;
} kd_damping_desc;

typedef enum kd_load_type {
    KD_LOAD_NODAL = 0,            /* a force or moment on one DOF of a node, in the body frame */
    KD_LOAD_GRAVITY,              /* uniform acceleration field g (global), on every beam
                                     and rigid body */
    /* mechanism forces (kedyn/mech.h) */
    KD_LOAD_SPRING,               /* spring-damper between points of two bodies */
    KD_LOAD_FRICTION,             /* Coulomb friction on a joint, smoothed */
    KD_LOAD_TORQUE,               /* a torque about z on a rigid body (value) */
    KD_LOAD_FORCE                 /* a force at a point of a rigid body (value, value_y) */
} kd_load_type;

typedef struct kd_load_desc {
    kd_load_type type;
    int body, node;               /* nodal: body index, 1-based node */
    kd_dof_name dof;              /* nodal: the DOF the load acts on */
    kd_law value;                 /* nodal: N or N m as a law of time (owned) */
    double g[3];                  /* gravity, m/s^2 (global) */
    /* mechanism forces */
    int body2;                    /* spring: second body index */
    int point[2];                 /* spring: points on body and body2; force: point on body */
    double k, length, c;          /* spring: N/m, free length m (0: a zero-length vector
                                     spring), N s/m */
    int joint;                    /* friction: index into kd_desc.joints */
    double force;                 /* friction: Coulomb force N (torque N m at a revolute) */
    double v_smooth;              /* friction: smoothing speed, m/s or rad/s (> 0; 0 in a
                                     description built in code: KD_FRICTION_V_SMOOTH_DEFAULT) */
    kd_law value_y;               /* force: y component (value holds x; torque: value), owned */
    kd_loc loc;
} kd_load_desc;

typedef enum kd_analysis_type {
    KD_ANALYSIS_MODES = 0,        /* natural frequencies at t (with rotation: gyroscopic) */
    KD_ANALYSIS_CAMPBELL,         /* frequencies versus a list of rotation speeds */
    KD_ANALYSIS_STABILITY,        /* critical speed over a grid of hub distances and lengths */
    KD_ANALYSIS_DYNAMICS,         /* transient response */
    KD_ANALYSIS_KINEMATICS,       /* mechanism positions, velocities, accelerations */
    KD_ANALYSIS_INVERSE_DYNAMICS, /* mechanism joint reactions and driving forces */
    KD_ANALYSIS_MODES_ALONG_MOTION, /* natural frequencies of each elastic link of a mechanism
                                     along its rigid motion (kedyn/ked.h) */
    KD_ANALYSIS_SWEEP,            /* another analysis repeated over values of a model parameter */
    /* measured records (kedyn/record.h, kedyn/signal.h; docs/model-format.md, "Records") */
    KD_ANALYSIS_SPECTRUM,         /* Welch spectra of record columns (and a waterfall) */
    KD_ANALYSIS_FRF,              /* frequency response functions of a hammer test */
    KD_ANALYSIS_IDENTIFY,         /* modal identification from the FRFs */
    KD_ANALYSIS_CORRELATE,        /* identified against computed modes (MAC pairing) */
    KD_ANALYSIS_VIRTUAL_TEST,     /* a simulated impact test writing a record */
    KD_ANALYSIS_TYPES
} kd_analysis_type;

/* ---- the vocabulary of analyses ------------------------------------------
 * Every optional choice has an explicit UNSET (0, what kd_analysis_desc_init
 * and an omitted key give); kd_dynamics_resolve turns UNSET into the default
 * of the route that runs the analysis. The names are those of model files
 * (kd_*_name below, src/core/desc_names.c). */

typedef enum kd_eigen_solver {
    KD_EIGEN_AUTO = 0,            /* dense LAPACK for small problems, else sparse shift-invert */
    KD_EIGEN_DENSE,               /* LAPACK dsygvd on the full matrices */
    KD_EIGEN_LANCZOS,             /* ARPACK-ng shift-invert Lanczos on banded storage */
    KD_EIGEN_SOLVERS
} kd_eigen_solver;

/* The time integrator a dynamics analysis names (`integrator`). The elastic
 * routes map it to kd_integrator (kedyn/integrate.h), mechanisms and two-way
 * links to kd_mbs_integrator (kedyn/mbs.h). */
typedef enum kd_dynamics_integrator {
    KD_INTEGRATOR_UNSET = 0,      /* the route's default (kd_dynamics_resolve) */
    KD_INTEGRATOR_NEWMARK,        /* fixed dt; beta, gamma */
    KD_INTEGRATOR_HHT,            /* fixed dt; alpha in [-1/3, 0] */
    KD_INTEGRATOR_GENERALIZED_ALPHA, /* fixed dt; rho_inf in [0, 1] */
    KD_INTEGRATOR_CVODE_BDF,      /* adaptive; rtol, atol */
    KD_INTEGRATOR_CVODE_ADAMS,
    KD_INTEGRATOR_ARKODE_RK,      /* explicit adaptive Runge-Kutta */
    KD_INTEGRATOR_HAMILTON_CVODE, /* Hamilton's canonical equations, CVODE BDF */
    KD_INTEGRATOR_IMPLICIT_MIDPOINT, /* Hamilton's canonical equations, fixed dt, symplectic */
    KD_INTEGRATOR_RK4,            /* classical fixed-step Runge-Kutta (mechanisms, two-way links) */
    KD_INTEGRATORS
} kd_dynamics_integrator;

/* The `formalism` of a dynamics analysis: the route of the inertia terms.
 * invariants and hamilton are routes of elastic bodies (kedyn/formalism.h),
 * newton-euler and maggi of systems with joints (kedyn/mech_formalism.h);
 * lagrange, kane and gibbs-appell name a route of both. */
typedef enum kd_dynamics_formalism {
    KD_DYN_FORMALISM_UNSET = 0,   /* elastic: invariants (hamilton with a canonical integrator);
                                     mechanisms: the formalism the formulation implements */
    KD_DYN_FORMALISM_INVARIANTS,
    KD_DYN_FORMALISM_LAGRANGE,
    KD_DYN_FORMALISM_KANE,
    KD_DYN_FORMALISM_GIBBS_APPELL,
    KD_DYN_FORMALISM_HAMILTON,
    KD_DYN_FORMALISM_NEWTON_EULER,
    KD_DYN_FORMALISM_MAGGI,
    KD_DYN_FORMALISMS
} kd_dynamics_formalism;

/* Mechanisms: the forward-dynamics formulation (kd_mbs_formulation, kedyn/mbs.h). */
typedef enum kd_formulation {
    KD_FORMULATION_UNSET = 0,     /* augmented */
    KD_FORMULATION_AUGMENTED,
    KD_FORMULATION_UDWADIA_KALABA,
    KD_FORMULATION_MAGGI,
    KD_FORMULATION_IDA,
    KD_FORMULATIONS
} kd_formulation;

/* Mechanisms: the constraint stabilisation (kd_mbs_stabilization, kedyn/mbs.h). */
typedef enum kd_stabilization {
    KD_STABILIZATION_UNSET = 0,   /* baumgarte */
    KD_STABILIZATION_BAUMGARTE,
    KD_STABILIZATION_PROJECTION,
    KD_STABILIZATION_NONE,
    KD_STABILIZATIONS
} kd_stabilization;

/* How the elastic links of a mechanism and its rigid motion interact. */
typedef enum kd_coupling {
    KD_COUPLING_UNSET = 0,        /* one-way */
    KD_COUPLING_ONE_WAY,          /* kineto-elastodynamics: the rigid mechanism's motion and
                                     joint forces drive each link; the links do not act back */
    KD_COUPLING_TWO_WAY,          /* the coupled floating-frame system */
    KD_COUPLINGS
} kd_coupling;

/* dynamics of mechanisms with cvode-bdf or cvode-adams: the corrector iteration (kedyn/mbs.h). */
typedef enum kd_nonlinear_solver {
    KD_NONLINEAR_UNSET = 0,       /* newton for cvode-bdf, fixed-point for cvode-adams */
    KD_NONLINEAR_NEWTON,
    KD_NONLINEAR_FIXED_POINT,
    KD_NONLINEAR_SOLVERS
} kd_nonlinear_solver;

/* modes_along_motion: the eigenproblem solved at each instant (kedyn/ked.h). */
typedef enum kd_gyroscopic {
    KD_GYROSCOPIC_UNSET = 0,      /* true */
    KD_GYROSCOPIC_TRUE,           /* [c] and [k(eps)]: refined symmetric modes */
    KD_GYROSCOPIC_FALSE,          /* the symmetric problem */
    KD_GYROSCOPIC_DENSE,          /* the dense state-space solver at every instant */
    KD_GYROSCOPICS
} kd_gyroscopic;

/* Model-file names of the values above ("?" out of range; UNSET: "unset"),
 * and their inverse (-1 when the name is none of them). */
const char* kd_analysis_type_name(kd_analysis_type t);   /* "modes", ..., "sweep" */
int kd_analysis_type_parse(const char* name);
const char* kd_eigen_solver_name(kd_eigen_solver s);     /* "auto", "dense", "lanczos" */
const char* kd_dynamics_integrator_name(kd_dynamics_integrator i); /* "newmark", ..., "rk4" */
const char* kd_dynamics_formalism_name(kd_dynamics_formalism f);   /* "invariants", ..., "maggi" */
kd_dynamics_formalism kd_dynamics_formalism_parse(const char* name); /* UNSET when unknown */
const char* kd_formulation_name(kd_formulation f);       /* "augmented", ... */
const char* kd_stabilization_name(kd_stabilization s);   /* "baumgarte", ... */
const char* kd_coupling_name(kd_coupling c);             /* "one-way", "two-way" */
const char* kd_gyroscopic_name(kd_gyroscopic g);         /* "true", "false", "dense" */

#define KD_LIST_MAX 256
#define KD_SWEEP_PARAMS 4
#define KD_FRICTION_V_SMOOTH_DEFAULT 1e-3  /* friction smoothing speed, m/s or rad/s */
#define KD_COND_MAX_DEFAULT 1e8   /* condition number of Phi_q reported as singular */

/* dynamics: one prescribed initial value, q or q', of a node DOF (body
 * frame), added to the start chosen by `initial`. */
typedef struct kd_initial_value {
    int body, node;               /* body index, 1-based node */
    kd_dof_name dof;
    int velocity;                 /* 0: displacement q (m or rad), 1: velocity q' (m/s or rad/s) */
    double value;
    kd_loc loc;
} kd_initial_value;

/* Each analysis its own description. The keys, ranges, defaults and docs of
 * every field are in one table per struct (kedyn/desc_fields.h), which the
 * model-file reader, the checks and kd_analysis_desc_init use. */

typedef struct kd_modes_desc {
    int count;                    /* number of modes (>= 1) */
    kd_eigen_solver solver;       /* modes without rotation */
    double at;                    /* the instant of the frame motion, s */
} kd_modes_desc;

typedef struct kd_campbell_desc {
    int body;                     /* the rotating body (index; -1: the only one) */
    int count;                    /* number of modes */
    int nspeeds;
    double speeds[KD_LIST_MAX];   /* rad/s */
} kd_campbell_desc;

typedef struct kd_stability_desc {
    int body;                     /* the rotating body (index; -1: the only one) */
    int count;                    /* number of modes */
    int nhubs;
    double hubs[KD_LIST_MAX];     /* hub distances, m */
    int nlengths;
    double lengths[KD_LIST_MAX];  /* beam lengths, m */
    int nthicknesses;             /* plates: a third axis of thicknesses (0: the body's own) */
    double thicknesses[KD_LIST_MAX]; /* m */
    double omega_max;             /* the largest speed searched, rad/s */
} kd_stability_desc;

typedef struct kd_dynamics_desc {
    double t_end;                 /* s (> 0) */
    kd_dynamics_integrator integrator;
    double dt, dt_max;            /* fixed step, or first step and largest step (0: free) */
    double rtol, atol;            /* adaptive tolerances */
    double rho_inf;               /* generalized-alpha spectral radius at infinity */
    double hht_alpha;             /* hht: alpha in [-1/3, 0] */
    double newmark_beta, newmark_gamma;
    int output_every;             /* a row every N steps (>= 1) */
    int initial_static;           /* 1: start from the quasi-static deflection at t = 0 */
    int initial_mode;             /* > 0: add this mode's shape (1-based, modes at t = 0) ... */
    double initial_amplitude;     /* ... scaled so that its largest translation is this, m */
    int ninitial;                 /* prescribed nodal initial values, added last */
    kd_initial_value* initial;    /* (ninitial) owned */
    int energy;                   /* 1: write the energy and work balance */
    kd_dynamics_formalism formalism;
    kd_formulation formulation;   /* mechanisms */
    kd_stabilization stabilization; /* mechanisms */
    /* mechanisms with elastic links (kedyn/ked.h) */
    kd_coupling coupling;
    kd_nonlinear_solver nonlinear_solver; /* cvode-bdf, cvode-adams of mechanisms */
    int steps;                    /* one-way: samples of the rigid motion (>= 2) */
    double speed;                 /* one-way: constant speed (rad/s) replacing the law of the
                                     first driver; 0 = as given */
    double settle;                /* one-way: time (s) the rigid mechanism runs before t = 0 */
    kd_loc loc_integrator, loc_formalism, loc_coupling; /* where written (the analysis' when
                                                           omitted or built in code) */
} kd_dynamics_desc;

typedef struct kd_kinematics_desc {
    double t_end;                 /* s (> 0) */
    int steps;                    /* time steps (>= 1) */
    double cond_max;              /* condition number of Phi_q above which a position is singular */
    int points;                   /* 1: also every named point of the rigid bodies */
} kd_kinematics_desc;

typedef struct kd_inverse_dynamics_desc {
    double t_end;                 /* s (> 0) */
    int steps;                    /* time steps (>= 1) */
    double cond_max;              /* as for kinematics */
} kd_inverse_dynamics_desc;

typedef struct kd_modes_along_motion_desc {
    double t_end;                 /* s (> 0; with speed, one revolution when 0) */
    int steps;                    /* instants (>= 1) */
    int count;                    /* modes per link */
    int body;                     /* one link only (index), -1: every link */
    double speed;                 /* constant speed of the first driver, rad/s; 0 = as given */
    double cond_max;              /* as for kinematics */
    double settle;                /* s the rigid mechanism runs before the analysed interval */
    kd_gyroscopic gyroscopic;
} kd_modes_along_motion_desc;

/* ---- analyses of measured records (docs/model-format.md, "Records") ---- */

#define KD_COLUMNS_MAX 32

/* A record's name, given by a `records` entry or by an earlier virtual_test. */
typedef struct kd_spectrum_desc {
    char record[KD_NAME_MAX];
    int ncolumns;                 /* 0: every channel */
    char columns[KD_COLUMNS_MAX][KD_NAME_MAX];
    int window;                   /* kd_window_type (kedyn/signal.h): rect, hann, flattop, ... */
    double window_param;          /* exponential: end value; force: fraction kept (0: default) */
    int segment;                  /* samples per segment */
    double overlap;               /* fraction, [0, 1) */
    int detrend;                  /* kd_detrend: none, mean, linear */
    char speed[KD_NAME_MAX];      /* a column of speed (rpm): also a waterfall ("" none) */
    int orders;                   /* also the order spectrum (needs angle or speed) */
    char angle[KD_NAME_MAX];      /* a column of shaft angle (rad, increasing; "" none: from speed) */
    int samples_per_rev;          /* order tracking: angular samples per revolution (>= 4) */
    int revs_per_segment;         /* order tracking: revolutions per segment (order resolution 1 / this) */
} kd_spectrum_desc;

typedef struct kd_frf_desc {
    char record[KD_NAME_MAX];
    char force[KD_NAME_MAX];      /* the force column */
    int nresponses;
    char responses[KD_COLUMNS_MAX][KD_NAME_MAX]; /* columns or sensor names */
    int hits;                     /* the record holds this many equal hits (>= 1) */
    int segment;                  /* samples per block (0: one block per hit) */
    double overlap;
    int window;                   /* output window (kd_window_type) */
    double window_param;
    int force_window;             /* input window: rect or force */
    double force_window_param;
    int detrend;
} kd_frf_desc;

typedef struct kd_identify_desc {
    int from;                     /* 0: the latest frf analysis before it */
    int method;                   /* 0 lscf, 1 peaks */
    int nband;
    double band[KD_LIST_MAX];     /* [fmin, fmax] Hz (none: every line) */
    int order_min, order_max;     /* LSCF model orders of the stabilisation diagram */
    int min_stable;               /* successive stable orders that select a mode */
    double threshold;             /* peaks: fraction of the largest peak */
    int quantity;                 /* kd_frf_quantity: displacement, velocity, acceleration */
} kd_identify_desc;

typedef struct kd_correlate_desc {
    int measured;                 /* 0: the latest identify analysis, 1: the latest spectrum's peaks,
                                     2: the mode shapes (UFF dataset 55) of `record` */
    char record[KD_NAME_MAX];     /* measured: record: a name of `records` ("" otherwise) */
    int computed;                 /* 0: the latest modes analysis, 1: the latest modes_along_motion */
    double min_mac;               /* pairs below are dropped */
    double instant;               /* computed: modes_along_motion with identified or recorded shapes:
                                     the time of the motion (s) of the computed modes; -1: unset */
} kd_correlate_desc;

typedef struct kd_virtual_test_desc {
    char record[KD_NAME_MAX];     /* the record it makes, for later analyses */
    int body, node;               /* the hit: body index, 1-based node */
    double direction[3];          /* of the force, body frame (unit after loading) */
    double duration;              /* half-sine pulse, s */
    double amplitude;             /* its peak, N */
    double rate;                  /* sample rate, Hz */
    double length;                /* record of one hit, s */
    int hits;                     /* hits, one after the other */
    double noise;                 /* Gaussian noise, standard deviation / RMS of each channel */
    int seed;                     /* of the noise (the same seed gives the same record) */
    int substeps;                 /* integration steps per sample */
    int nsensors;                 /* sensors recorded (0: every sensor without a record) */
    int sensors[KD_COLUMNS_MAX];  /* indices into kd_desc.sensors */
} kd_virtual_test_desc;

struct kd_analysis_desc;
typedef struct kd_sweep_desc {
    int nset;                     /* parameters set together (1 .. KD_SWEEP_PARAMS) */
    char set[KD_SWEEP_PARAMS][128]; /* their paths (kd_desc_param) */
    int nruns;                    /* run k sets them to values[k * nset + j] */
    double values[KD_LIST_MAX];
    struct kd_analysis_desc* inner; /* the analysis repeated (owned; not a sweep) */
} kd_sweep_desc;

typedef struct kd_analysis_desc {
    kd_analysis_type type;        /* the member of the union in use */
    kd_loc loc;
    union {
        kd_modes_desc modes;
        kd_campbell_desc campbell;
        kd_stability_desc stability;
        kd_dynamics_desc dynamics;
        kd_kinematics_desc kinematics;
        kd_inverse_dynamics_desc inverse_dynamics;
        kd_modes_along_motion_desc modes_along_motion;
        kd_sweep_desc sweep;
        kd_spectrum_desc spectrum;
        kd_frf_desc frf;
        kd_identify_desc identify;
        kd_correlate_desc correlate;
        kd_virtual_test_desc virtual_test;
    };
} kd_analysis_desc;

/* ---- output requests ---------------------------------------------------- */

typedef struct kd_output_nodes_desc {
    int body;                     /* index into kd_desc.bodies */
    int nnodes;
    int* nodes;                   /* 1-based node numbers (owned) */
    kd_loc loc;
} kd_output_nodes_desc;

/* ---- measured records and sensors (kedyn/record.h) ---------------------- */

typedef struct kd_record_desc {
    char name[KD_NAME_MAX];
    char file[1024];              /* as given (relative to the model file's folder) */
    char path[2056];              /* the file to open */
    char time[KD_NAME_MAX];       /* CSV: the time column ("" when rate is given) */
    double rate;                  /* CSV without a time column: sample rate, Hz */
    kd_loc loc, loc_file;
} kd_record_desc;

typedef struct kd_sensor_desc {
    char name[KD_NAME_MAX];
    int body;                     /* index into kd_desc.bodies */
    int node;                     /* 1-based node of that body */
    double direction[3];          /* measuring direction in the body frame (unit) */
    int record;                   /* index into kd_desc.records, -1: none (virtual tests) */
    char column[KD_NAME_MAX];     /* its column in the record (default: the sensor's name) */
    kd_loc loc;
} kd_sensor_desc;

/* ---- the whole description --------------------------------------------- */

typedef struct kd_desc {
    char file[256];               /* where it was read from ("" when built in code) */
    char title[256];
    int force;                    /* 1: run even beyond the resource limits (kd_desc_check_resources) */
    int nmaterials;  kd_material_desc* materials;
    int nsections;   kd_section_desc* sections;
    int nbodies;     kd_body_desc* bodies;
    int nsupports;   kd_support_desc* supports;
    int nanalyses;   kd_analysis_desc* analyses;
    int noutput_nodes; kd_output_nodes_desc* output_nodes;
    int nmotions;    kd_motion_desc* motions;
    int ndampings;   kd_damping_desc* dampings;
    int nloads;      kd_load_desc* loads;
    int njoints;     kd_joint_desc* joints;
    int ndrivers;    kd_driver_desc* drivers;
    int nrecords;    kd_record_desc* records;  /* measured records */
    int nsensors;    kd_sensor_desc* sensors;
    int spatial;                  /* `spatial: true`: a spatial rigid mechanism, described in sdesc */
    struct kd_sdesc* sdesc;       /* (owned) kedyn/sdesc.h; NULL for planar models */
} kd_desc;

/* Allocate an empty description (all counts zero). Returns NULL on failure. */
kd_desc* kd_desc_new(void);

/* Free a description and everything it owns; clears *d. NULL is allowed. */
void kd_desc_free(kd_desc** d);

/* Append an item to the given array and return a pointer to it, or NULL
 * when out of memory. Every item gets the defaults of its key table
 * (kedyn/desc_fields.h: nu = 0.3, count = 6, ...; bodies planar = 1,
 * geometric_stiffness = 1, cubic, euler-bernoulli, material = section = -1;
 * supports, dampings and motions body = -1); what the table leaves is zero. */
kd_material_desc* kd_desc_add_material(kd_desc* d);
kd_section_desc* kd_desc_add_section(kd_desc* d);
kd_body_desc* kd_desc_add_body(kd_desc* d);
kd_support_desc* kd_desc_add_support(kd_desc* d);
kd_analysis_desc* kd_desc_add_analysis(kd_desc* d, kd_analysis_type type);  /* kd_analysis_desc_init */
kd_output_nodes_desc* kd_desc_add_output_nodes(kd_desc* d);
kd_motion_desc* kd_desc_add_motion(kd_desc* d);
kd_damping_desc* kd_desc_add_damping(kd_desc* d);
kd_load_desc* kd_desc_add_load(kd_desc* d);
kd_joint_desc* kd_desc_add_joint(kd_desc* d);
kd_driver_desc* kd_desc_add_driver(kd_desc* d);
kd_initial_value* kd_desc_add_initial(kd_dynamics_desc* dy);
kd_record_desc* kd_desc_add_record(kd_desc* d);
kd_sensor_desc* kd_desc_add_sensor(kd_desc* d);
int kd_desc_find_record(const kd_desc* d, const char* name);
int kd_desc_find_sensor(const kd_desc* d, const char* name);

/* An analysis of the given type with the defaults of its table
 * (kedyn/desc_fields.h): what a model file gives when it omits every
 * optional key. Choices are UNSET; required values (t_end, lists) are zero
 * and kd_desc_check asks for them. */
void kd_analysis_desc_init(kd_analysis_desc* a, kd_analysis_type type);
/* Free what an analysis owns (initial values, a sweep's inner analysis). */
void kd_analysis_desc_clear(kd_analysis_desc* a);

/* The route that runs a dynamics analysis of d. */
typedef enum kd_dynamics_route {
    KD_ROUTE_ELASTIC = 0,         /* beams (kd_dynamics_run, kedyn/analysis.h) */
    KD_ROUTE_MECHANISM,           /* rigid mechanism, forward dynamics (kedyn/mbs.h) */
    KD_ROUTE_ONE_WAY,             /* elastic links driven by the rigid motion (kedyn/ked.h) */
    KD_ROUTE_TWO_WAY              /* the coupled floating-frame system (kedyn/ffr.h) */
} kd_dynamics_route;
kd_dynamics_route kd_desc_dynamics_route(const kd_desc* d, const kd_dynamics_desc* dy);

/* The defaults of a dynamics analysis in one place: every UNSET choice of dy
 * becomes what `route` runs when the key is omitted (elastic: generalized-alpha,
 * or hamilton-cvode with formalism hamilton, and invariants, or hamilton with
 * a canonical integrator; mechanism and two-way: rk4, augmented, baumgarte and
 * the formalism the formulation implements; one-way: generalized-alpha,
 * coupling one-way). Choices already set are kept. */
void kd_dynamics_resolve(kd_dynamics_desc* dy, kd_dynamics_route route);
/* The same for modes_along_motion (gyroscopic true; t_end one revolution of
 * `speed` when 0). */
void kd_modes_along_motion_resolve(kd_modes_along_motion_desc* ma);

/* Whether integrator i can run on route r (1) or not (0), and a sentence
 * naming the integrators it takes ("rk4, cvode-bdf or cvode-adams"). */
int kd_dynamics_route_takes(kd_dynamics_route r, kd_dynamics_integrator i);
const char* kd_dynamics_route_integrators(kd_dynamics_route r);
/* 1 when integrator i steps with a fixed dt (newmark, hht, generalized-alpha, implicit-midpoint,
 * rk4), 0 when it is adaptive. */
int kd_dynamics_integrator_fixed_step(kd_dynamics_integrator i);

/* Index of the named item, or -1. */
int kd_desc_find_material(const kd_desc* d, const char* name);
int kd_desc_find_section(const kd_desc* d, const char* name);
int kd_desc_find_body(const kd_desc* d, const char* name);
int kd_desc_find_joint(const kd_desc* d, const char* name);
/* Index of the named point of body b, or -1. */
int kd_desc_find_point(const kd_desc* d, int b, const char* name);

/* 1 when the description is a mechanism (has rigid bodies or joints); its
 * analyses are then run on the compiled mechanism (kedyn/mech.h). */
int kd_desc_is_mechanism(const kd_desc* d);

/* 1 when beam b takes part in a joint (an elastic link of a mechanism). */
int kd_desc_beam_in_joints(const kd_desc* d, int b);

/* Number of elastic links (beams in joints). */
int kd_desc_elastic_links(const kd_desc* d);

/* Check the values and cross-references of a description: positive E, rho,
 * lengths, section dimensions and element counts; valid indices; node numbers
 * within range; DOF names that the body's element kind has; options that fit
 * together (quintic interpolation only for euler-bernoulli and rayleigh).
 * Returns KD_ERR_INPUT with err located at the offending item. */
kd_status kd_desc_check(const kd_desc* d, kd_error* err);

/* The resources a description would take, estimated before anything is allocated: elements
 * (memory of the model), time steps and rows of each analysis, the size of its CSV output,
 * instants of modes_along_motion. Beyond KD_LIMIT_* (below) returns KD_ERR_INPUT located at the
 * body or analysis, with the estimate, unless d->force (model key `force: true`, or
 * `kedyn run --force`). Counts that no run could reach (more rows than an int holds, a step
 * count beyond 2^53 or not finite, e.g. dt = 1e-300) are refused even with force. */
#define KD_LIMIT_ELEMENTS 1000000      /* finite elements in the model (about 170 B each to compile) */
#define KD_LIMIT_STEPS 100000000.0     /* time steps of one analysis */
#define KD_LIMIT_OUTPUT_BYTES 2e9      /* CSV output of one analysis */
#define KD_LIMIT_INSTANTS 100000       /* instants of modes_along_motion (an eigensolution each) */
kd_status kd_desc_check_resources(const kd_desc* d, kd_error* err);

/* The rotating body (a motion of type rotation) an analysis refers to:
 * `body` itself when it rotates, or, when body < 0, the only rotating body;
 * -1 when there is none (or, with body < 0, more than one). */
int kd_desc_rotating_body(const kd_desc* d, int body);

/* The number a parameter path names in d (docs/model-format.md, "sweep"):
 * materials.NAME.E, sections.NAME.A, motion.BODY.rotation.law.speed,
 * forces.N.value.sine.omega, ... Returns NULL and says why in `why` when
 * the path names nothing. */
double* kd_desc_param(kd_desc* d, const char* path, char* why, size_t nwhy);

/* out = d with the parameters at paths[0..n-1] set to values[0..n-1]: a
 * shallow copy whose materials, sections, bodies, motions, loads,
 * dampings, joints and drivers arrays are its own (other owned data stays d's). Free with
 * kd_desc_with_param_free, never kd_desc_free. */
kd_status kd_desc_with_param(const kd_desc* d, int n, const char (*paths)[128], const double* values, kd_desc* out,
                             kd_error* err);
void kd_desc_with_param_free(kd_desc* out);

/* Sweeps of the swept analysis' own numbers: paths `analysis.KEY` name a
 * number of the analysis' key table (analysis.dt, analysis.t_end,
 * analysis.omega_max, ...). kd_desc_param and kd_desc_with_param leave such
 * paths alone (the model has no such number); kd_analysis_param finds one in
 * a (NULL and `why` when a has none), and kd_analysis_with_param gives out,
 * a shallow copy of a with the analysis paths among paths[0..n-1] set. */
int kd_param_is_analysis(const char* path);
double* kd_analysis_param(kd_analysis_desc* a, const char* path, char* why, size_t nwhy);
kd_status kd_analysis_with_param(const kd_analysis_desc* a, int n, const char (*paths)[128], const double* values,
                                 kd_analysis_desc* out, kd_error* err);

/* ---- plate meshes (src/core/mesh.c) --------------------------------------- */

/* Fill m's nodes and elements from its rectangle size and divisions, with
 * elements of elem_nnode nodes (3, 6: triangles; 4, 8, 9: quadrilaterals).
 * KD_ERR_USAGE for another node count or no divisions. */
kd_status kd_mesh_rectangle(kd_mesh_desc* m, int elem_nnode);
/* The first element (0-based) with a zero or negative Jacobian at a corner
 * (degenerate, or numbered clockwise), or -1 when every element is valid. */
int kd_mesh_check_elements(const kd_mesh_desc* m);
/* The largest extent of the mesh along x, y or z, m. */
double kd_mesh_size(const kd_mesh_desc* m);
/* Select the nodes of a coordinate predicate (s->axes != 0) into s->nodes;
 * an explicit set (axes 0) is left as it is. */
kd_status kd_node_set_select(const kd_mesh_desc* m, kd_node_set_desc* s);
/* Renumber the mesh nodes by reverse Cuthill-McKee (narrow band matrices),
 * with the explicit node sets of b (may be NULL). */
kd_status kd_mesh_reorder(kd_mesh_desc* m, kd_body_desc* b);
/* The 0-based position of node tag `tag`, or -1. */
int kd_mesh_find_tag(const kd_mesh_desc* m, int tag);
/* Free a mesh's arrays (the rest of the struct stays). */
void kd_mesh_clear(kd_mesh_desc* m);
/* Append a zeroed node set to b (NULL when out of memory); find one by name (-1). */
kd_node_set_desc* kd_body_add_node_set(kd_body_desc* b);
int kd_body_find_node_set(const kd_body_desc* b, const char* name);

/* Names used in model files and outputs. */
const char* kd_dof_name_str(kd_dof_name dof);         /* "u", "v", ..., "ky" */
const char* kd_theory_str(kd_theory t);               /* "bar", "euler-bernoulli", ... */
const char* kd_interp_str(kd_interp i);               /* "cubic", "quintic" */
const char* kd_shape_str(kd_shape s);                 /* "circle", ... */
const char* kd_joint_type_str(kd_joint_type t);       /* "revolute", "prismatic", ... */

#ifdef __cplusplus
}
#endif
#endif
