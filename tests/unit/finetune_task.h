/* finetune_task.h — the tiny in-code right-cue task and model the
 * fine-tuning tests share: the label of the first word is decided by the
 * LAST word, so a causal reader cannot know it at r = 0 and can at r = 1.
 * Include after test_util.h. */
#ifndef SEQREP_FINETUNE_TASK_H
#define SEQREP_FINETUNE_TASK_H

#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "engine/model.h"
#include "label/labels.h"
#include "label/readout.h"
#include "labelled_task.h"
#include "text/tokenizer.h"
#include "train/finetune.h"

static const char *VOCAB[] = {"<pad>", "<unk>", "<bos>", "<eos>", "<sep>", "<mask>",
                              "jo", "al", "a", "b", "c", "d", "said", "river"};

/* n sentences: an ambiguous name (jo | al), 2-4 fillers, then the cue: "said"
 * makes the name B-PER, "river" B-LOC. Seeded. */
static void make_right_cue(Dataset *d, int n, uint64_t seed, const char *source)
{
    static const char *fillers[] = {"a", "b", "c", "d"};
    Rng rng;
    rng_seed(&rng, seed);
    memset(d, 0, sizeof *d);
    d->source = strdup(source);
    for (int s = 0; s < n; s++) {
        const char *words[8], *tags[8];
        int len = 0, per = (int)rng_below(&rng, 2);
        words[len] = rng_below(&rng, 2) ? "jo" : "al";
        tags[len++] = per ? "B-PER" : "B-LOC";
        int n_fill = 2 + (int)rng_below(&rng, 3);
        for (int i = 0; i < n_fill; i++) {
            words[len] = fillers[rng_below(&rng, 4)];
            tags[len++] = "O";
        }
        words[len] = per ? "said" : "river";
        tags[len++] = "O";
        SrError err;
        assert_int_equal(dataset_add(d, words, tags, len, 1 + s * (len + 1), &err), 0);
    }
}

typedef LabelledTask Task;

static void task_make(Task *t, int n_train)
{
    SrError err;
    memset(t, 0, sizeof *t);
    assert_int_equal(tokenizer_from_words(&t->tok, VOCAB, 14, 1, &err), 0);
    make_right_cue(&t->data[0], n_train, 1, "train.conll");
    make_right_cue(&t->data[1], 60, 2, "dev.conll");
    make_right_cue(&t->data[2], 60, 3, "test.conll");
    assert_int_equal(labels_build(&t->ls, &t->data[0], &err), 0);
    for (int k = 0; k < 3; k++) {
        assert_int_equal(readout_prepare(&t->pieces[k], &t->data[k], &t->tok, &err), 0);
        t->labels[k] = malloc(sizeof(int) * t->pieces[k].n_words);
        assert_int_equal(labels_encode(&t->ls, &t->data[k], t->labels[k], NULL, &err), 0);
        t->split[k] = (LabelledSplit){&t->data[k], &t->pieces[k], t->labels[k]};
    }
}

static void task_free(Task *t) { labelled_task_free(t); }

static void make_model(Model *m, int n_layers)
{
    ModelConfig cfg = {.vocab_size = 14, .d_model = 32, .n_layers = n_layers, .n_heads = 2,
                       .d_ff = 64, .max_seq_len = 24, .rope_theta = 10000.0f, .norm_eps = 1e-5f,
                       .tied = 1};
    SrError err;
    assert_int_equal(model_create(m, &cfg, 16, 24, &err), 0);
    model_init_weights(m, 5);
}

#endif
