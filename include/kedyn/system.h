/* kedyn: the assembled equations of motion of elastic bodies in moving frames
 *
 *     M q'' + C(t) q' + K(t) q = f(t)                       (theory.md sec. 3)
 *
 * over the reduced (supported) DOFs of all beams, each in its own floating
 * frame:
 *   M    = sum of element mass matrices (constant)
 *   C(t) = sum of [c] (gyroscopic, from omega_L) + Rayleigh damping alpha M + beta K
 *   K(t) = K (elastic) + [k_g] (axial force of the frame motion and preload,
 *          when the body has geometric_stiffness) + [k(eps)] + [k(omega)]
 *   f(t) = nodal loads - [m_Oi](a_O,L - R^T g) - q_i(eps) - q_i(omega)
 * (gravity enters as a frame acceleration -g). Elements that share their
 * invariants and body share their inertia matrices, so one evaluation costs
 * a few operations per element entry: linear in the model size, and no
 * allocation after kd_system_init. The matrices use the general band
 * storage of kedyn/integrate.h (kl = ku = the model's bandwidth).
 *
 * kd_system_init_route takes the inertia terms (M, the gyroscopic and
 * inertia stiffness parts of C and K, the inertia loads of f) from an element
 * route instead (kd_element_route: callbacks the system keeps), element by
 * element at each new frame state; elastic and geometric stiffness, damping
 * and nodal loads are the same for every route. The formalisms supply the
 * routes (kd_system_init_formalism, src/formalisms/formalism.c). A route with
 * canonical data (Hamilton's) makes the system also keep it
 * (kd_system_canonical) for the first-order integrators of kedyn/hamilton.h.
 */
#ifndef KEDYN_SYSTEM_H
#define KEDYN_SYSTEM_H

#include "kedyn/formalism.h"
#include "kedyn/inertia.h"
#include "kedyn/integrate.h"
#include "kedyn/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An element route: the inertia part of one element's equations (kedyn/formalism.h,
 * kd_element_eqs) for element p placed at `at` in its body, over the body's DOFs, in frame
 * state fs; ops
 * counts the work (never NULL here). canonical, when not NULL, gives Hamilton's canonical data
 * of the element (kd_canonical_eqs); the system then assembles the second-order form from it
 * and keeps the canonical data. */
typedef struct kd_element_route {
    void (*element)(const kd_element_props* p, const kd_element_place* at, const kd_frame_state* fs,
                    kd_element_eqs* out, kd_formalism_ops* ops);
    void (*canonical)(const kd_element_props* p, const kd_element_place* at, const kd_frame_state* fs,
                      kd_canonical_eqs* out, kd_formalism_ops* ops);
} kd_element_route;

/* What drives each body's frame in this evaluation: its own motion, or an
 * override (a Campbell diagram spins a body at a list of constant speeds). */
typedef struct kd_system {
    const kd_model* m;
    int n, kd;                        /* equations, half-bandwidth */
    kd_gband M, K0, Cd;               /* mass, elastic stiffness, Rayleigh damping (constant) */
    kd_gband C_last, K_last;          /* the last assembled C(t), K(t): reused while the frames'
                                         omega, eps and axial acceleration do not change */
    const kd_motion** motion;         /* (nbody) the motion used for each body */
    kd_frame* frame;                  /* (nbody) frames of the last evaluation */
    double t_frames;                  /* their time */
    int have_frames;
    int frames_gen;                   /* counts the evaluations of `frame`; a key stored from the
                                         current ones holds it in its have_* (system.c) */
    int frames_hold;                  /* 1: they hold at every t (steady motions, system.c); a
                                         caller changing a motion clears have_frames */
    double* key;                      /* (nbody x 9) omega_L, eps_L, a_O,L - R^T g of the last matrices */
    int have_key;
    kd_inertia_terms* terms;          /* (nprop) scratch: inertia terms per element record */
    int* terms_body;                  /* (nprop) the body whose frame `terms` belong to */
    double* qs0;                      /* (3 x rec_vec[nprop]) dq/dr0_j per record: 3 rows of its ndof
                                         from 3 rec_vec[p] */
    double* f_inertia;                /* (n) assembled inertia loads of the last kd_system_force */
    double* f_key;                    /* (nbody x 9) omega_L, eps_L, a_O,L - R^T g of those loads */
    int have_f_key;
    /* another route of the inertia terms (kd_system_init_route) */
    kd_element_route route;           /* element NULL: the invariants above */
    kd_formalism formalism;           /* the formalism of the route, when kd_system_init_formalism
                                         chose it (a label; KD_FORMALISM_INVARIANTS otherwise) */
    kd_formalism_ops ops;             /* work of the route's element builds so far */
    double* route_key;                /* (nbody x 12) omega_L, eps_L, a_O,L - R^T g, v_O,L of the
                                         last route assembly (into C_last, K_last, f_inertia) */
    int have_route_key;
    kd_gband Pd, dPd;                 /* Hamilton: sum of element Pd and its time rate */
    double *p0, *dp0;                 /* Hamilton: (n) momenta of the zero state and their rate */
    double* ode_key;                  /* (nbody x 9) the same for the integrators' callback, */
    int have_ode_key;                 /* which reuses the integrator's own C and K buffers */
    const double *ode_C, *ode_K;      /* (compared, never read) */
    double* k_frame;                  /* (rec_mat[nprop]) k + k(eps) + k(omega) per record, from rec_mat[p] */
    int* c_zero;                      /* (nprop) 1 when the record's [c] is zero */
    int damped;                       /* 1 when some body has Rayleigh damping (Cd nonzero) */
    double* m_elem;                   /* (rec_mat[nprop]) element mass per record, from rec_mat[p] */
    size_t *rec_mat, *rec_vec;        /* (nprop + 1) prefix sums of the records' ndof^2 and ndof */
    const double* ode_S;              /* the iteration matrix last formed by kd_ode2.iteration */
    double ode_coef[3];               /* and its coefficients cm, cc, ck */
    struct kd_system_rot* rot;        /* scratch of the elements with their own axes (NULL when
                                         the model has none): about 180 kB, on the heap so that the
                                         other models neither zero nor touch it */
    struct prestress_membrane* prestress; /* in-plane pre-stress of the unit inertia cases of 2D
                                         bodies with geometric stiffness (src/fe/prestress_membrane.h;
                                         NULL: none) */
    double* prestress_S;              /* scratch: one element's pre-stress at its quadrature points */
    int* elem_final;                  /* (nelem) columns below elem_final[e] receive no terms from
                                         the elements after e (the smallest equation of those) */
} kd_system;

/* Assemble the constant matrices; every body follows its own motion. */
kd_status kd_system_init(kd_system* s, const kd_model* m, kd_error* err);
/* The same with the inertia terms from an element route (NULL: the invariants); the system
 * keeps a copy of *route. */
kd_status kd_system_init_route(kd_system* s, const kd_model* m, const kd_element_route* route, kd_error* err);
/* The same with the inertia terms from formalism f's route: kd_system_init_route with the
 * routes of kedyn/formalism.h (defined with them, src/formalisms/formalism.c). */
kd_status kd_system_init_formalism(kd_system* s, const kd_model* m, kd_formalism f, kd_error* err);
void kd_system_free(kd_system* s);

/* Evaluate every body's frame at t (done by the callbacks too). */
void kd_system_frames(kd_system* s, double t);

/* kd_ode2 callbacks (ctx = kd_system*): C(t), K(t); f(t). */
int kd_system_matrices(void* ctx, double t, kd_gband* C, kd_gband* K, int* changed);
int kd_system_force(void* ctx, double t, double* f);

/* Forget the cached matrices and loads: the next evaluation assembles them
 * anew (for timing an assembly). */
void kd_system_invalidate(kd_system* s);

/* Hamilton's canonical data at t (system initialised with
 * KD_FORMALISM_HAMILTON): the momenta p = M q' + Pd q + p0 and the explicit
 * rates dPd, dp0 (theory.md sec. 4). Pointers into s, valid until the next
 * evaluation. */
void kd_system_canonical(kd_system* s, double t, const kd_gband** Pd, const kd_gband** dPd, const double** p0,
                         const double** dp0);

/* A kd_ode2 describing the system (M, band, callbacks). */
/* A kd_ode2 describing the system (M, band, callbacks), for one integration
 * at a time: its matrices callback leaves C and K untouched while the frames
 * do not change and the buffers are those of its previous call. */
kd_ode2 kd_system_ode(kd_system* s);

#ifdef __cplusplus
}
#endif
#endif
