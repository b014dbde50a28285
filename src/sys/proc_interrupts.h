#ifndef MEMBENCH_PROC_INTERRUPTS_H
#define MEMBENCH_PROC_INTERRUPTS_H

/* /proc/interrupts: one counter line (e.g. "TLB", the TLB shootdowns) per CPU, and what rose
 * between two readings. */

#include <stdint.h>
#include <stdio.h>

#define IRQ_MAX_CPUS 1024

/* One counter line of /proc/interrupts, per CPU. */
struct irq_counts {
    int n;                 /* CPUs (columns) */
    int cpu[IRQ_MAX_CPUS]; /* CPU number of each column, from the header */
    uint64_t count[IRQ_MAX_CPUS];
};

/* Reads the line labelled `label` (e.g. "TLB") from an /proc/interrupts stream, mapping its
 * columns to CPU numbers with the header line. Returns 0, or -1 when there is no such line
 * or the header is unreadable. */
int interrupts_parse(FILE *in, const char *label, struct irq_counts *out);
int interrupts_read(const char *path, const char *label, struct irq_counts *out);

/* How many of the listed CPUs' counts rose from before to after. */
int irq_cpus_raised(const struct irq_counts *before, const struct irq_counts *after,
                    const int *cpus, int n_cpus);

/* Sum of after - before over all CPUs, or over the listed CPUs when cpus != NULL. */
int64_t irq_delta(const struct irq_counts *before, const struct irq_counts *after, const int *cpus,
                  int n_cpus);

#endif
