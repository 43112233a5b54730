/* commands.h — every `seqrep COMMAND`. Each takes the arguments after the
 * command name (argv[0] is the command name) and returns the exit status:
 * 0 success, 2 bad input (after printing one line "seqrep CMD: ..." to stderr). */
#ifndef SEQREP_COMMANDS_H
#define SEQREP_COMMANDS_H

int cmd_train_lm(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_generate(int argc, char **argv);
int cmd_gen_text(int argc, char **argv);
int cmd_blocks(int argc, char **argv);
int cmd_attnflow(int argc, char **argv);

#endif
