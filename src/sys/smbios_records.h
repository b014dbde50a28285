#ifndef MEMBENCH_SMBIOS_RECORDS_H
#define MEMBENCH_SMBIOS_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "src/sys/dimm_inventory.h"

/* Decoding of raw SMBIOS structures (/sys/firmware/dmi/entries/T-I/raw: the formatted area,
 * then its string set), SMBIOS 3.x offsets. A field past the end of a short record is unknown
 * (0 or ""), never read from beyond it. */

/* Type 16, Physical Memory Array. */
struct smbios_memory_array {
    uint16_t handle;
    unsigned use;     /* 0x03 = system memory; 0 when absent */
    unsigned devices; /* Number of Memory Devices; 0 when absent */
};

/* The record's type, or -1 when it is no SMBIOS structure (under 4 bytes, or a length byte
 * under 4 or past the end). */
int smbios_record_type(const uint8_t *raw, size_t len);

/* Returns 0, or -1 when raw is no type 16 record. */
int smbios_memory_array_decode(const uint8_t *raw, size_t len, struct smbios_memory_array *out);

/* Fills the slot's SMBIOS fields (locator, bank_locator, populated, size_bytes, type,
 * rated_mts, configured_mts, data_width_bits, ranks, array_handle); socket -1, channel "".
 * Returns 0, or -1 when raw is no type 17 record. */
int smbios_memory_device_decode(const uint8_t *raw, size_t len, struct dimm_slot *out);

#endif
