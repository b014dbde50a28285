#ifndef MEMBENCH_REPORT_MEMORY_H
#define MEMBENCH_REPORT_MEMORY_H

#include <jansson.h>
#include <stdio.h>

#include "affinity/memory_nodes.h"

/* The node's memory as the report header shows it: every NUMA node by its OS number, its
 * kind, nearest cores, the firmware's figures and memory-side caches, grouped in tiers. */
void report_memory_text(FILE *out, const struct node_memory *m);
json_t *report_memory_json(const struct node_memory *m);

/* "20000 MB/s, 100 ns" (read and write where the firmware gives them apart), or "no HMAT
 * figure" */
void memory_firmware_text(const struct mem_firmware *f, char *buf, size_t len);

#endif
