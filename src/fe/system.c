/* The assembled moving-frame equations M q'' + C(t) q' + K(t) q = f(t)
 * (kedyn/system.h; theory.md sec. 3 and 5). */
#include "kedyn/system.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "prestress_membrane.h"

/* kd_system.rot: one element with its own axes at a time, in body DOFs */
struct kd_system_rot {
    kd_inertia_terms terms;                        /* its inertia terms */
    double kg[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];  /* its k_g */
    double m[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];   /* its mass */
    double kel[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX]; /* its elastic k */
};

/* A += s * ke at the element's equations (fixed DOFs skipped). */
static void scatter(kd_gband* A, double s, const double* ke, const int* eqs, int n) {
    const int ld = A->kl + A->ku + 1;
    for (int p = 0; p < n; p++) {
        if (eqs[p] < 0) continue;
        for (int q = 0; q < n; q++)
            if (eqs[q] >= 0) A->ab[A->ku + eqs[p] - eqs[q] + (size_t)eqs[q] * (size_t)ld] += s * ke[p * n + q];
    }
}

static void route_frame_state(const kd_system* s, int b, kd_frame_state* fs);

/* Element e's place in its body (kd_model_elem_place); returns 1 when its
 * axes are not the body's (its matrices then go through T, kedyn/inertia.h). */
static int elem_place(const kd_model* m, int e, kd_element_place* at) {
    kd_model_elem_place(m, e, at);
    return at->rotated;
}

/* Element e's matrix a (its record's, element DOFs) in body DOFs: a itself
 * when unrotated, else T^T a T in buf. */
static const double* body_matrix(const kd_model* m, int e, const double* a, double* buf) {
    kd_element_place at;
    if (!m->elem_rot || !elem_place(m, e, &at)) return a;
    const kd_element_props* p = &m->prop[m->elem_prop[e]];
    memcpy(buf, a, sizeof(double) * (size_t)p->ndof * (size_t)p->ndof);
    kd_element_place_matrix(p, &at, buf);
    return buf;
}

kd_status kd_system_init(kd_system* s, const kd_model* m, kd_error* err) {
    return kd_system_init_route(s, m, NULL, err);
}

kd_status kd_system_init_route(kd_system* s, const kd_model* m, const kd_element_route* route, kd_error* err) {
    memset(s, 0, sizeof(*s));
    if (route) s->route = *route;
    const int invariants = !s->route.element;
    s->m = m;
    s->n = m->neq;
    s->kd = m->bandwidth;
    kd_status st = kd_gband_init(&s->M, s->n, s->kd, s->kd);
    if (!st) st = kd_gband_init(&s->K0, s->n, s->kd, s->kd);
    if (!st) st = kd_gband_init(&s->Cd, s->n, s->kd, s->kd);
    if (!st) st = kd_gband_init(&s->C_last, s->n, s->kd, s->kd);
    if (!st) st = kd_gband_init(&s->K_last, s->n, s->kd, s->kd);
    s->motion = calloc((size_t)m->nbody, sizeof(*s->motion));
    s->frame = calloc((size_t)m->nbody, sizeof(*s->frame));
    s->key = calloc((size_t)(9 * m->nbody), sizeof(double));
    s->terms = calloc((size_t)m->nprop, sizeof(*s->terms));
    s->terms_body = calloc((size_t)m->nprop, sizeof(int));
    s->rec_mat = malloc(sizeof(size_t) * ((size_t)m->nprop + 1));
    s->rec_vec = malloc(sizeof(size_t) * ((size_t)m->nprop + 1));
    if (!s->rec_mat || !s->rec_vec) st = KD_ERR_NOMEM;
    for (int p = 0; !st && p <= m->nprop; p++) {  /* records packed by their own ndof */
        const size_t n = p ? (size_t)m->prop[p - 1].ndof : 0;
        s->rec_mat[p] = p ? s->rec_mat[p - 1] + n * n : 0;
        s->rec_vec[p] = p ? s->rec_vec[p - 1] + n : 0;
    }
    s->qs0 = st ? NULL : calloc(3 * s->rec_vec[m->nprop] + 1, sizeof(double));
    s->f_inertia = calloc((size_t)(s->n ? s->n : 1), sizeof(double));
    s->f_key = calloc((size_t)(9 * m->nbody), sizeof(double));
    s->route_key = calloc((size_t)(12 * m->nbody), sizeof(double));
    if (s->route.canonical) {
        if (!st) st = kd_gband_init(&s->Pd, s->n, s->kd, s->kd);
        if (!st) st = kd_gband_init(&s->dPd, s->n, s->kd, s->kd);
        s->p0 = calloc((size_t)(s->n ? s->n : 1), sizeof(double));
        s->dp0 = calloc((size_t)(s->n ? s->n : 1), sizeof(double));
        if (!s->p0 || !s->dp0) st = KD_ERR_NOMEM;
    }
    s->ode_key = calloc((size_t)(9 * m->nbody), sizeof(double));
    s->k_frame = st ? NULL : malloc(sizeof(double) * (s->rec_mat[m->nprop] + 1));
    s->c_zero = calloc((size_t)m->nprop, sizeof(int));
    s->m_elem = st ? NULL : malloc(sizeof(double) * (s->rec_mat[m->nprop] + 1));
    s->elem_final = malloc(sizeof(int) * (size_t)(m->nelem ? m->nelem : 1));
    if (m->elem_rot && !(s->rot = malloc(sizeof(*s->rot)))) st = KD_ERR_NOMEM;
    if (!s->ode_key || !s->k_frame || !s->c_zero || !s->m_elem || !s->elem_final) st = KD_ERR_NOMEM;
    if (st || !s->route_key || !s->motion || !s->frame || !s->key || !s->terms || !s->terms_body || !s->qs0 || !s->f_inertia ||
        !s->f_key) {
        kd_system_free(s);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the system matrices");
    }
    for (int b = 0; b < m->nbody; b++) s->motion[b] = &m->body[b].motion;
    for (int e = m->nelem - 1, low = s->n; e >= 0; e--) {  /* suffix minimum of the elements' equations */
        s->elem_final[e] = low;
        int eqs[KD_ELEM_DOF_MAX];
        const int n = kd_model_elem_eqs(m, e, eqs);
        for (int i = 0; i < n; i++)
            if (eqs[i] >= 0 && eqs[i] < low) low = eqs[i];
    }
    for (int p = 0; p < m->nprop; p++) kd_element_mass(&m->prop[p], s->m_elem + s->rec_mat[p]);
    /* the in-plane pre-stress of the unit inertia cases of 2D bodies (theory.md sec. 5.7) */
    st = prestress_membrane_solve(m, &s->prestress, err);
    if (!st && s->prestress) {
        s->prestress_S = malloc(sizeof(double) * (size_t)s->prestress->rule_max * KD_GRAD_MAX * KD_GRAD_MAX);
        if (!s->prestress_S) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the system matrices");
    }
    if (st) {
        kd_system_free(s);
        return st;
    }

    /* Constant matrices: mass (from the route's own quadrature when another
     * formalism is chosen), elastic stiffness, Rayleigh damping. */
    kd_element_eqs eq_scratch;
    double* me = eq_scratch.m;
    double kbuf[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
    if (!invariants) kd_system_frames(s, 0.0);
    for (int e = 0; e < m->nelem; e++) {
        int eqs[KD_ELEM_DOF_MAX];
        const int n = kd_model_elem_eqs(m, e, eqs);
        const kd_element_props* p = &m->prop[m->elem_prop[e]];
        const kd_body* body = &m->body[m->elem_body[e]];
        kd_element_place at;
        kd_model_elem_place(m, e, &at);
        if (invariants) {
            kd_element_mass(p, me);
            kd_element_place_matrix(p, &at, me);
        } else {
            kd_frame_state fs;
            route_frame_state(s, m->elem_body[e], &fs);
            s->route.element(p, &at, &fs, &eq_scratch, &s->ops);  /* body DOFs */
        }
        const double* ke = body_matrix(m, e, p->k, kbuf);
        scatter(&s->M, 1.0, me, eqs, n);
        scatter(&s->K0, 1.0, ke, eqs, n);
        if (body->damp_alpha > 0 || body->damp_beta > 0) s->damped = 1;
        if (body->damp_alpha > 0) scatter(&s->Cd, body->damp_alpha, me, eqs, n);
        if (body->damp_beta > 0) scatter(&s->Cd, body->damp_beta, ke, eqs, n);
    }
    return KD_OK;
}

void kd_system_free(kd_system* s) {
    kd_gband_free(&s->M);
    kd_gband_free(&s->K0);
    kd_gband_free(&s->Cd);
    kd_gband_free(&s->C_last);
    kd_gband_free(&s->K_last);
    free(s->motion);
    free(s->frame);
    free(s->key);
    free(s->terms);
    free(s->terms_body);
    free(s->qs0);
    free(s->f_inertia);
    free(s->f_key);
    free(s->route_key);
    kd_gband_free(&s->Pd);
    kd_gband_free(&s->dPd);
    free(s->p0);
    free(s->dp0);
    free(s->ode_key);
    free(s->k_frame);
    free(s->c_zero);
    free(s->m_elem);
    free(s->rec_mat), free(s->rec_vec);
    free(s->elem_final);
    free(s->rot);
    prestress_membrane_free(&s->prestress);
    free(s->prestress_S);
    memset(s, 0, sizeof(*s));
}

/* Do the frames of the last evaluation hold at every time (theory.md sec. 8.2.1)? Every elastic
 * body at rest, or turning at the same constant speed as then about an axis through its origin
 * (p0 = 0: a_O = 0), without gravity, on the invariants route: omega_L, eps_L and a_O,L - R^T g,
 * all that the matrices and loads read, do not depend on t; only R does, which nothing reads then. */
static int frames_steady(const kd_system* s) {
    if (s->route.element) return 0;
    const kd_model* m = s->m;
    const double* g = m->gravity;
    const int weight = g[0] != 0.0 || g[1] != 0.0 || g[2] != 0.0;
    for (int b = 0; b < m->nbody; b++) {
        if (m->body[b].type == KD_BODY_GROUND || m->body[b].type == KD_BODY_RIGID) continue;
        const kd_motion* mo = s->motion[b];
        if (mo->type == KD_MOTION_NONE) continue;
        if (mo->type != KD_MOTION_ROTATION || weight || mo->angle.type != KD_LAW_SPEED) return 0;
        const double *R0 = m->body[b].rot, *r0 = m->body[b].origin, *w = s->frame[b].omega;
        for (int i = 0; i < 3; i++)
            if (w[i] != mo->angle.value * mo->axis[i] || r0[i] + mo->hub * R0[3 * i] - mo->center[i] != 0.0) return 0;
    }
    return 1;
}

/* The frames at t (kd_system_frames once they do not hold): apart, so that the test of the
 * frames that hold, at every call of a time step, saves no registers. */
#if defined(__GNUC__)
#define SYSTEM_APART __attribute__((noinline))
#else
#define SYSTEM_APART
#endif
static SYSTEM_APART void frames_eval(kd_system* s, double t) {
    const kd_model* m = s->m;
    s->have_frames = 1;
    s->t_frames = t;
    s->frames_gen = s->frames_gen < 1000000000 ? s->frames_gen + 1 : 1;
    for (int b = 0; b < m->nbody; b++)
        if (m->body[b].type != KD_BODY_GROUND && m->body[b].type != KD_BODY_RIGID)  /* elastic bodies */
            kd_motion_eval(s->motion[b], m->body[b].rot, m->body[b].origin, t, &s->frame[b]);
    s->frames_hold = frames_steady(s);
}

void kd_system_frames(kd_system* s, double t) {
    /* C, K and f are asked for at the same instants; steady frames hold at every instant */
    if (s->have_frames && (s->t_frames == t || s->frames_hold)) return;
    frames_eval(s, t);
}

/* The frame acceleration a body's elements feel: a_O,L - R^T g (gravity is
 * a frame acceleration -g). */
static void effective_acceleration(const kd_system* s, int b, double a[3]) {
    const kd_frame* f = &s->frame[b];
    const double* g = s->m->gravity;
    for (int i = 0; i < 3; i++) a[i] = f->aO_L[i] - (f->R[i] * g[0] + f->R[3 + i] * g[1] + f->R[6 + i] * g[2]);
}

/* Inertia terms of element record p at the body origin in body b's current
 * frame (cached per record while the body stays the same), and dq/dr0_j
 * (qs0, 3 rows): q(r0) = q(0) + sum_j r0_j dq/dr0_j (theory.md sec. 3). */
static const kd_inertia_terms* record_terms(kd_system* s, int p, int b, int* cached_for) {
    if (cached_for[p] == b + 1) return &s->terms[p];
    const kd_frame* f = &s->frame[b];
    const kd_element_props* pr = &s->m->prop[p];
    double a[3], W[9], E[9];
    effective_acceleration(s, b, a);
    kd_inertia_terms_eval(pr, 0.0, f->omega_L, f->eps_L, a, &s->terms[p]);
    /* q(r0) = q(0) + sum_j r0_j sum_i (E + W W)_ij s_i */
    kd_skew(W, f->omega_L);
    kd_skew(E, f->eps_L);
    double* qs = s->qs0 + 3 * s->rec_vec[p];
    memset(qs, 0, sizeof(double) * 3 * (size_t)pr->ndof);
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < pr->ncomp; i++) {
            const double coef = E[3 * i + j] + W[3 * i] * W[j] + W[3 * i + 1] * W[3 + j] + W[3 * i + 2] * W[6 + j];
            for (int dof = 0; dof < pr->ndof; dof++) qs[j * pr->ndof + dof] += coef * pr->s_i[i][dof];
        }
    cached_for[p] = b + 1;
    /* work of the invariants route (as kd_invariants_element counts it) */
    const int nn = pr->ndof * pr->ndof;
    s->ops.elements++;
    s->ops.flops += (double)pr->ncomp * pr->ncomp * nn * 6.0 + 2.0 * nn + 30.0 * pr->ndof;
    return &s->terms[p];
}

/* Did any body's omega_L, eps_L or a_O,L - R^T g change since the keys were
 * last stored? (They decide every inertia term.) Stores the current ones. */
static SYSTEM_APART int frames_compare(kd_system* s, double* keys, int* have) {
    int same = *have != 0;
    for (int b = 0; b < s->m->nbody; b++) {
        double k[9];
        memcpy(k, s->frame[b].omega_L, 3 * sizeof(double));
        memcpy(k + 3, s->frame[b].eps_L, 3 * sizeof(double));
        effective_acceleration(s, b, k + 6);
        if (memcmp(k, keys + 9 * b, sizeof(k)) != 0) same = 0;
        memcpy(keys + 9 * b, k, sizeof(k));
    }
    *have = s->frames_gen;
    return same;
}

static inline int frames_unchanged(kd_system* s, double* keys, int* have) {
    if (*have != 0 && *have == s->frames_gen) return 1;  /* stored from these very frames */
    return frames_compare(s, keys, have);
}

/* The geometric stiffness of element e in its body's frame: beams from the axial force
 * (kd_model_elem_geometric with the body's current a_x and Omega^2, theory.md sec. 5.4-5.5);
 * 2D elements from their in-plane pre-stress (N_x, N_y, N_xy) = sum of the unit cases times
 * a_x, a_y, M = E + W W (sec. 5.7). Returns 0 when the element has none. */
static int geometric_stiffness(const kd_system* s, int e, double* kg) {
    const kd_model* m = s->m;
    const int b = m->elem_body[e];
    const kd_element_props* pr = &m->prop[m->elem_prop[e]];
    double a[3];
    if (s->prestress && s->prestress->elem_adr[e] >= 0) {
        double W[9], M[9];
        effective_acceleration(s, b, a);
        kd_skew(W, s->frame[b].omega_L);
        kd_skew(M, s->frame[b].eps_L);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) M[3 * i + j] += W[3 * i] * W[j] + W[3 * i + 1] * W[3 + j] + W[3 * i + 2] * W[6 + j];
        prestress_membrane_field(s->prestress, m, e, a, M, s->prestress_S);
        kd_element_geometric_stiffness(pr, s->prestress_S, kg);
        return 1;
    }
    effective_acceleration(s, b, a);
    const double* w = s->frame[b].omega_L;
    if (!kd_model_elem_geometric(m, e, a[0], w[1] * w[1] + w[2] * w[2], kg)) return 0;
    kd_element_place at;
    if (m->elem_rot && elem_place(m, e, &at)) kd_element_place_matrix(pr, &at, kg);  /* body DOFs */
    return 1;
}

/* The frame state of body b for a formalism route (local components). */
static void route_frame_state(const kd_system* s, int b, kd_frame_state* fs) {
    const kd_frame* f = &s->frame[b];
    const double* g = s->m->gravity;
    for (int i = 0; i < 3; i++) {
        fs->omega[i] = f->omega_L[i], fs->eps[i] = f->eps_L[i];
        fs->v[i] = f->vO_L[i], fs->a[i] = f->aO_L[i];
        fs->g[i] = f->R[i] * g[0] + f->R[3 + i] * g[1] + f->R[6 + i] * g[2];
    }
}

/* f[eqs] += s * v over the element's free DOFs. */
static void scatter_vector(double* f, double sc, const double* v, const int* eqs, int n) {
    for (int a = 0; a < n; a++)
        if (eqs[a] >= 0) f[eqs[a]] += sc * v[a];
}

/* C_last, K_last and f_inertia (and Hamilton's canonical data) from the
 * chosen formalism's route, element by element, when a frame state changed
 * since the last assembly. */
static void route_assemble(kd_system* s) {
    const kd_model* m = s->m;
    int same = s->have_route_key;
    for (int b = 0; b < m->nbody; b++) {
        double k[12];
        memcpy(k, s->frame[b].omega_L, 3 * sizeof(double));
        memcpy(k + 3, s->frame[b].eps_L, 3 * sizeof(double));
        effective_acceleration(s, b, k + 6);
        memcpy(k + 9, s->frame[b].vO_L, 3 * sizeof(double));
        if (memcmp(k, s->route_key + 12 * b, sizeof(k)) != 0) same = 0;
        memcpy(s->route_key + 12 * b, k, sizeof(k));
    }
    s->have_route_key = 1;
    if (same) return;
    const size_t nab = (size_t)(2 * s->kd + 1) * (size_t)s->n;
    const int ham = s->route.canonical != NULL;
    memcpy(s->C_last.ab, s->Cd.ab, nab * sizeof(double));
    memcpy(s->K_last.ab, s->K0.ab, nab * sizeof(double));
    memset(s->f_inertia, 0, sizeof(double) * (size_t)s->n);
    if (ham) {
        kd_gband_zero(&s->Pd);
        kd_gband_zero(&s->dPd);
        memset(s->p0, 0, sizeof(double) * (size_t)s->n);
        memset(s->dp0, 0, sizeof(double) * (size_t)s->n);
    }
    kd_element_eqs eq;
    kd_canonical_eqs can;
    double kg[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
    for (int e = 0; e < m->nelem; e++) {
        const int b = m->elem_body[e];
        const kd_element_props* pr = &m->prop[m->elem_prop[e]];
        int eqs[KD_ELEM_DOF_MAX];
        const int n = kd_model_elem_eqs(m, e, eqs);
        kd_frame_state fs;
        route_frame_state(s, b, &fs);
        kd_element_place at;
        kd_model_elem_place(m, e, &at);
        if (ham) {
            /* the canonical data, and the second-order form from it
             * (kedyn/formalism.h, kd_canonical_eqs) */
            s->route.canonical(pr, &at, &fs, &can, &s->ops);
            for (int i = 0; i < n * n; i++) eq.c[i] = can.Pd[i] - can.Rv[i], eq.k[i] = can.dPd[i] - can.Rd[i];
            for (int a = 0; a < n; a++) eq.q[a] = can.r0[a] - can.dp0[a];
            scatter(&s->Pd, 1.0, can.Pd, eqs, n);
            scatter(&s->dPd, 1.0, can.dPd, eqs, n);
            scatter_vector(s->p0, 1.0, can.p0, eqs, n);
            scatter_vector(s->dp0, 1.0, can.dp0, eqs, n);
        } else {
            s->route.element(pr, &at, &fs, &eq, &s->ops);
        }
        scatter(&s->C_last, 1.0, eq.c, eqs, n);
        scatter(&s->K_last, 1.0, eq.k, eqs, n);
        scatter_vector(s->f_inertia, 1.0, eq.q, eqs, n);
        if (geometric_stiffness(s, e, kg)) scatter(&s->K_last, 1.0, kg, eqs, n);
    }
}

void kd_system_invalidate(kd_system* s) {
    s->have_key = s->have_f_key = s->have_route_key = s->have_ode_key = 0;
    s->ode_C = s->ode_K = s->ode_S = NULL;
}

void kd_system_canonical(kd_system* s, double t, const kd_gband** Pd, const kd_gband** dPd, const double** p0,
                         const double** dp0) {
    kd_system_frames(s, t);
    route_assemble(s);
    *Pd = &s->Pd, *dPd = &s->dPd, *p0 = s->p0, *dp0 = s->dp0;
}

/* C += c and K += k at the element's equations in one pass (c may be NULL). */
static void scatter2(kd_gband* C, const double* c, kd_gband* K, const double* k, const int* eqs, int n) {
    const int ld = K->kl + K->ku + 1;
    for (int q = 0; q < n; q++) {
        if (eqs[q] < 0) continue;
        double* colC = C->ab + (size_t)eqs[q] * (size_t)ld + K->ku - eqs[q];  /* colC[i] = C(i, eqs[q]) */
        double* colK = K->ab + (size_t)eqs[q] * (size_t)ld + K->ku - eqs[q];
        for (int p = 0; p < n; p++) {
            if (eqs[p] < 0) continue;
            colK[eqs[p]] += k[p * n + q];
            if (c) colC[eqs[p]] += c[p * n + q];
        }
    }
}

/* Columns [j0, j1) of C and K: C to the Rayleigh damping (or 0), K to 0. */
static void clear_columns(const kd_system* s, kd_gband* C, kd_gband* K, int j0, int j1, int ld) {
    if (j1 <= j0) return;
    const size_t off = (size_t)j0 * (size_t)ld, len = (size_t)(j1 - j0) * (size_t)ld * sizeof(double);
    if (s->damped) memcpy(C->ab + off, s->Cd.ab + off, len);
    else memset(C->ab + off, 0, len);
    memset(K->ab + off, 0, len);
}

/* Element e's stiffness k + k(eps) + k(omega) + k_g and gyroscopic [c]
 * (NULL when zero, e.g. bars) at the current frames, row-major n x n;
 * k + k(eps) + k(omega) is summed once per element record (terms_body must
 * have been reset for this assembly). kbuf: scratch for k_g elements. */
static int element_ck(kd_system* s, int e, int* eqs, const double** c, const double** k, double* kbuf) {
    const kd_model* m = s->m;
    const int b = m->elem_body[e], p = m->elem_prop[e];
    const kd_element_props* pr = &m->prop[p];
    const int n = kd_model_elem_eqs(m, e, eqs), nn = n * n;
    kd_element_place at;
    if (m->elem_rot && elem_place(m, e, &at)) {  /* its own axes: terms of this element, in body DOFs */
        double a[3];
        effective_acceleration(s, b, a);
        kd_inertia_terms_place(pr, &at, s->frame[b].omega_L, s->frame[b].eps_L, a, &s->rot->terms);
        memcpy(kbuf, pr->k, sizeof(double) * (size_t)nn);
        kd_element_place_matrix(pr, &at, kbuf);
        for (int i = 0; i < nn; i++) kbuf[i] += s->rot->terms.k_eps[i] + s->rot->terms.k_omega[i];
        if (geometric_stiffness(s, e, s->rot->kg))
            for (int i = 0; i < nn; i++) kbuf[i] += s->rot->kg[i];
        *c = s->rot->terms.c;
        *k = kbuf;
        return n;
    }
    const int fresh = s->terms_body[p] != b + 1;
    const kd_inertia_terms* it = record_terms(s, p, b, s->terms_body);
    double* kf = s->k_frame + s->rec_mat[p];
    if (fresh) {  /* once per record and frame: k + k(eps) + k(omega), is [c] zero? */
        s->c_zero[p] = 1;
        for (int i = 0; i < nn; i++) {
            kf[i] = pr->k[i] + it->k_eps[i] + it->k_omega[i];
            if (it->c[i] != 0.0) s->c_zero[p] = 0;
        }
    }
    *c = s->c_zero[p] ? NULL : it->c;
    *k = kf;
    if (!geometric_stiffness(s, e, kbuf)) return n;
    for (int i = 0; i < nn; i++) kbuf[i] += kf[i];
    *k = kbuf;
    return n;
}

/* The largest equation of an element (-1 when all its DOFs are fixed). */
static int top_equation(const int* eqs, int n) {
    int top = -1;
    for (int i = 0; i < n; i++) top = eqs[i] > top ? eqs[i] : top;
    return top;
}

/* Assemble C(t), K(t) from the current frames into C, K. Per element: the
 * gyroscopic [c] of its record (skipped when zero, e.g. bars) and one
 * stiffness [k] + [k(eps)] + [k(omega)] + [k_g], scattered in one pass. */
static void assemble(kd_system* s, kd_gband* C, kd_gband* K) {
    const kd_model* m = s->m;
    /* Columns are cleared (C: set to the Rayleigh damping) just before the
     * first element that reaches them, while they are in cache; the elastic
     * k comes with each element, so K0 is not read. */
    const int ld = 2 * s->kd + 1;
    int cleared = 0;
    for (int p = 0; p < m->nprop; p++) s->terms_body[p] = 0;
    double kbuf[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
    for (int e = 0; e < m->nelem; e++) {
        int eqs[KD_ELEM_DOF_MAX];
        const double *c, *k;
        const int n = element_ck(s, e, eqs, &c, &k, kbuf), top = top_equation(eqs, n);
        if (top >= cleared) {
            clear_columns(s, C, K, cleared, top + 1, ld);
            cleared = top + 1;
        }
        scatter2(C, c, K, k, eqs, n);
    }
    clear_columns(s, C, K, cleared, s->n, ld);
}

/* The integrators' fused step (kd_ode2.iteration): when the frames changed,
 * the iteration matrix S = cm M + cc C + ck K straight into LAPACK's LU band
 * storage and the residual r -= am M a + C x + K y, element by element in one
 * pass, without forming C and K (theory.md sec. 3; C includes the Rayleigh
 * damping alpha m + beta k of each element's body). With piv, a non-symmetric
 * S is also factored (and r forward-substituted) behind the assembly
 * (kd_gband_lu_factor_columns; docs/performance.md). */
static int ode_iteration(void* ctx, double t, double cm, double cc, double ck, double am, const double* a,
                         const double* x, const double* y, kd_gband* S, double* r, int* piv, int* changed) {

    kd_system* s = ctx;
    const kd_model* m = s->m;
    kd_system_frames(s, t);
    const int same = frames_unchanged(s, s->ode_key, &s->have_ode_key) && S->ab == s->ode_S &&
                     cm == s->ode_coef[0] && cc == s->ode_coef[1] && ck == s->ode_coef[2];
    *changed = !same;
    if (same) return 0;
    s->ode_C = s->ode_K = NULL;  /* the integrator's C and K are not current any more */
    s->ode_S = S->ab;
    s->ode_coef[0] = cm, s->ode_coef[1] = cc, s->ode_coef[2] = ck;
    const int kd = s->kd, lds = S->kl + S->ku + 1, diag = 2 * kd;  /* S(i, j) at ab[diag + i - j + j lds] */
    int cleared = 0;
    /* With piv: once an element matrix is not symmetric (so neither is S), the
     * banded LU and the forward substitution of r follow the assembly column
     * by column, on columns that are final and still in cache: column j once
     * columns up to j + 2 kd (the reach of U) and rows of r up to j + kd are. */
    int lu = 0, factored = 0, ju = 0;
    for (int p = 0; p < m->nprop; p++) s->terms_body[p] = 0;
    double kbuf[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX], se[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
    double ce[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX];
    for (int e = 0; e < m->nelem; e++) {
        int eqs[KD_ELEM_DOF_MAX];
        const double *c, *k;
        const int n = element_ck(s, e, eqs, &c, &k, kbuf), nn = n * n, top = top_equation(eqs, n);
        const kd_body* body = &m->body[m->elem_body[e]];
        const double* me = s->m_elem + s->rec_mat[m->elem_prop[e]];
        if (m->elem_rot) me = body_matrix(m, e, me, s->rot->m);
        if (top >= cleared) {
            memset(S->ab + (size_t)cleared * lds, 0, sizeof(double) * (size_t)(top + 1 - cleared) * (size_t)lds);
            cleared = top + 1;
        }
        const double* cx = c;
        if (body->damp_alpha > 0 || body->damp_beta > 0) {  /* C_e = [c] + alpha m + beta k */
            const double* kel = m->prop[m->elem_prop[e]].k;
            if (m->elem_rot) kel = body_matrix(m, e, kel, s->rot->kel);
            for (int i = 0; i < nn; i++) ce[i] = (c ? c[i] : 0.0) + body->damp_alpha * me[i] + body->damp_beta * kel[i];
            cx = ce;
        }
        for (int i = 0; i < nn; i++) se[i] = cm * me[i] + ck * k[i] + (cx ? cc * cx[i] : 0.0);
        if (piv && !lu)
            for (int pp = 0; pp < n && !lu; pp++)
                for (int q = pp + 1; q < n; q++)
                    if (eqs[pp] >= 0 && eqs[q] >= 0 && se[pp * n + q] != se[q * n + pp]) {
                        lu = 1;
                        break;
                    }
        for (int pp = 0; pp < n; pp++) {
            const int i = eqs[pp];
            if (i < 0) continue;
            double acc = 0.0;
            for (int q = 0; q < n; q++) {
                const int j = eqs[q];
                if (j < 0) continue;
                const int pq = pp * n + q;
                S->ab[(size_t)(diag + i - j) + (size_t)j * lds] += se[pq];
                acc += am * me[pq] * a[j] + k[pq] * y[j] + (cx ? cx[pq] * x[j] : 0.0);
            }
            r[i] -= acc;
        }
        if (lu) {
            const int final = s->elem_final[e] < cleared ? s->elem_final[e] : cleared;
            if (final - 2 * kd > factored) {
                if (kd_gband_lu_factor_columns(S->ab, s->n, kd, kd, piv, r, factored, final - 2 * kd, &ju)) {
                    *changed = 3;  /* S singular */
                    return 0;
                }
                factored = final - 2 * kd;
            }
        }
    }
    if (cleared < s->n) memset(S->ab + (size_t)cleared * lds, 0, sizeof(double) * (size_t)(s->n - cleared) * (size_t)lds);
    if (lu) {
        *changed = kd_gband_lu_factor_columns(S->ab, s->n, kd, kd, piv, r, factored, s->n, &ju) ? 3 : 2;
    }
    return 0;
}

int kd_system_matrices(void* ctx, double t, kd_gband* C, kd_gband* K, int* changed) {
    kd_system* s = ctx;
    kd_system_frames(s, t);
    const int same = frames_unchanged(s, s->key, &s->have_key);
    *changed = !same;
    const size_t nab = (size_t)(2 * s->kd + 1) * (size_t)s->n;
    if (s->route.element) route_assemble(s);
    if (same || s->route.element) {  /* same frames: the matrices of the last call */
        memcpy(C->ab, s->C_last.ab, nab * sizeof(double));
        memcpy(K->ab, s->K_last.ab, nab * sizeof(double));
        return 0;
    }
    assemble(s, C, K);
    memcpy(s->C_last.ab, C->ab, nab * sizeof(double));
    memcpy(s->K_last.ab, K->ab, nab * sizeof(double));
    return 0;
}

/* The integrators' version (kd_ode2.matrices): an integrator passes the same
 * C and K at every call and leaves them alone, so while the frames do not
 * change they already hold the matrices and nothing is copied. Keyed apart
 * from kd_system_matrices, whose callers may pass other buffers. */
static int ode_matrices(void* ctx, double t, kd_gband* C, kd_gband* K, int* changed) {
    kd_system* s = ctx;
    kd_system_frames(s, t);
    const int same = frames_unchanged(s, s->ode_key, &s->have_ode_key) && C->ab == s->ode_C && K->ab == s->ode_K;
    *changed = !same;
    if (!same) assemble(s, C, K);
    s->ode_C = C->ab, s->ode_K = K->ab;
    return 0;
}

int kd_system_force(void* ctx, double t, double* f) {
    kd_system* s = ctx;
    const kd_model* m = s->m;
    kd_system_frames(s, t);
    /* reassemble the inertia loads only when a frame changed */
    if (s->route.element) {
        route_assemble(s);
    } else if (!frames_unchanged(s, s->f_key, &s->have_f_key)) {
        memset(s->f_inertia, 0, sizeof(double) * (size_t)s->n);
        for (int p = 0; p < m->nprop; p++) s->terms_body[p] = 0;
        for (int e = 0; e < m->nelem; e++) {
            const int b = m->elem_body[e], p = m->elem_prop[e];
            int eqs[KD_ELEM_DOF_MAX];
            const int n = kd_model_elem_eqs(m, e, eqs);
            kd_element_place at;
            if (m->elem_rot && elem_place(m, e, &at)) {  /* its own axes: this element's terms */
                double acc[3];
                effective_acceleration(s, b, acc);
                kd_inertia_terms_place(&m->prop[p], &at, s->frame[b].omega_L, s->frame[b].eps_L, acc, &s->rot->terms);
                for (int a = 0; a < n; a++)
                    if (eqs[a] >= 0) s->f_inertia[eqs[a]] -= s->rot->terms.q[a];
                continue;
            }
            const kd_inertia_terms* it = record_terms(s, p, b, s->terms_body);
            const double* qs = s->qs0 + 3 * s->rec_vec[p];
            const double* r0 = &m->node_x[3 * m->elem_node[m->elem_node_adr[e]]];  /* the element origin */
            for (int a = 0; a < n; a++) {
                if (eqs[a] < 0) continue;
                double q = it->q[a] + r0[0] * qs[a];
                if (r0[1] != 0.0) q += r0[1] * qs[n + a];
                if (r0[2] != 0.0) q += r0[2] * qs[2 * n + a];
                s->f_inertia[eqs[a]] -= q;
            }
        }
    }
    memcpy(f, s->f_inertia, sizeof(double) * (size_t)s->n);
    for (int i = 0; i < m->nnodal; i++) f[m->nodal[i].eq] += kd_law_value(&m->nodal[i].value, t);
    return 0;
}

kd_ode2 kd_system_ode(kd_system* s) {
    kd_ode2 o;
    memset(&o, 0, sizeof(o));
    o.n = s->n;
    o.kl = o.ku = s->kd;
    o.M = &s->M;
    o.ctx = s;
    /* the fused, buffer-reusing callbacks assemble the invariants route;
     * another formalism's matrices come through kd_system_matrices */
    const int invariants = !s->route.element;
    o.matrices = invariants ? ode_matrices : kd_system_matrices;
    o.iteration = invariants ? ode_iteration : NULL;
    s->have_ode_key = 0;  /* a new integration: its first call assembles */
    s->ode_C = s->ode_K = NULL;
    s->ode_S = NULL;
    o.force = kd_system_force;
    return o;
}
