/* --expect values: expectations_parse ("triad=90000,copy=85000"). */
#include <math.h>

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
        FUZZ_CHECK(rates >= 1, "'%.60s' accepted without a rate", text);
    }
    free(text);
    return 0;
}
