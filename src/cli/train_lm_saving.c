/* train_lm_saving.c — what `seqrep train-lm` writes while it runs (see
 * train_lm.h): the checkpoint with its manifest, the training state a run
 * resumes from (and the check of its settings against this run's), and the
 * snapshots with their series.json (runs/snapshot_series.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/train_lm.h"
#include "engine/threads.h"
#include "formats/checkpoint.h"
#include "formats/train_state.h"
#include "options/args.h"
#include "runs/manifest.h"
#include "runs/run_settings.h"
#include "runs/snapshot_series.h"

static const char *CMD = "train-lm";

/* ---- resuming ------------------------------------------------------------ */

/* The settings of this run, keyed by option name (all values text): what
 * must not change on resuming (the size as the model cfg has it, which
 * --init may have chosen), then steps, threads and save-every, which may.
 * JSON object text (caller frees), NULL when out of memory. */
static char *run_settings(const TrainOptions *o, const ModelConfig *cfg)
{
    cJSON *s = cJSON_CreateObject();
    if (!s) return NULL;
    run_settings_add_file(s, "corpus", o->corpus);
    run_settings_add_file(s, "init", o->init);
    run_settings_add_file(s, "vocab", o->vocab);
    run_settings_add_text(s, "objective", o->objective);
    run_settings_add_text(s, "positions", repo_method_name(o->method));
    run_settings_add_text(s, "tokenizer", o->tokenizer);
    const char *int_names[] = {"layers", "d-model", "heads", "d-ff", "seq-len", "batch", "seed",
                               "warmup", "repo-from", "untied", "lowercase", "vocab-size",
                               "min-count", "max-vocab"};
    const int ints[] = {cfg->n_layers, cfg->d_model, cfg->n_heads, cfg->d_ff, o->seq_len, o->batch,
                        o->seed, o->warmup, cfg->repo ? cfg->repo_from : -1, !cfg->tied,
                        o->lowercase, o->vocab_size, o->min_count, o->max_vocab};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        run_settings_add_int(s, int_names[i], ints[i]);
    const char *float_names[] = {"lr", "min-lr", "weight-decay", "clip", "rope-theta"};
    const float floats[] = {o->lr, o->min_lr, o->weight_decay, o->clip, cfg->rope_theta};
    for (size_t i = 0; i < sizeof floats / sizeof floats[0]; i++)
        run_settings_add_float(s, float_names[i], floats[i]);
    if (o->repeat_share > 0.0f) { /* absent at 0: the settings of a run before them */
        run_settings_add_float(s, "repeat-share", o->repeat_share);
        run_settings_add_int(s, "repeat-copies", o->repeat_copies);
    }
    if (o->repeat_random > 0.0f) run_settings_add_float(s, "repeat-random", o->repeat_random);
    run_settings_add_int(s, "steps", o->steps);
    run_settings_add_int(s, "threads", threads_count());
    run_settings_add_int(s, "save-every", o->save_every);
    char *text = cJSON_PrintUnformatted(s);
    cJSON_Delete(s);
    return text;
}

/* Take from the saved settings what this run left to its defaults: the
 * warm-up (its default follows --steps, which may have grown) and the save
 * interval. */
static void adopt_saved_settings(TrainOptions *o, const cJSON *saved)
{
    const char *warmup = run_settings_get(saved, "warmup");
    const char *every = run_settings_get(saved, "save-every");
    if (o->warmup_default && warmup) o->warmup = atoi(warmup);
    if (o->save_every == 0 && every) o->save_every = atoi(every);
}

/* 0 when this run's settings (now) agree with the saved ones, else 2 after
 * one line naming the first option that differs. --steps may only grow;
 * other threads only earn a note (the weights may then differ in the last bits). */
static int check_settings(const TrainOptions *o, const char *state_path, const cJSON *saved,
                          const cJSON *now)
{
    static const char *const may_change[] = {"steps", "threads", "save-every"};
    const char *key = run_settings_first_change(saved, now, may_change, 3);
    if (key) {
        const char *here = run_settings_get(now, key), *was = run_settings_get(saved, key);
        return args_error(CMD, "--resume: --%s is %s here but %s in the saved run %s; resume "
                          "with the same options", key, here ? here : "not given",
                          was ? was : "not recorded", state_path);
    }
    const char *steps = run_settings_get(saved, "steps");
    const char *threads = run_settings_get(saved, "threads");
    if (!steps || o->steps < atoi(steps))
        return args_error(CMD, "--resume: --steps %d is below the %s steps of the saved run %s; "
                          "it may only be raised", o->steps, steps ? steps : "(unknown)", state_path);
    if (!o->quiet && threads && atoi(threads) != threads_count())
        fprintf(stderr, "note: resuming with %d threads, the saved run had %s: the weights may "
                "differ in the last bits from an uninterrupted run\n", threads_count(), threads);
    return 0;
}

/* With --resume: read the state, check its settings against the options
 * (adopting the saved warm-up and interval they left to defaults), put its
 * weights and moments into run->m and its step and Rng into run->from;
 * run->settings gets this run's settings. 0, or 2 after the error line. */
static int load_state(TrainOptions *o, TrainRun *run)
{
    SrError err;
    FILE *f = fopen(run->state_path, "rb");
    if (!f)
        return args_error(CMD, "--resume: no training state %s to resume (a run with "
                          "--save-every N writes it)", run->state_path);
    fclose(f);
    TrainState st;
    if (train_state_read(run->state_path, &st, &err)) return args_error(CMD, "%s", err.msg);
    cJSON *saved = cJSON_Parse(st.settings_json), *now = NULL;
    int rc = cJSON_IsObject(saved) ? 0
             : args_error(CMD, "%s: damaged training state (settings)", run->state_path);
    if (rc == 0) {
        adopt_saved_settings(o, saved);
        run->settings = run_settings(o, &run->m.cfg);
        now = run->settings ? cJSON_Parse(run->settings) : NULL;
        rc = now ? check_settings(o, run->state_path, saved, now) : args_error(CMD, "out of memory");
    }
    if (rc == 0 && train_state_apply(&st, &run->m, &err))
        rc = args_error(CMD, "%s: %s", run->state_path, err.msg);
    if (rc == 0) run->from = (PretrainState){.step = st.step, .rng = st.rng, .loss = st.loss};
    cJSON_Delete(saved);
    cJSON_Delete(now);
    train_state_free(&st);
    return rc;
}

int train_lm_prepare_saving(TrainOptions *o, TrainRun *run)
{
    if (o->save_every == 0 && !o->resume) return 0;
    run->state_path = path_with_suffix(o->out, ".state.safetensors");
    if (!run->state_path) return args_error(CMD, "out of memory");
    if (o->resume) return load_state(o, run);
    run->settings = run_settings(o, &run->m.cfg);
    return run->settings ? 0 : args_error(CMD, "out of memory");
}

/* The manifest stored in the checkpoint: the command, the corpus and what
 * the run did; saved_at > 0 marks a checkpoint saved at that step of a run
 * still going, snapshot >= 0 the snapshot of that step. */
static cJSON *train_manifest(int argc, char **argv, const TrainOptions *o, const TrainRun *run,
                             int saved_at, int snapshot)
{
    cJSON *manifest = manifest_begin(argc, argv, (unsigned long long)o->seed);
    manifest_add_file(manifest, "corpus", o->corpus);
    cJSON_AddStringToObject(manifest, "objective",
                            strcmp(o->objective, "mlm") == 0 ? "mlm" : "causal-lm");
    cJSON_AddStringToObject(manifest, "tokenizer", run->tok.subword ? "bpe" : "word");
    cJSON_AddNumberToObject(manifest, "corpus_tokens", (double)run->text.n_ids);
    cJSON_AddBoolToObject(manifest, "lowercase", run->tok.lowercase);
    cJSON_AddStringToObject(manifest, "positions", repo_method_name(o->method));
    if (run->m.cfg.repo) cJSON_AddNumberToObject(manifest, "repo_from", run->m.cfg.repo_from);
    if (o->init) manifest_add_file(manifest, "init", o->init);
    cJSON_AddNumberToObject(manifest, "steps", o->steps);
    cJSON_AddNumberToObject(manifest, "batch", o->batch);
    cJSON_AddNumberToObject(manifest, "seq_len", o->seq_len);
    cJSON_AddNumberToObject(manifest, "lr", o->lr);
    cJSON_AddNumberToObject(manifest, "threads", threads_count());
    cJSON_AddBoolToObject(manifest, "recompute", o->recompute);
    if (o->repeat_share > 0.0f) {
        cJSON_AddNumberToObject(manifest, "repeat_share", o->repeat_share);
        cJSON_AddNumberToObject(manifest, "repeat_copies", o->repeat_copies);
        cJSON_AddNumberToObject(manifest, "training_sentences", (double)run->counts.sentences);
        cJSON_AddNumberToObject(manifest, "repeated_sentences", (double)run->counts.repeated);
        cJSON_AddNumberToObject(manifest, "stream_tokens", (double)run->n_ids);
    }
    if (o->repeat_random > 0.0f) cJSON_AddNumberToObject(manifest, "repeat_random", o->repeat_random);
    if (run->result.steps_done > 0)
        cJSON_AddNumberToObject(manifest, "final_train_loss", run->result.final_loss);
    if (run->val_loss >= 0.0f) cJSON_AddNumberToObject(manifest, "val_loss", run->val_loss);
    cJSON_AddNumberToObject(manifest, "train_seconds", run->result.seconds);
    if (o->save_every > 0) cJSON_AddNumberToObject(manifest, "save_every", o->save_every);
    if (saved_at > 0) cJSON_AddNumberToObject(manifest, "saved_at_step", saved_at);
    if (snapshot >= 0) cJSON_AddNumberToObject(manifest, "snapshot_step", snapshot);
    if (o->resume) cJSON_AddNumberToObject(manifest, "resumed_from_step", run->from.step);
    return manifest;
}

int train_lm_write_checkpoint(int argc, char **argv, const TrainOptions *o, const TrainRun *run, const Model *m,
                              const char *path, int saved_at, int snapshot, SrError *err)
{
    cJSON *manifest = train_manifest(argc, argv, o, run, saved_at, snapshot);
    char *manifest_text = manifest ? cJSON_PrintUnformatted(manifest) : NULL;
    int rc = manifest_text ? checkpoint_save(path, m, (const char *const *)run->tok.words,
                                             run->tok.n_words, manifest_text, err)
                           : sr_fail(err, "out of memory");
    free(manifest_text);
    cJSON_Delete(manifest);
    return rc;
}

/* PretrainSaveFn: the state first, then (before the last step, after which
 * the final checkpoint follows) the checkpoint, so that a failed write leaves
 * the previous checkpoint as it was. */
static int save_during_run(void *ctx, const Model *m, const PretrainState *st, SrError *err)
{
    SaveContext *sc = ctx;
    const TrainRun *run = sc->run;
    if (train_state_save(run->state_path, m, st->step, &st->rng, st->loss, run->settings, err))
        return -1;
    if (st->step < sc->o->steps &&
        train_lm_write_checkpoint(sc->argc, sc->argv, sc->o, run, m, sc->o->out, st->step, -1, err))
        return -1;
    sc->saved_at = st->step;
    return 0;
}

/* ---- snapshots ----------------------------------------------------------- */

int train_lm_plan_snapshots(const TrainOptions *o, TrainRun *run)
{
    SrError err;
    if (!o->snapshots) return 0;
    if (!o->snapshot_steps && o->save_every < 1)
        return args_error(CMD, "--snapshots needs --snapshot-steps or --save-every");
    if (snapshot_steps_plan(o->snapshot_steps, o->save_every, o->steps, &run->snapshot_steps,
                            &run->n_snapshots, &err))
        return args_error(CMD, "--snapshot-steps: %s", err.msg);
    return 0;
}

/* Write the snapshot of m at step to DIR/step-NNNNNN.safetensors and record
 * it in DIR/series.json (has_loss 0: no training loss yet). 0 or -1. */
static int write_snapshot(const SaveContext *sc, const Model *m, int step, int has_loss,
                          float loss, SrError *err)
{
    const TrainOptions *o = sc->o;
    char *path = snapshot_path(o->snapshots, step);
    cJSON *head = manifest_begin(sc->argc, sc->argv, (unsigned long long)o->seed);
    int rc = path && head ? 0 : sr_fail(err, "out of memory");
    if (rc == 0)
        rc = train_lm_write_checkpoint(sc->argc, sc->argv, o, sc->run, m, path,
                              step < o->steps ? step : 0, step, err);
    if (rc == 0) rc = snapshot_series_add(o->snapshots, head, o->steps, step, has_loss, loss, err);
    free(path);
    cJSON_Delete(head);
    return rc;
}

/* PretrainSaveFn after every step: the snapshot, when the step is one. */
static int snapshot_after_step(void *ctx, const Model *m, const PretrainState *st, SrError *err)
{
    const SaveContext *sc = ctx;
    const TrainRun *run = sc->run;
    if (!snapshot_steps_has(run->snapshot_steps, run->n_snapshots, st->step)) return 0;
    return write_snapshot(sc, m, st->step, 1, st->loss, err);
}

int train_lm_start_snapshots(const SaveContext *sc)
{
    const TrainOptions *o = sc->o;
    const TrainRun *run = sc->run;
    SrError err;
    if (!o->snapshots) return 0;
    if (snapshot_series_check(o->snapshots, &err) || snapshot_dir_make(o->snapshots, &err))
        return args_error(CMD, "--snapshots %s", err.msg);
    for (int i = 0; i < run->n_snapshots; i++) {
        int step = run->snapshot_steps[i];
        if (step > (o->resume ? run->from.step : 0)) break;
        if (!o->resume && write_snapshot(sc, &run->m, 0, 0, 0.0f, &err))
            return args_error(CMD, "%s", err.msg);
        if (o->resume && !snapshot_exists(o->snapshots, step) && !o->quiet)
            fprintf(stderr, "note: snapshot step %d is not in %s, and a run resumed at step %d "
                    "cannot make it\n", step, o->snapshots, run->from.step);
    }
    if (!o->quiet)
        fprintf(stderr, "snapshots: %d steps into %s/\n", run->n_snapshots, o->snapshots);
    return 0;
}

PretrainSaving train_lm_saving(SaveContext *sc, volatile sig_atomic_t *stop)
{
    const TrainOptions *o = sc->o;
    return (PretrainSaving){.every = o->save_every, .save = save_during_run, .ctx = sc,
                            .from = o->resume ? &sc->run->from : NULL, .stop = stop,
                            .after_step = o->snapshots ? snapshot_after_step : NULL};
}
