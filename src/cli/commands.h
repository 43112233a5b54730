/* commands.h — every `seqrep COMMAND`. Each takes the arguments after the
 * command name (argv[0] is the command name) and returns the exit status:
 * 0 success, 2 bad input (after printing one line "seqrep CMD: ..." to stderr). */
#ifndef SEQREP_COMMANDS_H
#define SEQREP_COMMANDS_H

/* the commands of a room of their own: labelling (probe, finetune, cost,
 * sweep, collect, compare), RePo (gen-repo, repo-eval, repo-positions) and
 * the theory (blocks, attnflow, heads) */
#include "cli/label/label_commands.h"
#include "cli/repo/repo_commands.h"
#include "cli/theory/theory_commands.h"

int cmd_train_lm(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_generate(int argc, char **argv);
int cmd_gen_text(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_import_nlupp(int argc, char **argv);
int cmd_import_corpus(int argc, char **argv);
int cmd_perplexity(int argc, char **argv);
int cmd_tokenize(int argc, char **argv);
int cmd_series(int argc, char **argv);
/* defined in viz/ (viz_commands.h), which draws; viz/ never includes this table */
int cmd_plot(int argc, char **argv);
int cmd_explore(int argc, char **argv);

#endif
