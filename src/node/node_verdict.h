#ifndef MEMBENCH_NODE_VERDICT_H
#define MEMBENCH_NODE_VERDICT_H

#include "src/base/output_file.h"
#include "src/cli/cli.h"
#include "src/report/report.h"

/* Whether the text report (on stdout) shows the warnings: else they go to stderr. */
bool report_shows_warnings(const struct options *opts);

/* The acceptance checks of a single measured run, when asked for. A failed check is one line
 * each (unless the report shows it); an inconclusive verdict is always one line. */
void evaluate_checks(const struct options *opts, struct report *rep);

/* The efficiency against the node's ceiling and the likely causes (src/verdict/diagnosis.h) of
 * whatever the report holds; with a verdict other than PASS and the causes not in the report on
 * stdout, a line for each. */
void evaluate_diagnosis(const struct options *opts, struct report *rep);

/* --save-reference: writes the run's reference into ref (named path) when the run is good and,
 * from K runs, their spread is within the tolerance it will judge with (else exit 5, nothing
 * written); an exit status. */
int save_reference(const struct report *rep, struct output_file *ref, const char *path,
                   double tolerance_pct);

#endif
