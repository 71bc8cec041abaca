/* `kedyn plot`: figures for every analysis listed in summary.json
 * (kedyn/plot.h). summary.json is read with cJSON; each analysis' CSV files
 * go to the builder of its type, or to the generic time histories when
 * their first column is t. */
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "kedyn/atomic_file.h"
#include "output/output_util.h"
#include "plot_internal.h"

/* A file name without directory and extension. */
static void file_stem(const char* file, char* stem, size_t n) {
    const char* base = strrchr(file, '/');
    base = base ? base + 1 : file;
    const char* dot = strrchr(base, '.');
    snprintf(stem, n, "%.*s", dot ? (int)(dot - base) : (int)strlen(base), base);
}

static int ends_with(const char* s, const char* suffix) {
    const size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* The figures of one result file of analysis i. */
static kd_status plot_file(gnuplot_script* g, const char* outdir, const cJSON* an, int i, const char* type, const char* file,
                           const char* title, kd_error* err) {
    if (strchr(file, '/') || file[0] == '.') {  /* summary.json lists files of OUTDIR only */
        plot_note(g->res, "analysis %d (%s): '%s' is not a file of the output directory; skipped", i + 1, type, file);
        return KD_OK;
    }
    /* plates: mode shapes as surfaces from the .vtu; the modes.csv line figures are for beams */
    int has_vtu = 0;
    const cJSON* fj;
    cJSON_ArrayForEach(fj, cJSON_GetObjectItemCaseSensitive(an, "files")) has_vtu |= cJSON_IsString(fj) && ends_with(fj->valuestring, ".vtu");
    if (strcmp(type, "modes") == 0 && ends_with(file, ".vtu")) {
        char path[1400], stem[256];
        snprintf(path, sizeof(path), "%s/%s", outdir, file);
        snprintf(stem, sizeof stem, "%.*s", (int)(strlen(file) - 4), file);
        double freq[512];
        int nf = 0;
        const cJSON* f;
        cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(an, "frequency_hz")) {
            if (nf < 512) freq[nf++] = cJSON_IsNumber(f) ? f->valuedouble : 0.0;
        }
        return plot_plate_modes(g, path, title, stem, i, freq, nf, err);
    }
    if (!ends_with(file, ".csv") || (strcmp(type, "modes") == 0 && has_vtu)) return KD_OK;
    char path[1400], stem[256];
    snprintf(path, sizeof(path), "%s/%s", outdir, file);
    file_stem(file, stem, sizeof(stem));
    csv_table t;
    kd_error cerr;
    if (csv_read(path, &t, &cerr)) {
        if (cerr.status == KD_ERR_NOMEM) return *err = cerr, cerr.status;
        plot_note(g->res, "analysis %d (%s): %s cannot be read; skipped", i + 1, type, file);
        return KD_OK;
    }
    kd_status st = KD_OK;
    if (strcmp(type, "modes") == 0) {
        double freq[512];
        int nf = 0;
        const cJSON* f;
        cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(an, "frequency_hz")) {
            if (nf < 512) freq[nf++] = cJSON_IsNumber(f) ? f->valuedouble : 0.0;
        }
        st = plot_modes(g, &t, title, stem, i, freq, nf, err);
    } else if (strcmp(type, "campbell") == 0) {
        st = plot_campbell(g, &t, title, stem, i, err);
    } else if (strcmp(type, "stability") == 0) {
        const cJSON* om = cJSON_GetObjectItemCaseSensitive(an, "omega_max_rad_s");
        st = plot_stability(g, &t, title, stem, i, cJSON_IsNumber(om) ? om->valuedouble : 0.0, err);
    } else if (plot_measure_handles(type, stem)) {  /* measured records */
        st = plot_measure(g, &t, title, stem, type, i, err);
    } else if (t.ncol >= 2 && strcmp(t.name[0], "t") == 0 && t.nrow > 0) {
        int mech = 0;
        if (strcmp(type, "modes_along_motion") == 0) st = plot_along_motion(g, &t, title, stem, i, err);
        else if ((st = plot_mech(g, &t, title, stem, type, i, &mech, err)) == KD_OK && !mech)
            st = plot_history(g, &t, title, stem, type, i, err);
    } else {
        plot_note(g->res, "analysis %d (%s): %s has no time column or no rows; nothing drawn", i + 1, type, file);
    }
    csv_free(&t);
    return st;
}

/* OUTDIR/figures/figures.json: what was drawn, for the report. */
static kd_status write_index(const gnuplot_script* g, const kd_plot_result* res, kd_error* err) {
    cJSON* root = cJSON_CreateObject();
    cJSON* figs = cJSON_AddArrayToObject(root, "figures");
    for (int i = 0; i < g->nfig; i++) {
        cJSON* f = cJSON_CreateObject();
        char buf[160];
        cJSON_AddStringToObject(f, "name", g->fig[i].name);
        cJSON_AddStringToObject(f, "title", g->fig[i].title);
        cJSON_AddStringToObject(f, "type", g->fig[i].type);
        cJSON_AddNumberToObject(f, "analysis", g->fig[i].analysis);
        snprintf(buf, sizeof(buf), "%s.png", g->fig[i].name);
        cJSON_AddStringToObject(f, "png", buf);
        snprintf(buf, sizeof(buf), "%s.svg", g->fig[i].name);
        cJSON_AddStringToObject(f, "svg", buf);
        cJSON_AddItemToArray(figs, f);
    }
    cJSON* notes = cJSON_AddArrayToObject(root, "notes");
    for (int i = 0; i < res->nnotes; i++) cJSON_AddItemToArray(notes, cJSON_CreateString(res->notes[i]));
    char* text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    char path[1200];
    snprintf(path, sizeof(path), "%s/figures.json", g->figdir);
    kd_atomic_file f;
    kd_status st = kd_atomic_open(&f, path, err);
    if (st == KD_OK) {
        fputs(text, f.fp);
        fputc('\n', f.fp);
        st = kd_atomic_commit(&f, err);
    }
    free(text);
    return st;
}

kd_status kd_plot_outdir(const char* outdir, kd_plot_result* res, kd_error* err) {
    memset(res, 0, sizeof(*res));
    char path[1200];
    snprintf(path, sizeof(path), "%s/summary.json", outdir);
    char* text = io_read_all(path);
    if (!text) return kd_error_set(err, KD_ERR_IO, path, KD_LOC_NONE, "cannot read (run `kedyn run` first)");
    cJSON* root = cJSON_Parse(text);
    free(text);
    if (!root) return kd_error_set(err, KD_ERR_INPUT, path, KD_LOC_NONE, "not valid JSON");
    const cJSON* analyses = cJSON_GetObjectItemCaseSensitive(root, "analyses");
    if (!cJSON_IsArray(analyses)) {
        cJSON_Delete(root);
        return kd_error_set(err, KD_ERR_INPUT, path, KD_LOC_NONE, "no \"analyses\" list");
    }
    char gnuplot[1024];
    if (!kd_plot_find_gnuplot(gnuplot, (int)sizeof(gnuplot))) {
        cJSON_Delete(root);
        return kd_error_set(err, KD_ERR_IO, gnuplot, KD_LOC_NONE,
                            "gnuplot not found (install the Debian package gnuplot-nox, or set KEDYN_GNUPLOT)");
    }
    const cJSON* jt = cJSON_GetObjectItemCaseSensitive(root, "title");
    const char* title = cJSON_IsString(jt) ? jt->valuestring : "";
    gnuplot_script* g = malloc(sizeof(*g));
    if (!g) {
        cJSON_Delete(root);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory");
    }
    kd_status st = gp_open(g, gnuplot, outdir, res, err);
    int i = 0;
    const cJSON* an;
    cJSON_ArrayForEach(an, analyses) {
        if (st) break;
        const cJSON* jtype = cJSON_GetObjectItemCaseSensitive(an, "type");
        const char* type = cJSON_IsString(jtype) ? jtype->valuestring : "?";
        const cJSON* files = cJSON_GetObjectItemCaseSensitive(an, "files");
        const int before = g->nfig, notes_before = res->nnotes;
        const cJSON* f;
        cJSON_ArrayForEach(f, files) {
            if (st == KD_OK && cJSON_IsString(f)) st = plot_file(g, outdir, an, i, type, f->valuestring, title, err);
        }
        if (st == KD_OK && g->nfig == before && res->nnotes == notes_before)
            plot_note(res, "analysis %d (%s): nothing to draw", i + 1, type);
        i++;
    }
    if (st == KD_OK) st = write_index(g, res, err);
    gp_close(g);
    free(g);
    cJSON_Delete(root);
    return st;
}
