#ifndef MEMBENCH_PAGE_SIZES_H
#define MEMBENCH_PAGE_SIZES_H

/* The x86-64 page sizes: the base page and the two huge page sizes. */
#define PAGE_4K (4096ull)
#define PAGE_2M (2ull << 20)
#define PAGE_1G (1ull << 30)

#endif
