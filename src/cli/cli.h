/* kedyn command line: the commands and their shared helpers. Only the CLI
 * prints to the terminal and chooses exit codes (docs/cli.md):
 * 0 success, 1 invalid input, 2 usage error, 3 numerical failure. */
#ifndef KEDYN_CLI_H
#define KEDYN_CLI_H

#include "kedyn/kedyn.h"
#include "kedyn/plot.h"

enum { EXIT_INPUT = 1, EXIT_USAGE = 2, EXIT_NUMERIC = 3 };

int cmd_run(int argc, char** argv);
int cmd_check(int argc, char** argv);
int cmd_demo(int argc, char** argv);
int cmd_plot(int argc, char** argv);
int cmd_compare(int argc, char** argv);
int cmd_analyze(int argc, char** argv);  /* cmd_analyze.c: a record without a model */
/* `kedyn compare` on a mechanism model (cmd_compare_mech.c): forms_arg NULL = every formalism;
 * bodies_arg NULL = the model as given, else generated chains of these lengths. */
int cmd_compare_mech(const kd_desc* d, int analysis, const char* model, const char* outdir, const char* forms_arg,
                     const char* bodies_arg, double t_end, int quiet);

/* Print "FILE:LINE:COL: error: MSG" to stderr and return the exit code of
 * the error's status. */
int cli_report_error(const kd_error* err);

/* The exit code for a status. */
int cli_exit_code(kd_status st);

/* Default output directory: out/<model file stem>. */
void cli_default_outdir(const char* model_path, char* buf, int n);

/* Run the analyses of a loaded description, print their results and return
 * the exit code. Shared by `run` and `demo`; `after`, when given, is called
 * with the report of a successful run (the demo prints its comparison). */
struct kd_run_report;
int cli_run_desc(const kd_desc* d, const char* model_path, const char* outdir, int quiet,
                 void (*after)(const struct kd_run_report* rep));

/* Options of a run from the command line. */
typedef struct cli_run_opts {
    int quiet;                    /* --quiet: nothing on stdout, no progress bar; errors and warnings on stderr */
    int report;                   /* --report: animation.json, figures, report.html */
    int jobs;                     /* --jobs / KEDYN_JOBS: threads over a study's cases (0: one) */
    int resume;                   /* --resume: skip the cases complete in OUTDIR */
    const struct kd_case_backend* backend;  /* an MPI launch (cmd_run.c), or NULL */
} cli_run_opts;

/* cli_run_desc with options. */
int cli_run_desc_with(const kd_desc* d, const char* model_path, const char* outdir, const cli_run_opts* o,
                      void (*after)(const struct kd_run_report* rep));

/* Figures (when gnuplot is there) and OUTDIR/report.html; returns the exit
 * code (cli_common.c, like the helpers above and cli_print_warnings). */
int cli_write_report(const char* outdir, int quiet);

/* The notes of a plotting run, "kedyn: note: ..." on stderr. */
void cli_print_plot_notes(const kd_plot_result* res);

/* Progress on stderr (progress.c): shown only on a terminal, not with
 * --quiet, and only for runs longer than a second. */
typedef struct cli_progress {
    int enabled, shown, current;
    double t_start, t_analysis, t_printed;
    double delay;                 /* s before the bar appears ($KEDYN_PROGRESS_DELAY, 1) */
} cli_progress;
void cli_progress_init(cli_progress* p, int quiet);
void cli_progress_update(void* ctx, int index, int count, const char* type, double fraction);
void cli_progress_done(cli_progress* p);

/* Print the model's warnings (kd_model_warnings) to stderr as
 * "FILE:LINE:COL: warning: MSG"; returns their number. */
int cli_print_warnings(const kd_desc* d, const kd_model* m);

/* SIGINT/SIGTERM during a run (signals.c): the first stops the run at its next output row (the
 * rows kept, "complete": false), a second one or 5 s without a row end the process after
 * removing the temporary files. cli_interrupt_exit_code: 128 + the signal (with a message)
 * after an interrupted run, else 0. */
void cli_install_signal_handlers(void);
int cli_interrupt_exit_code(const char* outdir);

/* Print the model overview of `check`. */
void cli_print_model(const kd_desc* d, const kd_model* m);

#endif
