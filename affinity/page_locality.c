/* Where pages landed: move_pages(2) with nodes == NULL only reports each page's node. Called
 * through syscall(2), so that membench needs no libnuma. */
#include "affinity/page_locality.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "src/base/test_hooks.h"

#define QUERY_BATCH 512
#define QUERY_PAGE 4096u /* move_pages looks up the page holding each address */

void page_locality_begin(struct page_locality *loc)
{
    memset(loc, 0, sizeof(*loc));
    loc->verified = true;
}

void page_locality_tally(struct page_locality *loc, const int *status, size_t n, int expected)
{
    for (size_t i = 0; i < n; i++) {
        loc->pages_sampled++;
        if (status[i] == -ENOENT || status[i] == -EFAULT)
            loc->pages_absent++;
        else if (status[i] >= 0 && status[i] == expected)
            loc->pages_local++;
    }
}

void page_locality_fail(struct page_locality *loc, const char *fmt, ...)
{
    if (!loc->verified) return; /* the first reason stays */
    loc->verified = false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(loc->reason, sizeof(loc->reason), fmt, ap);
    va_end(ap);
}

void page_locality_end(struct page_locality *loc)
{
    if (loc->verified && loc->pages_sampled == 0) page_locality_fail(loc, "no pages were sampled");
    loc->local_fraction =
        loc->verified ? (double)loc->pages_local / (double)loc->pages_sampled : 0.0;
}

/* move_pages(2) for the calling process; membench-hooked may fail it or move every page. */
static int query(void **pages, size_t n, int *status)
{
    if (test_hooks && test_hooks->move_pages_errno) {
        errno = test_hooks->move_pages_errno;
        return -1;
    }
    if (syscall(SYS_move_pages, 0, (unsigned long)n, pages, NULL, status, 0) != 0) return -1;
    if (test_hooks && test_hooks->pages_on_node)
        for (size_t i = 0; i < n; i++)
            if (status[i] >= 0) status[i] = test_hooks->pages_on_node - 1;
    return 0;
}

static void flush(struct page_locality *loc, void **pages, size_t n, int expected)
{
    int status[QUERY_BATCH];
    if (n == 0 || !loc->verified) return;
    if (query(pages, n, status) != 0) {
        page_locality_fail(loc, "move_pages: %s", strerror(errno));
        return;
    }
    page_locality_tally(loc, status, n, expected);
}

void page_locality_sample(struct page_locality *loc, const void *start, size_t bytes, size_t step,
                          int expected)
{
    void *pages[QUERY_BATCH];
    size_t n = 0;
    uintptr_t at = (uintptr_t)start, end = at + bytes;
    if (bytes == 0 || !loc->verified) return;
    if (step < QUERY_PAGE) step = QUERY_PAGE;
    for (; at < end && loc->verified; at += step) {
        pages[n++] = (void *)(at & ~(uintptr_t)(QUERY_PAGE - 1));
        if (n == QUERY_BATCH) {
            flush(loc, pages, n, expected);
            n = 0;
        }
    }
    flush(loc, pages, n, expected);
}

size_t page_locality_sample_share(struct page_locality *loc, const void *start, size_t bytes,
                                  size_t step, size_t page_bytes, int expected)
{
    if (page_bytes < QUERY_PAGE) page_bytes = QUERY_PAGE;
    uintptr_t lo = ((uintptr_t)start + page_bytes - 1) / page_bytes * page_bytes;
    uintptr_t hi = ((uintptr_t)start + bytes) / page_bytes * page_bytes;
    if (hi <= lo) return 0;
    uint64_t before = loc->pages_sampled;
    page_locality_sample(loc, (const void *)lo, hi - lo, step, expected);
    return (size_t)(loc->pages_sampled - before);
}
