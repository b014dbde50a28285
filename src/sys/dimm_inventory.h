#ifndef MEMBENCH_DIMM_INVENTORY_H
#define MEMBENCH_DIMM_INVENTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The node's DIMMs as SMBIOS describes them (type 16 Physical Memory Array, type 17 Memory
 * Device), grouped into sockets and channels, and the ceiling they set: channels populated x
 * configured MT/s x bus width, per socket and for the node. What cannot be known is said in a
 * reason, never guessed. */

#define DIMM_SLOTS_MAX 128
#define DIMM_SOCKETS_MAX 16
#define DIMM_CHANNELS_MAX 32 /* per socket */

struct dimm_slot {
    char locator[64];      /* type 17 "Locator", e.g. "CPU0_DIMM_A1" */
    char bank_locator[64]; /* type 17 "Bank Locator", e.g. "P0 CHANNEL A" */
    bool populated;
    uint64_t size_bytes;
    char type[16];           /* "DDR4", "DDR5", "LPDDR5", ... ; "" when unknown */
    unsigned rated_mts;      /* Speed: the DIMM's rated maximum; 0 when unknown */
    unsigned configured_mts; /* Configured Memory Speed: what the firmware set; 0 when unknown */
    unsigned data_width_bits;
    unsigned ranks; /* 0 when unknown */
    uint16_t array_handle;
    int socket;       /* index into dimm_inventory.sockets; -1 when unknown */
    char channel[16]; /* the channel's name on its socket ("A", "0"); "" when unknown */
};

struct dimm_socket {
    int id;                 /* the socket's number as the locators name it (CPU0, P1); -1 unknown */
    unsigned slots;         /* type 17 records on it, populated or not */
    unsigned dimms;         /* populated ones */
    uint64_t bytes;         /* their capacity */
    int channels;           /* the CPU's documented channels per socket; 0 when unknown */
    int channels_named;     /* channels the locators name on this socket; 0 when they name none */
    int channels_populated; /* -1 when unknown */
    unsigned dimms_per_channel_max;
    unsigned configured_mts;  /* the slowest populated DIMM's */
    unsigned rated_mts;       /* the slowest populated DIMM's rating */
    unsigned bus_bits;        /* data width of one channel (64 for DDR4 and DDR5) */
    double ceiling_mbps;      /* 0 when unknown */
    char empty_channels[160]; /* the channels named but without a DIMM, "A, C"; "" when none */
    bool mixed_sizes, mixed_ranks, mixed_speeds;
};

struct dimm_inventory {
    bool read;             /* the SMBIOS tables were read */
    char why_unknown[200]; /* why the ceiling is unknown: "channels unknown: ...", "" when known */
    char source[240];      /* how the ceiling was found, one line for the report */
    char cpu_channels_source[160]; /* the table row's public source, "" without one */
    double ceiling_mbps;           /* the node's, sum of its sockets'; 0 when unknown */
    int n_slots;
    struct dimm_slot slots[DIMM_SLOTS_MAX];
    int n_sockets;
    struct dimm_socket sockets[DIMM_SOCKETS_MAX];
};

/* The CPU whose documented channel count applies: x86 vendor and CPUID family and model as
 * /proc/cpuinfo gives them ("GenuineIntel", 6, 143), or an Arm implementer and part. */
struct cpu_identity {
    char vendor[16];
    int family, model;
    char model_name[128];
    int packages; /* distinct "physical id"s: CPU packages; 0 when cpuinfo names none */
};

/* Reads /proc/cpuinfo's first processor (cpuinfo_path NULL: /proc/cpuinfo), and counts the
 * packages of all. Returns 0, or -1 (fields left empty or 0). */
int cpu_identity_read(const char *cpuinfo_path, struct cpu_identity *out);

/* Reads every type 16 and 17 record under dmi_entries (NULL: /sys/firmware/dmi/entries) and
 * derives sockets, channels and the ceiling for that CPU. Always fills out (out->read false and
 * why_unknown set when the tables cannot be read). */
void dimm_inventory_read(const char *dmi_entries, const struct cpu_identity *cpu,
                         struct dimm_inventory *out);

#endif
