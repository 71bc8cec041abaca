/* Benchmark of the two-way coupled floating-frame model (docs/performance.md):
 *   bench_ffr MODEL.yaml [FORM] [RUNS]
 * loads the model (examples/slider_crank_flexible.yaml: one crank revolution), builds the coupled
 * system of its first dynamics analysis (kd_ffr_from_mechanism) and integrates it with the
 * analysis' dt and the formulation FORM (default: the analysis'), RUNS times (default 5); prints
 * the best wall time of the integration alone and of the whole (rigid start, system build,
 * quasi-static start as in the runner, integration), steps, evaluations, the largest drift and the
 * links' largest transverse nodal displacement.
 * Prints: form n nc steps evaluations integrate_s total_s drift max_v peak_rss_kib. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "kedyn/ffr.h"
#include "kedyn/integrate.h"
#include "kedyn/ked.h"
#include "kedyn/load_yaml.h"
#include "kedyn/mbs.h"
#include "blas_threads.h"
#include "core/util.h"

typedef struct sink {
    const kd_ffr_system* s;
    double vmax;
} sink;

/* the largest transverse nodal displacement of any elastic body */
static int on_sample(void* ctx, const kd_mbs_sample* smp) {
    sink* k = ctx;
    for (int b = 0; b < kd_ffr_body_count(k->s); b++)
        for (int n = 0; n < kd_ffr_body_nodes(k->s, b); n++) {
            const int i = kd_ffr_node_coordinate(k->s, b, n, KD_DOF_V);
            if (i >= 0) k->vmax = fmax(k->vmax, fabs(smp->q[i]));
        }
    return 0;
}

int main(int argc, char** argv) {
    app_blas_threads_default();  /* one BLAS thread unless OPENBLAS_NUM_THREADS is set */
    if (argc < 2) {
        fprintf(stderr, "usage: bench_ffr MODEL.yaml [FORM] [RUNS]\n");
        return 2;
    }
    kd_desc* d = NULL;
    kd_error err;
    if (kd_load_yaml_file(argv[1], &d, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    const kd_analysis_desc* ad = NULL;
    for (int i = 0; i < d->nanalyses; i++)
        if (d->analyses[i].type == KD_ANALYSIS_DYNAMICS) ad = &d->analyses[i];
    if (!ad) {
        fprintf(stderr, "no dynamics analysis\n");
        return 1;
    }
    kd_mbs_opts o;
    kd_mbs_opts_from_dynamics(&o, &ad->dynamics, ad->dynamics.t_end);
    if (argc > 2 && kd_mbs_formulation_parse(argv[2]) >= 0) o.formulation = (kd_mbs_formulation)kd_mbs_formulation_parse(argv[2]);
    o.dt = ad->dynamics.dt;
    const int runs = argc > 3 ? atoi(argv[3]) : 5;
    double best_int = INFINITY, best_total = INFINITY;
    kd_mbs_stats ms;
    sink k = {0};
    int n = 0, nc = 0;
    for (int r = 0; r < runs; r++) {
        const double t0 = util_now_s();
        kd_ked_opts ko = {fmax(1e-3 * ad->dynamics.t_end, 2 * ad->dynamics.dt), 1, 0.0, KD_COND_MAX_DEFAULT};
        kd_ked* ked = NULL;
        kd_ffr_system* s = NULL;
        double *q0 = NULL, *qd0 = NULL;
        kd_analysis_desc qs = *ad;
        qs.dynamics.integrator = KD_INTEGRATOR_GENERALIZED_ALPHA;
        if (kd_ked_new(d, &ko, &ked, &err) || kd_ffr_from_mechanism(d, ked, &s, &q0, &qd0, &err) ||
            kd_ffr_quasi_static_start(ked, &qs, s, q0, &err) || kd_ffr_assemble(s, 0.0, q0, qd0, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        k.s = s, k.vmax = 0;
        n = kd_ffr_size(s), nc = kd_ffr_cms(s)->nc;
        const double t1 = util_now_s();
        if (kd_mbs_forward(kd_ffr_cms(s), &o, q0, qd0, on_sample, &k, &ms, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return 3;
        }
        const double t2 = util_now_s();
        best_int = fmin(best_int, t2 - t1);
        best_total = fmin(best_total, t2 - t0);
        free(q0), free(qd0);
        kd_ffr_free(&s);
        kd_ked_free(&ked);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%s %d %d %ld %ld %.4f %.4f %.2e %.4e %ld\n", kd_mbs_formulation_name(o.formulation), n, nc, ms.steps,
           ms.evaluations, best_int, best_total, ms.max_drift_pos, k.vmax, ru.ru_maxrss);
    kd_desc_free(&d);
    return 0;
}
