/* Environment values membench reads: GLIBC_TUNABLES (glibc_tunable), HUGETLB_MORECORE
 * (morecore_pages), glibc.malloc.hugetlb (malloc_hugetlb_pages) and MEMBENCH_ISA (isa_parse).
 * Input: the GLIBC_TUNABLES string; the second line, the value for the other three. */
#include <ctype.h>
#include <strings.h>

#include "hugepages/heap_env.h"
#include "kernels/kernel_table.h"
#include "src/sys/sysinfo.h"
#include "tests/fuzz/fuzz.h"

struct input {
    char *tunables, *value;
};

static void field(const uint8_t *piece, size_t len, int index, void *ctx)
{
    struct input *in = ctx;
    *(index == 0 ? &in->tunables : &in->value) = fuzz_cstr(piece, len);
}

/* The page size a numeric HUGETLB_MORECORE value names, computed independently: digits (after
 * blanks and a '+', as strtoull and libhugetlbfs allow), an optional k/m/g and an optional b
 * after it; 0 when it is not that or overflows. */
static uint64_t morecore_bytes(const char *v)
{
    uint64_t n = 0;
    const char *p = v;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '+') p++;
    if (!isdigit((unsigned char)*p)) return 0;
    for (; isdigit((unsigned char)*p); p++) {
        if (n > (UINT64_MAX - 9) / 10) return 0;
        n = n * 10 + (uint64_t)(*p - '0');
    }
    int shift = 0;
    switch (tolower((unsigned char)*p)) {
    case 'k': shift = 10; break;
    case 'm': shift = 20; break;
    case 'g': shift = 30; break;
    }
    if (shift) {
        p++;
        if (tolower((unsigned char)*p) == 'b') p++;
        if (n > UINT64_MAX >> shift) return 0;
        n <<= shift;
    }
    return *p ? 0 : n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct input in = {NULL, NULL};
    fuzz_split(data, size, '\n', 2, field, &in);
    if (!in.value) in.value = fuzz_cstr(NULL, 0);

    char value[32], tiny[2];
    static const char *const names[] = {"glibc.malloc.hugetlb", "glibc.malloc", "g", ""};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (glibc_tunable(in.tunables, names[i], value, sizeof(value)) == 0)
            FUZZ_CHECK(memchr(value, '\0', sizeof(value)), "tunable not terminated");
        if (glibc_tunable(in.tunables, names[i], tiny, sizeof(tiny)) == 0)
            FUZZ_CHECK(memchr(tiny, '\0', sizeof(tiny)), "tunable not terminated");
    }
    FUZZ_CHECK(glibc_tunable(NULL, "glibc.malloc.hugetlb", value, sizeof(value)) == -1,
               "a tunable in an unset variable");

    static const uint64_t defaults[] = {0, 2u << 20, 1u << 30, 4096};
    for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
        const char *pages = "unset";
        int rc = morecore_pages(in.value, defaults[i], &pages);
        FUZZ_CHECK(rc == 0 || pages == NULL, "morecore_pages failed with a value");
        if (rc == 0 && pages && strcasecmp(in.value, "yes") && strcasecmp(in.value, "y") &&
            strcasecmp(in.value, "thp")) {
            uint64_t want = !strcmp(pages, "2m") ? 2u << 20 : 1u << 30;
            FUZZ_CHECK(morecore_bytes(in.value) == want,
                       "HUGETLB_MORECORE='%.40s' taken as --pages %s", in.value, pages);
        }
        const char *malloc_pages = malloc_hugetlb_pages(in.value, defaults[i]);
        FUZZ_CHECK(!malloc_pages || !strcmp(malloc_pages, "thp") || !strcmp(malloc_pages, "2m") ||
                       !strcmp(malloc_pages, "1g"),
                   "glibc.malloc.hugetlb=%.40s: %s", in.value, malloc_pages);
    }
    enum isa isa = ISA_COUNT;
    if (isa_parse(in.value, &isa) == 0)
        FUZZ_CHECK(isa < ISA_COUNT && !strcmp(isa_name(isa), in.value), "isa %d", (int)isa);
    free(in.tunables);
    free(in.value);
    return 0;
}
