/* The filesystems --faults-dir may be on: which keep files in RAM (nothing major-faults there)
 * and their names, by statfs f_type. */
#ifndef MEMBENCH_FAULT_FILESYSTEMS_H
#define MEMBENCH_FAULT_FILESYSTEMS_H

#include <stddef.h>

/* The name of a memory-backed filesystem for a statfs f_type (tmpfs, ramfs, ...), where a
 * file never leaves RAM and so never major-faults; NULL for anything else. */
const char *fs_memory_backed_name(long f_type);
/* A readable name for a statfs f_type: "ext4", "xfs", "tmpfs", ... or "0x<hex>". */
void fs_type_name(long f_type, char *buf, size_t len);

#endif
