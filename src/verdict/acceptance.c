#include "src/verdict/acceptance.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "affinity/memory_nodes.h"
#include "hugepages/backend.h"
#include "src/base/parse.h"
#include "src/base/test_hooks.h"
#include "src/stream/results.h"
#include "src/sys/provenance.h"
#include "src/sys/sysinfo.h"

int expectations_parse(const char *text, struct expectations *e, char *why, size_t why_len)
{
    const char *p = text;
    if (!*p) {
        snprintf(why, why_len, "empty; write e.g. triad=90000,copy=85000 (MB/s)");
        return -1;
    }
    while (*p) {
        const char *eq = strchr(p, '='), *comma = strchr(p, ',');
        if (!comma) comma = p + strlen(p);
        if (!eq || eq > comma) {
            snprintf(why, why_len, "'%.*s' is not KERNEL=MB/s; write e.g. triad=90000",
                     (int)(comma - p > 60 ? 60 : comma - p), p);
            return -1;
        }
        int k;
        for (k = 0; k < KERNEL_COUNT; k++)
            if (strlen(kernel_table[k].name) == (size_t)(eq - p) &&
                strncasecmp(kernel_table[k].name, p, (size_t)(eq - p)) == 0)
                break;
        if (k == KERNEL_COUNT) {
            snprintf(why, why_len,
                     "unknown kernel '%.*s'; use copy, scale, add, triad, dot, "
                     "read, write or nstream",
                     (int)(eq - p > 40 ? 40 : eq - p), p);
            return -1;
        }
        if (e->rate_mbps[k] != 0.0) {
            snprintf(why, why_len, "%s is given twice; give each kernel one rate",
                     kernel_table[k].name);
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
        char *end;
        double v = strtod(number, &end);
        if (*end || !(v > 0.0) || v > 1e9) {
            snprintf(why, why_len, "'%s' for %s is not a positive rate in MB/s", number,
                     kernel_table[k].name);
            return -1;
        }
        e->rate_mbps[k] = v;
        p = *comma ? comma + 1 : comma;
        if (*comma && !*p) {
            snprintf(why, why_len, "ends with a comma");
            return -1;
        }
    }
    return 0;
}

static struct acceptance_check *add(struct acceptance_result *out, const char *name, bool passed)
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

static void describe(struct acceptance_check *c, const char *measured, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void describe(struct acceptance_check *c, const char *measured, const char *fmt, ...)
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

static void rate_checks(const struct run_result *run, const struct expectations *e, double tol,
                        struct acceptance_result *out)
{
    for (int i = 0; i < run->n_results; i++) {
        const struct kernel_result *r = &run->results[i];
        double want = e->rate_mbps[r->kernel];
        if (want <= 0.0) continue;
        double floor = want * (1.0 - tol / 100.0);
        char name[48], got[32];
        snprintf(name, sizeof(name), "%s", kernel_table[r->kernel].name);
        snprintf(got, sizeof(got), "%.1f", r->best_rate_mbps);
        struct acceptance_check *c = add(out, name, r->best_rate_mbps >= floor);
        describe(c, got, ">= %.1f (%.1f - %.0f%%)", floor, want, tol);
        if (!c) continue;
        c->measured_value = r->best_rate_mbps;
        c->expected_value = floor;
        c->rate_check = true;
        c->reference_mbps = want;
        c->rep_spread_pct = r->rep_spread >= 0.0 ? 100.0 * r->rep_spread : -1.0;
        bool by_reference = e->rated_by_reference & (1u << r->kernel);
        c->from_reference = by_reference;
        if (by_reference) c->ref_runs = e->reference_runs;
        if (by_reference && (e->spread_kernels & (1u << r->kernel)))
            c->ref_spread_pct = e->reference_spread_pct[r->kernel];
        enum shortfall_cause cause =
            c->passed ? SHORTFALL_FAILS : judge_shortfall(c, name, want, tol);
        note_rate(c, name, want, tol, cause);
    }
}

static void run_checks(const struct run_result *run, struct acceptance_result *out)
{
    struct acceptance_check *c = add(out, "validation", run->validation.passed);
    describe(c, run->validation.passed ? "passed" : "FAILED", "passed");

    const struct mem_backend *b = mem_backend_find(run->config.pages);
    uint64_t want = b ? b->page_bytes : 0; /* default: whatever the system gives */
    char got[48];
    if (run->backing.verified)
        snprintf(got, sizeof(got), "%llu", (unsigned long long)run->backing.page_size_bytes);
    else
        snprintf(got, sizeof(got), "unverified");
    c = add(out, "page size",
            run->backing.verified && (want == 0 || run->backing.page_size_bytes == want));
    if (want)
        describe(c, got, "%llu (--pages %s)", (unsigned long long)want, run->config.pages);
    else
        describe(c, got, "verified (--pages default)");

    if (run->config.pus) {
        if (run->n_unbound)
            snprintf(got, sizeof(got), "%d of %u threads not bound", run->n_unbound,
                     run->config.threads);
        else
            snprintf(got, sizeof(got), "%d of %u threads misplaced", run->n_misplaced,
                     run->config.threads);
        c = add(out, "placement", run->n_misplaced == 0 && run->n_unbound == 0);
        describe(c, got, "as planned (%s)", run->config.bind);
    }
}

static void same_text(struct acceptance_result *out, const char *name, const char *run,
                      const char *ref)
{
    if (!ref[0]) return;
    if (!run) run = "unknown";
    describe(add(out, name, strcmp(run, ref) == 0), run, "%s (reference)", ref);
}

static void same_number(struct acceptance_result *out, const char *name, long long run,
                        long long ref)
{
    if (ref < 0) return;
    char got[32];
    snprintf(got, sizeof(got), "%lld", run);
    describe(add(out, name, run == ref), got, "%lld (reference)", ref);
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
    struct acceptance_check *c = add(out, "cpus", !t->restricted);
    if (cgroup)
        describe(c, got,
                 "all %d PUs (run outside the job's cpuset: srun --exclusive, no container)",
                 t->machine_pus);
    else
        describe(c, got,
                 "all %d PUs (unbind: mpirun --bind-to none, srun --cpu-bind=none, no taskset)",
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
    describe(add(out, "locality", loc->local_fraction >= LOCALITY_MIN_FRACTION), got,
             ">= %.0f%% on their thread's NUMA node", 100.0 * LOCALITY_MIN_FRACTION);
}

static void system_checks(const struct node_facts *node, const struct expectations *e,
                          struct acceptance_result *out)
{
    if (!e->have_system) return;
    char got[96];
    const struct topology_facts *t = node->topo;
    struct acceptance_check *c = add(out, "cpu model", strcmp(t->cpu_model, e->cpu_model) == 0);
    describe(c, t->cpu_model, "%s", e->cpu_model);
    snprintf(got, sizeof(got), "%d", t->cores);
    c = add(out, "cores", t->cores == e->cores);
    describe(c, got, "%d", e->cores);
    if (e->mem_total_bytes) {
        double ratio = (double)node->prov->mem_total_bytes / (double)e->mem_total_bytes;
        snprintf(got, sizeof(got), "%llu", (unsigned long long)node->prov->mem_total_bytes);
        c = add(out, "memory", ratio > 0.98 && ratio < 1.02);
        describe(c, got, "%llu (within 2%%)", e->mem_total_bytes);
    }
    if (e->thp_enabled[0]) {
        c = add(out, "thp mode", strcmp(node->sys->thp_enabled, e->thp_enabled) == 0);
        describe(c, node->sys->thp_enabled, "%s", e->thp_enabled);
    }
    if (e->governor[0]) {
        c = add(out, "governor", strcmp(node->prov->governor, e->governor) == 0);
        describe(c, node->prov->governor, "%s", e->governor);
    }
    if (e->hugepages_2m >= 0) {
        long long have = hugepage_pool_total(node->sys, PAGE_2M);
        snprintf(got, sizeof(got), "%lld", have);
        c = add(out, "2 MB pool", have >= e->hugepages_2m);
        describe(c, got, ">= %lld pages", e->hugepages_2m);
    }
}

/* What a reference node finds on this one: "" when it matches, else why not. */
static void node_mismatch(const struct node_memory *m, const struct reference_mem_node *r,
                          char *got, size_t len)
{
    const struct mem_node *n = m ? node_memory_by_os(m, r->os) : NULL;
    const char *kind = n ? m->tiers[n->tier].kind : "";
    double floor = (double)r->bytes * (1.0 - REFERENCE_MEM_MARGIN_PCT / 100.0);
    got[0] = '\0';
    if (!m)
        snprintf(got, len, "unknown (the NUMA nodes were not read)");
    else if (!n)
        snprintf(got, len, "missing");
    else if (strcmp(kind, r->kind) != 0 || (double)n->bytes < floor)
        snprintf(got, len, "%s, %llu bytes", kind, (unsigned long long)n->bytes);
}

/* Every node of the reference's inventory, by OS number, with its kind and at least its
 * bytes less the margin; every tier of it by name. A node or tier that differs is a failed
 * check naming it; when none does, one passed check says what was compared. */
static void memory_checks(const struct node_facts *node, const struct reference_memory *r,
                          struct acceptance_result *out)
{
    if (!r->present) return;
    const struct node_memory *m = node->memory;
    int bad = 0;
    for (int i = 0; i < r->n_nodes; i++) {
        const struct reference_mem_node *n = &r->nodes[i];
        char got[96], name[48];
        node_mismatch(m, n, got, sizeof(got));
        if (!got[0]) continue;
        bad++;
        snprintf(name, sizeof(name), "memory node %u", n->os);
        describe(add(out, name, false), got, "%s, >= %.0f bytes (%llu - %g%%, reference)", n->kind,
                 (double)n->bytes * (1.0 - REFERENCE_MEM_MARGIN_PCT / 100.0), n->bytes,
                 REFERENCE_MEM_MARGIN_PCT);
    }
    char got[96];
    if (!bad) {
        snprintf(got, sizeof(got), "%d of %d as the reference", r->n_nodes, r->n_nodes);
        describe(add(out, "memory nodes", true), got, "node%s %s: kind, bytes within %g%%",
                 r->n_nodes == 1 ? "" : "s", "by OS number", REFERENCE_MEM_MARGIN_PCT);
    }
    bad = 0;
    for (int i = 0; i < r->n_tiers; i++) {
        int t;
        for (t = 0; m && t < m->tier_count && strcmp(m->tiers[t].name, r->tiers[i]); t++)
            ;
        if (m && t < m->tier_count) continue;
        char name[48];
        snprintf(name, sizeof(name), "memory tier %s", r->tiers[i]);
        describe(add(out, name, false), m ? "missing" : "unknown", "present (reference)");
        bad++;
    }
    snprintf(got, sizeof(got), "%d of %d present", r->n_tiers, r->n_tiers);
    if (!bad) describe(add(out, "memory tiers", true), got, "the reference's tiers by name");
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
    memory_checks(node, &e->memory, out);
    bool failed = false, unjudged = false;
    for (int i = 0; i < out->n_checks; i++) {
        failed |= check_state(&out->checks[i]) == CHECK_FAIL;
        unjudged |= check_state(&out->checks[i]) == CHECK_INCONCLUSIVE;
    }
    out->inconclusive = !failed && unjudged;
}
