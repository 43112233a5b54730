/* viz_commands.h — the two commands that live in viz/ because they draw:
 * `seqrep plot` (cmd_plot.c) and `seqrep explore` (cmd_explore.c). Each takes
 * the arguments after the command name and returns the exit status (0, or 2
 * after one error line). The CLI's table (src/cli/commands.h) names them; viz/
 * never includes the CLI. */
#ifndef SEQREP_VIZ_COMMANDS_H
#define SEQREP_VIZ_COMMANDS_H

int cmd_plot(int argc, char **argv);
int cmd_explore(int argc, char **argv);

#endif
