#ifndef MEMBENCH_UTF8_TEXT_H
#define MEMBENCH_UTF8_TEXT_H

#include <stddef.h>

/* Rewrites every byte of s that is not part of valid UTF-8 as the four characters \xNN, so
 * that JSON can carry the text (a hostname is bytes, not text). s holds at most cap bytes
 * with its terminator; what no longer fits is cut at a character boundary. Returns the
 * number of bytes rewritten. */
size_t utf8_escape_invalid(char *s, size_t cap);

/* src as text that keeps to its line on a terminal, for text output of names (host names, CPU
 * models, file names): \n, \t, \r and \xNN for the other control characters (C0 and DEL),
 * \u00NN for the C1 ones (U+0080 to U+009F, which terminals may obey), \xNN for bytes that
 * are not valid UTF-8; the rest as it is. dst holds at most cap bytes with its terminator
 * (4 x strlen(src) + 1 always suffice); what no longer fits is cut at a character boundary.
 * Returns dst, for use as a printf argument. */
#define TEXT_PRINTABLE_CAP(n) (4 * (n) + 1)
char *text_printable(char *dst, size_t cap, const char *src);

/* s with its leading and trailing blanks removed and each run of blanks inside made one space:
 * a CPU model as CPUID pads it ("Intel(R) Xeon(R) ...  ") and as /proc/cpuinfo gives it compare
 * equal. Returns s. */
char *text_squeeze_blanks(char *s);

/* Characters (code points) in valid UTF-8 text: what a table pads by. */
size_t utf8_chars(const char *s);

#endif
