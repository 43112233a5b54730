/* main.c — `seqrep COMMAND [options]`: finds the command and runs it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/job/interrupt.h"
#include "cli/commands.h"

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} Command;

static const Command COMMANDS[] = {
    {.name = "train-lm", .run = cmd_train_lm, .summary = "train a language model on a text corpus"},
    {.name = "info", .run = cmd_info,
     .summary = "show a checkpoint's configuration and training manifest"},
    {.name = "generate", .run = cmd_generate, .summary = "sample text from a trained model"},
    {.name = "perplexity", .run = cmd_perplexity,
     .summary = "held-out loss and perplexity of a language model on a text file"},
    {.name = "tokenize", .run = cmd_tokenize,
     .summary = "encode text or a sentence's words with a Hugging Face tokenizer.json"},
    {.name = "gen-text", .run = cmd_gen_text,
     .summary = "write the built-in English corpus the demo trains on"},
    {.name = "blocks", .run = cmd_blocks,
     .summary = "count the blocks of the causal mask over r repetitions"},
    {.name = "gen", .run = cmd_gen,
     .summary = "write a generated labelling task (right-cue, last-word, left-cue)"},
    {.name = "import-nlupp", .run = cmd_import_nlupp,
     .summary = "convert NLU++ folds to IOB2 CoNLL with the paper's split"},
    {.name = "import-corpus", .run = cmd_import_corpus,
     .summary = "English text (Brown, nlp-corpus, own files) to deduplicated sentences and a "
                "held-out slice"},
    {.name = "attnflow", .run = cmd_attnflow,
     .summary = "where last-copy tokens send their attention, per layer and head"},
    {.name = "heads", .run = cmd_heads,
     .summary = "copy, induction, previous-token and sink scores per head; the ICL score"},
    {.name = "gen-repo", .run = cmd_gen_repo,
     .summary = "write RePo task examples (kv, needle, table) as a text corpus"},
    {.name = "repo-eval", .run = cmd_repo_eval,
     .summary = "train/evaluate position methods (rope, nope, const, hybrid, repo) on a RePo task"},
    {.name = "repo-positions", .run = cmd_repo_positions,
     .summary = "the RePo positions z of a checkpoint on a (repeated) input"},
    {.name = "probe", .run = cmd_probe,
     .summary = "linear probes per layer on a frozen model, for each r"},
    {.name = "finetune", .run = cmd_finetune,
     .summary = "fine-tune for sequence labelling with one method (causal, sr, ...)"},
    {.name = "cost", .run = cmd_cost,
     .summary = "forward FLOPs and time of one sentence for r copies and an exit layer"},
    {.name = "sweep", .run = cmd_sweep,
     .summary = "fine-tune a grid of runs (data x seeds x methods x r x exits); resumable"},
    {.name = "collect", .run = cmd_collect,
     .summary = "merge run and sweep CSVs into one sweep CSV and summary"},
    {.name = "compare", .run = cmd_compare,
     .summary = "paired bootstrap 95% intervals for F1 differences between a sweep's "
                "configurations"},
    {.name = "series", .run = cmd_series,
     .summary = "the snapshots of a series folder: what to load for each, or each step's numbers"},
    {.name = "plot", .run = cmd_plot,
     .summary = "draw a figure (mask, proportion, attention, layers, exit, flow, heads, repo-*) to PNG, "
                "SVG or PDF"},
    {.name = "explore", .run = cmd_explore,
     .summary = "interactive window over the figures: keys, hover, pin, save the view"},
};

/* Print the list of commands. */
static void print_commands(FILE *f)
{
    fprintf(f, "usage: seqrep COMMAND [options]   (seqrep COMMAND --help for details)\n\ncommands:\n");
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        fprintf(f, "  %-15s %s\n", COMMANDS[i].name, COMMANDS[i].summary);
}

/* The exit status of a command that returned rc, once its standard output
 * is flushed: a write there that failed (a full disk, a broken device) is
 * one line on stderr and status 2, unless the command failed already. */
static int finish_stdout(const char *command, int rc)
{
    errno = 0;
    int e = fflush(stdout) != 0 ? errno : ferror(stdout) ? (errno ? errno : EIO) : 0;
    if (e == 0 || rc != 0) return rc;
    fprintf(stderr, "seqrep %s: cannot write standard output (%s)\n", command, strerror(e));
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        print_commands(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    interrupt_install(); /* a signal leaves no half-written file (base/job/interrupt.h) */
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        if (strcmp(argv[1], COMMANDS[i].name) == 0)
            return finish_stdout(argv[1], COMMANDS[i].run(argc - 1, argv + 1));
    fprintf(stderr, "seqrep: unknown command '%s' (run 'seqrep --help' for the list)\n", argv[1]);
    return 2;
}
