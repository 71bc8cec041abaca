/* `kedyn run`: load, compile, run the analyses, print their results. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "kedyn/load_yaml.h"
#include "kedyn/run.h"

int cli_exit_code(kd_status st) {
    switch (st) {
    case KD_OK: return 0;
    case KD_ERR_USAGE: return EXIT_USAGE;
    case KD_ERR_NUMERIC: return EXIT_NUMERIC;
    case KD_ERR_INPUT:
    case KD_ERR_IO:
    case KD_ERR_NOMEM: return EXIT_INPUT;
    }
    return EXIT_INPUT;
}

int cli_report_error(const kd_error* err) {
    char buf[1024];
    fprintf(stderr, "%s\n", kd_error_format(err, buf, (int)sizeof(buf)));
    return cli_exit_code(err->status);
}

void cli_default_outdir(const char* model_path, char* buf, int n) {
    const char* base = strrchr(model_path, '/');
    base = base ? base + 1 : model_path;
    const char* dot = strrchr(base, '.');
    const int len = dot && dot != base ? (int)(dot - base) : (int)strlen(base);
    snprintf(buf, (size_t)n, "out/%.*s", len, base);
}

static void print_modes(const kd_analysis_report* a) {
    const double pi = 3.14159265358979323846;
    const kd_modes* r = &a->modes;
    printf("modes: %d of %d DOF, %s solver, %.3f s\n", r->count, r->neq,
           r->growth ? "state-space" : (r->solver == KD_EIGEN_LANCZOS ? "lanczos" : "dense"), a->wall_s);
    printf("  %4s  %16s  %16s\n", "mode", "omega [rad/s]", "f [Hz]");
    for (int k = 0; k < r->count; k++) printf("  %4d  %16.6f  %16.6f\n", k + 1, r->omega[k], r->omega[k] / (2 * pi));
}

static void print_campbell(const kd_analysis_report* a) {
    const kd_campbell* c = &a->campbell;
    printf("campbell: %d speeds, %d modes, %.3f s\n  %12s", c->nspeeds, c->count, a->wall_s, "speed");
    for (int k = 0; k < c->count; k++) printf("  omega_%d%*s", k + 1, k + 1 < 10 ? 6 : 5, "");
    printf("   [rad/s]\n");
    for (int i = 0; i < c->nspeeds; i++) {
        printf("  %12.4f", c->speed[i]);
        for (int k = 0; k < c->count; k++) printf("  %14.4f", c->omega[(size_t)i * c->count + k]);
        printf("%s\n", c->unstable[i] ? "  unstable" : "");
    }
}

static void print_stability(const kd_analysis_report* a) {
    const kd_stability_map* m = &a->stability;
    printf("stability: critical speed [rad/s] (inf: stable up to %g), %.3f s\n  %10s  %10s  %16s\n", m->omega_max,
           a->wall_s, "hub [m]", "length [m]", "omega_cr");
    for (int i = 0; i < m->nhubs; i++)
        for (int j = 0; j < m->nlengths; j++)
            printf("  %10.4g  %10.4g  %16.6g\n", m->hub[i], m->length[j], m->omega_cr[(size_t)i * m->nlengths + j]);
}

static void print_dynamics(const kd_analysis_report* a) {
    printf("dynamics: %ld steps to t = %g s, %ld factorisations, %.3f s -> %s\n", a->dynamics.steps,
           a->dynamics.t_reached, a->dynamics.factorizations, a->wall_s, a->nfiles ? a->files[0] : "");
}

static void print_report(const kd_analysis_report* a) {
    if (a->status == KD_OK && a->type == KD_ANALYSIS_MODES) print_modes(a);
    if (a->status == KD_OK && a->type == KD_ANALYSIS_CAMPBELL) print_campbell(a);
    if (a->status == KD_OK && a->type == KD_ANALYSIS_STABILITY) print_stability(a);
    if (a->type == KD_ANALYSIS_DYNAMICS) print_dynamics(a);
    for (int k = 0; k < a->nsub; k++) {
        printf("sweep");
        for (int j = 0; j < a->sweep->nset; j++) printf("%s %s = %g", j ? "," : "", a->sweep->set[j], a->sub[k].value[j]);
        printf(":\n");
        print_report(&a->sub[k]);
    }
    if (a->status == KD_OK && a->message[0]) fprintf(stderr, "kedyn: warning: %s\n", a->message);
}

int cli_run_desc(const kd_desc* d, const char* model_path, const char* outdir, int quiet,
                 void (*after)(const kd_run_report* rep)) {
    kd_error err;
    kd_error_clear(&err);
    kd_model* m = NULL;
    kd_status st = kd_model_compile(d, &m, &err);
    if (st) return cli_report_error(&err);
    cli_print_warnings(d, m);
    kd_run_report rep;
    st = kd_run(d, m, model_path, outdir, &rep, &err);
    for (int i = 0; i < rep.nanalyses; i++) print_report(&rep.analyses[i]);
    int code = 0;
    if (st) {
        code = cli_report_error(&err);
        if (st == KD_ERR_NUMERIC) fprintf(stderr, "kedyn: results computed before the failure are in %s/\n", outdir);
    } else {
        if (after) after(&rep);
        if (!quiet) printf("results: %s/summary.json\n", outdir);
    }
    kd_run_report_free(&rep);
    kd_model_free(&m);
    return code;
}

int cmd_run(int argc, char** argv) {
    const char* model = NULL;
    const char* outdir = NULL;
    int quiet = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            outdir = argv[++i];
        } else if (strcmp(argv[i], "--quiet") == 0) {
            quiet = 1;
        } else if (strcmp(argv[i], "--formalism") == 0) {
            fprintf(stderr, "kedyn: --formalism: kedyn %s has no analysis that depends on the formalism\n",
                    KD_VERSION_STRING);
            return EXIT_USAGE;
        } else if (argv[i][0] == '-' || model) {
            fprintf(stderr, "kedyn: run: unexpected argument '%s'\nusage: kedyn run MODEL.yaml [-o OUTDIR] [--quiet]\n",
                    argv[i]);
            return EXIT_USAGE;
        } else {
            model = argv[i];
        }
    }
    if (!model) {
        fprintf(stderr, "usage: kedyn run MODEL.yaml [-o OUTDIR] [--quiet]\n");
        return EXIT_USAGE;
    }
    kd_error err;
    kd_error_clear(&err);
    kd_desc* d = NULL;
    if (kd_load_yaml_file(model, &d, &err)) return cli_report_error(&err);
    char defdir[1024];
    if (!outdir) {
        cli_default_outdir(model, defdir, (int)sizeof(defdir));
        outdir = defdir;
    }
    const int code = cli_run_desc(d, model, outdir, quiet, NULL);
    kd_desc_free(&d);
    return code;
}
