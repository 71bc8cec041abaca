/* `kedyn demo`: a built-in model, run with no files, and its check against
 * the closed-form Euler-Bernoulli cantilever frequencies. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "kedyn/load_yaml.h"
#include "kedyn/run.h"

/* A steel blade 0.5 m long, 40 x 4 mm, clamped at node 1, modelled twice:
 * with 8 cubic and with 8 quintic Hermite elements (theory.md sec. 5). The
 * template takes the interpolation name twice. */
static const char demo_model[] =
    "kedyn: 1\n"
    "title: Clamped steel blade, 8 %s Hermite elements\n"
    "materials:\n"
    "  steel: {E: 210e9, rho: 7800, nu: 0.3}\n"
    "sections:\n"
    "  blade: {shape: rectangle, b: 0.040, h: 0.004}\n"
    "bodies:\n"
    "  - {name: blade, type: beam, material: steel, section: blade, length: 0.5, elements: 8,\n"
    "     theory: euler-bernoulli, interpolation: %s}\n"
    "supports:\n"
    "  - {body: blade, node: 1, fix: all}\n"
    "analyses:\n"
    "  - {type: modes, count: 6}\n";

/* Roots of cos(bL) cosh(bL) = -1 (clamped-free beam). */
static const double beta_l[6] = {1.8751040687, 4.6940911330, 7.8547574382,
                                 10.9955407349, 14.1371683910, 17.2787595321};

static void print_comparison(const kd_run_report* rep) {
    const double E = 210e9, rho = 7800, b = 0.040, h = 0.004, L = 0.5;
    const double c = sqrt(E * (b * h * h * h / 12.0) / (rho * b * h));
    const kd_modes* r = &rep->analyses[0].modes;
    printf("  %4s  %16s  %16s  %10s\n", "mode", "kedyn [rad/s]", "exact [rad/s]", "rel. error");
    for (int k = 0; k < r->count && k < 6; k++) {
        const double exact = beta_l[k] * beta_l[k] / (L * L) * c;
        printf("  %4d  %16.6f  %16.6f  %10.2e\n", k + 1, r->omega[k], exact, fabs(r->omega[k] - exact) / exact);
    }
}

int cmd_demo(int argc, char** argv) {
    const char* outdir = "out/demo";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            outdir = argv[++i];
        } else if (strcmp(argv[i], "--report") == 0) {
            /* the default: the demo always writes its report */
        } else {
            fprintf(stderr, "usage: kedyn demo [-o OUTDIR] [--report]\n");
            return EXIT_USAGE;
        }
    }
    const char* interps[2] = {"cubic", "quintic"};
    for (int k = 0; k < 2; k++) {
        char text[sizeof(demo_model) + 64];
        snprintf(text, sizeof(text), demo_model, interps[k], interps[k]);
        kd_error err;
        kd_error_clear(&err);
        kd_desc* d = NULL;
        if (kd_load_yaml_string(text, strlen(text), "<demo>", &d, &err)) return cli_report_error(&err);
        char dir[1100];
        snprintf(dir, sizeof(dir), "%s/%s", outdir, interps[k]);
        printf("== %s\n", d->title);
        const cli_run_opts o = {0, 1, 0, 0, NULL};  /* with the report (figures, animation) */
        const int code = cli_run_desc_with(d, "<demo>", dir, &o, print_comparison);
        kd_desc_free(&d);
        if (code) return code;
    }
    return 0;
}
