#ifndef MEMBENCH_LOG_H
#define MEMBENCH_LOG_H

/* Exit statuses: the contract in DESIGN.md. */
enum {
    EXIT_OK = 0,       /* success, or acceptance passed */
    EXIT_FAILED = 1,   /* a result failed: validation or acceptance */
    EXIT_USAGE = 2,    /* bad command line or input */
    EXIT_RESOURCE = 3, /* a required resource is missing (memory, huge pages, topology facts) */
    /* 4 is membench-healthcheck's own error */
    EXIT_INCONCLUSIVE = 5, /* no check failed, but a rate could not be judged: too noisy */
};

/* Every message goes to stderr as one line prefixed "membench: ". */
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_set_quiet(int quiet);
/* -q: notes and progress lines are not printed. */
int log_is_quiet(void);

#define LOG_LINE_MAX 240
/* The last line log_error printed, as shown (control characters escaped), without the
 * "membench: " prefix ("" when none), cut at
 * LOG_LINE_MAX - 1 bytes. */
const char *log_last_error(void);

#endif
