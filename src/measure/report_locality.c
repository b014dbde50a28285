#include "src/measure/report_locality.h"

#include <stdio.h>

#include "src/base/json_values.h"

void locality_text(const struct page_locality *loc, const char *against, char *buf, size_t len)
{
    if (!loc->verified) {
        snprintf(buf, len, "unknown (%s)", loc->reason[0] ? loc->reason : "not sampled");
        return;
    }
    char absent[48] = "";
    if (loc->pages_absent)
        snprintf(absent, sizeof(absent), ", %llu not present",
                 (unsigned long long)loc->pages_absent);
    snprintf(buf, len, "%.1f%% of sampled pages on %s (%llu pages%s)", 100.0 * loc->local_fraction,
             against, (unsigned long long)loc->pages_sampled, absent);
}

json_t *locality_json(const struct page_locality *loc)
{
    json_t *o = json_object();
    bool v = loc->verified;
    json_object_set_new(o, "verified", json_boolean(v));
    json_object_set_new(o, "pages_sampled",
                        v ? json_integer((json_int_t)loc->pages_sampled) : json_null());
    json_object_set_new(o, "pages_local",
                        v ? json_integer((json_int_t)loc->pages_local) : json_null());
    json_object_set_new(o, "pages_absent",
                        v ? json_integer((json_int_t)loc->pages_absent) : json_null());
    json_object_set_new(o, "local_fraction", v ? real_or_null(loc->local_fraction) : json_null());
    json_object_set_new(o, "reason", v ? json_null() : string_or_null(loc->reason));
    return o;
}

char locality_mark(const struct page_locality *loc)
{
    if (!loc->verified) return '?';
    return loc->local_fraction < LOCALITY_MIN_FRACTION ? '*' : ' ';
}
