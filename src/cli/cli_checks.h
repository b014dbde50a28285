#ifndef MEMBENCH_CLI_CHECKS_H
#define MEMBENCH_CLI_CHECKS_H

#include "src/cli/cli.h"

/* Options that parse one by one but mean nothing together: the TLB probe's, --matrix's and
 * the verdict's combinations. 0, or 1 after a usage error. */
int cli_check_combinations(const struct options *o);

#endif
