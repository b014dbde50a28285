/* The CSV report: the tables of the measurements that ran, a blank line between two. */
#include "src/report/report.h"

int report_write_csv(FILE *out, const struct report *rep)
{
    bool after_table = false; /* a blank line before a table when one came before */
    struct measure_report_facts f = report_facts(rep);
    for (int slot = MEASURE_LEAD; slot <= MEASURE_AFTER_TAIL; slot++)
        for (size_t i = 0; i < rep->n_parts; i++) {
            const struct measurement *m = rep->parts[i].m;
            if (m->csv && (int)m->data_slot == slot)
                after_table |= m->csv(out, rep->parts[i].result, &f, after_table);
        }
    return ferror(out) ? -1 : 0;
}
