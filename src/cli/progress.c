/* A one-line progress bar with an estimate of the time left, on stderr, for
 * runs longer than a second (cli.h). The library reports fractions through
 * kd_run_options.progress; this prints at most ten times a second. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "core/util.h"

void cli_progress_init(cli_progress* p, int quiet) {
    memset(p, 0, sizeof(*p));
    p->enabled = !quiet && isatty(2);
    p->t_start = util_now_s();
    /* KEDYN_PROGRESS_DELAY: seconds before the bar appears (default 1). */
    const char* delay = getenv("KEDYN_PROGRESS_DELAY");
    p->delay = delay && delay[0] ? atof(delay) : 1.0;
    p->current = -1;
}

void cli_progress_update(void* ctx, int index, int count, const char* type, double fraction) {
    cli_progress* p = ctx;
    if (!p->enabled) return;
    const double t = util_now_s();
    if (index != p->current) p->current = index, p->t_analysis = t;
    /* Nothing for the first second, then at most every 0.1 s. */
    if (t - p->t_start < p->delay || (t - p->t_printed < 0.1 && fraction < 1.0)) return;
    p->t_printed = t;
    p->shown = 1;
    char bar[31];
    const int fill = (int)(30 * fraction + 0.5);
    for (int i = 0; i < 30; i++) bar[i] = i < fill ? '#' : '.';
    bar[30] = '\0';
    char eta[32] = "";
    const double spent = t - p->t_analysis;
    if (fraction > 0.01 && fraction < 1.0) {
        const double left = spent * (1.0 - fraction) / fraction;
        if (left < 120) snprintf(eta, sizeof(eta), "ETA %.0f s", left);
        else snprintf(eta, sizeof(eta), "ETA %d min %02d s", (int)(left / 60), (int)left % 60);
    }
    fprintf(stderr, "\r%-10.10s %d/%d [%s] %3.0f%%  %-18s", type, index + 1, count, bar, 100 * fraction, eta);
    fflush(stderr);
}

void cli_progress_done(cli_progress* p) {
    if (!p->shown) return;
    fprintf(stderr, "\r%78s\r", "");
    fflush(stderr);
    p->shown = 0;
}
