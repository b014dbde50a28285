#ifndef MEMBENCH_HEAP_ENV_H
#define MEMBENCH_HEAP_ENV_H

#include <stdint.h>

/* The --pages value that HUGETLB_MORECORE asks for, read as libhugetlbfs reads it: "yes" (the
 * default huge page size), "thp", a page size ("2M", "1GB", "2097152") or "no". Returns 0 with
 * *pages NULL when it asks for nothing; -1 when the value is none of these or a page size that
 * has no backing. default_hugepage_bytes 0 means 2 MiB. */
int morecore_pages(const char *value, uint64_t default_hugepage_bytes, const char **pages);

/* The --pages value that does for membench's arrays what glibc.malloc.hugetlb=value does for
 * malloc: "thp" for 1, the default huge pages for 2; NULL for 0 or an unknown value. */
const char *malloc_hugetlb_pages(const char *value, uint64_t default_hugepage_bytes);

#endif
