/* The gnuplot driver (plot_internal.h): data and scripts go to a temporary
 * directory, gnuplot runs once per figure as a subprocess, and the PNG and
 * SVG are renamed into OUTDIR/figures only when gnuplot succeeded. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kedyn/atomic_file.h"
#include "plot_internal.h"

/* mkdtemp is POSIX 2008 but declared by glibc only with XOPEN or default
 * source; declare it here rather than widen the feature macros. */
char* mkdtemp(char* tmpl);

void plot_note(kd_plot_result* res, const char* fmt, ...) {
    if (!res || res->nnotes >= KD_PLOT_NOTES_MAX) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->notes[res->nnotes++], sizeof(res->notes[0]), fmt, ap);
    va_end(ap);
}

int kd_plot_find_gnuplot(char* buf, int n) {
    const char* env = getenv("KEDYN_GNUPLOT");
    if (env && env[0]) {
        snprintf(buf, (size_t)n, "%s", env);
        return access(env, X_OK) == 0;
    }
    const char* path = getenv("PATH");
    if (!path) path = "/usr/bin:/bin";
    while (*path) {
        const char* e = strchr(path, ':');
        const int len = e ? (int)(e - path) : (int)strlen(path);
        snprintf(buf, (size_t)n, "%.*s/gnuplot", len, len ? path : ".");
        if (access(buf, X_OK) == 0) return 1;
        path += len + (e ? 1 : 0);
    }
    snprintf(buf, (size_t)n, "gnuplot");
    return 0;
}

void gp_quote(FILE* fp, const char* s) {
    fputc('\'', fp);
    for (; *s; s++) {
        const unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7f) {  /* a newline would end the command: the rest would run */
            fputc(' ', fp);
            continue;
        }
        if (c == '\'') fputc('\'', fp);  /* '' is a quote inside '...' */
        fputc(c, fp);
    }
    fputc('\'', fp);
}

kd_status gp_open(gnuplot_script* g, const char* gnuplot, const char* outdir, kd_plot_result* res, kd_error* err) {
    memset(g, 0, sizeof(*g));
    snprintf(g->gnuplot, sizeof(g->gnuplot), "%s", gnuplot);
    snprintf(g->figdir, sizeof(g->figdir), "%s/figures", outdir);
    g->res = res;
    kd_status st = kd_make_dirs(g->figdir, err);
    if (st) return st;
    snprintf(g->tmpdir, sizeof(g->tmpdir), "%s/.tmp-XXXXXX", g->figdir);
    if (!mkdtemp(g->tmpdir)) {
        g->tmpdir[0] = '\0';
        return kd_error_set(err, KD_ERR_IO, g->figdir, KD_LOC_NONE, "cannot create a temporary directory: %s",
                            strerror(errno));
    }
    return KD_OK;
}

void gp_close(gnuplot_script* g) {
    if (g->body) fclose(g->body), g->body = NULL;
    if (!g->tmpdir[0]) return;
    /* Only files this driver wrote are in it: data, scripts, logs, images. */
    char path[1400];
    for (int i = 0; i < g->ndata; i++) {
        snprintf(path, sizeof(path), "%s/d%d.dat", g->tmpdir, i);
        remove(path);
    }
    static const char* const ext[] = {"gp", "body.gp", "log", "png", "svg"};
    for (int f = 0; f < g->nfig + 1 && f <= KD_GP_FIGURES_MAX; f++)
        for (int k = 0; k < 5; k++) {
            snprintf(path, sizeof(path), "%s/f%d.%s", g->tmpdir, f, ext[k]);
            remove(path);
        }
    rmdir(g->tmpdir);
    g->tmpdir[0] = '\0';
}

FILE* gp_data(gnuplot_script* g, char* path, int n) {
    snprintf(path, (size_t)n, "%s/d%d.dat", g->tmpdir, g->ndata++);
    return fopen(path, "w");
}

/* Temporary file of figure number f with an extension. */
static void fig_path(const gnuplot_script* g, int f, const char* ext, char* path, size_t n) {
    snprintf(path, n, "%s/f%d.%s", g->tmpdir, f, ext);
}

FILE* gp_begin(gnuplot_script* g, const char* name, const char* title, const char* type, int analysis, int width,
                  int height) {
    if (g->nfig >= KD_GP_FIGURES_MAX) {
        plot_note(g->res, "%s: more than %d figures; the rest are not drawn", name, KD_GP_FIGURES_MAX);
        return NULL;
    }
    struct kd_gp_fig* f = &g->fig[g->nfig];
    /* File names: letters, digits, '-', '_' and '.' only. */
    snprintf(f->name, sizeof(f->name), "%s", name);
    for (char* c = f->name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '-' ||
              *c == '_' || *c == '.'))
            *c = '_';
    snprintf(f->title, sizeof(f->title), "%s", title);
    snprintf(f->type, sizeof(f->type), "%s", type);
    f->analysis = analysis;
    snprintf(g->name, sizeof(g->name), "%s", f->name);
    g->width = width, g->height = height;
    char path[1400];
    fig_path(g, g->nfig, "body.gp", path, sizeof(path));
    g->body = fopen(path, "w");
    return g->body;
}

/* Run gnuplot on script, its output to log; returns the exit status or -1. */
static int run_gnuplot(const char* gnuplot, const char* script, const char* log) {
    const pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        const int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        execlp(gnuplot, gnuplot, script, (char*)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The first line of gnuplot's log that names an error, for the message. */
static void log_error(const char* log, char* out, size_t n) {
    out[0] = '\0';
    FILE* fp = fopen(log, "r");
    if (!fp) return;
    char line[512];
    while (fgets(line, sizeof(line), fp)) {
        line[strcspn(line, "\n")] = '\0';
        if (strstr(line, "rror") || strstr(line, "warning")) {
            snprintf(out, n, "%s", line);
            break;
        }
    }
    fclose(fp);
}

kd_status gp_end(gnuplot_script* g, kd_error* err) {
    if (!g->body) return KD_OK;
    const int f = g->nfig;
    const int bad = ferror(g->body);
    fclose(g->body);
    g->body = NULL;
    char body[1400], script[1400], png[1400], svg[1400], log[1400];
    fig_path(g, f, "body.gp", body, sizeof(body));
    fig_path(g, f, "gp", script, sizeof(script));
    fig_path(g, f, "png", png, sizeof(png));
    fig_path(g, f, "svg", svg, sizeof(svg));
    fig_path(g, f, "log", log, sizeof(log));
    FILE* fp = fopen(script, "w");
    if (bad || !fp) {
        if (fp) fclose(fp);
        return kd_error_set(err, KD_ERR_IO, script, KD_LOC_NONE, "cannot write the figure script");
    }
    /* The same plot twice: PNG (cairo) and SVG. noenhanced: names such as
     * omega_1 are shown as written. */
    fprintf(fp, "set encoding utf8\nset terminal pngcairo size %d,%d font 'DejaVu Sans,10' noenhanced\nset output ",
            g->width, g->height);
    gp_quote(fp, png);
    fprintf(fp, "\nload ");
    gp_quote(fp, body);
    fprintf(fp, "\nunset multiplot\nunset output\nreset\n");
    fprintf(fp, "set terminal svg size %d,%d font 'DejaVu Sans,10' noenhanced background '#ffffff'\nset output ",
            g->width, g->height);
    gp_quote(fp, svg);
    fprintf(fp, "\nload ");
    gp_quote(fp, body);
    fprintf(fp, "\nunset multiplot\nunset output\n");
    if (fclose(fp)) return kd_error_set(err, KD_ERR_IO, script, KD_LOC_NONE, "cannot write the figure script");
    const int rc = run_gnuplot(g->gnuplot, script, log);
    if (rc != 0) {
        char why[512];
        log_error(log, why, sizeof(why));
        return kd_error_set(err, KD_ERR_IO, g->gnuplot, KD_LOC_NONE, "gnuplot failed on figure %s (exit %d)%s%s",
                            g->name, rc, why[0] ? ": " : "", why);
    }
    /* Both images exist: rename into place (atomic, same directory tree). */
    char dst[1400];
    snprintf(dst, sizeof(dst), "%s/%s.png", g->figdir, g->name);
    if (rename(png, dst)) return kd_error_set(err, KD_ERR_IO, dst, KD_LOC_NONE, "cannot write: %s", strerror(errno));
    snprintf(dst, sizeof(dst), "%s/%s.svg", g->figdir, g->name);
    if (rename(svg, dst)) return kd_error_set(err, KD_ERR_IO, dst, KD_LOC_NONE, "cannot write: %s", strerror(errno));
    g->nfig++;
    if (g->res) g->res->nfigures++;
    return KD_OK;
}
