/* recipe.c — the named fine-tuning recipes (see recipe.h). */
#include "train/recipe.h"

#include <stdio.h>
#include <string.h>

const char *adapter_name(AdapterKind a)
{
    return a == ADAPTER_LORA ? "lora" : "none";
}

int adapter_parse(const char *text, AdapterKind *out)
{
    if (strcmp(text, "none") == 0) *out = ADAPTER_NONE;
    else if (strcmp(text, "lora") == 0) *out = ADAPTER_LORA;
    else return -1;
    return 0;
}

int recipe_known(const char *name)
{
    return strcmp(name, "full") == 0 || strcmp(name, "paper") == 0;
}

int recipe_apply(const char *name, FinetuneConfig *c)
{
    *c = finetune_defaults();
    if (strcmp(name, "full") == 0) return 0;
    if (strcmp(name, "paper") != 0) return -1;
    c->adapter = ADAPTER_LORA; /* with finetune_defaults' adapters, which are the paper's */
    c->lr = 2e-4f;
    c->epochs = 10;
    c->batch = 8;
    c->grad_accum = 4;
    c->weight_decay = 0.05f;
    c->dropout = 0.1f;
    return 0;
}

void recipe_label(const char *name, AdapterKind adapter, char *out, size_t n)
{
    FinetuneConfig c;
    recipe_apply(name, &c);
    if (c.adapter == adapter) snprintf(out, n, "%s", name);
    else snprintf(out, n, "%s+%s", name, adapter_name(adapter));
}
