/* The report's section on measured records (report_measure.c), for report_html.c. */
#ifndef KEDYN_REPORT_MEASURE_H
#define KEDYN_REPORT_MEASURE_H

#include <stdio.h>

#include <cJSON.h>

/* "Measured records": a table of the modes of each identify analysis and of the pairs of each
 * correlate analysis of summary.json; nothing when there are none. */
void report_measured_section(FILE* fp, const cJSON* summary);

#endif
