/* --bind values: bind_spec_parse ("compact", "scatter", "none" or a PU list like 0,2,4-7). */
#include "affinity/policy.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstr(data, size);
    struct bind_spec spec;
    char why[256] = "";
    int is_list = bind_text_is_list(text);
    if (bind_spec_parse(text, &spec, why, sizeof(why)) != 0) {
        fuzz_check_reason("bind_spec_parse", why, sizeof(why));
        FUZZ_CHECK(spec.pus == NULL && spec.n_pus == 0, "bind_spec_parse left a list behind");
        free(text);
        return 0;
    }
    FUZZ_CHECK(memchr(spec.text, '\0', sizeof(spec.text)) &&
                   !strncmp(spec.text, text, sizeof(spec.text) - 1),
               "bind_spec_parse: label '%.64s'", spec.text);
    switch (spec.kind) {
    case BIND_NONE:
    case BIND_COMPACT:
    case BIND_SCATTER: FUZZ_CHECK(!is_list && spec.n_pus == 0, "policy with a PU list"); break;
    case BIND_LIST: {
        FUZZ_CHECK(is_list, "'%.60s' parsed as a list but is not one", text);
        FUZZ_CHECK(spec.n_pus >= 1 && spec.n_pus <= BIND_LIST_MAX && spec.pus, "list of %d PUs",
                   spec.n_pus);
        static unsigned char seen[65536];
        memset(seen, 0, sizeof(seen));
        for (int i = 0; i < spec.n_pus; i++) {
            int pu = spec.pus[i];
            FUZZ_CHECK(pu >= 0 && pu < 65536 && !seen[pu], "PU %d in '%.60s'", pu, text);
            seen[pu] = 1;
        }
        break;
    }
    default: fuzz_fail("bind_spec_parse: kind %d", (int)spec.kind);
    }
    bind_spec_free(&spec);
    free(text);
    return 0;
}
