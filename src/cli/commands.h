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
int cmd_gen(int argc, char **argv);
int cmd_import_nlupp(int argc, char **argv);
int cmd_import_corpus(int argc, char **argv);
int cmd_perplexity(int argc, char **argv);
int cmd_tokenize(int argc, char **argv);
int cmd_attnflow(int argc, char **argv);
int cmd_heads(int argc, char **argv);
int cmd_gen_repo(int argc, char **argv);
int cmd_repo_eval(int argc, char **argv);
int cmd_repo_positions(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_finetune(int argc, char **argv);
int cmd_cost(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_collect(int argc, char **argv);
int cmd_compare(int argc, char **argv);
/* defined in viz/ (viz_commands.h), which draws; viz/ never includes this table */
int cmd_plot(int argc, char **argv);
int cmd_explore(int argc, char **argv);

#endif
