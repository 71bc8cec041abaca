/* kedyn: output files that never appear half-written.
 *
 * A file is written under a temporary name in the same directory and renamed
 * to its final name only when complete (rename is atomic on POSIX), so a
 * reader, or a run interrupted by an error, never finds a partial file under
 * a final name. Part of the library.
 */
#ifndef KEDYN_ATOMIC_FILE_H
#define KEDYN_ATOMIC_FILE_H

#include <stdio.h>

#include "kedyn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kd_atomic_file {
    FILE* fp;                 /* write through this */
    char path[1024];          /* final name */
    char tmp[1040];           /* temporary name */
} kd_atomic_file;

/* Open PATH for writing under a temporary name. */
kd_status kd_atomic_open(kd_atomic_file* f, const char* path, kd_error* err);

/* Close, check for write errors, and rename to the final name. On error
 * the temporary file is removed. */
kd_status kd_atomic_commit(kd_atomic_file* f, kd_error* err);

/* Close and remove the temporary file. Safe on a file never opened. */
void kd_atomic_abort(kd_atomic_file* f);

/* Create a directory and its parents (like mkdir -p). */
kd_status kd_make_dirs(const char* path, kd_error* err);

#ifdef __cplusplus
}
#endif
#endif
