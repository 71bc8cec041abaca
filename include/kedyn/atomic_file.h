/* kedyn: output files that never appear half-written.
 *
 * A file is written under a temporary name in the same directory and renamed
 * to its final name only when complete (rename is atomic on POSIX), so a
 * reader, or a run interrupted by an error, never finds a partial file under
 * a final name. Part of the library.
 *
 * The temporary name is created new (O_CREAT | O_EXCL | O_NOFOLLOW: a file or symbolic link
 * planted there is never followed or overwritten) and registered while open, so that a signal
 * handler can remove every temporary file (kd_atomic_remove_temps). A run locks its output
 * directory (kd_outdir_lock) so that two runs cannot mix their files in it.
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
    char tmp[1060];           /* temporary name: PATH.tmpPID.N */
    int slot;                 /* its entry in the registry of open temporary files, or -1 */
} kd_atomic_file;

/* Open PATH for writing under a temporary name. */
kd_status kd_atomic_open(kd_atomic_file* f, const char* path, kd_error* err);

/* Close, check for write errors, and rename to the final name. On error
 * the temporary file is removed. */
kd_status kd_atomic_commit(kd_atomic_file* f, kd_error* err);
/* kd_atomic_commit, but a file under the final name is removed just before the rename, which then
 * replaces nothing (not atomic: for a file whose absence says what the old one's replacement
 * would, the first summary.json of a run). ext4 writes a file renamed over another to the disk at
 * once (auto_da_alloc); the next file renamed over this one would then free blocks on the disk, a
 * wait where the file system discards freed blocks online (docs/performance.md). */
kd_status kd_atomic_commit_removing(kd_atomic_file* f, kd_error* err);

/* Close and remove the temporary file. Safe on a file never opened. */
void kd_atomic_abort(kd_atomic_file* f);

/* Create a directory and its parents (like mkdir -p). */
kd_status kd_make_dirs(const char* path, kd_error* err);

/* Remove every temporary file still open (their names only: the streams stay as they are).
 * Async-signal-safe (unlink only): for a signal handler that ends the process. */
void kd_atomic_remove_temps(void);

/* Take the lock of an output directory for one run: OUTDIR/.kedyn.lock, created when missing,
 * locked with fcntl (released when the process ends, also when killed). Another process holding
 * it makes this fail with KD_ERR_IO ("in use by another run"). *fd receives the lock's file
 * descriptor for kd_outdir_unlock. */
kd_status kd_outdir_lock(const char* outdir, int* fd, kd_error* err);
void kd_outdir_unlock(int* fd);

/* Interruption of a run (SIGINT, SIGTERM): kd_interrupt_request(signo) is async-signal-safe
 * (it sets a flag); the runners poll kd_interrupted() between output rows and stop there,
 * keeping the rows written, and kd_run stops with "complete": false. kd_interrupted returns
 * the signal number, or 0. */
void kd_interrupt_request(int signo);
int kd_interrupted(void);

#ifdef __cplusplus
}
#endif
#endif
