/* A throw-away run profile row for unit/test_run_profile_extra_row: src/stream/run_profile.c
 * built with it, test_run_profile checks that its JSON config key, its CSV column (appended:
 * the CSV's layout does not name it) and its page pairing follow from the row alone. */
#ifndef MEMBENCH_EXTRA_PROFILE_ROW_H
#define MEMBENCH_EXTRA_PROFILE_ROW_H

#define EXTRA_PROFILE_KEY "demo_stride_bytes"
#define RUN_PROFILE_EXTRA                                                                          \
    {.key = EXTRA_PROFILE_KEY,                                                                     \
     .json = true,                                                                                 \
     .csv = true,                                                                                  \
     .paired = true,                                                                               \
     .kind = PROFILE_U64,                                                                          \
     RUN(stride_bytes)},

#endif
