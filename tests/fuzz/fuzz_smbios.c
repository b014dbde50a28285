/* SMBIOS type 17 (Memory Device) records: peak_from_smbios over a directory like
 * /sys/firmware/dmi/entries built from the input. Input: records, each a length byte L and
 * then L bytes, written to 17-<i>/raw; L = 255 makes a 17-<i> directory without raw, L = 254
 * a plain file named 17-<i>. */
#include <math.h>

#include "src/sys/provenance.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char root[300];
    snprintf(root, sizeof(root), "%s/entries", fuzz_dir());
    fuzz_empty_dir(root);
    mkdir(root, 0755);
    size_t at = 0;
    for (int i = 0; at < size && i < 64; i++) {
        size_t len = data[at++];
        char rel[64], path[400];
        if (len == 255) {
            snprintf(path, sizeof(path), "%s/17-%d", root, i);
            mkdir(path, 0755);
            continue;
        }
        if (len == 254) {
            snprintf(path, sizeof(path), "%s/17-%d", root, i);
            fuzz_write_file(path, "", 0);
            continue;
        }
        if (len > size - at) len = size - at;
        snprintf(rel, sizeof(rel), "17-%d/raw", i);
        fuzz_path(path, sizeof(path), root, rel);
        fuzz_write_file(path, data + at, len);
        at += len;
    }
    struct provenance p;
    memset(&p, 0, sizeof(p));
    peak_from_smbios(root, &p);
    FUZZ_CHECK(p.peak_mbps >= 0.0 && isfinite(p.peak_mbps), "peak %g", p.peak_mbps);
    FUZZ_CHECK(memchr(p.peak_source, '\0', sizeof(p.peak_source)) && p.peak_source[0],
               "no peak source");
    return 0;
}
