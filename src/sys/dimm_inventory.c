#include "src/sys/dimm_inventory.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/base/utf8_text.h"
#include "src/sys/cpu_memory_channels.h"
#include "src/sys/dimm_channels.h"
#include "src/sys/dimm_inventory_rules.h"
#include "src/sys/smbios_records.h"

#define ARRAYS_MAX 32
#define ENTRIES_MAX (DIMM_SLOTS_MAX + ARRAYS_MAX)

static void cpuinfo_line(const char *line, struct cpu_identity *out, bool first,
                         unsigned char *seen)
{
    char text[128];
    int value;
    if (sscanf(line, "physical id : %d", &value) == 1 && value >= 0 && value < 256 &&
        !seen[value]) {
        seen[value] = 1;
        out->packages++;
    }
    if (!first) return;
    if (sscanf(line, "vendor_id : %15s", text) == 1)
        snprintf(out->vendor, sizeof(out->vendor), "%.15s", text);
    if (sscanf(line, "cpu family : %d", &value) == 1) out->family = value;
    if (sscanf(line, "model : %d", &value) == 1) out->model = value;
    if (sscanf(line, "model name : %127[^\n]", text) == 1)
        snprintf(out->model_name, sizeof(out->model_name), "%s", text);
    if (sscanf(line, "CPU implementer : %15s", text) == 1 && !out->vendor[0])
        snprintf(out->vendor, sizeof(out->vendor), "%.15s", text);
    if (sscanf(line, "CPU part : %i", &value) == 1 && !out->model) out->model = value;
}

int cpu_identity_read(const char *cpuinfo_path, struct cpu_identity *out)
{
    memset(out, 0, sizeof(*out));
    FILE *f = fopen(cpuinfo_path ? cpuinfo_path : "/proc/cpuinfo", "r");
    if (!f) return -1;
    char line[512];
    unsigned char seen[256] = {0};
    int processors = 0;
    while (fgets(line, sizeof(line), f)) {
        if (!strncmp(line, "processor", 9)) processors++;
        cpuinfo_line(line, out, processors <= 1, seen);
    }
    fclose(f);
    text_squeeze_blanks(out->model_name);
    return out->vendor[0] ? 0 : -1;
}

struct entry {
    int type;
    long index;
    char name[64];
};

static int entry_order(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    if (x->type != y->type) return x->type - y->type;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* The "16-*" and "17-*" entries of dir, by type and index. -1 (errno) when dir is unreadable. */
static int list_entries(const char *dir, struct entry *list, int *n)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    struct dirent *e;
    *n = 0;
    while ((e = readdir(d)) && *n < ENTRIES_MAX) {
        char *end;
        long type = strtol(e->d_name, &end, 10);
        if ((type != 16 && type != 17) || *end != '-' || strlen(e->d_name) >= 64) continue;
        struct entry *x = &list[(*n)++];
        x->type = (int)type;
        x->index = strtol(end + 1, NULL, 10);
        snprintf(x->name, sizeof(x->name), "%s", e->d_name);
    }
    closedir(d);
    qsort(list, (size_t)*n, sizeof(*list), entry_order);
    return 0;
}

/* The raw record of one entry: its length, or -1 (errno) when it cannot be read. */
static long read_raw(const char *dir, const char *name, uint8_t *buf, size_t cap)
{
    char path[400];
    snprintf(path, sizeof(path), "%s/%s/raw", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    size_t got = fread(buf, 1, cap, f);
    int failed = ferror(f);
    fclose(f);
    if (failed) {
        errno = EIO;
        return -1;
    }
    return (long)got;
}

/* Why nothing can be said: what the tables under dir hold, or why they cannot be read. */
static void tables_unread(struct dimm_inventory *out, const char *dir, int open_errno, int records,
                          int unreadable)
{
    if (open_errno == ENOENT)
        snprintf(out->why_unknown, sizeof(out->why_unknown), "no SMBIOS tables (%.60s is absent)",
                 dir);
    else if (open_errno || (unreadable && unreadable == records))
        snprintf(out->why_unknown, sizeof(out->why_unknown),
                 "the SMBIOS memory records cannot be read (%s)%s",
                 strerror(open_errno ? open_errno : EACCES), geteuid() == 0 ? "" : ": run as root");
    else if (records)
        snprintf(out->why_unknown, sizeof(out->why_unknown),
                 "the SMBIOS memory device records (type 17) are malformed");
    else
        snprintf(out->why_unknown, sizeof(out->why_unknown),
                 "SMBIOS lists no memory device (type 17), as a VM often does");
}

/* Reads the records; returns the number of type 17 records read, sets *arrays. */
static int read_records(const char *dir, struct dimm_inventory *out,
                        struct smbios_memory_array *arrays, int *n_arrays, int *unreadable)
{
    static struct entry list[ENTRIES_MAX];
    int n = 0, records = 0;
    *n_arrays = *unreadable = 0;
    if (list_entries(dir, list, &n) != 0) return -1;
    for (int i = 0; i < n; i++) {
        uint8_t raw[4096];
        long len = read_raw(dir, list[i].name, raw, sizeof(raw));
        if (list[i].type == 17) records++;
        if (len < 0) {
            *unreadable += list[i].type == 17 && errno == EACCES;
            continue;
        }
        if (list[i].type == 16 && *n_arrays < ARRAYS_MAX &&
            smbios_memory_array_decode(raw, (size_t)len, &arrays[*n_arrays]) == 0)
            (*n_arrays)++;
        if (list[i].type == 17 && out->n_slots < DIMM_SLOTS_MAX &&
            smbios_memory_device_decode(raw, (size_t)len, &out->slots[out->n_slots]) == 0)
            out->n_slots++;
    }
    return records;
}

void dimm_inventory_read(const char *dmi_entries, const struct cpu_identity *cpu,
                         struct dimm_inventory *out)
{
    const char *dir = dmi_entries ? dmi_entries : "/sys/firmware/dmi/entries";
    memset(out, 0, sizeof(*out));
    struct smbios_memory_array arrays[ARRAYS_MAX];
    int n_arrays, unreadable;
    int records = read_records(dir, out, arrays, &n_arrays, &unreadable);
    if (records < 0 || out->n_slots == 0) {
        tables_unread(out, dir, records < 0 ? errno : 0, records, unreadable);
        return;
    }
    out->read = true;
    static const struct cpu_identity none;
    dimm_inventory_derive(out, arrays, n_arrays, cpu ? cpu : &none);
}
