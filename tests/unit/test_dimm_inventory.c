/* The DIMM inventory's rules on constructed slots: sockets, channels populated, DIMMs per
 * channel, the ceiling (channels populated x slowest configured MT/s x 64 bit per socket),
 * empty channels, mixed DIMMs, the CPU's documented channels when the locators name none, and
 * why the ceiling is unknown when nothing tells; and the CPU table's rows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "src/sys/cpu_memory_channels.h"
#include "src/sys/dimm_inventory.h"
#include "src/sys/dimm_inventory_rules.h"
#include "src/sys/smbios_records.h"

static struct dimm_inventory inv;

static const struct cpu_identity skylake_2s = {"GenuineIntel", 6, 85,
                                               "Intel(R) Xeon(R) Gold 6136 CPU @ 3.00GHz", 2};
static const struct cpu_identity icelake_1s = {"GenuineIntel", 6, 106,
                                               "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz", 1};
static const struct cpu_identity rome_1s = {"AuthenticAMD", 23, 49,
                                            "AMD EPYC 7302P 16-Core Processor", 1};
static const struct cpu_identity milan_2s = {"AuthenticAMD", 25, 1,
                                             "AMD EPYC 7543 32-Core Processor", 2};
static const struct cpu_identity granite_1s = {"GenuineIntel", 6, 173, "Intel(R) Xeon(R) 6980P", 1};

static int empty_inventory(void **state)
{
    (void)state;
    memset(&inv, 0, sizeof(inv));
    inv.read = true;
    return 0;
}

/* A slot as smbios_memory_device_decode leaves it: DDR4, 64 bit, rated 3200 MT/s, configured
 * at mts; gb 0 is an empty slot. */
static struct dimm_slot *add_slot(const char *locator, const char *bank, unsigned gb, unsigned mts)
{
    struct dimm_slot *s = &inv.slots[inv.n_slots++];
    *s = (struct dimm_slot){.populated = gb > 0,
                            .size_bytes = (uint64_t)gb << 30,
                            .type = "DDR4",
                            .rated_mts = gb ? 3200 : 0,
                            .configured_mts = gb ? mts : 0,
                            .data_width_bits = 64,
                            .ranks = gb ? 2 : 0,
                            .socket = -1};
    snprintf(s->locator, sizeof(s->locator), "%s", locator);
    snprintf(s->bank_locator, sizeof(s->bank_locator), "%s", bank);
    return s;
}

static void derive(const struct cpu_identity *cpu, int n_arrays)
{
    struct smbios_memory_array arrays[4];
    for (int a = 0; a < n_arrays; a++)
        arrays[a] = (struct smbios_memory_array){.handle = (uint16_t)(0x1000 * (a + 1)),
                                                 .use = 3,
                                                 .devices = (unsigned)(inv.n_slots / n_arrays)};
    dimm_inventory_derive(&inv, arrays, n_arrays, cpu);
}

static void socket_is(int k, int id, int populated, unsigned dpc, double ceiling_mbps,
                      const char *empty)
{
    const struct dimm_socket *s = &inv.sockets[k];
    assert_int_equal(s->id, id);
    assert_int_equal(s->channels_populated, populated);
    assert_int_equal(s->dimms_per_channel_max, dpc);
    if (s->ceiling_mbps != ceiling_mbps)
        fail_msg("socket %d ceiling %.1f MB/s, expected %.1f", k, s->ceiling_mbps, ceiling_mbps);
    assert_string_equal(s->empty_channels, empty);
}

/* (a) Skylake-SP: 2 sockets x 6 channels x 2 DIMMs per channel at 2666 MT/s. */
static void two_sockets_two_dimms_per_channel(void **state)
{
    (void)state;
    char locator[40];
    for (int cpu = 1; cpu <= 2; cpu++)
        for (char ch = 'A'; ch <= 'F'; ch++)
            for (int slot = 1; slot <= 2; slot++) {
                snprintf(locator, sizeof(locator), "CPU%d_DIMM_%c%d", cpu, ch, slot);
                add_slot(locator, cpu == 1 ? "NODE 1" : "NODE 2", 64, 2666);
            }
    derive(&skylake_2s, 4);
    assert_string_equal(inv.why_unknown, "");
    assert_int_equal(inv.n_sockets, 2);
    for (int k = 0; k < 2; k++) {
        socket_is(k, k + 1, 6, 2, 6.0 * 2666 * 8, "");
        assert_int_equal(inv.sockets[k].channels, 6);
        assert_int_equal(inv.sockets[k].channels_named, 6);
        assert_int_equal(inv.sockets[k].slots, 12);
        assert_int_equal(inv.sockets[k].dimms, 12);
        assert_int_equal(inv.sockets[k].bytes, 12 * (64ull << 30));
        assert_int_equal(inv.sockets[k].bus_bits, 64);
        assert_false(inv.sockets[k].mixed_sizes || inv.sockets[k].mixed_ranks ||
                     inv.sockets[k].mixed_speeds);
    }
    assert_true(inv.ceiling_mbps == 2.0 * 6 * 2666 * 8);
    assert_int_equal(inv.slots[15].socket, 1);
    assert_string_equal(inv.slots[15].channel, "B");
    assert_string_equal(inv.source, "SMBIOS: 2 sockets x 6 of 6 channels x 2666 MT/s x 64 bit "
                                    "(24 of 24 DIMM slots, 2 DIMMs per channel)");
    assert_non_null(strstr(inv.cpu_channels_source, "Intel"));
}

/* (b) Ice Lake-SP, one socket: channels D and G named but empty, channel B with its second
 * slot only; the ceiling counts 6 channels. */
static void named_empty_channels(void **state)
{
    (void)state;
    static const char *const populated[] = {"A0", "A1", "B1", "C0", "E0", "F0", "H0"};
    char locator[32];
    for (char ch = 'A'; ch <= 'H'; ch++)
        for (int slot = 0; slot <= 1; slot++) {
            snprintf(locator, sizeof(locator), "CPU0_%c%d", ch, slot);
            bool full = false;
            for (size_t i = 0; i < sizeof(populated) / sizeof(populated[0]); i++)
                full |= !strcmp(locator + 5, populated[i]);
            add_slot(locator, "", full ? 32 : 0, 3200);
        }
    derive(&icelake_1s, 1);
    assert_string_equal(inv.why_unknown, "");
    assert_int_equal(inv.n_sockets, 1);
    socket_is(0, 0, 6, 2, 6.0 * 3200 * 8, "D, G");
    assert_int_equal(inv.sockets[0].channels_named, 8);
    assert_int_equal(inv.sockets[0].dimms, 7);
    assert_true(inv.ceiling_mbps == 6.0 * 3200 * 8);
    assert_string_equal(inv.source, "SMBIOS: 6 of 8 channels x 3200 MT/s x 64 bit (7 of 16 DIMM "
                                    "slots, 2 DIMMs per channel)");
}

/* Dell's "A1".."A16": no socket, no channel named; dimms of them populated. */
static void unnamed_slots(int slots, int dimms)
{
    char locator[16];
    for (int i = 1; i <= slots; i++) {
        snprintf(locator, sizeof(locator), "A%d", i);
        add_slot(locator, "Not Specified", i <= dimms ? 16 : 0, 3200);
    }
}

/* (c) Rome: 8 documented channels, filled one DIMM per channel before a second. */
static void channels_from_the_cpu_table(void **state)
{
    (void)state;
    unnamed_slots(16, 12);
    derive(&rome_1s, 1);
    assert_string_equal(inv.why_unknown, "");
    socket_is(0, 0, 8, 2, 8.0 * 3200 * 8, "");
    assert_int_equal(inv.sockets[0].channels, 8);
    assert_int_equal(inv.sockets[0].channels_named, 0);
    assert_string_equal(inv.slots[0].channel, "");
    assert_string_equal(inv.source, "SMBIOS: 8 of 8 channels x 3200 MT/s x 64 bit (12 of 16 DIMM "
                                    "slots, assuming 2 DIMMs per channel; sockets: one CPU "
                                    "package)");
    assert_non_null(strstr(inv.cpu_channels_source, "AMD EPYC 7002"));
    empty_inventory(state);
    unnamed_slots(16, 5);
    derive(&rome_1s, 1);
    socket_is(0, 0, 5, 1, 5.0 * 3200 * 8, "");
    assert_true(inv.ceiling_mbps == 5.0 * 3200 * 8);
    assert_non_null(strstr(inv.source, "5 of 8 channels"));
    assert_non_null(strstr(inv.source, "assuming 1 DIMM per channel"));
}

/* Two sockets whose slots name neither: one memory array per package tells the sockets, and
 * fewer arrays than packages tell nothing. */
static void sockets_from_memory_arrays(void **state)
{
    (void)state;
    unnamed_slots(16, 16);
    for (int i = 0; i < 16; i++) {
        inv.slots[i].populated = i % 8 < 4; /* 4 of each array's 8 */
        inv.slots[i].array_handle = i < 8 ? 0x1000 : 0x2000;
    }
    derive(&milan_2s, 2);
    assert_string_equal(inv.why_unknown, "");
    assert_int_equal(inv.n_sockets, 2);
    socket_is(0, 0, 4, 1, 4.0 * 3200 * 8, "");
    socket_is(1, 1, 4, 1, 4.0 * 3200 * 8, "");
    assert_int_equal(inv.slots[9].socket, 1);
    assert_string_equal(inv.source,
                        "SMBIOS: 2 sockets x 4 of 8 channels x 3200 MT/s x 64 bit (8 of 16 DIMM "
                        "slots, assuming 1 DIMM per channel; sockets: one memory array per CPU "
                        "package)");
    empty_inventory(state);
    unnamed_slots(16, 16);
    derive(&milan_2s, 1);
    assert_true(inv.ceiling_mbps == 0.0);
    assert_int_equal(inv.n_sockets, 0);
    assert_string_equal(inv.why_unknown, "sockets unknown: locators do not name them (e.g. 'A1'), "
                                         "and 1 memory array for 2 CPU packages do not tell");
}

/* (d) The same slots on a CPU without a row: the channels, and so the ceiling, are unknown. */
static void channels_unknown_without_a_row(void **state)
{
    (void)state;
    unnamed_slots(16, 12);
    inv.slots[0].populated = false; /* the example is the first populated slot */
    derive(&granite_1s, 1);
    assert_true(inv.ceiling_mbps == 0.0);
    assert_true(inv.sockets[0].ceiling_mbps == 0.0);
    assert_int_equal(inv.sockets[0].channels, 0);
    assert_int_equal(inv.sockets[0].channels_populated, -1);
    assert_string_equal(inv.source, "");
    assert_string_equal(inv.cpu_channels_source, "");
    assert_string_equal(inv.why_unknown,
                        "channels unknown: locators do not name them (e.g. 'A2') and this CPU "
                        "(Intel(R) Xeon(R) 6980P) has no row in the channel table");
    empty_inventory(state);
    unnamed_slots(4, 4);
    const struct cpu_identity arm = {"0x41", 0, 0xd0c, "", 1}; /* cpuinfo names no model */
    derive(&arm, 1);
    assert_string_equal(inv.why_unknown,
                        "channels unknown: locators do not name them (e.g. 'A1') and this CPU "
                        "(0x41 family 0 model 3340) has no row in the channel table");
}

/* (e) Sockets and channels from the bank locators alone; no CPU row is needed for named
 * channels. Mixed sizes, ranks and configured speeds; the slowest sets the ceiling. */
static void mixed_dimms_slowest_sets_the_ceiling(void **state)
{
    (void)state;
    static const struct cpu_identity unknown = {.packages = 0};
    static const unsigned gb[] = {64, 64, 32, 64}, ranks[] = {2, 2, 1, 2};
    static const unsigned mts[] = {3200, 3200, 3200, 2933};
    char locator[24], bank[16];
    for (int i = 0; i < 4; i++) {
        snprintf(locator, sizeof(locator), "DIMM %d", i + 1);
        snprintf(bank, sizeof(bank), "P0 CHANNEL %c", 'A' + i);
        add_slot(locator, bank, gb[i], mts[i])->ranks = ranks[i];
    }
    derive(&unknown, 0);
    assert_string_equal(inv.why_unknown, "");
    const struct dimm_socket *s = &inv.sockets[0];
    socket_is(0, 0, 4, 1, 4.0 * 2933 * 8, "");
    assert_true(s->mixed_sizes && s->mixed_ranks && s->mixed_speeds);
    assert_int_equal(s->configured_mts, 2933);
    assert_int_equal(s->rated_mts, 3200);
    assert_int_equal(s->bytes, 224ull << 30);
    assert_string_equal(inv.slots[2].channel, "C");
    assert_string_equal(inv.source, "SMBIOS: 4 of 4 channels x 2933 MT/s x 64 bit (4 of 4 DIMM "
                                    "slots, 1 DIMM per channel; sockets: bank locators)");
}

/* An unknown rank mixes with nothing; without a configured speed the rated one counts, and the
 * source says so. A rated speed alone that differs is mixed speeds. */
static void unknowns_are_not_mixed(void **state)
{
    (void)state;
    add_slot("CPU0_DIMM_A1", "", 32, 0);
    add_slot("CPU0_DIMM_B1", "", 32, 0)->ranks = 0;
    derive(&icelake_1s, 1);
    const struct dimm_socket *s = &inv.sockets[0];
    assert_false(s->mixed_sizes || s->mixed_ranks || s->mixed_speeds);
    socket_is(0, 0, 2, 1, 2.0 * 3200 * 8, "");
    assert_int_equal(s->configured_mts, 0);
    assert_string_equal(inv.source, "SMBIOS: 2 of 2 channels x 3200 MT/s x 64 bit (2 of 2 DIMM "
                                    "slots, 1 DIMM per channel; rated speed, none configured)");
    empty_inventory(state);
    add_slot("CPU0_DIMM_A1", "", 32, 2933);
    add_slot("CPU0_DIMM_B1", "", 32, 2933)->rated_mts = 2933;
    derive(&icelake_1s, 1);
    assert_true(inv.sockets[0].mixed_speeds);
    assert_false(inv.sockets[0].mixed_sizes || inv.sockets[0].mixed_ranks);
    assert_int_equal(inv.sockets[0].rated_mts, 2933);
}

/* (f) Nothing populated, or populated without what the ceiling needs: unknown, and why. */
static void no_ceiling_without_dimms(void **state)
{
    (void)state;
    add_slot("CPU0_DIMM_A1", "", 0, 0);
    add_slot("CPU0_DIMM_B1", "", 0, 0);
    derive(&icelake_1s, 1);
    assert_int_equal(inv.sockets[0].dimms, 0);
    assert_int_equal(inv.sockets[0].channels_populated, 0);
    assert_string_equal(inv.sockets[0].empty_channels, "A, B");
    assert_true(inv.ceiling_mbps == 0.0);
    assert_string_equal(inv.why_unknown, "SMBIOS lists no populated memory device");
    assert_string_equal(inv.source, "");
    empty_inventory(state);
    add_slot("CPU0_DIMM_A1", "", 32, 0)->rated_mts = 0;
    add_slot("CPU0_DIMM_B1", "", 32, 3200);
    derive(&icelake_1s, 1);
    assert_true(inv.ceiling_mbps == 0.0);
    assert_string_equal(inv.why_unknown,
                        "SMBIOS lists 1 populated memory device without speed or width");
    empty_inventory(state);
    struct dimm_slot *s = add_slot("CPU0_DIMM_A1", "", 32, 3200);
    s->data_width_bits = 0;
    s->type[0] = '\0';
    derive(&icelake_1s, 1);
    assert_int_equal(inv.sockets[0].bus_bits, 0);
    assert_true(inv.ceiling_mbps == 0.0);
    assert_string_equal(inv.why_unknown,
                        "SMBIOS lists populated memory devices without speed or width");
}

static int channels_of(const char *vendor, int family, int model, const char *name)
{
    struct cpu_identity cpu = {.family = family, .model = model, .packages = 1};
    snprintf(cpu.vendor, sizeof(cpu.vendor), "%s", vendor);
    snprintf(cpu.model_name, sizeof(cpu.model_name), "%s", name);
    const struct cpu_memory_row *row = cpu_memory_row_find(&cpu);
    return row ? row->channels : 0;
}

/* Rows by vendor, family, model and, where one model number covers parts with different
 * channel counts, by a word of the model name. */
static void cpu_rows(void **state)
{
    (void)state;
    const char *amd = "AuthenticAMD", *intel = "GenuineIntel";
    assert_int_equal(channels_of(amd, 25, 160, "AMD EPYC 9754 128-Core Processor"), 12);
    assert_int_equal(channels_of(amd, 25, 160, "AMD EPYC 8534P 64-Core Processor"), 6);
    assert_int_equal(channels_of(amd, 25, 160, "AMD Ryzen 7 7840U"), 0);
    assert_int_equal(channels_of(amd, 25, 17, "AMD EPYC 9654 96-Core Processor"), 12);
    assert_int_equal(channels_of(amd, 25, 1, "AMD EPYC 7543P 32-Core Processor"), 8);
    assert_int_equal(channels_of(amd, 25, 1, "AMD Ryzen Threadripper PRO 5995WX"), 0);
    assert_int_equal(channels_of(intel, 6, 85, "Intel(R) Xeon(R) Gold 6136 CPU @ 3.00GHz"), 6);
    assert_int_equal(channels_of(intel, 6, 85, "Intel(R) Xeon(R) W-2295 CPU @ 3.00GHz"), 0);
    assert_int_equal(channels_of(intel, 6, 173, "Intel(R) Xeon(R) 6980P"), 0);
    assert_int_equal(channels_of(intel, 6, 173, "Intel(R) Xeon(R) 6767P"), 0);
    assert_int_equal(channels_of(intel, 6, 143, "Intel(R) Xeon(R) Platinum 8480+"), 8);
    assert_int_equal(channels_of(amd, 6, 85, "Intel(R) Xeon(R) Gold 6136"), 0); /* vendor */
    assert_int_equal(channels_of("", 0, 0, ""), 0);
    const struct cpu_identity bergamo = {"AuthenticAMD", 25, 160, "AMD EPYC 9754", 1};
    assert_string_equal(cpu_memory_row_find(&bergamo)->product, "EPYC 97x4 (Bergamo)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(two_sockets_two_dimms_per_channel, empty_inventory),
        cmocka_unit_test_setup(named_empty_channels, empty_inventory),
        cmocka_unit_test_setup(channels_from_the_cpu_table, empty_inventory),
        cmocka_unit_test_setup(sockets_from_memory_arrays, empty_inventory),
        cmocka_unit_test_setup(channels_unknown_without_a_row, empty_inventory),
        cmocka_unit_test_setup(mixed_dimms_slowest_sets_the_ceiling, empty_inventory),
        cmocka_unit_test_setup(unknowns_are_not_mixed, empty_inventory),
        cmocka_unit_test_setup(no_ceiling_without_dimms, empty_inventory),
        cmocka_unit_test(cpu_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
