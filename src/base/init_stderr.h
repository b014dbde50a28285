#ifndef MEMBENCH_INIT_STDERR_H
#define MEMBENCH_INIT_STDERR_H

#include <stddef.h>

/* What the shared libraries print on stderr while they initialise, before main() (libgomp's
 * complaint about an OpenMP variable it cannot read), held back so that main() can judge it.
 * init_stderr_hold runs from the executable's preinit array, before any library's
 * constructor: fd 2 then writes into a memory file. Nothing is held when that cannot be done
 * (stderr closed, no memfd_create); a process that exits before init_stderr_release gets what
 * was held written to its stderr at exit. */
void init_stderr_hold(void);

/* Gives fd 2 back and returns what was held (*len bytes, NUL-terminated, to free), or NULL
 * when nothing was held. */
char *init_stderr_release(size_t *len);

/* Writes text (len bytes; NULL: nothing) to stderr, as the libraries would have. */
void init_stderr_pass_on(const char *text, size_t len);

#endif
