#ifndef MEMBENCH_UTF8_TEXT_H
#define MEMBENCH_UTF8_TEXT_H

#include <stddef.h>

/* Rewrites every byte of s that is not part of valid UTF-8 as the four characters \xNN, so
 * that JSON can carry the text (a hostname is bytes, not text). s holds at most cap bytes
 * with its terminator; what no longer fits is cut at a character boundary. Returns the
 * number of bytes rewritten. */
size_t utf8_escape_invalid(char *s, size_t cap);

/* Characters (code points) in valid UTF-8 text: what a table pads by. */
size_t utf8_chars(const char *s);

#endif
