/* cmd_finetune.c — `seqrep finetune`: fine-tune a pre-trained model for
 * sequence labelling with one method (causal, sr, unmask-full,
 * unmask-middle, encoder; see methods.h) and report strict span F1.
 *
 * The model is cut at --exit L, a linear head on the final-norm'd residual
 * stream at layer L reads each word's first piece in the last copy, and all
 * weights are trained, or with --adapter lora only LoRA adapters on the
 * attention projections and the head (finetune.h); --recipe names the
 * settings to start from (recipe.h). The test score is the one at the epoch
 * with the best dev F1. --save writes the head (and adapters) of that epoch
 * (formats/adapter.h); --load starts from such a file; --save-epochs DIR
 * writes that file for every epoch (epoch 0: before training; without LoRA
 * a whole checkpoint) with a series.json of their scores
 * (runs/snapshot_series.h).
 * The CSV has one row per split (dev, test) with the
 * method, r, exit layer, seed, precision / recall / F1, the training tokens
 * and seconds, and the analytic forward FLOPs of labelling that split once. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "base/atomic_file.h"
#include "base/job/interrupt.h"
#include "cli/common/cli_common.h"
#include "cli/label/label_commands.h"
#include "engine/threads.h"
#include "formats/adapter.h"
#include "formats/checkpoint.h"
#include "formats/hf/hf_config.h"
#include "label/cost.h"
#include "label/methods.h"
#include "label/readout.h"
#include "label/task.h"
#include "options/args.h"
#include "options/head_plan.h"
#include "options/help_text.h"
#include "options/rows.h"
#include "repeat/repeat.h"
#include "runs/manifest.h"
#include "runs/snapshot_series.h"
#include "train/finetune.h"
#include "train/recipe.h"

static const char *CMD = "finetune";
static const char *USAGE = "--model M --train F --dev F --test F --method METHOD --out run.csv "
                           "[--r R] [--exit L] [--recipe full|paper] [--adapter none|lora] "
                           "[--epochs E] [--lr LR] [--batch B] [--grad-accum N] [--seed S] "
                           "[--save FILE] [--save-epochs DIR] [--predictions FILE] "
                           "[--ablate-heads L.H,...] [--recompute]";

/* The options read as text, and --r, which applies to one method: as given
 * (or their defaults), turned into settings once the parse is over. */
typedef struct {
    const char *method, *bos, *sep, *positions, *adapter, *targets, *ablate;
    int r;
} FinetuneGiven;

/* The options of one fine-tuning run; fc holds the parsed training settings
 * (its exit layer is set once the model's depth is known). */
typedef struct {
    const char *model, *train, *dev, *test, *out, *predictions, *save, *load, *save_epochs;
    FinetuneGiven given;
    const char *recipe;    /* "full" or "paper" */
    char recipe_label[48]; /* recipe.h: the recipe, "+lora"/"+none" when --adapter changed it */
    int exit_layer;        /* as given: 0 = the model's depth */
    int lora_rank_given;   /* checked against the model's width once it is known */
    int seed, threads, quiet;
    int recompute;         /* keep each layer's input only (model_set_recompute) */
    FinetuneConfig fc;
} FinetuneOptions;

/* Everything a run holds: the task, the model, its mask plan, the result and
 * the forward FLOPs of labelling dev and test once. */
typedef struct {
    LabelTask task;
    Model model;
    MaskKind *plan; /* (n_layers of the model) */
    float *head_scale; /* (n_layers, n_heads) --ablate-heads; NULL = every head */
    char base_checksum[17]; /* of the model before training (adapter.h) */
    AdapterFile start;      /* --load: what the run starts from */
    TrainedWeights start_w; /* views into start */
    FinetuneResult res;
    double flops[2];
    FloorRun floor;         /* the largest step, what it trains, for the memory floor */
} FinetuneRun;

/* The recipe-controlled settings not given explicitly among specs[0..n)
 * taken from recipe o->recipe: fc holds the parsed values on entry. */
static int apply_recipe(const ArgSpec *specs, int n, FinetuneOptions *o)
{
    const char *adapter_text = o->given.adapter, *targets_text = o->given.targets;
    FinetuneConfig *fc = &o->fc, rc;
    if (recipe_apply(o->recipe, &rc))
        return args_error(CMD, "--recipe must be full or paper; got '%s'", o->recipe);
    if (!args_given(specs, n, "epochs")) fc->epochs = rc.epochs;
    if (!args_given(specs, n, "lr")) fc->lr = rc.lr;
    if (!args_given(specs, n, "batch")) fc->batch = rc.batch;
    if (!args_given(specs, n, "grad-accum")) fc->grad_accum = rc.grad_accum;
    if (!args_given(specs, n, "dropout")) fc->dropout = rc.dropout;
    if (!args_given(specs, n, "weight-decay")) fc->weight_decay = rc.weight_decay;
    if (!args_given(specs, n, "lora-rank")) fc->lora.rank = rc.lora.rank;
    if (!args_given(specs, n, "lora-alpha")) fc->lora.alpha = rc.lora.alpha;
    if (!args_given(specs, n, "lora-dropout")) fc->lora.dropout = rc.lora.dropout;
    fc->adapter = rc.adapter;
    if (adapter_text && adapter_parse(adapter_text, &fc->adapter))
        return args_error(CMD, "--adapter must be none or lora; got '%s'", adapter_text);
    SrError err;
    fc->lora.targets = rc.lora.targets;
    if (targets_text && lora_parse_targets(targets_text, &fc->lora.targets, &err))
        return args_error(CMD, "--lora-targets: %s", err.msg);
    const char *lora_rows[4] = {"lora-rank", "lora-alpha", "lora-dropout", "lora-targets"};
    for (int k = 0; k < 4; k++)
        if (fc->adapter != ADAPTER_LORA && args_given(specs, n, lora_rows[k]))
            return args_error(CMD, "--%s needs --adapter lora (or --recipe paper)", lora_rows[k]);
    if (!(fc->lora.alpha > 0.0f)) return args_error(CMD, "--lora-alpha must be positive");
    if (!(fc->lora.dropout >= 0.0f && fc->lora.dropout < 1.0f))
        return args_error(CMD, "--lora-dropout must be in [0, 1)");
    o->lora_rank_given = args_given(specs, n, "lora-rank");
    recipe_label(o->recipe, fc->adapter, o->recipe_label, sizeof o->recipe_label);
    return 0;
}

/* The options when none is given: finetune_defaults() (what --help says). */
static FinetuneOptions options_defaults(void)
{
    const FinetuneConfig d = finetune_defaults();
    return (FinetuneOptions){.seed = (int)d.seed, .recipe = "full", .fc = d,
                             .given = {.bos = repeat_bos_name(d.bos), .sep = repeat_sep_name(d.sep),
                                       .positions = repeat_positions_name(d.copy_positions)}};
}

/* After parsing: the method and its r, the texts turned into settings, the
 * recipe under the explicit options, and the checks that need no file. 0,
 * or 2 after the error line. */
static int settle_options(const ArgSpec *specs, int n, FinetuneOptions *o)
{
    FinetuneConfig *fc = &o->fc;
    if (method_parse(o->given.method, &fc->method))
        return args_error(CMD, "--method must be causal, sr, unmask-full, unmask-middle or encoder; "
                               "got '%s'", o->given.method);
    fc->r = args_given(specs, n, "r") ? o->given.r : method_default_r(fc->method);
    if (option_parse_bos(CMD, o->given.bos, &fc->bos)) return 2;
    if (option_parse_sep(CMD, o->given.sep, &fc->sep)) return 2;
    if (option_parse_copy_positions(CMD, o->given.positions, &fc->copy_positions)) return 2;
    if (apply_recipe(specs, n, o)) return 2;
    if (!(fc->lr > 0.0f)) return args_error(CMD, "--lr must be positive");
    if (!(fc->dropout >= 0.0f && fc->dropout < 1.0f)) return args_error(CMD, "--dropout must be in [0, 1)");
    if (fc->weight_decay < 0.0f) return args_error(CMD, "--weight-decay must not be negative");
    SrError err;
    if (method_plan(fc->method, fc->r, NULL, 0, &err)) return args_error(CMD, "%s", err.msg);
    fc->seed = (unsigned long long)o->seed;
    fc->log = o->quiet ? NULL : stderr;
    return 0;
}


enum { LORA_ROWS = 5 }; /* the rows of lora_rows */

/* The option rows (LORA_ROWS) of the adapters, --adapter and the LoRA
 * settings, into rows, their help lines in h. */
static void lora_rows(FinetuneOptions *o, HelpText *h, ArgSpec *rows)
{
    FinetuneConfig *fc = &o->fc;
    char targets[LORA_TARGETS_NAME];
    lora_targets_name(fc->lora.targets, targets);
    const ArgSpec table[LORA_ROWS] = {
        option_adapter(&o->given.adapter, "none: train every weight | lora: frozen base, adapters "
                                          "and head (default: the recipe's)"),
        option_lora_rank(&fc->lora.rank, help_text(h, "LoRA rank, 1..width (default %d)", fc->lora.rank)),
        option_lora_alpha(&fc->lora.alpha, help_text(h, "LoRA alpha: updates scaled by alpha / rank (default %g)",
                                                     (double)fc->lora.alpha)),
        option_lora_dropout(&fc->lora.dropout,
                            help_text(h, "dropout on the adapters' input (default %g)", (double)fc->lora.dropout)),
        option_lora_targets(&o->given.targets,
                            help_text(h, "projections with adapters, of q,k,v,o (default %s)", targets)),
    };
    memcpy(rows, table, sizeof table);
}

enum { FILE_ROWS = 4 }; /* the rows of file_rows */

/* The option rows (FILE_ROWS) of the files a run writes or starts from
 * beside --out: --save, --save-epochs, --load and --predictions. */
static void file_rows(FinetuneOptions *o, ArgSpec *rows)
{
    const ArgSpec table[FILE_ROWS] = {
        {.name = "save", .type = ARG_STRING, .value = &o->save,
         .help = "safetensors: head (and adapters) of the best epoch"},
        {.name = "save-epochs", .type = ARG_STRING, .value = &o->save_epochs,
         .help = "folder: every epoch's head and adapters (0 = before training), series.json"},
        {.name = "load", .type = ARG_STRING, .value = &o->load,
         .help = "start from a file --save wrote (same base model)"},
        {.name = "predictions", .type = ARG_STRING, .value = &o->predictions,
         .help = "CoNLL file: test word, gold, predicted"},
    };
    memcpy(rows, table, sizeof table);
}

/* Parse argv into o and check every value that needs no file: 0, 1 after
 * --help, 2 after the error line. */
static int parse_options(int argc, char **argv, FinetuneOptions *o)
{
    *o = options_defaults();
    FinetuneConfig *fc = &o->fc, paper;
    recipe_apply("paper", &paper);
    HelpText h = {0};
    const ArgSpec training[] = {
        {.name = "model", .type = ARG_STRING, .value = &o->model, .required = 1,
         .help = "pre-trained checkpoint (.safetensors) or Hugging Face model folder"},
        {.name = "train", .type = ARG_STRING, .value = &o->train, .required = 1,
         .help = "CoNLL training split"},
        {.name = "dev", .type = ARG_STRING, .value = &o->dev, .required = 1,
         .help = "CoNLL dev split (chooses the epoch)"},
        {.name = "test", .type = ARG_STRING, .value = &o->test, .required = 1,
         .help = "CoNLL test split"},
        {.name = "method", .type = ARG_STRING, .value = &o->given.method, .required = 1,
         .help = "causal | sr | unmask-full | unmask-middle | encoder"},
        {.name = "out", .type = ARG_STRING, .value = &o->out, .required = 1,
         .help = "CSV to write (with NAME.manifest.json beside it)"},
        {.name = "r", .type = ARG_INT, .value = &o->given.r,
         .help = help_text(&h, "repetitions for --method sr (default %d; other methods use 0)",
                           method_default_r(METHOD_SR))},
        {.name = "exit", .type = ARG_INT, .value = &o->exit_layer, .min_int = 1,
         .help = "read from layer L = 1..N, running only L layers (default N)"},
        option_recipe(&o->recipe,
                      help_text(&h, "full (default: every weight) | paper (LoRA, lr %s, %d epochs, "
                                    "batch %d x %d, weight decay %g); explicit options override it",
                                help_number_e(&h, paper.lr), paper.epochs, paper.batch,
                                paper.grad_accum, (double)paper.weight_decay)),
        {.name = "epochs", .type = ARG_INT, .value = &fc->epochs, .min_int = 1,
         .help = help_text(&h, "training epochs (default %d; paper %d)", fc->epochs, paper.epochs)},
        {.name = "lr", .type = ARG_FLOAT, .value = &fc->lr,
         .help = help_text(&h, "peak learning rate (default %s; paper %s)",
                           help_number_e(&h, fc->lr), help_number_e(&h, paper.lr))},
        {.name = "batch", .type = ARG_INT, .value = &fc->batch, .min_int = 1,
         .help = help_text(&h, "sentences per step (default %d)", fc->batch)},
        option_grad_accum(&fc->grad_accum, help_text(&h, "batches summed per update (default %d; "
                                                     "paper %d)",
                                                     fc->grad_accum, paper.grad_accum)),
        option_seed(&o->seed, help_text(&h, "seed: head init, order, dropout (default %d)",
                                        o->seed)),
        {.name = "dropout", .type = ARG_FLOAT, .value = &fc->dropout,
         .help = help_text(&h, "dropout on the head's input (default %g)", (double)fc->dropout)},
        {.name = "weight-decay", .type = ARG_FLOAT, .value = &fc->weight_decay,
         .help = help_text(&h, "AdamW decoupled decay (default %g; paper %g)",
                           (double)fc->weight_decay, (double)paper.weight_decay)},
    };
    const ArgSpec input[] = {
        option_bos(&o->given.bos,
                   help_text(&h, "none | once | per-copy (default %s, as the paper)", o->given.bos)),
        option_sep(&o->given.sep,
                   help_text(&h, "none | token (default %s, as the paper)", o->given.sep)),
        option_copy_positions(&o->given.positions),
        option_ablate_heads(&o->given.ablate),
        option_threads(&o->threads),
        option_quiet(&o->quiet, "no progress lines"),
        {.name = "recompute", .type = ARG_FLAG, .value = &o->recompute,
         .help = "keep each layer's input only and run each layer again in the backward: "
                 "less memory, more time, the same numbers"},
    };
    ArgSpec specs[ARGS_COUNT(training) + LORA_ROWS + FILE_ROWS + ARGS_COUNT(input)];
    const int n = ARGS_COUNT(specs);
    memcpy(specs, training, sizeof training);
    lora_rows(o, &h, specs + ARGS_COUNT(training));
    file_rows(o, specs + ARGS_COUNT(training) + LORA_ROWS);
    memcpy(specs + ARGS_COUNT(training) + LORA_ROWS + FILE_ROWS, input, sizeof input);
    int rc = args_parse(CMD, USAGE, specs, n, argc, argv, NULL, 0, NULL);
    if (rc) return rc;
    return settle_options(specs, n, o);
}

/* --load: read the file against the loaded model, check that it fits this
 * run (tags, adapter, LoRA settings) and make it the run's start. 0 or 2
 * after the error line. */
static int load_start(FinetuneOptions *o, FinetuneRun *run)
{
    SrError err;
    AdapterFile *a = &run->start;
    const LabelSet *ls = &run->task.labels;
    const LoraConfig *want = &o->fc.lora;
    if (adapter_read(o->load, &run->model, a, &err)) return args_error(CMD, "--load %s", err.msg);
    int same_tags = a->n_labels == ls->n;
    for (int k = 0; same_tags && k < ls->n; k++) same_tags = strcmp(a->labels[k], ls->names[k]) == 0;
    if (!same_tags)
        return args_error(CMD, "--load %s: its head is for other tags than %s's", o->load, o->train);
    if (a->has_lora != (o->fc.adapter == ADAPTER_LORA))
        return args_error(CMD, "--load %s: %s adapters, this run asks for --adapter %s", o->load,
                          a->has_lora ? "holds" : "holds no", adapter_name(o->fc.adapter));
    if (a->has_lora && (a->lora.rank != want->rank || a->lora.targets != want->targets ||
                        a->lora.alpha != want->alpha))
        return args_error(CMD, "--load %s: LoRA rank %d, alpha %g on other targets or settings "
                               "than this run's (rank %d, alpha %g)", o->load, a->lora.rank,
                          (double)a->lora.alpha, want->rank, (double)want->alpha);
    run->start_w = (TrainedWeights){.K = a->n_labels, .C = a->d_model, .W = a->head_W,
                                    .b = a->head_b, .lora = a->lora, .n_lora = a->n_lora,
                                    .lora_w = a->lora_w};
    o->fc.start = &run->start_w;
    return 0;
}

/* The run the memory floor describes: its largest step (each split's
 * sentences up to --batch, the longest input max_T), the layers run, what is
 * trained (the adapters and the head, or every weight and the head). */
static FloorRun floor_run(const FinetuneOptions *o, const FinetuneRun *run, int max_T)
{
    const FinetuneConfig *fc = &o->fc;
    const ModelConfig *c = &run->task.info.cfg;
    const int n_sents[3] = {run->task.train.n_sents, run->task.dev.n_sents, run->task.test.n_sents};
    int B = 1;
    for (int s = 0; s < 3; s++) {
        int held = n_sents[s] < fc->batch ? n_sents[s] : fc->batch; /* a step of split s */
        if (held > B) B = held;
    }
    size_t head = (size_t)run->task.labels.n * (size_t)(c->d_model + 1), lora = 0;
    if (fc->adapter == ADAPTER_LORA)
        lora = adapter_lora_floats_dims(&fc->lora, c->n_layers, c->d_model, model_q_dim(c),
                                        model_kv_dim(c));
    FloorRun f = run->floor;
    f.B = B, f.T = max_T, f.n_run = fc->exit_layer, f.with_lm_head = 0;
    f.recompute = o->recompute;
    MaskKind *plan = malloc(sizeof(MaskKind) * (size_t)c->n_layers);
    SrError err; /* the plan was checked when the options were read */
    f.sees_all = !plan || method_plan(fc->method, fc->r, plan, c->n_layers, &err) != 0;
    for (int l = 0; l < c->n_layers && !f.sees_all; l++) f.sees_all = plan[l] == MASK_BIDIRECTIONAL;
    free(plan);
    f.n_trained = head + (fc->adapter == ADAPTER_LORA ? lora : model_param_count(c));
    f.n_outside = head + lora;
    f.lora = fc->adapter == ADAPTER_LORA ? &fc->lora : NULL;
    return f;
}

/* Load the task, check the exit layer, warn about the objective and unknown
 * tags, load the model sized for the longest input and build the method's
 * mask plan. 0 or 2 after the error line. */
static int load_task_and_model(FinetuneOptions *o, FinetuneRun *run)
{
    SrError err;
    FinetuneConfig *fc = &o->fc;
    /* a Hugging Face folder: LoRA at any size; every weight (16 bytes a
     * parameter with gradients and AdamW moments) only up to 50M parameters */
    const size_t full_finetune_max_params = 50000000;
    if (hf_is_model_dir(o->model) && fc->adapter != ADAPTER_LORA) {
        HfConfig hc;
        if (hf_config_read(o->model, &hc, &err)) return args_error(CMD, "%s", err.msg);
        size_t n_params = model_param_count(&hc.cfg);
        if (n_params > full_finetune_max_params)
            return args_error(CMD, "%s: %.1fM parameters is too large for full fine-tuning here "
                              "(at most 50M); use --adapter lora", o->model, n_params / 1e6);
    }
    if (label_task_load(&run->task, o->model, o->train, o->dev, o->test, &err))
        return args_error(CMD, "%s", err.msg);
    run->floor.process = cli_process_bytes(); /* code, libraries, tokenizer, data */
    const ModelConfig cfg = run->task.info.cfg;
    const int N = cfg.n_layers;
    if (o->exit_layer > N)
        return args_error(CMD, "--exit %d is outside 1..%d (the model has %d layers)", o->exit_layer,
                          N, N);
    fc->exit_layer = o->exit_layer ? o->exit_layer : N;
    if (option_parse_ablate_heads(CMD, o->given.ablate, N, cfg.n_heads, &run->head_scale)) return 2;
    fc->head_scale = run->head_scale;
    if (o->recompute && fc->exit_layer == 1)
        return args_error(CMD, "--recompute: only one layer runs (%s), which a step keeps alone "
                          "anyway; leave --recompute out", N == 1 ? "the model has one" : "--exit 1");
    if (fc->adapter == ADAPTER_LORA && fc->lora.rank > cfg.d_model)
        return args_error(CMD, "--lora-rank %d is larger than the model's width %d (%s)",
                          fc->lora.rank, cfg.d_model, o->model);
    if (fc->method == METHOD_ENCODER && strcmp(run->task.objective, "mlm") != 0)
        fprintf(stderr, "seqrep %s: warning: method encoder on %s, whose pre-training objective is "
                        "'%s', not 'mlm'\n", CMD, o->model, run->task.objective);
    SplitPaths paths = {.train = o->train, .dev = o->dev, .test = o->test};
    cli_warn_unknown_tags(CMD, &run->task, paths);
    int max_T;
    if (cli_task_max_length(CMD, &run->task, &fc->r, 1, fc->bos, fc->sep, cfg.max_seq_len, &max_T))
        return 2;
    /* before the model is made: LoRA on a folder may keep BF16 (2 bytes a value, the least) */
    run->floor = floor_run(o, run, max_T);
    int least_bytes = fc->adapter == ADAPTER_LORA && hf_is_model_dir(o->model) ? 2 : 4;
    if (cli_check_memory(CMD, &cfg, least_bytes, &run->floor)) return 2;
    /* LoRA reads the base weights (BF16 / F16 stay as stored); full fine-tuning changes them.
     * A recomputing run loads for one position, then makes room for the batch with one
     * layer's activations: every layer's for the whole batch would not fit (model_resize). */
    int load_B = o->recompute ? 1 : fc->batch, load_T = o->recompute ? 1 : max_T;
    int rc = fc->adapter == ADAPTER_LORA
                 ? checkpoint_load(o->model, &run->model, load_B, load_T, NULL, &err)
                 : checkpoint_load_trainable(o->model, &run->model, load_B, load_T, NULL, &err);
    if (rc) return args_error(CMD, "%s", err.msg);
    if (o->recompute && model_resize(&run->model, fc->batch, max_T, 1, &err))
        return args_error(CMD, "--recompute: %s", err.msg);
    adapter_base_checksum(&run->model, run->base_checksum);
    if (o->load && load_start(o, run)) return 2;
    run->plan = malloc(sizeof(MaskKind) * (size_t)N);
    if (!run->plan || method_plan(fc->method, fc->r, run->plan, N, &err))
        return args_error(CMD, "%s", run->plan ? err.msg : "out of memory");
    return 0;
}

/* Fine-tune, then count the FLOPs of labelling dev and test once. 0 or 2
 * after the error line. */
static int run_finetune(const FinetuneOptions *o, FinetuneRun *run)
{
    const FinetuneConfig *fc = &o->fc;
    const LabelTask *task = &run->task;
    const ModelConfig *cfg = &task->info.cfg;
    SrError err;
    if (!o->quiet)
        fprintf(stderr, "seqrep %s: method %s, r = %d (k = %d copies), exit layer %d of %d; "
                        "%d / %d / %d sentences, %d tags, %d threads\n",
                CMD, method_name(fc->method), fc->r, fc->r + 1, fc->exit_layer, cfg->n_layers,
                task->train.n_sents, task->dev.n_sents, task->test.n_sents, task->labels.n,
                threads_count());
    if (!o->quiet && (fc->adapter == ADAPTER_LORA || fc->grad_accum > 1))
        fprintf(stderr, "seqrep %s: recipe %s: adapter %s (rank %d, alpha %g, dropout %g), "
                        "lr %g, batch %d x %d per update, weight decay %g, %d epochs\n",
                CMD, o->recipe_label, adapter_name(fc->adapter), fc->lora.rank,
                (double)fc->lora.alpha, (double)fc->lora.dropout, (double)fc->lr, fc->batch,
                fc->grad_accum, (double)fc->weight_decay, fc->epochs);
    LabelledSplit train = {.data = &task->train, .pieces = &task->train_p, .labels = task->train_y};
    LabelledSplit dev = {.data = &task->dev, .pieces = &task->dev_p, .labels = task->dev_y};
    LabelledSplit test = {.data = &task->test, .pieces = &task->test_p, .labels = task->test_y};
    if (finetune_run(&run->model, &task->labels, &train, &dev, &test, fc, &run->res, &err))
        return args_error(CMD, "%s", err.msg);
    ReadoutLayout lay = {.r = fc->r, .bos = fc->bos, .sep = fc->sep,
                         .copy_positions = fc->copy_positions};
    run->flops[0] = cost_data_flops(cfg, &task->dev_p, lay, fc->exit_layer, run->plan);
    run->flops[1] = cost_data_flops(cfg, &task->test_p, lay, fc->exit_layer, run->plan);
    if (!o->quiet)
        fprintf(stderr, "seqrep %s: best dev F1 %.2f at epoch %d; test F1 %.2f\n", CMD,
                run->res.dev.f1, run->res.best_epoch, run->res.test.f1);
    if (!o->quiet) cli_report_memory(CMD, &run->model, &run->floor);
    return 0;
}

/* The CSV: one row per split (dev, test). A new string (caller frees) or NULL
 * when out of memory. */
static char *csv_text(const FinetuneOptions *o, const FinetuneRun *run)
{
    const FinetuneConfig *fc = &o->fc;
    const FinetuneResult *res = &run->res;
    char *csv = NULL;
    size_t csv_len = 0;
    FILE *mem = open_memstream(&csv, &csv_len);
    if (!mem) return NULL;
    fprintf(mem, "method,r,exit,seed,split,precision,recall,f1,tp,n_pred,n_gold,epochs,best_epoch,"
                 "tokens,seconds,flops\n");
    for (int s = 0; s < 2; s++) {
        const SpanScores *sc = s == 0 ? &res->dev : &res->test;
        fprintf(mem, "%s,%d,%d,%d,%s,%.4f,%.4f,%.4f,%ld,%ld,%ld,%d,%d,%ld,%.3f,%.6g\n",
                method_name(fc->method), fc->r, fc->exit_layer, o->seed, s == 0 ? "dev" : "test",
                sc->precision, sc->recall, sc->f1, sc->counts.tp, sc->counts.n_pred,
                sc->counts.n_gold, fc->epochs, res->best_epoch, res->train_tokens,
                res->train_seconds, run->flops[s]);
    }
    if (fclose(mem) != 0) {
        free(csv);
        return NULL;
    }
    return csv;
}

/* The manifest: inputs, method and layout, training settings, the scores and
 * the history of every epoch (without "result", which manifest_write adds). */
static cJSON *finetune_manifest(int argc, char **argv, const FinetuneOptions *o,
                                const FinetuneRun *run)
{
    const FinetuneConfig *fc = &o->fc;
    const FinetuneResult *res = &run->res;
    const int N = run->task.info.cfg.n_layers;
    cJSON *manifest = manifest_begin(argc, argv, (unsigned long long)o->seed);
    manifest_add_file(manifest, "model", o->model);
    cJSON_AddStringToObject(manifest, "model_objective", run->task.objective);
    SplitPaths paths = {.train = o->train, .dev = o->dev, .test = o->test};
    manifest_add_splits(manifest, &run->task, paths, 0);
    cJSON_AddStringToObject(manifest, "method", method_name(fc->method));
    cJSON_AddNumberToObject(manifest, "r", fc->r);
    cJSON_AddNumberToObject(manifest, "exit", fc->exit_layer);
    cJSON_AddNumberToObject(manifest, "n_layers", N);
    cJSON *mask = cJSON_AddArrayToObject(manifest, "mask_plan");
    for (int l = 0; l < N; l++)
        cJSON_AddItemToArray(mask, cJSON_CreateString(run->plan[l] == MASK_CAUSAL ? "causal"
                                                                                 : "bidirectional"));
    cJSON_AddStringToObject(manifest, "bos", repeat_bos_name(fc->bos));
    cJSON_AddStringToObject(manifest, "sep", repeat_sep_name(fc->sep));
    cJSON_AddStringToObject(manifest, "copy_positions", repeat_positions_name(fc->copy_positions));
    cJSON_AddStringToObject(manifest, "ablate_heads", head_plan_name(o->given.ablate));
    cJSON_AddStringToObject(manifest, "head",
                            "linear on final-RMSNorm(res[exit]) at each word's first piece, "
                            "last copy; dropout before it");
    cJSON_AddStringToObject(manifest, "recipe", o->recipe_label);
    cJSON_AddStringToObject(manifest, "adapter", adapter_name(fc->adapter));
    if (fc->adapter == ADAPTER_LORA) {
        char targets[LORA_TARGETS_NAME];
        lora_targets_name(fc->lora.targets, targets);
        cJSON_AddNumberToObject(manifest, "lora_rank", fc->lora.rank);
        cJSON_AddNumberToObject(manifest, "lora_alpha", fc->lora.alpha);
        cJSON_AddNumberToObject(manifest, "lora_dropout", fc->lora.dropout);
        cJSON_AddStringToObject(manifest, "lora_targets", targets);
        cJSON_AddStringToObject(manifest, "frozen", "every base weight, the final norm included");
    }
    cJSON_AddNumberToObject(manifest, "grad_accum", fc->grad_accum);
    cJSON_AddBoolToObject(manifest, "recompute", o->recompute);
    cJSON_AddStringToObject(manifest, "base_checksum", run->base_checksum);
    if (o->save) cJSON_AddStringToObject(manifest, "save", o->save);
    if (o->load) manifest_add_file(manifest, "load", o->load);
    cJSON_AddNumberToObject(manifest, "epochs", fc->epochs);
    cJSON_AddNumberToObject(manifest, "lr", fc->lr);
    cJSON_AddNumberToObject(manifest, "batch", fc->batch);
    cJSON_AddNumberToObject(manifest, "dropout", fc->dropout);
    cJSON_AddNumberToObject(manifest, "weight_decay", fc->weight_decay);
    cJSON_AddNumberToObject(manifest, "threads", threads_count());
    cJSON_AddNumberToObject(manifest, "best_epoch", res->best_epoch);
    cJSON_AddNumberToObject(manifest, "dev_f1", res->dev.f1);
    cJSON_AddNumberToObject(manifest, "test_f1", res->test.f1);
    cJSON *history = cJSON_AddArrayToObject(manifest, "history");
    for (int e = 0; e < res->n_epochs; e++) {
        cJSON *row = cJSON_CreateObject();
        cJSON_AddNumberToObject(row, "epoch", e + 1);
        cJSON_AddNumberToObject(row, "train_loss", res->epochs[e].train_loss);
        cJSON_AddNumberToObject(row, "dev_f1", res->epochs[e].dev.f1);
        cJSON_AddNumberToObject(row, "test_f1", res->epochs[e].test.f1);
        cJSON_AddNumberToObject(row, "seconds", res->epochs[e].seconds);
        cJSON_AddItemToArray(history, row);
    }
    cJSON_AddStringToObject(manifest, "flops_note",
                            "analytic forward FLOPs of labelling the split once at this exit (cost.h)");
    if (o->predictions) cJSON_AddStringToObject(manifest, "predictions", o->predictions);
    return manifest;
}

/* Write the head (and adapters) w of this run to path, with what they belong to. */
static int write_trained(const FinetuneOptions *o, const FinetuneRun *run, const TrainedWeights *w,
                         const char *path, SrError *err)
{
    AdapterFile a = {.n_layers = run->task.info.cfg.n_layers, .d_model = w->C,
                     .has_lora = o->fc.adapter == ADAPTER_LORA, .lora = w->lora,
                     .n_lora = w->n_lora, .lora_w = w->lora_w, .n_labels = w->K,
                     .labels = run->task.labels.names, .head_W = w->W, .head_b = w->b,
                     .exit_layer = o->fc.exit_layer, .r = o->fc.r,
                     .q_dim = model_q_dim(&run->model.cfg), .kv_dim = model_kv_dim(&run->model.cfg)};
    memcpy(a.base_checksum, run->base_checksum, sizeof a.base_checksum);
    snprintf(a.method, sizeof a.method, "%s", method_name(o->fc.method));
    return adapter_write(path, &a, err);
}

/* --save-epochs: the folder, the head of its series.json, the run. */
typedef struct {
    const FinetuneOptions *o;
    const FinetuneRun *run;
    cJSON *head;
} EpochSaver;

/* The finetune_run hook of --save-epochs: DIR/epoch-NNNN.safetensors (with
 * LoRA the head and adapters; without, the whole model as a checkpoint),
 * then its entry in DIR/series.json. */
static int save_epoch(void *ctx, int epoch, const Model *m, const TrainedWeights *w, const FinetuneEpoch *e,
                      SrError *err)
{
    const EpochSaver *s = ctx;
    char *path = snapshot_epoch_path(s->o->save_epochs, epoch), *head = NULL;
    if (!path) return sr_fail(err, "out of memory");
    int rc;
    if (s->o->fc.adapter == ADAPTER_LORA) {
        rc = write_trained(s->o, s->run, w, path, err);
    } else {
        head = cJSON_PrintUnformatted(s->head);
        const CheckpointInfo *info = &s->run->task.info;
        rc = head ? checkpoint_save(path, m, (const char *const *)info->vocab, info->n_vocab, head, err)
                  : sr_fail(err, "out of memory");
        free(head);
    }
    free(path);
    if (rc == 0)
        rc = snapshot_series_add_epoch(s->o->save_epochs, s->head, s->o->fc.epochs, epoch, e->train_loss,
                                       e->dev.f1, e->test.f1, err);
    return rc;
}

/* Before training: --save-epochs needs a folder it can write, and without
 * LoRA a seqrep checkpoint (each epoch is then a whole model); the head of
 * its series.json (the run's command, base model, method, layout, and
 * "epoch_files": adapter or model). 0 or 2 after the error line. */
static int prepare_epoch_saver(int argc, char **argv, const FinetuneOptions *o, const FinetuneRun *run,
                               EpochSaver *s)
{
    SrError err;
    if (o->fc.adapter != ADAPTER_LORA && hf_is_model_dir(o->model))
        return args_error(CMD, "--save-epochs of a full fine-tuning writes each epoch as a seqrep checkpoint: "
                               "give a .safetensors checkpoint, or --adapter lora for %s", o->model);
    if (snapshot_dir_make(o->save_epochs, &err) || snapshot_series_check(o->save_epochs, &err))
        return args_error(CMD, "--save-epochs %s", err.msg);
    if (access(o->save_epochs, W_OK) != 0)
        return args_error(CMD, "--save-epochs %s: cannot write there (%s)", o->save_epochs, strerror(errno));
    s->o = o;
    s->run = run;
    s->head = manifest_begin(argc, argv, (unsigned long long)o->seed);
    /* the base as an absolute path: the series is read from other folders */
    char cwd[4096], base[8192];
    if (o->model[0] != '/' && getcwd(cwd, sizeof cwd)) snprintf(base, sizeof base, "%s/%s", cwd, o->model);
    else snprintf(base, sizeof base, "%s", o->model);
    manifest_add_file(s->head, "model", base);
    cJSON_AddStringToObject(s->head, "method", method_name(o->fc.method));
    cJSON_AddNumberToObject(s->head, "r", o->fc.r);
    cJSON_AddNumberToObject(s->head, "exit", o->fc.exit_layer);
    cJSON_AddStringToObject(s->head, "copy_positions", repeat_positions_name(o->fc.copy_positions));
    cJSON_AddStringToObject(s->head, "recipe", o->recipe_label);
    cJSON_AddStringToObject(s->head, "base_checksum", run->base_checksum);
    cJSON_AddStringToObject(s->head, "epoch_files", o->fc.adapter == ADAPTER_LORA ? "adapter" : "model");
    return 0;
}

/* Write the CSV, the predictions and the manifest, then print the summary
 * line. 0 or 2 after the error line. */
static int write_outputs(int argc, char **argv, const FinetuneOptions *o, const FinetuneRun *run)
{
    SrError err;
    if (o->save && write_trained(o, run, &run->res.best, o->save, &err)) return args_error(CMD, "--save %s", err.msg);
    char *csv = csv_text(o, run);
    if (!csv) return args_error(CMD, "out of memory");
    int rc = write_file_atomic(o->out, csv, &err);
    free(csv);
    if (rc || (o->predictions &&
               cli_write_predictions(o->predictions, &run->task, run->res.test_pred, &err)))
        return args_error(CMD, "%s", err.msg);
    cJSON *manifest = finetune_manifest(argc, argv, o, run);
    rc = manifest_write(o->out, manifest, NULL, &err);
    cJSON_Delete(manifest);
    if (rc) return args_error(CMD, "%s", err.msg);
    printf("%s r=%d exit=%d: dev F1 %.2f, test F1 %.2f (best epoch %d of %d)\n",
           method_name(o->fc.method), o->fc.r, o->fc.exit_layer, run->res.dev.f1,
           run->res.test.f1, run->res.best_epoch, o->fc.epochs);
    return 0;
}

/* `seqrep finetune`: options, task and model, training, then the outputs. */
int cmd_finetune(int argc, char **argv)
{
    FinetuneOptions o;
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc == 1 ? 0 : rc;
    threads_set(o.threads);
    FinetuneRun run = {0};
    EpochSaver saver = {0};
    rc = load_task_and_model(&o, &run);
    if (rc == 0 && o.save_epochs) {
        rc = prepare_epoch_saver(argc, argv, &o, &run, &saver);
        o.fc.on_epoch = save_epoch, o.fc.on_epoch_ctx = &saver;
    }
    if (rc == 0) rc = run_finetune(&o, &run);
    if (rc == 0) {
        interrupt_hold(); /* the outputs are all written, or none is, when a signal comes */
        rc = write_outputs(argc, argv, &o, &run);
        interrupt_release();
    }
    cJSON_Delete(saver.head);
    free(run.plan);
    free(run.head_scale);
    adapter_free(&run.start);
    finetune_result_free(&run.res);
    model_free(&run.model);
    label_task_free(&run.task);
    return rc;
}
