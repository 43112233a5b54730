/* help_text.h — --help lines that state a default from the value that sets
 * it, so that a default is written once (in the command's options or the
 * library's defaults) and --help prints that very value.
 *
 *     HelpText h = {0};
 *     *o = (Options){.epochs = d.epochs, ...};                  // the defaults
 *     ArgSpec specs[] = {
 *         {..., .help = help_text(&h, "epochs (default %d)", o->epochs)},
 *
 * The lines live in h, which must outlive the table (one per parse). */
#ifndef SEQREP_HELP_TEXT_H
#define SEQREP_HELP_TEXT_H

#include <stddef.h>

typedef struct {
    char text[8192]; /* the lines, each NUL-terminated */
    size_t used;
} HelpText;

/* A new line in h, printf-style; "" when h is full. */
const char *help_text(HelpText *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* x as the help lines write learning rates and penalties: the fewest
 * significant digits that read back as x, in exponent form without '+' or
 * leading zeros: 0.01 -> "1e-2", 0.0002 -> "2e-4", 0.0025 -> "2.5e-3". A new
 * string in h, for a "%s" of help_text. */
const char *help_number_e(HelpText *h, float x);

#endif
