/* main.c — `seqrep COMMAND [options]`: finds the command and runs it. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} Command;

static const Command COMMANDS[] = {
    {"train-lm", cmd_train_lm, "train a language model on a text corpus"},
    {"info", cmd_info, "show a checkpoint's configuration and training manifest"},
    {"generate", cmd_generate, "sample text from a trained model"},
    {"gen-text", cmd_gen_text, "write the built-in English corpus the demo trains on"},
    {"blocks", cmd_blocks, "count the blocks of the causal mask over r repetitions"},
    {"attnflow", cmd_attnflow, "where last-copy tokens send their attention, per layer and head"},
};

/* Print the list of commands. */
static void print_commands(FILE *f)
{
    fprintf(f, "usage: seqrep COMMAND [options]   (seqrep COMMAND --help for details)\n\ncommands:\n");
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        fprintf(f, "  %-12s %s\n", COMMANDS[i].name, COMMANDS[i].summary);
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        print_commands(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        if (strcmp(argv[1], COMMANDS[i].name) == 0) return COMMANDS[i].run(argc - 1, argv + 1);
    fprintf(stderr, "seqrep: unknown command '%s' (run 'seqrep --help' for the list)\n", argv[1]);
    return 2;
}
