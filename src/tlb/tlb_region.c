/* The TLB probe's memory: its regions come from the page backends, first touched before any
 * timing. */
#include "src/tlb/tlb_region.h"

#include <stdio.h>
#include <string.h>

#include "src/base/interrupt.h"

void tlb_region_release(struct tlb_region *r)
{
    if (r->backend) r->backend->release(&r->mr);
    memset(r, 0, sizeof(*r));
}

/* Memory for the 4 KB sweep from the --pages backend ("4k" by default: THP advised off). */
int tlb_region_alloc_small(struct tlb_region *r, size_t bytes, const char *pages_name, char *why,
                           size_t why_len)
{
    memset(r, 0, sizeof(*r));
    const struct mem_backend *b = mem_backend_find(pages_name);
    if (!b) {
        snprintf(why, why_len, "--pages %s: no such page backing", pages_name);
        return -1;
    }
    if (b->probe(&mem_env_system, bytes, why, why_len) != 0 ||
        b->alloc(&r->mr, bytes, why, why_len) != 0)
        return -1;
    r->backend = b;
    r->base = r->mr.base;
    r->bytes = bytes;
    r->how = b->how;
    return 0;
}

uint64_t tlb_huge_bytes(void)
{
    return page_pmd_bytes();
}

const char *tlb_sweep_name(bool huge)
{
    static char names[2][48];
    char size[PAGE_TEXT_LEN];
    snprintf(names[huge], sizeof(names[huge]), "the %s sweep",
             page_size_text(huge ? tlb_huge_bytes() : page_base_bytes(), size));
    return names[huge];
}

/* Memory on PMD-sized pages: the hugetlb pool ("2m", where 2 MB is the PMD size) when it can
 * serve it, else transparent huge pages ("thp", PMD-aligned and advised); never silently small
 * pages. */
int tlb_region_alloc_huge(struct tlb_region *r, size_t bytes, char *why, size_t why_len)
{
    memset(r, 0, sizeof(*r));
    static const char *const names[] = {"2m", "thp"};
    char reasons[2][200] = {"", ""}, size[PAGE_TEXT_LEN];
    if (tlb_huge_bytes() != PAGE_2M) snprintf(reasons[0], sizeof(reasons[0]), "not the PMD size");
    for (size_t i = tlb_huge_bytes() == PAGE_2M ? 0 : 1; i < 2; i++) {
        const struct mem_backend *b = mem_backend_find(names[i]);
        if (b && b->probe(&mem_env_system, bytes, reasons[i], sizeof(reasons[i])) == 0 &&
            b->alloc(&r->mr, bytes, reasons[i], sizeof(reasons[i])) == 0) {
            r->backend = b;
            r->base = r->mr.base;
            r->bytes = bytes;
            r->how = b->how;
            return 0;
        }
    }
    snprintf(why, why_len, "no %s pages: 2m: %.120s; thp: %.120s",
             page_size_text(tlb_huge_bytes(), size), reasons[0], reasons[1]);
    return -1;
}

/* Pre-touch: every page written once by the thread that will use it, so demand-zero faults
 * happen before timing (seed 000 pitfall 4). Checks for a signal every 16 MiB; false when one
 * came (a huge sweep's region is gigabytes). */
bool tlb_region_touch(struct tlb_region *r, size_t step)
{
    const size_t check = 16u << 20;
    for (size_t off = 0; off < r->bytes; off += step) {
        if (off % check < step && off && interrupt_should_stop()) return false;
        r->base[off] = 1;
    }
    return true;
}
