#ifndef MEMBENCH_TLB_OPTIONS_H
#define MEMBENCH_TLB_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/tlb_probe.h"
#include "src/measure/option_row.h"

/* The command-line settings of the probe (parsed by its rows, checked against the machine
 * later). */
struct tlb_options {
    bool enabled;   /* --tlb */
    int cpu;        /* --cpu N; -1 = unpinned */
    bool cpu_given; /* otherwise the first planned PU */
    enum tlb_order order;
    bool stagger; /* page p uses cache line p mod (lines per page); --no-stagger clears it */
    enum tlb_mode mode;
    uint64_t pages;       /* --tlb-pages: single point; 0 = sweep */
    uint64_t trials;      /* --tlb-trials: traversals per sample in single-point mode; 0 = auto */
    unsigned repeat;      /* --repeat K: samples per point (min and median reported) */
    uint64_t max_pages;   /* --tlb-max-pages: the sweep's last point */
    bool max_pages_given; /* given on the command line: the memory share is not imposed */
};

#define TLB_DEFAULT_REPEAT 5
#define TLB_DEFAULT_MAX_PAGES 32768u
#define TLB_MAX_PAGES_LIMIT (1u << 22)

/* --tlb and its options: rows in struct tlb_options (tlb_measurement's .options). */
extern const struct measure_options tlb_option_rows;

#endif
