/* What the commands share: exit codes, error and warning messages, the default output
 * directory, and the report written by `run --report`, `demo` and `plot` (cli.h). The
 * commands use this file and never each other's, except `demo`, which runs like `run`. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "kedyn/plot.h"
#include "kedyn/report.h"

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

int cli_print_warnings(const kd_desc* d, const kd_model* m) {
    kd_error w[16];
    const int n = kd_model_warnings(d, m, w, 16);
    for (int i = 0; i < n && i < 16; i++) {
        char buf[1024];
        fprintf(stderr, "%s\n", kd_error_format(&w[i], buf, (int)sizeof(buf)));
    }
    return n;
}

void cli_print_plot_notes(const kd_plot_result* res) {
    for (int i = 0; i < res->nnotes; i++) fprintf(stderr, "kedyn: note: %s\n", res->notes[i]);
}

int cli_write_report(const char* outdir, int quiet) {
    kd_error err;
    kd_error_clear(&err);
    kd_plot_result res;
    char note[600] = "";
    /* Figures when gnuplot is there; the report is written either way. */
    if (kd_plot_outdir(outdir, &res, &err)) {
        char buf[1024];
        snprintf(note, sizeof(note), "No figures: %s", kd_error_format(&err, buf, (int)sizeof(buf)));
        fprintf(stderr, "kedyn: warning: %s\n", note);
    } else if (!quiet) {
        cli_print_plot_notes(&res);
    }
    kd_error_clear(&err);
    if (kd_write_report_html(outdir, note, &err)) return cli_report_error(&err);
    if (!quiet) printf("report: %s/report.html\n", outdir);
    return 0;
}
