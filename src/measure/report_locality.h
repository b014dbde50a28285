#ifndef MEMBENCH_REPORT_LOCALITY_H
#define MEMBENCH_REPORT_LOCALITY_H

#include <jansson.h>
#include <stddef.h>

#include "affinity/page_locality.h"

/* "100.0% of sampled pages on <against> (4096 pages)", or "unknown (<reason>)". */
void locality_text(const struct page_locality *loc, const char *against, char *buf, size_t len);

/* {verified, pages_sampled, pages_local, pages_absent, local_fraction, reason}: the counts and
 * the fraction null when not verified, the reason null when verified. */
json_t *locality_json(const struct page_locality *loc);

/* A matrix cell's mark: '*' under LOCALITY_MIN_FRACTION, '?' not verified, ' ' fine. */
char locality_mark(const struct page_locality *loc);

#endif
