/* head_command.c — the runner of `heads` and `attnflow` and the steps they
 * share (see head_command.h). */
#include "cli/theory/head_command.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/atomic_file.h"
#include "cli/common/cli_common.h"
#include "engine/threads.h"
#include "formats/adapter_apply.h"
#include "label/readout.h"
#include "options/head_plan.h"
#include "options/rows.h"
#include "runs/manifest.h"

/* The checkpoint's description and tokenizer, the mask and head plans, o->bos
 * settled for that tokenizer (readout_choose_bos), and how every sentence
 * is laid out and run. 0 or 2 after the error line. */
static int load_checkpoint(const char *command, HeadJob *job)
{
    HeadOptions *o = &job->o;
    HeadRun *run = &job->run;
    if (cli_load_checkpoint(command, o->model, o->bos_text, o->sep, o->mask_text, &run->info, &run->tok,
                            &o->bos, &run->plan) ||
        option_parse_ablate_heads(command, o->ablate_text, run->info.cfg.n_layers, run->info.cfg.n_heads,
                                  &run->head_scale))
        return 2;
    run->setup = (RepeatedForward){.r = o->r, .bos = o->bos, .sep = o->sep,
                                   .copy_positions = o->copy_positions,
                                   .ids = readout_repeat_ids(&run->tok), .plan = run->plan,
                                   .head_scale = run->head_scale};
    return 0;
}

/* The model, with --adapter's adapters merged in, for one sentence of the
 * longest repeated input that fits. 0 or 2 after the error line. */
static int load_model(const char *command, HeadJob *job)
{
    SrError err;
    if (adapter_load_model(job->o.model, job->o.adapter, &job->run.model, 1, job->run.fit.max_T, &err))
        return args_error(command, "%s", err.msg);
    return 0;
}

/* The CSV of the run's tables, written atomically, and the command's
 * manifest beside it ("x.csv" -> "x.manifest.json"). 0 or 2 after the
 * error line. */
static int write_outputs(const HeadCommand *c, const void *self, const HeadJob *job, int argc, char **argv)
{
    SrError err;
    char *csv = head_table_csv(job->run.tables, job->run.n_tables);
    if (!csv) return args_error(c->name, "out of memory");
    int rc = write_file_atomic(job->o.out, csv, &err);
    free(csv);
    if (rc) return args_error(c->name, "%s", err.msg);
    cJSON *manifest = c->manifest(self, argc, argv);
    rc = manifest_write(job->o.out, manifest, NULL, &err);
    cJSON_Delete(manifest);
    if (rc) return args_error(c->name, "%s", err.msg);
    fprintf(stderr, "wrote %s\n", job->o.out);
    return 0;
}

/* Release what the run holds. */
static void free_run(HeadRun *run)
{
    model_free(&run->model);
    free(run->plan);
    free(run->head_scale);
    piece_sentences_free(&run->sentences);
    tokenizer_free(&run->tok);
    checkpoint_info_free(&run->info);
}

int head_command_run(const HeadCommand *c, void *self, HeadJob *job, int argc, char **argv)
{
    int rc = c->parse(self, argc, argv);
    if (rc) return rc == 1 ? 0 : rc;
    threads_set(job->o.threads);
    rc = load_checkpoint(c->name, job);
    if (rc == 0) rc = c->sentences(self);
    if (rc == 0) rc = load_model(c->name, job);
    if (rc == 0) rc = c->measure(self);
    if (rc == 0) c->print(self);
    if (rc == 0 && job->o.out) rc = write_outputs(c, self, job, argc, argv);
    c->free(self);
    free_run(&job->run);
    return rc;
}

void head_command_option_table(ArgSpec *specs, const ArgSpec *first, int n_first, HeadOptions *o, HelpText *h,
                               const ArgSpec *last, int n_last)
{
    const ArgSpec shared[HEAD_SHARED_ROWS] = {
        option_bos(&o->bos_text, "none | once | per-copy (default per-copy, as the paper and train-lm; none "
                                 "when the tokenizer adds no BOS)"),
        option_sep(&o->sep_text, help_text(h, "none | token: a <sep> between copies (default %s)", o->sep_text)),
        option_copy_positions(&o->positions_text),
        option_mask(&o->mask_text,
                    help_text(h, "mask plan: causal | middle | full | layer list (default %s)", o->mask_text)),
        option_ablate_heads(&o->ablate_text),
        {.name = "max-sentences", .type = ARG_INT, .value = &o->max_sentences,
         .help = help_text(h, "use only the first N sentences, 0 = all (default %d)", o->max_sentences)},
    };
    memcpy(specs, first, sizeof *specs * (size_t)n_first);
    memcpy(specs + n_first, shared, sizeof shared);
    memcpy(specs + n_first + HEAD_SHARED_ROWS, last, sizeof *specs * (size_t)n_last);
}

int head_command_parse_repeat(const char *command, HeadOptions *o)
{
    if (o->bos_text && option_parse_bos(command, o->bos_text, &o->bos)) return 2;
    if (option_parse_sep(command, o->sep_text, &o->sep)) return 2;
    if (option_parse_copy_positions(command, o->positions_text, &o->copy_positions)) return 2;
    return 0;
}

int head_command_read_data(const char *command, const HeadOptions *o, HeadRun *run)
{
    SrError err;
    if (piece_sentences_read(o->data, o->as_text, o->max_sentences, &run->sentences, &err) ||
        piece_sentences_tokenize(&run->sentences, &run->tok, o->data, &err))
        return args_error(command, "%s", err.msg);
    return 0;
}

void head_command_print_model(const char *command, const HeadOptions *o)
{
    printf("seqrep %s: %s%s%s on ", command, o->model, o->adapter ? " with the adapters of " : "",
           o->adapter ? o->adapter : "");
}

void head_command_print_setup(const HeadOptions *o, int n, const char *sentences, long long tokens)
{
    int ablated = strcmp(head_plan_name(o->ablate_text), "none") != 0;
    printf("r = %d (k = %d copies), bos %s, sep %s, mask %s%s%s: %d %s, %lld last-copy tokens\n", o->r,
           o->r + 1, repeat_bos_name(o->bos), repeat_sep_name(o->sep), o->mask_text,
           ablated ? ", heads taken away " : "", ablated ? o->ablate_text : "", n, sentences, tokens);
}

/* The line "chance" of layer l: chance's one head, each column in percent. */
static void print_chance_row(const HeadTable *chance, int l, const int *width)
{
    printf("%5d %6s", l, "chance"); /* one wider than a head's number: one narrower below */
    for (int c = 0; c < chance->n_columns; c++)
        printf(" %*.1f%%", width[c] - (c == 0), 100.0 * head_table_mean(chance, l, 0, c));
    printf("\n");
}

int head_command_add_chance(const HeadRun *run, const Model *m, const RepeatLayout *lay, ChanceAdd add, void *chance,
                            SrError *err)
{
    return chance_add_layers(&m->cfg, run->plan, lay, add, chance, err);
}

void head_command_print_rows(const HeadTable *t, const HeadTable *chance, const int *width, int layer_means)
{
    for (int l = 0; l < t->n_layers; l++) {
        for (int h = 0; h < t->n_heads; h++) {
            printf("%5d %5d", l, h);
            for (int c = 0; c < t->n_columns; c++)
                printf(" %*.1f%%", width[c], 100.0 * head_table_mean(t, l, h, c));
            printf("\n");
        }
        if (layer_means && t->n_heads >= 2) {
            printf("%5d %5s", l, "mean");
            for (int c = 0; c < t->n_columns; c++) {
                double mean = 0.0;
                for (int h = 0; h < t->n_heads; h++) mean += head_table_mean(t, l, h, c) / t->n_heads;
                printf(" %*.1f%%", width[c], 100.0 * mean);
            }
            printf("\n");
        }
        if (chance) print_chance_row(chance, l, width);
    }
}

cJSON *head_command_manifest_begin(int argc, char **argv, unsigned long long seed, const HeadOptions *o)
{
    cJSON *manifest = manifest_begin(argc, argv, seed);
    manifest_add_file(manifest, "model", o->model);
    if (o->adapter) manifest_add_file(manifest, "adapter", o->adapter);
    return manifest;
}

void head_command_manifest_repeat(cJSON *manifest, const HeadOptions *o)
{
    cJSON_AddNumberToObject(manifest, "r", o->r);
    cJSON_AddStringToObject(manifest, "bos", repeat_bos_name(o->bos));
    cJSON_AddStringToObject(manifest, "sep", repeat_sep_name(o->sep));
    cJSON_AddStringToObject(manifest, "copy_positions", repeat_positions_name(o->copy_positions));
    cJSON_AddStringToObject(manifest, "mask", o->mask_text);
    cJSON_AddStringToObject(manifest, "ablate_heads", head_plan_name(o->ablate_text));
}
