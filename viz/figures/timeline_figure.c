/* timeline_figure.c — the timeline figure in the table of figures. */
#include "figures/timeline_figure.h"

#include <stdlib.h>
#include <string.h>

#include "figures/figure_manifest.h"
#include "results/heads_data.h"
#include "runs/manifest.h"
#include "series/paint_timeline.h"
#include "series/series_read.h"

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

/* The request of the options in q, checked: the options of --what heads
 * refused with --what loss and f1. */
static int read_request(const FigureRequest *q, TimelineRequest *t, SrError *err)
{
    if (!q->series) return sr_fail(err, "timeline needs --series DIR (a folder of train-lm --snapshots or finetune --save-epochs)");
    if (timeline_what_parse(q->what ? q->what : TIMELINE_DEFAULT_WHAT, &t->what, err)) return -1;
    if ((t->what == TIMELINE_LOSS || t->what == TIMELINE_F1) && (q->measure || q->score || q->top))
        return sr_fail(err, "--measure, --score and --top apply to --what heads and flow only");
    if (t->what == TIMELINE_FLOW && q->measure) return sr_fail(err, "--measure applies to --what heads only");
    if (q->split && t->what != TIMELINE_PROBE) return sr_fail(err, "--split applies to --what probe only");
    if (t->what == TIMELINE_PROBE && (q->measure || q->score))
        return sr_fail(err, "--measure and --score do not apply to --what probe");
    t->split = q->split;
    t->dir = q->series;
    t->measure = q->measure ? q->measure : TIMELINE_DEFAULT_MEASURE;
    t->top = q->top ? q->top : TIMELINE_DEFAULT_TOP;
    if (timeline_measure_check(t->measure, err)) return -1;
    if (t->what == TIMELINE_FLOW) return parse_category(q->score ? q->score : "earlier_right", t, err);
    if (t->what == TIMELINE_PROBE) return 0;
    return parse_score(q->score ? q->score : TIMELINE_DEFAULT_SCORE, &t->score, err);
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

int timeline_figure_load(Figure *f, const FigureRequest *q, cJSON *manifest, long long *seed, SrError *err)
{
    (void)seed;
    TimelineRequest t;
    memset(&t, 0, sizeof t);
    if (read_request(q, &t, err)) return -1;
    if (timeline_data_load(&f->timeline, &t, err)) return -1;
    cJSON_AddStringToObject(manifest, "what", timeline_what_name(t.what));
    if (t.what == TIMELINE_PROBE) {
        cJSON_AddStringToObject(manifest, "split", f->timeline.split);
        cJSON_AddNumberToObject(manifest, "r", f->timeline.probe_r);
    }
    if (t.what == TIMELINE_HEADS || timeline_per_layer(&f->timeline)) {
        if (t.what == TIMELINE_HEADS) cJSON_AddStringToObject(manifest, "measure", t.measure);
        if (t.what != TIMELINE_PROBE)
            cJSON_AddStringToObject(manifest, "score", t.what == TIMELINE_HEADS ? head_score_name(t.score)
                                                                                : timeline_flow_name(t.share, t.category));
        cJSON *top = cJSON_AddArrayToObject(manifest, "top");
        for (int k = 0; k < f->timeline.n_top; k++) {
            char label[32];
            timeline_line_label(&f->timeline, f->timeline.top_layer[k], f->timeline.top_head[k], label, sizeof label);
            cJSON_AddItemToArray(top, cJSON_CreateString(label));
        }
    }
    cJSON_AddBoolToObject(manifest, "icl", f->timeline.has_icl);
    record_inputs(manifest, &f->timeline, &t);
    return 0;
}

int timeline_figure_paint(cairo_t *cr, const Figure *f, double w, double h)
{
    return paint_timeline(cr, &f->timeline, w, h);
}

void timeline_figure_write_csv(const Figure *f, FILE *out)
{
    timeline_data_write_csv(&f->timeline, out);
}

void timeline_figure_free(Figure *f)
{
    timeline_data_free(&f->timeline);
}

FigureMeta *timeline_figure_meta(Figure *f)
{
    return &f->timeline.meta;
}
