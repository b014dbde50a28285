/* /proc/self/smaps: smaps_scan over the input (as a file) for a few address ranges, and
 * backing_verify's verdict for every page backing. */
#include "hugepages/backend.h"
#include "tests/fuzz/fuzz.h"

static const uintptr_t ranges[][2] = {
    {0, UINTPTR_MAX},
    {0x7f0000000000, 0x7f0000200000},
    {0x1000, 0x2000},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file(data, size);
    for (size_t r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++) {
        struct smaps_totals t;
        FUZZ_CHECK(smaps_scan(path, ranges[r][0], ranges[r][1], &t) == 0, "smaps_scan failed");
        if (!t.found)
            FUZZ_CHECK(!t.rss && !t.anon_huge && !t.hugetlb && !t.kernel_page_size &&
                           !t.kernel_page_size_min,
                       "totals without a mapping");
        FUZZ_CHECK(t.kernel_page_size_min <= t.kernel_page_size, "min page %llu > max %llu",
                   (unsigned long long)t.kernel_page_size_min,
                   (unsigned long long)t.kernel_page_size);
        static const char *const names[] = {"default", "4k", "thp", "2m", "1g"};
        for (size_t b = 0; b < sizeof(names) / sizeof(names[0]); b++) {
            const struct mem_backend *backend = mem_backend_find(names[b]);
            FUZZ_CHECK(backend != NULL, "no backend %s", names[b]);
            struct backing_info info;
            backing_verify(path, backend, ranges[r][0], ranges[r][1], "fuzz", &info);
            FUZZ_CHECK(info.verified || info.mismatch[0] || backend->kind == BACKING_ANY,
                       "--pages %s: not verified, no reason", names[b]);
            FUZZ_CHECK(!info.verified || !info.mismatch[0], "verified with a mismatch");
        }
    }
    return 0;
}
