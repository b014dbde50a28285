#ifndef MEMBENCH_PARSE_H
#define MEMBENCH_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* Pure text parsers for the command line: no I/O, no exits, a reason on failure. */

enum size_kind { SIZE_LLC_MULTIPLE, SIZE_BYTES, SIZE_ELEMENTS };

struct size_spec {
    enum size_kind kind;
    double llc_multiple; /* SIZE_LLC_MULTIPLE: "4xLLC" -> 4.0 */
    uint64_t bytes;      /* SIZE_BYTES: "1.5GiB" */
    uint64_t elements;   /* SIZE_ELEMENTS: "20000000" */
    char text[40];       /* what the user wrote, for labels */
};

/* "4xLLC", "0.25xllc", "1.5GiB", "512MiB", "512MB" (decimal), "4096B", "20000000" (elements).
 * Returns 0, or -1 with a one-line reason in why. */
int parse_size(const char *text, struct size_spec *out, char *why, size_t why_len);

/* Per-array element count for a size, given the LLC total (0 = unknown) and element size.
 * Returns 0, or -1 with a reason (LLC unknown, too small, too large). */
int size_to_elements(const struct size_spec *spec, uint64_t llc_bytes, size_t elem_size,
                     uint64_t *elements, char *why, size_t why_len);

/* Decimal unsigned integer in [min, max]; rejects signs, blanks, trailing text, overflow. */
int parse_uint(const char *text, uint64_t min, uint64_t max, uint64_t *out, char *why,
               size_t why_len);

/* Calls each(item) for every comma-separated item; an empty item is an error. Stops at the
 * first callback that returns non-zero and returns that value; -1 for an empty item. */
int for_each_list_item(const char *list, int (*each)(const char *item, void *ctx), void *ctx,
                       char *why, size_t why_len);

/* "1.0 GiB", "512.0 MiB", "48.0 KiB", "100 B" */
void format_bytes(uint64_t bytes, char *buf, size_t len);

/* Drops the incomplete UTF-8 sequence that cutting s short byte-wise (snprintf into a fixed
 * buffer) can leave at its end, so that text from JSON stays valid UTF-8 for the reports. */
void utf8_trim_partial(char *s);

#endif
