/* repo_commands.h — the commands of RePo, context re-positioning: `seqrep
 * gen-repo`, `repo-eval` and `repo-positions`. Each takes the arguments
 * after the command name (argv[0] is the command name) and returns the exit
 * status, as every command of cli/commands.h. */
#ifndef SEQREP_REPO_COMMANDS_H
#define SEQREP_REPO_COMMANDS_H

int cmd_gen_repo(int argc, char **argv);
int cmd_repo_eval(int argc, char **argv);
int cmd_repo_positions(int argc, char **argv);

#endif
