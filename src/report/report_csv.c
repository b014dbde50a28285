#include <string.h>

#include "src/base/csv_field.h"
#include "src/report/report.h"
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
static void write_provenance(FILE *out, const struct report *rep)
{
    fputc(',', out);
    csv_field(out, rep->sys.hostname);
    fputc(',', out);
    csv_field(out, rep->prov.start_iso);
    fputc(',', out);
    csv_field(out, rep->version);
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

int report_write_csv(FILE *out, const struct report *rep)
{
    const struct stream_result *stream = report_stream(rep);
    size_t tables = 0; /* the other measurements' tables: those alone have only theirs */
    for (size_t i = 0; i < rep->n_parts; i++)
        tables += rep->parts[i].m->csv != NULL;
    bool stream_table = stream->n_runs > 0 || tables == 0;
    if (stream_table) write_header(out);
    for (size_t i = 0; i < stream->n_runs; i++) {
        const struct run_result *r = &stream->runs[i];
        for (int k = 0; k < r->n_results; k++) {
            const struct kernel_result *x = &r->results[k];
            int col;
            write_config(out, i, r, x, &col);
            fprintf(out, "%s,", kernel_table[x->kernel].name);
            if (r->measured)
                fprintf(out, "%.1f,%.6f,%.6f,%.6f,", x->best_rate_mbps, x->avg_time_s,
                        x->min_time_s, x->max_time_s);
            else
                fprintf(out, ",,,,");
            fprintf(out, "%llu,%llu,%s", (unsigned long long)x->bytes_counted,
                    (unsigned long long)x->bytes_estimated_traffic,
                    r->measured ? (r->validation.passed ? "true" : "false") : "");
            col += 8; /* kernel to validated */
            profile_columns(out, &r->config, &col);
            fputc(',', out);
            if (r->measured && r->locality.verified)
                fprintf(out, "%.4f", r->locality.local_fraction);
            col++;
            profile_columns(out, &r->config, &col);
            write_provenance(out, rep);
            appended_columns(out, &r->config);
            fputc('\n', out);
        }
    }
    bool after_table = stream_table; /* a blank line before a table when one came before */
    struct measure_report_facts f = report_facts(rep);
    for (int slot = MEASURE_LEAD; slot <= MEASURE_AFTER_TAIL; slot++)
        for (size_t i = 0; i < rep->n_parts; i++) {
            const struct measurement *m = rep->parts[i].m;
            if (m->csv && (int)m->data_slot == slot)
                after_table |= m->csv(out, rep->parts[i].result, &f, after_table);
        }
    return ferror(out) ? -1 : 0;
}
