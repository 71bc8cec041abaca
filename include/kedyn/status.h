/* kedyn: status codes and error reports.
 *
 * Every library function that can fail returns a kd_status. Load-time and
 * check-time errors also fill a caller-owned kd_error with the source
 * location (file, line, column) of the offending model item, so that the CLI
 * can print "FILE:LINE:COL: error: MESSAGE". The library never exits.
 */
#ifndef KEDYN_STATUS_H
#define KEDYN_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kd_status {
    KD_OK = 0,
    KD_ERR_INPUT = 1,     /* malformed or inconsistent model or data file */
    KD_ERR_USAGE = 2,     /* a call made with invalid arguments */
    KD_ERR_NUMERIC = 3,   /* singular configuration, divergence, solver failure */
    KD_ERR_IO = 4,        /* a file could not be read or written */
    KD_ERR_NOMEM = 5      /* an allocation failed */
} kd_status;

/* Where a model item came from: 1-based line and column; 0 when unknown
 * (e.g. a description built in code rather than read from a file). */
typedef struct kd_loc {
    int line;
    int col;
} kd_loc;

#define KD_LOC_NONE ((kd_loc){0, 0})   /* location unknown */
#define KD_LOC_START ((kd_loc){1, 1})  /* the file as a whole */

/* A caller-owned error report. */
typedef struct kd_error {
    kd_status status;
    char file[256];       /* source file name, "" when none */
    kd_loc loc;           /* location in that file */
    char msg[512];        /* human-readable message, no trailing newline */
} kd_error;

/* Clear an error report (status KD_OK, empty strings). NULL is allowed. */
void kd_error_clear(kd_error* err);

/* Fill an error report and return its status; err may be NULL.
 * The message is printf-formatted. */
kd_status kd_error_set(kd_error* err, kd_status status, const char* file,
                       kd_loc loc, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* Format an error as "FILE:LINE:COL: error: MSG" (the location parts are
 * left out when unknown) into buf of size n; a report with status KD_OK is a
 * warning and says "warning:". Returns buf. */
char* kd_error_format(const kd_error* err, char* buf, int n);

/* A short, stable name for a status code ("ok", "input", ...). */
const char* kd_status_name(kd_status s);

#ifdef __cplusplus
}
#endif
#endif
