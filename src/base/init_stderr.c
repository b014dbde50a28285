#include "src/base/init_stderr.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static int saved_fd = -1; /* the real stderr */
static int held_fd = -1;  /* the memory file fd 2 writes into meanwhile */

void init_stderr_pass_on(const char *text, size_t len)
{
    for (size_t done = 0; text && done < len;) {
        ssize_t n = write(STDERR_FILENO, text + done, len - done);
        if (n <= 0) break;
        done += (size_t)n;
    }
}

static void pass_on_at_exit(void)
{
    size_t len;
    char *text = init_stderr_release(&len);
    init_stderr_pass_on(text, len);
    free(text);
}

void init_stderr_hold(void)
{
    int saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
    if (saved < 0) return; /* stderr closed: nothing to hold it for */
    int memfd = memfd_create("membench-init-stderr", MFD_CLOEXEC);
    int held = memfd < 0 ? -1 : fcntl(memfd, F_DUPFD_CLOEXEC, 3); /* never fd 0 or 1 */
    if (memfd >= 0) close(memfd);
    if (held < 0 || dup2(held, STDERR_FILENO) < 0) {
        if (held >= 0) close(held);
        close(saved);
        return;
    }
    saved_fd = saved;
    held_fd = held;
    atexit(pass_on_at_exit);
}

char *init_stderr_release(size_t *len)
{
    if (held_fd < 0) return NULL;
    dup2(saved_fd, STDERR_FILENO);
    close(saved_fd);
    off_t size = lseek(held_fd, 0, SEEK_END);
    char *text = malloc(size > 0 ? (size_t)size + 1 : 1);
    size_t got = 0;
    while (text && size > 0 && got < (size_t)size) {
        ssize_t n = pread(held_fd, text + got, (size_t)size - got, (off_t)got);
        if (n <= 0) break;
        got += (size_t)n;
    }
    close(held_fd);
    saved_fd = held_fd = -1;
    if (text) text[got] = '\0';
    *len = got;
    return text;
}
