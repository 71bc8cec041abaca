/* SIGINT and SIGTERM during a run (cli.h): the first asks the run to stop at its next output row
 * (kd_interrupt_request: the rows so far are kept and summary.json says "complete": false);
 * a second signal, or an analysis that does not reach a row within KEDYN_STOP_GRACE_S, ends the
 * process at once after removing every open temporary file (kd_atomic_remove_temps). Only
 * async-signal-safe calls in the handlers: a flag, alarm, unlink, _exit. */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "kedyn/atomic_file.h"

enum { KEDYN_STOP_GRACE_S = 5 };

static void stop_now(int signo) {
    (void)signo;
    kd_atomic_remove_temps();
    _exit(128 + (kd_interrupted() ? kd_interrupted() : SIGTERM));
}

static void on_stop_signal(int signo) {
    if (kd_interrupted()) stop_now(signo);
    kd_interrupt_request(signo);
    alarm(KEDYN_STOP_GRACE_S);
}

void cli_install_signal_handlers(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_stop_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sa.sa_handler = stop_now;
    sigaction(SIGALRM, &sa, NULL);
}

int cli_interrupt_exit_code(const char* outdir) {
    const int sig = kd_interrupted();
    if (!sig) return 0;
    fprintf(stderr, "kedyn: interrupted by %s: the rows written so far are in %s/ (summary.json: \"complete\": false)\n",
            sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal", outdir);
    return 128 + sig;
}
