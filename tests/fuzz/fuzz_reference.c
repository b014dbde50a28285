/* --reference files: reference_load on the input, written to a scratch file. */
#include <math.h>

#include "src/reference.h"
#include "tests/fuzz/fuzz.h"

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
    FUZZ_CHECK(memchr(e.cpu_model, '\0', sizeof(e.cpu_model)) &&
                   memchr(e.thp_enabled, '\0', sizeof(e.thp_enabled)) &&
                   memchr(e.governor, '\0', sizeof(e.governor)),
               "unterminated string");
    return 0;
}
