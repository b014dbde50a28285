#include "src/sys/smbios_records.h"

#include <stdio.h>
#include <string.h>

/* The formatted area: its length byte, bounded by the buffer. */
static size_t formatted_length(const uint8_t *raw, size_t len)
{
    return len >= 4 && raw[1] >= 4 && raw[1] <= len ? raw[1] : 0;
}

int smbios_record_type(const uint8_t *raw, size_t len)
{
    return formatted_length(raw, len) ? raw[0] : -1;
}

static unsigned byte_at(const uint8_t *raw, size_t formatted, size_t at)
{
    return at < formatted ? raw[at] : 0;
}

/* A WORD, or `absent` when the record ends before it. */
static unsigned word_at(const uint8_t *raw, size_t formatted, size_t at, unsigned absent)
{
    return at + 2 <= formatted ? (unsigned)raw[at] | (unsigned)raw[at + 1] << 8 : absent;
}

static uint32_t dword_at(const uint8_t *raw, size_t formatted, size_t at)
{
    if (at + 4 > formatted) return 0;
    return (uint32_t)raw[at] | (uint32_t)raw[at + 1] << 8 | (uint32_t)raw[at + 2] << 16 |
           (uint32_t)raw[at + 3] << 24;
}

/* String number n (from 1) of the string set after the formatted area, printable ASCII only
 * and trimmed of trailing blanks; "" for 0, a missing string or an unterminated set. */
static void string_at(const uint8_t *raw, size_t len, size_t formatted, unsigned n, char *buf,
                      size_t cap)
{
    buf[0] = '\0';
    if (n == 0) return;
    size_t at = formatted;
    for (unsigned i = 1; at < len; i++) {
        const uint8_t *end = memchr(raw + at, '\0', len - at);
        if (!end || end == raw + at) return; /* unterminated, or the set's end */
        size_t slen = (size_t)(end - (raw + at));
        if (i == n) {
            size_t k = 0;
            for (size_t j = 0; j < slen && k + 1 < cap; j++)
                buf[k++] = raw[at + j] >= 0x20 && raw[at + j] < 0x7F ? (char)raw[at + j] : '?';
            while (k > 0 && buf[k - 1] == ' ')
                k--;
            buf[k] = '\0';
            return;
        }
        at += slen + 1;
    }
}

int smbios_memory_array_decode(const uint8_t *raw, size_t len, struct smbios_memory_array *out)
{
    size_t f = formatted_length(raw, len);
    memset(out, 0, sizeof(*out));
    if (!f || raw[0] != 16) return -1;
    out->handle = (uint16_t)word_at(raw, f, 0x02, 0);
    out->use = byte_at(raw, f, 0x05);
    out->devices = word_at(raw, f, 0x0D, 0);
    return 0;
}

/* Size (0x0C): MB, or KB with bit 15; 0x7FFF: the extended size (0x1C, MB); 0xFFFF unknown. */
static uint64_t device_bytes(const uint8_t *raw, size_t f)
{
    unsigned size = word_at(raw, f, 0x0C, 0);
    if (size == 0 || size == 0xFFFF) return 0;
    if (size == 0x7FFF) return (uint64_t)(dword_at(raw, f, 0x1C) & 0x7FFFFFFFu) << 20;
    if (size & 0x8000) return (uint64_t)(size & 0x7FFF) << 10;
    return (uint64_t)size << 20;
}

/* A speed WORD: 0 unknown, 0xFFFF: the extended DWORD at ext (bit 31 reserved). */
static unsigned device_speed(const uint8_t *raw, size_t f, size_t at, size_t ext)
{
    unsigned mts = word_at(raw, f, at, 0);
    if (mts == 0xFFFF) mts = (unsigned)(dword_at(raw, f, ext) & 0x7FFFFFFFu);
    return mts;
}

static const char *memory_type_name(unsigned type)
{
    static const struct {
        unsigned code;
        const char *name;
    } types[] = {{0x12, "DDR"},   {0x13, "DDR2"},    {0x18, "DDR3"},   {0x1A, "DDR4"},
                 {0x1B, "LPDDR"}, {0x1C, "LPDDR2"},  {0x1D, "LPDDR3"}, {0x1E, "LPDDR4"},
                 {0x20, "HBM"},   {0x21, "HBM2"},    {0x22, "DDR5"},   {0x23, "LPDDR5"},
                 {0x24, "HBM3"},  {0x1F, "Logical"}, {0x0F, "SDRAM"}};
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        if (types[i].code == type) return types[i].name;
    return "";
}

int smbios_memory_device_decode(const uint8_t *raw, size_t len, struct dimm_slot *out)
{
    size_t f = formatted_length(raw, len);
    memset(out, 0, sizeof(*out));
    out->socket = -1;
    if (!f || raw[0] != 17) return -1;
    out->array_handle = (uint16_t)word_at(raw, f, 0x04, 0);
    unsigned width = word_at(raw, f, 0x0A, 0);
    out->data_width_bits = width == 0xFFFF ? 0 : width;
    out->size_bytes = device_bytes(raw, f);
    unsigned size = word_at(raw, f, 0x0C, 0);
    out->populated = size != 0 && f > 0x0D; /* 0xFFFF: present, size unknown */
    string_at(raw, len, f, byte_at(raw, f, 0x10), out->locator, sizeof(out->locator));
    string_at(raw, len, f, byte_at(raw, f, 0x11), out->bank_locator, sizeof(out->bank_locator));
    snprintf(out->type, sizeof(out->type), "%s", memory_type_name(byte_at(raw, f, 0x12)));
    out->rated_mts = device_speed(raw, f, 0x15, 0x54);
    out->ranks = byte_at(raw, f, 0x1B) & 0x0F;
    out->configured_mts = device_speed(raw, f, 0x20, 0x58);
    return 0;
}
