#include "src/stream/array_layout.h"

int array_layout(uint64_t elements, size_t elem_size, uint64_t offset, uint64_t align,
                 struct array_layout *out)
{
    uint64_t es = elem_size, array, offsets, arrays3, offsets2, offsets3, total, slot, stride,
             region;
    if (align == 0 || __builtin_mul_overflow(elements, es, &array) ||
        __builtin_mul_overflow(offset, es, &offsets) ||
        __builtin_mul_overflow(array, 3, &arrays3) ||
        __builtin_mul_overflow(offsets, 3, &offsets3) ||
        __builtin_add_overflow(arrays3, offsets3, &total) ||
        __builtin_mul_overflow(offsets, 2, &offsets2) ||
        __builtin_add_overflow(array, offsets2, &slot) ||
        __builtin_add_overflow(slot, align - 1, &stride))
        return -1;
    stride = stride / align * align;
    if (__builtin_mul_overflow(stride, 3, &region)) return -1;
    out->array_bytes = array;
    out->total_bytes = total;
    out->stride_bytes = stride;
    out->region_bytes = region;
    return 0;
}

int llc_rule_elements(uint64_t llc_bytes, unsigned multiple, size_t elem_size,
                      uint64_t min_elements, uint64_t *elements)
{
    uint64_t bytes;
    if (elem_size == 0 || __builtin_mul_overflow(llc_bytes, (uint64_t)multiple, &bytes)) return -1;
    uint64_t n = bytes / elem_size + (bytes % elem_size != 0);
    *elements = n > min_elements ? n : min_elements;
    return 0;
}
