#ifndef MEMBENCH_OUTPUT_FILE_H
#define MEMBENCH_OUTPUT_FILE_H

#include <stdio.h>

/* A report destination: stdout, or a file written atomically (a temporary file beside it,
 * renamed into place only when complete), opened before measuring so a bad path fails early. */
struct output_file {
    FILE *stream;
    char *final_path; /* NULL for stdout */
    char *temp_path;
};

int output_open(struct output_file *out, const char *path); /* 0, or -1 after an error line */
int output_commit(struct output_file *out);                 /* 0, or -1 after an error line */
void output_abort(struct output_file *out);

#endif
