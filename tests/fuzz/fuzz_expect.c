/* --expect values: expectations_parse ("triad=90000,copy=85000", "hbm:triad=80%hmat"). */
#include <math.h>
#include <string.h>

#include "src/verdict/acceptance.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstr(data, size);
    struct expectations e;
    memset(&e, 0, sizeof(e));
    char why[256] = "";
    if (expectations_parse(text, &e, why, sizeof(why)) != 0) {
        fuzz_check_reason("expectations_parse", why, sizeof(why));
    } else {
        int rates = 0;
        for (int k = 0; k < KERNEL_COUNT; k++) {
            double r = e.rate_mbps[k];
            FUZZ_CHECK(r == 0.0 || (r > 0.0 && r <= 1e9 && isfinite(r)), "%s=%g",
                       kernel_table[k].name, r);
            rates += r > 0.0;
        }
        FUZZ_CHECK(e.n_tier_rates >= 0 && e.n_tier_rates <= REFERENCE_MEM_TIERS_MAX, "%d tiers",
                   e.n_tier_rates);
        for (int t = 0; t < e.n_tier_rates; t++) {
            const struct tier_expectation *te = &e.tier_rates[t];
            FUZZ_CHECK(te->tier[0] != '\0' && memchr(te->tier, '\0', sizeof(te->tier)),
                       "tier %d unnamed or unterminated", t);
            for (int k = 0; k < KERNEL_COUNT; k++) {
                double r = te->rate_mbps[k], p = te->hmat_pct[k];
                FUZZ_CHECK(r == 0.0 || (r > 0.0 && r <= 1e9 && isfinite(r)), "%s:%s=%g", te->tier,
                           kernel_table[k].name, r);
                FUZZ_CHECK(p == 0.0 || (p > 0.0 && p <= 100.0), "%s:%s=%g%%hmat", te->tier,
                           kernel_table[k].name, p);
                rates += r > 0.0 || p > 0.0;
            }
        }
        FUZZ_CHECK(rates >= 1, "'%.60s' accepted without a rate", text);
    }
    free(text);
    return 0;
}
