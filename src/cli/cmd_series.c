/* cmd_series.c — `seqrep series (--list DIR | --steps DIR)`: what a snapshot
 * series holds (the folder of `train-lm --snapshots DIR` or `finetune
 * --save-epochs DIR`), for the scripts that measure every snapshot
 * (examples/series_each.sh, series_heads.sh) and the tables made of a series
 * (examples/house_snapshots.py, house_variant.sh), so that series.json has
 * one reader, runs/series_file.h.
 *
 *   --list DIR   one line per snapshot, in the order of the steps:
 *                "STEP MODEL ADAPTER", what to load to measure it (ADAPTER
 *                "-" for a checkpoint; a LoRA fine-tuning's epochs are its
 *                base model and the epoch's adapters); every file must be
 *                there (runs/snapshot_series.h's snapshot_series_list)
 *   --steps DIR  a CSV on stdout, step,train_loss,dev_f1,test_f1: what
 *                series.json records of each step (empty where it records
 *                none); the snapshot files need not be there */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/commands.h"
#include "options/args.h"
#include "runs/series_file.h"
#include "runs/snapshot_series.h"

static const char *CMD = "series";

/* Parse argv: exactly one of --list DIR and --steps DIR into *list or
 * *steps. 0, 1 after --help, 2 after the error line. */
static int parse_options(int argc, char **argv, const char **list, const char **steps)
{
    ArgSpec specs[] = {
        {.name = "list", .type = ARG_STRING, .value = list,
         .help = "series folder (train-lm --snapshots, finetune --save-epochs): one line per snapshot, "
                 "STEP MODEL ADAPTER, what to load to measure it (ADAPTER - for a checkpoint; a LoRA "
                 "fine-tuning's epochs: its base model and the epoch's adapters); every file must be "
                 "there"},
        {.name = "steps", .type = ARG_STRING, .value = steps,
         .help = "series folder: its steps as a CSV, step,train_loss,dev_f1,test_f1 (empty where "
                 "series.json records none); the snapshot files need not be there"},
    };
    int rc = args_parse(CMD, "(--list DIR | --steps DIR)", specs, ARGS_COUNT(specs), argc, argv, NULL, 0,
                        NULL);
    if (rc) return rc;
    if (*list && *steps) return args_error(CMD, "give --list DIR or --steps DIR, not both");
    if (!*list && !*steps)
        return args_error(CMD, "missing --list DIR or --steps DIR (the series folder)");
    return 0;
}

/* --list: "STEP MODEL ADAPTER" per snapshot. 0, or 2 after the error line. */
static int print_list(const char *dir)
{
    SnapshotList l;
    SrError err;
    if (snapshot_series_list(dir, &l, &err)) return args_error(CMD, "%s", err.msg);
    for (int i = 0; i < l.n; i++)
        printf("%d %s %s\n", l.e[i].step, l.e[i].model, l.e[i].adapter ? l.e[i].adapter : "-");
    snapshot_list_free(&l);
    return 0;
}

/* ",VALUE" on stdout: x in the fewest digits (15 to 17) that read back as
 * x exactly, or "," alone for NAN (none recorded). */
static void print_number(double x)
{
    char digits[40];
    if (isnan(x)) {
        printf(",");
        return;
    }
    for (int precision = 15; precision <= 17; precision++) {
        snprintf(digits, sizeof digits, "%.*g", precision, x);
        if (strtod(digits, NULL) == x) break;
    }
    printf(",%s", digits);
}

/* --steps: the CSV of the steps and their numbers. 0, or 2 after the error
 * line. */
static int print_steps(const char *dir)
{
    SeriesFile s;
    SrError err;
    if (series_file_read(dir, &s, &err)) return args_error(CMD, "%s", err.msg);
    if (s.n == 0) {
        args_error(CMD, "%s: no snapshots", s.path);
        series_file_free(&s);
        return 2;
    }
    printf("step,train_loss,dev_f1,test_f1\n");
    for (int i = 0; i < s.n; i++) {
        printf("%d", s.e[i].step);
        print_number(s.e[i].train_loss);
        print_number(s.e[i].dev_f1);
        print_number(s.e[i].test_f1);
        printf("\n");
    }
    series_file_free(&s);
    return 0;
}

/* `seqrep series`: the options, then the list or the steps on stdout. */
int cmd_series(int argc, char **argv)
{
    const char *list = NULL, *steps = NULL;
    int rc = parse_options(argc, argv, &list, &steps);
    if (rc) return rc == 1 ? 0 : rc;
    return list ? print_list(list) : print_steps(steps);
}
