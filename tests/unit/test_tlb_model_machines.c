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
    const char *files[RUNS_MAX];
};

/* The goal is every level within 10% of its documented size; this model reaches it for
 * every L1 DTLB, the Intel model 207 run and 8 of the 10 Zen 5 runs. The bounds below are what it
 * reaches, so a change that moves a reading further is seen (bench/RESULTS.md, "TLB sizes from
 * a model"): the Intel model 167 runs scatter -17%..+15% (hashed 24-32-way); the Zen 4 guest's
 * L2 reads as a direct-indexed 8-way level at its onset, 19-20% under 3072 (its misses begin too
 * sharply for a hashed 8-15-way level of 3072 entries, and a walk step of at least 3x the L2
 * hit leaves the direct reading the better one), once +42% (zen4-guest/tlb-3: the window runs
 * to its 90% point at 7473 pages and a hashed 12-way level of 4360 fits better); the Zen 5
 * guest's loaded tlb-zen-2 and tlb-zen-3 read +40% and +14%, two of its turn-5 runs +17%. */
static const struct machine machines[] = {
    {"intel-xeon-m207", 96, 2048, 0.10, {"tlb-sweep.csv"}},
    {"intel-xeon-m167",
     96,
     2048,
     0.18,
     {"tlb-1.json", "tlb-2.json", "tlb-3.json", "tlb-4.json", "tlb-5.json"}},
    {"zen4-guest", 72, 3072, 0.43, {"tlb-1.json", "tlb-2.json", "tlb-3.json"}},
    {"zen4-guest-turn4", 72, 3072, 0.21, {"tlb-1.json", "tlb-2.json", "tlb-3.json"}},
    {"zen5-guest",
     96,
     4096,
     0.41,
     {"tlb-zen-1.json", "tlb-zen-2.json", "tlb-zen-3.json", "tlb-zen-4.json", "tlb-zen-5.json",
      "tlb-zen-reuse-1.json", "tlb-zen-reuse-2.json", "tlb-zen-reuse-3.json",
      "tlb-zen-reuse-4.json", "tlb-zen-reuse-5.json"}},
    {"zen5-guest-turn5",
     96,
     4096,
     0.41,
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

static void replay(const char *path, const struct recorded *r, struct tlb_result *out,
                   struct tlb_thread_result *t0)
{
    static struct tlb_plan plan;
    static struct cpuid_tlb_info info;
    struct knee_params p;
    recorded_cpuid(path, &info);
    struct tlb_sweep *s = recorded_finish_4k(r, &info, out, t0, &plan, &p);
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
