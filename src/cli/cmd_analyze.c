/* `kedyn analyze RECORD [options]`: a quick spectrum, FRF and identification of one record, without
 * a model (docs/cli.md). The analyses are those of a model file (kd_analyze_record). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int usage(const char* why) {
    fprintf(stderr, "kedyn analyze: %s\nusage: kedyn analyze RECORD [-o OUTDIR] [--time COL | --rate HZ] [--columns A,B]\n"
                    "       [--window NAME] [--segment N] [--overlap F] [--frf FORCE --responses A,B [--hits N]\n"
                    "       [--response-window NAME] [--identify [--band LO,HI] [--order-max N]]] [--quiet]\n",
            why);
    return EXIT_USAGE;
}

/* A comma-separated list of names. */
static int names(const char* arg, char (*out)[KD_NAME_MAX], int* n) {
    *n = 0;
    const char* p = arg;
    while (*p) {
        const char* q = strchr(p, ',');
        const size_t len = q ? (size_t)(q - p) : strlen(p);
        if (len == 0 || len >= KD_NAME_MAX || *n >= KD_COLUMNS_MAX) return -1;
        memcpy(out[*n], p, len);
        out[(*n)++][len] = '\0';
        p += len + (q ? 1 : 0);
    }
    return *n > 0 ? 0 : -1;
}

static int window_of(const char* name, int* w) {
    kd_window_type t;
    if (kd_window_type_from_name(name, &t)) return -1;
    *w = (int)t;
    return 0;
}

static int number(const char* s, double* v) {
    char* end;
    *v = strtod(s, &end);
    return *end || !isfinite(*v) ? -1 : 0;
}

int cmd_analyze(int argc, char** argv) {
    kd_analyze_opts o;
    kd_analyze_opts_init(&o);
    o.do_spectrum = 1;
    const char* outdir = NULL;
    int quiet = 0;
    char outbuf[1024];
    for (int i = 1; i < argc; i++) {  /* argv[0]: the command's name */
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        double x;
        if (a[0] != '-') {
            if (o.record) return usage("one record file");
            o.record = a;
            continue;
        }
        if (!strcmp(a, "--quiet")) {
            quiet = 1;
            continue;
        }
        if (!strcmp(a, "--identify")) {
            o.do_identify = 1;
            continue;
        }
        if (!v) return usage("an option without its value");
        i++;
        if (!strcmp(a, "-o")) outdir = v;
        else if (!strcmp(a, "--time")) o.time = v;
        else if (!strcmp(a, "--rate")) {
            if (number(v, &o.rate) || !(o.rate > 0)) return usage("--rate must be a positive number (Hz)");
        } else if (!strcmp(a, "--columns")) {
            if (names(v, o.spectrum.columns, &o.spectrum.ncolumns)) return usage("--columns: names separated by commas");
        } else if (!strcmp(a, "--window")) {
            if (window_of(v, &o.spectrum.window)) return usage("--window: rect, hann, flattop, exponential or force");
        } else if (!strcmp(a, "--response-window")) {
            if (window_of(v, &o.frf.window)) return usage("--response-window: rect, hann, flattop, exponential or force");
        } else if (!strcmp(a, "--segment")) {
            if (number(v, &x) || x < 4 || x != floor(x) || x > 1e8) return usage("--segment: a whole number >= 4");
            o.spectrum.segment = (int)x;
        } else if (!strcmp(a, "--overlap")) {
            if (number(v, &x) || x < 0 || x > 0.95) return usage("--overlap: a fraction in [0, 0.95]");
            o.spectrum.overlap = x;
        } else if (!strcmp(a, "--frf")) {
            if (strlen(v) >= KD_NAME_MAX) return usage("--frf: a column name");
            snprintf(o.frf.force, sizeof o.frf.force, "%s", v);
            o.do_frf = 1;
        } else if (!strcmp(a, "--responses")) {
            if (names(v, o.frf.responses, &o.frf.nresponses)) return usage("--responses: names separated by commas");
        } else if (!strcmp(a, "--hits")) {
            if (number(v, &x) || x < 1 || x != floor(x) || x > 1e6) return usage("--hits: a whole number >= 1");
            o.frf.hits = (int)x;
        } else if (!strcmp(a, "--band")) {
            double lo, hi;
            char* end;
            lo = strtod(v, &end);
            if (*end != ',' || number(end + 1, &hi) || !(lo >= 0 && hi > lo)) return usage("--band LO,HI (Hz)");
            o.identify.band[0] = lo, o.identify.band[1] = hi, o.identify.nband = 2;
        } else if (!strcmp(a, "--order-max")) {
            if (number(v, &x) || x < 2 || x > 200 || x != floor(x)) return usage("--order-max: 2 to 200");
            o.identify.order_max = (int)x;
        } else {
            return usage("unknown option");
        }
    }
    if (!o.record) return usage("no record file");
    if (o.do_frf && o.frf.nresponses == 0) return usage("--frf needs --responses");
    if (o.do_identify && !o.do_frf) return usage("--identify needs --frf");
    if (o.do_frf && !o.frf.nresponses) return usage("--responses without --frf");
    if (!outdir) {
        cli_default_outdir(o.record, outbuf, sizeof outbuf);
        outdir = outbuf;
    }
    cli_progress prog;
    cli_progress_init(&prog, quiet);
    kd_run_options ro = {cli_progress_update, &prog, 0, 1, 0, NULL};
    kd_run_report rep;
    kd_error err;
    kd_error_clear(&err);
    const kd_status st = kd_analyze_record(&o, outdir, &ro, &rep, &err);
    cli_progress_done(&prog);
    if (st) {
        kd_run_report_free(&rep);
        return cli_report_error(&err);
    }
    for (int i = 0; i < rep.nanalyses && !quiet; i++) {
        const kd_measure_result* r = rep.analyses[i].measure;
        if (!r) continue;
        if (rep.analyses[i].type == KD_ANALYSIS_SPECTRUM) {
            printf("spectrum: %d lines of %g Hz, %d segments; largest peak per column:\n", r->nf, r->df, r->segments);
            for (int k = 0; k < r->ncolumns; k++) printf("  %-16s %12.6g Hz  amplitude %.6g\n", r->resp[k], r->peak_hz[k], r->peak_amplitude[k]);
        } else if (rep.analyses[i].type == KD_ANALYSIS_FRF) {
            printf("frf: %d responses, %d averages, %d lines of %g Hz\n", r->nresp, r->frf.navg, r->frf.nf, r->frf.df);
        } else if (rep.analyses[i].type == KD_ANALYSIS_IDENTIFY) {
            printf("identify: %d modes\n  mode       f [Hz]    damping\n", r->fit.nmodes);
            for (int k = 0; k < r->fit.nmodes; k++) printf("  %4d %12.6g %10.4g\n", k + 1, r->fit.f_hz[k], r->fit.zeta[k]);
        }
    }
    if (!quiet) printf("results: %s/summary.json\n", outdir);
    kd_run_report_free(&rep);
    return 0;
}
