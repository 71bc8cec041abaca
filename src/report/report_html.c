/* The self-contained HTML report (kedyn/report.h): model summary, every
 * figure inline as SVG, and the animation data in a <script> tag drawn by
 * the page's own JavaScript (src/report/assets/report.js, embedded at build
 * time). No external resources: the file opens without network access. */
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "kedyn/atomic_file.h"
#include "output/output_util.h"
#include "kedyn/report.h"
#include "report_assets.h"  /* generated: kd_report_js, kd_report_css */
#include "report_measure.h"

/* Text in HTML. */
static void html_text(FILE* fp, const char* s) {
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '&': fputs("&amp;", fp); break;
        case '"': fputs("&quot;", fp); break;
        default: fputc(*s, fp);
        }
    }
}

static const char* jstr(const cJSON* o, const char* key) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static double jnum(const cJSON* o, const char* key) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0.0;
}

/* The title and the model's size, from summary.json. */
static void write_summary(FILE* fp, const cJSON* s) {
    fprintf(fp, "<h1>");
    html_text(fp, jstr(s, "title"));
    fprintf(fp, "</h1>\n<p>Model <code>");
    html_text(fp, jstr(s, "model"));
    fprintf(fp, "</code>, kedyn %s. ", jstr(s, "kedyn"));
    const cJSON* complete = cJSON_GetObjectItemCaseSensitive(s, "complete");
    fprintf(fp, "%s</p>\n", cJSON_IsTrue(complete) ? "All analyses complete."
                                                   : "<strong>Incomplete run: an analysis failed (see below).</strong>");
    const cJSON* mech = cJSON_GetObjectItemCaseSensitive(s, "mechanism");
    if (cJSON_IsObject(mech)) {  /* a mechanism: its bodies, joints, mobility and elastic links */
        fprintf(fp, "<table><tr><th>moving bodies</th><th>joints</th><th>drivers</th><th>DOF (Gr&uuml;bler)</th>"
                    "<th>elastic links</th><th>link elastic DOF</th><th>mass [kg]</th></tr>\n"
                    "<tr><td>%g</td><td>%g</td><td>%g</td><td>%g</td><td>%g</td><td>%g</td><td>%.6g</td></tr></table>\n",
                jnum(mech, "moving_bodies"), jnum(mech, "joints"), jnum(mech, "drivers"), jnum(mech, "dof_gruebler"),
                jnum(mech, "elastic_links"), jnum(mech, "link_elastic_dof"), jnum(mech, "mass_kg"));
        return;
    }
    const cJSON* sp = cJSON_GetObjectItemCaseSensitive(s, "spatial");
    if (cJSON_IsObject(sp)) {  /* a spatial mechanism: its coordinates, equations and mobility */
        fprintf(fp, "<table><tr><th>moving bodies</th><th>joints</th><th>drivers</th><th>coordinates</th>"
                    "<th>constraint equations</th><th>DOF (Gr&uuml;bler)</th><th>DOF (rank)</th><th>mass [kg]</th></tr>\n"
                    "<tr><td>%g</td><td>%g</td><td>%g</td><td>%g</td><td>%g</td><td>%g</td><td>%g</td><td>%.6g</td></tr>"
                    "</table>\n",
                jnum(sp, "moving_bodies"), jnum(sp, "joints"), jnum(sp, "drivers"), jnum(sp, "coordinates"),
                jnum(sp, "constraint_equations"), jnum(sp, "gruebler"), jnum(sp, "dof"), jnum(sp, "mass_kg"));
        return;
    }
    fprintf(fp, "<table><tr><th>free DOF</th><th>nodes</th><th>elements</th><th>mass [kg]</th></tr>\n"
                "<tr><td>%g</td><td>%g</td><td>%g</td><td>%.6g</td></tr></table>\n",
            jnum(s, "dof"), jnum(s, "nodes"), jnum(s, "elements"), jnum(s, "mass_kg"));
}

/* The bodies and the analyses, from summary.json. */
static void write_tables(FILE* fp, const cJSON* s) {
    fprintf(fp, "<h2>Bodies</h2>\n<table><tr><th>name</th><th>type</th><th>theory</th><th>interpolation</th>"
                "<th>elements</th><th>length [m]</th><th>mass [kg]</th></tr>\n");
    const cJSON* b;
    cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(s, "bodies")) {
        fprintf(fp, "<tr><td>");
        html_text(fp, jstr(b, "name"));
        fprintf(fp, "</td><td>");
        html_text(fp, jstr(b, "type"));
        fprintf(fp, "</td><td>");
        html_text(fp, jstr(b, "theory"));
        fprintf(fp, "</td><td>");
        html_text(fp, jstr(b, "interpolation"));
        fprintf(fp, "</td><td>%g</td><td>%.6g</td><td>%.6g</td></tr>\n", jnum(b, "elements"), jnum(b, "length"),
                jnum(b, "mass_kg"));
    }
    fprintf(fp, "</table>\n<h2>Analyses</h2>\n<table><tr><th>#</th><th>type</th><th>status</th><th>results</th>"
                "<th>files</th><th>wall time [s]</th></tr>\n");
    int i = 0;
    const cJSON* a;
    cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(s, "analyses")) {
        fprintf(fp, "<tr><td>%d</td><td>", ++i);
        html_text(fp, jstr(a, "type"));
        fprintf(fp, "</td><td>");
        html_text(fp, jstr(a, "status"));
        fprintf(fp, "</td><td>");
        const cJSON* f = cJSON_GetObjectItemCaseSensitive(a, "frequency_hz");
        if (cJSON_IsArray(f)) {
            fprintf(fp, "f [Hz]:");
            const cJSON* x;
            cJSON_ArrayForEach(x, f) fprintf(fp, " %.5g", cJSON_IsNumber(x) ? x->valuedouble : 0.0);
        }
        if (cJSON_GetObjectItemCaseSensitive(a, "t_reached"))
            fprintf(fp, "%s to t = %g s in %g steps", jstr(a, "integrator"), jnum(a, "t_reached"), jnum(a, "steps"));
        if (jstr(a, "message")[0]) {
            fprintf(fp, "<br><em>");
            html_text(fp, jstr(a, "message"));
            fprintf(fp, "</em>");
        }
        fprintf(fp, "</td><td>");
        const cJSON* x;
        cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(a, "files")) {
            if (cJSON_IsString(x)) {
                html_text(fp, x->valuestring);
                fputc(' ', fp);
            }
        }
        fprintf(fp, "</td><td>%.4g</td></tr>\n", jnum(a, "wall_s"));
    }
    fprintf(fp, "</table>\n");
}

/* The animation: controls, canvas, data. The JSON goes into a <script> element with <, > and &
 * written as \u escapes (they occur only inside JSON strings, where the escape means the same
 * character), so no "</script>" or "<!--" can end or change the element; U+2028 and U+2029
 * too, which some parsers of script text take for line ends. */
static void write_animation(FILE* fp, const char* json) {
    fprintf(fp, "<h2>Animation</h2>\n");
    if (!json) {
        fprintf(fp, "<p class=\"note\">No animation.json in this directory (written by <code>kedyn run "
                    "--report</code>).</p>\n");
        return;
    }
    fprintf(fp,
            "<div class=\"controls\">\n"
            "<select id=\"kd-item\" aria-label=\"what to animate\"></select>\n"
            "<button id=\"kd-play\" type=\"button\">Pause</button>\n"
            "<label>time <input id=\"kd-time\" type=\"range\" min=\"0\" max=\"0\" value=\"0\"></label>\n"
            "<span id=\"kd-info\"></span>\n"
            "<label>deformation scale <input id=\"kd-scale\" type=\"range\" min=\"-3\" max=\"3\" step=\"0.05\" "
            "value=\"0\"></label> <span id=\"kd-scale-value\"></span>\n"
            "<label>view <select id=\"kd-view\"><option value=\"auto\">auto</option><option value=\"xy\">x-y</option>"
            "<option value=\"xz\">x-z</option><option value=\"yz\">y-z</option><option value=\"3d\">3D</option>"
            "</select></label>\n"
            "</div>\n<canvas id=\"kd-canvas\" width=\"1000\" height=\"520\"></canvas>\n"
            "<p style=\"font-size:0.85em;color:#555\">Dashed: the undeformed bodies in their current pose. "
            "Displacements are drawn magnified by the deformation scale.</p>\n"
            "<script type=\"application/json\" id=\"kd-anim-data\">");
    for (const char* c = json; *c; c++) {
        const unsigned char* u = (const unsigned char*)c;
        if (*c == '<') fputs("\\u003c", fp);
        else if (*c == '>') fputs("\\u003e", fp);
        else if (*c == '&') fputs("\\u0026", fp);
        else if (u[0] == 0xe2 && u[1] == 0x80 && (u[2] == 0xa8 || u[2] == 0xa9))  /* U+2028, U+2029 */
            fprintf(fp, "\\u%s", u[2] == 0xa8 ? "2028" : "2029"), c += 2;
        else fputc(*c, fp);
    }
    fprintf(fp, "</script>\n");
}

/* The figures listed in figures/figures.json, inline SVG. */
static void write_figures(FILE* fp, const char* outdir, const cJSON* index) {
    fprintf(fp, "<h2>Figures</h2>\n");
    if (!index) {
        fprintf(fp, "<p class=\"note\">No figures (run <code>kedyn plot OUTDIR</code>; needs gnuplot).</p>\n");
        return;
    }
    const cJSON* n;
    cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(index, "notes")) {
        if (!cJSON_IsString(n)) continue;
        fprintf(fp, "<p class=\"note\">");
        html_text(fp, n->valuestring);
        fprintf(fp, "</p>\n");
    }
    const cJSON* f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(index, "figures")) {
        char path[1400];
        const char* svg_name = jstr(f, "svg");
        if (!svg_name[0] || strchr(svg_name, '/') || svg_name[0] == '.') continue;  /* figures/ only */
        snprintf(path, sizeof(path), "%s/figures/%s", outdir, svg_name);
        char* svg = io_read_all(path);
        if (!svg) continue;
        const char* start = strstr(svg, "<svg");
        if (start) {
            fprintf(fp, "<figure>\n%s\n<figcaption>", start);
            html_text(fp, jstr(f, "title"));
            fprintf(fp, " (figures/%s, .png)</figcaption></figure>\n", jstr(f, "svg"));
        }
        free(svg);
    }
}

kd_status kd_write_report_html(const char* outdir, const char* note, kd_error* err) {
    char path[1200];
    snprintf(path, sizeof(path), "%s/summary.json", outdir);
    char* text = io_read_all(path);
    if (!text) return kd_error_set(err, KD_ERR_IO, path, KD_LOC_NONE, "cannot read");
    cJSON* summary = cJSON_Parse(text);
    free(text);
    if (!summary) return kd_error_set(err, KD_ERR_INPUT, path, KD_LOC_NONE, "not valid JSON");
    snprintf(path, sizeof(path), "%s/figures/figures.json", outdir);
    text = io_read_all(path);
    cJSON* index = text ? cJSON_Parse(text) : NULL;
    free(text);
    snprintf(path, sizeof(path), "%s/animation.json", outdir);
    char* anim = io_read_all(path);

    snprintf(path, sizeof(path), "%s/report.html", outdir);
    kd_atomic_file f;
    kd_status st = kd_atomic_open(&f, path, err);
    if (st == KD_OK) {
        FILE* fp = f.fp;
        fprintf(fp, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>");
        html_text(fp, jstr(summary, "title"));
        fprintf(fp, " - kedyn report</title>\n<style>\n%s</style>\n</head>\n<body>\n", kd_report_css);
        fprintf(fp, "<div id=\"kd-state\" hidden></div>\n");
        if (note && note[0]) {
            fprintf(fp, "<p class=\"note\">");
            html_text(fp, note);
            fprintf(fp, "</p>\n");
        }
        write_summary(fp, summary);
        write_animation(fp, anim);
        write_tables(fp, summary);
        report_measured_section(fp, summary);  /* identified modes, correlation */
        write_figures(fp, outdir, index);
        fprintf(fp, "<script>\n%s</script>\n</body>\n</html>\n", kd_report_js);
        st = kd_atomic_commit(&f, err);
    }
    free(anim);
    cJSON_Delete(index);
    cJSON_Delete(summary);
    return st;
}
