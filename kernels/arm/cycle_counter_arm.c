#include "kernels/cycle_counter.h"

#include <string.h>

void cycle_counter_describe(struct cycle_counter_facts *f)
{
    memset(f, 0, sizeof(*f));
    f->available = true;
    f->ordered_available = true;
    f->hz_documented = (double)cycle_counter_arm_frequency();
    f->hz_source = "CNTFRQ_EL0 (generic timer ticks, not core cycles)";
    /* the Arm ARM requires the system counter to run at a fixed frequency */
    f->invariant_known = true;
    f->invariant = true;
}
