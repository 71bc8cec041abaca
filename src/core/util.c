/* Small helpers shared by every layer (util.h). */
#include "util.h"

#include <math.h>
#include <time.h>

double util_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void util_json_number(FILE* fp, const char* fmt, double v, const char* nonfinite) {
    if (isfinite(v) || !nonfinite) fprintf(fp, fmt, v);
    else fputs(nonfinite, fp);
}

void util_json_numbers(FILE* fp, const char* fmt, const char* sep, const double* v, int n, const char* nonfinite) {
    fputc('[', fp);
    for (int i = 0; i < n; i++) {
        if (i) fputs(sep, fp);
        util_json_number(fp, fmt, v[i], nonfinite);
    }
    fputc(']', fp);
}

char* util_next_token(char** rest, const char* delims) {
    char* s = *rest + strspn(*rest, delims);
    if (!*s) {
        *rest = s;
        return NULL;
    }
    char* end = s + strcspn(s, delims);
    if (*end) *end++ = '\0';
    *rest = end;
    return s;
}
