#include "src/sys/proc_interrupts.h"

#include <stdlib.h>
#include <string.h>

int interrupts_parse(FILE *in, const char *label, struct irq_counts *out)
{
    memset(out, 0, sizeof(*out));
    char *line = NULL;
    size_t cap = 0;
    int rc = -1;
    if (getline(&line, &cap, in) < 0) goto done;
    /* header: "           CPU0       CPU1 ..." (offline CPUs have no column) */
    for (char *p = line; (p = strstr(p, "CPU")) && out->n < IRQ_MAX_CPUS;) {
        char *end;
        long cpu = strtol(p + 3, &end, 10);
        if (end == p + 3) goto done;
        /* the kernel lists CPUs in ascending order; anything else (a CPU twice, a negative or
         * huge number) is not /proc/interrupts, and would pair the wrong columns up later */
        if (cpu < 0 || cpu > 1 << 20 || (out->n > 0 && cpu <= out->cpu[out->n - 1])) goto done;
        out->cpu[out->n++] = (int)cpu;
        p = end;
    }
    if (out->n == 0) goto done;
    size_t label_len = strlen(label);
    while (getline(&line, &cap, in) >= 0) {
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (strncmp(p, label, label_len) != 0 || p[label_len] != ':') continue;
        p += label_len + 1;
        for (int i = 0; i < out->n; i++) {
            char *end;
            while (*p == ' ' || *p == '\t')
                p++;
            if (*p < '0' || *p > '9') goto done; /* fewer columns than CPUs: malformed */
            out->count[i] = strtoull(p, &end, 10);
            p = end;
        }
        rc = 0;
        break;
    }
done:
    free(line);
    if (rc != 0) out->n = 0;
    return rc;
}

int interrupts_read(const char *path, const char *label, struct irq_counts *out)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        memset(out, 0, sizeof(*out));
        return -1;
    }
    int rc = interrupts_parse(f, label, out);
    fclose(f);
    return rc;
}

int irq_cpus_raised(const struct irq_counts *before, const struct irq_counts *after,
                    const int *cpus, int n_cpus)
{
    int raised = 0;
    for (int k = 0; k < n_cpus; k++)
        for (int i = 0; i < after->n; i++) {
            if (after->cpu[i] != cpus[k]) continue;
            for (int j = 0; j < before->n; j++)
                if (before->cpu[j] == cpus[k] && after->count[i] > before->count[j]) raised++;
        }
    return raised;
}

int64_t irq_delta(const struct irq_counts *before, const struct irq_counts *after, const int *cpus,
                  int n_cpus)
{
    if (before->n == 0 || after->n == 0) return -1;
    int64_t sum = 0;
    for (int i = 0; i < after->n; i++) {
        int wanted = cpus == NULL;
        for (int k = 0; k < n_cpus && !wanted; k++)
            wanted = cpus[k] == after->cpu[i];
        if (!wanted) continue;
        for (int j = 0; j < before->n; j++)
            if (before->cpu[j] == after->cpu[i] && after->count[i] >= before->count[j])
                sum += (int64_t)(after->count[i] - before->count[j]);
    }
    return sum;
}
