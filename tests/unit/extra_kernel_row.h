/* The throw-away kernel of unit/test_kernels_extra_row (tests/CMakeLists.txt): a kernel that
 * is this row and nothing else must build on every ISA, validate and be in kernel_table. */
// clang-format off
#define KERNEL_LIST_EXTRA(X)                                                                    \
    X(AXPY, Axpy, "Axpy:      ", "--axpy", "b = a + q*c", "(3 words, 2 flops)",                 \
      2, 1, 2, store, b, ADD(A, MUL(Q, C)))
// clang-format on
