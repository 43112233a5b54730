/* rows.h — the option rows many commands share, defined once: --threads,
 * --seed, --quiet, --bos, --sep, --mask, --adapter FILE, and lists such as --r 0,1,2,4.
 *
 * Each option_X function returns the row to put in a command's ArgSpec table
 * (the help line is the command's own where the default differs between
 * commands); each option_parse_X turns the text that was given into its value
 * and, when it is wrong, prints one line "seqrep CMD: --opt ..." and returns 2
 * (0 on success), so every command reports the same mistake the same way. */
#ifndef SEQREP_OPTION_ROWS_H
#define SEQREP_OPTION_ROWS_H

#include "engine/ops/mask.h"
#include "options/args.h"
#include "repeat/repeat.h"

/* --threads N: threads, 0 = all cores (default 0). */
ArgSpec option_threads(int *value);
/* --seed N with the command's help line. */
ArgSpec option_seed(int *value, const char *help);
/* --quiet (a flag) with the command's help line. */
ArgSpec option_quiet(int *value, const char *help);
/* --bos none | once | per-copy, --sep none | token, --mask PLAN, each a
 * string with the command's help line (which states the default). */
ArgSpec option_bos(const char **text, const char *help);
ArgSpec option_sep(const char **text, const char *help);
ArgSpec option_mask(const char **text, const char *help);

/* --copy-positions run | restart | induction (default run: positions run on
 * across copies; repeat.h RepeatPositions). */
ArgSpec option_copy_positions(const char **text);

/* --adapter FILE of the commands that look inside a model (probe, attnflow,
 * plot, explore): a file of finetune --save whose LoRA adapters are applied
 * to --model (formats/adapter_apply.h); help NULL = the common help line. Not
 * finetune's --adapter none | lora (option_adapter). */
ArgSpec option_adapter_file(const char **path, const char *help);

/* The fine-tuning recipe rows of finetune and sweep (see train/recipe.h):
 * --recipe full | paper, --adapter none | lora, --lora-rank R (>= 1),
 * --lora-alpha A, --lora-dropout P, --lora-targets q,k,v,o, --grad-accum N
 * (>= 1); the help line states the command's defaults. */
ArgSpec option_recipe(const char **text, const char *help);
ArgSpec option_adapter(const char **text, const char *help);
ArgSpec option_lora_rank(int *value, const char *help);
ArgSpec option_lora_alpha(float *value, const char *help);
ArgSpec option_lora_dropout(float *value, const char *help);
ArgSpec option_lora_targets(const char **text, const char *help);
ArgSpec option_grad_accum(int *value, const char *help);

/* The learning-rate schedule of the commands that train a language model
 * (train-lm, repo-eval): --lr with the command's help line (its default),
 * --min-lr (default lr/10) and --warmup (default steps/20), whose value is
 * -1 until given. */
ArgSpec option_lr(float *value, const char *help);
ArgSpec option_min_lr(float *value);
ArgSpec option_warmup(int *value);

/* The schedule once the options are parsed: --lr must be positive; a
 * --min-lr or --warmup not given becomes lr/10 or steps/20; the warm-up may
 * not exceed the steps. 0, or 2 after the error line. */
int option_settle_schedule(const char *command, float lr, int steps, float *min_lr, int *warmup);

/* The values of --bos, --sep, --copy-positions and --mask. 0, or 2 after
 * the error line. The mask plan has n_layers entries. */
int option_parse_bos(const char *command, const char *text, RepeatBos *out);
int option_parse_sep(const char *command, const char *text, RepeatSep *out);
int option_parse_copy_positions(const char *command, const char *text, RepeatPositions *out);
int option_parse_mask(const char *command, const char *text, MaskKind *plan, int n_layers);

/* The value of --r as a list such as 0,1,2,4 or 0..4 (repeat_parse_r_list):
 * a new array (*values, caller frees) of *n entries. 0, or 2 after the error
 * line "seqrep CMD: --r: ...". */
int option_parse_r_list(const char *command, const char *text, int **values, int *n);

#endif
