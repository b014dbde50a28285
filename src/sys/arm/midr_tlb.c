#include "src/sys/arm/midr_tlb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define ALL_4K_GRANULE (TLB_PAGE_4K | TLB_PAGE_2M | TLB_PAGE_1G)
#define ALL_16K_64K (TLB_PAGE_16K | TLB_PAGE_64K | TLB_PAGE_32M | TLB_PAGE_512M)

struct midr_row {
    unsigned implementer, part;
    const char *core;
    const char *source; /* the public document the figures are read from */
    int n;
    struct cpuid_tlb_entry e[4];
};

/* Only figures read in the cited document; a level the document does not size is left out
 * (cpuid_tlb_data_entries then says 0 = unknown for it). */
static const struct midr_row rows[] = {
    /* Cortex-A53 TRM (Arm DDI 0500E) 5.2.2 Main TLB: 512 entries, 4-way, every VMSAv8 block
     * size but 1GB (split into 512MB). The micro TLBs are not sized in what was read. */
    {0x41,
     0xd03,
     "Cortex-A53",
     "Arm Cortex-A53 TRM DDI 0500E, 5.2.2",
     1,
     {{2, 'U', (ALL_4K_GRANULE & ~TLB_PAGE_1G) | ALL_16K_64K, 512, 4}}},
    /* Cortex-A35 TRM (100236_0100_00) A6.2: micro TLBs of 10 entries on the instruction and
     * data sides; main TLB 512 entries, 2-way, every VMSAv8 block size but 1GB. */
    {0x41,
     0xd04,
     "Cortex-A35",
     "Arm Cortex-A35 TRM 100236_0100_00, A6.2",
     3,
     {{1, 'I', ALL_4K_GRANULE | ALL_16K_64K, 10, 0},
      {1, 'D', ALL_4K_GRANULE | ALL_16K_64K, 10, 0},
      {2, 'U', (ALL_4K_GRANULE & ~TLB_PAGE_1G) | ALL_16K_64K, 512, 2}}},
    /* Cortex-A55: Intel Agilex 5 HPS TRM (814346) 3.6.3.4.1, table "MMU Components":
     * instruction L1 TLB 15, data L1 TLB 16 (fully associative), L2 TLB 1024 4-way; the L2 TLB
     * stores all page sizes and breaks them down for the L1 TLBs. */
    {0x41,
     0xd05,
     "Cortex-A55",
     "Intel Agilex 5 HPS TRM 814346, 3.6.3.4.1 (Cortex-A55)",
     3,
     {{1, 'I', ALL_4K_GRANULE | ALL_16K_64K, 15, 0},
      {1, 'D', ALL_4K_GRANULE | ALL_16K_64K, 16, 0},
      {2, 'U', ALL_4K_GRANULE | ALL_16K_64K, 1024, 4}}},
    /* Cortex-A76 TRM (100798_0300_00) A5.2: instruction L1 TLB 48 (4KB, 16KB, 64KB, 2MB,
     * 32MB), data L1 TLB 48 (4KB, 16KB, 64KB, 2MB, 512MB), both fully associative; L2 TLB
     * 1280 entries, 5-way, 4KB to 1GB. */
    {0x41,
     0xd0b,
     "Cortex-A76",
     "Arm Cortex-A76 TRM 100798_0300_00, A5.2",
     3,
     {{1, 'I', TLB_PAGE_4K | TLB_PAGE_16K | TLB_PAGE_64K | TLB_PAGE_2M | TLB_PAGE_32M, 48, 0},
      {1, 'D', TLB_PAGE_4K | TLB_PAGE_16K | TLB_PAGE_64K | TLB_PAGE_2M | TLB_PAGE_512M, 48, 0},
      {2, 'U', ALL_4K_GRANULE | ALL_16K_64K, 1280, 5}}},
};

static const char *implementer_name(unsigned implementer)
{
    switch (implementer) {
    case 0x41: return "ARM";
    case 0x42: return "Broadcom";
    case 0x43: return "Cavium";
    case 0x46: return "Fujitsu";
    case 0x48: return "HiSilicon";
    case 0x4e: return "NVIDIA";
    case 0x51: return "Qualcomm";
    case 0x61: return "Apple";
    case 0xc0: return "Ampere";
    default: return "";
    }
}

/* "0x41" after the colon of a "key : value" line; -1 when the line is not that key. */
static long field_value(const char *line, const char *key)
{
    size_t k = strlen(key);
    if (strncmp(line, key, k) != 0) return -1;
    const char *colon = strchr(line + k, ':');
    if (!colon) return -1;
    for (const char *p = line + k; p < colon; p++)
        if (*p != ' ' && *p != '\t') return -1;
    char *end;
    errno = 0;
    long v = strtol(colon + 1, &end, 0);
    return errno || end == colon + 1 || v < 0 ? -1 : v;
}

int midr_parse_cpuinfo(FILE *cpuinfo, struct midr_part *parts, int max)
{
    char line[256];
    long implementer = -1;
    int n = 0;
    while (fgets(line, sizeof(line), cpuinfo)) {
        long v = field_value(line, "CPU implementer");
        if (v >= 0) {
            implementer = v;
            continue;
        }
        v = field_value(line, "CPU part");
        if (v < 0 || implementer < 0) continue;
        struct midr_part p = {(unsigned)implementer, (unsigned)v};
        int seen = 0;
        for (int i = 0; i < n; i++)
            seen |= parts[i].implementer == p.implementer && parts[i].part == p.part;
        if (!seen && n < max) parts[n++] = p;
    }
    return n;
}

static const struct midr_row *find_row(struct midr_part p)
{
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        if (rows[i].implementer == p.implementer && rows[i].part == p.part) return &rows[i];
    return NULL;
}

#define NOT_EXPOSED "aarch64 does not expose TLB geometry to user space"

void midr_tlb_lookup(const struct midr_part *parts, int n, struct cpuid_tlb_info *out)
{
    memset(out, 0, sizeof(*out));
    out->from_midr = true;
    if (n == 0) {
        snprintf(out->why, sizeof(out->why), NOT_EXPOSED " (no 'CPU part' in /proc/cpuinfo)");
        return;
    }
    snprintf(out->vendor, sizeof(out->vendor), "%s", implementer_name(parts[0].implementer));
    out->family = parts[0].implementer;
    out->model = parts[0].part;
    if (n > 1) {
        int used = snprintf(out->why, sizeof(out->why),
                            NOT_EXPOSED ", and this CPU mixes core types (parts");
        for (int i = 0; i < n && used < (int)sizeof(out->why); i++)
            used += snprintf(out->why + used, sizeof(out->why) - (size_t)used, " 0x%x/0x%03x",
                             parts[i].implementer, parts[i].part);
        if (used < (int)sizeof(out->why))
            snprintf(out->why + used, sizeof(out->why) - (size_t)used, "): their TLBs differ");
        return;
    }
    const struct midr_row *r = find_row(parts[0]);
    if (!r) {
        snprintf(out->why, sizeof(out->why),
                 NOT_EXPOSED " (CPU part 0x%x/0x%03x not in membench's table)",
                 parts[0].implementer, parts[0].part);
        return;
    }
    for (int i = 0; i < r->n; i++)
        out->e[out->n++] = r->e[i];
    snprintf(out->source, sizeof(out->source), "%s: %s", r->core, r->source);
}

void midr_tlb_read_root(const char *root, struct cpuid_tlb_info *out)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/proc/cpuinfo", root);
    FILE *f = fopen(path, "r");
    if (!f) {
        int err = errno;
        memset(out, 0, sizeof(*out));
        snprintf(out->why, sizeof(out->why),
                 NOT_EXPOSED ", and /proc/cpuinfo cannot be read (%.60s)", strerror(err));
        return;
    }
    struct midr_part parts[MIDR_PARTS_MAX];
    int n = midr_parse_cpuinfo(f, parts, MIDR_PARTS_MAX);
    fclose(f);
    midr_tlb_lookup(parts, n, out);
}
