#ifndef MEMBENCH_REPORT_DIMMS_H
#define MEMBENCH_REPORT_DIMMS_H

#include <jansson.h>
#include <stdio.h>

#include "affinity/memory_nodes.h"
#include "src/sys/dimm_inventory.h"

/* The DIMM inventory in the text report: a line of DIMMs and channels per socket, and the
 * firmware's (HMAT) bandwidth beside the ceiling where memory has one. Nothing when the SMBIOS
 * tables were not read (a VM). */
void report_dimms_text(FILE *out, const struct dimm_inventory *inv, const struct node_memory *m);

/* The JSON object "memory_hardware" (docs/design.md). */
json_t *report_dimms_json(const struct dimm_inventory *inv);

#endif
