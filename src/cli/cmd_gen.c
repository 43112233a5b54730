/* cmd_gen.c — `seqrep gen TASK --out-dir DIR [--seed S]`: write a built-in
 * generated sequence-labelling task (right-cue, last-word, left-cue; see
 * src/tasks.h and docs/tasks.md): DIR/train.conll, dev.conll, test.conll and
 * the unlabelled pre-training text DIR/corpus.txt. */
#include <stdio.h>

#include "cli/commands.h"
#include "data/tasks.h"
#include "options/args.h"

static const char *CMD = "gen";

int cmd_gen(int argc, char **argv)
{
    const char *task = NULL, *out_dir = NULL;
    TaskSizes sizes = task_default_sizes();
    int seed = 1;
    ArgSpec specs[] = {
        {"out-dir", ARG_STRING, &out_dir, "directory for the four files (created if needed)", 1, 0, 0},
        {"seed", ARG_INT, &seed, "random seed (default 1)", 0, 0, 0},
        {"train", ARG_INT, &sizes.train, "training sentences (default 2000)", 0, 1, 0},
        {"dev", ARG_INT, &sizes.dev, "validation sentences (default 500)", 0, 1, 0},
        {"test", ARG_INT, &sizes.test, "test sentences (default 500)", 0, 1, 0},
        {"corpus", ARG_INT, &sizes.corpus, "lines of corpus.txt (default 20000)", 0, 1, 0},
    };
    int npos = 0;
    int rc = args_parse(CMD, "right-cue|last-word|left-cue --out-dir DIR [--seed S] [--train N] "
                        "[--dev N] [--test N] [--corpus N]", specs, 6, argc, argv, &task, 1, &npos);
    if (rc) return rc == 1 ? 0 : rc;
    if (npos != 1) return args_error(CMD, "expects one task name: right-cue, last-word or left-cue");

    SrError err;
    TaskKind kind;
    if (task_from_name(task, &kind, &err) ||
        task_write(kind, out_dir, (unsigned long long)(unsigned)seed, &sizes, &err))
        return args_error(CMD, "%s", err.msg);
    fprintf(stderr, "wrote %s (seed %d) to %s: train.conll %d, dev.conll %d, test.conll %d "
            "sentences, corpus.txt %d lines\n", task_name(kind), seed, out_dir, sizes.train,
            sizes.dev, sizes.test, sizes.corpus);
    return 0;
}
