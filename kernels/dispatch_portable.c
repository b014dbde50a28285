/* Architectures without vector kernels here (riscv64, ppc64le, ...): scalar only.
 * MEMBENCH_ARCH_NAME is CMake's CMAKE_SYSTEM_PROCESSOR. */
#include "kernels/isa_arch.h"

#ifndef MEMBENCH_ARCH_NAME
#define MEMBENCH_ARCH_NAME "this architecture"
#endif

const struct isa_arch isa_arch_this = {MEMBENCH_ARCH_NAME, NULL, 0};
