/* Two-way elastic links of a spatial mechanism in the runner (`spatial: true` with `beam` bodies,
 * `dynamics` with `coupling: two-way`; kedyn/ffr3d.h, theory.md sec. 17): the coupled
 * floating-frame system from the rigid mechanism, its forward dynamics by the analysis'
 * formulation, dynamics.csv and the summary's link statistics (docs/model-format.md, "Spatial
 * mechanisms", "Two-way elastic links"). */
#include "run_spatial_two_way.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/atomic_file.h"
#include "kedyn/ffr3d.h"
#include "kedyn/ffr3d_shell_stress.h"
#include "kedyn/mbs.h"
#include "kedyn/mech_formalism.h"
#include "kedyn/sdesc.h"
#include "kedyn/smech.h"
#include "output/output_util.h"

/* One CSV row per output instant: t, BODY.x .. BODY.q3 of every body's frame, BODY.N.u .. .rz,
 * BODY.N.N, .My, .Mz, .sigma of every beam link node (frame components), BODY.sigma_max of every
 * shell link (theory.md sec. 22, SL5 on its elastic coordinates, SL6), JOINT.Fx, .Fy, .Fz (the
 * force of each joint's point equations on its second body), the drifts, E_kinetic, V_gravity,
 * U_strain, E_total. */
typedef struct sink {
    FILE* fp;
    const kd_ffr3d_system* s;
    const kd_smech* m;
    kd_ked_run_stats* st;
    const double* c;              /* (2 bodies) extreme fibres c_y, c_z of each link's section */
    double* sf;                   /* (4 x largest node count) */
    kd_ffr3d_shell_stress* ss;    /* the shell links' stresses (SL6) */
    int rows;
    anim_spatial* anim;           /* animation instants (no recorder: none) */
    const kd_desc* d;
} sink;

/* The animation instant at t (theory.md sec. 17, F1): a body's drawing frame (its origin in the
 * description) is its floating frame moved back by the frame's point in the body, p1 for a link,
 * the centre of mass for a rigid body; a link's drawing points are its nodes displaced by their
 * u, v, w in the frame. */
static void anim_instant(sink* k, const kd_mbs_sample* smp) {
    anim_spatial* an = k->anim;
    if (!an || !an->rec || !kd_anim_recorder_due(an->rec, smp->t)) return;
    const kd_sdesc* sd = k->d->sdesc;
    for (int b = 0, mb = 0; b < sd->nbodies; b++) {
        double* P = an->pose + 12 * (size_t)b;
        memset(P, 0, sizeof(double) * 12);
        P[3] = P[7] = P[11] = 1;
        if (sd->bodies[b].ground) continue;
        const kd_sbody_desc* B = &sd->bodies[b];
        const double* x = smp->q + kd_ffr3d_body_offset(k->s, mb);
        const double n = sqrt(x[3] * x[3] + x[4] * x[4] + x[5] * x[5] + x[6] * x[6]);
        const double p[4] = {x[3] / n, x[4] / n, x[5] / n, x[6] / n};
        kd_rot_from_quat(p, P + 3);
        static const double origin[3] = {0, 0, 0};   /* a shell link's frame is its body frame (SL6) */
        const double* c = B->beam ? B->p1 : B->plate ? origin : k->m->com + 3 * mb;
        for (int r = 0; r < 3; r++) P[r] = x[r] - (P[3 + 3 * r] * c[0] + P[4 + 3 * r] * c[1] + P[5 + 3 * r] * c[2]);
        if (an->disp && (B->beam || B->plate)) {   /* a beam's points are its nodes; a plate's map to mesh nodes */
            const int np = an->disp_adr[b + 1] - an->disp_adr[b];
            double* dv = an->disp + 3 * (size_t)an->disp_adr[b];
            for (int pt = 0; pt < np; pt++) {
                const int nd = B->plate ? an->node[an->disp_adr[b] + pt] : pt;
                double u[6];
                kd_ffr3d_node_displacement(k->s, mb, nd, smp->q, u);   /* zeros outside the body's nodes */
                for (int cc = 0; cc < 3; cc++) dv[3 * pt + cc] = u[cc];
            }
        }
        mb++;
    }
    kd_anim_record_pose(an->rec, smp->t, an->pose, an->disp);
}

static int row(void* ctx, const kd_mbs_sample* smp) {
    sink* k = ctx;
    const kd_ffr3d_system* s = k->s;
    fprintf(k->fp, "%.10g", smp->t);
    for (int b = 0; b < kd_ffr3d_body_count(s); b++) {
        const double* x = smp->q + kd_ffr3d_body_offset(s, b);
        for (int c = 0; c < KD_FFR3D_POSE; c++) fprintf(k->fp, ",%.12e", x[c]);
    }
    for (int b = 0; b < kd_ffr3d_body_count(s); b++) {
        const int shell = kd_ffr3d_body_shell(s, b);   /* SL6: element stresses, no section forces */
        if (kd_ffr3d_body_nodes(s, b) && !shell)
            kd_ffr3d_section_forces(s, b, smp->q, k->c[2 * b], k->c[2 * b + 1], k->sf);
        for (int n = 0; n < kd_ffr3d_body_nodes(s, b); n++) {
            double u[6];
            kd_ffr3d_node_displacement(s, b, n, smp->q, u);
            for (int c = 0; c < 6; c++) fprintf(k->fp, ",%.10e", u[c]);
            /* a beam's deflection across its axis; a shell's displacement |(u, v, w)| (SL3) */
            const double dfl = shell ? sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]) : hypot(u[1], u[2]);
            if (dfl > k->st->max_deflection) {
                k->st->max_deflection = dfl;
                snprintf(k->st->max_deflection_at, sizeof(k->st->max_deflection_at), "%s node %d at t = %.6g s",
                         kd_ffr3d_body_name(s, b), n + 1, smp->t);
            }
            if (shell) continue;
            const double* f = k->sf + 4 * n;
            fprintf(k->fp, ",%.10e,%.10e,%.10e,%.10e", f[0], f[1], f[2], f[3]);
            if (f[3] > k->st->max_sigma) {
                k->st->max_sigma = f[3];
                snprintf(k->st->max_sigma_at, sizeof(k->st->max_sigma_at), "%s node %d at t = %.6g s",
                         kd_ffr3d_body_name(s, b), n + 1, smp->t);
            }
        }
        if (shell) {   /* SL5 on q_f: the output set's largest von Mises stress; every element's for the summary */
            double all;
            int e;
            fprintf(k->fp, ",%.10e", kd_ffr3d_shell_sigma_max(k->ss, b, smp->q, &all, &e));
            if (all > k->st->max_sigma) {
                k->st->max_sigma = all;
                snprintf(k->st->max_sigma_at, sizeof(k->st->max_sigma_at), "%s element %d at t = %.6g s",
                         kd_ffr3d_body_name(s, b), e + 1, smp->t);
            }
        }
    }
    for (int j = 0; j < kd_ffr3d_joint_count(s); j++) {
        double F[3] = {0, 0, 0};
        if (smp->lambda) kd_ffr3d_joint_force(s, j, smp->q, smp->lambda, F);
        fprintf(k->fp, ",%.10e,%.10e,%.10e", F[0], F[1], F[2]);
        k->st->max_F = fmax(k->st->max_F, sqrt(F[0] * F[0] + F[1] * F[1] + F[2] * F[2]));
    }
    double T, V, U;
    kd_ffr3d_energy(s, smp->q, smp->qd, &T, &V, &U);
    fprintf(k->fp, ",%.6e,%.6e,%.12e,%.12e,%.12e,%.12e\n", smp->drift_pos, smp->drift_vel, T, V, U, T + V + U);
    k->rows++;
    anim_instant(k, smp);
    return ferror(k->fp) != 0 || kd_interrupted();
}

/* RK4's stability limit on the imaginary axis against the axial vibration of the shortest link
 * element, as for planar two-way links (src/load/yaml_links.c): a dt above twice the limit is an
 * error at the analysis. */
static kd_status check_step(const kd_desc* d, const kd_analysis_desc* ad, const kd_dynamics_desc* dy, kd_error* err) {
    if (dy->integrator != KD_INTEGRATOR_RK4 || !(dy->dt > 0)) return KD_OK;
    const kd_sdesc* sd = d->sdesc;
    double omega = 0;
    int stiffest = -1;
    for (int b = 0; b < sd->nbodies; b++) {
        const kd_sbody_desc* B = &sd->bodies[b];
        if (!B->beam || B->modes > 0) continue;   /* reduced links: check_modal_step */
        const kd_material_desc* m = &d->materials[B->material];
        const double w = 2.0 * sqrt(3.0) * sqrt(m->E / m->rho) / (B->length / (B->elements > 0 ? B->elements : 10));
        if (w > omega) omega = w, stiffest = b;
    }
    if (stiffest < 0) return KD_OK;
    const double limit = 2.785 / omega;
    if (dy->dt > 2.0 * limit)
        return kd_error_set(err, KD_ERR_INPUT, d->file, ad->loc,
                            "dynamics: dt = %g s is %.3g times the stability limit of the explicit rk4 integrator, "
                            "about %.3g s (axial vibration of an element of '%s', %.3g rad/s): use a smaller dt or "
                            "integrator: cvode-bdf",
                            dy->dt, dy->dt / limit, limit, sd->bodies[stiffest].name, omega);
    return KD_OK;
}

/* The same limit for reduced links (theory.md sec. 17, F11): their highest retained frequency,
 * the link clamped at its frame; for shell links (sec. 22, SL6) the bound of their elements'. */
static kd_status check_modal_step(const kd_desc* d, const kd_analysis_desc* ad, const kd_dynamics_desc* dy,
                                  const kd_ffr3d_system* s, kd_error* err) {
    if (dy->integrator != KD_INTEGRATOR_RK4 || !(dy->dt > 0)) return KD_OK;
    for (int b = 0; b < kd_ffr3d_body_count(s); b++) {
        const double omega = kd_ffr3d_body_omega_max(s, b), limit = omega > 0 ? 2.785 / omega : 0.0;
        if (omega > 0 && dy->dt > 2.0 * limit)
            return kd_error_set(err, KD_ERR_INPUT, d->file, ad->loc,
                                "dynamics: dt = %g s is %.3g times the stability limit of the explicit rk4 integrator, "
                                "about %.3g s (the highest frequency of the %s link '%s', %.4g rad/s): "
                                "use a smaller dt, %s",
                                dy->dt, dy->dt / limit, limit, kd_ffr3d_body_shell(s, b) ? "shell" : "reduced",
                                kd_ffr3d_body_name(s, b), omega,
                                kd_ffr3d_body_shell(s, b) ? "integrator: cvode-bdf" : "or fewer modes");
    }
    return KD_OK;
}

kd_status run_spatial_two_way(const kd_desc* d, const kd_analysis_desc* ad, const kd_smech* m, const char* outdir,
                              int ordinal, anim_spatial* anim, kd_analysis_report* a, kd_error* err) {
    kd_dynamics_desc dy = ad->dynamics;
    kd_dynamics_resolve(&dy, KD_ROUTE_TWO_WAY);
    if (!kd_dynamics_route_takes(KD_ROUTE_TWO_WAY, dy.integrator))
        return kd_error_set(err, KD_ERR_INPUT, d->file, ad->loc, "coupling: two-way integrates with %s",
                            kd_dynamics_route_integrators(KD_ROUTE_TWO_WAY));
    kd_status st = check_step(d, ad, &dy, err);
    if (st) return st;
    kd_ffr3d_system* s = NULL;
    double *q0 = NULL, *qd0 = NULL;
    st = kd_ffr3d_from_smech(d, m, &s, &q0, &qd0, err);
    if (!st) st = check_modal_step(d, ad, &dy, s, err);
    if (!st && dy.initial_static) st = kd_ffr3d_static_start(s, 0.0, q0, qd0, err);
    if (st) {
        free(q0), free(qd0);
        kd_ffr3d_free(&s);
        return st;
    }
    kd_ked_run_stats* rs = &a->ked;
    int nl = 0;
    for (int b = 0; b < kd_ffr3d_body_count(s); b++) nl += kd_ffr3d_body_nodes(s, b) > 0;
    rs->links = nl, rs->samples = 0, rs->forward = 1, rs->coupling = "two-way";
    a->integrator = dy.integrator;
    a->t_end = dy.t_end;
    kd_mbs_opts o;
    kd_mbs_opts_from_dynamics(&o, &dy, dy.t_end);
    /* the formalism on block masses M(q), as for planar two-way links (src/run/run_links.c) */
    const kd_mech_formalism form = (kd_mech_formalism)kd_mech_formalism_parse(kd_dynamics_formalism_name(dy.formalism));
    o.formulation = form == KD_MECH_GIBBS_APPELL ? KD_MBS_UDWADIA_KALABA
                                                 : (kd_mbs_formulation)kd_mech_formalism_formulation(form, -1);
    if (form == KD_MECH_NEWTON_EULER && dy.formulation == KD_FORMULATION_IDA) o.formulation = KD_MBS_IDA;
    a->mech.formalism = kd_mech_formalism_name(form);
    kd_atomic_file f;
    st = io_open_result(&f, outdir, "dynamics", ordinal, a, err);
    if (!st) {
        FILE* fp = f.fp;
        static const char* const pn[7] = {"x", "y", "z", "q0", "q1", "q2", "q3"};
        static const char* const dn[10] = {"u", "v", "w", "rx", "ry", "rz", "N", "My", "Mz", "sigma"};
        fprintf(fp, "t");
        for (int b = 0; b < kd_ffr3d_body_count(s); b++)
            for (int c = 0; c < 7; c++) fprintf(fp, ",%s.%s", kd_ffr3d_body_name(s, b), pn[c]);
        for (int b = 0; b < kd_ffr3d_body_count(s); b++) {
            for (int n = 0; n < kd_ffr3d_body_nodes(s, b); n++)
                for (int c = 0; c < (kd_ffr3d_body_shell(s, b) ? 6 : 10); c++)
                    fprintf(fp, ",%s.%d.%s", kd_ffr3d_body_name(s, b), n + 1, dn[c]);
            if (kd_ffr3d_body_shell(s, b)) fprintf(fp, ",%s.sigma_max", kd_ffr3d_body_name(s, b));
        }
        for (int j = 0; j < kd_ffr3d_joint_count(s); j++) {
            const char* jn = m->joint[kd_ffr3d_joint_tag(s, j)].name;
            fprintf(fp, ",%s.Fx,%s.Fy,%s.Fz", jn, jn, jn);
        }
        fprintf(fp, ",drift_position,drift_velocity,E_kinetic,V_gravity,U_strain,E_total\n");
        /* the links' extreme fibres (bodies: the description's moving bodies, in order) */
        const kd_sdesc* sd = d->sdesc;
        const int nb = kd_ffr3d_body_count(s);
        int nmax = 1;
        double* c = calloc(2 * (size_t)nb, sizeof(double));
        for (int b = 0, mb = 0; c && b < sd->nbodies; b++) {
            const kd_sbody_desc* B = &sd->bodies[b];
            if (B->ground) continue;
            if (B->beam) {
                const kd_section_desc* sec = &d->sections[B->section];
                if (sec->shape == KD_SHAPE_CIRCLE || sec->shape == KD_SHAPE_TUBE) c[2 * mb] = c[2 * mb + 1] = 0.5 * sec->d;
                else if (sec->shape == KD_SHAPE_RECTANGLE) c[2 * mb] = 0.5 * sec->h, c[2 * mb + 1] = 0.5 * sec->b;
            }
            nmax = kd_ffr3d_body_nodes(s, mb) > nmax ? kd_ffr3d_body_nodes(s, mb) : nmax;   /* beams, shells */
            mb++;
        }
        double* sf = malloc(sizeof(double) * 4 * (size_t)nmax);
        if (!c || !sf) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
        kd_ffr3d_shell_stress* ss = NULL;
        if (!st) st = kd_ffr3d_shell_stress_new(d, s, &ss, err);
        sink k = {fp, s, m, rs, c, sf, ss, 0, anim, d};
        kd_mbs_stats ms;
        memset(&ms, 0, sizeof(ms));
        if (!st) st = kd_mbs_forward(kd_ffr3d_cms(s), &o, q0, qd0, row, &k, &ms, err);
        free(c), free(sf);
        kd_ffr3d_shell_stress_free(&ss);
        a->dynamics.steps = ms.steps, a->dynamics.factorizations = ms.factorizations;
        a->dynamics.rhs_evals = ms.evaluations, a->dynamics.t_reached = ms.t_reached;
        a->mech.steps = k.rows, a->mech.t_reached = ms.t_reached;
        a->mech.formulation = kd_mbs_formulation_name(o.formulation);
        a->mech.stabilization = o.formulation == KD_MBS_AUGMENTED || o.formulation == KD_MBS_UDWADIA_KALABA
                                    ? kd_mbs_stabilization_name(o.stabilization)
                                    : "none";
        a->mech.method = o.formulation == KD_MBS_IDA ? "ida" : kd_mbs_integrator_name(o.integrator);
        a->mech.drift_pos = ms.max_drift_pos, a->mech.drift_vel = ms.max_drift_vel;
        /* the coupled system's counts (elastic coordinates included), as for planar two-way links */
        a->mech.dof = ms.dof, a->mech.gruebler = kd_ffr3d_size(s) - kd_ffr3d_cms(s)->nc, a->mech.nredundant = ms.redundant;
        st = io_finish_file(&f, st, a, err);
    }
    free(q0), free(qd0);
    kd_ffr3d_free(&s);
    return st;
}
