/* kedyn command line: argument dispatch, --help and --version. */
#include <stdio.h>
#include <string.h>

#include "app_heap.h"
#include "blas_threads.h"
#include "cli.h"

static const char* usage_text =
    "usage: kedyn COMMAND [ARGS]\n"
    "\n"
    "Dynamics of mechanisms and machines with elastic links, by finite elements.\n"
    "\n"
    "commands:\n"
    "  run MODEL.yaml [-o OUTDIR] [--quiet] [--report] [--force] [--formalism NAME] [--jobs N] [--resume]\n"
    "                                         run every analysis in the model\n"
    "  compare MODEL.yaml [-o OUTDIR] [--elements N,...]\n"
    "                                         run the dynamics with every formalism; agreement and cost\n"
    "  check MODEL.yaml                       validate; print bodies, elements, nodes, DOF\n"
    "  demo [-o OUTDIR]                       run the built-in example (no files needed)\n"
    "  plot OUTDIR [--report]                 figures (PNG, SVG) of a run's results\n"
    "  analyze RECORD [-o OUTDIR] [options]   spectrum, FRF and modes of a measured record (no model)\n"
    "  help COMMAND                           help on one command\n"
    "  --version                              print the version\n"
    "  --help                                 print this help\n"
    "\n"
    "Results go to OUTDIR (default out/<model file stem>/): summary.json and CSV files.\n"
    "Exit codes: 0 success, 1 invalid input, 2 usage error, 3 numerical failure.\n"
    "Model format: docs/model-format.md; commands: docs/cli.md.\n";

static int help_command(const char* cmd) {
    if (strcmp(cmd, "run") == 0)
        printf("usage: kedyn run MODEL.yaml [-o OUTDIR] [--quiet] [--report] [--force] [--formalism NAME]\n"
               "                 [--jobs N] [--resume]\n\n"
               "Check the model, run each analysis in its `analyses` list in order, print the results\n"
               "and write OUTDIR/summary.json (last) and the CSV files of each analysis. Files appear\n"
               "only when complete. After a numerical failure the results so far are kept, summary.json\n"
               "says \"complete\": false with the cause, and kedyn exits with 3.\n"
               "--report also writes OUTDIR/animation.json, the figures (kedyn plot) and OUTDIR/report.html,\n"
               "one self-contained page with the summary, the figures and an animation of the system.\n"
               "On a terminal, long runs show a progress bar with the time left. --quiet: nothing on stdout\n"
               "(no result tables) and no progress bar; errors and warnings on stderr.\n"
               "--formalism NAME builds the equations of every dynamics analysis by that route:\n"
               "invariants (default), lagrange, kane, gibbs-appell, hamilton (docs/formalisms.md);\n"
               "on a mechanism: newton-euler, maggi, kane, gibbs-appell, lagrange.\n"
               "Models estimated beyond the resource limits (elements, time steps, CSV size: docs/cli.md)\n"
               "are refused with the estimate, exit 1; --force (or `force: true` in the model) runs them.\n"
               "SIGINT/SIGTERM stop at the next output row: rows kept, \"complete\": false, exit 128+N.\n"
               "--jobs N (or KEDYN_JOBS; default: the cores) computes the cases of a sweep, campbell,\n"
               "stability or the instants of a modes_along_motion on N threads, the results identical\n"
               "to --jobs 1; under `mpirun -n P` the ranks share them and rank 0 writes. --resume\n"
               "skips the cases a killed run recorded complete in OUTDIR (docs/cli.md, \"Parallel\n"
               "studies\").\n");
    else if (strcmp(cmd, "compare") == 0)
        printf("usage: kedyn compare MODEL.yaml [-o OUTDIR] [--elements N,N,...] [--formalisms NAME,...]\n"
               "                    [--bodies N,N,...] [--t-end T] [--quiet]\n\n"
               "Run the model's (first) dynamics analysis with each formalism (default: lagrange, kane,\n"
               "gibbs-appell, hamilton, against the invariants route) for each element count (default\n"
               "5,10,15,20,25,30,40, applied to every beam body; supports and nodal loads move to the\n"
               "nearest node). Prints the table of agreement (max_rel_diff of the trajectory), time to\n"
               "build the equations once, time to integrate and operation counts; writes\n"
               "OUTDIR/compare.csv and OUTDIR/summary.json. --t-end shortens the simulated time.\n"
               "On a mechanism: every formalism of systems with joints (newton-euler, maggi, kane,\n"
               "gibbs-appell, lagrange) on the model as given, or with --bodies on generated pendulum\n"
               "chains of N bars; time and counted flops of one evaluation and of the integration.\n");
    else if (strcmp(cmd, "check") == 0)
        printf("usage: kedyn check MODEL.yaml [--force]\n\n"
               "Validate the model and print its bodies, elements, nodes and degrees of freedom, with\n"
               "warnings (e.g. a body without supports has rigid-body modes). Writes nothing. A model\n"
               "beyond the resource limits is refused with the estimate unless --force.\n");
    else if (strcmp(cmd, "demo") == 0)
        printf("usage: kedyn demo [-o OUTDIR] [--report]\n\n"
               "Run the built-in example (a steel blade clamped at one end) and compare its natural\n"
               "frequencies with the Euler-Bernoulli closed form. Writes to out/demo/ by default, with\n"
               "the report (report.html, figures/) of each model; --report is the default.\n");
    else if (strcmp(cmd, "plot") == 0)
        printf("usage: kedyn plot OUTDIR [--quiet] [--report]\n\n"
               "Draw figures of every analysis listed in OUTDIR/summary.json with gnuplot (Debian package\n"
               "gnuplot-nox; $KEDYN_GNUPLOT overrides the program): mode shapes, Campbell diagram,\n"
               "critical speed map, and time histories of any CSV whose first column is t (columns grouped\n"
               "by name). Writes OUTDIR/figures/NAME.png, NAME.svg and figures.json. Analyses with nothing\n"
               "to draw are skipped with a note. --report also writes OUTDIR/report.html (with the\n"
               "animation when OUTDIR/animation.json exists). Exit 1 when summary.json cannot be read or\n"
               "gnuplot is missing or fails.\n");
    else if (strcmp(cmd, "analyze") == 0)
        printf("usage: kedyn analyze RECORD [-o OUTDIR] [--time COL | --rate HZ] [--columns A,B] [--window NAME]\n"
               "                      [--segment N] [--overlap F] [--frf FORCE --responses A,B [--hits N]\n"
               "                      [--response-window NAME] [--identify [--band LO,HI] [--order-max N]]] [--quiet]\n\n"
               "Spectra (Welch) of a CSV record or a Universal File without a model: OUTDIR/spectrum.csv\n"
               "(f_hz, COLUMN.psd, COLUMN.amplitude). With --frf, the H1 FRFs of the responses against the\n"
               "force column, averaged over --hits equal hits (frf.csv); with --identify, LSCF modes\n"
               "(identify.csv, stabilisation.csv). Writes OUTDIR/summary.json last (default out/<stem>).\n");
    else {
        fprintf(stderr, "kedyn: no help on unknown command '%s'\n", cmd);
        return EXIT_USAGE;
    }
    return 0;
}

int main(int argc, char** argv) {
    app_blas_threads_default();  /* one BLAS thread unless the user chose (docs/cli.md) */
    app_heap_default();          /* large blocks on reused heap pages (app_heap.h) */
    if (argc < 2) {
        fputs(usage_text, stderr);
        return EXIT_USAGE;
    }
    const char* cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("kedyn %s\n", KD_VERSION_STRING);
        return 0;
    }
    if (strcmp(cmd, "help") == 0) {
        if (argc < 3) {
            fputs(usage_text, stdout);
            return 0;
        }
        return help_command(argv[2]);
    }
    if (strcmp(cmd, "run") == 0) return cmd_run(argc - 1, argv + 1);
    if (strcmp(cmd, "check") == 0) return cmd_check(argc - 1, argv + 1);
    if (strcmp(cmd, "demo") == 0) return cmd_demo(argc - 1, argv + 1);
    if (strcmp(cmd, "plot") == 0) return cmd_plot(argc - 1, argv + 1);
    if (strcmp(cmd, "analyze") == 0) return cmd_analyze(argc - 1, argv + 1);
    if (strcmp(cmd, "compare") == 0) return cmd_compare(argc - 1, argv + 1);
    fprintf(stderr, "kedyn: unknown command '%s'\n\n%s", cmd, usage_text);
    return EXIT_USAGE;
}
