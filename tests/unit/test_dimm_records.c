/* What the DIMM inventory reads: locator strings of many boards, raw SMBIOS type 16 and 17
 * records (short ones of older SMBIOS versions, sizes and speeds in all their encodings),
 * /proc/cpuinfo and a /sys/firmware/dmi/entries tree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "tests/unit/scratch_tree.h"

#include "src/sys/dimm_channels.h"
#include "src/sys/dimm_inventory.h"
#include "src/sys/smbios_records.h"

static char tmp_root[64];

static int make_root(void **state)
{
    (void)state;
    assert_int_equal(scratch_make(tmp_root, sizeof(tmp_root), "dimm"), 0);
    return 0;
}

static int remove_root(void **state)
{
    (void)state;
    return scratch_remove(tmp_root);
}

static void locator_is(const char *text, int socket, int node, const char *channel)
{
    struct locator_names got;
    memset(&got, 0x5A, sizeof(got)); /* nothing may be left as it was */
    locator_parse(text, &got);
    if (got.socket != socket || got.node != node || strcmp(got.channel, channel) != 0)
        fail_msg("'%.40s': socket %d node %d channel '%s', expected %d %d '%s'",
                 text ? text : "(null)", got.socket, got.node, got.channel, socket, node, channel);
}

static void locators_of_many_boards(void **state)
{
    (void)state;
    locator_is("CPU1_DIMM_A1", 1, -1, "A"); /* Intel boards */
    locator_is("P1-DIMMA1", 1, -1, "A");    /* Supermicro */
    locator_is("P2-DIMMC1", 2, -1, "C");
    locator_is("P0 CHANNEL A", 0, -1, "A"); /* AMD reference boards' bank locator */
    locator_is("DIMM_P0_A0", 0, -1, "A");   /* "P0" is the socket, not the channel after DIMM */
    locator_is("CPU0_A0", 0, -1, "A");
    locator_is("CPU2 DIMM F2", 2, -1, "F");
    locator_is("P1 DIMM AB1", 1, -1, "AB"); /* two-letter channels */
    locator_is("PROC 1 DIMM 3", 1, -1, ""); /* HPE: a slot number, no channel */
    locator_is("SOCKET 0", 0, -1, "");
    locator_is("NODE 1", -1, 1, "");    /* Intel's bank locator: a socket by another word */
    locator_is("DIMM_A1", -1, -1, "A"); /* a channel, no socket */
    locator_is("ChannelB-DIMM0", -1, -1, "B");
    locator_is("ChannelA-DIMM0", -1, -1, "A");
    locator_is("Channel 12", -1, -1, "12");
    locator_is("CHANNEL123", -1, -1, ""); /* no channel has a three-character name */
    locator_is("P0_Node1_Channel2_Dimm0", 0, -1, "Node1 Channel2"); /* node: the controller */
    locator_is("Node1_Channel2", -1, -1, "Node1 Channel2");
    locator_is("Node1_Channel2_Dimm0", -1, -1, "Node1 Channel2");
    locator_is("A1", -1, -1, ""); /* Dell: the letter may be the socket as well as the channel */
    locator_is("DIMM 3", -1, -1, "");
    locator_is("Not Specified", -1, -1, "");
    locator_is("", -1, -1, "");
    locator_is(NULL, -1, -1, "");
}

/* Words past the twelfth and characters past a word's room are left out, never overrun. */
static void long_locators_are_bounded(void **state)
{
    (void)state;
    char text[201];
    memset(text, 'A', 200);
    text[200] = '\0';
    locator_is(text, -1, -1, "");
    for (int i = 0; i < 200; i++)
        text[i] = "CPU7_DIMM_C1 "[i % 13];
    locator_is(text, 7, -1, "C");
    for (int i = 0; i < 200; i++)
        text[i] = "X "[i % 2];
    memcpy(text + 190, "CPU3_DIMMB", 10); /* past the twelfth word: not read */
    locator_is(text, -1, -1, "");
}

/* Type 17, SMBIOS 2.8 (0x28 bytes): 16384 MB DDR4, rated 2666, configured 2400, 2 ranks. */
static const uint8_t dimm_a1[0x28] = {
    17,   0x28, 0x40, 0x00,             /* type, length, handle 0x0040 */
    0x10, 0x00,                         /* 0x04 physical memory array 0x0010 */
    0xFE, 0xFF,                         /* 0x06 no error information */
    72,   0,                            /* 0x08 total width */
    64,   0,                            /* 0x0A data width */
    0x00, 0x40,                         /* 0x0C size 0x4000 MB */
    0x09, 0,                            /* 0x0E DIMM, no device set */
    1,    2,                            /* 0x10 locator, 0x11 bank locator: strings 1 and 2 */
    0x1A, 0x80, 0x00,                   /* 0x12 DDR4, 0x13 synchronous */
    0x6A, 0x0A,                         /* 0x15 speed 2666 MT/s */
    0,    0,    0,    0,                /* 0x17 manufacturer, serial, asset tag, part: none */
    0x02,                               /* 0x1B 2 ranks */
    0,    0,    0,    0,                /* 0x1C extended size */
    0x60, 0x09,                         /* 0x20 configured 2400 MT/s */
    0xB0, 0x04, 0xB0, 0x04, 0xB0, 0x04, /* 0x22 voltages: 1.2 V */
};
/* Its string set: two strings, then the empty one that ends the set. */
static const char dimm_a1_strings[] = "CPU1_DIMM_A1\0NODE 1  \0";

/* dimm_a1 with a formatted area of length bytes (cut short, or zeros added), its strings
 * after it. Returns the record's size. */
static size_t resized(uint8_t *out, size_t length)
{
    memset(out, 0, length);
    memcpy(out, dimm_a1, length < sizeof(dimm_a1) ? length : sizeof(dimm_a1));
    out[1] = (uint8_t)length;
    memcpy(out + length, dimm_a1_strings, sizeof(dimm_a1_strings));
    return length + sizeof(dimm_a1_strings);
}

static void put16(uint8_t *raw, size_t at, unsigned v)
{
    raw[at] = (uint8_t)v;
    raw[at + 1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *raw, size_t at, uint32_t v)
{
    put16(raw, at, v & 0xFFFF);
    put16(raw, at + 2, v >> 16);
}

static void device_record_decoded(void **state)
{
    (void)state;
    uint8_t raw[160];
    struct dimm_slot s;
    size_t len = resized(raw, 0x28);
    assert_int_equal(smbios_record_type(raw, len), 17);
    assert_int_equal(smbios_memory_device_decode(raw, len, &s), 0);
    assert_string_equal(s.locator, "CPU1_DIMM_A1");
    assert_string_equal(s.bank_locator, "NODE 1"); /* trailing blanks trimmed */
    assert_true(s.populated);
    assert_int_equal(s.size_bytes, 16ull << 30);
    assert_string_equal(s.type, "DDR4");
    assert_int_equal(s.rated_mts, 2666);
    assert_int_equal(s.configured_mts, 2400);
    assert_int_equal(s.data_width_bits, 64);
    assert_int_equal(s.ranks, 2);
    assert_int_equal(s.array_handle, 0x0010);
    assert_int_equal(s.socket, -1);
    assert_string_equal(s.channel, "");
}

static void device_sizes(void **state)
{
    (void)state;
    uint8_t raw[160];
    struct dimm_slot s;
    size_t len = resized(raw, 0x28);
    put16(raw, 0x0C, 0x7FFF); /* extended size: 128 GB in MB at 0x1C */
    put32(raw, 0x1C, 131072);
    assert_int_equal(smbios_memory_device_decode(raw, len, &s), 0);
    assert_true(s.populated);
    assert_int_equal(s.size_bytes, 128ull << 30);
    put16(raw, 0x0C, 0x8000 | 512); /* bit 15: KB */
    assert_int_equal(smbios_memory_device_decode(raw, len, &s), 0);
    assert_int_equal(s.size_bytes, 512u << 10);
    put16(raw, 0x0C, 0xFFFF); /* present, size unknown */
    assert_int_equal(smbios_memory_device_decode(raw, len, &s), 0);
    assert_true(s.populated);
    assert_int_equal(s.size_bytes, 0);
    put16(raw, 0x0C, 0); /* an empty slot keeps its name */
    raw[0x12] = 0x02;    /* type Unknown */
    assert_int_equal(smbios_memory_device_decode(raw, len, &s), 0);
    assert_false(s.populated);
    assert_int_equal(s.size_bytes, 0);
    assert_string_equal(s.type, "");
    assert_string_equal(s.locator, "CPU1_DIMM_A1");
}

static void device_speeds(void **state)
{
    (void)state;
    uint8_t raw[160];
    struct dimm_slot s;
    size_t len = resized(raw, 0x28);
    put16(raw, 0x15, 0); /* unknown */
    put16(raw, 0x20, 0xFFFF);
    raw[0x12] = 0x22;
    assert_int_equal(smbios_memory_device_decode(raw, len, &s), 0);
    assert_int_equal(s.rated_mts, 0);
    assert_int_equal(s.configured_mts, 0); /* 0xFFFF: the extended speed, past this record */
    assert_string_equal(s.type, "DDR5");
    len = resized(raw, 0x5C); /* SMBIOS 3.3: extended speeds at 0x54 and 0x58 */
    put16(raw, 0x15, 0xFFFF);
    put32(raw, 0x54, 0x80000000u | 8800); /* bit 31 reserved */
    put16(raw, 0x20, 0xFFFF);
    put32(raw, 0x58, 8000);
    assert_int_equal(smbios_memory_device_decode(raw, len, &s), 0);
    assert_int_equal(s.rated_mts, 8800);
    assert_int_equal(s.configured_mts, 8000);
    assert_string_equal(s.bank_locator, "NODE 1");
}

/* SMBIOS 2.6 (0x1C bytes): no extended size, no configured speed. */
static void short_device_records(void **state)
{
    (void)state;
    uint8_t raw[160];
    struct dimm_slot s;
    size_t len = resized(raw, 0x1C);
    assert_int_equal(smbios_memory_device_decode(raw, len, &s), 0);
    assert_int_equal(s.size_bytes, 16ull << 30);
    assert_int_equal(s.rated_mts, 2666);
    assert_int_equal(s.ranks, 2);
    assert_int_equal(s.configured_mts, 0);
    assert_string_equal(s.locator, "CPU1_DIMM_A1");
    put16(raw, 0x0C, 0x7FFF); /* the extended size it does not hold: unknown */
    assert_int_equal(smbios_memory_device_decode(raw, len, &s), 0);
    assert_true(s.populated);
    assert_int_equal(s.size_bytes, 0);
    len = resized(raw, 0x1B); /* SMBIOS 2.3: no rank either */
    assert_int_equal(smbios_memory_device_decode(raw, len, &s), 0);
    assert_int_equal(s.ranks, 0);
    assert_int_equal(s.rated_mts, 2666);
    assert_string_equal(s.bank_locator, "NODE 1");
}

/* Strings are read from the set only: a missing one, an unterminated set or a byte that is no
 * printable ASCII gives no text from past the record. */
static void device_strings(void **state)
{
    (void)state;
    uint8_t raw[160];
    struct dimm_slot s;
    memcpy(raw, dimm_a1, 0x28);
    memcpy(raw + 0x28,
           "DIMM\x01"
           "A\0\0",
           8);
    raw[0x11] = 3; /* bank locator: a third string the set does not hold */
    assert_int_equal(smbios_memory_device_decode(raw, 0x28 + 8, &s), 0);
    assert_string_equal(s.locator, "DIMM?A");
    assert_string_equal(s.bank_locator, "");
    memcpy(raw + 0x28, "CPU1_DIMM_A1", 12); /* no terminating NUL inside the buffer */
    assert_int_equal(smbios_memory_device_decode(raw, 0x28 + 12, &s), 0);
    assert_string_equal(s.locator, "");
    raw[0x10] = 0; /* string 0: none */
    memcpy(raw + 0x28, "X\0\0", 3);
    assert_int_equal(smbios_memory_device_decode(raw, 0x28 + 3, &s), 0);
    assert_string_equal(s.locator, "");
}

static void malformed_records_refused(void **state)
{
    (void)state;
    uint8_t raw[160];
    struct dimm_slot s;
    struct smbios_memory_array a;
    size_t len = resized(raw, 0x28);
    assert_int_equal(smbios_memory_device_decode(raw, 0x27, &s), -1); /* cut inside */
    assert_int_equal(smbios_record_type(raw, 0x27), -1);
    assert_int_equal(smbios_record_type(raw, 3), -1);
    assert_int_equal(smbios_memory_device_decode(raw, 3, &s), -1);
    assert_int_equal(s.socket, -1); /* a refused record leaves nothing of itself */
    assert_string_equal(s.locator, "");
    assert_int_equal(smbios_memory_array_decode(raw, len, &a), -1); /* a type 17 */
    raw[1] = 3;                                                     /* a length under 4 */
    assert_int_equal(smbios_record_type(raw, len), -1);
    assert_int_equal(smbios_memory_device_decode(raw, len, &s), -1);
    raw[1] = 0x28;
    raw[0] = 16; /* type 16 with 17's bytes */
    assert_int_equal(smbios_record_type(raw, len), 16);
    assert_int_equal(smbios_memory_device_decode(raw, len, &s), -1);
}

/* Type 16, SMBIOS 2.7 (0x17 bytes): system memory, 12 devices. */
static const uint8_t array_16[] = {
    16,   0x17, 0x10, 0x00, /* type, length, handle 0x0010 */
    0x03, 0x03, 0x06,       /* 0x04 system board, 0x05 system memory, 0x06 multi-bit ECC */
    0x00, 0x00, 0x00, 0x80, /* 0x07 maximum capacity: see the extended one */
    0xFE, 0xFF,             /* 0x0B no error information */
    12,   0,                /* 0x0D memory devices */
    0,    0,    0,    0,    0, 0, 0, 0x01, /* 0x0F extended maximum capacity: 2^56 bytes */
    0,    0};

static void memory_array_decoded(void **state)
{
    (void)state;
    struct smbios_memory_array a;
    assert_int_equal(smbios_memory_array_decode(array_16, sizeof(array_16), &a), 0);
    assert_int_equal(a.handle, 0x0010);
    assert_int_equal(a.use, 3);
    assert_int_equal(a.devices, 12);
    uint8_t raw[sizeof(array_16)];
    memcpy(raw, array_16, sizeof(raw));
    raw[1] = 0x0E; /* ends inside the device count: absent */
    assert_int_equal(smbios_memory_array_decode(raw, sizeof(raw), &a), 0);
    assert_int_equal(a.devices, 0);
    assert_int_equal(a.use, 3);
    assert_int_equal(smbios_memory_array_decode(raw, 0x0D, &a), -1); /* cut inside */
}

/* Two packages of two processors; only the first processor's identity is read. */
static void cpuinfo_identity_and_packages(void **state)
{
    (void)state;
    static const char *const ids[] = {"0", "0", "1", "1"};
    char path[128], text[2048] = "";
    for (int p = 0; p < 4; p++)
        snprintf(text + strlen(text), sizeof(text) - strlen(text),
                 "processor\t: %d\nvendor_id\t: %s\ncpu family\t: %d\nmodel\t\t: %d\n"
                 "model name\t: %s\nstepping\t: 1\nphysical id\t: %s\ncore id\t\t: %d\n\n",
                 p, p ? "GenuineIntel" : "AuthenticAMD", p ? 6 : 25, p ? 85 : 17,
                 p ? "Intel(R) Xeon(R) Gold 6136" : "AMD EPYC 9654 96-Core Processor", ids[p],
                 p % 2);
    snprintf(path, sizeof(path), "%s/cpuinfo", tmp_root);
    scratch_write(path, text);
    struct cpu_identity cpu;
    assert_int_equal(cpu_identity_read(path, &cpu), 0);
    assert_string_equal(cpu.vendor, "AuthenticAMD");
    assert_int_equal(cpu.family, 25);
    assert_int_equal(cpu.model, 17);
    assert_string_equal(cpu.model_name, "AMD EPYC 9654 96-Core Processor");
    assert_int_equal(cpu.packages, 2);
    scratch_write(path, "processor\t: 0\nvendor_id\t: GenuineIntel\n"); /* a VM: no ids */
    assert_int_equal(cpu_identity_read(path, &cpu), 0);
    assert_int_equal(cpu.packages, 0);
    scratch_write(path, "processor\t: 0\nphysical id\t: 0\n"); /* no vendor */
    assert_int_equal(cpu_identity_read(path, &cpu), -1);
    snprintf(path, sizeof(path), "%s/absent", tmp_root);
    assert_int_equal(cpu_identity_read(path, &cpu), -1);
    assert_string_equal(cpu.vendor, "");
    assert_int_equal(cpu.packages, 0);
}

/* root/name/raw holds len bytes of raw. */
static void write_entry(const char *root, const char *name, const uint8_t *raw, size_t len)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/%s", root, name);
    scratch_dirs(path);
    strcat(path, "/raw");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(raw, 1, len, f), len);
    fclose(f);
}

/* A device record of dimm_a1's bytes with its own locator string and size in MB. */
static size_t device_named(uint8_t *raw, const char *locator, unsigned mb)
{
    memcpy(raw, dimm_a1, 0x28);
    put16(raw, 0x0C, mb);
    raw[0x11] = 0; /* no bank locator */
    size_t len = strlen(locator) + 1;
    memcpy(raw + 0x28, locator, len);
    raw[0x28 + len] = 0;
    return 0x28 + len + 1;
}

/* Entries are read in the order of their index, not of their names; other types, malformed
 * records and folders without raw are passed over. */
static void entries_read_in_order(void **state)
{
    (void)state;
    char dir[128];
    uint8_t raw[160];
    snprintf(dir, sizeof(dir), "%s/entries", tmp_root);
    write_entry(dir, "16-0", array_16, sizeof(array_16));
    write_entry(dir, "17-10", raw, device_named(raw, "DIMM_P0_C0", 0x4000));
    write_entry(dir, "17-2", raw, device_named(raw, "DIMM_P0_B0", 0));
    write_entry(dir, "17-0", raw, device_named(raw, "DIMM_P0_A0", 0x4000));
    write_entry(dir, "17-3", raw, 0x20);       /* cut inside its formatted area */
    write_entry(dir, "0-0", raw, sizeof(raw)); /* BIOS information */
    char empty[160];
    snprintf(empty, sizeof(empty), "%s/17-4", dir); /* a folder without raw */
    scratch_dirs(empty);
    const struct cpu_identity rome = {"AuthenticAMD", 23, 49, "AMD EPYC 7302P 16-Core Processor",
                                      1};
    struct dimm_inventory inv;
    dimm_inventory_read(dir, &rome, &inv);
    assert_true(inv.read);
    assert_int_equal(inv.n_slots, 3);
    assert_string_equal(inv.slots[0].locator, "DIMM_P0_A0");
    assert_string_equal(inv.slots[1].locator, "DIMM_P0_B0");
    assert_string_equal(inv.slots[2].locator, "DIMM_P0_C0");
    assert_int_equal(inv.n_sockets, 1);
    assert_int_equal(inv.sockets[0].channels_populated, 2);
    assert_string_equal(inv.sockets[0].empty_channels, "B");
    assert_true(inv.ceiling_mbps == 2.0 * 2400 * 8);
    assert_string_equal(inv.why_unknown, "");
}

static void entries_that_say_nothing(void **state)
{
    (void)state;
    char dir[128], expected[200];
    struct dimm_inventory inv;
    snprintf(dir, sizeof(dir), "%s/none", tmp_root);
    dimm_inventory_read(dir, NULL, &inv);
    assert_false(inv.read);
    snprintf(expected, sizeof(expected), "no SMBIOS tables (%s is absent)", dir);
    assert_string_equal(inv.why_unknown, expected);
    snprintf(dir, sizeof(dir), "%s/vm", tmp_root);
    write_entry(dir, "16-0", array_16, sizeof(array_16));
    dimm_inventory_read(dir, NULL, &inv);
    assert_false(inv.read);
    assert_string_equal(inv.why_unknown,
                        "SMBIOS lists no memory device (type 17), as a VM often does");
    write_entry(dir, "17-0", dimm_a1, 0x20);
    dimm_inventory_read(dir, NULL, &inv);
    assert_false(inv.read);
    assert_string_equal(inv.why_unknown,
                        "the SMBIOS memory device records (type 17) are malformed");
    assert_true(inv.ceiling_mbps == 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(locators_of_many_boards), cmocka_unit_test(long_locators_are_bounded),
        cmocka_unit_test(device_record_decoded),   cmocka_unit_test(device_sizes),
        cmocka_unit_test(device_speeds),           cmocka_unit_test(short_device_records),
        cmocka_unit_test(device_strings),          cmocka_unit_test(malformed_records_refused),
        cmocka_unit_test(memory_array_decoded),    cmocka_unit_test(cpuinfo_identity_and_packages),
        cmocka_unit_test(entries_read_in_order),   cmocka_unit_test(entries_that_say_nothing),
    };
    return cmocka_run_group_tests(tests, make_root, remove_root);
}
