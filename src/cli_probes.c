/* Command-line options of the probes: parsed and checked here, nothing about the machine. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "src/log.h"
#include "src/parse.h"
#include "src/probes.h"

#define MAX_REMOTE 1023u
#define MAX_PAGES_PER_UNMAP 65536u
#define MAX_FAULTS_BYTES (1ull << 40)

static int probe_usage(const char *fmt, const char *a, const char *b)
{
    char msg[512];
    snprintf(msg, sizeof(msg), fmt, a, b);
    log_error("%s; see membench --help", msg);
    return 1;
}

void probe_print_help(FILE *out)
{
    fprintf(out,
            "\n"
            "Probes (combinable; alone they replace the STREAM kernels, which then run only\n"
            "when --copy/--scale/--add/--triad are also given):\n"
            "  --faults      page-fault cost: touch one byte per 4 KB page of a fresh region\n"
            "                under 4k, thp and 2m backings (minor faults), then of an evicted\n"
            "                file with readahead off and on (major faults)\n"
            "  --faults-size SIZE       region and file size, a multiple of 2 MiB; a plain\n"
            "                           number is MiB (default 64)\n"
            "  --faults-dir DIR         directory for the file, on a disk-backed filesystem\n"
            "                           (default $TMPDIR, else /var/tmp)\n"
            "  --faults-backing LIST    4k,thp,2m,file,file-readahead (default all; a listed\n"
            "                           backing that cannot run here is an error, exit 3)\n"
            "  --shootdown   TLB-shootdown cost: one pinned thread unmaps touched pages while\n"
            "                0, 1, 2, ... sibling threads spin on other CPUs\n"
            "  --shootdown-remote N[,N...]  sibling thread counts (default 0,1,2,4,... up to\n"
            "                           the CPUs there are; 0 is always measured)\n"
            "  --shootdown-pages N[,N...]   4 KB pages per unmap (default\n"
            "                           1,2,8,32,33,34,64,512)\n"
            "  --timer       resolution, granularity and cost of clock_gettime, gettimeofday,\n"
            "                rdtsc/rdtscp, TSC frequency, and repetitions for 1%% precision\n"
            "A backing or sibling count that was listed but cannot run here exits 3; by default\n"
            "it is reported as skipped, with the reason.\n");
}

struct number_list {
    unsigned *values;
    int *n;
    int max;
    uint64_t min_value, max_value;
    const char *option;
};

static int add_number(const char *item, void *vctx)
{
    struct number_list *l = vctx;
    char why[256];
    uint64_t v;
    if (parse_uint(item, l->min_value, l->max_value, &v, why, sizeof(why)) != 0)
        return probe_usage("%s: %s", l->option, why);
    for (int i = 0; i < *l->n; i++)
        if (l->values[i] == v) return 0; /* listed twice: measured once */
    if (*l->n == l->max) {
        char max[16];
        snprintf(max, sizeof(max), "%d", l->max);
        return probe_usage("%s: more than %s values", l->option, max);
    }
    l->values[(*l->n)++] = (unsigned)v;
    return 0;
}

static int number_list(struct number_list *l, const char *arg)
{
    char why[256];
    int rc = for_each_list_item(arg, add_number, l, why, sizeof(why));
    if (rc == -1) return probe_usage("%s: %s", l->option, why);
    return rc;
}

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
    return probe_usage("--faults-backing %s: unknown value (accepted: %s)", item,
                       "4k, thp, 2m, file, file-readahead");
}

static int faults_size(struct probe_options *p, const char *arg)
{
    struct size_spec s;
    char why[256];
    if (parse_size(arg, &s, why, sizeof(why)) != 0)
        return probe_usage("--faults-size: %s", why, "");
    uint64_t bytes;
    if (s.kind == SIZE_ELEMENTS) /* a plain number is MiB */
        bytes = s.elements > MAX_FAULTS_BYTES >> 20 ? MAX_FAULTS_BYTES + 1 : s.elements << 20;
    else if (s.kind == SIZE_BYTES)
        bytes = s.bytes;
    else
        return probe_usage("--faults-size %s: give a size such as 64MiB (a multiple of the LLC "
                           "means nothing here)%s",
                           arg, "");
    if (bytes > MAX_FAULTS_BYTES)
        return probe_usage("--faults-size %s: too large (at most 1 TiB)%s", arg, "");
    if (bytes == 0 || bytes % FAULT_HUGE_PAGE != 0)
        return probe_usage("--faults-size %s: must be a positive multiple of 2 MiB (the huge page "
                           "size), e.g. 64MiB%s",
                           arg, "");
    p->faults_bytes = bytes;
    return 0;
}

int probe_apply_option(struct probe_options *p, int code, const char *arg)
{
    if (code >= OPT_FAULTS_SIZE && code <= OPT_SHOOTDOWN_PAGES)
        p->given |= 1u << (code - OPT_FAULTS);
    switch (code) {
    case OPT_FAULTS: p->mask |= PROBE_BIT(PROBE_FAULTS); return 0;
    case OPT_SHOOTDOWN: p->mask |= PROBE_BIT(PROBE_SHOOTDOWN); return 0;
    case OPT_TIMER: p->mask |= PROBE_BIT(PROBE_TIMER); return 0;
    case OPT_FAULTS_SIZE: return faults_size(p, arg);
    case OPT_FAULTS_DIR:
        if (!*arg) return probe_usage("--faults-dir: empty directory name%s%s", "", "");
        p->faults_dir = arg;
        return 0;
    case OPT_FAULTS_BACKING: {
        char why[256];
        int rc = for_each_list_item(arg, add_backing, &p->faults_backings, why, sizeof(why));
        if (rc == -1) return probe_usage("--faults-backing: %s", why, "");
        return rc;
    }
    case OPT_SHOOTDOWN_REMOTE: {
        struct number_list l = {p->remote, &p->n_remote, SHOOTDOWN_MAX_COUNTS,
                                0,         MAX_REMOTE,   "--shootdown-remote"};
        return number_list(&l, arg);
    }
    case OPT_SHOOTDOWN_PAGES: {
        struct number_list l = {p->pages, &p->n_pages,         SHOOTDOWN_MAX_PAGE_COUNTS,
                                1,        MAX_PAGES_PER_UNMAP, "--shootdown-pages"};
        return number_list(&l, arg);
    }
    default: return probe_usage("internal: unhandled probe option%s%s", "", "");
    }
}

int probe_options_finish(struct probe_options *p)
{
    static const struct {
        int code;
        const char *option;
        enum probe_id probe;
        const char *flag;
    } needs[] = {
        {OPT_FAULTS_SIZE, "--faults-size", PROBE_FAULTS, "--faults"},
        {OPT_FAULTS_DIR, "--faults-dir", PROBE_FAULTS, "--faults"},
        {OPT_FAULTS_BACKING, "--faults-backing", PROBE_FAULTS, "--faults"},
        {OPT_SHOOTDOWN_REMOTE, "--shootdown-remote", PROBE_SHOOTDOWN, "--shootdown"},
        {OPT_SHOOTDOWN_PAGES, "--shootdown-pages", PROBE_SHOOTDOWN, "--shootdown"},
    };
    for (size_t i = 0; i < sizeof(needs) / sizeof(needs[0]); i++)
        if ((p->given & (1u << (needs[i].code - OPT_FAULTS))) &&
            !(p->mask & PROBE_BIT(needs[i].probe)))
            return probe_usage("%s only applies to %s; add it", needs[i].option, needs[i].flag);
    return 0;
}
