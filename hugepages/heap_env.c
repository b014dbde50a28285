#include "hugepages/heap_env.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hugepages/backend.h"

static const char *pages_of_size(uint64_t bytes)
{
    if (bytes == PAGE_2M) return "2m";
    if (bytes == PAGE_1G) return "1g";
    return NULL;
}

static const char *default_huge(uint64_t default_hugepage_bytes)
{
    return pages_of_size(default_hugepage_bytes ? default_hugepage_bytes : page_pmd_bytes());
}

int morecore_pages(const char *value, uint64_t default_hugepage_bytes, const char **pages)
{
    *pages = NULL;
    if (!value || !*value || strcasecmp(value, "no") == 0 || strcasecmp(value, "n") == 0) return 0;
    if (strcasecmp(value, "thp") == 0) {
        *pages = "thp";
        return 0;
    }
    if (strcasecmp(value, "yes") == 0 || strcasecmp(value, "y") == 0) {
        *pages = default_huge(default_hugepage_bytes);
        return *pages ? 0 : -1;
    }
    char *end;
    errno = 0;
    unsigned long long n = strtoull(value, &end, 10);
    /* strtoull skips blanks and negates after a '-': " -18446744073709549568K" would be 2m */
    if (end == value || strchr(value, '-') || errno == ERANGE) return -1;
    uint64_t unit = 1;
    switch (*end) {
    case 'k':
    case 'K':
        unit = 1ull << 10;
        end++;
        break;
    case 'm':
    case 'M':
        unit = 1ull << 20;
        end++;
        break;
    case 'g':
    case 'G':
        unit = 1ull << 30;
        end++;
        break;
    default: break;
    }
    if (unit > 1 && (*end == 'b' || *end == 'B')) end++;
    if (*end || n > UINT64_MAX / unit) return -1; /* "18014398509484032K" wraps to 2 MiB */
    *pages = pages_of_size((uint64_t)n * unit);
    return *pages ? 0 : -1;
}

const char *malloc_hugetlb_pages(const char *value, uint64_t default_hugepage_bytes)
{
    if (!value) return NULL;
    if (value[0] == '1' && !value[1]) return "thp";
    if (value[0] == '2' && !value[1]) return default_huge(default_hugepage_bytes);
    return NULL;
}
