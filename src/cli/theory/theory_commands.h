/* theory_commands.h — the commands that look at what the repeated mask
 * allows and what a model does with it: `seqrep blocks`, `attnflow` and
 * `heads`. Each takes the arguments after the command name (argv[0] is the
 * command name) and returns the exit status, as every command of
 * cli/commands.h. */
#ifndef SEQREP_THEORY_COMMANDS_H
#define SEQREP_THEORY_COMMANDS_H

int cmd_blocks(int argc, char **argv);
int cmd_attnflow(int argc, char **argv);
int cmd_heads(int argc, char **argv);

#endif
