/* /proc/meminfo: meminfo_available and meminfo_value over the input (as a file). */
#include "src/sys/sysinfo.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file(data, size);
    uint64_t bytes = 1;
    if (meminfo_available(path, &bytes) == 0)
        FUZZ_CHECK(bytes % 1024 == 0, "MemAvailable %llu is not whole kB",
                   (unsigned long long)bytes);
    else
        FUZZ_CHECK(bytes == 1, "meminfo_available failed but wrote a value");
    static const char *const keys[] = {"MemTotal", "Hugepagesize", "HugePages_Total", "M", ""};
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        bytes = 1;
        if (meminfo_value(path, keys[i], &bytes) == 0)
            FUZZ_CHECK(bytes % 1024 == 0, "%s %llu is not whole kB", keys[i],
                       (unsigned long long)bytes);
        else
            FUZZ_CHECK(bytes == 1, "meminfo_value(%s) failed but wrote a value", keys[i]);
    }
    return 0;
}
