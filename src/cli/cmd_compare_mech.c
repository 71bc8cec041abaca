/* `kedyn compare` on a mechanism model: its dynamics run with each formalism of systems with
 * joints (kedyn/mech_compare.h), or with --bodies N,N,... generated pendulum chains of N bars
 * integrated as the model's dynamics analysis says; the table to stdout, OUTDIR/compare.csv and
 * OUTDIR/summary.json (atomically). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "core/util.h"
#include "output/output_util.h"
#include "kedyn/atomic_file.h"
#include "kedyn/integrate.h"
#include "kedyn/load_yaml.h"
#include "kedyn/mech_compare.h"


static void show_progress(void* ctx, int done, int total, kd_mech_formalism f) {
    (void)ctx;
    fprintf(stderr, "\rcompare: %d/%d  %-13s", done + 1, total, kd_mech_formalism_name(f));
    fflush(stderr);
}

static void write_csv(FILE* fp, const kd_mech_compare* c) {
    fprintf(fp, "bodies,coordinates,constraints,dof,formalism,formulation,method,status,max_rel_diff,max_drift,build_s,integrate_s,steps,evaluations,"
                "factorizations,flops_per_evaluation,flops_integration\n");
    for (int i = 0; i < c->nrows; i++) {
        const kd_mech_compare_row* r = &c->rows[i];
        fprintf(fp, "%d,%d,%d,%d,%s,%s,%s,%s,%.6e,%.6e,%.6e,%.6e,%ld,%ld,%ld,%.6e,%.6e\n", r->bodies, r->n, r->nc,
                r->dof, kd_mech_formalism_name(r->formalism),
                r->formulation, r->method, kd_status_name(r->status), r->max_rel_diff, r->max_drift, r->build_s,
                r->integrate_s, r->steps, r->evaluations, r->factorizations, r->flops_eval, r->flops_run);
    }
}

static void write_json(FILE* fp, const char* model, const kd_mech_compare* c, int complete) {
    fprintf(fp, "{\n  \"kedyn\": \"%s\",\n  \"command\": \"compare\",\n  \"model\": ", KD_VERSION_STRING);
    io_json_string(fp, model);
    fprintf(fp,
            ",\n  \"complete\": %s,\n  \"system\": \"%s\",\n  \"t_end\": %.12g,\n  \"files\": "
            "[\"compare.csv\"],\n  \"rows\": [",
            complete ? "true" : "false", c->n < 0 ? "generated chains" : c->spatial ? "spatial mechanism" : "mechanism", c->t_end);
    for (int i = 0; i < c->nrows; i++) {
        const kd_mech_compare_row* r = &c->rows[i];
        fprintf(fp,
                "%s\n    {\"bodies\": %d, \"coordinates\": %d, \"constraints\": %d, \"dof\": %d, \"formalism\": \"%s\", "
                "\"formulation\": \"%s\", \"method\": \"%s\", \"status\": \"%s\", ",
                i ? "," : "", r->bodies, r->n, r->nc, r->dof, kd_mech_formalism_name(r->formalism), r->formulation,
                r->method, kd_status_name(r->status));
        const char* keys[] = {"max_rel_diff", "max_drift", "build_s", "integrate_s"};
        const double vals[] = {r->max_rel_diff, r->max_drift, r->build_s, r->integrate_s};
        for (int k = 0; k < 4; k++) {
            fprintf(fp, "\"%s\": ", keys[k]);
            util_json_number(fp, "%.6e", vals[k], "null");
            fprintf(fp, ", ");
        }
        fprintf(fp, "\"steps\": %ld, \"evaluations\": %ld, \"factorizations\": %ld, \"flops_per_evaluation\": ",
                r->steps, r->evaluations, r->factorizations);
        util_json_number(fp, "%.6e", r->flops_eval, "null");
        fprintf(fp, ", \"flops_integration\": ");
        util_json_number(fp, "%.6e", r->flops_run, "null");
        fprintf(fp, "}");
    }
    fprintf(fp, "\n  ]\n}\n");
}

static kd_status write_file(const char* dir, const char* name, const char* model, const kd_mech_compare* c,
                            int complete, kd_error* err) {
    char path[1100];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    kd_atomic_file f;
    kd_status st = kd_atomic_open(&f, path, err);
    if (st) return st;
    if (strcmp(name, "compare.csv") == 0) write_csv(f.fp, c);
    else write_json(f.fp, model, c, complete);
    return kd_atomic_commit(&f, err);
}

/* A planar pendulum chain of N uniform bars (0.5 m, 1 kg) in a straight line 0.5 rad below the
 * horizontal, released at rest under gravity; integrated as analysis `ad` says. */
static kd_status chain_desc(int N, const kd_analysis_desc* an, double t_end, kd_desc** out, kd_error* err) {
    const kd_dynamics_desc* ad = &an->dynamics;
    const double L = 0.5, m = 1.0, a = -0.5;
    size_t cap = 512 + (size_t)N * 400;
    char* y = malloc(cap);
    if (!y) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    size_t k = (size_t)snprintf(y, cap, "kedyn: 1\nbodies:\n  - {name: ground, type: ground, points: {O: [0, 0]}}\n");
    for (int i = 0; i < N; i++)
        k += (size_t)snprintf(y + k, cap - k,
                              "  - {name: bar%d, type: rigid, mass: %.17g, inertia: %.17g, com: [%.17g, 0], points: "
                              "{P: [0, 0], D: [%.17g, 0]}, position: [%.17g, %.17g], angle: %.17g}\n",
                              i + 1, m, m * L * L / 12, L / 2, L, i * L * cos(a), i * L * sin(a), a);
    k += (size_t)snprintf(y + k, cap - k, "joints:\n  - {name: j1, type: revolute, bodies: [ground, bar1], points: [O, P]}\n");
    for (int i = 1; i < N; i++)
        k += (size_t)snprintf(y + k, cap - k, "  - {name: j%d, type: revolute, bodies: [bar%d, bar%d], points: [D, P]}\n",
                              i + 1, i, i + 1);
    const int cvode = ad->integrator == KD_INTEGRATOR_CVODE_BDF || ad->integrator == KD_INTEGRATOR_CVODE_ADAMS;
    snprintf(y + k, cap - k,
             "forces:\n  - {type: gravity, g: [0, -9.81]}\nanalyses:\n  - {type: dynamics, t_end: %.17g, dt: %.17g, "
             "output_every: %d, rtol: %.17g, atol: %.17g%s}\n",
             t_end, ad->dt > 0 ? ad->dt : t_end / 1000, ad->output_every, ad->rtol, ad->atol,
             cvode ? ", integrator: cvode-bdf" : "");
    kd_status st = kd_load_yaml_string(y, strlen(y), "chain.yaml", out, err);
    free(y);
    return st;
}

int cmd_compare_mech(const kd_desc* d, int analysis, const char* model, const char* outdir, const char* forms_arg,
                     const char* bodies_arg, double t_end, int quiet) {
    kd_mech_formalism forms[KD_MECH_FORMALISM_COUNT];
    int nforms = 0;
    if (forms_arg) {
        char buf[256];
        snprintf(buf, sizeof(buf), "%s", forms_arg);
        char* rest = buf;
        for (char* tok = util_next_token(&rest, ","); tok; tok = util_next_token(&rest, ",")) {
            const int f = kd_mech_formalism_parse(tok);
            if (f < 0 || nforms == KD_MECH_FORMALISM_COUNT) {
                fprintf(stderr, "kedyn: --formalisms on a mechanism takes names among newton-euler, maggi, kane, "
                                "gibbs-appell, lagrange, separated by commas\n");
                return EXIT_USAGE;
            }
            forms[nforms++] = (kd_mech_formalism)f;
        }
    } else {
        for (int f = 0; f < KD_MECH_FORMALISM_COUNT; f++) forms[nforms++] = (kd_mech_formalism)f;
    }
    /* sizes: the model as given (0), or generated chains */
    int sizes[64] = {0}, nsizes = 1;
    if (bodies_arg) {
        nsizes = 0;
        for (const char* p = bodies_arg; *p;) {
            char* end;
            const long v = strtol(p, &end, 10);
            if (end == p || v < 1 || v > 10000 || nsizes == 64 || (*end && *end != ',')) {
                fprintf(stderr, "kedyn: --bodies takes chain lengths from 1 to 10000 separated by commas\n");
                return EXIT_USAGE;
            }
            sizes[nsizes++] = (int)v;
            p = *end ? end + 1 : end;
        }
    }
    kd_error err;
    kd_error_clear(&err);
    kd_status st = kd_make_dirs(outdir, &err);
    if (st) return cli_report_error(&err);
    kd_mech_compare all = {0};
    all.rows = calloc((size_t)nsizes * nforms, sizeof(kd_mech_compare_row));
    if (!all.rows) return cli_report_error(&(kd_error){.status = KD_ERR_NOMEM, .msg = "out of memory"});
    all.n = bodies_arg ? -1 : 0;
    all.spatial = d->spatial;
    const double t_run = t_end > 0 ? t_end : d->analyses[analysis].dynamics.t_end;
    all.t_end = t_run;
    const int progress = !quiet && isatty(fileno(stderr));
    int failed = 0;
    for (int s = 0; s < nsizes && !st; s++) {
        kd_desc* chain = NULL;
        if (sizes[s] > 0) st = chain_desc(sizes[s], &d->analyses[analysis], t_run, &chain, &err);
        kd_mech_compare c;
        if (!st)
            st = kd_mech_compare_run(chain ? chain : d, chain ? 0 : analysis, forms, nforms, t_run,
                                     progress ? show_progress : NULL, NULL, &c, &err);
        kd_desc_free(&chain);
        if (progress) fprintf(stderr, "\r%60s\r", "");
        if (st) break;
        printf("compare: %s%s, %smechanism of %d coordinates, %d constraint equations, %d DOF; t_end = %g s\n", model,
               sizes[s] > 0 ? " (generated chain)" : "", c.spatial ? "spatial " : "", c.n, c.nc, c.dof, c.t_end);
        printf("  %-13s  %-14s  %-6s  %12s  %10s  %11s  %11s  %7s  %8s  %11s  %11s\n", "formalism", "formulation",
               "method", "max_rel_diff", "max_drift", "build [s]", "integ. [s]", "steps", "evals", "flops/eval", "flops");
        for (int i = 0; i < c.nrows; i++) {
            const kd_mech_compare_row* r = &c.rows[i];
            printf("  %-13s  %-14s  %-6s  %12.3e  %10.2e  %11.4e  %11.4e  %7ld  %8ld  %11.4e  %11.4e%s\n",
                   kd_mech_formalism_name(r->formalism), r->formulation, r->method, r->max_rel_diff, r->max_drift,
                   r->build_s, r->integrate_s, r->steps, r->evaluations, r->flops_eval, r->flops_run,
                   r->status ? "  FAILED" : "");
            if (r->status) {
                fprintf(stderr, "kedyn: %s: %s\n", kd_mech_formalism_name(r->formalism), r->message);
                failed = 1;
            }
            all.rows[all.nrows++] = *r;
        }
        kd_mech_compare_free(&c);
    }
    if (!st) st = write_file(outdir, "compare.csv", model, &all, !failed, &err);
    if (!st) st = write_file(outdir, "summary.json", model, &all, !failed, &err);
    free(all.rows);
    if (st) return cli_report_error(&err);
    if (!quiet) printf("results: %s/summary.json, %s/compare.csv\n", outdir, outdir);
    return failed ? EXIT_NUMERIC : 0;
}
