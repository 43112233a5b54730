/* cmd_gen_text.c — `seqrep gen-text --out FILE`: write the built-in English
 * corpus (sentences from a small hand-written grammar, see data/corpus.c) that
 * the demo trains its language model on. */
#include <stdio.h>

#include "cli/commands.h"
#include "data/corpus.h"
#include "options/args.h"
#include "options/help_text.h"
#include "options/rows.h"

static const char *CMD = "gen-text";

/* Parse argv: --out, --sentences, --seed. 0, 1 after --help, 2 after the
 * error line. */
static int parse_options(int argc, char **argv, const char **out, int *sentences, int *seed)
{
    HelpText h = {0};
    ArgSpec specs[] = {
        {.name = "out", .type = ARG_STRING, .value = out, .required = 1,
         .help = "text file to write"},
        {.name = "sentences", .type = ARG_INT, .value = sentences, .min_int = 1,
         .help = help_text(&h, "number of sentences (default %d)", *sentences)},
        option_seed(seed, help_text(&h, "random seed (default %d)", *seed)),
    };
    return args_parse(CMD, "--out FILE [--sentences N] [--seed S]", specs, ARGS_COUNT(specs), argc,
                      argv, NULL, 0, NULL);
}

/* `seqrep gen-text`: options, then the corpus file and one summary line. */
int cmd_gen_text(int argc, char **argv)
{
    const char *out = NULL;
    int sentences = 20000, seed = 1;
    int rc = parse_options(argc, argv, &out, &sentences, &seed);
    if (rc) return rc == 1 ? 0 : rc;
    SrError err;
    if (corpus_builtin_write(out, sentences, (unsigned long long)seed, &err))
        return args_error(CMD, "%s", err.msg);
    fprintf(stderr, "wrote %d sentences to %s\n", sentences, out);
    return 0;
}
