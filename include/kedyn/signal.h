/* kedyn: signal processing and experimental modal analysis of measured records.
 *
 * Layer src/signal (between numerics and fe; knows nothing of models): windows and their
 * corrections, detrending, real FFTs (FFTW), Welch spectra (PSD and amplitude), peak
 * interpolation, spectrograms (waterfalls against speed), order tracking, frequency response
 * functions H1/H2 with coherence, peak picking with half-power damping, the least-squares
 * complex-frequency method (LSCF) with a stabilisation diagram and a least-squares
 * frequency-domain (LSFD) fit of mode shapes, and the modal assurance criterion (MAC) with
 * pairing. Theory: docs/theory.md, "Signal processing and modal identification".
 *
 * Conventions
 * - Units: time in s, sample rates fs in Hz (samples/s), frequencies in Hz, angles in rad,
 *   damping as a ratio of critical (zeta). A record's own unit is written "u" below: a PSD is
 *   in u^2/Hz (one-sided), an amplitude spectrum in u (peak amplitude of a sine), an FRF in
 *   u_out/u_in.
 * - Complex arrays are interleaved (re, im) doubles: a complex array of m values is 2 m
 *   doubles. Multi-channel arrays are row-major by channel: channel c, line k at
 *   [(c nf + k)] (real) or [2 (c nf + k)] (complex).
 * - Lengths of records are long (a record may exceed 2^31 samples); lengths of transforms,
 *   segments and spectra are int.
 * - Ownership: kd_x_new allocates an opaque object, kd_x_free(kd_x**) releases it (NULL
 *   allowed) and clears the caller's pointer. Result structs (kd_spectrogram, kd_order_spectrum,
 *   kd_frf, kd_modal_fit) are filled by the function that computes them, which allocates their
 *   arrays; kd_x_free(kd_x*) releases the arrays and zeroes the struct. Every other output
 *   array is allocated by the caller with the size stated.
 * - Status (kedyn/status.h): KD_OK; KD_ERR_USAGE for invalid arguments (sizes, options out of
 *   range, a record shorter than one segment), with a message in err when err is not NULL;
 *   KD_ERR_NUMERIC when a factorisation or an eigenvalue solve fails; KD_ERR_NOMEM.
 *   On failure result structs are left empty (zeroed, nothing to free).
 * - Threads: every function is re-entrant. FFTW's planner is not thread-safe; kd_fft_new and
 *   kd_fft_free serialise it with a mutex, and the transforms themselves run concurrently.
 *   Nothing allocates per segment: work buffers are made once by kd_*_new or once per call.
 */
#ifndef KEDYN_SIGNAL_H
#define KEDYN_SIGNAL_H

#include "kedyn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- windows (windows.c) */

typedef enum kd_window_type {
    KD_WINDOW_RECT = 0,     /* rectangular (boxcar): w = 1 */
    KD_WINDOW_HANN,         /* periodic Hann: w_k = 0.5 (1 - cos(2 pi k / n)) */
    KD_WINDOW_FLATTOP,      /* periodic 5-term flat-top (SRS / HFT, ISO 18431-1 coefficients) */
    KD_WINDOW_EXPONENTIAL,  /* w_k = exp(-sigma k / fs): decays to `param` at the last sample */
    KD_WINDOW_FORCE         /* force window of a hammer: 1 on the first `param` of the block, 0 after */
} kd_window_type;

/* A window: its type and one parameter.
 * - KD_WINDOW_EXPONENTIAL: param = the window's value at the last sample, 0 < param <= 1
 *   (<= 0 takes the default 0.01). Its decay rate is sigma = -ln(param) fs / (n - 1) (1/s).
 * - KD_WINDOW_FORCE: param = the fraction of the block kept, 0 < param <= 1 (<= 0: 0.1).
 * - other types: param unused. */
typedef struct kd_window {
    kd_window_type type;
    double param;
} kd_window;

/* Corrections of a window of n samples (docs/theory.md, "Windows and corrections"). */
typedef struct kd_window_corr {
    double coherent_gain;    /* sum(w) / n: the amplitude of a sine on a line is scaled by it */
    double power_gain;       /* sum(w^2) / n: the power of broadband noise is scaled by it */
    double amplitude_factor; /* 1 / coherent_gain: multiplies |X_k| (2 / n) into a sine's amplitude */
    double enbw_bins;        /* equivalent noise bandwidth in lines: n sum(w^2) / sum(w)^2 */
} kd_window_corr;

/* Fill w[n] (caller-allocated) with the window (the exponential one as exp(-sigma k / fs) with
 * the sigma of kd_window_sigma at any fs). KD_ERR_USAGE on n < 2 or a parameter out of range. */
kd_status kd_window_fill(kd_window win, int n, double* w, kd_error* err);

/* The corrections of w[n] (any window, also one built by hand). */
void kd_window_corrections(const double* w, int n, kd_window_corr* c);

/* The decay rate sigma (1/s) an exponential window of n samples at fs adds to every pole;
 * 0 for every other type. */
double kd_window_sigma(kd_window win, int n, double fs);

/* The damping ratio of a mode identified from records windowed by an exponential window of
 * decay rate sigma (1/s): zeta_true = zeta_measured - sigma / omega, omega = 2 pi f_hz
 * (docs/theory.md, "Windows and corrections"). */
double kd_window_damping_correction(double zeta_measured, double f_hz, double sigma);

/* Model-file names of the window types: "rect", "hann", "flattop", "exponential", "force".
 * kd_window_type_from_name returns KD_ERR_USAGE on an unknown name. */
const char* kd_window_name(kd_window_type t);
kd_status kd_window_type_from_name(const char* name, kd_window_type* t);

/* ---------------------------------------------------------------- detrending (windows.c) */

typedef enum kd_detrend {
    KD_DETREND_NONE = 0,
    KD_DETREND_MEAN,     /* subtract the mean */
    KD_DETREND_LINEAR    /* subtract the least-squares straight line */
} kd_detrend;

/* Detrend x[n] in place (n >= 1; linear needs n >= 2, else falls back to the mean). */
void kd_detrend_apply(double* x, long n, kd_detrend d);

/* ---------------------------------------------------------------- FFT (fft.c) */

/* A real-to-complex FFT plan of size n (any n >= 1; fastest for products of small primes).
 * The plan is made once (FFTW_ESTIMATE, unaligned arrays allowed) under a mutex. */
typedef struct kd_fft kd_fft;

kd_status kd_fft_new(kd_fft** out, int n);
void kd_fft_free(kd_fft** p);
int kd_fft_size(const kd_fft* f);

/* X_k = sum_j x_j exp(-2 pi i j k / n), k = 0 .. n/2: x[n] real (not modified), X[2 (n/2 + 1)]
 * interleaved, caller-allocated. Thread-safe for distinct X. */
void kd_fft_forward(const kd_fft* f, const double* x, double* X);

/* ---------------------------------------------------------------- Welch spectra (welch.c) */

typedef struct kd_welch_opts {
    int segment;        /* samples per segment, >= 4 */
    double overlap;     /* fraction of a segment shared by successive segments, 0 <= overlap < 1 */
    kd_window window;   /* applied to each segment */
    kd_detrend detrend; /* applied to each segment before the window */
} kd_welch_opts;

/* A Welch estimator for one segment length, window and sample rate: plan, window and buffers
 * made once, then applied to any number of records (channels). Not to be shared between
 * threads (one per thread). */
typedef struct kd_welch kd_welch;

kd_status kd_welch_new(kd_welch** out, const kd_welch_opts* o, double fs, kd_error* err);
void kd_welch_free(kd_welch** p);
int kd_welch_lines(const kd_welch* w);      /* nf = segment / 2 + 1; line k at k df */
double kd_welch_df(const kd_welch* w);      /* df = fs / segment (Hz) */
long kd_welch_segments(const kd_welch* w, long n); /* segments in a record of n samples (0 if n < segment) */

/* Averaged spectra of x[n] over its segments (step = segment - round(overlap segment), the last
 * partial segment dropped): psd[nf] one-sided PSD (u^2/Hz; the integral sum(psd) df equals the
 * mean square of the detrended record up to the window's leakage), amplitude[nf] the peak
 * amplitude of a sine on line k (u, window-corrected: sqrt of the mean of |X_k|^2, times
 * 2 / sum(w); 1 / sum(w) at DC and Nyquist). Either output may be NULL. KD_ERR_USAGE when
 * n < segment. */
kd_status kd_welch_spectrum(kd_welch* w, const double* x, long n, double* psd, double* amplitude,
                            kd_error* err);

/* A peak on line k (0 < k < nf - 1) of an amplitude spectrum amp[nf] (lines df apart, made with
 * window `win`) located between lines: rectangular, Hann and flat-top by the ratio of the
 * larger neighbour to line k inverted through the window's kernel (exact for one sine far from
 * others), other windows by a parabola through the log magnitudes of lines k-1, k, k+1. Gives
 * the frequency (Hz) and the amplitude corrected for the scalloping loss. KD_ERR_USAGE on k out
 * of range or amp[k] <= 0. */
kd_status kd_spectrum_peak(const double* amp, int nf, double df, int k, kd_window win,
                           double* f_hz, double* amplitude);

/* ---------------------------------------------------------------- spectrogram (spectrogram.c) */

/* Spectra of successive blocks (one segment each) for waterfalls. */
typedef struct kd_spectrogram {
    int nblocks;        /* blocks (segments) */
    int nf;             /* lines per block, segment / 2 + 1 */
    double df;          /* Hz */
    double* t;          /* [nblocks] time of each block's centre, s (first sample at t = 0) */
    double* speed;      /* [nblocks] mean of the speed signal over the block, NULL when none */
    double* amplitude;  /* [nblocks x nf] window-corrected amplitude, row-major by block */
} kd_spectrogram;

/* Blocks of x[n] by the Welch options (segment, overlap, window, detrend; no averaging).
 * speed[n] may be NULL (any unit, e.g. rpm). */
kd_status kd_spectrogram_compute(const double* x, const double* speed, long n, double fs,
                                 const kd_welch_opts* o, kd_spectrogram* out, kd_error* err);
void kd_spectrogram_free(kd_spectrogram* s);

/* ---------------------------------------------------------------- order tracking (order.c) */

typedef struct kd_order_opts {
    int samples_per_rev;   /* angular samples per revolution, >= 4; orders up to samples_per_rev / 2 */
    int revs_per_segment;  /* revolutions per segment, >= 1: order resolution 1 / revs_per_segment */
    double overlap;        /* 0 <= overlap < 1 */
    kd_window window;
    kd_detrend detrend;
} kd_order_opts;

typedef struct kd_order_spectrum {
    int nf;             /* order lines, samples_per_rev revs_per_segment / 2 + 1 */
    double dorder;      /* 1 / revs_per_segment */
    int nseg;           /* segments averaged */
    long nresampled;    /* samples at constant angle */
    double* order;      /* [nf] orders (cycles per revolution) */
    double* amplitude;  /* [nf] window-corrected amplitude (u) */
    double* psd;        /* [nf] one-sided PSD (u^2 per order) */
} kd_order_spectrum;

/* Order spectrum of x[n] sampled at fs against the shaft angle angle[n] (rad, strictly
 * increasing, e.g. from kd_angle_from_speed): x is resampled at constant angle increments
 * 2 pi / samples_per_rev (angle inverted linearly between samples, x by cubic Lagrange
 * interpolation in time), then averaged by Welch with the angular sample rate
 * (docs/theory.md, "Order tracking"). The record must be band-limited below the lowest speed's
 * samples_per_rev / 2 order (no anti-aliasing filter is applied). */
kd_status kd_order_track(const double* x, const double* angle, long n, double fs,
                         const kd_order_opts* o, kd_order_spectrum* out, kd_error* err);
void kd_order_spectrum_free(kd_order_spectrum* s);

/* angle[n] (rad, angle[0] = 0) from a speed record speed[n] at fs by the trapezoidal rule;
 * `per_rev` scales the speed to revolutions per second (1/60 for rpm, 1/(2 pi) for rad/s). */
void kd_angle_from_speed(const double* speed, long n, double fs, double per_rev, double* angle);

/* ---------------------------------------------------------------- FRF (frf.c) */

typedef struct kd_frf_opts {
    int segment;            /* samples per block; 0 = the whole record (one block per hit) */
    double overlap;         /* between blocks of one record, 0 <= overlap < 1 */
    kd_window input_window; /* on the force: KD_WINDOW_RECT or KD_WINDOW_FORCE (or any) */
    kd_window output_window;/* on the responses: KD_WINDOW_RECT, HANN, EXPONENTIAL... */
    kd_detrend detrend;     /* on every block before windowing */
} kd_frf_opts;

/* An exponential output window also multiplies the input (on top of its own window), so that
 * the estimated FRF is the system's with every pole's decay increased by `sigma`: identified
 * damping ratios are corrected by kd_window_damping_correction(zeta, f, sigma). */
typedef struct kd_frf {
    int nf;             /* lines, block / 2 + 1 */
    int nout;           /* response channels */
    int navg;           /* blocks averaged (hits x blocks per hit) */
    double df;          /* Hz */
    double sigma;       /* decay rate added by an exponential window (1/s), 0 without */
    double* f;          /* [nf] Hz */
    double* h1;         /* [nout x nf] complex: H1 = G_fx / G_ff (u_out / u_in) */
    double* h2;         /* [nout x nf] complex: H2 = G_xx / G_xf */
    double* coherence;  /* [nout x nf] |G_fx|^2 / (G_ff G_xx), in [0, 1] */
    double* g_ff;       /* [nf] averaged input auto-spectrum (u_in^2/Hz, one-sided) */
} kd_frf;

/* FRFs from nhits hits: force[h][n] the input of hit h, response[h nout + j][n] response j of
 * hit h (all records n samples at fs). The cross-spectra are averaged over every block of
 * every hit (docs/theory.md, "FRF estimators"). */
kd_status kd_frf_estimate(const double* const* force, const double* const* response, int nhits,
                          int nout, long n, double fs, const kd_frf_opts* o, kd_frf* out,
                          kd_error* err);
void kd_frf_free(kd_frf* r);

/* Magnitude in dB (20 log10 |H|; -400 for H = 0) and phase in degrees (-180, 180] of h[nf]
 * (complex); mag_db[nf] and phase_deg[nf] caller-allocated, either may be NULL. */
void kd_frf_db_phase(const double* h, int nf, double* mag_db, double* phase_deg);

/* ---------------------------------------------------------------- peak picking (peaks.c) */

typedef struct kd_peak {
    int line;             /* line of the local maximum */
    double f_hz;          /* interpolated (parabola through log magnitudes) */
    double magnitude;     /* interpolated peak magnitude */
    double damping_ratio; /* half-power: (f2 - f1) / (2 f), f1, f2 where |H| = peak / sqrt(2),
                             interpolated linearly in between lines; NaN when a side leaves the
                             band before falling to half power */
} kd_peak;

/* Local maxima of mag[nf] (linear magnitude, e.g. |H| or a sum of |H| over channels; f[nf] Hz
 * ascending) in [fmin, fmax] (fmax <= 0: to the last line) that are at least `threshold` times
 * the largest one in the band (0 <= threshold < 1) and stand out by a factor 1.2 over the lowest
 * point between them and the next higher point (or the band's edge) on each side. At most
 * max_peaks, the largest kept, returned ascending in frequency in peaks[max_peaks]
 * (caller-allocated); *npeaks set. */
kd_status kd_peak_pick(const double* f, const double* mag, int nf, double fmin, double fmax,
                       double threshold, kd_peak* peaks, int max_peaks, int* npeaks,
                       kd_error* err);

/* ---------------------------------------------------------------- identification (lscf.c, lsfd.c) */

typedef enum kd_frf_quantity {
    KD_FRF_DISPLACEMENT = 0,  /* receptance (u_disp / force) */
    KD_FRF_VELOCITY = 1,      /* mobility: (i omega) x receptance */
    KD_FRF_ACCELERATION = 2   /* accelerance: -(omega^2) x receptance */
} kd_frf_quantity;

typedef struct kd_lscf_opts {
    double fmin, fmax;   /* band (Hz); fmax <= 0: up to the last line */
    int order_min;       /* lowest model order (denominator degree) of the diagram, >= 2 (<= 0: 2) */
    int order_max;       /* highest, order_min <= order_max <= 200 */
    double tol_freq;     /* stable in frequency: |f - f_prev| <= tol_freq f (<= 0: 0.01) */
    double tol_damp;     /* stable in damping: |zeta - zeta_prev| <= tol_damp zeta (<= 0: 0.05) */
    double tol_mac;      /* stable in shape: 1 - MAC(residues, previous) <= tol_mac (<= 0: 0.02) */
    double zeta_max;     /* poles with zeta <= 0 or > zeta_max are not physical (<= 0: 0.2) */
    int min_stable;      /* a mode is selected where poles stable in frequency, damping and
                            shape (sorted by frequency, successive ones within tol_freq) come
                            from >= min_stable orders (<= 0: 5) and from >= 1/4 of the orders
                            of the most populated such cluster (true modes persist over most
                            orders, noise poles settle briefly); its frequency and damping are
                            the medians of those poles */
    kd_frf_quantity quantity; /* what the FRFs are: residues are fitted for the receptance */
} kd_lscf_opts;

/* Stability flags of a pole against the poles of the previous order. */
enum {
    KD_STAB_FREQ = 1,    /* a pole of the previous order within tol_freq */
    KD_STAB_DAMP = 2,    /* and its damping within tol_damp */
    KD_STAB_SHAPE = 4    /* and its residue vector within tol_mac */
};

/* One physical pole of the stabilisation diagram. */
typedef struct kd_stab_pole {
    int order;       /* model order it was found at */
    double f_hz;     /* |lambda| / (2 pi) */
    double zeta;     /* -Re(lambda) / |lambda| */
    int flags;       /* KD_STAB_* */
} kd_stab_pole;

/* Identified modes and the stabilisation diagram. */
typedef struct kd_modal_fit {
    int nmodes;
    int nchan;
    double* f_hz;      /* [nmodes] undamped natural frequencies |lambda| / (2 pi), ascending */
    double* zeta;      /* [nmodes] damping ratios */
    double* shape;     /* [nmodes x nchan] complex residues of the receptance at the channels
                          (mode r at [2 (r nchan + c)]); the mode shape up to a factor */
    int npoles;
    kd_stab_pole* poles; /* [npoles] every physical pole of every order, by order then frequency */
} kd_modal_fit;

/* LSCF (common-denominator, z-domain, docs/theory.md "LSCF") on the FRFs frf[nchan x nf]
 * (complex) at f[nf] (Hz, ascending, any spacing): poles for every order of the diagram with
 * their stability flags, modes selected from the stable poles, shapes from kd_lsfd. Damping
 * is as measured: correct an exponential window's with kd_window_damping_correction. FRFs of
 * several references (hits at several points) may be passed together as channels: the poles
 * are common, and each reference's block of shape components is that reference's column of
 * residues. Narrow bands far from 0 work as well (95-112 Hz in docs/validation.md): the
 * numerator is eliminated through a QR of its basis, not the ill-conditioned normal equations. */
kd_status kd_lscf(const double* f, const double* frf, int nf, int nchan, const kd_lscf_opts* o,
                  kd_modal_fit* out, kd_error* err);
void kd_modal_fit_free(kd_modal_fit* m);

/* LSFD: the complex residues of nmodes given poles (pole_f[nmodes] Hz, pole_zeta[nmodes]) in
 * the FRFs frf[nchan x nf] over [fmin, fmax] (fmax <= 0: all lines), with a lower residual
 * (1/(i omega)^2) and an upper residual (constant) per channel, by linear least squares
 * (LAPACK dgels). shape[nmodes x nchan] complex, caller-allocated, as kd_modal_fit.shape.
 * KD_ERR_USAGE on a pole with f <= 0 or zeta outside [0, 1) (e.g. a peak's NaN half-power
 * damping: give an estimate instead) or fewer lines than 2 nmodes + 2. */
kd_status kd_lsfd(const double* f, const double* frf, int nf, int nchan, double fmin, double fmax,
                  kd_frf_quantity quantity, const double* pole_f, const double* pole_zeta,
                  int nmodes, double* shape, kd_error* err);

/* A real mode shape from a complex one v[n]: rotated so that its largest component is real and
 * positive, then the real part, scaled to a largest absolute component of 1. real[n]. */
void kd_shape_realize(const double* v, int n, double* real);

/* ---------------------------------------------------------------- MAC (mac.c) */

/* MAC(a, b) = |a^H b|^2 / ((a^H a)(b^H b)) in [0, 1] of two vectors of n components, each
 * real (a_complex = 0: n doubles) or complex (n interleaved pairs). 0 if either is zero. */
double kd_mac(const double* a, int a_complex, const double* b, int b_complex, int n);

/* mac[na x nb] (row-major, caller-allocated) between the na vectors of A (contiguous, n
 * components each) and the nb vectors of B. */
kd_status kd_mac_matrix(const double* A, int a_complex, int na, const double* B, int b_complex,
                        int nb, int n, double* mac);

/* Pairing of rows (e.g. measured modes) with columns (computed modes) of mac[na x nb] that
 * maximises the sum of the MACs of the pairs (Hungarian method); pairs below min_mac are
 * dropped. pair[na] (caller-allocated): the column of row i or -1. */
kd_status kd_mac_pair(const double* mac, int na, int nb, double min_mac, int* pair, kd_error* err);

#ifdef __cplusplus
}
#endif
#endif
