/* main.c — `seqrep COMMAND [options]`: finds the command and runs it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/interrupt.h"
#include "cli/commands.h"

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} Command;

static const Command COMMANDS[] = {
    {"train-lm", cmd_train_lm, "train a language model on a text corpus"},
    {"info", cmd_info, "show a checkpoint's configuration and training manifest"},
    {"generate", cmd_generate, "sample text from a trained model"},
    {"perplexity", cmd_perplexity, "held-out loss and perplexity of a language model on a text file"},
    {"tokenize", cmd_tokenize, "encode text or a sentence's words with a Hugging Face tokenizer.json"},
    {"gen-text", cmd_gen_text, "write the built-in English corpus the demo trains on"},
    {"blocks", cmd_blocks, "count the blocks of the causal mask over r repetitions"},
    {"gen", cmd_gen, "write a generated labelling task (right-cue, last-word, left-cue)"},
    {"import-nlupp", cmd_import_nlupp, "convert NLU++ folds to IOB2 CoNLL with the paper's split"},
    {"import-corpus", cmd_import_corpus, "English text (Brown, nlp-corpus, own files) to deduplicated sentences and a held-out slice"},
    {"attnflow", cmd_attnflow, "where last-copy tokens send their attention, per layer and head"},
    {"gen-repo", cmd_gen_repo, "write RePo task examples (kv, needle, table) as a text corpus"},
    {"repo-eval", cmd_repo_eval, "train/evaluate position methods (rope, nope, const, hybrid, repo) on a RePo task"},
    {"repo-positions", cmd_repo_positions, "the RePo positions z of a checkpoint on a (repeated) input"},
    {"probe", cmd_probe, "linear probes per layer on a frozen model, for each r"},
    {"finetune", cmd_finetune, "fine-tune for sequence labelling with one method (causal, sr, ...)"},
    {"cost", cmd_cost, "forward FLOPs and time of one sentence for r copies and an exit layer"},
    {"sweep", cmd_sweep, "fine-tune a grid of runs (data x seeds x methods x r x exits); resumable"},
    {"collect", cmd_collect, "merge run and sweep CSVs into one sweep CSV and summary"},
    {"compare", cmd_compare, "paired bootstrap 95% intervals for F1 differences between a sweep's configurations"},
    {"plot", cmd_plot, "draw a figure (mask, proportion, attention, layers, exit, flow, repo-*) to PNG, SVG or PDF"},
    {"explore", cmd_explore, "interactive window over the figures: keys, hover, pin, save the view"},
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
    interrupt_install(); /* a signal leaves no half-written file (base/interrupt.h) */
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        if (strcmp(argv[1], COMMANDS[i].name) == 0)
            return finish_stdout(argv[1], COMMANDS[i].run(argc - 1, argv + 1));
    fprintf(stderr, "seqrep: unknown command '%s' (run 'seqrep --help' for the list)\n", argv[1]);
    return 2;
}
