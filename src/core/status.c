/* Status codes and error reports (kedyn/status.h). */
#include "kedyn/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void kd_error_clear(kd_error* err) {
    if (!err) return;
    memset(err, 0, sizeof(*err));
}

kd_status kd_error_set(kd_error* err, kd_status status, const char* file, kd_loc loc,
                       const char* fmt, ...) {
    if (!err) return status;
    err->status = status;
    snprintf(err->file, sizeof(err->file), "%s", file ? file : "");
    err->loc = loc;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
    return status;
}

char* kd_error_format(const kd_error* err, char* buf, int n) {
    const char* file = err->file[0] ? err->file : "kedyn";
    const char* kind = err->status == KD_OK ? "warning" : "error";
    if (err->file[0] && err->loc.line > 0)
        snprintf(buf, (size_t)n, "%s:%d:%d: %s: %s", file, err->loc.line, err->loc.col, kind, err->msg);
    else
        snprintf(buf, (size_t)n, "%s: %s: %s", file, kind, err->msg);
    return buf;
}

const char* kd_status_name(kd_status s) {
    switch (s) {
    case KD_OK: return "ok";
    case KD_ERR_INPUT: return "input";
    case KD_ERR_USAGE: return "usage";
    case KD_ERR_NUMERIC: return "numeric";
    case KD_ERR_IO: return "io";
    case KD_ERR_NOMEM: return "memory";
    }
    return "unknown";
}
