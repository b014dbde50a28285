#ifndef MEMBENCH_DIMM_INVENTORY_RULES_H
#define MEMBENCH_DIMM_INVENTORY_RULES_H

#include "src/sys/dimm_inventory.h"
#include "src/sys/smbios_records.h"

/* From the decoded slots (inv->slots, inv->read) and arrays: each slot's socket and channel,
 * the sockets, their channels populated and ceilings, the node's ceiling and its source line,
 * or why_unknown. */
void dimm_inventory_derive(struct dimm_inventory *inv, const struct smbios_memory_array *arrays,
                           int n_arrays, const struct cpu_identity *cpu);

#endif
