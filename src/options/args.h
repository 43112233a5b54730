/* args.h — a small option parser shared by the commands.
 *
 * Options are declared in a table; `--name value` and `--name=value` both
 * work; flags take no value; `--help`/`-h` prints the usage. Every error names
 * the command and the option in one line. */
#ifndef SEQREP_ARGS_H
#define SEQREP_ARGS_H

typedef enum { ARG_STRING, ARG_INT, ARG_FLOAT, ARG_FLAG } ArgType;

typedef struct {
    const char *name;      /* without the leading "--" */
    ArgType type;
    void *value;           /* const char **, int *, float *, or int * (flag) */
    const char *help;      /* one line; "(required)" marks a required option */
    int required;
    int min_int;           /* ARG_INT: smallest accepted value */
    int set;               /* filled by the parser: 1 if given */
} ArgSpec;

/* Parse argv[1..argc) against specs (n entries). Non-option words are stored
 * in positional[0..max_positional) and counted in *n_positional (may be NULL
 * when none are accepted). Returns 0 on success, 1 if help was printed, and 2
 * after printing an error line. `usage` is the synopsis printed by --help. */
int args_parse(const char *command, const char *usage, ArgSpec *specs, int n, int argc,
               char **argv, const char **positional, int max_positional, int *n_positional);

/* Rows are found by name, never by their place in the table: the row called
 * name among specs[0..n), or NULL. args_given says whether it was given. */
ArgSpec *args_find(ArgSpec *specs, int n, const char *name);
int args_given(const ArgSpec *specs, int n, const char *name);

/* The number of rows of a table declared as an array in the caller. */
#define ARGS_COUNT(specs) ((int)(sizeof(specs) / sizeof((specs)[0])))

/* Print "seqrep COMMAND: message" to stderr and return 2. */
int args_error(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
