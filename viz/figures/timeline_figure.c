/* timeline_figure.c — the timeline figure's row: what a pre-training or a
 * fine-tuning learns when, against the step or epoch of a snapshot series
 * (series/paint_timeline.h): head scores, losses, F1, attention flow or
 * probe F1; and its view in the explorer, the timeline of --series (T). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "figure_row/figure_manifest.h"
#include "figure_row/figure_row.h"
#include "results/heads_data.h"
#include "runs/manifest.h"
#include "series/paint_timeline.h"
#include "series/series_read.h"

/* The defaults of the timeline's options, as --help states them. */
#define TIMELINE_DEFAULT_WHAT "heads"
#define TIMELINE_DEFAULT_MEASURE "heads-random"
#define TIMELINE_DEFAULT_SCORE "induction"
#define TIMELINE_DEFAULT_TOP 3
_Static_assert(TIMELINE_DEFAULT_TOP == 3 && TIMELINE_MAX_TOP == 6, "the help of --top states 3 and 1..6");

/* The options of `seqrep plot timeline`. */
typedef struct {
    const char *series, *what, *measure, *score, *split;
    int top;
} TimelineOptions;

static const FigureOption OPTIONS[] = {
    {.name = "series", .type = ARG_STRING, .offset = offsetof(TimelineOptions, series),
     .help = "timeline: a folder of train-lm --snapshots or finetune --save-epochs (its series.json)"},
    {.name = "what", .type = ARG_STRING, .offset = offsetof(TimelineOptions, what),
     .help = "timeline: heads (score per head, ICL below) | loss | f1 (by epoch) | flow (attnflow share per layer) | "
             "probe (F1 per layer) (default " TIMELINE_DEFAULT_WHAT ")"},
    {.name = "measure", .type = ARG_STRING, .offset = offsetof(TimelineOptions, measure),
     .help = "timeline --what heads: heads-random | heads-data (default " TIMELINE_DEFAULT_MEASURE ")"},
    {.name = "score", .type = ARG_STRING, .offset = offsetof(TimelineOptions, score),
     .help = "timeline --what heads: copy | induction | previous | sink | own_copy (default " TIMELINE_DEFAULT_SCORE
             "); flow: an attnflow share, cue or non_cue"},
    {.name = "top", .type = ARG_INT, .offset = offsetof(TimelineOptions, top), .min_int = 1,
     .help = "timeline --what heads: heads coloured, the largest last (default 3, 1..6)"},
    {.name = "split", .type = ARG_STRING, .offset = offsetof(TimelineOptions, split)},
};

/* Parse --score (one name of theory/heads.h) into *out. */
static int parse_score(const char *text, HeadScore *out, SrError *err)
{
    for (int s = 0; s < HEAD_N_SCORES; s++)
        if (strcmp(text, head_score_name((HeadScore)s)) == 0) {
            *out = (HeadScore)s;
            return 0;
        }
    char names[128];
    head_scores_list(names, sizeof names);
    return sr_fail(err, "--score: unknown score '%s' (scores: %s)", text, names);
}

/* Parse --score of --what flow (an attnflow category, or cue or non_cue
 * of attnflow --cues) into t->share and t->category. */
static int parse_category(const char *text, TimelineRequest *t, SrError *err)
{
    t->share = strcmp(text, "cue") == 0 ? TIMELINE_FLOW_CUE : strcmp(text, "non_cue") == 0 ? TIMELINE_FLOW_NON_CUE
                                                                                           : TIMELINE_FLOW_CATEGORY;
    if (t->share != TIMELINE_FLOW_CATEGORY) return 0;
    for (int c = 0; c < FLOW_N_CATEGORIES; c++)
        if (strcmp(text, attnflow_category_name((FlowCategory)c)) == 0) {
            t->category = (FlowCategory)c;
            return 0;
        }
    return sr_fail(err, "--score of --what flow: unknown share '%s' (own_copy, earlier_left, same_word, "
                        "earlier_right, sink; cue, non_cue after attnflow --cues)", text);
}

/* The request of the options in o, checked: the options of --what heads
 * refused with --what loss and f1. */
static int read_request(const TimelineOptions *o, TimelineRequest *t, SrError *err)
{
    if (!o->series) return sr_fail(err, "timeline needs --series DIR (a folder of train-lm --snapshots or finetune --save-epochs)");
    if (timeline_what_parse(o->what ? o->what : TIMELINE_DEFAULT_WHAT, &t->what, err)) return -1;
    if ((t->what == TIMELINE_LOSS || t->what == TIMELINE_F1) && (o->measure || o->score || o->top))
        return sr_fail(err, "--measure, --score and --top apply to --what heads and flow only");
    if (t->what == TIMELINE_FLOW && o->measure) return sr_fail(err, "--measure applies to --what heads only");
    if (o->split && t->what != TIMELINE_PROBE) return sr_fail(err, "--split applies to --what probe only");
    if (t->what == TIMELINE_PROBE && (o->measure || o->score))
        return sr_fail(err, "--measure and --score do not apply to --what probe");
    t->split = o->split;
    t->dir = o->series;
    t->measure = o->measure ? o->measure : TIMELINE_DEFAULT_MEASURE;
    t->top = o->top ? o->top : TIMELINE_DEFAULT_TOP;
    if (timeline_measure_check(t->measure, err)) return -1;
    if (t->what == TIMELINE_FLOW) return parse_category(o->score ? o->score : "earlier_right", t, err);
    if (t->what == TIMELINE_PROBE) return 0;
    return parse_score(o->score ? o->score : TIMELINE_DEFAULT_SCORE, &t->score, err);
}

/* Record series.json and the files read at every step of d in the manifest. */
static void record_inputs(cJSON *manifest, const TimelineData *d, const TimelineRequest *t)
{
    size_t cap = strlen(t->dir) + sizeof "/series.json";
    char *series = malloc(cap);
    if (series) {
        snprintf(series, cap, "%s/series.json", t->dir);
        manifest_add_file(manifest, "series", series);
    }
    free(series);
    cJSON *steps = cJSON_AddArrayToObject(manifest, "steps");
    for (int i = 0; i < d->n_steps; i++) {
        cJSON *one = cJSON_CreateObject();
        cJSON_AddNumberToObject(one, "step", d->step[i]);
        char *csv = d->what == TIMELINE_HEADS   ? series_measure_path(t->dir, d->measure, d->step[i], ".csv")
                    : d->what == TIMELINE_FLOW  ? series_measure_path(t->dir, "flow", d->step[i], ".csv")
                    : d->what == TIMELINE_PROBE ? series_measure_path(t->dir, "probe", d->step[i], ".csv")
                                                : NULL;
        char *icl = d->has_icl ? series_measure_path(t->dir, "heads-random", d->step[i], ".manifest.json") : NULL;
        if (csv) manifest_add_file(one, "measure", csv);
        if (icl) manifest_add_file(one, "icl", icl);
        free(csv);
        free(icl);
        cJSON_AddItemToArray(steps, one);
    }
}

/* Record what was drawn: the measure and score and the coloured lines. */
static void record_drawn(cJSON *manifest, const TimelineData *d, const TimelineRequest *t)
{
    if (t->what == TIMELINE_HEADS) cJSON_AddStringToObject(manifest, "measure", t->measure);
    if (t->what != TIMELINE_PROBE)
        cJSON_AddStringToObject(manifest, "score", t->what == TIMELINE_HEADS ? head_score_name(t->score)
                                                                            : timeline_flow_name(t->share, t->category));
    cJSON *top = cJSON_AddArrayToObject(manifest, "top");
    for (int k = 0; k < d->n_top; k++) {
        char label[32];
        timeline_line_label(d, d->top_layer[k], d->top_head[k], label, sizeof label);
        cJSON_AddItemToArray(top, cJSON_CreateString(label));
    }
}

/* timeline: --series DIR (a train-lm --snapshots folder measured by
 * examples/series_heads.sh), --what, --measure, --score, --top, --split.
 * The manifest records series.json and every measure file read. */
static int timeline_load(void *data, const void *options, cJSON *manifest, long long *seed, SrError *err)
{
    TimelineData *d = data;
    TimelineRequest t;
    (void)seed;
    memset(&t, 0, sizeof t);
    if (read_request(options, &t, err)) return -1;
    if (timeline_data_load(d, &t, err)) return -1;
    cJSON_AddStringToObject(manifest, "what", timeline_what_name(t.what));
    if (t.what == TIMELINE_PROBE) {
        cJSON_AddStringToObject(manifest, "split", d->split);
        cJSON_AddNumberToObject(manifest, "r", d->probe_r);
    }
    if (t.what == TIMELINE_HEADS || timeline_per_layer(d)) record_drawn(manifest, d, &t);
    cJSON_AddBoolToObject(manifest, "icl", d->has_icl);
    record_inputs(manifest, d, &t);
    return 0;
}

/* Draw the timeline (TimelineData). */
static int timeline_paint(cairo_t *cr, const void *data, double w, double h)
{
    return paint_timeline(cr, data, w, h);
}

/* The numbers behind the timeline as CSV. */
static void timeline_csv(const void *data, FILE *out)
{
    timeline_data_write_csv(data, out);
}

/* Release what the data of the timeline holds. */
static void timeline_free(void *data)
{
    timeline_data_free(data);
}


/* The view's plot options: the series of --series, its defaults. */
static void timeline_command(PlotWords *w, const ViewContext *c)
{
    plot_words_option(w, "--series", c->src->series);
}

static const FigureView VIEWS[] = {{
    .name = "timeline",
    .key = 'T',
    .help = "timeline of the series (explore --series DIR)",
    .needs = "start the explorer with --series DIR",
    .view_needs = "needs --series DIR",
    .optional = 1,
    .source = "series",
    .command = timeline_command,
}};

const FigureRow TIMELINE_FIGURE = {
    .name = "timeline",
    .options = OPTIONS,
    .n_options = ARGS_COUNT(OPTIONS),
    .options_size = sizeof(TimelineOptions),
    .data_size = sizeof(TimelineData),
    .meta_offset = offsetof(TimelineData, meta),
    .load = timeline_load,
    .paint = timeline_paint,
    .write_csv = timeline_csv,
    .free = timeline_free,
    .height = 1100,
    .views = VIEWS,
    .n_views = 1,
};
