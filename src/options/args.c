/* args.c — the option parser behind every command. */
#include "options/args.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int args_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "seqrep %s: ", command);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 2;
}

/* Print the synopsis and one line per option. */
static void print_usage(const char *command, const char *usage, const ArgSpec *specs, int n)
{
    printf("usage: seqrep %s %s\n\noptions:\n", command, usage);
    for (int i = 0; i < n; i++) {
        const char *meta = specs[i].type == ARG_INT ? " N"
                           : specs[i].type == ARG_FLOAT ? " X"
                           : specs[i].type == ARG_STRING ? " S" : "";
        char left[64];
        snprintf(left, sizeof left, "--%s%s", specs[i].name, meta);
        printf("  %-22s %s%s\n", left, specs[i].help, specs[i].required ? " (required)" : "");
    }
    printf("  %-22s %s\n", "--help", "show this help");
}

/* Convert text into the option's type, checking range; 0 or 2 (error printed). */
static int store_value(const char *command, ArgSpec *s, const char *text)
{
    char *end;
    switch (s->type) {
    case ARG_STRING:
        *(const char **)s->value = text;
        return 0;
    case ARG_INT: {
        errno = 0;
        long v = strtol(text, &end, 10);
        if (errno || end == text || *end || v < -2147483647L || v > 2147483647L)
            return args_error(command, "--%s expects an integer, got '%s'", s->name, text);
        if (v < s->min_int)
            return args_error(command, "--%s must be at least %d, got %ld", s->name, s->min_int, v);
        *(int *)s->value = (int)v;
        return 0;
    }
    case ARG_FLOAT: {
        errno = 0;
        double v = strtod(text, &end);
        if (errno || end == text || *end || v != v)
            return args_error(command, "--%s expects a number, got '%s'", s->name, text);
        *(float *)s->value = (float)v;
        return 0;
    }
    case ARG_FLAG:
        *(int *)s->value = 1;
        return 0;
    }
    return 2;
}

int args_parse(const char *command, const char *usage, ArgSpec *specs, int n, int argc,
               char **argv, const char **positional, int max_positional, int *n_positional)
{
    int npos = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            print_usage(command, usage, specs, n);
            return 1;
        }
        if (strncmp(a, "--", 2) != 0 || a[2] == 0) {
            if (npos >= max_positional)
                return args_error(command, "unexpected argument '%s' (see --help)", a);
            positional[npos++] = a;
            continue;
        }
        const char *name = a + 2;
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        ArgSpec *s = NULL;
        for (int k = 0; k < n; k++)
            if (strlen(specs[k].name) == len && strncmp(specs[k].name, name, len) == 0) s = &specs[k];
        if (!s) return args_error(command, "unknown option '--%.*s' (see --help)", (int)len, name);
        const char *text;
        if (s->type == ARG_FLAG) {
            if (eq) return args_error(command, "--%s takes no value", s->name);
            text = "1";
        } else if (eq) {
            text = eq + 1;
        } else {
            if (i + 1 >= argc) return args_error(command, "--%s needs a value", s->name);
            text = argv[++i];
        }
        if (store_value(command, s, text)) return 2;
        s->set = 1;
    }
    for (int k = 0; k < n; k++)
        if (specs[k].required && !specs[k].set)
            return args_error(command, "missing required option --%s (see --help)", specs[k].name);
    if (n_positional) *n_positional = npos;
    return 0;
}

ArgSpec *args_find(ArgSpec *specs, int n, const char *name)
{
    for (int k = 0; k < n; k++)
        if (strcmp(specs[k].name, name) == 0) return &specs[k];
    return NULL;
}

int args_given(const ArgSpec *specs, int n, const char *name)
{
    for (int k = 0; k < n; k++)
        if (strcmp(specs[k].name, name) == 0) return specs[k].set;
    return 0;
}
