/* `kedyn compare`: the model's dynamics analysis run with each formalism
 * for a list of element counts (kedyn/compare.h); the agreement and cost
 * table to stdout, OUTDIR/compare.csv and OUTDIR/summary.json. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "core/util.h"
#include "output/output_util.h"
#include "kedyn/atomic_file.h"
#include "kedyn/compare.h"
#include "kedyn/load_yaml.h"

static const char* const integrator_names[] = {"newmark",     "hht",       "generalized-alpha", "cvode-bdf",
                                               "cvode-adams", "arkode-rk", "hamilton-cvode",    "implicit-midpoint"};

static const char* usage = "usage: kedyn compare MODEL.yaml [-o OUTDIR] [--elements N,N,...] "
                           "[--formalisms NAME,NAME,...] [--bodies N,N,...] [--t-end T] [--quiet]\n";

/* A comma-separated list of positive integers; returns the count or -1. */
static int parse_ints(const char* s, int* out, int max) {
    int n = 0;
    while (*s) {
        char* end;
        const long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > 1000000 || n == max || (*end && *end != ',')) return -1;
        out[n++] = (int)v;
        s = *end ? end + 1 : end;
    }
    return n;
}

static int parse_formalisms(const char* s, kd_formalism* out) {
    int n = 0;
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", s);
    char* rest = buf;
    for (char* tok = util_next_token(&rest, ","); tok; tok = util_next_token(&rest, ",")) {
        if (n == KD_FORMALISM_COUNT || kd_formalism_parse(tok, &out[n]) != 0) return -1;
        n++;
    }
    return n;
}

/* Progress on stderr (a terminal only, not with --quiet; interface.md). */
static void show_progress(void* ctx, int done, int total, int elements, kd_formalism f) {
    (void)ctx;
    fprintf(stderr, "\rcompare: %d/%d  %d elements, %-13s", done + 1, total, elements, kd_formalism_name(f));
    fflush(stderr);
}

static const char* integ_name(int i) { return i >= 0 && i < 8 ? integrator_names[i] : "?"; }

static void write_csv(FILE* fp, const kd_compare* c) {
    fprintf(fp, "elements,equations,formalism,integrator,status,max_rel_diff,build_s,integrate_s,steps,"
                "element_builds,point_evaluations,differentiations,flops\n");
    for (int i = 0; i < c->nrows; i++) {
        const kd_compare_row* r = &c->rows[i];
        fprintf(fp, "%d,%d,%s,%s,%s,%.6e,%.6e,%.6e,%ld,%ld,%ld,%ld,%.6e\n", r->elements, r->neq,
                kd_formalism_name(r->formalism), integ_name(r->integrator), kd_status_name(r->status),
                r->max_rel_diff, r->build_s, r->integrate_s, r->steps, r->ops.elements, r->ops.points,
                r->ops.derivatives, r->ops.flops);
    }
}

static void write_json(FILE* fp, const char* model, const kd_compare* c, int complete) {
    fprintf(fp, "{\n  \"kedyn\": \"%s\",\n  \"command\": \"compare\",\n  \"model\": ", KD_VERSION_STRING);
    io_json_string(fp, model);
    fprintf(fp, ",\n  \"complete\": %s,\n  \"t_end\": %.12g,\n  \"files\": [\"compare.csv\"],\n  \"rows\": [",
            complete ? "true" : "false", c->t_end);
    for (int i = 0; i < c->nrows; i++) {
        const kd_compare_row* r = &c->rows[i];
        fprintf(fp, "%s\n    {\"elements\": %d, \"dof\": %d, \"formalism\": \"%s\", \"integrator\": \"%s\", "
                    "\"status\": \"%s\", \"max_rel_diff\": ",
                i ? "," : "", r->elements, r->neq, kd_formalism_name(r->formalism), integ_name(r->integrator),
                kd_status_name(r->status));
        util_json_number(fp, "%.6e", r->max_rel_diff, "null");
        fprintf(fp, ", \"build_s\": ");
        util_json_number(fp, "%.6e", r->build_s, "null");
        fprintf(fp, ", \"integrate_s\": ");
        util_json_number(fp, "%.6e", r->integrate_s, "null");
        fprintf(fp, ", \"steps\": %ld, \"element_builds\": %ld, \"point_evaluations\": %ld, \"differentiations\": %ld, "
                    "\"flops\": %.6e}",
                r->steps, r->ops.elements, r->ops.points, r->ops.derivatives, r->ops.flops);
    }
    fprintf(fp, "\n  ]\n}\n");
}

static kd_status write_file(const char* dir, const char* name, const char* model, const kd_compare* c, int complete,
                            kd_error* err) {
    char path[1100];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    kd_atomic_file f;
    kd_status st = kd_atomic_open(&f, path, err);
    if (st) return st;
    if (strcmp(name, "compare.csv") == 0) write_csv(f.fp, c);
    else write_json(f.fp, model, c, complete);
    return kd_atomic_commit(&f, err);
}

int cmd_compare(int argc, char** argv) {
    const char* model = NULL;
    const char* outdir = NULL;
    int elements[64] = {5, 10, 15, 20, 25, 30, 40}, nel = 7, quiet = 0;
    kd_formalism forms[KD_FORMALISM_COUNT] = {KD_FORMALISM_LAGRANGE, KD_FORMALISM_KANE, KD_FORMALISM_GIBBS_APPELL,
                                              KD_FORMALISM_HAMILTON};
    int nforms = 4;
    double t_end = 0;
    const char* forms_arg = NULL;
    const char* bodies_arg = NULL;
    int elements_given = 0;
    for (int i = 1; i < argc; i++) {
        const int has = i + 1 < argc;
        if (strcmp(argv[i], "-o") == 0 && has) {
            outdir = argv[++i];
        } else if (strcmp(argv[i], "--elements") == 0 && has) {
            elements_given = 1;
            if ((nel = parse_ints(argv[++i], elements, 64)) < 1) {
                fprintf(stderr, "kedyn: --elements takes positive integers separated by commas (e.g. 5,10,20)\n");
                return EXIT_USAGE;
            }
        } else if (strcmp(argv[i], "--formalisms") == 0 && has) {
            forms_arg = argv[i + 1];
            nforms = parse_formalisms(argv[++i], forms);   /* checked once the model's kind is known */
        } else if (strcmp(argv[i], "--bodies") == 0 && has) {
            bodies_arg = argv[++i];
        } else if (strcmp(argv[i], "--t-end") == 0 && has) {
            char* end;
            t_end = strtod(argv[++i], &end);
            if (*end || !(t_end > 0) || !isfinite(t_end)) {
                fprintf(stderr, "kedyn: --t-end takes a positive time in s\n");
                return EXIT_USAGE;
            }
        } else if (strcmp(argv[i], "--quiet") == 0) {
            quiet = 1;
        } else if (argv[i][0] == '-' || model) {
            fprintf(stderr, "kedyn: compare: unexpected argument '%s'\n%s", argv[i], usage);
            return EXIT_USAGE;
        } else {
            model = argv[i];
        }
    }
    if (!model) {
        fputs(usage, stderr);
        return EXIT_USAGE;
    }
    kd_error err;
    kd_error_clear(&err);
    kd_desc* d = NULL;
    if (kd_load_yaml_file(model, &d, &err)) return cli_report_error(&err);
    if (kd_desc_check_resources(d, &err)) {  /* the model as given (force: true lifts the limits) */
        kd_desc_free(&d);
        return cli_report_error(&err);
    }
    int analysis = -1;
    for (int k = 0; k < d->nanalyses && analysis < 0; k++)
        if (d->analyses[k].type == KD_ANALYSIS_DYNAMICS) analysis = k;
    if (analysis < 0) {
        fprintf(stderr, "%s: error: compare needs a dynamics analysis in the model\n", model);
        kd_desc_free(&d);
        return EXIT_INPUT;
    }
    char defdir[1024];
    if (!outdir) {
        cli_default_outdir(model, defdir, (int)sizeof(defdir));
        outdir = defdir;
    }
    /* a mechanism (planar, or spatial: kedyn/smech_formalism.h): the formalisms of systems with
     * joints, on the model as given */
    if (kd_desc_is_mechanism(d) || d->spatial) {
        int code = EXIT_USAGE;
        if (elements_given)
            fprintf(stderr, "kedyn: --elements applies to elastic bodies; a mechanism is compared as given\n");
        else if (d->spatial && bodies_arg)
            fprintf(stderr, "kedyn: --bodies generates planar chains; %s is a spatial mechanism, compared as given\n",
                    model);
        else
            code = cmd_compare_mech(d, analysis, model, outdir, forms_arg, bodies_arg, t_end, quiet);
        kd_desc_free(&d);
        return code;
    }
    if (bodies_arg) {
        fprintf(stderr, "kedyn: --bodies applies to mechanisms (generated chains of rigid bodies)\n");
        kd_desc_free(&d);
        return EXIT_USAGE;
    }
    if (nforms < 1) {
        fprintf(stderr, "kedyn: --formalisms takes names among invariants, lagrange, kane, gibbs-appell, "
                        "hamilton, separated by commas\n");
        kd_desc_free(&d);
        return EXIT_USAGE;
    }
    kd_compare c;
    kd_status st = kd_make_dirs(outdir, &err);
    const int progress = !quiet && isatty(fileno(stderr));
    if (!st)
        st = kd_compare_run(d, analysis, elements, nel, forms, nforms, t_end, progress ? show_progress : NULL, NULL, &c,
                            &err);
    if (progress) fprintf(stderr, "\r%60s\r", "");
    kd_desc_free(&d);
    if (st) return cli_report_error(&err);

    int failed = 0;
    printf("compare: %s, t_end = %g s\n", model, c.t_end);
    printf("  %8s  %5s  %-13s  %-17s  %12s  %11s  %11s  %8s  %10s  %8s  %11s\n", "elements", "dof", "formalism",
           "integrator", "max_rel_diff", "build [s]", "integ. [s]", "steps", "points", "diffs", "flops");
    for (int i = 0; i < c.nrows; i++) {
        const kd_compare_row* r = &c.rows[i];
        printf("  %8d  %5d  %-13s  %-17s  %12.3e  %11.4e  %11.4e  %8ld  %10ld  %8ld  %11.4e%s\n", r->elements, r->neq,
               kd_formalism_name(r->formalism), integ_name(r->integrator), r->max_rel_diff, r->build_s,
               r->integrate_s, r->steps, r->ops.points, r->ops.derivatives, r->ops.flops, r->status ? "  FAILED" : "");
        if (r->status) {
            fprintf(stderr, "kedyn: %d elements, %s: %s\n", r->elements, kd_formalism_name(r->formalism), r->message);
            failed = 1;
        }
    }
    st = write_file(outdir, "compare.csv", model, &c, !failed, &err);
    if (!st) st = write_file(outdir, "summary.json", model, &c, !failed, &err);
    kd_compare_free(&c);
    if (st) return cli_report_error(&err);
    if (!quiet) printf("results: %s/summary.json, %s/compare.csv\n", outdir, outdir);
    return failed ? EXIT_NUMERIC : 0;
}
