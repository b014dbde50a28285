#include "src/report/report_dimms.h"

#include <string.h>

#include "src/base/json_values.h"
#include "src/base/parse.h"

static void socket_text(FILE *out, const struct dimm_socket *s)
{
    fprintf(out, "; socket %d: %u of %u slots", s->id, s->dimms, s->slots);
    int channels = s->channels_named ? s->channels_named : s->channels;
    if (s->channels_populated >= 0)
        fprintf(out, ", %d of %d channels", s->channels_populated, channels);
    if (s->empty_channels[0]) fprintf(out, " (empty: %s)", s->empty_channels);
    if (s->configured_mts) fprintf(out, ", %u MT/s", s->configured_mts);
    if (s->configured_mts && s->rated_mts > s->configured_mts)
        fprintf(out, " (rated %u)", s->rated_mts);
    if (s->mixed_sizes) fprintf(out, ", mixed sizes");
    if (s->mixed_ranks) fprintf(out, ", mixed ranks");
    if (s->mixed_speeds) fprintf(out, ", mixed speeds");
}

/* The firmware's bandwidth of the NUMA nodes with CPUs, summed: 0 when it gives none. */
static uint64_t hmat_bandwidth(const struct node_memory *m)
{
    uint64_t sum = 0;
    for (int i = 0; m && m->hmat && i < m->count; i++)
        if (m->nodes[i].has_cpus)
            sum += m->nodes[i].firmware.bandwidth ? m->nodes[i].firmware.bandwidth
                                                  : m->nodes[i].firmware.read_bandwidth;
    return sum;
}

void report_dimms_text(FILE *out, const struct dimm_inventory *inv, const struct node_memory *m)
{
    if (!inv || !inv->read) return;
    unsigned dimms = 0, slots = 0;
    uint64_t bytes = 0;
    for (int i = 0; i < inv->n_slots; i++) {
        slots++;
        dimms += inv->slots[i].populated;
        bytes += inv->slots[i].size_bytes;
    }
    char total[32];
    format_bytes(bytes, total, sizeof(total));
    const char *type = "";
    for (int i = 0; i < inv->n_slots && !type[0]; i++)
        if (inv->slots[i].populated) type = inv->slots[i].type;
    fprintf(out, "DIMMs: %u in %u slots, %s%s%s", dimms, slots, total, type[0] ? " " : "", type);
    for (int k = 0; k < inv->n_sockets; k++)
        socket_text(out, &inv->sockets[k]);
    fprintf(out, "\n");
    uint64_t hmat = hmat_bandwidth(m);
    if (hmat && inv->ceiling_mbps > 0)
        fprintf(out,
                "Firmware (HMAT) bandwidth: %llu MB/s over the NUMA nodes with CPUs, beside "
                "the DIMMs' ceiling of %.1f MB/s\n",
                (unsigned long long)hmat, inv->ceiling_mbps);
    else if (hmat)
        fprintf(out, "Firmware (HMAT) bandwidth: %llu MB/s over the NUMA nodes with CPUs\n",
                (unsigned long long)hmat);
}

static json_t *number_or_null(double v)
{
    return v > 0 ? json_real(v) : json_null();
}

static json_t *empty_channels_json(const char *list)
{
    json_t *a = json_array();
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        json_array_append_new(a, json_stringn(p, len));
        p += len;
        while (*p == ',' || *p == ' ')
            p++;
    }
    return a;
}

static json_t *socket_json(const struct dimm_socket *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "id", s->id >= 0 ? json_integer(s->id) : json_null());
    json_object_set_new(o, "slots", json_integer(s->slots));
    json_object_set_new(o, "dimms", json_integer(s->dimms));
    json_object_set_new(o, "bytes", json_integer((json_int_t)s->bytes));
    json_object_set_new(o, "channels", positive_or_null(s->channels));
    json_object_set_new(o, "channels_named", json_integer(s->channels_named));
    json_object_set_new(o, "channels_populated",
                        s->channels_populated >= 0 ? json_integer(s->channels_populated)
                                                   : json_null());
    json_object_set_new(o, "dimms_per_channel_max", positive_or_null(s->dimms_per_channel_max));
    json_object_set_new(o, "configured_mts", positive_or_null(s->configured_mts));
    json_object_set_new(o, "rated_mts", positive_or_null(s->rated_mts));
    json_object_set_new(o, "bus_bits", positive_or_null(s->bus_bits));
    json_object_set_new(o, "ceiling_mbps", number_or_null(s->ceiling_mbps));
    json_object_set_new(o, "empty_channels", empty_channels_json(s->empty_channels));
    json_object_set_new(o, "mixed_sizes", json_boolean(s->mixed_sizes));
    json_object_set_new(o, "mixed_ranks", json_boolean(s->mixed_ranks));
    json_object_set_new(o, "mixed_speeds", json_boolean(s->mixed_speeds));
    return o;
}

static json_t *dimm_json(const struct dimm_inventory *inv, const struct dimm_slot *d)
{
    json_t *o = json_object();
    json_object_set_new(o, "locator", json_string(d->locator));
    json_object_set_new(o, "bank_locator", json_string(d->bank_locator));
    json_object_set_new(o, "size_bytes", positive_or_null((json_int_t)d->size_bytes));
    json_object_set_new(o, "type", string_or_null(d->type));
    json_object_set_new(o, "rated_mts", positive_or_null(d->rated_mts));
    json_object_set_new(o, "configured_mts", positive_or_null(d->configured_mts));
    json_object_set_new(o, "ranks", positive_or_null(d->ranks));
    json_object_set_new(o, "socket",
                        d->socket >= 0 && inv->sockets[d->socket].id >= 0
                            ? json_integer(inv->sockets[d->socket].id)
                            : json_null());
    json_object_set_new(o, "channel", string_or_null(d->channel));
    return o;
}

json_t *report_dimms_json(const struct dimm_inventory *inv)
{
    json_t *o = json_object();
    json_object_set_new(o, "read", json_boolean(inv->read));
    json_object_set_new(o, "ceiling_mbps", number_or_null(inv->ceiling_mbps));
    json_object_set_new(o, "source", string_or_null(inv->source));
    json_object_set_new(o, "why_unknown", string_or_null(inv->why_unknown));
    json_object_set_new(o, "cpu_channels_source", string_or_null(inv->cpu_channels_source));
    json_t *sockets = json_array(), *dimms = json_array();
    for (int k = 0; k < inv->n_sockets; k++)
        json_array_append_new(sockets, socket_json(&inv->sockets[k]));
    for (int i = 0; i < inv->n_slots; i++)
        if (inv->slots[i].populated) json_array_append_new(dimms, dimm_json(inv, &inv->slots[i]));
    json_object_set_new(o, "sockets", sockets);
    json_object_set_new(o, "dimms", dimms);
    return o;
}
