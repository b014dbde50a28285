#include "src/sys/memory_budget.h"

#include <stdio.h>

#include "src/base/log.h"
#include "src/base/parse.h"

void memory_budget_of(const struct sys_info *sys, struct memory_budget *b)
{
    uint64_t avail = sys->mem_available_bytes;
    b->by_cgroup = sys->cgroup_limit_bytes && (avail == 0 || sys->cgroup_headroom_bytes < avail);
    b->basis = b->by_cgroup ? sys->cgroup_headroom_bytes : avail;
    b->cgroup_limit = b->by_cgroup ? sys->cgroup_limit_bytes : 0;
    b->usable = (uint64_t)(MEMORY_MARGIN * (double)b->basis);
    if (b->by_cgroup && b->usable == 0) b->usable = 1; /* known, and nothing left */
}

void memory_budget_now(struct memory_budget *b)
{
    struct sys_info s = {0};
    if (meminfo_available("/proc/meminfo", &s.mem_available_bytes) != 0) s.mem_available_bytes = 0;
    if (cgroup_memory_headroom("/proc/self/cgroup", "/sys/fs/cgroup", &s.cgroup_headroom_bytes,
                               &s.cgroup_limit_bytes) != 0)
        s.cgroup_limit_bytes = s.cgroup_headroom_bytes = 0;
    memory_budget_of(&s, b);
}

bool memory_budget_fits(const struct memory_budget *b, uint64_t need)
{
    return b->usable == 0 || need <= b->usable;
}

void memory_budget_describe(const struct memory_budget *b, char *buf, size_t len)
{
    char usable[32], basis[32];
    format_bytes(b->by_cgroup && b->usable == 1 ? 0 : b->usable, usable, sizeof(usable));
    format_bytes(b->basis, basis, sizeof(basis));
    if (b->by_cgroup) {
        char limit[32];
        format_bytes(b->cgroup_limit, limit, sizeof(limit));
        snprintf(buf, len,
                 "only %s may be used (%.0f%% of the %s this process's memory cgroup still "
                 "allows, limit %s)",
                 usable, MEMORY_MARGIN * 100.0, basis, limit);
    } else {
        snprintf(buf, len, "only %s may be used (%.0f%% of MemAvailable %s)", usable,
                 MEMORY_MARGIN * 100.0, basis);
    }
}

int memory_budget_check(const struct memory_budget *b, uint64_t need, const char *what,
                        const char *detail, const char *remedy)
{
    if (memory_budget_fits(b, need)) return EXIT_OK;
    char needs[32], room[200];
    format_bytes(need, needs, sizeof(needs));
    memory_budget_describe(b, room, sizeof(room));
    log_error("%s %s%s but %s; %s%s", what, needs, detail, room, remedy,
              b->by_cgroup ? " or ask the batch system for more memory" : "");
    return EXIT_RESOURCE;
}
