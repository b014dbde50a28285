/* HWLOC_SYNTHETIC descriptions: synthetic_pus, which membench runs on the text before hwloc
 * sees it. Input: the description. */
#include <stdbool.h>

#include "affinity/topology.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstr(data, size);
    uint64_t pus = synthetic_pus(text);
    FUZZ_CHECK(synthetic_pus(text) == pus, "synthetic_pus: two answers for one text");
    /* a count comes from digits: text without any is left to hwloc (0) */
    bool digits = false;
    for (const char *p = text; *p && !digits; p++)
        digits = *p >= '0' && *p <= '9';
    FUZZ_CHECK(digits || pus == 0, "synthetic_pus: %llu PUs from no number",
               (unsigned long long)pus);
    free(text);
    return 0;
}
