/* sweep_command.c — one run of a sweep as a `seqrep finetune` command: the
 * name of its result file, its argument vector and its shell line (see
 * sweep_command.h). */
#include "runs/sweep/sweep_command.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runs/manifest.h"
#include "train/recipe.h"

void sweep_model_label(const char *model, char *out, size_t n)
{
    const char *slash = strrchr(model, '/');
    snprintf(out, n, "%s", slash ? slash + 1 : model);
    size_t len = strlen(out), ext = strlen(".safetensors");
    if (len > ext && strcmp(out + len - ext, ".safetensors") == 0) out[len - ext] = 0;
}

int sweep_run_path(const SweepRun *run, const char *runs_dir, char *out, size_t n, SrError *err)
{
    char label[1024];
    sweep_model_label(run->model, label, sizeof label);
    char recipe[64] = "";
    if (strcmp(sweep_recipe(run), "full") != 0) snprintf(recipe, sizeof recipe, ".%s", run->recipe);
    const int renumbered = run->positions != REPEAT_POSITIONS_RUN;
    int len = snprintf(out, n, "%s/%s.%s.%s.r%d.exit%d.seed%d%s%s%s.csv", runs_dir, run->dataset,
                       label, method_name(run->method), run->r, run->exit_layer, run->seed, recipe,
                       renumbered ? "." : "", renumbered ? repeat_positions_name(run->positions) : "");
    if (len < 0 || (size_t)len >= n) return sr_fail(err, "%s: path of a run file too long", runs_dir);
    return 0;
}

int sweep_named_beside(const char *path, const char *suffix, char *out, size_t n, SrError *err)
{
    char *named = path_with_suffix(path, suffix);
    if (!named) return sr_fail(err, "out of memory");
    int fits = strlen(named) < n;
    if (fits) strcpy(out, named);
    free(named);
    return fits ? 0 : sr_fail(err, "%s: path too long", path);
}

int sweep_predictions_path(const char *run_csv, char *out, size_t n, SrError *err)
{
    return sweep_named_beside(run_csv, ".predictions.conll", out, n, err);
}

int sweep_saved_model_path(const char *run_csv, char *out, size_t n, SrError *err)
{
    return sweep_named_beside(run_csv, ".model.safetensors", out, n, err);
}

int sweep_default_runs_dir(const char *sweep_csv, char *out, size_t n, SrError *err)
{
    return sweep_named_beside(sweep_csv, ".runs", out, n, err);
}

/* Append a copy of text to argv (capacity cap); -1 when out of memory or full. */
static int push_arg(char **argv, int *argc, int cap, const char *text)
{
    if (*argc + 1 >= cap) return -1;
    char *s = strdup(text);
    if (!s) return -1;
    argv[(*argc)++] = s;
    argv[*argc] = NULL;
    return 0;
}

/* Append "--name value" with an integer value. */
static int push_int_option(char **argv, int *argc, int cap, const char *name, int value)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%d", value);
    return push_arg(argv, argc, cap, name) || push_arg(argv, argc, cap, buf) ? -1 : 0;
}

/* Append "--name value" with a float value. */
static int push_float_option(char **argv, int *argc, int cap, const char *name, float value)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%g", (double)value);
    return push_arg(argv, argc, cap, name) || push_arg(argv, argc, cap, buf) ? -1 : 0;
}

/* Append the recipe options of the run: --recipe (unless full), --adapter
 * (when its label overrides the recipe's), --grad-accum, and the --lora-*
 * options that were set when the run's adapter is lora. */
static int push_recipe(char **argv, int *argc, int cap, const SweepRun *run,
                       const SweepFinetuneOptions *o)
{
    char name[48];
    snprintf(name, sizeof name, "%s", sweep_recipe(run));
    char *plus = strchr(name, '+');
    if (plus) *plus++ = 0;
    FinetuneConfig rc;
    recipe_apply(name, &rc);
    AdapterKind adapter = rc.adapter;
    if (plus && adapter_parse(plus, &adapter)) return -1;
    int bad = 0;
    if (strcmp(name, "full") != 0)
        bad = push_arg(argv, argc, cap, "--recipe") || push_arg(argv, argc, cap, name);
    if (!bad && plus)
        bad = push_arg(argv, argc, cap, "--adapter") || push_arg(argv, argc, cap, plus);
    if (!bad && o->grad_accum_set)
        bad = push_int_option(argv, argc, cap, "--grad-accum", o->grad_accum);
    if (bad || adapter != ADAPTER_LORA) return bad;
    if (o->lora_rank_set) bad = push_int_option(argv, argc, cap, "--lora-rank", o->lora_rank);
    if (!bad && o->lora_alpha_set)
        bad = push_float_option(argv, argc, cap, "--lora-alpha", o->lora_alpha);
    if (!bad && o->lora_dropout_set)
        bad = push_float_option(argv, argc, cap, "--lora-dropout", o->lora_dropout);
    if (!bad && o->lora_targets)
        bad = push_arg(argv, argc, cap, "--lora-targets") ||
              push_arg(argv, argc, cap, o->lora_targets);
    return bad;
}

int sweep_run_argv(const SweepRun *run, const SweepFinetuneOptions *o, const char *exe,
                   const char *out_csv, char ***argv_out, int *argc_out, SrError *err)
{
    enum { CAP = 60 };
    char **argv = calloc(CAP, sizeof(char *));
    int argc = 0;
    if (!argv) return sr_fail(err, "out of memory");
    char path[1100], lr[32];
    int bad = push_arg(argv, &argc, CAP, exe) || push_arg(argv, &argc, CAP, "finetune") ||
              push_arg(argv, &argc, CAP, "--model") || push_arg(argv, &argc, CAP, run->model);
    const char *splits[3] = {"train", "dev", "test"};
    for (int s = 0; s < 3 && !bad; s++) {
        char option[16];
        snprintf(option, sizeof option, "--%s", splits[s]);
        if (snprintf(path, sizeof path, "%s/%s.conll", run->data_dir, splits[s]) >= (int)sizeof path) {
            sweep_argv_free(argv, argc);
            return sr_fail(err, "%s: path too long", run->data_dir);
        }
        bad = push_arg(argv, &argc, CAP, option) || push_arg(argv, &argc, CAP, path);
    }
    bad = bad || push_arg(argv, &argc, CAP, "--method") ||
          push_arg(argv, &argc, CAP, method_name(run->method)) ||
          push_int_option(argv, &argc, CAP, "--r", run->r) ||
          push_int_option(argv, &argc, CAP, "--exit", run->exit_layer) ||
          push_int_option(argv, &argc, CAP, "--seed", run->seed) ||
          push_int_option(argv, &argc, CAP, "--epochs", o->epochs);
    if (!bad && o->lr_set) {
        snprintf(lr, sizeof lr, "%g", (double)o->lr);
        bad = push_arg(argv, &argc, CAP, "--lr") || push_arg(argv, &argc, CAP, lr);
    }
    if (!bad && o->batch_set) bad = push_int_option(argv, &argc, CAP, "--batch", o->batch);
    if (!bad && o->threads_set) bad = push_int_option(argv, &argc, CAP, "--threads", o->threads);
    if (!bad && o->recompute) bad = push_arg(argv, &argc, CAP, "--recompute");
    bad = bad || push_recipe(argv, &argc, CAP, run, o);
    if (!bad && run->positions != REPEAT_POSITIONS_RUN)
        bad = push_arg(argv, &argc, CAP, "--copy-positions") ||
              push_arg(argv, &argc, CAP, repeat_positions_name(run->positions));
    if (!bad && o->ablate_heads)
        bad = push_arg(argv, &argc, CAP, "--ablate-heads") || push_arg(argv, &argc, CAP, o->ablate_heads);
    char predictions[1100], saved[1100];
    if (!bad && (sweep_predictions_path(out_csv, predictions, sizeof predictions, err) ||
                 sweep_saved_model_path(out_csv, saved, sizeof saved, err))) {
        sweep_argv_free(argv, argc);
        return -1;
    }
    bad = bad || push_arg(argv, &argc, CAP, "--out") || push_arg(argv, &argc, CAP, out_csv) ||
          push_arg(argv, &argc, CAP, "--predictions") || push_arg(argv, &argc, CAP, predictions);
    if (!bad && o->save_models)
        bad = push_arg(argv, &argc, CAP, "--save") || push_arg(argv, &argc, CAP, saved);
    bad = bad || push_arg(argv, &argc, CAP, "--quiet");
    if (bad) {
        sweep_argv_free(argv, argc);
        return sr_fail(err, "out of memory");
    }
    *argv_out = argv;
    *argc_out = argc;
    return 0;
}

void sweep_argv_free(char **argv, int argc)
{
    if (!argv) return;
    for (int i = 0; i < argc; i++) free(argv[i]);
    free(argv);
}

/* Write word to f, single-quoted unless it is made of plain characters only. */
static void write_shell_word(FILE *f, const char *word)
{
    static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=,:+@%";
    if (*word && strspn(word, plain) == strlen(word)) {
        fputs(word, f);
        return;
    }
    fputc('\'', f);
    for (const char *p = word; *p; p++) {
        if (*p == '\'') fputs("'\\''", f);
        else fputc(*p, f);
    }
    fputc('\'', f);
}

char *sweep_command_line(char *const *argv, int argc)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    for (int i = 0; i < argc; i++) {
        if (i) fputc(' ', f);
        write_shell_word(f, argv[i]);
    }
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}
