/* cmd_gen.c — `seqrep gen TASK --out-dir DIR [--seed S]`: write a built-in
 * generated sequence-labelling task (right-cue, last-word, left-cue; see
 * data/tasks.h and docs/tasks.md): DIR/train.conll, dev.conll, test.conll and
 * the unlabelled pre-training text DIR/corpus.txt. */
#include <stdio.h>

#include "cli/commands.h"
#include "data/tasks.h"
#include "options/args.h"
#include "options/help_text.h"
#include "options/rows.h"

static const char *CMD = "gen";

/* The options of `seqrep gen`. */
typedef struct {
    const char *task, *out_dir;
    TaskSizes sizes;
    int seed;
} GenOptions;

/* Parse argv into o: the task name and the sizes. 0, 1 after --help, 2 after
 * the error line. */
static int parse_options(int argc, char **argv, GenOptions *o)
{
    *o = (GenOptions){.sizes = task_default_sizes(), .seed = 1};
    HelpText h = {0};
    ArgSpec specs[] = {
        {.name = "out-dir", .type = ARG_STRING, .value = &o->out_dir, .required = 1,
         .help = "directory for the four files (created if needed)"},
        option_seed(&o->seed, help_text(&h, "random seed (default %d)", o->seed)),
        {.name = "train", .type = ARG_INT, .value = &o->sizes.train, .min_int = 1,
         .help = help_text(&h, "training sentences (default %d)", o->sizes.train)},
        {.name = "dev", .type = ARG_INT, .value = &o->sizes.dev, .min_int = 1,
         .help = help_text(&h, "validation sentences (default %d)", o->sizes.dev)},
        {.name = "test", .type = ARG_INT, .value = &o->sizes.test, .min_int = 1,
         .help = help_text(&h, "test sentences (default %d)", o->sizes.test)},
        {.name = "corpus", .type = ARG_INT, .value = &o->sizes.corpus, .min_int = 1,
         .help = help_text(&h, "lines of corpus.txt (default %d)", o->sizes.corpus)},
    };
    int npos = 0;
    int rc = args_parse(CMD, "right-cue|last-word|left-cue --out-dir DIR [--seed S] [--train N] "
                        "[--dev N] [--test N] [--corpus N]", specs, ARGS_COUNT(specs), argc, argv,
                        &o->task, 1, &npos);
    if (rc) return rc;
    if (npos != 1) return args_error(CMD, "expects one task name: right-cue, last-word or left-cue");
    return 0;
}

/* `seqrep gen`: options, then the task's four files and one summary line. */
int cmd_gen(int argc, char **argv)
{
    GenOptions o;
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc == 1 ? 0 : rc;
    SrError err;
    TaskKind kind;
    if (task_from_name(o.task, &kind, &err) ||
        task_write(kind, o.out_dir, (unsigned long long)(unsigned)o.seed, &o.sizes, &err))
        return args_error(CMD, "%s", err.msg);
    fprintf(stderr, "wrote %s (seed %d) to %s: train.conll %d, dev.conll %d, test.conll %d "
            "sentences, corpus.txt %d lines\n", task_name(kind), o.seed, o.out_dir, o.sizes.train,
            o.sizes.dev, o.sizes.test, o.sizes.corpus);
    return 0;
}
