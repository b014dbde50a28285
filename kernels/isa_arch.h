/* What an architecture's dispatch file (kernels/x86/dispatch_x86.c, kernels/arm/
 * dispatch_arm.c, kernels/dispatch_portable.c) tells the portable kernels/dispatch.c. */
#ifndef MEMBENCH_ISA_ARCH_H
#define MEMBENCH_ISA_ARCH_H

#include "kernels/kernel_table.h"

typedef kernel_fn (*kernel_lookup_fn)(enum kernel_id k, enum store_kind stores,
                                      enum elem_type type);

struct isa_arch_isa {
    enum isa isa;
    bool (*supported)(void); /* the CPU has it and the OS saves its registers */
    kernel_lookup_fn lookup;
    size_t (*vector_bytes)(void); /* one vector register's bytes, on this CPU */
};

struct isa_arch {
    const char *name;
    const struct isa_arch_isa *isas; /* widest first; scalar is not among them */
    int n_isas;
};

extern const struct isa_arch isa_arch_this;

kernel_fn kernel_lookup_scalar(enum kernel_id k, enum store_kind stores, enum elem_type type);

#endif
