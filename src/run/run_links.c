/* Analyses of mechanisms with elastic links in the runner (docs/model-format.md "Elastic
 * links"): `dynamics` with coupling one-way (each link's elastic response to the rigid
 * mechanism's motion and joint forces; src/links/one_way.c, kedyn/ked.h) and
 * `modes_along_motion` (src/links/modes_along_motion.c). `coupling: two-way` is dispatched to
 * the coupled floating-frame system (src/links/floating_system.c, two_way_mechanism.c;
 * kedyn/ffr.h) by run_two_way below. Taken before the table of runners (run.c). */
#include "run_links.h"

#include "run_cases.h"

#include "output/anim_links.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "kedyn/atomic_file.h"
#include "output/output_util.h"
#include "kedyn/ffr.h"
#include "kedyn/ked.h"
#include "kedyn/mbs.h"
#include "kedyn/mech_formalism.h"

int run_links_handles(const kd_desc* d, const kd_analysis_desc* ad) {
    return kd_desc_elastic_links(d) > 0 &&
           (ad->type == KD_ANALYSIS_DYNAMICS || ad->type == KD_ANALYSIS_MODES_ALONG_MOTION);
}

/* ---- two-way coupling ------------------------------------------------------------ */

/* The coupled floating-frame system (theory.md sec. 6; src/links/floating_system.c, kedyn/ffr.h): rigid bodies and links in
 * their frames with M(q), forward dynamics by the formulation of the analysis (augmented:
 * Newton-Euler with multipliers; maggi: Kane's projection on independent speeds). One CSV row per
 * output instant: t, BODY.x, BODY.y, BODY.phi of every body (a link: its frame, origin at node 1),
 * BODY.N.u, .v, .rz of every link node in its frame, then BODY.N.N, .M, .sigma (section forces),
 * JOINT.Fx, .Fy, .M (the force each joint applies on its second body, from the multipliers), the
 * drifts, E_kinetic, V_gravity, U_strain and E_total = T + V + U. */
typedef struct two_way_sink {
    FILE* fp;
    const kd_ffr_system* s;
    kd_ked_run_stats* st;
    const double* c;              /* (bodies) extreme fibre distance of each link, 0 otherwise */
    int njoint;                   /* the mechanism's joints (reaction columns) */
    double* sf;                   /* (3 x largest node count) section forces of one link */
    int rows;
    anim_links* anim;            /* animation instants */
} two_way_sink;

static int two_way_row(void* ctx, const kd_mbs_sample* smp) {
    two_way_sink* k = ctx;
    const kd_ffr_system* s = k->s;
    fprintf(k->fp, "%.10g", smp->t);
    for (int b = 0; b < kd_ffr_body_count(s); b++) {
        const int o = kd_ffr_body_offset(s, b);
        fprintf(k->fp, ",%.12e,%.12e,%.12e", smp->q[o], smp->q[o + 1], smp->q[o + 2]);
    }
    for (int b = 0; b < kd_ffr_body_count(s); b++)
        for (int n = 0; n < kd_ffr_body_nodes(s, b); n++) {
            static const kd_dof_name dofs[3] = {KD_DOF_U, KD_DOF_V, KD_DOF_RZ};
            for (int c = 0; c < 3; c++) {
                const int i = kd_ffr_node_coordinate(s, b, n, dofs[c]);
                const double x = i >= 0 ? smp->q[i] : 0.0;
                fprintf(k->fp, ",%.10e", x);
                if (c == 1 && fabs(x) > k->st->max_deflection) {
                    k->st->max_deflection = fabs(x);
                    snprintf(k->st->max_deflection_at, sizeof(k->st->max_deflection_at), "%s node %d at t = %.6g s",
                             kd_ffr_body_name(s, b), n + 1, smp->t);
                }
            }
        }
    for (int b = 0; b < kd_ffr_body_count(s); b++) {
        const int nn = kd_ffr_body_nodes(s, b);
        if (nn == 0) continue;
        kd_ffr_section_forces(s, b, smp->q, k->c[b], k->sf);
        for (int n = 0; n < nn; n++) {
            fprintf(k->fp, ",%.10e,%.10e,%.10e", k->sf[3 * n], k->sf[3 * n + 1], k->sf[3 * n + 2]);
            if (k->sf[3 * n + 2] > k->st->max_sigma) {
                k->st->max_sigma = k->sf[3 * n + 2];
                snprintf(k->st->max_sigma_at, sizeof(k->st->max_sigma_at), "%s node %d at t = %.6g s",
                         kd_ffr_body_name(s, b), n + 1, smp->t);
            }
        }
    }
    if (smp->lambda) k->st->max_F = fmax(k->st->max_F, kd_ffr_max_pin_force(s, smp->lambda));
    for (int j = 0; j < k->njoint; j++) {
        double F[3] = {0, 0, 0};
        if (smp->lambda) kd_ffr_reaction(s, j, smp->lambda, F);
        fprintf(k->fp, ",%.10e,%.10e,%.10e", F[0], F[1], F[2]);
    }
    double T, V, U;
    kd_ffr_energy(s, smp->q, smp->qd, &T, &V, &U);
    fprintf(k->fp, ",%.6e,%.6e,%.12e,%.12e,%.12e,%.12e\n", smp->drift_pos, smp->drift_vel, T, V, U, T + V + U);
    k->rows++;
    anim_links_offer_ffr(k->anim, s, smp->t, smp->q);
    return ferror(k->fp) != 0 || kd_interrupted();
}

static kd_status run_two_way(const kd_desc* d, const kd_analysis_desc* ad, const char* outdir, int ordinal,
                             kd_anim_recorder* rec, kd_analysis_report* a, kd_error* err) {
    kd_dynamics_desc dy = ad->dynamics;  /* the two-way defaults for what is unset (kd_dynamics_resolve) */
    kd_dynamics_resolve(&dy, KD_ROUTE_TWO_WAY);
    if (!kd_dynamics_route_takes(KD_ROUTE_TWO_WAY, dy.integrator))  /* kd_desc_check said so at the key */
        return kd_error_set(err, KD_ERR_INPUT, d->file, ad->loc, "coupling: two-way integrates with %s",
                            kd_dynamics_route_integrators(KD_ROUTE_TWO_WAY));
    /* the rigid mechanism at t = 0 gives the initial state (one short step: its motion is not needed),
     * the one-way route the links' quasi-static deflection there */
    const double dt = dy.dt > 0 ? dy.dt : dy.t_end / 1000;
    kd_ked_opts ko = {fmin(dy.t_end, fmax(1e-3 * dy.t_end, 2 * dt)), 1, 0.0, KD_COND_MAX_DEFAULT};
    kd_ked* k = NULL;
    kd_status st = kd_ked_new(d, &ko, &k, err);
    if (st) return st;
    kd_ffr_system* s = NULL;
    double *q0 = NULL, *qd0 = NULL;
    st = kd_ffr_from_mechanism(d, k, &s, &q0, &qd0, err);
    if (!st) {
        kd_analysis_desc qs = *ad;
        qs.dynamics.dt = dt, qs.dynamics.integrator = KD_INTEGRATOR_GENERALIZED_ALPHA;
        st = kd_ffr_quasi_static_start(k, &qs, s, q0, err);
        if (!st) st = kd_ffr_assemble(s, 0.0, q0, qd0, err);
    }
    kd_ked_run_stats* rs = &a->ked;
    rs->links = k->nlinks, rs->samples = k->rigid.nsamples, rs->forward = k->rigid.forward, rs->coupling = "two-way";
    a->integrator = dy.integrator;
    a->t_end = dy.t_end;
    kd_mbs_opts o;
    kd_mbs_opts_from_dynamics(&o, &dy, dy.t_end);
    /* a formalism on floating-frame bodies (block masses M(q)): Newton-Euler with multipliers
     * (augmented, or IDA), Maggi/Kane as the projection A^T (M q'' - Q) = 0 of the Maggi solver,
     * Gibbs-Appell as Gauss's principle in closed form (Udwadia-Kalaba), Lagrange of the first
     * kind by IDA; the rigid-only routes of mech_kane.c and mech_gibbs_appell.c are not used.
     * Unnamed, the formalism is the one the formulation implements (kd_dynamics_resolve). */
    const kd_mech_formalism form = (kd_mech_formalism)kd_mech_formalism_parse(kd_dynamics_formalism_name(dy.formalism));
    o.formulation = form == KD_MECH_GIBBS_APPELL ? KD_MBS_UDWADIA_KALABA
                                                 : (kd_mbs_formulation)kd_mech_formalism_formulation(form, -1);
    if (form == KD_MECH_NEWTON_EULER && dy.formulation == KD_FORMULATION_IDA) o.formulation = KD_MBS_IDA;
    a->mech.formalism = kd_mech_formalism_name(form);
    kd_atomic_file f;
    if (!st) st = io_open_result(&f, outdir, "dynamics", ordinal, a, err);
    if (!st) {
        FILE* fp = f.fp;
        fprintf(fp, "t");
        for (int b = 0; b < kd_ffr_body_count(s); b++) {
            const char* nm = kd_ffr_body_name(s, b);
            fprintf(fp, ",%s.x,%s.y,%s.phi", nm, nm, nm);
        }
        int nmax = 1;
        for (int b = 0; b < kd_ffr_body_count(s); b++)
            for (int n = 1; n <= kd_ffr_body_nodes(s, b); n++) {
                const char* nm = kd_ffr_body_name(s, b);
                fprintf(fp, ",%s.%d.u,%s.%d.v,%s.%d.rz", nm, n, nm, n, nm, n);
                nmax = n > nmax ? n : nmax;
            }
        for (int b = 0; b < kd_ffr_body_count(s); b++)
            for (int n = 1; n <= kd_ffr_body_nodes(s, b); n++) {
                const char* nm = kd_ffr_body_name(s, b);
                fprintf(fp, ",%s.%d.N,%s.%d.M,%s.%d.sigma", nm, n, nm, n, nm, n);
            }
        for (int j = 0; j < k->mech->njoint; j++) {
            const char* jn = k->mech->joint[j].name;
            fprintf(fp, ",%s.Fx,%s.Fy,%s.M", jn, jn, jn);
        }
        fprintf(fp, ",drift_position,drift_velocity,E_kinetic,V_gravity,U_strain,E_total\n");
        /* the links' extreme fibres (the floating-frame bodies are the mechanism's moving bodies, in order) */
        double* c = calloc((size_t)kd_ffr_body_count(s), sizeof(double));
        double* sf = malloc(sizeof(double) * 3 * (size_t)nmax);
        if (!c || !sf) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
        for (int l = 0; !st && l < k->nlinks; l++) c[k->link[l].mbody] = k->link[l].c_y;
        anim_links anim = {0};
        if (!st) st = anim_links_init(&anim, rec, d, k, err);
        two_way_sink sink = {fp, s, rs, c, k->mech->njoint, sf, 0, &anim};
        kd_mbs_stats ms;
        memset(&ms, 0, sizeof(ms));
        if (!st) st = kd_mbs_forward(kd_ffr_cms(s), &o, q0, qd0, two_way_row, &sink, &ms, err);
        a->dynamics.steps = ms.steps, a->dynamics.factorizations = ms.factorizations;
        a->dynamics.rhs_evals = ms.evaluations, a->dynamics.t_reached = ms.t_reached;
        a->mech.formulation = kd_mbs_formulation_name(o.formulation);
        a->mech.stabilization = o.formulation == KD_MBS_AUGMENTED || o.formulation == KD_MBS_UDWADIA_KALABA
                                    ? kd_mbs_stabilization_name(o.stabilization)
                                    : "none";
        a->mech.method = o.formulation == KD_MBS_IDA ? "ida" : kd_mbs_integrator_name(o.integrator);
        a->mech.dof = ms.dof, a->mech.gruebler = kd_ffr_size(s) - kd_ffr_cms(s)->nc, a->mech.nredundant = ms.redundant;
        a->mech.drift_pos = ms.max_drift_pos, a->mech.drift_vel = ms.max_drift_vel;
        anim_links_free(&anim);
        free(c), free(sf);
        st = io_finish_file(&f, st, a, err);
    }
    free(q0), free(qd0);
    kd_ffr_free(&s);
    kd_ked_free(&k);
    return st;
}

/* ---- one-way dynamics ---------------------------------------------------------- */

/* Per link, the columns of one output instant: pose (3), then per node u, v, rz
 * (3 nnode), then per node N, M, sigma (3 nnode), then per joint the elastic
 * reaction dFx, dFy (2 njoint). Rows are kept in memory (sized before the
 * integration) and written once every link is done, in time order. */
typedef struct ked_rows {
    kd_ked* k;
    int* ncol;                    /* (nlinks) */
    int* nrow;                    /* (nlinks) rows stored */
    int cap;                      /* rows per link */
    double** data;                /* (nlinks) (cap x (1 + ncol)) with t first */
} ked_rows;

static int link_cols(const kd_ked* k, int l) {
    const kd_ked_link* L = &k->link[l];
    return 3 + 6 * L->model->nnode + 2 * L->njoint;
}

static int on_link_state(void* ctx, int l, double t, const double* q, const double* v, const double* a) {
    ked_rows* r = ctx;
    if (r->nrow[l] >= r->cap) return 0;
    const kd_ked_link* L = &r->k->link[l];
    const int nn = L->model->nnode;
    double* row = r->data[l] + (size_t)r->nrow[l]++ * (size_t)(1 + r->ncol[l]);
    row[0] = t;
    kd_ked_link_pose(r->k, l, t, row + 1);
    kd_ked_link_displacements(r->k, l, q, row + 4);
    kd_ked_link_section_forces(r->k, l, q, row + 4 + 3 * nn);
    kd_ked_link_reactions(r->k, l, t, q, v, a, row + 4 + 6 * nn);
    return kd_interrupted();
}

/* Rigid joint force (on the second body, global) at t: linear between samples. */
static void rigid_force(const kd_ked_rigid* r, int j, double t, double F[3]) {
    int i = 0;
    while (i + 2 < r->nsamples && r->t[i + 1] <= t) i++;
    const double h = r->t[i + 1] - r->t[i], s = h > 0 ? fmin(fmax((t - r->t[i]) / h, 0.0), 1.0) : 0.0;
    for (int c = 0; c < 3; c++)
        F[c] = (1 - s) * r->F[(size_t)i * 3 * r->njoint + 3 * j + c] + s * r->F[(size_t)(i + 1) * 3 * r->njoint + 3 * j + c];
}

static void write_header(FILE* fp, const kd_ked* k) {
    fprintf(fp, "t");
    for (int l = 0; l < k->nlinks; l++) {
        const kd_ked_link* L = &k->link[l];
        const char* b = L->name;
        fprintf(fp, ",%s.x,%s.y,%s.phi", b, b, b);
        for (int n = 1; n <= L->model->nnode; n++) fprintf(fp, ",%s.%d.u,%s.%d.v,%s.%d.rz", b, n, b, n, b, n);
        for (int n = 1; n <= L->model->nnode; n++) fprintf(fp, ",%s.%d.N,%s.%d.M,%s.%d.sigma", b, n, b, n, b, n);
    }
    for (int j = 0; j < k->mech->njoint; j++) {
        const char* jn = k->mech->joint[j].name;
        fprintf(fp, ",%s.Fx,%s.Fy,%s.M,%s.dFx,%s.dFy", jn, jn, jn, jn, jn);
    }
    fprintf(fp, "\n");
}

static kd_status run_one_way(const kd_desc* d, const kd_analysis_desc* ad, const char* outdir, int ordinal,
                             kd_anim_recorder* rec, kd_analysis_report* a, kd_error* err) {
    kd_dynamics_desc dy = ad->dynamics;  /* the one-way defaults for what is unset (kd_dynamics_resolve) */
    kd_dynamics_resolve(&dy, KD_ROUTE_ONE_WAY);
    kd_ked_opts o = {dy.t_end, dy.steps, dy.speed, KD_COND_MAX_DEFAULT};
    kd_ked* k = NULL;
    kd_status st = kd_ked_new_settled(d, &o, dy.settle, &k, err);
    if (st) return st;
    kd_ked_run_stats* s = &a->ked;
    s->links = k->nlinks, s->samples = k->rigid.nsamples, s->forward = k->rigid.forward, s->coupling = "one-way";
    s->speed = dy.speed;
    a->integrator = dy.integrator;
    a->formalism = KD_DYN_FORMALISM_INVARIANTS;  /* the links' equations (kedyn/ked.h) */
    a->t_end = dy.t_end;
    ked_rows r = {k, calloc((size_t)k->nlinks, sizeof(int)), calloc((size_t)k->nlinks, sizeof(int)), 0,
                  calloc((size_t)k->nlinks, sizeof(double*))};
    r.cap = (int)(dy.t_end / dy.dt / dy.output_every) + 3;
    if (!r.ncol || !r.nrow || !r.data) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    for (int l = 0; l < k->nlinks && !st; l++) {
        r.ncol[l] = link_cols(k, l);
        r.data[l] = malloc(sizeof(double) * (size_t)r.cap * (size_t)(1 + r.ncol[l]));
        if (!r.data[l]) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    /* each link on its own: one-way, the links do not interact */
    kd_status ist = KD_OK;
    for (int l = 0; l < k->nlinks && !st && !ist; l++) {
        kd_integrate_stats is;
        memset(&is, 0, sizeof(is));
        ist = kd_ked_link_dynamics(k, l, ad, on_link_state, &r, &is, err);
        a->dynamics.steps += is.steps, a->dynamics.factorizations += is.factorizations;
        a->dynamics.rhs_evals += is.rhs_evals;
        a->dynamics.t_reached = l == 0 ? is.t_reached : fmin(a->dynamics.t_reached, is.t_reached);
        if (ist) snprintf(err->msg + strlen(err->msg), sizeof(err->msg) - strlen(err->msg), " (link '%s')", k->link[l].name);
    }
    /* rows common to every link */
    int rows = r.cap;
    for (int l = 0; l < k->nlinks && !st; l++) rows = r.nrow[l] < rows ? r.nrow[l] : rows;
    /* the animation: rigid bodies from the rigid solution, each link from its rows */
    anim_links anim;
    if (!st && rows > 0 && rec && !(st = anim_links_init(&anim, rec, d, k, err))) {
        kd_anim_recorder_start_at(rec, r.data[0][0]);  /* a settled run starts after t = 0 */
        for (int i = 0; i < rows; i++) {
            const double t = r.data[0][(size_t)i * (1 + r.ncol[0])];
            if (!anim_links_due(&anim, t)) continue;
            anim_links_begin(&anim, t, NULL);
            for (int l = 0; l < k->nlinks; l++) {
                const double* row = r.data[l] + (size_t)i * (1 + r.ncol[l]);
                anim_links_link(&anim, l, row + 1, row + 4);
            }
            anim_links_commit(&anim, t);
        }
        anim_links_free(&anim);
    }
    kd_atomic_file f;
    if (!st) st = io_open_result(&f, outdir, "dynamics", ordinal, a, err);
    if (!st) {
        FILE* fp = f.fp;
        write_header(fp, k);
        for (int i = 0; i < rows; i++) {
            const double t = r.data[0][(size_t)i * (1 + r.ncol[0])];
            fprintf(fp, "%.10g", t);
            for (int l = 0; l < k->nlinks; l++) {
                const double* row = r.data[l] + (size_t)i * (1 + r.ncol[l]);
                const int nn = k->link[l].model->nnode;
                for (int c = 1; c <= 3 + 6 * nn; c++) fprintf(fp, ",%.10e", row[c]);
                /* extremes for the summary */
                for (int n = 0; n < nn; n++) {
                    const double v = fabs(row[4 + 3 * n + 1]), sg = row[4 + 3 * nn + 3 * n + 2];
                    if (v > s->max_deflection) {
                        s->max_deflection = v;
                        snprintf(s->max_deflection_at, sizeof(s->max_deflection_at), "%s node %d at t = %.6g s",
                                 k->link[l].name, n + 1, t);
                    }
                    if (sg > s->max_sigma) {
                        s->max_sigma = sg;
                        snprintf(s->max_sigma_at, sizeof(s->max_sigma_at), "%s node %d at t = %.6g s", k->link[l].name,
                                 n + 1, t);
                    }
                }
            }
            /* joint reactions: rigid plus the elastic contribution of every link at the joint,
             * as the force on the joint's second body */
            for (int j = 0; j < k->mech->njoint; j++) {
                double F[3], dF[2] = {0.0, 0.0};
                rigid_force(&k->rigid, j, t, F);
                for (int l = 0; l < k->nlinks; l++) {
                    const kd_ked_link* L = &k->link[l];
                    const double* row = r.data[l] + (size_t)i * (1 + r.ncol[l]);
                    for (int jj = 0; jj < L->njoint; jj++)
                        if (L->joint[jj] == j) {
                            const double* e = row + 4 + 6 * L->model->nnode + 2 * jj;
                            dF[0] += L->joint_sign[jj] * e[0], dF[1] += L->joint_sign[jj] * e[1];
                        }
                }
                s->max_dF = fmax(s->max_dF, hypot(dF[0], dF[1]));
                s->max_F = fmax(s->max_F, hypot(F[0], F[1]));
                fprintf(fp, ",%.10e,%.10e,%.10e,%.10e,%.10e", F[0] + dF[0], F[1] + dF[1], F[2], dF[0], dF[1]);
            }
            fprintf(fp, "\n");
        }
        st = io_finish_file(&f, ist, a, err);
    } else if (!st) {
        st = ist;
    }
    if (st == KD_OK && ist) st = ist;
    for (int l = 0; r.data && l < k->nlinks; l++) free(r.data[l]);
    free(r.data);
    free(r.ncol);
    free(r.nrow);
    kd_ked_free(&k);
    return st;
}

/* ---- modes along the motion ------------------------------------------------------ */

/* The instants of every link are the cases of one study (run_cases.h): case l ns + i is
 * instant i of the l-th link, computed by a workspace of the thread (its own copy of the
 * link's model, kd_ked_along) and followed (MAC) in instant order on the committing thread. */
#define ALONG_SLOTS 64

typedef struct along_cases {
    const kd_ked* k;
    int count, route, ns, nl;
    const int* links;       /* (nl) the links analysed */
    kd_ked_follow** follow; /* (nl) */
    pthread_mutex_t mu;     /* the workspaces: one per thread computing, reused case after case */
    kd_ked_along* ws[ALONG_SLOTS];
    int ws_link[ALONG_SLOTS], busy[ALONG_SLOTS];
} along_cases;

static kd_status along_compute(void* ctx, int idx, const char* outdir, int remote, run_buf* out, kd_error* err) {
    (void)outdir, (void)remote;
    along_cases* ac = ctx;
    const int link = ac->links[idx / ac->ns], i = idx % ac->ns;
    int slot = -1;
    kd_ked_along* w = NULL;
    pthread_mutex_lock(&ac->mu);
    for (int s = 0; s < ALONG_SLOTS && slot < 0; s++)
        if (!ac->busy[s] && ac->ws[s] && ac->ws_link[s] == link) slot = s;
    for (int s = 0; s < ALONG_SLOTS && slot < 0; s++)
        if (!ac->busy[s]) slot = s;
    if (slot >= 0) {
        ac->busy[slot] = 1;
        if (ac->ws[slot] && ac->ws_link[slot] == link) w = ac->ws[slot];
        else kd_ked_along_free(&ac->ws[slot]);
    }
    pthread_mutex_unlock(&ac->mu);
    kd_status st = w ? KD_OK : kd_ked_along_new(ac->k, link, ac->count, ac->route, &w, err);
    if (!st) st = kd_ked_along_instant(w, i, err);
    if (!st) {
        size_t size = 0;
        const void* b = kd_ked_along_bytes(w, &size);
        run_buf_put(out, b, size);
    }
    if (slot < 0) {
        kd_ked_along_free(&w);
        return st;
    }
    pthread_mutex_lock(&ac->mu);
    ac->ws[slot] = w, ac->ws_link[slot] = link, ac->busy[slot] = 0;
    pthread_mutex_unlock(&ac->mu);
    return st;
}

static kd_status along_commit(void* ctx, int idx, kd_status cst, const char* msg, run_reader* in, kd_error* err) {
    along_cases* ac = ctx;
    if (cst) return kd_error_set(err, cst, "", KD_LOC_NONE, "%s", msg);
    const kd_status st = kd_ked_follow_add(ac->follow[idx / ac->ns], idx % ac->ns, in->p, in->left, err);
    in->p += in->left, in->left = 0;
    return st;
}

static kd_status run_modes_along(const run_context* c, const kd_analysis_desc* an, kd_analysis_report* a,
                                 kd_error* err) {
    const kd_desc* d = c->d;
    kd_modes_along_motion_desc ma = an->modes_along_motion;  /* defaults for what is unset */
    kd_modes_along_motion_resolve(&ma);
    const kd_modes_along_motion_desc* ad = &ma;
    kd_ked_opts o = {ad->t_end, ad->steps, ad->speed, ad->cond_max};
    kd_ked* k = NULL;
    kd_status st = kd_ked_new_settled(d, &o, ad->settle, &k, err);
    if (st) return st;
    kd_ked_run_stats* s = &a->ked;
    s->samples = k->rigid.nsamples, s->forward = k->rigid.forward, s->speed = ad->speed, s->count = ad->count;
    s->mac_min = 1.0;
    a->t_end = ad->t_end;
    const int route = ad->gyroscopic == KD_GYROSCOPIC_FALSE   ? KD_KED_GYRO_OFF
                      : ad->gyroscopic == KD_GYROSCOPIC_DENSE ? KD_KED_GYRO_DENSE
                                                              : KD_KED_GYRO_REFINE;
    kd_ked_modes* res = calloc((size_t)k->nlinks, sizeof(kd_ked_modes));
    int* links = calloc((size_t)k->nlinks + 1, sizeof(int));
    kd_ked_follow** follow = calloc((size_t)k->nlinks + 1, sizeof(*follow));
    int nl = 0;
    if (!res || !links || !follow) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    for (int l = 0; l < k->nlinks && !st; l++) {
        if (ad->body >= 0 && k->link[l].body != ad->body) continue;
        st = kd_ked_follow_begin(k, l, ad->count, route, &res[l], &follow[nl], err);
        links[nl++] = l;
    }
    if (!st) {
        along_cases ac;
        memset(&ac, 0, sizeof(ac));
        ac.k = k, ac.count = ad->count, ac.route = route, ac.ns = k->rigid.nsamples, ac.nl = nl;
        ac.links = links, ac.follow = follow;
        pthread_mutex_init(&ac.mu, NULL);
        const run_case_set set = {"modes_along_motion", nl * ac.ns, &ac, along_compute, along_commit};
        st = run_cases(c, &set, err);
        for (int w = 0; w < ALONG_SLOTS; w++) kd_ked_along_free(&ac.ws[w]);
        pthread_mutex_destroy(&ac.mu);
    }
    for (int l = 0; follow && l < nl; l++) kd_ked_follow_free(&follow[l]);
    free(follow);
    const int worker = run_cases_worker(c);
    for (int j = 0; j < nl && !st && !worker; j++) {
        const int l = links[j];
        s->swaps += res[l].swaps;
        s->mac_min = fmin(s->mac_min, res[l].mac_min);
        if (j < KD_KED_REPORT_LINKS) {
            snprintf(s->link_name[j], sizeof(s->link_name[0]), "%s", k->link[l].name);
            for (int m = 0; m < res[l].count && m < KD_KED_REPORT_MODES; m++) {
                double lo = INFINITY, hi = -INFINITY;
                for (int i = 0; i < res[l].nsamples; i++) {
                    const double w = res[l].omega[(size_t)i * res[l].count + m];
                    lo = fmin(lo, w), hi = fmax(hi, w);
                }
                s->omega_min[j][m] = lo, s->omega_max[j][m] = hi;
            }
        }
    }
    free(links);
    s->links = nl;
    kd_atomic_file f;
    if (!st && !worker) st = io_open_result(&f, c->outdir, "modes_along_motion", c->ordinal, a, err);
    if (!st && !worker) {
        FILE* fp = f.fp;
        fprintf(fp, "t");
        for (int l = 0; l < k->nlinks; l++)
            for (int m = 1; m <= res[l].count; m++) fprintf(fp, ",%s.omega_%d", k->link[l].name, m);
        fprintf(fp, "\n");
        for (int i = 0; i < k->rigid.nsamples; i++) {
            fprintf(fp, "%.10g", k->rigid.t[i]);
            for (int l = 0; l < k->nlinks; l++)
                for (int m = 0; m < res[l].count; m++) fprintf(fp, ",%.10e", res[l].omega[(size_t)i * res[l].count + m]);
            fprintf(fp, "\n");
        }
        st = io_finish_file(&f, KD_OK, a, err);
    }
    for (int l = 0; res && l < k->nlinks; l++) kd_ked_modes_free(&res[l]);
    free(res);
    kd_ked_free(&k);
    return st;
}

/* ---- dispatch -------------------------------------------------------------------- */

kd_status run_links_analysis(const run_context* c, const kd_analysis_desc* ad, kd_analysis_report* a, kd_error* err) {
    if (ad->type == KD_ANALYSIS_MODES_ALONG_MOTION) return run_modes_along(c, ad, a, err);
    const kd_desc* d = c->d;
    const char* outdir = c->outdir;
    const int ordinal = c->ordinal;
    kd_anim_recorder* rec = c->anim;
    if (ad->dynamics.coupling == KD_COUPLING_TWO_WAY) return run_two_way(d, ad, outdir, ordinal, rec, a, err);
    return run_one_way(d, ad, outdir, ordinal, rec, a, err);
}

void run_links_summary(FILE* fp, const kd_analysis_report* a) {
    const kd_ked_run_stats* s = &a->ked;
    if (s->links == 0) return;
    fprintf(fp, ",\n      \"links\": %d, \"rigid_samples\": %d, \"rigid_route\": \"%s\"", s->links, s->samples,
            s->forward ? "forward_dynamics" : "kinematics");
    if (a->type == KD_ANALYSIS_DYNAMICS) {
        fprintf(fp, ", \"coupling\": \"%s\",\n      \"max_deflection_m\": %.6g, \"max_deflection_at\": ",
                s->coupling ? s->coupling : "one-way", s->max_deflection);
        io_json_string(fp, s->max_deflection_at);
        fprintf(fp, ", \"max_stress_pa\": %.6g, \"max_stress_at\": ", s->max_sigma);
        io_json_string(fp, s->max_sigma_at);
        fprintf(fp, ",\n      ");
        fprintf(fp, "\"max_joint_force_n\": %.6g, \"max_elastic_joint_force_n\": %.6g", s->max_F, s->max_dF);
        if (s->speed > 0) fprintf(fp, ", \"speed_rad_s\": %.10g", s->speed);
        return;
    }
    fprintf(fp, ", \"count\": %d, \"speed_rad_s\": %.10g, \"mac_min\": %.6g, \"reordered_instants\": %d", s->count,
            s->speed, s->mac_min, s->swaps);
    for (int l = 0; l < s->links && l < KD_KED_REPORT_LINKS; l++) {
        const int c = s->count < KD_KED_REPORT_MODES ? s->count : KD_KED_REPORT_MODES;
        fprintf(fp, ",\n      ");
        io_json_string(fp, s->link_name[l]);
        fprintf(fp, ": {\"omega_min_rad_s\": ");
        util_json_numbers(fp, "%.8g", ", ", s->omega_min[l], c, NULL);
        fprintf(fp, ", \"omega_max_rad_s\": ");
        util_json_numbers(fp, "%.8g", ", ", s->omega_max[l], c, NULL);
        fprintf(fp, "}");
    }
}
