#include "src/stream/plan_isa.h"

#include <string.h>

#include "src/base/log.h"

int plan_choose_isa(const struct stream_options *o, enum isa *isa)
{
    *isa = o->isa_forced_by ? o->isa : isa_best();
    if (isa_supported(*isa)) return EXIT_OK;
    bool from_env = o->isa_forced_by && strcmp(o->isa_forced_by, "MEMBENCH_ISA") == 0;
    log_error("%s %s: this CPU does not support it (or GLIBC_TUNABLES masks it); %s%s%s",
              o->isa_forced_by, isa_name(*isa), from_env ? "use MEMBENCH_ISA=" : "use --isa ",
              isa_name(isa_best()), from_env ? " or unset it" : " or leave it out");
    return EXIT_RESOURCE;
}

int plan_check_nt_available(struct run_config *r, const struct stream_options *o)
{
    if (isa_has_nt(r->isa)) return EXIT_OK;
    bool any_nt = false;
    for (int k = 0; k < KERNEL_COUNT; k++)
        any_nt |= (r->kernel_mask & (1u << k)) && r->kernel_stores[k] == STORES_NT;
    if (!any_nt && strcmp(r->stores_requested, "auto") == 0) r->stores = "normal";
    if (!any_nt) return EXIT_OK;
    log_error(
        "%s: the %s kernels have no non-temporal stores (plain C stores normally); %s",
        r->stores_from_reference ? "--reference ran nt stores" : "--stores nt", isa_name(r->isa),
        isa_best() != ISA_SCALAR ? "use --stores normal or another --isa"
                                 : "use --stores normal (no vector ISA of this build runs here)");
    return o->isa_forced_by ? EXIT_USAGE : EXIT_RESOURCE;
}
