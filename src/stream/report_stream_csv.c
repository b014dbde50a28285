/* STREAM's runs in the CSV report: one row per run and kernel. */
#include <string.h>

#include "src/base/csv_field.h"
#include "src/stream/report_stream.h"
#include "src/stream/run_profile.h"

/* The CSV layout: a column named as a row of the run profile (run_profile.c, .csv) is that
 * row's value, written from the table; the others are the CSV's own. A row with a column that
 * the layout does not name is appended after schema, in the table's order. */
static const char *layout = "run,threads,bind,pages,page_size_bytes,stores,type,array_elements,"
                            "array_bytes,offset,ntimes,kernel,best_rate_mbps,avg_time_s,"
                            "min_time_s,max_time_s,bytes_counted,bytes_estimated_traffic,"
                            "validated,below_stream_rule,isa,tuned,local_fraction,cpu_node,"
                            "mem_node,hostname,start_time,membench_version,schema";

/* The name of column col (from 1) of the layout, up to its comma; NULL past the last. */
static const char *layout_name(int col)
{
    const char *name = layout;
    for (int i = 1; i < col && name; i++)
        if ((name = strchr(name, ',')) != NULL) name++;
    return name;
}

/* The run profile's row at column col (from 1) of the layout; NULL for the CSV's own. */
static const struct profile_field *profile_column(int col)
{
    const char *name = layout_name(col);
    if (!name) return NULL;
    const struct profile_field *f = run_profile_find(name, strcspn(name, ","));
    return f && f->csv ? f : NULL;
}

/* Whether a row's column comes after schema: the layout does not name it. */
static bool appended(const struct profile_field *f)
{
    if (!f->csv) return false;
    for (int col = 1; layout_name(col); col++)
        if (profile_column(col) == f) return false;
    return true;
}

static void write_header(FILE *out)
{
    fputs(layout, out);
    for (size_t i = 0; i < run_profile_rows; i++)
        if (appended(&run_profile[i])) fprintf(out, ",%s", run_profile[i].key);
    fputc('\n', out);
}

/* The CSV layout's version: within one, columns are only appended, never moved or renamed. */
#define CSV_SCHEMA 1

/* The columns after mem_node: where and when the row was measured, and by what. */
static void write_provenance(FILE *out, const struct measure_report_facts *f)
{
    fputc(',', out);
    csv_field(out, f->hostname);
    fputc(',', out);
    csv_field(out, f->start_iso);
    fputc(',', out);
    csv_field(out, f->version);
    fprintf(out, ",%d", CSV_SCHEMA);
}

/* One profile value, after its comma. */
static void profile_cell(FILE *out, const struct profile_field *f, const struct run_config *c)
{
    struct profile_value v;
    profile_value_of(f, c, &v);
    fputc(',', out);
    if (v.kind == VALUE_NUMBER)
        fprintf(out, "%lld", v.number);
    else if (v.kind == VALUE_BOOL)
        fputs(v.number ? "true" : "false", out);
    else if (v.kind == VALUE_TEXT && v.text)
        csv_field(out, v.text); /* a --bind list holds commas */
}

/* The run profile's columns from *col + 1 up to the next of the CSV's own, each after a
 * comma; *col becomes the last written. */
static void profile_columns(FILE *out, const struct run_config *c, int *col)
{
    const struct profile_field *f;
    while ((f = profile_column(*col + 1)) != NULL) {
        profile_cell(out, f, c);
        ++*col;
    }
}

/* The columns after schema: the profile rows the layout does not name. */
static void appended_columns(FILE *out, const struct run_config *c)
{
    for (size_t i = 0; i < run_profile_rows; i++)
        if (appended(&run_profile[i])) profile_cell(out, &run_profile[i], c);
}

/* The columns up to ntimes, and the comma after it. */
static void write_config(FILE *out, size_t index, const struct run_result *r,
                         const struct kernel_result *x, int *col)
{
    fprintf(out, "%zu", index + 1);
    *col = 1;
    profile_columns(out, &r->config, col);
    fputc(',', out);
    if (r->backing.verified) fprintf(out, "%llu", (unsigned long long)r->backing.page_size_bytes);
    fprintf(out, ",%s", kernel_stores_name(r, x));
    *col += 2;
    profile_columns(out, &r->config, col);
    fputc(',', out);
}

/* One row: the run's profile and the kernel's rates. */
static void write_row(FILE *out, size_t index, const struct run_result *r,
                      const struct kernel_result *x, const struct measure_report_facts *f)
{
    int col;
    write_config(out, index, r, x, &col);
    fprintf(out, "%s,", kernel_table[x->kernel].name);
    if (r->measured)
        fprintf(out, "%.1f,%.6f,%.6f,%.6f,", x->best_rate_mbps, x->avg_time_s, x->min_time_s,
                x->max_time_s);
    else
        fprintf(out, ",,,,");
    fprintf(out, "%llu,%llu,%s", (unsigned long long)x->bytes_counted,
            (unsigned long long)x->bytes_estimated_traffic,
            r->measured ? (r->validation.passed ? "true" : "false") : "");
    col += 8; /* kernel to validated */
    profile_columns(out, &r->config, &col);
    fputc(',', out);
    if (r->measured && r->locality.verified) fprintf(out, "%.4f", r->locality.local_fraction);
    col++;
    profile_columns(out, &r->config, &col);
    write_provenance(out, f);
    appended_columns(out, &r->config);
    fputc('\n', out);
}

bool report_stream_csv(FILE *out, const struct stream_result *stream,
                       const struct measure_report_facts *f)
{
    if (stream->n_runs == 0) return false;
    write_header(out);
    for (size_t i = 0; i < stream->n_runs; i++)
        for (int k = 0; k < stream->runs[i].n_results; k++)
            write_row(out, i, &stream->runs[i], &stream->runs[i].results[k], f);
    return true;
}
