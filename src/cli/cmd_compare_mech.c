/* `kedyn compare` on a mechanism model: its dynamics run with each formalism of systems with
 * joints (kedyn/mech_compare.h); the table to stdout, OUTDIR/compare.csv and OUTDIR/summary.json
 * (atomically). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "kedyn/atomic_file.h"
#include "kedyn/mech_compare.h"


static void show_progress(void* ctx, int done, int total, kd_mech_formalism f) {
    (void)ctx;
    fprintf(stderr, "\rcompare: %d/%d  %-13s", done + 1, total, kd_mech_formalism_name(f));
    fflush(stderr);
}

static void json_number(FILE* fp, double v) {
    if (isfinite(v)) fprintf(fp, "%.6e", v);
    else fprintf(fp, "null");
}

static void write_csv(FILE* fp, const kd_mech_compare* c) {
    fprintf(fp, "formalism,formulation,method,status,max_rel_diff,max_drift,build_s,integrate_s,steps,evaluations,"
                "factorizations,flops_per_evaluation,flops_integration\n");
    for (int i = 0; i < c->nrows; i++) {
        const kd_mech_compare_row* r = &c->rows[i];
        fprintf(fp, "%s,%s,%s,%s,%.6e,%.6e,%.6e,%.6e,%ld,%ld,%ld,%.6e,%.6e\n", kd_mech_formalism_name(r->formalism),
                r->formulation, r->method, kd_status_name(r->status), r->max_rel_diff, r->max_drift, r->build_s,
                r->integrate_s, r->steps, r->evaluations, r->factorizations, r->flops_eval, r->flops_run);
    }
}

static void write_json(FILE* fp, const char* model, const kd_mech_compare* c, int complete) {
    fprintf(fp, "{\n  \"kedyn\": \"%s\",\n  \"command\": \"compare\",\n  \"model\": \"", KD_VERSION_STRING);
    for (const char* p = model; *p; p++) {
        if (*p == '"' || *p == '\\') fputc('\\', fp);
        fputc(*p, fp);
    }
    fprintf(fp,
            "\",\n  \"complete\": %s,\n  \"system\": \"mechanism\",\n  \"coordinates\": %d, \"constraints\": %d, "
            "\"dof\": %d,\n  \"t_end\": %.12g,\n  \"files\": [\"compare.csv\"],\n  \"rows\": [",
            complete ? "true" : "false", c->n, c->nc, c->dof, c->t_end);
    for (int i = 0; i < c->nrows; i++) {
        const kd_mech_compare_row* r = &c->rows[i];
        fprintf(fp, "%s\n    {\"formalism\": \"%s\", \"formulation\": \"%s\", \"method\": \"%s\", \"status\": \"%s\", ",
                i ? "," : "", kd_mech_formalism_name(r->formalism), r->formulation, r->method,
                kd_status_name(r->status));
        const char* keys[] = {"max_rel_diff", "max_drift", "build_s", "integrate_s"};
        const double vals[] = {r->max_rel_diff, r->max_drift, r->build_s, r->integrate_s};
        for (int k = 0; k < 4; k++) {
            fprintf(fp, "\"%s\": ", keys[k]);
            json_number(fp, vals[k]);
            fprintf(fp, ", ");
        }
        fprintf(fp, "\"steps\": %ld, \"evaluations\": %ld, \"factorizations\": %ld, \"flops_per_evaluation\": ",
                r->steps, r->evaluations, r->factorizations);
        json_number(fp, r->flops_eval);
        fprintf(fp, ", \"flops_integration\": ");
        json_number(fp, r->flops_run);
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

int cmd_compare_mech(const kd_desc* d, int analysis, const char* model, const char* outdir, const char* forms_arg,
                     double t_end, int quiet) {
    kd_mech_formalism forms[KD_MECH_FORMALISM_COUNT];
    int nforms = 0;
    if (forms_arg) {
        char buf[256];
        snprintf(buf, sizeof(buf), "%s", forms_arg);
        for (char* tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
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
    kd_error err;
    kd_error_clear(&err);
    kd_mech_compare c;
    kd_status st = kd_make_dirs(outdir, &err);
    const int progress = !quiet && isatty(fileno(stderr));
    if (!st) st = kd_mech_compare_run(d, analysis, forms, nforms, t_end, progress ? show_progress : NULL, NULL, &c, &err);
    if (progress) fprintf(stderr, "\r%60s\r", "");
    if (st) return cli_report_error(&err);
    int failed = 0;
    printf("compare: %s, mechanism of %d coordinates, %d constraint equations, %d DOF; t_end = %g s\n", model, c.n,
           c.nc, c.dof, c.t_end);
    printf("  %-13s  %-14s  %-6s  %12s  %10s  %11s  %11s  %7s  %8s  %11s  %11s\n", "formalism", "formulation", "method",
           "max_rel_diff", "max_drift", "build [s]", "integ. [s]", "steps", "evals", "flops/eval", "flops");
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
    }
    st = write_file(outdir, "compare.csv", model, &c, !failed, &err);
    if (!st) st = write_file(outdir, "summary.json", model, &c, !failed, &err);
    kd_mech_compare_free(&c);
    if (st) return cli_report_error(&err);
    if (!quiet) printf("results: %s/summary.json, %s/compare.csv\n", outdir, outdir);
    return failed ? EXIT_NUMERIC : 0;
}
