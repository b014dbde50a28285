/* What backs a region after first touch, and whether it is what the backend promised. */
#include "hugepages/backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/parse.h"

static void describe_pages(uint64_t bytes, char *buf, size_t len)
{
    char words[PAGE_TEXT_LEN];
    snprintf(buf, len, "%s", page_size_iec(bytes, words));
}

static bool as_promised(const struct mem_backend *b, const struct smaps_totals *t)
{
    switch (b->kind) {
    case BACKING_BASE:
        return t->kernel_page_size == b->page_bytes && t->anon_huge == 0 && t->hugetlb == 0;
    case BACKING_THP: return t->hugetlb == 0; /* the coverage is reported, not judged */
    case BACKING_HUGETLB:
        return t->kernel_page_size == b->page_bytes && t->kernel_page_size_min == b->page_bytes &&
               t->hugetlb > 0;
    case BACKING_ANY:
    default: return true;
    }
}

static void explain(const char *smaps_path, const struct mem_backend *b,
                    const struct smaps_totals *t, struct backing_info *info)
{
    char want[48], kps[32], anon[32], hugetlb[32];
    if (b->kind == BACKING_THP)
        snprintf(want, sizeof(want), "transparent huge pages");
    else
        describe_pages(b->page_bytes, want, sizeof(want));
    describe_pages(t->kernel_page_size, kps, sizeof(kps));
    format_bytes(t->anon_huge, anon, sizeof(anon));
    format_bytes(t->hugetlb, hugetlb, sizeof(hugetlb));
    snprintf(info->mismatch, sizeof(info->mismatch),
             "--pages %.8s asked for %s%s but %.100s shows KernelPageSize %s, AnonHugePages %s, "
             "Private_Hugetlb %s",
             b->name, want, b->kind == BACKING_THP ? "" : " pages", smaps_path, kps, anon, hugetlb);
}

void backing_verify(const char *smaps_path, const struct mem_backend *b, uintptr_t start,
                    uintptr_t end, const char *how, struct backing_info *info)
{
    memset(info, 0, sizeof(*info));
    snprintf(info->how, sizeof(info->how), "%s", how);
    struct smaps_totals t;
    if (smaps_scan(smaps_path, start, end, &t) != 0 || !t.found || t.kernel_page_size == 0) {
        if (b->kind != BACKING_ANY)
            snprintf(info->mismatch, sizeof(info->mismatch),
                     "--pages %.8s: cannot verify the pages: %.100s is unreadable or has no "
                     "entry for the arrays",
                     b->name, smaps_path);
        return;
    }
    info->rss_bytes = t.rss;
    info->anon_huge_bytes = t.anon_huge;
    info->hugetlb_bytes = t.hugetlb;
    info->thp_fraction = t.rss ? (double)t.anon_huge / (double)t.rss : 0.0;
    if (t.hugetlb > 0 || t.rss == 0)
        info->page_size_bytes = t.kernel_page_size;
    else if (t.anon_huge >= t.rss)
        info->page_size_bytes = page_pmd_bytes(); /* every resident byte on a PMD-sized THP */
    else
        info->page_size_bytes = t.kernel_page_size;
    info->verified = as_promised(b, &t);
    if (!info->verified) explain(smaps_path, b, &t, info);
}
