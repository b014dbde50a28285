/* One set of options across the ranks of a cluster run. */
#include "src/cluster/cluster_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/base/log.h"

static void line_flag(FILE *f, const char *name, bool given)
{
    fprintf(f, "%s%s\n", given ? "" : "no ", name);
}

static void line_text(FILE *f, const char *name, const char *value)
{
    if (value)
        fprintf(f, "%s %s\n", name, value);
    else
        fprintf(f, "no %s\n", name);
}

static void line_list(FILE *f, const char *name, size_t n,
                      const char *(*item)(const void *, size_t), const void *list)
{
    if (n == 0) {
        fprintf(f, "no %s\n", name);
        return;
    }
    fprintf(f, "%s ", name);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%s", i ? "," : "", item(list, i));
    fputc('\n', f);
}

static const char *size_item(const void *l, size_t i)
{
    return ((const struct size_spec *)l)[i].text;
}
static const char *bind_item(const void *l, size_t i)
{
    return ((const struct bind_spec *)l)[i].text;
}
static const char *word_item(const void *l, size_t i)
{
    return ((const char *const *)l)[i];
}

static void line_uints(FILE *f, const char *name, const unsigned *v, size_t n)
{
    if (n == 0) {
        fprintf(f, "no %s\n", name);
        return;
    }
    fprintf(f, "%s ", name);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%u", i ? "," : "", v[i]);
    fputc('\n', f);
}

static void line_number(FILE *f, const char *name, double v, bool given)
{
    if (given)
        fprintf(f, "%s %.17g\n", name, v);
    else
        fprintf(f, "no %s\n", name);
}

static void stream_lines(FILE *f, const struct options *o)
{
    fprintf(f, "kernels");
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (o->kernel_mask & (1u << k)) fprintf(f, " %s", kernel_table[k].flag);
    fputc('\n', f);
    line_text(f, "--isa", o->isa_forced_by ? isa_name(o->isa) : NULL);
    line_uints(f, "--threads", o->threads, o->n_threads);
    line_list(f, "--size", o->n_sizes, size_item, o->sizes);
    line_list(f, "--pages", o->n_pages, word_item, o->pages);
    line_list(f, "--bind", o->n_binds, bind_item, o->binds);
    line_list(f, "--stores", o->n_stores, word_item, o->stores);
    line_text(f, "--per-domain", o->per_domain ? domain_kind_name(o->per_domain) : NULL);
    fprintf(f, "--ntimes %u\n--type %s\n--offset %zu\n", o->ntimes, elem_type_name(o->type),
            o->offset);
    static const char *const formats[] = {"text", "csv", "json"};
    fprintf(f, "--format %s\n", formats[o->format]);
    line_flag(f, "--dry-run", o->dry_run);
    line_number(f, "--peak", o->peak_mbps, o->peak_mbps > 0);
}

static void verdict_lines(FILE *f, const struct options *o)
{
    line_flag(f, "--acceptance", o->acceptance);
    bool expect = false;
    for (int k = 0; k < KERNEL_COUNT; k++)
        expect |= o->expect.rate_mbps[k] > 0;
    if (!expect)
        fprintf(f, "no --expect\n");
    else {
        fprintf(f, "--expect ");
        const char *sep = "";
        for (int k = 0; k < KERNEL_COUNT; k++)
            if (o->expect.rate_mbps[k] > 0) {
                fprintf(f, "%s%s=%.17g", sep, kernel_table[k].flag + 2, o->expect.rate_mbps[k]);
                sep = ",";
            }
        fputc('\n', f);
    }
    fprintf(f, "--tolerance %.17g\n", o->tolerance_pct);
    line_text(f, "--reference", o->reference);
    line_text(f, "--save-reference", o->save_reference);
    line_number(f, "--time-limit", o->time_limit_s, o->time_limit_s > 0);
    line_flag(f, "--mpi-per-rank", o->mpi_per_rank);
}

static void probe_lines(FILE *f, const struct options *o)
{
    const struct probe_options *p = &o->probes;
    line_flag(f, "--faults", p->mask & PROBE_BIT(PROBE_FAULTS));
    line_flag(f, "--shootdown", p->mask & PROBE_BIT(PROBE_SHOOTDOWN));
    line_flag(f, "--timer", p->mask & PROBE_BIT(PROBE_TIMER));
    fprintf(f, "--faults-size %llu\n", (unsigned long long)p->faults_bytes);
    line_text(f, "--faults-dir", p->faults_dir);
    fprintf(f, "--faults-backing %#x\n", p->faults_backings);
    line_uints(f, "--shootdown-remote", p->remote, (size_t)p->n_remote);
    line_uints(f, "--shootdown-pages", p->pages, (size_t)p->n_pages);
    const struct tlb_options *t = &o->tlb;
    line_flag(f, "--tlb", t->enabled);
    fprintf(f, "--cpu %d\n--order %d\n", t->cpu, (int)t->order);
    line_flag(f, "--no-stagger", !t->stagger);
    fprintf(f, "--tlb-mode %d\n--tlb-pages %llu\n--tlb-trials %llu\n--repeat %u\n", (int)t->mode,
            (unsigned long long)t->pages, (unsigned long long)t->trials, t->repeat);
    fprintf(f, "--tlb-max-pages %llu\n", (unsigned long long)t->max_pages);
}

char *options_fingerprint(const struct options *o)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    stream_lines(f, o);
    verdict_lines(f, o);
    probe_lines(f, o);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

static void copy_line(const char *s, char *out, size_t len)
{
    size_t n = strcspn(s, "\n");
    snprintf(out, len, "%.*s", (int)(n < 400 ? n : 400), s);
}

int options_difference(const char *mine, const char *theirs, char *my_line, size_t my_len,
                       char *their_line, size_t their_len)
{
    while (*mine || *theirs) {
        size_t a = strcspn(mine, "\n"), b = strcspn(theirs, "\n");
        if (a != b || memcmp(mine, theirs, a) != 0) {
            copy_line(mine, my_line, my_len);
            copy_line(theirs, their_line, their_len);
            return 1;
        }
        mine += a + (mine[a] == '\n');
        theirs += b + (theirs[b] == '\n');
    }
    return 0;
}

int cluster_refusal(const struct options *o, char *why, size_t why_len)
{
    const struct {
        const char *name;
        size_t n;
    } lists[] = {{"--threads", o->n_threads},
                 {"--size", o->n_sizes},
                 {"--pages", o->n_pages},
                 {"--bind", o->n_binds},
                 {"--stores", o->n_stores}};
    for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
        if (lists[i].n > 1) {
            snprintf(why, why_len,
                     "%s with %zu values is a sweep, and a cluster run compares one run per "
                     "node: give one value (one job per value), or sweep on one node without "
                     "mpirun",
                     lists[i].name, lists[i].n);
            return EXIT_USAGE;
        }
    if (o->save_reference) {
        snprintf(why, why_len,
                 "--save-reference in a cluster run would have every node write the same file: "
                 "save it on one good node without mpirun, then give the cluster run "
                 "--reference FILE");
        return EXIT_USAGE;
    }
    return 0;
}
