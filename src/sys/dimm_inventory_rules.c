#include "src/sys/dimm_inventory_rules.h"

#include <stdio.h>
#include <string.h>

#include "src/sys/cpu_memory_channels.h"
#include "src/sys/dimm_channels.h"

#define ARRAYS_MAX 32

/* How the slots' sockets were found; NULL when they were not. */
static const char *socket_numbers(struct dimm_inventory *inv, int *number, int n_arrays,
                                  const uint16_t *array_handles, const struct cpu_identity *cpu)
{
    int named[4] = {0}; /* locator socket, bank socket, node, array */
    struct locator_names loc[DIMM_SLOTS_MAX], bank[DIMM_SLOTS_MAX];
    for (int i = 0; i < inv->n_slots; i++) {
        struct dimm_slot *s = &inv->slots[i];
        locator_parse(s->locator, &loc[i]);
        locator_parse(s->bank_locator, &bank[i]);
        snprintf(s->channel, sizeof(s->channel), "%s",
                 loc[i].channel[0] ? loc[i].channel : bank[i].channel);
        named[0] += loc[i].socket >= 0;
        named[1] += bank[i].socket >= 0;
        named[2] += loc[i].node >= 0 || bank[i].node >= 0;
    }
    const char *how = NULL;
    for (int i = 0; i < inv->n_slots; i++) {
        int array = -1;
        for (int a = 0; a < n_arrays; a++)
            if (array_handles[a] == inv->slots[i].array_handle) array = a;
        if (named[0] == inv->n_slots)
            number[i] = loc[i].socket, how = "locators";
        else if (named[1] == inv->n_slots)
            number[i] = bank[i].socket, how = "bank locators";
        else if (named[2] == inv->n_slots)
            number[i] = loc[i].node >= 0 ? loc[i].node : bank[i].node, how = "bank locators";
        else if (n_arrays > 1 && n_arrays == cpu->packages && array >= 0)
            number[i] = array, how = "one memory array per CPU package";
        else if (cpu->packages == 1)
            number[i] = 0, how = "one CPU package";
        else
            return NULL;
    }
    return how;
}

/* Sockets by their numbers, ascending; each slot's socket its index. */
static void group_sockets(struct dimm_inventory *inv, const int *number)
{
    for (int i = 0; i < inv->n_slots; i++) {
        int k = 0;
        while (k < inv->n_sockets && inv->sockets[k].id < number[i])
            k++;
        if (k < inv->n_sockets && inv->sockets[k].id == number[i]) continue;
        if (inv->n_sockets == DIMM_SOCKETS_MAX) continue;
        memmove(&inv->sockets[k + 1], &inv->sockets[k],
                (size_t)(inv->n_sockets - k) * sizeof(inv->sockets[0]));
        memset(&inv->sockets[k], 0, sizeof(inv->sockets[k]));
        inv->sockets[k].id = number[i];
        inv->n_sockets++;
    }
    for (int i = 0; i < inv->n_slots; i++) {
        inv->slots[i].socket = -1;
        for (int k = 0; k < inv->n_sockets; k++)
            if (inv->sockets[k].id == number[i]) inv->slots[i].socket = k;
    }
}

static unsigned slower(unsigned a, unsigned b)
{
    return a && (!b || a < b) ? a : b;
}

/* Slots, DIMMs, capacity, the slowest speeds, the bus width and what is mixed. */
static void socket_dimms(struct dimm_inventory *inv, int k)
{
    struct dimm_socket *s = &inv->sockets[k];
    const struct dimm_slot *first = NULL;
    unsigned width = 0;
    bool ddr = true;
    for (int i = 0; i < inv->n_slots; i++) {
        const struct dimm_slot *d = &inv->slots[i];
        if (d->socket != k) continue;
        s->slots++;
        if (!d->populated) continue;
        s->dimms++;
        s->bytes += d->size_bytes;
        s->configured_mts = slower(d->configured_mts, s->configured_mts);
        s->rated_mts = slower(d->rated_mts, s->rated_mts);
        width = slower(d->data_width_bits, width);
        ddr = ddr &&
              (!strcmp(d->type, "DDR3") || !strcmp(d->type, "DDR4") || !strcmp(d->type, "DDR5"));
        if (!first) first = d;
        s->mixed_sizes |= d->size_bytes != first->size_bytes;
        s->mixed_ranks |= d->ranks && first->ranks && d->ranks != first->ranks;
        s->mixed_speeds |=
            d->rated_mts != first->rated_mts || d->configured_mts != first->configured_mts;
    }
    s->bus_bits = ddr && width ? 64 : width; /* a DDR channel's data path; ECC bits aside */
}

/* Channels as the locators name them: populated, DIMMs per channel, the empty ones. Returns
 * false when some slot of the socket names none. */
static bool named_channels(struct dimm_inventory *inv, int k)
{
    struct dimm_socket *s = &inv->sockets[k];
    const char *names[DIMM_CHANNELS_MAX];
    unsigned dimms[DIMM_CHANNELS_MAX] = {0};
    int n = 0;
    for (int i = 0; i < inv->n_slots; i++) {
        const struct dimm_slot *d = &inv->slots[i];
        if (d->socket != k) continue;
        if (!d->channel[0]) return false;
        int c = 0;
        while (c < n && strcmp(names[c], d->channel))
            c++;
        if (c == n && n == DIMM_CHANNELS_MAX) return false;
        if (c == n) names[n++] = d->channel;
        dimms[c] += d->populated;
    }
    s->channels_named = n;
    s->channels_populated = 0;
    for (int c = 0; c < n; c++) {
        s->channels_populated += dimms[c] > 0;
        if (dimms[c] > s->dimms_per_channel_max) s->dimms_per_channel_max = dimms[c];
        if (dimms[c]) continue;
        size_t at = strlen(s->empty_channels);
        snprintf(s->empty_channels + at, sizeof(s->empty_channels) - at, "%s%s", at ? ", " : "",
                 names[c]);
    }
    return true;
}

/* Without named channels: the CPU's documented count and the population rules (fill one DIMM
 * per channel before a second). Returns false when the CPU has no row. */
static bool documented_channels(struct dimm_socket *s)
{
    if (s->channels <= 0) return false;
    unsigned ch = (unsigned)s->channels;
    s->channels_populated = s->dimms < ch ? (int)s->dimms : s->channels;
    s->dimms_per_channel_max = s->dimms ? (s->dimms + ch - 1) / ch : 0;
    return true;
}

static void socket_ceiling(struct dimm_socket *s)
{
    unsigned mts = s->configured_mts ? s->configured_mts : s->rated_mts;
    if (s->channels_populated > 0 && mts && s->bus_bits)
        s->ceiling_mbps = (double)s->channels_populated * mts * s->bus_bits / 8.0;
}

/* The first populated slot's locator, as an example for a reason. */
static const char *example_locator(const struct dimm_inventory *inv)
{
    for (int i = 0; i < inv->n_slots; i++)
        if (inv->slots[i].populated) return inv->slots[i].locator;
    return inv->n_slots ? inv->slots[0].locator : "";
}

static void cpu_text(const struct cpu_identity *cpu, char *buf, size_t len)
{
    if (cpu->model_name[0])
        snprintf(buf, len, "%.80s", cpu->model_name);
    else if (cpu->vendor[0])
        snprintf(buf, len, "%s family %d model %d", cpu->vendor, cpu->family, cpu->model);
    else
        snprintf(buf, len, "unknown");
}

/* Whether every socket has the same channels, speed and width: one term for all. */
static bool sockets_alike(const struct dimm_inventory *inv)
{
    const struct dimm_socket *a = &inv->sockets[0];
    for (int k = 1; k < inv->n_sockets; k++) {
        const struct dimm_socket *b = &inv->sockets[k];
        if (b->channels_populated != a->channels_populated || b->bus_bits != a->bus_bits ||
            b->configured_mts != a->configured_mts || b->rated_mts != a->rated_mts ||
            b->channels_named != a->channels_named || b->channels != a->channels)
            return false;
    }
    return true;
}

static int channels_of(const struct dimm_socket *s)
{
    return s->channels_named ? s->channels_named : s->channels;
}

static unsigned socket_mts(const struct dimm_socket *s)
{
    return s->configured_mts ? s->configured_mts : s->rated_mts;
}

/* "SMBIOS: 2 sockets x 8 of 8 channels x 4800 MT/s x 64 bit (16 of 32 DIMM slots, 1 DIMM per
 * channel)", and the assumptions it rests on. */
static void source_line(struct dimm_inventory *inv, const char *sockets_how, bool documented)
{
    char *b = inv->source;
    size_t cap = sizeof(inv->source), at = 0;
    const struct dimm_socket *s0 = &inv->sockets[0];
    unsigned slots = 0, dimms = 0, dpc = 0;
    for (int k = 0; k < inv->n_sockets; k++) {
        slots += inv->sockets[k].slots;
        dimms += inv->sockets[k].dimms;
        if (inv->sockets[k].dimms_per_channel_max > dpc)
            dpc = inv->sockets[k].dimms_per_channel_max;
    }
    at += (size_t)snprintf(b, cap, "SMBIOS: ");
    if (sockets_alike(inv)) {
        if (inv->n_sockets > 1)
            at += (size_t)snprintf(b + at, cap - at, "%d sockets x ", inv->n_sockets);
        at += (size_t)snprintf(b + at, cap - at, "%d of %d channels x %u MT/s",
                               s0->channels_populated, channels_of(s0), socket_mts(s0));
    } else {
        for (int k = 0; k < inv->n_sockets && at < cap; k++) {
            const struct dimm_socket *s = &inv->sockets[k];
            at += (size_t)snprintf(b + at, cap - at, "%ssocket %d %d of %d channels x %u MT/s",
                                   k ? " + " : "", s->id, s->channels_populated, channels_of(s),
                                   socket_mts(s));
        }
    }
    if (at < cap)
        at += (size_t)snprintf(b + at, cap - at,
                               " x %u bit (%u of %u DIMM slots, %s%u DIMM%s per "
                               "channel%s%s%s)",
                               s0->bus_bits, dimms, slots, documented ? "assuming " : "", dpc,
                               dpc == 1 ? "" : "s",
                               s0->configured_mts ? "" : "; rated speed, none configured",
                               strcmp(sockets_how, "locators") ? "; sockets: " : "",
                               strcmp(sockets_how, "locators") ? sockets_how : "");
}

void dimm_inventory_derive(struct dimm_inventory *inv, const struct smbios_memory_array *arrays,
                           int n_arrays, const struct cpu_identity *cpu)
{
    int number[DIMM_SLOTS_MAX];
    uint16_t handles[ARRAYS_MAX];
    for (int a = 0; a < n_arrays && a < ARRAYS_MAX; a++)
        handles[a] = arrays[a].handle;
    const struct cpu_memory_row *row = cpu_memory_row_find(cpu);
    if (row)
        snprintf(inv->cpu_channels_source, sizeof(inv->cpu_channels_source), "%s", row->source);
    const char *how = socket_numbers(inv, number, n_arrays, handles, cpu);
    if (!how) {
        snprintf(inv->why_unknown, sizeof(inv->why_unknown),
                 "sockets unknown: locators do not name them (e.g. '%.40s'), and %d memory "
                 "array%s for %d CPU package%s do not tell",
                 example_locator(inv), n_arrays, n_arrays == 1 ? "" : "s", cpu->packages,
                 cpu->packages == 1 ? "" : "s");
        return;
    }
    group_sockets(inv, number);
    bool documented = false, unknown = false;
    unsigned dimms = 0;
    for (int k = 0; k < inv->n_sockets; k++) {
        struct dimm_socket *s = &inv->sockets[k];
        s->channels = row ? row->channels : 0;
        s->channels_populated = -1;
        socket_dimms(inv, k);
        dimms += s->dimms;
        if (!named_channels(inv, k)) {
            documented |= documented_channels(s);
            unknown |= s->channels_populated < 0;
        }
        socket_ceiling(s);
        inv->ceiling_mbps += s->ceiling_mbps;
    }
    char cpu_name[96];
    cpu_text(cpu, cpu_name, sizeof(cpu_name));
    unsigned no_speed = 0;
    for (int i = 0; i < inv->n_slots; i++)
        no_speed +=
            inv->slots[i].populated && !inv->slots[i].configured_mts && !inv->slots[i].rated_mts;
    if (dimms == 0)
        snprintf(inv->why_unknown, sizeof(inv->why_unknown),
                 "SMBIOS lists no populated memory device");
    else if (no_speed)
        snprintf(inv->why_unknown, sizeof(inv->why_unknown),
                 "SMBIOS lists %u populated memory device%s without speed or width", no_speed,
                 no_speed == 1 ? "" : "s");
    else if (unknown)
        snprintf(inv->why_unknown, sizeof(inv->why_unknown),
                 "channels unknown: locators do not name them (e.g. '%.24s') and this CPU "
                 "(%.48s) has no row in the channel table",
                 example_locator(inv), cpu_name);
    else if (inv->ceiling_mbps <= 0)
        snprintf(inv->why_unknown, sizeof(inv->why_unknown),
                 "SMBIOS lists populated memory devices without speed or width");
    if (inv->why_unknown[0]) {
        inv->ceiling_mbps = 0.0;
        return;
    }
    source_line(inv, how, documented);
}
