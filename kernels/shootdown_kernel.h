#ifndef MEMBENCH_SHOOTDOWN_KERNEL_H
#define MEMBENCH_SHOOTDOWN_KERNEL_H

/* The shootdown probe's timed loops: one op (touch a region's pages, then take them away) and
 * the siblings' spin. No threads, no binding, no /proc here: the engine
 * (src/probes/shootdown_probe.c) runs the points and counts the interrupts. */

#include <stdatomic.h>
#include <stddef.h>

enum shootdown_mode { SHOOTDOWN_MUNMAP, SHOOTDOWN_DONTNEED, SHOOTDOWN_MODE_COUNT };

const char *shootdown_mode_name(enum shootdown_mode m); /* "munmap", "madv_dontneed" */

/* The region sits in a larger mapping, one base page past a PMD boundary (2 MB at 4 KB pages),
 * between two touched "pin" pages: the page tables around it then stay populated, so unmapping it
 * frees no page table (which would also interrupt idle CPUs) and it never forms a transparent huge
 * page. */
struct shootdown_arena {
    char *map;
    size_t map_len;
    char *region;
    size_t region_len;
};

/* Bytes mapped for a point of `pages` pages: the region, a page pinned on each side of it, and
 * room to start it on a 2 MB boundary. */
size_t shootdown_arena_bytes(unsigned pages);

/* Maps the arena of `pages` pages and touches its pins: 0, or -1 with a reason. */
int shootdown_arena_open(struct shootdown_arena *a, unsigned pages, char *why, size_t why_len);
void shootdown_arena_close(struct shootdown_arena *a);

/* One op: touch every page (so each has a TLB-cached translation to take away), then unmap
 * them; the munmap variant maps the hole again for the next op. *unmap_s gets the unmap's time,
 * *cycle_s the whole op's. Returns 0, or -1 with a reason. */
int shootdown_op(struct shootdown_arena *a, enum shootdown_mode mode, unsigned pages,
                 double *unmap_s, double *cycle_s, char *why, size_t why_len);

/* A sibling's loop: reads the anchor (a page of this mm) until *stop is set. */
void shootdown_spin(const volatile char *anchor, atomic_int *stop);

#endif
