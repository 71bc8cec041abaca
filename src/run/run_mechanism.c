/* Mechanism analyses in the runner: kinematics and inverse_dynamics on the
 * compiled mechanism (src/mechanism, kedyn/mech.h), and dynamics of a
 * mechanism by the forward solvers of src/constrained (kedyn/mbs.h); their
 * CSV files and summary entries (docs/model-format.md, "Mechanisms"). Taken
 * before the table of runners (run.c). */
#include "run_mechanism.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/atomic_file.h"
#include "output/output_util.h"
#include "kedyn/mbs.h"
#include "kedyn/mech.h"
#include "output/anim_mech.h"
#include "kedyn/mech_formalism.h"

int run_mechanism_handles(const kd_desc* d, const kd_analysis_desc* ad) {
    return ad->type == KD_ANALYSIS_KINEMATICS || ad->type == KD_ANALYSIS_INVERSE_DYNAMICS ||
           (ad->type == KD_ANALYSIS_DYNAMICS && kd_desc_is_mechanism(d));
}

/* Assemble at t = 0 from the guesses and record the mobility. */
static kd_status mobility(const kd_mech* m, kd_mech_run_stats* s, kd_error* err) {
    kd_mech_work* w = kd_mech_work_new(m);
    double* q = malloc(sizeof(double) * (size_t)(m->n + 1));
    kd_status st = w && q ? KD_OK : kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    if (!st) {
        memcpy(q, m->q0, sizeof(double) * (size_t)m->n);
        st = kd_mech_solve_position(m, w, 0.0, q, NULL, err);
    }
    kd_mech_mobility mob;
    if (!st) st = kd_mech_mobility_at(m, 0.0, q, &mob, err);
    if (!st) {
        s->dof = mob.dof, s->dof_undriven = mob.dof_undriven, s->gruebler = mob.gruebler, s->nredundant = mob.nredundant;
        kd_mech_redundant_names(m, &mob, s->redundant, (int)sizeof(s->redundant));
    }
    free(q);
    kd_mech_work_free(&w);
    return st;
}

kd_status run_mechanism_precheck(const kd_desc* d, kd_error* err) {
    int needs = 0;
    const kd_analysis_desc* first = NULL;
    for (int i = 0; i < d->nanalyses && !first; i++)
        if (d->analyses[i].type == KD_ANALYSIS_KINEMATICS || d->analyses[i].type == KD_ANALYSIS_INVERSE_DYNAMICS)
            first = &d->analyses[i], needs = 1;
    if (!needs || !kd_desc_is_mechanism(d)) return KD_OK;
    kd_mech* m = NULL;
    kd_error local;
    if (kd_mech_compile(d, &m, &local)) return KD_OK;  /* reported by the analysis */
    kd_mech_run_stats s;
    memset(&s, 0, sizeof(s));
    kd_status st = KD_OK;
    if (mobility(m, &s, &local) == KD_OK && s.dof_undriven > 0)
        st = kd_error_set(err, KD_ERR_INPUT, d->file, first->loc,
                          "%s needs one driver per degree of freedom: the mechanism has %d DOF and %d of them are "
                          "not driven (add drivers, or use dynamics)",
                          kd_analysis_type_name(first->type), s.dof, s.dof_undriven);
    kd_mech_free(&m);
    return st;
}

/* ---- kinematics ----------------------------------------------------------- */

typedef struct kin_sink {
    FILE* fp;
    const kd_mech* m;
    int points;                   /* 1: named points too */
    anim_mech* anim;           /* animation instants */
} kin_sink;

static int kin_row(void* ctx, double t, const double* q, const double* qd, const double* qdd, const kd_mech_kin_info* info) {
    kin_sink* k = ctx;
    fprintf(k->fp, "%.10g", t);
    for (int i = 0; i < k->m->n; i++) fprintf(k->fp, ",%.12e", q[i]);
    for (int i = 0; i < k->m->n; i++) fprintf(k->fp, ",%.12e", qd[i]);
    for (int i = 0; i < k->m->n; i++) fprintf(k->fp, ",%.12e", qdd[i]);
    for (int p = 0; k->points && p < k->m->npoint; p++) {
        double r[2], v[2], a[2];
        const int b = k->m->point_body[p];
        const double* s = k->m->point_s + 2 * p;
        kd_mech_point(k->m, b, s, q, qd, r, v);
        kd_mech_point_acc(k->m, b, s, q, qd, qdd, a);
        fprintf(k->fp, ",%.12e,%.12e,%.12e,%.12e,%.12e,%.12e", r[0], r[1], v[0], v[1], a[0], a[1]);
    }
    fprintf(k->fp, ",%.6e\n", info->cond);
    anim_mech_offer(k->anim, t, q);
    return ferror(k->fp) != 0 || kd_interrupted();
}

static void kin_header(FILE* fp, const kd_mech* m, int points) {
    static const char* const names[3][3] = {{"x", "y", "phi"}, {"vx", "vy", "omega"}, {"ax", "ay", "alpha"}};
    fprintf(fp, "t");
    for (int k = 0; k < 3; k++)
        for (int b = 0; b < m->nbody; b++)
            for (int c = 0; c < 3; c++) fprintf(fp, ",%s.%s", m->body_name[b], names[k][c]);
    for (int p = 0; points && p < m->npoint; p++) {
        const char *bn = m->body_name[m->point_body[p]], *pn = m->point_name[p];
        fprintf(fp, ",%s.%s.x,%s.%s.y,%s.%s.vx,%s.%s.vy,%s.%s.ax,%s.%s.ay", bn, pn, bn, pn, bn, pn, bn, pn, bn, pn, bn, pn);
    }
    fprintf(fp, ",cond\n");
}

static kd_status run_kinematics(const kd_kinematics_desc* ad, const kd_mech* m, const char* outdir, int ordinal,
                                anim_mech* anim, kd_analysis_report* a, kd_error* err) {
    kd_atomic_file f;
    kd_status st = io_open_result(&f, outdir, "kinematics", ordinal, a, err);
    if (st) return st;
    kin_header(f.fp, m, ad->points);
    kin_sink k = {f.fp, m, ad->points, anim};
    kd_mech_kin_stats ks;
    st = kd_mech_kinematics(m, ad->t_end, ad->steps, ad->cond_max, kin_row, &k, &ks, err);
    a->mech.steps = ks.steps, a->mech.t_reached = ks.t_reached;
    a->mech.cond_max = ks.cond_max, a->mech.t_cond_max = ks.t_cond_max;
    return io_finish_file(&f, st, a, err);
}

/* ---- inverse dynamics ------------------------------------------------------ */

typedef struct inv_sink {
    FILE* fp;
    const kd_mech* m;
    kd_mech_work* w;
    kd_mech_reactions mult, proj;
    double* qdd_aug;
    double max_val, max_diff, max_qdd, max_qdd_diff;
    kd_error* err;
    anim_mech* anim;           /* animation instants */
} inv_sink;

static int inv_row(void* ctx, double t, const double* q, const double* qd, const double* qdd, const kd_mech_kin_info* info) {
    (void)info;
    inv_sink* s = ctx;
    const kd_mech* m = s->m;
    if (kd_mech_inverse_multipliers(m, s->w, t, q, qd, s->qdd_aug, &s->mult, s->err) ||
        kd_mech_inverse_projection(m, s->w, t, q, qd, qdd, &s->proj, s->err))
        return 1;
    /* agreement of the two routes, and of the augmented q'' with the kinematics */
    for (int i = 0; i < 3 * m->njoint; i++) {
        s->max_val = fmax(s->max_val, fabs(s->mult.F[i]));
        s->max_diff = fmax(s->max_diff, fabs(s->mult.F[i] - s->proj.F[i]));
    }
    for (int d = 0; d < m->ndriver; d++) {
        s->max_val = fmax(s->max_val, fabs(s->mult.drive[d]));
        s->max_diff = fmax(s->max_diff, fabs(s->mult.drive[d] - s->proj.drive[d]));
    }
    for (int i = 0; i < m->n; i++) {
        s->max_qdd = fmax(s->max_qdd, fabs(qdd[i]));
        s->max_qdd_diff = fmax(s->max_qdd_diff, fabs(qdd[i] - s->qdd_aug[i]));
    }
    /* power of the drivers: drive force times the rate of its coordinate */
    double power = 0.0;
    for (int d = 0; d < m->ndriver; d++) {
        double f, df, d2f;
        kd_law_eval(&m->driver[d].law, t, &f, &df, &d2f);
        power += s->mult.drive[d] * df;
    }
    FILE* fp = s->fp;
    fprintf(fp, "%.10g", t);
    for (int k = 0; k < m->njoint; k++)
        fprintf(fp, ",%.10e,%.10e,%.10e", s->mult.F[3 * k], s->mult.F[3 * k + 1], s->mult.F[3 * k + 2]);
    for (int d = 0; d < m->ndriver; d++) fprintf(fp, ",%.10e,%.10e", s->mult.drive[d], s->proj.drive[d]);
    fprintf(fp, ",%.10e,%.10e,%.10e\n", kd_mech_kinetic(m, qd), kd_mech_potential(m, q), power);
    anim_mech_offer(s->anim, t, q);
    return ferror(fp) != 0 || kd_interrupted();
}

static void inv_header(FILE* fp, const kd_mech* m) {
    fprintf(fp, "t");
    for (int k = 0; k < m->njoint; k++) fprintf(fp, ",%s.Fx,%s.Fy,%s.M", m->joint[k].name, m->joint[k].name, m->joint[k].name);
    /* driving torque (revolute: equal to JOINT.M) or force along the axis, by
     * both routes */
    for (int d = 0; d < m->ndriver; d++) {
        const kd_mjoint* j = &m->joint[m->driver[d].joint];
        if (j->type == KD_JOINT_REVOLUTE) fprintf(fp, ",%s.drive_M,%s.drive_M.projection", j->name, j->name);
        else fprintf(fp, ",%s.F,%s.F.projection", j->name, j->name);
    }
    fprintf(fp, ",E_kinetic,E_potential,P_drive\n");
}

static kd_status run_inverse(const kd_inverse_dynamics_desc* ad, const kd_mech* m, const char* outdir, int ordinal,
                             anim_mech* anim, kd_analysis_report* a, kd_error* err) {
    inv_sink s;
    memset(&s, 0, sizeof(s));
    s.m = m;
    s.anim = anim;
    s.w = kd_mech_work_new(m);
    s.qdd_aug = malloc(sizeof(double) * (size_t)(m->n + 1));
    kd_status st = (s.w && s.qdd_aug && !kd_mech_reactions_alloc(m, &s.mult) && !kd_mech_reactions_alloc(m, &s.proj))
                       ? KD_OK
                       : kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    kd_atomic_file f;
    if (!st) st = io_open_result(&f, outdir, "inverse_dynamics", ordinal, a, err);
    if (!st) {
        s.fp = f.fp;
        inv_header(f.fp, m);
        kd_error kerr, serr;
        kd_error_clear(&kerr);
        kd_error_clear(&serr);
        s.err = &serr;
        kd_mech_kin_stats ks;
        st = kd_mech_kinematics(m, ad->t_end, ad->steps, ad->cond_max, inv_row, &s, &ks, &kerr);
        if (st) {  /* a failure inside the sink left its own cause */
            *err = serr.status != KD_OK ? serr : kerr;
            st = err->status;
        }
        a->mech.steps = ks.steps, a->mech.t_reached = ks.t_reached;
        a->mech.cond_max = ks.cond_max, a->mech.t_cond_max = ks.t_cond_max;
        a->mech.route_diff = s.max_val > 0 ? s.max_diff / s.max_val : s.max_diff;
        a->mech.qdd_diff = s.max_qdd > 0 ? s.max_qdd_diff / s.max_qdd : s.max_qdd_diff;
        st = io_finish_file(&f, st, a, err);
        if (!st && a->mech.route_diff > 1e-6)
            snprintf(a->message, sizeof(a->message),
                     "the multipliers and projection routes differ by %.3g (relative): redundant constraints make "
                     "the reactions at %s non-unique",
                     a->mech.route_diff, a->mech.redundant[0] ? a->mech.redundant : "some joints");
    }
    kd_mech_reactions_free(&s.mult);
    kd_mech_reactions_free(&s.proj);
    free(s.qdd_aug);
    kd_mech_work_free(&s.w);
    return st;
}

/* ---- dynamics of a mechanism (forward solvers over kd_cms) ---------------- */

/* Forward dynamics of the mechanism (kedyn/mbs.h) from the assembled position at rest (velocities
 * projected onto the drivers' velocity constraints); one CSV row per output instant:
 * t, BODY.x, BODY.y, BODY.phi..., drift_position, drift_velocity, E_kinetic, W_applied,
 * energy_balance (E_kinetic - E_kinetic(0) - W_applied: zero but for the drivers' work and the
 * integration error). */
typedef struct fwd_sink {
    FILE* fp;
    int n;
    double T0;
    int rows;
    anim_mech* anim;           /* animation instants */
} fwd_sink;

static int fwd_row(void* ctx, const kd_mbs_sample* s) {
    fwd_sink* k = ctx;
    if (k->rows++ == 0) k->T0 = s->kinetic;
    fprintf(k->fp, "%.10g", s->t);
    for (int i = 0; i < k->n; i++) fprintf(k->fp, ",%.12e", s->q[i]);
    fprintf(k->fp, ",%.6e,%.6e,%.12e,%.12e,%.6e\n", s->drift_pos, s->drift_vel, s->kinetic, s->work,
            s->kinetic - k->T0 - s->work);
    anim_mech_offer(k->anim, s->t, s->q);
    return ferror(k->fp) != 0 || kd_interrupted();
}

static kd_status run_mech_dynamics(const kd_analysis_desc* an, const kd_mech* m, const char* outdir, int ordinal,
                                   anim_mech* anim, kd_analysis_report* a, kd_error* err) {
    /* the mechanism defaults for what is unset (kd_dynamics_resolve): rk4, augmented, baumgarte,
     * the formalism the formulation implements; an integrator the route cannot honour was
     * rejected by kd_desc_check at its key */
    kd_dynamics_desc dy = an->dynamics;
    kd_dynamics_resolve(&dy, KD_ROUTE_MECHANISM);
    if (!kd_dynamics_route_takes(KD_ROUTE_MECHANISM, dy.integrator))
        return kd_error_set(err, KD_ERR_INPUT, "", an->loc, "mechanism dynamics integrates with %s",
                            kd_dynamics_route_integrators(KD_ROUTE_MECHANISM));
    kd_mbs_opts o;
    kd_mbs_opts_from_dynamics(&o, &dy, dy.t_end);
    /* the formalism (kedyn/mech_formalism.h) decides the formulation */
    const kd_mech_formalism form = (kd_mech_formalism)kd_mech_formalism_parse(kd_dynamics_formalism_name(dy.formalism));
    kd_mech_formalism_opts(form, m, &o);
    a->integrator = dy.integrator;
    /* assembled initial position, at rest */
    kd_mech_work* w = kd_mech_work_new(m);
    double* q = malloc(sizeof(double) * (size_t)(2 * m->n + 1));
    kd_status st = w && q ? KD_OK : kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    if (!st) {
        memcpy(q, m->q0, sizeof(double) * (size_t)m->n);
        memset(q + m->n, 0, sizeof(double) * (size_t)m->n);
        st = kd_mech_solve_position(m, w, 0.0, q, NULL, err);
    }
    kd_atomic_file f;
    if (!st) {
        st = io_open_result(&f, outdir, "dynamics", ordinal, a, err);
        if (!st) {
            static const char* const names[3] = {"x", "y", "phi"};
            fprintf(f.fp, "t");
            for (int b = 0; b < m->nbody; b++)
                for (int c = 0; c < 3; c++) fprintf(f.fp, ",%s.%s", m->body_name[b], names[c]);
            fprintf(f.fp, ",drift_position,drift_velocity,E_kinetic,W_applied,energy_balance\n");
            kd_cms cms;
            kd_mech_cms(m, &cms);
            fwd_sink k = {f.fp, m->n, 0, 0, anim};
            kd_mbs_stats ms;
            st = kd_mbs_forward(&cms, &o, q, q + m->n, fwd_row, &k, &ms, err);
            a->dynamics.steps = ms.steps, a->dynamics.factorizations = ms.factorizations;
            a->dynamics.rhs_evals = ms.evaluations, a->dynamics.t_reached = ms.t_reached;
            a->mech.steps = k.rows, a->mech.t_reached = ms.t_reached;
            a->mech.formalism = kd_mech_formalism_name(form);
            a->mech.formulation = kd_mbs_formulation_name(o.formulation);
            a->mech.stabilization = o.formulation == KD_MBS_AUGMENTED || o.formulation == KD_MBS_UDWADIA_KALABA
                                        ? kd_mbs_stabilization_name(o.stabilization)
                                        : "none";
            a->mech.method = o.formulation == KD_MBS_IDA ? "ida" : kd_mbs_integrator_name(o.integrator);
            a->mech.drift_pos = ms.max_drift_pos, a->mech.drift_vel = ms.max_drift_vel;
            st = io_finish_file(&f, st, a, err);
            if (!st && (ms.max_drift_pos > 1e-6 * m->length_scale))
                snprintf(a->message, sizeof(a->message), "constraint drift up to %.3g (formulation %s)",
                         ms.max_drift_pos, kd_mbs_formulation_name(o.formulation));
        }
    }
    free(q);
    kd_mech_work_free(&w);
    return st;
}

/* ---- dispatch ----------------------------------------------------------- */

kd_status run_mechanism_analysis(const kd_desc* d, const kd_analysis_desc* ad, const char* outdir, int ordinal,
                               kd_anim_recorder* rec, kd_analysis_report* a, kd_error* err) {
    kd_mech* m = NULL;
    anim_mech anim = {0};
    kd_status st = kd_mech_compile(d, &m, err);
    if (!st) st = anim_mech_init(&anim, rec, d, m, err);
    if (!st) st = mobility(m, &a->mech, err);
    if (!st && a->mech.nredundant > 0)
        snprintf(a->message, sizeof(a->message), "redundant constraints: %s%s", a->mech.redundant,
                 ad->type == KD_ANALYSIS_INVERSE_DYNAMICS
                     ? "; the reactions they share are not unique (the minimum-norm multipliers are reported)"
                     : "");
    if (!st) {
        switch (ad->type) {
        case KD_ANALYSIS_KINEMATICS:
            a->t_end = ad->kinematics.t_end;
            st = run_kinematics(&ad->kinematics, m, outdir, ordinal, &anim, a, err);
            break;
        case KD_ANALYSIS_INVERSE_DYNAMICS:
            a->t_end = ad->inverse_dynamics.t_end;
            st = run_inverse(&ad->inverse_dynamics, m, outdir, ordinal, &anim, a, err);
            break;
        case KD_ANALYSIS_DYNAMICS:
            a->t_end = ad->dynamics.t_end;
            st = run_mech_dynamics(ad, m, outdir, ordinal, &anim, a, err);
            break;
        default: st = kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "not a mechanism analysis"); break;
        }
    }
    anim_mech_free(&anim);
    kd_mech_free(&m);
    return st;
}

void run_mechanism_summary(FILE* fp, const kd_analysis_report* a) {
    const kd_mech_run_stats* s = &a->mech;
    if (a->type == KD_ANALYSIS_DYNAMICS && s->formulation) {  /* forward dynamics of a mechanism */
        fprintf(fp, ", \"formulation\": \"%s\", \"stabilization\": \"%s\", \"method\": \"%s\",", s->formulation,
                s->stabilization, s->method);
        fprintf(fp, "\n      \"dof\": %d, \"gruebler\": %d, \"redundant\": %d, ", s->dof, s->gruebler, s->nredundant);
        fprintf(fp, "\"max_drift_position\": %.3g, \"max_drift_velocity\": %.3g", s->drift_pos, s->drift_vel);
        return;
    }
    if (a->type != KD_ANALYSIS_KINEMATICS && a->type != KD_ANALYSIS_INVERSE_DYNAMICS) return;
    fprintf(fp, ", \"steps\": %d, \"t_end\": %.12g, ", s->steps, a->t_end);
    if (isfinite(s->t_reached)) fprintf(fp, "\"t_reached\": %.12g,", s->t_reached);
    else fprintf(fp, "\"t_reached\": null,");
    fprintf(fp, "\n      \"dof\": %d, \"dof_undriven\": %d, \"gruebler\": %d, \"redundant\": %d, ", s->dof,
            s->dof_undriven, s->gruebler, s->nredundant);
    fprintf(fp, "\"cond_max\": %.6g, \"t_cond_max\": %.12g", s->cond_max, s->t_cond_max);
    if (a->type == KD_ANALYSIS_INVERSE_DYNAMICS)
        fprintf(fp, ", \"route_difference\": %.3g, \"qdd_difference\": %.3g", s->route_diff, s->qdd_diff);
}

/* ---- the model's part of summary.json ------------------------------------ */

void run_mechanism_model_summary(FILE* fp, const kd_desc* d, const kd_model* model) {
    if (!kd_desc_is_mechanism(d)) return;
    kd_mech* m = NULL;
    kd_error err;
    if (kd_mech_compile(d, &m, &err)) return;
    double mass = 0.0;
    for (int b = 0; b < m->nbody; b++) mass += m->mass[3 * b];
    int links = 0, link_dof = 0;
    for (int b = 0; b < d->nbodies && b < model->nbody; b++) {
        if (d->bodies[b].type != KD_BODY_BEAM || !kd_desc_beam_in_joints(d, b)) continue;
        const kd_body* body = &model->body[b];
        int dof = 0;
        for (int n = body->node_adr; n < body->node_adr + body->node_num; n++) dof += model->node_dof_num[n];
        links++, link_dof += dof - 3;  /* the floating frame's reference conditions hold 3 */
    }
    fprintf(fp, ",\n  \"mechanism\": {\"moving_bodies\": %d, \"joints\": %d, \"drivers\": %d, \"dof_gruebler\": %d, "
                "\"elastic_links\": %d, \"link_elastic_dof\": %d, \"mass_kg\": %.12g}",
            m->nbody, m->njoint, m->ndriver, m->n - m->nc_joint, links, link_dof, mass);
    kd_mech_free(&m);
}
