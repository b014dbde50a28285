#ifndef MEMBENCH_ARRAY_LAYOUT_H
#define MEMBENCH_ARRAY_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

/* Byte counts of the three STREAM arrays, each computed without wrapping around 2^64. */
struct array_layout {
    uint64_t array_bytes;  /* one array */
    uint64_t total_bytes;  /* three arrays, offsets included */
    uint64_t stride_bytes; /* distance between the arrays' starts, rounded up to align */
    uint64_t region_bytes; /* the one allocation holding all three: 3 x stride */
};

/* elements per array, elem_size bytes each, offset elements between the arrays, align a power
 * of two. Returns 0, or -1 when a byte count would not fit in 64 bits. */
int array_layout(uint64_t elements, size_t elem_size, uint64_t offset, uint64_t align,
                 struct array_layout *out);

/* The elements that make one array at least multiple x llc_bytes, and at least min_elements.
 * Returns 0, or -1 when that many bytes would not fit in 64 bits (an absurd cache size). */
int llc_rule_elements(uint64_t llc_bytes, unsigned multiple, size_t elem_size,
                      uint64_t min_elements, uint64_t *elements);

#endif
