#include "src/verdict/acceptance.h"

#include "src/verdict/acceptance_checks.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hugepages/backend.h"
#include "src/base/parse.h"
#include "src/base/test_hooks.h"
#include "src/stream/results.h"
#include "src/sys/provenance.h"
#include "src/sys/sysinfo.h"

struct tier_expectation *expectations_tier(struct expectations *e, const char *name)
{
    for (int i = 0; i < e->n_tier_rates; i++)
        if (strcmp(e->tier_rates[i].tier, name) == 0) return &e->tier_rates[i];
    if (e->n_tier_rates == REFERENCE_MEM_TIERS_MAX) return NULL;
    struct tier_expectation *t = &e->tier_rates[e->n_tier_rates++];
    memset(t, 0, sizeof(*t));
    snprintf(t->tier, sizeof(t->tier), "%s", name);
    return t;
}

unsigned expectations_kernel_mask(const struct expectations *e)
{
    unsigned mask = 0;
    for (int k = 0; k < KERNEL_COUNT; k++) {
        for (int t = 0; t < e->n_tier_rates; t++)
            if (e->tier_rates[t].rate_mbps[k] > 0.0 || e->tier_rates[t].hmat_pct[k] > 0.0)
                mask |= 1u << k;
        if (e->rate_mbps[k] > 0.0) mask |= 1u << k;
    }
    return mask;
}

/* "hbm:" of "hbm:triad=5": the tier's expectation, *p moved past it; NULL without one (e's
 * own rates). -1 with a reason for a bad name. */
static int tier_of(const char **p, const char *eq, struct expectations *e,
                   struct tier_expectation **tier, char *why, size_t why_len)
{
    const char *colon = memchr(*p, ':', (size_t)(eq - *p));
    *tier = NULL;
    if (!colon) return 0;
    size_t n = (size_t)(colon - *p);
    char name[24];
    if (n == 0 || n >= sizeof(name) ||
        strspn(*p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") < n) {
        snprintf(why, why_len,
                 "'%.*s' is not a tier name; write e.g. hbm:triad=90000 (tiers as the report's "
                 "Memory block names them: local, dram, hbm, cxl, memory-only...)",
                 (int)(n > 40 ? 40 : n), *p);
        return -1;
    }
    for (size_t i = 0; i < n; i++) /* tier names are lower-case; HBM is hbm */
        name[i] = (char)tolower((unsigned char)(*p)[i]);
    name[n] = '\0';
    *tier = expectations_tier(e, name);
    if (!*tier) snprintf(why, why_len, "more than %d tiers", REFERENCE_MEM_TIERS_MAX);
    *p = colon + 1;
    return *tier ? 0 : -1;
}

/* "80%hmat" of a tier's kernel: at least 80% of the firmware's bandwidth to the tier. 1 when
 * number is one, 0 when it is not, -1 with a reason when it is one but wrong. */
static int hmat_share(const char *number, struct tier_expectation *tier, int k, char *why,
                      size_t why_len)
{
    size_t len = strlen(number);
    if (len < 6 || strcmp(number + len - 5, "%hmat") != 0) return 0;
    char *end;
    double pct = strtod(number, &end);
    if (end != number + len - 5 || !(pct > 0.0) || pct > 100.0) {
        snprintf(why, why_len,
                 "'%s' for %s is not a share of HMAT's bandwidth; write e.g. 80%%hmat", number,
                 kernel_table[k].name);
        return -1;
    }
    if (!tier) {
        snprintf(why, why_len, "%s=%s needs a tier: write e.g. hbm:%s=%s", kernel_table[k].flag + 2,
                 number, kernel_table[k].flag + 2, number);
        return -1;
    }
    if (tier->hmat_pct[k] != 0.0) {
        snprintf(why, why_len, "%s:%s%%hmat is given twice", tier->tier, kernel_table[k].name);
        return -1;
    }
    tier->hmat_pct[k] = pct;
    return 1;
}

/* One "[tier:]kernel=rate" from p to comma. */
static int parse_item(const char *p, const char *comma, struct expectations *e, char *why,
                      size_t why_len)
{
    const char *eq = strchr(p, '=');
    if (!eq || eq > comma) {
        snprintf(why, why_len, "'%.*s' is not KERNEL=MB/s; write e.g. triad=90000",
                 (int)(comma - p > 60 ? 60 : comma - p), p);
        return -1;
    }
    struct tier_expectation *tier;
    if (tier_of(&p, eq, e, &tier, why, why_len) != 0) return -1;
    double *rates = tier ? tier->rate_mbps : e->rate_mbps;
    int k = kernel_find_n(p, (size_t)(eq - p));
    if (k < 0) {
        snprintf(why, why_len,
                 "unknown kernel '%.*s'; use copy, scale, add, triad, dot, read, write or nstream",
                 (int)(eq - p > 40 ? 40 : eq - p), p);
        return -1;
    }
    char number[64];
    size_t len = (size_t)(comma - eq - 1);
    if (len == 0 || len >= sizeof(number)) {
        snprintf(why, why_len, "no rate after '%s='; give MB/s, e.g. triad=90000",
                 kernel_table[k].name);
        return -1;
    }
    memcpy(number, eq + 1, len);
    number[len] = '\0';
    int share = hmat_share(number, tier, k, why, why_len);
    if (share != 0) return share < 0 ? -1 : 0;
    if (rates[k] != 0.0) {
        snprintf(why, why_len, "%s is given twice; give each kernel one rate",
                 kernel_table[k].name);
        return -1;
    }
    char *end;
    double v = strtod(number, &end);
    if (*end || !(v > 0.0) || v > 1e9) {
        snprintf(why, why_len, "'%s' for %s is not a positive rate in MB/s", number,
                 kernel_table[k].name);
        return -1;
    }
    rates[k] = v;
    return 0;
}

int expectations_parse(const char *text, struct expectations *e, char *why, size_t why_len)
{
    const char *p = text;
    if (!*p) {
        snprintf(why, why_len, "empty; write e.g. triad=90000,copy=85000 (MB/s)");
        return -1;
    }
    while (*p) {
        const char *comma = strchr(p, ',');
        if (!comma) comma = p + strlen(p);
        if (parse_item(p, comma, e, why, why_len) != 0) return -1;
        p = *comma ? comma + 1 : comma;
        if (*comma && !*p) {
            snprintf(why, why_len, "ends with a comma");
            return -1;
        }
    }
    return 0;
}

struct acceptance_check *acceptance_add(struct acceptance_result *out, const char *name,
                                        bool passed)
{
    out->passed &= passed; /* a check beyond the table still fails the node */
    if (out->n_checks == ACCEPTANCE_CHECKS_MAX) return NULL;
    struct acceptance_check *c = &out->checks[out->n_checks++];
    memset(c, 0, sizeof(*c));
    snprintf(c->name, sizeof(c->name), "%s", name);
    c->passed = passed;
    c->verdict = passed ? CHECK_PASS : CHECK_FAIL;
    c->rep_spread_pct = c->ref_spread_pct = -1.0;
    return c;
}

const char *check_verdict_name(enum check_verdict v)
{
    return v == CHECK_PASS ? "PASS" : v == CHECK_FAIL ? "FAIL" : "INCONCLUSIVE";
}

enum check_verdict acceptance_verdict(const struct acceptance_result *a)
{
    return a->passed ? CHECK_PASS : a->inconclusive ? CHECK_INCONCLUSIVE : CHECK_FAIL;
}

void acceptance_describe(struct acceptance_check *c, const char *measured, const char *fmt, ...)
{
    if (!c) return;
    snprintf(c->measured, sizeof(c->measured), "%s", measured);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->expected, sizeof(c->expected), fmt, ap);
    va_end(ap);
    utf8_trim_partial(c->measured); /* a reference's long model name, cut short */
    utf8_trim_partial(c->expected);
}

enum shortfall_cause { SHORTFALL_FAILS, SHORTFALL_REPETITIONS, SHORTFALL_REFERENCE };

/* Digits for a percentage beyond the tolerance: whole percent, unless that would read as the
 * tolerance itself ("varied 5%, more than the 5% tolerance"). */
static int digits_beyond(double pct, double tol)
{
    return pct - tol < 1.0 ? 1 : 0;
}

/* A rate below its floor is noise, not a slow node, when a spread exceeds the tolerance and
 * is at least the shortfall: the repetitions' (how much one repetition's rate differed from
 * another's in this run) or the reference's own runs'. A larger shortfall, or a spread within
 * the tolerance, fails. Returns which spread made the check inconclusive, if one did. */
static enum shortfall_cause judge_shortfall(struct acceptance_check *c, const char *kernel,
                                            double want, double tol)
{
    double shortfall = 100.0 * (1.0 - c->measured_value / want);
    int rep_digits = digits_beyond(c->rep_spread_pct, tol);
    int ref_digits = digits_beyond(c->ref_spread_pct, tol);
    enum shortfall_cause cause = SHORTFALL_FAILS;
    if (c->rep_spread_pct > tol && c->rep_spread_pct >= shortfall) {
        cause = SHORTFALL_REPETITIONS;
        snprintf(c->why, sizeof(c->why),
                 "%s varied %.*f%% across repetitions, more than the %g%% tolerance", kernel,
                 rep_digits, c->rep_spread_pct, tol);
    } else if (c->ref_spread_pct > tol && c->ref_spread_pct >= shortfall) {
        cause = SHORTFALL_REFERENCE;
        snprintf(c->why, sizeof(c->why),
                 "%s: the reference's own runs varied %.*f%%, more than the %g%% tolerance: "
                 "save it on a quiet node or widen --tolerance",
                 kernel, ref_digits, c->ref_spread_pct, tol);
    }
    if (cause != SHORTFALL_FAILS) c->verdict = CHECK_INCONCLUSIVE;
    return cause;
}

/* Said beside any verdict: a rate more than the tolerance above its reference's (the node
 * changed since the reference was saved; --expect is a floor a site chose, never questioned),
 * and a reference too noisy to judge a shortfall by (its runs' spread beyond the tolerance;
 * already the why of a check it made inconclusive). */
static void note_rate(struct acceptance_check *c, const char *kernel, double want, double tol,
                      enum shortfall_cause cause)
{
    size_t used = 0;
    double above = 100.0 * (c->measured_value / want - 1.0);
    if (c->from_reference && above > tol)
        used += (size_t)snprintf(c->note, sizeof(c->note),
                                 "%s %.*f%% above the reference's %.1f MB/s: the reference may be "
                                 "stale (saved before the node changed?): check the node, then "
                                 "save it again",
                                 kernel, digits_beyond(above, tol), above, want);
    if (c->ref_spread_pct > tol && cause != SHORTFALL_REFERENCE && used < sizeof(c->note))
        snprintf(c->note + used, sizeof(c->note) - used,
                 "%s%s: the reference's own runs varied %.*f%%, more than the %g%% tolerance: "
                 "too noisy to judge a shortfall by; save it on a quiet node",
                 used ? "; " : "", kernel, digits_beyond(c->ref_spread_pct, tol), c->ref_spread_pct,
                 tol);
}

void acceptance_check_reason(const struct acceptance_check *c, char *buf, size_t len)
{
    enum check_verdict v = check_state(c);
    if (v == CHECK_PASS)
        snprintf(buf, len, "%s", "");
    else if (v == CHECK_INCONCLUSIVE)
        snprintf(buf, len, "%s", c->why);
    else if (c->rate_check)
        snprintf(buf, len, "%s %.0f%% below %s (%.1f of %.1f MB/s, floor %.1f)", c->name,
                 100.0 * (1.0 - c->measured_value / c->reference_mbps),
                 c->from_reference ? "the reference" : "--expect", c->measured_value,
                 c->reference_mbps, c->expected_value);
    else
        snprintf(buf, len, "%s %s, expected %s", c->name, c->measured, c->expected);
}

void acceptance_rate_check(struct acceptance_result *out, const char *name,
                           const struct kernel_result *r, double want, bool by_reference,
                           int ref_runs, double ref_spread_pct, double tol)
{
    double floor = want * (1.0 - tol / 100.0);
    char got[32];
    snprintf(got, sizeof(got), "%.1f", r->best_rate_mbps);
    struct acceptance_check *c = acceptance_add(out, name, r->best_rate_mbps >= floor);
    acceptance_describe(c, got, ">= %.1f (%.1f - %.0f%%)", floor, want, tol);
    if (!c) return;
    c->measured_value = r->best_rate_mbps;
    c->expected_value = floor;
    c->rate_check = true;
    c->reference_mbps = want;
    c->rep_spread_pct = r->rep_spread >= 0.0 ? 100.0 * r->rep_spread : -1.0;
    c->from_reference = by_reference;
    if (by_reference) c->ref_runs = ref_runs;
    if (by_reference) c->ref_spread_pct = ref_spread_pct;
    enum shortfall_cause cause = c->passed ? SHORTFALL_FAILS : judge_shortfall(c, name, want, tol);
    note_rate(c, name, want, tol, cause);
}

static void rate_checks(const struct run_result *run, const struct expectations *e, double tol,
                        struct acceptance_result *out)
{
    for (int i = 0; i < run->n_results; i++) {
        const struct kernel_result *r = &run->results[i];
        double want = e->rate_mbps[r->kernel];
        if (want <= 0.0) continue;
        unsigned bit = 1u << r->kernel;
        acceptance_rate_check(out, kernel_table[r->kernel].name, r, want,
                              e->rated_by_reference & bit, e->reference_runs,
                              e->spread_kernels & bit ? e->reference_spread_pct[r->kernel] : -1.0,
                              tol);
    }
}

static void run_checks(const struct run_result *run, struct acceptance_result *out)
{
    struct acceptance_check *c = acceptance_add(out, "validation", run->validation.passed);
    acceptance_describe(c, run->validation.passed ? "passed" : "FAILED", "passed");

    const struct mem_backend *b = mem_backend_find(run->config.pages);
    uint64_t want = b ? b->page_bytes : 0; /* default: whatever the system gives */
    char got[48];
    if (run->backing.verified)
        snprintf(got, sizeof(got), "%llu", (unsigned long long)run->backing.page_size_bytes);
    else
        snprintf(got, sizeof(got), "unverified");
    c = acceptance_add(out, "page size",
                       run->backing.verified &&
                           (want == 0 || run->backing.page_size_bytes == want));
    if (want)
        acceptance_describe(c, got, "%llu (--pages %s)", (unsigned long long)want,
                            run->config.pages);
    else
        acceptance_describe(c, got, "verified (--pages default)");

    if (run->config.pus) {
        if (run->n_unbound)
            snprintf(got, sizeof(got), "%d of %u threads not bound", run->n_unbound,
                     run->config.threads);
        else
            snprintf(got, sizeof(got), "%d of %u threads misplaced", run->n_misplaced,
                     run->config.threads);
        c = acceptance_add(out, "placement", run->n_misplaced == 0 && run->n_unbound == 0);
        acceptance_describe(c, got, "as planned (%s)", run->config.bind);
    }
}

static void same_text(struct acceptance_result *out, const char *name, const char *run,
                      const char *ref)
{
    if (!ref[0]) return;
    if (!run) run = "unknown";
    acceptance_describe(acceptance_add(out, name, strcmp(run, ref) == 0), run, "%s (reference)",
                        ref);
}

static void same_number(struct acceptance_result *out, const char *name, long long run,
                        long long ref)
{
    if (ref < 0) return;
    char got[32];
    snprintf(got, sizeof(got), "%lld", run);
    acceptance_describe(acceptance_add(out, name, run == ref), got, "%lld (reference)", ref);
}

int acceptance_topology_check(const struct topology_facts *t, char *why, size_t why_len)
{
    if (t->is_machine || (test_hooks && test_hooks->topology_is_machine)) return 0;
    bool told = strncmp(t->source, "HWLOC_THISSYSTEM=", 17) == 0;
    bool files = strncmp(t->source, "HWLOC_FSROOT=", 13) == 0;
    snprintf(why, why_len,
             "--acceptance judges the real machine; %.160s %s: unset it (or add --dry-run to see "
             "the plan)",
             t->source,
             told    ? "tells hwloc the topology is not this machine's"
             : files ? "makes hwloc read /sys and /proc under another root"
                     : "describes another");
    return -1;
}

/* A reference's rates hold for the profile they were measured with: each row of the run
 * profile with a check (threads, binding, arrays, element type, stores, pages, offset, kernel
 * variant and topology), in the reference's order. */
static void profile_checks(const struct run_result *run, const struct topology_facts *t,
                           const struct reference_profile *p, struct acceptance_result *out)
{
    if (!p->present) return;
    const struct profile_field *f;
    for (int pos = 1; (f = run_profile_ref_at(pos)) != NULL; pos++) {
        if (!f->check) continue;
        const char *recorded = (const char *)p + f->ref_at;
        struct profile_value v;
        profile_value_of(f, &run->config, &v);
        if (profile_field_is_number(f))
            same_number(out, f->check, v.number, *(const long long *)recorded);
        else /* the one row the run_config lacks is the topology's */
            same_text(out, f->check, f->kind == PROFILE_CALLER ? t->source : v.text, recorded);
    }
}

/* A node is accepted on all of its cores: a launcher's binding (mpirun binds each rank to a
 * core by default), taskset or a job's cpuset would measure a part and call it the node. The
 * check names what restricted the run and how to lift it. */
static void whole_node_check(const struct topology_facts *t, struct acceptance_result *out)
{
    char got[96];
    bool cgroup = strcmp(t->restricted_by, "cgroup cpuset") == 0;
    if (t->restricted)
        snprintf(got, sizeof(got), "%d of %d PUs usable (%.24s): %s", t->pus, t->machine_pus,
                 t->cpus, cgroup ? "a cgroup cpuset" : "affinity mask");
    else
        snprintf(got, sizeof(got), "%d of %d PUs usable (%.60s)", t->pus, t->machine_pus, t->cpus);
    struct acceptance_check *c = acceptance_add(out, "cpus", !t->restricted);
    if (cgroup)
        acceptance_describe(
            c, got, "all %d PUs (run outside the job's cpuset: srun --exclusive, no container)",
            t->machine_pus);
    else
        acceptance_describe(
            c, got, "all %d PUs (unbind: mpirun --bind-to none, srun --cpu-bind=none, no taskset)",
            t->machine_pus);
}

/* Pages on their threads' NUMA nodes; only a verified tally is judged (move_pages may be
 * forbidden, e.g. by a container's seccomp profile: the run says so). */
static void locality_check(const struct run_result *run, struct acceptance_result *out)
{
    const struct page_locality *loc = &run->locality;
    if (!loc->verified) return;
    char got[64];
    snprintf(got, sizeof(got), "%.1f%% of %llu pages local", 100.0 * loc->local_fraction,
             (unsigned long long)loc->pages_sampled);
    acceptance_describe(
        acceptance_add(out, "locality", loc->local_fraction >= LOCALITY_MIN_FRACTION), got,
        ">= %.0f%% on their thread's NUMA node", 100.0 * LOCALITY_MIN_FRACTION);
}

static void system_checks(const struct node_facts *node, const struct expectations *e,
                          struct acceptance_result *out)
{
    if (!e->have_system) return;
    char got[96];
    const struct topology_facts *t = node->topo;
    struct acceptance_check *c =
        acceptance_add(out, "cpu model", strcmp(t->cpu_model, e->cpu_model) == 0);
    acceptance_describe(c, t->cpu_model, "%s", e->cpu_model);
    snprintf(got, sizeof(got), "%d", t->cores);
    c = acceptance_add(out, "cores", t->cores == e->cores);
    acceptance_describe(c, got, "%d", e->cores);
    if (e->mem_total_bytes) {
        double ratio = (double)node->prov->mem_total_bytes / (double)e->mem_total_bytes;
        snprintf(got, sizeof(got), "%llu", (unsigned long long)node->prov->mem_total_bytes);
        c = acceptance_add(out, "memory", ratio > 0.98 && ratio < 1.02);
        acceptance_describe(c, got, "%llu (within 2%%)", e->mem_total_bytes);
    }
    if (e->thp_enabled[0]) {
        c = acceptance_add(out, "thp mode", strcmp(node->sys->thp_enabled, e->thp_enabled) == 0);
        acceptance_describe(c, node->sys->thp_enabled, "%s", e->thp_enabled);
    }
    if (e->governor[0]) {
        c = acceptance_add(out, "governor", strcmp(node->prov->governor, e->governor) == 0);
        acceptance_describe(c, node->prov->governor, "%s", e->governor);
    }
    if (e->hugepages_2m >= 0) {
        long long have = hugepage_pool_total(node->sys, PAGE_2M);
        snprintf(got, sizeof(got), "%lld", have);
        c = acceptance_add(out, "2 MB pool", have >= e->hugepages_2m);
        acceptance_describe(c, got, ">= %lld pages", e->hugepages_2m);
    }
}

void acceptance_evaluate(const struct node_facts *node, const struct run_result *run,
                         const struct expectations *e, double tolerance_pct,
                         struct acceptance_result *out)
{
    memset(out, 0, sizeof(*out));
    out->evaluated = true;
    out->passed = true;
    out->tolerance_pct = tolerance_pct;
    rate_checks(run, e, tolerance_pct, out);
    run_checks(run, out);
    if (e->whole_node) whole_node_check(node->topo, out);
    if (e->whole_node) locality_check(run, out);
    profile_checks(run, node->topo, &e->profile, out);
    system_checks(node, e, out);
    acceptance_memory_checks(node, &e->memory, out);
    acceptance_tier_checks(node, run, e, tolerance_pct, out);
    bool failed = false, unjudged = false;
    for (int i = 0; i < out->n_checks; i++) {
        failed |= check_state(&out->checks[i]) == CHECK_FAIL;
        unjudged |= check_state(&out->checks[i]) == CHECK_INCONCLUSIVE;
    }
    out->inconclusive = !failed && unjudged;
}
