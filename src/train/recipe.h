/* recipe.h — named fine-tuning recipes: the settings a run starts from
 * before its explicit options override them.
 *
 *   full   finetune_defaults(): every weight trained, lr 2e-3, 8 epochs,
 *          batch 8, weight decay 0.01, head dropout 0.1 (the default)
 *   paper  the recipe of Kukić et al.'s code (TakeLab/repetition-sl): LoRA
 *          rank 16, alpha 16, dropout 0.1 on q, k, v, o (base frozen), lr
 *          2e-4, 10 epochs, batch 8 with gradient accumulation 4 (32
 *          sentences per update), weight decay 0.05, head dropout 0.1
 *
 * A run's recipe label (for tables and sweep keys) is the recipe's name,
 * with "+lora" or "+none" appended when --adapter changed the recipe's
 * adapter ("full+lora"). */
#ifndef SEQREP_RECIPE_H
#define SEQREP_RECIPE_H

#include <stddef.h>

#include "train/finetune.h"

/* "none" or "lora". */
const char *adapter_name(AdapterKind a);
/* Parse "none" or "lora" into *out; 0, or -1 for anything else. */
int adapter_parse(const char *text, AdapterKind *out);

/* 1 if name is a recipe ("full", "paper"). */
int recipe_known(const char *name);

/* finetune_defaults() with the settings of recipe name on top; 0, or -1 for
 * an unknown name (*c then holds the defaults). */
int recipe_apply(const char *name, FinetuneConfig *c);

/* The recipe label of a run of recipe name whose adapter is `adapter`, into
 * out (capacity n). */
void recipe_label(const char *name, AdapterKind adapter, char *out, size_t n);

#endif
