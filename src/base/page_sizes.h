#ifndef MEMBENCH_PAGE_SIZES_H
#define MEMBENCH_PAGE_SIZES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The x86-64 page sizes by name. They mean those sizes specifically (the --pages spellings 4k,
 * 2m and 1g, CPUID's TLB descriptors, MAP_HUGE_2MB); the machine's own sizes come from the
 * functions below. */
#define PAGE_4K (4096ull)
#define PAGE_2M (2ull << 20)
#define PAGE_1G (1ull << 30)

/* "4 KB", "64 KB", "2 MB", "512 MB", "1 GB", "16 GB" (binary units, as the kernel names its
 * pools); a size that is no whole KB is given in bytes. */
#define PAGE_TEXT_LEN 24
const char *page_size_text(uint64_t bytes, char buf[PAGE_TEXT_LEN]);

/* The base page: sysconf(_SC_PAGESIZE), read once (or as a test pretends). */
uint64_t page_base_bytes(void);

/* The base page the kernel really maps, never pretended: for calls whose arguments are counted
 * in its pages (mincore's vector). */
uint64_t page_kernel_bytes(void);

/* The PMD size, that of a transparent huge page: /sys/kernel/mm/transparent_hugepage/
 * hpage_pmd_size, else what one page table of 8-byte entries maps (4 KB base: 2 MB; 16 KB:
 * 32 MB; 64 KB: 512 MB). */
uint64_t page_pmd_bytes(void);

/* The default hugetlb page size: /proc/meminfo's Hugepagesize, else the PMD size. */
uint64_t page_huge_default_bytes(void);

/* "2 MiB", "64 KiB", "1 GiB": the same sizes in the words of the page checks and backends. */
const char *page_size_iec(uint64_t bytes, char buf[PAGE_TEXT_LEN]);

/* The hugetlb page sizes the kernel offers (SYS/kernel/mm/hugepages/hugepages-<N>kB, SYS being
 * sys_root, or /sys or the injected root when NULL), smallest first: up to max of them in
 * sizes; returns how many there are (0: none). */
size_t page_huge_sizes(const char *sys_root, uint64_t *sizes, size_t max);

/* Whether the kernel offers hugetlb pages of this size (sys_root as above). */
bool page_huge_size_offered(const char *sys_root, uint64_t bytes);

/* "64 KB, 2 MB, 512 MB, 16 GB", or "none" when the kernel offers no hugetlb size. */
void page_huge_sizes_text(const char *sys_root, char *buf, size_t len);

/* Tests: pretend a base page of base_bytes (0: the real one) and read the kernel's files under
 * sys_root instead of /sys and at meminfo instead of /proc/meminfo (NULL: the real ones). Every
 * size is read again after a call. */
void page_sizes_inject(uint64_t base_bytes, const char *sys_root, const char *meminfo);

#endif
