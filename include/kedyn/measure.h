/* kedyn: a model against measurements: sensors on a compiled model, a virtual impact test,
 * and the results of the record analyses (spectrum, frf, identify, correlate, virtual_test)
 * that a run keeps for the analyses after them (docs/model-format.md, "Records").
 *
 *   kd_sensors_place     where each sensor reads a vector of the reduced equations: the
 *                        translation DOFs of its node weighted by its direction (body frame);
 *   kd_virtual_test_run  an impact test simulated with the model's own dynamics (kd_dynamics_run,
 *                        Newmark average acceleration): a half-sine force pulse at a node, the
 *                        sensors' accelerations sampled at a rate, Gaussian noise from a seeded
 *                        generator, several hits one after the other (theory.md, "Virtual
 *                        impact test").
 */
#ifndef KEDYN_MEASURE_H
#define KEDYN_MEASURE_H

#include "kedyn/desc.h"
#include "kedyn/model.h"
#include "kedyn/record.h"
#include "kedyn/run.h"
#include "kedyn/signal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sensor k reads x as sum_j w[3k + j] x[eq[3k + j]] (eq -1: a fixed DOF, no term). */
typedef struct kd_sensor_place {
    int n;
    int* eq;                      /* (n x 3) */
    double* w;                    /* (n x 3) */
    int* node;                    /* (n) global node index of the model */
} kd_sensor_place;

/* Place sensors[0..n-1] (indices into d->sensors) on m (d compiled). KD_ERR_INPUT, located at
 * the sensor, when its direction has a component along a translation its node does not have
 * (e.g. z on a planar beam). */
kd_status kd_sensors_place(const kd_desc* d, const kd_model* m, const int* sensors, int n, kd_sensor_place* out,
                           kd_error* err);
void kd_sensor_place_free(kd_sensor_place* p);
/* y[k] = sensor k's reading of x (neq values). */
void kd_sensors_read(const kd_sensor_place* p, const double* x, double* y);

/* Gaussian numbers from a seeded generator (xoshiro256** seeded by splitmix64; polar
 * Box-Muller): the same seed gives the same sequence on every machine. */
typedef struct kd_gauss_rng {
    unsigned long long s[4];
    double spare;
    int has_spare;
} kd_gauss_rng;
void kd_gauss_seed(kd_gauss_rng* g, unsigned long long seed);
double kd_gauss_next(kd_gauss_rng* g);

/* Progress of a long computation: fraction done in [0, 1]; nonzero return stops it. */
typedef int (*kd_measure_progress)(void* ctx, double fraction);

/* The virtual test vt of description d: a record of hits x N samples (N = round(length rate)),
 * channel "force" (N) then one per sensor (m/s^2), hits one after the other; the nodes of the
 * hit and of the sensors (labels: global node index + 1, global coordinates). The model's own
 * loads are left out (the hammer's response alone; the system is linear). Returns
 * KD_ERR_NUMERIC when the integration fails. */
kd_status kd_virtual_test_run(const kd_desc* d, const kd_virtual_test_desc* vt, kd_measure_progress progress,
                              void* ctx, kd_record** out, kd_error* err);

/* What a record analysis leaves in its report (kedyn/run.h, kd_analysis_report.measure). */
typedef struct kd_measure_result {
    kd_record* record;            /* virtual_test: the record made (owned) */
    char record_name[KD_NAME_MAX];
    /* spectrum */
    int ncolumns, nf, segments;
    double df;
    double peak_hz[KD_COLUMNS_MAX], peak_amplitude[KD_COLUMNS_MAX];
    int npeaks;                   /* the peaks of the summed amplitude spectra (kd_peak_pick,
                                     above 5 % of the largest), ascending */
    double peaks_hz[KD_COLUMNS_MAX];
    /* spectrum with orders: the order spectrum's lines, resolution and segments averaged */
    int order_lines, order_segments;
    double dorder;
    /* correlate with modes_along_motion: each peak's nearest computed frequency range */
    char peak_mode[KD_COLUMNS_MAX][KD_NAME_MAX + 16];  /* "LINK.f_K" */
    double peak_fmin[KD_COLUMNS_MAX], peak_fmax[KD_COLUMNS_MAX];
    /* frf */
    kd_frf frf;
    int nresp;
    char resp[KD_COLUMNS_MAX][KD_NAME_MAX];  /* the responses (spectrum: its columns) */
    int sensor[KD_COLUMNS_MAX];   /* the sensor of each response, -1: none */
    /* identify */
    kd_modal_fit fit;             /* damping corrected for an exponential window */
    /* correlate */
    int nm, nc;                   /* measured and computed modes */
    double* mac;                  /* (nm x nc) */
    int npairs;
    int pair_m[KD_COLUMNS_MAX * 2], pair_c[KD_COLUMNS_MAX * 2];  /* 0-based */
    double pair_mac[KD_COLUMNS_MAX * 2], pair_f_m[KD_COLUMNS_MAX * 2], pair_f_c[KD_COLUMNS_MAX * 2];
} kd_measure_result;

void kd_measure_result_free(kd_measure_result** r);

/* `kedyn analyze`: the analyses of one record without a model (src/run/run_measure.c). The record
 * is read as kd_record_read (time column or rate for CSV); the spectrum (when do_spectrum), the
 * FRFs (do_frf) and the identification from them (do_identify) run as the model-file analyses of
 * those types (their `record` fields are ignored) and write their files and OUTDIR/summary.json
 * ("record", "complete", "analyses" as a run's). */
typedef struct kd_analyze_opts {
    const char* record;           /* the file */
    const char* time;             /* CSV: the time column, or NULL with rate */
    double rate;
    int do_spectrum, do_frf, do_identify;
    kd_spectrum_desc spectrum;
    kd_frf_desc frf;
    kd_identify_desc identify;
} kd_analyze_opts;

/* Fill o with the defaults of the three analyses' key tables (nothing selected). */
void kd_analyze_opts_init(kd_analyze_opts* o);
kd_status kd_analyze_record(const kd_analyze_opts* o, const char* outdir, const kd_run_options* ro, kd_run_report* rep,
                            kd_error* err);

#ifdef __cplusplus
}
#endif
#endif
