/* Output files written under a temporary name, renamed when complete; the registry of open
 * temporary files for a signal handler; the lock of an output directory; the interruption flag
 * (kedyn/atomic_file.h). */
#include "kedyn/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define IOFAIL(path, what) \
    kd_error_set(err, KD_ERR_IO, "", KD_LOC_NONE, "cannot %s '%s': %s", what, path, strerror(errno))

/* ---- the registry of open temporary files -------------------------------- */

/* A slot is written only while its flag is 1 (claimed by one thread, lock-free atomics, safe in
 * a handler) and read by the handler only while it is 2. */
#define TEMP_SLOTS 64
static char temp_name[TEMP_SLOTS][sizeof(((kd_atomic_file*)0)->tmp)];
static atomic_int temp_used[TEMP_SLOTS];

static int temp_register(const char* name) {
    for (int i = 0; i < TEMP_SLOTS; i++) {
        int free_slot = 0;
        if (atomic_compare_exchange_strong(&temp_used[i], &free_slot, 1)) {
            snprintf(temp_name[i], sizeof(temp_name[i]), "%s", name);
            atomic_store(&temp_used[i], 2);
            return i;
        }
    }
    return -1;  /* more open files than slots: not removed by a handler, still by abort */
}

static void temp_unregister(int slot) {
    if (slot >= 0) atomic_store(&temp_used[slot], 0);
}

void kd_atomic_remove_temps(void) {
    for (int i = 0; i < TEMP_SLOTS; i++)
        if (atomic_load(&temp_used[i]) == 2) unlink(temp_name[i]);
}

/* ---- atomic files ---------------------------------------------------------- */

kd_status kd_atomic_open(kd_atomic_file* f, const char* path, kd_error* err) {
    static atomic_uint serial;  /* several temporary files of one process may be open at once */
    memset(f, 0, sizeof(*f));
    f->slot = -1;
    if (strlen(path) >= sizeof(f->path))
        return kd_error_set(err, KD_ERR_IO, "", KD_LOC_NONE, "output path too long: '%s'", path);
    snprintf(f->path, sizeof(f->path), "%s", path);
    int fd = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
        snprintf(f->tmp, sizeof(f->tmp), "%s.tmp%ld.%u", path, (long)getpid(), atomic_fetch_add(&serial, 1u));
        /* a new file, never through a link planted under this name */
        fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) return IOFAIL(f->tmp, "create");
    f->slot = temp_register(f->tmp);
    f->fp = fdopen(fd, "w");
    if (!f->fp) {
        const int e = errno;
        close(fd);
        unlink(f->tmp);
        temp_unregister(f->slot);
        errno = e;
        return IOFAIL(f->tmp, "open");
    }
    return KD_OK;
}

static kd_status commit(kd_atomic_file* f, int remove_old, kd_error* err) {
    const int bad = ferror(f->fp);
    const int closed = fclose(f->fp);
    f->fp = NULL;
    kd_status st = KD_OK;
    if (bad || closed != 0) {
        remove(f->tmp);
        st = IOFAIL(f->path, "write");
    } else if ((remove_old && unlink(f->path) != 0 && errno != ENOENT) || rename(f->tmp, f->path) != 0) {
        remove(f->tmp);
        st = IOFAIL(f->path, "rename into");
    }
    temp_unregister(f->slot);
    f->slot = -1;
    return st;
}

kd_status kd_atomic_commit(kd_atomic_file* f, kd_error* err) { return commit(f, 0, err); }

kd_status kd_atomic_commit_removing(kd_atomic_file* f, kd_error* err) { return commit(f, 1, err); }

void kd_atomic_abort(kd_atomic_file* f) {
    if (!f->fp) return;
    fclose(f->fp);
    f->fp = NULL;
    remove(f->tmp);
    temp_unregister(f->slot);
    f->slot = -1;
}

kd_status kd_make_dirs(const char* path, kd_error* err) {
    char buf[1024];
    if (!path[0]) return kd_error_set(err, KD_ERR_IO, "", KD_LOC_NONE, "empty output directory name");
    if (strlen(path) >= sizeof(buf))
        return kd_error_set(err, KD_ERR_IO, "", KD_LOC_NONE, "output path too long: '%s'", path);
    snprintf(buf, sizeof(buf), "%s", path);
    for (char* p = buf + 1;; p++) {
        const char c = *p;
        if (c != '/' && c != '\0') continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) return IOFAIL(buf, "create directory");
        struct stat sb;
        if (stat(buf, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
            errno = ENOTDIR;
            return IOFAIL(buf, "use as directory");
        }
        *p = c;
        if (c == '\0') break;
    }
    return KD_OK;
}

/* ---- the lock of an output directory --------------------------------------- */

kd_status kd_outdir_lock(const char* outdir, int* fd, kd_error* err) {
    char path[1100];
    snprintf(path, sizeof(path), "%s/.kedyn.lock", outdir);
    *fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (*fd < 0) return IOFAIL(path, "open the lock");
    struct flock lk;
    memset(&lk, 0, sizeof(lk));
    lk.l_type = F_WRLCK;
    lk.l_whence = SEEK_SET;  /* l_start = l_len = 0: the whole file */
    if (fcntl(*fd, F_SETLK, &lk) != 0) {
        const int e = errno;
        close(*fd);
        *fd = -1;
        if (e == EACCES || e == EAGAIN)
            return kd_error_set(err, KD_ERR_IO, "", KD_LOC_NONE,
                                "output directory '%s' is in use by another run (lock %s); wait for it to end or "
                                "choose another directory with -o",
                                outdir, path);
        errno = e;
        return IOFAIL(path, "lock");
    }
    return KD_OK;
}

void kd_outdir_unlock(int* fd) {
    if (*fd >= 0) close(*fd);  /* closing releases the fcntl lock */
    *fd = -1;
}

/* ---- interruption ------------------------------------------------------------ */

static atomic_int interrupt_signal;  /* lock-free: set in a handler, read by every thread */

void kd_interrupt_request(int signo) { atomic_store(&interrupt_signal, signo); }

int kd_interrupted(void) { return atomic_load(&interrupt_signal); }
