#include "affinity/launch_cpus.h"

#include <sched.h>
#include <stdbool.h>
#include <string.h>

/* Room for 8192 CPUs; on a larger machine the snapshots fail and the current binding is used. */
#define MASK_WORDS (8192 / (8 * sizeof(unsigned long)))

struct snapshot {
    bool taken;
    unsigned long mask[MASK_WORDS];
};

static struct snapshot at_launch, after_libraries;

/* s must start zeroed: the kernel fills only as many words as the machine has CPUs for. */
static void take(struct snapshot *s)
{
    s->taken = sched_getaffinity(0, sizeof(s->mask), (cpu_set_t *)s->mask) == 0;
}

/* libgomp pins the initial thread in its constructor, before main(). The executable's
 * .preinit_array runs before any shared library's constructor (this object is linked into the
 * executable from the static core library), so it still sees the launch affinity; the
 * constructor runs after them all and sees what the libraries made of it. */
static void snapshot_at_launch(int argc, char **argv, char **envp)
{
    (void)argc;
    (void)argv;
    (void)envp;
    take(&at_launch);
}
__attribute__((section(".preinit_array"),
               used)) static void (*const preinit_snapshot)(int, char **,
                                                            char **) = snapshot_at_launch;

__attribute__((constructor)) static void snapshot_after_libraries(void)
{
    take(&after_libraries);
}

/* Unchanged since the libraries loaded: the launch CPUs are the process's, whatever a runtime
 * pinned thread 0 to. Rebound since (MPI_Init binding the rank itself): that binding counts. */
const unsigned long *launch_cpus_choose(const unsigned long *at_launch_mask,
                                        const unsigned long *after_libraries_mask,
                                        const unsigned long *now, size_t words)
{
    if (!at_launch_mask) return now;
    if (after_libraries_mask && now &&
        memcmp(after_libraries_mask, now, words * sizeof(unsigned long)) != 0)
        return now;
    return at_launch_mask;
}

int launch_cpus(hwloc_bitmap_t out)
{
    struct snapshot now = {0};
    take(&now);
    const unsigned long *mask =
        launch_cpus_choose(at_launch.taken ? at_launch.mask : NULL,
                           after_libraries.taken ? after_libraries.mask : NULL,
                           now.taken ? now.mask : NULL, MASK_WORDS);
    if (!mask) return -1;
    return hwloc_bitmap_from_ulongs(out, MASK_WORDS, mask) == 0 ? 0 : -1;
}
