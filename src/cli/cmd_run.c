/* `kedyn run`: load, compile, run the analyses, print their results; the threads (--jobs,
 * KEDYN_JOBS) and the MPI ranks (kedyn_mpi.so, loaded only under mpirun) over the cases of a
 * study (docs/cli.md, "Parallel studies"). */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "kedyn/load_yaml.h"
#include "kedyn/mech_formalism.h"
#include "kedyn/run.h"

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
    const int nt = m->nthick > 0 ? m->nthick : 1;  /* a plate's thickness axis */
    printf("stability: critical speed [rad/s] (inf: stable up to %g), %.3f s\n  %10s  %10s%s  %16s\n", m->omega_max,
           a->wall_s, "hub [m]", "length [m]", m->nthick > 0 ? "  thickness [m]" : "", "omega_cr");
    for (int i = 0; i < m->nhubs; i++)
        for (int j = 0; j < m->nlengths; j++)
            for (int k = 0; k < nt; k++) {
                printf("  %10.4g  %10.4g", m->hub[i], m->length[j]);
                if (m->nthick > 0) printf("  %13.4g", m->thickness[k]);
                printf("  %16.6g\n", m->omega_cr[((size_t)i * m->nlengths + j) * nt + k]);
            }
}

static void print_dynamics(const kd_analysis_report* a) {
    printf("dynamics: %ld steps to t = %g s, %ld factorisations, %.3f s%s%s -> %s\n", a->dynamics.steps,
           a->dynamics.t_reached, a->dynamics.factorizations, a->wall_s, a->formalism > KD_DYN_FORMALISM_INVARIANTS ? ", formalism " : "",
           a->formalism > KD_DYN_FORMALISM_INVARIANTS ? kd_dynamics_formalism_name(a->formalism) : "", a->nfiles ? a->files[0] : "");
}

static void print_mech(const kd_analysis_report* a) {
    const kd_mech_run_stats* s = &a->mech;
    if (a->status != KD_OK && a->nfiles == 0) return;  /* nothing computed; the error says why */
    printf("%s: %d steps to t = %g s, DOF %d (Gruebler %d), largest condition number of Phi_q %.3g at t = %g s, "
           "%.3f s -> %s\n",
           a->type == KD_ANALYSIS_KINEMATICS ? "kinematics" : "inverse_dynamics", s->steps, s->t_reached, s->dof,
           s->gruebler, s->cond_max, s->t_cond_max, a->wall_s, a->nfiles ? a->files[0] : "");
    if (a->type == KD_ANALYSIS_INVERSE_DYNAMICS && a->status == KD_OK)
        printf("  multipliers and projection routes agree to %.2g (relative)\n", s->route_diff);
}

/* modes_along_motion: the range of each followed frequency of each link over the motion. */
static void print_modes_along(const kd_analysis_report* a) {
    const kd_ked_run_stats* s = &a->ked;
    printf("modes_along_motion: %d instants%s, %.3f s -> %s\n", s->samples, s->forward ? " (forward rigid dynamics)" : "",
           a->wall_s, a->nfiles ? a->files[0] : "");
    for (int l = 0; l < s->links && l < KD_KED_REPORT_LINKS; l++) {
        printf("  %-12s", s->link_name[l]);
        for (int c = 0; c < s->count && c < KD_KED_REPORT_MODES; c++)
            printf("  %.1f-%.1f", s->omega_min[l][c], s->omega_max[l][c]);
        printf("  rad/s\n");
    }
}

/* Record analyses: the identified modes, the pairs with the computed ones, the peaks. */
static void print_measure(const kd_analysis_report* a) {
    const kd_measure_result* r = a->measure;
    if (!r) return;
    if (a->type == KD_ANALYSIS_IDENTIFY) {
        printf("identify: %d modes\n  mode       f [Hz]  damping ratio\n", r->fit.nmodes);
        for (int k = 0; k < r->fit.nmodes; k++) printf("  %4d %12.6g %14.4g\n", k + 1, r->fit.f_hz[k], r->fit.zeta[k]);
    } else if (a->type == KD_ANALYSIS_CORRELATE && r->mac) {
        printf("correlate: %d pairs\n  measured  computed     MAC   f meas [Hz]   f comp [Hz]   diff [%%]\n", r->npairs);
        for (int p = 0; p < r->npairs; p++)
            printf("  %8d %9d %7.4f %13.6g %13.6g %10.3g\n", r->pair_m[p] + 1, r->pair_c[p] + 1, r->pair_mac[p], r->pair_f_m[p],
                   r->pair_f_c[p], 100 * (r->pair_f_m[p] / r->pair_f_c[p] - 1));
    } else if (a->type == KD_ANALYSIS_CORRELATE) {
        printf("correlate: %d spectral peaks over the frequencies along the motion\n", r->npeaks);
        for (int p = 0; p < r->npeaks; p++)
            printf("  %12.6g Hz  %-16s [%.6g, %.6g] Hz\n", r->peaks_hz[p], r->peak_mode[p], r->peak_fmin[p], r->peak_fmax[p]);
    } else if (a->type == KD_ANALYSIS_VIRTUAL_TEST && r->record) {
        printf("virtual_test: record '%s', %d channels x %d samples\n", r->record_name, r->record->nchannels,
               r->record->channels[0].n);
    }
}

/* An analysis' results on stdout and its warning on stderr; quiet: the warning only (docs/cli.md,
 * "--quiet"). */
static void print_report(const kd_analysis_report* a, int quiet) {
    for (int k = 0; quiet && k < a->nsub; k++) print_report(&a->sub[k], 1);
    if (quiet) {
        if (a->status == KD_OK && a->message[0]) fprintf(stderr, "kedyn: warning: %s\n", a->message);
        return;
    }
    if (a->status == KD_OK) print_measure(a);
    if (a->status == KD_OK && a->type == KD_ANALYSIS_MODES) print_modes(a);
    if (a->status == KD_OK && a->type == KD_ANALYSIS_CAMPBELL) print_campbell(a);
    if (a->status == KD_OK && a->type == KD_ANALYSIS_STABILITY) print_stability(a);
    if (a->type == KD_ANALYSIS_DYNAMICS) print_dynamics(a);
    if (a->type == KD_ANALYSIS_KINEMATICS || a->type == KD_ANALYSIS_INVERSE_DYNAMICS) print_mech(a);
    if (a->status == KD_OK && a->type == KD_ANALYSIS_MODES_ALONG_MOTION) print_modes_along(a);
    if (a->type == KD_ANALYSIS_DYNAMICS && a->ked.links > 0 && a->ked.max_deflection_at[0])
        printf("  elastic links (%s): largest deflection %.4g m (%s), largest stress %.4g Pa (%s)\n",
               a->ked.coupling ? a->ked.coupling : "one-way", a->ked.max_deflection, a->ked.max_deflection_at,
               a->ked.max_sigma, a->ked.max_sigma_at[0] ? a->ked.max_sigma_at : "-");
    for (int k = 0; k < a->nsub; k++) {
        printf("sweep");
        for (int j = 0; j < a->sweep->sweep.nset; j++) printf("%s %s = %g", j ? "," : "", a->sweep->sweep.set[j], a->sub[k].value[j]);
        printf(":\n");
        print_report(&a->sub[k], 0);
    }
    if (a->status == KD_OK && a->message[0]) fprintf(stderr, "kedyn: warning: %s\n", a->message);
}

int cli_run_desc(const kd_desc* d, const char* model_path, const char* outdir, int quiet,
                 void (*after)(const kd_run_report* rep)) {
    const cli_run_opts o = {quiet, 0, 0, 0, NULL};
    return cli_run_desc_with(d, model_path, outdir, &o, after);
}

int cli_run_desc_with(const kd_desc* d, const char* model_path, const char* outdir, const cli_run_opts* o,
                      void (*after)(const kd_run_report* rep)) {
    const int quiet = o->quiet;
    kd_error err;
    kd_error_clear(&err);
    kd_model* m = NULL;
    kd_status st = kd_desc_check_resources(d, &err);  /* before anything is allocated */
    if (!st) st = kd_model_compile(d, &m, &err);
    const int worker = o->backend && o->backend->rank > 0;
    if (st) return worker ? cli_exit_code(st) : cli_report_error(&err);
    kd_run_report rep;
    if (worker) {  /* an MPI rank other than 0: computes cases, prints and writes nothing */
        const kd_run_options wopts = {NULL, NULL, 0, o->jobs, 0, o->backend};
        cli_install_signal_handlers();
        st = kd_run_with(d, m, model_path, outdir, &wopts, &rep, &err);
        kd_run_report_free(&rep);
        kd_model_free(&m);
        return 0;
    }
    cli_print_warnings(d, m);
    cli_progress prog;
    cli_progress_init(&prog, quiet);
    const kd_run_options ropts = {cli_progress_update, &prog, o->report, o->jobs, o->resume, o->backend};
    cli_install_signal_handlers();
    st = kd_run_with(d, m, model_path, outdir, &ropts, &rep, &err);
    cli_progress_done(&prog);
    for (int i = 0; i < rep.nanalyses; i++) print_report(&rep.analyses[i], quiet);
    int code = cli_interrupt_exit_code(outdir);
    if (code) {
        kd_run_report_free(&rep);
        kd_model_free(&m);
        return code;
    }
    if (st) {
        code = cli_report_error(&err);
        if (st == KD_ERR_NUMERIC) fprintf(stderr, "kedyn: results computed before the failure are in %s/\n", outdir);
    } else {
        if (after) after(&rep);
        if (!quiet) printf("results: %s/summary.json\n", outdir);
    }
    /* The report also after a numerical failure: what was computed. */
    if (o->report && (st == KD_OK || st == KD_ERR_NUMERIC)) {
        const int rc = cli_write_report(outdir, quiet);
        if (!code) code = rc;
    }
    kd_run_report_free(&rep);
    kd_model_free(&m);
    return code;
}

/* A count of threads: a whole positive number (--jobs, KEDYN_JOBS); -1 when it is not. */
static int parse_jobs(const char* s) {
    if (!s || !s[0]) return -1;
    char* end;
    errno = 0;
    const long v = strtol(s, &end, 10);
    if (*end || errno || v < 1 || v > 4096) return -1;
    return (int)v;
}

/* Started by mpirun (Open MPI, or a PMI/PMIx launcher)? */
static int mpi_launched(void) {
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_SIZE");
}

/* kedyn_mpi.so (built with -DKEDYN_MPI=ON), dlopen'ed only under mpirun so that libmpi is not
 * loaded by ordinary runs: $KEDYN_MPI_MODULE, else next to the executable, else ../lib/kedyn/. */
typedef int (*mpi_open_fn)(int* argc, char*** argv, kd_case_backend* b, char* msg, size_t n);
typedef void (*mpi_close_fn)(kd_case_backend* b);

static void* mpi_module(char* why, size_t n) {
    const char* env = getenv("KEDYN_MPI_MODULE");
    if (env && env[0]) {
        void* h = dlopen(env, RTLD_NOW | RTLD_GLOBAL);
        if (!h) snprintf(why, n, "%s", dlerror());
        return h;
    }
    char exe[PATH_MAX];
    const ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (len <= 0) {
        snprintf(why, n, "cannot find the kedyn executable");
        return NULL;
    }
    exe[len] = '\0';
    char* slash = strrchr(exe, '/');
    if (slash) *slash = '\0';
    const char* where[] = {"%s/kedyn_mpi.so", "%s/../lib/kedyn/kedyn_mpi.so"};
    for (int k = 0; k < 2; k++) {
        char path[PATH_MAX + 40];
        snprintf(path, sizeof(path), where[k], exe);
        void* h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
        if (h) return h;
        if (k == 0) snprintf(why, n, "%s", dlerror());
    }
    return NULL;
}

/* Does the model have a study whose cases the ranks share? */
static int has_study(const kd_desc* d) {
    for (int k = 0; k < d->nanalyses; k++)
        if (d->analyses[k].type == KD_ANALYSIS_SWEEP || d->analyses[k].type == KD_ANALYSIS_CAMPBELL ||
            d->analyses[k].type == KD_ANALYSIS_STABILITY || d->analyses[k].type == KD_ANALYSIS_MODES_ALONG_MOTION)
            return 1;
    return 0;
}

/* The run under mpirun: rank 0 runs and writes, the others compute cases of its studies. */
static int run_mpi(const kd_desc* d, const char* model, const char* outdir, cli_run_opts* o) {
    char why[512] = "";
    void* h = mpi_module(why, sizeof(why));
    mpi_open_fn open_fn = h ? (mpi_open_fn)(size_t)dlsym(h, "kedyn_mpi_open") : NULL;
    mpi_close_fn close_fn = h ? (mpi_close_fn)(size_t)dlsym(h, "kedyn_mpi_close") : NULL;
    if (!open_fn || !close_fn) {
        fprintf(stderr, "kedyn: started by mpirun, but the MPI module kedyn_mpi.so cannot be loaded (%s); build with "
                        "-DKEDYN_MPI=ON or set KEDYN_MPI_MODULE\n", why[0] ? why : "no kedyn_mpi_open in it");
        return EXIT_USAGE;
    }
    kd_case_backend b;
    memset(&b, 0, sizeof(b));
    int argc = 0;
    char** argv = NULL;
    if (open_fn(&argc, &argv, &b, why, sizeof(why)) != 0) {
        fprintf(stderr, "kedyn: MPI: %s\n", why);
        return EXIT_USAGE;
    }
    int code = 0;
    if (b.size > 1 && !has_study(d)) {
        if (b.rank == 0) {
            fprintf(stderr, "kedyn: note: %s has no sweep, campbell, stability or modes_along_motion analysis: it runs on rank 0 alone "
                            "(the other %d rank%s nothing to do)\n", model, b.size - 1, b.size > 2 ? "s have" : " has");
            code = cli_run_desc_with(d, model, outdir, o, NULL);
        }
    } else {
        o->backend = b.size > 1 ? &b : NULL;
        code = cli_run_desc_with(d, model, outdir, o, NULL);
    }
    if (b.rank == 0 && b.size > 1) b.finish(b.impl);  /* the other ranks stop waiting */
    close_fn(&b);
    return code;
}

int cmd_run(int argc, char** argv) {
    const char* model = NULL;
    const char* outdir = NULL;
    cli_run_opts o = {0, 0, 0, 0, NULL};
    int jobs_given = 0;
    const char* formalism_name = NULL;
    int force = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            outdir = argv[++i];
            if (!outdir[0]) {
                fprintf(stderr, "kedyn: run: -o needs a directory name (got an empty one)\n");
                return EXIT_USAGE;
            }
        } else if (strcmp(argv[i], "--quiet") == 0) {
            o.quiet = 1;
        } else if (strcmp(argv[i], "--report") == 0) {
            o.report = 1;
        } else if (strcmp(argv[i], "--force") == 0) {
            force = 1;
        } else if (strcmp(argv[i], "--resume") == 0) {
            o.resume = 1;
        } else if (strcmp(argv[i], "--jobs") == 0 || strcmp(argv[i], "-j") == 0) {
            o.jobs = i + 1 < argc ? parse_jobs(argv[i + 1]) : -1;
            if (o.jobs < 1) {
                fprintf(stderr, "kedyn: run: --jobs needs a whole number of threads, 1 or more (got '%s')\n",
                        i + 1 < argc ? argv[i + 1] : "");
                return EXIT_USAGE;
            }
            i++;
            jobs_given = 1;
        } else if (strcmp(argv[i], "--formalism") == 0) {
            kd_formalism f;
            if (i + 1 >= argc ||
                (kd_formalism_parse(argv[i + 1], &f) != 0 && kd_mech_formalism_parse(argv[i + 1]) < 0)) {
                fprintf(stderr, "kedyn: --formalism must be one of: invariants, lagrange, kane, gibbs-appell, "
                                "hamilton (elastic bodies); newton-euler, maggi, kane, gibbs-appell, lagrange "
                                "(mechanisms)\n");
                return EXIT_USAGE;
            }
            formalism_name = argv[++i];
        } else if (argv[i][0] == '-' || model) {
            fprintf(stderr, "kedyn: run: unexpected argument '%s'\nusage: kedyn run MODEL.yaml [-o OUTDIR] [--quiet] [--report] [--force] [--formalism NAME]\n"
                    "       [--jobs N] [--resume]\n",
                    argv[i]);
            return EXIT_USAGE;
        } else {
            model = argv[i];
        }
    }
    if (!model) {
        fprintf(stderr, "usage: kedyn run MODEL.yaml [-o OUTDIR] [--quiet] [--report] [--force] [--formalism NAME] [--jobs N] "
                        "[--resume]\n");
        return EXIT_USAGE;
    }
    if (!jobs_given) {  /* KEDYN_JOBS, else every core (one per rank under mpirun) */
        const char* env = getenv("KEDYN_JOBS");
        if (env) {
            o.jobs = parse_jobs(env);
            if (o.jobs < 1) {
                fprintf(stderr, "kedyn: run: KEDYN_JOBS must be a whole number of threads, 1 or more (got '%s')\n", env);
                return EXIT_USAGE;
            }
        } else {
            const long cores = sysconf(_SC_NPROCESSORS_ONLN);
            o.jobs = mpi_launched() ? 1 : cores > 0 ? (int)cores : 1;
        }
    }
    kd_error err;
    kd_error_clear(&err);
    kd_desc* d = NULL;
    if (kd_load_yaml_file(model, &d, &err)) return cli_report_error(&err);
    if (force) d->force = 1;
    /* --formalism: every dynamics analysis takes that route (kedyn/formalism.h for elastic
     * bodies, kedyn/mech_formalism.h for mechanisms) */
    if (formalism_name) {
        kd_formalism f;
        const int mf = kd_mech_formalism_parse(formalism_name);
        const int mech = kd_desc_is_mechanism(d);
        if (mech ? mf < 0 : kd_formalism_parse(formalism_name, &f) != 0) {
            fprintf(stderr, "kedyn: --formalism %s: %s\n", formalism_name,
                    mech ? "a mechanism takes newton-euler, maggi, kane, gibbs-appell or lagrange"
                         : "newton-euler and maggi are formalisms of mechanisms (rigid bodies and joints)");
            kd_desc_free(&d);
            return EXIT_USAGE;
        }
        for (int k = 0; k < d->nanalyses; k++) {
            if (d->analyses[k].type != KD_ANALYSIS_DYNAMICS) continue;
            if (mech) d->analyses[k].dynamics.formalism = kd_dynamics_formalism_parse(formalism_name);
            else kd_analysis_use_formalism(&d->analyses[k], f);
        }
    }
    char defdir[1024];
    if (!outdir) {
        cli_default_outdir(model, defdir, (int)sizeof(defdir));
        outdir = defdir;
    }
    const int code = mpi_launched() ? run_mpi(d, model, outdir, &o) : cli_run_desc_with(d, model, outdir, &o, NULL);
    kd_desc_free(&d);
    return code;
}
