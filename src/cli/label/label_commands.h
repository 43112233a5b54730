/* label_commands.h — the commands of the paper's labelling experiments:
 * `seqrep probe`, `finetune`, `cost`, `sweep`, `collect` and `compare`. Each
 * takes the arguments after the command name (argv[0] is the command name)
 * and returns the exit status, as every command of cli/commands.h. */
#ifndef SEQREP_LABEL_COMMANDS_H
#define SEQREP_LABEL_COMMANDS_H

int cmd_probe(int argc, char **argv);
int cmd_finetune(int argc, char **argv);
int cmd_cost(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_collect(int argc, char **argv);
int cmd_compare(int argc, char **argv);

#endif
