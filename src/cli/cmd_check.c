/* `kedyn check`: validate a model and print what it contains. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "kedyn/load_yaml.h"
#include "kedyn/mech.h"

/* The mechanism part of `check`: rigid bodies, joints, drivers, and the
 * mobility at the assembled initial position (DOF from the rank of Phi_q,
 * Grübler's count, redundant constraints by name). Returns an exit code. */
/* A spatial mechanism (kedyn/smech.h): coordinates, equations, Gruebler, mobility at assembly. */
static int print_spatial(const kd_desc* d) {
    kd_error err;
    kd_error_clear(&err);
    kd_smech* m = NULL;
    if (kd_smech_compile(d, &m, &err)) return cli_report_error(&err);
    double* q = malloc(sizeof(double) * (size_t)m->n);
    kd_smech_mobility mob;
    kd_status st = q ? KD_OK : KD_ERR_NOMEM;
    if (!st) memcpy(q, m->q0, sizeof(double) * (size_t)m->n);
    if (!st) st = kd_smech_solve_position(m, 0.0, q, NULL, &err);
    if (!st) st = kd_smech_mobility_at(m, 0.0, q, &mob, &err);
    if (!st) {
        char names[512];
        kd_smech_redundant_names(m, &mob, names, (int)sizeof(names));
        printf("spatial mechanism: %d moving bodies, %d coordinates (7 per body), %d joints (%d equations), %d "
               "normalisation equations, %d drivers\n",
               m->nbody, m->n, m->njoint, m->nc_joint, m->nbody, m->ndriver);
        printf("  Gruebler-Kutzbach %d, DOF %d (rank %d), undriven %d, redundant %d%s%s\n", 6 * m->nbody - m->nc_joint,
               mob.dof, mob.rank, mob.dof_undriven, mob.nredundant, mob.nredundant ? ": " : "", names);
    }
    free(q);
    kd_smech_free(&m);
    return st ? cli_report_error(&err) : 0;
}

static int print_mechanism(const kd_desc* d) {
    kd_error err;
    kd_error_clear(&err);
    if (d->sdesc) return print_spatial(d);
    kd_mech* mech = NULL;
    if (kd_mech_compile(d, &mech, &err)) return cli_report_error(&err);
    printf("mechanism: %d moving bodies, %d coordinates, %d joints (%d equations), %d drivers\n", mech->nbody, mech->n,
           mech->njoint, mech->nc_joint, mech->ndriver);
    for (int b = 0; b < mech->nbody; b++)
        printf("  %-16s %s  mass %g kg  J_G %g kg m^2%s\n", mech->body_name[b],
               d->bodies[mech->body_desc[b]].type == KD_BODY_BEAM ? "link " : "rigid", mech->mass[3 * b],
               mech->mass[3 * b + 2], d->bodies[mech->body_desc[b]].type == KD_BODY_BEAM ? "  (elastic link, rigid here)" : "");
    for (int k = 0; k < mech->njoint; k++) {
        const kd_mjoint* j = &mech->joint[k];
        printf("  joint %-10s %-9s %s - %s%s\n", j->name, kd_joint_type_str(j->type), d->bodies[d->joints[k].body[0]].name,
               d->bodies[d->joints[k].body[1]].name, j->driver >= 0 ? "  (driven)" : "");
    }
    kd_mech_work* w = kd_mech_work_new(mech);
    double* q = malloc(sizeof(double) * (size_t)(mech->n + 1));
    int code = 0;
    if (!w || !q) {
        fprintf(stderr, "kedyn: out of memory\n");
        code = EXIT_INPUT;
    } else {
        memcpy(q, mech->q0, sizeof(double) * (size_t)mech->n);
        kd_mech_kin_info info;
        const kd_status st = kd_mech_solve_position(mech, w, 0.0, q, &info, &err);
        kd_mech_mobility mob;
        if (st) {
            printf("assembly: failed at t = 0 (|Phi| = %.3g)\n", info.residual);
            fprintf(stderr, "%s: warning: the mechanism does not assemble at t = 0 from the bodies' position and angle "
                            "(|Phi| = %.3g after Newton-Raphson); kinematic analyses will fail\n",
                    d->file, info.residual);
            kd_mech_mobility_at(mech, 0.0, mech->q0, &mob, &err);
        } else {
            printf("assembly: converged in %d iterations, |Phi| = %.2g\n", info.iterations, info.residual);
            kd_mech_mobility_at(mech, 0.0, q, &mob, &err);
        }
        printf("DOF: %d (rank of Phi_q %d of %d joint equations), Gruebler's count %d, undriven DOF %d\n", mob.dof,
               mob.rank_joint, mech->nc_joint, mob.gruebler, mob.dof_undriven);
        if (mob.nredundant > 0) {
            char names[512];
            kd_mech_redundant_names(mech, &mob, names, (int)sizeof(names));
            printf("redundant constraints: %d: %s\n", mob.nredundant, names);
        }
    }
    free(q);
    kd_mech_work_free(&w);
    kd_mech_free(&mech);
    return code;
}

void cli_print_model(const kd_desc* d, const kd_model* m) {
    int nfixed = m->ndof_all - m->neq;
    printf("model: %s%s%s%s\n", d->file[0] ? d->file : "(built in)", d->title[0] ? " (" : "", d->title,
           d->title[0] ? ")" : "");
    printf("bodies: %d\n", m->nbody);
    for (int b = 0; b < m->nbody; b++) {
        const kd_body* body = &m->body[b];
        if (body->type == KD_BODY_PLATE) {
            printf("  %-16s plate %s %s  elements %d  nodes %d  mass %g kg\n", body->name, kd_theory_str(body->kind.theory),
                   kd_interp_str(body->kind.interp), body->elem_num, body->node_num, body->mass);
            continue;
        }
        if (body->type != KD_BODY_BEAM) {
            printf("  %-16s %s\n", body->name, body->type == KD_BODY_RIGID ? "rigid" : "ground");
            continue;
        }
        printf("  %-16s beam  %s %s %s  elements %d  nodes %d  length %g m  mass %g kg\n", body->name,
               body->kind.planar ? "planar" : "3D", kd_theory_str(body->kind.theory), kd_interp_str(body->kind.interp),
               body->elem_num, body->node_num, body->length, body->mass);
    }
    if (m->nelem > 0 || !kd_desc_is_mechanism(d))  /* a rigid mechanism's DOF are printed below */
        printf("elements: %d\nnodes: %d\nDOF: %d (%d free, %d fixed), half-bandwidth %d\n", m->nelem, m->nnode,
               m->ndof_all, m->neq, nfixed, m->bandwidth);
    printf("analyses: %d\n", d->nanalyses);
    for (int i = 0; i < d->nanalyses; i++)
        if (d->analyses[i].type == KD_ANALYSIS_MODES) printf("  modes (count %d)\n", d->analyses[i].modes.count);
}

int cmd_check(int argc, char** argv) {
    const int force = argc == 3 && strcmp(argv[2], "--force") == 0;
    if ((argc != 2 && !force) || argv[1][0] == '-') {
        fprintf(stderr, "usage: kedyn check MODEL.yaml [--force]\n");
        return EXIT_USAGE;
    }
    kd_error err;
    kd_error_clear(&err);
    kd_desc* d = NULL;
    if (kd_load_yaml_file(argv[1], &d, &err)) return cli_report_error(&err);
    if (force) d->force = 1;
    kd_model* m = NULL;
    if (kd_desc_check_resources(d, &err) || kd_model_compile(d, &m, &err)) {
        kd_desc_free(&d);
        return cli_report_error(&err);
    }
    cli_print_model(d, m);
    if (kd_desc_is_mechanism(d)) {
        const int code = print_mechanism(d);
        if (code) {
            kd_model_free(&m);
            kd_desc_free(&d);
            return code;
        }
    }
    const int nwarn = cli_print_warnings(d, m);
    printf("ok%s\n", nwarn ? " (with warnings)" : "");
    kd_model_free(&m);
    kd_desc_free(&d);
    return 0;
}
