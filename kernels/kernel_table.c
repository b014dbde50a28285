#include "kernels/kernel_table.h"

const struct kernel_desc kernel_table[KERNEL_COUNT] = {
    {KERNEL_COPY, "Copy", "Copy:      ", "--copy", "c = a", "(2 words moved per element)", 1, 1, 0,
     false},
    {KERNEL_SCALE, "Scale", "Scale:     ", "--scale", "b = q*c", "(2 words, 1 flop)", 1, 1, 1,
     false},
    {KERNEL_ADD, "Add", "Add:       ", "--add", "c = a + b", "(3 words, 1 flop)", 2, 1, 1, false},
    {KERNEL_TRIAD, "Triad", "Triad:     ", "--triad", "a = b + q*c", "(3 words, 2 flops)", 2, 1, 2,
     false},
    {KERNEL_DOT, "Dot", "Dot:       ", "--dot", "sum += a*b", "(2 words read, a reduction)", 2, 0,
     2, true},
    {KERNEL_READ, "Read", "Read:      ", "--read", "sum += a", "(1 word read, a reduction)", 1, 0,
     1, true},
    {KERNEL_WRITE, "Write", "Write:     ", "--write", "c = q", "(1 word written)", 0, 1, 0, false},
    {KERNEL_NSTREAM, "Nstream", "Nstream:   ", "--nstream", "a += b + q*c",
     "(4 words: 3 read, 1 written)", 3, 1, 3, false},
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
