/* Output files written under a temporary name, renamed when complete
 * (kedyn/atomic_file.h). */
#include "kedyn/atomic_file.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define IOFAIL(path, what) \
    kd_error_set(err, KD_ERR_IO, "", KD_LOC_NONE, "cannot %s '%s': %s", what, path, strerror(errno))

kd_status kd_atomic_open(kd_atomic_file* f, const char* path, kd_error* err) {
    memset(f, 0, sizeof(*f));
    if (strlen(path) >= sizeof(f->path))
        return kd_error_set(err, KD_ERR_IO, "", KD_LOC_NONE, "output path too long: '%s'", path);
    snprintf(f->path, sizeof(f->path), "%s", path);
    snprintf(f->tmp, sizeof(f->tmp), "%s.tmp%ld", path, (long)getpid());
    f->fp = fopen(f->tmp, "w");
    if (!f->fp) return IOFAIL(f->tmp, "create");
    return KD_OK;
}

kd_status kd_atomic_commit(kd_atomic_file* f, kd_error* err) {
    const int bad = ferror(f->fp);
    const int closed = fclose(f->fp);
    f->fp = NULL;
    if (bad || closed != 0) {
        remove(f->tmp);
        return IOFAIL(f->path, "write");
    }
    if (rename(f->tmp, f->path) != 0) {
        remove(f->tmp);
        return IOFAIL(f->path, "rename into");
    }
    return KD_OK;
}

void kd_atomic_abort(kd_atomic_file* f) {
    if (!f->fp) return;
    fclose(f->fp);
    f->fp = NULL;
    remove(f->tmp);
}

kd_status kd_make_dirs(const char* path, kd_error* err) {
    char buf[1024];
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
