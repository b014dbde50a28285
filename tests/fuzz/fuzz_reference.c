/* --reference files: reference_load on the input, written to a scratch file, then the
 * acceptance checks evaluated against a fixed run with what it loaded. */
#include <math.h>

#include "src/verdict/reference.h"
#include "src/report/report.h"
#include "tests/fuzz/fuzz.h"

static void check_text(const char *what, const char *s, size_t len)
{
    FUZZ_CHECK(memchr(s, '\0', len), "%s not terminated", what);
    FUZZ_CHECK(fuzz_valid_utf8(s), "%s is not UTF-8 (the JSON report would drop it)", what);
}

/* One measured run on a plain machine, every kernel at 1000 MB/s. */
static void evaluate(const struct expectations *e)
{
    static struct report rep;
    static struct run_result run;
    memset(&rep, 0, sizeof(rep));
    memset(&run, 0, sizeof(run));
    snprintf(rep.topo.cpu_model, sizeof(rep.topo.cpu_model), "Intel(R) Xeon(R) CPU");
    rep.topo.cores = 16;
    snprintf(rep.sys.thp_enabled, sizeof(rep.sys.thp_enabled), "madvise");
    snprintf(rep.prov.governor, sizeof(rep.prov.governor), "performance");
    rep.prov.mem_total_bytes = 64ull << 30;
    rep.sys.n_pools = 1;
    rep.sys.pools[0].page_size_bytes = 2u << 20;
    rep.sys.pools[0].total = 512;
    run.config.pages = "default";
    snprintf(run.config.bind, sizeof(run.config.bind), "scatter");
    run.measured = true;
    run.validation.passed = true;
    run.backing.verified = true;
    run.backing.page_size_bytes = 4096;
    run.n_results = KERNEL_COUNT;
    for (int k = 0; k < KERNEL_COUNT; k++) {
        run.results[k].kernel = (enum kernel_id)k;
        run.results[k].best_rate_mbps = 1000.0;
    }
    struct acceptance_result a;
    acceptance_evaluate(&(struct node_facts){rep.version, &rep.prov, &rep.topo, &rep.sys, NULL, NULL, 0}, &run, e,
                        5.0, &a);
    FUZZ_CHECK(a.evaluated && a.n_checks >= 2 && a.n_checks <= ACCEPTANCE_CHECKS_MAX,
               "%d acceptance checks", a.n_checks);
    bool all = true;
    for (int i = 0; i < a.n_checks; i++) {
        check_text("check name", a.checks[i].name, sizeof(a.checks[i].name));
        check_text("measured", a.checks[i].measured, sizeof(a.checks[i].measured));
        check_text("expected", a.checks[i].expected, sizeof(a.checks[i].expected));
        all &= a.checks[i].passed;
    }
    FUZZ_CHECK(a.passed == all, "verdict %d, checks %d", a.passed, all);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file(data, size);
    struct expectations e;
    memset(&e, 0, sizeof(e));
    e.hugepages_2m = -1;
    e.rate_mbps[KERNEL_TRIAD] = 1234.0; /* as if from --expect: must win over the file */
    char why[512] = "";
    if (reference_load(path, &e, why, sizeof(why)) != 0) {
        fuzz_check_reason("reference_load", why, sizeof(why));
        return 0;
    }
    FUZZ_CHECK(e.rate_mbps[KERNEL_TRIAD] == 1234.0, "the reference overrode --expect");
    for (int k = 0; k < KERNEL_COUNT; k++)
        FUZZ_CHECK(e.rate_mbps[k] >= 0.0 && isfinite(e.rate_mbps[k]), "%s=%g", kernel_table[k].name,
                   e.rate_mbps[k]);
    FUZZ_CHECK(e.have_system, "accepted without a system");
    check_text("cpu_model", e.cpu_model, sizeof(e.cpu_model));
    check_text("thp_enabled", e.thp_enabled, sizeof(e.thp_enabled));
    check_text("governor", e.governor, sizeof(e.governor));
    const struct reference_profile *p = &e.profile;
    check_text("profile.bind", p->bind, sizeof(p->bind));
    check_text("profile.type", p->type, sizeof(p->type));
    check_text("profile.stores", p->stores, sizeof(p->stores));
    check_text("profile.pages", p->pages, sizeof(p->pages));
    check_text("profile.isa", p->isa, sizeof(p->isa));
    FUZZ_CHECK(p->threads >= -1 && p->elements >= -1 && p->offset >= -1,
               "profile counts %lld %lld %lld", p->threads, p->elements, p->offset);
    evaluate(&e);
    return 0;
}
