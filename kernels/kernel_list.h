/* Every kernel, one row each: a new kernel is one more row. The rows generate enum kernel_id,
 * kernel_table, every ISA's SIMD variants (kernels/simd_template.h), the scalar reference that
 * the validation model and the tests share (kernels/kernel_scalar.h) and the test hooks.
 *
 * X(ID, Name, label, flag, formula, help, words read, words written, flops, shape, dst, expr)
 *   Name     the token that names the kernel's functions; as a string, its CSV and JSON name
 *   label    STREAM's text table label, padded to 11 columns
 *   shape    store: writes expr to array dst element by element
 *            sum:   a reduction, returns the sum of expr over the range (dst: none)
 *   expr     one element, in the vocabulary A, B, C (element j of each array), Q (the
 *            scalar), ADD(x, y) and MUL(x, y): each use gives it the scalar or vector meaning;
 *            its operation order is the order the validation model rounds in. */
#ifndef MEMBENCH_KERNEL_LIST_H
#define MEMBENCH_KERNEL_LIST_H

// clang-format off
#define KERNEL_LIST(X)                                                                          \
    X(COPY, Copy, "Copy:      ", "--copy", "c = a", "(2 words moved per element)",              \
      1, 1, 0, store, c, A)                                                                     \
    X(SCALE, Scale, "Scale:     ", "--scale", "b = q*c", "(2 words, 1 flop)",                   \
      1, 1, 1, store, b, MUL(Q, C))                                                             \
    X(ADD, Add, "Add:       ", "--add", "c = a + b", "(3 words, 1 flop)",                       \
      2, 1, 1, store, c, ADD(A, B))                                                             \
    X(TRIAD, Triad, "Triad:     ", "--triad", "a = b + q*c", "(3 words, 2 flops)",              \
      2, 1, 2, store, a, ADD(B, MUL(Q, C)))                                                     \
    X(DOT, Dot, "Dot:       ", "--dot", "sum += a*b", "(2 words read, a reduction)",            \
      2, 0, 2, sum, none, MUL(A, B))                                                            \
    X(READ, Read, "Read:      ", "--read", "sum += a", "(1 word read, a reduction)",            \
      1, 0, 1, sum, none, A)                                                                    \
    X(WRITE, Write, "Write:     ", "--write", "c = q", "(1 word written)",                      \
      0, 1, 0, store, c, Q)                                                                     \
    X(NSTREAM, Nstream, "Nstream:   ", "--nstream", "a += b + q*c",                             \
      "(4 words: 3 read, 1 written)", 3, 1, 3, store, a, ADD(A, ADD(B, MUL(Q, C))))             \
    KERNEL_LIST_EXTRA(X)
// clang-format on

/* A header that defines KERNEL_LIST_EXTRA(X) as more rows: the build of the test that a
 * kernel is one row (tests/unit/extra_kernel_row.h) names one. */
#ifdef MEMBENCH_EXTRA_KERNEL_ROW
#include MEMBENCH_EXTRA_KERNEL_ROW
#else
#define KERNEL_LIST_EXTRA(X)
#endif

/* What the shape and dst columns mean in kernel_table. */
#define KERNEL_REDUCES_store false
#define KERNEL_REDUCES_sum true
#define KERNEL_DST_a 0
#define KERNEL_DST_b 1
#define KERNEL_DST_c 2
#define KERNEL_DST_none (-1)

#endif
