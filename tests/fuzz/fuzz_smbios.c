/* SMBIOS type 16 and 17 records: the DIMM inventory (dimm_inventory_read, for a CPU with a
 * channel table row and for an unknown one) and the peak from it, over a directory like
 * /sys/firmware/dmi/entries built from the input. Input: records, each a length byte L and
 * then L bytes, written to 16-<i>/raw when their first byte is 16, else to 17-<i>/raw; L = 255
 * makes a 17-<i> directory without raw, L = 254 a plain file named 17-<i>. */
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
        snprintf(rel, sizeof(rel), "%d-%d/raw", len && data[at] == 16 ? 16 : 17, i);
        fuzz_path(path, sizeof(path), root, rel);
        fuzz_write_file(path, data + at, len);
        at += len;
    }
    static const struct cpu_identity cpus[] = {
        {"AuthenticAMD", 25, 17, "AMD EPYC 9654 96-Core Processor", 2}, {"", 0, 0, "", 0}};
    for (size_t c = 0; c < sizeof(cpus) / sizeof(cpus[0]); c++) {
        static struct dimm_inventory inv;
        dimm_inventory_read(root, &cpus[c], &inv);
        FUZZ_CHECK(inv.ceiling_mbps >= 0.0 && isfinite(inv.ceiling_mbps), "ceiling %g",
                   inv.ceiling_mbps);
        FUZZ_CHECK((inv.ceiling_mbps > 0) == (inv.why_unknown[0] == '\0'),
                   "ceiling %g with reason '%s'", inv.ceiling_mbps, inv.why_unknown);
        FUZZ_CHECK(inv.ceiling_mbps == 0 || inv.source[0], "a ceiling without its source");
        FUZZ_CHECK(inv.n_slots <= DIMM_SLOTS_MAX && inv.n_sockets <= DIMM_SOCKETS_MAX,
                   "%d slots, %d sockets", inv.n_slots, inv.n_sockets);
        for (int k = 0; k < inv.n_sockets; k++) {
            const struct dimm_socket *s = &inv.sockets[k];
            int most = s->channels_named > s->channels ? s->channels_named : s->channels;
            FUZZ_CHECK(s->channels_populated <= most && s->dimms <= s->slots,
                       "socket %d: %d of %d channels, %u DIMMs in %u slots", s->id,
                       s->channels_populated, most, s->dimms, s->slots);
            FUZZ_CHECK(memchr(s->empty_channels, '\0', sizeof(s->empty_channels)),
                       "empty channels unterminated");
        }
        for (int i = 0; i < inv.n_slots; i++)
            FUZZ_CHECK(memchr(inv.slots[i].locator, '\0', sizeof(inv.slots[i].locator)) &&
                           memchr(inv.slots[i].channel, '\0', sizeof(inv.slots[i].channel)),
                       "slot %d: a string unterminated", i);
        struct provenance p;
        memset(&p, 0, sizeof(p));
        peak_from_inventory(&inv, &p);
        FUZZ_CHECK(p.peak_mbps >= 0.0 && isfinite(p.peak_mbps), "peak %g", p.peak_mbps);
        FUZZ_CHECK(memchr(p.peak_source, '\0', sizeof(p.peak_source)) && p.peak_source[0],
                   "no peak source");
    }
    return 0;
}
