/* A STREAM run's configuration as text: sizes, threads, stores, placement, pages, memory. */
#include "src/stream/report_stream_config.h"

#include <stddef.h>
#include <string.h>

#include "src/measure/report_locality.h"
#include "src/stream/plan_memcache.h"

static int count_distinct(const struct placement_entry *p, int n, size_t offset)
{
    int distinct = 0;
    for (int i = 0; i < n; i++) {
        int v = *(const int *)((const char *)&p[i] + offset), seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = *(const int *)((const char *)&p[j] + offset) == v;
        distinct += !seen;
    }
    return distinct;
}

static void write_placement(FILE *out, const struct run_result *r)
{
    if (r->n_placement == 0) return;
    const struct placement_entry *p = r->placement;
    int n = r->n_placement;
    int pus = count_distinct(p, n, offsetof(struct placement_entry, pu));
    int cores = count_distinct(p, n, offsetof(struct placement_entry, core));
    int packages = count_distinct(p, n, offsetof(struct placement_entry, package));
    int numas = count_distinct(p, n, offsetof(struct placement_entry, numa));
    const char *how = !r->config.pus   ? "not bound by membench"
                      : !r->measured   ? "planned"
                      : r->n_unbound   ? "NOT bound"
                      : r->n_misplaced ? "bound, NOT as planned"
                                       : "bound and verified";
    fprintf(out,
            "Placement: %d thread%s on %d PU%s, %d core%s, %d package%s, %d NUMA node%s (%s)%s%s\n",
            n, n == 1 ? "" : "s", pus, pus == 1 ? "" : "s", cores, cores == 1 ? "" : "s", packages,
            packages == 1 ? "" : "s", numas, numas == 1 ? "" : "s", how,
            pus < n ? "; PUs shared by several threads" : "",
            cores < pus ? "; SMT siblings used" : "");
    fprintf(out, "Thread:PU");
    for (int i = 0; i < n; i++)
        fprintf(out, " %d:%d", p[i].thread, p[i].pu);
    fprintf(out, "%s\n", r->migrated ? " (threads migrated during the run)" : "");
}

static void write_backing(FILE *out, const struct run_result *r)
{
    const struct backing_info *b = &r->backing;
    const struct run_config *c = &r->config;
    char from[64] = "";
    if (c->pages_from && strcmp(c->pages_from, "HUGETLB_MORECORE") == 0)
        snprintf(from, sizeof(from), " (from %s)", c->pages_from);
    fprintf(out, "Pages: %s%s", c->pages, from);
    if (!r->measured) {
        fprintf(out, "; dry run: not allocated\n");
        return;
    }
    if (b->mismatch[0]) {
        fprintf(out, " -> NOT VERIFIED: %s\n", b->mismatch);
        return;
    }
    if (b->page_size_bytes == 0) {
        fprintf(out, "; page size unknown (no smaps entry for the arrays); %s\n", b->how);
        return;
    }
    char size[32], pmd[PAGE_TEXT_LEN];
    format_bytes(b->page_size_bytes, size, sizeof(size));
    page_size_text(page_pmd_bytes(), pmd);
    if (b->thp_fraction > 0.0 && b->thp_fraction < 1.0)
        fprintf(out,
                " -> THP: %d%% of the arrays on %s pages, the rest on %s pages, verified in "
                "/proc/self/smaps; %s\n",
                (int)(100.0 * b->thp_fraction), pmd, size, b->how);
    else
        fprintf(out, " -> %s pages, verified in /proc/self/smaps; %s%s%s%s\n", size, b->how,
                b->thp_fraction > 0.0 ? "; THP: 100% of the arrays on " : "",
                b->thp_fraction > 0.0 ? pmd : "", b->thp_fraction > 0.0 ? " pages" : "");
}

static const char *store_words(const char *stores)
{
    return strcmp(stores, "nt") == 0      ? "non-temporal"
           : strcmp(stores, "mixed") == 0 ? "per kernel"
                                          : stores;
}

/* "normal for Copy, Scale; non-temporal for Add, Triad" */
static void kernel_kinds(const struct run_result *r, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int kind = 0; kind < 2; kind++) {
        bool first = true;
        for (int i = 0; i < r->n_results; i++) {
            if ((int)r->results[i].stores != kind) continue;
            size_t at = strlen(buf);
            snprintf(buf + at, len - at, "%s%s%s", first ? (at ? "; " : "") : ", ",
                     first ? (kind == STORES_NT ? "non-temporal for " : "normal for ") : "",
                     kernel_table[r->results[i].kernel].name);
            first = false;
        }
    }
}

/* "normal for Copy, Scale; non-temporal for Add, Triad": a candidate assignment's kinds. */
static void candidate_kinds(const struct store_choice *sc, const struct store_candidate *x,
                            char *buf, size_t len)
{
    buf[0] = '\0';
    for (int kind = 0; kind < 2; kind++) {
        bool first = true;
        for (int k = 0; k < KERNEL_COUNT; k++) {
            if (!(sc->kernel_mask & (1u << k)) || (int)x->kind[k] != kind) continue;
            size_t at = strlen(buf);
            snprintf(buf + at, len - at, "%s%s%s", first ? (at ? "; " : "") : ", ",
                     first ? (kind == STORES_NT ? "non-temporal for " : "normal for ") : "",
                     kernel_table[k].name);
            first = false;
        }
    }
}

/* " vs 29044.1 normal": a candidate's total rate, or that it was not timed. */
static void write_candidate_rate(FILE *out, const struct store_choice *sc, int i, bool first)
{
    const struct store_candidate *x = &sc->cand[i];
    const char *name = store_assignment_name((enum store_assignment)i);
    if (x->passes)
        fprintf(out, "%s%.1f%s %s", first ? "" : " vs ", x->mbps, first ? " MB/s" : "", name);
    else
        fprintf(out, "%s%s not timed", first ? "" : " vs ", name);
}

static void write_store_choice(FILE *out, const struct run_result *r)
{
    const struct store_choice *sc = &r->stores_choice;
    const char *words = store_words(r->config.stores);
    char kinds[200];
    kernel_kinds(r, kinds, sizeof(kinds));
    if (sc->method == STORES_NOT_MEASURED) {
        fprintf(out, "Stores: auto, %s\n", sc->why);
        return;
    }
    if (sc->method == STORES_REFERENCE)
        fprintf(out, "Stores: %s%s%s (auto: the kinds --reference ran with)\n", words,
                strcmp(r->config.stores, "mixed") == 0 ? ": " : "",
                strcmp(r->config.stores, "mixed") == 0 ? kinds : "");
    if (sc->method != STORES_MEASURED) return;
    fprintf(out, "Stores: %s (auto: whole repetitions on the first one ran ",
            strcmp(r->config.stores, "mixed") == 0 ? kinds : words);
    write_candidate_rate(out, sc, (int)sc->assignment, true);
    for (int i = 0; i < sc->n_candidates; i++)
        if (i != (int)sc->assignment) write_candidate_rate(out, sc, i, false);
    fprintf(out, ")\n");
    if (sc->n_candidates > ASSIGN_MIXED && sc->assignment != ASSIGN_MIXED) {
        candidate_kinds(sc, &sc->cand[ASSIGN_MIXED], kinds, sizeof(kinds));
        fprintf(out, "  mixed: %s\n", kinds);
    }
    fprintf(out, "  each kernel in the all-normal vs all-nt repetitions, MB/s:");
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (sc->kernel_mask & (1u << k))
            fprintf(out, " %s %.1f vs %.1f;", kernel_table[k].name,
                    sc->kernel_mbps[STORES_NORMAL][k], sc->kernel_mbps[STORES_NT][k]);
    fprintf(out, "\n");
}

/* The memory-side caches in front of the arrays' nodes, and whether the arrays fit in them. */
static void write_memcache(FILE *out, const struct run_config *c)
{
    if (c->memcache.count == 0) return;
    char cache[32], note[300];
    format_bytes(c->memcache.bytes, cache, sizeof(cache));
    fprintf(out, "Memory-side cache in front of the arrays' NUMA node%s %s: %d instance%s, %s\n",
            strpbrk(c->memcache.nodes, ",-") ? "s" : "", c->memcache.nodes, c->memcache.count,
            c->memcache.count == 1 ? "" : "s", cache);
    if (!c->in_memcache) return;
    plan_memcache_note(c, note, sizeof(note));
    fprintf(out, "NOTE: %s\n", note);
}

void report_stream_config(FILE *out, const struct stream_result *stream, size_t index)
{
    const struct run_result *r = &stream->runs[index];
    const struct run_config *c = &r->config;
    double mib = (double)c->array_bytes / 1048576.0;
    double total_mib = (double)c->total_bytes / 1048576.0;
    if (stream->n_runs > 1) fprintf(out, "Run %zu of %zu\n", index + 1, stream->n_runs);
    fprintf(out, "This system uses %zu bytes per array element.\n", elem_size(c->type));
    fprintf(out, "Array size = %llu (elements), Offset = %zu (elements)\n",
            (unsigned long long)c->elements, c->offset);
    fprintf(out, "Memory per array = %.1f MiB (= %.1f GiB).\n", mib, mib / 1024.0);
    fprintf(out, "Total memory required = %.1f MiB (= %.1f GiB).\n", total_mib, total_mib / 1024.0);
    fprintf(out, "Array size rule: %s; element type %s, %zu bytes\n", c->size_label,
            elem_type_name(c->type), elem_size(c->type));
    if (c->below_stream_rule)
        fprintf(out, "NOTE: arrays are below the STREAM rule (4x the LLC in use): caches inflate "
                     "these rates\n");
    if (c->llc_bytes) {
        char llc[32];
        format_bytes(c->llc_bytes, llc, sizeof(llc));
        fprintf(out, "Last-level cache used by these threads: %d instance%s, %s\n", c->llc_count,
                c->llc_count == 1 ? "" : "s", llc);
    }
    write_memcache(out, c);
    fprintf(out, "Each kernel will be executed %u times.\n", c->ntimes);
    fprintf(out, " The *best* time for each kernel (excluding the first iteration)\n"
                 " will be used to compute the reported bandwidth.\n");
    fprintf(out, "Number of Threads requested = %u\n", c->threads);
    fprintf(out, "Threads: %u from %s; binding %s\n", c->threads, c->threads_from, c->bind);
    if (strcmp(c->stores, "auto") == 0)
        fprintf(out, "Kernels: %s, stores chosen by measurement when run (auto)\n",
                isa_name(c->isa));
    else
        fprintf(out, "Kernels: %s, %s stores%s\n", isa_name(c->isa), store_words(c->stores),
                c->tuned ? " -- a TUNED run under STREAM's rules" : "");
    write_store_choice(out, r);
    write_placement(out, r);
    write_backing(out, r);
    if (!r->measured) return;
    char against[48], line[300];
    if (c->numa_cell)
        snprintf(against, sizeof(against), "NUMA node %d (bound there)", c->mem_node);
    else
        snprintf(against, sizeof(against), "their thread's NUMA node");
    locality_text(&r->locality, against, line, sizeof(line));
    fprintf(out, "Memory: %s\n", line);
}
