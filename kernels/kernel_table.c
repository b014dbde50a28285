#include "kernels/kernel_table.h"

void stream_copy_double(void *a, void *b, void *c, size_t begin, size_t end, double q);
void stream_scale_double(void *a, void *b, void *c, size_t begin, size_t end, double q);
void stream_add_double(void *a, void *b, void *c, size_t begin, size_t end, double q);
void stream_triad_double(void *a, void *b, void *c, size_t begin, size_t end, double q);
void stream_copy_float(void *a, void *b, void *c, size_t begin, size_t end, double q);
void stream_scale_float(void *a, void *b, void *c, size_t begin, size_t end, double q);
void stream_add_float(void *a, void *b, void *c, size_t begin, size_t end, double q);
void stream_triad_float(void *a, void *b, void *c, size_t begin, size_t end, double q);

const struct kernel_desc kernel_table[KERNEL_COUNT] = {
    {KERNEL_COPY,
     "Copy",
     "Copy:      ",
     "--copy",
     "c = a",
     1,
     1,
     0,
     {stream_copy_double, stream_copy_float}},
    {KERNEL_SCALE,
     "Scale",
     "Scale:     ",
     "--scale",
     "b = q*c",
     1,
     1,
     1,
     {stream_scale_double, stream_scale_float}},
    {KERNEL_ADD,
     "Add",
     "Add:       ",
     "--add",
     "c = a + b",
     2,
     1,
     1,
     {stream_add_double, stream_add_float}},
    {KERNEL_TRIAD,
     "Triad",
     "Triad:     ",
     "--triad",
     "a = b + q*c",
     2,
     1,
     2,
     {stream_triad_double, stream_triad_float}},
};

size_t elem_size(enum elem_type type)
{
    return type == TYPE_FLOAT ? sizeof(float) : sizeof(double);
}

const char *elem_type_name(enum elem_type type)
{
    return type == TYPE_FLOAT ? "float" : "double";
}

uint64_t kernel_bytes_counted(const struct kernel_desc *k, uint64_t n, enum elem_type type)
{
    return (uint64_t)(k->words_read + k->words_written) * n * elem_size(type);
}

uint64_t kernel_bytes_traffic(const struct kernel_desc *k, uint64_t n, enum elem_type type,
                              int nontemporal)
{
    unsigned per_write = nontemporal ? 1 : 2;
    return (uint64_t)(k->words_read + per_write * k->words_written) * n * elem_size(type);
}
