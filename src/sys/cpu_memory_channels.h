#ifndef MEMBENCH_CPU_MEMORY_CHANNELS_H
#define MEMBENCH_CPU_MEMORY_CHANNELS_H

#include "src/sys/dimm_inventory.h"

/* A server CPU's documented memory interface per socket, from its vendor's public pages. A row
 * applies to a vendor, CPUID family and model and, where one model number covers parts with
 * different channel counts, to model names holding one of `names` ("|" between them). */
struct cpu_memory_row {
    const char *vendor;
    int family, model;
    const char *names; /* NULL: every part of that family and model */
    const char *product;
    int channels; /* per socket */
    const char *memory_type;
    unsigned max_mts; /* the fastest memory any part of the row supports */
    const char *source;
};

/* The row for this CPU, or NULL (an unknown CPU, or a model number shared by parts with
 * different channel counts, such as Granite Rapids' 8- and 12-channel Xeon 6). */
const struct cpu_memory_row *cpu_memory_row_find(const struct cpu_identity *cpu);

#endif
