/* repo_eval.c — position methods, training and accuracy on the RePo tasks,
 * and the measurements behind the RePo figures. */
#include "repo/repo_eval.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/csv.h"
#include "formats/checkpoint.h"
#include "train/pretrain.h"

/* ---- methods ------------------------------------------------------------------ */

static const char *const METHOD_NAMES[REPO_N_METHODS] = {"rope", "nope", "const", "hybrid", "repo"};

const char *repo_method_name(RepoMethod m)
{
    return (int)m >= 0 && (int)m < REPO_N_METHODS ? METHOD_NAMES[m] : "?";
}

int repo_method_parse(const char *text, RepoMethod *out)
{
    for (int i = 0; i < REPO_N_METHODS; i++)
        if (strcmp(text, METHOD_NAMES[i]) == 0) {
            *out = (RepoMethod)i;
            return 0;
        }
    return -1;
}

int repo_method_list_parse(const char *text, RepoMethod *out, int *n, SrError *err)
{
    *n = 0;
    const char *p = text;
    for (;;) {
        size_t len = strcspn(p, ",");
        char item[32];
        if (len == 0 || len >= sizeof item)
            return sr_fail(err, "method list '%s': empty or overlong item", text);
        memcpy(item, p, len);
        item[len] = 0;
        RepoMethod m;
        if (repo_method_parse(item, &m))
            return sr_fail(err, "method list '%s': unknown method '%s' (use rope, nope, const, "
                           "hybrid, repo)", text, item);
        for (int i = 0; i < *n; i++)
            if (out[i] == m) return sr_fail(err, "method list '%s': '%s' twice", text, item);
        out[(*n)++] = m;
        p += len;
        if (*p == 0) return 0;
        p++;
    }
}

int repo_default_from(int n_layers)
{
    int from = (n_layers + 2) / 3;
    return from < n_layers ? from : n_layers - 1; /* a one-layer model: layer 0 */
}

int repo_method_config(RepoMethod m, int repo_from, ModelConfig *cfg, SrError *err)
{
    if (cfg->n_layers > REPO_MAX_LAYERS)
        return sr_fail(err, "%d layers: the RePo experiments handle at most %d", cfg->n_layers,
                       REPO_MAX_LAYERS);
    if (repo_from >= cfg->n_layers)
        return sr_fail(err, "repo-from %d is outside 0..%d (the model's layers)", repo_from,
                       cfg->n_layers - 1);
    cfg->repo = m == REPO_METHOD_REPO;
    /* the plan a checkpoint of this method runs with when no plan is given */
    cfg->nope_layers = 0;
    for (int l = 0; l < cfg->n_layers; l++)
        if (m == REPO_METHOD_NOPE || m == REPO_METHOD_CONST || (m == REPO_METHOD_HYBRID && l % 2 == 1))
            cfg->nope_layers |= 1ULL << l;
    cfg->repo_from = cfg->repo ? (repo_from >= 0 ? repo_from : repo_default_from(cfg->n_layers)) : 0;
    return 0;
}

void repo_method_plan(RepoMethod m, const ModelConfig *cfg, PosKind *plan)
{
    for (int l = 0; l < cfg->n_layers; l++) {
        switch (m) {
        case REPO_METHOD_NOPE: plan[l] = POS_NONE; break;
        case REPO_METHOD_HYBRID: plan[l] = l % 2 == 0 ? POS_ROPE : POS_NONE; break;
        case REPO_METHOD_REPO:
            plan[l] = cfg->repo && l >= cfg->repo_from ? POS_REPO : POS_ROPE;
            break;
        default: plan[l] = POS_ROPE; break; /* rope, and const with positions 0 */
        }
    }
}

int repo_method_zero_positions(RepoMethod m)
{
    return m == REPO_METHOD_CONST;
}

int repo_run_init(RepoRun *run, RepoMethod method, const Model *m, SrError *err)
{
    memset(run, 0, sizeof *run);
    if (m->cfg.n_layers > REPO_MAX_LAYERS)
        return sr_fail(err, "%d layers: the RePo experiments handle at most %d", m->cfg.n_layers,
                       REPO_MAX_LAYERS);
    if (method == REPO_METHOD_REPO && !m->cfg.repo)
        return sr_fail(err, "method repo needs a model with RePo weights");
    run->method = method;
    repo_method_plan(method, &m->cfg, run->plan);
    if (repo_method_zero_positions(method)) {
        run->zeros = calloc((size_t)m->max_batch * m->max_T, sizeof(int));
        if (!run->zeros) return sr_fail(err, "out of memory");
    }
    return 0;
}

void repo_run_free(RepoRun *run)
{
    free(run->zeros);
    memset(run, 0, sizeof *run);
}

void repo_run_apply(const RepoRun *run, ModelInput *in)
{
    in->pos_kind = run->plan;
    in->positions = run->zeros; /* NULL = 0..T-1 */
}

/* ---- models ------------------------------------------------------------------- */

int repo_copy_shared_weights(Model *dst, const Model *src, SrError *err)
{
    const ModelConfig *a = &dst->cfg, *b = &src->cfg;
    if (a->vocab_size != b->vocab_size || a->d_model != b->d_model || a->n_layers != b->n_layers ||
        a->n_heads != b->n_heads || a->d_ff != b->d_ff || a->tied != b->tied)
        return sr_fail(err, "models differ in size (vocabulary %d vs %d, d_model %d vs %d, "
                       "layers %d vs %d, heads %d vs %d, d_ff %d vs %d, tied %d vs %d)",
                       a->vocab_size, b->vocab_size, a->d_model, b->d_model, a->n_layers,
                       b->n_layers, a->n_heads, b->n_heads, a->d_ff, b->d_ff, a->tied, b->tied);
    int same_repo = a->repo && b->repo && a->repo_from == b->repo_from;
    for (int id = 0; id < PARAM_COUNT; id++) {
        if (param_spec((ParamId)id)->has == HAS_REPO && !same_repo) continue;
        ParamViews from = src->p; /* a copy: param_view points into views it may write */
        memcpy(*param_view(&dst->p, (ParamId)id), *param_view(&from, (ParamId)id),
               param_floats(a, (ParamId)id, 0) * sizeof(float));
    }
    return 0;
}

int repo_model_resize(const Model *src, int max_batch, int max_T, Model *dst, SrError *err)
{
    ModelConfig cfg = src->cfg;
    if (max_T > cfg.max_seq_len) cfg.max_seq_len = max_T;
    if (model_create(dst, &cfg, max_batch, max_T, err)) return -1;
    memcpy(dst->params, src->params, src->n_params * sizeof(float));
    return 0;
}

int repo_load_model(const char *path, RepoMethod method, int max_batch, int max_T, Model *model,
                    Tokenizer *tok, int *trained_len, SrError *err)
{
    Model small;
    CheckpointInfo info;
    memset(model, 0, sizeof *model);
    memset(tok, 0, sizeof *tok);
    if (checkpoint_load(path, &small, 1, 1, &info, err)) return -1;
    int rc = 0;
    if (method == REPO_METHOD_REPO && !small.cfg.repo)
        rc = sr_fail(err, "%s has no RePo weights (its seqrep.config has no repo_from); train one "
                     "with `seqrep train-lm --positions repo`, or continue this one with "
                     "`--init %s --positions repo`", path, path);
    if (rc == 0) rc = checkpoint_tokenizer(&info, path, tok, err);
    if (rc == 0 && trained_len) *trained_len = small.cfg.max_seq_len;
    if (rc == 0) rc = repo_model_resize(&small, max_batch, max_T, model, err);
    if (rc) tokenizer_free(tok);
    checkpoint_info_free(&info);
    model_free(&small);
    return rc;
}

/* ---- training ------------------------------------------------------------------- */

RepoTrainOptions repo_train_defaults(void)
{
    return (RepoTrainOptions){.steps = 1000, .batch = 16, .warmup = 50, .lr = 3e-3f,
                              .min_lr = 3e-4f, .weight_decay = 0.1f, .clip = 1.0f, .seed = 1};
}

/* Examples first .. first+B-1 of spec into ids/targets (B, T), task ids
 * turned into model ids by map (NULL: unchanged). Answer positions and
 * (mapped) answers into pos/ans when not NULL, and the infos into info. */
static void make_batch(const RepoTaskSpec *spec, uint64_t seed, long first, int B, const int *map,
                       int *ids, int *targets, int *pos, int *ans, RepoExample *info)
{
    int T = spec->length;
    for (int b = 0; b < B; b++) {
        RepoExample ex;
        int *row = ids + (size_t)b * T, *tgt = targets + (size_t)b * T;
        repo_task_example(spec, seed, first + b, row, tgt, &ex);
        if (map)
            for (int t = 0; t < T; t++) {
                row[t] = map[row[t]];
                if (tgt[t] >= 0) tgt[t] = map[tgt[t]];
            }
        if (pos) pos[b] = ex.answer_pos;
        if (ans) ans[b] = map ? (map[ex.answer] == TOK_UNK ? -1 : map[ex.answer]) : ex.answer;
        if (info) info[b] = ex;
    }
}

/* Check that spec fits model m in batches of B; without a map the model
 * must speak the task vocabulary itself. */
static int check_fit(const Model *m, const RepoTaskSpec *spec, int B, const int *map,
                     SrError *err)
{
    if (repo_task_check(spec, err)) return -1;
    if (spec->length > m->max_T)
        return sr_fail(err, "%s length %d is too long for the model: it was sized for %d tokens",
                       repo_task_name(spec->kind), spec->length, m->max_T);
    if (B < 1 || B > m->max_batch)
        return sr_fail(err, "batch %d is outside 1..%d (the model's batch)", B, m->max_batch);
    if (!map && m->cfg.vocab_size != REPO_VOCAB_SIZE)
        return sr_fail(err, "the model's vocabulary (%d words) is not the task vocabulary (%d)",
                       m->cfg.vocab_size, REPO_VOCAB_SIZE);
    return 0;
}

/* The batches of repo_train: examples (step - 1) * B ... of the task, with
 * their answers as the only targets (rng unused: the task has its own seed). */
typedef struct {
    const RepoTaskSpec *spec;
    uint64_t seed;
} TaskBatches;

/* PretrainBatchFn of TaskBatches: B examples of T = spec->length tokens. */
static void task_batch(void *source, Rng *rng, int step, int B, int T, int *ids, int *targets)
{
    (void)rng;
    (void)T;
    const TaskBatches *t = source;
    make_batch(t->spec, t->seed, (long)(step - 1) * B, B, NULL, ids, targets, NULL, NULL, NULL);
}

int repo_train(Model *m, RepoMethod method, const RepoTaskSpec *spec, const RepoTrainOptions *o,
               FILE *log, float *final_loss, SrError *err)
{
    if (check_fit(m, spec, o->batch, NULL, err)) return -1;
    RepoRun run;
    if (repo_run_init(&run, method, m, err)) {
        repo_run_free(&run);
        return -1;
    }
    PretrainConfig c = {.objective = PRETRAIN_CAUSAL, .steps = o->steps, .batch = o->batch,
                        .seq_len = spec->length, .warmup = o->warmup, .lr = o->lr,
                        .min_lr = o->min_lr, .weight_decay = o->weight_decay, .clip = o->clip,
                        .seed = o->seed, .progress_every = o->steps / 10 > 0 ? o->steps / 10 : 1};
    PretrainPositions pos = {run.plan, run.zeros};
    TaskBatches batches = {spec, o->seed};
    PretrainResult result;
    int rc = pretrain_run(m, &c, &pos, task_batch, &batches, log, &result, err);
    if (final_loss) *final_loss = result.final_loss;
    repo_run_free(&run);
    return rc;
}

/* ---- accuracy ------------------------------------------------------------------- */

int repo_count_correct(const float *logits, int B, int T, int V, const int *answer_pos,
                       const int *answers)
{
    int correct = 0;
    for (int b = 0; b < B; b++) {
        if (answers[b] < 0) continue;
        const float *row = logits + ((size_t)b * T + answer_pos[b]) * V;
        int best = 0;
        for (int v = 1; v < V; v++)
            if (row[v] > row[best]) best = v;
        correct += best == answers[b];
    }
    return correct;
}

int repo_evaluate(Model *m, RepoMethod method, const RepoTaskSpec *spec, uint64_t seed, int n,
                  const int *map, long *correct, SrError *err)
{
    *correct = 0;
    int B = m->max_batch < n ? m->max_batch : n;
    if (n < 1) return sr_fail(err, "no examples to evaluate");
    if (check_fit(m, spec, B, map, err)) return -1;
    RepoRun run;
    if (repo_run_init(&run, method, m, err)) return -1;
    int T = spec->length;
    int *ids = malloc(sizeof(int) * (size_t)B * T), *targets = malloc(sizeof(int) * (size_t)B * T);
    int *pos = malloc(sizeof(int) * B), *ans = malloc(sizeof(int) * B);
    int rc = 0;
    if (!ids || !targets || !pos || !ans) rc = sr_fail(err, "out of memory");
    for (long first = 0; first < n && rc == 0; first += B) {
        int rows = n - first < B ? (int)(n - first) : B;
        make_batch(spec, seed, first, rows, map, ids, targets, pos, ans, NULL);
        ModelInput in = {.B = rows, .T = T, .ids = ids, .want_logits = 1};
        repo_run_apply(&run, &in);
        if (model_forward(m, &in, err)) rc = -1;
        else *correct += repo_count_correct(m->a.logits, rows, T, m->cfg.vocab_size, pos, ans);
    }
    free(ids);
    free(targets);
    free(pos);
    free(ans);
    repo_run_free(&run);
    return rc;
}

void repo_acc_write_header(FILE *out)
{
    fprintf(out, "task,method,train_length,length,depth,n,correct,accuracy\n");
}

void repo_acc_write_row(FILE *out, const RepoAccRow *r)
{
    fprintf(out, "%s,%s,%d,%d,%.4g,%ld,%ld,%.4f\n", r->task, r->method, r->train_length, r->length,
            r->depth, r->n, r->correct, r->n > 0 ? (double)r->correct / (double)r->n : 0.0);
}

/* ---- z ----------------------------------------------------------------------------- */

void repo_write_z_csv(FILE *out, const Model *m, int b, const int *ids, int T,
                      const Tokenizer *tok, const RepeatLayout *lay, int header)
{
    int H = m->cfg.n_heads;
    if (header) fprintf(out, "layer,head,index,token,copy,word,z\n");
    for (int l = 0; l < m->cfg.n_layers; l++) {
        const float *z = model_repo_positions(m, l);
        if (!z) continue;
        z += (size_t)b * T * H;
        for (int h = 0; h < H; h++)
            for (int t = 0; t < T; t++) {
                const char *word = tok ? tokenizer_word(tok, ids[t]) : NULL;
                fprintf(out, "%d,%d,%d,", l, h, t);
                csv_write_field(out, word ? word : "<unk>");
                fprintf(out, ",%d,%d,%.6g\n", lay ? lay->copy[t] : -1, lay ? lay->word[t] : -1,
                        (double)z[(size_t)t * H + h]);
            }
    }
}

void repo_z_range(const Model *m, double *range, double *range_max)
{
    int B = m->in.B, T = m->in.T, H = m->cfg.n_heads;
    for (int l = 0; l < m->cfg.n_layers; l++) {
        const float *z = l < m->n_run ? model_repo_positions(m, l) : NULL;
        range[l] = range_max[l] = NAN;
        if (!z) continue;
        double sum = 0.0, most = 0.0;
        for (int b = 0; b < B; b++)
            for (int h = 0; h < H; h++) {
                float lo = INFINITY, hi = -INFINITY;
                for (int t = 0; t < T; t++) {
                    float v = z[((size_t)b * T + t) * H + h];
                    if (v < lo) lo = v;
                    if (v > hi) hi = v;
                }
                sum += hi - lo;
                if (hi - lo > most) most = hi - lo;
            }
        range[l] = sum / ((double)B * H);
        range_max[l] = most;
    }
}

/* ---- attention on the needle ------------------------------------------------------- */

int repo_needle_attention(Model *m, RepoMethod method, const RepoTaskSpec *spec, uint64_t seed,
                          int n, int window, const int *map, double *needle_mass,
                          double *near_mass, double *near_tokens, SrError *err)
{
    int L = m->cfg.n_layers, H = m->cfg.n_heads;
    for (int l = 0; l < L; l++) needle_mass[l] = near_mass[l] = 0.0;
    *near_tokens = 0.0;
    int B = m->max_batch < n ? m->max_batch : n;
    if (n < 1) return sr_fail(err, "no examples to measure");
    if (check_fit(m, spec, B, map, err)) return -1;
    RepoRun run;
    if (repo_run_init(&run, method, m, err)) return -1;
    int T = spec->length;
    int *ids = malloc(sizeof(int) * (size_t)B * T), *targets = malloc(sizeof(int) * (size_t)B * T);
    RepoExample *info = malloc(sizeof(RepoExample) * B);
    int rc = 0;
    if (!ids || !targets || !info) rc = sr_fail(err, "out of memory");
    for (long first = 0; first < n && rc == 0; first += B) {
        int rows = n - first < B ? (int)(n - first) : B;
        make_batch(spec, seed, first, rows, map, ids, targets, NULL, NULL, info);
        ModelInput in = {.B = rows, .T = T, .ids = ids};
        repo_run_apply(&run, &in);
        if (model_forward(m, &in, err)) {
            rc = -1;
            break;
        }
        for (int b = 0; b < rows; b++) {
            const RepoExample *ex = &info[b];
            int ev0 = ex->evidence_start, ev1 = ev0 + ex->evidence_len;
            int ctx0 = ex->context_start, ctx1 = ex->context_start + ex->context_len;
            int lo = ev0 - window < ctx0 ? ctx0 : ev0 - window;
            int hi = ev1 + window > ctx1 ? ctx1 : ev1 + window;
            *near_tokens += (ev0 - lo) + (hi - ev1);
            for (int l = 0; l < L; l++) {
                const float *att = model_attention(m, l);
                for (int h = 0; h < H; h++) {
                    const float *row = att + (((size_t)b * H + h) * T + ex->answer_pos) * T;
                    double on = 0.0, near = 0.0;
                    for (int s = ev0; s < ev1; s++) on += row[s];
                    for (int s = lo; s < ev0; s++) near += row[s];
                    for (int s = ev1; s < hi; s++) near += row[s];
                    needle_mass[l] += on;
                    near_mass[l] += near;
                }
            }
        }
    }
    if (rc == 0) {
        for (int l = 0; l < L; l++) {
            needle_mass[l] /= (double)n * H;
            near_mass[l] /= (double)n * H;
        }
        *near_tokens /= n;
    }
    free(ids);
    free(targets);
    free(info);
    repo_run_free(&run);
    return rc;
}

/* ---- a repeated sentence ------------------------------------------------------------ */

/* The statistics of repo_repeat_stats from a position per token z (T). */
static void repeat_stats_of(const RepeatLayout *lay, const double *z, RepoRepeatStats *st)
{
    int n = lay->n, k = lay->k;
    double gap = 0.0, shift = 0.0, extent = 0.0, overlap = 0.0, first = 0.0, later = 0.0;
    long n_gap = 0, n_shift = 0, n_first = 0, n_later = 0;
    double sum = 0.0, sq = 0.0;
    for (int c = 0; c < k; c++) {
        double lo = INFINITY, hi = -INFINITY;
        for (int i = 0; i < n; i++) {
            double v = z[lay->copy_start[c] + i];
            sum += v;
            sq += v * v;
            if (v < lo) lo = v;
            if (v > hi) hi = v;
            for (int c2 = c + 1; c2 < k; c2++) {
                double d = fabs(z[lay->copy_start[c2] + i] - v);
                gap += d;
                n_gap++;
                if (c == 0) first += d, n_first++;
                else later += d, n_later++;
            }
            if (c + 1 < k) {
                shift += z[lay->copy_start[c + 1] + i] - v;
                n_shift++;
            }
        }
        extent += hi - lo;
        if (c + 1 < k) {
            double lo2 = INFINITY, hi2 = -INFINITY;
            for (int i = 0; i < n; i++) {
                double v = z[lay->copy_start[c + 1] + i];
                if (v < lo2) lo2 = v;
                if (v > hi2) hi2 = v;
            }
            double inter = fmin(hi, hi2) - fmax(lo, lo2);
            double uni = fmax(hi, hi2) - fmin(lo, lo2);
            overlap += uni > 0.0 ? (inter > 0.0 ? inter / uni : 0.0) : 1.0;
        }
    }
    double count = (double)n * k, mean = sum / count;
    st->same_word_gap = n_gap ? gap / n_gap : 0.0;
    st->first_gap = n_first ? first / n_first : 0.0;
    st->later_gap = n_later ? later / n_later : 0.0;
    st->copy_shift = n_shift ? shift / n_shift : 0.0;
    st->z_spread = sqrt(fmax(0.0, sq / count - mean * mean));
    st->copy_extent = extent / k;
    st->overlap = k > 1 ? overlap / (k - 1) : 0.0;
}

void repo_repeat_stats(const Model *m, int layer, int head, const RepeatLayout *lay,
                       RepoRepeatStats *st)
{
    int H = m->cfg.n_heads;
    const float *z = model_repo_positions(m, layer);
    double *v = malloc(sizeof(double) * lay->T);
    memset(st, 0, sizeof *st);
    if (!z || !v) {
        free(v);
        return;
    }
    for (int t = 0; t < lay->T; t++) v[t] = z[(size_t)t * H + head];
    repeat_stats_of(lay, v, st);
    free(v);
}

void repo_repeat_stats_index(const RepeatLayout *lay, RepoRepeatStats *st)
{
    double *v = malloc(sizeof(double) * lay->T);
    memset(st, 0, sizeof *st);
    if (!v) return;
    for (int t = 0; t < lay->T; t++) v[t] = lay->positions[t];
    repeat_stats_of(lay, v, st);
    free(v);
}
