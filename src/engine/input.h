/* input.h — one forward call's inputs: token ids and the per-layer plans
 * the caller hands the model (engine/model.h). A plan gives each layer one
 * choice: a mask (causal or bidirectional, engine/ops/mask.h), a sliding
 * window (a mask too), a kind of positions (integer RoPE, none, real-valued
 * per token and head, RePo's) and a weight per attention head. The model
 * knows nothing of what they are for: sequence repetition is ids laid out
 * k times and the rows read back, the unmasking baselines are mask plans,
 * RePo is a position plan. */
#ifndef SEQREP_INPUT_H
#define SEQREP_INPUT_H

#include "base/status.h"
#include "engine/ops/mask.h"
#include "engine/tensors.h"

struct Lora;

typedef enum {
    POS_ROPE = 0,  /* integer positions (ModelInput.positions), rotated by RoPE  */
    POS_NONE = 1,  /* no positional information (NoPE)                          */
    POS_REAL = 2,  /* real-valued positions per token and head (ModelInput.real_pos) */
    POS_REPO = 3   /* positions the layer computes from its own input (RePo weights) */
} PosKind;

/* Check that a configuration is usable; fills err naming the bad field. */
int model_config_check(const ModelConfig *cfg, SrError *err);

/* Which logits a forward computes (ModelInput.want_logits). */
enum { LOGITS_NONE = 0, LOGITS_ALL = 1, LOGITS_LAST = 2 };

/* One forward call's inputs. Pointers the caller does not need may be NULL. */
typedef struct {
    int B, T;                 /* batch rows and sequence length (T <= max_seq_len) */
    const int *ids;           /* (B, T) token ids */
    const int *lengths;       /* (B) valid tokens per row, right padding; NULL = T */
    const int *positions;     /* (B, T) integer positions for POS_ROPE; NULL = 0..T-1 */
    const MaskKind *mask;     /* (N) mask plan; NULL = causal everywhere */
    const PosKind *pos_kind;  /* (N) position plan; NULL = the model's own: RoPE, except
                                 RePo layers of a RePo model (POS_REPO) and the layers
                                 in cfg.nope_layers (POS_NONE) */
    const float *real_pos;    /* (N, B, T, H) positions for POS_REAL layers */
    const int *window;        /* (N) window plan: layer l sees the last window[l] keys
                                 (0 = no window); NULL = the model's own (its family's
                                 sliding layers) */
    const float *head_scale;  /* (N, H) head plan: head h of layer l's attention output
                                 is multiplied by head_scale[l*H + h] before o_proj
                                 (0 takes the head away); NULL = every head as it is */
    int n_run;                /* run only layers 0..n_run-1 (early exit); 0 = all */
    int want_logits;          /* LOGITS_NONE (0); LOGITS_ALL (1): final norm + LM head of
                                 every position into acts.logits (B, T, V); LOGITS_LAST:
                                 of each row's last position (lengths[b] - 1) alone, into
                                 acts.logits (B, V), as generation needs (forward only:
                                 no model_lm_loss or backward after it) */
    int repo_force_index;     /* check only: POS_REPO layers rotate by the integer
                                 positions instead of z (z is still computed) */
} ModelInput;

/* Check in against a model of configuration c whose buffers hold
 * max_batch x max_T and whose LoRA adapters (or NULL) are lora: sizes, token
 * ids, lengths and every plan. 0, or -1 with err naming what does not fit. */
int input_check(const ModelInput *in, const ModelConfig *c, int max_batch, int max_T,
                const struct Lora *lora, SrError *err);

#endif
