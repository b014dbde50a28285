/* The text line naming the CPU and the TLB sizes its documentation (CPUID, the MIDR table)
 * gives. */
#include <stdio.h>

#include "src/base/utf8_text.h"
#include "src/tlb/report_tlb_words.h"

/* x86: CPUID's vendor, family and model; aarch64: the MIDR implementer and part, in hex. */
static void write_cpu_model(FILE *out, const struct cpuid_tlb_info *c)
{
    char vendor[TEXT_PRINTABLE_CAP(sizeof(c->vendor))];
    text_printable(vendor, sizeof(vendor), c->vendor);
    if (!c->from_midr)
        fprintf(out, "CPU model: %s family %u model %u", vendor, c->family, c->model);
    else if (c->family || c->model)
        fprintf(out, "CPU model: %s implementer 0x%02x part 0x%03x", vendor, c->family, c->model);
    else
        fprintf(out, "CPU model: unknown");
    fprintf(out, "%s; documented TLBs: ", c->hypervisor ? " (under a hypervisor)" : "");
}

void report_tlb_documented_text(FILE *out, const struct cpuid_tlb_info *c)
{
    write_cpu_model(out, c);
    if (c->n == 0) {
        fprintf(out, "unknown (%s)\n", c->why);
        return;
    }
    unsigned l1 = cpuid_tlb_data_entries(c, 1, TLB_PAGE_4K),
             l2 = cpuid_tlb_data_entries(c, 2, TLB_PAGE_4K),
             h1 = cpuid_tlb_data_entries(c, 1, TLB_PAGE_2M),
             h2 = cpuid_tlb_data_entries(c, 2, TLB_PAGE_2M);
    /* the sizes the source documents (CPUID: 4 KB and 2 MB), not this kernel's */
    fprintf(out, "4 KB: L1 %u, L2 %u; 2 MB: L1 %u, L2 %u (0 = none reported; %s)\n", l1, l2, h1, h2,
            c->source);
}
