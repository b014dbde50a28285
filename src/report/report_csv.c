#include "src/base/csv_field.h"
#include "src/report/report.h"

static const char *header = "run,threads,bind,pages,page_size_bytes,stores,type,array_elements,"
                            "array_bytes,offset,ntimes,kernel,best_rate_mbps,avg_time_s,"
                            "min_time_s,max_time_s,bytes_counted,bytes_estimated_traffic,"
                            "validated,below_stream_rule,isa,tuned,local_fraction,cpu_node,"
                            "mem_node,hostname,start_time,membench_version,schema\n";

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

static void write_config(FILE *out, size_t index, const struct run_result *r,
                         const struct kernel_result *x)
{
    const struct run_config *c = &r->config;
    fprintf(out, "%zu,%u,", index + 1, c->threads);
    csv_field(out, c->bind); /* a --bind list holds commas */
    fputc(',', out);
    csv_field(out, c->pages);
    fputc(',', out);
    if (r->backing.verified)
        fprintf(out, "%llu,", (unsigned long long)r->backing.page_size_bytes);
    else
        fprintf(out, ",");
    fprintf(out, "%s,%s,%llu,%llu,%zu,%u,", kernel_stores_name(r, x), elem_type_name(c->type),
            (unsigned long long)c->elements, (unsigned long long)c->array_bytes, c->offset,
            c->ntimes);
}

int report_write_csv(FILE *out, const struct report *rep)
{
    /* probes alone: only their tables */
    bool stream_table = rep->n_runs > 0 || rep->n_parts == 0;
    if (stream_table) fputs(header, out);
    for (size_t i = 0; i < rep->n_runs; i++) {
        const struct run_result *r = &rep->runs[i];
        for (int k = 0; k < r->n_results; k++) {
            const struct kernel_result *x = &r->results[k];
            write_config(out, i, r, x);
            fprintf(out, "%s,", kernel_table[x->kernel].name);
            if (r->measured)
                fprintf(out, "%.1f,%.6f,%.6f,%.6f,", x->best_rate_mbps, x->avg_time_s,
                        x->min_time_s, x->max_time_s);
            else
                fprintf(out, ",,,,");
            fprintf(out, "%llu,%llu,%s,%s,%s,%s,", (unsigned long long)x->bytes_counted,
                    (unsigned long long)x->bytes_estimated_traffic,
                    r->measured ? (r->validation.passed ? "true" : "false") : "",
                    r->config.below_stream_rule ? "true" : "false", isa_name(r->config.isa),
                    r->config.tuned ? "true" : "false");
            if (r->measured && r->locality.verified)
                fprintf(out, "%.4f", r->locality.local_fraction);
            if (r->config.numa_cell)
                fprintf(out, ",%d,%d", r->config.cpu_node, r->config.mem_node);
            else
                fprintf(out, ",,");
            write_provenance(out, rep);
            fputc('\n', out);
        }
    }
    bool after_table = stream_table; /* a blank line before a table when one came before */
    for (size_t i = 0; i < rep->n_parts; i++, after_table = true)
        rep->parts[i].m->csv(out, rep->parts[i].result, after_table);
    return ferror(out) ? -1 : 0;
}
