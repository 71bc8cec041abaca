/* kedyn: measured records (time histories, frequency response functions, test geometry
 * and mode shapes) as read from CSV files and Universal Files, or made by a virtual test.
 *
 * A record is a set of channels. Each channel is one function of an evenly (or, in a
 * Universal File, unevenly) spaced abscissa: a time history (s) or a function of frequency
 * (Hz, e.g. an FRF), real or complex, with its unit and, when known, the node and direction
 * of the transducer (Universal File dataset 58 conventions: direction 1, 2, 3 = +X, +Y, +Z
 * translation, 4, 5, 6 = rotations, negative = the opposite sense, 0 = scalar/unknown).
 * A Universal File may also give node coordinates (datasets 15, 2411) and mode shapes
 * (dataset 55).
 *
 * Readers: src/load/record_csv.c, src/load/uff_read.c (kd_record_read_*); writers:
 * src/output/record_write.c, src/output/uff_write.c (kd_record_write_csv, kd_uff_write).
 *
 * Ownership: a kd_record owns all its arrays; free it with kd_record_free().
 */
#ifndef KEDYN_RECORD_H
#define KEDYN_RECORD_H

#include <stddef.h>

#include "kedyn/desc.h"
#include "kedyn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KD_RECORD_UNIT_MAX 32

/* The Universal File dataset 58 function types kedyn writes and recognises (others are
 * kept as their number). */
enum {
    KD_FUNCTION_UNKNOWN = 0,
    KD_FUNCTION_TIME = 1,          /* time response */
    KD_FUNCTION_AUTO_SPECTRUM = 2,
    KD_FUNCTION_CROSS_SPECTRUM = 3,
    KD_FUNCTION_FRF = 4,           /* frequency response function */
    KD_FUNCTION_COHERENCE = 6,
    KD_FUNCTION_PSD = 9
};

typedef struct kd_channel {
    char name[KD_NAME_MAX];        /* CSV: the column header; UFF: ID line 1 (or "NODE:DIR") */
    char unit[KD_RECORD_UNIT_MAX]; /* ordinate unit ("m/s^2", "N"), "" when not given */
    int function;                  /* KD_FUNCTION_* (CSV columns: KD_FUNCTION_TIME) */
    int node, dir;                 /* response node and direction (0: unknown / scalar) */
    int ref_node, ref_dir;         /* reference (excitation) node and direction */
    int precision;                 /* UFF ordinate data type: 2 real single, 4 real double,
                                      5 complex single, 6 complex double (CSV: 4) */
    int n;                         /* samples */
    double x0, dx;                 /* even abscissa: first value and increment (s or Hz) */
    double* x;                     /* (n) uneven abscissa, or NULL when even */
    double* re;                    /* (n) the values (real part) */
    double* im;                    /* (n) imaginary part, or NULL for real data */
    int line;                      /* line of the file where the channel was given */
} kd_channel;

/* One mode shape of dataset 55 (normal mode analysis). */
typedef struct kd_record_mode {
    int number;                    /* mode number */
    double frequency_hz;
    double modal_mass;
    double damping_ratio;          /* modal viscous damping ratio */
    int nnodes;
    int ndv;                       /* values per node: 3 (translations) or 6 */
    int* node;                     /* (nnodes) node labels */
    double* value;                 /* (nnodes x ndv) */
} kd_record_mode;

typedef struct kd_record {
    char file[1024];               /* where it was read from ("" when made in code) */
    int nchannels;
    kd_channel* channels;          /* (nchannels) */
    int nnodes;                    /* test geometry (datasets 15, 2411) */
    int* node_label;               /* (nnodes) */
    double* node_x;                /* (nnodes x 3), m */
    int nmodes;
    kd_record_mode* modes;         /* (nmodes) */
} kd_record;

/* An empty record, or NULL when out of memory. */
kd_record* kd_record_new(void);
/* Free a record and everything it owns; clears *r. NULL is allowed. */
void kd_record_free(kd_record** r);
/* Append a zeroed channel with n samples (re allocated and zeroed; im too when complex).
 * Returns NULL when out of memory. */
kd_channel* kd_record_add_channel(kd_record* r, int n, int complex_data);
/* Append a node (label, coordinates); KD_ERR_NOMEM on failure. */
kd_status kd_record_add_node(kd_record* r, int label, const double x[3]);
/* Append a mode shape with nnodes nodes of ndv values (zeroed), or NULL. */
kd_record_mode* kd_record_add_mode(kd_record* r, int nnodes, int ndv);
/* The index of the channel named `name`, or -1. */
int kd_record_find_channel(const kd_record* r, const char* name);
/* The abscissa of sample i of channel c. */
double kd_channel_x(const kd_channel* c, int i);

/* ---- readers (src/load) ----------------------------------------------------------------
 * Errors are KD_ERR_INPUT located in the data file (err->file = path, err->loc = the line and
 * column of the offending value or record), KD_ERR_IO when it cannot be read. */

/* A CSV time history: a header row of column names, each optionally followed by its unit in
 * brackets (`acc4 [m/s^2]`), then rows of numbers separated by commas. `time` names the time
 * column (its values must increase with a constant step, to 1e-6 of it); or, when time is
 * NULL or "", `rate` (Hz, > 0) gives the sample rate and every column is a channel starting at
 * t = 0. A ragged row, a value that is not a number, a time that does not increase or a step
 * that is not constant is an error at its line and column. Lines starting with '#' are
 * comments. */
kd_status kd_record_read_csv(const char* path, const char* time, double rate, kd_record** out, kd_error* err);

/* A Universal File (ASCII; datasets 58 and 58b, 15, 2411, 55; 151 and 164 are skipped; any
 * other dataset is an error at its number). `name` is used in messages. */
kd_status kd_uff_read_buffer(const char* buf, size_t len, const char* name, kd_record** out, kd_error* err);
kd_status kd_uff_read(const char* path, kd_record** out, kd_error* err);

/* By the file name: .uff, .unv, .uf (any case) a Universal File, anything else CSV (with
 * time or rate as kd_record_read_csv). */
kd_status kd_record_read(const char* path, const char* time, double rate, kd_record** out, kd_error* err);

/* ---- writers (src/output), atomically -------------------------------------------------- */

/* CSV: `t` (or `f_hz` for functions of frequency) then one column per channel, named
 * `NAME [UNIT]`, values with 17 significant digits (read back bit for bit). Every channel must
 * be real, even and share n, x0 and dx: KD_ERR_USAGE otherwise. */
kd_status kd_record_write_csv(const char* path, const kd_record* r, kd_error* err);

/* A Universal File: the nodes as dataset 2411 (coordinates 1P3D25.16), the mode shapes as
 * dataset 55 (values 6E13.5), each channel as dataset 58: ASCII (binary = 0: ordinates
 * E20.12 in double precision, 13 significant digits) or 58b (binary = 1: the IEEE doubles
 * of the machine's byte order, bit for bit). The abscissa start and step are E13.5 in both
 * (the format's record 7): exact for steps of up to 6 significant digits, e.g. 1/4096 s is
 * not, 2e-4 s is. KD_ERR_USAGE for an empty record (a Universal File holds at least one dataset). */
kd_status kd_uff_write(const char* path, const kd_record* r, int binary, kd_error* err);

#ifdef __cplusplus
}
#endif
#endif
