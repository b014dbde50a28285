/* The table of measurements, for one invocation: plan, team, what is kept, free. */
#include "src/node/parts.h"

#include <stdlib.h>
#include <string.h>

#include "src/base/text_list.h"
#include "src/base/log.h"
#include "src/cli/measurements.h"

static void run_order(struct parts *ps)
{
    size_t k = 0;
    for (int first = 1; first >= 0; first--)
        for (size_t i = 0; i < ps->n; i++)
            if (ps->p[i].m->runs_first == (bool)first) ps->order[k++] = i;
}

int parts_plan(struct parts *ps, const struct options *o, const struct measure_context *ctx)
{
    memset(ps, 0, sizeof(*ps));
    for (size_t i = 0; i < measurement_count && i < MEASURE_PARTS_MAX; i++) {
        const struct measurement *m = measurement_table[i].m;
        struct part *p = &ps->p[ps->n++];
        p->m = m;
        p->request = calloc(1, m->request_size);
        p->plan = calloc(1, m->plan_size);
        p->result = calloc(1, m->result_size);
        if (!p->request || !p->plan || !p->result) {
            log_error("out of memory planning the measurements");
            return EXIT_RESOURCE;
        }
        cli_request(o, i, p->request);
        int rc = m->plan(p->request, ctx, p->plan);
        if (rc != EXIT_OK) return rc;
        p->asked = m->asked(p->plan);
    }
    run_order(ps);
    return EXIT_OK;
}

unsigned parts_team(const struct parts *ps)
{
    unsigned most = 1;
    for (size_t i = 0; i < ps->n; i++) {
        const struct part *p = &ps->p[i];
        unsigned team = p->asked && p->m->team ? p->m->team(p->plan) : 1;
        if (team > most) most = team;
    }
    return most;
}

size_t parts_asked(const struct parts *ps)
{
    size_t asked = 0;
    for (size_t i = 0; i < ps->n; i++)
        asked += ps->p[i].asked;
    return asked;
}

bool parts_measured_anything(const struct parts *ps)
{
    bool any = false;
    for (size_t i = 0; i < ps->n && !any; i++) {
        const struct part *p = &ps->p[i];
        any = p->started && p->m->measured_anything && p->m->measured_anything(p->result);
    }
    return any;
}

const char *parts_step(const struct parts *ps)
{
    for (size_t i = 0; i < ps->n && parts_asked(ps) == 1; i++)
        if (ps->p[i].asked && ps->p[i].m->step) return ps->p[i].m->step;
    return "measurement";
}

void parts_kept(const struct parts *ps, char *buf, size_t len)
{
    bool alone = parts_asked(ps) == 1;
    buf[0] = '\0';
    for (size_t k = 0; k < ps->n; k++) {
        const struct part *p = &ps->p[ps->order[k]];
        if (!p->asked) continue;
        const void *result = p->started ? p->result : NULL;
        char part[400];
        p->m->kept(p->plan, result, alone, part, sizeof(part));
        text_list_append(buf, len, part);
    }
}

int parts_failures(const struct parts *ps)
{
    int failures = 0;
    for (size_t k = 0; k < ps->n; k++) {
        const struct part *p = &ps->p[ps->order[k]];
        if (p->started && p->m->failures) failures += p->m->failures(p->result);
        failures += p->outcome.failed;
    }
    return failures;
}

void parts_free(struct parts *ps)
{
    for (size_t i = 0; i < ps->n; i++) {
        struct part *p = &ps->p[i];
        if (p->plan && p->result && p->m->free) p->m->free(p->plan, p->result);
        free(p->request);
        free(p->plan);
        free(p->result);
    }
    ps->n = 0;
}
