/* Benchmark of one-way kineto-elastodynamics (docs/performance.md, "Elastic
 * links"):
 *   bench_ked MODEL.yaml [SPEED]   the rigid solution and the link build
 *                                  (kd_ked_new), then the natural frequencies
 *                                  of every link along the motion, over the
 *                                  first modes_along_motion analysis of the
 *                                  model (its steps, count, speed; SPEED
 *                                  overrides the speed, rad/s)
 * Prints: links samples rigid_route setup_s modes_s total_s omega1_min omega1_max
 * gyroscopic_instants dense_state_space_instants; best of 5. GYRO=false or
 * GYRO=dense in the environment overrides the analysis's gyroscopic route. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/ked.h"
#include "kedyn/load_yaml.h"
#include "blas_threads.h"
#include "core/util.h"

int main(int argc, char** argv) {
    app_blas_threads_default();  /* one BLAS thread unless OPENBLAS_NUM_THREADS is set */
    if (argc < 2) {
        fprintf(stderr, "usage: bench_ked MODEL.yaml [SPEED]\n");
        return 2;
    }
    kd_desc* d = NULL;
    kd_error err;
    if (kd_load_yaml_file(argv[1], &d, &err)) {
        fprintf(stderr, "%s:%d:%d: %s\n", err.file, err.loc.line, err.loc.col, err.msg);
        return 1;
    }
    kd_modes_along_motion_desc ma, *ad = NULL;
    for (int i = 0; i < d->nanalyses && !ad; i++)
        if (d->analyses[i].type == KD_ANALYSIS_MODES_ALONG_MOTION) ma = d->analyses[i].modes_along_motion, ad = &ma;
    if (ad) kd_modes_along_motion_resolve(ad);  /* the defaults of what is unset */
    if (!ad) {
        fprintf(stderr, "%s: no modes_along_motion analysis\n", argv[1]);
        return 1;
    }
    /* GYRO=false or dense: the route of the gyroscopic terms (docs/model-format.md) */
    const char* ge = getenv("GYRO");
    const int gyro_route = ge && !strcmp(ge, "false") ? 1 : (ge && !strcmp(ge, "dense") ? 2 : ad->gyroscopic - KD_GYROSCOPIC_TRUE);
    kd_ked_opts o = {ad->t_end, ad->steps, argc > 2 ? atof(argv[2]) : ad->speed, ad->cond_max};
    if (argc > 2) o.t_end = 2 * 3.14159265358979323846 / o.speed;
    double best_setup = INFINITY, best_modes = INFINITY, best_total = INFINITY, wmin = INFINITY, wmax = 0;
    int links = 0, samples = 0, forward = 0, ss = 0, dense_ss = 0;
    for (int rep = 0; rep < 5; rep++) {
        const double t0 = util_now_s();
        kd_ked* k = NULL;
        if (kd_ked_new(d, &o, &k, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return 3;
        }
        const double t1 = util_now_s();
        for (int l = 0; l < k->nlinks; l++) {
            kd_ked_modes m;
            static const int route[3] = {KD_KED_GYRO_REFINE, KD_KED_GYRO_OFF, KD_KED_GYRO_DENSE};
            if (kd_ked_modes_along_motion_opt(k, l, ad->count, route[gyro_route], &m, &err)) {
                fprintf(stderr, "%s\n", err.msg);
                return 3;
            }
            if (l == 0) ss = m.state_space, dense_ss = m.dense_instants;
            for (int i = 0; l == 0 && i < m.nsamples; i++) wmin = fmin(wmin, m.omega[i * m.count]), wmax = fmax(wmax, m.omega[i * m.count]);
            kd_ked_modes_free(&m);
        }
        const double t2 = util_now_s();
        best_setup = fmin(best_setup, t1 - t0), best_modes = fmin(best_modes, t2 - t1), best_total = fmin(best_total, t2 - t0);
        links = k->nlinks, samples = k->rigid.nsamples, forward = k->rigid.forward;
        kd_ked_free(&k);
    }
    printf("%d %d %s %.4f %.4f %.4f %.3f %.3f %d %d\n", links, samples, forward ? "forward" : "kinematics", best_setup,
           best_modes, best_total, wmin, wmax, ss, dense_ss);
    kd_desc_free(&d);
    return 0;
}
