/* timeline_data.h — the numbers of the timeline figure: what a pre-training
 * learns when, read from a snapshot series (series_read.h) and what was
 * measured on each of its snapshots (examples/series_heads.sh).
 *
 *   heads  one score of `seqrep heads` (copy, induction, previous, sink or
 *          own_copy) of every layer x head at every step, from
 *          DIR/measures/MEASURE/step-NNNNNN.csv (MEASURE heads-random or
 *          heads-data); the `top` heads with the largest value at the last
 *          step are the ones the figure colours.
 *   loss   the training loss of series.json at every step.
 *   f1     the dev and test F1 of every epoch of a fine-tuning's series
 *          (finetune --save-epochs; epoch 0 = before training).
 *   flow   one share of `seqrep attnflow` (where last-copy words attend:
 *          own_copy, earlier_left, same_word, earlier_right, sink), the mean
 *          over heads of every layer at every step, from
 *          DIR/measures/flow/step-NNNNNN.csv (examples/series_flow.sh); the
 *          `top` layers with the largest last value coloured. After
 *          attnflow --cues (series_flow.sh with CUES) also cue or non_cue:
 *          the share of ambiguous entity words on their cue word in the
 *          earlier copies, or on one other word on its side
 *          (theory/cue_attention.h). When every step's CSV has the
 *          share's chance level (its _chance column: a uniform head under
 *          the same mask, theory/chance.h), it is kept per layer and step
 *          and drawn as a dashed line.
 *
 * Both add, when DIR/measures/heads-random is there, the losses on the
 * first and last copy of random sequences and the in-context learning score
 * (first minus last) from each step's heads-random manifest: the phase
 * change on the same steps. Errors name the file:
 *   "DIR/measures/heads-random/step-000150.csv: missing (no heads-random measure of step 150 of DIR/series.json)"
 *   "DIR/measures/heads-random/step-000150.csv: 3 layers x 2 heads, but step-000000.csv has 2 x 2 (another model?)"
 *   "DIR/measures/heads-random/step-000150.manifest.json: no number 'icl_score'" */
#ifndef SEQREP_VIZ_TIMELINE_DATA_H
#define SEQREP_VIZ_TIMELINE_DATA_H

#include <stdio.h>

#include "draw/figure.h"
#include "theory/attnflow.h"
#include "theory/heads.h"

/* The most heads the figure colours (the palette's colours that read on
 * both themes). */
#define TIMELINE_MAX_TOP 6

typedef enum { TIMELINE_HEADS = 0, TIMELINE_LOSS = 1, TIMELINE_F1 = 2, TIMELINE_FLOW = 3, TIMELINE_PROBE = 4 } TimelineWhat;

/* flow: which share is drawn, an attnflow category or a cue column. */
typedef enum { TIMELINE_FLOW_CATEGORY = 0, TIMELINE_FLOW_CUE = 1, TIMELINE_FLOW_NON_CUE = 2 } TimelineFlowShare;

/* What `seqrep plot timeline` asks for. */
typedef struct {
    const char *dir;     /* the series folder                         */
    TimelineWhat what;
    const char *measure; /* heads: heads-random | heads-data          */
    HeadScore score;     /* heads: the score drawn                    */
    int top;             /* heads, flow: how many to colour, 1..MAX   */
    TimelineFlowShare share; /* flow: a category or a cue column       */
    FlowCategory category; /* flow: the share drawn, with CATEGORY    */
    const char *split;   /* probe: the split whose F1 is drawn        */
} TimelineRequest;

typedef struct {
    FigureMeta meta;
    TimelineWhat what;
    char measure[32];
    HeadScore score;
    TimelineFlowShare share;
    FlowCategory category;
    int n_steps;
    int *step;            /* (n_steps) ascending                                   */
    double *train_loss;   /* (n_steps) NAN where series.json has none              */
    int epochs;           /* the series counts fine-tuning epochs, not steps        */
    double *dev_f1;       /* (n_steps) f1: dev and test F1 (%), NAN where none      */
    double *test_f1;
    int n_layers, n_heads;
    double *value;        /* heads: (n_steps, n_layers, n_heads), in 0..1; flow:
                             (n_steps, n_layers, 1), the layer's mean over heads;
                             probe: (n_steps, n_layers, 1), the probe's span F1 (%) */
    int has_chance;       /* flow: every step's file has the share's chance level     */
    double *chance;       /* flow: (n_steps, n_layers) a uniform head's share; NULL without */
    char split[32];       /* probe: the split drawn                                 */
    int probe_r;          /* probe: the repetitions of the read-out drawn           */
    int n_top;            /* heads: the coloured heads, largest last value first */
    int top_layer[TIMELINE_MAX_TOP], top_head[TIMELINE_MAX_TOP];
    int has_icl;          /* the heads-random manifests were read                  */
    double *loss_first;   /* (n_steps) loss on the first copy of random sequences  */
    double *loss_last;    /* (n_steps) ... on the last copy                        */
    double *icl;          /* (n_steps) icl_score: first minus last                 */
} TimelineData;

/* 1 when d has one line per layer (flow, probe), 0 for one per head. */
int timeline_per_layer(const TimelineData *d);

/* Parse --what (heads | loss | f1 | flow | probe) and --measure (heads-random | heads-data);
 * 0 or -1 with err naming the option. */
int timeline_what_parse(const char *text, TimelineWhat *out, SrError *err);
const char *timeline_what_name(TimelineWhat what);
int timeline_measure_check(const char *text, SrError *err);

/* Load what q asks for. Free with timeline_data_free (safe after a
 * failure). 0, or -1 with err. */
int timeline_data_load(TimelineData *d, const TimelineRequest *q, SrError *err);
void timeline_data_free(TimelineData *d);

/* The name of the flow share drawn: a category ("earlier_right"), "cue" or
 * "non_cue". */
const char *timeline_flow_name(TimelineFlowShare share, FlowCategory category);

/* The value at step index i of (layer, head). */
double timeline_value(const TimelineData *d, int i, int layer, int head);

/* The label of a head in the figure: "L2H3" (flow: "layer 2"). */
void timeline_head_label(int layer, int head, char *out, size_t cap);
void timeline_line_label(const TimelineData *d, int layer, int head, char *out, size_t cap);

/* CSV of the drawn numbers: step,series,layer,head,value. heads: series
 * "MEASURE/SCORE" (one row per step, layer and head), then "icl_score";
 * loss: "train_loss" (steps that have one), "loss_first_copy",
 * "loss_last_copy"; f1: "dev_f1", "test_f1"; flow: "flow/CATEGORY" per
 * layer (head empty), then with chance levels "flow/CATEGORY_chance"; layer and head empty where the
 * series has none. step is the epoch in an epoch series. */
void timeline_data_write_csv(const TimelineData *d, FILE *out);

#endif
