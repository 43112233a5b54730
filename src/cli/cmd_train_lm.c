/* cmd_train_lm.c — `seqrep train-lm`: train a language model on a text
 * corpus and save it as a safetensors checkpoint.
 *
 * The objectives (causal, mlm) and the loop are train/pretrain.h's. The
 * corpus is read line by line, a word vocabulary is built from it, and the
 * lines are encoded into one stream with <bos> before each line (as Llama's tokenizer
 * does, so a repeated sentence "<bos> s <bos> s" looks like text the model has seen). Training
 * windows of seq_len + 1 tokens are drawn at random from the first 95% of the
 * stream; the last 5% is held out for a validation loss.
 *
 * Positions (--positions, see src/repo/repo_eval.h): rope, nope, const, hybrid, or
 * repo (learned positions from layer --repo-from on). --init MODEL continues
 * training a checkpoint (continued pre-training): its size and vocabulary are
 * kept, its weights copied, and RePo weights it lacks start at Normal(0, 0.02).
 *
 * Resuming (--save-every N, --resume): every N steps, and after the last, the
 * run writes its training state (formats/train_state.h) to OUT's name with
 * the extension replaced by .state.safetensors, then the checkpoint OUT
 * itself (usable at once; its manifest has "saved_at_step"). The state holds
 * the weights, the AdamW moments, the step, the one Rng of window choices and
 * mlm corruption, and the settings: the options that must not change (model
 * size, corpus and vocabulary checksums, seed, batch, seq-len, objective,
 * positions, schedule, tokenizer) plus steps and threads. --resume with the
 * same options continues after the saved step; the weights then equal those
 * of an uninterrupted run bit for bit (same threads). --steps may be raised:
 * the cosine decay is then recomputed over the new total from the saved step
 * on (the warm-up stays the saved one unless --warmup is given). SIGINT,
 * SIGTERM and SIGHUP during a saving run stop it after the current step with
 * a save.
 *
 * Repeated text: --repeat-share (train/repeat_stream.h, after the held-out
 * split) and --repeat-random (train/repeat_random.h); at 0 the run is the run
 * without them, bit for bit. Snapshots: runs/snapshot_series.h.
 *
 * The command is three files (train_lm.h): this one (the corpus, the model,
 * the loop), train_lm_options.c (the options and their checks) and
 * train_lm_saving.c (the checkpoint and its manifest, resuming, snapshots). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/job/interrupt.h"
#include "cli/common/cli_common.h"
#include "cli/commands.h"
#include "cli/train_lm.h"
#include "engine/threads.h"
#include "options/args.h"
#include "train/repeat_random.h"

static const char *CMD = "train-lm";

/* Load a vocabulary file into tok, in subword mode when asked. */
static int tokenizer_load_vocab(Tokenizer *tok, const char *path, int lowercase, int subword,
                                SrError *err)
{
    if (tokenizer_load(tok, path, lowercase, err)) return -1;
    if (subword) tokenizer_set_subword(tok, 1);
    return 0;
}

/* The stream to train on: the corpus as encoded, or with --repeat-share its
 * chosen training sentences repeated (after checking that --repeat-copies
 * fits the window). 0, or 2 after the error line. */
static int repeat_sentences(const TrainOptions *o, TrainRun *run)
{
    run->ids = run->text.ids;
    run->n_ids = run->text.n_ids;
    if (o->repeat_random > 0.0f && run->tok.n_words <= TOK_N_SPECIAL)
        return args_error(CMD, "--repeat-random needs a vocabulary with words beside the specials");
    if (o->repeat_share == 0.0f) return 0;
    long longest = 0;
    int most = repeat_stream_max_copies(&run->text, run->n_train, o->seq_len, &longest);
    if (o->repeat_copies > most)
        return args_error(CMD, "--repeat-copies %d: 99%% of the training sentences of %s fit in "
                          "--seq-len %d only %d times (the longest of them has %ld tokens with "
                          "<bos>); give at most %d or a longer --seq-len", o->repeat_copies,
                          o->corpus, o->seq_len, most, longest, most);
    RepeatSettings rs = {.share = o->repeat_share, .copies = o->repeat_copies,
                         .window = o->seq_len, .seed = (uint64_t)o->seed};
    SrError err;
    if (repeat_stream_make(&run->text, run->n_train, &rs, &run->repeated, &run->counts, &err))
        return args_error(CMD, "%s", err.msg);
    run->ids = run->repeated.ids;
    run->n_ids = run->repeated.n_ids;
    run->n_train = run->repeated.n_train;
    return 0;
}

/* The vocabulary (from --init, --vocab, or built from the corpus as word or
 * bpe) and the encoded corpus, with the --init checkpoint into run->base.
 * 0, or 2 after the error line. */
static int load_corpus(const TrainOptions *o, TrainRun *run)
{
    SrError err;
    int bpe = strcmp(o->tokenizer, "bpe") == 0;
    if ((o->init ? repo_load_model(o->init, REPO_METHOD_ROPE, 1, 1, &run->base, &run->tok, NULL, &err)
                 : o->vocab ? tokenizer_load_vocab(&run->tok, o->vocab, o->lowercase, bpe, &err)
                 : bpe ? tokenizer_build_bpe_from_file(&run->tok, o->corpus, o->vocab_size,
                                                       o->lowercase, &err)
                       : tokenizer_build_from_file(&run->tok, o->corpus, o->min_count, o->max_vocab,
                                                   o->lowercase, &err)) ||
        tokenizer_encode_file(&run->tok, o->corpus, TOK_BOS, &run->text, &err))
        return args_error(CMD, "%s", err.msg);
    const EncodedText *text = &run->text;
    if (o->init && text->n_unk == text->n_ids - text->n_lines)
        return args_error(CMD, "%s shares no word with the vocabulary of --init %s", o->corpus,
                          o->init);
    run->n_train = text->n_ids - text->n_ids / 20;
    if (run->n_train < o->seq_len + 2)
        return args_error(CMD, "%s: corpus has %ld tokens, too few for --seq-len %d "
                          "(need at least %d in the training part)", o->corpus, text->n_ids,
                          o->seq_len, o->seq_len + 2);
    return repeat_sentences(o, run);
}

/* The run the memory floor describes: steps of --batch windows of
 * --seq-len tokens, every weight trained on the LM's loss. */
static FloorRun floor_run(const TrainOptions *o, const TrainRun *run, const ModelConfig *cfg)
{
    return (FloorRun){.B = o->batch, .T = o->seq_len, .with_lm_head = 1,
                      .sees_all = strcmp(o->objective, "mlm") == 0,
                      .recompute = o->recompute, .n_trained = model_param_count(cfg),
                      .process = run->process};
}

/* The model to train: new with the options' size, or --init's size and
 * weights; RePo weights it lacks at Normal(0, 0.02); and its positions.
 * 0, or 2 after the error line. */
static int build_model(const TrainOptions *o, TrainRun *run)
{
    SrError err;
    run->process = cli_process_bytes(); /* code, libraries, corpus, vocabulary */
    const Model *base = &run->base;
    ModelConfig cfg = {.vocab_size = run->tok.n_words, .d_model = o->d_model, .n_layers = o->layers,
                       .n_heads = o->heads, .d_ff = o->d_ff, .max_seq_len = o->seq_len,
                       .rope_theta = o->rope_theta, .norm_eps = 1e-5f, .tied = !o->untied};
    int repo_from = o->repo_from;
    if (o->init) {
        cfg = base->cfg;
        if (cfg.max_seq_len < o->seq_len) cfg.max_seq_len = o->seq_len;
        if (base->cfg.repo && (o->method != REPO_METHOD_REPO ||
                               (repo_from != -1 && repo_from != base->cfg.repo_from)))
            return args_error(CMD, "--init %s has RePo layers from %d; continue it with "
                              "--positions repo --repo-from %d", o->init, base->cfg.repo_from,
                              base->cfg.repo_from);
        if (base->cfg.repo) repo_from = base->cfg.repo_from;
    }
    if (o->recompute && cfg.n_layers == 1)
        return args_error(CMD, "--recompute: the model has one layer, which a step keeps alone "
                          "anyway; leave --recompute out");
    if (repo_method_config(o->method, repo_from, &cfg, &err)) return args_error(CMD, "%s", err.msg);
    FloorRun floor = floor_run(o, run, &cfg);
    if (cli_check_memory(CMD, &cfg, 4, &floor)) return 2;
    /* recomputing: made for one position, then resized with one layer's activations */
    if (model_create(&run->m, &cfg, o->recompute ? 1 : o->batch, o->recompute ? 1 : o->seq_len,
                     &err) ||
        (o->recompute && model_resize(&run->m, o->batch, o->seq_len, 1, &err)))
        return args_error(CMD, "%s", err.msg);
    model_init_weights(&run->m, (unsigned long long)o->seed); /* RePo weights: Normal(0, 0.02) */
    if ((o->init && repo_copy_shared_weights(&run->m, base, &err)) ||
        repo_run_init(&run->positions, o->method, &run->m, &err))
        return args_error(CMD, "%s", err.msg);
    return 0;
}

/* The pre-training configuration of the options. */
static PretrainConfig pretrain_config(const TrainOptions *o)
{
    return (PretrainConfig){.objective = strcmp(o->objective, "mlm") == 0 ? PRETRAIN_MLM
                                                                          : PRETRAIN_CAUSAL,
                            .steps = o->steps, .batch = o->batch, .seq_len = o->seq_len,
                            .warmup = o->warmup, .lr = o->lr, .min_lr = o->min_lr,
                            .weight_decay = o->weight_decay, .clip = o->clip,
                            .seed = (uint64_t)o->seed,
                            .progress_every = o->steps / 20 > 0 ? o->steps / 20 : 1};
}

/* Write the final checkpoint. 0, or 2 after the error line. */
static int save_checkpoint(int argc, char **argv, const TrainOptions *o, const TrainRun *run)
{
    SrError err;
    if (train_lm_write_checkpoint(argc, argv, o, run, &run->m, o->out, 0, -1, &err))
        return args_error(CMD, "%s", err.msg);
    if (!o->quiet) fprintf(stderr, "saved %s\n", o->out);
    return 0;
}

/* Set by SIGINT, SIGTERM or SIGHUP during a saving run: stop after the
 * step (a second signal acts as usual, base/job/interrupt.h). */
static volatile sig_atomic_t stop_requested = 0;

/* The run stopped at a step whose loss, gradients or weights were not
 * finite (why: the message naming them): one line with the learning rate of
 * that step and what is left of the run. Returns 2. */
static int diverged(const TrainOptions *o, const TrainRun *run, const SaveContext *sc,
                    const char *why)
{
    char left[2200];
    if (sc->saved_at > 0)
        snprintf(left, sizeof left, "the last save, step %d, is in %s and %s", sc->saved_at,
                 o->out, run->state_path);
    else
        snprintf(left, sizeof left, "nothing was saved (%s is as it was)", o->out);
    return args_error(CMD, "%s at learning rate %g (try a lower --lr); %s", why,
                      (double)run->result.diverged_lr, left);
}

/* The lines train prints before the loop: the corpus, the model, what is
 * repeated, resuming and saving. */
static void report_start(const TrainOptions *o, const TrainRun *run)
{
    fprintf(stderr, "corpus %s: %ld lines, %ld tokens, vocabulary %d (%ld unknown)\n"
            "model: %d layers, d_model %d, %d heads, d_ff %d, %zu parameters; "
            "batch %d x %d, %d steps, %d threads\n",
            o->corpus, run->text.n_lines, run->text.n_ids, run->tok.n_words, run->text.n_unk,
            o->layers, o->d_model, o->heads, o->d_ff, run->m.n_params, o->batch, o->seq_len,
            o->steps, threads_count());
    if (o->repeat_share > 0.0f)
        fprintf(stderr, "repeated text: %ld of %ld training sentences written %d times (%ld fit "
                "%d times in %d tokens); training part %ld tokens instead of %ld\n",
                run->counts.repeated, run->counts.sentences, o->repeat_copies,
                run->counts.candidates, o->repeat_copies, o->seq_len, run->n_train,
                run->n_train - (run->n_ids - run->text.n_ids));
    if (o->repeat_random > 0.0f)
        fprintf(stderr, "random windows: a share %g of the windows repeats a random sequence of "
                "%d..%d pieces\n", (double)o->repeat_random, REPEAT_RANDOM_MIN_PIECES,
                REPEAT_RANDOM_MAX_PIECES);
    if (o->resume)
        fprintf(stderr, "resuming %s at step %d/%d\n", run->state_path, run->from.step, o->steps);
    if (o->save_every > 0)
        fprintf(stderr, "saving every %d steps: %s and %s\n", o->save_every, o->out, run->state_path);
}

/* The optimiser loop on the training part of the stream (its windows, and
 * with --repeat-random random ones), saving as --save-every asks and keeping
 * the snapshots, from the saved step with --resume. 0, or 2 after the error
 * line (also when stopped by a signal). */
static int run_loop(int argc, char **argv, const TrainOptions *o, TrainRun *run,
                    const PretrainConfig *c, const PretrainPositions *pos)
{
    SrError err;
    RepeatRandomSource random = {.stream = {.ids = run->ids, .lo = 0, .hi = run->n_train},
                                 .share = o->repeat_random, .vocab_size = run->tok.n_words};
    SaveContext sc = {.argc = argc, .argv = argv, .o = o, .run = run,
                      .saved_at = o->resume ? run->from.step : 0};
    PretrainSaving saving = train_lm_saving(&sc, &stop_requested);
    if (train_lm_start_snapshots(&sc)) return 2;
    if (o->save_every > 0) interrupt_notify(&stop_requested, 1);
    if (pretrain_run_saving(&run->m, c, pos,
                            o->repeat_random > 0.0f ? repeat_random_batch : pretrain_stream_batch,
                            o->repeat_random > 0.0f ? (void *)&random : (void *)&random.stream,
                            o->save_every > 0 || o->resume || o->snapshots ? &saving : NULL,
                            o->quiet ? NULL : stderr, &run->result, &err))
        return run->result.diverged_at ? diverged(o, run, &sc, err.msg)
                                       : args_error(CMD, "%s", err.msg);
    if (run->result.steps_done < o->steps)
        return args_error(CMD, "stopped at step %d/%d by %s; saved %s and %s, continue with "
                          "--resume (the same command with --resume added)",
                          run->result.steps_done, o->steps,
                          interrupt_signal_name(interrupt_last_signal()), o->out, run->state_path);
    return 0;
}

/* Train on the training part of the stream (run_loop), then measure the
 * loss on the held-out rest (at most 50 batches). 0, or 2 after the error
 * line. */
static int train(int argc, char **argv, const TrainOptions *o, TrainRun *run)
{
    SrError err;
    if (!o->quiet) report_start(o, run);
    PretrainConfig c = pretrain_config(o);
    PretrainPositions pos = {run->positions.plan, run->positions.zeros};
    int rc = run_loop(argc, argv, o, run, &c, &pos);
    if (rc) return rc;
    if (pretrain_eval_loss(&run->m, &c, &pos, run->ids, run->n_train, run->n_ids, 50,
                           &run->val_loss, &err))
        run->val_loss = -1.0f; /* no held-out loss, as when the held-out part is too short */
    if (!o->quiet && run->val_loss >= 0.0f)
        fprintf(stderr, "validation loss %.4f (held-out last 5%%)\n", run->val_loss);
    FloorRun floor = floor_run(o, run, &run->m.cfg);
    if (!o->quiet) cli_report_memory(CMD, &run->m, &floor);
    return 0;
}

/* `seqrep train-lm`: the options, the corpus and its vocabulary, the model,
 * saving and snapshots as asked, the loop and the held-out loss, the
 * checkpoint. */
int cmd_train_lm(int argc, char **argv)
{
    TrainOptions o;
    int rc = train_lm_parse_options(argc, argv, &o);
    if (rc) return rc == 1 ? 0 : rc;
    threads_set(o.threads);
    TrainRun run = {.val_loss = -1.0f};
    rc = load_corpus(&o, &run);
    if (rc == 0) rc = build_model(&o, &run);
    if (rc == 0) rc = train_lm_prepare_saving(&o, &run);
    if (rc == 0) rc = train_lm_plan_snapshots(&o, &run);
    if (rc == 0) rc = train(argc, argv, &o, &run);
    if (rc == 0) rc = save_checkpoint(argc, argv, &o, &run);
    repo_run_free(&run.positions);
    model_free(&run.base);
    model_free(&run.m);
    encoded_text_free(&run.text);
    repeated_stream_free(&run.repeated);
    free(run.snapshot_steps);
    tokenizer_free(&run.tok);
    free(run.state_path);
    free(run.settings);
    return rc;
}
