/* The probe options that no generic row kind parses: checked here as text, nothing about the
 * machine. */
#include <stdio.h>
#include <string.h>

#include "src/cli/option_table.h"

#define MAX_FAULTS_BYTES (1ull << 40)

static int add_backing(const char *item, void *vctx)
{
    unsigned *mask = vctx;
    if (strcmp(item, "file") == 0) {
        *mask |= 1u << FAULT_FILE | 1u << FAULT_FILE_READAHEAD;
        return 0;
    }
    for (int b = 0; b < FAULT_BACKING_COUNT; b++)
        if (strcmp(item, fault_backing_name((enum fault_backing)b)) == 0) {
            *mask |= 1u << b;
            return 0;
        }
    return option_error("--faults-backing %s: unknown value (accepted: %s)", item,
                        "4k, thp, 2m, file, file-readahead");
}

int set_faults_backing(struct options *o, const char *arg)
{
    return option_list("--faults-backing", arg, add_backing, &o->probes.faults_backings);
}

void show_faults_backing(const struct options *o, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int b = 0; b < FAULT_BACKING_COUNT; b++)
        if (o->probes.faults_backings & (1u << b))
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? "," : "",
                     fault_backing_name((enum fault_backing)b));
}

int set_faults_size(struct options *o, const char *arg)
{
    struct size_spec s;
    char why[256];
    if (parse_size(arg, &s, why, sizeof(why)) != 0) return option_error("--faults-size: %s", why);
    uint64_t bytes;
    if (s.kind == SIZE_ELEMENTS) /* a plain number is MiB */
        bytes = s.elements > MAX_FAULTS_BYTES >> 20 ? MAX_FAULTS_BYTES + 1 : s.elements << 20;
    else if (s.kind == SIZE_BYTES)
        bytes = s.bytes;
    else
        return option_error("--faults-size %s: give a size such as 64MiB (a multiple of the LLC "
                            "means nothing here)",
                            arg);
    if (bytes > MAX_FAULTS_BYTES)
        return option_error("--faults-size %s: too large (at most 1 TiB)", arg);
    if (bytes == 0 || bytes % PAGE_2M != 0)
        return option_error("--faults-size %s: must be a positive multiple of 2 MiB (the huge "
                            "page size), e.g. 64MiB",
                            arg);
    o->probes.faults_bytes = bytes;
    return 0;
}

void show_faults_size(const struct options *o, char *buf, size_t len)
{
    buf[0] = '\0';
    if (o->probes.faults_bytes)
        snprintf(buf, len, "%lluMiB", (unsigned long long)(o->probes.faults_bytes >> 20));
}

int set_latency_size(struct options *o, const char *arg)
{
    char why[256];
    if (parse_size(arg, &o->latency.size, why, sizeof(why)) != 0)
        return option_error("--latency-size: %s", why);
    if (o->latency.size.kind == SIZE_ELEMENTS)
        return option_error("--latency-size %s: give bytes such as 256MiB, or a multiple of the "
                            "LLC such as 4xLLC",
                            arg);
    if (o->latency.size.kind == SIZE_BYTES && o->latency.size.bytes < LATENCY_MIN_BYTES)
        return option_error("--latency-size %s: at least 4MiB (two 2 MiB pages to hop between)",
                            arg);
    o->latency.size_given = true;
    return 0;
}

void show_latency_size(const struct options *o, char *buf, size_t len)
{
    snprintf(buf, len, "%s", o->latency.size_given ? o->latency.size.text : "");
}
