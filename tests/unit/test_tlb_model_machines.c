/* Every recorded machine (tests/fixtures/machines/NAME/) through the model fit
 * (src/tlb/tlb_model_fit.h) as membench runs it: the 4 KB sweep and its control through
 * tlb_finish_sweep with the CPUID the run recorded, the reuse chase through tlb_reuse_size
 * (today's size, "old"). Prints the table of bench/RESULTS.md ("TLB sizes from a model"):
 *   build/tests/test_tlb_model_machines 2>&1 | grep '^|'
 * and checks every level's model size against its documented size, within the bounds this
 * model reaches (each machine's README documents the sizes). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>

#include "src/tlb/report_tlb_words.h"
#include "src/tlb/run_tlb.h"
#include "src/tlb/tlb_knees.h"
#include "src/tlb/tlb_levels.h"
#include "src/tlb/tlb_model_fit.h"
#include "tests/unit/tlb_recorded.h"

#define RUNS_MAX 10

struct machine {
    const char *dir;
    double l1, l2;     /* documented 4 KB entries */
    double l2_off_max; /* how far this model's L2 may lie from it (fraction) */
    /* no recorded run has the stride probe: the L2's index as it would answer (measured on the
     * Zen 5 guest kind; the reading of the others' curves, not measured), and how far
     * the model's L2 lies from the documented size when told that index */
    enum tlb_model_index index;
    double known_off_max;
    const char *files[RUNS_MAX];
};

/* The goal is every level within 10% of its documented size; this model reaches it for
 * every L1 DTLB, the Intel model 207 run and 8 of the 10 Zen 5 runs. The bounds below are what it
 * reaches, so a change that moves a reading further is seen (bench/RESULTS.md, "TLB sizes from
 * a model"): the Intel model 167 runs scatter -17%..+15% (hashed 24-32-way), its turn-7 runs
 * -2%..+4% (hashed 8-12-way), its turn-8 runs -14%..+2% (hashed 16-32-way), its turn-9 runs
 * -17%..+10%; the Zen 4 guest's
 * L2 reads as a direct-indexed 8-way level at its onset, 19-20% under 3072 (its misses begin too
 * sharply for a hashed 8-15-way level of 3072 entries, and a walk step of at least 3x the L2
 * hit leaves the direct reading the better one), once +42% (zen4-guest/tlb-3: the window runs
 * to its 90% point at 7473 pages and a hashed 12-way level of 4360 fits better); the Zen 5
 * guest's loaded tlb-zen-2 and tlb-zen-3 read +40% and +14%, two of its turn-5 runs +17%.
 * Told the index (known_off_max; bench/RESULTS.md, "The index from the stride probe" and "A
 * hashed L2 sized by the model"): read half-way as hashed (the crossing on a line through two
 * points on each side of it), Intel model 207 +3.3%, model 167 +3.8%..+10.4% (tlb-2, whose rise
 * starts late at 1920-2048 pages), its turn-7 runs -10.7%..-6.2%, turn-8 runs -6.7%..-4.5%,
 * turn-9 runs (recorded with this reading) +0.1%..+4.8%,
 * the Zen 4 guest -0.7%..+4.0%, its turn-4 runs -9.9%..-7.6% (their rise is steeper at
 * 2432-2560 pages); fitted as direct, the Zen 5 guest
 * -8%..+14% (tlb-zen-3, loaded) and the turn-5 runs -19%..+17% (tlb-2, whose onset reads at 2560,
 * and tlb-1/3, whose rise is disturbed, rms 3.1-3.4 ns). */
static const struct machine machines[] = {
    {"intel-xeon-m207", 96, 2048, 0.10, TLB_INDEX_HASHED, 0.04, {"tlb-sweep.csv"}},
    {"intel-xeon-m167",
     96,
     2048,
     0.18,
     TLB_INDEX_HASHED,
     0.11,
     {"tlb-1.json", "tlb-2.json", "tlb-3.json", "tlb-4.json", "tlb-5.json"}},
    {"intel-xeon-m167-turn7",
     96,
     2048,
     0.05,
     TLB_INDEX_HASHED,
     0.11,
     {"tlb-1.json", "tlb-2.json", "tlb-3.json", "tlb-4.json", "tlb-5.json"}},
    {"intel-xeon-m167-turn8",
     96,
     2048,
     0.15,
     TLB_INDEX_HASHED,
     0.07,
     {"tlb-1.json", "tlb-2.json", "tlb-3.json", "tlb-4.json", "tlb-5.json"}},
    {"intel-xeon-m167-turn9",
     96,
     2048,
     0.18,
     TLB_INDEX_HASHED,
     0.05,
     {"tlb-1.json", "tlb-2.json", "tlb-3.json", "tlb-4.json", "tlb-5.json"}},
    {"zen4-guest",
     72,
     3072,
     0.43,
     TLB_INDEX_HASHED,
     0.05,
     {"tlb-1.json", "tlb-2.json", "tlb-3.json"}},
    {"zen4-guest-turn4",
     72,
     3072,
     0.21,
     TLB_INDEX_HASHED,
     0.10,
     {"tlb-1.json", "tlb-2.json", "tlb-3.json"}},
    {"zen5-guest",
     96,
     4096,
     0.41,
     TLB_INDEX_DIRECT,
     0.15,
     {"tlb-zen-1.json", "tlb-zen-2.json", "tlb-zen-3.json", "tlb-zen-4.json", "tlb-zen-5.json",
      "tlb-zen-reuse-1.json", "tlb-zen-reuse-2.json", "tlb-zen-reuse-3.json",
      "tlb-zen-reuse-4.json", "tlb-zen-reuse-5.json"}},
    {"zen5-guest-turn5",
     96,
     4096,
     0.41,
     TLB_INDEX_DIRECT,
     0.20,
     {"tlb-1.json", "tlb-2.json", "tlb-3.json", "tlb-4.json", "tlb-5.json"}},
};

/* The CPUID a JSON run recorded (its `documented`), none for a CSV. */
static void recorded_cpuid(const char *path, struct cpuid_tlb_info *info)
{
    memset(info, 0, sizeof(*info));
    size_t len = strlen(path);
    if (len > 4 && strcmp(path + len - 4, ".csv") == 0) return;
    json_error_t err;
    json_t *doc = json_load_file(path, 0, &err);
    assert_non_null(doc);
    json_t *d = json_object_get(json_object_get(doc, "tlb"), "documented"), *e;
    const char *source = json_string_value(json_object_get(d, "source"));
    if (source) snprintf(info->source, sizeof(info->source), "%s", source);
    size_t i;
    json_array_foreach(json_object_get(d, "entries"), i, e)
    {
        if (info->n == CPUID_TLB_MAX) break;
        const char *type = json_string_value(json_object_get(e, "type"));
        info->e[info->n++] = (struct cpuid_tlb_entry){
            (int)json_integer_value(json_object_get(e, "level")), type ? type[0] : '?',
            (unsigned)json_integer_value(json_object_get(e, "page_sizes")),
            (unsigned)json_integer_value(json_object_get(e, "entries")),
            (unsigned)json_integer_value(json_object_get(e, "ways"))};
    }
    json_decref(doc);
}

static struct cpuid_tlb_info replay_info;

static void replay(const char *path, const struct recorded *r, struct tlb_result *out,
                   struct tlb_thread_result *t0)
{
    static struct tlb_plan plan;
    struct cpuid_tlb_info *info = &replay_info;
    struct knee_params p;
    recorded_cpuid(path, info);
    struct tlb_sweep *s = recorded_finish_4k(r, info, out, t0, &plan, &p);
    recorded_reuse(r, s, &out->cpuid);
}

static void print_row(const struct machine *m, const char *file, const struct tlb_sweep *s)
{
    const struct tlb_model_fit *f1 = &s->model[0], *f2 = &s->model[1];
    char l1_ways[16] = "", l2_ways[16] = "";
    if (f1->ways) snprintf(l1_ways, sizeof(l1_ways), " %u-way", f1->ways);
    if (f2->ways) snprintf(l2_ways, sizeof(l2_ways), " %u-way", f2->ways);
    print_message(
        "| %s | %s | %.0f / %.0f | %.0f / %.0f | %.0f / %.0f (%+.0f%%) | %s%s, "
        "%.0f sets, rms %.2f ns, %.0f-%.0f%s | %s%s, rms %.2f ns, %.0f-%.0f |\n",
        m->dir, file, m->l1, m->l2, s->analysis.levels[0].entries, s->analysis.levels[1].entries,
        f1->entries, f2->entries, 100.0 * (f2->entries / m->l2 - 1.0),
        tlb_model_index_name(f2->index), l2_ways, f2->sets, f2->rms_ns, f2->entries_low,
        f2->entries_high, s->model_ways_documented[1] ? ", ways from CPUID" : "",
        tlb_model_index_name(f1->index), l1_ways, f1->rms_ns, f1->entries_low, f1->entries_high);
}

/* The L2 as the model reads it where the stride probe has told its index (no recorded run
 * has the probe: what the model would give with either answer). */
static const struct tlb_model_fit *l2_known(const struct tlb_sweep *s, enum tlb_model_index index)
{
    static struct tlb_sweep k;
    k = *s;
    k.model_index_known[1] = true;
    k.model_index[1] = index;
    tlb_model_size(&k, &replay_info, TLB_PAGE_4K);
    if (k.model[1].ok) { /* the report says where the index came from */
        char line[512];
        report_tlb_model_line(line, sizeof(line), &k, 1);
        assert_non_null(strstr(line, "; index from the stride probe)"));
        json_t *j = report_tlb_model_json(&k, 1);
        assert_true(json_is_true(json_object_get(j, "index_from_stride_probe")));
        assert_string_equal(json_string_value(json_object_get(j, "index")),
                            tlb_model_index_name(index));
        json_decref(j);
    }
    return &k.model[1];
}

static void every_machine(void **state)
{
    (void)state;
    static struct recorded r;
    int failed = 0;
    print_message("| machine | run | documented L1 / L2 | old L1 / L2 | model L1 / L2 | L2 model "
                  "(index, ways, sets, rms, undecided range) | L1 model |\n|---|---|---|---|---|"
                  "---|---|\n");
    for (size_t m = 0; m < sizeof(machines) / sizeof(machines[0]); m++) {
        const struct machine *mc = &machines[m];
        for (size_t f = 0; f < RUNS_MAX && mc->files[f]; f++) {
            char path[512];
            snprintf(path, sizeof(path), "%s/fixtures/machines/%s/%s", TESTS_DIR, mc->dir,
                     mc->files[f]);
            recorded_load(path, &r);
            struct tlb_result out;
            struct tlb_thread_result t0;
            replay(path, &r, &out, &t0);
            const struct tlb_sweep *s = &t0.small;
            print_row(mc, mc->files[f], s);
            const struct tlb_model_fit *h = l2_known(s, TLB_INDEX_HASHED);
            double hashed = h->ok ? h->entries : NAN;
            unsigned hashed_ways = h->ways;
            const struct tlb_model_fit *d = l2_known(s, TLB_INDEX_DIRECT);
            double direct = d->ok ? d->entries : NAN,
                   known = mc->index == TLB_INDEX_HASHED ? hashed : direct;
            print_message("|| %s | %s | %.0f (%+.1f%%, %u-way) | %.0f (%+.1f%%, %u-way) |\n",
                          mc->dir, mc->files[f], hashed, 100.0 * (hashed / mc->l2 - 1.0),
                          hashed_ways, direct, 100.0 * (direct / mc->l2 - 1.0), d->ways);
            if (!(fabs(known - mc->l2) <= mc->known_off_max * mc->l2)) {
                print_message("  ^ told its index, outside its bound\n");
                failed++;
            }
            char line[512];
            report_tlb_model_line(line, sizeof(line), s, 1);
            print_message("  L2 TLB %s\n", line);
            bool ok = s->model[0].ok && s->model[1].ok &&
                      fabs(s->model[0].entries - mc->l1) <= 0.10 * mc->l1 &&
                      fabs(s->model[1].entries - mc->l2) <= mc->l2_off_max * mc->l2 &&
                      s->model[1].entries_low <= s->model[1].entries &&
                      s->model[1].entries <= s->model[1].entries_high;
            if (!ok) print_message("  ^ outside its bound\n");
            failed += !ok;
            recorded_release(&out);
        }
    }
    assert_int_equal(failed, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_machine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
