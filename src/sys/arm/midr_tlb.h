#ifndef MEMBENCH_MIDR_TLB_H
#define MEMBENCH_MIDR_TLB_H

/* Documented TLB geometry of Arm cores, keyed by the MIDR implementer and part number that
 * /proc/cpuinfo shows ("CPU implementer", "CPU part"). aarch64 has no instruction that
 * reports TLB sizes to user space, so the figures come from a table of public manuals, each
 * row citing its document; a core not in the table is "unknown", never guessed. Portable C
 * (it reads a file), so the unit tests run it on any host. */

#include "src/sys/cpuid_tlb.h"

#include <stdio.h>

#define MIDR_PARTS_MAX 8

struct midr_part {
    unsigned implementer; /* MIDR_EL1[31:24], 0x41 = Arm */
    unsigned part;        /* MIDR_EL1[15:4] */
};

/* The distinct (implementer, part) pairs of a /proc/cpuinfo text, in order of appearance, at
 * most max. Returns how many. */
int midr_parse_cpuinfo(FILE *cpuinfo, struct midr_part *parts, int max);

/* Fills out (cleared first) from the table for these parts: one part in the table gives its
 * entries and `source`; otherwise `why` says what is unknown (no part, a part not in the
 * table, several different parts). */
void midr_tlb_lookup(const struct midr_part *parts, int n, struct cpuid_tlb_info *out);

/* Reads <root>/proc/cpuinfo (root "" for the real one) and looks its parts up. */
void midr_tlb_read_root(const char *root, struct cpuid_tlb_info *out);

#endif
