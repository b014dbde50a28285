#include "kernels/shootdown_kernel.h"

#include "src/base/clock.h"
#include "src/base/page_sizes.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

static const char *const mode_names[SHOOTDOWN_MODE_COUNT] = {"munmap", "madv_dontneed"};

const char *shootdown_mode_name(enum shootdown_mode m)
{
    return m < SHOOTDOWN_MODE_COUNT ? mode_names[m] : "?";
}

/* A sibling spins in user mode of this process, so its CPU has this mm loaded and is not in
 * lazy-TLB mode: the kernel must interrupt it for every flush. A sleeping or idle sibling
 * would not do: the kernel skips lazy CPUs (they flush at their next switch). It spins
 * without PAUSE: in a VM, a PAUSE loop makes the hypervisor deschedule the vCPU as a lock
 * spinner (pause-loop exiting), and with KVM's paravirtual TLB flush the guest then skips the
 * IPI to that "preempted" vCPU, which would hide the very cost measured here. */
void shootdown_spin(const volatile char *anchor, atomic_int *stop)
{
    uint64_t x = 0;
    while (!atomic_load_explicit(stop, memory_order_relaxed)) {
        x += (unsigned char)anchor[0];
        for (int k = 0; k < 64; k++)
            __asm__ volatile("" : "+r"(x));
    }
    __asm__ volatile("" : : "r"(x));
}

size_t shootdown_arena_bytes(unsigned pages)
{
    return (size_t)pages * page_base_bytes() + 2 * page_base_bytes() + page_pmd_bytes();
}

int shootdown_arena_open(struct shootdown_arena *a, unsigned pages, char *why, size_t why_len)
{
    const size_t small = page_base_bytes(), pmd = page_pmd_bytes();
    a->region_len = (size_t)pages * small;
    a->map_len = shootdown_arena_bytes(pages);
    a->map = mmap(NULL, a->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (a->map == MAP_FAILED) {
        snprintf(why, why_len, "mmap of %zu bytes failed: %s", a->map_len, strerror(errno));
        return -1;
    }
    madvise(a->map, a->map_len, MADV_NOHUGEPAGE);
    char *base = (char *)(((uintptr_t)a->map + pmd - 1) & ~(uintptr_t)(pmd - 1));
    a->region = base + small;
    base[0] = 1;                  /* pin before */
    a->region[a->region_len] = 1; /* pin after */
    return 0;
}

void shootdown_arena_close(struct shootdown_arena *a)
{
    munmap(a->map, a->map_len);
}

static void touch(char *region, unsigned pages)
{
    volatile char *p = region;
    const size_t small = page_base_bytes();
    for (unsigned i = 0; i < pages; i++)
        p[(size_t)i * small] = (char)(i | 1);
}

int shootdown_op(struct shootdown_arena *a, enum shootdown_mode mode, unsigned pages,
                 double *unmap_s, double *cycle_s, char *why, size_t why_len)
{
    double c0 = timer_now();
    touch(a->region, pages);
    double u0 = timer_now();
    int rc = mode == SHOOTDOWN_MUNMAP ? munmap(a->region, a->region_len)
                                      : madvise(a->region, a->region_len, MADV_DONTNEED);
    double u1 = timer_now();
    if (rc != 0) {
        snprintf(why, why_len, "%s failed: %s", shootdown_mode_name(mode), strerror(errno));
        return -1;
    }
    if (mode == SHOOTDOWN_MUNMAP) {
        void *p = mmap(a->region, a->region_len, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (p != a->region) {
            snprintf(why, why_len, "mmap back into the unmapped hole failed: %s",
                     p == MAP_FAILED ? strerror(errno) : "placed elsewhere");
            if (p != MAP_FAILED) munmap(p, a->region_len);
            return -1;
        }
        madvise(a->region, a->region_len, MADV_NOHUGEPAGE);
    }
    double c1 = timer_now();
    *unmap_s = u1 - u0;
    *cycle_s = c1 - c0;
    return 0;
}
