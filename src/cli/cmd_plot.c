/* `kedyn plot OUTDIR`: figures of a finished run (the report itself: cli_write_report,
 * cli_common.c). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "kedyn/plot.h"
#include "kedyn/report.h"

int cmd_plot(int argc, char** argv) {
    const char* outdir = NULL;
    int quiet = 0, report = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quiet") == 0) {
            quiet = 1;
        } else if (strcmp(argv[i], "--report") == 0) {
            report = 1;
        } else if (argv[i][0] == '-' || outdir) {
            fprintf(stderr, "kedyn: plot: unexpected argument '%s'\nusage: kedyn plot OUTDIR [--quiet] [--report]\n",
                    argv[i]);
            return EXIT_USAGE;
        } else {
            outdir = argv[i];
        }
    }
    if (!outdir) {
        fprintf(stderr, "usage: kedyn plot OUTDIR [--quiet] [--report]\n");
        return EXIT_USAGE;
    }
    kd_error err;
    kd_error_clear(&err);
    kd_plot_result res;
    if (kd_plot_outdir(outdir, &res, &err)) return cli_report_error(&err);
    if (!quiet) {
        cli_print_plot_notes(&res);
        printf("figures: %d in %s/figures/ (PNG and SVG; list in figures.json)\n", res.nfigures, outdir);
    }
    if (report) {
        if (kd_write_report_html(outdir, "", &err)) return cli_report_error(&err);
        if (!quiet) printf("report: %s/report.html\n", outdir);
    }
    return 0;
}
