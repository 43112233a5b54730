/* cmd_repo_eval.c — `seqrep repo-eval`: the RePo experiments. Trains a
 * tiny model per position method on a task (or takes checkpoints) and writes
 * the accuracy per method, length and depth as CSV; with --figures also the
 * data of the RePo figures. (`seqrep repo-positions` is cmd_repo_positions.c.) */
#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/atomic_file.h"
#include "base/int_list.h"
#include "cli/repo/repo_commands.h"
#include "data/dataset.h"
#include "engine/model.h"
#include "engine/threads.h"
#include "formats/checkpoint.h"
#include "options/args.h"
#include "options/help_text.h"
#include "options/rows.h"
#include "repo/repo_eval.h"
#include "repo/repo_tasks.h"
#include "runs/manifest.h"

#define MAX_LIST 32

/* The methods to run, each trained here (path NULL) or loaded from path. */
typedef struct {
    RepoMethod method[REPO_N_METHODS];
    const char *path[REPO_N_METHODS];
    char *paths_text;  /* owned copy the paths point into */
    int n;
} MethodList;

typedef struct {
    const char *task, *out, *methods, *models, *lengths, *depths, *save_dir, *figures;
    int train_length, examples, steps, batch, warmup, layers, d_model, heads, d_ff, repo_from;
    int pairs, rows, cols, queries, eval_batch, figure_examples, seed, threads, quiet;
    float lr, min_lr, weight_decay, clip;
    /* parsed from the options above */
    RepoTaskKind kind;
    int lengths_list[MAX_LIST], n_lengths, n_depths;
    double depths_list[MAX_LIST];
    int max_len;                 /* the longest sequence: the models are sized for it */
    char default_lengths[64];    /* 1, 2 and 4 x the training length */
    MethodList list;
    RepoTaskSpec train, eval;    /* training examples (several queries), evaluation (one) */
} EvalOptions;

/* The outputs, gathered in memory and written at the end: the accuracy CSV,
 * the figure data, the manifest, the mean accuracy table. */
typedef struct {
    char *csv_text, *att_text, *z_text, *range_text;
    size_t csv_len, att_len, z_len, range_len;
    FILE *csv, *att, *zf, *rf;
    cJSON *manifest, *trained_json;
    double mean[REPO_N_METHODS][MAX_LIST];
    Tokenizer task_tok;
} EvalOutputs;

/* One method's model ready to evaluate: loaded or trained here. */
typedef struct {
    Model model;
    Tokenizer tok;               /* a checkpoint's vocabulary */
    int map[REPO_VOCAB_SIZE], *use_map;
    int train_len;
    float loss;                  /* final training loss (trained here) */
} MethodModel;

/* Parse --lengths, a comma list of positive integers, into out (at most
 * MAX_LIST), with the one list parser of base/int_list.h. */
static int parse_int_list(const char *cmd, const char *opt, const char *text, int *out, int *n)
{
    IntListRules rules = {.word = "length", .min_value = 1, .max_value = 1000000,
                          .max_values = MAX_LIST};
    int *values = NULL;
    SrError err;
    if (int_list_parse(text, &rules, &values, n, NULL, &err)) return args_error(cmd, "--%s: %s", opt, err.msg);
    memcpy(out, values, sizeof(int) * (size_t)*n);
    free(values);
    return 0;
}

/* Parse a comma list of depths in 0..1 into out (at most MAX_LIST). */
static int parse_depth_list(const char *cmd, const char *text, double *out, int *n)
{
    *n = 0;
    const char *p = text;
    while (*p) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || (*end && *end != ',') || !(v >= 0.0 && v <= 1.0))
            return args_error(cmd, "--depths '%s': expected a comma list of numbers in 0..1", text);
        if (*n == MAX_LIST) return args_error(cmd, "--depths: at most %d values", MAX_LIST);
        out[(*n)++] = v;
        p = *end ? end + 1 : end;
    }
    if (*n == 0) return args_error(cmd, "--depths is empty");
    return 0;
}

/* Parse "--models rope=a.st,repo=b.st" into list. */
static int parse_models(const char *cmd, const char *text, MethodList *list)
{
    list->paths_text = strdup(text);
    if (!list->paths_text) return args_error(cmd, "out of memory");
    char *p = list->paths_text;
    while (p && *p) {
        char *comma = strchr(p, ',');
        if (comma) *comma = 0;
        char *eq = strchr(p, '=');
        if (!eq || eq == p || !eq[1])
            return args_error(cmd, "--models '%s': expected METHOD=CHECKPOINT items", text);
        *eq = 0;
        RepoMethod m;
        if (repo_method_parse(p, &m))
            return args_error(cmd, "--models: unknown method '%s' (use rope, nope, const, hybrid, "
                              "repo)", p);
        for (int i = 0; i < list->n; i++)
            if (list->method[i] == m) return args_error(cmd, "--models: method '%s' twice", p);
        if (list->n == REPO_N_METHODS) return args_error(cmd, "--models: too many items");
        list->method[list->n] = m;
        list->path[list->n++] = eq + 1;
        p = comma ? comma + 1 : NULL;
    }
    return 0;
}

/* Close a memory stream and write its text to path atomically. */
static int flush_stream(FILE *f, char **text, const char *path, SrError *err)
{
    fclose(f);
    if (!*text) return sr_fail(err, "out of memory");
    int rc = write_file_atomic(path, *text, err);
    free(*text);
    *text = NULL;
    return rc;
}

/* "dir/task-suffix" into buf. */
static void figure_path(char *buf, size_t cap, const char *dir, const char *task, const char *suffix)
{
    snprintf(buf, cap, "%s/%s-%s", dir, task, suffix);
}

static const char *CMD = "repo-eval";

/* The training length when --train-length is not given: a table needs room
 * for its header and rows. */
static int default_train_length(RepoTaskKind kind)
{
    return kind == REPO_TASK_TABLE ? 48 : 32;
}

/* The queries of a training example when --queries is not given. */
static int default_train_queries(RepoTaskKind kind)
{
    return kind == REPO_TASK_NEEDLE ? 1 : 4;
}

/* The options when none is given (what --help says); -1 = derived from
 * others or from the task (see parse_experiment). */
static EvalOptions eval_defaults(void)
{
    const RepoTaskSpec task = repo_task_defaults(REPO_TASK_KV, 0); /* the same for every kind */
    return (EvalOptions){.methods = "rope,nope,const,hybrid,repo", .depths = "0,0.25,0.5,0.75,1",
                         .train_length = -1, .examples = 50, .steps = 2000, .batch = 16,
                         .warmup = -1, .layers = 4, .d_model = 64, .heads = 4, .d_ff = 176,
                         .repo_from = -1, .pairs = task.n_pairs, .rows = task.n_rows,
                         .cols = task.n_cols, .queries = -1, .eval_batch = 8,
                         .figure_examples = 32, .seed = 1, .lr = 1e-2f, .min_lr = -1.0f,
                         .weight_decay = 0.1f, .clip = 1.0f};
}

/* The checks of the parsed options that need neither the task nor a file,
 * and the schedule's derived defaults. 0, or 2 after the error line. */
static int check_options(const ArgSpec *specs, int n, EvalOptions *o)
{
    if (o->d_model % 8) return args_error(CMD, "--d-model %d must be a multiple of 8 (RePo uses d/8)", o->d_model);
    if (o->d_model % o->heads || (o->d_model / o->heads) % 2)
        return args_error(CMD, "--d-model %d must split into --heads %d of even size", o->d_model,
                          o->heads);
    if (o->repo_from != -1 && (o->repo_from < 0 || o->repo_from >= o->layers))
        return args_error(CMD, "--repo-from %d is outside 0..%d (the model's layers)", o->repo_from,
                          o->layers - 1);
    if (option_settle_schedule(CMD, o->lr, o->steps, &o->min_lr, &o->warmup)) return 2;
    if (args_given(specs, n, "methods") && o->models)
        return args_error(CMD, "give --methods (train here) or --models (checkpoints), not both");
    return 0;
}

/* Parse and check options; 0, 1 (help shown) or 2 (error printed). */
static int parse_options(int argc, char **argv, EvalOptions *o)
{
    *o = eval_defaults();
    HelpText h = {0};
    ArgSpec specs[] = {
        {.name = "task", .type = ARG_STRING, .value = &o->task, .required = 1,
         .help = "kv, needle or table"},
        {.name = "out", .type = ARG_STRING, .value = &o->out, .required = 1,
         .help = "accuracy CSV to write"},
        {.name = "methods", .type = ARG_STRING, .value = &o->methods,
         .help = help_text(&h, "methods to train (default %s)", o->methods)},
        {.name = "models", .type = ARG_STRING, .value = &o->models,
         .help = "evaluate checkpoints instead: METHOD=CKPT,..."},
        {.name = "train-length", .type = ARG_INT, .value = &o->train_length, .min_int = 2,
         .help = help_text(&h, "training sequence length (default %d; table %d)",
                           default_train_length(REPO_TASK_KV), default_train_length(REPO_TASK_TABLE))},
        {.name = "lengths", .type = ARG_STRING, .value = &o->lengths,
         .help = "evaluation lengths (default 1, 2, 4 x train length)"},
        {.name = "depths", .type = ARG_STRING, .value = &o->depths,
         .help = help_text(&h, "evidence depths in 0..1 (default %s)", o->depths)},
        {.name = "examples", .type = ARG_INT, .value = &o->examples, .min_int = 1,
         .help = help_text(&h, "examples per length and depth (default %d)", o->examples)},
        {.name = "steps", .type = ARG_INT, .value = &o->steps, .min_int = 1,
         .help = help_text(&h, "training steps per method (default %d)", o->steps)},
        {.name = "batch", .type = ARG_INT, .value = &o->batch, .min_int = 1,
         .help = help_text(&h, "training batch (default %d)", o->batch)},
        option_lr(&o->lr, help_text(&h, "peak learning rate (default %s)",
                                    help_number_e(&h, o->lr))),
        option_min_lr(&o->min_lr),
        option_warmup(&o->warmup),
        {.name = "weight-decay", .type = ARG_FLOAT, .value = &o->weight_decay,
         .help = help_text(&h, "AdamW decay (default %g)", (double)o->weight_decay)},
        {.name = "clip", .type = ARG_FLOAT, .value = &o->clip,
         .help = help_text(&h, "gradient-norm clip (default %g)", (double)o->clip)},
        {.name = "layers", .type = ARG_INT, .value = &o->layers, .min_int = 1,
         .help = help_text(&h, "transformer blocks (default %d)", o->layers)},
        {.name = "d-model", .type = ARG_INT, .value = &o->d_model, .min_int = 8,
         .help = help_text(&h, "model width, a multiple of 8 (default %d)", o->d_model)},
        {.name = "heads", .type = ARG_INT, .value = &o->heads, .min_int = 1,
         .help = help_text(&h, "attention heads (default %d)", o->heads)},
        {.name = "d-ff", .type = ARG_INT, .value = &o->d_ff, .min_int = 1,
         .help = help_text(&h, "SwiGLU width (default %d)", o->d_ff)},
        {.name = "repo-from", .type = ARG_INT, .value = &o->repo_from, .min_int = -1000000,
         .help = "first RePo layer (default ceil(layers/3))"},
        {.name = "pairs", .type = ARG_INT, .value = &o->pairs, .min_int = 1,
         .help = help_text(&h, "kv: key-value pairs (default %d)", o->pairs)},
        {.name = "rows", .type = ARG_INT, .value = &o->rows, .min_int = 1,
         .help = help_text(&h, "table: rows (default %d)", o->rows)},
        {.name = "cols", .type = ARG_INT, .value = &o->cols, .min_int = 1,
         .help = help_text(&h, "table: columns (default %d)", o->cols)},
        {.name = "queries", .type = ARG_INT, .value = &o->queries, .min_int = 1,
         .help = help_text(&h, "queries per training example (default kv/table %d, needle %d)",
                           default_train_queries(REPO_TASK_KV), default_train_queries(REPO_TASK_NEEDLE))},
        {.name = "eval-batch", .type = ARG_INT, .value = &o->eval_batch, .min_int = 1,
         .help = help_text(&h, "evaluation batch (default %d)", o->eval_batch)},
        {.name = "figure-examples", .type = ARG_INT, .value = &o->figure_examples, .min_int = 1,
         .help = help_text(&h, "examples per figure measurement (default %d)", o->figure_examples)},
        {.name = "save-dir", .type = ARG_STRING, .value = &o->save_dir,
         .help = "save each trained model as DIR/TASK-METHOD.safetensors"},
        {.name = "figures", .type = ARG_STRING, .value = &o->figures,
         .help = "write figure data DIR/TASK-{z,range,attention}.csv"},
        option_seed(&o->seed, help_text(&h, "random seed (default %d)", o->seed)),
        option_threads(&o->threads),
        option_quiet(&o->quiet, "no progress output"),
    };
    int rc = args_parse(CMD, "--task kv|needle|table --out FILE.csv [options]", specs,
                        ARGS_COUNT(specs), argc, argv, NULL, 0, NULL);
    if (rc) return rc;
    return check_options(specs, ARGS_COUNT(specs), o);
}

/* The task, the lengths and depths, the methods or checkpoints, and the
 * training and evaluation examples, checked up front; 0 or 2 (error printed). */
static int parse_experiment(EvalOptions *o)
{
    if (repo_task_parse(o->task, &o->kind))
        return args_error(CMD, "--task must be kv, needle or table, got '%s'", o->task);
    /* task-dependent defaults: a table needs room for its header and rows */
    if (o->train_length < 0) o->train_length = default_train_length(o->kind);
    snprintf(o->default_lengths, sizeof o->default_lengths, "%d,%d,%d", o->train_length,
             2 * o->train_length, 4 * o->train_length);
    if (!o->lengths) o->lengths = o->default_lengths;
    if (parse_int_list(CMD, "lengths", o->lengths, o->lengths_list, &o->n_lengths) ||
        parse_depth_list(CMD, o->depths, o->depths_list, &o->n_depths))
        return 2;
    for (int i = 1; i < o->n_lengths; i++)
        if (o->lengths_list[i] <= o->lengths_list[i - 1])
            return args_error(CMD, "--lengths must increase, got '%s'", o->lengths);
    SrError err;
    if (o->models) {
        if (parse_models(CMD, o->models, &o->list)) return 2;
    } else if (repo_method_list_parse(o->methods, o->list.method, &o->list.n, &err)) {
        return args_error(CMD, "--methods: %s", err.msg);
    }
    RepoTaskSpec *train = &o->train, *eval = &o->eval;
    *train = repo_task_defaults(o->kind, o->train_length);
    train->n_pairs = o->pairs;
    train->n_rows = o->rows;
    train->n_cols = o->cols;
    train->n_queries = o->queries > 0 ? o->queries : default_train_queries(o->kind);
    *eval = *train;
    eval->n_queries = 1;
    if (!o->models && repo_task_check(train, &err))
        return args_error(CMD, "training examples (--train-length %d, --queries %d): %s",
                          o->train_length, train->n_queries, err.msg);
    for (int i = 0; i < o->n_lengths; i++) {
        eval->length = o->lengths_list[i];
        if (repo_task_check(eval, &err)) return args_error(CMD, "--lengths: %s", err.msg);
    }
    int longest = o->lengths_list[o->n_lengths - 1];
    o->max_len = longest > o->train_length ? longest : o->train_length;
    return 0;
}

/* The accuracy of one method over every length and depth: CSV rows into
 * csv, the mean over depths per length into mean[]. */
static int evaluate_method(Model *m, RepoMethod method, const RepoTaskSpec *base, const int *lengths,
                           int n_lengths, const double *depths, int n_depths, int n_examples,
                           uint64_t seed, const int *map, int train_len, FILE *csv, double *mean,
                           SrError *err)
{
    for (int i = 0; i < n_lengths; i++) {
        mean[i] = 0.0;
        for (int j = 0; j < n_depths; j++) {
            RepoTaskSpec s = *base;
            s.length = lengths[i];
            s.depth = depths[j];
            long correct;
            if (repo_evaluate(m, method, &s, seed, n_examples, map, &correct, err)) return -1;
            RepoAccRow row = {.task = repo_task_name(s.kind), .method = repo_method_name(method),
                              .train_length = train_len, .length = s.length, .depth = s.depth,
                              .n = n_examples, .correct = correct};
            repo_acc_write_row(csv, &row);
            mean[i] += (double)correct / n_examples / n_depths;
        }
    }
    return 0;
}

/* Figure data of one method: attention on the evidence per layer and
 * length (every method), z of one example and the z range per length (RePo
 * only). */
static int figure_data(Model *m, RepoMethod method, const RepoTaskSpec *base, const int *lengths,
                       int n_lengths, int n_examples, uint64_t seed, const int *map,
                       const Tokenizer *tok, FILE *att_csv, FILE *z_csv, FILE *range_csv,
                       SrError *err)
{
    int L = m->cfg.n_layers;
    double needle[REPO_MAX_LAYERS], near[REPO_MAX_LAYERS], near_tokens;
    for (int i = 0; i < n_lengths; i++) {
        RepoTaskSpec s = *base;
        s.length = lengths[i];
        s.depth = -1.0;
        if (repo_needle_attention(m, method, &s, seed, n_examples, 4, map, needle, near,
                                  &near_tokens, err))
            return -1;
        for (int l = 0; l < L; l++)
            fprintf(att_csv, "%s,%s,%d,%d,%.6f,%.6f,4,%.3f\n", repo_task_name(s.kind),
                    repo_method_name(method), l, s.length, needle[l], near[l], near_tokens);
    }
    if (method != REPO_METHOD_REPO) return 0;
    RepoRun run;
    if (repo_run_init(&run, method, m, err)) return -1;
    int max_len = lengths[n_lengths - 1];
    int *ids = malloc(sizeof(int) * (size_t)m->max_batch * max_len);
    int *targets = malloc(sizeof(int) * (size_t)max_len);
    int rc = ids && targets ? 0 : sr_fail(err, "out of memory");
    for (int i = 0; i < n_lengths && rc == 0; i++) {
        RepoTaskSpec s = *base;
        s.length = lengths[i];
        s.depth = -1.0;
        int B = n_examples < m->max_batch ? n_examples : m->max_batch;
        for (int b = 0; b < B; b++) {
            int *row = ids + (size_t)b * s.length;
            repo_task_example(&s, seed + 17, b, row, targets, NULL);
            if (map)
                for (int t = 0; t < s.length; t++) row[t] = map[row[t]];
        }
        ModelInput in = {.B = B, .T = s.length, .ids = ids};
        repo_run_apply(&run, &in);
        if (model_forward(m, &in, err)) {
            rc = -1;
            break;
        }
        double range[REPO_MAX_LAYERS], most[REPO_MAX_LAYERS];
        repo_z_range(m, range, most);
        for (int l = 0; l < L; l++)
            if (!isnan(range[l]))
                fprintf(range_csv, "%s,%s,%d,%d,%.6f,%.6f,%d\n", repo_task_name(s.kind),
                        repo_method_name(method), l, s.length, range[l], most[l], s.length - 1);
        if (i == n_lengths - 1) { /* z of the first example at the longest length */
            RepoTaskSpec one = s;
            one.depth = 0.5;
            repo_task_example(&one, seed + 17, 0, ids, targets, NULL);
            if (map)
                for (int t = 0; t < one.length; t++) ids[t] = map[ids[t]];
            ModelInput in1 = {.B = 1, .T = one.length, .ids = ids};
            repo_run_apply(&run, &in1);
            if (model_forward(m, &in1, err)) rc = -1;
            else repo_write_z_csv(z_csv, m, 0, ids, one.length, tok, NULL, 0);
        }
    }
    free(ids);
    free(targets);
    repo_run_free(&run);
    return rc;
}

/* Save a model trained here as DIR/TASK-METHOD.safetensors. */
static int save_trained(const char *dir, const Model *m, RepoMethod method, const RepoTaskSpec *train,
                        const Tokenizer *tok, int argc, char **argv, const EvalOptions *o,
                        float loss, SrError *err)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s-%s.safetensors", dir, repo_task_name(train->kind),
             repo_method_name(method));
    cJSON *man = manifest_begin(argc, argv, (unsigned long long)o->seed);
    cJSON_AddStringToObject(man, "objective", "repo-task");
    cJSON_AddStringToObject(man, "tokenizer", "word");
    cJSON_AddStringToObject(man, "task", repo_task_name(train->kind));
    cJSON_AddStringToObject(man, "positions", repo_method_name(method));
    if (m->cfg.repo) cJSON_AddNumberToObject(man, "repo_from", m->cfg.repo_from);
    cJSON_AddNumberToObject(man, "train_length", train->length);
    cJSON_AddNumberToObject(man, "queries", train->n_queries);
    cJSON_AddNumberToObject(man, "steps", o->steps);
    cJSON_AddNumberToObject(man, "batch", o->batch);
    cJSON_AddNumberToObject(man, "lr", o->lr);
    cJSON_AddNumberToObject(man, "final_train_loss", loss);
    char *text = cJSON_PrintUnformatted(man);
    cJSON_Delete(man);
    int rc = text ? checkpoint_save(path, m, (const char *const *)tok->words, tok->n_words, text, err)
                  : sr_fail(err, "out of memory");
    free(text);
    return rc;
}

/* Open the in-memory outputs, the manifest, the task vocabulary and the
 * directories asked for; 0, or 2 after the error line. */
static int open_outputs(int argc, char **argv, const EvalOptions *o, EvalOutputs *out)
{
    out->csv = open_memstream(&out->csv_text, &out->csv_len);
    if (o->figures) {
        out->att = open_memstream(&out->att_text, &out->att_len);
        out->zf = open_memstream(&out->z_text, &out->z_len);
        out->rf = open_memstream(&out->range_text, &out->range_len);
    }
    out->manifest = manifest_begin(argc, argv, (unsigned long long)o->seed);
    out->trained_json = cJSON_AddArrayToObject(out->manifest, "methods");
    if (!out->csv || (o->figures && (!out->att || !out->zf || !out->rf)))
        return args_error(CMD, "out of memory");
    SrError err;
    if (repo_task_tokenizer(&out->task_tok, &err) ||
        (o->save_dir && dataset_make_dir(o->save_dir, &err)) ||
        (o->figures && dataset_make_dir(o->figures, &err)))
        return args_error(CMD, "%s", err.msg);
    repo_acc_write_header(out->csv);
    if (o->figures) {
        fprintf(out->att, "task,method,layer,length,needle_mass,near_mass,needle_tokens,near_tokens\n");
        fprintf(out->zf, "layer,head,index,token,copy,word,z\n");
        fprintf(out->rf, "task,method,layer,length,z_range_mean,z_range_max,index_range\n");
    }
    return 0;
}

/* Load checkpoint `path` for method, with the map of the task's words into
 * its vocabulary. 0, or -1 with err filled. */
static int load_method_model(const EvalOptions *o, RepoMethod method, const char *path,
                             MethodModel *mm, SrError *err)
{
    if (repo_load_model(path, method, o->eval_batch, o->max_len, &mm->model, &mm->tok,
                        &mm->train_len, err))
        return -1;
    int missing = repo_task_map_vocab(&mm->tok, mm->map);
    mm->use_map = mm->map;
    if (missing == REPO_VOCAB_SIZE - TOK_N_SPECIAL)
        return sr_fail(err, "%s: its vocabulary has none of the task's words (train it on "
                       "`seqrep gen-repo` output)", path);
    if (missing && !o->quiet)
        fprintf(stderr, "note: %s lacks %d of the task's words; answers it lacks "
                "count as wrong\n", path, missing);
    return 0;
}

/* Train a tiny model of method on the training examples (saved in --save-dir
 * when asked), sized for evaluation afterwards. 0, or -1 with err filled. */
static int train_method_model(int argc, char **argv, const EvalOptions *o, RepoMethod method,
                              const Tokenizer *task_tok, MethodModel *mm, SrError *err)
{
    ModelConfig cfg = {.vocab_size = REPO_VOCAB_SIZE, .d_model = o->d_model,
                       .n_layers = o->layers, .n_heads = o->heads, .d_ff = o->d_ff,
                       .max_seq_len = o->train_length, .rope_theta = 10000.0f,
                       .norm_eps = 1e-5f, .tied = 1};
    RepoTrainOptions t = {.steps = o->steps, .batch = o->batch, .warmup = o->warmup,
                          .lr = o->lr, .min_lr = o->min_lr, .weight_decay = o->weight_decay,
                          .clip = o->clip, .seed = (uint64_t)o->seed};
    Model trained = {0};
    mm->train_len = o->train_length;
    if (!o->quiet) fprintf(stderr, "%s: training %s\n", o->task, repo_method_name(method));
    int rc = -1;
    if (repo_method_config(method, o->repo_from, &cfg, err) == 0 &&
        model_create(&trained, &cfg, o->batch, o->train_length, err) == 0) {
        model_init_weights(&trained, (unsigned long long)o->seed);
        rc = repo_train(&trained, method, &o->train, &t, o->quiet ? NULL : stderr, &mm->loss,
                        err) == 0 &&
                     (!o->save_dir || save_trained(o->save_dir, &trained, method, &o->train,
                                                   task_tok, argc, argv, o, mm->loss, err) == 0) &&
                     repo_model_resize(&trained, o->eval_batch, o->max_len, &mm->model, err) == 0
                 ? 0
                 : -1;
    }
    model_free(&trained);
    return rc;
}

/* Method k of the list: its model (loaded or trained), its accuracy rows,
 * its figure data, its entry in the manifest. 0, or -1 with err filled. */
static int run_method(int argc, char **argv, const EvalOptions *o, int k, EvalOutputs *out,
                      SrError *err)
{
    RepoMethod method = o->list.method[k];
    const char *path = o->list.path[k];
    uint64_t eval_seed = (uint64_t)o->seed * 1000003ULL + 7;
    MethodModel mm = {0};
    int ok = (path ? load_method_model(o, method, path, &mm, err)
                   : train_method_model(argc, argv, o, method, &out->task_tok, &mm, err)) == 0;
    if (ok)
        ok = evaluate_method(&mm.model, method, &o->eval, o->lengths_list, o->n_lengths,
                             o->depths_list, o->n_depths, o->examples, eval_seed, mm.use_map,
                             mm.train_len, out->csv, out->mean[k], err) == 0;
    if (ok && o->figures)
        ok = figure_data(&mm.model, method, &o->eval, o->lengths_list, o->n_lengths,
                         o->figure_examples, eval_seed + 1, mm.use_map,
                         mm.use_map ? &mm.tok : &out->task_tok, out->att, out->zf, out->rf,
                         err) == 0;
    if (ok) {
        cJSON *item = cJSON_CreateObject();
        cJSON_AddStringToObject(item, "method", repo_method_name(method));
        cJSON_AddStringToObject(item, "checkpoint", path ? path : "trained here");
        if (mm.model.cfg.repo) cJSON_AddNumberToObject(item, "repo_from", mm.model.cfg.repo_from);
        cJSON_AddNumberToObject(item, "train_length", mm.train_len);
        if (!path) cJSON_AddNumberToObject(item, "final_train_loss", mm.loss);
        cJSON_AddItemToArray(out->trained_json, item);
    }
    model_free(&mm.model);
    tokenizer_free(&mm.tok);
    return ok ? 0 : -1;
}

/* Write the CSV and its manifest, then the figure data; each stream is
 * closed on the way. 0, or -1 with err filled. */
static int write_outputs(const EvalOptions *o, EvalOutputs *out, SrError *err)
{
    cJSON_AddStringToObject(out->manifest, "task", o->task);
    cJSON_AddNumberToObject(out->manifest, "train_length", o->train_length);
    cJSON_AddNumberToObject(out->manifest, "train_queries", o->train.n_queries);
    cJSON_AddNumberToObject(out->manifest, "examples_per_cell", o->examples);
    cJSON_AddNumberToObject(out->manifest, "steps", o->steps);
    int written = flush_stream(out->csv, &out->csv_text, o->out, err) == 0 &&
                  manifest_write(o->out, out->manifest, NULL, err) == 0;
    out->csv = NULL;
    if (written && o->figures) {
        char path[1024];
        figure_path(path, sizeof path, o->figures, o->task, "attention.csv");
        written = flush_stream(out->att, &out->att_text, path, err) == 0;
        out->att = NULL;
        figure_path(path, sizeof path, o->figures, o->task, "z.csv");
        written = written && flush_stream(out->zf, &out->z_text, path, err) == 0;
        out->zf = NULL;
        figure_path(path, sizeof path, o->figures, o->task, "range.csv");
        written = written && flush_stream(out->rf, &out->range_text, path, err) == 0;
        out->rf = NULL;
    }
    return written ? 0 : -1;
}

/* The table on stdout: mean accuracy over depths per method and length. */
static void print_table(const EvalOptions *o, const EvalOutputs *out)
{
    printf("%s: accuracy (mean over %d depths, %d examples each)\n%-8s", o->task, o->n_depths,
           o->examples, "method");
    for (int i = 0; i < o->n_lengths; i++) printf(" %7d", o->lengths_list[i]);
    printf("\n");
    for (int k = 0; k < o->list.n; k++) {
        printf("%-8s", repo_method_name(o->list.method[k]));
        for (int i = 0; i < o->n_lengths; i++) printf(" %7.3f", out->mean[k][i]);
        printf("\n");
    }
}

/* Close what is still open and free the outputs. */
static void outputs_free(EvalOutputs *out)
{
    FILE *files[4] = {out->csv, out->att, out->zf, out->rf};
    for (int i = 0; i < 4; i++)
        if (files[i]) fclose(files[i]);
    free(out->csv_text);
    free(out->att_text);
    free(out->z_text);
    free(out->range_text);
    cJSON_Delete(out->manifest);
    tokenizer_free(&out->task_tok);
}

int cmd_repo_eval(int argc, char **argv)
{
    EvalOptions o;
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc == 1 ? 0 : rc;
    rc = parse_experiment(&o);
    if (rc) {
        free(o.list.paths_text);
        return rc;
    }
    threads_set(o.threads);
    EvalOutputs out = {0};
    SrError err;
    rc = open_outputs(argc, argv, &o, &out);
    for (int k = 0; k < o.list.n && rc == 0; k++)
        if (run_method(argc, argv, &o, k, &out, &err)) {
            fprintf(stderr, "seqrep %s: %s: %s\n", CMD, repo_method_name(o.list.method[k]), err.msg);
            rc = 2;
        }
    if (rc == 0 && write_outputs(&o, &out, &err)) rc = args_error(CMD, "%s", err.msg);
    if (rc == 0) print_table(&o, &out);
    outputs_free(&out);
    free(o.list.paths_text);
    return rc;
}
