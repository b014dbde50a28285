#ifndef MEMBENCH_OUTPUT_FILE_H
#define MEMBENCH_OUTPUT_FILE_H

#include <stdio.h>

/* A report destination: stdout, or a file written atomically (a temporary file beside it,
 * renamed into place only when complete), opened before measuring so a bad path fails early. */
struct output_file {
    FILE *stream;
    char *final_path; /* NULL for stdout */
    char *temp_path;
    int in_memory;
};

int output_open(struct output_file *out, const char *path); /* 0, or -1 after an error line */
/* A report kept in memory (cluster runs send it to rank 0); *buf is valid after commit. */
int output_open_memory(struct output_file *out, char **buf, size_t *len);
int output_commit(struct output_file *out); /* 0, or -1 after an error line */
void output_abort(struct output_file *out);

#endif
