/* The report's section on measured records (src/report/report_html.c): the identified modes and
 * their pairing with the computed ones, from summary.json (docs/model-format.md, "Records"). */
#include <stdio.h>
#include <string.h>

#include <cJSON.h>

#include "report_measure.h"

static void text(FILE* fp, const char* s) {
    for (; s && *s; s++) {
        if (*s == '<') fputs("&lt;", fp);
        else if (*s == '>') fputs("&gt;", fp);
        else if (*s == '&') fputs("&amp;", fp);
        else if (*s == '"') fputs("&quot;", fp);
        else fputc(*s, fp);
    }
}

static double num(const cJSON* a, int i) {
    const cJSON* v = cJSON_GetArrayItem(a, i);
    return cJSON_IsNumber(v) ? v->valuedouble : 0.0;
}

void report_measured_section(FILE* fp, const cJSON* summary) {
    const cJSON* a;
    int any = 0, i = 0;
    cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(summary, "analyses")) {
        i++;
        const cJSON* type = cJSON_GetObjectItemCaseSensitive(a, "type");
        if (!cJSON_IsString(type)) continue;
        const int id = !strcmp(type->valuestring, "identify"), co = !strcmp(type->valuestring, "correlate");
        if (!id && !co) continue;
        if (!any) fprintf(fp, "<h2>Measured records</h2>\n");
        any = 1;
        if (id) {
            const cJSON* f = cJSON_GetObjectItemCaseSensitive(a, "frequency_hz");
            const cJSON* z = cJSON_GetObjectItemCaseSensitive(a, "damping_ratio");
            fprintf(fp, "<h3>Identified modes (analysis %d)</h3>\n<table><tr><th>mode</th><th>f [Hz]</th>"
                        "<th>damping ratio [%%]</th></tr>\n", i);
            for (int k = 0; k < cJSON_GetArraySize(f); k++)
                fprintf(fp, "<tr><td>%d</td><td>%.6g</td><td>%.4g</td></tr>\n", k + 1, num(f, k), 100 * num(z, k));
            fprintf(fp, "</table>\n");
        } else {
            fprintf(fp, "<h3>Measured against computed modes (analysis %d)</h3>\n<table><tr><th>measured</th>"
                        "<th>computed</th><th>MAC</th><th>f measured &minus; computed [Hz]</th></tr>\n", i);
            const cJSON* p;
            cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(a, "pairs"))
                fprintf(fp, "<tr><td>%d</td><td>%d</td><td>%.4f</td><td>%.4g</td></tr>\n", (int)num(p, 0), (int)num(p, 1),
                        num(p, 2), num(p, 3));
            fprintf(fp, "</table>\n");
        }
        const cJSON* msg = cJSON_GetObjectItemCaseSensitive(a, "message");
        if (cJSON_IsString(msg)) {
            fprintf(fp, "<p><em>");
            text(fp, msg->valuestring);
            fprintf(fp, "</em></p>\n");
        }
    }
}
