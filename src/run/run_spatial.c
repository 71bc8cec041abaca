/* Spatial-mechanism analyses in the runner (`spatial: true`; kedyn/smech.h): kinematics,
 * inverse_dynamics and dynamics with their CSV files (docs/model-format.md, "Spatial
 * mechanisms") and the mechanism's part of summary.json. Taken before every other route
 * (run.c). */
#include "run_spatial.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/atomic_file.h"
#include "kedyn/mbs.h"
#include "kedyn/mech_formalism.h"
#include "kedyn/smech_formalism.h"
#include "kedyn/sdesc.h"
#include "kedyn/smech.h"
#include "output/anim_spatial.h"
#include "output/output_util.h"

int run_spatial_handles(const kd_desc* d) { return d->sdesc != NULL; }

/* Assemble at t = 0 and record the mobility; q (n) gets the assembled position. */
static kd_status assemble(const kd_smech* m, double* q, kd_mech_run_stats* s, kd_error* err) {
    memcpy(q, m->q0, sizeof(double) * (size_t)m->n);
    kd_status st = kd_smech_solve_position(m, 0.0, q, NULL, err);
    kd_smech_mobility mob;
    if (!st) st = kd_smech_mobility_at(m, 0.0, q, &mob, err);
    if (!st) {
        s->dof = mob.dof, s->dof_undriven = mob.dof_undriven, s->gruebler = mob.gruebler;
        s->nredundant = mob.nredundant;
        kd_smech_redundant_names(m, &mob, s->redundant, (int)sizeof(s->redundant));
    }
    return st;
}

static void pose_header(FILE* fp, const kd_smech* m, int vel) {
    static const char* const pos[7] = {"x", "y", "z", "q0", "q1", "q2", "q3"};
    static const char* const v[6] = {"vx", "vy", "vz", "wx", "wy", "wz"};
    for (int b = 0; b < m->nbody; b++)
        for (int c = 0; c < 7; c++) fprintf(fp, ",%s.%s", m->body_name[b], pos[c]);
    for (int b = 0; vel && b < m->nbody; b++)
        for (int c = 0; c < 6; c++) fprintf(fp, ",%s.%s", m->body_name[b], v[c]);
}

static void pose_row(FILE* fp, const kd_smech* m, const double* q, const double* qd) {
    for (int i = 0; i < m->n; i++) fprintf(fp, ",%.12e", q[i]);
    for (int b = 0; qd && b < m->nbody; b++) {
        double w[3];
        kd_smech_omega(m, b, q, qd, w);
        const double* v = qd + KD_SPOSE * b;
        fprintf(fp, ",%.12e,%.12e,%.12e,%.12e,%.12e,%.12e", v[0], v[1], v[2], w[0], w[1], w[2]);
    }
}

/* named points of the moving bodies (points: true) */
static void points_header(FILE* fp, const kd_desc* d) {
    const kd_sdesc* s = d->sdesc;
    for (int b = 0; b < s->nbodies; b++)
        for (int p = 0; !s->bodies[b].ground && p < s->bodies[b].npoints; p++)
            for (int c = 0; c < 3; c++)
                fprintf(fp, ",%s.%s.%c", s->bodies[b].name, s->bodies[b].points[p].name, "xyz"[c]);
}
static void points_row(FILE* fp, const kd_desc* d, const kd_smech* m, const double* q) {
    const kd_sdesc* s = d->sdesc;
    for (int b = 0, k = 0; b < s->nbodies; b++) {
        if (s->bodies[b].ground) continue;
        for (int p = 0; p < s->bodies[b].npoints; p++) {
            double sp[3], r[3];
            for (int c = 0; c < 3; c++) sp[c] = s->bodies[b].points[p].x[c] - s->bodies[b].com[c];
            kd_smech_point(m, k, sp, q, NULL, r, NULL);
            fprintf(fp, ",%.12e,%.12e,%.12e", r[0], r[1], r[2]);
        }
        k++;
    }
}

typedef struct kin_ctx {
    FILE* fp;
    const kd_desc* d;
    const kd_smech* m;
    int points, inverse;
    kd_smech_reactions mult, proj;
    anim_spatial* anim;           /* animation instants */
    double max_val, max_diff;
    kd_error* err;
} kin_ctx;

static int kin_row(void* c, double t, const double* q, const double* qd, const double* qdd, const kd_smech_info* info) {
    kin_ctx* k = c;
    const kd_smech* m = k->m;
    fprintf(k->fp, "%.10g", t);
    anim_spatial_offer(k->anim, t, q);
    if (!k->inverse) {
        pose_row(k->fp, m, q, qd);
        if (k->points) points_row(k->fp, k->d, m, q);
        fprintf(k->fp, ",%.6e\n", info->cond);
        return ferror(k->fp) != 0 || kd_interrupted();
    }
    if (kd_smech_inverse_multipliers(m, t, q, qd, NULL, &k->mult, k->err) ||
        kd_smech_inverse_projection(m, t, q, qd, qdd, &k->proj, k->err))
        return 1;
    for (int i = 0; i < 6 * m->njoint; i++) {
        fprintf(k->fp, ",%.10e", k->mult.F[i]);
        k->max_val = fmax(k->max_val, fabs(k->mult.F[i]));
        k->max_diff = fmax(k->max_diff, fabs(k->mult.F[i] - k->proj.F[i]));
    }
    double power = 0;
    for (int dv = 0; dv < m->ndriver; dv++) {
        double x, xd, xdd;
        kd_law_eval(&m->driver[dv].law, t, &x, &xd, &xdd);
        power += k->mult.drive[dv] * xd;
        fprintf(k->fp, ",%.10e,%.10e", k->mult.drive[dv], k->proj.drive[dv]);
        k->max_val = fmax(k->max_val, fabs(k->mult.drive[dv]));
        k->max_diff = fmax(k->max_diff, fabs(k->mult.drive[dv] - k->proj.drive[dv]));
    }
    fprintf(k->fp, ",%.12e,%.12e,%.10e\n", kd_smech_kinetic(m, q, qd), kd_smech_potential(m, q), power);
    return ferror(k->fp) != 0 || kd_interrupted();
}

static void reaction_header(FILE* fp, const kd_smech* m) {
    static const char* const c[6] = {"Fx", "Fy", "Fz", "Mx", "My", "Mz"};
    for (int k = 0; k < m->njoint; k++)
        for (int i = 0; i < 6; i++) fprintf(fp, ",%s.%s", m->joint[k].name, c[i]);
}

static kd_status run_kin(const kd_desc* d, const kd_analysis_desc* ad, const kd_smech* m, const char* outdir,
                         int ordinal, anim_spatial* anim, kd_analysis_report* a, kd_error* err) {
    const int inverse = ad->type == KD_ANALYSIS_INVERSE_DYNAMICS;
    const double t_end = inverse ? ad->inverse_dynamics.t_end : ad->kinematics.t_end;
    const int steps = inverse ? ad->inverse_dynamics.steps : ad->kinematics.steps;
    const double cond_max = inverse ? ad->inverse_dynamics.cond_max : ad->kinematics.cond_max;
    a->t_end = t_end;
    if (a->mech.dof_undriven > 0)
        return kd_error_set(err, KD_ERR_INPUT, d->file, ad->loc,
                            "%s needs one driver per degree of freedom: the mechanism has %d DOF and %d of them are "
                            "not driven (add drivers, or use dynamics)",
                            kd_analysis_type_name(ad->type), a->mech.dof, a->mech.dof_undriven);
    kin_ctx k;
    memset(&k, 0, sizeof(k));
    k.d = d, k.m = m, k.anim = anim, k.points = !inverse && ad->kinematics.points, k.inverse = inverse;
    kd_error serr;
    kd_error_clear(&serr);
    k.err = &serr;
    kd_status st = KD_OK;
    if (inverse && (kd_smech_reactions_alloc(m, &k.mult) || kd_smech_reactions_alloc(m, &k.proj)))
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    kd_atomic_file f;
    if (!st) st = io_open_result(&f, outdir, inverse ? "inverse_dynamics" : "kinematics", ordinal, a, err);
    if (!st) {
        k.fp = f.fp;
        fprintf(f.fp, "t");
        if (inverse) {
            reaction_header(f.fp, m);
            for (int dv = 0; dv < m->ndriver; dv++) {
                const char* jn = m->joint[m->driver[dv].joint].name;
                fprintf(f.fp, ",%s.drive,%s.drive_projection", jn, jn);
            }
            fprintf(f.fp, ",E_kinetic,E_potential,P_drive\n");
        } else {
            pose_header(f.fp, m, 1);
            if (k.points) points_header(f.fp, d);
            fprintf(f.fp, ",cond\n");
        }
        double cmax = 0;
        st = kd_smech_kinematics(m, t_end, steps, cond_max, kin_row, &k, &cmax, err);
        if (st && serr.status != KD_OK) *err = serr, st = serr.status;
        a->mech.cond_max = cmax;
        a->mech.steps = steps + 1;
        a->mech.t_reached = st ? NAN : t_end;
        if (inverse) a->mech.route_diff = k.max_val > 0 ? k.max_diff / k.max_val : k.max_diff;
        st = io_finish_file(&f, st, a, err);
    }
    kd_smech_reactions_free(&k.mult);
    kd_smech_reactions_free(&k.proj);
    return st;
}

typedef struct dyn_ctx {
    FILE* fp;
    const kd_smech* m;
    kd_smech_reactions r;
    anim_spatial* anim;
    const kd_cms_rows* kept;      /* the rows integrated (redundant ones left out), or NULL */
    int rows;
} dyn_ctx;

static int dyn_row(void* c, const kd_mbs_sample* s) {
    dyn_ctx* k = c;
    const kd_smech* m = k->m;
    k->rows++;
    fprintf(k->fp, "%.10g", s->t);
    anim_spatial_offer(k->anim, s->t, s->q);
    pose_row(k->fp, m, s->q, s->qd);
    kd_cms_rows_expand(k->kept, m->nc, s->lambda, k->r.lambda);
    kd_smech_reactions_of(m, s->t, s->q, &k->r);
    for (int i = 0; i < 6 * m->njoint; i++) fprintf(k->fp, ",%.10e", k->r.F[i]);
    const double T = kd_smech_kinetic(m, s->q, s->qd), V = kd_smech_potential(m, s->q);
    fprintf(k->fp, ",%.6e,%.6e,%.12e,%.12e,%.12e\n", s->drift_pos, s->drift_vel, T, V, T + V);
    return ferror(k->fp) != 0 || kd_interrupted();
}

static kd_status run_dyn(const kd_desc* d, const kd_analysis_desc* an, const kd_smech* m, const double* q0,
                         const char* outdir, int ordinal, anim_spatial* anim, kd_analysis_report* a, kd_error* err) {
    kd_dynamics_desc dy = an->dynamics;
    kd_dynamics_resolve(&dy, KD_ROUTE_MECHANISM);
    if (!kd_dynamics_route_takes(KD_ROUTE_MECHANISM, dy.integrator))
        return kd_error_set(err, KD_ERR_INPUT, d->file, an->loc, "mechanism dynamics integrates with %s",
                            kd_dynamics_route_integrators(KD_ROUTE_MECHANISM));
    kd_mbs_opts o;
    kd_mbs_opts_from_dynamics(&o, &dy, dy.t_end);
    /* the formalism (kedyn/smech_formalism.h) decides the formulation, the reduced equations of
     * kane and gibbs-appell, and lagrange's own system */
    const char* form = kd_dynamics_formalism_name(dy.formalism);
    const int fm = kd_mech_formalism_parse(form);
    if (fm < 0)
        return kd_error_set(err, KD_ERR_INPUT, d->file, an->loc,
                            "a spatial mechanism takes the formalisms newton-euler, maggi, kane, gibbs-appell and "
                            "lagrange, not %s",
                            form);
    kd_smech_formalism_opts((kd_mech_formalism)fm, m, &o);
    a->t_end = dy.t_end;
    a->integrator = dy.integrator;
    double* qd = malloc(sizeof(double) * (size_t)m->n);
    dyn_ctx k;
    memset(&k, 0, sizeof(k));
    k.m = m, k.anim = anim;
    kd_status st = qd && !kd_smech_reactions_alloc(m, &k.r) ? KD_OK
                                                          : kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    /* the given velocities projected onto the velocity constraints */
    if (!st) {
        memcpy(qd, m->qd0, sizeof(double) * (size_t)m->n);
        st = kd_smech_solve_velocity(m, 0.0, q0, qd, 1, err);
    }
    kd_atomic_file f;
    if (!st) st = io_open_result(&f, outdir, "dynamics", ordinal, a, err);
    if (!st) {
        k.fp = f.fp;
        fprintf(f.fp, "t");
        pose_header(f.fp, m, 1);
        reaction_header(f.fp, m);
        fprintf(f.fp, ",drift_position,drift_velocity,E_kinetic,E_potential,E_total\n");
        kd_cms cms;
        kd_cms_rows* kept = NULL;  /* an over-constrained mechanism: its independent rows */
        kd_mbs_stats ms;
        memset(&ms, 0, sizeof(ms));
        st = kd_smech_formalism_system((kd_mech_formalism)fm, m, 0.0, q0, &cms, &kept, err);
        k.kept = kept;
        if (!st) st = kd_mbs_forward(&cms, &o, q0, qd, dyn_row, &k, &ms, err);
        kd_cms_rows_free(&kept);
        a->dynamics.steps = ms.steps, a->dynamics.factorizations = ms.factorizations;
        a->dynamics.rhs_evals = ms.evaluations, a->dynamics.t_reached = ms.t_reached;
        a->mech.steps = k.rows, a->mech.t_reached = ms.t_reached;
        a->mech.formalism = form;
        a->mech.formulation = kd_mbs_formulation_name(o.formulation);
        a->mech.stabilization = o.formulation == KD_MBS_AUGMENTED || o.formulation == KD_MBS_UDWADIA_KALABA
                                    ? kd_mbs_stabilization_name(o.stabilization)
                                    : "none";
        a->mech.method = o.formulation == KD_MBS_IDA ? "ida" : kd_mbs_integrator_name(o.integrator);
        a->mech.drift_pos = ms.max_drift_pos, a->mech.drift_vel = ms.max_drift_vel;
        st = io_finish_file(&f, st, a, err);
    }
    kd_smech_reactions_free(&k.r);
    free(qd);
    return st;
}

kd_status run_spatial_analysis(const kd_desc* d, const kd_analysis_desc* ad, const char* outdir, int ordinal,
                               kd_anim_recorder* rec, kd_analysis_report* a, kd_error* err) {
    kd_smech* m = NULL;
    kd_status st = kd_smech_compile(d, &m, err);
    double* q = st ? NULL : malloc(sizeof(double) * (size_t)m->n);
    if (!st && !q) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    anim_spatial anim = {0};
    if (!st) st = anim_spatial_init(&anim, rec, d, m, err);
    if (!st) st = assemble(m, q, &a->mech, err);
    if (!st && a->mech.nredundant > 0)
        snprintf(a->message, sizeof(a->message), "redundant constraints: %s", a->mech.redundant);
    if (!st) {
        if ((ad->type == KD_ANALYSIS_DYNAMICS || ad->type == KD_ANALYSIS_MODES_ALONG_MOTION) && run_spatial_has_links(d))
            st = run_spatial_links(d, ad, m, outdir, ordinal, &anim, a, err);
        else if (ad->type == KD_ANALYSIS_DYNAMICS)
            st = run_dyn(d, ad, m, q, outdir, ordinal, &anim, a, err);
        else if (ad->type == KD_ANALYSIS_KINEMATICS || ad->type == KD_ANALYSIS_INVERSE_DYNAMICS)
            st = run_kin(d, ad, m, outdir, ordinal, &anim, a, err);
        else
            st = kd_error_set(err, KD_ERR_INPUT, d->file, ad->loc, "not an analysis of a spatial mechanism");
    }
    anim_spatial_free(&anim);
    free(q);
    kd_smech_free(&m);
    return st;
}

void run_spatial_model_summary(FILE* fp, const kd_desc* d) {
    if (!d->sdesc) return;
    kd_smech* m = NULL;
    kd_error err;
    if (kd_smech_compile(d, &m, &err)) return;
    double* q = malloc(sizeof(double) * (size_t)m->n);
    kd_mech_run_stats s;
    memset(&s, 0, sizeof(s));
    const int ok = q && !assemble(m, q, &s, &err);
    double mass = 0;
    for (int b = 0; b < m->nbody; b++) mass += m->mass[b];
    fprintf(fp,
            ",\n  \"spatial\": {\"moving_bodies\": %d, \"joints\": %d, \"drivers\": %d, \"coordinates\": %d, "
            "\"constraint_equations\": %d, \"normalisation_equations\": %d, \"gruebler\": %d",
            m->nbody, m->njoint, m->ndriver, m->n, m->nc, m->nbody, 6 * m->nbody - m->nc_joint);
    if (ok) {
        fprintf(fp, ", \"dof\": %d, \"redundant\": %d, \"redundant_equations\": ", s.dof, s.nredundant);
        io_json_string(fp, s.redundant);
    }
    fprintf(fp, ", \"mass_kg\": %.12g}", mass);
    free(q);
    kd_smech_free(&m);
}

int run_spatial_bodies(const kd_desc* d) { return d->sdesc ? d->sdesc->nbodies : 0; }

kd_status run_spatial_animation(const kd_desc* d, const char* path, const kd_anim_set* sets, int nsets,
                                kd_error* err) {
    const int nb = d->sdesc->nbodies;
    kd_anim_shape* shapes = calloc((size_t)(nb ? nb : 1), sizeof(*shapes));
    const char** names = malloc(sizeof(*names) * (size_t)(nb ? nb : 1));
    int* ground = malloc(sizeof(int) * (size_t)(nb ? nb : 1));
    int* rods = malloc(sizeof(int) * 4 * (size_t)(d->sdesc->njoints ? d->sdesc->njoints : 1));
    kd_status st = shapes && names && ground && rods ? KD_OK : kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    if (!st) {
        for (int b = 0; b < nb; b++) {
            const kd_sbody_desc* B = &d->sdesc->bodies[b];
            names[b] = B->name, ground[b] = B->ground ? 1 : B->beam ? 2 : B->plate ? 3 : 0;
        }
        const int nrods = kd_anim_smech_shapes(d, shapes, rods);
        st = kd_write_animation_poses(path, d->title, nb, names, ground, shapes, rods, nrods, sets, nsets, err);
    }
    free(rods);
    free(shapes);
    free(names);
    free(ground);
    return st;
}
