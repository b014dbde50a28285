#ifndef MEMBENCH_TEXT_LIST_H
#define MEMBENCH_TEXT_LIST_H

#include <stdio.h>
#include <string.h>

/* Appends part to the "; "-separated list in buf, which holds len bytes with its terminator;
 * what does not fit is cut, and later parts are dropped. */
static inline void text_list_append(char *buf, size_t len, const char *part)
{
    size_t at = strlen(buf);
    snprintf(buf + at, len - at, "%s%s", at ? "; " : "", part);
}

#endif
